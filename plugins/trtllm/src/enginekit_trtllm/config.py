"""``[engines.trtllm]``: where TensorRT-LLM's interpreter is, and what the site allows it."""

from __future__ import annotations

import re

import attrs
from enginekit import plugin as ek
from enginekit.plugin import check_executable, parse_version

from enginekit_trtllm.flags import ALLOWABLE, NEVER_ALLOWED, SERVED_NAME_SINCE

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

_MODULE_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


def _check_python(instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    # Empty is the default, and means this node does not offer TensorRT-LLM (the agent does
    # not install it): ``unavailable`` says how to name one. Anything else is a program.
    if value != "":
        check_executable(instance, attribute, value)


def _check_backend(_: object, attribute: attrs.Attribute[str], value: str) -> None:
    if value not in BACKENDS:
        raise ValueError(f"backend: expected one of {', '.join(BACKENDS)}, got {value!r}")


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

    #: The interpreter TensorRT-LLM is installed in (an absolute path, or a name the agent
    #: finds on its PATH); empty means this node does not offer it.
    python: str = attrs.field(default="", validator=_check_python)
    backend: str = attrs.field(default="pytorch", validator=_check_backend)
    #: Decides the flags only some releases have (``--served_model_name``).
    version: str = ek.version(DEFAULT_VERSION)
    #: Risky or unlisted options the site accepts in profiles' args, canonical spelling.
    allow_args: tuple[str, ...] = ek.allow_args(ALLOWABLE, never=NEVER_ALLOWED)
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


def has_served_name(config: TrtllmConfig) -> bool:
    """Whether the configured release has ``--served_model_name``."""
    return parse_version(config.version) >= SERVED_NAME_SINCE
