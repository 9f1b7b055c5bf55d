"""llama-server's option table per build: the flags enginekit emits, and the pass-through checks."""

from __future__ import annotations

import json

import pytest
from enginekit import Adapter, Profile, ShardSpec
from enginekit.plugin import check_option_document
from enginekit.testing import check_engine, engine_for
from enginekit_llamacpp import LlamaCppConfig, LlamaCppEngine, options_table
from enginekit_llamacpp.flags import ALIASES, MANAGED, PRIORITY, RISKY, SECRET, table
from enginekit_llamacpp.syntax import SYNTAX

BUILDS = table().releases
P = "profile 'p'"
#: Every flag of the plugin's own tables: an other spelling of one must be refused as it.
GUARDED = frozenset(MANAGED) | frozenset(SECRET) | frozenset(RISKY) | PRIORITY


def shard(**fields: object) -> ShardSpec:
    """A one-GPU shard; ``profile_*`` fields go to the profile."""
    profile = {k[len("profile_") :]: v for k, v in fields.items() if k.startswith("profile_")}
    spec = {k: v for k, v in fields.items() if not k.startswith("profile_")}
    profile = {"name": "p", "engine": "llamacpp", "model_path": "/models/m.gguf", **profile}
    spec = {"shard_id": "s0", "http_port": 8080, "gpu_indices": (0,), **spec}
    return ShardSpec(profile=Profile(**profile), **spec)  # type: ignore[arg-type]


SHARDS = {
    "single GPU": shard(),
    "two GPUs": shard(gpu_indices=(0, 1), profile_tp=2),
    "CPU with threads": shard(gpu_indices=(), threads=8),
    "LoRA adapters": shard(
        profile_adapters=(Adapter(name="a", path="/lora/a"), Adapter(name="b", path="/l,b"))
    ),
    "API key": shard(api_key="sk-0123456789abcdef"),
}


def problems(args: tuple[str, ...], build: int = 0, **config: object) -> list[str]:
    prof = Profile(name="p", engine="llamacpp", tp=1, model_path="/models/m.gguf", args=args)
    engine = engine_for(LlamaCppEngine(LlamaCppConfig(build=build, **config)), "llamacpp")  # type: ignore[arg-type]
    return engine.validate(prof, [])


def test_the_table_has_the_shape_the_core_reads() -> None:
    assert check_option_document(json.loads(options_table.TABLE)) == []
    assert BUILDS == ("8942", "9445", "9976", "10454", "11312")


@pytest.mark.parametrize("build", BUILDS)
@pytest.mark.parametrize("name", list(SHARDS))
def test_every_flag_enginekit_emits_exists_in_every_build(build: str, name: str) -> None:
    engine = LlamaCppEngine(LlamaCppConfig(build=int(build)))
    (command,) = check_engine(engine, SHARDS[name])
    accepts = engine.config.options.accepts
    emitted = [word for word in command.argv()[1:] if word.startswith("--")]
    assert emitted, name
    assert [flag for flag in emitted if not accepts(flag)] == [], (build, name)


def test_with_no_build_configured_the_plan_names_the_build_assumed() -> None:
    notes = LlamaCppEngine().notes(shard())
    assert notes[-1] == (
        "no llamacpp release is configured ([engines.llamacpp] build): pass-through options are "
        "checked against llama-server 11312, the newest release this plugin has read (8942 to "
        "11312); set [engines.llamacpp] build to the release the node runs"
    )
    assert not any("release" in note for note in LlamaCppEngine(LlamaCppConfig(build=9445)).notes(shard()))


def test_a_build_between_two_read_ones_is_checked_against_the_older() -> None:
    (problem,) = problems(("--spec-draft-n-max", "8"), build=9000)
    assert problem == (
        f"{P}: args: '--spec-draft-n-max' is not an option of llama-server 8942 (the release read "
        f"nearest 9000): it is from 9445 on, where it replaced --draft; use --draft instead"
    )


@pytest.mark.parametrize(
    ("build", "args", "why"),
    [
        # Added later: refused on the older build, with the spelling it had there.
        (
            8942,
            ("--spec-draft-n-max", "8"),
            "'--spec-draft-n-max' is not an option of llama-server 8942: it is from 9445 on, where "
            "it replaced --draft; use --draft instead",
        ),
        (
            9976,
            ("--load-mode", "mmap"),
            "'--load-mode' is not an option of llama-server 9976: it is from 10454 on, where it "
            "replaced --direct-io; use --direct-io instead",
        ),
        # Renamed: the old spelling on a build that has only the new one.
        (
            9445,
            ("--draft", "8"),
            "'--draft' is not an option of llama-server 9445: renamed to --spec-draft-n-max in 9445; "
            "use --spec-draft-n-max instead",
        ),
        (
            11312,
            ("--no-mmap",),
            "'--no-mmap' is not an option of llama-server 11312: renamed to --load-mode in 11312; "
            "use --load-mode instead",
        ),
        (
            11312,
            ("--mlock",),
            "'--mlock' is not an option of llama-server 11312: renamed to --load-mode in 11312; "
            "use --load-mode instead",
        ),
        # A long other spelling newer than the option it stands for.
        (
            8942,
            ("--spec-draft-ncmoe", "2"),
            "'--spec-draft-ncmoe' is not an option of llama-server 8942: it is from 9445 on; remove it",
        ),
        # A typo.
        (
            10454,
            ("--ctx-sise", "8192"),
            "'--ctx-sise' is not an option of llama-server 10454; did you mean --ctx-size?; remove it, "
            "or, if the node's release has it, list it in engines.llamacpp.allow_args",
        ),
        # --opt=value: llama-server looks the whole word up and stops.
        (
            11312,
            ("--ctx-size=8192",),
            "'--ctx-size' is given its value after '=': llama-server has no --option=value form (it "
            "reads the whole word as an option's name and stops with 'invalid argument'); give the "
            "value as the next word: --ctx-size VALUE",
        ),
    ],
)
def test_an_option_the_build_refuses_is_refused_with_what_is_known(
    build: int, args: tuple[str, ...], why: str
) -> None:
    assert problems(args, build=build) == [f"{P}: args: {why}"]


