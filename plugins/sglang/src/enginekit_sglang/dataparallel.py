"""SGLang's data-parallel attention and expert parallel: its layout rules per release, and a shard's flags.

enginekit's profile maps onto SGLang so: ``dp`` is the number of attention data-parallel
ranks and ``tp`` each one's attention tensor parallel, so SGLang's tensor-parallel group of
one pipeline stage (``--tp-size``) is ``tp`` x ``dp``, every attention rank inside it
(``attn_tp_size = tp_size // dp``; ``dp_attention.py``, ``compute_dp_attention_world_info``).
Node ``k`` hosts TP ranks ``k*tp*L .. (k+1)*tp*L - 1`` of ``L`` ranks per node, so attention
ranks ``k*L ..``: the layout's numbering. Every node runs the same command but
``--node-rank``, and only node 0 serves the API (SGLang's DP controller dispatches to every
rank): the layout's ``internal`` balancing, the only one.

Every rank and port here comes from the core's layout (``shard_layout``); this module only
spells them as ``python -m sglang.launch_server`` reads them, in the release the node runs.
Facts read from the wheels of 0.5.2, 0.5.3, 0.5.3.post1, 0.5.3.post2, 0.5.3.post3, 0.5.4,
0.5.5, 0.5.6, 0.5.6.post1, 0.5.6.post2, 0.5.7, 0.5.8, 0.5.8.post1, 0.5.9, 0.5.10,
0.5.10.post1, 0.5.11, 0.5.12, 0.5.12.post1, 0.5.13, 0.5.13.post1, 0.5.14, 0.5.15, 0.5.21 and
0.5.23 (``docs/research/sglang-dp.md``); a release between two read ones takes the older
one's facts, except where it says otherwise below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enginekit.plugin import Coordination, LayoutRules, Version, host_port, newest_at_or_below, parse_version

from enginekit_sglang.disaggregated import kv_transfer_ports

if TYPE_CHECKING:
    from enginekit.plugin import ProcessLayout, Profile, ShardSpec

#: Where every data-parallel port is derived from: the port of ``--dist-init-addr`` (D),
#: the replica's ``leader_port``. torch's TCPStore on rank 0 listens there; from 0.5.3.post2
#: to 0.5.5 node 0's worker-port handshake does too, before it.
DIST_INIT = "dist-init"
#: D+1 .. D+5: the TokenizerManager's, detokenizer's, RPC, metrics and DP controller's ZMQ
#: sockets on node 0 (``PortArgs.init_new``, DP-attention branch); D+6 the load collector's.
ZMQ = "zmq"
#: D+6+r: rank r's scheduler input, bound on node 0, up to 0.5.3.post1 (read; see below).
RANK_INPUT = "rank-input"
#: D+13: node 0's worker-port handshake (``DP_ATTENTION_HANDSHAKE_PORT_DELTA``), from 0.5.6.
HANDSHAKE = "dp-handshake"

#: ``--attn-dp-size`` replaces ``--dp-size N --enable-dp-attention`` (which still parses,
#: deprecated, and from then on means replicas with ``--dp-size``): the option table.
ATTN_DP_SIZE_SINCE: Version = parse_version("0.5.22")
#: From 0.5.5 every node waits for D .. D+5 (and D+6 from 0.5.13, with more than one node) to
#: be free locally before it starts, then stops with "Port is already in use"
#: (``wait_port_available``; absent in 0.5.4).
KEPT_FREE_SINCE: Version = parse_version("0.5.5")
#: The load collector at D+6 (``load_collector_port = port_base + 5`` in ``PortArgs.init_new``,
#: ``server_args.py``; bound by ``managers/load_snapshot.py``'s ``ZmqShmLoadSnapshotReader``
#: on node 0, waited free on every node when nnodes > 1). Read in every release from 0.5.10 to
#: 0.5.15: 0.5.10, 0.5.10.post1, 0.5.11, 0.5.12 and 0.5.12.post1 derive D+1 .. D+5 only (no
#: ``load_collector`` anywhere in the wheel); 0.5.13 is the first with it, as are 0.5.13.post1,
#: 0.5.14 and 0.5.15.
LOAD_COLLECTOR_SINCE: Version = parse_version("0.5.13")
#: Random per-rank ports handed out in a handshake replace D+6+r. Read in 0.5.3.post1, .post2
#: and .post3: 0.5.3.post1's ``PortArgs.init_new`` (``server_args.py``) still gives rank r
#: ``scheduler_input_port = port_base + 4 + 1 + dp_rank``; 0.5.3.post2's takes
#: ``worker_ports[dp_rank]``, which ``DataParallelController.launch_dp_attention_schedulers``
#: (``managers/data_parallel_controller.py``) binds at random on node 0 and
#: ``_broadcast_worker_ports`` hands out over ZMQ on ``tcp://{dist_init_addr}``: the file is the
#: same in 0.5.3.post3.
WORKER_PORTS_HANDSHAKE_SINCE: Version = parse_version("0.5.3.post2")
#: The handshake moves from D itself (0.5.3.post2 to 0.5.5) to D+13; and from here node 0
#: opens D only once every other node has shaken hands.
HANDSHAKE_PORT_SINCE: Version = parse_version("0.5.6")
#: One KV-event publisher per attention rank, on the base port plus the rank.
#: ``Scheduler.__init__`` (``managers/scheduler.py``) sets ``enable_kv_cache_events`` from
#: ``kv_events_config and tp_rank == 0`` (the first rank only) in 0.5.6, 0.5.6.post1,
#: 0.5.6.post2 and 0.5.7, and from ``kv_events_config and self.attn_tp_rank == 0`` in 0.5.8,
#: 0.5.8.post1 and 0.5.9; in each, ``init_kv_events`` (``scheduler_metrics_mixin.py``) creates
#: the publisher with ``self.attn_dp_rank``, which ``ZmqEventPublisher`` adds to the
#: endpoint's port (``disaggregation/kv_events.py``).
KV_EVENTS_PER_RANK_SINCE: Version = parse_version("0.5.8")

#: ``--moe-a2a-backend``'s choices, from the release where the list changed (``server_args.py``,
#: later ``arg_groups/fields/exec_.py``). A release between two read ones takes the older list.
ALL2ALL_BACKENDS: dict[Version, frozenset[str]] = {parse_version("0.5.1"): frozenset({"none", "deepep"})}
# mooncake: 0.5.3.post1 lists ``choices=["none", "deepep"]``, 0.5.3.post2 adds "mooncake" (read).
ALL2ALL_BACKENDS[parse_version("0.5.3.post2")] = ALL2ALL_BACKENDS[parse_version("0.5.1")] | {"mooncake"}
ALL2ALL_BACKENDS[parse_version("0.5.6")] = ALL2ALL_BACKENDS[parse_version("0.5.3.post2")] | {"ascend_fuseep"}
ALL2ALL_BACKENDS[parse_version("0.5.9")] = ALL2ALL_BACKENDS[parse_version("0.5.6")] | {"mori", "flashinfer"}
ALL2ALL_BACKENDS[parse_version("0.5.10")] = ALL2ALL_BACKENDS[parse_version("0.5.9")] | {"nixl"}
# megamoe: ``MOE_A2A_BACKEND_CHOICES`` (``server_args.py``) lacks it in 0.5.10.post1 and 0.5.11
# and has it from 0.5.12 (read in 0.5.12, 0.5.12.post1, 0.5.13, 0.5.13.post1, 0.5.14, 0.5.15).
ALL2ALL_BACKENDS[parse_version("0.5.12")] = ALL2ALL_BACKENDS[parse_version("0.5.10")] | {"megamoe"}
ALL2ALL_BACKENDS[parse_version("0.5.21")] = ALL2ALL_BACKENDS[parse_version("0.5.12")] | {
    "deepep_v2",
    "pplx",
    "ascend_tp",
    "flashinfer_megamoe",
}


def all2all_backends(release: Version) -> frozenset[str]:
    """The backends ``release`` takes: the newest list read at or below it (the oldest, for one before)."""
    return ALL2ALL_BACKENDS[newest_at_or_below(ALL2ALL_BACKENDS, release)]


def first_with(backend: str) -> Version | None:
    """The first release whose list has ``backend``; None when none has it."""
    return min((r for r, names in ALL2ALL_BACKENDS.items() if backend in names), default=None)


def layout_rules(release: Version) -> LayoutRules:
    """SGLang's layouts in ``release``: internal balancing, expert parallel, the ports derived from D.

    Every other node dials node 0's block (its schedulers connect to the TokenizerManager's
    and the DP controller's sockets there), and from 0.5.5 requires it free on its own host
    too, so the layout keeps it free there. Nodes but the first run a stub health server
    on the same ``--port`` (``launch_dummy_health_check_server``).
    """
    kept = release >= KEPT_FREE_SINCE
    block = 6 if release >= LOAD_COLLECTOR_SINCE else 5
    ports = [Coordination(DIST_INIT, every_node=kept), Coordination(ZMQ, 1, block, every_node=kept)]
    if release < WORKER_PORTS_HANDSHAKE_SINCE:
        ports.append(Coordination(RANK_INPUT, 6, per_rank=True))
    if release >= HANDSHAKE_PORT_SINCE:
        ports.append(Coordination(HANDSHAKE, 13))
    return LayoutRules(
        balancing=frozenset({"internal"}),
        expert_parallel=True,
        all2all=all2all_backends(release),
        coordination=tuple(ports),
        kv_events_per_rank=release >= KV_EVENTS_PER_RANK_SINCE,
        health_stub=True,
        kv_transfer=kv_transfer_ports(),
    )


def data_parallel_args(shard: ShardSpec, process: ProcessLayout, release: Version) -> list[str]:
    """The nodes, this node's rank, the leader's address and the attention ranks, from ``process``.

    ``--dist-init-addr`` is given on one node too: without it SGLang derives D from the
    HTTP port (``--port`` + 233), a port no layout reserved.
    """
    dial = process.dialed(DIST_INIT)
    # The leader's address as every other process dials it: the leader_addr the shard was
    # given or, on one node without one, loopback (the layout's rule). SGLang binds its
    # sockets to this address literally, so it must be node 0's own, never 0.0.0.0.
    port = dial.port if dial is not None else process.port(DIST_INIT)
    nodes = ["--nnodes", str(shard.nnodes), "--node-rank", str(process.node)] if shard.is_multi_node() else []
    args = [*nodes, "--dist-init-addr", host_port(shard.leader_addr or "127.0.0.1", port)]
    dp = str(shard.profile.data_parallel)
    if release >= ATTN_DP_SIZE_SINCE:
        return [*args, "--attn-dp-size", dp]
    return [*args, "--dp-size", dp, "--enable-dp-attention"]


#: The all-to-all backends that move tokens between nodes with NVSHMEM: DeepEP's first
#: generation (``deepep``) and pplx-kernels (``pplx``). ``deepep_v2`` runs over NCCL, whose
#: variables placement sets already; the others (Mooncake, NIXL, ...) bring their own.
NVSHMEM_BACKENDS = frozenset({"deepep", "pplx"})


def expert_args(profile: Profile) -> list[str]:
    """``--ep-size`` over the whole TP group, and the all-to-all backend when the profile names one.

    SGLang sets ``ep_size = tp_size`` itself for every backend but ``none``; given for
    ``none`` too, so "expert parallel" means the same with and without a backend. The
    option and these spellings are in every release of the table (0.5.1 and 0.5.2 also
    take ``--enable-ep-moe`` and ``--enable-deepep-moe``, which 0.5.3 stops at).
    """
    if not profile.expert_parallel:
        return []
    args = ["--ep-size", str(profile.tp * profile.data_parallel)]
    return [*args, "--moe-a2a-backend", profile.all2all] if profile.all2all else args


def waits_for_leader(profile: Profile, release: Version) -> bool:
    """Whether a worker node is held until the leader's port (D) accepts a connection.

    Not under data-parallel attention from 0.5.6: node 0 starts the schedulers that open D
    only once every other node has fetched its worker ports at D+13, so a worker held for
    D would wait for itself. It needs no holding: it asks D+13 over ZMQ, which connects
    whenever node 0 binds, and waits up to ten minutes for the answer (``RCVTIMEO``).
    Before 0.5.6 D opens first (the TCPStore, or the handshake on D itself, whose worker
    waits only one minute: holding it until node 0 is up is what keeps that enough).
    """
    return profile.data_parallel < 2 or release < HANDSHAKE_PORT_SINCE


def profile_problems(profile: Profile, release: Version, *, kv_events: bool) -> list[str]:
    """What ``release`` cannot do of the profile's data and expert parallel, naming the release."""
    where = f"profile {profile.name!r}"
    problems = []
    backends = all2all_backends(release)
    if profile.expert_parallel and profile.all2all and profile.all2all not in backends:
        since = first_with(profile.all2all)
        came = f"; it came in {since}" if since is not None else ""
        problems.append(
            f"{where}: all2all: SGLang {release} has no all-to-all backend {profile.all2all!r} "
            f"(it has {', '.join(sorted(backends))}{came})"
        )
    if profile.all2all == "flashinfer_megamoe" and profile.tp > 1:
        problems.append(
            f"{where}: all2all: 'flashinfer_megamoe' needs every GPU to be its own attention rank "
            f"(SGLang asserts --attn-dp-size equal to --tp-size): set tp = 1 and dp to the GPU count"
        )
    if profile.data_parallel < 2:
        return problems
    if kv_events and release < KV_EVENTS_PER_RANK_SINCE:
        problems.append(
            f"{where}: kv_events: with data-parallel attention SGLang {release} publishes the KV-cache "
            f"events of its first rank only, so a router would see one rank's cache; every rank "
            f"publishes from {KV_EVENTS_PER_RANK_SINCE}"
        )
    if profile.pipeline_degree > 1 and profile.node_count > 1:
        problems.append(
            f"{where}: pp: SGLang spreads each pipeline stage over its own nodes, so a data-parallel "
            f"rank would span nodes (the layout puts each on one node): run pp = 1, or one node"
        )
    return problems
