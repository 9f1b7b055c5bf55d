"""``[engines.trtllm]``: where TensorRT-LLM's interpreter is, and what the site allows it."""

from __future__ import annotations

import re
from typing import Any

import attrs

from enginekit_trtllm.flags import MANAGED

#: The newest release whose documentation this plugin was checked against.
DEFAULT_VERSION = "1.4.0rc4"
#: ``--backend`` choices in the CLI reference @9e7f85f6 (``trt`` is an alias of ``tensorrt``).
BACKENDS = ("pytorch", "tensorrt", "_autodeploy")
#: TensorRT-LLM's names for the attention and MLP projections of Llama-like models
#: (``get_default_trtllm_modules_to_hf_modules``: q/k/v/o, gate/down/up). With more than
#: one adapter the pytorch backend asserts "Expecting at least one lora target module"
#: instead of reading them from the adapters, so enginekit must name them.
DEFAULT_LORA_TARGET_MODULES = (
    "attn_q",
    "attn_k",
    "attn_v",
    "attn_dense",
    "mlp_h_to_4h",
    "mlp_4h_to_h",
    "mlp_gate",
)

_VERSION = re.compile(r"(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?(?:\.post(\d+))?(?:\.dev(\d+))?(?:\+[\w.]+)?\Z")
_MODULE_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def version_key(text: str) -> tuple[Any, ...]:
    """A sort key for a PEP 440 release string such as ``1.3.0rc7``.

    :raises ValueError: when ``text`` is not a release number.
    """
    match = _VERSION.match(text)
    if not match:
        raise ValueError(f"expected a release such as {DEFAULT_VERSION!r}, got {text!r}")
    release = [int(part) for part in match[1].split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    # A final release sorts after its pre-releases, and a .dev build before both.
    pre = ({"a": 0, "b": 1, "rc": 2}[match[2]], int(match[3])) if match[2] else (3, 0)
    post = int(match[4]) if match[4] else -1
    dev = int(match[5]) if match[5] else float("inf")
    return (tuple(release), pre, post, dev)


def at_least(version: str, since: str) -> bool:
    """Whether release ``version`` is ``since`` or newer."""
    return version_key(version) >= version_key(since)


def _check_python(_: object, attribute: attrs.Attribute[str], value: str) -> None:
    if value and (not value.startswith("/") or value.endswith("/") or _CONTROL.search(value)):
        # A bare name would be looked up on the supervisor's PATH, as root.
        raise ValueError(f"python: expected the interpreter's absolute path, got {value!r}")


def _check_backend(_: object, attribute: attrs.Attribute[str], value: str) -> None:
    if value not in BACKENDS:
        raise ValueError(f"backend: expected one of {', '.join(BACKENDS)}, got {value!r}")


def _check_version(_: object, attribute: attrs.Attribute[str], value: str) -> None:
    try:
        version_key(value)
    except ValueError as exc:
        raise ValueError(f"version: {exc}") from None


def _check_allow_args(_: object, attribute: attrs.Attribute[tuple[str, ...]], value: tuple[str, ...]) -> None:
    for flag in value:
        if not flag.startswith("--") or "=" in flag:
            raise ValueError(f"allow_args: expected long options such as '--trust_remote_code', got {flag!r}")
        if flag in MANAGED:
            raise ValueError(f"allow_args: {flag} is set by enginekit and cannot be allowed")


def _check_modules(_: object, attribute: attrs.Attribute[tuple[str, ...]], value: tuple[str, ...]) -> None:
    if not value or not all(_MODULE_NAME.match(name) for name in value):
        raise ValueError(f"lora_target_modules: expected TensorRT-LLM module names, got {list(value)}")


def _check_rank(_: object, attribute: attrs.Attribute[int], value: int) -> None:
    if value < 1:
        raise ValueError(f"max_lora_rank: expected a positive rank, got {value}")


@attrs.frozen(kw_only=True)
class TrtllmConfig:
    """The node config's ``[engines.trtllm]`` section::

    [engines.trtllm]
    python = "/opt/tensorrt-llm/bin/python"   # required: the agent does not install it
    version = "1.4.0rc4"                      # the release that interpreter runs
    allow_args = ["--trust_remote_code"]      # code-loading options the site accepts
    """

    #: The interpreter TensorRT-LLM is installed in; empty means this node does not offer it.
    python: str = attrs.field(default="", validator=_check_python)
    backend: str = attrs.field(default="pytorch", validator=_check_backend)
    #: Decides the flags only some releases have (``--served_model_name``).
    version: str = attrs.field(default=DEFAULT_VERSION, validator=_check_version)
    #: Risky or unlisted options the site accepts in profiles' args, canonical spelling.
    allow_args: tuple[str, ...] = attrs.field(default=(), validator=_check_allow_args)
    #: trtllm-serve has no authentication: without this a shard with an API key is refused.
    allow_unauthenticated: bool = False
    #: Serve Prometheus text at /prometheus/metrics (``return_perf_metrics`` in the options file).
    prometheus_metrics: bool = True
    #: The largest adapter rank the LoRA cache is sized for (TensorRT-LLM's default).
    max_lora_rank: int = attrs.field(default=64, validator=_check_rank)
    #: The modules LoRA applies to when a profile has several adapters.
    lora_target_modules: tuple[str, ...] = attrs.field(
        default=DEFAULT_LORA_TARGET_MODULES, validator=_check_modules
    )
