"""Every refusal of the llama.cpp plugin, with its message, and what it lets through."""

from __future__ import annotations

import pytest
from enginekit import Adapter, Profile, Registry, SpecError
from enginekit.spec.convert import structure
from enginekit.testing import engine_for
from enginekit_llamacpp import LlamaCppConfig, LlamaCppEngine
from enginekit_llamacpp.flags import MANAGED, RISKY, table
from hypothesis import given, settings
from hypothesis import strategies as st

P = "profile 'qwen-q4'"
#: llama-server has no --option=value: the whole word is looked up as a name.
GLUED = (
    "{P}: args: {name!r} is given its value after '=': llama-server has no --option=value form "
    "(it reads the whole word as an option's name and stops with 'invalid argument'); give the "
    "value as the next word: {name} VALUE"
)


def glued(args: tuple[str, ...] | list[str]) -> list[str]:
    """The sentences refusing each ``--option=value`` word of ``args``."""
    return [GLUED.format(P=P, name=arg.split("=")[0]) for arg in args if "=" in arg]


def newest_with(flag: str) -> int:
    """The newest build read that has ``flag``; 0 (unset) when none has it."""
    where = table().option_in.get(flag)
    return int(table().releases[max(where)]) if where else 0


def problems(config: LlamaCppConfig | None = None, **fields: object) -> list[str]:
    profile = Profile(
        **{"name": "qwen-q4", "engine": "llamacpp", "model_path": "/models/qwen-q4_k_m.gguf", **fields}  # type: ignore[arg-type]
    )
    return engine_for(LlamaCppEngine(config or LlamaCppConfig()), "llamacpp").validate(profile)


def test_a_plain_profile_is_valid() -> None:
    assert problems(served_model_name="qwen", tp=2) == []


def test_more_than_one_node_is_refused_and_says_why() -> None:
    assert problems(nodes=2, gpus_per_node=1, tp=2) == [
        f"{P}: nodes: 2 nodes, but llama.cpp spans nodes only over RPC, where the leader must be "
        f"given every worker's address and a shard spec names only the leader's; set nodes = 1"
    ]


def test_pipeline_parallel_is_refused() -> None:
    assert problems(pp=2, gpus_per_node=2) == [
        f"{P}: pp: pipeline parallel degree 2 is not supported: one llama-server process splits the "
        f"layers across the shard's GPUs itself; set pp = 1 and tp to the number of GPUs"
    ]


def test_kv_events_are_refused() -> None:
    assert problems(kv_events=True) == [
        f"{P}: kv_events: llama-server publishes no KV-cache events; set kv_events = false"
    ]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"served_model_name": "qwen,chat"}, "served_model_name: 'qwen,chat'"),
        ({"served_model_name": " qwen"}, "served_model_name: ' qwen'"),
        (
            {"model_path": "/models/a,b.gguf"},
            "model_path (the served name when none is set): '/models/a,b.gguf'",
        ),
    ],
)
def test_a_served_name_llama_server_would_split_or_strip_is_refused(
    fields: dict[str, str], field: str
) -> None:
    assert problems(**fields) == [
        f"{P}: {field} would not be the name clients use: llama-server splits --alias on ',' and "
        f"strips the blanks around each name; set served_model_name to a name without either"
    ]


def test_a_local_adapter_path_with_a_colon_is_refused_a_source_url_is_left_to_commands() -> None:
    adapters = (
        Adapter(name="a", path="/adapters/a:v1.gguf"),
        Adapter(name="b", path="hf://org/b-lora"),
        Adapter(name="c", path="/adapters/c,v2.gguf"),
    )
    assert problems(adapters=adapters) == [
        f"{P}: adapters[0]: path '/adapters/a:v1.gguf' contains ':': enginekit loads adapters with "
        f"--lora-scaled FNAME:SCALE, which llama-server splits on every ':'; place the adapter at a "
        f"path without ':'"
    ]


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["-m", "/models/other.gguf"], "--model"),
        (["--model=/models/other.gguf"], "--model"),
        (["-hf", "org/repo"], "--hf-repo"),
        (["--model-url", "https://example.invalid/m.gguf"], "--model-url"),
        (["--host", "0.0.0.0"], "--host"),
        (["--port", "1"], "--port"),
        (["-a", "other"], "--alias"),
        (["-ngl", "20"], "--n-gpu-layers"),
        (["--gpu-layers", "20"], "--n-gpu-layers"),
        (["--n_gpu_layers=20"], "--n-gpu-layers"),
        (["-dev", "CUDA1"], "--device"),
        (["-sm", "row"], "--split-mode"),
        (["-ts", "3,1"], "--tensor-split"),
        (["-mg", "1"], "--main-gpu"),
        (["-t", "64"], "--threads"),
        (["-tb", "64"], "--threads-batch"),
        (["--lora", "/a/x.gguf"], "--lora"),
        (["--lora-scaled", "/a/x.gguf:0.5"], "--lora-scaled"),
        (["--metrics"], "--metrics"),
        (["--api-prefix", "/v2"], "--api-prefix"),
    ],
)
def test_managed_flags_are_refused_with_the_field_to_use(args: list[str], option: str) -> None:
    assert problems(args=tuple(args)) == [
        f"{P}: args: {args[0].split('=')[0]!r} sets {option}, which enginekit manages; {MANAGED[option]}"
    ]


