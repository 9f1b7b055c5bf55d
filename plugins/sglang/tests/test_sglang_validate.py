"""Every refusal of the SGLang plugin, with its message, and what it must let through."""

from __future__ import annotations

import attrs
import pytest
from enginekit import Adapter, EngineError, GPUInfo, Profile, Registry, ShardSpec, SpecError
from enginekit.plugin import parse_version
from enginekit.spec.convert import structure
from enginekit.testing import engine_for
from enginekit_sglang import SglangConfig, SglangEngine
from enginekit_sglang.build import server_args
from enginekit_sglang.flags import ALLOWABLE, MANAGED, READ_AS_PREFIX, SECRETS, SYNTAX, table

H100 = [GPUInfo(index=i, name="NVIDIA H100 80GB HBM3", compute_capability="9.0") for i in range(4)]
L40S = [GPUInfo(index=i, name="NVIDIA L40S", compute_capability="8.9") for i in range(4)]
T4 = [GPUInfo(index=i, name="Tesla T4", compute_capability="7.5") for i in range(4)]


def profile(*args: str, **fields: object) -> Profile:
    return Profile(name="p", engine="sglang", tp=4, model_path="/models/m", args=args, **fields)  # type: ignore[arg-type]


def problems(prof: Profile, gpus: list[GPUInfo] | None = None, **config: object) -> list[str]:
    engine = engine_for(SglangEngine(SglangConfig(**config)), "sglang")  # type: ignore[arg-type]
    return engine.validate(prof, gpus or [])


def only(prof: Profile, gpus: list[GPUInfo] | None = None, **config: object) -> str:
    found = problems(prof, gpus, **config)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--port", "1"),
            "profile 'p': args: '--port' sets --port, which enginekit manages; the shard's http_port sets it",
        ),
        (
            ("--host=0.0.0.0",),
            "profile 'p': args: '--host' sets --host, which enginekit manages; the shard's bind_addr sets it",
        ),
        (
            ("--tp", "8"),
            "profile 'p': args: '--tp' sets --tp-size, which enginekit manages; set the profile's tp",
        ),
        (
            ("--tensor-parallel-size", "8"),
            "profile 'p': args: '--tensor-parallel-size' sets --tensor-parallel-size, which enginekit manages; set the profile's tp",
        ),
        (
            ("--pipeline-parallel-size=2",),
            "profile 'p': args: '--pipeline-parallel-size' sets --pipeline-parallel-size, which enginekit manages; set the profile's pp",
        ),
        (
            ("--model", "/other"),
            "profile 'p': args: '--model' sets --model, which enginekit manages; set the profile's model_path",
        ),
        (
            ("--served-model-name", "x"),
            "profile 'p': args: '--served-model-name' sets --served-model-name, which enginekit manages; set the profile's served_model_name",
        ),
        (
            ("--lora-paths", "a=/a"),
            "profile 'p': args: '--lora-paths' sets --lora-paths, which enginekit manages; list the adapters in the profile's adapters",
        ),
        (
            ("--enable-lora",),
            "profile 'p': args: '--enable-lora' sets --enable-lora, which enginekit manages; list the adapters in the profile's adapters",
        ),
        (
            ("--kv-events-config", "{}"),
            "profile 'p': args: '--kv-events-config' sets --kv-events-config, which enginekit manages; set the profile's kv_events; the agent chooses the port",
        ),
        (
            ("--enable-metrics",),
            "profile 'p': args: '--enable-metrics' sets --enable-metrics, which enginekit manages; enginekit always enables it so that metrics_path is served",
        ),
        (
            ("--device", "cuda"),
            "profile 'p': args: '--device' sets --device, which enginekit manages; enginekit sets it from the shard: cpu for a shard without GPUs",
        ),
        (
            ("--nnodes", "2"),
            "profile 'p': args: '--nnodes' sets --nnodes, which enginekit manages; set the profile's nodes",
        ),
        (
            ("--node-rank", "1"),
            "profile 'p': args: '--node-rank' sets --node-rank, which enginekit manages; the shard's rank sets it",
        ),
        (
            ("--nccl-init-addr", "h:1"),
            "profile 'p': args: '--nccl-init-addr' sets --nccl-init-addr, which enginekit manages; the shard's leader_addr and leader_port set it",
        ),
        (
            ("--dist-init", "h:1"),
            "profile 'p': args: '--dist-init' sets --dist-init-addr, which enginekit manages; the shard's leader_addr and leader_port set it",
        ),
        (
            ("--nccl-port", "1"),
            "profile 'p': args: '--nccl-port' sets --nccl-port, which enginekit manages; leave it to SGLang: a fixed port collides with other shards on the node",
        ),
        (
            ("--grpc-port", "1"),
            "profile 'p': args: '--grpc-port' sets --grpc-port, which enginekit manages; enginekit serves the HTTP API only, on the port the agent assigned",
        ),
        (
            ("--smg-grpc-mode",),
            "profile 'p': args: '--smg-grpc-mode' sets --smg-grpc-mode, which enginekit manages; enginekit health-checks and routes to SGLang's HTTP server, which this replaces",
        ),
    ],
)
def test_managed_options_are_refused(args: tuple[str, ...], message: str) -> None:
    assert only(profile(*args)) == message


