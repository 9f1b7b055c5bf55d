"""positional_problems: a profile's args may not slip a positional argument past the parser."""

from __future__ import annotations

import pytest
from enginekit.policy.args import ArgSyntax, load_format_problem, positional_problems

SYNTAX = ArgSyntax(
    known={
        "--enforce-eager",
        "--max-model-len",
        "--served-model-name",
        "--lora-target-modules",
        "--seed",
        "--compilation-config",
        "--optimization-level",
        "--kv-cache-dtype",
        "--kv-transfer-config",
    },
    aliases={"-O": "--optimization-level"},
    underscores=True,
    dotted=True,
)
ARITY: dict[str, int | None] = {
    "--enforce-eager": 0,
    "--max-model-len": 1,
    "--seed": 1,
    "--optimization-level": 1,
    "--compilation-config": 1,
    "--kv-cache-dtype": 1,
    "--kv-transfer-config": 1,
    "--lora-target-modules": None,  # nargs="+"
}


def problems(*args: str) -> list[str]:
    return positional_problems("p", SYNTAX.parse(args), arity=ARITY, engine="vLLM")


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--enforce-eager"],
        ["--max-model-len", "4096"],
        ["--max-model-len=4096", "--enforce-eager"],
        ["--max_model_len", "4096", "--enforce-eager", "--seed", "-1"],
        ["--lora-target-modules", "q_proj", "k_proj", "v_proj", "--enforce-eager"],
        ["--compilation-config.mode", "3", "--max-model-len", "8k"],
        ["-O", "3"],
        ["-O3", "--max-model-len", "4096"],
        # An option the plugin knows nothing of may take any number of values.
        ["--some-new-option", "a", "b"],
        # An abbreviation reads as the option it abbreviates.
        ["--max-model", "4096", "--enforce", "--kv-cache", "fp8"],
    ],
)
def test_values_of_the_option_before_are_not_positional(args: list[str]) -> None:
    assert problems(*args) == []


def test_a_first_bare_token_is_refused_with_where_and_why() -> None:
    assert problems("../../x=/tmp/attacker-adapter") == [
        "profile 'p': args[0]: not an option, and no option comes before it to take it as a "
        "value, so vLLM would read it as a positional argument; a profile's args may give none "
        "(enginekit passes the model itself): remove it, or put it right after the option it "
        "is a value of"
    ]


@pytest.mark.parametrize(
    ("args", "index", "why"),
    [
        (["--enforce-eager", "x"], 1, "'--enforce-eager' (args[0]) before it takes no value"),
        (
            ["--max-model-len=4096", "x"],
            1,
            "'--max-model-len' (args[0]) before it has its value already, after '='",
        ),
        (
            ["--seed", "1", "--max-model-len", "4096", "x"],
            4,
            "'--max-model-len' (args[2]) before it takes exactly 1 value",
        ),
        (["-O3", "x"], 1, "'-O' (args[0]) before it has its value attached"),
        (
            ["--kv-transfer-config.kv_role", "kv_both", "x"],
            2,
            "'--kv-transfer-config.kv_role' (args[0]) before it takes exactly 1 value",
        ),
        # An underscore spelling and an abbreviation are the option they spell.
        (["--enforce_eager", "x"], 1, "'--enforce_eager' (args[0]) before it takes no value"),
        (["--enforce", "x"], 1, "'--enforce' (args[0]) before it takes no value"),
    ],
)
def test_a_bare_token_the_option_before_cannot_take_is_refused(args: list[str], index: int, why: str) -> None:
    [problem] = problems(*args)
    assert problem.startswith(f"profile 'p': args[{index}]: not an option, and {why}, so vLLM ")


def test_each_stray_token_is_refused_and_none_is_echoed() -> None:
    secret = "sk-live-0123456789abcdef"
    found = problems("--enforce-eager", secret, "second")
    assert [p.split(":")[1] for p in found] == [" args[1]", " args[2]"]
    assert "the token before it (args[1]) is refused for the same reason" in found[1]
    assert not any(secret in p or "second" in p for p in found)


def test_a_token_spelled_as_an_option_is_read_as_one_even_where_a_value_is_due() -> None:
    # argparse does not give a "--" token to the option before as its value.
    [problem] = problems("--max-model-len", "--enforce-eager", "x")
    assert "args[2]: not an option, and '--enforce-eager' (args[1]) before it takes no value" in problem


def test_an_ambiguous_prefix_of_options_taking_different_counts_refuses_nothing_after_it() -> None:
    syntax = ArgSyntax(known={"--enable-a", "--enable-list"})
    arity = {"--enable-a": 0, "--enable-list": None}
    assert positional_problems("p", syntax.parse(["--enable", "x"]), arity=arity) == []
    assert positional_problems("p", syntax.parse(["--enable-a", "x"]), arity=arity) != []


def test_arity_may_be_a_function_and_the_engine_defaults_to_a_generic_name() -> None:
    syntax = ArgSyntax(known={"--flag", "--pair"})

    def arity(option: str) -> int | None:
        return {"--flag": 0, "--pair": 2}.get(option)

    assert positional_problems("p", syntax.parse(["--pair", "a", "b"]), arity=arity) == []
    [problem] = positional_problems("p", syntax.parse(["--pair", "a", "b", "c"]), arity=arity)
    assert "'--pair' (args[0]) before it takes exactly 2 values, so the engine would read" in problem
    [problem] = positional_problems("q", syntax.parse(["--flag", "x"]), arity=arity)
    assert problem.startswith("profile 'q': args[1]: ")


def test_a_negative_number_is_a_value_and_a_lone_dash_is_positional() -> None:
    assert problems("--seed", "-1") == []
    assert [p.split(":")[1] for p in problems("-")] == [" args[0]"]
    assert [p.split(":")[1] for p in problems("--enforce-eager", "-5")] == [" args[1]"]


_SAFE = frozenset({"auto", "safetensors"})
_REMOTE = {"remote": "streams weights from another server"}


@pytest.mark.parametrize("value", ["auto", " SafeTensors "])
def test_a_load_format_that_reads_only_the_models_files_passes(value: str) -> None:
    assert load_format_problem(value, _SAFE, _REMOTE) is None


def test_an_engines_own_remote_load_format_is_named_with_what_it_does() -> None:
    assert load_format_problem("Remote", _SAFE, _REMOTE) == (
        "selects a weight loader that reaches beyond the model's own files "
        "(remote: streams weights from another server)"
    )


def test_an_unknown_load_format_is_refused_without_echoing_it() -> None:
    problem = load_format_problem("sk-secret-loader", _SAFE, _REMOTE)
    assert problem == (
        "selects a weight loader that reaches beyond the model's own files "
        "(a load format this plugin does not know to read only the model's files)"
    )
