"""The floor of the site allow list: which names only ``allow_unsafe``, with a reason, can open."""

from __future__ import annotations

import pytest
from enginekit.base.errors import ConfigError
from enginekit.platform.config import EnvPolicyConfig
from enginekit.policy.env import DENY_GROUPS, RESERVED, EnvPolicy
from hypothesis import given
from hypothesis import strategies as st

_LOADER = "denied: the dynamic loader or libc would load code or data from it"
_FLOOR_HINT = (
    "; env_policy.allow cannot open this group: "
    "the site must name it in env_policy.allow_unsafe with a reason"
)


def _floor_names() -> list[str]:
    names = []
    for group in DENY_GROUPS:
        if group.floor:
            names += sorted(group.names)
            names += [prefix + "X" for prefix in group.prefixes]
            names += ["SITE_X" + suffix for suffix in group.suffixes]
    return names


FLOOR_NAMES = _floor_names()


def test_allow_cannot_open_ld_preload_and_says_how() -> None:
    site = EnvPolicy(allow={"LD_PRELOAD"}, path_keys={"LD_PRELOAD"})
    assert site.problems({"LD_PRELOAD": "/tmp/evil.so"}) == [("LD_PRELOAD", _LOADER + _FLOOR_HINT)]
    assert site.unsafe_allowances({"LD_PRELOAD": "/tmp/evil.so"}) == []


def test_allow_unsafe_opens_ld_preload_and_the_plan_can_say_why() -> None:
    site = EnvPolicy(allow_unsafe={"LD_PRELOAD": "site profiler, ticket OPS-123"}, path_keys={"LD_PRELOAD"})
    env = {"NCCL_DEBUG": "INFO", "LD_PRELOAD": "/opt/prof/libprof.so"}
    assert site.problems(env) == []
    assert site.unsafe_allowances(env) == [("LD_PRELOAD", "site profiler, ticket OPS-123")]


def test_allow_unsafe_opens_the_name_not_the_value() -> None:
    site = EnvPolicy(allow_unsafe={"ld_preload": "site profiler"})
    refused = [("LD_PRELOAD", "value contains '/' or '%' and the site has not marked this key as a path")]
    assert site.problems({"LD_PRELOAD": "/tmp/evil.so"}) == refused
    assert site.problems({"LD_PRELOAD": "a\x00b"}) == [("LD_PRELOAD", "value contains a NUL byte (U+0000)")]
    # A refused entry is not accepted at all, so no plan notes it.
    assert site.unsafe_allowances({"LD_PRELOAD": "/tmp/evil.so"}) == []
    assert site.unsafe_allowances({"LD_PRELOAD": "libprof.so"}) == [("LD_PRELOAD", "site profiler")]


def test_unsafe_allowances_lists_only_what_allow_unsafe_opened_in_key_order() -> None:
    site = EnvPolicy(
        allow={"MY_SITE_TUNING"},
        allow_unsafe={"PYTHONPATH": "vendored shim, OPS-7", "CUDA_HOME": "JIT toolchain, OPS-9"},
    )
    env = {"PYTHONPATH": "shim", "NCCL_DEBUG": "WARN", "MY_SITE_TUNING": "1", "CUDA_HOME": "cuda", 3: "x"}
    assert site.unsafe_allowances(env) == [  # type: ignore[arg-type]
        ("CUDA_HOME", "JIT toolchain, OPS-9"),
        ("PYTHONPATH", "vendored shim, OPS-7"),
    ]


def test_allow_unsafe_for_a_name_open_anyway_is_not_reported() -> None:
    site = EnvPolicy(allow_unsafe={"NCCL_ALGO": "belt and braces"})
    assert site.unsafe_allowances({"NCCL_ALGO": "Ring"}) == []


def test_allow_still_opens_names_outside_the_floor() -> None:
    site = EnvPolicy(allow={"MY_SITE_TUNING", "NCCL_NEW_CACHE_DIR", "MALLOC_ARENA_MAX"})
    env = {"MY_SITE_TUNING": "fast", "NCCL_NEW_CACHE_DIR": "x", "MALLOC_ARENA_MAX": "2"}
    assert site.problems(env) == []
    assert site.unsafe_allowances(env) == []


def test_reserved_names_stay_refused_whatever_the_site_says() -> None:
    for name in [*sorted(RESERVED), "ENGINEKIT_API_KEY"]:
        site = EnvPolicy(
            allow={name}, allow_unsafe={name: "please"}, allow_prefixes=(name[:2],), path_keys={name}
        )
        assert site.unsafe_env(name) == (True, "reserved: derived from the shard spec"), name
        assert site.unsafe_allowances({name: "x"}) == []


def test_the_sites_own_deny_wins_over_allow_unsafe() -> None:
    site = EnvPolicy(deny={"LD_PRELOAD"}, allow_unsafe={"LD_PRELOAD": "profiler"})
    assert site.unsafe_env("LD_PRELOAD") == (True, "denied by this site's policy")


