"""A whole replica: a profile and each node's placement, checked as a whole and expanded into rank specs."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import attrs

from enginekit.base.errors import SpecError
from enginekit.base.secrets import MASK
from enginekit.layout.compute import (
    HTTP,
    LOOPBACK,
    kv_events_replay_base,
    layout,
    layout_problems,
    needs_layout,
)
from enginekit.layout.model import ANY_ENGINE, API_SERVER, Layout, LayoutRules, NodeInput
from enginekit.spec.convert import folded_names, structure
from enginekit.spec.model import AGGREGATED, KV_EVENTS_BIND, Profile, ShardSpec
from enginekit.spec.rules import check_spec

#: Any engine's layout: what a replica's expansion and its checks hold whatever the engine.
_ANY_ENGINE = ANY_ENGINE


@attrs.frozen(kw_only=True)
class Placement:
    """Where a rank runs on its node. ``None`` is "not said here": a node inherits ``[placement]``'s."""

    gpu_indices: tuple[int, ...] | None = None
    gpu_uuids: tuple[str, ...] | None = None
    hcas: tuple[str, ...] | None = None
    mgmt_interface: str | None = None
    #: Left unset on InfiniBand, where NCCL needs none.
    gid_index: int | None = None
    fabric: str | None = None
    kv_events_port: int | None = None
    threads: int | None = None
    kv_cache_mib: int | None = None


@attrs.frozen(kw_only=True)
class ReplicaNode(Placement):
    """One node of the replica, in rank order: the first is the leader."""

    #: The node's management address. The first node's is every rank's ``leader_addr``.
    addr: str = ""
    #: Where this node's engine listens; ``addr`` when not given, ``""`` for every address.
    bind_addr: str | None = None
    #: The node's name, for people and schedulers; no rank reads it.
    host: str = ""
    #: This node's HTTP port, where it differs from the replica's ``http_port``.
    http_port: int | None = None


@attrs.frozen(kw_only=True)
class ReplicaSpec:
    """A replica as a scheduler places it: the profile, the ports, and each node's placement."""

    replica_id: str = ""
    profile: Profile
    #: The port the leader takes the other ranks' join on; required above one node.
    leader_port: int = 0
    #: The leader's HTTP port, where clients reach the replica.
    http_port: int = 0
    #: What the engine demands of every request. Only the leader, which serves the API, gets it.
    api_key: str = attrs.field(default="", repr=False)
    #: Who listens for the KV-cache events, on every rank: ``bind`` (the publishers, for
    #: routers and indexers that subscribe) or ``connect`` (a subscriber on each node's
    #: loopback ``kv_events_port``). See :attr:`enginekit.ShardSpec.kv_events_mode`.
    kv_events_mode: str = KV_EVENTS_BIND
    #: What every rank does with a request: ``aggregated``, or one instance of a
    #: disaggregated replica's ``prefill`` or ``decode`` (see :attr:`enginekit.ShardSpec.role`).
    role: str = AGGREGATED
    #: How the instance moves its KV cache (``nixl``…); empty is the engine's default.
    kv_connector: str = ""
    #: The first port of the instance's KV-transfer side channel, the same on every node
    #: (each derives its workers' ports from it); 0 for the engine's default.
    kv_transfer_port: int = 0
    pool: str = ""
    profile_fp: str = ""
    #: Every node's placement, where the node itself does not say.
    placement: Placement = Placement()
    #: One entry per node, in rank order. Left out, every node takes ``placement``, and the
    #: addresses are the scheduler's to give (an export), so the replica cannot be expanded
    #: above one node.
    nodes: tuple[ReplicaNode, ...] = ()


#: The placement fields a node inherits, and what a rank gets when neither says.
_INHERITED: Mapping[str, Any] = {
    "gpu_indices": (),
    "gpu_uuids": (),
    "hcas": (),
    "mgmt_interface": "",
    "gid_index": None,
    "fabric": "",
    "kv_events_port": 0,
    "threads": 0,
    "kv_cache_mib": 0,
}
#: Keys only a shard spec has: a document with one is not a replica.
_SHARD_ONLY = frozenset({"rank", "nnodes", "shardid", "leaderaddr", "gpuindices", "bindaddr"})