@pytest.mark.parametrize(
    ("args", "option", "instead"),
    [
        (
            ("--api-key", "k-123"),
            "--api-key",
            "set the shard's api_key, which enginekit hands over through the environment",
        ),
        (("--api-key=k-123",), "--api-key", "set the shard's api_key"),
        (("--api", "k-123"), "--api-key", "set the shard's api_key"),
        (("--admin-api-key", "k-123"), "--admin-api-key", "enginekit has no safe channel for it yet"),
        (("--ssl-keyfile-password=k-123",), "--ssl-keyfile-password", "unencrypted key file"),
    ],
)
def test_secrets_are_refused_without_echoing_them(args: tuple[str, ...], option: str, instead: str) -> None:
    # The core's sentence names the place and the option it reads as, never the token:
    # "--api-key=k-123" is the key itself.
    message = only(profile(*args))
    assert message.startswith(
        f"profile 'p': args[0]: {option} puts a secret on the command line, which every local user can read; "
    )
    assert instead in message
    assert "k-123" not in message


def test_inline_watermark_config_is_refused_a_path_is_not() -> None:
    assert only(profile("--watermark-config", '{"key": "w-1"}')) == (
        "profile 'p': args: --watermark-config given inline puts the watermark key on the command "
        "line, where every local user can read it; give the path of a file readable only by the "
        "engine's user"
    )
    assert problems(profile("--watermark-config", "/etc/sglang/watermark.json")) == []


@pytest.mark.parametrize("value", [' {"key": "w-1"}', '\n\t{"key": "w-1"}'])
def test_inline_watermark_config_is_refused_after_leading_blanks(value: str) -> None:
    # SGLang's JSON reader skips leading whitespace: the key is still on the command line.
    assert "given inline puts the watermark key on the command line" in only(
        profile("--watermark-config", value)
    )


