"""SGLang's own env rules, each row with the reason it exists: what it opens, generates, keeps secret and denies.

The core's env policy knows no engine; these rows were pinned in its tables before SGLang
declared them in its ``policy()``, and are pinned here now, judged through the engine
(the site's policy with SGLang's rules added), so nothing that was pinned is lost.
This file holds its OWN copy of the lists on purpose: a test that iterates the policy
cannot notice an entry disappearing from it; these rows can.
"""

from __future__ import annotations

import attrs
import pytest
from enginekit import Profile, ShardSpec
from enginekit.plugin import placement_env
from enginekit.policy.env import DEFAULT_POLICY, EnvPolicy
from enginekit.testing import assert_env_denied, engine_for, env_verdict, sites_opening
from enginekit_sglang import SglangConfig, SglangEngine
from enginekit_sglang.flags import SYNTAX

ENGINE = engine_for(SglangEngine(), "sglang")
POLICY = ENGINE.policy

SGLANG = "SGLang would"
MODELSCOPE = "another hub (ModelScope)"
RAY = "Ray would"
CREDENTIAL = "it is a credential"
SUFFIX = "denied: its name says it points at a file, directory, module or program"
RESERVED = "reserved by the engine: generated for the shard, or carries its secret"
CORE_RESERVED = "reserved: derived from the shard spec"

_CREDENTIAL = (
    "a credential in a profile is published with the profile; keys reach engines by the secret channel only"
)
_WRITES = "a root process writes files where it names"
_KERNEL_CACHE = "compiled kernels (code) are loaded from the cache it names"

#: (exact name, group, why it is denied)
EXACT: tuple[tuple[str, str, str], ...] = (
    ("SGLANG_USE_MODELSCOPE", MODELSCOPE, "SGLang fetches models and their code from ModelScope instead"),
    ("SGLANG_EXTERNAL_MODEL_PACKAGE", SGLANG, "SGLang imports the package it names as model code"),
    ("SGLANG_EXTERNAL_MM_MODEL_ARCH", SGLANG, "SGLang registers an architecture from external code"),
    ("SGLANG_EXTERNAL_MM_PROCESSOR_PACKAGE", SGLANG, "SGLang imports the processor package it names"),
    ("SGLANG_PLUGINS", SGLANG, "SGLang loads the plugins it names"),
    ("SGLANG_PLATFORM", SGLANG, "SGLang imports the platform plugin it names"),
    ("SGLANG_CUTE_AOT_CACHE_DIR", SGLANG, _KERNEL_CACHE),
    ("SGLANG_CACHE_DIR", SGLANG, _KERNEL_CACHE),
    ("SGLANG_DG_CACHE_DIR", SGLANG, _KERNEL_CACHE),
    ("SGLANG_JIT_CACHE_DIR", SGLANG, _KERNEL_CACHE),
    ("SGLANG_EXPOSE_OWN_ENV_VARS", SGLANG, "the server's own environment is shown to API clients"),
    ("SGLANG_ENABLE_REQUEST_HEADER_OVERRIDES", SGLANG, "API clients override settings through request headers"),
    ("SGLANG_LOG_REQUEST_HEADERS", SGLANG, "request headers, Authorization included, are logged"),
    ("SGLANG_TORCH_PROFILER_DIR", SGLANG, _WRITES),
    ("SGLANG_EXPERT_DISTRIBUTION_RECORDER_DIR", SGLANG, _WRITES),
    ("SGLANG_CUDA_COREDUMP_DIR", SGLANG, _WRITES),
    ("SGLANG_ROLE_NAMESPACES_OUT", SGLANG, _WRITES),
    ("SGLANG_TEST_METRICS_FILE", SGLANG, _WRITES),
    ("SGLANG_WEIGHT_CACHE_SOCKET_TEMPLATE", SGLANG, "weights are taken from whatever listens on the socket it names"),
    ("SGLANG_WEIGHT_CACHE_READY_TEMPLATE", SGLANG, "the weight cache's readiness is read from the path it names"),
    ("SGLANG_RUST_BUILD_MODE", SGLANG, "SGLang builds and loads its Rust components"),
)  # fmt: skip

