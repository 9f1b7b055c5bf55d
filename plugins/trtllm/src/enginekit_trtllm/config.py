"""``[engines.trtllm]``: where TensorRT-LLM's interpreter is, and what the site allows it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import attrs
from enginekit import plugin as ek
from enginekit.plugin import check_executable

from enginekit_trtllm.flags import (
    ALLOWABLE,
    BACKEND_CHOICES,
    NEVER_ALLOWED,
    SERVED_NAME_FLAG,
    VERSION_SETTING,
    option_table,
)

if TYPE_CHECKING:
    from enginekit.plugin import ReleaseOptions

#: Every ``--backend`` value some release read takes (1.2.x: ``pytorch``, ``tensorrt`` and
#: ``_autodeploy``, ``trt`` an alias of ``tensorrt``); which the configured release still
#: takes is in ``BACKEND_CHOICES``, where it was checked.
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
    version = "1.3.0rc29"                     # the release that interpreter runs
    allow_args = ["--trust_remote_code"]      # code-loading options the site accepts
    """

    #: The interpreter TensorRT-LLM is installed in (an absolute path, or a name the agent
    #: finds on its PATH); empty means this node does not offer it.
    python: str = attrs.field(default="", validator=_check_python)
    backend: str = attrs.field(default="pytorch", validator=_check_backend)
    #: The release the interpreter runs: picks the option table pass-through args are
    #: checked against, and the flags only some releases have (``--served_model_name``).
    #: Empty: not said, and the newest release read is assumed, with a note in the plan.
    version: str = ek.version()
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

    def __attrs_post_init__(self) -> None:
        problem = backend_problem(self)
        if problem:
            raise ValueError(problem)

    @property
    def options(self) -> ReleaseOptions:
        """What the configured release's ``serve`` accepts, from the option table.

        With no version, or one the table has not read, another release's options stand
        in, and ``note`` says which. The table keeps each view it makes, so this is a lookup
        after the first call (a cached property would add its annotation, a type imported
        here only for checking, to those the core resolves on a config class).
        """
        return option_table().for_release(self.version or None, setting=VERSION_SETTING)

    @property
    def release(self) -> str:
        """The release as messages name it: the configured one, or the newest read when unset."""
        return self.version or self.options.read


def has_served_name(config: TrtllmConfig) -> bool:
    """Whether the configured release (or the release read standing in for it) has ``--served_model_name``."""
    return config.options.accepts(SERVED_NAME_FLAG)


def backend_problem(config: TrtllmConfig) -> str | None:
    """Why the configured release's ``serve`` refuses ``backend``, where its choices are known."""
    if config.backend == "pytorch":
        return None  # every release's default: no table to read
    view = config.options
    choices = BACKEND_CHOICES.get(view.read)
    if choices is None or config.backend in choices:
        return None
    listed = " | ".join(choices)
    if not config.version:
        return (
            f"backend {config.backend!r}: no release is set ({VERSION_SETTING}), so the newest "
            f"release read, {view.table.program} {view.read}, is assumed, and its --backend takes "
            f"only {listed}; set "
            f"version to the release the node runs, or use one of those backends"
        )
    return (
        f"backend {config.backend!r}: {view.name} no longer takes it (its --backend takes only "
        f"{listed}); use one of those backends, or check that version is the release the node runs"
    )
