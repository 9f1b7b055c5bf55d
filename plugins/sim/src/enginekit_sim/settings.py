"""The server's settings, checked as a real engine checks its own at start: bad ones exit 1 with a reason."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from enginekit_sim.cli import API_KEY_ENV, visible_devices
from enginekit_sim.faults import Fault, parse_faults


class StartupError(Exception):
    """A setting the engine refuses at start: it exits 1 with this message, as vLLM would."""


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
    "heartbeat_seconds": Limit(0.001, 3600, "seconds"),
    "join_timeout": Limit(0, 86_400, "seconds"),
    "max_num_seqs": Limit(1, 65_536, "requests"),
    "max_model_len": Limit(1, 16_777_216, "tokens"),
    "block_size": Limit(1, 1024, "tokens"),
    "num_gpu_blocks_override": Limit(1, 16_777_216, "blocks"),
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
        problem = limit_problem("--" + dest.replace("_", "-"), getattr(args, dest), limit, shown=shown)
        if problem:
            found.append(problem)
    return found


@dataclass(frozen=True)
class KVEvents:
    """Where and how KV-cache events are published (vLLM's ``KVEventsConfig`` subset)."""

    endpoint: str
    topic: str = ""
    fmt: str = "map"


@dataclass(frozen=True)
class Settings:
    """Everything the server runs with, resolved from arguments and environment."""

    model: str
    names: tuple[str, ...]
    host: str
    port: int
    tp: int
    pp: int
    nnodes: int
    rank: int
    master_addr: str
    master_port: int
    adapters: dict[str, str]
    kv_events: KVEvents | None
    threads: int
    startup_s: float
    ttft_s: float
    itl_s: float
    prefill_s_per_token: float
    max_num_seqs: int
    max_model_len: int
    seed: int
    block_size: int
    num_blocks: int
    heartbeat_s: float
    join_timeout_s: float
    devices: tuple[str, ...]
    api_key: str = field(default="", repr=False)
    faults: tuple[Fault, ...] = ()

    @property
    def served_name(self) -> str:
        """The name responses and metrics carry: the first served name, as in vLLM."""
        return self.names[0]

    def fault(self, kind: str) -> Fault | None:
        """The fault of this kind injected on this rank, if any (the last one given wins)."""
        found = [f for f in self.faults if f.kind == kind]
        return found[-1] if found else None


def settings_from(args: argparse.Namespace, environ: Mapping[str, str]) -> Settings:
    """Resolve and check the arguments of ``serve``; every problem is reported at once.

    :raises StartupError: listing what a real engine would refuse to start with.
    """
    problems = []
    for name in ("tensor_parallel_size", "pipeline_parallel_size", "nnodes"):
        if getattr(args, name) < 1:
            problems.append(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    problems += number_problems(args)
    if not 0 <= args.node_rank < max(args.nnodes, 1):
        problems.append(f"--node-rank must be in 0..{args.nnodes - 1}, got {args.node_rank}")
    world = args.tensor_parallel_size * args.pipeline_parallel_size
    if args.nnodes >= 1 and world % args.nnodes:
        problems.append(f"--nnodes {args.nnodes} must divide the world size TP x PP = {world}")
    devices = tuple(visible_devices(environ))
    per_node = world // max(args.nnodes, 1)
    # vLLM refuses a world larger than the GPUs it sees; a CPU shard (no devices) runs anyway.
    if devices and len(devices) < per_node:
        problems.append(
            f"World size per node ({per_node}) is larger than the number of available GPUs "
            f"({len(devices)}: CUDA_VISIBLE_DEVICES={','.join(devices)})"
        )
    adapters = _adapters(args.lora_modules, problems)
    if adapters and not args.enable_lora:
        problems.append("LoRA is not enabled. Use --enable-lora to enable LoRA.")
    kv_events = _kv_events(args.kv_events_config, args.kv_event_format, problems)
    if problems:
        raise StartupError("; ".join(problems))
    faults = tuple(f for f in parse_faults(args.fault) if f.applies_to(args.node_rank))
    return Settings(
        model=args.model,
        names=tuple(args.served_model_name or [args.model]),
        host=args.host,
        port=args.port,
        tp=args.tensor_parallel_size,
        pp=args.pipeline_parallel_size,
        nnodes=args.nnodes,
        rank=args.node_rank,
        master_addr=args.master_addr,
        master_port=args.master_port,
        adapters=adapters,
        kv_events=kv_events,
        threads=args.threads,
        startup_s=args.startup_seconds,
        ttft_s=args.ttft_ms / 1000,
        itl_s=args.itl_ms / 1000,
        prefill_s_per_token=args.prefill_ms_per_token / 1000,
        max_num_seqs=args.max_num_seqs,
        max_model_len=args.max_model_len,
        seed=args.seed,
        block_size=args.block_size,
        num_blocks=args.num_gpu_blocks_override,
        heartbeat_s=args.heartbeat_seconds,
        join_timeout_s=args.join_timeout,
        devices=() if any(f.kind == "cpu-fallback" for f in faults) else devices,
        api_key=environ.get(API_KEY_ENV, ""),
        faults=faults,
    )


def _adapters(items: list[str], problems: list[str]) -> dict[str, str]:
    # vLLM's rule: ``name=path`` when the item has '=' and no ',', else a JSON object.
    adapters: dict[str, str] = {}
    for item in items:
        if "=" in item and "," not in item:
            name, path = item.split("=", 1)
        else:
            try:
                obj = json.loads(item)
                name, path = str(obj["name"]), str(obj["path"])
            except (ValueError, KeyError, TypeError):
                problems.append(
                    f"--lora-modules: {item!r} is neither name=path nor a JSON object with name/path"
                )
                continue
        adapters[name] = path
    return adapters


def _kv_events(text: str, fmt: str, problems: list[str]) -> KVEvents | None:
    if not text:
        return None
    try:
        config = json.loads(text)
        if not isinstance(config, dict):
            raise ValueError("not an object")
    except ValueError as exc:
        problems.append(f"--kv-events-config: not a JSON object ({exc})")
        return None
    if not config.get("enable_kv_cache_events"):
        return None
    publisher = config.get("publisher") or "zmq"
    if publisher != "zmq":
        problems.append(f"--kv-events-config: publisher {publisher!r} is not supported; use 'zmq'")
        return None
    return KVEvents(
        endpoint=str(config.get("endpoint", "tcp://*:5557")), topic=str(config.get("topic", "")), fmt=fmt
    )
