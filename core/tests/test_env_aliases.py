"""Names an engine reads as others (``EnvAlias``): an alias is judged as its target, and never opens anything."""

from __future__ import annotations

import pytest
from enginekit.policy.engine import EnginePolicy, EnvAlias, EnvDeny
from enginekit.policy.env import EnvPolicy
from hypothesis import given
from hypothesis import strategies as st

WHY = "the engine copies every OLD_* over NEW_* at start"
PREFIX = EnvAlias("OLD_", "NEW_", prefix=True, why=WHY)
FULL = EnvAlias("LEGACY_TIMEOUT", "NEW_TIMEOUT")
ENGINE = EnginePolicy(
    open_env="NEW_ OLD_ LEGACY_",
    reserved_env="NEW_HOST_IP",
    denied_env=(EnvDeny("fetched from another hub", names="NEW_USE_HUB", floor=False),),
    env_aliases=(PREFIX, FULL),
)
POLICY = EnvPolicy().for_engine(ENGINE)


def test_an_alias_of_a_reserved_name_is_refused_saying_what_it_is_read_as() -> None:
    assert POLICY.unsafe_env("OLD_HOST_IP") == (
        True,
        f"the engine reads it as NEW_HOST_IP ({WHY}), which is refused: "
        "reserved by the engine: generated for the shard, or carries its secret",
    )
    assert POLICY.unsafe_env("NEW_HOST_IP")[0]


def test_an_alias_of_a_denied_name_is_refused_and_opened_as_its_target() -> None:
    assert POLICY.unsafe_env("OLD_USE_HUB") == (
        True,
        f"the engine reads it as NEW_USE_HUB ({WHY}), which is refused: denied: fetched from another hub",
    )
    # The site's allow opens the target (not a floor): the alias stands for it, and is open too.
    site = EnvPolicy(allow={"NEW_USE_HUB"}).for_engine(ENGINE)
    assert site.unsafe_env("NEW_USE_HUB") == (False, "")
    assert site.unsafe_env("OLD_USE_HUB") == (False, "")


def test_a_full_name_alias_stands_for_its_target_only() -> None:
    reserving = EnvPolicy().for_engine(
        EnginePolicy(open_env="LEGACY_ NEW_", reserved_env="NEW_TIMEOUT", env_aliases=(FULL,))
    )
    assert reserving.unsafe_env("LEGACY_TIMEOUT") == (
        True,
        "the engine reads it as NEW_TIMEOUT, which is refused: "
        "reserved by the engine: generated for the shard, or carries its secret",
    )
    assert reserving.unsafe_env("LEGACY_TIMEOUTS") == (False, "")
    assert reserving.read_as("LEGACY_TIMEOUT") == ("NEW_TIMEOUT", FULL)
    assert reserving.read_as("LEGACY_TIMEOUTS") is None


def test_an_alias_is_compared_without_case() -> None:
    assert POLICY.unsafe_env("old_host_ip")[0]
    assert POLICY.read_as("Old_Host_Ip") == ("NEW_HOST_IP", PREFIX)


def test_an_alias_never_opens_a_name_its_own_spelling_is_refused_for() -> None:
    # The target is open; the alias's own namespace is not: refused as unknown.
    closed = EnvPolicy().for_engine(EnginePolicy(open_env="NEW_", env_aliases=(PREFIX,)))
    assert closed.unsafe_env("NEW_X") == (False, "")
    assert closed.unsafe_env("OLD_X") == (True, "unknown: not in a namespace this site opens to profiles")
    # A site that denies the old spelling keeps it denied whatever its target.
    denying = EnvPolicy(deny_prefixes=("OLD_",)).for_engine(ENGINE)
    assert denying.unsafe_env("OLD_X") == (True, "denied by this site's policy")


def test_an_open_alias_of_an_open_target_is_open() -> None:
    assert POLICY.unsafe_env("OLD_ENABLE_JIT") == (False, "")


