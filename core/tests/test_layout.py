"""The one layout function: every valid replica laid out without a clash, every bad one refused with its reasons."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import pytest
from enginekit.base.errors import SpecError
from enginekit.layout import compute
from enginekit.layout.compute import (
    DIST_INIT,
    HTTP,
    KV_EVENTS,
    KV_EVENTS_REPLAY,
    layout,
    layout_problems,
    shard_layout,
)
from enginekit.layout.model import (
    API_SERVER,
    HEADLESS,
    HEALTH_STUB,
    NO_DATA_PARALLEL,
    TRANSFER_SCOPES,
    Coordination,
    Dial,
    KVTransferPorts,
    Layout,
    LayoutRules,
    Listener,
    NodeInput,
    ProcessLayout,
)
from enginekit.spec.model import DECODE, DP_BALANCING, PREFILL, ROLES, Profile, ShardSpec
from hypothesis import given, settings
from hypothesis import strategies as st

#: vLLM's shape: every balancing mode, two coordination ports, KV events moved by the rank.
VLLM_LIKE = LayoutRules(
    balancing=frozenset(DP_BALANCING),
    expert_parallel=True,
    coordination=("dp-rpc", "dp-master"),
    kv_events_per_rank=True,
    kv_events_replay=True,
)
#: vLLM's own: its handshake port closes once every rank joined, so workers dial the leader's API too.
VLLM_CLOSING = attrs.evolve(VLLM_LIKE, coordination=("dp-rpc",), coordination_closes=True)
#: An engine with one front door and one coordination port, publishing per process.
INTERNAL_ONLY = LayoutRules(balancing=frozenset({"internal"}), coordination=("dist-init",))
#: SGLang's shape from 0.5.13: one front door, a block and a port past a gap, the block kept
#: free on every node, and a health stub on every node's HTTP port.
SGLANG_LIKE = LayoutRules(
    balancing=frozenset({"internal"}),
    expert_parallel=True,
    coordination=(
        Coordination("dist-init", every_node=True),
        Coordination("zmq", 1, 6, every_node=True),
        Coordination("dp-handshake", 13),
    ),
    kv_events_per_rank=True,
    health_stub=True,
)
#: SGLang's shape up to 0.5.3: a port per data-parallel rank after the block.
SGLANG_PER_RANK = LayoutRules(
    balancing=frozenset({"internal"}),
    coordination=("dist-init", "zmq", Coordination("rank-input", 6, per_rank=True)),
    health_stub=True,
)


def profile(**fields: object) -> Profile:
    base: dict[str, object] = {"name": "p", "engine": "e", "model_path": "/m"}
    return Profile(**{**base, **fields})  # type: ignore[arg-type]


def nodes(count: int, *, http: int = 8000, kv: int = 0, addr: str = "10.0.0.{}") -> list[NodeInput]:
    return [NodeInput(addr=addr.format(i + 1), http_port=http, kv_events_port=kv) for i in range(count)]


# --- what the tests check, written independently of the function under test -------------


def clashes(laid: Layout) -> list[tuple[str, int]]:
    """Every (host, port) two listeners of one host both take, ranges spelled out port by port."""
    seen: dict[tuple[str, int], int] = {}
    for process in laid.processes():
        host = laid.nodes[process.node].addr or f"node {process.node}"
        for listener in (*process.listens, *process.reserves):
            for port in range(listener.port, listener.port + listener.count):
                seen[(host, port)] = seen.get((host, port), 0) + 1
    return [key for key, count in seen.items() if count > 1]


def unanswered(laid: Layout) -> list[Dial]:
    """Every dial no process of the replica listens for, by name, address and port."""
    listening = {
        (listener.name, laid.nodes[p.node].addr, port)
        for p in laid.processes()
        for listener in p.listens
        for port in range(listener.port, listener.port + listener.count)
    }
    return [d for p in laid.processes() for d in p.dials if (d.name, d.addr, d.port) not in listening]


@st.composite
def replicas(draw: st.DrawFn) -> tuple[Profile, list[NodeInput], int, LayoutRules]:
    """A replica every engine of its rules can lay out: ports apart, ranks fitting the nodes."""
    rules = draw(st.sampled_from([VLLM_LIKE, VLLM_CLOSING, INTERNAL_ONLY, SGLANG_LIKE, SGLANG_PER_RANK]))
    count = draw(st.integers(1, 4))
    local = draw(st.integers(1, 8))
    tp = draw(st.sampled_from([1, 2, 4]))
    pp = draw(st.sampled_from([1, 2]))
    dp = count * local
    mode = draw(st.sampled_from(sorted(rules.balancing))) if dp > 1 else "internal"
    if dp == 1 and count == 1:
        pp = 1  # a single-node pipeline needs gpus_per_node, which the profile checks judge
    kv = draw(st.sampled_from([0, 20000]))
    # A disaggregated instance's transfer listeners, however its engine derives them.
    role = draw(st.sampled_from(ROLES))
    transfer = draw(st.sampled_from([0, 30000]))
    scope = draw(st.sampled_from(TRANSFER_SCOPES))
    listening = draw(st.sampled_from([frozenset({PREFILL, DECODE}), frozenset({PREFILL})]))
    replay = draw(st.booleans())  # a binding publisher's replay endpoints, after every rank's
    shared_host = draw(st.booleans())  # every node on one host: only the ports keep them apart
    http = draw(st.integers(1024, 9000))
    leader = draw(st.integers(10000, 12000))
    spread = (count if shared_host else 1) * (local + 2)
    given = [
        NodeInput(
            addr="127.0.0.1" if shared_host else f"10.0.0.{i + 1}",
            http_port=http + (i * spread if shared_host else 0),
            kv_events_port=kv,
            kv_events_replay=replay,
            # On one host, each node's transfer ports after the one before's (as an instance's are).
            kv_transfer_port=transfer + (i * tp * pp * dp if shared_host and transfer else 0),
            role=role,
        )
        for i in range(count)
    ]
    fields: dict[str, object] = {"tp": tp, "pp": pp, "dp": dp, "nodes": count, "dp_balancing": mode}
    if count > 1 or pp > 1:
        fields["gpus_per_node"] = tp * pp * (local if dp > 1 else 1) if dp > 1 else tp * pp // count or 1
    if dp == 1 and count > 1:
        fields["tp"], fields["pp"], fields["gpus_per_node"] = tp, count, tp
    if rules is INTERNAL_ONLY and kv and mode == "external":
        kv = 0
    rules = attrs.evolve(rules, kv_transfer=KVTransferPorts(roles=listening, scope=scope))
    return profile(**fields), given, leader, rules


@settings(max_examples=300, deadline=None)
@given(replicas())
def test_every_valid_replica_lays_out_with_no_clash_and_every_dial_answered(
    case: tuple[Profile, list[NodeInput], int, LayoutRules],
) -> None:
    prof, given_nodes, leader, rules = case
    problems = layout_problems(prof, given_nodes, leader_port=leader, rules=rules)
    if problems:
        # Only a clash the drawn ports could not avoid may refuse it, and it must be real.
        assert all("overlaps" in p for p in problems), problems
        assert clashes(compute._layout(prof, given_nodes, leader, rules))
        return
    laid = layout(prof, given_nodes, leader_port=leader, rules=rules)
    assert clashes(laid) == []
    assert unanswered(laid) == []


@settings(max_examples=300, deadline=None)
@given(replicas())
def test_ranks_are_zero_to_dp_each_hosted_once_numbered_as_vllm_numbers_them(
    case: tuple[Profile, list[NodeInput], int, LayoutRules],
) -> None:
    prof, given_nodes, leader, rules = case
    if layout_problems(prof, given_nodes, leader_port=leader, rules=rules):
        return
    laid = layout(prof, given_nodes, leader_port=leader, rules=rules)
    hosted = [rank for p in laid.processes() for rank in p.dp_ranks]
    assert sorted(hosted) == list(range(laid.dp))
    for node in laid.nodes:
        # vLLM's --data-parallel-start-rank of node k: k times the ranks per node.
        assert node.processes[0].dp_start == node.index * laid.dp_local
        used = [gpu for p in node.processes for gpu in p.gpus]
        assert len(used) == len(set(used)), "two processes of one node share a GPU"
        for p in node.processes:
            assert len(p.gpus) == laid.tp * laid.pp * (len(p.dp_ranks) if laid.dp > 1 else 1) or laid.dp == 1
    servers = [p for p in laid.processes() if p.role == API_SERVER]
    expected = {"internal": 1, "hybrid": len(laid.nodes), "external": laid.dp}[laid.balancing]
    assert len(servers) == expected
    assert all(p.port(HTTP) for p in servers)
    assert not any(p.port(HTTP) for p in laid.processes() if p.role == HEADLESS)
    # A headless process listens for health on its node's HTTP port only where the engine says so.
    headless = [p for p in laid.processes() if p.role == HEADLESS]
    stubs = [given_nodes[p.node].http_port if rules.health_stub else 0 for p in headless]
    assert [p.port(HEALTH_STUB) for p in headless] == stubs
    assert not any(p.port(HEALTH_STUB) for p in servers)


@settings(max_examples=300, deadline=None)
@given(replicas())
def test_every_coordination_port_is_the_leaders_dialed_by_every_other_process_and_kept_free_where_asked(
    case: tuple[Profile, list[NodeInput], int, LayoutRules],
) -> None:
    prof, given_nodes, leader, rules = case
    laid = compute._layout(prof, given_nodes, leader, rules)  # ports apart: the shape alone
    head, *others = laid.processes()
    if laid.dp == 1:
        assert all(not p.reserves for p in laid.processes())
        return
    dp = laid.dp
    for port in rules.coordination:
        count = dp if port.per_rank else port.count
        assert Listener(port.name, leader + port.offset, count) in head.listens
        for other in others:
            dial = other.dialed(port.name)
            assert dial is not None
            assert (dial.node, dial.addr) == (
                0,
                laid.nodes[0].addr or ("127.0.0.1" if len(laid.nodes) == 1 else ""),
            )
            assert leader + port.offset <= dial.port < leader + port.offset + count
    # Kept free once on every node but the leader's, by its first process.
    kept = [
        Listener(c.name, leader + c.offset, dp if c.per_rank else c.count)
        for c in rules.coordination
        if c.every_node
    ]
    for process in laid.processes():
        expected = kept if process.node > 0 and process.index == 0 else []
        assert list(process.reserves) == expected


@settings(max_examples=200, deadline=None)
@given(replicas())
def test_a_shard_gets_the_slice_the_whole_replica_shows(
    case: tuple[Profile, list[NodeInput], int, LayoutRules],
) -> None:
    prof, given_nodes, leader, rules = case
    if any(n.addr == given_nodes[0].addr for n in given_nodes[1:]):
        return  # a shard alone cannot know another node shares its host
    if layout_problems(prof, given_nodes, leader_port=leader, rules=rules):
        return
    laid = layout(prof, given_nodes, leader_port=leader, rules=rules)
    for process in laid.processes():
        node = given_nodes[process.node]
        shard = ShardSpec(
            profile=prof,
            rank=process.node,
            nnodes=len(given_nodes),
            dp_rank=process.dp_start,
            leader_addr=given_nodes[0].addr if len(given_nodes) > 1 or prof.data_parallel > 1 else "",
            leader_port=leader,
            leader_http_port=given_nodes[0].http_port if prof.data_parallel > 1 else 0,
            http_port=process.port(HTTP) or node.http_port,
            kv_events_port=node.kv_events_port,
            kv_events_mode="bind" if node.kv_events_replay else "connect",
            role=node.role,
            kv_transfer_port=node.kv_transfer_port,
            gpu_indices=process.gpus,
            bind_addr=node.addr,
        )
        assert shard_layout(shard, rules) == process


# --- examples an operator would recognise --------------------------------------------


def test_wide_ep_over_two_nodes_internal_balancing() -> None:
    prof = profile(tp=1, dp=16, nodes=2, gpus_per_node=8, expert_parallel=True)
    laid = layout(prof, nodes(2, kv=5557), leader_port=13345, rules=VLLM_LIKE)
    head, worker = (node.processes[0] for node in laid.nodes)
    assert (head.role, head.dp_ranks, head.gpus) == (API_SERVER, tuple(range(8)), tuple(range(8)))
    assert head.listens == (
        Listener(HTTP, 8000),
        Listener("dp-rpc", 13345),
        Listener("dp-master", 13346),
        Listener(KV_EVENTS, 5557, 8),
    )
    assert (worker.role, worker.dp_start, worker.listens) == (HEADLESS, 8, (Listener(KV_EVENTS, 5565, 8),))
    assert worker.dials == (Dial("dp-rpc", 0, "10.0.0.1", 13345), Dial("dp-master", 0, "10.0.0.1", 13346))
    assert laid.expert_parallel


def test_external_balancing_gives_each_rank_its_own_process_port_and_gpus() -> None:
    prof = profile(tp=2, dp=4, nodes=1, dp_balancing="external")
    laid = layout(
        prof,
        [NodeInput(addr="10.0.0.1", http_port=8000, gpus=(4, 5, 6, 7, 0, 1, 2, 3))],
        leader_port=9000,
        rules=VLLM_LIKE,
    )
    [node] = laid.nodes
    assert [(p.dp_ranks, p.gpus, p.port(HTTP)) for p in node.processes] == [
        ((0,), (4, 5), 8000),
        ((1,), (6, 7), 8001),
        ((2,), (0, 1), 8002),
        ((3,), (2, 3), 8003),
    ]
    assert laid.process(0, 2).index == 2
    assert [str(d) for d in node.processes[3].dials] == [
        "dp-rpc -> node 0 10.0.0.1:9000",
        "dp-master -> node 0 10.0.0.1:9001",
    ]


def test_hybrid_balancing_puts_an_api_server_on_every_node() -> None:
    prof = profile(tp=4, dp=4, nodes=2, gpus_per_node=8, dp_balancing="hybrid")
    laid = layout(prof, nodes(2), leader_port=13345, rules=VLLM_LIKE)
    assert [(p.node, p.role, p.dp_ranks, p.port(HTTP)) for p in laid.processes()] == [
        (0, API_SERVER, (0, 1), 8000),
        (1, API_SERVER, (2, 3), 8000),
    ]
    assert laid.process(1, 3).node == 1


def test_tensor_and_pipeline_parallel_over_nodes_joins_the_leader_on_its_port() -> None:
    prof = profile(tp=8, pp=2, nodes=2, gpus_per_node=8)
    laid = layout(prof, nodes(2), leader_port=29501, rules=NO_DATA_PARALLEL)
    head, worker = (node.processes[0] for node in laid.nodes)
    assert head.listens == (Listener(HTTP, 8000), Listener(DIST_INIT, 29501))
    assert (worker.role, worker.listens, worker.dials) == (
        HEADLESS,
        (),
        (Dial(DIST_INIT, 0, "10.0.0.1", 29501),),
    )
    assert head.dialed(DIST_INIT) is None
    assert worker.dialed(DIST_INIT) == Dial(DIST_INIT, 0, "10.0.0.1", 29501)
    assert (laid.dp, laid.dp_local, laid.balancing) == (1, 1, "internal")


def test_a_single_node_without_an_address_is_dialed_on_loopback() -> None:
    prof = profile(tp=1, dp=2, dp_balancing="external")
    laid = layout(prof, [NodeInput(http_port=8000)], leader_port=9000, rules=VLLM_LIKE)
    assert laid.process(0, 1).dials[0] == Dial("dp-rpc", 0, "127.0.0.1", 9000)
    two = layout(
        attrs.evolve(prof, nodes=2, gpus_per_node=1),
        [NodeInput(), NodeInput()],
        leader_port=9000,
        rules=VLLM_LIKE,
    )
    assert two.process(1).dials[0] == Dial("dp-rpc", 0, "", 9000)  # another node's address is not loopback


def test_a_single_gpu_replica_is_one_process_listening_on_http_alone() -> None:
    laid = layout(profile(), [NodeInput(addr="", http_port=8000)], leader_port=0, rules=NO_DATA_PARALLEL)
    [process] = laid.processes()
    assert (process.role, process.dp_ranks, process.gpus, process.listens, process.dials) == (
        API_SERVER,
        (0,),
        (0,),
        (Listener(HTTP, 8000),),
        (),
    )
    assert str(Listener(KV_EVENTS, 5557, 4)) == "kv-events 5557-5560"
    assert Listener(KV_EVENTS, 5557, 4).last == 5560
    assert str(Dial("dp-rpc", 1, "", 9)) == "dp-rpc -> node 1 ?:9"
    assert process.port("nothing") == 0
    assert process.dialed("nothing") is None


# --- refusals, every problem at once -------------------------------------------------


def refused(
    prof: Profile, given_nodes: Sequence[NodeInput], leader: int = 13345, rules: LayoutRules = VLLM_LIKE
) -> list[str]:
    problems = layout_problems(prof, given_nodes, leader_port=leader, rules=rules)
    with pytest.raises(SpecError) as caught:
        layout(prof, given_nodes, leader_port=leader, rules=rules)
    assert list(caught.value.problems) == problems
    return problems


def test_a_port_range_past_65535_is_refused_naming_where_it_comes_from() -> None:
    prof = profile(tp=1, dp=8, nodes=1)
    assert refused(prof, nodes(1, kv=65530)) == [
        "node 0 process 0: kv-events 65530-65537 is outside 1-65535 (kv_events_port plus the data-parallel ranks)"
    ]
    assert refused(prof, nodes(1), leader=65535) == [
        "node 0 process 0: dp-master 65536 is outside 1-65535 (leader_port and the ports after it)"
    ]
    external = profile(tp=1, dp=2, nodes=1, dp_balancing="external")
    assert refused(external, nodes(1, http=65535)) == [
        "node 0 process 1: http 65536 is outside 1-65535 (http_port plus the process's index on its node)"
    ]


def test_two_listeners_on_one_port_of_one_host_are_refused_naming_both() -> None:
    prof = profile(tp=1, dp=4, nodes=1)
    assert refused(prof, nodes(1, http=13346)) == [
        "node 0 process 0: dp-master 13346 overlaps node 0 process 0's http 13346 on the same host (10.0.0.1)"
    ]
    two = profile(tp=1, dp=4, nodes=2, gpus_per_node=2)
    same_host = nodes(2, kv=5000, addr="127.0.0.1")
    assert (
        layout_problems(two, same_host, leader_port=13345, rules=VLLM_LIKE) == []
    )  # ranks move the KV ports apart, and the worker serves no HTTP
    hybrid = attrs.evolve(two, dp_balancing="hybrid")
    assert refused(hybrid, same_host) == [
        "node 1 process 0: http 8000 overlaps node 0 process 0's http 8000 on the same host (127.0.0.1)"
    ]
    # An engine publishing on the base port alone clashes with itself under external balancing.
    per_process = LayoutRules(balancing=frozenset(DP_BALANCING), coordination=("c",))
    external = profile(tp=1, dp=2, nodes=1, dp_balancing="external")
    assert refused(external, nodes(1, kv=7000), rules=per_process) == [
        "node 0 process 1: kv-events 7000 overlaps node 0 process 0's kv-events 7000 on the same host (10.0.0.1)"
    ]


def test_a_replica_whose_workers_dial_the_leader_needs_a_leader_port() -> None:
    assert refused(profile(tp=1, dp=2, nodes=2, gpus_per_node=1), nodes(2), leader=0) == [
        "leader_port: expected 1-65535 for a replica whose processes dial the leader, got 0",
        "node 0 process 0: dp-rpc 0 is outside 1-65535 (leader_port and the ports after it)",
    ]


def test_shapes_that_cannot_be_laid_out_are_refused_all_at_once() -> None:
    prof = profile(tp=2, dp=3, nodes=2, gpus_per_node=4, dp_balancing="sideways", all2all="deepep")
    assert refused(prof, nodes(2)) == [
        "profile 'p': dp_balancing: expected one of internal, hybrid, external, got 'sideways'",
        "profile 'p': dp: 3 ranks do not fill 2 node(s) of 1 rank(s) each (dp_per_node)",
        "profile 'p': gpus_per_node: 1 rank(s) per node of TP 2 x PP 1 take 2 GPU(s), not 4; "
        "a data-parallel rank must fit on one node",
        "profile 'p': all2all: 'deepep' is expert parallel's backend, but expert_parallel is off",
    ]
    assert refused(profile(dp=2), nodes(1), rules=NO_DATA_PARALLEL) == [
        "profile 'p': dp: engine 'e' has no data parallel (dp is 2)"
    ]
    assert refused(profile(dp=2, dp_balancing="hybrid"), nodes(1), rules=INTERNAL_ONLY) == [
        "profile 'p': dp_balancing: engine 'e' has no 'hybrid' balancing (it has internal)"
    ]
    assert refused(profile(expert_parallel=True), nodes(1), rules=NO_DATA_PARALLEL) == [
        "profile 'p': expert_parallel: engine 'e' has no expert parallel"
    ]
    assert refused(profile(expert_parallel=True), nodes(1)) == [
        "profile 'p': expert_parallel: needs more than one GPU to spread experts over (tp x dp is 1)"
    ]
    picky = attrs.evolve(VLLM_LIKE, all2all=frozenset({"naive", "deepep_low_latency"}))
    assert refused(profile(tp=2, expert_parallel=True, all2all="pplx"), nodes(1), rules=picky) == [
        "profile 'p': all2all: engine 'e' has no all-to-all backend 'pplx' (expected one of deepep_low_latency, naive)"
    ]
    assert (
        layout_problems(
            profile(tp=2, expert_parallel=True, all2all="naive"), nodes(1), leader_port=1, rules=picky
        )
        == []
    )
    # Rules that name the engine's release name it in every refusal of theirs.
    named = attrs.evolve(picky, named="Toy 1.2", balancing=frozenset({"internal"}))
    assert refused(
        profile(tp=2, dp=2, expert_parallel=True, all2all="pplx", dp_balancing="hybrid"),
        nodes(1),
        rules=named,
    ) == [
        "profile 'p': dp_balancing: Toy 1.2 has no 'hybrid' balancing (it has internal)",
        "profile 'p': all2all: Toy 1.2 has no all-to-all backend 'pplx' (expected one of deepep_low_latency, naive)",
    ]
    assert refused(profile(dp=2, expert_parallel=True), nodes(1), rules=LayoutRules(named="Toy 1.2")) == [
        "profile 'p': dp: Toy 1.2 has no data parallel (dp is 2)",
        "profile 'p': expert_parallel: Toy 1.2 has no expert parallel",
    ]
    assert refused(profile(dp_per_node=2), nodes(1)) == [
        "profile 'p': dp_per_node: expected 1-1 (at most dp), got 2"
    ]
    assert refused(profile(dp=-1), nodes(1)) == ["profile 'p': dp: expected 1-65536, got -1"]
    assert refused(profile(dp=70000), nodes(1)) == ["profile 'p': dp: expected 1-65536, got 70000"]
    assert refused(profile(), nodes(2)) == ["nodes: profile 'p' spans 1 node(s), the layout was given 2"]


def test_more_ranks_on_a_node_than_the_gpus_it_lists_is_refused() -> None:
    prof = profile(tp=2, dp=8, nodes=2, gpus_per_node=8)
    short = [
        NodeInput(addr="a", http_port=8000, gpus=(0, 1, 2, 3, 4, 5, 6, 7)),
        NodeInput(addr="b", gpus=(0, 1, 2)),
    ]
    assert refused(prof, short) == [
        "nodes[1].gpu_indices: the layout puts 8 GPU(s) on each node, node 1 lists 3"
    ]


def test_a_shard_whose_dp_rank_starts_no_process_of_its_node_is_refused() -> None:
    prof = profile(tp=1, dp=4, nodes=2, gpus_per_node=2)
    shard = ShardSpec(
        profile=prof, rank=1, nnodes=2, dp_rank=0, leader_addr="10.0.0.1", leader_port=13345, http_port=8000
    )
    with pytest.raises(SpecError) as caught:
        shard_layout(shard, VLLM_LIKE)
    assert list(caught.value.problems) == [
        "dp_rank: node 1's processes start at data-parallel rank(s) 2, not 0"
    ]
    assert shard_layout(attrs.evolve(shard, dp_rank=2), VLLM_LIKE).dp_ranks == (2, 3)
    lost = attrs.evolve(shard, rank=5)
    with pytest.raises(SpecError) as caught:
        shard_layout(lost, VLLM_LIKE)
    assert list(caught.value.problems) == ["rank: must be in 0..1, got 5"]


def test_the_processes_of_a_layout_are_its_nodes_in_order() -> None:
    laid = layout(
        profile(tp=1, dp=4, nodes=2, gpus_per_node=2, dp_balancing="external"),
        nodes(2),
        leader_port=9000,
        rules=VLLM_LIKE,
    )
    assert [(p.node, p.index) for p in laid.processes()] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert isinstance(laid.process(1), ProcessLayout)
    assert laid.process(1).dp_ranks == (2,)
    assert laid.process(1, 99).dp_ranks == (2,)  # no process hosts it: the node's first
    with pytest.raises(IndexError):
        laid.process(2)


def test_the_edges_of_every_bound_are_inside_it() -> None:
    ok = layout_problems
    # dp 0 is the Go zero value (1), and 65536 the largest degree; ranks per node up to dp.
    assert ok(profile(dp=0), nodes(1), leader_port=1, rules=VLLM_LIKE) == []
    assert ok(profile(dp=2, dp_per_node=2), nodes(1), leader_port=1, rules=VLLM_LIKE) == []
    assert ok(profile(pp=0, dp=2), nodes(1), leader_port=1, rules=VLLM_LIKE) == []
    assert ok(profile(dp=65536, gpus_per_node=65536), nodes(1), leader_port=1, rules=VLLM_LIKE) == []
    # The leader's port at either end of the range: a two-node TP/PP replica joins on it.
    tp_pp = profile(tp=1, pp=2, nodes=2, gpus_per_node=1)
    assert ok(tp_pp, nodes(2), leader_port=65535, rules=NO_DATA_PARALLEL) == []
    assert ok(tp_pp, nodes(2), leader_port=1, rules=NO_DATA_PARALLEL) == []
    assert ok(tp_pp, nodes(2), leader_port=65536, rules=NO_DATA_PARALLEL)[0].startswith(
        "leader_port: expected"
    )


def test_a_degree_the_profile_checks_refuse_is_refused_here_too() -> None:
    assert refused(profile(tp=0), nodes(1)) == [
        "profile 'p': tp and pp: expected tp of at least 1 and pp of at least 0, got 0 and 1"
    ]
    assert refused(profile(pp=-1), nodes(1)) == [
        "profile 'p': tp and pp: expected tp of at least 1 and pp of at least 0, got 1 and -1"
    ]
    assert refused(profile(dp_balancing="hybrid"), nodes(1)) == [
        "profile 'p': dp_balancing: 'hybrid' balances data-parallel ranks, but dp is 1"
    ]


def test_every_listener_out_of_range_is_named_not_only_the_first() -> None:
    prof = profile(tp=1, dp=2, nodes=1, dp_balancing="external")
    assert refused(prof, nodes(1, http=65535, kv=65535)) == [
        "node 0 process 0: kv-events 65535 overlaps node 0 process 0's http 65535 on the same host (10.0.0.1)",
        "node 0 process 1: http 65536 is outside 1-65535 (http_port plus the process's index on its node)",
        "node 0 process 1: kv-events 65536 is outside 1-65535 (kv_events_port plus the data-parallel ranks)",
    ]


def test_a_tensor_and_pipeline_replica_is_data_parallel_rank_zero_on_every_node() -> None:
    laid = layout(
        profile(tp=2, pp=3, nodes=3, gpus_per_node=2), nodes(3), leader_port=29501, rules=NO_DATA_PARALLEL
    )
    assert [(p.node, p.dp_ranks, p.gpus) for p in laid.processes()] == [
        (0, (0,), (0, 1)),
        (1, (0,), (0, 1)),
        (2, (0,), (0, 1)),
    ]
    assert [p.dials for p in laid.processes()][2] == (Dial(DIST_INIT, 0, "10.0.0.1", 29501),)


def test_a_shard_alone_takes_its_leader_from_the_spec_or_loopback() -> None:
    prof = profile(tp=1, dp=2, dp_balancing="external")
    lone = ShardSpec(profile=prof, dp_rank=1, http_port=8001, bind_addr="10.9.9.9", leader_port=9000)
    process = shard_layout(lone, VLLM_LIKE)
    assert (process.index, process.port(HTTP), process.dials[0]) == (
        1,
        8001,
        Dial("dp-rpc", 0, "127.0.0.1", 9000),
    )
    given = attrs.evolve(lone, leader_addr="10.9.9.9")
    assert shard_layout(given, VLLM_LIKE).dials[0] == Dial("dp-rpc", 0, "10.9.9.9", 9000)
    # A worker node's own address is not the leader's: it dials the leader_addr it was given.
    two = profile(tp=1, dp=2, nodes=2, gpus_per_node=1)
    worker = ShardSpec(
        profile=two,
        rank=1,
        nnodes=2,
        dp_rank=1,
        leader_addr="10.0.0.1",
        bind_addr="10.0.0.2",
        leader_port=9000,
    )
    assert shard_layout(worker, VLLM_LIKE).dials[0] == Dial("dp-rpc", 0, "10.0.0.1", 9000)
    unnamed = attrs.evolve(worker, leader_addr="")
    assert shard_layout(unnamed, VLLM_LIKE).dials[0] == Dial("dp-rpc", 0, "", 9000)
    # Under internal balancing the node's one process is index 0, whatever port it was given.
    internal = ShardSpec(
        profile=attrs.evolve(two, dp_balancing="hybrid"),
        rank=1,
        nnodes=2,
        dp_rank=1,
        leader_addr="a",
        http_port=8005,
        leader_port=9000,
    )
    assert shard_layout(internal, VLLM_LIKE).port(HTTP) == 8005


def test_a_missing_balancing_mode_lists_those_the_engine_has_in_their_order() -> None:
    two_modes = LayoutRules(balancing=frozenset({"hybrid", "internal"}))
    assert refused(profile(dp=2, dp_balancing="external"), nodes(1), rules=two_modes) == [
        "profile 'p': dp_balancing: engine 'e' has no 'external' balancing (it has internal, hybrid)"
    ]


def test_a_shard_alone_keeps_its_own_gpus_and_an_unset_http_port_stays_unset() -> None:
    prof = profile(tp=2, dp=2, dp_balancing="external")
    first = ShardSpec(
        profile=prof, dp_rank=0, http_port=8000, gpu_indices=(4, 5), bind_addr="a", leader_port=9
    )
    assert shard_layout(first, VLLM_LIKE).gpus == (4, 5)
    assert shard_layout(attrs.evolve(first, gpu_indices=()), VLLM_LIKE).gpus == (0, 1)
    second = attrs.evolve(first, dp_rank=1, http_port=0, gpu_indices=(6, 7))
    assert shard_layout(second, VLLM_LIKE).port(HTTP) == 0  # no port was given: none is made up


def test_a_shard_of_a_node_past_the_last_is_refused_by_name() -> None:
    prof = profile(tp=1, dp=4, nodes=2, gpus_per_node=2, dp_balancing="external")
    shard = ShardSpec(
        profile=prof, rank=2, nnodes=2, dp_rank=4, leader_addr="a", leader_port=9, http_port=8000
    )
    with pytest.raises(SpecError) as caught:
        shard_layout(shard, VLLM_LIKE)
    assert list(caught.value.problems) == ["rank: must be in 0..1, got 2"]
    wrong = attrs.evolve(shard, rank=1, dp_rank=5)
    with pytest.raises(SpecError) as caught:
        shard_layout(wrong, VLLM_LIKE)
    assert list(caught.value.problems) == [
        "dp_rank: node 1's processes start at data-parallel rank(s) 2, 3, not 5"
    ]


def test_a_nodes_process_defaults_to_the_one_hosting_rank_zero() -> None:
    laid = layout(profile(tp=1, dp=2, dp_balancing="external"), nodes(1), leader_port=9000, rules=VLLM_LIKE)
    assert laid.process(0).index == 0
    assert laid.process(0, 1).index == 1


def test_a_shard_alone_assumes_nothing_of_another_nodes_ports() -> None:
    # Node 1's KV port, planned alone, would clash with the leader's handshake port on node 0
    # if node 0 were assumed to use it too; node 0's own are its own business.
    prof = profile(tp=1, dp=4, nodes=2, gpus_per_node=2)
    worker = ShardSpec(
        profile=prof,
        rank=1,
        nnodes=2,
        dp_rank=2,
        leader_addr="10.0.0.1",
        leader_port=13345,
        kv_events_port=13344,
    )
    # Its publishers, ranks 2-3 from 13344, then their replay endpoints after all four ranks'.
    assert shard_layout(worker, VLLM_LIKE).listens == (
        Listener(KV_EVENTS, 13346, 2),
        Listener(KV_EVENTS_REPLAY, 13350, 2),
    )
    http = attrs.evolve(
        worker, kv_events_port=0, http_port=13345, profile=attrs.evolve(prof, dp_balancing="hybrid")
    )
    assert shard_layout(http, VLLM_LIKE).port(HTTP) == 13345


# --- coordination ports at offsets, kept free on every node, health stubs (SGLang) ----


def test_bare_coordination_names_take_the_port_after_the_previous_entrys_last() -> None:
    rules = LayoutRules(coordination=("a", Coordination("b", 3, 2), "c", Coordination("d", 13), "e"))
    assert [(c.name, c.offset, c.count) for c in rules.coordination] == [
        ("a", 0, 1),
        ("b", 3, 2),
        ("c", 5, 1),
        ("d", 13, 1),
        ("e", 14, 1),
    ]
    assert LayoutRules(coordination=["x", "y"]).coordination == (Coordination("x", 0), Coordination("y", 1))
    with pytest.raises(ValueError, match="'z' follows a range of one port per rank: give its offset"):
        LayoutRules(coordination=(Coordination("r", 6, per_rank=True), "z"))
    assert LayoutRules(coordination=(Coordination("r", 6, per_rank=True), Coordination("z", 2))).coordination[
        1
    ] == Coordination("z", 2)


def test_sglang_two_nodes_the_block_is_the_leaders_kept_free_elsewhere_with_a_health_stub() -> None:
    prof = profile(tp=1, dp=16, nodes=2, gpus_per_node=8, expert_parallel=True)
    laid = layout(prof, nodes(2, http=30000, kv=5557), leader_port=5757, rules=SGLANG_LIKE)
    head, worker = laid.processes()
    assert head.listens == (
        Listener(HTTP, 30000),
        Listener("dist-init", 5757),
        Listener("zmq", 5758, 6),
        Listener("dp-handshake", 5770),
        Listener(KV_EVENTS, 5557, 8),
    )
    assert head.reserves == ()
    assert (worker.role, worker.listens) == (
        HEADLESS,
        (Listener(HEALTH_STUB, 30000), Listener(KV_EVENTS, 5565, 8)),
    )
    assert worker.reserves == (Listener("dist-init", 5757), Listener("zmq", 5758, 6))
    assert worker.dials == (
        Dial("dist-init", 0, "10.0.0.1", 5757),
        Dial("zmq", 0, "10.0.0.1", 5758),
        Dial("dp-handshake", 0, "10.0.0.1", 5770),
    )


def test_a_per_rank_range_takes_dp_ports_and_each_process_dials_its_first_ranks() -> None:
    prof = profile(tp=2, dp=4, nodes=2, gpus_per_node=4)
    laid = layout(prof, nodes(2), leader_port=9000, rules=SGLANG_PER_RANK)
    head, worker = laid.processes()
    assert Listener("rank-input", 9006, 4) in head.listens
    assert worker.dialed("rank-input") == Dial("rank-input", 0, "10.0.0.1", 9008)
    assert worker.reserves == ()  # nothing every_node in these rules


def test_a_port_kept_free_clashes_like_a_listener_and_says_so() -> None:
    prof = profile(tp=1, dp=2, nodes=2, gpus_per_node=1)
    # The second node's health stub sits on the block its engine requires free.
    given = [NodeInput(addr="10.0.0.1", http_port=8000), NodeInput(addr="10.0.0.2", http_port=5760)]
    assert refused(prof, given, leader=5757, rules=SGLANG_LIKE) == [
        "node 1 process 0: zmq 5758-5763 (kept free) overlaps node 1 process 0's health-stub 5760 on the "
        "same host (10.0.0.2)"
    ]
    # Two nodes at one address: the second keeps free what the first listens on.
    shared = refused(prof, nodes(2, addr="127.0.0.1"), leader=5757, rules=SGLANG_LIKE)
    assert shared[0].startswith("node 1 process 0: health-stub 8000 overlaps node 0 process 0's http 8000")
    assert (
        "node 1 process 0: dist-init 5757 (kept free) overlaps node 0 process 0's dist-init 5757 on the "
        "same host (127.0.0.1)"
    ) in shared
    assert refused(prof, nodes(2), leader=65530, rules=SGLANG_LIKE)[-1] == (
        "node 1 process 0: zmq 65531-65536 (kept free) is outside 1-65535 (leader_port and the ports after it)"
    )
    stub = layout_problems(
        prof,
        [NodeInput(addr="10.0.0.1", http_port=8000), NodeInput(addr="10.0.0.2", http_port=65536)],
        leader_port=13345,
        rules=VLLM_LIKE,
    )
    assert stub == []  # vLLM's headless node listens on no HTTP port
    late = refused(
        prof,
        [NodeInput(addr="10.0.0.1", http_port=8000), NodeInput(addr="10.0.0.2", http_port=65536)],
        rules=SGLANG_LIKE,
    )
    assert late == [
        "node 1 process 0: health-stub 65536 is outside 1-65535 (http_port plus the process's index on its node)"
    ]


def test_a_tensor_parallel_worker_has_its_health_stub_on_its_own_port_and_keeps_nothing_free() -> None:
    prof = profile(tp=8, pp=2, nodes=2, gpus_per_node=8)
    laid = layout(prof, nodes(2, http=30000), leader_port=5757, rules=SGLANG_LIKE)
    _, worker = laid.processes()
    assert (worker.listens, worker.reserves) == ((Listener(HEALTH_STUB, 30000),), ())
    shard = ShardSpec(
        profile=prof,
        rank=1,
        nnodes=2,
        leader_addr="10.0.0.1",
        leader_port=5757,
        http_port=30000,
        bind_addr="10.0.0.2",
    )
    assert shard_layout(shard, SGLANG_LIKE) == worker


def test_a_range_per_rank_kept_free_on_every_node_takes_dp_ports_there_too() -> None:
    rules = LayoutRules(
        balancing=frozenset({"internal"}),
        coordination=(Coordination("r", 2, per_rank=True, every_node=True),),
    )
    laid = layout(profile(tp=1, dp=4, nodes=2, gpus_per_node=2), nodes(2), leader_port=9000, rules=rules)
    assert laid.process(1).reserves == (Listener("r", 9002, 4),)


def test_a_shard_alone_gives_the_other_nodes_no_ports_to_clash_with() -> None:
    # The leader's block at port 1: a guessed HTTP or KV-event port of node 0 would land on it.
    prof = profile(tp=1, dp=4, nodes=2, gpus_per_node=2, kv_events=True)
    shard = ShardSpec(
        profile=prof,
        rank=1,
        nnodes=2,
        dp_rank=2,
        leader_addr="10.0.0.1",
        leader_port=1,
        http_port=8000,
        kv_events_port=5557,
        bind_addr="10.0.0.2",
    )
    assert shard_layout(shard, VLLM_LIKE).dials[0] == Dial("dp-rpc", 0, "10.0.0.1", 1)


def test_a_shard_alone_never_puts_two_other_nodes_on_one_host() -> None:
    # Every node but the leader's keeps the block free: on one guessed host they would clash.
    prof = profile(tp=1, dp=3, nodes=3, gpus_per_node=1)
    shard = ShardSpec(
        profile=prof, rank=2, nnodes=3, dp_rank=2, leader_addr="10.0.0.1", leader_port=5757, http_port=30000
    )
    assert shard_layout(shard, SGLANG_LIKE).reserves == (
        Listener("dist-init", 5757),
        Listener("zmq", 5758, 6),
    )


def _naive_overlaps(host: str, placed: list[compute._Placed]) -> list[tuple[int, int, str]]:
    """Every pair compared with every other: what the sweep must find, pair for pair."""
    found = []
    for i, second in enumerate(placed):
        for first in placed[:i]:
            a, b = first.listener, second.listener
            if a.port <= b.last and b.port <= a.last:
                message = (
                    f"node {second.process.node} process {second.process.index}: {second.said} overlaps "
                    f"node {first.process.node} process {first.process.index}'s {first.said} on the same "
                    f"host ({host})"
                )
                found.append((second.seq, first.seq, message))
    return found


@given(st.lists(st.tuples(st.integers(1, 40), st.integers(1, 6)), max_size=30))
def test_the_sweep_finds_exactly_the_pairs_every_comparison_would(ranges: list[tuple[int, int]]) -> None:
    placed = [
        compute._Placed(
            seq,
            Listener(f"l{seq}", port, count),
            f"l{seq} {'(kept free)' if seq % 3 else ''}",
            ProcessLayout(node=0, index=seq, role=API_SERVER, dp_ranks=(seq,), gpus=()),
        )
        for seq, (port, count) in enumerate(ranges)
    ]
    assert sorted(compute._overlaps("h", placed)) == sorted(_naive_overlaps("h", placed))


def test_a_replica_of_a_thousand_processes_on_one_host_is_laid_out_once_per_node() -> None:
    profile = Profile(name="big", engine="vllm", model_path="/m", dp=1024, dp_balancing="external")
    nodes = [NodeInput(addr="10.0.0.1", http_port=30000)]
    rules = LayoutRules(balancing=frozenset(DP_BALANCING), coordination=("dp-rpc",))
    compute._laid.cache_clear()
    first = layout(profile, nodes, leader_port=20000, rules=rules)
    assert layout(profile, nodes, leader_port=20000, rules=rules) is first  # the answer is kept
    assert compute._laid.cache_info().misses == 1
    assert len(list(first.processes())) == 1024
    clash = [NodeInput(addr="10.0.0.1", http_port=19990)]  # 19990-21013 holds the leader's 20000
    assert layout_problems(profile, clash, leader_port=20000, rules=rules) == [
        "node 0 process 10: http 20000 overlaps node 0 process 0's dp-rpc 20000 on the same host (10.0.0.1)"
    ]


def test_where_the_leader_closes_its_coordination_every_other_process_dials_its_api_server() -> None:
    """``coordination_closes``: each worker also dials the first node's first HTTP port, in every mode."""
    for mode, local in (("internal", 2), ("hybrid", 2), ("external", 1)):
        laid = layout(
            profile(dp=2 * local, nodes=2, dp_balancing=mode, dp_per_node=local, gpus_per_node=local),
            [*nodes(1, http=8000), NodeInput(addr="10.0.0.2", http_port=9000)],
            leader_port=13345,
            rules=VLLM_CLOSING,
        )
        others = [p for p in laid.processes() if (p.node, p.index) != (0, 0)]
        assert [p.dialed(HTTP) for p in others] == [Dial(HTTP, 0, "10.0.0.1", 8000)] * len(others)
        assert laid.process(0, 0).dials == ()
    # Without data parallel there is no handshake: a tensor-parallel worker dials the join port alone.
    tp = layout(
        profile(tp=2, nodes=2, gpus_per_node=1, pp=2), nodes(2), leader_port=29500, rules=VLLM_CLOSING
    )
    assert tp.process(1).dials == (Dial(DIST_INIT, 0, "10.0.0.1", 29500),)
    # A first node without an HTTP port has nothing to dial: no such dial, and no clash.
    bare = layout(profile(dp=2, nodes=2), nodes(2, http=0), leader_port=13345, rules=VLLM_CLOSING)
    assert bare.process(1).dials == (Dial("dp-rpc", 0, "10.0.0.1", 13345),)


