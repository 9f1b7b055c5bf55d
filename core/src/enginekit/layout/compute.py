"""The one layout function: every process of a replica, its ranks, GPUs, listeners and dials, or why not.

Every rank and port a plugin emits comes from here. A layout is a function of the
profile's parallelism, each node's address, ports and GPUs, the replica's leader port and
the engine's :class:`~enginekit.layout.model.LayoutRules`; nothing is read and nothing is
remembered, so a shard planned alone gets the same slice the whole replica's table shows.

The numbering is vLLM's, which the other engines with data parallel share: node ``k`` of
a replica with ``L`` ranks per node hosts ranks ``k*L .. k*L+L-1`` (vLLM's
``--data-parallel-start-rank``), the first node's first process is the data-parallel
leader, and every other process dials it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence

import attrs

from enginekit.base.errors import SpecError
from enginekit.base.text import host_port
from enginekit.layout.model import (
    API_SERVER,
    HEADLESS,
    HEALTH_STUB,
    MAX_PORT,
    MIN_PORT,
    TRANSFER_LEADER,
    TRANSFER_RANK,
    Coordination,
    Dial,
    KVEventSource,
    Layout,
    LayoutRules,
    Listener,
    NodeInput,
    NodeLayout,
    ProcessLayout,
)
from enginekit.spec.model import DP_BALANCING, KV_EVENTS_BIND, MAX_PARALLEL, Profile, ShardSpec
from enginekit.spec.rules import listens_everywhere, same_ip

#: The listener through which the other nodes of a tensor- or pipeline-parallel replica
#: without data parallel join the first (torch.distributed's store, Ray's head, SGLang's
#: ``--dist-init-addr``): the replica's ``leader_port``.
DIST_INIT = "dist-init"
HTTP = "http"
KV_EVENTS = "kv-events"
#: Where a consumer that joined late asks a binding publisher for the batches it missed
#: (vLLM's ``replay_endpoint``): one per rank, after every rank's publisher.
KV_EVENTS_REPLAY = "kv-events-replay"
LOOPBACK = "127.0.0.1"
#: A disaggregated instance's KV-transfer listeners (:attr:`LayoutRules.kv_transfer`):
#: vLLM's NIXL side channel, SGLang's bootstrap server.
KV_TRANSFER = "kv-transfer"


def layout(
    profile: Profile,
    nodes: Sequence[NodeInput],
    *,
    leader_port: int,
    rules: LayoutRules,
    checked: bool = True,
) -> Layout:
    """The replica's layout; pure.

    :param nodes: One per node of the profile, in rank order; the first is the leader.
    :param leader_port: The first port of the leader's block: the join port without data
        parallel, the engine's coordination ports (``rules.coordination``) with it.
    :param checked: False for a caller that has judged the replica already (the replica's
        own rules name its fields better): nothing is checked again.
    :raises SpecError: listing every problem :func:`layout_problems` finds.
    """
    if checked:
        problems = layout_problems(profile, nodes, leader_port=leader_port, rules=rules)
        if problems:
            raise SpecError(problems)
    return _laid(profile, tuple(nodes), leader_port, rules)


def needs_layout(profile: Profile) -> bool:
    """Whether the profile asks for what only a layout judges: data or expert parallel.

    A replica of tensor and pipeline parallel alone has its ranks and ports judged by the
    spec's own rules, in their words; its layout adds nothing to them.
    """
    return bool(
        profile.data_parallel > 1
        or profile.dp_per_node
        or profile.expert_parallel
        or profile.all2all
        or profile.dp_balancing != "internal"
    )


def layout_problems(
    profile: Profile, nodes: Sequence[NodeInput], *, leader_port: int, rules: LayoutRules
) -> list[str]:
    """Why the replica cannot be laid out, each problem naming its field; empty when it can."""
    return list(_problems(profile, tuple(nodes), leader_port, rules))


# Every shard of a replica lays the replica out again (a shard planned alone knows no
# more than itself), and the shards of one node ask the same question: the answers are
# kept, so planning a replica of N processes lays it out once per node, not N times.
# Every argument is frozen, and the answers are too; a few are kept (one of 65,536 nodes
# is tens of MiB), enough for the nodes of the replicas a process plans at once.
@functools.lru_cache(maxsize=16)
def _problems(
    profile: Profile, nodes: tuple[NodeInput, ...], leader_port: int, rules: LayoutRules
) -> tuple[str, ...]:
    problems = shape_problems(profile, nodes, rules)
    if problems:
        return tuple(problems)  # ports of a shape that cannot be laid out say nothing useful
    return tuple(_port_problems(_laid(profile, nodes, leader_port, rules), leader_port))


@functools.lru_cache(maxsize=16)
def _laid(profile: Profile, nodes: tuple[NodeInput, ...], leader_port: int, rules: LayoutRules) -> Layout:
    return _layout(profile, nodes, leader_port, rules)


def shape_problems(profile: Profile, nodes: Sequence[NodeInput], rules: LayoutRules) -> list[str]:
    """Why the parallelism cannot be laid out on these nodes, ports aside: degrees, ranks, GPUs, engine."""
    return list(_shape_problems(profile, nodes, rules))


def _shape_problems(profile: Profile, nodes: Sequence[NodeInput], rules: LayoutRules) -> Iterator[str]:
    where = f"profile {profile.name!r}"
    dp, count = profile.data_parallel, profile.node_count
    if len(nodes) != count:
        yield f"nodes: {where} spans {count} node(s), the layout was given {len(nodes)}"
        return
    if not 0 <= profile.dp <= MAX_PARALLEL:
        yield f"{where}: dp: expected 1-{MAX_PARALLEL}, got {profile.dp}"
        return
    if not 0 <= profile.dp_per_node <= dp:
        yield f"{where}: dp_per_node: expected 1-{dp} (at most dp), got {profile.dp_per_node}"
        return
    if profile.tp < 1 or profile.pp < 0:
        yield (
            f"{where}: tp and pp: expected tp of at least 1 and pp of at least 0, "
            f"got {profile.tp} and {profile.pp}"
        )
        return
    if profile.dp_balancing not in DP_BALANCING:
        expected = ", ".join(DP_BALANCING)
        yield f"{where}: dp_balancing: expected one of {expected}, got {profile.dp_balancing!r}"
    elif dp == 1 and profile.dp_balancing != "internal":
        yield f"{where}: dp_balancing: {profile.dp_balancing!r} balances data-parallel ranks, but dp is 1"
    if dp > 1:
        yield from _data_parallel_problems(profile, where, rules)
    if profile.expert_parallel and not rules.expert_parallel:
        yield f"{where}: expert_parallel: {_engine(profile, rules)} has no expert parallel"
    elif profile.expert_parallel and profile.tp * dp < 2:
        yield f"{where}: expert_parallel: needs more than one GPU to spread experts over (tp x dp is 1)"
    if profile.all2all and not profile.expert_parallel:
        yield (
            f"{where}: all2all: {profile.all2all!r} is expert parallel's backend, but expert_parallel is off"
        )
    elif profile.all2all and rules.all2all and profile.all2all not in rules.all2all:
        yield (
            f"{where}: all2all: {_engine(profile, rules)} has no all-to-all backend {profile.all2all!r} "
            f"(expected one of {', '.join(sorted(rules.all2all))})"
        )
    need = profile.per_node
    for i, node in enumerate(nodes):
        if node.gpus and len(node.gpus) != need:
            yield (
                f"nodes[{i}].gpu_indices: the layout puts {need} GPU(s) on each node, "
                f"node {i} lists {len(node.gpus)}"
            )


def _engine(profile: Profile, rules: LayoutRules) -> str:
    """The engine as a refusal names it: with the node's release where the rules say it."""
    return rules.named or f"engine {profile.engine!r}"


