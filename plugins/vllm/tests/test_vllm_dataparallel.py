"""vLLM's data and expert parallel: every balancing mode's command lines, from the layout, in every release."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from enginekit.plugin import ArgSyntax, Command, Dial, EngineError, ShardSpec
from enginekit.replica.spec import expand, load_replica
from enginekit.testing import engine_for
from enginekit_vllm import VllmConfig, VllmEngine
from enginekit_vllm.dataparallel import ALL2ALL_FLAG_SINCE, all2all_backends
from enginekit_vllm.known import known_options, short_aliases, table
from enginekit_vllm.versions import vllm_release

RELEASES = table().releases
READER = ArgSyntax(known=known_options(), aliases=short_aliases(), underscores=True)
KEY = "sk-vllm-dp-0123456789abcdef"


def replica(mode: str = "internal", **profile: Any) -> dict[str, Any]:
    """DeepSeek-style wide EP: DP 16 over two nodes of eight GPUs, one GPU per rank."""
    fields = {
        "name": "dsr1",
        "engine": "vllm",
        "model_path": "/models/deepseek-ai/DeepSeek-R1",
        "served_model_name": "deepseek-r1",
        "tp": 1,
        "dp": 16,
        "nodes": 2,
        "gpus_per_node": 8,
        "dp_balancing": mode,
        "expert_parallel": True,
        "all2all": "deepep_low_latency",
        "kv_events": True,
    }
    return {
        "replica_id": "dsr1",
        "leader_port": 13345,
        "http_port": 8000,
        "api_key": KEY,
        "placement": {
            "gpu_indices": list(range(8)),
            "hcas": ["mlx5_0:1", "mlx5_1:1"],
            "mgmt_interface": "eth0",
            "fabric": "ib:pod-a",
            "kv_events_port": 5557,
        },
        "nodes": [{"addr": "10.0.0.1"}, {"addr": "10.0.0.2"}],
        "profile": fields | profile,
    }


def commands(doc: dict[str, Any], release: str = "0.34.0") -> list[tuple[ShardSpec, Command]]:
    engine = engine_for(VllmEngine(VllmConfig(version=release)), "vllm")
    out = []
    for shard in expand(load_replica(doc)):
        [command] = engine.plan(shard).commands
        out.append((shard, command))
    return out


def flags(command: Command) -> dict[str, str | None]:
    """Each option of the command line with the value after it (None for a flag)."""
    args = list(command.args)
    found: dict[str, str | None] = {}
    for i, arg in enumerate(args):
        if arg.startswith("--"):
            nxt = args[i + 1] if i + 1 < len(args) else None
            found[arg] = None if nxt is None or nxt.startswith("--") else nxt
    return found


def test_internal_balancing_the_head_serves_and_the_other_node_runs_headless() -> None:
    (head_spec, head), (worker_spec, worker) = commands(replica())
    h, w = flags(head), flags(worker)
    for f in (h, w):
        assert f["--data-parallel-size"] == "16"
        assert f["--data-parallel-size-local"] == "8"
        assert f["--data-parallel-address"] == "10.0.0.1"
        assert f["--data-parallel-rpc-port"] == "13345"
        assert f["--all2all-backend"] == "deepep_low_latency"
        assert "--enable-expert-parallel" in f
        assert "--nnodes" not in f  # a rank is on one node: no multi-node executor
    # The head takes no start rank: from 0.28.0 one would turn it into hybrid balancing.
    assert "--data-parallel-start-rank" not in h
    assert "--headless" not in h
    assert (h["--port"], h["--host"]) == ("8000", "10.0.0.1")
    assert (w["--data-parallel-start-rank"], "--headless" in w, "--port" in w) == ("8", True, False)
    assert (head.name, worker.name) == ("vllm", "vllm-headless")
    assert "VLLM_API_KEY" in head.env
    assert "VLLM_API_KEY" not in worker.env
    assert worker.env["VLLM_HOST_IP"] == "10.0.0.2"
    assert (head.wait_for_leader_port, worker.wait_for_leader_port) == (False, True)
    # Each node's engines publish KV events on the base port; vLLM adds each rank.
    assert '"endpoint":"tcp://*:5557"' in str(w["--kv-events-config"])
    assert worker_spec.dp_rank == 8
    assert head_spec.api_key == KEY


def test_hybrid_balancing_every_node_serves_its_own_ranks() -> None:
    shards = commands(replica("hybrid"))
    for (shard, command), start in zip(shards, ("0", "8"), strict=True):
        f = flags(command)
        assert "--data-parallel-hybrid-lb" in f
        assert f["--data-parallel-start-rank"] == start
        assert f["--port"] == "8000"
        assert "--headless" not in f
        assert "VLLM_API_KEY" in command.env
        assert shard.api_key == KEY


def test_external_balancing_one_process_per_rank_on_its_own_gpu_and_port() -> None:
    doc = replica("external", dp=4, gpus_per_node=2)
    doc["placement"]["gpu_indices"] = [6, 7]
    shards = commands(doc)
    assert [
        (flags(c)["--data-parallel-rank"], flags(c)["--port"], c.env["CUDA_VISIBLE_DEVICES"])
        for _, c in shards
    ] == [
        ("0", "8000", "6"),
        ("1", "8001", "7"),
        ("2", "8000", "6"),
        ("3", "8001", "7"),
    ]
    for _, command in shards:
        f = flags(command)
        assert "--data-parallel-size-local" not in f
        assert "--data-parallel-start-rank" not in f
        assert f["--data-parallel-address"] == "10.0.0.1"
    assert [c.wait_for_leader_port for _, c in shards] == [False, True, True, True]


def test_serves_http_names_every_api_server_of_the_layout() -> None:
    engine = engine_for(VllmEngine(VllmConfig()), "vllm")
    for mode, expected in (("internal", [True, False]), ("hybrid", [True, True])):
        assert [engine.serves_http(s) for s in expand(load_replica(replica(mode)))] == expected
    external = replica("external", dp=4, gpus_per_node=2)
    external["placement"]["gpu_indices"] = [0, 1]
    assert all(engine.serves_http(s) for s in expand(load_replica(external)))


def test_the_all_to_all_backend_is_a_variable_before_its_flag_existed() -> None:
    (_, head), _ = commands(replica(), release="0.11.0")
    assert "--all2all-backend" not in flags(head)
    assert head.env["VLLM_ALL2ALL_BACKEND"] == "deepep_low_latency"
    assert vllm_release("0.11.1") == ALL2ALL_FLAG_SINCE
    (_, head), _ = commands(replica(all2all=""))
    assert "--all2all-backend" not in flags(head)
    assert "--enable-expert-parallel" in flags(head)


def test_a_backend_the_release_lacks_is_refused_naming_what_it_has() -> None:
    engine = engine_for(VllmEngine(VllmConfig(version="0.23.0")), "vllm")
    shard = expand(load_replica(replica(all2all="deepep_v2")))[0]
    [problem] = engine.problems(shard)
    # The node's release is named: the backend came later, and an older node refuses it.
    assert problem.startswith("profile 'dsr1': all2all: vLLM 0.23.0 has no all-to-all backend 'deepep_v2'")
    assert "deepep_v2" in all2all_backends(vllm_release("0.24.0"))
    assert "mori" not in all2all_backends(vllm_release("0.23.0"))
    assert "mori" in all2all_backends(vllm_release("0.34.0"))


def test_expert_parallel_on_one_node_of_tensor_parallel_alone() -> None:
    doc = replica(dp=1, nodes=1, tp=8, gpus_per_node=0, dp_balancing="internal")
    doc["nodes"] = doc["nodes"][:1]
    [(_, command)] = commands(doc)
    f = flags(command)
    assert ("--enable-expert-parallel" in f, f["--tensor-parallel-size"]) == (True, "8")
    assert "--data-parallel-size" not in f


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("mode", ["internal", "hybrid", "external"])
def test_every_flag_of_every_data_parallel_shape_exists_in_every_release(release: str, mode: str) -> None:
    options = table().for_release(release, setting="x")
    doc = replica(mode, dp=4, gpus_per_node=2, all2all="naive")
    doc["placement"]["gpu_indices"] = [0, 1]
    for _, command in commands(doc, release=release):
        used = READER.parse(command.args).uses
        missing = sorted(option for option in used if not options.accepts(option))
        assert not missing, f"vLLM {release} has no {missing} ({mode})"


def test_the_leader_address_on_one_node_is_the_given_one_or_loopback() -> None:
    engine = engine_for(VllmEngine(VllmConfig()), "vllm")
    prof = load_replica(replica("external", dp=2, nodes=1, gpus_per_node=2)).profile
    # Its own listening address is not what the others dial: loopback is, unless it is given.
    for bind, leader, expected in (
        ("", "", "127.0.0.1"),
        ("127.0.0.1", "", "127.0.0.1"),
        ("10.0.0.9", "10.0.0.9", "10.0.0.9"),
        ("", "10.0.0.9", "10.0.0.9"),
    ):
        for dp_rank in (0, 1):
            shard = ShardSpec(
                profile=prof,
                dp_rank=dp_rank,
                http_port=8000 + dp_rank,
                bind_addr=bind,
                leader_addr=leader,
                leader_port=13345,
                gpu_indices=(dp_rank,),
                kv_events_port=0,
            )
            [command] = engine.plan(shard).commands
            f = flags(command)
            assert (f["--data-parallel-address"], f["--data-parallel-rpc-port"]) == (expected, "13345")
    # Bound to another address than loopback, the leader's API server is out of its watchers' sight.
    alone = ShardSpec(profile=prof, http_port=8000, bind_addr="10.0.0.9", leader_port=13345, gpu_indices=(0,))
    [problem] = engine.problems(alone)
    assert problem.startswith("bind_addr: '10.0.0.9', but the replica's other processes watch this leader's")


def test_the_first_release_with_the_backend_flag_uses_it() -> None:
    (_, head), _ = commands(replica(), release="0.11.1")
    assert flags(head)["--all2all-backend"] == "deepep_low_latency"
    assert "VLLM_ALL2ALL_BACKEND" not in head.env
    (_, old), _ = commands(replica(), release="0.11.0")
    assert "--enable-expert-parallel" in flags(old)


def test_a_data_parallel_worker_is_stopped_with_its_leader_watched_at_the_leader_s_api_server() -> None:
    """Only the first rank of the first node leads; every other process is watched at its API server.

    vLLM closes the handshake port once every engine joined (a watch on it would stop
    healthy workers), and a worker does not end by itself when its leader goes (seen on
    0.32.0's CPU build): the plan says it must be stopped, and where to watch.
    """
    engine = engine_for(VllmEngine(VllmConfig()), "vllm")
    doc = replica("external", dp=4, gpus_per_node=2)
    doc["placement"]["gpu_indices"] = [0, 1]
    shards = expand(load_replica(doc))
    assert [s.is_leader() for s in shards] == [True, False, False, False]
    plans = [engine.plan(s) for s in shards]
    assert [p.on_leader_exit for p in plans] == ["", "must_be_stopped", "must_be_stopped", "must_be_stopped"]
    assert [p.leader_watch_port for p in plans] == [0, 8000, 8000, 8000]
    assert [s.leader_http_port for s in shards] == [8000] * 4
    assert [p.shard.leader_port for p in plans] == [13345] * 4
    text = plans[3].render_text()
    assert "when the leader exits: this rank keeps running; stop it too (watch 10.0.0.1:8000)" in text
    tp_pp = ShardSpec(profile=load_replica(replica(dp=1, tp=8)).profile, rank=1, nnodes=2)
    assert VllmEngine().leader_exit(tp_pp) == "must_be_stopped"


def test_a_data_parallel_worker_without_the_leader_s_http_port_is_refused_saying_why() -> None:
    """A worker spec written by hand without ``leader_http_port`` has nothing to be watched at."""
    engine = engine_for(VllmEngine(VllmConfig()), "vllm")
    worker = expand(load_replica(replica()))[1]
    bare = attrs.evolve(worker, leader_http_port=0)
    [problem] = engine.problems(bare)
    assert problem.startswith("leader_http_port: required for a worker rank of a data-parallel vllm replica")
    assert "the supervisor watches the leader's API server, the first node's HTTP port" in problem
    assert engine.problems(attrs.evolve(expand(load_replica(replica()))[0], leader_http_port=0)) == []
    # Given, the worker dials it: the table's "who dials whom" shows the watch.
    assert engine.layout(worker).dialed("http") == Dial("http", 0, "10.0.0.1", 8000)


NVSHMEM = {
    "NVSHMEM_HCA_LIST": "mlx5_0:1,mlx5_1:1",
    "NVSHMEM_IB_ENABLE_IBGDA": "1",
    "NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME": "eth0",
}


@pytest.mark.parametrize("backend", ["deepep_low_latency", "deepep_high_throughput", "pplx"])
def test_an_nvshmem_backend_across_nodes_gets_nvshmem_s_fabric_settings_on_every_node(backend: str) -> None:
    release = "0.16.0" if backend == "pplx" else "0.34.0"
    for _, command in commands(replica(all2all=backend), release=release):
        assert {k: v for k, v in command.env.items() if k.startswith("NVSHMEM_")} == NVSHMEM
        assert command.why["NVSHMEM_HCA_LIST"].startswith(f"vLLM's {backend} all-to-all: ")


def test_a_backend_without_nvshmem_or_one_node_gets_none() -> None:
    for backend in ("deepep_v2", "allgather_reducescatter", ""):
        for _, command in commands(replica(all2all=backend)):
            assert not [k for k in command.env if k.startswith("NVSHMEM_")], backend
    doc = replica(dp=8, nodes=1)
    doc["nodes"] = doc["nodes"][:1]
    [(_, command)] = commands(doc)
    assert not [k for k in command.env if k.startswith("NVSHMEM_")]


def test_a_profile_cannot_set_the_backend_s_variable_beside_the_field() -> None:
    engine = engine_for(VllmEngine(VllmConfig(version="0.15.0")), "vllm")
    shard = expand(load_replica(replica(env={"VLLM_ALL2ALL_BACKEND": "naive"})))[0]
    [problem] = engine.problems(shard)
    assert "env VLLM_ALL2ALL_BACKEND" in problem


def test_api_server_count_is_refused_where_it_reaches_a_headless_node() -> None:
    engine = engine_for(VllmEngine(VllmConfig(version="0.34.0")), "vllm")
    head, worker = expand(load_replica(replica(args=["--api-server-count", "4"])))
    assert engine.problems(head) == []
    engine.plan(head)
    with pytest.raises(EngineError) as caught:
        engine.plan(worker)
    assert str(caught.value).startswith(
        "profile 'dsr1': args: --api-server-count reaches every node, and node 1 runs --headless"
    )
    for shard in expand(load_replica(replica("hybrid", args=["--api-server-count", "4"]))):
        engine.plan(shard)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--enable-expert-parallel"], "profile.expert_parallel"),
        (["-ep"], "profile.expert_parallel"),
        (["--all2all-backend", "naive"], "profile.all2all"),
        (["--data-parallel-size-local", "2"], "set profile.dp, dp_per_node and dp_balancing"),
    ],
)
def test_a_layout_flag_in_the_args_is_refused_naming_the_field(args: list[str], field: str) -> None:
    engine = engine_for(VllmEngine(VllmConfig(version="0.34.0")), "vllm")
    shard = expand(load_replica(replica(args=args)))[0]
    [problem] = engine.problems(shard)
    assert field in problem


def test_the_wide_ep_pair_s_command_lines_and_host_addresses_are_exact() -> None:
    (head_spec, head), (_, worker) = commands(replica())
    common = [
        *("--tensor-parallel-size", "1", "--pipeline-parallel-size", "1", "--data-parallel-size", "16"),
        *("--data-parallel-address", "10.0.0.1", "--data-parallel-rpc-port", "13345"),
        *("--data-parallel-size-local", "8"),
    ]

    def tail(node: int) -> list[str]:
        # Each node's publishers bind every address; its replay endpoints bind its own.
        return [
            *("--enable-expert-parallel", "--all2all-backend", "deepep_low_latency", "--kv-events-config"),
            '{"enable_kv_cache_events":true,"publisher":"zmq","endpoint":"tcp://*:5557",'
            f'"replay_endpoint":"tcp://10.0.0.{node + 1}:5573"}}',
        ]

    serve = ["serve", "/models/deepseek-ai/DeepSeek-R1"]
    assert list(head.args) == [
        *serve,
        *("--host", "10.0.0.1", "--port", "8000", "--served-model-name", "deepseek-r1"),
        *common,
        *tail(0),
    ]
    assert list(worker.args) == [*serve, *common, "--headless", "--data-parallel-start-rank", "8", *tail(1)]
    assert (head.name, worker.name) == ("vllm", "vllm-headless")
    assert (head.env["VLLM_HOST_IP"], worker.env["VLLM_HOST_IP"]) == ("10.0.0.1", "10.0.0.2")
    assert head.why["VLLM_HOST_IP"] == (
        "this node's management address: its engines' sockets to the other nodes bind there, and "
        "vLLM otherwise guesses from the default route"
    )
    assert head.env["VLLM_API_KEY"] == KEY
    assert "VLLM_API_KEY" not in worker.env
    # One node has no other node to be reached from: no host address to pin.
    doc = replica(dp=8, nodes=1)
    doc["nodes"] = doc["nodes"][:1]
    [(_, single)] = commands(doc)
    assert "VLLM_HOST_IP" not in single.env
    assert head_spec.is_leader()


def test_hybrid_balancing_with_one_rank_per_node_says_vllm_takes_it_for_external() -> None:
    """vLLM 0.32.0's CPU build, one rank per node: the switch to external, then a dense model's assertion."""

    def dense_one_per_node(mode: str) -> dict[str, Any]:
        doc = replica(mode, dp=2, gpus_per_node=1, expert_parallel=False, all2all="")
        doc["placement"]["gpu_indices"] = [0]
        return doc

    one = dense_one_per_node("hybrid")

    def notes(doc: dict[str, Any], release: str) -> list[list[str]]:
        engine = engine_for(VllmEngine(VllmConfig(version=release)), "vllm")
        return [
            [n for n in engine.plan(s).notes if "hybrid balancing" in n] for s in expand(load_replica(doc))
        ]

    for node in notes(one, "0.32.0"):
        (note,) = node
        assert "is external balancing to vLLM 0.32.0" in note
        assert "a dense model stops at start (AssertionError: stats_update_address)" in note
    (before,), _ = notes(one, "0.20.0")
    assert "external balancing to vLLM 0.20.0" in before
    assert "dense" not in before
    assert notes(one, "0.11.0") == [[], []]  # no switch in 0.11.0
    # The first releases of each: the switch in 0.11.1, the refusal of a dense model in 0.21.0.
    (first,), _ = notes(one, "0.11.1")
    assert "dense" not in first
    (refused,), _ = notes(one, "0.21.0")
    assert "a dense model stops at start" in refused
    assert notes(replica("hybrid"), "0.32.0") == [[], []]  # eight ranks per node
    assert notes(dense_one_per_node("internal"), "0.32.0") == [[], []]


def cpu_replica(**profile: Any) -> dict[str, Any]:
    """Two CPU nodes of one data-parallel rank each: no GPUs, threads and a KV cache instead."""
    fields = {"dp": 2, "gpus_per_node": 1, "gpu_class": "cpu", "expert_parallel": False, "all2all": ""}
    doc = replica("internal", **(fields | profile))
    doc["placement"] = {"threads": 4, "kv_cache_mib": 1024}
    return doc


def test_expert_parallel_on_the_cpu_is_refused_where_vllm_cannot_run_a_moe_model_over_ranks() -> None:
    """0.32.0's CPU build stopped at start on a MoE model's dispatch (all_gatherv); 0.15.0 is where it begins."""
    doc = cpu_replica(expert_parallel=True)
    for release in ("0.15.0", "0.32.0", "0.34.0"):
        engine = engine_for(VllmEngine(VllmConfig(version=release)), "vllm")
        for shard in expand(load_replica(doc)):
            where = f"shard {shard.shard_id}: expert_parallel"
            with pytest.raises(EngineError, match=rf"^{where}: vLLM {release}'s CPU build cannot"):
                engine.plan(shard)
    # Before 0.15.0 the CPU communicator had no all-to-all at all: not read, not refused.
    assert len(commands(doc, release="0.14.0")) == 2
    # On GPUs, and on the CPU without expert parallel (a dense model), nothing is refused.
    assert len(commands(cpu_replica(), release="0.32.0")) == 2
    assert len(commands(replica(), release="0.32.0")) == 2
    # One data-parallel rank: no dispatch between ranks to fail (by the source; not run), not refused.
    assert len(commands(cpu_replica(expert_parallel=True, dp=1, tp=2), release="0.32.0")) == 2


def test_a_cpu_data_parallel_shard_says_its_ranks_serve_a_dense_model_only() -> None:
    def cpu_notes(doc: dict[str, Any], release: str) -> list[str]:
        engine = engine_for(VllmEngine(VllmConfig(version=release)), "vllm")
        return [n for s in expand(load_replica(doc)) for n in engine.plan(s).notes if "CPU build" in n]

    for note in cpu_notes(cpu_replica(), "0.15.0"):
        assert "its data-parallel ranks serve a dense model only" in note
    assert len(cpu_notes(cpu_replica(), "0.32.0")) == 2
    assert not any("dense" in n for n in cpu_notes(cpu_replica(), "0.14.0"))
    one = cpu_replica(dp=1, tp=2, gpus_per_node=1)
    assert not any("dense" in n for n in cpu_notes(one, "0.32.0"))
