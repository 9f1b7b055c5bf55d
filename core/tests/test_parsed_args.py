"""ParsedArgs: arguments read once give the same answers as reading every token for every check."""

from __future__ import annotations

import warnings
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import pytest
from enginekit.base.frozen import FrozenDict
from enginekit.policy.args import (
    ArgSyntax,
    OptionUse,
    ParsedArgs,
    code_loading_problems,
    find_options,
    managed_option_problems,
    option_values,
    positional_problems,
)
from hypothesis import given, settings
from hypothesis import strategies as st

KNOWN = frozenset(
    {
        "--port",
        "--port-range",
        "--trust-remote-code",
        "--trust-request-chat-template",
        "--quantization",
        "--q",
        "--kv-transfer-config",
        "--kv-cache-dtype",
        "--seed",
        "--served-model-name",
        "-ngl",
    }
)
ALIASES = {"-q": "--quantization", "-p": "--port", "-ngl": "--n-gpu-layers", "-tp": "--tensor-parallel-size"}


def _reference_value(args: Sequence[str], index: int, token: str, syntax: ArgSyntax) -> str | None:
    """The value a token takes, as the per-token scan read it before arguments were parsed once."""
    if "=" in token:
        return token.split("=", 1)[1]
    glued = token[:2] in syntax.aliases and token not in syntax.aliases and token not in syntax.known
    if glued and not token.startswith("--"):
        return token[2:]
    if index + 1 < len(args) and not args[index + 1].startswith("--"):
        return args[index + 1]
    return None


def reference_find(args: Sequence[str], options: Collection[str], syntax: ArgSyntax) -> list[OptionUse]:
    """Every token's meanings against ``options``, token by token: the straightforward scan."""
    found = []
    for index, token in enumerate(args):
        for option in sorted(syntax.meanings(token) & frozenset(options)):
            found.append(OptionUse(index, token, option, _reference_value(args, index, token, syntax)))
    return found


def reference_meanings(syntax: ArgSyntax, token: str) -> frozenset[str]:
    """What a token may select, every known option tried in turn (no bisection, no memo)."""
    name = syntax.normalise(token)
    if name is None:
        return frozenset()
    if name in syntax.known or not name.startswith("--"):
        return frozenset({name})
    if syntax.abbreviations and len(name) > 2:
        matches = frozenset(option for option in syntax.known if option.startswith(name))
        if matches:
            return matches
    return frozenset({name})


def _spellings(option: str) -> list[str]:
    """An option as profiles write it: whole, abbreviated, with underscores, dotted, with a value."""
    body = option[2:] if option.startswith("--") else option
    out = [
        option,
        f"{option}=v",
        f"{option}=a=b",
        option.replace("-", "_") if option.startswith("--") else option,
    ]
    if option.startswith("--"):
        out += [option[: max(3, len(option) - k)] for k in (1, 3, 6, 10)]
        out += [f"{option}.key", f"{option}.key=1", "--" + body.replace("-", "_")[:5]]
    return out