def _data_parallel_problems(profile: Profile, where: str, rules: LayoutRules) -> Iterator[str]:
    dp, count, local = profile.data_parallel, profile.node_count, profile.dp_local
    if not rules.balancing:
        yield f"{where}: dp: {_engine(profile, rules)} has no data parallel (dp is {dp})"
        return
    if profile.dp_balancing in DP_BALANCING and profile.dp_balancing not in rules.balancing:
        yield (
            f"{where}: dp_balancing: {_engine(profile, rules)} has no {profile.dp_balancing!r} balancing "
            f"(it has {', '.join(m for m in DP_BALANCING if m in rules.balancing)})"
        )
    if local * count != dp:
        yield f"{where}: dp: {dp} ranks do not fill {count} node(s) of {local} rank(s) each (dp_per_node)"
    rank_gpus = profile.tp * profile.pipeline_degree
    if profile.gpus_per_node and profile.gpus_per_node != rank_gpus * local:
        yield (
            f"{where}: gpus_per_node: {local} rank(s) per node of TP {profile.tp} x PP "
            f"{profile.pipeline_degree} take {rank_gpus * local} GPU(s), not {profile.gpus_per_node}; "
            f"a data-parallel rank must fit on one node"
        )


def _layout(profile: Profile, nodes: Sequence[NodeInput], leader_port: int, rules: LayoutRules) -> Layout:
    dp, local, mode = profile.data_parallel, profile.dp_local, profile.dp_balancing
    # A single node without an address is dialed on loopback: every process is on it.
    leader = nodes[0].addr or (LOOPBACK if len(nodes) == 1 else "")
    laid = []
    for k, node in enumerate(nodes):
        gpus = node.gpus or tuple(range(profile.per_node))
        ranks = tuple(range(k * local, (k + 1) * local)) if dp > 1 else (0,)
        groups: list[tuple[tuple[int, ...], tuple[int, ...]]]
        if mode == "external":
            size = profile.tp * profile.pipeline_degree
            groups = [((r,), gpus[i * size : (i + 1) * size]) for i, r in enumerate(ranks)]
        else:
            groups = [(ranks, gpus)]
        processes = []
        for i, (hosted, used) in enumerate(groups):
            serves = k == 0 or mode != "internal"
            processes.append(
                ProcessLayout(
                    node=k,
                    index=i,
                    role=API_SERVER if serves else HEADLESS,
                    dp_ranks=hosted,
                    gpus=used,
                    listens=tuple(_listens(profile, node, k, i, hosted, serves, leader_port, rules)),
                    dials=tuple(
                        _dials(profile, k, i, hosted, (leader, leader_port, nodes[0].http_port), rules)
                    ),
                    reserves=tuple(_reserves(profile, k, i, leader_port, rules)),
                )
            )
        laid.append(NodeLayout(index=k, addr=node.addr, processes=tuple(processes)))
    return Layout(
        tp=profile.tp,
        pp=profile.pipeline_degree,
        dp=dp,
        dp_local=local,
        balancing=mode,
        expert_parallel=profile.expert_parallel,
        nodes=tuple(laid),
    )