def test_a_worker_shard_dials_the_leader_s_api_server_at_the_port_it_was_given() -> None:
    """shard_layout takes node 0's HTTP port from ``leader_http_port`` (its own node's from ``http_port``)."""
    prof = profile(dp=2, nodes=2, gpus_per_node=1)
    worker = ShardSpec(
        rank=1,
        nnodes=2,
        dp_rank=1,
        leader_addr="10.0.0.1",
        leader_port=13345,
        http_port=9000,
        leader_http_port=8000,
        profile=prof,
    )
    process = shard_layout(worker, VLLM_CLOSING)
    assert process.dials == (Dial("dp-rpc", 0, "10.0.0.1", 13345), Dial(HTTP, 0, "10.0.0.1", 8000))
    assert shard_layout(attrs.evolve(worker, leader_http_port=0), VLLM_CLOSING).dialed(HTTP) is None
    # On the leader's own node the port is its own: a leader_http_port that says otherwise is refused.
    leader = attrs.evolve(worker, rank=0, dp_rank=0, http_port=7000, leader_http_port=0)
    assert shard_layout(leader, VLLM_CLOSING).port(HTTP) == 7000
    assert shard_layout(attrs.evolve(leader, leader_http_port=7000), VLLM_CLOSING).port(HTTP) == 7000
    with pytest.raises(SpecError) as caught:
        shard_layout(attrs.evolve(leader, leader_http_port=8000), VLLM_CLOSING)
    assert list(caught.value.problems) == [
        "leader_http_port: 8000, but this node's first API server listens on 7000 (its http_port)"
    ]