def test_managed_flag_messages_name_the_field() -> None:
    assert problems(args=("--port", "1", "-a", "x", "-ngl", "1", "-t", "8", "--lora", "/a.gguf")) == [
        f"{P}: args: '--port' sets --port, which enginekit manages; set the shard spec's http_port instead",
        f"{P}: args: '-a' sets --alias, which enginekit manages; set the profile's served_model_name instead",
        f"{P}: args: '-ngl' sets --n-gpu-layers, which enginekit manages; offload and split follow the "
        f"shard's GPUs (the shard spec's gpu_indices, the profile's tp); drop it",
        f"{P}: args: '-t' sets --threads, which enginekit manages; a CPU shard gets the cores placement "
        f"reserved for it (the shard spec's threads); drop it",
        f"{P}: args: '--lora' sets --lora, which enginekit manages; list them in the profile's adapters instead",
    ]


@pytest.mark.parametrize("args", [["--api-key", "sk-0123"], ["--api-key=sk-0123"], ["--api_key", "sk-0123"]])
def test_secrets_in_args_are_refused_without_echoing_them(args: list[str]) -> None:
    assert problems(args=tuple(args)) == [
        f"{P}: args[0]: --api-key puts a secret on the command line, which every local user can read; "
        f"set the shard spec's api_key, which reaches llama-server as LLAMA_API_KEY"
    ]
    # Whatever the site allows: a secret flag cannot be opened.
    assert problems(LlamaCppConfig(allow_args=tuple(RISKY)), args=tuple(args)) == problems(args=tuple(args))
    assert all("sk-0123" not in p for p in problems(args=tuple(args)))


def test_a_key_file_is_managed() -> None:
    assert problems(args=("--api-key-file", "/k")) == [
        f"{P}: args: '--api-key-file' sets --api-key-file, which enginekit manages; secrets never go in "
        f"args: set the shard spec's api_key, which reaches llama-server as LLAMA_API_KEY"
    ]


def test_hf_token_in_args_is_refused() -> None:
    assert problems(args=("-hft", "hf_x")) == [
        f"{P}: args[0]: --hf-token puts a secret on the command line, which every local user can read; "
        f"a model_path on this node needs no download; drop it"
    ]


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--rpc", "10.0.0.9:50052"], "--rpc"),
        (["--rpc=10.0.0.9:50052"], "--rpc"),
        (["--path", "/"], "--path"),
        (["--media-path", "/"], "--media-path"),
        (["--tools", "all"], "--tools"),
        (["-ag"], "--agent"),
        (["--mcp-servers-config", "/etc/mcp.json"], "--mcp-servers-config"),
        (["--mcp_servers_json", "{}"], "--mcp-servers-json"),
        (["--webui-mcp-proxy"], "--ui-mcp-proxy"),
    ],
)
def test_flags_that_reach_outside_are_refused_unless_the_site_allows_them(
    args: list[str], option: str
) -> None:
    assert problems(args=tuple(args)) == [
        f"{P}: args: {args[0].split('=')[0]!r} ({option}) {RISKY[option]}; refused unless the site allows it "
        f'(engines.llamacpp.allow_args = ["{option}"])'
    ]
    # Allowed, the flag passes; glued to its value, llama-server would stop on the word.
    assert problems(LlamaCppConfig(allow_args=(option,)), args=tuple(args)) == glued(args)


