"""vLLM's data and expert parallel: its layout rules, and the flags of a shard's process in the layout.

Every rank and port here comes from the core's layout (``shard_layout``); this module only
spells them as ``vllm serve`` reads them, in the release the node runs.
"""

from __future__ import annotations

from enginekit.plugin import (
    HEADLESS,
    CommandBuilder,
    LayoutRules,
    ProcessLayout,
    ShardSpec,
    Version,
    nvshmem_env,
)

from enginekit_vllm.disaggregated import kv_transfer_ports
from enginekit_vllm.versions import vllm_release

#: The one port vLLM's data-parallel leader listens on that an orchestrator chooses:
#: ``--data-parallel-rpc-port``, the handshake every remote engine dials. Its engine I/O,
#: coordinator and process-group ports are the OS's (0.11.0-0.34.0 read): the layout's
#: ``leader_port`` is this one.
DP_RPC = "dp-rpc"

#: ``--all2all-backend`` exists from 0.11.1; 0.11.0 reads ``VLLM_ALL2ALL_BACKEND`` only.
ALL2ALL_FLAG_SINCE: Version = vllm_release("0.11.1")

#: The all-to-all backends each release's parser (or, in 0.11.0, its environment) takes,
#: from the release where the list changed: ``config/parallel.py``'s ``All2AllBackend``.
ALL2ALL_BACKENDS: dict[Version, frozenset[str]] = {
    vllm_release("0.11.0"): frozenset(
        {
            "naive",
            "pplx",
            "deepep_high_throughput",
            "deepep_low_latency",
            "allgather_reducescatter",
            "flashinfer_all2allv",
        }
    ),
}
ALL2ALL_BACKENDS[vllm_release("0.15.0")] = ALL2ALL_BACKENDS[vllm_release("0.11.0")] | {"mori"}
ALL2ALL_BACKENDS[vllm_release("0.18.0")] = ALL2ALL_BACKENDS[vllm_release("0.15.0")] | {
    "nixl_ep",
    "flashinfer_nvlink_two_sided",
    "flashinfer_nvlink_one_sided",
}
ALL2ALL_BACKENDS[vllm_release("0.23.0")] = (ALL2ALL_BACKENDS[vllm_release("0.18.0")] - {"mori"}) | {
    "mori_high_throughput",
    "mori_low_latency",
}
ALL2ALL_BACKENDS[vllm_release("0.24.0")] = ALL2ALL_BACKENDS[vllm_release("0.23.0")] | {"deepep_v2"}
ALL2ALL_BACKENDS[vllm_release("0.31.0")] = ALL2ALL_BACKENDS[vllm_release("0.24.0")] | {"moonep"}
ALL2ALL_BACKENDS[vllm_release("0.34.0")] = ALL2ALL_BACKENDS[vllm_release("0.31.0")] | {"mori"}


#: From 0.11.1 vLLM takes hybrid balancing with one local rank for external balancing
#: ("autoswitch to data_parallel_external_lb", ``engine/arg_utils.py``; 0.11.0 has no switch).
HYBRID_ALONE_IS_EXTERNAL_SINCE: Version = vllm_release("0.11.1")
#: From 0.21.0 vLLM refuses external balancing of a non-MoE model ("Non-MoE models do not
#: support external data parallel mode"; 0.20.0 has no such check). The check comes before
#: the switch above, so a dense model switched to external stops later, on an assertion
#: (``assert self.stats_update_address is not None``, ``v1/engine/core_client.py``; seen on
#: 0.32.0's CPU build).
DENSE_EXTERNAL_REFUSED_SINCE: Version = vllm_release("0.21.0")


def hybrid_alone_note(shard: ShardSpec, release: Version) -> str | None:
    """What an operator should know of hybrid balancing with one rank per node, or None."""
    profile = shard.profile
    if profile.dp_balancing != "hybrid" or profile.dp_local != 1 or release < HYBRID_ALONE_IS_EXTERNAL_SINCE:
        return None
    note = (
        f"hybrid balancing with one data-parallel rank per node is external balancing to vLLM "
        f"{release} (it switches by itself): each node's API server answers for its one rank"
    )
    if release < DENSE_EXTERNAL_REFUSED_SINCE:
        return note
    return (
        f"{note}; and vLLM takes external balancing for MoE models only, so a dense model stops at "
        f"start (AssertionError: stats_update_address): give it two or more ranks per node, or "
        f"internal balancing"
    )


