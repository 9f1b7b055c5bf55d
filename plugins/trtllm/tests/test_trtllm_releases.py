"""Every release in the option table: what the plugin emits is accepted, and what it is not, refused."""

from __future__ import annotations

import json

import pytest
from enginekit.base.errors import EngineError, SpecError
from enginekit.platform.registry import Registry
from enginekit.plugin import check_option_document, parse_version
from enginekit.spec.model import Adapter, Command, GPUInfo, Profile, ShardSpec
from enginekit.testing import engine_for
from enginekit_trtllm import TrtllmConfig, TrtllmEngine, options_table
from enginekit_trtllm.config import has_served_name
from enginekit_trtllm.flags import BACKEND_CHOICES, OPTIONS_FLAG, first_release, option_table
from enginekit_trtllm.options import OPTIONS_ENV

PY = "/opt/tensorrt-llm/bin/python"
TABLE = option_table()
RELEASES = TABLE.releases
H100 = tuple(GPUInfo(index=i, name="NVIDIA H100 80GB HBM3", compute_capability="9.0") for i in range(2))
MODEL = "/models/llama-3.1-8b"
NEWER = "remove it, or, if the node's release has it, list it in engines.trtllm.allow_args"


def config(release: str | None, **fields: object) -> TrtllmConfig:
    return TrtllmConfig(python=PY, version=release or "", **fields)  # type: ignore[arg-type]


def profile(**fields: object) -> Profile:
    base: dict[str, object] = {
        "name": "p",
        "engine": "trtllm",
        "tp": 2,
        "model_path": MODEL,
        "args": ("--max_batch_size", "64"),
    }
    return Profile(**{**base, **fields})  # type: ignore[arg-type]


def shard(prof: Profile, **fields: object) -> ShardSpec:
    base: dict[str, object] = {"shard_id": "s0", "gpu_indices": (0, 1), "http_port": 8000, "profile": prof}
    return ShardSpec(**{**base, **fields})  # type: ignore[arg-type]


def plan(release: str | None, spec: ShardSpec, **fields: object) -> list[Command]:
    return engine_for(TrtllmEngine(config(release, **fields)), "trtllm").plan(spec, H100).commands


def options_given(command: Command) -> list[str]:
    """Every option on the server's line, the options file's flag the launcher appends included."""
    argv = command.argv()
    given = [token.split("=", 1)[0] for token in argv[argv.index("serve") + 1 :] if token.startswith("-")]
    if OPTIONS_ENV in command.env:
        given.append(OPTIONS_FLAG)
    return given


def problems(release: str | None, *args: str, **fields: object) -> list[str]:
    plugin = TrtllmEngine(config(release, **fields))
    return engine_for(plugin, "trtllm").validate(profile(args=args), ())


# --- the table itself ----------------------------------------------------------------------------


def test_the_shipped_table_has_the_documented_shape() -> None:
    assert check_option_document(json.loads(options_table.TABLE)) == []
    assert (TABLE.engine, TABLE.program) == ("trtllm", "trtllm-serve serve")
    assert (TABLE.oldest, TABLE.newest) == ("1.0.0", "1.3.0rc29")
    assert tuple(sorted(RELEASES, key=parse_version)) == RELEASES


def test_every_release_has_what_the_plugin_always_emits() -> None:
    # The flags every command carries are spelt alike in every release read: no spelling()
    # is needed for them (--tensor_parallel_size, for one, came only in 1.2.0).
    for release in RELEASES:
        view = TABLE.for_release(release, setting="[engines.trtllm] version")
        for option in ("--host", "--port", "--backend", "--tp_size", "--pp_size", OPTIONS_FLAG):
            assert view.accepts(option), f"{release} lacks {option}"
    assert first_release("--tensor_parallel_size") == "1.2.0"


# --- what is emitted, for every release ---------------------------------------------------------


@pytest.mark.parametrize("release", RELEASES)
def test_a_single_node_shard_uses_only_options_of_its_release(release: str) -> None:
    view = config(release).options
    assert view.read == release
    assert view.note is None
    for metrics in (True, False):
        [command] = plan(release, shard(profile()), prometheus_metrics=metrics)
        given = options_given(command)
        assert [option for option in given if not view.accepts(option)] == []
        assert (OPTIONS_FLAG in given) is metrics
        assert ("--served_model_name" in given) is (parse_version(release) >= parse_version("1.3.0rc7"))