def _listens(
    profile: Profile,
    node: NodeInput,
    k: int,
    i: int,
    ranks: tuple[int, ...],
    serves: bool,
    leader_port: int,
    rules: LayoutRules,
) -> Iterator[Listener]:
    if node.http_port and (serves or rules.health_stub):
        yield Listener(HTTP if serves else HEALTH_STUB, node.http_port + i)
    if k == 0 and i == 0:
        if profile.data_parallel > 1:
            for port in rules.coordination:
                yield Listener(port.name, leader_port + port.offset, _count(profile, port))
        elif profile.node_count > 1:
            yield Listener(DIST_INIT, leader_port)
    if node.kv_events_port:
        if rules.kv_events_per_rank:
            yield Listener(KV_EVENTS, node.kv_events_port + ranks[0], len(ranks))
        else:
            yield Listener(KV_EVENTS, node.kv_events_port)
        if node.kv_events_replay and rules.kv_events_replay:
            base = kv_events_replay_base(node.kv_events_port, profile)
            if rules.kv_events_per_rank:
                yield Listener(KV_EVENTS_REPLAY, base + ranks[0], len(ranks))
            else:
                yield Listener(KV_EVENTS_REPLAY, base)
    transfer = rules.kv_transfer
    if node.kv_transfer_port and transfer is not None and node.role in transfer.roles:
        yield from _transfer_listens(profile, node.kv_transfer_port, k, i, ranks, transfer.scope)