@pytest.mark.parametrize("build", BUILDS)
def test_what_every_build_has_passes(build: str) -> None:
    assert problems(("-c", "8192", "--parallel", "4", "-fa", "on", "--jinja"), build=int(build)) == []


def test_an_option_newer_than_every_build_passes_only_when_the_site_lists_it() -> None:
    (problem,) = problems(("--brand-new-option", "1"))
    assert problem.endswith("list it in engines.llamacpp.allow_args")
    assert problems(("--brand-new-option", "1"), allow_args=("--brand-new-option",)) == []


def _guarded_aliases() -> list[tuple[str, str]]:
    return sorted((alias, option) for alias, option in table().alias_of.items() if option in GUARDED)


def test_the_plugins_aliases_cover_every_spelling_of_a_guarded_flag() -> None:
    # The table was made with the plugin's canonical names (the generator reads ALIASES):
    # a spelling a new build adds for a managed, secret, risky or priority flag must be
    # named here too, and mean the same flag.
    assert [(alias, option) for alias, option in _guarded_aliases() if ALIASES.get(alias) != option] == []
    assert [alias for alias, option in ALIASES.items() if table().alias_of.get(alias, option) != option] == []


@pytest.mark.parametrize(("alias", "option"), _guarded_aliases(), ids=[a for a, _ in _guarded_aliases()])
def test_every_spelling_of_a_guarded_flag_is_read_as_that_flag(alias: str, option: str) -> None:
    assert SYNTAX.normalise(alias) == option


SPEC_DRAFT = [
    ("--spec-draft-threads", "--threads-draft", "4"),
    ("--spec-draft-threads-batch", "--threads-batch-draft", "4"),
    ("--spec-draft-cpu-mask", "--cpu-mask-draft", "ff"),
    ("--spec-draft-cpu-mask-batch", "--cpu-mask-batch-draft", "ff"),
    ("--spec-draft-cpu-range", "--cpu-range-draft", "0-3"),
    ("--spec-draft-cpu-strict", "--cpu-strict-draft", "1"),
    ("--spec-draft-cpu-strict-batch", "--cpu-strict-batch-draft", "1"),
]


@pytest.mark.parametrize("build", BUILDS[1:])
@pytest.mark.parametrize(("spelling", "option", "value"), SPEC_DRAFT, ids=[s for s, _, _ in SPEC_DRAFT])
def test_the_spec_draft_spellings_are_refused_as_the_managed_flag(
    build: str, spelling: str, option: str, value: str
) -> None:
    assert problems((spelling, value), build=int(build)) == [
        f"{P}: args: {spelling!r} sets {option}, which enginekit manages; {MANAGED[option]}"
    ]


@pytest.mark.parametrize(
    ("spelling", "option"),
    [("--spec-draft-prio", "--prio-draft"), ("--spec-draft-prio-batch", "--prio-batch-draft")],
)
def test_the_spec_draft_priorities_are_gated_as_the_priority_flag(spelling: str, option: str) -> None:
    (problem,) = problems((spelling, "3"), build=9445)
    assert problem.startswith(f"{P}: args: {spelling!r} ({option}) raises its threads above normal")
    assert problem.endswith(f'refused unless the site allows it (engines.llamacpp.allow_args = ["{option}"])')
    assert problems((spelling, "0"), build=9445) == []
    assert problems((spelling, "3"), build=9445, allow_args=(option,)) == []


def test_a_cpu_shards_kv_cache_size_is_the_profiles_context_not_a_flag() -> None:
    spec = shard(gpu_indices=(), threads=8, kv_cache_mib=4096, profile_args=("--ctx-size", "8192"))
    engine = LlamaCppEngine(LlamaCppConfig(build=11312))
    (command,) = check_engine(engine, spec)
    (plain,) = check_engine(engine, shard(gpu_indices=(), threads=8, profile_args=("--ctx-size", "8192")))
    assert command.argv() == plain.argv()
    assert (
        "kv_cache_mib (4096 MiB) is not passed on: llama-server sizes its KV cache from the "
        "profile's --ctx-size (and --parallel), not from kv_cache_mib"
    ) in engine.notes(spec)
    assert not any("kv_cache_mib" in note for note in engine.notes(shard(gpu_indices=(), threads=8)))


@pytest.mark.parametrize("value", [True, -1, 10**7 + 1, "9445"])
def test_a_build_that_is_no_build_number_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match=r"^build: .* is not a llama.cpp build number"):
        LlamaCppConfig(build=value)  # type: ignore[arg-type]
