"""The sim plugin's hooks: exact argv and env per spec, every refusal, devices, help, examples."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest
from enginekit.base.errors import EngineError, SpecError
from enginekit.platform.registry import Registry
from enginekit.spec.convert import load_document, structure
from enginekit.spec.model import MAX_KV_CACHE_MIB, Adapter, GPUInfo, Profile, ShardSpec
from enginekit.testing import check_engine, engine_for
from enginekit_sim.plugin import SimEngine
from enginekit_sim.plugin.config import SimConfig
from enginekit_sim.server import cli
from enginekit_sim.server.settings import settings_from
from hypothesis import given, settings
from hypothesis import strategies as st

LATENCY = (
    *("--startup-seconds", "2", "--ttft-ms", "50", "--itl-ms", "15", "--prefill-ms-per-token", "0"),
    *("--max-num-seqs", "256", "--max-model-len", "4096", "--seed", "0", "--block-size", "16"),
    *("--kv-bytes-per-token", "131072"),
)
TUNING = (*LATENCY, "--num-gpu-blocks-override", "2048", "--kv-event-format", "map")
START = ("-I", "-m", "enginekit_sim", "serve")


def profile(**fields: object) -> Profile:
    values: dict[str, object] = {
        "name": "llama-8b",
        "engine": "sim",
        "model_path": "/models/llama-8b",
        "served_model_name": "llama",
    }
    values.update(fields)
    return Profile(**values)  # type: ignore[arg-type]


def sim(**config: object) -> SimEngine:
    return SimEngine(SimConfig(**config))  # type: ignore[arg-type]


def test_single_node_argv_and_env_are_exact() -> None:
    spec = ShardSpec(
        profile=profile(tp=2), bind_addr="10.1.2.3", http_port=8001, gpu_indices=(2, 3), api_key="k" * 32
    )
    (command,) = check_engine(sim(), spec)
    assert command.path == "python3"
    assert command.args == (
        *START,
        *("/models/llama-8b", "--served-model-name", "llama"),
        *("--tensor-parallel-size", "2", "--pipeline-parallel-size", "1"),
        *("--host", "10.1.2.3", "--port", "8001"),
        *TUNING,
    )
    assert command.env == {
        "CUDA_VISIBLE_DEVICES": "2,3",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "NCCL_IB_DISABLE": "1",
        "ENGINEKIT_API_KEY": "k" * 32,
    }
    assert command.secret_env == frozenset({"ENGINEKIT_API_KEY"})
    assert set(command.why) == set(command.env)
    assert command.name == "sim"
    assert command.wait_for_leader_port is False


def test_no_bind_address_listens_everywhere_and_no_key_means_no_key_variable() -> None:
    spec = ShardSpec(profile=profile(), http_port=8000, gpu_indices=(0,))
    (command,) = check_engine(sim(), spec)
    assert command.args[command.args.index("--host") + 1] == "0.0.0.0"
    assert "ENGINEKIT_API_KEY" not in command.env
    assert command.secret_env == frozenset()


def two_node_profile(**fields: object) -> Profile:
    return profile(tp=4, gpus_per_node=2, nodes=2, **fields)


def two_node_spec(rank: int, **fields: object) -> ShardSpec:
    values: dict[str, object] = {
        "profile": two_node_profile(),
        "rank": rank,
        "nnodes": 2,
        "leader_addr": "10.0.0.1",
        "leader_port": 29500,
        "http_port": 8000,
        "gpu_indices": (0, 1),
        "mgmt_interface": "eth0",
    }
    values.update(fields)
    return ShardSpec(**values)  # type: ignore[arg-type]


def test_leader_serves_http_and_listens_for_workers() -> None:
    engine = engine_for(sim(), "sim")
    spec = two_node_spec(0, bind_addr="10.0.0.1")
    (command,) = check_engine(sim(), spec)
    assert command.args == (
        *START,
        *("/models/llama-8b", "--served-model-name", "llama"),
        *("--tensor-parallel-size", "4", "--pipeline-parallel-size", "1"),
        *("--host", "10.0.0.1", "--port", "8000"),
        *("--nnodes", "2", "--node-rank", "0", "--master-addr", "10.0.0.1", "--master-port", "29500"),
        *TUNING,
    )
    assert command.name == "sim-leader"
    assert command.wait_for_leader_port is False
    assert command.env["NCCL_SOCKET_IFNAME"] == "eth0"
    assert engine.serves_http(spec) is True


def test_worker_is_headless_waits_for_the_leader_port_and_serves_no_http() -> None:
    engine = engine_for(sim(), "sim")
    spec = two_node_spec(1, gpu_indices=(4, 5))
    (command,) = check_engine(sim(), spec)
    assert command.args == (
        *START,
        *("/models/llama-8b", "--served-model-name", "llama"),
        *("--tensor-parallel-size", "4", "--pipeline-parallel-size", "1"),
        *("--nnodes", "2", "--node-rank", "1", "--master-addr", "10.0.0.1", "--master-port", "29500"),
        "--headless",
        *TUNING,
    )
    assert command.env["CUDA_VISIBLE_DEVICES"] == "4,5"
    assert command.name == "sim-worker-1"
    assert command.wait_for_leader_port is True
    assert engine.serves_http(spec) is False
    assert any("serves no HTTP" in note for note in engine.notes(spec))


def test_adapters_kv_events_threads_and_config_are_rendered() -> None:
    spec = ShardSpec(
        profile=profile(
            adapters=(Adapter(name="sql", path="/adapters/sql"), Adapter(name="odd", path="/a,b")),
            kv_events=True,
            args=("--ttft-ms", "80"),
        ),
        http_port=8000,
        gpu_indices=(),
        kv_events_port=5557,
        threads=8,
    )
    config: dict[str, object] = {
        "python": "/opt/py/bin/python3",
        "itl_ms": 20.0,
        "faults": ("slow-health:1",),
    }
    config["kv_event_format"] = "array"
    (command,) = check_engine(sim(**config), spec)
    args = command.args
    assert command.path == "/opt/py/bin/python3"
    lora = args.index("--lora-modules")
    assert args[lora - 1 : lora + 3] == (
        "--enable-lora",
        "--lora-modules",
        "sql=/adapters/sql",
        args[lora + 2],
    )
    assert json.loads(args[lora + 2]) == {"name": "odd", "path": "/a,b"}
    kv = json.loads(args[args.index("--kv-events-config") + 1])
    # Bound on every address (vLLM binds only a wildcard endpoint); the replay endpoint after it.
    assert kv == {
        "enable_kv_cache_events": True,
        "publisher": "zmq",
        "endpoint": "tcp://*:5557",
        "replay_endpoint": kv["replay_endpoint"],
    }
    assert kv["replay_endpoint"].endswith(":5558")
    assert args[args.index("--threads") + 1] == "8"
    assert args[args.index("--itl-ms") + 1] == "20"
    assert args[args.index("--kv-event-format") + 1] == "array"
    # The node's faults, then the profile's arguments last, so the profile wins.
    assert args[-4:] == ("--fault", "slow-health:1", "--ttft-ms", "80")
    assert command.env["CUDA_VISIBLE_DEVICES"] == ""


def cpu_spec(**fields: object) -> ShardSpec:
    values: dict[str, object] = {"profile": profile(), "http_port": 8000, "gpu_indices": (), "threads": 8}
    values.update(fields)
    return ShardSpec(**values)  # type: ignore[arg-type]


def test_a_cpu_shard_given_kv_cache_memory_sizes_the_cache_in_bytes() -> None:
    (command,) = check_engine(sim(), cpu_spec(kv_cache_mib=4096))
    assert command.args == (
        *START,
        *("/models/llama-8b", "--served-model-name", "llama"),
        *("--tensor-parallel-size", "1", "--pipeline-parallel-size", "1"),
        *("--host", "0.0.0.0", "--port", "8000"),
        *("--threads", "8"),
        *LATENCY,
        *("--kv-cache-memory-bytes", str(4096 * 1024 * 1024), "--kv-event-format", "map"),
    )
    assert "--num-gpu-blocks-override" not in command.args, "the server refuses both"
    assert command.env["CUDA_VISIBLE_DEVICES"] == ""


@pytest.mark.parametrize(
    "spec",
    [
        cpu_spec(kv_cache_mib=0),
        # kv_cache_mib is the memory of a shard with no GPU: on GPUs it sizes nothing.
        cpu_spec(kv_cache_mib=4096, gpu_indices=(0,), threads=0),
    ],
    ids=["cpu-without-kv-cache-mib", "gpu-with-kv-cache-mib"],
)
def test_without_placement_memory_the_cache_is_the_nodes_blocks(spec: ShardSpec) -> None:
    (command,) = check_engine(sim(num_gpu_blocks=512, kv_bytes_per_token=327_680), spec)
    assert "--kv-cache-memory-bytes" not in command.args
    assert command.args[command.args.index("--num-gpu-blocks-override") + 1] == "512"
    assert command.args[command.args.index("--kv-bytes-per-token") + 1] == "327680"


def test_the_rendered_memory_is_what_the_server_turns_into_blocks() -> None:
    # The most any spec may reserve still renders a command the server starts with.
    for mib, blocks in ((4096, 2048), (MAX_KV_CACHE_MIB, MAX_KV_CACHE_MIB // 2)):
        (command,) = sim().commands(cpu_spec(kv_cache_mib=mib))
        namespace = cli.build_parser().parse_args(command.args[3:])
        assert settings_from(namespace, command.env).num_blocks == blocks


def test_a_profile_giving_blocks_to_a_cpu_shard_sized_by_memory_is_refused() -> None:
    blocks = profile(args=("--num-gpu-blocks-override", "64"))
    with pytest.raises(EngineError) as error:
        sim().commands(cpu_spec(profile=blocks, kv_cache_mib=2048))
    assert str(error.value) == (
        "profile 'llama-8b': args: '--num-gpu-blocks-override' sizes the KV cache in blocks, but on "
        "this CPU shard the shard spec's kv_cache_mib (2048 MiB) sizes it, and the simulated engine "
        "refuses both: remove it from the profile's args (--kv-bytes-per-token sets how many blocks "
        "the memory holds), or leave kv_cache_mib 0"
    )
    with pytest.raises(EngineError, match="the shard spec's kv_cache_mib"):
        engine_for(sim(), "sim").plan(cpu_spec(profile=blocks, kv_cache_mib=2048))
    # Where no memory sizes the cache, the profile's blocks win over the node's, as ever.
    for spec in (cpu_spec(profile=blocks), cpu_spec(profile=blocks, gpu_indices=(0,), kv_cache_mib=2048)):
        (command,) = check_engine(sim(), spec)
        assert command.args[-2:] == ("--num-gpu-blocks-override", "64")


def test_a_worker_stops_by_itself_when_its_leader_goes() -> None:
    engine = engine_for(sim(), "sim")
    worker = engine.plan(two_node_spec(1))
    assert worker.on_leader_exit == "stops"
    assert "when the leader exits: this rank exits by itself" in worker.render_text()
    assert engine.plan(two_node_spec(0)).on_leader_exit == ""
    assert engine.plan(ShardSpec(profile=profile(), http_port=8000, gpu_indices=(0,))).on_leader_exit == ""
    assert sim().leader_exit(two_node_spec(1)) == "stops"


def test_kv_events_without_a_port_are_not_sent_and_the_plan_says_so() -> None:
    spec = ShardSpec(profile=profile(kv_events=True), http_port=8000, gpu_indices=(0,))
    engine = engine_for(sim(), "sim")
    (command,) = engine.commands(spec)
    assert "--kv-events-config" not in command.args
    assert any("no kv_events_port" in note for note in engine.notes(spec))


def test_kv_events_are_published_by_the_leader_only() -> None:
    spec = two_node_spec(1, profile=two_node_profile(kv_events=True), kv_events_port=5557)
    (command,) = check_engine(sim(), spec)
    assert "--kv-events-config" not in command.args


def test_a_bad_fault_that_skipped_validation_cannot_be_built() -> None:
    spec = ShardSpec(profile=profile(args=("--fault", "explode")), http_port=8000, gpu_indices=(0,))
    with pytest.raises(SpecError, match="unknown kind 'explode'"):
        engine_for(sim(), "sim").plan(spec)
    with pytest.raises(EngineError, match="unknown kind 'explode'"):
        sim().commands(spec)


def test_cpu_fallback_fault_sets_the_listing_variable_on_its_rank_only() -> None:
    faulty = two_node_profile(args=("--fault", "cpu-fallback@1"))
    (leader,) = check_engine(sim(), two_node_spec(0, profile=faulty))
    (worker,) = check_engine(sim(), two_node_spec(1, profile=faulty))
    assert "ENGINEKIT_SIM_CPU_FALLBACK" not in leader.env
    assert worker.env["ENGINEKIT_SIM_CPU_FALLBACK"] == "1"
    assert "ENGINEKIT_SIM_CPU_FALLBACK" in worker.why


def test_device_listing_parse_devices_and_help() -> None:
    engine = engine_for(sim(python="/usr/bin/python3"), "sim")
    listing = engine.device_listing()
    assert listing is not None
    assert listing.argv() == ["/usr/bin/python3", "-I", "-m", "enginekit_sim", "devices"]
    assert engine.parse_devices("GPU 0\nGPU MIG-1\n") == ["0", "MIG-1"]
    assert engine.parse_devices("no GPU visible: the simulated engine runs on the CPU\n") == []
    node_wide = engine_for(sim(faults=("cpu-fallback",)), "sim").device_listing()
    assert node_wide is not None
    assert node_wide.args[-2:] == ("--fault", "cpu-fallback")
    (command,) = engine_for(sim(), "sim").commands(
        ShardSpec(profile=profile(), http_port=1, gpu_indices=(0,))
    )
    assert engine.help_command(command).argv() == ["python3", "-I", "-m", "enginekit_sim", "serve", "--help"]
    assert engine.health_path() == "/health"
    assert engine.metrics_path() == "/metrics"


def problems(args: tuple[str, ...], **config: object) -> list[str]:
    return engine_for(sim(**config), "sim").validate(profile(args=args))


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ("--port", "1"),
            "'--port' sets --port, which enginekit manages; set the shard spec's http_port instead",
        ),
        (("--port=1",), "'--port' sets --port, which enginekit manages; set the shard spec's http_port"),
        (
            ("--host", "0.0.0.0"),
            "sets --host, which enginekit manages; set the shard spec's bind_addr instead",
        ),
        (("-tp", "8"), "'-tp' sets --tensor-parallel-size, which enginekit manages; set profile.tp instead"),
        (("--served-model-name", "x"), "set profile.served_model_name instead"),
        (("--headless",), "the shard spec's rank sets it: every rank but 0 is headless"),
        (("--lora-modules", "a=/b"), "list the adapters in profile.adapters instead"),
        (("--kv-events-config", "{}"), "set profile.kv_events and the shard spec's kv_events_port instead"),
        (("--master-port", "1"), "the shard spec's leader_port sets it"),
        (("--threads", "2"), "the shard spec's threads sets it"),
        (
            ("--kv-cache-memory-bytes", "4294967296"),
            "'--kv-cache-memory-bytes' sets --kv-cache-memory-bytes, which enginekit manages; the "
            "shard spec's kv_cache_mib sets it on a CPU shard; size the cache with "
            "--num-gpu-blocks-override instead",
        ),
        (
            ("--kv-bytes-per-token", "0"),
            "the simulated engine refuses them: --kv-bytes-per-token must be between 1 and 16777216 bytes",
        ),
        (
            ("--api-key", "k"),
            "args[0]: --api-key puts a secret on the command line, which every local user can read; "
            "the API key reaches the engine through its environment only",
        ),
        (("--api-key=k",), "set the shard spec's api_key"),
        (("--help",), "'--help' prints the help and exits instead of serving"),
        (("-h",), "'-h' prints the help and exits instead of serving"),
        (
            ("--trust-remote-code",),
            'refused unless the site allows it (engines.sim.allow_args = ["--trust-remote-code"])',
        ),
        (("--ttft",), "'--ttft' is not an option of the simulated engine"),
        (("--ttft_ms", "3"), "'--ttft_ms' is not an option of the simulated engine"),
        (("--bogus",), "'--bogus' is not an option of the simulated engine"),
        (("--=x",), "'--' is not an option of the simulated engine"),
        (("--fault", "explode"), "fault 'explode': unknown kind 'explode'"),
        (("--fault", "exit-at-start:300"), "exit code '300' must be 0-255"),
        (("--fault", "crash-after-requests"), "expected crash-after-requests:N[:CODE]"),
        (("--fault", "slow-health:1@x"), "the rank after '@' must be a node rank"),
        (
            ("--itl-ms", "fast"),
            "'--itl-ms' (--itl-ms) takes a plain decimal number (ASCII digits, a sign, a point and "
            "an exponent); its value is not one",
        ),
        (("--kv-event-format", "json"), "argument --kv-event-format: invalid choice (choose from"),
    ],
)
def test_validate_refuses(args: tuple[str, ...], expected: str) -> None:
    found = problems(args)
    assert found, args
    # The core's secret check names the place (args[i]) instead of quoting the token.
    assert all(p.startswith(("profile 'llama-8b': args: ", "profile 'llama-8b': args[")) for p in found), (
        found
    )
    assert any(expected in p for p in found), found


BARE = (
    "not an option, and {why}, so the simulated engine would read it as a positional argument; "
    "a profile's args may give none (enginekit passes the model itself): remove it, or put it "
    "right after the option it is a value of"
)


@pytest.mark.parametrize(
    ("args", "index", "why"),
    [
        (("stray",), 0, "no option comes before it to take it as a value"),
        (("--enforce-eager", "x"), 1, "'--enforce-eager' (args[0]) before it takes no value"),
        (("--no-enable-prefix-caching", "x"), 1, "'--no-enable-prefix-caching' (args[0]) before it takes no value"),
        (("--ttft-ms=120", "x"), 1, "'--ttft-ms' (args[0]) before it has its value already, after '='"),
        (("--fault", "hang-at-start", "x"), 2, "'--fault' (args[0]) before it takes exactly 1 value"),
    ],
)  # fmt: skip
def test_a_bare_token_the_parser_would_take_as_positional_is_refused(
    args: tuple[str, ...], index: int, why: str
) -> None:
    assert problems(args) == [f"profile 'llama-8b': args[{index}]: {BARE.format(why=why)}"]


def test_validate_never_echoes_option_values() -> None:
    secret = "sk-0123456789abcdef"
    for args in (
        ("--api-key=" + secret,),
        ("--bogus=" + secret,),
        ("--itl-ms", secret),
        ("--kv-event-format", secret),
        (secret,),
        ("--help=" + secret,),
        ("--enforce-eager=" + secret,),
        ("--no-enable-prefix-caching=" + secret,),
    ):
        found = problems(args)
        assert found, args
        assert all(secret not in p for p in found), found


def test_each_problem_is_said_once_by_whoever_owns_it() -> None:
    # The core refuses the bare '--', the stray token and the secret option; the server's
    # parser, run on what is left, neither repeats them nor hides the out-of-range number.
    assert problems(("--", "x")) == [
        "profile 'llama-8b': args: a bare '--' ends option parsing, so what follows would be read "
        "as positional arguments"
    ]
    found = problems(("--api-key=k", "stray", "--ttft-ms", "1e9"))
    assert len(found) == 3, found
    assert found[0].startswith("profile 'llama-8b': args[1]: not an option")
    assert found[1].startswith("profile 'llama-8b': args[0]: --api-key puts a secret on the command line")
    assert found[2] == (
        "profile 'llama-8b': args: the simulated engine refuses them: "
        "--ttft-ms must be between 0 and 600000 milliseconds"
    )
    # --api-key takes one value, as vLLM's does: a second token is a stray positional.
    assert any(
        p.startswith("profile 'llama-8b': args[2]: not an option") for p in problems(("--api-key", "k", "x"))
    )


def test_validate_collects_every_problem() -> None:
    found = problems(("--port", "1", "--api-key", "k", "--bogus", "--trust-remote-code"))
    assert len(found) == 4, found


def test_validate_accepts_tuning_faults_and_vllm_parity_options() -> None:
    args = (
        *("--ttft-ms=120", "--itl-ms", "20", "--max-num-seqs", "4", "--fault", "crash-after-requests:3:9@0"),
        *("--fault", "hang-at-start", "--dtype", "bfloat16", "--no-enable-prefix-caching", "-q", "awq"),
        *("--gpu-memory-utilization", "0.8", "--seed", "-1", "--kv-bytes-per-token", "327680"),
        *("--num-gpu-blocks-override", "64"),
    )
    assert problems(args) == []
    assert problems(("--trust-remote-code",), allow_args=("--trust-remote-code",)) == []


def test_common_checks_apply_as_for_a_real_engine() -> None:
    engine = engine_for(sim(), "sim")
    found = engine.validate(
        profile(model_path="", tp=2, adapters=(Adapter(name="a=b", path="/x"),), env={"LD_PRELOAD": "/x.so"}),
        [GPUInfo(index=0, name="A100"), GPUInfo(index=1, name="H100")],
    )
    assert any("model path is empty" in p for p in found)
    assert any("adapters[0]: name 'a=b'" in p for p in found)
    assert any("env LD_PRELOAD" in p for p in found)
    assert any("GPUs are not uniform" in p for p in found)
    with pytest.raises(SpecError):
        engine.plan(ShardSpec(profile=profile(model_path=""), http_port=1))


def test_config_is_structured_from_the_node_config_and_checked() -> None:
    registry = Registry()
    registry.add(SimEngine(SimConfig(ttft_ms=1.0)), name="sim")
    assert registry.engine("sim").plugin.config.ttft_ms == 1.0  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="unknown kind"):
        SimConfig(faults=("explode",))
    with pytest.raises(ValueError, match="itl_ms must be between 0 and 60000 milliseconds, got -1"):
        SimConfig(itl_ms=-1.0)
    # The core's one executable rule: an absolute path or a bare name, never a flag or a relative path.
    with pytest.raises(ValueError, match="python '-c': expected a program name"):
        SimConfig(python="-c")
    with pytest.raises(ValueError, match="python 'bin/python3': a relative path depends on"):
        SimConfig(python="bin/python3")
    assert SimConfig(python="/usr/bin/python3").python == "/usr/bin/python3"
    # Only the code-loading options may be allowed; managed and secret ones never.
    with pytest.raises(ValueError, match="'--api-key' is set by enginekit itself or carries a secret"):
        SimConfig(allow_args=("--api-key",))
    with pytest.raises(ValueError, match="'--bogus' is not a flag this plugin refuses"):
        SimConfig(allow_args=("--bogus",))
    with pytest.raises(ValueError, match="kv_event_format"):
        SimConfig(kv_event_format="json")
    config, _ = structure({"ttft_ms": 5, "faults": ["hang-at-start"]}, SimConfig, path="config.engines.sim")
    assert config.faults == ("hang-at-start",)
    with pytest.raises(SpecError, match="unknown field"):
        structure({"ttft": 5}, SimConfig, path="config.engines.sim")


KEYS = st.text(alphabet=string.ascii_letters + string.digits, min_size=16, max_size=64)


@settings(max_examples=50, deadline=None)
@given(key=KEYS, rank=st.integers(0, 1), port=st.integers(1, 65535), threads=st.integers(0, 64))
def test_the_key_never_reaches_argv_and_rendering_is_pure(
    key: str, rank: int, port: int, threads: int
) -> None:
    spec = two_node_spec(rank, api_key=key, http_port=port, threads=threads)
    engine = engine_for(sim(), "sim")
    first, second = engine.commands(spec), engine.commands(spec)
    assert first == second
    (command,) = first
    assert all(key not in arg for arg in command.argv())
    assert command.env["ENGINEKIT_API_KEY"] == key
    assert ("--threads" in command.args) == (threads > 0)


EXAMPLES = Path(__file__).parents[3] / "examples"


@pytest.mark.parametrize(
    "name", ["sim-single.toml", "sim-two-node-leader.toml", "sim-two-node-worker.toml", "sim-faults.toml"]
)
def test_examples_render(name: str) -> None:
    path = EXAMPLES / name
    if not path.exists():
        pytest.skip(f"{path} is not in this checkout")
    spec, _ = structure(load_document(path), ShardSpec, path="spec")
    plan = engine_for(sim(), "sim").plan(spec)
    assert plan.commands
    assert plan.serves_http == spec.is_leader()