@pytest.mark.parametrize(
    ("args", "option", "why"),
    [
        (("--trust-remote-code",), "--trust-remote-code", "runs Python shipped in the model repository"),
        (("--trust-remote",), "--trust-remote-code", "runs Python shipped in the model repository"),
        (("--trust-remote-code=true",), "--trust-remote-code", "runs Python shipped"),
        (
            ("--custom-weight-loader", "m.f"),
            "--custom-weight-loader",
            "imports the functions its value names",
        ),
        (("--enable-custom-logit-processor",), "--enable-custom-logit-processor", "serialized callables"),
        (("--enable-custom",), "--enable-custom-logit-processor", "serialized callables"),
        (("--forward-hooks", "[]"), "--forward-hooks", "hook_factory"),
        (("--sidecar", "m"), "--sidecar", "main() of the module"),
        (
            ("--hicache-storage-backend-extra-config", "{}"),
            "--hicache-storage-backend-extra-config",
            "module_path",
        ),
        (
            ("--unified-cache-external-linker-config", "{}"),
            "--unified-cache-external-linker-config",
            "linker_module_path",
        ),
        (("--tool-server", "demo"), "--tool-server", "model-written Python"),
        (("--config", "/tmp/x.yaml"), "--config", "reads any option from a file"),
    ],
)
def test_code_loading_options_are_refused_unless_allowed(
    args: tuple[str, ...], option: str, why: str
) -> None:
    message = only(profile(*args))
    assert message.startswith(f"profile 'p': args: {args[0].split('=')[0]!r} ({option}) ")
    assert why in message
    assert message.endswith(f'refused unless the site allows it (engines.sglang.allow_args = ["{option}"])')
    assert problems(profile(*args), allow_args=(option,)) == []


def test_underscore_spellings_are_refused_with_the_dashed_spelling() -> None:
    assert only(profile("--trust_remote_code")) == (
        "profile 'p': args: '--trust_remote_code': SGLang does not accept underscores in option "
        "names; write '--trust-remote-code'"
    )
    message = only(profile("--api_key=k-123"))
    assert "k-123" not in message
    assert "'--api-key'" in message


@pytest.mark.parametrize(
    "args",
    [
        ("--mem-fraction-static", "0.85"),
        # --ssl-keyfile and --quantization-param-path read host files: refused unless allowed
        # (test_sglang_host_paths.py), and --ssl-keyfile never as the password secret.
        ("--model-impl", "sglang"),  # an extension of --model
        ("--sidecar-args", "[]"),
        ("--enable-metrics-for-all-schedulers",),
        ("--enable-lora-overlap-loading",),
        ("--enable-hierarchical-cache", "--hicache-ratio", "2.0"),
        ("--max-loras-per-batch", "4"),
        ("--chunked-prefill-size", "-1"),  # a negative number is a value, not an option
        ("--kv-cache-dtype", "fp8_e4m3"),
        ("--quantization", "unquant"),
    ],
)
def test_ordinary_options_pass(args: tuple[str, ...]) -> None:
    assert problems(profile(*args), H100) == []


def test_unknown_quantization_choice() -> None:
    assert only(profile("--quantization", "nvfp4")).startswith(
        "profile 'p': args: --quantization 'nvfp4' is not a choice SGLang accepts; use one of awq, fp8, mxfp8,"
    )


@pytest.mark.parametrize(
    ("args", "gpus", "message"),
    [
        (
            ("--quantization", "fp8"),
            T4,
            "fp8 quantization needs compute capability 8.0, GPU 0 (Tesla T4) has 7.5",
        ),
        (("--quantization=awq_marlin",), T4, "awq_marlin quantization needs compute capability 8.0"),
        (("--quantization", "w8a8_fp8"), T4, "w8a8_fp8 quantization needs compute capability 8.9"),
        (("--quantization", "modelopt_fp8"), T4, "modelopt_fp8 quantization needs compute capability 8.9"),
        (
            ("--quantization", "w4afp8"),
            L40S,
            "w4afp8 quantization needs compute capability 9.0, GPU 0 (NVIDIA L40S) has 8.9",
        ),
        (("--quantization", "mxfp8"), H100, "mxfp8 quantization needs compute capability 10.0"),
        (("--quantization", "nvfp4_online"), H100, "nvfp4_online quantization needs compute capability 10.0"),
    ],
)
def test_quantization_floors(args: tuple[str, ...], gpus: list[GPUInfo], message: str) -> None:
    found = problems(profile(*args), gpus)
    assert len(found) == 4  # one per GPU, all reported at once
    assert found[0].startswith(f"profile 'p': {message}")