_tokens = st.one_of(
    st.sampled_from(sorted({s for option in KNOWN | set(ALIASES.values()) for s in _spellings(option)})),
    st.sampled_from(["-q", "-qawq", "-q=fp8", "-p", "-p8000", "-ngl", "-ngl5", "-tp", "-tp8", "-x", "-xyz"]),
    st.sampled_from(
        ["--", "-", "-1", "-0.5", "1e3", "fp8", "awq", "x", "", "--unknown", "--unknown=1", "---"]
    ),
    st.text(alphabet="-_.=abcdeknopqrstuy", max_size=12),
)
_syntaxes = st.builds(
    lambda underscores, abbreviations, dotted, aliases: ArgSyntax(
        known=KNOWN,
        aliases=ALIASES if aliases else {},
        underscores=underscores,
        abbreviations=abbreviations,
        dotted=dotted,
    ),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
_options = st.sets(
    st.sampled_from(sorted(KNOWN | set(ALIASES.values()) | {"--unknown", "--trust"})), max_size=4
)


@settings(max_examples=400)
@given(_syntaxes, st.lists(_tokens, max_size=12), _options)
def test_find_gives_what_a_scan_of_every_token_gives(
    syntax: ArgSyntax, args: list[str], options: set[str]
) -> None:
    expected = reference_find(args, options, syntax)
    assert syntax.parse(args).find(options) == expected
    assert find_options(args, options, syntax) == expected
    for option in options:
        values = [use.value for use in reference_find(args, {option}, syntax) if use.value is not None]
        assert syntax.parse(args).values(option) == values
        assert option_values(args, option, syntax) == values


@settings(max_examples=400)
@given(_syntaxes, _tokens)
def test_prefix_bisection_finds_what_a_linear_scan_finds(syntax: ArgSyntax, token: str) -> None:
    assert syntax.meanings(token) == reference_meanings(syntax, token)
    # Asked again, the remembered answer is the same.
    assert syntax.meanings(token) == reference_meanings(syntax, token)


@pytest.mark.parametrize(
    ("token", "meanings"),
    [
        ("--port", {"--port"}),  # exact wins over the longer option it prefixes
        ("--port-", {"--port-range"}),
        ("--por", {"--port", "--port-range"}),
        ("--trust", {"--trust-remote-code", "--trust-request-chat-template"}),
        ("--trust-re", {"--trust-remote-code", "--trust-request-chat-template"}),
        ("--trust-rem", {"--trust-remote-code"}),
        ("--q", {"--q"}),
        ("--qu", {"--quantization"}),
        ("--kv", {"--kv-transfer-config", "--kv-cache-dtype"}),
        ("--kw", {"--kw"}),  # between two known options in sorted order, prefixing neither
        ("--zzz", {"--zzz"}),  # after every known option
        ("--a", {"--a"}),  # before every known option
    ],
)
def test_a_prefix_selects_exactly_the_options_it_begins(token: str, meanings: set[str]) -> None:
    syntax = ArgSyntax(known=KNOWN)
    assert syntax.meanings(token) == frozenset(meanings)
    assert reference_meanings(syntax, token) == frozenset(meanings)


def test_find_is_in_argument_order_whatever_order_the_options_are_asked_in() -> None:
    syntax = ArgSyntax(known=KNOWN)
    parsed = syntax.parse(["--seed", "1", "--port", "2", "--seed=3", "--por", "4"])
    uses = parsed.find(["--seed", "--port", "--port-range"])
    assert [(use.index, use.option, use.value) for use in uses] == [
        (0, "--seed", "1"),
        (2, "--port", "2"),
        (4, "--seed", "3"),
        (5, "--port", "4"),
        (5, "--port-range", "4"),
    ]
    assert parsed.find(["--port-range", "--port", "--seed"]) == uses


def test_one_option_given_as_a_string_is_that_option_not_its_characters() -> None:
    parsed = ArgSyntax(known=KNOWN).parse(["--seed", "1", "-"])
    assert parsed.find("--seed") == parsed.find({"--seed"})
    assert [use.option for use in parsed.find("--seed")] == ["--seed"]


def test_a_parse_keeps_the_tokens_and_the_syntax_it_read_them_with() -> None:
    syntax = ArgSyntax(known=KNOWN)
    parsed = syntax.parse(["--seed", "1"])
    assert isinstance(parsed, ParsedArgs)
    assert parsed.tokens == ("--seed", "1")
    assert parsed.syntax is syntax
    assert len(parsed) == 2
    assert parsed.values("--port") == []
    assert parsed.find(set()) == []


def test_the_same_arguments_are_read_once() -> None:
    syntax = ArgSyntax(known=KNOWN)
    first = syntax.parse(["--seed", "1"])
    assert syntax.parse(("--seed", "1")) is first
    assert syntax.parse(["--seed", "2"]) is not first
    # Another syntax reads the same tokens its own way.
    assert ArgSyntax(known=KNOWN, abbreviations=False).parse(["--seed", "1"]) is not first


def test_the_memo_is_bounded_whatever_a_control_plane_sends() -> None:
    from enginekit.policy import args as args_module

    limit = args_module._CACHE_LIMIT
    syntax = ArgSyntax(known=KNOWN)
    memo = syntax._memo
    for n in range(10_000):
        syntax.meanings(f"--option-{n}")
        assert len(memo) <= limit
    for n in range(10_000):
        syntax.parse([f"--seed={n}"])
        assert len(memo) <= limit
    # Still right after being emptied and refilled many times.
    assert syntax.meanings("--trust-rem") == frozenset({"--trust-remote-code"})
    assert syntax.parse(["--seed", "7"]).values("--seed") == ["7"]


def test_what_a_syntax_remembers_never_changes_the_answer() -> None:
    cold = ArgSyntax(known=KNOWN, underscores=True, dotted=True)
    warm = ArgSyntax(known=KNOWN, underscores=True, dotted=True)
    args = ["--kv_transfer.key=1", "--por", "8", "--trust", "-q", "awq"]
    for _ in range(3):
        warm.parse(args)
    assert warm.parse(args).uses == cold.parse(args).uses


def test_long_tokens_and_long_argument_lists_are_read_again_not_remembered() -> None:
    # The memo is bounded in entries; these keep it bounded in bytes as well.
    syntax = ArgSyntax(known={"--a"})
    long_token = "--a=" + "x" * 10_000
    syntax.parse([long_token])
    syntax.parse(["--a", "y" * 20_000])
    assert all(len(str(key)) < 20_000 for key in syntax._memo), "a long token was remembered"


def test_a_second_stray_token_points_at_the_first_even_at_index_0() -> None:
    from enginekit.policy.args import positional_problems

    syntax = ArgSyntax(known={"--a"})
    problems = positional_problems("p", syntax.parse(["x", "y"]), arity={"--a": 1})
    assert "no option comes before it" in problems[0]
    assert "the token before it (args[0]) is refused for the same reason" in problems[1]


def test_what_a_token_takes_is_remembered_per_arity_never_across_arities() -> None:
    from enginekit.policy.args import positional_problems

    syntax = ArgSyntax(known={"--stream"})
    one, none = {"--stream": 1}, {"--stream": 0}
    # The same token under two arities, in two readings and in one: each answers for its own.
    assert positional_problems("p", syntax.parse(["--stream", "v"]), arity=one) == []
    assert positional_problems("p", syntax.parse(["--stream", "w"]), arity=none) != []
    shared = syntax.parse(["--stream", "z"])
    assert positional_problems("p", shared, arity=one) == []
    assert positional_problems("p", shared, arity=none) != []
    assert positional_problems("p", shared, arity=one) == []


def test_last_is_the_value_the_parser_keeps() -> None:
    reading = ArgSyntax(known={"--dtype", "--seed"}).parse(["--dtype", "half", "--dtype=bfloat16", "--seed"])
    assert reading.last("--dtype") == "bfloat16"
    assert reading.last("--seed") is None  # given without a value
    assert reading.last("--model") is None  # not given


# --- the first release's form of the helpers: a list of args and the syntax (deprecated) ----


_OLD_SYNTAX = ArgSyntax(known={"--port", "--x"}, aliases={"-p": "--port"})
_OLD_ARGS = ["-p", "1", "--x", "y", "z"]


@pytest.mark.parametrize(
    ("helper", "extra", "kwargs"),
    [
        (managed_option_problems, ({"--port": "drop it"},), {}),
        (code_loading_problems, ({"--x": "runs code"}, ()), {"config_key": "k"}),
        (positional_problems, (), {"arity": {"--port": 1, "--x": 1}}),
    ],
    ids=["managed_option_problems", "code_loading_problems", "positional_problems"],
)
def test_a_helper_given_a_list_and_the_syntax_warns_once_at_the_caller_and_answers_alike(
    helper: Any, extra: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    name = helper.__name__
    expected = helper("p", _OLD_SYNTAX.parse(_OLD_ARGS), *extra, **kwargs)
    assert expected
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        answer = helper("p", _OLD_ARGS, *extra, _OLD_SYNTAX, **kwargs)
    assert answer == expected
    [warning] = caught
    assert warning.category is DeprecationWarning
    assert str(warning.message) == (
        f"{name}(profile_name, args_list, ..., syntax) is deprecated: pass the ParsedArgs that validate() "
        f"receives (or syntax.parse(args_list)) and no syntax; it is removed in enginekit 2.0"
    )
    # At the caller's line (under mutmut, its trampoline is the caller: one frame more).
    assert Path(warning.filename).name in (Path(__file__).name, "trampoline.py")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert helper("p", _OLD_SYNTAX.parse(_OLD_ARGS), *extra, **kwargs) == expected  # no warning
    with pytest.raises(TypeError) as refused:
        helper("p", _OLD_ARGS, *extra, **kwargs)
    assert str(refused.value) == (
        f"{name}() takes the ParsedArgs validate() receives; the first release's form "
        f"(a list of args, then the ArgSyntax) needs the ArgSyntax"
    )


def test_a_syntaxs_aliases_are_a_frozen_table() -> None:
    syntax = ArgSyntax(aliases={"-p": "--port"})
    assert type(syntax.aliases) is FrozenDict
    assert syntax.aliases == {"-p": "--port"}
    assert type(ArgSyntax().aliases) is FrozenDict


# --- values that look like numbers, and glued short values, as each parser reads them -----------

_ARGPARSE = ArgSyntax(known={"--nnodes", "--config", "--seed"}, aliases={"-n": "--nnodes", "-O": "--config"})


@pytest.mark.parametrize("token", ["-1", "-0", "-0.5", "-.5", "-10.25", "-\u0661"])
def test_a_token_argparse_reads_as_a_negative_number_is_a_value(token: str) -> None:
    assert _ARGPARSE.normalise(token) is None
    assert _ARGPARSE.parse(["--seed", token]).values("--seed") == [token]


@pytest.mark.parametrize(
    ("token", "option"),
    [
        ("-nan", "--nnodes"),
        ("-n1_0", "--nnodes"),
        ("-inf", "-inf"),
        ("-1e3", "-1e3"),
        ("-1_0", "-1_0"),
        ("-1.", "-1."),
    ],
)
def test_a_token_float_reads_but_argparse_does_not_is_an_option(token: str, option: str) -> None:
    # float() takes every one of these; argparse reads them as options (-nan as -n an).
    assert _ARGPARSE.normalise(token) == option
    assert option in _ARGPARSE.parse(["--config", token]).uses


def test_a_parser_without_glued_values_reads_a_long_short_token_as_itself() -> None:
    plain = ArgSyntax(known={"--threads"}, aliases={"-t": "--threads", "-to": "--timeout"}, glued=False)
    assert plain.normalise("-tp8") == "-tp8"
    assert plain.normalise("-t8") == "-t8"
    assert plain.normalise("-to") == "--timeout"
    assert plain.normalise("-t") == "--threads"
    assert plain.parse(["-t8"]).uses["-t8"][0].value is None
    glued = ArgSyntax(known={"--threads"}, aliases={"-t": "--threads"})
    assert glued.glued is True
    assert glued.normalise("-t8") == "--threads"
    assert glued.parse(["-t8"]).values("--threads") == ["8"]
