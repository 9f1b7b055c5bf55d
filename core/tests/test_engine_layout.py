"""An engine's layout rules at the facade: asked once, checked, applied to every shard that asks for more than TP/PP."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from enginekit import Command, EngineError, Profile, ShardSpec, SpecError, hookimpl
from enginekit.layout.model import (
    API_SERVER,
    HEADLESS,
    NO_DATA_PARALLEL,
    Coordination,
    Dial,
    KVTransferPorts,
    LayoutRules,
    Listener,
)
from enginekit.placement.builder import CommandBuilder
from enginekit.testing import engine_for
from hypothesis import example, given
from hypothesis import strategies as st

RULES = LayoutRules(
    balancing=frozenset({"internal", "hybrid", "external"}),
    expert_parallel=True,
    coordination=("dp-rpc", "dp-master"),
    kv_events_per_rank=True,
)


class Laying:
    """A plugin whose ``layout_rules`` answers what the test sets; ``serves`` answers ``serves_http``."""

    rules: Any = RULES
    serves: Any = None
    asked = 0

    @hookimpl
    def layout_rules(self) -> Any:
        type(self).asked += 1
        return self.rules

    @hookimpl
    def serves_http(self) -> Any:
        return self.serves

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [CommandBuilder(shard).command("serve", ["--port", str(shard.http_port)])]


class Plain:
    """A plugin that says nothing of layouts: tensor and pipeline parallel only."""

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [CommandBuilder(shard).command("serve", [])]


def shard(rank: int = 0, dp_rank: int = 0, **profile: Any) -> ShardSpec:
    fields: dict[str, Any] = {"name": "p", "engine": "lay", "model_path": "/m", "tp": 1, "dp": 4, "nodes": 2}
    fields |= {"gpus_per_node": 2} | profile
    prof = Profile(**fields)
    return ShardSpec(
        profile=prof,
        rank=rank,
        nnodes=prof.node_count,
        dp_rank=dp_rank,
        leader_addr="10.0.0.1" if prof.node_count > 1 else "",
        leader_port=13345,
        http_port=8000,
        gpu_indices=tuple(range(prof.per_shard)),
        mgmt_interface="eth0",
        hcas=("mlx5_0",) if prof.node_count > 1 else (),
        fabric="ib" if prof.node_count > 1 else "",
    )


def test_a_shard_gets_its_process_of_the_layout_and_the_rules_are_asked_once() -> None:
    Laying.asked = 0
    engine = engine_for(Laying(), "lay")
    worker = engine.layout(shard(rank=1, dp_rank=2))
    assert (worker.role, worker.dp_ranks, worker.gpus) == (HEADLESS, (2, 3), (0, 1))
    assert worker.dials == (Dial("dp-rpc", 0, "10.0.0.1", 13345), Dial("dp-master", 0, "10.0.0.1", 13346))
    assert engine.layout(shard()).listens[:2] == (Listener("http", 8000), Listener("dp-rpc", 13345))
    assert engine.layout_rules is RULES
    assert Laying.asked == 1
    assert engine.problems(shard(rank=1, dp_rank=2)) == []


def test_an_engine_without_rules_is_tensor_and_pipeline_parallel_only() -> None:
    engine = engine_for(Plain(), "lay")
    assert engine.layout_rules is NO_DATA_PARALLEL
    assert engine.problems(shard()) == ["profile 'p': dp: engine 'lay' has no data parallel (dp is 4)"]
    with pytest.raises(SpecError) as caught:
        engine.plan(shard())
    assert list(caught.value.problems) == ["profile 'p': dp: engine 'lay' has no data parallel (dp is 4)"]
    # Without data or expert parallel the layout is not consulted at all.
    single = shard(dp=1, nodes=1, gpus_per_node=0)
    assert engine.problems(single) == []


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"dp_per_node": 2}, "profile 'p': dp_per_node: expected 1-1 (at most dp), got 2"),
        (
            {"expert_parallel": True, "tp": 2},
            "profile 'p': expert_parallel: engine 'lay' has no expert parallel",
        ),
        (
            {"all2all": "naive"},
            "profile 'p': all2all: 'naive' is expert parallel's backend, but expert_parallel is off",
        ),
        (
            {"dp_balancing": "hybride"},
            "profile 'p': dp_balancing: expected one of internal, hybrid, external, got 'hybride'",
        ),
    ],
)
def test_each_field_only_the_layout_judges_is_judged(change: dict[str, Any], problem: str) -> None:
    engine = engine_for(Plain(), "lay")
    fields: dict[str, Any] = {"dp": 1, "nodes": 1, "gpus_per_node": 0} | change
    assert engine.problems(shard(**fields)) == [problem]


def test_a_dp_rank_alone_asks_for_the_layout() -> None:
    engine = engine_for(Laying(), "lay")
    assert engine.problems(shard(rank=1, dp_rank=3)) == [
        "dp_rank: node 1's processes start at data-parallel rank(s) 2, not 3"
    ]
    lone = attrs.evolve(shard(dp=2, nodes=1, gpus_per_node=0, dp_balancing="external"), dp_rank=1)
    assert engine.problems(lone) == []


def test_serves_http_follows_the_layout_unless_the_engine_answers() -> None:
    engine = engine_for(Laying(), "lay")
    assert engine.serves_http(shard()) is True
    assert engine.serves_http(shard(rank=1, dp_rank=2)) is False
    assert engine.serves_http(shard(rank=1, dp_rank=2, dp_balancing="hybrid")) is True
    answering = Laying()
    answering.serves = True
    assert engine_for(answering, "lay").serves_http(shard(rank=1, dp_rank=2)) is True
    # Tensor and pipeline parallel alone: the leader serves, as before.
    tp = attrs.evolve(shard(dp=1, pp=2, tp=2, gpus_per_node=2), dp_rank=0)
    assert engine.serves_http(tp) is True
    assert engine.serves_http(attrs.evolve(tp, rank=1)) is False
    assert API_SERVER == "api-server"


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("internal", "returned a string of 8 characters, expected a LayoutRules"),
        (
            LayoutRules(balancing=frozenset({"sideways"})),
            "balancing is not a set of internal, hybrid, external",
        ),
        (LayoutRules(balancing={"internal"}), "balancing is not a set of internal, hybrid, external"),  # type: ignore[arg-type]
        (
            LayoutRules(expert_parallel=1),
            "expert_parallel, kv_events_per_rank, kv_events_replay or health_stub is not true",
        ),  # type: ignore[arg-type]
        (
            LayoutRules(kv_events_per_rank="yes"),
            "expert_parallel, kv_events_per_rank, kv_events_replay or health_stub is not",
        ),  # type: ignore[arg-type]
        (
            LayoutRules(health_stub=0),
            "expert_parallel, kv_events_per_rank, kv_events_replay or health_stub is not true",
        ),  # type: ignore[arg-type]
        (LayoutRules(kv_events_replay=1), "kv_events_per_rank, kv_events_replay or health_stub is not true"),  # type: ignore[arg-type]
        (LayoutRules(all2all=frozenset({""})), "all2all is not a set of names"),
        (LayoutRules(all2all=("naive",)), "all2all is not a set of names"),  # type: ignore[arg-type]
        (LayoutRules(coordination=("a", "a")), "coordination is not up to 16 distinct port names"),
        (LayoutRules(coordination=(3,)), "coordination is not up to 16 distinct port names"),  # type: ignore[arg-type]
        (
            LayoutRules(coordination=(Coordination("a", offset=-1),)),
            "an offset of 0-1024 from the leader port",
        ),
        (LayoutRules(coordination=(Coordination("a", offset=1025),)), "an offset of 0-1024 from the leader"),
        (LayoutRules(coordination=(Coordination("a", offset=1.0),)), "an offset of 0-1024 from the leader"),  # type: ignore[arg-type]
        (LayoutRules(coordination=(Coordination("a", count=0),)), "a count of 1-1024 ports"),
        (LayoutRules(coordination=(Coordination("a", count=1025),)), "a count of 1-1024 ports"),
        (LayoutRules(coordination=(Coordination("a", count=True),)), "a count of 1-1024 ports"),
        (LayoutRules(coordination=(Coordination("a", per_rank=1),)), "true or false for per_rank"),  # type: ignore[arg-type]
        (LayoutRules(coordination=(Coordination("a", every_node="y"),)), "and every_node"),  # type: ignore[arg-type]
        (LayoutRules(coordination=("a\x1b",)), "coordination is not up to 16 distinct port names"),
        (
            LayoutRules(coordination=tuple(map(str, range(17)))),
            "coordination is not up to 16 distinct port names",
        ),
        (LayoutRules(kv_transfer="nixl"), "kv_transfer is neither None nor KVTransferPorts"),  # type: ignore[arg-type]
        (
            LayoutRules(kv_transfer=KVTransferPorts(scope="node")),
            "kv_transfer is neither None nor KVTransferPorts",
        ),
        (
            LayoutRules(kv_transfer=KVTransferPorts(scope=1)),
            "kv_transfer is neither None nor KVTransferPorts",
        ),  # type: ignore[arg-type]
        (
            LayoutRules(kv_transfer=KVTransferPorts(roles=frozenset({"both"}))),
            "kv_transfer is neither None nor KVTransferPorts",
        ),
        (
            LayoutRules(kv_transfer=KVTransferPorts(roles={"prefill"})),
            "kv_transfer is neither None nor KVTransferPorts",
        ),  # type: ignore[arg-type]
        (
            LayoutRules(kv_transfer=KVTransferPorts(roles=frozenset({"aggregated"}))),
            "kv_transfer is neither None nor KVTransferPorts",
        ),
    ],
)
def test_a_broken_layout_rules_answer_is_one_error_naming_the_hook(answer: object, said: str) -> None:
    broken = Laying()
    broken.rules = answer
    engine = engine_for(broken, "lay")
    with pytest.raises(EngineError) as caught:
        _ = engine.layout_rules
    assert "layout_rules" in str(caught.value)
    assert said in str(caught.value)


def test_every_kv_transfer_the_layout_can_place_is_accepted() -> None:
    for scope in ("leader", "rank", "tp-rank"):
        for roles in (
            frozenset({"prefill"}),
            frozenset({"decode"}),
            frozenset({"prefill", "decode"}),
            frozenset(),
        ):
            ok = Laying()
            ok.rules = LayoutRules(kv_transfer=KVTransferPorts(roles=roles, scope=scope))
            assert engine_for(ok, "lay").layout_rules == ok.rules


def test_sixteen_coordination_ports_are_enough_and_accepted() -> None:
    ok = Laying()
    ok.rules = LayoutRules(coordination=tuple(map(str, range(16))), all2all=frozenset({"naive"}))
    assert engine_for(ok, "lay").layout_rules.coordination[-1] == Coordination("15", 15)
    edges = LayoutRules(coordination=(Coordination("a", 1024, 1024, per_rank=True, every_node=True),))
    ok.rules = edges
    assert engine_for(ok, "lay").layout_rules is edges


@example(dp=2, per_node=0, ep=False, all2all="", mode="internal", dp_rank=0)
@example(dp=1, per_node=1, ep=False, all2all="", mode="internal", dp_rank=0)
@example(dp=1, per_node=0, ep=True, all2all="", mode="internal", dp_rank=0)
@example(dp=1, per_node=0, ep=False, all2all="naive", mode="internal", dp_rank=0)
@example(dp=1, per_node=0, ep=False, all2all="", mode="hybrid", dp_rank=0)
@example(dp=1, per_node=0, ep=False, all2all="", mode="internal", dp_rank=1)
@example(dp=0, per_node=0, ep=False, all2all="", mode="internal", dp_rank=0)
@given(
    st.integers(0, 3),
    st.integers(0, 2),
    st.booleans(),
    st.sampled_from(["", "naive"]),
    st.sampled_from(["internal", "hybrid", "external", "x"]),
    st.integers(0, 2),
)
def test_the_facades_shortcut_asks_exactly_what_the_layout_needs(
    dp: int, per_node: int, ep: bool, all2all: str, mode: str, dp_rank: int
) -> None:
    from enginekit.layout.compute import needs_layout
    from enginekit.platform.engine import _lays_out

    prof = Profile(
        name="p",
        engine="e",
        dp=dp,
        dp_per_node=per_node,
        expert_parallel=ep,
        all2all=all2all,
        dp_balancing=mode,
    )
    assert _lays_out(ShardSpec(profile=prof, dp_rank=dp_rank)) == (needs_layout(prof) or dp_rank != 0)


class Closing(Laying):
    """A plugin whose leader closes its handshake after the start (vLLM's); ``exits`` answers ``leader_exit``."""

    rules = attrs.evolve(RULES, coordination_closes=True)
    exits: Any = None

    @hookimpl
    def leader_exit(self) -> Any:
        return self.exits


def test_a_worker_whose_leader_closes_its_handshake_is_watched_at_the_leader_s_api_server() -> None:
    """``leader_watch_port``: the leader's HTTP port under data parallel, ``leader_port`` otherwise, 0 for none."""
    engine = engine_for(Closing(), "lay")
    worker = attrs.evolve(shard(rank=1, dp_rank=2), leader_http_port=8100)
    plan = engine.plan(worker)
    assert (plan.on_leader_exit, plan.leader_watch_port) == ("must_be_stopped", 8100)
    assert engine.leader_watch_port(worker) == 8100
    assert engine.plan(attrs.evolve(shard(), leader_http_port=8000)).leader_watch_port == 0
    # The least data parallel is watched so too.
    pair = attrs.evolve(shard(rank=1, dp_rank=1, dp=2, gpus_per_node=1), leader_http_port=8100)
    assert engine.leader_watch_port(pair) == 8100
    # A tensor-parallel worker of the same engine has a join port that stays open.
    tensor = shard(rank=1, dp=1, tp=2, gpus_per_node=1)
    assert engine.leader_watch_port(tensor) == 13345
    # Engines whose handshake stays open are watched where the workers dialed.
    assert engine_for(Laying(), "lay").leader_watch_port(worker) == 13345
    # A rank that stops by itself is watched nowhere, and needs no leader_http_port.
    Closing.exits = "stops"
    try:
        stops = engine_for(Closing(), "lay")
        assert stops.leader_watch_port(worker) == 0
        assert stops.problems(attrs.evolve(worker, leader_http_port=0)) == []
    finally:
        Closing.exits = None


def test_a_watched_worker_without_the_leader_s_http_port_is_refused_naming_the_field() -> None:
    """Nothing to watch is refused up front: the supervisor would otherwise stop a healthy worker, or never."""
    engine = engine_for(Closing(), "lay")
    assert engine.problems(shard(rank=1, dp_rank=2)) == [
        "leader_http_port: required for a worker rank of a data-parallel lay replica (a lay leader closes "
        "leader_port once every rank has joined, so the supervisor watches the leader's API server, the "
        "first node's HTTP port, instead); enginekit layout --shards and the exports write it"
    ]
    with pytest.raises(SpecError, match="leader_http_port: required"):
        engine.plan(shard(rank=1, dp_rank=2))
    assert engine.problems(shard()) == []  # the leader watches nobody
    assert engine.problems(shard(rank=1, dp=1, tp=2, gpus_per_node=1)) == []


def test_a_leader_bound_where_its_watchers_do_not_look_is_refused() -> None:
    """The workers watch ``leader_addr``: a leader bound to another single address would look dead to them."""
    engine = engine_for(Closing(), "lay")
    leader = attrs.evolve(shard(), leader_http_port=8000)
    assert engine.problems(attrs.evolve(leader, bind_addr="10.0.0.1")) == []
    for every in ("", "0.0.0.0", "::"):
        assert engine.problems(attrs.evolve(leader, bind_addr=every)) == []
    assert engine.problems(attrs.evolve(leader, bind_addr="192.168.0.1")) == [
        "bind_addr: '192.168.0.1', but the replica's other processes watch this leader's API server at "
        "10.0.0.1 (leader_addr, or loopback on one node; a lay leader closes leader_port once every rank "
        "has joined): bind it there or on every address (''), or give that address as leader_addr"
    ]
    # One address spelled otherwise is that address; a name may be the bound IP (an LWS pod's).
    spelled = attrs.evolve(leader, leader_addr="FD00::1")
    for bind in ("fd00::1", "fd00:0::1", "0:0:0:0:0:0:0:0"):
        assert engine.problems(attrs.evolve(spelled, bind_addr=bind)) == []
    assert engine.problems(attrs.evolve(spelled, bind_addr="fd00::2")) != []
    named = attrs.evolve(leader, leader_addr="dsr1-r1-0.dsr1-r1.default")
    assert engine.problems(attrs.evolve(named, bind_addr="10.244.1.5")) == []
    # Without data parallel the workers watch the join port: the leader binds where it likes.
    tensor = attrs.evolve(shard(dp=1, tp=2, gpus_per_node=1), bind_addr="192.168.0.1")
    assert engine.problems(tensor) == []
    # Expert parallel over tensor parallel alone is laid out, and still has no handshake to close.
    experts = attrs.evolve(tensor, profile=attrs.evolve(tensor.profile, expert_parallel=True))
    assert engine.problems(experts) == []
    worker = attrs.evolve(experts, rank=1, bind_addr="")
    assert (engine.problems(worker), engine.leader_watch_port(worker)) == ([], 13345)
    # Engines whose workers watch the join port, and a leader nobody watches, bind where they like.
    assert engine_for(Laying(), "lay").problems(attrs.evolve(leader, bind_addr="192.168.0.1")) == []
    alone = shard(dp=2, nodes=1, gpus_per_node=2)
    assert engine.problems(attrs.evolve(alone, bind_addr="127.0.0.5")) == []
    # One node of external balancing: its other process watches loopback unless leader_addr says more.
    external = shard(dp=2, nodes=1, gpus_per_node=2, dp_balancing="external")
    assert engine.problems(attrs.evolve(external, bind_addr="127.0.0.5"))[0].startswith(
        "bind_addr: '127.0.0.5', but the replica's other processes watch this leader's API server at 127.0.0.1 "
    )
    assert engine.problems(attrs.evolve(external, bind_addr="127.0.0.1")) == []
    assert engine.problems(attrs.evolve(external, bind_addr="127.0.0.5", leader_addr="127.0.0.5")) == []


def test_the_watch_port_of_a_spec_that_cannot_be_planned_is_an_error_not_a_guess() -> None:
    """``Engine.leader_watch_port`` never answers the handshake port for a worker it cannot watch there."""
    engine = engine_for(Closing(), "lay")
    with pytest.raises(SpecError, match="leader_http_port: required"):
        engine.leader_watch_port(shard(rank=1, dp_rank=2))
