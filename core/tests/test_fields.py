"""Shared config fields: one executable rule, one allow_args rule, one version rule for every engine."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from enginekit.base.errors import SpecError
from enginekit.policy.fields import (
    Allowable,
    allow_args,
    check_allow_args,
    executable,
    executable_problem,
    resolve_executable,
    version,
)
from enginekit.spec.convert import structure

RISKY = frozenset({"--trust-remote-code", "--allowed-local-media-path"})
NEVER = frozenset({"--api-key", "--port"})


@attrs.frozen(kw_only=True)
class SectionConfig:
    """An engine's config section built from the shared fields, as a plugin writes one."""

    executable: str = executable("myengine")
    version: str = version("0.34.0")
    allow_args: tuple[str, ...] = allow_args(RISKY, never=NEVER)


@attrs.frozen(kw_only=True)
class FinalOnlyConfig:
    version: str = version("1.2.0", final_only=True)


def section(**raw: object) -> SectionConfig:
    value, unknown = structure(raw, SectionConfig, path="engines.myengine")
    assert unknown == []
    return value


# --- executable -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "/opt/vllm/bin/vllm",
        "/usr/bin/llama-server",
        "/x",
        "vllm",
        "llama-server",
        "python3.11",
        "trtllm_serve",
        "g++",
    ],
)
def test_an_absolute_path_or_a_bare_program_name_is_an_executable(value: str) -> None:
    assert executable_problem(value) is None
    assert section(executable=value).executable == value


@pytest.mark.parametrize("value", ["bin/vllm", "./vllm", "../vllm", "venv/bin/python", "a/b/c"])
def test_a_relative_path_is_refused(value: str) -> None:
    # It would depend on whatever directory the agent runs in, as root.
    assert executable_problem(value) == (
        "a relative path depends on the agent's working directory: give an absolute path or a bare name"
    )


@pytest.mark.parametrize(
    "value", ["/opt/../bin/sh", "/opt/vllm/..", "/./vllm", "/opt//vllm", "/opt/vllm/", "/"]
)
def test_an_absolute_path_with_dot_dot_or_empty_parts_is_refused(value: str) -> None:
    assert executable_problem(value) == (
        "expected an absolute path to a program (no '.', '..' or empty parts, no trailing '/')"
    )


@pytest.mark.parametrize(
    "value", ["..", ".", ".hidden", "-vllm", "--help", "a b", "vllm;id", "$(id)", "x" * 256]
)
def test_a_bare_name_is_letters_digits_and_a_few_marks_not_starting_with_a_dash_or_dot(value: str) -> None:
    assert executable_problem(value) == (
        "expected a program name of letters, digits and . _ + - (not starting with '-')"
    )


@pytest.mark.parametrize(
    "value", ["vll\x1bm", "/opt/vllm\n", "vllm\x00", "/opt/\u202evllm", "vl\u200blm", " vllm", "/opt/vllm "]
)
def test_control_invisible_and_surrounding_space_characters_are_refused(value: str) -> None:
    assert executable_problem(value) == (
        "expected a program name or an absolute path, without control or invisible characters"
    )


@pytest.mark.parametrize("value", ["", None, 5, Path("/opt/vllm"), ["vllm"]])
def test_an_executable_is_a_non_empty_string(value: object) -> None:
    assert executable_problem(value) == "expected a program name or an absolute path"


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("bin/vllm", "a relative path depends on the agent's working directory"),
        ("-x", "expected a program name of letters"),
        ("/opt/../x", "expected an absolute path to a program (no '.', '..'"),
    ],
)
def test_a_config_with_a_bad_executable_is_refused_naming_the_field_and_the_value(
    value: str, why: str
) -> None:
    with pytest.raises(SpecError) as err:
        section(executable=value)
    [problem] = err.value.problems
    assert problem.startswith(f"engines.myengine: executable {value!r}: {why}")


def test_the_default_executable_is_the_fields_default() -> None:
    assert section().executable == "myengine"
    with pytest.raises(ValueError, match="executable 'bin/x'"):
        SectionConfig(executable="bin/x")


def test_an_installed_build_decides_the_program_over_the_config() -> None:
    assert resolve_executable("vllm", None, "bin/vllm") == "vllm"
    assert resolve_executable("/opt/mine/vllm", Path("/opt/builds/vllm-0.34"), "bin/vllm") == (
        "/opt/builds/vllm-0.34/bin/vllm"
    )


# --- allow_args -----------------------------------------------------------------------------------


def test_allow_args_takes_flags_the_plugin_refuses_and_defaults_to_none() -> None:
    assert section().allow_args == ()
    assert section(allow_args=["--trust-remote-code"]).allow_args == ("--trust-remote-code",)
    both = ["--allowed-local-media-path", "--trust-remote-code"]
    assert section(allow_args=both).allow_args == tuple(both)


@pytest.mark.parametrize("flag", sorted(NEVER))
def test_allow_args_never_opens_a_flag_enginekit_sets_or_a_secret_flag(flag: str) -> None:
    with pytest.raises(SpecError) as err:
        section(allow_args=[flag])
    assert err.value.problems == (
        f"engines.myengine: allow_args: {flag!r} is set by enginekit itself or carries a secret, and "
        f"cannot be allowed",
    )


@pytest.mark.parametrize(
    "flag", ["--trust_remote_code", "--trust-remote", "--enforce-eager", "trust-remote-code"]
)
def test_allow_args_names_flags_in_their_canonical_spelling_only(flag: str) -> None:
    # An abbreviation or another spelling would allow something the plugin never reviewed.
    with pytest.raises(SpecError) as err:
        section(allow_args=[flag])
    assert err.value.problems == (
        f"engines.myengine: allow_args: {flag!r} is not a flag this plugin refuses; name flags in their "
        f"canonical spelling, one of: --allowed-local-media-path, --trust-remote-code",
    )