def test_the_alias_own_suffix_rules_still_apply() -> None:
    assert POLICY.unsafe_env("OLD_MODEL_PATH") == (
        True,
        "denied: its name says it points at a file, directory, module or program",
    )


def test_an_unsafe_allowance_of_the_target_is_carried_to_the_alias() -> None:
    site = EnvPolicy(allow_unsafe={"NEW_USE_HUB": "the mirror is vetted"}).for_engine(ENGINE)
    env = {"OLD_USE_HUB": "1"}
    assert site.problems(env) == []
    assert site.unsafe_allowances(env) == [("OLD_USE_HUB", "the mirror is vetted")]


def test_an_unsafe_allowance_of_the_alias_itself_is_kept() -> None:
    engine = EnginePolicy(
        open_env="NEW_ OLD_", denied_env=(EnvDeny("loads code", names="OLD_TRICK"),), env_aliases=(PREFIX,)
    )
    site = EnvPolicy(allow_unsafe={"OLD_TRICK": "our hook"}).for_engine(engine)
    assert site.unsafe_allowances({"OLD_TRICK": "1"}) == [("OLD_TRICK", "our hook")]


def test_the_value_of_an_alias_is_judged_as_its_targets_too() -> None:
    # The site marks the alias a path, not its target: the engine reads a path into a
    # name that may not hold one.
    site = EnvPolicy(path_keys={"OLD_DIRS"}).for_engine(ENGINE)
    assert site.unsafe_value("OLD_DIRS", "/data") == (
        True,
        "as NEW_DIRS, which the engine reads it as: value contains '/' or '%' and the site has not "
        "marked this key as a path",
    )
    both = EnvPolicy(path_keys={"OLD_DIRS", "NEW_DIRS"}).for_engine(ENGINE)
    assert both.unsafe_value("OLD_DIRS", "/data") == (False, "")
    assert site.unsafe_value("OLD_X", "1") == (False, "")
    assert site.unsafe_value("OLD_X", 1) == (True, "value must be a string, got int")


def test_a_policy_for_an_engine_carries_its_aliases() -> None:
    assert POLICY.engine_aliases == (PREFIX, FULL)
    assert EnvPolicy().engine_aliases == ()
    assert EnvPolicy().read_as("OLD_X") is None


def test_an_alias_reads_names_as_declared() -> None:
    assert PREFIX.read_as("OLD_A") == "NEW_A"
    assert PREFIX.read_as("OLD_") == "NEW_"
    assert PREFIX.read_as("XOLD_A") is None
    assert FULL.read_as("LEGACY_TIMEOUT") == "NEW_TIMEOUT"
    assert FULL.read_as("LEGACY_TIMEOUT_") is None
    assert EnvAlias("old_", "new_", prefix=True) == EnvAlias("OLD_", "NEW_", prefix=True)


_SUFFIX = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789", min_size=1, max_size=12)


@given(
    suffix=_SUFFIX,
    site=st.sampled_from([EnvPolicy(), EnvPolicy(allow={"NEW_USE_HUB"}), EnvPolicy(deny={"NEW_A"})]),
)
def test_an_alias_is_refused_wherever_its_target_is(suffix: str, site: EnvPolicy) -> None:
    policy = site.for_engine(ENGINE)
    alias, target = "OLD_" + suffix, "NEW_" + suffix
    if policy.unsafe_env(target)[0]:
        assert policy.unsafe_env(alias)[0]
    if not policy.unsafe_env(alias)[0]:
        assert not policy.unsafe_env(target)[0]


@pytest.mark.parametrize("key", ["OLD_HOST_IP", "OLD_USE_HUB"])
def test_problems_list_the_alias_under_its_own_name(key: str) -> None:
    ((name, why),) = POLICY.problems({key: "1"})
    assert name == key
    assert why.startswith("the engine reads it as NEW_")