def test_rpc_and_path_messages() -> None:
    assert problems(args=("--rpc", "h:1", "--path", "/srv")) == [
        f"{P}: args: '--rpc' (--rpc) sends the model and its computation to remote RPC servers, whose "
        f"protocol has no authentication (llama.cpp: 'vulnerable to all sorts of attack vectors'); "
        f'refused unless the site allows it (engines.llamacpp.allow_args = ["--rpc"])',
        f"{P}: args: '--path' (--path) serves a directory of this node over HTTP; refused unless the "
        f'site allows it (engines.llamacpp.allow_args = ["--path"])',
    ]


def test_allowing_one_flag_allows_no_other() -> None:
    assert len(problems(LlamaCppConfig(allow_args=("--rpc",)), args=("--rpc", "h:1", "--path", "/"))) == 1


@pytest.mark.parametrize(
    ("args", "option", "advice"),
    [
        (["--quantization", "awq"], "--quantization", "a GGUF file carries its own quantization"),
        (["-q", "gptq"], "--quantization", "a GGUF file carries its own quantization"),
        (["--dtype", "bfloat16"], "--dtype", "a GGUF file carries its own weight types"),
        (
            ["--kv_cache_dtype", "fp8"],
            "--kv-cache-dtype",
            "llama-server sets the KV cache's type with --cache-type-k",
        ),
    ],
)
def test_quantization_flags_that_do_not_apply_to_gguf_are_refused(
    args: list[str], option: str, advice: str
) -> None:
    (problem,) = problems(args=tuple(args))
    assert problem.startswith(f"{P}: args: {args[0]!r} ({option}) does not apply to GGUF models; {advice}")


def test_llama_arg_env_twins_are_refused_by_the_plugins_policy() -> None:
    assert problems(env={"LLAMA_ARG_RPC": "10.0.0.9:50052", "LLAMA_ARG_STATIC_PATH": "/"}) == [
        f"{P}: env LLAMA_ARG_RPC: denied: llama-server reads every flag from its LLAMA_ARG_ twin, "
        f"bypassing the argument checks",
        f"{P}: env LLAMA_ARG_STATIC_PATH: denied: llama-server reads every flag from its LLAMA_ARG_ "
        f"twin, bypassing the argument checks",
    ]
    assert problems(env={"LLAMA_API_KEY": "k"}) == [
        f"{P}: env LLAMA_API_KEY: reserved by the engine: generated for the shard, or carries its secret"
    ]


def test_every_problem_is_reported_at_once() -> None:
    found = problems(nodes=2, gpus_per_node=1, tp=2, pp=1, args=("--port", "1", "--rpc", "h:1", "-q", "awq"))
    # The core's flag policy first (managed, then risky), then the plugin's own checks.
    assert [p.split(": ", 2)[1] for p in found] == ["args", "args", "nodes", "args"]
    assert ["--port" in found[0], "--rpc" in found[1], "'-q'" in found[3]] == [True, True, True]


@pytest.mark.parametrize(
    "args",
    [
        ["-to", "600"],  # --timeout, not -t with a glued value: llama.cpp has none
        # -md and -mm name GGUF files parsed as root: refused unless allowed
        # (test_llamacpp_host_paths.py), as --model-draft and --mmproj, never as -m.
        ["-c", "8192", "-np", "4", "-fa", "on", "-ctk", "q8_0", "--cache-type-v", "q8_0"],
        ["--lora-init-without-apply", "--no-slots", "--no-agent", "--no-webui"],
        ["--threads-http", "4", "--spec-draft-n-max", "8", "-ngld", "99"],
    ],
)
def test_tuning_flags_pass(args: list[str]) -> None:
    assert problems(args=tuple(args)) == []


# Each example registers the engine afresh: under a loaded test run that can pass the
# default 200 ms deadline, which says nothing about the property.
@settings(deadline=None)
@given(
    st.lists(
        st.sampled_from([("-c", "8192"), ("-np", "4"), ("--jinja",), ("-to", "60"), ("--no-warmup",)]),
        max_size=8,
    )
)
def test_tuning_args_never_produce_a_problem(options: list[tuple[str, ...]]) -> None:
    # Each option with its own value, in any order and number.
    assert problems(args=tuple(token for option in options for token in option)) == []