def _transfer_listens(
    profile: Profile, base: int, k: int, i: int, ranks: tuple[int, ...], scope: str
) -> Iterator[Listener]:
    """A process's KV-transfer listeners: the leader's one port, one per rank, or one per worker."""
    if scope == TRANSFER_LEADER:
        if k == 0 and i == 0:
            yield Listener(KV_TRANSFER, base)
        return
    if scope == TRANSFER_RANK:
        yield Listener(KV_TRANSFER, base + ranks[0], len(ranks))
        return
    tp = profile.tp
    if profile.data_parallel > 1:
        # A data-parallel rank is on one node: its workers are every tensor-parallel rank.
        yield Listener(KV_TRANSFER, base + ranks[0] * tp, len(ranks) * tp)
        return
    # One rank over the nodes: a node's workers are the tensor-parallel ranks of its GPUs
    # (all of them where a node holds a whole stage or more of the pipeline).
    per_node = profile.per_node
    if per_node >= tp:
        yield Listener(KV_TRANSFER, base, tp)
    else:
        yield Listener(KV_TRANSFER, base + (k * per_node) % tp, per_node)


def kv_event_sources(shard: ShardSpec, rules: LayoutRules) -> tuple[KVEventSource, ...]:
    """Where consumers connect to ``shard``'s KV-cache events, one source per rank it publishes for; pure.

    Only a binding publisher has any (``kv_events_mode`` ``bind``): one that connects
    goes to a subscriber of the node's. Each rank's ports are its process's listeners in
    the replica's layout; without data parallel only the leader's process publishes (the
    other nodes run workers without a scheduler of their own). The host is the address
    the shard binds, else the leader's for the first node, else loopback: a router on
    another host needs ``bind_addr``.
    """
    profile = shard.profile
    if not (profile.kv_events and shard.kv_events_port and shard.kv_events_mode == KV_EVENTS_BIND):
        return ()
    if needs_layout(profile) or shard.dp_rank:
        process = shard_layout(shard, rules)
        ranks, listens = process.dp_ranks, process.listens
    elif shard.is_leader():
        ranks = (0,)
        listens = tuple(
            _listens(
                profile,
                NodeInput(kv_events_port=shard.kv_events_port, kv_events_replay=True),
                0,
                0,
                ranks,
                False,
                0,
                rules,
            )
        )
    else:
        return ()
    host = reachable_host(shard)
    ports = {listener.name: listener.port for listener in listens}
    return tuple(
        KVEventSource(
            rank=rank,
            endpoint=f"tcp://{host_port(host, ports[KV_EVENTS] + j)}",
            replay=f"tcp://{host_port(host, ports[KV_EVENTS_REPLAY] + j)}" if rules.kv_events_replay else "",
        )
        for j, rank in enumerate(ranks if rules.kv_events_per_rank else ranks[:1])
    )


