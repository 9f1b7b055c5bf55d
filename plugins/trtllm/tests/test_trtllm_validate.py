"""Every refusal of the TensorRT-LLM plugin's validate hook, each with its message."""

from __future__ import annotations

import pytest
from enginekit.base.errors import SpecError
from enginekit.platform.registry import Registry
from enginekit.spec.model import Adapter, GPUInfo, Profile
from enginekit.testing import engine_for
from enginekit_trtllm import TrtllmConfig, TrtllmEngine

PY = "/opt/tensorrt-llm/bin/python"


def gpus(count: int, name: str, cap: str) -> tuple[GPUInfo, ...]:
    return tuple(GPUInfo(index=i, name=name, compute_capability=cap) for i in range(count))


A100 = gpus(2, "NVIDIA A100-SXM4-80GB", "8.0")
L40S = gpus(2, "NVIDIA L40S", "8.9")
H100 = gpus(2, "NVIDIA H100 80GB HBM3", "9.0")
B200 = gpus(2, "NVIDIA B200", "10.0")
T4 = gpus(2, "Tesla T4", "7.5")


def profile(**fields: object) -> Profile:
    base: dict[str, object] = {"name": "p", "engine": "trtllm", "tp": 2, "model_path": "/models/llama-3.1-8b"}
    return Profile(**{**base, **fields})  # type: ignore[arg-type]


def validate(prof: Profile, on: tuple[GPUInfo, ...] = (), **config: object) -> list[str]:
    plugin = TrtllmEngine(TrtllmConfig(python=PY, **config))  # type: ignore[arg-type]
    return engine_for(plugin, "trtllm").validate(prof, on)


def test_a_plain_profile_is_valid() -> None:
    assert (
        validate(profile(args=("--max_batch_size=64", "--kv_cache_free_gpu_memory_fraction", "0.8")), H100)
        == []
    )


def test_common_checks_still_run() -> None:
    assert validate(profile(model_path="")) == ["profile 'p': model path is empty"]


def test_multi_node_refused_with_the_reason() -> None:
    assert validate(profile(tp=16, nodes=2, gpus_per_node=8)) == [
        "profile 'p': nodes is 2, but TensorRT-LLM needs one MPI world across the nodes, started by "
        "mpirun or srun with every rank running trtllm-llmapi-launch, and launching each node's shard "
        "on its own cannot form it; use nodes = 1"
    ]


def test_adapters_need_the_pytorch_backend() -> None:
    prof = profile(adapters=(Adapter(name="a", path="/adapters/a"),))
    assert validate(prof) == []
    # 1.2.1 still has the tensorrt backend (1.3.0rc22 on offer only pytorch and _autodeploy).
    assert validate(prof, backend="tensorrt", version="1.2.1") == [
        "profile 'p': adapters: TensorRT-LLM takes LoRA adapters at start-up only on the pytorch backend, "
        "and this node runs 'tensorrt' ([engines.trtllm] backend); remove the adapters or serve the "
        "profile where the backend is pytorch"
    ]


def test_kv_events_refused() -> None:
    assert validate(profile(kv_events=True)) == [
        "profile 'p': kv_events: trtllm-serve publishes no KV-cache events to a port (it only answers "
        "POST /kv_cache_events); set kv_events = false"
    ]


def test_served_name_on_a_release_without_the_flag() -> None:
    assert validate(profile(served_model_name="llama"), version="1.3.0rc6") == [
        "profile 'p': served_model_name 'llama': TensorRT-LLM 1.3.0rc6 ([engines.trtllm] version) has no "
        "--served_model_name (it came in 1.3.0rc7), and clients would have to ask for the model path "
        "instead; leave served_model_name empty or run a newer release"
    ]
    assert validate(profile(served_model_name="llama"), version="1.3.0") == []


