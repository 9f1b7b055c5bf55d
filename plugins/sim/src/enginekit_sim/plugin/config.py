"""``[engines.sim]``: the node's settings for the simulated engine, the defaults of every shard it starts."""

from __future__ import annotations

import math
from typing import Any

import attrs
from enginekit.plugin import allow_args, executable

from enginekit_sim.commandline import DEFAULT_KV_BYTES_PER_TOKEN, DEFAULT_NUM_GPU_BLOCKS
from enginekit_sim.faults import parse_faults
from enginekit_sim.limits import LIMITS, Limit, limit_problem
from enginekit_sim.plugin.flags import CODE_LOADING, MANAGED, SECRETS


class Real(float):
    """A real number from a node config: an int or a float, finite; never a bool or a string.

    The node config's converter would turn ``"50"``, ``true``, ``"1_0"`` or ``"٥"`` into
    a float with ``float()``: a field of this type gets the value as written instead and
    refuses all of them, and inf and nan, which no duration or rate can be.
    """

    def __new__(cls, value: object) -> Real:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"expected a number, got {_kind(value)}")
        try:
            number = float(value)
        except OverflowError:  # an int beyond any float
            raise ValueError(f"expected a number of at most {len(str(2**1024))} digits") from None
        if not math.isfinite(number):
            raise ValueError(f"expected a finite number, got {number}")
        return super().__new__(cls, number)


def _kind(value: object) -> str:
    # The type only: a string could hold anything, and this ends up in logs.
    return {bool: "true or false", str: "a string"}.get(type(value), type(value).__name__)


def _within(option: str, *, low: float | None = None) -> Any:
    """A validator keeping a field inside the server's limit for ``option`` (``LIMITS``)."""
    limit = LIMITS[option]
    if low is not None:
        limit = Limit(low, limit.high, limit.unit)

    def check(instance: Any, attribute: attrs.Attribute[Any], value: float) -> None:
        problem = limit_problem(attribute.name, value, limit)
        if problem:
            raise ValueError(problem)

    return check


def _faults(instance: Any, attribute: attrs.Attribute[Any], value: tuple[str, ...]) -> None:
    parse_faults(value)


@attrs.frozen(kw_only=True)
class SimConfig:
    """The simulated engine's node config; every value is rendered on the command line.

    A profile's pass-through arguments may override the latency model and add faults
    for one model; these are the node's defaults. Numbers keep to the limits the server
    itself checks at start (:data:`enginekit_sim.limits.LIMITS`), so a node config the
    plugin accepts never renders a command the server refuses.
    """

    #: The interpreter that runs ``-m enginekit_sim``; it must have enginekit-sim
    #: installed. An absolute path, or a bare name found on the agent's PATH at launch.
    python: str = executable("python3")
    startup_seconds: Real = attrs.field(
        default=Real(2.0), converter=Real, validator=_within("startup_seconds")
    )
    ttft_ms: Real = attrs.field(default=Real(50.0), converter=Real, validator=_within("ttft_ms"))
    itl_ms: Real = attrs.field(default=Real(15.0), converter=Real, validator=_within("itl_ms"))
    #: Added to the time to first token for each prompt token the prefix cache missed.
    prefill_ms_per_token: Real = attrs.field(
        default=Real(0.0), converter=Real, validator=_within("prefill_ms_per_token")
    )
    #: What a decode instance waits for each prompt token it reads from a prefill's KV cache
    #: (in place of computing it): the modelled transfer time of disaggregated serving.
    kv_transfer_ms_per_token: Real = attrs.field(
        default=Real(0.0), converter=Real, validator=_within("kv_transfer_ms_per_token")
    )
    #: Requests running at once (vLLM's ``--max-num-seqs``); more wait in the queue.
    max_num_seqs: int = attrs.field(default=256, validator=_within("max_num_seqs"))
    max_model_len: int = attrs.field(default=4096, validator=_within("max_model_len"))
    block_size: int = attrs.field(default=16, validator=_within("block_size"))
    #: The simulated KV cache's capacity in blocks; on a CPU shard given ``kv_cache_mib``,
    #: that memory sizes it instead (over ``block_size`` x ``kv_bytes_per_token``).
    num_gpu_blocks: int = attrs.field(
        default=DEFAULT_NUM_GPU_BLOCKS, validator=_within("num_gpu_blocks_override")
    )
    #: Bytes of KV cache one token takes, which turns a CPU shard's ``kv_cache_mib`` into
    #: blocks: by default an 8B-class model in bf16 (see ``DEFAULT_KV_BYTES_PER_TOKEN``).
    kv_bytes_per_token: int = attrs.field(
        default=DEFAULT_KV_BYTES_PER_TOKEN, validator=_within("kv_bytes_per_token")
    )
    seed: int = 0
    #: The ZMQ topic of KV-cache events; empty (vLLM's default) sends them untopiced.
    kv_events_topic: str = ""
    #: ``map`` (vLLM since it dropped array_like, vllm#42892) or ``array`` (older vLLM).
    kv_event_format: str = attrs.field(default="map", validator=attrs.validators.in_(("map", "array")))
    #: Whose disaggregated serving a prefill or decode shard speaks: ``vllm`` (NIXL's
    #: ``kv_transfer_params`` and side channel, for vllm-router) or ``sglang`` (its
    #: ``--disaggregation-mode`` and bootstrap server, for sglang-router).
    disaggregation: str = attrs.field(default="vllm", validator=attrs.validators.in_(("vllm", "sglang")))
    #: Faults injected into every shard of this node (see enginekit_sim.faults.FAULTS).
    faults: tuple[str, ...] = attrs.field(default=(), validator=_faults)
    #: Code-loading options a profile may pass through anyway (canonical spelling).
    allow_args: tuple[str, ...] = allow_args(CODE_LOADING, never=(*MANAGED, *SECRETS))