def test_allow_args_accepts_only_flags_this_plugin_gates() -> None:
    config, _ = structure({"allow_args": ["--rpc", "--path"]}, LlamaCppConfig, path="engines.llamacpp")
    assert config.allow_args == ("--rpc", "--path")
    # An option every profile may use is no allowance, and a short one would allow nothing.
    for flag in ("--ctx-size", "-ag"):
        with pytest.raises(SpecError) as refused:
            structure({"allow_args": [flag]}, LlamaCppConfig, path="engines.llamacpp")
        assert refused.value.problems == (
            f"engines.llamacpp: allow_args: {flag!r} is not a flag this plugin refuses; name flags in "
            "their canonical spelling, one of: --agent, --binary-file, --chat-template-file, "
            "--control-vector, --control-vector-scaled, --file, --grammar-file, --hf-file-v, "
            "--hf-repo-draft, --hf-repo-v, --json-schema-file, --log-file, --log-prompts-dir, "
            "--lookup-cache-dynamic, --lookup-cache-static, --mcp-servers-config, --mcp-servers-json, "
            "--media-path, --mmproj, --mmproj-url, --model-draft, --model-vocoder, --path, --prio, "
            "--prio-batch, --prio-batch-draft, --prio-draft, --rpc, --slot-save-path, --slots, "
            "--ssl-cert-file, --ssl-key-file, --system-prompt-file, --tools, --tools-runtime, "
            "--ui-config-file, --ui-mcp-proxy, --video-ffmpeg-dir",
        )
    # A long option no build read has may be a newer build's, which the site vouches for.
    config, _ = structure({"allow_args": ["--rcp"]}, LlamaCppConfig, path="engines.llamacpp")
    assert config.allow_args == ("--rcp",)
    # What enginekit sets, and what carries a secret, no site can allow.
    for flag in ("--port", "--api-key", "--hf-token", "--cpu-mask"):
        with pytest.raises(SpecError, match="is set by enginekit itself or carries a secret"):
            structure({"allow_args": [flag]}, LlamaCppConfig, path="engines.llamacpp")
    with pytest.raises(SpecError, match=r"^engines\.llamacpp\.allow_flags: unknown field$"):
        structure({"allow_flags": ["--rpc"]}, LlamaCppConfig, path="engines.llamacpp")


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("bin/llama-server", "a relative path depends on the agent's working directory"),
        ("", "expected a program name or an absolute path"),
        ("/opt/llama/../bin/llama-server", "expected an absolute path to a program"),
    ],
)
def test_the_executable_follows_the_one_rule(value: str, why: str) -> None:
    with pytest.raises(SpecError, match=why):
        structure({"executable": value}, LlamaCppConfig, path="engines.llamacpp")
    assert LlamaCppConfig(executable="llama-server-cuda").executable == "llama-server-cuda"


def test_the_entry_point_structures_the_node_config_section() -> None:
    registry = Registry.from_entry_points(
        config={"llamacpp": {"executable": "/opt/llama/bin/llama-server", "allow_args": ["--rpc"]}},
        enable={"llamacpp"},
    )
    engine = registry.engine("llamacpp")
    assert isinstance(engine.plugin, LlamaCppEngine)
    assert engine.plugin.config == LlamaCppConfig(
        executable="/opt/llama/bin/llama-server", allow_args=("--rpc",)
    )
    profile = Profile(name="p", engine="llamacpp", model_path="/m.gguf", args=("--rpc", "h:1"))
    assert engine.validate(profile) == []


# --- positional tokens --------------------------------------------------------------------------

BARE = (
    "not an option, and {why}, so llama-server would read it as a positional argument; a "
    "profile's args may give none (enginekit passes the model itself): remove it, or put it "
    "right after the option it is a value of"
)


@pytest.mark.parametrize(
    ("args", "index", "why"),
    [
        (["/models/other.gguf"], 0, "no option comes before it to take it as a value"),
        (["--jinja", "x"], 1, "'--jinja' (args[0]) before it takes no value"),
        (["-cb", "x"], 1, "'-cb' (args[0]) before it takes no value"),
        (["-c", "4096", "x"], 2, "'-c' (args[0]) before it takes exactly 1 value"),
        (["--ctx-size=4096", "x"], 1, "'--ctx-size' (args[0]) before it has its value already, after '='"),
    ],
)  # fmt: skip
def test_a_bare_token_llama_server_would_refuse_as_positional_is_refused_first(
    args: list[str], index: int, why: str
) -> None:
    assert problems(args=tuple(args)) == [f"{P}: args[{index}]: {BARE.format(why=why)}", *glued(args)]


