"""Every vLLM release the table read: what the plugin emits exists there, and what it lacks is refused."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from enginekit.cli.app import main
from enginekit.plugin import ArgSyntax, ShardSpec, check_option_document
from enginekit.testing import engine_for
from enginekit_vllm import VllmConfig, VllmEngine
from enginekit_vllm.known import known_options, short_aliases, table
from enginekit_vllm.options_table import TABLE
from enginekit_vllm.versions import NATIVE_MULTINODE_SINCE, NEWEST, vllm_release
from vllm_specs import H100, adapters, profile, single, two_node

RELEASES = table().releases
#: Reads a command line as every read release's parser would, to name each option in it.
READER = ArgSyntax(known=known_options(), aliases=short_aliases(), underscores=True)


def test_the_table_is_well_formed_and_covers_the_supported_window() -> None:
    import json

    assert check_option_document(json.loads(TABLE)) == []
    assert (RELEASES[0], RELEASES[-1]) == ("0.11.0", NEWEST)
    # Every minor release from 0.11 to 0.34 has a table of its own.
    assert {tuple(r.split(".")[:2]) for r in RELEASES} == {("0", str(minor)) for minor in range(11, 35)}
    for release, source in zip(table().releases, table().sources, strict=True):
        assert f"vllm-{release}" in source
        assert "sha256" in source


def _shards(release: str) -> list[tuple[VllmConfig, ShardSpec]]:
    lora = profile(adapters=adapters()[:2], kv_events=True)
    cpu = {"gpu_indices": (), "hcas": (), "gid_index": None, "kv_cache_mib": 2048, "threads": 4}
    shards = [
        (VllmConfig(version=release), single(profile=lora, kv_events_port=41007)),
        (VllmConfig(version=release), single(profile=profile(tp=1, args=()), **cpu)),
        (VllmConfig(version=release, multinode="ray"), two_node(0)),
        # A disaggregated replica's instances: --kv-transfer-config.
        (VllmConfig(version=release), single(role="prefill", kv_transfer_port=5600)),
        (VllmConfig(version=release), single(role="decode", kv_transfer_port=5608)),
    ]
    if vllm_release(release) >= NATIVE_MULTINODE_SINCE:
        shards += [(VllmConfig(version=release), two_node(rank, **cpu)) for rank in (0, 1)]
        shards += [(VllmConfig(version=release), two_node(rank)) for rank in (0, 1)]
    return shards


@pytest.mark.parametrize("release", RELEASES)
def test_every_option_the_plugin_emits_exists_in_the_configured_release(release: str) -> None:
    options = table().for_release(release, setting="x")
    assert options.note is None
    for config, shard in _shards(release):
        for command in engine_for(VllmEngine(config), "vllm").commands(shard):
            if command.name in ("ray-head", "ray-worker"):
                continue  # `ray start`'s options, not vLLM's
            emitted = READER.parse(command.args).uses
            missing = sorted(option for option in emitted if not options.accepts(option))
            assert not missing, f"vLLM {release} has no {missing} ({command.name})"


def problems(release: str, *args: str, allow: tuple[str, ...] = ()) -> list[str]:
    engine = engine_for(VllmEngine(VllmConfig(version=release, allow_args=allow)), "vllm")
    return engine.validate(profile(args=args), H100)


@pytest.mark.parametrize(
    ("release", "args", "problem"),
    [
        # 0.33.0's EnableDisableAction shows --disable-prefix-caching and hides the old
        # --no-enable-prefix-caching (both parsers read; 0.32.0 has only the old).
        (
            "0.32.0",
            ("--disable-prefix-caching",),
            "profile 'llama70b-h100x8': args: '--disable-prefix-caching' is not an option of vllm serve "
            "0.32.0: it is from 0.33.0 on, where it replaced --no-enable-prefix-caching; use --no-enable-prefix-caching instead",
        ),
        (
            "0.34.0",
            ("--max-model-length", "4096"),
            "profile 'llama70b-h100x8': args: '--max-model-length' is not an option of vllm serve 0.34.0; "
            "did you mean --max-model-len?; remove it, or, if the node's release has it, list it in "
            "engines.vllm.allow_args",
        ),
        # --swap-space: in every parser from 0.11.0 to 0.17.1, in none from 0.18.0.
        (
            "0.34.0",
            ("--swap-space", "4"),
            "profile 'llama70b-h100x8': args: '--swap-space' is not an option of vllm serve 0.34.0: "
            "removed in 0.18.0 (last in 0.17.1); remove it",
        ),
        # --cuda-graph-sizes: "Please use --cudagraph-capture-sizes instead" (0.11.1-0.12.0 help),
        # gone from 0.13.0's parser.
        (
            "0.13.0",
            ("--cuda-graph-sizes", "8"),
            "profile 'llama70b-h100x8': args: '--cuda-graph-sizes' is not an option of vllm serve 0.13.0: "
            "renamed to --cudagraph-capture-sizes in 0.13.0; use --cudagraph-capture-sizes instead",
        ),
        # --device-memory-utilization: from 0.31.0's parser on.
        (
            "0.30.0",
            ("--device-memory-utilization", "0.9"),
            "profile 'llama70b-h100x8': args: '--device-memory-utilization' is not an option of vllm "
            "serve 0.30.0: it is from 0.31.0 on; remove it",
        ),
    ],
)
def test_an_option_the_release_rejects_is_refused_before_anything_starts(
    release: str, args: tuple[str, ...], problem: str
) -> None:
    assert problems(release, *args) == [problem]


@pytest.mark.parametrize(
    ("release", "args"),
    [
        ("0.32.0", ("--no-enable-prefix-caching",)),
        ("0.34.0", ("--no-enable-prefix-caching",)),  # hidden from help, still parsed
        ("0.34.0", ("--disable-prefix-caching",)),
        ("0.17.1", ("--swap-space", "4")),
        ("0.34.0", ("--max-model", "4096")),  # an unambiguous prefix, as argparse reads it
        ("0.11.0", ("-O", '{"level": 3}')),
    ],
)
def test_what_the_release_accepts_passes(release: str, args: tuple[str, ...]) -> None:
    assert problems(release, *args) == []


def test_an_option_newer_than_the_table_passes_once_the_site_vouches_for_it() -> None:
    assert problems(NEWEST, "--brand-new-knob", "1", allow=("--brand-new-knob",)) == []
    with pytest.raises(ValueError, match="is not a flag this plugin refuses"):
        VllmConfig(allow_args=("--max-model-len",))  # every profile may use it already
    with pytest.raises(ValueError, match="is not a flag this plugin refuses"):
        VllmConfig(allow_args=("--trust_remote_code",))  # vLLM reads it as --trust-remote-code


def test_a_release_without_its_own_table_and_no_release_at_all_are_named_in_the_plan() -> None:
    unset = engine_for(VllmEngine(), "vllm").plan(single(), H100)
    assert unset.notes[0] == (
        "no vllm release is configured ([engines.vllm] version): pass-through options are checked "
        f"against vllm serve {NEWEST}, the newest release this plugin has read (0.11.0 to {NEWEST}); "
        "set [engines.vllm] version to the release the node runs"
    )
    newer = engine_for(VllmEngine(VllmConfig(version="0.35.0")), "vllm").plan(single(), H100)
    assert newer.notes[0].startswith("vllm 0.35.0 is newer than every release this plugin has read")
    exact = engine_for(VllmEngine(VllmConfig(version="0.32.0")), "vllm").plan(single(), H100)
    assert not any("release" in note and "read" in note and "table" in note for note in exact.notes)


CONFIG = """
[engines.vllm]
version = "0.32.0"
"""


def test_render_refuses_the_issue_case_with_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = Path(__file__).parents[3] / "examples" / "vllm-single-node-tp8.toml"
    text = spec.read_text(encoding="utf-8").replace("args = [", 'args = ["--disable-prefix-caching", ', 1)
    assert text != spec.read_text(encoding="utf-8")
    (tmp_path / "spec.toml").write_text(text, encoding="utf-8")
    (tmp_path / "node.toml").write_text(CONFIG, encoding="utf-8")
    code = main(["render", str(tmp_path / "spec.toml"), "--config", str(tmp_path / "node.toml")], {})
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert "'--disable-prefix-caching' is not an option of vllm serve 0.32.0: it is from 0.33.0 on" in err


def test_every_table_row_is_a_release_the_facts_can_read() -> None:
    for release in RELEASES:
        assert attrs.evolve(VllmConfig(), version=release).release == vllm_release(release)
