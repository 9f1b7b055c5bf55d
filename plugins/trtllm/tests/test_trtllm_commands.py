"""Exact argv and environment of the TensorRT-LLM plugin's commands, and its other hooks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from enginekit.base.errors import EngineError, EngineUnavailable, SpecError
from enginekit.placement.launcher import FileArg, launcher_args
from enginekit.platform.registry import Registry
from enginekit.spec.model import Adapter, Command, GPUInfo, Profile, ShardSpec
from enginekit.testing import check_engine, engine_for
from enginekit_trtllm import TrtllmConfig, TrtllmEngine

PY = "/opt/tensorrt-llm/bin/python"
MODEL = "/models/nvidia/Llama-3.3-70B-Instruct-FP8"
KEY = "9f2c4e1ab37d58c06e4f1a2b3c4d5e6f"
H100 = tuple(GPUInfo(index=i, name="NVIDIA H100 80GB HBM3", compute_capability="9.0") for i in range(8))
FILE_ARG = FileArg("--extra_llm_api_options", "ENGINEKIT_TRTLLM_OPTIONS", "extra_llm_api_options.yaml")
MODULE = "tensorrt_llm.commands.serve"


def engine(**config: object) -> TrtllmEngine:
    return TrtllmEngine(TrtllmConfig(python=PY, **config))  # type: ignore[arg-type]


def profile(**fields: object) -> Profile:
    base: dict[str, object] = {
        "name": "llama70b-h100",
        "engine": "trtllm",
        "tp": 8,
        "model_path": MODEL,
        "served_model_name": "llama-3.3-70b",
        "args": ("--max_batch_size", "256"),
    }
    return Profile(**{**base, **fields})  # type: ignore[arg-type]


def shard(prof: Profile | None = None, **fields: object) -> ShardSpec:
    base: dict[str, object] = {
        "replica_id": "r0",
        "shard_id": "r0-s0",
        "gpu_indices": tuple(range(8)),
        "mgmt_interface": "eno1",
        "http_port": 8000,
        "bind_addr": "10.20.0.11",
        "profile": prof or profile(),
    }
    return ShardSpec(**{**base, **fields})  # type: ignore[arg-type]


SERVE_ARGS = [
    "serve",
    MODEL,
    "--host",
    "10.20.0.11",
    "--port",
    "8000",
    "--backend",
    "pytorch",
    "--tp_size",
    "8",
    "--pp_size",
    "1",
    "--served_model_name",
    "llama-3.3-70b",
    "--max_batch_size",
    "256",
]
PLACEMENT_ENV = {
    "CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7",
    "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
    "NCCL_IB_DISABLE": "1",
    "NCCL_SOCKET_IFNAME": "eno1",
    "GLOO_SOCKET_IFNAME": "eno1",
}


def test_single_node_tp8_exact_argv_and_env() -> None:
    [command] = check_engine(engine(), shard(), H100)
    assert command.path == PY
    assert command.name == "trtllm-serve"
    assert command.argv()[:3] == [PY, "-I", "-c"]
    assert list(command.args[3:]) == SERVE_ARGS
    assert command.args == launcher_args(MODULE, SERVE_ARGS, file_args=[FILE_ARG])
    assert dict(command.env) == {**PLACEMENT_ENV, "ENGINEKIT_TRTLLM_OPTIONS": '{"return_perf_metrics": true}'}
    assert set(command.why) == set(command.env)
    assert command.secret_env == frozenset()


def test_single_node_tp8_with_adapters_exact_env() -> None:
    adapters = (Adapter(name="sql", path="/adapters/sql"), Adapter(name="chat-de", path="/adapters/de"))
    [command] = check_engine(engine(), shard(profile(adapters=adapters)), H100)
    assert list(command.args[3:]) == SERVE_ARGS  # no LoRA flag: the options file carries them
    assert command.args == launcher_args(MODULE, SERVE_ARGS, file_args=[FILE_ARG])
    options = (
        '{"return_perf_metrics": true, "lora_config": {"lora_dir": ["/adapters/sql", "/adapters/de"], '
        '"max_lora_rank": 64, "max_loras": 2, "max_cpu_loras": 2, "lora_target_modules": '
        '["attn_q", "attn_k", "attn_v", "attn_dense", "mlp_h_to_4h", "mlp_4h_to_h", "mlp_gate"]}}'
    )
    assert dict(command.env) == {**PLACEMENT_ENV, "ENGINEKIT_TRTLLM_OPTIONS": options}


def test_one_adapter_lets_trtllm_read_its_target_modules() -> None:
    prof = profile(adapters=(Adapter(name="sql", path="/adapters/sql"),))
    [command] = engine(max_lora_rank=128).commands(shard(prof))
    assert json.loads(command.env["ENGINEKIT_TRTLLM_OPTIONS"]) == {
        "return_perf_metrics": True,
        "lora_config": {
            "lora_dir": ["/adapters/sql"],
            "max_lora_rank": 128,
            "max_loras": 1,
            "max_cpu_loras": 1,
        },
    }


def test_without_options_it_runs_the_module_directly() -> None:
    [command] = check_engine(engine(prometheus_metrics=False), shard(), H100)
    assert command.argv() == [PY, "-I", "-m", MODULE, *SERVE_ARGS]
    assert dict(command.env) == PLACEMENT_ENV


def test_profile_env_applied_over_generated_env() -> None:
    prof = profile(env={"NCCL_DEBUG": "INFO", "TLLM_LOG_LEVEL": "INFO"})
    [command] = engine_for(engine(prometheus_metrics=False), "trtllm").commands(shard(prof))
    assert dict(command.env) == {**PLACEMENT_ENV, "NCCL_DEBUG": "INFO", "TLLM_LOG_LEVEL": "INFO"}


def test_without_an_interpreter_it_is_unavailable_and_says_how_to_enable_it() -> None:
    how = '[engines.trtllm] python = "/path/to/venv/bin/python"'
    plugin = TrtllmEngine()
    assert TrtllmEngine.takes_installed_build is False
    with pytest.raises(EngineUnavailable, match="unavailable on this node") as caught:
        engine_for(plugin, "trtllm")
    assert how in str(caught.value)
    registry = Registry()
    registry.add(plugin, name="trtllm")
    [row] = registry.statuses()
    assert (row.name, row.status) == ("trtllm", "unavailable")
    assert how in row.detail
    with pytest.raises(EngineError, match="unavailable on this node") as caught_cmd:
        plugin.commands(shard())
    assert how in str(caught_cmd.value)


def test_configured_through_the_node_config_section() -> None:
    registry = Registry.from_entry_points(config={"trtllm": {"python": PY, "allow_unauthenticated": True}})
    eng = registry.engine("trtllm")
    assert isinstance(eng.plugin, TrtllmEngine)
    assert eng.plugin.config == TrtllmConfig(python=PY, allow_unauthenticated=True)
    assert registry.installed("trtllm") is None
    assert not registry.use_installed("trtllm", Path("/opt/x"))


def test_api_key_refused_without_the_site_exception() -> None:
    with pytest.raises(EngineError) as caught:
        engine_for(engine(), "trtllm").commands(shard(api_key=KEY))
    message = str(caught.value)
    assert "trtllm-serve has no authentication" in message
    assert "[engines.trtllm] allow_unauthenticated = true" in message
    assert "10.20.0.11:8000" in message
    assert KEY not in message


def test_api_key_allowed_by_the_site_is_said_in_the_plan() -> None:
    plan = engine_for(engine(allow_unauthenticated=True), "trtllm").plan(shard(api_key=KEY), H100)
    [command] = plan.commands
    assert all(KEY not in arg for arg in command.argv())
    assert all(KEY not in value for value in command.env.values())
    assert "the shard's API key is NOT enforced" in " ".join(plan.notes)
    text = plan.render_text()
    assert "API key is NOT enforced" in text
    assert KEY not in text


def test_notes_without_a_key() -> None:
    notes = engine(version="1.3.0rc29").notes(shard())
    assert notes == [
        "trtllm-serve has no authentication: everything on 10.20.0.11:8000 (the OpenAI API, "
        "/update_weights, /release_memory, /kv_cache_events, the metrics) answers anyone who can reach it",
        "/prometheus/metrics serves Prometheus text (return_perf_metrics is set); /metrics is JSON "
        "iteration stats, not Prometheus",
    ]
    # With no release configured, the plan says which release's options were assumed.
    assert engine().notes(shard()) == [
        *notes,
        "no trtllm release is configured ([engines.trtllm] version): pass-through options are checked "
        "against trtllm-serve serve 1.3.0rc29, the newest release this plugin has read (1.0.0 to "
        "1.3.0rc29); set [engines.trtllm] version to the release the node runs",
    ]


def test_adapter_note_gives_ids_in_order() -> None:
    adapters = (Adapter(name="sql", path="/adapters/sql"), Adapter(name="de", path="/adapters/de"))
    notes = engine(version="1.3.0rc29").notes(shard(profile(adapters=adapters)))
    assert notes[-1] == (
        'requests choose an adapter with "lora_request": {"lora_name", "lora_int_id", "lora_path"}, '
        "ids in the profile's order: sql = 0 (/adapters/sql), de = 1 (/adapters/de); the server loads "
        "whatever path a request names"
    )


def test_metrics_path() -> None:
    assert engine_for(engine(), "trtllm").metrics_path() == "/prometheus/metrics"
    plain = engine_for(engine(prometheus_metrics=False), "trtllm")
    assert plain.metrics_path() == "/metrics"
    assert "a Prometheus scraper gets nothing it can parse" in " ".join(plain.notes(shard()))


def test_health_path_and_http_are_defaults() -> None:
    eng = engine_for(engine(), "trtllm")
    assert eng.health_path() == "/health"
    assert eng.serves_http(shard()) is True


def test_help_command_is_the_interpreters() -> None:
    eng = engine_for(engine(), "trtllm")
    [command] = eng.commands(shard())
    helper = eng.help_command(command)
    assert helper.argv() == [PY, "-I", "-m", MODULE, "serve", "--help"]
    assert "ENGINEKIT_TRTLLM_OPTIONS" not in helper.env
    assert helper.env["CUDA_VISIBLE_DEVICES"] == "0,1,2,3,4,5,6,7"


def test_served_model_name_flag_follows_the_release() -> None:
    # Before 1.3.0rc7 there is no flag: without a served name the path is served as is.
    prof = profile(served_model_name="")
    [command] = engine(version="1.2.1", prometheus_metrics=False).commands(shard(prof))
    assert "--served_model_name" not in command.args
    assert command.argv()[4:8] == ["serve", MODEL, "--host", "10.20.0.11"]
    notes = engine(version="1.2.1").notes(shard(prof))
    assert notes[-1] == (
        "TensorRT-LLM 1.2.1 has no --served_model_name: clients ask for 'Llama-3.3-70B-Instruct-FP8' "
        f"if model_path is a local directory, {MODEL!r} otherwise"
    )
    # From 1.3.0rc7 on it is always given, so the name is model_name() even for a path.
    [command] = engine(version="1.3.0rc7", prometheus_metrics=False).commands(shard(prof))
    assert command.args[-4:] == ("--served_model_name", MODEL, "--max_batch_size", "256")


def test_served_name_on_an_old_release_cannot_build() -> None:
    with pytest.raises(SpecError, match="has no --served_model_name"):
        engine_for(engine(version="1.3.0rc6"), "trtllm").plan(shard())


def test_mig_shard_gets_its_instance() -> None:
    mig = "MIG-4f1c2a7e-9b3d-5c6e-8f0a-1b2c3d4e5f60"
    prof = profile(tp=1, served_model_name="", model_path="/models/qwen3-8b", args=())
    [command] = engine(prometheus_metrics=False).commands(shard(prof, gpu_indices=(), gpu_uuids=(mig,)))
    assert command.env["CUDA_VISIBLE_DEVICES"] == mig
    assert "--tp_size" in command.args
    assert command.args[command.args.index("--tp_size") + 1] == "1"


def test_multi_node_and_cpu_shards_cannot_build() -> None:
    prof = profile(nodes=2, gpus_per_node=8, tp=16)
    multi = shard(prof, nnodes=2, leader_addr="10.20.0.11", leader_port=29500)
    with pytest.raises(SpecError, match="one MPI world across the nodes"):
        engine_for(engine(), "trtllm").plan(multi)
    # The hook refuses the shard itself too.
    with pytest.raises(EngineError, match="one MPI world across the nodes"):
        engine().commands(multi)
    with pytest.raises(EngineError, match="runs only on NVIDIA GPUs"):
        engine().commands(shard(profile(tp=1), gpu_indices=()))


def test_bad_args_and_env_cannot_be_planned() -> None:
    trtllm = engine_for(engine(), "trtllm")
    with pytest.raises(SpecError, match="--trust_remote_code"):
        trtllm.plan(shard(profile(args=("--trust_remote_code",))))
    with pytest.raises(SpecError, match="TLLM_SPAWN_PROXY_PROCESS_IPC_ADDR"):
        trtllm.plan(shard(profile(env={"TLLM_SPAWN_PROXY_PROCESS_IPC_ADDR": "tcp://1.2.3.4:1"})))


@pytest.mark.parametrize("model", ["--trust_remote_code", "-x", "--config=/tmp/x.yaml", "-"])
def test_a_model_path_starting_with_a_dash_is_refused_wherever_it_would_reach_argv(model: str) -> None:
    # MODEL is serve's one positional argument: Click would read such a path as an option.
    trtllm = engine_for(engine(), "trtllm")
    bad = shard(profile(model_path=model, served_model_name=""))
    message = f"model path {model!r} starts with '-', where a parser reads a flag"
    assert any(message in p for p in trtllm.validate(bad.profile))
    with pytest.raises(SpecError, match=re.escape(message)):
        trtllm.plan(bad)
    # Nor can the engine build one: commands() runs the same checks as plan().
    with pytest.raises(SpecError, match=re.escape(message)):
        trtllm.commands(bad)
    # Adapter directories go into the options file, and are refused the same way.
    adapters = (Adapter(name="a", path="-x"),)
    assert any(
        "adapters[0]: path '-x' starts with '-'" in p for p in trtllm.validate(profile(adapters=adapters))
    )


def test_every_path_on_the_command_line_is_an_option_value_or_the_checked_model() -> None:
    # The served name (the model path when unset), the options file and the interpreter
    # are the other paths on the line: values of options, which Click takes as they are,
    # or absolute.
    [command] = engine().commands(shard(profile(served_model_name="")))
    args = list(command.args)
    assert command.path.startswith("/")
    assert args[args.index("serve") + 1] == MODEL
    assert args[args.index("--served_model_name") + 1] == MODEL


def test_unbound_shard_listens_everywhere_not_on_localhost() -> None:
    [command] = engine(prometheus_metrics=False).commands(shard(bind_addr=""))
    host = command.args[command.args.index("--host") + 1]
    assert host == "0.0.0.0"


def test_commands_are_deterministic() -> None:
    assert engine().commands(shard()) == engine().commands(shard())
    assert isinstance(engine().commands(shard())[0], Command)
