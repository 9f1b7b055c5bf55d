"""``[engines.sim]``: the node's settings for the simulated engine, the defaults of every shard it starts."""

from __future__ import annotations

from typing import Any

import attrs

from enginekit_sim.faults import parse_faults


def _non_negative(instance: Any, attribute: attrs.Attribute[Any], value: float) -> None:
    if not value >= 0:
        raise ValueError(f"{attribute.name} must be 0 or more, got {value!r}")


def _positive(instance: Any, attribute: attrs.Attribute[Any], value: int) -> None:
    if value < 1:
        raise ValueError(f"{attribute.name} must be at least 1, got {value!r}")


def _faults(instance: Any, attribute: attrs.Attribute[Any], value: tuple[str, ...]) -> None:
    parse_faults(value)


def _python(instance: Any, attribute: attrs.Attribute[Any], value: str) -> None:
    if not value or value.startswith("-") or any(c < " " for c in value):
        raise ValueError(f"python must name an interpreter, got {value!r}")


@attrs.frozen(kw_only=True)
class SimConfig:
    """The simulated engine's node config; every value is rendered on the command line.

    A profile's pass-through arguments may override the latency model and add faults
    for one model; these are the node's defaults.
    """

    #: The interpreter that runs ``-m enginekit_sim``; it must have enginekit-sim
    #: installed. An absolute path is safer: a bare name is looked up in the child's PATH.
    python: str = attrs.field(default="python3", validator=_python)
    startup_seconds: float = attrs.field(default=2.0, validator=_non_negative)
    ttft_ms: float = attrs.field(default=50.0, validator=_non_negative)
    itl_ms: float = attrs.field(default=15.0, validator=_non_negative)
    #: Added to the time to first token for each prompt token the prefix cache missed.
    prefill_ms_per_token: float = attrs.field(default=0.0, validator=_non_negative)
    #: Requests running at once (vLLM's ``--max-num-seqs``); more wait in the queue.
    max_num_seqs: int = attrs.field(default=256, validator=_positive)
    max_model_len: int = attrs.field(default=4096, validator=_positive)
    block_size: int = attrs.field(default=16, validator=_positive)
    #: The simulated KV cache's capacity in blocks.
    num_gpu_blocks: int = attrs.field(default=2048, validator=_positive)
    seed: int = 0
    #: The ZMQ topic of KV-cache events; empty (vLLM's default) sends them untopiced.
    kv_events_topic: str = ""
    #: ``map`` (vLLM since it dropped array_like, vllm#42892) or ``array`` (older vLLM).
    kv_event_format: str = attrs.field(default="map", validator=attrs.validators.in_(("map", "array")))
    #: Faults injected into every shard of this node (see enginekit_sim.faults.FAULTS).
    faults: tuple[str, ...] = attrs.field(default=(), validator=_faults)
    #: Code-loading options a profile may pass through anyway (canonical spelling).
    allow_args: tuple[str, ...] = ()