@pytest.mark.parametrize("release", RELEASES)
def test_a_shard_with_adapters_uses_only_options_of_its_release(release: str) -> None:
    view = config(release).options
    adapters = (Adapter(name="sql", path="/adapters/sql"), Adapter(name="de", path="/adapters/de"))
    [command] = plan(release, shard(profile(adapters=adapters)), prometheus_metrics=False)
    given = options_given(command)
    assert OPTIONS_FLAG in given
    assert [option for option in given if not view.accepts(option)] == []
    assert json.loads(command.env[OPTIONS_ENV])["lora_config"]["lora_dir"] == [
        "/adapters/sql",
        "/adapters/de",
    ]


@pytest.mark.parametrize("release", RELEASES)
def test_a_served_name_is_given_where_the_release_has_the_flag(release: str) -> None:
    spec = shard(profile(served_model_name="llama"))
    if config(release).options.accepts("--served_model_name"):
        [command] = plan(release, spec)
        assert command.args[command.args.index("--served_model_name") + 1] == "llama"
        assert [o for o in options_given(command) if not config(release).options.accepts(o)] == []
    else:
        with pytest.raises(SpecError) as err:
            plan(release, spec)
        assert (
            f"profile 'p': served_model_name 'llama': TensorRT-LLM {release} ([engines.trtllm] version) "
            f"has no --served_model_name (it came in 1.3.0rc7), and clients would have to ask for the "
            f"model path instead; leave served_model_name empty or run a newer release"
        ) in str(err.value)


@pytest.mark.parametrize("release", RELEASES)
def test_what_trtllm_serve_cannot_serve_is_refused_on_every_release(release: str) -> None:
    # No multi-node shard (one MPI world), no KV events, no CPU: whatever the release.
    multi = shard(
        profile(nodes=2, gpus_per_node=2, tp=4), nnodes=2, leader_addr="10.0.0.1", leader_port=29500
    )
    with pytest.raises(SpecError, match="one MPI world across the nodes"):
        plan(release, multi)
    with pytest.raises(SpecError, match="trtllm-serve publishes no KV-cache events"):
        plan(release, shard(profile(kv_events=True)))
    with pytest.raises(EngineError, match="runs only on NVIDIA GPUs"):
        TrtllmEngine(config(release)).commands(shard(profile(tp=1), gpu_indices=()))


@pytest.mark.parametrize(
    ("release", "backend"),
    [(release, backend) for release, choices in BACKEND_CHOICES.items() for backend in choices],
)
def test_each_backend_a_release_lists_renders(release: str, backend: str) -> None:
    [command] = plan(release, shard(profile()), backend=backend)
    assert command.args[command.args.index("--backend") + 1] == backend


def test_the_served_name_release_comes_from_the_table() -> None:
    assert first_release("--served_model_name") == "1.3.0rc7"
    for version, has in [("1.3.0rc6", False), ("1.3.0rc7", True), ("1.3.0rc8", True), ("1.2.5", False)]:
        assert has_served_name(config(version)) is has, version
    # Unset: the newest release read is assumed, and it has the flag.
    assert has_served_name(config(None)) is True


# --- the backend a release no longer offers -----------------------------------------------------


def test_a_backend_the_configured_release_no_longer_lists_is_a_config_error() -> None:
    with pytest.raises(ValueError, match="backend") as err:
        config("1.3.0rc29", backend="_autodeploy")
    assert str(err.value) == (
        "backend '_autodeploy': trtllm-serve serve 1.3.0rc29 no longer takes it (its --backend takes "
        "only pytorch); use one of those backends, or check that version is the release the node runs"
    )
    with pytest.raises(ValueError, match="backend") as err:
        config("1.3.0rc22", backend="tensorrt")
    assert str(err.value) == (
        "backend 'tensorrt': trtllm-serve serve 1.3.0rc22 no longer takes it (its --backend takes "
        "only pytorch | _autodeploy); use one of those backends, or check that version is the release "
        "the node runs"
    )
    # A release after the newest read is judged by the newest read, and says so.
    with pytest.raises(ValueError, match="backend") as err:
        config("1.4.0rc4", backend="tensorrt")
    assert "trtllm-serve serve 1.3.0rc29 (the release read nearest 1.4.0rc4) no longer takes it" in str(
        err.value
    )


