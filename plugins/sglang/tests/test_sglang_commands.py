"""Exact argv and environment of the SGLang plugin for realistic shards."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from enginekit import Adapter, Command, EngineError, Profile, ShardSpec, SpecError
from enginekit.plugin import launcher_args
from enginekit.testing import check_engine, engine_for
from enginekit_sglang import SglangConfig, SglangEngine

MODULE = "sglang.launch_server"
KEY = "sk-7f3c9a1e5b2d4c6a8e0f1a2b3c4d5e6f"


def launched(command: Command) -> list[str]:
    """The arguments SGLang itself parses: everything after ``-I -m MODULE`` or the launcher's ``-I -c CODE``."""
    assert command.args[0] == "-I", "the server runs isolated"
    if command.args[1] == "-m":
        assert command.args[2] == MODULE
    else:
        assert "runpy.run_module('sglang.launch_server'" in command.args[2]
    return list(command.args[3:])


def tp4() -> ShardSpec:
    profile = Profile(
        name="llama-70b-h100",
        engine="sglang",
        tp=4,
        model_path="/models/meta-llama/Llama-3.1-70B-Instruct",
        served_model_name="llama-3.1-70b",
        args=("--mem-fraction-static", "0.85", "--context-length", "32768"),
    )
    return ShardSpec(
        replica_id="r-1",
        shard_id="r-1-0",
        profile=profile,
        gpu_indices=(4, 5, 6, 7),
        http_port=30000,
        bind_addr="10.1.0.17",
    )


def test_single_node_tp4_exact_argv_and_env() -> None:
    (command,) = check_engine(SglangEngine(), tp4())
    server = [
        "--model-path",
        "/models/meta-llama/Llama-3.1-70B-Instruct",
        "--host",
        "10.1.0.17",
        "--port",
        "30000",
        "--served-model-name",
        "llama-3.1-70b",
        "--enable-metrics",
        "--tp-size",
        "4",
        "--pp-size",
        "1",
        "--mem-fraction-static",
        "0.85",
        "--context-length",
        "32768",
    ]
    assert command.path == "python3"
    assert command.args == launcher_args(MODULE, server)
    assert launched(command) == server
    assert dict(command.env) == {
        "CUDA_VISIBLE_DEVICES": "4,5,6,7",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "NCCL_IB_DISABLE": "1",
    }
    assert command.secret_env == frozenset()
    assert command.wait_for_leader_port is False
    assert command.name == "sglang"
    assert set(command.why) == set(command.env)


def two_node(rank: int) -> ShardSpec:
    profile = Profile(
        name="deepseek-v3-2x8",
        engine="sglang",
        tp=8,
        pp=2,
        nodes=2,
        gpus_per_node=8,
        model_path="/models/deepseek-ai/DeepSeek-V3",
        served_model_name="deepseek-v3",
    )
    return ShardSpec(
        replica_id="r-9",
        shard_id=f"r-9-{rank}",
        rank=rank,
        nnodes=2,
        leader_addr="10.1.0.17",
        leader_port=20000,
        profile=profile,
        gpu_indices=tuple(range(8)),
        hcas=("mlx5_0", "mlx5_1"),
        mgmt_interface="eth0",
        gid_index=3,
        fabric="roce:pod-a",
        http_port=30000,
        bind_addr=f"10.1.0.{17 + rank}",
    )


TWO_NODE_ENV = {
    "CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7",
    "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
    "NCCL_IB_HCA": "mlx5_0,mlx5_1",
    "NCCL_IB_DISABLE": "0",
    "NCCL_IB_GID_INDEX": "3",
    "NCCL_SOCKET_IFNAME": "eth0",
    "GLOO_SOCKET_IFNAME": "eth0",
}


@pytest.mark.parametrize("rank", [0, 1])
def test_two_node_leader_and_worker(rank: int) -> None:
    spec = two_node(rank)
    (command,) = check_engine(SglangEngine(), spec)
    assert launched(command) == [
        "--model-path",
        "/models/deepseek-ai/DeepSeek-V3",
        "--host",
        f"10.1.0.{17 + rank}",
        "--port",
        "30000",
        "--served-model-name",
        "deepseek-v3",
        "--nnodes",
        "2",
        "--node-rank",
        str(rank),
        "--dist-init-addr",
        "10.1.0.17:20000",
        "--enable-metrics",
        "--tp-size",
        "8",
        "--pp-size",
        "2",
    ]
    assert dict(command.env) == TWO_NODE_ENV
    # Only the leader serves the API; a worker starts once the leader listens.
    assert command.wait_for_leader_port is (rank == 1)
    assert command.name == ("sglang" if rank == 0 else "sglang-rank1")
    engine = engine_for(SglangEngine(), "sglang")
    assert engine.serves_http(spec) is (rank == 0)