def load_replica(
    source: str | os.PathLike[str] | Mapping[str, Any], *, lenient: bool = False, name: str = ""
) -> ReplicaSpec:
    """Load a replica spec (TOML or JSON), its shape and types checked as strictly as a shard spec.

    ``source`` is read as :func:`enginekit.load_spec` reads it: a path-like is a file (bounded
    in size and nesting), a ``str`` the document's text, a mapping a parsed document.
    Unknown fields are an error unless ``lenient``. The rules across ranks are
    :func:`replica_problems`'.

    :raises SpecError: listing every problem, each naming its field (``replica.nodes[1].hcas: …``).
    """
    from enginekit.spec.documents import read_document

    where = name or (str(source) if isinstance(source, os.PathLike) else "replica")
    try:
        raw = read_document(source, name or "replica")
        if folded_names(raw) & _SHARD_ONLY:
            raise SpecError(
                [f"{where}: a shard spec (it has rank, nnodes or addresses at the top), not a replica spec"]
            )
        replica, unknown = structure(raw, ReplicaSpec, path="replica", lenient=lenient)
        if replica.api_key == MASK:
            raise SpecError([f"replica.api_key: holds the mask {MASK!r}, not a key"])
    except SpecError as exc:
        if not name:
            raise
        raise SpecError([p if p.startswith(f"{name}: ") else f"{name}: {p}" for p in exc.problems]) from None
    del unknown  # lenient mode leaves them out, as load_spec does
    return replica


def replica_problems(replica: ReplicaSpec) -> list[str]:
    """Every rule the replica breaks as a whole and in each rank, each naming its field; none is fine.

    A problem every rank has (the profile's, the ports') is said once; one of a single
    node's is prefixed with the node (``nodes[1]: gpu_indices: …``).
    """
    laid_out = _laid_out(replica)
    problems = list(_whole(replica, collisions=not laid_out))
    if not problems and laid_out:
        # Every process's ports, checked across the nodes that share a host: a shard
        # planned alone knows only its own node's, so this is where a clash between nodes
        # is caught before anything starts.
        problems = layout_problems(
            replica.profile, _node_inputs(replica), leader_port=replica.leader_port, rules=_ANY_ENGINE
        )
    if problems:
        return problems  # ranks built from a replica of the wrong shape say nothing more useful
    return _per_rank(replica, _ranks(replica))


def expand(replica: ReplicaSpec) -> tuple[ShardSpec, ...]:
    """Each rank's shard spec, in rank order; pure.

    Rank ``i`` runs on ``nodes[i]``, with the fields that node leaves out taken from
    ``placement``; every rank's ``leader_addr`` is the first node's ``addr``; only the
    leader's spec carries the API key.

    :raises SpecError: listing every problem :func:`replica_problems` finds.
    """
    problems = replica_problems(replica)
    if problems:
        raise SpecError(problems)
    return tuple(_ranks(replica))


def replica_layout(replica: ReplicaSpec, rules: LayoutRules) -> Layout:
    """The replica's layout under its engine's ``rules``: every node's processes, ranks, GPUs and ports; pure.

    :raises SpecError: listing every problem: the replica's own, then the layout's.
    """
    problems = list(_whole(replica, collisions=not _laid_out(replica)))
    if problems:
        raise SpecError(problems)
    return layout(replica.profile, _node_inputs(replica), leader_port=replica.leader_port, rules=rules)


def _laid_out(replica: ReplicaSpec) -> bool:
    """Whether the replica's ports are judged by its layout: data or expert parallel, or a role's transfer."""
    return needs_layout(replica.profile) or replica.role != AGGREGATED