#: (prefix, an example name under it, group, why it is denied)
PREFIXES: tuple[tuple[str, str, str, str], ...] = (
    ("SGLANG_TEST_", "SGLANG_TEST_RETRACT", SGLANG, "test-only switches that change what the server does"),
    ("SGLANG_DSPARK_", "SGLANG_DSPARK_ENDPOINT", SGLANG, "an integration's settings that name code or places to load from"),
    ("SGLANG_HICACHE_", "SGLANG_HICACHE_STORAGE_BACKEND", SGLANG, "hierarchical-cache storage: a backend loaded, KV read from elsewhere"),
    ("MOONCAKE_", "MOONCAKE_MASTER", SGLANG, "Mooncake's transfer engine connects to and loads from what it names"),
    ("RAY_", "RAY_RUNTIME_ENV_HOOK", RAY, "under --use-ray, Ray imports and calls the hook it names"),
    ("RAY_", "RAY_ADDRESS", RAY, "under --use-ray, the schedulers join the Ray cluster it names"),
)  # fmt: skip

#: (suffix, an example in SGLang's namespace, group, why). The core's credential suffixes
#: apply in every namespace, SGLang's open one included.
SUFFIXES: tuple[tuple[str, str, str, str], ...] = (
    ("_API_KEY", "SGLANG_SEARCH_API_KEY", CREDENTIAL, _CREDENTIAL),
    ("_API_KEY", "SGLANG_API_KEY", CREDENTIAL, _CREDENTIAL),
    ("_HMAC_KEY", "SGLANG_ROUTER_HMAC_KEY", CREDENTIAL, _CREDENTIAL),
    ("_PASSWD", "SGLANG_DB_PASSWD", CREDENTIAL, _CREDENTIAL),
)

_RENDEZVOUS = (
    "the rendezvous placement chose: another one joins the ranks to a host the profile's author picks"
)
_PORT = "a port the engine listens on beside the shard's own, which placement did not reserve"

#: (key SGLang generates or wires itself, why a profile may not set it)
RESERVED_ROWS: tuple[tuple[str, str], ...] = (
    ("SGLANG_HOST_IP", "the address SGLang's nodes know each other by: " + _RENDEZVOUS),
    ("SGLANG_PORT", _PORT),
    ("SGLANG_TCP_STORE_PORT", "SGLang's rendezvous store: " + _PORT),
    ("SGLANG_GRPC_PORT", _PORT),
    ("SGLANG_DISTRIBUTED_INIT_METHOD_OVERRIDE", "SGLang's distributed init address: " + _RENDEZVOUS),
    ("SGLANG_CPU_OMP_THREADS_BIND", "the cores placement reserved for a CPU shard, split between its ranks"),
)

KEY_ENV = "ENGINEKIT_API_KEY"


def judged(name: str, site: EnvPolicy = DEFAULT_POLICY) -> tuple[bool, str]:
    """How SGLang's profiles may use ``name`` under ``site``."""
    return env_verdict(SglangEngine(), "sglang", name, site)


def profile(**env: str) -> Profile:
    return Profile(name="p", engine="sglang", tp=1, model_path="/models/m", env=env)


# --- denied names ------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "group", "reason"), EXACT, ids=[row[0] for row in EXACT])
def test_every_denied_name_is_refused_for_its_reason(name: str, group: str, reason: str) -> None:
    # Every SGLang group is a floor: no site's allow list or namespace opens one; only
    # allow_unsafe, with a reason every plan repeats.
    assert_env_denied(SglangEngine(), "sglang", name, group, why=reason)


@pytest.mark.parametrize(
    ("prefix", "example", "group", "reason"), PREFIXES, ids=[f"{row[0]}:{row[1]}" for row in PREFIXES]
)
def test_every_denied_prefix_is_refused_for_its_reason(
    prefix: str, example: str, group: str, reason: str
) -> None:
    assert example.startswith(prefix)
    assert_env_denied(SglangEngine(), "sglang", example, group, why=f"under {prefix}*: {reason}")


@pytest.mark.parametrize(
    ("suffix", "example", "group", "reason"), SUFFIXES, ids=[f"*{row[0]}:{row[1]}" for row in SUFFIXES]
)
def test_a_credential_suffix_is_refused_in_sglangs_open_namespace(
    suffix: str, example: str, group: str, reason: str
) -> None:
    assert judged(example.replace(suffix, "_LEVEL")) == (False, ""), (
        "the example must be in an open namespace"
    )
    assert_env_denied(SglangEngine(), "sglang", example, group, why=f"*{suffix}: {reason}")


