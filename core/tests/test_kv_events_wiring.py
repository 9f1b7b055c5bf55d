"""Who binds a shard's KV-cache events, and where a consumer subscribes: endpoints, sources, notes, the plan."""

from __future__ import annotations

import json

import attrs
import pytest
from enginekit import LaunchPlan, ShardSpec
from enginekit.base.errors import SpecError
from enginekit.layout.compute import kv_event_sources, kv_events_endpoints, kv_events_wiring
from enginekit.layout.model import KVEventSource, LayoutRules, endpoint_problem
from enginekit.spec.model import Command, Profile

PER_RANK = LayoutRules(
    balancing=frozenset({"internal", "hybrid", "external"}),
    coordination=("rpc",),
    kv_events_per_rank=True,
    kv_events_replay=True,
)
NO_REPLAY = attrs.evolve(PER_RANK, kv_events_replay=False)


def shard(**fields: object) -> ShardSpec:
    profile = Profile(name="p", engine="tiny", model_path="/m", kv_events=True, **fields.pop("profile", {}))  # type: ignore[arg-type]
    defaults: dict[str, object] = {"kv_events_port": 5557, "http_port": 8000, "bind_addr": "10.0.0.7"}
    return ShardSpec(profile=profile, **{**defaults, **fields})  # type: ignore[arg-type]


def test_a_binding_publisher_is_configured_on_every_address_and_replays_on_its_own() -> None:
    # vLLM binds only a wildcard endpoint (any other it connects to); the replay it always binds.
    assert kv_events_endpoints(shard()) == ("tcp://*:5557", "tcp://10.0.0.7:5558")
    # An engine told outright to bind (SGLang's bind field) takes the shard's own address.
    assert kv_events_endpoints(shard(), bind_host=True) == ("tcp://10.0.0.7:5557", "tcp://10.0.0.7:5558")


@pytest.mark.parametrize("bind_addr", ["", "0.0.0.0", "::", "fd00::7"])
def test_without_an_ipv4_address_of_its_own_a_publisher_binds_the_wildcard(bind_addr: str) -> None:
    # A ZMQ socket binds an IPv6 address only when told to, and vLLM's is not.
    assert kv_events_endpoints(shard(bind_addr=bind_addr), bind_host=True) == ("tcp://*:5557", "tcp://*:5558")


def test_the_replay_endpoints_start_after_every_ranks_publisher() -> None:
    dp = shard(profile={"dp": 4, "tp": 1})
    assert kv_events_endpoints(dp) == ("tcp://*:5557", "tcp://10.0.0.7:5561")


def test_a_connecting_publisher_dials_the_agents_loopback_subscriber_and_serves_no_replay() -> None:
    assert kv_events_endpoints(shard(kv_events_mode="connect")) == ("tcp://127.0.0.1:5557", "")


def test_a_single_shard_has_one_source_at_its_own_address() -> None:
    assert kv_event_sources(shard(), PER_RANK) == (
        KVEventSource(rank=0, endpoint="tcp://10.0.0.7:5557", replay="tcp://10.0.0.7:5558"),
    )
    assert kv_event_sources(shard(), NO_REPLAY) == (KVEventSource(rank=0, endpoint="tcp://10.0.0.7:5557"),)


@pytest.mark.parametrize(
    ("fields", "host"),
    [
        ({"bind_addr": "", "leader_addr": "10.0.0.1"}, "10.0.0.1"),
        ({"bind_addr": "0.0.0.0", "leader_addr": ""}, "127.0.0.1"),
        ({"bind_addr": "fd00::7"}, "[fd00::7]"),
        ({"bind_addr": "node-7.cluster.local"}, "node-7.cluster.local"),
    ],
)
def test_a_consumer_reaches_the_shards_address_else_the_leaders_else_loopback(
    fields: dict[str, str], host: str
) -> None:
    (source,) = kv_event_sources(shard(**fields), NO_REPLAY)
    assert source.endpoint == f"tcp://{host}:5557"