def all2all_backends(release: Version) -> frozenset[str]:
    """The all-to-all backends ``release`` takes: the newest list read at or below it (none below all)."""
    read = [r for r in ALL2ALL_BACKENDS if r <= release]
    return ALL2ALL_BACKENDS[max(read)] if read else frozenset()


def layout_rules(release: Version) -> LayoutRules:
    """vLLM's layouts: every balancing mode, expert parallel, and KV-event ports that move by the rank.

    ``offset_endpoint_port`` (``vllm/distributed/kv_events.py``) adds each engine's global
    data-parallel rank to the configured port, from 0.11.0. The handshake port closes once
    every engine has joined (``launch_core_engines``), so a worker is watched at the
    leader's API server.
    """
    return LayoutRules(
        named=f"vLLM {release}",
        coordination_closes=True,
        balancing=frozenset({"internal", "hybrid", "external"}),
        expert_parallel=True,
        all2all=all2all_backends(release),
        coordination=(DP_RPC,),
        kv_events_per_rank=True,
        kv_events_replay=True,
        kv_transfer=kv_transfer_ports(release),
    )


def data_parallel_args(shard: ShardSpec, process: ProcessLayout) -> list[str]:
    """The data-parallel flags of ``process``: its ranks, its balancing mode, and the leader it dials.

    The leader is never given ``--data-parallel-start-rank``: from 0.28.0 a start rank on a
    process that is not ``--headless`` switches it to hybrid balancing, 0 included.
    """
    profile = shard.profile
    dial = process.dialed(DP_RPC)
    # The leader's address, as every other process dials it: the leader_addr the shard was
    # given, or, on a single node without one, loopback (the layout's rule).
    address = shard.leader_addr or "127.0.0.1"
    port = dial.port if dial is not None else process.port(DP_RPC)
    args = [
        "--data-parallel-size", str(profile.data_parallel),
        "--data-parallel-address", address,
        "--data-parallel-rpc-port", str(port),
    ]  # fmt: skip
    mode = profile.dp_balancing
    if mode == "external":
        # One rank per process, each its own API server: the rank says it all.
        return [*args, "--data-parallel-rank", str(process.dp_start)]
    args += ["--data-parallel-size-local", str(len(process.dp_ranks))]
    if mode == "hybrid":
        # Explicit on every node: up to 0.27.1 a start rank of 0 does not imply it.
        return [*args, "--data-parallel-hybrid-lb", "--data-parallel-start-rank", str(process.dp_start)]
    if process.role == HEADLESS:
        return [*args, "--headless", "--data-parallel-start-rank", str(process.dp_start)]
    return args


#: The all-to-all backends that move tokens between nodes with NVSHMEM: DeepEP's first
#: generation (its internode and low-latency kernels) and pplx-kernels. DeepEP's second
#: (``deepep_v2``) runs over NCCL, whose variables placement sets already.
NVSHMEM_BACKENDS = frozenset({"deepep_high_throughput", "deepep_low_latency", "pplx"})


def expert_args(shard: ShardSpec, release: Version, build: CommandBuilder) -> list[str]:
    """``--enable-expert-parallel`` and the all-to-all backend: a flag from 0.11.1, a variable before.

    A backend that runs over NVSHMEM gets NVSHMEM's fabric settings across nodes, from
    the same placement as NCCL's (:func:`enginekit.plugin.nvshmem_env`).
    """
    profile = shard.profile
    if not profile.expert_parallel:
        return []
    if profile.all2all in NVSHMEM_BACKENDS:
        for name, value, why in nvshmem_env(shard, f"vLLM's {profile.all2all} all-to-all"):
            build.put(name, value, why)
    if not profile.all2all:
        return ["--enable-expert-parallel"]
    if release >= ALL2ALL_FLAG_SINCE:
        return ["--enable-expert-parallel", "--all2all-backend", profile.all2all]
    build.put(
        "VLLM_ALL2ALL_BACKEND",
        profile.all2all,
        f"the profile's all-to-all backend: vLLM {release} reads it from here (the flag came in "
        f"{ALL2ALL_FLAG_SINCE})",
    )
    return ["--enable-expert-parallel"]