def _listed() -> tuple[dict[str, str], dict[str, str]]:
    exact = {name: group.why for group in POLICY.denied_env for name in group.names}
    prefixes = {prefix: group.why for group in POLICY.denied_env for prefix in group.prefixes}
    return exact, prefixes


@pytest.mark.parametrize(("name", "group", "reason"), EXACT, ids=[row[0] for row in EXACT])
def test_every_denied_name_is_still_listed_in_sglangs_policy(name: str, group: str, reason: str) -> None:
    exact, prefixes = _listed()
    assert group in exact.get(name, "") or any(name.startswith(p) for p in prefixes), (
        f"{name} was removed from SGLang's deny list: {reason}"
    )


def test_every_entry_of_sglangs_deny_list_has_a_row_with_its_reason_here() -> None:
    exact, prefixes = _listed()
    assert all(group.floor for group in POLICY.denied_env), "every SGLang group is a floor"
    missing = sorted(set(exact) - {row[0] for row in EXACT}) + sorted(
        f"{p}*" for p in set(prefixes) - {row[0] for row in PREFIXES}
    )
    assert not missing, f"deny-list entries without a row (and a reason) in this file: {missing}"


@pytest.mark.parametrize("name", ["MOONCAKE_MASTER", "MOONCAKE_CONFIG_PATH", "mooncake_protocol"])
def test_a_profile_setting_a_mooncake_variable_is_refused(name: str) -> None:
    assert ENGINE.validate(profile(**{name: "x"})) == [
        f"profile 'p': env {name}: denied: SGLang would import a package, load cached objects or "
        f"write files named by it"
    ]


# --- open namespaces -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["SGLANG_LOG_LEVEL", "SGLANG_HEALTH_CHECK_TIMEOUT", "SGL_ENABLE_JIT_DEEPGEMM", "sglang_log_level"]
)
def test_a_sglang_tuning_variable_passes_and_reaches_the_command(name: str) -> None:
    assert judged(name) == (False, "")
    prof = profile(**{name: "60"})
    assert ENGINE.validate(prof) == []
    spec = ShardSpec(profile=prof, gpu_indices=(0,), http_port=30000)
    plan = ENGINE.plan(spec)
    assert plan.commands[-1].env[name] == "60"
    assert plan.dropped_env == ()


@pytest.mark.parametrize(
    "suffix",
    [
        "_PATH", "_DIR", "_FILE", "_HOME", "_ROOT", "_LIB", "_SO_PATH", "_PLUGIN", "_PLUGINS",
        "_MODULE", "_PACKAGE", "_CLASS", "_HOOK", "_COMMAND", "_CMD", "_EXECUTABLE", "_COMPILER",
        "_CONFIG_PATH", "_TEMPLATE",
    ],
)  # fmt: skip
@pytest.mark.parametrize("namespace", ["SGLANG_", "SGL_"])
def test_an_unknown_sglang_name_that_points_at_code_or_files_is_refused(namespace: str, suffix: str) -> None:
    # A release adds SGLANG_FOO_PLUGIN before the deny list knows it: a name ending like a
    # path, module or program is refused in SGLang's namespaces until someone looks.
    key = f"{namespace}NEW_THING{suffix}"
    assert judged(key) == (True, SUFFIX), f"{key}: the {suffix} heuristic was lost"
    assert judged(key.lower()) == (True, SUFFIX)


# --- reserved and secret names -----------------------------------------------------------------


@pytest.mark.parametrize(("key", "reason"), RESERVED_ROWS, ids=[row[0] for row in RESERVED_ROWS])
def test_every_reserved_key_is_refused_whatever_the_site_allows(key: str, reason: str) -> None:
    for spelling in (key, key.lower()):
        for site_name, site in sites_opening(key):
            verdict = judged(spelling, site)
            assert verdict == (True, RESERVED), (
                f"{spelling} is no longer reserved under {site_name} ({reason}); it is now judged {verdict}"
            )


@pytest.mark.parametrize(("key", "reason"), RESERVED_ROWS, ids=[row[0] for row in RESERVED_ROWS])
def test_a_profile_value_for_a_reserved_key_is_dropped_at_launch(key: str, reason: str) -> None:
    # The second line of defence: the env built for the root process never takes it.
    policy = engine_for(SglangEngine(), "sglang", policy=EnvPolicy(allow={key})).env_policy
    assert (key, RESERVED) in policy.problems({key: "x"}), f"{key} would reach the engine: {reason}"