def test_worker_notes_say_its_health_proves_nothing() -> None:
    engine = engine_for(SglangEngine(), "sglang")
    notes = engine.notes(two_node(1))
    assert any("200 unconditionally" in n and "proves nothing" in n for n in notes)
    assert not any("API key" in n for n in notes), "a worker serves no API to protect"
    assert any("rank 0 serves the API for all 2 nodes" in n for n in engine.notes(two_node(0)))


def test_ipv6_leader_is_bracketed() -> None:
    spec = attrs.evolve(two_node(1), leader_addr="fd00::17", bind_addr="fd00::18")
    (command,) = check_engine(SglangEngine(), spec)
    args = launched(command)
    assert args[args.index("--dist-init-addr") + 1] == "[fd00::17]:20000"
    assert args[args.index("--host") + 1] == "fd00::18"
    leader = attrs.evolve(spec, rank=0, bind_addr="fd00::17")
    notes = engine_for(SglangEngine(), "sglang").notes(leader)
    assert any("the workers connect to [fd00::17]:20000," in n for n in notes)
    assert any("anyone who can reach [fd00::17]:30000 uses the model" in n for n in notes)


def cpu_shard(threads: int = 16) -> ShardSpec:
    profile = Profile(
        name="qwen-7b-cpu", engine="sglang", tp=2, model_path="/models/Qwen/Qwen2.5-7B-Instruct"
    )
    return ShardSpec(shard_id="c-0", profile=profile, http_port=30010, threads=threads)


def test_cpu_shard_exact_argv_and_env() -> None:
    (command,) = check_engine(SglangEngine(), cpu_shard())
    assert launched(command) == [
        "--model-path",
        "/models/Qwen/Qwen2.5-7B-Instruct",
        "--host",
        "0.0.0.0",
        "--port",
        "30010",
        "--served-model-name",
        "/models/Qwen/Qwen2.5-7B-Instruct",
        "--device",
        "cpu",
        "--enable-metrics",
        "--tp-size",
        "2",
        "--pp-size",
        "1",
    ]
    assert dict(command.env) == {
        "CUDA_VISIBLE_DEVICES": "",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "NCCL_IB_DISABLE": "1",
        "SGLANG_CPU_OMP_THREADS_BIND": "0-7|8-15",
    }
    assert "cores 0-15" in command.why["SGLANG_CPU_OMP_THREADS_BIND"]


@pytest.mark.parametrize(
    ("threads", "ranks", "binding"),
    [(1, 1, "0"), (8, 1, "0-7"), (7, 2, "0-3|4-6"), (3, 3, "0|1|2"), (10, 4, "0-2|3-5|6-7|8-9")],
)
def test_cpu_binding_splits_the_reserved_cores(threads: int, ranks: int, binding: str) -> None:
    from enginekit_sglang.build import cpu_binding

    assert cpu_binding(threads, ranks) == binding


def test_cpu_shard_without_threads_leaves_binding_to_sglang() -> None:
    (command,) = check_engine(SglangEngine(), cpu_shard(threads=0))
    assert "SGLANG_CPU_OMP_THREADS_BIND" not in command.env


def test_cpu_shard_with_fewer_cores_than_ranks_is_refused() -> None:
    with pytest.raises(EngineError, match=r"threads: 1 reserved core\(s\) cannot give each of the 2"):
        engine_for(SglangEngine(), "sglang").commands(cpu_shard(threads=1))


def adapters_and_events(port: int = 5557) -> ShardSpec:
    profile = Profile(
        name="llama-8b-lora",
        engine="sglang",
        tp=1,
        model_path="/models/meta-llama/Llama-3.1-8B-Instruct",
        served_model_name="llama-8b",
        adapters=(
            Adapter(name="sql-expert", path="/var/lib/enginekit/adapters/sql-expert"),
            Adapter(name="support.v2", path="/var/lib/enginekit/adapters/support-v2"),
        ),
        kv_events=True,
        args=("--max-loras-per-batch", "4"),
    )
    return ShardSpec(shard_id="a-0", profile=profile, gpu_indices=(2,), http_port=30002, kv_events_port=port)


def test_adapters_in_order_and_kv_events_to_the_agents_port() -> None:
    (command,) = check_engine(SglangEngine(), adapters_and_events())
    assert launched(command) == [
        "--model-path",
        "/models/meta-llama/Llama-3.1-8B-Instruct",
        "--host",
        "0.0.0.0",
        "--port",
        "30002",
        "--served-model-name",
        "llama-8b",
        "--enable-lora",
        "--lora-paths",
        "sql-expert=/var/lib/enginekit/adapters/sql-expert",
        "support.v2=/var/lib/enginekit/adapters/support-v2",
        "--kv-events-config",
        '{"publisher":"zmq","endpoint":"tcp://*:5557","bind":true}',
        "--enable-metrics",
        "--tp-size",
        "1",
        "--pp-size",
        "1",
        "--max-loras-per-batch",
        "4",
    ]
    assert dict(command.env) == {
        "CUDA_VISIBLE_DEVICES": "2",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "NCCL_IB_DISABLE": "1",
    }


