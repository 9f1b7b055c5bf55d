"""Exact argv and environment of llama-server shards: one GPU, a split, a CPU shard, adapters, a key, MIG."""

from __future__ import annotations

from pathlib import Path

import pytest
from enginekit import Adapter, EngineError, Profile, ShardSpec, SpecError
from enginekit.testing import check_engine, engine_for
from enginekit_llamacpp import LlamaCppConfig, LlamaCppEngine
from hypothesis import assume, given
from hypothesis import strategies as st

KEY = "sk-llama-0123456789abcdef"
MIG = "MIG-4f7a8c2e-1b3d-4e5f-8a9b-0c1d2e3f4a5b"
BASE_ENV = {"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "NCCL_IB_DISABLE": "1"}


def shard(**fields: object) -> ShardSpec:
    """A one-GPU shard; ``profile_*`` fields go to the profile."""
    profile = {k[len("profile_") :]: v for k, v in fields.items() if k.startswith("profile_")}
    spec = {k: v for k, v in fields.items() if not k.startswith("profile_")}
    profile = {"name": "qwen-q4", "engine": "llamacpp", "model_path": "/models/qwen-q4_k_m.gguf", **profile}
    spec = {"shard_id": "s0", "http_port": 8080, "gpu_indices": (0,), **spec}
    return ShardSpec(profile=Profile(**profile), **spec)  # type: ignore[arg-type]


def test_one_gpu_offloads_every_layer_to_it() -> None:
    spec = shard(gpu_indices=(3,), bind_addr="10.0.0.7", profile_served_model_name="qwen")
    (command,) = check_engine(LlamaCppEngine(), spec)
    assert command.argv() == [
        "llama-server",
        "--model", "/models/qwen-q4_k_m.gguf",
        "--host", "10.0.0.7",
        "--port", "8080",
        "--alias", "qwen",
        "--device", "CUDA0",
        "--n-gpu-layers", "all",
        "--metrics",
        "--no-slots",
    ]  # fmt: skip
    assert dict(command.env) == {"CUDA_VISIBLE_DEVICES": "3", **BASE_ENV}
    assert command.secret_env == frozenset()
    assert command.name == "llama-server"


def test_tp2_splits_layers_evenly_over_both_gpus_then_passes_args_through() -> None:
    spec = shard(
        gpu_indices=(4, 5),
        profile_tp=2,
        profile_served_model_name="llama-70b",
        profile_args=("--ctx-size", "32768", "-fa", "on"),
        profile_env={"GGML_CUDA_FORCE_MMQ": "1"},
    )
    (command,) = check_engine(LlamaCppEngine(), spec)
    assert command.argv() == [
        "llama-server",
        "--model", "/models/qwen-q4_k_m.gguf",
        "--host", "0.0.0.0",
        "--port", "8080",
        "--alias", "llama-70b",
        "--device", "CUDA0,CUDA1",
        "--n-gpu-layers", "all",
        "--split-mode", "layer",
        "--tensor-split", "1,1",
        "--metrics",
        "--no-slots",
        "--ctx-size", "32768", "-fa", "on",
    ]  # fmt: skip
    assert dict(command.env) == {"CUDA_VISIBLE_DEVICES": "4,5", **BASE_ENV, "GGML_CUDA_FORCE_MMQ": "1"}


def test_cpu_shard_uses_no_device_and_its_reserved_threads() -> None:
    spec = shard(gpu_indices=(), threads=12, profile_served_model_name="qwen-cpu")
    (command,) = check_engine(LlamaCppEngine(), spec)
    assert command.argv() == [
        "llama-server",
        "--model", "/models/qwen-q4_k_m.gguf",
        "--host", "0.0.0.0",
        "--port", "8080",
        "--alias", "qwen-cpu",
        "--device", "none",
        "--n-gpu-layers", "0",
        "--threads", "12",
        "--metrics",
        "--no-slots",
    ]  # fmt: skip
    assert dict(command.env) == {"CUDA_VISIBLE_DEVICES": "", **BASE_ENV}


def test_cpu_shard_without_reserved_threads_leaves_them_to_llama_server() -> None:
    (command,) = check_engine(LlamaCppEngine(), shard(gpu_indices=()))
    assert "--threads" not in command.args
    assert command.args[command.args.index("--device") :] == (
        "--device",
        "none",
        "--n-gpu-layers",
        "0",
        "--metrics",
        "--no-slots",
    )


def test_cpu_shard_of_a_multi_gpu_profile_is_refused() -> None:
    engine = engine_for(LlamaCppEngine(), "llamacpp")
    with pytest.raises(
        EngineError, match=r"asks for 2 GPUs, but the shard has none; a CPU shard runs tp = 1"
    ):
        engine.commands(shard(gpu_indices=(), profile_tp=2))


def test_adapters_load_in_profile_order_at_scale_zero_with_commas_quoted() -> None:
    adapters = (
        Adapter(name="sql", path="/adapters/sql.gguf"),
        Adapter(name="chat", path="/adapters/chat,v2.gguf"),
        Adapter(name="odd", path='/adapters/"odd".gguf'),
    )
    (command,) = check_engine(LlamaCppEngine(), shard(profile_adapters=adapters))
    i = command.args.index("--lora-scaled")
    # parse_csv_row: a quoted field keeps its ',' and reads '""' as '"'; an unquoted one
    # keeps a '"' that does not start it.
    assert command.args[i : i + 4] == (
        "--lora-scaled",
        '/adapters/sql.gguf:0,"/adapters/chat,v2.gguf:0",/adapters/"odd".gguf:0',
        "--metrics",
        "--no-slots",
    )


def test_adapter_path_with_a_colon_cannot_be_built() -> None:
    engine = engine_for(LlamaCppEngine(), "llamacpp")
    spec = shard(profile_adapters=(Adapter(name="a", path="/adapters/a:v1.gguf"),))
    with pytest.raises(SpecError, match=r"adapters\[0\]: path '/adapters/a:v1.gguf' contains ':'"):
        engine.plan(spec)
    # commands() runs the same checks: there is no path that builds it.
    with pytest.raises(SpecError, match=r"adapters\[0\]: path '/adapters/a:v1.gguf' contains ':'"):
        engine.commands(spec)


def test_api_key_reaches_llama_server_only_through_its_env_variable() -> None:
    (command,) = check_engine(LlamaCppEngine(), shard(api_key=KEY))
    assert dict(command.env) == {"CUDA_VISIBLE_DEVICES": "0", **BASE_ENV, "LLAMA_API_KEY": KEY}
    assert command.secret_env == frozenset({"LLAMA_API_KEY"})
    assert "--api-key" not in command.args
    assert all(KEY not in arg for arg in command.argv())
    assert "LLAMA_API_KEY" in command.why


def test_mig_shard_is_pinned_by_uuid_and_sees_one_cuda_device() -> None:
    spec = shard(gpu_indices=(1001,), gpu_uuids=(MIG,), api_key=KEY)
    (command,) = check_engine(LlamaCppEngine(), spec)
    assert command.args[command.args.index("--device") :] == (
        "--device",
        "CUDA0",
        "--n-gpu-layers",
        "all",
        "--metrics",
        "--no-slots",
    )
    assert dict(command.env) == {"CUDA_VISIBLE_DEVICES": MIG, **BASE_ENV, "LLAMA_API_KEY": KEY}
    assert "MIG instance" in command.why["CUDA_VISIBLE_DEVICES"]


def test_served_name_defaults_to_the_model_path() -> None:
    (command,) = check_engine(LlamaCppEngine(), shard())
    assert command.args[command.args.index("--alias") + 1] == "/models/qwen-q4_k_m.gguf"


def test_installed_build_runs_its_own_llama_server() -> None:
    engine = engine_for(LlamaCppEngine(), "llamacpp", installed=Path("/opt/llama.cpp/b6000"))
    (command,) = engine.commands(shard())
    assert command.path == "/opt/llama.cpp/b6000/bin/llama-server"


def test_configured_executable_is_used_without_an_installed_build() -> None:
    engine = engine_for(LlamaCppEngine(LlamaCppConfig(executable="/usr/local/bin/llama-server")), "llamacpp")
    assert engine.commands(shard())[0].path == "/usr/local/bin/llama-server"


def test_health_and_metrics_paths() -> None:
    engine = engine_for(LlamaCppEngine(), "llamacpp")
    assert engine.health_path() == "/health"
    assert engine.metrics_path() == "/metrics"
    assert engine.serves_http(shard()) is True


def test_notes_tell_a_scraper_to_send_the_key() -> None:
    engine = engine_for(LlamaCppEngine(), "llamacpp")
    notes = engine.notes(shard(api_key=KEY))
    assert (
        "the API key (LLAMA_API_KEY) guards /metrics too: a Prometheus scraper must send "
        "'Authorization: Bearer <key>' (or 'X-Api-Key: <key>')"
    ) in notes
    assert any(n.startswith("/health answers 503 while the model loads and 200") for n in notes)
    assert any("--list-devices" in n for n in notes)
    assert all(KEY not in n for n in notes)


def test_notes_without_a_key_say_everything_is_open() -> None:
    notes = engine_for(LlamaCppEngine(), "llamacpp").notes(shard(gpu_indices=()))
    assert any(n.startswith("no API key: whoever reaches the port can use every endpoint") for n in notes)
    assert not any("--list-devices" in n for n in notes)


def test_notes_give_each_adapter_its_id() -> None:
    adapters = (Adapter(name="sql", path="/a/sql.gguf"), Adapter(name="chat", path="/a/chat.gguf"))
    notes = engine_for(LlamaCppEngine(), "llamacpp").notes(shard(profile_adapters=adapters))
    assert any(
        n.startswith("adapters load at scale 0 and a request applies one by id (0 = sql, 1 = chat)")
        for n in notes
    )


_names = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789-_."), min_size=1, max_size=30)


@given(
    count=st.integers(min_value=1, max_value=8),
    first=st.integers(min_value=0, max_value=7),
    key=st.from_regex(r"[A-Za-z0-9._~+/=:][A-Za-z0-9._~+/=:-]{15,63}", fullmatch=True),
    name=_names,
)
def test_any_gpu_shard_keeps_the_key_off_argv_and_names_one_device_per_gpu(
    count: int, first: int, key: str, name: str
) -> None:
    # A key that happens to be part of the name would be on argv: the core refuses that.
    assume(key not in name and key not in "/models/qwen-q4_k_m.gguf")
    spec = shard(
        gpu_indices=tuple(range(first, first + count)),
        api_key=key,
        profile_tp=count,
        profile_served_model_name=name,
    )
    (command,) = check_engine(LlamaCppEngine(), spec)
    # After the alias: a served name may itself be spelled "--device".
    devices = command.args[command.args.index("--device", command.args.index("--alias") + 2) + 1].split(",")
    assert devices == [f"CUDA{i}" for i in range(count)]
    assert command.env["CUDA_VISIBLE_DEVICES"] == ",".join(str(i) for i in range(first, first + count))
    assert command.env["LLAMA_API_KEY"] == key
    assert ("--tensor-split" in command.args) == (count > 1)
    assert command.args[command.args.index("--alias") + 1] == name