def test_with_no_release_set_the_assumed_one_decides_and_is_named() -> None:
    with pytest.raises(ValueError, match="backend") as err:
        config(None, backend="tensorrt")
    assert str(err.value) == (
        "backend 'tensorrt': no release is set ([engines.trtllm] version), so the newest release read, "
        "trtllm-serve serve 1.3.0rc29, is assumed, and its --backend takes only pytorch; set version "
        "to the release the node runs, or use one of those backends"
    )


def test_a_backend_is_refused_only_where_the_releases_choices_were_checked() -> None:
    # 1.2.1's choices are not in BACKEND_CHOICES: nothing is refused on a guess.
    assert config("1.2.1", backend="tensorrt").backend == "tensorrt"
    assert config("1.3.0rc25", backend="_autodeploy").backend == "_autodeploy"


def test_the_node_config_fails_to_load_with_the_backend_message() -> None:
    registry = Registry.from_entry_points(config={"trtllm": {"python": PY, "backend": "tensorrt"}})
    [row] = [r for r in registry.statuses() if r.name == "trtllm"]
    assert row.status == "failed"
    assert "backend 'tensorrt': no release is set ([engines.trtllm] version)" in row.detail


# --- pass-through options the configured release refuses ---------------------------------------


@pytest.mark.parametrize(
    ("release", "args", "why"),
    [
        # Added later: named with the first release that has it.
        ("1.1.0", ("--free_gpu_memory_fraction", "0.8"), ": it is from 1.2.0 on; remove it"),
        ("1.3.0rc6", ("--kv_cache_dtype", "auto"), ": it is from 1.3.0rc7 on; remove it"),
        ("1.3.0rc7", ("--no-telemetry",), ": it is from 1.3.0rc15 on; remove it"),
        ("1.3.0rc17", ("--num_media_load_workers", "4"), ": it is from 1.3.0rc22 on; remove it"),
        ("1.3.0rc22", ("--generation-config", "auto"), ": it is from 1.3.0rc25 on; remove it"),
        ("1.3.0rc22", ("--num_serve_frontends", "2"), ": it is from 1.3.0rc25 on; remove it"),
        # Removed: named with the release that dropped it and the last that had it.
        (
            "1.3.0rc29",
            ("--fail_fast_on_attention_window_too_large",),
            ": removed in 1.3.0rc29 (last in 1.3.0rc25); remove it",
        ),
        # A typo: the release's nearest spelling.
        ("1.2.1", ("--max_batch_sizes", "8"), f"; did you mean --max_batch_size?; {NEWER}"),
        ("1.0.0", ("--tp-size", "2"), f"; did you mean --tp_size?; {NEWER}"),
    ],
)
def test_an_option_the_release_lacks_is_refused_with_what_is_known(
    release: str, args: tuple[str, ...], why: str
) -> None:
    assert problems(release, *args) == [
        f"profile 'p': args: {args[0]!r} is not an option of trtllm-serve serve {release}{why}"
    ]


def test_a_renamed_option_names_its_new_spelling() -> None:
    # Risky, so allowed here: allowing it vouches for its use, not for a release without it.
    allowed = ("--extra_visual_gen_options",)
    for release in ("1.3.0rc22", "1.3.0rc29"):
        assert problems(release, "--extra_visual_gen_options", "v.yaml", allow_args=allowed) == [
            f"profile 'p': args: '--extra_visual_gen_options' is not an option of trtllm-serve serve "
            f"{release}: renamed to --visual_gen_args in 1.3.0rc22; use --visual_gen_args instead"
        ]
    assert problems("1.3.0rc17", "--extra_visual_gen_options", "v.yaml", allow_args=allowed) == []


def test_dashed_worker_counts_get_the_underscored_spelling() -> None:
    # No release has had them with dashes; 1.3.0rc22 on, the table's suggestion says it already.
    assert problems("1.3.0rc17", "--input-processor-workers", "4") == [
        "profile 'p': args: '--input-processor-workers' is not an option of trtllm-serve serve "
        f"1.3.0rc17; {NEWER}; trtllm-serve spells it --num_input_processor_workers (1.3.0rc22 on)"
    ]
    assert problems("1.3.0rc29", "--media-load-workers", "4") == [
        "profile 'p': args: '--media-load-workers' is not an option of trtllm-serve serve "
        f"1.3.0rc29; did you mean --num_media_load_workers?; {NEWER}"
    ]