def kv_events_endpoints(shard: ShardSpec, *, bind_host: bool = False) -> tuple[str, str]:
    """The publisher's endpoint and replay endpoint to configure the engine with; pure.

    The engine moves both by each rank's data-parallel rank, as vLLM's
    ``offset_endpoint_port`` does. Under ``kv_events_mode`` ``connect``: the node's
    subscriber on loopback, and no replay. Under ``bind``: ``tcp://*:PORT``, since vLLM
    binds only a wildcard endpoint and connects to any other (its ``ZmqEventPublisher``),
    unless ``bind_host`` (an engine told to bind whatever the host, SGLang's ``bind``),
    which binds the shard's own address where it has one; the replay endpoint, which
    vLLM always binds, at the shard's own IPv4 address or host name where it has one (a
    ZMQ socket binds IPv6 only when told to, and vLLM's is not), else ``*``.
    """
    port = shard.kv_events_port
    if shard.kv_events_mode != KV_EVENTS_BIND:
        return f"tcp://{LOOPBACK}:{port}", ""
    own = "*" if listens_everywhere(shard.bind_addr) or ":" in shard.bind_addr else shard.bind_addr
    replay = f"tcp://{own}:{kv_events_replay_base(port, shard.profile)}"
    return f"tcp://{own if bind_host else '*'}:{port}", replay


def kv_events_wiring(shard: ShardSpec, *, per_rank: bool, replay: bool, bind_host: bool = False) -> str:
    """How ``shard``'s KV-cache events are wired, for a plan's notes: who binds where, and who connects.

    ``per_rank``, ``replay`` and ``bind_host`` say what the engine does (its
    :class:`LayoutRules` and :func:`kv_events_endpoints`).
    """
    port = shard.kv_events_port
    moved = " plus each data-parallel rank" if per_rank and shard.profile.data_parallel > 1 else ""
    if shard.kv_events_mode != KV_EVENTS_BIND:
        return (
            f"KV-cache events: the publisher connects to a subscriber at tcp://{LOOPBACK}:{port}{moved} "
            f"(kv_events_mode 'connect': the node's agent must listen there); none is served to others"
        )
    endpoint, replay_endpoint = kv_events_endpoints(shard, bind_host=bind_host)
    where = (
        "every address" if endpoint.startswith("tcp://*:") else endpoint[len("tcp://") :].rpartition(":")[0]
    )
    said = (
        f"KV-cache events: the publisher binds port {port}{moved} on {where}, and any number of "
        f"subscribers connect (the plan's kv_events: vllm-router's --kv-event-source)"
    )
    if replay:
        said += f"; replays of missed batches at {replay_endpoint}{moved}"
    return said + "; the batches carry the prompts' token ids: keep the port from untrusted networks"


def reachable_host(shard: ShardSpec) -> str:
    """Where another process reaches the shard; pure.

    Its bind address, else the leader's address on the first node (where the replica is
    dialed), else loopback: only a process on the same host reaches a shard that says no
    address of its own. What a subscriber to its KV events dials, and where a vLLM
    instance's NIXL side channel says it is.
    """
    if not listens_everywhere(shard.bind_addr):
        return shard.bind_addr
    return shard.leader_addr if shard.rank == 0 and shard.leader_addr else LOOPBACK


def kv_events_replay_base(kv_events_port: int, profile: Profile) -> int:
    """The first replay port of a replica whose publishers bind from ``kv_events_port``.

    Every rank's publisher takes ``kv_events_port`` plus its data-parallel rank, so the
    replay endpoints start after the last of them, and each rank's is this plus its rank
    (vLLM moves both endpoints by the rank alike). Without data parallel: the port after.
    """
    return kv_events_port + profile.data_parallel


def _count(profile: Profile, port: Coordination) -> int:
    return profile.data_parallel if port.per_rank else port.count


def _dials(
    profile: Profile,
    k: int,
    i: int,
    ranks: tuple[int, ...],
    leader: tuple[str, int, int],
    rules: LayoutRules,
) -> Iterator[Dial]:
    """What process ``i`` of node ``k`` dials; ``leader``: the leader's address, leader_port and HTTP port."""
    if k == 0 and i == 0:
        return  # the leader dials nobody: everyone dials it
    addr, leader_port, leader_http = leader
    if profile.data_parallel > 1:
        for port in rules.coordination:
            # A range is dialed at its first port, one port per rank at the process's first rank's.
            first = ranks[0] if port.per_rank else 0
            yield Dial(port.name, 0, addr, leader_port + port.offset + first)
        if rules.coordination_closes and leader_http:
            # The first node's first process always serves the API, whatever the balancing.
            yield Dial(HTTP, 0, addr, leader_http)
        return
    yield Dial(DIST_INIT, 0, addr, leader_port)  # without data parallel, only another node's process