@pytest.mark.parametrize(
    ("args", "option", "instead"),
    [
        (("--tp_size", "4"), "--tp_size", "set the profile's tp instead"),
        (("--tensor_parallel_size=4",), "--tensor_parallel_size", "set the profile's tp instead"),
        (("--pp_size", "2"), "--pp_size", "set the profile's pp instead"),
        (("--pipeline_parallel_size", "2"), "--pipeline_parallel_size", "set the profile's pp instead"),
        (
            ("--config", "/tmp/x.yaml"),
            "--config",
            "enginekit writes the options file itself (LoRA adapters from the profile's adapters, "
            "Prometheus metrics), and a YAML of any LLM API option would bypass every argument check",
        ),
        (
            ("--extra_llm_api_options=/tmp/x.yaml",),
            "--extra_llm_api_options",
            "enginekit writes the options file itself (LoRA adapters from the profile's adapters, "
            "Prometheus metrics), and a YAML of any LLM API option would bypass every argument check",
        ),
        (("--host", "0.0.0.0"), "--host", "the shard's bind_addr decides where it listens"),
        (("--port", "1"), "--port", "the shard's http_port decides where it listens"),
        (("--served_model_name", "x"), "--served_model_name", "set the profile's served_model_name instead"),
        (("--backend", "tensorrt"), "--backend", "the site sets it ([engines.trtllm] backend)"),
        (
            ("--gpus_per_node", "8"),
            "--gpus_per_node",
            "placement decides the GPUs; set the profile's gpus_per_node instead",
        ),
        (
            ("--cp_size", "2"),
            "--cp_size",
            "the world is tp x pp GPUs; context parallelism would need more than the shard has",
        ),
        (
            ("--grpc",),
            "--grpc",
            "enginekit health-checks and routes to the OpenAI HTTP API, which --grpc replaces",
        ),
    ],
)
def test_managed_flags_refused(args: tuple[str, ...], option: str, instead: str) -> None:
    assert validate(profile(args=args)) == [
        f"profile 'p': args: {args[0].split('=')[0]!r} sets {option}, which enginekit manages; {instead}"
    ]


@pytest.mark.parametrize(
    ("args", "option", "why"),
    [
        (
            ("--trust_remote_code",),
            "--trust_remote_code",
            "runs Python code shipped with the model from the Hugging Face Hub",
        ),
        (
            ("--custom_module_dirs", "/m"),
            "--custom_module_dirs",
            "imports every Python module in the directories it names",
        ),
        (("--custom_tokenizer=a.b.C",), "--custom_tokenizer", "takes a Python import path and imports it"),
        (
            ("--middleware", "m.Auth"),
            "--middleware",
            "imports ASGI middleware from the Python import path it names",
        ),
        (
            ("--post_processor_hook", "m.Hook"),
            "--post_processor_hook",
            "imports a post-processing hook class from the import path it names",
        ),
        (
            ("--disagg_cluster_uri", "etcd://x"),
            "--disagg_cluster_uri",
            "registers this server with the disaggregated cluster it names",
        ),
        (
            ("--metadata_server_config_file", "/f"),
            "--metadata_server_config_file",
            "registers this server with the metadata server a file names",
        ),
        (
            ("--otlp_traces_endpoint", "http://x"),
            "--otlp_traces_endpoint",
            "sends request traces to the endpoint it names",
        ),
    ],
)
def test_risky_options_refused_unless_allowed(args: tuple[str, ...], option: str, why: str) -> None:
    assert validate(profile(args=args)) == [
        f"profile 'p': args: {args[0].split('=')[0]!r} ({option}) {why}; refused unless the site allows it "
        f'(engines.trtllm.allow_args = ["{option}"])'
    ]
    assert validate(profile(args=args), allow_args=(option,)) == []


@pytest.mark.parametrize(
    "args", [("--api_key=s3cr3t-value",), ("--api-key", "s3cr3t-value"), ("--apikey", "s3cr3t-value")]
)
def test_secrets_in_args_refused_without_echoing_them(args: tuple[str, ...]) -> None:
    problems = validate(profile(args=args))
    option = args[0].split("=")[0]
    assert problems == [
        f"profile 'p': args[0]: {option} puts a secret on the command line, which every local user can "
        "read; trtllm-serve has no API key option, and enginekit takes the key from the shard spec's "
        "api_key only; drop it"
    ]
    assert "s3cr3t" not in problems[0]
    # Whatever the site allows: a secret option cannot be opened.
    assert validate(profile(args=args), allow_args=("--trust_remote_code",)) == problems


