"""Data parallel in the simulated engine: the plugin's argv per balancing mode, the server's checks and parts.

The whole replica in each mode, started by ``enginekit run`` on two loopback addresses,
is tests/test_dp_sim_e2e.py; here each part is pinned on its own.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from typing import Any

import pytest
from enginekit.base.errors import SpecError
from enginekit.spec.model import Profile, ShardSpec
from enginekit.testing import check_engine, engine_for
from enginekit_sim.commandline import build_parser
from enginekit_sim.plugin import SimEngine
from enginekit_sim.plugin.config import SimConfig
from enginekit_sim.server.api import kv_event_sources
from enginekit_sim.server.core import EngineCore
from enginekit_sim.server.dataparallel import Front, Group, Member, RemoteRank, serve_member
from enginekit_sim.server.jobs import BROKEN, READY, STARTING, EngineDead, Job
from enginekit_sim.server.metrics import merge
from enginekit_sim.server.publisher import Publisher, offset_endpoint
from enginekit_sim.server.settings import KVEvents, Settings, StartupError, settings_from
from enginekit_sim.testing import KVSubscriber, free_port

KEY = "k" * 32


def profile(mode: str = "internal", **fields: Any) -> Profile:
    values: dict[str, Any] = {
        "name": "dp",
        "engine": "sim",
        "model_path": "/m",
        "served_model_name": "m",
        "dp": 4,
        "nodes": 2,
        "gpus_per_node": 2,
        "dp_balancing": mode,
    }
    return Profile(**{**values, **fields})


def shard(mode: str = "internal", rank: int = 0, dp_rank: int = 0, **fields: Any) -> ShardSpec:
    values: dict[str, Any] = {
        "profile": profile(mode),
        "rank": rank,
        "nnodes": 2,
        "dp_rank": dp_rank,
        "leader_addr": "10.0.0.1",
        "leader_port": 29650,
        "http_port": 8200,
        "bind_addr": "10.0.0.9",
        "api_key": KEY,
        "gpu_indices": (0, 1),
    }
    return ShardSpec(**{**values, **fields})


def argv(spec: ShardSpec) -> list[str]:
    (command,) = check_engine(SimEngine(SimConfig()), spec)
    args = list(command.args)
    return args[: args.index("--startup-seconds")]  # the latency settings are pinned elsewhere


HEAD = ["-I", "-m", "enginekit_sim", "serve", "/m", "--served-model-name", "m"]
PARALLEL = ["--tensor-parallel-size", "1", "--pipeline-parallel-size", "1"]
DIAL = [
    "--data-parallel-size",
    "4",
    "--data-parallel-address",
    "10.0.0.1",
    "--data-parallel-rpc-port",
    "29650",
]


def test_internal_balancing_the_leader_serves_every_rank_and_the_other_node_runs_headless() -> None:
    assert argv(shard()) == [
        *HEAD, *PARALLEL, "--host", "10.0.0.9", "--port", "8200", *DIAL, "--data-parallel-size-local", "2",
    ]  # fmt: skip
    other = shard(rank=1, dp_rank=2, api_key="")
    assert argv(other) == [
        *HEAD, *PARALLEL, *DIAL, "--data-parallel-size-local", "2",
        "--headless", "--data-parallel-start-rank", "2",
    ]  # fmt: skip
    engine = SimEngine(SimConfig())
    assert engine.serves_http(shard()) is True
    assert engine.serves_http(other) is False
    (leader_command,) = check_engine(engine, shard())
    (other_command,) = check_engine(engine, other)
    assert (leader_command.name, leader_command.wait_for_leader_port) == ("sim", False)
    assert (other_command.name, other_command.wait_for_leader_port) == ("sim-headless", True)


def test_hybrid_balancing_every_node_serves_its_own_ranks_and_says_so() -> None:
    for rank, start in ((0, "0"), (1, "2")):
        spec = shard("hybrid", rank=rank, dp_rank=int(start))
        assert argv(spec) == [
            *HEAD, *PARALLEL, "--host", "10.0.0.9", "--port", "8200", *DIAL,
            "--data-parallel-size-local", "2", "--data-parallel-hybrid-lb", "--data-parallel-start-rank", start,
        ]  # fmt: skip
        assert SimEngine(SimConfig()).serves_http(spec) is True


def test_external_balancing_every_rank_is_its_own_server_on_its_own_port() -> None:
    spec = shard("external", rank=1, dp_rank=3, http_port=8201, gpu_indices=(1,))
    assert argv(spec) == [
        *HEAD, *PARALLEL, "--host", "10.0.0.9", "--port", "8201", *DIAL,
        "--data-parallel-external-lb", "--data-parallel-rank", "3",
    ]  # fmt: skip
    (command,) = check_engine(SimEngine(SimConfig()), spec)
    assert command.env["CUDA_VISIBLE_DEVICES"] == "1"
    assert command.wait_for_leader_port is True


def test_every_emitted_flag_is_read_by_the_server_as_the_layout_means_it() -> None:
    parser = build_parser()
    cases = [
        (shard(), (0, 1), True, "internal"),
        (shard(rank=1, dp_rank=2, api_key=""), (2, 3), False, "internal"),
        (shard("hybrid", rank=1, dp_rank=2), (2, 3), True, "hybrid"),
        (shard("external", rank=1, dp_rank=3, http_port=8201, gpu_indices=(1,)), (3,), True, "external"),
    ]
    for spec, ranks, serves, mode in cases:
        (command,) = check_engine(SimEngine(SimConfig()), spec)
        args = parser.parse_args(list(command.args[3:]))
        dp = settings_from(args, {}).dp
        assert dp is not None
        assert (dp.ranks, dp.serves, dp.mode, dp.size) == (ranks, serves, mode, 4)
        assert (dp.address, dp.rpc_port, dp.leader) == ("10.0.0.1", 29650, ranks[0] == 0)


def test_expert_parallel_and_its_backend_pass_as_vllm_spells_them() -> None:
    spec = shard(profile=profile(expert_parallel=True, all2all="deepep_low_latency"))
    args = argv(spec)
    assert args[-3:] == ["--enable-expert-parallel", "--all2all-backend", "deepep_low_latency"]
    single = ShardSpec(
        profile=Profile(name="ep", engine="sim", model_path="/m", tp=2, expert_parallel=True), http_port=8000
    )
    assert argv(single)[-1] == "--enable-expert-parallel"


def test_kv_events_go_out_from_every_process_hosting_ranks() -> None:
    spec = shard(rank=1, dp_rank=2, api_key="", kv_events_port=5557, profile=profile(kv_events=True))
    (command,) = check_engine(SimEngine(SimConfig()), spec)
    config = json.loads(command.args[command.args.index("--kv-events-config") + 1])
    assert config["endpoint"] == "tcp://*:5557"  # the server adds each rank
    # The replay endpoints follow every rank's publisher (4 ranks): 5561 on, each rank added.
    assert config["replay_endpoint"].endswith(":5561")
    notes = SimEngine(SimConfig()).notes(spec)
    assert any("ports 5559-5560" in n for n in notes)


def test_notes_say_where_ranks_are_served_from_and_when_ready() -> None:
    engine = SimEngine(SimConfig())
    leader = " ".join(engine.notes(shard()))
    assert "hosts data-parallel ranks 0-1 of 4 (internal balancing)" in leader
    assert "listens for the other processes' joins on dp-rpc port 29650" in leader
    assert "API server for every rank" in leader
    other = " ".join(engine.notes(shard(rank=1, dp_rank=2, api_key="")))
    assert "joins the leader at 10.0.0.1:29650 and exits when it goes" in other
    assert "serves no HTTP" in other
    external = " ".join(engine.notes(shard("external", rank=1, dp_rank=3, http_port=8201, gpu_indices=(1,))))
    assert "hosts data-parallel rank 3 of 4 (external balancing)" in external
    assert "API server for its own rank(s)" in external


@pytest.mark.parametrize(
    ("flag", "field"),
    [
        ("--data-parallel-size", "profile.dp"),
        ("--data-parallel-size-local", "profile.dp_per_node"),
        ("--data-parallel-rank", "dp_rank"),
        ("--data-parallel-rpc-port", "leader_port"),
        ("--data-parallel-external-lb", "dp_balancing"),
        ("--enable-expert-parallel", "profile.expert_parallel"),
        ("--all2all-backend", "profile.all2all"),
    ],
)
def test_a_profile_giving_a_layout_flag_is_refused_naming_the_field(flag: str, field: str) -> None:
    args = [flag] if flag in ("--data-parallel-external-lb", "--enable-expert-parallel") else [flag, "2"]
    engine = engine_for(SimEngine(SimConfig()), "sim")
    (problem,) = engine.problems(shard(profile=profile(args=args)), ())
    assert flag in problem
    assert field in problem


def test_a_dp_rank_that_starts_no_process_is_refused() -> None:
    engine = engine_for(SimEngine(SimConfig()), "sim")
    with pytest.raises(SpecError, match="dp_rank: node 1's processes start at data-parallel rank"):
        engine.commands(shard(rank=1, dp_rank=3, api_key=""), ())


def parse(*args: str) -> Any:
    return build_parser().parse_args(["serve", "/m", *args])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--data-parallel-size", "0"), "--data-parallel-size must be in 1..65536, got 0"),
        (
            ("--data-parallel-size", "2", "--data-parallel-hybrid-lb", "--data-parallel-external-lb"),
            "cannot both",
        ),
        (("--data-parallel-hybrid-lb",), "needs --data-parallel-size above 1"),
        (("--data-parallel-rank", "0"), "needs --data-parallel-size above 1"),
        (("--data-parallel-size", "2", "--data-parallel-external-lb"), "needs --data-parallel-rank"),
        (("--data-parallel-size", "2", "--nnodes", "2", "--tensor-parallel-size", "2"), "must fit one node"),
        (("--data-parallel-size", "2", "--data-parallel-size-local", "0"), "must be at least 1, got 0"),
        (("--data-parallel-size", "2", "--data-parallel-start-rank", "1"), "ranks 1..2 are not within 0..1"),
        (("--data-parallel-size", "2", "--data-parallel-rank", "2"), "ranks 2..2 are not within 0..1"),
        (("--data-parallel-size", "2", "--data-parallel-rank", "1", "--headless"), "every process serves"),
        (
            (
                "--data-parallel-size",
                "2",
                "--data-parallel-size-local",
                "1",
                "--data-parallel-start-rank",
                "1",
            ),
            "give the others --headless",
        ),
        (("--data-parallel-size", "2", "--headless"), "--headless on the process of rank 0"),
        (("--data-parallel-size", "2", "--data-parallel-rpc-port", "0"), "must be in 1..65535, got 0"),
        (
            ("--data-parallel-size", "2", "--data-parallel-rpc-port", "65536"),
            "must be in 1..65535, got 65536",
        ),
    ],
)
def test_the_server_refuses_what_vllm_would(args: tuple[str, ...], message: str) -> None:
    with pytest.raises(StartupError) as caught:
        settings_from(parse(*args), {})
    assert message in str(caught.value)


def test_the_server_s_data_parallel_defaults_and_the_gpus_its_ranks_take() -> None:
    assert settings_from(parse(), {}).dp is None
    dp = settings_from(parse("--data-parallel-size", "2"), {}).dp
    assert dp is not None
    assert (dp.ranks, dp.mode, dp.serves, dp.fronted, dp.leader) == ((0, 1), "internal", True, (0, 1), True)
    rank = settings_from(parse("--data-parallel-size", "4", "--data-parallel-rank", "2"), {}).dp
    assert rank is not None
    assert (rank.mode, rank.ranks, rank.fronted, rank.leader) == ("external", (2,), (2,), False)
    headless = parse("--data-parallel-size", "4", "--data-parallel-size-local", "2")
    headless.data_parallel_start_rank, headless.headless = 2, True
    found = settings_from(headless, {}).dp
    assert found is not None
    assert (found.fronted, found.serves) == ((), False)
    # Two ranks of TP 2 take four GPUs: three are too few.
    many = parse("--data-parallel-size", "2", "--tensor-parallel-size", "2")
    with pytest.raises(StartupError, match=r"World size per node \(4\)"):
        settings_from(many, {"CUDA_VISIBLE_DEVICES": "0,1,2"})
    assert settings_from(many, {"CUDA_VISIBLE_DEVICES": "0,1,2,3"}).dp is not None


def test_endpoints_move_by_the_rank_as_vllm_s_offset_endpoint_port() -> None:
    assert offset_endpoint("tcp://127.0.0.1:5557", 0) == "tcp://127.0.0.1:5557"
    assert offset_endpoint("tcp://127.0.0.1:5557", 3) == "tcp://127.0.0.1:5560"
    assert offset_endpoint("tcp://*:5557", 1) == "tcp://*:5558"
    assert offset_endpoint("tcp://[::1]:5557", 2) == "tcp://[::1]:5559"
    assert offset_endpoint("tcp://127.0.0.1:0", 2) == "tcp://127.0.0.1:0"
    assert offset_endpoint("inproc://cache", 2) == "inproc://cache_dp2"
    assert offset_endpoint("ipc:///tmp/kv", 2) == "ipc:///tmp/kv"
    assert offset_endpoint("", 2) == ""
    config = KVEvents(endpoint="tcp://x:1", topic="t")
    assert kv_event_sources({3: "tcp://x:1", 1: "tcp://x:2"}, config) == {
        "1": kv_event_sources({1: "tcp://x:2"}, config)["1"],
        "3": kv_event_sources({3: "tcp://x:1"}, config)["3"],
    }
    assert list(kv_event_sources({3: "a", 1: "b"}, config)) == ["1", "3"]
    assert kv_event_sources({1: "tcp://x:2"}, config)["1"]["endpoint"] == "tcp://x:2"
    assert kv_event_sources({1: "tcp://x:2"}, config)["1"]["topic"] == "t"
    assert kv_event_sources({1: "tcp://x:2"}, config)["1"]["replay_endpoint"] is None
    replaying = dataclasses.replace(config, replay_endpoint="tcp://*:6000", buffer_steps=7)
    (source,) = kv_event_sources({1: "tcp://x:2"}, replaying, {1: "tcp://*:6001"}).values()
    assert (source["replay_endpoint"], source["buffer_steps"]) == ("tcp://*:6001", 7)


def test_each_rank_binds_its_replay_endpoint_moved_by_the_rank_and_reports_it() -> None:
    """vLLM moves replay_endpoint by the rank with offset_endpoint_port, as it moves endpoint."""
    import zmq

    port, replay = free_port(), free_port()
    while replay + 1 == port:
        replay = free_port()
    config = KVEvents(endpoint=f"tcp://127.0.0.1:{port}", replay_endpoint=f"tcp://127.0.0.1:{replay}")
    settings = dataclasses.replace(server_settings("--data-parallel-size", "2"), kv_events=config)
    publisher = Publisher(config, rank=1)
    try:
        assert publisher.replay_endpoint == f"tcp://127.0.0.1:{replay + 1}"
        core = EngineCore(settings, publisher, rank=1)
        assert core.replay_endpoints() == {1: f"tcp://127.0.0.1:{replay + 1}"}
        front = Front(settings, {0: EngineCore(settings, rank=0), 1: core}, {}, None)
        assert front.replay_endpoints() == {1: f"tcp://127.0.0.1:{replay + 1}"}
        context = zmq.Context()
        try:
            dealer = context.socket(zmq.DEALER)
            dealer.setsockopt(zmq.LINGER, 0)
            dealer.connect(f"tcp://127.0.0.1:{replay + 1}")
            dealer.send_multipart([b"", (0).to_bytes(8, "big")])
            deadline = time.monotonic() + 5
            while not dealer.poll(10) and time.monotonic() < deadline:
                publisher.serve_replays()  # no event loop here: answered by hand
            assert dealer.recv_multipart() == [b"", b"", (-1).to_bytes(8, "big", signed=True), b""]
        finally:
            context.destroy(linger=0)
    finally:
        publisher.close()
    assert EngineCore(settings, rank=0).replay_endpoints() == {}, "no publisher, no replays"


def test_merged_expositions_keep_each_family_s_header_once_and_every_engine_s_samples() -> None:
    one = '# HELP a A.\n# TYPE a counter\na{engine="0"} 1.0\n# HELP b B.\n# TYPE b gauge\nb{engine="0"} 2.0\n'
    two = one.replace('engine="0"', 'engine="1"')
    assert merge([one, two]) == (
        '# HELP a A.\n# TYPE a counter\na{engine="0"} 1.0\na{engine="1"} 1.0\n'
        '# HELP b B.\n# TYPE b gauge\nb{engine="0"} 2.0\nb{engine="1"} 2.0\n'
    )
    assert merge([]) == ""


def server_settings(*args: str) -> Settings:
    return settings_from(
        parse(
            "--startup-seconds", "0", "--ttft-ms", "0", "--itl-ms", "0", "--heartbeat-seconds", "0.05", *args
        ),
        {},
    )


def test_the_front_spreads_an_idle_replica_in_turn_and_prefers_the_least_loaded_rank() -> None:
    settings = server_settings("--data-parallel-size", "3")
    cores = {r: EngineCore(settings, rank=r) for r in range(3)}
    front = Front(settings, cores, {}, None)
    assert [front.pick().rank for _ in range(4)] == [0, 1, 2, 0]  # type: ignore[union-attr]
    cores[1].running = 1
    cores[2].metrics.waiting_count = 1  # a waiting request weighs four running ones
    cores[0].running = 4
    assert front.pick() is cores[1]
    cores[1].running = 5
    assert front.pick() is cores[2]  # ranks 0 and 2 tie at 4: the next in turn after rank 1
    assert front.pick() is cores[0]  # and then the other


def test_the_front_is_one_engine_to_the_handlers_ready_broken_and_instant() -> None:
    settings = server_settings("--data-parallel-size", "2")
    cores = {r: EngineCore(settings, rank=r) for r in range(2)}
    front = Front(settings, cores, {}, None)
    assert (front.state, front.healthy()) == (STARTING, False)

    async def scenario() -> None:
        front.set_ready()
        assert (front.state, front.healthy()) == (READY, True)
        assert {c.state for c in cores.values()} == {READY}
        job = Job(prompt="x", prompt_tokens=["x"], max_tokens=2)
        front.count_request()
        front.plan(job)
        assert front.complete_now(job) is True
        assert front.complete_now(Job(prompt="y", prompt_tokens=["y"], max_tokens=2, outputs=[["a", "b"]]))
        # Each went to another rank, and the series of both are served.
        text = front.metrics.render()
        assert 'vllm:generation_tokens_total{model_name="/m",engine="0"} 2.0' in text
        assert 'vllm:generation_tokens_total{model_name="/m",engine="1"} 2.0' in text
        assert text.count("# TYPE vllm:generation_tokens_total counter") == 1
        assert front.cache.clear() is True
        front.set_broken("gone")
        assert (front.state, front.reason, front.healthy()) == (BROKEN, "gone", False)
        assert {c.state for c in cores.values()} == {BROKEN}

    asyncio.run(scenario())


class _Writer:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def is_closing(self) -> bool:
        return False

    def write(self, data: bytes) -> None:
        self.sent.append(json.loads(data))


def test_the_leader_refuses_a_join_that_does_not_fit_naming_why() -> None:
    settings = server_settings("--data-parallel-size", "4", "--data-parallel-size-local", "2")
    assert settings.dp is not None
    group = Group(settings, settings.dp, lambda: None, lambda reason: None)
    good = {"op": "join", "ranks": [2, 3], "size": 4, "mode": "internal", "model": "/m", "tp": 1, "pp": 1}
    assert group._refusal(good) == ""
    cases = [
        (None, "expected a join"),
        ({**good, "op": "ping"}, "expected a join"),
        ({**good, "ranks": []}, "names the data-parallel ranks"),
        ({**good, "ranks": ["2"]}, "names the data-parallel ranks"),
        ({**good, "ranks": [4]}, "rank 4 is not in 0..3"),
        ({**good, "ranks": [1]}, "rank 1 has already joined"),
        ({**good, "size": 8}, "size is 8 on ranks 2-3, 4 on the leader"),
        ({**good, "mode": "hybrid"}, "mode is 'hybrid' on ranks 2-3, 'internal' on the leader"),
        ({**good, "model": "/x"}, "model is '/x'"),
        ({**good, "tp": 2}, "tp is 2"),
        ({**good, "pp": 2}, "pp is 2"),
        ({**good, "serves": True}, "only the leader serves the API"),
    ]
    for message, reason in cases:
        assert reason in group._refusal(message), message
    group.members[3] = Member((3,), None, {})  # type: ignore[arg-type]
    assert "rank 3 has already joined" in group._refusal(good)
    group.broken = "ranks 2-3 left"
    assert "the replica is broken (ranks 2-3 left)" in group._refusal({**good, "ranks": [2]})


def test_the_group_forms_once_every_rank_is_ready_and_breaks_for_good_when_one_goes() -> None:
    settings = server_settings("--data-parallel-size", "4", "--data-parallel-size-local", "2")
    assert settings.dp is not None
    seen: list[str] = []
    group = Group(settings, settings.dp, lambda: seen.append("ready"), seen.append)
    member = Member((2, 3), None, {2: "tcp://a:2", 3: "tcp://a:3"})  # type: ignore[arg-type]
    group.members.update({2: member, 3: member})
    group._message(member, {"op": "ready"})
    assert seen == []  # the leader's own ranks have not loaded
    group.set_loaded()
    assert seen == ["ready"]
    assert group.formed
    group._message(member, {"op": "metrics", "text": "x 1\n"})
    assert member.metrics == "x 1\n"
    _ident, queue = member.open()
    group._lose(member, "connection closed")
    assert seen == ["ready", "data-parallel ranks 2-3 left: connection closed"]
    assert queue.get_nowait() == {"op": "fail", "reason": "data-parallel ranks 2-3 left: connection closed"}
    group._lose(member, "again")
    assert seen[-1] == "data-parallel ranks 2-3 left: connection closed"  # the first reason stays


def test_a_remote_rank_relays_steps_fails_with_the_member_and_aborts_what_it_leaves() -> None:
    settings = server_settings("--data-parallel-size", "2", "--data-parallel-size-local", "1")
    assert settings.dp is not None
    group = Group(settings, settings.dp, lambda: None, lambda reason: None)
    link = type("L", (), {"send": lambda self, m: sent.append(m)})()
    sent: list[dict[str, Any]] = []
    member = Member((1,), link, {})  # type: ignore[arg-type]
    remote = RemoteRank(1, group)
    job = Job(prompt="x", prompt_tokens=["x"], max_tokens=2, outputs=[["a", "b"]])

    async def scenario() -> None:
        with pytest.raises(EngineDead, match="rank 1 has not joined"):
            await remote.complete(job)
        group.members[1] = member
        assert remote.complete_now(job) is False
        run = remote.run(job)
        first = asyncio.ensure_future(run.__anext__())
        await asyncio.sleep(0)
        assert (sent[-1]["op"], sent[-1]["id"], sent[-1]["rank"]) == ("run", 1, 1)
        assert sent[-1]["job"]["outputs"] == [["a", "b"]]
        assert remote.load() == 1
        member.deliver({"op": "step", "id": 1, "step": 0})
        assert await first == 0
        await run.aclose()  # the client went: the member is told to stop
        assert sent[-1] == {"op": "abort", "id": 1}
        assert remote.load() == 0
        ended = asyncio.ensure_future(remote.complete(job))
        await asyncio.sleep(0)
        member.deliver({"op": "step", "id": 2, "step": 0})
        member.deliver({"op": "end", "id": 2})
        await ended
        assert sent[-1]["op"] == "run"  # ended: nothing to abort
        failed = asyncio.ensure_future(remote.complete(job))
        await asyncio.sleep(0)
        member.fail_all("ranks 1 left")
        with pytest.raises(EngineDead, match="ranks 1 left"):
            await failed
        group.broken = "broken"
        with pytest.raises(EngineDead, match="broken"):
            await remote.complete(job)

    asyncio.run(scenario())


def test_a_member_runs_what_the_leader_sends_over_a_real_connection() -> None:
    """A member process's side, against a leader played by the test on loopback."""
    settings = server_settings(
        "--data-parallel-size", "2", "--data-parallel-size-local", "1", "--data-parallel-start-rank", "1",
        "--headless", "--data-parallel-rpc-port", "1",
    )  # fmt: skip
    assert settings.dp is not None

    async def scenario() -> None:
        joined: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        lines: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

        writers: list[asyncio.StreamWriter] = []

        async def leader(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writers.append(writer)
            joined.set_result(json.loads(await reader.readline()))
            writer.write(b'{"op": "welcome"}\n')
            job = {"prompt": "x", "prompt_tokens": ["x"], "max_tokens": 2, "outputs": [["a", "b"]]}
            writer.write(json.dumps({"op": "run", "id": 7, "rank": 1, "job": job}).encode() + b"\n")
            writer.write(b'{"op": "run", "id": 8, "rank": 1, "job": {"unknown": 1}}\n')
            while line := await reader.readline():
                message = json.loads(line)
                if message["op"] not in ("ping", "metrics"):
                    await lines.put(message)

        server = await asyncio.start_server(leader, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        dp = settings.dp
        assert dp is not None
        local = dataclasses.replace(dp, address="127.0.0.1", rpc_port=port)
        cores = {1: EngineCore(settings, rank=1)}
        loaded: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        member = asyncio.ensure_future(serve_member(settings, local, cores, loaded, lambda: None, print))
        message = await asyncio.wait_for(joined, 10)
        assert message["ranks"] == [1]
        assert (message["serves"], message["mode"], message["size"]) == (False, "internal", 2)
        loaded.set_result(None)
        got = [await asyncio.wait_for(lines.get(), 10) for _ in range(5)]
        assert {"op": "ready"} in got
        assert {"op": "step", "id": 7, "step": 0} in got
        assert {"op": "step", "id": 7, "step": 1} in got
        assert {"op": "end", "id": 7} in got
        assert {"op": "fail", "id": 8, "reason": "the leader sent a request this rank cannot read"} in got
        writers[0].close()  # the leader goes: the member's process is to exit 1
        assert await asyncio.wait_for(member, 10) == 1
        server.close()
        await server.wait_closed()

    asyncio.run(scenario())


def test_each_rank_publishes_its_kv_events_on_the_port_plus_its_rank() -> None:
    subscriber = KVSubscriber()
    try:

        async def scenario() -> None:
            publisher = Publisher(KVEvents(endpoint=f"tcp://127.0.0.1:{subscriber.port - 3}"), rank=3)
            assert publisher.endpoint == f"tcp://127.0.0.1:{subscriber.port}"
            for _ in range(50):  # a publisher drops what it sends before the subscription arrives
                publisher.publish([{"type": "AllBlocksCleared"}])
                await asyncio.sleep(0.05)
                got = subscriber.receive(0)
                if got is not None:
                    break
            publisher.close()
            assert got is not None
            assert got[2][2] == 3  # the batch names its data-parallel rank

        asyncio.run(scenario())
    finally:
        subscriber.close()