@pytest.mark.parametrize(
    ("release", "args"),
    [
        ("1.3.0rc15", ("--no-telemetry",)),
        ("1.3.0rc29", ("--telemetry",)),
        ("1.3.0rc22", ("--num_input_processor_workers", "4", "--num_media_load_workers=4")),
        ("1.3.0rc25", ("--generation-config", "auto", "--num_serve_frontends", "2")),
        ("1.3.0rc29", ("--generation-config=trtllm",)),
        ("1.0.0", ("--kv_cache_free_gpu_memory_fraction", "0.8")),
        ("1.3.0rc17", ("--fail_fast_on_attention_window_too_large",)),
    ],
)
def test_an_option_the_release_has_passes(release: str, args: tuple[str, ...]) -> None:
    # None of these loads code or reaches off the node: no allowance is needed.
    assert problems(release, *args) == []


# --- the policy for options the hand list did not have ------------------------------------------


def test_report_addr_writes_a_host_file_and_is_refused_unless_allowed() -> None:
    assert problems("1.3.0rc29", "--report_addr", "/etc/cron.d/x") == [
        "profile 'p': args: '--report_addr' (--report_addr) writes the server's address to the host path "
        "it names, creating its directories; refused unless the site allows it "
        '(engines.trtllm.allow_args = ["--report_addr"])'
    ]
    assert problems("1.3.0rc25", "--report_addr", "/run/a.addr", allow_args=("--report_addr",)) == []
    # Allowed, but the release is older than the option: still refused, for that.
    assert problems("1.3.0rc22", "--report_addr", "/run/a.addr", allow_args=("--report_addr",)) == [
        "profile 'p': args: '--report_addr' is not an option of trtllm-serve serve 1.3.0rc22: it is "
        "from 1.3.0rc25 on; remove it"
    ]


def test_grpc_protocol_is_managed_with_grpc() -> None:
    assert problems("1.3.0rc29", "--grpc-protocol", "openengine") == [
        "profile 'p': args: '--grpc-protocol' sets --grpc-protocol, which enginekit manages; it picks the "
        "protocol of the gRPC server that --grpc starts, and enginekit serves the OpenAI HTTP API, which "
        "--grpc replaces"
    ]
    with pytest.raises(ValueError, match="'--grpc-protocol' is set by enginekit itself"):
        config("1.3.0rc29", allow_args=("--grpc-protocol",))


# --- releases without a table of their own --------------------------------------------------------


def test_with_no_release_set_the_plan_notes_the_assumed_one() -> None:
    notes = engine_for(TrtllmEngine(config(None)), "trtllm").plan(shard(profile()), H100).notes
    assert (
        "no trtllm release is configured ([engines.trtllm] version): pass-through options are checked "
        "against trtllm-serve serve 1.3.0rc29, the newest release this plugin has read (1.0.0 to "
        "1.3.0rc29); set [engines.trtllm] version to the release the node runs"
    ) in notes
    assert config(None).release == "1.3.0rc29"


def test_a_release_newer_than_the_table_is_checked_against_the_newest_with_a_note() -> None:
    cfg = config("1.4.0rc4")
    assert cfg.release == "1.4.0rc4"
    notes = engine_for(TrtllmEngine(cfg), "trtllm").plan(shard(profile()), H100).notes
    assert (
        "trtllm 1.4.0rc4 is newer than every release this plugin has read (1.0.0 to 1.3.0rc29): "
        "pass-through options are checked against 1.3.0rc29's; an option added since is refused until "
        "the plugin is upgraded or the site lists it in allow_args"
    ) in notes
    assert problems("1.4.0rc4", "--brand_new", "1") == [
        "profile 'p': args: '--brand_new' is not an option of trtllm-serve serve 1.3.0rc29 (the release "
        f"read nearest 1.4.0rc4); {NEWER}"
    ]
    assert problems("1.4.0rc4", "--brand_new", "1", allow_args=("--brand_new",)) == []


def test_a_release_between_two_read_ones_uses_the_one_below() -> None:
    view = config("1.3.0rc20").options
    assert view.read == "1.3.0rc17"
    assert view.note == (
        "trtllm 1.3.0rc20 has no option table of its own: pass-through options are checked against "
        "1.3.0rc17's, the newest release read below it"
    )
    assert config("1.3.0rc23", backend="_autodeploy").options.read == "1.3.0rc22"