def test_unknown_options_refused_with_a_hint() -> None:
    assert validate(profile(args=("--quantization", "fp8"))) == [
        "profile 'p': args: '--quantization' is not an option of trtllm-serve serve 1.3.0rc29 (assumed: no release is configured); remove "
        "it, or, if the node's release has it, list it in engines.trtllm.allow_args; trtllm-serve has "
        "none: the checkpoint's own quantization config decides"
    ]
    # Click matches exactly: a dash spelling or a prefix is an error at start-up, found here first.
    for token in ("--tp-size", "--trust_remote", "-h"):
        [problem] = validate(profile(args=(token,)))
        assert f"args: {token!r} is not an option of trtllm-serve serve 1.3.0rc29" in problem
    # An option of a release newer than every one read, which the site vouches for.
    assert validate(profile(args=("--newer_option", "2")), allow_args=("--newer_option",)) == []


def test_an_unknown_option_without_a_hint_is_told_to_go() -> None:
    assert validate(profile(args=("--newer_option", "2"))) == [
        "profile 'p': args: '--newer_option' is not an option of trtllm-serve serve 1.3.0rc29 (assumed: no release is configured); remove "
        "it, or, if the node's release has it, list it in engines.trtllm.allow_args"
    ]


def test_every_problem_at_once() -> None:
    prof = profile(args=("--tp_size", "4", "--trust_remote_code", "--bogus"), kv_events=True)
    assert len(validate(prof)) == 4


def test_proxy_env_refused() -> None:
    # The core's env policy denies these within the otherwise open TLLM_ namespace.
    assert validate(profile(env={"TLLM_SPAWN_PROXY_PROCESS": "1"})) == [
        "profile 'p': env TLLM_SPAWN_PROXY_PROCESS: denied: TensorRT-LLM would run the model through the "
        "proxy or disaggregated instance it names instead of its own workers"
    ]
    [ours] = validate(profile(env={"TLLM_SPAWN_PROXY_PROCESS_IPC_ADDR": "tcp://203.0.113.9:1"}))
    assert ours.startswith(
        "profile 'p': env TLLM_SPAWN_PROXY_PROCESS_IPC_ADDR: denied: TensorRT-LLM would run"
    )
    [problem] = validate(profile(env={"TLLM_DISAGG_INSTANCE_IDX": "0"}))
    assert "env TLLM_DISAGG_INSTANCE_IDX" in problem
    assert validate(profile(env={"TLLM_LOG_LEVEL": "INFO"})) == []


@pytest.mark.parametrize(
    ("model", "on", "label", "generation", "has"),
    [
        ("/models/Llama-3.1-8B-Instruct-FP8", A100, "FP8", "Ada (compute capability 8.9) or later", "8.0"),
        ("nvidia/DeepSeek-R1-FP4", H100, "NVFP4", "Blackwell (compute capability 10.0) or later", "9.0"),
        ("/models/Qwen3-30B-A3B-NVFP4", H100, "NVFP4", "Blackwell (compute capability 10.0) or later", "9.0"),
        ("/models/gpt-oss-120b-mxfp4", H100, "MXFP4", "Blackwell (compute capability 10.0) or later", "9.0"),
        (
            "/models/Llama-3-8B-Instruct-AWQ",
            T4,
            "W4A16 (INT4 AWQ/GPTQ)",
            "Ampere (compute capability 8.0) or later",
            "7.5",
        ),
        ("/models/llama-w4a8", A100, "W4A8", "Ada (compute capability 8.9) or later", "8.0"),
        ("/models/llama-int8-sq", T4, "INT8 SmoothQuant", "Ampere (compute capability 8.0) or later", "7.5"),
    ],
)
def test_quantization_floors(
    model: str, on: tuple[GPUInfo, ...], label: str, generation: str, has: str
) -> None:
    name = on[0].name
    assert validate(profile(model_path=model), on) == [
        f"profile 'p': model_path {model!r} names a {label} checkpoint, which TensorRT-LLM runs only on "
        f"{generation}, but GPU 0 ({name}) has {has}, GPU 1 ({name}) has {has}; place the profile on "
        f"newer GPUs or use another checkpoint"
    ]


