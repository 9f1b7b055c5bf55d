"""The SGLang server's arguments and environment for one shard, derived from the spec alone."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from enginekit.plugin import CommandBuilder, EngineError, ShardSpec, leader_endpoint, parse_version

if TYPE_CHECKING:
    from enginekit.plugin import Version

#: enginekit's own name for the key: reserved (``ENGINEKIT_*``), so no profile can set
#: it, and removed from the environment by the launcher before SGLang starts.
KEY_ENV = "ENGINEKIT_API_KEY"
#: The cores of each rank of a CPU shard: generated from placement, so reserved.
THREADS_ENV = "SGLANG_CPU_OMP_THREADS_BIND"


def server_args(shard: ShardSpec, release: Version) -> list[str]:
    """Everything SGLang is told on its command line, the profile's arguments last.

    ``--lora-paths`` takes every bare token after it until the next option: the adapters
    come first and enginekit's own options end the list, the last of them taking exactly
    one value, so nothing of the profile's can join it. Under data-parallel attention the
    nodes, ranks and ports come from the replica's layout (:mod:`enginekit_sglang.dataparallel`).
    """
    profile = shard.profile
    args = [
        "--model-path",
        profile.model_path,
        # SGLang listens on 127.0.0.1 unless told: the router could never reach it.
        "--host",
        shard.host(),
        "--port",
        str(shard.http_port),
        "--served-model-name",
        profile.model_name(),
    ]
    if profile.adapters:
        args += ["--enable-lora", "--lora-paths"]
        args += [f"{adapter.name}={adapter.path}" for adapter in profile.adapters]
    events = kv_events_config(shard, release)
    if events:
        args += ["--kv-events-config", events]
    if profile.data_parallel > 1:
        from enginekit.plugin import shard_layout

        from enginekit_sglang.dataparallel import data_parallel_args, layout_rules

        args += data_parallel_args(shard, shard_layout(shard, layout_rules(release)), release)
    elif shard.is_multi_node():
        args += [
            "--nnodes",
            str(shard.nnodes),
            "--node-rank",
            str(shard.rank),
            "--dist-init-addr",
            # SGLang's address parser takes an IPv6 leader only in brackets: [fd00::1]:20000.
            leader_endpoint(shard),
        ]
    if shard.on_cpu():
        args += ["--device", "cpu"]
    # Prometheus is mounted at /metrics only with this flag (on workers too, on
    # their stub server), so the plan's metrics_path is real.
    args.append("--enable-metrics")
    args += [
        # Full spellings: "--pp" is ambiguous to argparse (--pp-size, --pp-max-micro-batch-size…).
        "--tp-size",
        # SGLang's TP group holds every attention rank: tp x dp GPUs per pipeline stage.
        str(profile.tp * profile.data_parallel),
        "--pp-size",
        str(profile.pipeline_degree),
    ]
    if profile.expert_parallel:
        from enginekit_sglang.dataparallel import expert_args

        args += expert_args(profile)
    if shard.role != "aggregated":
        from enginekit_sglang.disaggregated import transfer_args

        args += transfer_args(shard)
    return [*args, *profile.args]


def kv_events_config(shard: ShardSpec, release: Version) -> str:
    """The ``--kv-events-config`` JSON, or "" when the profile publishes no events.

    The publisher defaults to ``"null"`` and there is no ``enable_kv_cache_events``
    field (unlike vLLM): naming ``zmq`` is what turns publishing on. From 0.5.22 the
    ``bind`` field says outright whether to bind or connect, and a bound publisher can
    take the shard's own address; earlier releases ignore it (their pydantic model drops
    unknown keys) and bind only an endpoint with ``*`` or ``::`` (their heuristic), so a
    bound publisher there takes ``tcp://*:PORT``. Connecting, it dials the agent's
    loopback subscriber. SGLang is given no replay endpoint.
    """
    if not shard.profile.kv_events:
        return ""
    if not shard.kv_events_port:
        if shard.is_leader():
            raise EngineError(
                f"shard spec {shard.shard_id or '(unnamed)'}: kv_events_port: profile "
                f"{shard.profile.name!r} asks for KV-cache events, but the shard has no port to "
                f"publish them to"
            )
        return ""  # a worker rank the agent gave no listener: its schedulers publish nothing
    from enginekit.plugin import kv_events_endpoints

    binds = shard.kv_events_mode == "bind"
    endpoint, _ = kv_events_endpoints(shard, bind_host=binds and release >= BIND_FIELD_SINCE)
    config = {"publisher": "zmq", "endpoint": endpoint, "bind": binds}
    return json.dumps(config, separators=(",", ":"))


#: The release whose ``KVEventsConfig`` has the ``bind`` field (``disaggregation/kv_events.py``).
BIND_FIELD_SINCE: Version = parse_version("0.5.22")


#: Why the key is in the environment: the launcher turns it into SGLang's flag.
KEY_WHY = (
    "the API key, read and removed from the environment by enginekit's launcher, which "
    "hands it to SGLang as --api-key inside the process: SGLang takes it only as a "
    "flag, and any local user can read a command line"
)


def server_env(shard: ShardSpec) -> CommandBuilder:
    """The shard's placement variables plus SGLang's own, each with its reason."""
    build = CommandBuilder(shard)
    build.put_secret(KEY_ENV, shard.api_key, KEY_WHY)
    profile = shard.profile
    if profile.expert_parallel and profile.all2all:
        from enginekit.plugin import nvshmem_env

        from enginekit_sglang.dataparallel import NVSHMEM_BACKENDS

        if profile.all2all in NVSHMEM_BACKENDS:
            for name, value, why in nvshmem_env(shard, f"SGLang's {profile.all2all} all-to-all"):
                build.put(name, value, why)
    if shard.on_cpu() and shard.threads:
        # One group per process on this node, indexed by its local device id: TP x PP
        # ranks over the nodes, which is the profile's per-node width.
        ranks = shard.profile.per_node
        if shard.threads < ranks:
            raise EngineError(
                f"shard spec {shard.shard_id or '(unnamed)'}: threads: {shard.threads} reserved "
                f"core(s) cannot give each of the {ranks} rank(s) on this node a core"
            )
        build.put(
            THREADS_ENV,
            cpu_binding(shard.threads, ranks),
            f"the {shard.threads} cores placement reserved, split between the {ranks} rank(s) on "
            f"this node ('|' between ranks); unset, each rank binds a whole NUMA node. The spec "
            f"carries a count, not core ids, so the shard takes cores 0-{shard.threads - 1}",
        )
    return build


def cpu_binding(threads: int, ranks: int) -> str:
    """``SGLANG_CPU_OMP_THREADS_BIND``: cores 0..threads-1 in ``ranks`` contiguous groups.

    SGLang sizes each rank's OpenMP pool from its group, so a count alone cannot be
    given; the first ranks take one core more when the cores do not divide evenly.
    """
    if ranks < 1 or threads < ranks:
        raise ValueError(f"{threads} core(s) cannot be split between {ranks} rank(s)")
    share, extra = divmod(threads, ranks)
    groups, start = [], 0
    for rank in range(ranks):
        size = share + (1 if rank < extra else 0)
        groups.append(f"{start}-{start + size - 1}" if size > 1 else str(start))
        start += size
    return "|".join(groups)