@pytest.mark.parametrize(
    "fields",
    [
        {"kv_events_mode": "connect"},
        {"kv_events_port": 0},
        # A worker node of a replica without data parallel runs no scheduler of its own.
        {
            "rank": 1,
            "nnodes": 2,
            "leader_addr": "10.0.0.1",
            "leader_port": 29500,
            "profile": {"nodes": 2, "gpus_per_node": 1},
        },
    ],
)
def test_no_source_where_nothing_is_bound_for_consumers(fields: dict[str, object]) -> None:
    assert kv_event_sources(shard(**fields), PER_RANK) == ()


def test_no_source_where_the_profile_publishes_nothing() -> None:
    quiet = shard()
    quiet = attrs.evolve(quiet, profile=attrs.evolve(quiet.profile, kv_events=False))
    assert kv_event_sources(quiet, PER_RANK) == ()


def test_each_data_parallel_rank_of_a_process_is_a_source_on_its_own_ports() -> None:
    # Node 1 of two, two ranks each (2 and 3): publishers 5559-5560, replays from 5557+4.
    worker = shard(
        rank=1,
        nnodes=2,
        dp_rank=2,
        leader_addr="10.0.0.1",
        leader_port=13345,
        leader_http_port=8000,
        http_port=0,
        profile={"dp": 4, "dp_per_node": 2, "nodes": 2, "gpus_per_node": 2},
    )
    assert kv_event_sources(worker, PER_RANK) == (
        KVEventSource(rank=2, endpoint="tcp://10.0.0.7:5559", replay="tcp://10.0.0.7:5563"),
        KVEventSource(rank=3, endpoint="tcp://10.0.0.7:5560", replay="tcp://10.0.0.7:5564"),
    )
    # An engine whose publishers do not move by the rank publishes once per process.
    one = attrs.evolve(NO_REPLAY, kv_events_per_rank=False)
    assert kv_event_sources(worker, one) == (KVEventSource(rank=2, endpoint="tcp://10.0.0.7:5557"),)


def test_the_wiring_note_says_who_binds_and_who_connects() -> None:
    bound = kv_events_wiring(shard(), per_rank=True, replay=True)
    assert bound == (
        "KV-cache events: the publisher binds port 5557 on every address, and any number of subscribers "
        "connect (the plan's kv_events: vllm-router's --kv-event-source); replays of missed batches at "
        "tcp://10.0.0.7:5558; the batches carry the prompts' token ids: keep the port from untrusted networks"
    )
    own = kv_events_wiring(shard(profile={"dp": 2, "tp": 1}), per_rank=True, replay=False, bind_host=True)
    assert own.startswith(
        "KV-cache events: the publisher binds port 5557 plus each data-parallel rank on 10.0.0.7,"
    )
    assert "replays" not in own
    assert kv_events_wiring(shard(kv_events_mode="connect"), per_rank=False, replay=True) == (
        "KV-cache events: the publisher connects to a subscriber at tcp://127.0.0.1:5557 (kv_events_mode "
        "'connect': the node's agent must listen there); none is served to others"
    )


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("tcp://10.0.0.7:5557", True),
        ("tcp://[fd00::7]:1", True),
        ("tcp://host.example:65535", True),
        ("tcp://10.0.0.7:65536", False),
        ("tcp://10.0.0.7:0", False),
        ("tcp://*:5557", False),
        ("ipc:///tmp/x", False),
        ("tcp://10.0.0.7:5557\n", False),
        ("tcp://a b:1", False),
        ("", False),
    ],
)
def test_an_endpoint_is_tcp_host_and_port(text: str, ok: bool) -> None:
    assert (endpoint_problem(text) is None) is ok


def _plan(**fields: object) -> LaunchPlan:
    return LaunchPlan(
        engine="tiny",
        shard=shard(),
        commands=(Command(path="/usr/bin/tiny", args=("serve",)),),
        serves_http=True,
        health_path="/health",
        metrics_path="/metrics",
        **fields,  # type: ignore[arg-type]
    )