def test_quantization_within_floors() -> None:
    assert validate(profile(model_path="/models/Llama-3.1-8B-Instruct-FP8"), L40S) == []
    assert validate(profile(model_path="/models/Llama-3.1-8B-Instruct-FP8"), H100) == []
    assert validate(profile(model_path="nvidia/DeepSeek-R1-FP4"), B200) == []
    assert validate(profile(model_path="/models/Llama-3-8B-AWQ"), A100) == []
    # Unknown capability: the engine will say it; nothing is blocked on a parse.
    assert validate(profile(model_path="nvidia/DeepSeek-R1-FP4"), gpus(2, "?", "")) == []
    # A marker must be a whole token of the last path component.
    assert validate(profile(model_path="/fp8/models/llama-fp80"), A100) == []


def test_kv_cache_dtype_floors() -> None:
    assert validate(profile(args=("--kv_cache_dtype", "fp8")), T4) == [
        "profile 'p': args: --kv_cache_dtype fp8 asks for an FP8 KV cache, which TensorRT-LLM runs only on "
        "Ampere (compute capability 8.0) or later, but GPU 0 (Tesla T4) has 7.5, GPU 1 (Tesla T4) has 7.5; "
        "place the profile on newer GPUs or use another checkpoint"
    ]
    assert validate(profile(args=("--kv_cache_dtype=fp8",)), A100) == []
    [problem] = validate(profile(args=("--kv_cache_dtype=nvfp4",)), H100)
    assert "asks for an NVFP4 KV cache" in problem


def test_formats_trtllm_does_not_load() -> None:
    assert validate(profile(model_path="/models/llama-3-8b.Q4_K_M.gguf")) == [
        "profile 'p': model_path '/models/llama-3-8b.Q4_K_M.gguf' names a GGUF checkpoint, which "
        "TensorRT-LLM does not load; use a Hugging Face or ModelOpt checkpoint, or another engine"
    ]
    [problem] = validate(profile(model_path="unsloth/llama-3-8b-bnb-4bit"))
    assert "names a bitsandbytes checkpoint" in problem


def test_plan_refuses_with_every_problem() -> None:
    from enginekit.spec.model import ShardSpec

    plugin = TrtllmEngine(TrtllmConfig(python=PY))
    spec = ShardSpec(profile=profile(args=("--tp_size", "2")), gpu_indices=(0, 1), http_port=8000)
    with pytest.raises(SpecError, match="sets --tp_size, which enginekit manages"):
        engine_for(plugin, "trtllm").plan(spec, H100)


@pytest.mark.parametrize(
    ("section", "message"),
    [
        (
            {"python": "venv/bin/python"},
            "python 'venv/bin/python': a relative path depends on the agent's working directory",
        ),
        ({"python": " "}, "python ' ': expected a program name or an absolute path"),
        ({"backend": "vllm"}, "backend: expected one of pytorch, tensorrt, _autodeploy, got 'vllm'"),
        ({"version": "latest"}, "'latest' is not a release number"),
        (
            {"allow_args": ["--host"]},
            "allow_args: '--host' is set by enginekit itself or carries a secret, and cannot be allowed",
        ),
        (
            {"allow_args": ["--api_key"]},
            "allow_args: '--api_key' is set by enginekit itself or carries a secret, and cannot be allowed",
        ),
        (
            {"allow_args": ["trust_remote_code"]},
            "allow_args: 'trust_remote_code' is not a flag this plugin refuses",
        ),
        # Every profile may use it already: naming it allows nothing, so it is a mistake.
        (
            {"allow_args": ["--max_batch_size"]},
            "allow_args: '--max_batch_size' is not a flag this plugin refuses",
        ),
        ({"max_lora_rank": 0}, "max_lora_rank: expected a positive rank, got 0"),
        ({"lora_target_modules": []}, "lora_target_modules: expected TensorRT-LLM module names"),
        ({"pyhton": "/x"}, "engines.trtllm.pyhton: unknown field"),
        ({"allow_unauthenticated": "yes"}, "expected true or false"),
    ],
)
def test_bad_config_sections_fail_to_load(section: dict[str, object], message: str) -> None:
    registry = Registry.from_entry_points(config={"trtllm": section})
    [row] = [r for r in registry.statuses() if r.name == "trtllm"]
    assert row.status == "failed"
    assert message in row.detail