def test_allow_args_is_a_list_never_a_string_split_into_characters() -> None:
    with pytest.raises(SpecError) as err:
        section(allow_args="--trust-remote-code")
    assert err.value.problems == (
        "engines.myengine.allow_args: expected a list, got str '--trust-remote-code'",
    )


def test_a_plugin_without_risky_flags_says_none_can_be_allowed() -> None:
    @attrs.frozen
    class Strict:
        allow_args: tuple[str, ...] = attrs.field(default=(), validator=check_allow_args(()))

    with pytest.raises(ValueError, match=r"one of: none$"):
        Strict(allow_args=("--x",))


# --- version --------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["0.34.0", "0.11", "1.3.0rc7", "0.5.4.post2", "0.34.0+cpu"])
def test_a_version_field_takes_a_release_number(value: str) -> None:
    assert section(version=value).version == value


@pytest.mark.parametrize("value", ["latest", "", "0.34.x", "v", "0.34.0 "])
def test_a_version_field_refuses_what_is_no_release_number(value: str) -> None:
    with pytest.raises(SpecError) as err:
        section(version=value)
    [problem] = err.value.problems
    assert problem.startswith(f"engines.myengine: version: {value!r} is not a release number")


def test_a_final_only_version_field_refuses_a_pre_release_and_says_what_to_give() -> None:
    assert structure({"version": "1.2.1"}, FinalOnlyConfig, path="engines.x")[0].version == "1.2.1"
    with pytest.raises(SpecError) as err:
        structure({"version": "1.3.0rc7"}, FinalOnlyConfig, path="engines.x")
    assert err.value.problems == (
        "engines.x: version: '1.3.0rc7' is a pre-release or development build: give the final "
        "release the node runs, such as '1.3.0'",
    )


def test_a_version_field_that_is_no_string_is_refused() -> None:
    with pytest.raises(SpecError, match=r"engines\.myengine\.version: expected a string"):
        section(version=0.34)


def test_allow_args_is_a_tuple_and_the_version_field_takes_pre_releases_by_default() -> None:
    import attrs
    from enginekit.policy.fields import allow_args, check_version, version

    @attrs.frozen
    class Config:
        allow_args: tuple[str, ...] = allow_args({"--trust-remote-code"})
        version: str = version("1.3.0rc7")

    config = Config(allow_args=["--trust-remote-code"])  # type: ignore[arg-type]
    assert config.allow_args == ("--trust-remote-code",)  # frozen: the list given is not kept
    assert config.version == "1.3.0rc7"
    field = attrs.fields(Config).version
    check_version()(config, field, "1.3.0rc7")  # only final_only=True refuses a pre-release


def test_an_absolute_path_with_an_empty_part_is_refused() -> None:
    from enginekit.policy.fields import executable_problem

    for path in ("//opt/vllm/bin/vllm", "/opt//vllm", "/opt/vllm/"):
        assert executable_problem(path) is not None, path
    assert executable_problem("/opt/vllm/bin/vllm") is None


# --- Allowable: what allow_args may name ------------------------------------------------------


def _allowable(*, underscores: bool = False, asked: list[int] | None = None) -> Allowable:
    def known() -> frozenset[str]:
        if asked is not None:
            asked.append(1)
        return frozenset({"--max-model-len", "--enable-prefix-caching", "--trust-remote-code"})

    return Allowable({"--trust-remote-code", "--load-plugin"}, known, underscores=underscores)


@pytest.mark.parametrize(
    ("flag", "allowed"),
    [
        ("--trust-remote-code", True),  # refused by default: the site may vouch for it
        ("--load-plugin", True),  # refused, and no table has it
        ("--brand-new-option", True),  # a newer release's: no table knows it
        ("--max-model-len", False),  # every read release has it: no allowance
        ("--MAX-MODEL-LEN", False),  # a case variant of a known one
        ("--max-model", False),  # a prefix of a known option is that option abbreviated
        ("--max_model_len", True),  # without underscores read as dashes: another spelling
        ("-x", False),  # not a long option
        ("max-model-len", False),
        ("--", False),
        (7, False),
        (None, False),
    ],
)
def test_allowable_takes_refused_flags_and_options_no_table_knows(flag: object, allowed: bool) -> None:
    assert (flag in _allowable()) is allowed


def test_with_underscores_an_underscore_spelling_of_a_known_option_is_that_option() -> None:
    assert "--max_model_len" not in _allowable(underscores=True)
    assert "--max_model_len" in _allowable(underscores=False)
    assert "--brand_new" in _allowable(underscores=True)
    assert "--trust_remote_code" not in _allowable(underscores=True)  # a refused one, spelt otherwise


def test_allowable_reads_the_table_only_for_a_flag_it_does_not_refuse() -> None:
    asked: list[int] = []
    allowable = _allowable(asked=asked)
    assert "--load-plugin" in allowable
    assert "-x" not in allowable
    assert asked == []
    assert "--brand-new-option" in allowable
    assert asked == [1]


def test_allowable_lists_the_refused_flags_sorted() -> None:
    allowable = _allowable()
    assert list(allowable) == ["--load-plugin", "--trust-remote-code"]
    assert len(allowable) == 2


@attrs.frozen
class _Versions:
    plain: str = version()
    pinned: str = version("1.2.0")


def test_an_empty_version_passes_only_where_the_field_has_no_default() -> None:
    assert _Versions().plain == ""
    assert _Versions(plain="").plain == ""
    with pytest.raises(ValueError, match=r"pinned"):
        _Versions(pinned="")
    assert _Versions().pinned == "1.2.0"
    with pytest.raises(ValueError, match=r"plain"):
        _Versions(plain="latest")