def _node_inputs(replica: ReplicaSpec) -> list[NodeInput]:
    nodes = replica.nodes or tuple(ReplicaNode() for _ in range(replica.profile.node_count))
    return [
        NodeInput(
            addr=node.addr,
            http_port=_port(node.http_port, replica.http_port),
            kv_events_port=_inherit(node, replica.placement, "kv_events_port"),
            kv_events_replay=replica.kv_events_mode == KV_EVENTS_BIND,
            kv_transfer_port=replica.kv_transfer_port,
            role=replica.role,
            gpus=_inherit(node, replica.placement, "gpu_indices"),
        )
        for node in nodes
    ]


def with_addresses(replica: ReplicaSpec, addresses: Sequence[str]) -> ReplicaSpec:
    """The replica with its nodes at ``addresses`` (one per node, in rank order), the rest kept.

    For a scheduler that gives the addresses at start: planning with stand-ins checks
    every rank before anything is submitted.
    """
    nodes = replica.nodes or tuple(ReplicaNode() for _ in range(replica.profile.node_count))
    if len(addresses) != len(nodes):
        raise ValueError(f"expected {len(nodes)} addresses, got {len(addresses)}")
    return attrs.evolve(
        replica,
        nodes=tuple(attrs.evolve(node, addr=addr) for node, addr in zip(nodes, addresses, strict=True)),
    )


def node_count_problem(replica: ReplicaSpec) -> str | None:
    """Why the listed ``nodes`` are not one per node of the profile; None if they are, or none is listed."""
    count = replica.profile.node_count
    if replica.nodes and len(replica.nodes) != count:
        return (
            f"nodes: the profile {replica.profile.name!r} spans {count} node(s), "
            f"the replica lists {len(replica.nodes)}"
        )
    return None


def _whole(replica: ReplicaSpec, *, collisions: bool = True) -> Iterator[str]:
    count = replica.profile.node_count
    miscounted = node_count_problem(replica)
    if miscounted:
        yield miscounted
        return
    if count > 1 and not replica.nodes:
        yield (
            f"nodes: list each of the {count} nodes with its addr to expand the replica "
            f"(an export to a scheduler takes the addresses from it at start instead)"
        )
        return
    if count > 1:
        for i, node in enumerate(replica.nodes):
            if not node.addr:
                yield f"nodes[{i}].addr: required when the replica spans more than one node"
    if collisions:  # without a layout: a layout checks every process's ports itself
        yield from _collisions(replica)


def _collisions(replica: ReplicaSpec) -> Iterator[str]:
    """Two ranks on one host may not listen on one port: the leader's HTTP and join ports, KV-event ports.

    Only the leader serves HTTP (every engine's other ranks are headless), and the join
    port is the leader's too; a host is a node's ``addr``.
    """
    taken: dict[tuple[str, int], str] = {}
    for i, node in enumerate(replica.nodes or (ReplicaNode(),)):
        claims = []
        if i == 0:
            http = "nodes[0].http_port" if node.http_port is not None else "http_port"
            claims.append((_port(node.http_port, replica.http_port), http))
            if replica.profile.node_count > 1:
                claims.append((replica.leader_port, "leader_port"))
        events = _inherit(node, replica.placement, "kv_events_port")
        claims.append((events, f"nodes[{i}].kv_events_port"))
        if events and replica.kv_events_mode == KV_EVENTS_BIND:
            # The replay endpoint a binding publisher takes after its own (one rank here).
            claims.append(
                (kv_events_replay_base(events, replica.profile), f"nodes[{i}].kv_events_port plus 1 (replay)")
            )
        for port, field in claims:
            if not port:
                continue
            other = taken.setdefault((node.addr, port), field)
            if other != field:
                yield f"{field}: port {port} is {other} too, on the same host ({node.addr or 'the leader'})"


#: The shard spec fields that are a node's placement: a problem with one names the node.
_NODE_FIELDS = frozenset({*_INHERITED, "bind_addr", "http_port"})


