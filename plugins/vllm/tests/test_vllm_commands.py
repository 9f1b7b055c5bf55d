"""Exact command lines and environments the vLLM plugin builds for realistic shards."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from enginekit import Command, GPUInfo
from enginekit.base.errors import EngineError, SpecError
from enginekit.plugin import parse_version
from enginekit.testing import check_engine, engine_for
from enginekit_vllm import VllmConfig, VllmEngine
from enginekit_vllm.launch import build
from vllm_specs import FABRIC_ENV, H100, KEY, adapters, profile, single, two_node

RAY = VllmEngine(VllmConfig(multinode="ray", version="0.34.0"))
SINGLE_ENV = {
    "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
    "CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7",
    "NCCL_IB_DISABLE": "1",
    "VLLM_API_KEY": KEY,
}
SERVE_405B = ["vllm", "serve", "/models/meta-llama/Llama-3.1-405B-Instruct-FP8"]
HTTP_405B = ["--host", "10.0.0.11", "--port", "8000", "--served-model-name", "llama-3.1-405b"]
PARALLEL_405B = ["--tensor-parallel-size", "8", "--pipeline-parallel-size", "2"]


def test_single_node_tp8() -> None:
    (command,) = check_engine(VllmEngine(), single(), H100)
    assert command.argv() == [
        "vllm", "serve", "/models/meta-llama/Llama-3.1-70B-Instruct",
        "--host", "10.0.0.11", "--port", "8000", "--served-model-name", "llama-3.1-70b",
        "--tensor-parallel-size", "8", "--pipeline-parallel-size", "1",
        "--max-model-len", "32768", "--gpu-memory-utilization", "0.92",
    ]  # fmt: skip
    assert dict(command.env) == SINGLE_ENV
    assert command.secret_env == frozenset({"VLLM_API_KEY"})
    assert command.name == "vllm"
    assert not command.wait_for_leader_port
    assert set(command.why) == set(command.env)


def test_no_bind_address_listens_everywhere_and_no_key_means_no_key_variable() -> None:
    (command,) = check_engine(VllmEngine(), single(bind_addr="", api_key=""))
    assert command.args[2:4] == ("--host", "0.0.0.0")
    assert "VLLM_API_KEY" not in command.env
    assert command.secret_env == frozenset()


def test_served_name_defaults_to_the_model_path() -> None:
    (command,) = check_engine(VllmEngine(), single(profile=profile(served_model_name="")))
    at = command.args.index("--served-model-name")
    assert command.args[at + 1] == "/models/meta-llama/Llama-3.1-70B-Instruct"


def test_installed_build_and_configured_executables() -> None:
    engine = engine_for(VllmEngine(), "vllm", installed=Path("/opt/enginekit/vllm-0.34.0"))
    (command,) = engine.commands(single())
    assert command.path == "/opt/enginekit/vllm-0.34.0/bin/vllm"
    ray = engine_for(RAY, "vllm", installed=Path("/opt/enginekit/vllm-0.34.0"))
    assert ray.commands(two_node(1))[0].path == "/opt/enginekit/vllm-0.34.0/bin/ray"
    custom = VllmEngine(VllmConfig(executable="/usr/local/bin/vllm", ray_executable="/usr/local/bin/ray"))
    assert engine_for(custom, "vllm").commands(single())[0].path == "/usr/local/bin/vllm"
    custom_ray = VllmEngine(attrs.evolve(custom.config, multinode="ray"))
    assert engine_for(custom_ray, "vllm").commands(two_node(1))[0].path == "/usr/local/bin/ray"


def test_two_node_native_leader() -> None:
    (command,) = check_engine(VllmEngine(), two_node(0), H100)
    assert command.argv() == [
        *SERVE_405B, *HTTP_405B, *PARALLEL_405B,
        "--distributed-executor-backend", "mp", "--nnodes", "2", "--node-rank", "0",
        "--master-addr", "10.0.0.11", "--master-port", "6379",
        "--max-model-len", "16384",
    ]  # fmt: skip
    assert dict(command.env) == {**FABRIC_ENV, "VLLM_HOST_IP": "10.0.0.11", "VLLM_API_KEY": KEY}
    assert command.secret_env == frozenset({"VLLM_API_KEY"})
    assert not command.wait_for_leader_port


def test_two_node_native_worker_is_headless_and_waits_for_the_leader() -> None:
    (command,) = check_engine(VllmEngine(), two_node(1), H100)
    assert command.argv() == [
        *SERVE_405B, *PARALLEL_405B,
        "--distributed-executor-backend", "mp", "--nnodes", "2", "--node-rank", "1",
        "--master-addr", "10.0.0.11", "--master-port", "6379", "--headless",
        "--max-model-len", "16384",
    ]  # fmt: skip
    assert dict(command.env) == {**FABRIC_ENV, "VLLM_HOST_IP": "10.0.0.12"}
    assert command.wait_for_leader_port
    assert command.name == "vllm-headless"
    assert command.secret_env == frozenset()
    assert engine_for(VllmEngine(), "vllm").serves_http(two_node(1)) is False


def test_two_node_ray_leader_runs_the_head_then_the_server() -> None:
    head, server = check_engine(RAY, two_node(0), H100)
    assert head.argv() == [
        "ray", "start", "--head", "--port=6379", "--node-ip-address=10.0.0.11", "--num-gpus=8", "--block",
    ]  # fmt: skip
    assert dict(head.env) == {**FABRIC_ENV, "VLLM_HOST_IP": "10.0.0.11"}
    assert head.name == "ray-head"
    assert not head.wait_for_leader_port
    assert server.argv() == [
        *SERVE_405B, *HTTP_405B, *PARALLEL_405B, "--distributed-executor-backend", "ray",
        "--max-model-len", "16384",
    ]  # fmt: skip
    assert dict(server.env) == {
        **FABRIC_ENV,
        "VLLM_HOST_IP": "10.0.0.11",
        "RAY_ADDRESS": "10.0.0.11:6379",
        "VLLM_API_KEY": KEY,
    }
    assert server.secret_env == frozenset({"VLLM_API_KEY"})
    assert server.wait_for_leader_port, "the server waits for the head its sidecar starts"
    assert engine_for(RAY, "vllm").serves_http(two_node(0)) is True


def test_the_ray_address_is_declared_unsafe_and_the_plan_says_so() -> None:
    # RAY_ is the core's floor: the plugin sets RAY_ADDRESS only as its policy declares it.
    notes = engine_for(RAY, "vllm").plan(two_node(0)).notes
    assert any(note.startswith("env RAY_ADDRESS is set by the vllm engine itself") for note in notes)
    assert not any("RAY_ADDRESS" in note for note in engine_for(VllmEngine(), "vllm").plan(two_node(0)).notes)


def test_two_node_ray_worker_only_joins_once_the_head_listens() -> None:
    (join,) = check_engine(RAY, two_node(1), H100)
    assert join.argv() == [
        "ray", "start", "--address=10.0.0.11:6379", "--node-ip-address=10.0.0.12", "--num-gpus=8", "--block",
    ]  # fmt: skip
    assert dict(join.env) == {**FABRIC_ENV, "VLLM_HOST_IP": "10.0.0.12"}
    assert join.wait_for_leader_port
    assert join.name == "ray-worker"
    assert engine_for(RAY, "vllm").serves_http(two_node(1)) is False


def test_ray_with_an_ipv6_leader_brackets_the_address() -> None:
    (join,) = engine_for(RAY, "vllm").commands(two_node(1, leader_addr="fd00::11", bind_addr="fd00::12"))
    assert "--address=[fd00::11]:6379" in join.args
    assert "--node-ip-address=fd00::12" in join.args


def test_ray_needs_each_nodes_ip_address() -> None:
    with pytest.raises(EngineError, match=r"bind_addr: Ray needs this node's IP address"):
        engine_for(RAY, "vllm").commands(two_node(1, bind_addr="node12.cluster.local"))
    with pytest.raises(EngineError, match=r"leader_addr or bind_addr: Ray needs"):
        engine_for(RAY, "vllm").commands(two_node(0, leader_addr="head.cluster.local", bind_addr=""))
    # A host name for the leader is fine where the node's own IP is known.
    head, _ = engine_for(RAY, "vllm").commands(two_node(0, leader_addr="head.cluster.local"))
    assert "--node-ip-address=10.0.0.11" in head.args


def test_native_with_a_host_name_sets_no_host_ip_and_says_so() -> None:
    engine = engine_for(VllmEngine(), "vllm")
    shard = two_node(1, bind_addr="", leader_addr="head.cluster.local")
    (command,) = engine.commands(shard)
    assert "VLLM_HOST_IP" not in command.env
    assert "--master-addr" in command.args
    assert command.args[command.args.index("--master-addr") + 1] == "head.cluster.local"
    assert any("VLLM_HOST_IP is not set (bind_addr is not an IP address)" in n for n in engine.notes(shard))


def test_native_multi_node_is_refused_before_0_11_1() -> None:
    old = engine_for(VllmEngine(VllmConfig(version="0.11.0")), "vllm")
    with pytest.raises(SpecError, match=r'multinode = "native" needs vLLM 0\.11\.1 or newer \(--nnodes'):
        old.plan(two_node(1))
    # The hook refuses the shard too, whoever calls it.
    with pytest.raises(
        EngineError, match=r'multinode = "native" needs vLLM 0\.11\.1 or newer, the node runs'
    ):
        build(VllmConfig(version="0.11.0"), two_node(1), None)
    ray_old = engine_for(VllmEngine(VllmConfig(version="0.11.0", multinode="ray")), "vllm")
    assert [c.name for c in ray_old.commands(two_node(0))] == ["ray-head", "vllm"]


def test_adapters_and_kv_events() -> None:
    shard = single(profile=profile(adapters=adapters(), kv_events=True), kv_events_port=41007)
    (command,) = check_engine(VllmEngine(), shard, H100)
    legal = json.dumps({"name": "legal", "path": "/var/lib/enginekit/adapters/legal,eu"})
    assert command.argv() == [
        "vllm", "serve", "/models/meta-llama/Llama-3.1-70B-Instruct",
        "--host", "10.0.0.11", "--port", "8000", "--served-model-name", "llama-3.1-70b",
        "--tensor-parallel-size", "8", "--pipeline-parallel-size", "1",
        "--enable-lora", "--lora-modules",
        "sql-expert=/var/lib/enginekit/adapters/sql-expert",
        "support.v2=/var/lib/enginekit/adapters/support=v2",
        legal,
        "--max-loras", "3",
        "--kv-events-config",
        '{"enable_kv_cache_events":true,"publisher":"zmq","endpoint":"tcp://*:41007",'
        '"replay_endpoint":"tcp://10.0.0.11:41008"}',
        "--max-model-len", "32768", "--gpu-memory-utilization", "0.92",
    ]  # fmt: skip
    assert dict(command.env) == SINGLE_ENV


def test_kv_events_need_a_port_and_adapters_reach_headless_ranks_without_modules() -> None:
    engine = engine_for(VllmEngine(), "vllm")
    shard = single(profile=profile(kv_events=True))
    assert "--kv-events-config" not in engine.commands(shard)[0].args
    assert any("no kv_events_port" in note for note in engine.notes(shard))
    big = two_node(1).profile
    (worker,) = engine.commands(two_node(1, profile=attrs.evolve(big, adapters=adapters()[:2])))
    assert worker.args[-5:] == ("--enable-lora", "--max-loras", "2", "--max-model-len", "16384")
    assert "--lora-modules" not in worker.args


def test_cpu_shard_with_reserved_threads() -> None:
    cpu = profile(name="qwen-cpu", tp=1, model_path="/models/Qwen/Qwen3-0.6B", served_model_name="", args=())
    shard = single(gpu_indices=(), threads=16, kv_cache_mib=8192, api_key="", profile=cpu)
    (command,) = check_engine(VllmEngine(), shard)
    assert command.argv() == [
        "vllm", "serve", "/models/Qwen/Qwen3-0.6B", "--host", "10.0.0.11", "--port", "8000",
        "--served-model-name", "/models/Qwen/Qwen3-0.6B",
        "--tensor-parallel-size", "1", "--pipeline-parallel-size", "1",
    ]  # fmt: skip
    assert dict(command.env) == {
        "CUDA_VISIBLE_DEVICES": "",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "NCCL_IB_DISABLE": "1",
        "VLLM_TARGET_DEVICE": "cpu",
        "VLLM_CPU_KVCACHE_SPACE": "8",
        "VLLM_CPU_OMP_THREADS_BIND": "nobind",
        "OMP_NUM_THREADS": "16",
    }
    notes = engine_for(VllmEngine(), "vllm").notes(shard)
    assert any("vLLM CPU build" in n and "16 threads" in n for n in notes)


def test_cpu_shard_without_threads_leaves_binding_to_vllm() -> None:
    cpu = profile(tp=2, gpus_per_node=2, args=())
    (command,) = check_engine(VllmEngine(), single(gpu_indices=(), threads=0, kv_cache_mib=2048, profile=cpu))
    assert command.env["VLLM_TARGET_DEVICE"] == "cpu"
    assert "VLLM_CPU_OMP_THREADS_BIND" not in command.env
    shared = engine_for(VllmEngine(), "vllm").commands(
        single(gpu_indices=(), threads=12, kv_cache_mib=2048, profile=cpu)
    )
    assert shared[0].env["OMP_NUM_THREADS"] == "6"


def test_a_cpu_shard_tells_vllm_its_kv_cache_in_whole_gib_rounded_down() -> None:
    cpu = profile(tp=1, args=())
    engine = engine_for(VllmEngine(), "vllm")
    (command,) = engine.commands(single(gpu_indices=(), kv_cache_mib=5000, profile=cpu))
    assert command.env["VLLM_CPU_KVCACHE_SPACE"] == "4"
    assert "5000 MiB rounded down" in command.why["VLLM_CPU_KVCACHE_SPACE"]
    with pytest.raises(EngineError, match=r"kv_cache_mib: 512 MiB is less than the 1 GiB"):
        engine.commands(single(gpu_indices=(), kv_cache_mib=512, profile=cpu))


def test_a_cpu_shard_without_kv_cache_memory_is_refused_unless_the_profile_sizes_it() -> None:
    engine = engine_for(VllmEngine(), "vllm")
    with pytest.raises(EngineError, match=r"kv_cache_mib: a CPU shard of vLLM needs the memory placement"):
        engine.commands(single(gpu_indices=(), profile=profile(tp=1, args=())))
    for args in (("--kv-cache-memory-bytes", "4G"), ("--gpu-memory-utilization=0.3",)):
        (command,) = engine.commands(single(gpu_indices=(), profile=profile(tp=1, args=args)))
        assert "VLLM_CPU_KVCACHE_SPACE" not in command.env


def test_cpu_shards_span_nodes_over_gloo_like_gpu_ones() -> None:
    engine = engine_for(VllmEngine(), "vllm")
    cpu = {"gpu_indices": (), "hcas": (), "gid_index": None, "kv_cache_mib": 2048}
    (leader,) = engine.commands(two_node(0, **cpu))
    (worker,) = engine.commands(two_node(1, **cpu))
    assert "--nnodes" in leader.args
    assert "--headless" in worker.args
    assert worker.wait_for_leader_port
    assert leader.env["VLLM_TARGET_DEVICE"] == worker.env["VLLM_TARGET_DEVICE"] == "cpu"
    assert worker.env["VLLM_CPU_KVCACHE_SPACE"] == "2"
    assert engine.plan(two_node(1, **cpu)).on_leader_exit == "must_be_stopped"


MIG_UUID = "MIG-4c60d78c-506f-5593-938d-a136eaa1fa52"


def test_mig_shard_is_refused_with_the_reason_for_the_release() -> None:
    mig = profile(name="small-mig", tp=1, args=())
    shard = single(gpu_indices=(1003,), gpu_uuids=(MIG_UUID,), profile=mig)
    engine = engine_for(VllmEngine(), "vllm")
    with pytest.raises(EngineError) as new:
        engine.commands(shard)
    assert str(new.value) == (
        f"shard r-7f3a-0: gpu_uuids: {MIG_UUID} is a MIG instance, and vLLM 0.34.0 resolves a "
        "UUID in CUDA_VISIBLE_DEVICES with NVML and keeps nvmlDeviceGetIndex() of the handle, "
        "which for a MIG instance is its index among its parent GPU's instances; it then reads "
        "compute capability, name and memory of whichever whole GPU has that index, or fails "
        "when none has, so a MIG shard would start only by accident; use whole GPUs"
    )
    old = engine_for(VllmEngine(VllmConfig(version="0.20.1")), "vllm")
    with pytest.raises(
        EngineError, match=r"vLLM 0\.20\.1 reads every CUDA_VISIBLE_DEVICES entry with int\(\)"
    ):
        old.commands(shard)


@pytest.mark.parametrize(
    "uuid", [MIG_UUID.lower(), "Mig-" + MIG_UUID[4:], "mig-gpu-8932f937-d72c-4106-c12f-20bd9faed9f0/1/0"]
)
def test_a_mig_uuid_is_refused_however_it_is_written(uuid: str) -> None:
    # The spec check reads "mig-" as a MIG instance too: a lower-case UUID once slipped past
    # the plugin's upper-case test and got a command vLLM cannot run.
    mig = profile(name="small-mig", tp=1, args=())
    shard = single(gpu_indices=(1003,), gpu_uuids=(uuid,), profile=mig)
    engine = engine_for(VllmEngine(), "vllm")
    assert engine.problems(shard) == [], "the spec itself is valid: only vLLM cannot run it"
    with pytest.raises(EngineError, match=r"is a MIG instance, and vLLM 0\.34\.0 resolves a UUID"):
        engine.plan(shard)
    with pytest.raises(EngineError, match="is a MIG instance"):
        build(VllmConfig(), shard, None)


def test_whole_gpu_uuids_need_0_24() -> None:
    uuids = tuple(f"GPU-8932f937-d72c-4106-c12f-20bd9faed9f{i}" for i in range(8))
    (command,) = engine_for(VllmEngine(), "vllm").commands(single(gpu_uuids=uuids))
    assert command.env["CUDA_VISIBLE_DEVICES"] == ",".join(uuids)
    old = engine_for(VllmEngine(VllmConfig(version="0.23.0")), "vllm")
    with pytest.raises(EngineError, match=r"fixed in 0\.24\.0\); name the GPUs by gpu_indices alone"):
        old.commands(single(gpu_uuids=uuids))


def test_health_metrics_and_help() -> None:
    engine = engine_for(VllmEngine(), "vllm")
    assert (engine.health_path(), engine.metrics_path()) == ("/health", "/metrics")
    (server,) = engine.commands(single())
    help_ = engine.help_command(server)
    assert help_.argv() == ["vllm", "serve", "--help=all"]
    assert "VLLM_API_KEY" not in help_.env
    assert help_.env["CUDA_VISIBLE_DEVICES"] == "0,1,2,3,4,5,6,7"
    head, _ = engine_for(RAY, "vllm").commands(two_node(0))
    assert engine_for(RAY, "vllm").help_command(head).argv() == ["ray", "start", "--help"]
    old = engine_for(VllmEngine(VllmConfig(version="0.10.2")), "vllm")
    assert old.help_command(Command(path="vllm", name="vllm")).argv() == ["vllm", "serve", "--help"]


def test_notes_say_what_the_key_leaves_open_and_what_else_listens() -> None:
    unset, key_note = engine_for(VllmEngine(), "vllm").notes(single())
    assert unset.startswith(
        "no vllm release is configured ([engines.vllm] version): pass-through options are checked against vllm serve 0.34.0"
    )
    engine = engine_for(VllmEngine(VllmConfig(version="0.34.0")), "vllm")
    assert engine.notes(single())[0] == key_note
    assert key_note.startswith(
        "VLLM_API_KEY guards only paths under /v1, /v2, /inference, /cohere (vLLM 0.34.0, as from 0.27.0)"
    )
    assert "/metrics" in key_note
    assert "/invocations, which runs inference" in key_note
    old = engine_for(VllmEngine(VllmConfig(version="0.20.0")), "vllm")
    assert old.notes(single())[0].startswith(
        "VLLM_API_KEY guards only paths under /v1 (vLLM 0.20.0, as from 0.11.0)"
    )
    assert engine.notes(single(api_key="")) == [
        "no API key: every endpoint at 10.0.0.11:8000 answers whoever reaches it"
    ]
    assert engine.notes(two_node(1)) == [
        "traffic between the nodes (torch.distributed, vLLM's queues) is unauthenticated: keep "
        "them on an isolated network"
    ]
    ray_notes = engine_for(RAY, "vllm").notes(two_node(1))
    assert "Ray head at 10.0.0.11:6379 takes jobs from whoever reaches it" in ray_notes[0]


@pytest.mark.parametrize(
    ("release", "guarded"),
    [
        # GUARDED_PREFIX in each wheel: entrypoints/serve/middleware/authenticate.py (0.29.0
        # on), entrypoints/serve/utils/server_utils.py (0.22.0-0.28.0); before 0.22.0
        # entrypoints/openai/api_server.py tests startswith("/v1").
        ("0.21.0", "/v1"),
        ("0.22.0", "/v1, /v2, /inference"),
        ("0.26.0", "/v1, /v2, /inference"),
        ("0.27.0", "/v1, /v2, /inference, /cohere"),
        ("0.32.0", "/v1, /v2, /inference, /cohere"),
    ],
)
def test_the_key_note_lists_the_paths_each_release_guards(release: str, guarded: str) -> None:
    engine = engine_for(VllmEngine(VllmConfig(version=release)), "vllm")
    assert engine.notes(single())[0].startswith(
        f"VLLM_API_KEY guards only paths under {guarded} (vLLM {release}"
    )


def test_adapter_and_kv_event_notes_say_how_vllm_names_and_publishes() -> None:
    # 0.11.0-0.34.0: requests name the adapter in "model"; OpenAIServingModels numbers the
    # --lora-modules from AtomicCounter(0).inc(1), so the first is 1; BlockPool publishes
    # BlockStored from cache_full_blocks only (0.34.0 v1/core/block_pool.py).
    lora = single(
        profile=attrs.evolve(single().profile, adapters=adapters()[:2], kv_events=True), kv_events_port=41007
    )
    notes = engine_for(VllmEngine(), "vllm").notes(lora)
    names = [a.name for a in adapters()[:2]]
    assert (
        f'a request picks an adapter by name in its "model" field (/v1/models lists them); vLLM numbers '
        f"them from 1 as listed, and its KV-cache events report that number as lora_id "
        f"({names[0]} = 1, {names[1]} = 2)"
    ) in notes
    assert any(
        n.startswith("KV-cache events are published per full block only") and "128 on vLLM's CPU" in n
        for n in notes
    )


def test_the_plan_renders_masked() -> None:
    plan = engine_for(VllmEngine(), "vllm").plan(single(), H100)
    text = plan.render_text(explain=True)
    assert KEY not in text
    assert "VLLM_API_KEY=<secret>" in text
    assert plan.serves_http
    assert plan.health_path == "/health"


def test_mixed_gpus_are_refused_by_the_common_checks() -> None:
    mixed = (*H100[:7], GPUInfo(index=7, name="NVIDIA L40S", compute_capability="8.9"))
    problems = engine_for(VllmEngine(), "vllm").validate(profile(), mixed)
    assert any("GPUs are not uniform" in p for p in problems)


def test_a_release_that_runs_on_mig_would_get_the_instance(monkeypatch: pytest.MonkeyPatch) -> None:
    # The table decides: once a vLLM release is read to work on MIG, its shards render.
    monkeypatch.setattr("enginekit_vllm.versions.MIG_WORKS_SINCE", parse_version("0.40.0"))
    mig = profile(name="small-mig", tp=1, args=())
    shard = single(gpu_indices=(1003,), gpu_uuids=(MIG_UUID,), profile=mig)
    (command,) = check_engine(VllmEngine(VllmConfig(version="0.40.0")), shard)
    assert command.env["CUDA_VISIBLE_DEVICES"] == MIG_UUID
    with pytest.raises(EngineError, match="is a MIG instance"):
        engine_for(VllmEngine(VllmConfig(version="0.39.0")), "vllm").commands(shard)


def test_the_profile_cannot_override_what_the_plugin_generates() -> None:
    engine = engine_for(RAY, "vllm")
    env = {"VLLM_HOST_IP": "192.0.2.1", "RAY_ADDRESS": "192.0.2.1:6379", "VLLM_API_KEY": "other"}
    shard = two_node(0, profile=attrs.evolve(two_node(0).profile, env=env))
    assert len(engine.validate(shard.profile)) == 3
    with pytest.raises(SpecError):
        engine.plan(shard)
    # What the plugin itself builds takes each of them from the shard.
    _, server = build(RAY.config, shard, None)
    assert server.env["VLLM_HOST_IP"] == "10.0.0.11"
    assert server.env["RAY_ADDRESS"] == "10.0.0.11:6379"
    assert server.env["VLLM_API_KEY"] == KEY