@pytest.mark.parametrize(
    "args",
    [
        ["-c", "4096"],
        ["-c", "4096", "--jinja", "-np", "4", "-to", "600"],
        ["--temp", "0.7", "--top-p", "0.9", "-s", "-1"],
        ["-fa", "on", "--no-warmup", "--cache-type-k", "q8_0"],
    ],
)
def test_options_with_their_values_still_pass(args: list[str]) -> None:
    assert problems(args=tuple(args)) == []


# --- flags that write where their value says, or download -------------------------------------

HOST_ACCESS = [
    ("--log-file", ["--log-file", "--log_file"], "/etc/cron.d/x", "writes the server's log to the file it names"),
    ("--slot-save-path", ["--slot-save-path", "--slot_save_path"], "/root", "lets any client save a slot's prompt cache"),
    ("--mmproj-url", ["--mmproj-url", "-mmu", "--mmproj_url"], "https://h/x.gguf", "downloads a multimodal projector"),
    ("--hf-repo-draft", ["--hf-repo-draft", "-hfd", "-hfrd", "--spec-draft-hf", "--hf_repo_draft"], "org/draft", "downloads a draft model"),
    ("--hf-repo-v", ["--hf-repo-v", "-hfv", "-hfrv"], "org/vocoder", "downloads a vocoder model"),
    ("--hf-file-v", ["--hf-file-v", "-hffv"], "v.gguf", "downloads the vocoder model file"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("option", "spellings", "value", "why"), HOST_ACCESS, ids=[r[0] for r in HOST_ACCESS]
)
def test_flags_that_write_host_paths_or_download_are_refused_unless_allowed(
    option: str, spellings: list[str], value: str, why: str
) -> None:
    for flag in spellings:
        for args in ((flag, value), (f"{flag}={value}",)):
            [message] = problems(args=args)
            assert message.startswith(f"{P}: args: {flag!r} ({option}) {why}"), message
            assert message.endswith(
                f'refused unless the site allows it (engines.llamacpp.allow_args = ["{option}"])'
            )
            assert value not in message
            # Allowed, it passes on a build that has it (the vocoder's are gone from b10454).
            config = LlamaCppConfig(allow_args=(option,), build=newest_with(option))
            assert problems(config, args=args) == glued(args)


@pytest.mark.parametrize("flag", ["--models-dir", "--models-preset", "--models_dir"])
def test_router_mode_is_refused_as_another_model(flag: str) -> None:
    option = flag.replace("_", "-")
    assert problems(args=(flag, "/models")) == [
        f"{P}: args: {flag!r} sets {option}, which enginekit manages; {MANAGED[option]}"
    ]


@pytest.mark.parametrize(
    "flag",
    ["--gpt-oss-20b-default", "--fim-qwen-7b-spec", "--embd-gemma-default", "--vision_gemma_4b_default"],
)
def test_a_built_in_model_preset_is_refused(flag: str) -> None:
    assert problems(args=(flag,)) == [
        f"{P}: args: {flag!r} picks a built-in model that llama-server downloads from Hugging Face; "
        "set the profile's model_path to the GGUF file instead"
    ]


def test_another_engines_quantization_flag_is_named_without_its_value() -> None:
    [message] = problems(args=("--dtype=bfloat16",))
    assert message.startswith(f"{P}: args: '--dtype' (--dtype) does not apply to GGUF models")


@pytest.mark.parametrize(
    "args", [["-tp8"], ["-tp", "8"], ["-trust-remote-code"], ["-t8"], ["-ngl99"], ["-c4096"]]
)
def test_a_short_option_with_more_glued_on_is_no_option_of_llama_server(args: list[str]) -> None:
    # llama-server looks each word up whole (common_params_parse_ex): -tp8 is not -t p8,
    # and the server stops on it at start. Refused here, naming the word.
    found = problems(args=args)
    assert len(found) == 1, found
    assert found[0].startswith(f"{P}: args: {args[0]!r} is not an option of llama-server")


@pytest.mark.parametrize("args", [["-t", "8"], ["-c", "4096"], ["-to", "30"], ["--temp", "-0.5"]])
def test_a_short_option_spelled_whole_is_read_as_its_option(args: list[str]) -> None:
    found = problems(args=args)
    assert not [p for p in found if "is not an option" in p], found