def test_kv_events_without_a_port_on_the_leader_is_refused() -> None:
    with pytest.raises(EngineError, match="kv_events_port: profile 'llama-8b-lora' asks for KV-cache events"):
        engine_for(SglangEngine(), "sglang").commands(adapters_and_events(port=0))


def test_kv_events_on_a_worker_without_a_port_are_left_out() -> None:
    spec = two_node(1)
    spec = attrs.evolve(spec, profile=attrs.evolve(spec.profile, kv_events=True))
    (command,) = check_engine(SglangEngine(), spec)
    assert "--kv-events-config" not in launched(command)


def test_key_set_goes_through_the_environment_only() -> None:
    spec = attrs.evolve(tp4(), api_key=KEY)
    (command,) = check_engine(SglangEngine(), spec)
    server = launched(command)
    assert command.args == launcher_args(MODULE, server, secret_args={"--api-key": "ENGINEKIT_API_KEY"})
    assert "--api-key" not in server
    assert all(KEY not in arg for arg in command.argv())
    assert dict(command.env) == {
        "CUDA_VISIBLE_DEVICES": "4,5,6,7",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "NCCL_IB_DISABLE": "1",
        "ENGINEKIT_API_KEY": KEY,
    }
    assert command.secret_env == frozenset({"ENGINEKIT_API_KEY"})
    # The launcher appends the flag inside the process, from the variable.
    assert "a += ['--api-key', take('ENGINEKIT_API_KEY')]" in command.args[2]


def test_rendered_plan_masks_the_key_and_notes_what_sglang_still_shows() -> None:
    spec = attrs.evolve(tp4(), api_key=KEY)
    plan = engine_for(SglangEngine(), "sglang").plan(spec)
    assert KEY not in plan.render_text(explain=True)
    assert KEY not in repr(plan.to_dict())
    notes = " ".join(plan.notes)
    assert "/server_info" in notes
    assert "logs server_args" in notes
    assert "/health, /ready or /metrics" in notes


def test_no_key_note() -> None:
    notes = engine_for(SglangEngine(), "sglang").notes(tp4())
    assert notes[0].startswith("no API key: anyone who can reach 10.1.0.17:30000")


def test_installed_build_uses_its_own_interpreter(tmp_path: Path) -> None:
    engine = engine_for(SglangEngine(), "sglang", installed=tmp_path / "sglang-0.5.23")
    (command,) = engine.commands(tp4())
    assert command.path == str(tmp_path / "sglang-0.5.23" / "bin" / "python")


def test_configured_interpreter() -> None:
    engine = SglangEngine(SglangConfig(python="/opt/sglang/bin/python3.12"))
    (command,) = check_engine(engine, tp4())
    assert command.path == "/opt/sglang/bin/python3.12"


def test_help_command_asks_sglang_not_python() -> None:
    engine = engine_for(SglangEngine(), "sglang")
    spec = attrs.evolve(tp4(), api_key=KEY)
    (command,) = engine.commands(spec)
    helper = engine.help_command(command)
    assert helper.argv() == ["python3", "-I", "-m", "sglang.launch_server", "--help"]
    assert "ENGINEKIT_API_KEY" not in helper.env
    assert helper.env["CUDA_VISIBLE_DEVICES"] == "4,5,6,7"


def test_health_and_metrics_paths() -> None:
    engine = engine_for(SglangEngine(), "sglang")
    assert engine.health_path() == "/health"
    assert engine.metrics_path() == "/metrics"


def test_profile_env_applies_over_generated_env() -> None:
    spec = tp4()
    profile = attrs.evolve(spec.profile, env={"SGLANG_HEALTH_CHECK_TIMEOUT": "60"})
    (command,) = check_engine(SglangEngine(), attrs.evolve(spec, profile=profile))
    assert command.env["SGLANG_HEALTH_CHECK_TIMEOUT"] == "60"


def test_commands_are_deterministic() -> None:
    engine = engine_for(SglangEngine(), "sglang")
    assert engine.commands(two_node(0)) == engine.commands(two_node(0))


def test_spec_errors_come_before_the_hook() -> None:
    spec = attrs.evolve(two_node(1), leader_addr="")
    with pytest.raises(SpecError, match="leader_addr: required"):
        engine_for(SglangEngine(), "sglang").commands(spec)
