"""The range each number of the simulation keeps to, checked by the server and, before it, by the plugin.

Apart from the server's settings, so that the plugin, which every ``enginekit engines``
imports, checks its config without loading what only the server runs on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


#: The most KV-cache memory a shard may be given, in bytes: the core's ``MAX_KV_CACHE_MIB``
#: (64 TiB) in bytes, written out so that the server never imports the core.
MAX_KV_CACHE_BYTES = 64 * 1024 * 1024 * 1024 * 1024


@dataclass(frozen=True)
class Limit:
    """The range of one number of the simulation, both ends included, and its unit."""

    low: float
    high: float
    unit: str


#: Every number the simulation runs on, by the parser's name for it: the range a real
#: engine's setting could have. Anything outside (inf and nan included) would stall the
#: server or exhaust its memory, so it stops at start, and the plugin refuses it in the
#: node config and in a profile's args before anything starts.
LIMITS: Mapping[str, Limit] = {
    "startup_seconds": Limit(0, 3600, "seconds"),
    "ttft_ms": Limit(0, 600_000, "milliseconds"),
    "itl_ms": Limit(0, 60_000, "milliseconds"),
    "prefill_ms_per_token": Limit(0, 1_000, "milliseconds"),
    "kv_transfer_ms_per_token": Limit(0, 1_000, "milliseconds"),
    "heartbeat_seconds": Limit(0.001, 3600, "seconds"),
    "join_timeout": Limit(0, 86_400, "seconds"),
    "max_num_seqs": Limit(1, 65_536, "requests"),
    "max_model_len": Limit(1, 16_777_216, "tokens"),
    "block_size": Limit(1, 1024, "tokens"),
    "num_gpu_blocks_override": Limit(1, 16_777_216, "blocks"),
    # Up to the most a shard spec's kv_cache_mib may reserve (the core's MAX_KV_CACHE_MIB,
    # 64 TiB), so every spec the core accepts renders a command the server accepts.
    "kv_cache_memory_bytes": Limit(1, MAX_KV_CACHE_BYTES, "bytes"),
    # One byte up to 16 MiB a token: a 175B-class model without grouped-query attention in
    # fp32 takes under 10 MiB (96 layers x 12288 x 2 for K and V x 4 bytes).
    "kv_bytes_per_token": Limit(1, 16_777_216, "bytes"),
    # The largest request body read, counted as it arrives (chunked bodies too): at least
    # a small JSON request, at most 1 GiB, far beyond any context length.
    "max_body_bytes": Limit(1024, 1 << 30, "bytes"),
    # The largest prompt (or rendered chat) tokenized, in UTF-8 bytes: tokenizing runs on
    # the event loop, so a huge prompt would stall /health and every stream meanwhile.
    "max_prompt_bytes": Limit(1, 1 << 30, "bytes"),
    # How long one write to a streaming client may wait for it to read before the
    # client is dropped and its slot freed.
    "stream_write_timeout": Limit(0.01, 3600, "seconds"),
}


def limit_problem(name: str, value: float, limit: Limit, *, shown: bool = True) -> str | None:
    """Why ``value`` is outside ``limit``, naming it ``name``; None when it is inside.

    :param shown: Whether the message may quote the value (not for a profile's args).
    """
    got = f", got {_number(value)}" if shown else ""
    if not math.isfinite(value):
        # nan compares false with everything and inf is no duration: name them first.
        return f"{name} must be a finite number{got}"
    if not limit.low <= value <= limit.high:
        return f"{name} must be between {_number(limit.low)} and {_number(limit.high)} {limit.unit}{got}"
    return None


def _number(value: float) -> str:
    """A number as a person writes it: whole ones in full, others in ``g`` form."""
    if math.isfinite(value) and float(value).is_integer() and abs(value) < 1e16:
        return str(int(value))
    return f"{value:g}"


def number_problems(args: argparse.Namespace, *, shown: bool = True) -> list[str]:
    """Each number of ``serve``'s arguments outside its :data:`LIMITS`, named as an option."""
    found = []
    for dest, limit in LIMITS.items():
        value = getattr(args, dest)
        if value is None:  # an option with no default left out: nothing to check
            continue
        problem = limit_problem("--" + dest.replace("_", "-"), value, limit, shown=shown)
        if problem:
            found.append(problem)
    return found
