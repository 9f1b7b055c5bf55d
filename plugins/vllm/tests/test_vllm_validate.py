"""Every refusal of the vLLM plugin's ``validate``, its message included, and its config errors."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from enginekit import Adapter, GPUInfo, Registry
from enginekit.base.errors import EngineUnavailable, SpecError
from enginekit.plugin import parse_version
from enginekit.spec.convert import structure
from enginekit.testing import engine_for
from enginekit_vllm import VllmConfig, VllmEngine
from enginekit_vllm.argpolicy import SYNTAX
from enginekit_vllm.flags import ALLOWABLE, HOST_ACCESS, PATH_KEYS
from enginekit_vllm.known import short_aliases
from vllm_specs import H100, profile

P = "profile 'llama70b-h100x8': "
ALLOW = 'refused unless the site allows it (engines.vllm.allow_args = ["{}"])'
T4 = (GPUInfo(index=0, name="Tesla T4", compute_capability="7.5"),)
V100 = (GPUInfo(index=0, name="Tesla V100-SXM2-32GB", compute_capability="7.0"),)


def problems(args: Sequence[str] = (), gpus: Sequence[GPUInfo] = (), **config: object) -> list[str]:
    engine = engine_for(VllmEngine(VllmConfig(**config)), "vllm")  # type: ignore[arg-type]
    return engine.validate(profile(tp=1, args=tuple(args)), gpus)


def test_a_realistic_profile_is_valid() -> None:
    assert engine_for(VllmEngine(), "vllm").validate(profile(), H100) == []
    assert problems(["--max-lora-rank", "64", "--enable-prefix-caching", "--dtype=bfloat16"]) == []


@pytest.mark.parametrize(
    ("args", "token", "option", "instead"),
    [
        (["--port", "1"], "--port", "--port", "the shard spec's http_port is where vLLM listens"),
        (["--host=0.0.0.0"], "--host=0.0.0.0", "--host", "the shard spec's bind_addr is where vLLM listens"),
        (["--tensor_parallel_size", "8"], "--tensor_parallel_size", "--tensor-parallel-size", "set profile.tp"),
        (["-tp", "8"], "-tp", "--tensor-parallel-size", "set profile.tp"),
        (["-t", "8"], "-t", "--tensor-parallel-size", "set profile.tp"),
        (["--tensor-para=8"], "--tensor-para=8", "--tensor-parallel-size", "set profile.tp"),
        (["-pp=2"], "-pp=2", "--pipeline-parallel-size", "set profile.pp"),
        (["--served-model-name", "x"], "--served-model-name", "--served-model-name", "set profile.served_model_name"),
        (["--model", "/m"], "--model", "--model", "set profile.model_path; enginekit passes it as vLLM's positional model"),
        (["--uds", "/run/v.sock"], "--uds", "--uds", "the shard serves TCP on the shard spec's bind_addr and http_port"),
        (["--device-ids", "0"], "--device-ids", "--device-ids", "placement picks the GPUs (gpu_indices, given as CUDA_VISIBLE_DEVICES)"),
    ],
)  # fmt: skip
def test_managed_flags_are_refused_with_the_field_to_use(
    args: list[str], token: str, option: str, instead: str
) -> None:
    assert problems(args) == [
        f"{P}args: {token.split('=')[0]!r} sets {option}, which enginekit manages; {instead}"
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["--nnodes=2"], ["-n", "2"], ["--node-rank", "1"], ["-r", "1"], ["--master-addr", "10.0.0.1"],
        ["--master_port", "1"], ["--headless"], ["--distributed-executor-backend", "ray"],
        ["--enable-lora"], ["--disable-lora"], ["--no-enable-lora"], ["--lora-modules", "a=/a"],
        ["--max-loras", "4"], ["--kv-events-config", '{"enable_kv_cache_events": true}'],
        ["--kv-events-config.endpoint", "tcp://*:5557"], ["--grpc"], ["--data-parallel-size", "2"],
        ["-dp", "2"], ["-dpa", "10.0.0.1"], ["--data_parallel_address=10.0.0.1"],
    ],
)  # fmt: skip
def test_every_spelling_of_a_managed_flag_is_caught(args: list[str]) -> None:
    (problem,) = problems(args)
    assert problem.startswith(f"{P}args: {args[0].split('=')[0]!r} sets --")
    assert "which enginekit manages" in problem


def test_placement_lora_and_kv_event_messages() -> None:
    assert problems(["--nnodes", "2"]) == [
        f"{P}args: '--nnodes' sets --nnodes, which enginekit manages; set profile.nodes (with "
        "gpus_per_node); the shard spec's rank, leader_addr and leader_port place each node, and the "
        "node config's engines.vllm.multinode picks Ray or native"
    ]
    assert problems(["--max-loras", "8"]) == [
        f"{P}args: '--max-loras' sets --max-loras, which enginekit manages; list the adapters in "
        "profile.adapters; enginekit sets the LoRA flags from them"
    ]
    assert problems(["--kv-events-config.endpoint", "tcp://*:1"]) == [
        f"{P}args: '--kv-events-config.endpoint' sets --kv-events-config, which enginekit manages; set "
        "profile.kv_events = true; enginekit points the publisher at the agent's loopback port"
    ]
    assert problems(["-dp", "2"]) == [
        f"{P}args: '-dp' sets --data-parallel-size, which enginekit manages; set profile.dp, "
        "dp_per_node and dp_balancing; the replica's layout gives every process its ranks, leader "
        "and ports (enginekit layout REPLICA)"
    ]


@pytest.mark.parametrize(
    ("args", "option", "why"),
    [
        (["--trust-remote-code"], "--trust-remote-code", "runs Python code shipped in the model repository"),
        (["--trust_remote_code"], "--trust-remote-code", "runs Python code shipped in the model repository"),
        (["--trust-remote"], "--trust-remote-code", "runs Python code shipped in the model repository"),
        (["--trust-remote-code=true"], "--trust-remote-code", "runs Python code shipped in the model repository"),
        (["--worker-cls", "evil.Worker"], "--worker-cls", "imports the worker class named in its value"),
        (["--worker-extension-cls=evil.X"], "--worker-extension-cls", "imports the worker extension class named in its value"),
        (["--scheduler-cls", "evil.S"], "--scheduler-cls", "imports the scheduler class named in its value"),
        (["--middleware", "evil.mw"], "--middleware", "imports the ASGI middleware named in its value"),
        (["--tool-parser-plugin", "/tmp/p.py"], "--tool-parser-plugin", "imports the Python file named in its value"),
        (["--logits-processors", "evil.LP"], "--logits-processors", "imports the logits processor classes named in its value"),
        (["--config", "/tmp/x.yaml"], "--config", "reads options from a YAML file enginekit never sees, refused ones included"),
        (["--tool-server", "demo"], "--tool-server", "connects the model to tool servers; 'demo' runs model-generated code"),
    ],
)  # fmt: skip
def test_code_loading_flags_are_refused_unless_allowed(args: list[str], option: str, why: str) -> None:
    assert problems(args) == [f"{P}args: {args[0].split('=')[0]!r} ({option}) {why}; {ALLOW.format(option)}"]
    assert problems(args, allow_args=(option,)) == []


def test_an_ambiguous_prefix_is_refused_for_every_flag_it_could_mean() -> None:
    # argparse itself stops at "--trust" (ambiguous), so refusing is never wrong here.
    assert any("(--trust-remote-code)" in p for p in problems(["--trust"]))


@pytest.mark.parametrize(
    ("args", "option", "key"),
    [
        (["--kv-transfer-config.kv_connector_module_path", "evil"], "--kv-transfer-config", "kv_connector_module_path"),
        (["--kv-transfer-config", '{"kv_connector_module_path": "evil"}'], "--kv-transfer-config", "kv_connector_module_path"),
        (["--kv_transfer_config={\"kv-connector-module-path\": \"evil\"}"], "--kv-transfer-config", "kv_connector_module_path"),
        (["--kv-transfer-config", '{"kv_connector_module\\u005fpath": "evil"}'], "--kv-transfer-config", "kv_connector_module_path"),
        (["--kv-transfer-config", '{"cpu_bytes_to_use": 80m, "kv_connector_module_path": "e"}'], "--kv-transfer-config", "kv_connector_module_path"),
        (["-cc.backend", "evil.backend"], "--compilation-config", "backend"),
        (["--compilation-config", '{"backend": "evil.compile"}'], "--compilation-config", "backend"),
        (["--ec-transfer-config.ec_connector_module_path", "e"], "--ec-transfer-config", "ec_connector_module_path"),
        (["--logging-config.pylogging_config_file", "/tmp/l.json"], "--logging-config", "pylogging_config_file"),
    ],
)  # fmt: skip
def test_a_json_flags_code_naming_key_is_refused_unless_allowed(
    args: list[str], option: str, key: str
) -> None:
    assert problems(args) == [
        f"{P}args: {args[0].split('=')[0]!r} ({option}) sets {key}, which imports the code it names; {ALLOW.format(option)}"
    ]
    assert problems(args, allow_args=(option,)) == []


@pytest.mark.parametrize(
    "args",
    [
        ["--kv-transfer-config", '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'],
        ["--kv-transfer-config", '{"kv_connector": "OffloadingConnector", "cpu_bytes_to_use": 80m}'],
        ["--compilation-config", '{"cudagraph_capture_sizes": [1, 2, 4]}'],
        ["-cc.mode", "3"],
        ["--compilation-config"],
    ],
)
def test_the_rest_of_those_json_flags_passes(args: list[str]) -> None:
    assert problems(args) == []


@pytest.mark.parametrize(
    "args", [["--api-key", "sk-live-9f8e"], ["--api-key=sk-live-9f8e"], ["--api_key", "x"]]
)
def test_an_api_key_in_the_args_is_refused_and_never_echoed(args: list[str]) -> None:
    assert problems(args) == [
        f"{P}args[0]: --api-key puts a secret on the command line, which every local user can read; "
        "the key comes from the shard spec's api_key and reaches vLLM only as VLLM_API_KEY"
    ]
    assert problems(["--api-key"]) == problems(args)


def test_an_hf_token_value_is_refused_but_a_bare_flag_passes() -> None:
    (problem,) = problems(["--dtype", "half", "--hf-token=hf_abcdef"])
    assert problem.startswith(f"{P}args[2]: --hf-token puts a secret on the command line")
    assert "hf_abcdef" not in problem
    assert problems(["--hf-token", "--dtype", "half"]) == []


def test_quantization_floor_of_the_configured_release() -> None:
    assert problems(["--quantization", "fp8"], T4) == []
    assert problems(["-q", "mxfp4"], T4) == [
        f"{P}args: --quantization mxfp4 in vLLM 0.34.0 needs compute capability 8.0, GPU 0 (Tesla T4) "
        "has 7.5; place the profile on newer GPUs or choose another quantization"
    ]
    assert problems(["--quantization=fp8"], T4, version="0.20.0") == [
        f"{P}args: --quantization fp8 in vLLM 0.20.0 (floor as read from vLLM 0.11.1, the nearest "
        "release read) needs compute capability 8.0, GPU 0 (Tesla T4) has 7.5; place the profile on "
        "newer GPUs or choose another quantization"
    ]
    assert problems(["--quantization", "fp8"], T4, version="0.23.0") == []
    assert problems(["--quantization", "mxfp4"], H100) == []


def test_the_gpu_floor_of_the_release() -> None:
    assert problems([], V100) == [
        f"{P}vLLM 0.34.0 needs compute capability 7.5, GPU 0 (Tesla V100-SXM2-32GB) has 7.0; place "
        "the profile on newer GPUs"
    ]
    assert problems([], V100, version="0.23.0") == []
    unknown = (GPUInfo(index=0, name="NVIDIA H100", compute_capability=""),)
    assert problems(["-q", "mxfp4"], unknown) == []


def test_removed_quantization_methods_follow_the_version() -> None:
    assert problems(["--quantization", "gguf"]) == [
        f"{P}args: --quantization gguf is not a method of vLLM 0.34.0 (last seen in 0.23.0, gone by "
        "0.27.1): choose a method this release has, or set engines.vllm.version to the release the "
        "node really runs"
    ]
    assert problems(["--quantization", "gguf"], version="0.23.0") == []
    assert problems(["--quantization", "bitsandbytes"], version="0.27.1") == []
    assert len(problems(["--quantization", "bitsandbytes"])) == 1
    assert len(problems(["--quantization", "hqq"], version="0.23.0")) == 1


def test_native_multi_node_needs_0_11_1() -> None:
    two = profile(tp=8, pp=2, gpus_per_node=8, nodes=2)
    old = engine_for(VllmEngine(VllmConfig(version="0.10.2")), "vllm")
    assert old.validate(two, H100) == [
        f"{P}nodes = 2 needs multi-node serving, and the node config's engines.vllm.multinode = "
        '"native" needs vLLM 0.11.1 or newer (--nnodes, --node-rank, --master-addr and --master-port '
        "arrived then), but engines.vllm.version is '0.10.2': set engines.vllm.multinode = \"ray\", or "
        "upgrade vLLM"
    ]
    assert engine_for(VllmEngine(VllmConfig(version="0.10.2", multinode="ray")), "vllm").validate(two) == []
    assert engine_for(VllmEngine(), "vllm").validate(two, H100) == []


def test_mig_instances_are_refused_with_the_reason() -> None:
    mig = (GPUInfo(index=1003, name="NVIDIA A100-SXM4-40GB MIG 3g.20gb", compute_capability="8.0"),)
    (problem,) = problems([], mig)
    assert problem.startswith(
        f"{P}GPU 1003 (NVIDIA A100-SXM4-40GB MIG 3g.20gb) is a MIG instance, and vLLM 0.34.0 resolves "
        "a UUID in CUDA_VISIBLE_DEVICES with NVML"
    )
    assert problem.endswith("would start only by accident: place this profile on whole GPUs")
    assert "int()" in problems([], mig, version="0.20.1")[0]


def test_a_served_name_that_reads_as_a_flag() -> None:
    engine = engine_for(VllmEngine(), "vllm")
    assert engine.validate(profile(served_model_name="--trust-remote-code")) == [
        f"{P}served_model_name '--trust-remote-code' starts with '-', where vLLM's parser reads a flag; "
        "choose a name that starts with a letter or digit"
    ]


def test_every_problem_is_reported_at_once() -> None:
    found = problems(["--port", "1", "--trust-remote-code", "--api-key", "k", "-q", "gguf"], V100)
    assert len(found) == 5, found


def test_single_dash_prefixes_are_unambiguous_only() -> None:
    aliases = short_aliases()
    assert aliases["-t"] == "--tensor-parallel-size"
    assert aliases["-as"] == "--api-server-count"
    assert "-d" not in aliases
    assert "-p" not in aliases
    assert "-a" not in aliases


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"version": "0.34.x"}, "engines.vllm: version: '0.34.x' is not a release number: expected "
         "numbers separated by dots, such as '0.34.0'"),
        # Every fact is keyed by a final release: a pre-release's place among them is a guess.
        ({"version": "0.34.0rc1"}, "engines.vllm: version: '0.34.0rc1' is a pre-release or "
         "development build: give the final release the node runs, such as '0.34.0'"),
        ({"version": "0.35.0.dev7"}, "engines.vllm: version: '0.35.0.dev7' is a pre-release"),
        ({"multinode": "mpi"}, "engines.vllm: multinode 'mpi' is not a way vLLM spans nodes"),
        ({"allow_args": ["--port"]}, "engines.vllm: allow_args: '--port' is set by enginekit itself"),
        ({"allow_args": ["--api-key"]}, "engines.vllm: allow_args: '--api-key' is set by enginekit itself"),
        ({"allow_args": ["--hf-token"]}, "engines.vllm: allow_args: '--hf-token' is set by enginekit "
         "itself or carries a secret"),
        ({"allow_args": ["--trust_remote_code"]}, "engines.vllm: allow_args: '--trust_remote_code' is not "
         "a flag this plugin refuses; name flags in their canonical spelling"),
        ({"executable": ""}, "engines.vllm: executable '': expected a program name or an absolute path"),
        ({"executable": "bin/vllm"}, "engines.vllm: executable 'bin/vllm': a relative path depends on the "
         "agent's working directory"),
        ({"ray_executable": "-ray"}, "engines.vllm: ray_executable '-ray': expected a program name"),
        ({"verison": "0.34.0"}, "engines.vllm.verison: unknown field"),
    ],
)  # fmt: skip
def test_config_errors_are_clear(raw: dict[str, object], message: str) -> None:
    with pytest.raises(SpecError) as error:
        structure(raw, VllmConfig, path="engines.vllm")
    assert error.value.problems[0].startswith(message)


def test_config_versions() -> None:
    config, _ = structure({"version": "0.34.0+cpu", "multinode": "ray"}, VllmConfig, path="engines.vllm")
    assert config.release == parse_version("0.34.0")
    assert str(config.release) == "0.34.0+cpu", "messages show the release as configured"
    assert config.multinode == "ray"
    assert (
        VllmConfig(version="0.11").release == parse_version("0.11.0") < VllmConfig(version="0.11.1").release
    )
    assert VllmConfig(version="0.10.1.1").release > VllmConfig(version="0.10.1").release
    # A post release follows its final release: the final release's facts apply to it.
    assert VllmConfig(version="0.6.3.post1").release > VllmConfig(version="0.6.3").release


def test_a_bad_config_section_makes_the_engine_unavailable_with_the_reason() -> None:
    registry = Registry.from_entry_points(config={"vllm": {"version": "latest"}})
    if "vllm" not in registry.names():
        pytest.skip("enginekit-vllm is not installed (entry points)")
    with pytest.raises(EngineUnavailable, match=r"version: 'latest' is not a release number"):
        registry.engine("vllm")


def test_invalid_adapter_names_are_refused() -> None:
    bad = (Adapter(name="a=b", path="/a"), Adapter(name="x,y", path="/b"), Adapter(name="ok", path="-x"))
    found = engine_for(VllmEngine(), "vllm").validate(profile(adapters=bad))
    assert found == [
        f"{P}adapters[0]: name 'a=b' must be 1-255 letters, digits, '.', '_' or '-', starting with a "
        "letter or digit",
        f"{P}adapters[1]: name 'x,y' must be 1-255 letters, digits, '.', '_' or '-', starting with a "
        "letter or digit",
        f"{P}adapters[2]: path '-x' starts with '-', where a parser reads a flag",
    ]


# --- positional tokens --------------------------------------------------------------------------

BARE = (
    "not an option, and {why}, so vLLM would read it as a positional argument; a profile's args "
    "may give none (enginekit passes the model itself): remove it, or put it right after the "
    "option it is a value of"
)


@pytest.mark.parametrize(
    ("args", "index", "why"),
    [
        (["/tmp/other-model"], 0, "no option comes before it to take it as a value"),
        (["--enforce-eager", "x"], 1, "'--enforce-eager' (args[0]) before it takes no value"),
        (["--no-enforce-eager", "x"], 1, "'--no-enforce-eager' (args[0]) before it takes no value"),
        (["--max-model-len=4096", "x"], 1, "'--max-model-len' (args[0]) before it has its value already, after '='"),
        (["--max_model_len", "4096", "x"], 2, "'--max_model_len' (args[0]) before it takes exactly 1 value"),
        (["--gpu-mem", "0.9", "x"], 2, "'--gpu-mem' (args[0]) before it takes exactly 1 value"),
        (["-O3", "x"], 1, "'-O' (args[0]) before it has its value attached"),
        (["--compilation-config.mode", "3", "x"], 2, "'--compilation-config.mode' (args[0]) before it takes exactly 1 value"),
    ],
)  # fmt: skip
def test_a_bare_token_vllm_would_read_as_a_positional_argument_is_refused(
    args: list[str], index: int, why: str
) -> None:
    assert problems(args) == [f"{P}args[{index}]: {BARE.format(why=why)}"]


@pytest.mark.parametrize(
    "args",
    [
        ["--enforce-eager"],
        ["--max-model-len", "4096"],
        ["--gpu-memory-utilization=0.9"],
        ["--max-model-len", "4096", "--enforce-eager", "--gpu-memory-utilization=0.9", "--seed", "-1"],
        ["--cudagraph-capture-sizes", "1", "2", "4", "8", "--enforce-eager"],
        ["--lora-target-modules", "q_proj", "v_proj"],
        ["--compilation-config.mode", "3", "-O", "3"],
        ["-O3", "--kv-cache-dtype", "fp8"],
        ["--kv-transfer-config", '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'],
        ["--no-enforce-eager", "--max-num-seqs", "128"],
    ],
)
def test_values_still_pass_with_the_option_they_belong_to(args: list[str]) -> None:
    assert problems(args) == []


# --- flags that write where their value says, or reach another host -----------------------------


@pytest.mark.parametrize(
    ("args", "option", "why"),
    [
        (["--download-dir", "/etc/cron.d"], "--download-dir", "downloads model weights into the directory it names, as root"),
        (["--download_dir=/etc/cron.d"], "--download-dir", "downloads model weights into the directory it names, as root"),
        (["--download-d", "/x"], "--download-dir", "downloads model weights into the directory it names, as root"),
        (["--otlp-traces-endpoint", "http://collector:4317"], "--otlp-traces-endpoint", "sends a trace of every request to the collector it names"),
        (["--otlp_traces=http://collector:4317"], "--otlp-traces-endpoint", "sends a trace of every request to the collector it names"),
        (["--mm-encoder-fp8-scale-save-path", "/root/x.json"], "--mm-encoder-fp8-scale-save-path", "writes a scales file to the path it names, as root"),
        (["--mm_encoder_fp8_scale_save_p=/x.json"], "--mm-encoder-fp8-scale-save-path", "writes a scales file to the path it names, as root"),
    ],
)  # fmt: skip
def test_host_reaching_flags_are_refused_unless_allowed(args: list[str], option: str, why: str) -> None:
    assert problems(args) == [f"{P}args: {args[0].split('=')[0]!r} ({option}) {why}; {ALLOW.format(option)}"]
    assert problems(args, allow_args=(option,)) == []


COMPILE = "--compilation-config"
PROFILER = "--profiler-config"
CACHE = "cache_dir, the directory compiled graphs are written to, as root"
DUMP = "debug_dump_path, the directory compilation debug dumps are written to, as root"
TRACES = "torch_profiler_dir, the directory profiler traces are written to, as root"


@pytest.mark.parametrize(
    ("args", "option", "sets"),
    [
        ([COMPILE, '{"cache_dir": "/etc"}'], COMPILE, CACHE),
        (['--compilation_config={"debug_dump_path": "/etc"}'], COMPILE, DUMP),
        (["--compilation-config.cache_dir", "/etc"], COMPILE, CACHE),
        (["--compilation-config.debug_dump_path=/etc"], COMPILE, DUMP),
        (["--compilation-c.cache-dir", "/etc"], COMPILE, CACHE),
        (["-cc.cache_dir", "/etc"], COMPILE, CACHE),
        (["-cc", '{"mode": 3, "debug_dump_path": "/etc"}'], COMPILE, DUMP),
        # -O spelled --compilation-config before 0.34 took it for --optimization-level.
        (["-O", '{"cache_dir": "/etc"}'], COMPILE, CACHE),
        (["-O.debug_dump_path", "/etc"], COMPILE, DUMP),
        ([PROFILER, '{"profiler": "torch", "torch_profiler_dir": "/etc"}'], PROFILER, TRACES),
        (["--profiler-config.torch_profiler_dir", "/etc"], PROFILER, TRACES),
        (["--profiler_config.torch-profiler-dir=/etc"], PROFILER, TRACES),
    ],
)
def test_a_json_flags_host_path_key_is_refused_unless_allowed(
    args: list[str], option: str, sets: str
) -> None:
    assert problems(args) == [
        f"{P}args: {args[0].split('=')[0]!r} ({option}) sets {sets}; {ALLOW.format(option)}"
    ]
    assert problems(args, allow_args=(option,)) == []


@pytest.mark.parametrize(
    "args",
    [
        [COMPILE, '{"mode": 3, "cudagraph_capture_sizes": [1, 2]}'],
        ["--compilation-config.mode", "3"],
        [PROFILER, '{"profiler": "cuda"}'],
        ["--profiler-config.delay_iterations", "2"],
    ],
)
def test_their_other_keys_pass(args: list[str]) -> None:
    assert problems(args) == []


def test_the_old_short_form_of_the_compilation_config_cannot_name_a_backend_either() -> None:
    assert problems(["-O", '{"backend": "evil.compile"}']) == [
        f"{P}args: '-O' ({COMPILE}) sets backend, which imports the code it names; {ALLOW.format(COMPILE)}"
    ]
    assert problems(["-O.backend", "evil.compile"]) != []


def test_the_site_may_allow_the_new_flags() -> None:
    config = VllmConfig(allow_args=("--download-dir", "--profiler-config", "--otlp-traces-endpoint"))
    assert config.allow_args == ("--download-dir", "--profiler-config", "--otlp-traces-endpoint")


def test_every_host_reaching_flag_is_a_known_option_so_its_prefixes_are_caught() -> None:
    for flag in (*HOST_ACCESS, *PATH_KEYS):
        assert flag in SYNTAX.known, flag
        assert flag in ALLOWABLE, flag


@pytest.mark.parametrize(("value", "read_as"), [("-nan", "--nnodes"), ("-inf", "-inf"), ("-1e3", "-1e3")])
def test_a_value_argparse_reads_as_an_option_is_judged_as_one(value: str, read_as: str) -> None:
    # float() reads each as a number; vLLM's argparse reads them as options (-nan as -n an,
    # --nnodes), so the value of --compilation-config would hide an option.
    (found,) = problems(["--compilation-config", value])
    if read_as == "--nnodes":
        assert f"args: {value!r} sets --nnodes, which enginekit manages" in found
    else:
        assert "args[1] follows '--compilation-config', which takes a value, but starts with '-'" in found


@pytest.mark.parametrize("value", ["-1", "-0.5", "-.5"])
def test_a_negative_number_is_a_value(value: str) -> None:
    assert problems(["--seed", value]) == []