def _per_rank(replica: ReplicaSpec, ranks: Sequence[ShardSpec]) -> list[str]:
    """Each rank's shard spec rules, said once per field of the replica that breaks them."""
    problems: dict[str, None] = {}  # ordered, and each said once
    for spec in ranks:
        node = replica.nodes[spec.rank] if replica.nodes else ReplicaNode()
        prefix = f"shard spec {spec.shard_id or '(unnamed)'}: "
        for problem in check_spec(spec):
            problems[_located(problem.removeprefix(prefix), spec.rank, node)] = None
    return list(problems)


def _located(problem: str, rank: int, node: ReplicaNode) -> str:
    """A rank's problem, naming the replica's field that gave the rank its value."""
    field = problem.split(":", 1)[0]
    base = field.split("[", 1)[0].split(".", 1)[0]
    if base == "leader_addr":
        return "nodes[0].addr" + problem[len(field) :]
    if base not in _NODE_FIELDS:
        return problem  # the replica's own field, or the profile's: every rank has it
    # A node that says no bind_addr listens on its addr: that is the field to fix.
    field_path = "addr" + field[len(base) :] if base == "bind_addr" and node.bind_addr is None else field
    if base == "http_port" and node.http_port is None:
        return problem  # the replica's http_port
    if base in _INHERITED and getattr(node, base) is None:
        return f"placement.{problem}"  # inherited: said once, where it was written
    return f"nodes[{rank}].{field_path}{problem[len(field) :]}"


def _ranks(replica: ReplicaSpec) -> list[ShardSpec]:
    """One shard spec per process of the replica's layout, in node order."""
    profile = replica.profile
    nodes = replica.nodes or tuple(ReplicaNode() for _ in range(profile.node_count))
    laid = layout(
        profile, _node_inputs(replica), leader_port=replica.leader_port, rules=_ANY_ENGINE, checked=False
    )
    # Every process dials the leader's address once there is more than one process: the
    # first node's, or on one node without an address, loopback (as the layout dials it).
    leader = ""
    if profile.node_count > 1:
        leader = nodes[0].addr
    elif profile.data_parallel > 1:
        leader = nodes[0].addr or LOOPBACK
    # Where a data-parallel worker is watched when its engine closes leader_port after the
    # start (vLLM): the leader's API server, given to every rank alike.
    leader_http = laid.nodes[0].processes[0].port(HTTP) if profile.data_parallel > 1 else 0
    specs = []
    for node_layout, node in zip(laid.nodes, nodes, strict=True):
        rank = node_layout.index
        placement = {field: _inherit(node, replica.placement, field) for field in _INHERITED}
        for process in node_layout.processes:
            alone = len(node_layout.processes) == 1
            if placement["gpu_indices"]:
                placement["gpu_indices"] = process.gpus
            suffix = f"{rank}" if alone else f"{rank}-{process.index}"
            specs.append(
                ShardSpec(
                    replica_id=replica.replica_id,
                    shard_id=f"{replica.replica_id}-{suffix}" if replica.replica_id else "",
                    rank=rank,
                    nnodes=profile.node_count,
                    dp_rank=process.dp_start if profile.data_parallel > 1 else 0,
                    leader_addr=leader,
                    leader_port=replica.leader_port,
                    leader_http_port=leader_http,
                    http_port=process.port(HTTP) or _port(node.http_port, replica.http_port),
                    bind_addr=_bind(node),
                    # Every API server demands the key of every request; a headless rank serves none.
                    api_key=replica.api_key if process.role == API_SERVER else "",
                    pool=replica.pool,
                    profile_fp=replica.profile_fp,
                    kv_events_mode=replica.kv_events_mode,
                    role=replica.role,
                    kv_connector=replica.kv_connector,
                    kv_transfer_port=replica.kv_transfer_port,
                    profile=profile,
                    **placement,
                )
            )
    return specs


def _inherit(node: Placement, placement: Placement, field: str) -> Any:
    for source in (node, placement):
        value = getattr(source, field)
        if value is not None:
            return value
    return _INHERITED[field]


def _bind(node: ReplicaNode) -> str:
    return node.addr if node.bind_addr is None else node.bind_addr


def _port(own: int | None, replica: int) -> int:
    return replica if own is None else own