def test_a_process_of_the_leader_s_node_checks_the_leader_s_http_port_against_its_own() -> None:
    """Under external balancing node 0's other processes know its first port: their own less their index."""
    prof = profile(dp=4, nodes=2, gpus_per_node=2, dp_per_node=2, dp_balancing="external")
    second = ShardSpec(
        rank=0, nnodes=2, dp_rank=1, leader_addr="10.0.0.1", leader_port=13345, http_port=8001, profile=prof
    )
    assert shard_layout(second, VLLM_CLOSING).dialed(HTTP) == Dial(HTTP, 0, "10.0.0.1", 8000)
    assert shard_layout(attrs.evolve(second, leader_http_port=8000), VLLM_CLOSING).port(HTTP) == 8001
    with pytest.raises(SpecError) as caught:
        shard_layout(attrs.evolve(second, leader_http_port=7777), VLLM_CLOSING)
    assert list(caught.value.problems) == [
        "leader_http_port: 7777, but this node's first API server listens on 8000 "
        "(its http_port less its index 1)"
    ]
    with pytest.raises(SpecError) as caught:
        shard_layout(attrs.evolve(second, http_port=1), VLLM_CLOSING)
    assert list(caught.value.problems) == [
        "http_port: 1 is process 1's of node 0 (the node's first HTTP port plus 1), so at least 2"
    ]
    assert shard_layout(attrs.evolve(second, http_port=2), VLLM_CLOSING).port(HTTP) == 2
    # The first process's own port is node 0's first: 1 is a port, and 0 (none) says nothing.
    first = attrs.evolve(second, dp_rank=0, http_port=1, leader_http_port=8000)
    with pytest.raises(SpecError) as caught:
        shard_layout(first, VLLM_CLOSING)
    assert list(caught.value.problems) == [
        "leader_http_port: 8000, but this node's first API server listens on 1 (its http_port)"
    ]
    assert shard_layout(attrs.evolve(first, http_port=0), VLLM_CLOSING).port(HTTP) == 0