def test_a_plans_sources_are_written_and_read_back() -> None:
    sources = (KVEventSource(rank=0, endpoint="tcp://10.0.0.7:5557", replay="tcp://10.0.0.7:5558"),)
    plan = _plan(kv_events=sources)
    data = plan.to_dict(show_secrets=True)
    assert data["kv_events"] == [
        {"rank": 0, "endpoint": "tcp://10.0.0.7:5557", "replay": "tcp://10.0.0.7:5558"}
    ]
    assert LaunchPlan.from_dict(json.loads(json.dumps(data))) == plan
    assert "KV-cache events of rank 0: subscribe at tcp://10.0.0.7:5557 (replay: tcp://10.0.0.7:5558)" in (
        plan.render_text()
    )
    # A plan of format 1.2 has none, and reads as having none.
    del data["kv_events"]
    assert LaunchPlan.from_dict(data).kv_events == ()


def test_a_plans_sources_are_checked_on_reading() -> None:
    data = _plan().to_dict(show_secrets=True)
    data["kv_events"] = [
        {"rank": 0, "endpoint": "tcp://*:5557", "replay": ""},
        {"rank": 1, "endpoint": "tcp://10.0.0.7:5557", "replay": "tcp://10.0.0.7:99999"},
    ]
    with pytest.raises(SpecError) as caught:
        LaunchPlan.from_dict(data)
    assert caught.value.problems == (
        "plan.kv_events[0].endpoint: expected tcp://HOST:PORT with a port in 1-65535, got 'tcp://*:5557'",
        "plan.kv_events[1].replay: expected tcp://HOST:PORT with a port in 1-65535, got 'tcp://10.0.0.7:99999'",
        "plan.kv_events[1].rank: 1, but the shard's profile has data-parallel ranks 0-0",
    )


def _read(shard_fields: dict[str, object], sources: list[dict[str, object]]) -> tuple[str, ...]:
    plan = _plan()
    data = attrs.evolve(plan, shard=attrs.evolve(plan.shard, **shard_fields)).to_dict(show_secrets=True)
    data["kv_events"] = sources
    try:
        LaunchPlan.from_dict(data)
    except SpecError as exc:
        return exc.problems
    return ()


SOURCE = {"rank": 0, "endpoint": "tcp://10.0.0.7:5557", "replay": ""}


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"kv_events_mode": "connect"}, "the shard's kv_events_mode is 'connect', not 'bind'"),
        ({"kv_events_port": 0}, "the shard has no kv_events_port"),
        (
            {"profile": Profile(name="p", engine="tiny", model_path="/m")},
            "the profile publishes no kv_events",
        ),
    ],
)
def test_a_plan_whose_shard_binds_no_publisher_lists_no_source(fields: dict[str, object], why: str) -> None:
    assert _read(fields, [SOURCE]) == (
        f"plan.kv_events: 1 source(s), but {why}: a consumer subscribes to none",
    )
    assert _read(fields, []) == ()


def test_each_rank_is_listed_once_in_order_and_a_long_list_is_one_problem() -> None:
    dp = {"profile": Profile(name="p", engine="tiny", model_path="/m", kv_events=True, dp=2)}
    ranks = [dict(SOURCE, rank=r, endpoint=f"tcp://10.0.0.7:{5557 + r}") for r in (0, 1)]
    assert _read(dp, ranks) == ()
    assert _read(dp, ranks[::-1]) == (
        "plan.kv_events[1].rank: 0 after rank 1: each rank once, in rank order",
    )
    assert _read(dp, [ranks[0], ranks[0]]) == (
        "plan.kv_events[1].rank: 0 after rank 0: each rank once, in rank order",
    )
    many = [dict(SOURCE, endpoint="tcp://*:1")] * 1000
    problems = _read(dp, many)
    assert problems[0] == (
        "plan.kv_events: 1000 sources, but the shard's profile has 2 data-parallel rank(s): at most one "
        "source each (the first 3 checked)"
    )
    assert len(problems) == 1 + 3 + 2  # three endpoints checked, two ranks out of order