@pytest.mark.parametrize("name", FLOOR_NAMES)
def test_every_floor_entry_needs_allow_unsafe(name: str) -> None:
    why = EnvPolicy().unsafe_env(name)[1]
    assert EnvPolicy(allow={name}).unsafe_env(name) == (True, why + _FLOOR_HINT)
    assert EnvPolicy(allow_unsafe={name: "reviewed"}).unsafe_env(name) == (False, "")


def test_only_the_allocator_tunables_are_outside_the_floor() -> None:
    # Everything else in the deny list loads code, redirects trust or carries a credential.
    outside = [group.why for group in DENY_GROUPS if not group.floor]
    assert outside == ["glibc's allocator would take its tuning from it"]


def test_the_verdict_cache_tells_policies_apart_by_allow_unsafe() -> None:
    plain, opened = EnvPolicy(), EnvPolicy(allow_unsafe={"LD_PRELOAD": "profiler"})
    assert plain.unsafe_env("LD_PRELOAD")[0]
    assert opened.unsafe_env("LD_PRELOAD") == (False, "")
    assert plain.unsafe_env("LD_PRELOAD")[0]
    same = EnvPolicy(allow_unsafe=[("ld_preload", "profiler")])
    assert same == opened
    assert hash(same) == hash(opened)
    assert EnvPolicy(allow_unsafe={"LD_PRELOAD": "other"}) != opened


@pytest.mark.parametrize("reason", ["", " ", "\t\n"])
def test_a_blank_reason_is_a_config_error_naming_the_key(reason: str) -> None:
    with pytest.raises(ConfigError) as caught:
        EnvPolicyConfig(allow_unsafe={"LD_PRELOAD": reason}).policy()
    assert caught.value.problems == (
        "env_policy.allow_unsafe.LD_PRELOAD: needs a reason (who asked for it and why); a blank one opens nothing",
    )


def test_every_bad_allow_unsafe_entry_is_reported_at_once() -> None:
    with pytest.raises(ConfigError) as caught:
        EnvPolicyConfig(
            allow_unsafe={"LD_PRELOAD": "ok", "ld_preload": "again", "a-b": "x", "GCONV_PATH": "a\x1b[2Jb"}
        ).policy()
    assert caught.value.problems == (
        "env_policy.allow_unsafe.ld_preload: same name as LD_PRELOAD (names are compared case-insensitively)",
        "env_policy.allow_unsafe.'a-b': not a portable name (letters, digits and _ only, not starting with a digit)",
        "env_policy.allow_unsafe.GCONV_PATH: the reason contains a control character (U+001B)",
    )


def test_a_config_allow_unsafe_reaches_the_policy() -> None:
    config = EnvPolicyConfig(
        allow_unsafe={"LD_PRELOAD": "site profiler, ticket OPS-123"}, path_keys=("LD_PRELOAD",)
    )
    policy = config.policy()
    assert policy.unsafe_allowances({"LD_PRELOAD": "/opt/p.so"}) == [
        ("LD_PRELOAD", "site profiler, ticket OPS-123")
    ]


def test_a_blank_reason_is_refused_without_the_config_too() -> None:
    with pytest.raises(ValueError, match=r"allow_unsafe\.LD_PRELOAD: needs a reason"):
        EnvPolicy(allow_unsafe={"LD_PRELOAD": "  "})


_NAME = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)


def _any_case(name: str) -> st.SearchStrategy[str]:
    flips = st.lists(st.booleans(), min_size=len(name), max_size=len(name))
    return flips.map(lambda up: "".join(c.upper() if u else c.lower() for c, u in zip(name, up, strict=True)))


@given(
    st.sampled_from(FLOOR_NAMES).flatmap(lambda name: st.tuples(st.just(name), _any_case(name))),
    st.lists(_NAME, max_size=4),
    st.lists(_NAME, max_size=3),
)
def test_no_allow_list_opens_a_floor_name(
    pair: tuple[str, str], others: list[str], prefixes: list[str]
) -> None:
    name, spelled = pair
    # The site allows the name itself in any spelling, opens any namespaces (the name's own
    # first letters included) and marks it as a path: it stays refused, with its reason.
    site = EnvPolicy(
        allow=[*others, spelled, name.lower()],
        allow_prefixes=[*prefixes, name[:3]],
        path_keys=[name, *others],
    )
    bad, why = site.unsafe_env(spelled)
    assert bad
    assert why.startswith("denied: ")
    assert why.endswith(_FLOOR_HINT)


@given(
    st.sampled_from([*FLOOR_NAMES, "MALLOC_ARENA_MAX"]).flatmap(_any_case),
    st.lists(_NAME, max_size=4),
)
def test_a_deny_name_is_refused_in_any_case_unless_the_site_names_it(spelled: str, allow: list[str]) -> None:
    site = EnvPolicy(allow=[name for name in allow if name.upper() != spelled.upper()])
    assert site.unsafe_env(spelled)[0]
    assert site.unsafe_env(spelled) == site.unsafe_env(spelled.upper())