def test_a_worker_bound_to_the_leader_s_address_is_on_its_host_and_its_ports_clash_there() -> None:
    """A worker told to serve (or watch) on the leader's own address and port is refused: one host, one port."""
    prof = profile(dp=4, nodes=2, gpus_per_node=2, dp_per_node=2, dp_balancing="hybrid")
    worker = ShardSpec(
        rank=1,
        nnodes=2,
        dp_rank=2,
        leader_addr="127.0.0.1",
        leader_port=13345,
        http_port=8200,
        leader_http_port=8200,
        bind_addr="127.0.0.1",
        profile=prof,
    )
    with pytest.raises(SpecError) as caught:
        shard_layout(worker, VLLM_CLOSING)
    assert list(caught.value.problems) == [
        "node 1 process 0: http 8200 overlaps node 0 process 0's http 8200 on the same host (127.0.0.1)"
    ]
    # Another port on that host, or the same port on every address of another, is fine.
    assert shard_layout(attrs.evolve(worker, http_port=8300), VLLM_CLOSING).port(HTTP) == 8300
    assert shard_layout(attrs.evolve(worker, bind_addr="0.0.0.0"), VLLM_CLOSING).port(HTTP) == 8200
    assert shard_layout(attrs.evolve(worker, bind_addr="::"), VLLM_CLOSING).port(HTTP) == 8200
    assert shard_layout(attrs.evolve(worker, bind_addr="10.0.0.2"), VLLM_CLOSING).port(HTTP) == 8200
    # The leader's address spelled otherwise is the leader's host still.
    with pytest.raises(SpecError):
        shard_layout(attrs.evolve(worker, leader_addr="::1", bind_addr="0:0:0:0:0:0:0:1"), VLLM_CLOSING)
    # A wildcard says nothing of the host: a clash of the node's own ports is named by its index.
    for every in ("0.0.0.0", "::", "0:0:0:0:0:0:0:0"):
        with pytest.raises(SpecError) as caught:
            shard_layout(attrs.evolve(worker, bind_addr=every, kv_events_port=8198), VLLM_CLOSING)
        assert list(caught.value.problems) == [
            "node 1 process 0: kv-events 8200-8201 overlaps node 1 process 0's http 8200 on the same host (node 1)"
        ]


def test_a_shard_knows_no_http_port_of_a_node_but_its_own_and_the_leader_s() -> None:
    """A third node's HTTP port is unknown to a worker of the second: nothing is laid out there to clash.

    Were it guessed (as port 1, say), the third node's health stub would clash with the
    join port it keeps free when that is port 1.
    """
    prof = profile(dp=3, nodes=3, gpus_per_node=1, expert_parallel=False)
    worker = ShardSpec(
        rank=1,
        nnodes=3,
        dp_rank=1,
        leader_addr="10.0.0.1",
        leader_port=1,
        http_port=9000,
        leader_http_port=8000,
        profile=prof,
    )
    rules = LayoutRules(
        balancing=frozenset({"internal"}),
        coordination=(Coordination("dist-init", every_node=True),),
        health_stub=True,
    )
    assert shard_layout(worker, rules).reserves == (Listener("dist-init", 1),)