def test_every_reserved_key_has_a_row_with_its_reason_here() -> None:
    assert POLICY.reserved_env == {row[0] for row in RESERVED_ROWS}


@pytest.mark.parametrize(
    ("site_name", "site"), sites_opening(KEY_ENV), ids=lambda v: v if isinstance(v, str) else ""
)
def test_the_key_variable_cannot_be_set_by_a_profile_whatever_the_site_allows(
    site_name: str, site: EnvPolicy
) -> None:
    # The launcher hands this variable to SGLang as --api-key: a profile value would
    # replace the shard's key, or publish one with the profile.
    assert KEY_ENV in POLICY.secret_env
    prof = profile(**{KEY_ENV: "sk-from-the-profile"})
    problems = engine_for(SglangEngine(), "sglang", policy=site).validate(prof)
    assert problems == [f"profile 'p': env {KEY_ENV}: {CORE_RESERVED}"], site_name
    assert "sk-from-the-profile" not in " ".join(problems)


def test_the_secret_variables_are_exactly_those_the_commands_mark_secret() -> None:
    spec = ShardSpec(profile=profile(), gpu_indices=(0,), http_port=30000, api_key="sk-1234567890abcdef")
    (command,) = ENGINE.commands(spec)
    assert command.secret_env == POLICY.secret_env == {KEY_ENV}


def test_a_profile_cannot_move_the_cpu_binding() -> None:
    prof = attrs.evolve(profile(SGLANG_CPU_OMP_THREADS_BIND="0-63"), tp=2)
    assert ENGINE.validate(prof) == [f"profile 'p': env SGLANG_CPU_OMP_THREADS_BIND: {RESERVED}"]


# --- placement ---------------------------------------------------------------------------------


def _shards() -> list[tuple[str, ShardSpec]]:
    single = ShardSpec(profile=profile(), gpu_indices=(5,), http_port=30000, api_key="sk-1234567890abcdef")
    two_node = Profile(name="p", engine="sglang", tp=8, nodes=2, gpus_per_node=4, model_path="/models/m")
    leader = ShardSpec(
        profile=two_node,
        nnodes=2,
        leader_addr="fd00::17",
        leader_port=20000,
        gpu_indices=(0, 1, 2, 3),
        hcas=("mlx5_0:1",),
        gid_index=3,
        mgmt_interface="eth0",
        fabric="nvl:rack-1",
        http_port=30000,
    )
    return [
        ("single", single),
        (
            "mig",
            attrs.evolve(single, gpu_indices=(0,), gpu_uuids=("mig-1a2b3c4d-0000-1111-2222-333344445555",)),
        ),
        ("cpu", ShardSpec(profile=attrs.evolve(profile(), tp=2), http_port=30000, threads=8)),
        ("leader", leader),
        ("worker", attrs.evolve(leader, rank=1, bind_addr="fd00::18")),
    ]


@pytest.mark.parametrize(("kind", "spec"), _shards(), ids=[row[0] for row in _shards()])
def test_every_command_carries_the_shards_placement_variables(kind: str, spec: ShardSpec) -> None:
    placed = dict(placement_env(spec).env)
    assert placed, kind
    # The plugin's own answer, before the registry checks it, and the plan built from it.
    for command in [*SglangEngine().commands(spec, None), *ENGINE.plan(spec).commands]:
        assert {key: command.env.get(key) for key in placed} == placed, kind
        assert set(placed) <= set(command.why)


# --- the policy itself ---------------------------------------------------------------------------


def test_the_policy_is_built_once_per_config_from_its_allow_args() -> None:
    plugin = SglangEngine(SglangConfig(allow_args=("--trust-remote-code", "--tokenizer-path")))
    assert plugin.policy() is plugin.policy()
    assert plugin.policy().allowed_args == {"--trust-remote-code", "--tokenizer-path"}
    assert SglangEngine().policy().allowed_args == frozenset()
    # One syntax for validate and commands, so the args read in validate are not read again.
    assert plugin.policy().syntax is SYNTAX
    assert plugin.policy().display_name == "SGLang"
    assert {"SGLANG_", "SGL_"} <= set(plugin.policy().open_env)