@pytest.mark.parametrize(
    ("method", "gpus"),
    [("fp8", H100), ("fp8", L40S), ("awq", T4), ("gguf", T4), ("modelopt_fp4", H100), ("gptq_marlin", L40S)],
)
def test_quantization_at_or_above_the_floor_passes(method: str, gpus: list[GPUInfo]) -> None:
    assert problems(profile("--quantization", method), gpus) == []


def test_plain_gptq_is_refused_on_gpus_but_not_on_cpu() -> None:
    assert only(profile("--quantization", "gptq"), H100) == (
        "profile 'p': args: --quantization 'gptq': plain gptq has no CUDA kernel in SGLang (only "
        "CPU, NPU and XPU register it); leave --quantization unset and a GPTQ checkpoint is loaded "
        "as gptq_marlin"
    )
    assert problems(profile("--quantization", "gptq")) == []
    assert "Apple MLX only" in only(profile("--quantization", "mlx_q4"), H100)


def test_plain_gptq_on_a_gpu_shard_is_refused_when_building_too() -> None:
    spec = ShardSpec(profile=profile("--quantization", "gptq"), gpu_indices=(0, 1, 2, 3), http_port=30000)
    with pytest.raises(EngineError, match="plain gptq has no CUDA kernel"):
        engine_for(SglangEngine(), "sglang").commands(spec)
    cpu = attrs.evolve(spec, gpu_indices=(), threads=8)
    assert engine_for(SglangEngine(), "sglang").commands(cpu)


def test_served_name_that_reads_as_an_option() -> None:
    assert only(profile(served_model_name="--evil")) == (
        "profile 'p': served_model_name '--evil' starts with '-', which SGLang's parser reads as an "
        "option; rename it"
    )


def test_every_problem_is_reported_at_once() -> None:
    found = problems(
        profile("--port", "1", "--trust-remote-code", "--api-key", "k", "--quantization", "fp8"), T4
    )
    assert len(found) == 3 + 4
    assert any("--port" in p for p in found)
    assert any("--trust-remote-code" in p for p in found)
    assert any("puts a secret on the command line" in p for p in found)


def test_common_checks_still_apply() -> None:
    found = problems(Profile(name="p", engine="sglang", tp=4, model_path=""))
    assert found == ["profile 'p': model path is empty"]


def test_a_plan_refuses_what_validate_refuses_and_the_site_may_allow_it() -> None:
    spec = ShardSpec(profile=profile("--trust-remote-code"), gpu_indices=(0, 1, 2, 3), http_port=30000)
    engine = engine_for(SglangEngine(), "sglang")
    with pytest.raises(SpecError, match=r"'--trust-remote-code' \(--trust-remote-code\) runs Python"):
        engine.plan(spec)
    allowed = engine_for(SglangEngine(SglangConfig(allow_args=("--trust-remote-code",))), "sglang")
    (command,) = allowed.commands(spec)
    assert command.args[-1] == "--trust-remote-code"


def test_config_section_is_structured_and_checked() -> None:
    config, unknown = structure(
        {"python": "/opt/sglang/bin/python", "version": "0.5.23", "allow_args": ["--trust-remote-code"]},
        SglangConfig,
        path="engines.sglang",
    )
    assert config == SglangConfig(
        python="/opt/sglang/bin/python", version="0.5.23", allow_args=("--trust-remote-code",)
    )
    assert unknown == []
    # An option some release read has is every profile's already: allowing it is a mistake.
    with pytest.raises(SpecError, match="'--mem-fraction-static' is not a flag this plugin refuses"):
        structure({"allow_args": ["--mem-fraction-static"]}, SglangConfig, path="engines.sglang")
    with pytest.raises(SpecError, match="'trust-remote-code' is not a flag this plugin refuses"):
        structure({"allow_args": ["trust-remote-code"]}, SglangConfig, path="engines.sglang")
    # Flags enginekit sets, or that carry a secret, are never the site's to allow.
    for flag in ("--port", "--api-key"):
        with pytest.raises(SpecError, match=f"'{flag}' is set by enginekit itself or carries a secret"):
            structure({"allow_args": [flag]}, SglangConfig, path="engines.sglang")
    with pytest.raises(SpecError, match=r"engines\.sglang\.pyton: unknown field"):
        structure({"pyton": "python3"}, SglangConfig, path="engines.sglang")
    with pytest.raises(SpecError, match="version: 'latest' is not a release number"):
        structure({"version": "latest"}, SglangConfig, path="engines.sglang")
    # The one executable rule: a bare name looked up on PATH, or an absolute path.
    with pytest.raises(SpecError, match="python '': expected a program name or an absolute path"):
        structure({"python": ""}, SglangConfig, path="engines.sglang")
    with pytest.raises(SpecError, match="python 'venv/bin/python': a relative path depends on"):
        structure({"python": "venv/bin/python"}, SglangConfig, path="engines.sglang")


