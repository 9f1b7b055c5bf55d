"""An engine's own env rules (its ``policy()``): applied to that engine's profiles only, never opened by a site.

The core's tables are engine-neutral; every name one engine owns (its tuning namespace,
its wiring, its key variable, the names it would misuse) is declared by that engine's
plugin and pinned in the plugin's own tests. These tests pin how the core applies such
declarations, with made-up engines.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from enginekit import Command, Registry, ShardSpec, hookimpl
from enginekit.placement.builder import CommandBuilder
from enginekit.placement.env import EnvBuild, apply_profile_env
from enginekit.policy.engine import EnginePolicy, EnvDeny
from enginekit.policy.env import (
    DEFAULT_POLICY,
    DENY_GROUPS,
    OPEN_NAMESPACES,
    PYTHON_ALLOWED,
    RESERVED,
    RESERVED_PREFIXES,
    EnvPolicy,
)

Make = Callable[..., ShardSpec]

UNKNOWN = (True, "unknown: not in a namespace this site opens to profiles")
ENGINE_RESERVED = (True, "reserved by the engine: generated for the shard, or carries its secret")
KEY = "sk-engine-0123456789abcdef"

#: Prefixes of the engines enginekit ships plugins for: none belongs in the core's tables.
#: (Ray is not one: it is the cluster runtime several engines share, and its deny group
#: is the core's.)
ENGINE_PREFIXES = ("VLLM_", "SGLANG_", "SGL_", "TLLM_", "TRTLLM_", "GGML_", "LLAMA_", "MOONCAKE_")
#: Names one engine owns that do not start with its prefix.
ENGINE_NAMES = frozenset({"OPENAI_API_KEY", "EXA_API_KEY"})

ALPHA_WHY = "alpha would load the plugin library named by it"
ALPHA_TUNING_WHY = "alpha's allocator would take its tuning from it"

ALPHA = EnginePolicy(
    open_env="ALPHA_",
    reserved_env="ALPHA_HOST_IP ALPHA_PORT",
    secret_env="ALPHA_KEY",
    denied_env=(
        EnvDeny(ALPHA_WHY, names="ALPHA_PLUGIN", prefixes="ALPHA_EXT_", suffixes="_SOCKET"),
        EnvDeny(ALPHA_TUNING_WHY, names="ALPHA_ARENA_MAX", prefixes="ALPHA_POOL_", floor=False),
        EnvDeny("alpha sends the hub token to the mirror named by it", names="HF_TOKEN"),
    ),
)
BETA = EnginePolicy(open_env=["BETA_"], reserved_env=["BETA_PORT"], secret_env=["BETA_API_TOKEN"])


def for_alpha(site: EnvPolicy = DEFAULT_POLICY) -> EnvPolicy:
    return site.for_engine(ALPHA)


# --- the core's tables are engine-neutral --------------------------------------------------------


def _core_names() -> dict[str, list[str]]:
    return {
        "RESERVED": sorted(RESERVED),
        "RESERVED_PREFIXES": list(RESERVED_PREFIXES),
        "DENY_GROUPS names": sorted(name for group in DENY_GROUPS for name in group.names),
        "DENY_GROUPS prefixes": [prefix for group in DENY_GROUPS for prefix in group.prefixes],
        "OPEN_NAMESPACES": list(OPEN_NAMESPACES),
        "PYTHON_ALLOWED": sorted(PYTHON_ALLOWED),
    }


@pytest.mark.parametrize("table", list(_core_names()))
def test_no_engine_specific_name_remains_in_the_core_tables(table: str) -> None:
    names = _core_names()[table]
    owned = [
        name for name in names if name.upper().startswith(ENGINE_PREFIXES) or name.upper() in ENGINE_NAMES
    ]
    assert owned == [], f"{table} holds names an engine owns; declare them in that engine's policy(): {owned}"


def test_no_deny_group_of_the_core_is_about_one_engine() -> None:
    for group in DENY_GROUPS:
        for engine in ("vLLM", "SGLang", "TensorRT", "llama", "ggml", "ModelScope", "Mooncake"):
            assert engine not in group.why, group.why


@pytest.mark.parametrize(
    "name", ["VLLM_ATTENTION_BACKEND", "SGLANG_LOG_LEVEL", "SGL_ENABLE_JIT_DEEPGEMM", "GGML_CUDA_NO_PINNED",
             "TLLM_LOG_LEVEL", "TRTLLM_ENABLE_PDL", "LLAMA_ARG_THREADS", "MOONCAKE_PROTOCOL"],
)  # fmt: skip
def test_without_an_engine_no_engine_namespace_is_open(name: str) -> None:
    # Opened by each engine for its own profiles; the site policy alone opens none.
    assert DEFAULT_POLICY.unsafe_env(name) == UNKNOWN


# --- open_env: the engine's namespace, for its own profiles only --------------------------------


@pytest.mark.parametrize("name", ["ALPHA_THREADS", "alpha_threads", "ALPHA_LOG_LEVEL", "ALPHA_X_CONF"])
def test_an_engines_open_env_opens_its_namespace_for_it(name: str) -> None:
    assert DEFAULT_POLICY.unsafe_env(name) == UNKNOWN
    assert for_alpha().unsafe_env(name) == (False, "")


def test_a_full_name_is_its_own_prefix_and_opens_nothing_longer_by_accident() -> None:
    policy = DEFAULT_POLICY.for_engine(EnginePolicy(open_env="ALPHA_FLAG"))
    assert policy.unsafe_env("ALPHA_FLAG") == (False, "")
    assert policy.unsafe_env("ALPHA_OTHER") == UNKNOWN


def test_another_engines_namespace_stays_closed() -> None:
    beta = DEFAULT_POLICY.for_engine(BETA)
    assert beta.unsafe_env("ALPHA_THREADS") == UNKNOWN
    assert for_alpha().unsafe_env("BETA_THREADS") == UNKNOWN


def test_the_rules_that_hold_in_every_namespace_hold_in_an_engines_own() -> None:
    policy = for_alpha()
    assert policy.unsafe_env("ALPHA_HUB_TOKEN") == (
        True,
        "denied: it is a credential, or picks the credentials or endpoint a cloud client uses: "
        "credentials reach engines through the secret channel only",
    )
    assert policy.unsafe_env("ALPHA_NEW_PLUGIN_PATH") == (
        True,
        "denied: its name says it points at a file, directory, module or program",
    )
    assert policy.unsafe_value("ALPHA_THREADS", "/tmp/x")[0]
    assert policy.unsafe_env("LD_PRELOAD")[0]


def test_a_site_may_still_close_an_engines_namespace() -> None:
    site = EnvPolicy(deny_prefixes=("ALPHA_",), deny={"ALPHA_OTHER"})
    assert for_alpha(site).unsafe_env("ALPHA_THREADS") == (True, "denied by this site's policy")


def test_adding_an_engines_rules_leaves_the_site_policy_as_it_was() -> None:
    site = EnvPolicy(allow={"ACME_X"})
    engine = site.for_engine(ALPHA)
    assert engine is not site
    assert site.unsafe_env("ALPHA_THREADS") == UNKNOWN
    assert engine.allow == site.allow
    assert site.for_engine(EnginePolicy()).unsafe_env("ALPHA_THREADS") == UNKNOWN


# --- reserved_env and secret_env: never set by a profile, whatever the site writes -----------------


def _sites(name: str) -> list[tuple[str, EnvPolicy]]:
    return [
        ("the default policy", DEFAULT_POLICY),
        ("a site allowing it by name", EnvPolicy(allow={name})),
        ("a site allowing it as unsafe", EnvPolicy(allow_unsafe={name: "we know better"})),
        ("a site opening its namespace", EnvPolicy(allow_prefixes=(name[:3],))),
        ("a site marking it a path", EnvPolicy(allow={name}, path_keys={name})),
    ]


@pytest.mark.parametrize("name", ["ALPHA_HOST_IP", "ALPHA_PORT", "ALPHA_KEY", "alpha_key"])
def test_an_engines_reserved_and_secret_names_are_refused_whatever_the_site_allows(name: str) -> None:
    for site_name, site in _sites(name):
        assert for_alpha(site).unsafe_env(name) == ENGINE_RESERVED, site_name
        assert for_alpha(site).unsafe_allowances({name: "x"}) == [], site_name


def test_an_engines_reserved_names_are_its_own() -> None:
    # BETA reserves nothing of ALPHA's: BETA's profiles are judged by BETA's rules.
    beta = DEFAULT_POLICY.for_engine(BETA)
    assert beta.unsafe_env("ALPHA_PORT") == UNKNOWN
    assert beta.unsafe_env("BETA_PORT") == ENGINE_RESERVED
    assert beta.unsafe_env("BETA_API_TOKEN") == ENGINE_RESERVED
    assert for_alpha().unsafe_env("BETA_PORT") == UNKNOWN


def test_protected_env_is_reserved_and_secret_together() -> None:
    assert ALPHA.protected_env == frozenset({"ALPHA_HOST_IP", "ALPHA_PORT", "ALPHA_KEY"})
    assert EnginePolicy(reserved_env=["a_x"], secret_env="b_y").protected_env == frozenset({"A_X", "B_Y"})


# --- denied_env: the engine's groups, checked first, with their floors -----------------------------


@pytest.mark.parametrize("name", ["ALPHA_PLUGIN", "alpha_plugin", "ALPHA_EXT_LIB", "ALPHA_RPC_SOCKET"])
def test_an_engines_denied_group_wins_over_its_open_namespace(name: str) -> None:
    assert for_alpha().unsafe_env(name) == (True, f"denied: {ALPHA_WHY}")


@pytest.mark.parametrize("name", ["ALPHA_PLUGIN", "ALPHA_EXT_LIB", "ALPHA_RPC_SOCKET"])
def test_a_site_allow_cannot_open_an_engines_floor_group_only_allow_unsafe_can(name: str) -> None:
    allowed = for_alpha(EnvPolicy(allow={name}))
    bad, why = allowed.unsafe_env(name)
    assert bad
    assert why == (
        f"denied: {ALPHA_WHY}; env_policy.allow cannot open this group: the site must name it in "
        f"env_policy.allow_unsafe with a reason"
    )
    unsafe = for_alpha(EnvPolicy(allow_unsafe={name: "vendor ticket 7"}))
    assert unsafe.unsafe_env(name) == (False, "")
    assert unsafe.unsafe_allowances({name: "1"}) == [(name, "vendor ticket 7")]


@pytest.mark.parametrize("name", ["ALPHA_ARENA_MAX", "ALPHA_POOL_SIZE"])
def test_a_site_allow_opens_an_engines_group_that_is_no_floor(name: str) -> None:
    assert for_alpha().unsafe_env(name) == (True, f"denied: {ALPHA_TUNING_WHY}")
    assert for_alpha(EnvPolicy(allow={name})).unsafe_env(name) == (False, "")
    assert for_alpha(EnvPolicy(allow={name})).unsafe_allowances({name: "1"}) == []


def test_an_engines_reason_wins_over_the_built_in_one_for_the_same_name() -> None:
    assert DEFAULT_POLICY.unsafe_env("HF_TOKEN")[1].startswith("denied: it is a credential")
    assert for_alpha().unsafe_env("HF_TOKEN") == (
        True,
        "denied: alpha sends the hub token to the mirror named by it",
    )


def test_an_engines_denied_names_apply_to_its_own_profiles_only() -> None:
    beta = DEFAULT_POLICY.for_engine(EnginePolicy(open_env="ALPHA_"))  # opens the same namespace
    assert for_alpha().unsafe_env("ALPHA_EXT_MODE") == (True, f"denied: {ALPHA_WHY}")
    assert beta.unsafe_env("ALPHA_EXT_MODE") == (False, "")


@pytest.mark.parametrize(
    "group",
    [EnvDeny("tuning", names="LD_PRELOAD", floor=False), EnvDeny("tuning", prefixes="LD_", floor=False)],
)
def test_an_engines_deny_group_never_lowers_a_built_in_floor(group: EnvDeny) -> None:
    # Declaring a name denied can only add refusals: LD_PRELOAD stays a floor entry.
    policy = EnvPolicy(allow={"LD_PRELOAD"}).for_engine(EnginePolicy(denied_env=(group,)))
    assert policy.unsafe_env("LD_PRELOAD")[0]


# --- through the registry: each engine's rules for its own profiles ------------------------------


class _Engine:
    """A well-behaved engine that generates its wiring and puts its key, as its policy says."""

    def __init__(self, prefix: str, policy: EnginePolicy) -> None:
        self.prefix = prefix
        self._policy = policy

    @hookimpl
    def policy(self) -> EnginePolicy:
        return self._policy

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        build = CommandBuilder(shard).put(f"{self.prefix}PORT", "29501", "the engine's internal port")
        build.put_secret(f"{self.prefix}KEY" if self.prefix == "ALPHA_" else "BETA_API_TOKEN", shard.api_key)
        return [build.command(self.prefix.lower().rstrip("_"), [])]


@pytest.fixture
def registry() -> Registry:
    registry = Registry(policy=EnvPolicy(allow={"ALPHA_PORT"}, allow_unsafe={"ALPHA_KEY": "please"}))
    registry.add(_Engine("ALPHA_", ALPHA), name="alpha")
    registry.add(_Engine("BETA_", BETA), name="beta")
    return registry


def test_each_engines_namespace_is_open_to_its_own_profiles_only(
    registry: Registry, make_shard: Make
) -> None:
    env = {"ALPHA_THREADS": "4", "BETA_THREADS": "4"}
    assert registry.engine("alpha").validate(make_shard("alpha", profile_env=env).profile) == [
        "profile 'p': env BETA_THREADS: unknown: not in a namespace this site opens to profiles"
    ]
    assert registry.engine("beta").validate(make_shard("beta", profile_env=env).profile) == [
        "profile 'p': env ALPHA_THREADS: unknown: not in a namespace this site opens to profiles"
    ]


def test_a_profile_never_sets_what_its_engine_reserves_even_where_the_site_allows_it(
    registry: Registry, make_shard: Make
) -> None:
    alpha = registry.engine("alpha")
    shard = make_shard("alpha", api_key=KEY, profile_env={"ALPHA_PORT": "1", "ALPHA_KEY": "mine"})
    assert alpha.validate(shard.profile) == [
        f"profile 'p': env ALPHA_KEY: {ENGINE_RESERVED[1]}",
        f"profile 'p': env ALPHA_PORT: {ENGINE_RESERVED[1]}",
    ]
    # Checked again where the command is built, by the same rules: the engine's values stand.
    built = EnvBuild(env={"ALPHA_PORT": "29501", "ALPHA_KEY": KEY}, why={})
    applied = apply_profile_env(built, shard, alpha.env_policy)
    assert (applied.env["ALPHA_PORT"], applied.env["ALPHA_KEY"]) == ("29501", KEY)
    assert sorted(var.key for var in applied.dropped) == ["ALPHA_KEY", "ALPHA_PORT"]


def test_the_engine_handle_carries_the_site_policy_with_its_own_rules(registry: Registry) -> None:
    alpha = registry.engine("alpha")
    assert alpha.env_policy.allow == frozenset({"ALPHA_PORT"})
    assert alpha.env_policy.engine_open == ("ALPHA_",)
    assert alpha.env_policy.engine_reserved == ALPHA.protected_env
    assert alpha.env_policy.engine_deny == ALPHA.denied_env
    assert registry.engine("beta").env_policy.engine_open == ("BETA_",)


def test_a_new_site_policy_reaches_engines_asked_for_afterwards(registry: Registry, make_shard: Make) -> None:
    profile = make_shard("alpha", profile_env={"ALPHA_THREADS": "4"}).profile
    assert registry.engine("alpha").validate(profile) == []
    registry.policy = EnvPolicy(deny_prefixes=("ALPHA_",))
    assert registry.engine("alpha").validate(profile) == [
        "profile 'p': env ALPHA_THREADS: denied by this site's policy"
    ]


def test_a_plan_says_which_engine_floor_names_the_site_opened_as_unsafe(make_shard: Make) -> None:
    registry = Registry(policy=EnvPolicy(allow_unsafe={"ALPHA_PLUGIN": "vendor ticket 7"}))
    registry.add(_Engine("ALPHA_", ALPHA), name="alpha")
    plan = registry.engine("alpha").plan(make_shard("alpha", profile_env={"ALPHA_PLUGIN": "fast"}))
    assert plan.commands[0].env["ALPHA_PLUGIN"] == "fast"
    assert any("ALPHA_PLUGIN" in note and "vendor ticket 7" in note for note in plan.notes)