def _reserves(profile: Profile, k: int, i: int, leader_port: int, rules: LayoutRules) -> Iterator[Listener]:
    # Once per node but the leader's, whose own listeners hold these ports already.
    if k == 0 or i != 0 or profile.data_parallel < 2:
        return
    for port in rules.coordination:
        if port.every_node:
            yield Listener(port.name, leader_port + port.offset, _count(profile, port))


def _port_problems(laid: Layout, leader_port: int) -> Iterator[str]:
    """Ports out of range, and two listeners of one host on one port, ranges included."""
    needs_leader = any(p.dials for p in laid.processes())
    if needs_leader and not MIN_PORT <= leader_port <= MAX_PORT:
        yield (
            f"leader_port: expected {MIN_PORT}-{MAX_PORT} for a replica whose processes dial "
            f"the leader, got {leader_port}"
        )
    # Each problem is keyed by the port it is found at, in layout order (a process's
    # listeners, then the ports it keeps free), so they are said in that order however
    # they are found.
    found: list[tuple[int, int, str]] = []
    hosts: dict[str, list[_Placed]] = {}
    held = (
        (process, listener, said)
        for process in laid.processes()
        for listener, said in [
            *((listener, str(listener)) for listener in process.listens),
            *((kept, f"{kept} (kept free)") for kept in process.reserves),
        ]
    )
    for seq, (process, listener, said) in enumerate(held):
        if listener.port < MIN_PORT or listener.last > MAX_PORT:
            message = (
                f"node {process.node} process {process.index}: {said} is outside "
                f"{MIN_PORT}-{MAX_PORT}{_from(listener)}"
            )
            found.append((seq, -1, message))
            continue
        # Two nodes at one address are one host: a listener of each clashes there too.
        host = laid.nodes[process.node].addr or f"node {process.node}"
        hosts.setdefault(host, []).append(_Placed(seq, listener, said, process))
    for host, placed in hosts.items():
        found += _overlaps(host, placed)
    for _, _, message in sorted(found):
        yield message


@attrs.frozen
class _Placed:
    """A port in range where it was laid out: ``seq`` counts every port of the layout, ``said`` names it."""

    seq: int
    listener: Listener
    said: str
    process: ProcessLayout


def _overlaps(host: str, placed: list[_Placed]) -> list[tuple[int, int, str]]:
    """Each pair of one host's ports that overlap, found in one sweep by first port.

    Sorted by first port, a range can only overlap those before it still open at its
    first port: a thousand processes on one node cost a sort, not a million comparisons.
    A pair is named by the later one of the layout first, keyed by both.
    """
    found = []
    open_: list[_Placed] = []
    for entry in sorted(placed, key=lambda p: (p.listener.port, p.seq)):
        open_ = [other for other in open_ if other.listener.last >= entry.listener.port]
        for other in open_:
            first, second = sorted((other, entry), key=lambda p: p.seq)
            message = (
                f"node {second.process.node} process {second.process.index}: {second.said} overlaps "
                f"node {first.process.node} process {first.process.index}'s {first.said} on the "
                f"same host ({host})"
            )
            found.append((second.seq, first.seq, message))
        open_.append(entry)
    return found


def _from(listener: Listener) -> str:
    if listener.name == KV_TRANSFER:
        return " (kv_transfer_port plus the data-parallel and tensor-parallel ranks)"
    if listener.name == KV_EVENTS:
        return " (kv_events_port plus the data-parallel ranks)"
    if listener.name == KV_EVENTS_REPLAY:
        return " (kv_events_port plus the data-parallel size, plus the data-parallel ranks)"
    if listener.name in (HTTP, HEALTH_STUB):
        return " (http_port plus the process's index on its node)"
    return " (leader_port and the ports after it)"