def test_another_release_is_told_which_facts_are_from_0_5_23() -> None:
    spec = ShardSpec(profile=profile(), gpu_indices=(0, 1, 2, 3), http_port=30000)
    facts = (
        "SGLang 0.5.4.post2: the profile's options are checked against that release's own option "
        "table, but the quantization choices and floors, the load formats, the options refused for "
        "reaching paths and hosts, and these notes' other facts were read from SGLang 0.5.23's "
        "source: compare the help command's output before relying on them"
    )
    older = engine_for(SglangEngine(SglangConfig(version="0.5.4.post2")), "sglang").notes(spec)
    assert facts in older
    assert not any("option table of its own" in n or "than every release" in n for n in older)
    newer = engine_for(SglangEngine(SglangConfig(version="0.5.30")), "sglang").notes(spec)
    assert facts.replace("0.5.4.post2", "0.5.30") in newer
    assert (
        "sglang 0.5.30 is newer than every release this plugin has read (0.5.1 to 0.5.23): "
        "pass-through options are checked against 0.5.23's; an option added since is refused until "
        "the plugin is upgraded or the site lists it in allow_args"
    ) in newer
    # Compared as releases: a build label or a spelled-out zero is the source's own release.
    for same in ("0.5.23", "0.5.23+cu128", "0.5.23.0", "v0.5.23"):
        notes = engine_for(SglangEngine(SglangConfig(version=same)), "sglang").notes(spec)
        assert not any("SGLang 0.5.23's source" in n or "option table" in n for n in notes), same


def test_registry_loads_the_entry_point_with_its_config() -> None:
    registry = Registry.from_entry_points(config={"sglang": {"allow_args": ["--trust-remote-code"]}})
    engine = registry.engine("sglang")
    assert isinstance(engine.plugin, SglangEngine)
    assert engine.plugin.config.allow_args == ("--trust-remote-code",)
    assert engine.validate(profile("--trust-remote-code")) == []


# --- positional tokens ------------------------------------------------------------------------

BARE = (
    "not an option, and {why}, so SGLang would read it as a positional argument; a profile's "
    "args may give none (enginekit passes the model itself): remove it, or put it right after "
    "the option it is a value of"
)


def test_a_bare_first_token_cannot_join_the_adapter_list() -> None:
    # Right after --lora-paths it would have been one more adapter, past the name checks.
    adapters = (Adapter(name="sql", path="/adapters/sql"),)
    prof = profile("../../x=/tmp/attacker-adapter", adapters=adapters)
    assert problems(prof) == [
        f"profile 'p': args[0]: {BARE.format(why='no option comes before it to take it as a value')}"
    ]


def test_the_adapter_list_is_closed_before_the_profiles_args() -> None:
    adapters = (Adapter(name="sql", path="/adapters/sql"), Adapter(name="chat", path="/adapters/chat"))
    spec = ShardSpec(
        profile=profile("--mem-fraction-static", "0.8", adapters=adapters, kv_events=True),
        gpu_indices=(0, 1, 2, 3),
        http_port=30000,
        kv_events_port=5557,
    )
    args = server_args(spec, parse_version("0.5.23"))
    paths = args.index("--lora-paths")
    assert args[paths + 1 : paths + 3] == ["sql=/adapters/sql", "chat=/adapters/chat"]
    assert args[paths + 3].startswith("--")
    # The profile's args follow an option of one value, never a list.
    assert args[-4:] == ["--pp-size", "1", "--mem-fraction-static", "0.8"]