def test_the_interpreter_follows_the_one_executable_rule() -> None:
    # A bare name is found on the agent's PATH at launch, as every engine's program is.
    registry = Registry.from_entry_points(config={"trtllm": {"python": "python3"}})
    [row] = [r for r in registry.statuses() if r.name == "trtllm"]
    assert row.status == "ok"
    # Empty (the default) is no interpreter: this node does not offer TensorRT-LLM.
    assert TrtllmConfig().python == ""
    [row] = [r for r in Registry.from_entry_points().statuses() if r.name == "trtllm"]
    assert row.status == "unavailable"


def test_allow_args_takes_refused_options_and_options_of_newer_releases() -> None:
    config = TrtllmConfig(allow_args=("--trust_remote_code", "--chat_template", "--newer_option"))
    assert config.allow_args == ("--trust_remote_code", "--chat_template", "--newer_option")
    # An option a read release has is no allowance, even for a release that lacks it.
    with pytest.raises(ValueError, match="'--num_serve_frontends' is not a flag this plugin refuses"):
        TrtllmConfig(version="1.3.0rc22", allow_args=("--num_serve_frontends",))


def test_request_chat_templates_are_refused_unless_allowed() -> None:
    why = "renders the Jinja chat templates API clients send"
    for token in ("--allow_request_chat_template", "--allow_request_chat_template=true"):
        assert validate(profile(args=(token,))) == [
            f"profile 'p': args: '--allow_request_chat_template' (--allow_request_chat_template) {why}; "
            'refused unless the site allows it (engines.trtllm.allow_args = ["--allow_request_chat_template"])'
        ]
    allowed = ("--allow_request_chat_template",)
    assert validate(profile(args=allowed), allow_args=allowed) == []
    # Click matches exactly: the dashed spelling is no option of serve, refused as such.
    [problem] = validate(profile(args=("--allow-request-chat-template",)))
    assert "is not an option of trtllm-serve serve" in problem


BARE = (
    "not an option, and {why}, so trtllm-serve would read it as a positional argument; a "
    "profile's args may give none (enginekit passes the model itself): remove it, or put it "
    "right after the option it is a value of"
)


@pytest.mark.parametrize(
    ("args", "index", "why"),
    [
        (("/models/other",), 0, "no option comes before it to take it as a value"),
        (("--enable_chunked_prefill", "x"), 1, "'--enable_chunked_prefill' (args[0]) before it takes no value"),
        (("--max_batch_size=64", "x"), 1, "'--max_batch_size' (args[0]) before it has its value already, after '='"),
        (("--max_batch_size", "64", "x"), 2, "'--max_batch_size' (args[0]) before it takes exactly 1 value"),
    ],
)  # fmt: skip
def test_a_second_model_or_stray_value_is_refused(args: tuple[str, ...], index: int, why: str) -> None:
    # MODEL is serve's one positional argument, and enginekit gives it: Click would
    # stop at start-up on another ("Got unexpected extra argument").
    assert validate(profile(args=args)) == [f"profile 'p': args[{index}]: {BARE.format(why=why)}"]


def test_options_with_their_values_still_pass() -> None:
    args = ("--max_batch_size", "64", "--enable_chunked_prefill", "--kv_cache_free_gpu_memory_fraction=0.8")
    assert validate(profile(args=args), H100) == []
    assert validate(profile(args=("--max_seq_len", "8192", "--log_level", "info")), H100) == []
