"""The server's settings, checked as a real engine checks its own at start: bad ones exit 1 with a reason."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field

from enginekit_sim.commandline import (
    API_KEY_ENV,
    CPU_FALLBACK_ENV,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_PROMPT_BYTES,
    DEFAULT_NUM_GPU_BLOCKS,
    DEFAULT_STREAM_WRITE_TIMEOUT,
)
from enginekit_sim.faults import Fault, parse_faults

# The limits live beside the option table, which the plugin imports without the server;
# the server's code and tests find them here too.
from enginekit_sim.limits import LIMITS as LIMITS
from enginekit_sim.limits import Limit as Limit
from enginekit_sim.limits import limit_problem as limit_problem
from enginekit_sim.limits import number_problems
from enginekit_sim.server.transfer import TransferConfig, bootstrap_config, transfer_config


def visible_devices(environ: Mapping[str, str]) -> list[str]:
    """The GPUs a process with ``environ`` was given: ``CUDA_VISIBLE_DEVICES``, minus a CPU fallback."""
    if environ.get(CPU_FALLBACK_ENV) == "1":
        return []
    value = environ.get("CUDA_VISIBLE_DEVICES", "")
    # CUDA stops at the first invalid entry; -1 is the conventional "none".
    devices = []
    for item in (part.strip() for part in value.split(",")):
        if not item or item.startswith("-"):
            break
        devices.append(item)
    return devices


#: vLLM's idle keep-alive, in seconds, and the variable that changes it (read as vLLM does).
DEFAULT_KEEP_ALIVE = 5
KEEP_ALIVE_ENV = "VLLM_HTTP_TIMEOUT_KEEP_ALIVE"
MAX_KEEP_ALIVE = 3600


def _keep_alive(environ: Mapping[str, str], problems: list[str]) -> int:
    text = environ.get(KEEP_ALIVE_ENV, "").strip()
    if not text:
        return DEFAULT_KEEP_ALIVE
    if not (text.isascii() and text.isdigit() and len(text) <= 4) or not 1 <= int(text) <= MAX_KEEP_ALIVE:
        problems.append(f"{KEEP_ALIVE_ENV} must be whole seconds in 1..{MAX_KEEP_ALIVE}, got {text[:40]!r}")
        return DEFAULT_KEEP_ALIVE
    return int(text)


#: vLLM's switch for its development endpoints, POST /reset_prefix_cache among them: vLLM
#: 0.32 registers them only when it is set (vllm/entrypoints/launchers/api_server/routers.py).
DEV_MODE_ENV = "VLLM_SERVER_DEV_MODE"


def _dev_mode(environ: Mapping[str, str], problems: list[str]) -> bool:
    text = environ.get(DEV_MODE_ENV)
    if text is None:
        return False
    # Read as vllm/envs.py reads it, bool(int(value)): " 1", "2" and "-1" are on, "0" off, and
    # anything int() refuses ("", "true") stops vLLM at start, as it stops the sim.
    try:
        return bool(int(text))
    except ValueError:
        problems.append(f"{DEV_MODE_ENV} must be an integer (vLLM reads it with int()), got {text[:40]!r}")
        return False


class StartupError(Exception):
    """A setting the engine refuses at start: it exits 1 with this message, as vLLM would."""


@dataclass(frozen=True)
class KVEvents:
    """Where and how KV-cache events are published (vLLM's ``KVEventsConfig`` subset).

    The defaults are ``KVEventsConfig``'s (vllm/config/kv_events.py, vLLM 0.32).
    """

    endpoint: str
    topic: str = ""
    fmt: str = "map"
    #: The ROUTER socket that answers replay requests; None for none.
    replay_endpoint: str | None = None
    #: How many past batches the replay buffer keeps.
    buffer_steps: int = 10_000
    #: The publishing socket's high-water mark.
    hwm: int = 100_000
    #: vLLM's queue of batches waiting for its publisher thread; the sim publishes from its
    #: event loop and has none, and only reports it.
    max_queue_size: int = 100_000


#: vLLM's data-parallel balancing modes, by the flag that chooses each (none: internal).
INTERNAL, HYBRID, EXTERNAL = "internal", "hybrid", "external"
#: The most data-parallel ranks a replica may have: the core's ``MAX_PARALLEL``.
MAX_DATA_PARALLEL = 65536


@dataclass(frozen=True)
class DataParallel:
    """This process's place in a data-parallel replica, read from vLLM's flags (vLLM's numbering).

    The process hosting rank 0 is the leader: it listens on ``address:rpc_port`` and every
    other process of the replica joins it there.
    """

    size: int
    #: The ranks this process hosts, in order.
    ranks: tuple[int, ...]
    mode: str
    address: str
    rpc_port: int
    #: Whether this process serves the API (not ``--headless``).
    serves: bool

    @property
    def leader(self) -> bool:
        """Whether this process hosts rank 0: the one every other process joins."""
        return self.ranks[0] == 0

    @property
    def fronted(self) -> tuple[int, ...]:
        """The ranks this process's API server spreads requests over: vLLM's rule per mode."""
        if not self.serves:
            return ()
        return tuple(range(self.size)) if self.mode == INTERNAL else self.ranks


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
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_prompt_bytes: int = DEFAULT_MAX_PROMPT_BYTES
    stream_write_timeout_s: float = DEFAULT_STREAM_WRITE_TIMEOUT
    #: Seconds an idle keep-alive connection stays open (vLLM's VLLM_HTTP_TIMEOUT_KEEP_ALIVE).
    keep_alive_s: float = DEFAULT_KEEP_ALIVE
    api_key: str = field(default="", repr=False)
    faults: tuple[Fault, ...] = ()
    #: How ``num_blocks`` was worked out from ``--kv-cache-memory-bytes``, said at start;
    #: empty when the blocks were given.
    kv_cache_note: str = ""
    #: Its place in a data-parallel replica; None without data parallel.
    dp: DataParallel | None = None
    #: vLLM's --enable-scale-out: the render endpoints answer (403 without).
    enable_scale_out: bool = False
    #: VLLM_SERVER_DEV_MODE set to a non-zero integer: POST /reset_prefix_cache is served.
    dev_mode: bool = False
    #: ``--kv-transfer-config``: a prefill or decode instance's side channel; None without.
    transfer: TransferConfig | None = None

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
    dp = _data_parallel(args, problems)
    devices = tuple(visible_devices(environ))
    per_node = world // max(args.nnodes, 1) * (len(dp.ranks) if dp is not None else 1)
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
    num_blocks, kv_cache_note = kv_cache_blocks(args, problems)
    keep_alive = _keep_alive(environ, problems)
    dev_mode = _dev_mode(environ, problems)
    transfer = transfer_config(args.kv_transfer_config, environ, args.kv_transfer_ms_per_token, problems)
    bootstrap = bootstrap_config(
        args.disaggregation_mode,
        args.disaggregation_bootstrap_port,
        args.host,
        args.kv_transfer_ms_per_token,
        problems,
    )
    if transfer is not None and bootstrap is not None:
        problems.append("--kv-transfer-config (vLLM's) and --disaggregation-mode (SGLang's): give one")
    transfer = transfer or bootstrap
    if transfer is not None and dp is not None:
        problems.append(
            "--kv-transfer-config: the simulator moves no KV cache between data-parallel ranks' instances"
        )
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
        num_blocks=num_blocks,
        heartbeat_s=args.heartbeat_seconds,
        join_timeout_s=args.join_timeout,
        max_body_bytes=args.max_body_bytes,
        max_prompt_bytes=args.max_prompt_bytes,
        stream_write_timeout_s=args.stream_write_timeout,
        keep_alive_s=keep_alive,
        devices=() if any(f.kind == "cpu-fallback" for f in faults) else devices,
        api_key=environ.get(API_KEY_ENV, ""),
        faults=faults,
        kv_cache_note=kv_cache_note,
        dp=dp,
        enable_scale_out=args.enable_scale_out,
        dev_mode=dev_mode,
        transfer=transfer,
    )


def _data_parallel(args: argparse.Namespace, problems: list[str]) -> DataParallel | None:
    """The data-parallel flags read as vLLM reads them, refused where vLLM would refuse them.

    Under external balancing ``--data-parallel-rank`` names the one rank; otherwise the
    process hosts ``--data-parallel-size-local`` ranks (all of them when not given) from
    ``--data-parallel-start-rank``.
    """
    size = args.data_parallel_size
    if not 1 <= size <= MAX_DATA_PARALLEL:
        problems.append(f"--data-parallel-size must be in 1..{MAX_DATA_PARALLEL}, got {size}")
        return None
    if args.data_parallel_hybrid_lb and args.data_parallel_external_lb:
        problems.append("--data-parallel-hybrid-lb and --data-parallel-external-lb cannot both be set")
        return None
    mode = INTERNAL
    if args.data_parallel_hybrid_lb or args.data_parallel_external_lb:
        mode = HYBRID if args.data_parallel_hybrid_lb else EXTERNAL
    if size == 1:
        if mode != INTERNAL or args.data_parallel_rank is not None:
            problems.append("load balancing between data-parallel ranks needs --data-parallel-size above 1")
        return None
    if args.nnodes > 1:
        # vLLM's multi-node data parallel runs one process per node; a rank spanning nodes
        # is tensor/pipeline parallel over them, which the simulator's join does not mix in.
        problems.append("--nnodes above 1 with --data-parallel-size: a data-parallel rank must fit one node")
    if mode == EXTERNAL or (args.data_parallel_rank is not None and mode == INTERNAL):
        rank = args.data_parallel_rank
        if rank is None:
            problems.append("--data-parallel-external-lb needs --data-parallel-rank")
            return None
        mode = EXTERNAL  # vLLM: a rank given alone is external balancing
        ranks: tuple[int, ...] = (rank,)
    else:
        local = size if args.data_parallel_size_local is None else args.data_parallel_size_local
        start = args.data_parallel_start_rank
        ranks = tuple(range(start, start + local))
        if local < 1:
            problems.append(f"--data-parallel-size-local must be at least 1, got {local}")
            return None
    if not 0 <= ranks[0] <= ranks[-1] < size:
        problems.append(f"data-parallel ranks {ranks[0]}..{ranks[-1]} are not within 0..{size - 1}")
    serves = not args.headless
    if mode != INTERNAL and not serves:
        problems.append(f"--headless: under {mode} balancing every process serves its own ranks' API")
    if mode == INTERNAL and serves and ranks[0] != 0:
        problems.append(
            "an API server under internal balancing fronts every rank from the process of rank 0: "
            "give the others --headless"
        )
    if mode == INTERNAL and not serves and ranks[0] == 0:
        problems.append("--headless on the process of rank 0: under internal balancing it serves the API")
    if not 1 <= args.data_parallel_rpc_port <= 65535:
        problems.append(f"--data-parallel-rpc-port must be in 1..65535, got {args.data_parallel_rpc_port}")
    return DataParallel(
        size=size,
        ranks=ranks,
        mode=mode,
        address=args.data_parallel_address,
        rpc_port=args.data_parallel_rpc_port,
        serves=serves,
    )


def kv_cache_blocks(args: argparse.Namespace, problems: list[str]) -> tuple[int, str]:
    """The KV cache's capacity in blocks, and how it was worked out when given in bytes.

    ``--kv-cache-memory-bytes`` holds as many whole blocks of ``--block-size`` tokens of
    ``--kv-bytes-per-token`` bytes as fit, and at least one; the note says so when it
    rounds. Given with ``--num-gpu-blocks-override`` it is a problem: two sizes for one
    cache, and a simulation that silently picked one would hide which a test exercised.
    """
    memory, blocks = args.kv_cache_memory_bytes, args.num_gpu_blocks_override
    if memory is None:
        return (DEFAULT_NUM_GPU_BLOCKS if blocks is None else blocks), ""
    if blocks is not None:
        problems.append(
            "--kv-cache-memory-bytes and --num-gpu-blocks-override both size the KV cache; give "
            "one: the memory (its blocks worked out with --block-size and --kv-bytes-per-token) "
            "or the number of blocks"
        )
        return 0, ""
    block_bytes = args.block_size * args.kv_bytes_per_token
    if memory < 1 or block_bytes < 1:  # out of range: number_problems has said so
        return 0, ""
    count, left = divmod(memory, block_bytes)
    shape = f"blocks of {args.block_size} tokens x {args.kv_bytes_per_token} bytes ({block_bytes} bytes each)"
    if count == 0:
        return 1, (
            f"KV cache: {memory} bytes are less than one block of {args.block_size} tokens x "
            f"{args.kv_bytes_per_token} bytes ({block_bytes} bytes); rounded up to 1 block"
        )
    rounded = f"; rounded down, {left} bytes left over" if left else ""
    return count, f"KV cache: {memory} bytes hold {count} {shape}{rounded}"


def _adapters(items: list[str], problems: list[str]) -> dict[str, str]:
    # vLLM's rule: ``name=path`` when the item has '=' and no ',', else a JSON object.
    # json imported here: the plugin, listed by `enginekit engines`, imports this module for
    # its limits, and only the server reads JSON.
    import json

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
    import json

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
    replay = config.get("replay_endpoint")
    if replay is not None and not (isinstance(replay, str) and replay):
        problems.append("--kv-events-config: replay_endpoint must be a ZMQ endpoint (a string) or null")
        return None
    sizes = []
    for name in ("buffer_steps", "hwm", "max_queue_size"):
        value = config.get(name, getattr(KVEvents, name))
        if type(value) is not int or value < 0:
            problems.append(
                f"--kv-events-config: {name} must be a whole number, 0 or more, got {value!r:.40}"
            )
            return None
        sizes.append(value)
    buffer_steps, hwm, max_queue_size = sizes
    return KVEvents(
        endpoint=str(config.get("endpoint", "tcp://*:5557")),
        topic=str(config.get("topic", "")),
        fmt=fmt,
        replay_endpoint=replay,
        buffer_steps=buffer_steps,
        hwm=hwm,
        max_queue_size=max_queue_size,
    )