@pytest.mark.parametrize(
    ("args", "index", "why"),
    [
        (("--enable-torch-compile", "x"), 1, "'--enable-torch-compile' (args[0]) before it takes no value"),
        (("--mem-fraction-static=0.85", "x"), 1, "'--mem-fraction-static' (args[0]) before it has its value already, after '='"),
        (("--context-length", "32768", "x"), 2, "'--context-length' (args[0]) before it takes exactly 1 value"),
        (("--mem-frac", "0.85", "x"), 2, "'--mem-frac' (args[0]) before it takes exactly 1 value"),
    ],
)  # fmt: skip
def test_a_bare_token_sglang_would_read_as_a_positional_argument_is_refused(
    args: tuple[str, ...], index: int, why: str
) -> None:
    assert problems(profile(*args)) == [f"profile 'p': args[{index}]: {BARE.format(why=why)}"]


@pytest.mark.parametrize(
    "args",
    [
        ("--enable-torch-compile", "--mem-fraction-static", "0.85"),
        ("--lora-target-modules", "q_proj", "v_proj", "--max-loras-per-batch", "4"),
        ("--cuda-graph-bs-decode", "1", "2", "4", "8"),
        ("--chunked-prefill-size", "-1", "--context-length=32768"),
        ("--disable-radix-cache", "--log-requests", "--log-requests-level", "1"),
    ],
)
def test_values_still_pass_with_the_option_they_belong_to(args: tuple[str, ...]) -> None:
    assert problems(profile(*args), H100) == []


# --- options that write or read where their value says, or reach another host ----------------

HOST_ACCESS = [
    ("--download-dir", "/etc/cron.d", "downloads model weights into the directory it names"),
    ("--crash-dump-folder", "/tmp/d", "writes the last minutes of requests, prompts included"),
    ("--debug-tensor-dump-output-folder", "/tmp/d", "writes tensor dumps to the folder it names"),
    ("--debug-tensor-dump-input-file", "/etc/shadow", "reads the input of a tensor dump"),
    ("--export-metrics-to-file-dir", "/tmp/d", "writes per-request metrics files"),
    ("--log-requests-target", "/tmp/d", "writes request logs, prompts included"),
    ("--file-storage-path", "/tmp/d", "stores the files API clients upload"),
    ("--msprobe-dump-config", "/tmp/c.json", "reads a dump configuration"),
    ("--modelopt-checkpoint-restore-path", "/tmp/ckpt", "restores the model from the checkpoint"),
    ("--modelopt-checkpoint-save-path", "/tmp/ckpt", "writes a checkpoint to the path it names"),
    ("--modelopt-export-path", "/tmp/out", "writes the quantized model to the path it names"),
    ("--remote-instance-weight-loader-seed-instance-ip", "10.9.9.9", "loads the weights from the host"),
    ("--modelexpress-config", '{"url": "h:8001"}', "loads the weights from the peer-to-peer service"),
    ("--otlp-traces-endpoint", "collector:4317", "sends a trace of every request"),
    ("--trust-request-chat-template", None, "renders the chat templates API clients send"),
]


@pytest.mark.parametrize(("option", "value", "why"), HOST_ACCESS, ids=[row[0] for row in HOST_ACCESS])
def test_host_reaching_options_are_refused_in_every_spelling_unless_allowed(
    option: str, value: str | None, why: str
) -> None:
    # argparse reads an unambiguous prefix as the option, and "--option=value" as both.
    prefix = option[:-1]
    spellings = (
        [(option,), (prefix,)]
        if value is None
        else [(option, value), (f"{option}={value}",), (prefix, value)]
    )
    for args in spellings:
        message = only(profile(*args))
        assert message.startswith(f"profile 'p': args: {args[0].split('=')[0]!r} ({option}) {why}"), message
        assert message.endswith(
            f'refused unless the site allows it (engines.sglang.allow_args = ["{option}"])'
        )
        if value is not None:
            assert value not in message
        assert problems(profile(*args), allow_args=(option,)) == []


