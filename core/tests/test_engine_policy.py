"""``EnginePolicy`` and ``EnvDeny`` as data: what their fields hold once built, and how a group matches."""

from __future__ import annotations

from enginekit.policy.args import ArgSyntax
from enginekit.policy.engine import NO_POLICY, EnginePolicy, EnvAlias, EnvDeny


def test_a_deny_group_matches_by_name_prefix_or_suffix_each_alone() -> None:
    names = EnvDeny("n", names="A_ONE")
    prefixes = EnvDeny("p", prefixes="PRE_")
    suffixes = EnvDeny("s", suffixes="_SUF")
    assert names.matches("A_ONE")
    assert not names.matches("A_ONE_MORE")
    assert prefixes.matches("PRE_X")
    assert not prefixes.matches("X_PRE_")
    assert suffixes.matches("X_SUF")
    assert not suffixes.matches("X_SUF_Y")
    assert not EnvDeny("none").matches("ANYTHING")


def test_a_deny_group_reads_names_as_words_upper_cased() -> None:
    group = EnvDeny("why", names="a_one b_two", prefixes=["pre_"], suffixes=("_suf",), floor=False)
    assert group.names == frozenset({"A_ONE", "B_TWO"})
    assert group.prefixes == ("PRE_",)
    assert group.suffixes == ("_SUF",)
    assert group.floor is False
    assert EnvDeny("why").floor is True


def test_the_options_of_the_tables_join_the_syntax_so_a_prefix_of_one_is_caught() -> None:
    policy = EnginePolicy(
        syntax=ArgSyntax(known={"--other"}),
        managed_args={"--port": "set by enginekit"},
        risky_args={"--trust-remote-code": "loads code"},
        secret_args={"--api-key": "a secret"},
    )
    assert policy.syntax.known == frozenset({"--other", "--port", "--trust-remote-code", "--api-key"})
    assert "--trust-remote-code" in policy.syntax.parse(["--trust-rem", "x"]).uses


def test_a_syntax_that_knows_every_option_of_the_tables_is_kept_as_given() -> None:
    for known in ({"--port", "--x"}, {"--port"}):  # more than the tables, and exactly them
        syntax = ArgSyntax(known=known)
        policy = EnginePolicy(syntax=syntax, managed_args={"--port": "set by enginekit"})
        assert policy.syntax is syntax


def test_the_protected_variables_are_the_reserved_and_the_secret() -> None:
    policy = EnginePolicy(reserved_env="a_b C_D", secret_env=["key_var"], open_env="my_ OTHER_")
    assert policy.protected_env == frozenset({"A_B", "C_D", "KEY_VAR"})
    assert policy.open_env == ("MY_", "OTHER_")


def test_no_policy_opens_reserves_and_aliases_nothing() -> None:
    assert NO_POLICY.open_env == ()
    assert NO_POLICY.protected_env == frozenset()
    assert NO_POLICY.env_aliases == ()
    assert NO_POLICY.denied_env == ()


def test_aliases_are_held_as_a_tuple_of_upper_case_names() -> None:
    policy = EnginePolicy(env_aliases=[EnvAlias("sgl_", "sglang_", prefix=True, why="copies")])
    assert policy.env_aliases == (EnvAlias("SGL_", "SGLANG_", prefix=True, why="copies"),)
    assert type(policy.env_aliases) is tuple
    alias = EnvAlias("OLD", "NEW")
    assert (alias.prefix, alias.why) == (False, "")