def shard_layout(shard: ShardSpec, rules: LayoutRules) -> ProcessLayout:
    """The process ``shard`` is in its replica's layout: its ranks, GPUs, listeners and dials; pure.

    The replica is laid out from what the shard carries (its profile, node count, node
    rank, first data-parallel rank, the leader's address and ports), so a shard planned
    alone gets the slice the whole replica's table shows. Its ``http_port`` is its own
    process's. The other nodes' ports, and their addresses but for the leader's (on one node
    without one, loopback), are unknown here: what spans nodes is checked on the replica.

    :raises SpecError: the shape cannot be laid out, or ``dp_rank`` is not the first rank
        of a process on the shard's node.
    """
    profile = shard.profile
    # Its index among its node's processes: only under external balancing is it not 0.
    index = shard.dp_rank - shard.rank * profile.dp_local if profile.dp_balancing == "external" else 0
    problems = list(_own_port_problems(shard, index))
    if problems:
        raise SpecError(problems)
    # Only the shard's own node's ports are known here, and the leader's HTTP port where
    # the shard was given it: another node's may differ, and guessing them would invent
    # clashes on a host this shard cannot see. Its own node is at the address it binds,
    # where that is one: on the leader's, its listeners clash with the leader's.
    nodes = [
        NodeInput(
            addr=shard.leader_addr if k == 0 else _own_addr(shard) if k == shard.rank else "",
            http_port=_http_port(shard, k, index),
            kv_events_port=shard.kv_events_port if k == shard.rank else 0,
            kv_events_replay=shard.kv_events_mode == KV_EVENTS_BIND,
            kv_transfer_port=shard.kv_transfer_port if k == shard.rank else 0,
            role=shard.role,
        )
        for k in range(shard.nnodes)
    ]
    laid = layout(profile, nodes, leader_port=shard.leader_port, rules=rules)
    if not 0 <= shard.rank < len(laid.nodes):
        raise SpecError([f"rank: must be in 0..{len(laid.nodes) - 1}, got {shard.rank}"])
    starts = [p.dp_start for p in laid.nodes[shard.rank].processes]
    if shard.dp_rank not in starts:
        raise SpecError(
            [
                f"dp_rank: node {shard.rank}'s processes start at data-parallel rank(s) "
                f"{', '.join(map(str, starts))}, not {shard.dp_rank}"
            ]
        )
    process = laid.process(shard.rank, shard.dp_rank)
    return attrs.evolve(process, gpus=shard.gpu_indices or process.gpus)


def _own_port_problems(shard: ShardSpec, index: int) -> Iterator[str]:
    """What the shard's own ports say that cannot be: its node's first port below 1, another leader's port."""
    if index and 0 < shard.http_port <= index:
        yield (
            f"http_port: {shard.http_port} is process {index}'s of node {shard.rank} (the node's first "
            f"HTTP port plus {index}), so at least {index + 1}"
        )
    first = shard.http_port - index
    if shard.rank == 0 and shard.leader_http_port and first > 0 and shard.leader_http_port != first:
        of = "its http_port" if not index else f"its http_port less its index {index}"
        yield (
            f"leader_http_port: {shard.leader_http_port}, but this node's first API server "
            f"listens on {first} ({of})"
        )


def _own_addr(shard: ShardSpec) -> str:
    """The shard's node as its listeners are reached: the address it binds, unless that is every one."""
    if listens_everywhere(shard.bind_addr):
        return ""
    # The leader's address as the leader's node is laid out, when the bind is the same IP spelled otherwise.
    return shard.leader_addr if same_ip(shard.bind_addr, shard.leader_addr) else shard.bind_addr


def _http_port(shard: ShardSpec, k: int, index: int) -> int:
    """Node ``k``'s first HTTP port as ``shard`` knows it: its own node's, the leader's, or 0 (unknown)."""
    if k == shard.rank:
        return max(shard.http_port - index, 0)
    return shard.leader_http_port if k == 0 else 0