def test_the_real_options_just_short_of_a_refused_one_pass() -> None:
    assert problems(profile("--export-metrics-to-file", "--log-requests")) == []


def test_the_parser_syntax_knows_every_option_of_every_release_read() -> None:
    # An exact option wins in argparse: with every option known, a prefix is read as every
    # option it may mean in some release, and a real option never as a refused one's prefix.
    assert table().options - SYNTAX.known == READ_AS_PREFIX
    assert SYNTAX.known - table().options == set()
    assert SYNTAX.meanings("--export-metrics-to-file") == {"--export-metrics-to-file"}
    assert SYNTAX.meanings("--oltp") == {"--oltp-traces-endpoint"}


def test_every_option_the_plugin_refuses_is_an_option_of_some_release() -> None:
    # A misspelt entry would refuse nothing; the table is what the parsers really had.
    refused = set(MANAGED) | set(SECRETS) | set(ALLOWABLE)
    assert refused - table().options == set()


def test_underscore_advice_names_a_dashed_spelling_only_where_the_release_has_it() -> None:
    # --max_model_len's dashed form is vLLM's option; SGLang 0.5.23 calls it --context-length.
    found = problems(profile("--max_model_len", "4096"))
    assert any(
        "'--max_model_len': SGLang does not accept underscores in option names; and python -m "
        "sglang.launch_server 0.5.23 (assumed: no release is configured) has no --max-model-len either" in p
        for p in found
    ), found
    assert any(
        "write '--mem-fraction-static'" in p for p in problems(profile("--mem_fraction_static", "0.8"))
    )


_RELEASE = "python -m sglang.launch_server 0.5.23 (assumed: no release is configured)"


def test_underscore_spellings_are_refused_in_the_order_given_each_with_its_advice() -> None:
    assert problems(profile("--context_length", "9", "--mem_fraction_static", "0.8", "--tp_size", "2")) == [
        "profile 'p': args: '--context_length': SGLang does not accept underscores in option names; "
        "write '--context-length'",
        "profile 'p': args: '--mem_fraction_static': SGLang does not accept underscores in option names; "
        "write '--mem-fraction-static'",
        "profile 'p': args: '--tp_size': SGLang does not accept underscores in option names; and "
        "'--tp-size' itself is enginekit's to set, from the shard spec",
    ]


def test_another_engines_option_is_refused_with_sglangs_own_named_and_only_there() -> None:
    assert problems(profile("--max-num-seqs", "8", "--no-such-thing=1")) == [
        f"profile 'p': args: '--max-num-seqs' is not an option of {_RELEASE}; remove it, or, if the "
        f"node's release has it, list it in engines.sglang.allow_args (vLLM's option; SGLang's is "
        f"--max-running-requests)",
        f"profile 'p': args[2] follows '--max-num-seqs', which takes a value, but starts with '-': "
        f"{_RELEASE} reads it as an option, and it is none; give the value as --max-num-seqs=VALUE",
    ]


def test_an_unknown_option_beside_an_underscore_spelling_is_judged_on_the_same_tokens() -> None:
    assert problems(profile("--context_length", "9", "--no-such-thing", "-x")) == [
        "profile 'p': args: '--context_length': SGLang does not accept underscores in option names; "
        "write '--context-length'",
        f"profile 'p': args: '--no-such-thing' is not an option of {_RELEASE}; remove it, or, if the "
        f"node's release has it, list it in engines.sglang.allow_args",
        f"profile 'p': args[3] follows '--no-such-thing', which takes a value, but starts with '-': "
        f"{_RELEASE} reads it as an option, and it is none; give the value as --no-such-thing=VALUE",
    ]
