"""The variables vLLM owns, each row with the reason: what profiles may set, what they never may.

These rows lived in the core's env tables until each engine declared its own
(``VllmEngine.policy``). This file holds its OWN copy of every vLLM entry on purpose: a
test iterating ``policy.DENIED_ENV`` cannot notice an entry disappearing from it. Each
row is checked through the engine, the way a profile meets it:

- by behaviour: the vLLM engine's env policy refuses the name *for its reason* (not
  merely as unknown or by the suffix heuristic, which a site can open), in either case;
- by listing: the entry is still in the plugin's tables;
- by floor: a site's ``allow`` list cannot open a denied name, and nothing a site writes
  opens a reserved one.

Adding an entry? Add its row here, with its reason: the completeness tests fail until you do.
"""

from __future__ import annotations

import attrs
import pytest
from enginekit import Engine, ShardSpec
from enginekit.base.errors import SpecError
from enginekit.plugin import placement_env
from enginekit.policy.env import DEFAULT_POLICY, EnvPolicy
from enginekit.testing import assert_env_denied, engine_for, env_verdict, sites_opening
from enginekit_vllm import VllmConfig, VllmEngine
from enginekit_vllm.policy import DENIED_ENV, OPEN_ENV, RESERVED_ENV, SECRET_ENV
from vllm_specs import KEY, profile, single, two_node

RESERVED = (True, "reserved by the engine: generated for the shard, or carries its secret")
SUFFIX = "denied: its name says it points at a file, directory, module or program"
UNKNOWN = "unknown: not in a namespace this site opens to profiles"
SITE = "denied by this site's policy"
PATHY = "value contains '/' or '%' and the site has not marked this key as a path"


def engine(site: EnvPolicy = DEFAULT_POLICY, config: VllmConfig | None = None) -> Engine:
    return engine_for(VllmEngine(config or VllmConfig()), "vllm", policy=site)


def judged(key: str, site: EnvPolicy = DEFAULT_POLICY) -> tuple[bool, str]:
    """How a vLLM profile's variable ``key`` is judged under the site policy ``site``."""
    return env_verdict(VllmEngine(), "vllm", key, site)


def with_env(shard: ShardSpec, env: dict[str, str]) -> ShardSpec:
    return attrs.evolve(shard, profile=attrs.evolve(shard.profile, env=env))


# --- the deny list: vLLM's names, ModelScope, and Ray -------------------------------------------

VLLM = "vLLM would load a library"
MODELSCOPE = "another hub (ModelScope)"
RAY = "Ray would"
CREDENTIAL = "it is a credential"

_KERNEL_CACHE = "compiled kernels (code) are loaded from the cache it names"
_WRITES = "a root process writes files where it names"
_CREDENTIAL = (
    "a credential in a profile is published with the profile; keys reach engines by the secret channel only"
)

#: (exact name, group, why it is denied)
EXACT: tuple[tuple[str, str, str], ...] = (
    ("VLLM_NCCL_SO_PATH", VLLM, "vLLM dlopens the NCCL library it names"),
    ("VLLM_CUDART_SO_PATH", VLLM, "vLLM dlopens the CUDA runtime it names"),
    ("VLLM_CUDA_COMPATIBILITY_PATH", VLLM, "vLLM loads CUDA compatibility libraries from the path it names"),
    ("VLLM_ENABLE_CUDA_COMPATIBILITY", VLLM, "turns on loading those compatibility libraries"),
    ("VLLM_RUST_FRONTEND_PATH", VLLM, "vLLM runs the frontend program it names"),
    ("VLLM_USE_RUST_FRONTEND", VLLM, "vLLM runs a separate frontend program"),
    ("VLLM_USE_RUST_BENCH", VLLM, "vLLM runs a separate benchmark program"),
    ("VLLM_LOGGING_CONFIG_PATH", VLLM, "a logging dictConfig file, which can import any callable"),
    ("VLLM_LOGGING_STREAM", VLLM, "the log stream, resolved by logging's config as an object to import"),
    ("VLLM_NIC_SELECTION_VARS", VLLM, "names variables vLLM sets per GPU: a way around the reserved NIC keys"),
    ("VLLM_RAY_EXTRA_ENV_VAR_PREFIXES_TO_COPY", VLLM, "copies more of the server's environment to every Ray worker"),
    ("VLLM_RAY_EXTRA_ENV_VARS_TO_COPY", VLLM, "copies more of the server's environment to every Ray worker"),
    ("VLLM_ALLOW_INSECURE_SERIALIZATION", VLLM, "vLLM unpickles messages between its processes: pickle runs code"),
    ("VLLM_ALLOW_RUNTIME_LORA_UPDATING", VLLM, "API clients load LoRA adapters, from paths they choose, at runtime"),
    ("VLLM_LORA_RESOLVER_CACHE_DIR", VLLM, "adapters are resolved from the directory it names"),
    ("VLLM_LORA_RESOLVER_HF_REPO_LIST", VLLM, "adapters are fetched from the hub repositories it lists"),
    ("VLLM_SERVER_DEV_MODE", VLLM, "exposes development endpoints (collective RPC, sleep, reset) to API clients"),
    ("VLLM_MODEL_REDIRECT_PATH", VLLM, "the model path is redirected through a file it names"),
    ("VLLM_CACHE_ROOT", VLLM, "vLLM's caches, compiled code included, are read from the directory it names"),
    ("VLLM_CONFIG_ROOT", VLLM, "vLLM reads its configuration from the directory it names"),
    ("VLLM_ASSETS_CACHE", VLLM, "assets are loaded from the directory it names"),
    ("VLLM_ASSETS_CACHE_MODEL_CLEAN", VLLM, "vLLM deletes files under the assets cache"),
    ("VLLM_XLA_CACHE_PATH", VLLM, _KERNEL_CACHE),
    ("VLLM_RPC_BASE_PATH", VLLM, "vLLM creates its IPC sockets under the path it names"),
    ("VLLM_MEDIA_CACHE", VLLM, "media is cached in, and read back from, the directory it names"),
    ("VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR", VLLM, "tuning results are loaded from the directory it names"),
    ("VLLM_TUNED_CONFIG_FOLDER", VLLM, "kernel configs are loaded from the folder it names"),
    ("VLLM_NCCL_INCLUDE_PATH", VLLM, "NCCL headers for JIT builds are taken from the path it names"),
    ("VLLM_HUMMING_ONLINE_QUANT_CONFIG", VLLM, "a quantization config is read from where it names"),
    ("VLLM_HUMMING_INPUT_QUANT_CONFIG", VLLM, "a quantization config is read from where it names"),
    ("VLLM_DEBUG_DUMP_PATH", VLLM, _WRITES),
    ("VLLM_TORCH_PROFILER_DIR", VLLM, _WRITES),
    ("VLLM_TRACE_FUNCTION", VLLM, "every function call is traced into log files"),
    ("VLLM_USAGE_STATS_SERVER", VLLM, "usage reports go to the server it names"),
    ("VLLM_DEBUG_LOG_API_SERVER_RESPONSE", VLLM, "every API response, users' completions included, is logged"),
    ("VLLM_USE_MODELSCOPE", MODELSCOPE, "vLLM fetches models and their code from ModelScope instead"),
)  # fmt: skip

#: (prefix, an example name under it, group, why it is denied)
PREFIXES: tuple[tuple[str, str, str, str], ...] = (
    ("RAY_", "RAY_RUNTIME_ENV_HOOK", RAY, "Ray imports and calls the hook it names"),
    ("RAY_", "RAY_JOB_CONFIG_JSON_ENV_VAR", RAY, "Ray takes a job's config, its runtime env included, from it"),
)  # fmt: skip

#: (suffix, an example in vLLM's open namespace, why). The suffixes are the core's; a
#: credential is a credential in vLLM's namespace too.
SUFFIXES: tuple[tuple[str, str, str], ...] = (
    ("_TOKEN", "VLLM_HUB_TOKEN", _CREDENTIAL),
    ("_SECRET", "VLLM_WEBHOOK_SECRET", _CREDENTIAL),
    ("_SECRET_KEY", "VLLM_S3_SECRET_KEY", _CREDENTIAL),
    ("_PRIVATE_KEY", "VLLM_SIGNING_PRIVATE_KEY", _CREDENTIAL),
    ("_PASSWORD", "VLLM_REDIS_PASSWORD", _CREDENTIAL),
    ("_CREDENTIALS", "VLLM_GCS_CREDENTIALS", _CREDENTIAL),
)


@pytest.mark.parametrize(("name", "group", "reason"), EXACT, ids=[row[0] for row in EXACT])
def test_every_denied_vllm_name_is_refused_for_its_reason(name: str, group: str, reason: str) -> None:
    # Every vLLM group loads code, redirects trust or reaches another cluster: a floor. No
    # site's allow list or namespace opens one; only allow_unsafe, with a reason every plan repeats.
    assert_env_denied(VllmEngine(), "vllm", name, group, why=reason)


@pytest.mark.parametrize(
    ("prefix", "example", "group", "reason"), PREFIXES, ids=[f"{r[0]}:{r[1]}" for r in PREFIXES]
)
def test_every_denied_prefix_is_refused_for_its_reason(
    prefix: str, example: str, group: str, reason: str
) -> None:
    assert example.startswith(prefix)
    assert_env_denied(VllmEngine(), "vllm", example, group, why=f"under {prefix}*: {reason}")


@pytest.mark.parametrize(("suffix", "example", "reason"), SUFFIXES, ids=[row[1] for row in SUFFIXES])
def test_a_credential_in_vllms_namespace_is_refused(suffix: str, example: str, reason: str) -> None:
    assert judged(example.replace(suffix, "_LEVEL")) == (False, ""), "the example must be in vLLM's namespace"
    assert_env_denied(VllmEngine(), "vllm", example, CREDENTIAL, why=f"*{suffix}: {reason}")


def _listed() -> tuple[set[str], set[str]]:
    return (
        {name for group in DENIED_ENV for name in group.names},
        {prefix for group in DENIED_ENV for prefix in group.prefixes},
    )


@pytest.mark.parametrize(("name", "group", "reason"), EXACT, ids=[row[0] for row in EXACT])
def test_every_denied_name_is_still_listed(name: str, group: str, reason: str) -> None:
    names, prefixes = _listed()
    assert name in names or name.startswith(tuple(prefixes)), f"{name} was removed: {reason}"


def test_every_deny_entry_has_a_row_with_its_reason_here() -> None:
    names, prefixes = _listed()
    missing = sorted(names - {row[0] for row in EXACT}) + sorted(
        f"{p}*" for p in prefixes - {row[0] for row in PREFIXES}
    )
    assert not missing, f"vLLM deny entries without a row (and a reason) in this file: {missing}"
    assert all(group.floor for group in DENIED_ENV), (
        "a vLLM group a site's allow list opens needs a row saying why"
    )
    assert not any(group.suffixes for group in DENIED_ENV)


# --- reserved: what the plugin generates, and what vLLM reads for what placement decides ---------

_NIC = "placement's fabric: another interface reaches a fabric where the peers are unreachable, and the job hangs"
_RENDEZVOUS = (
    "the rendezvous placement chose: another one joins the ranks to a host the profile's author picks"
)
_DATA_PARALLEL = "enginekit runs one data-parallel rank per replica; these would join replicas into one group"
_SIDE_CHANNEL = (
    "a KV or encoder transfer side channel: peers would connect to, or listen on, another host or port"
)
_PORT = "a port the engine listens on beside the shard's own, which placement did not reserve"
_CORES = "the cores placement reserved for a CPU shard: another value takes cores other shards hold"

#: (key, why a profile may not set it)
RESERVED_ROWS: tuple[tuple[str, str], ...] = (
    ("VLLM_GPU_NIC_PCIE_MAPPING", "vLLM's per-GPU NIC choice: " + _NIC),
    ("VLLM_HOST_IP", "the node's management address vLLM and Ray know it by: " + _RENDEZVOUS),
    ("VLLM_PORT", "the base of vLLM's internal ports: " + _PORT),
    ("VLLM_LOOPBACK_IP", "where vLLM's internal sockets bind: another address exposes them"),
    ("VLLM_DP_MASTER_IP", _DATA_PARALLEL),
    ("VLLM_DP_MASTER_PORT", _DATA_PARALLEL),
    ("VLLM_DP_RANK", _DATA_PARALLEL),
    ("VLLM_DP_RANK_LOCAL", _DATA_PARALLEL),
    ("VLLM_DP_SIZE", _DATA_PARALLEL),
    ("VLLM_NIXL_SIDE_CHANNEL_HOST", _SIDE_CHANNEL),
    ("VLLM_NIXL_SIDE_CHANNEL_PORT", _SIDE_CHANNEL),
    ("VLLM_P2P_SIDE_CHANNEL_HOST", _SIDE_CHANNEL),
    ("VLLM_P2P_SIDE_CHANNEL_PORT", _SIDE_CHANNEL),
    ("VLLM_EC_SIDE_CHANNEL_HOST", _SIDE_CHANNEL),
    ("VLLM_EC_SIDE_CHANNEL_PORT", _SIDE_CHANNEL),
    ("VLLM_MOONCAKE_BOOTSTRAP_PORT", _SIDE_CHANNEL),
    (
        "VLLM_ALL2ALL_BACKEND",
        "expert parallel's backend is profile.all2all: on 0.14-0.15 the variable wins over the flag",
    ),
    ("RAY_ADDRESS", "the Ray head the server joins: its own shard's, never a cluster the profile names"),
    ("VLLM_TARGET_DEVICE", "CPU or GPU is placement's choice: 'cpu' on a GPU shard leaves its GPUs idle"),
    ("VLLM_CPU_OMP_THREADS_BIND", "which cores vLLM pins: " + _CORES),
    ("VLLM_CPU_KVCACHE_SPACE", "the KV cache of a CPU shard is the memory placement reserved (kv_cache_mib)"),
    ("VLLM_API_KEY", "the API key comes from the shard spec's api_key only: a profile value would replace or publish it"),
)  # fmt: skip


@pytest.mark.parametrize(("key", "reason"), RESERVED_ROWS, ids=[row[0] for row in RESERVED_ROWS])
def test_every_reserved_key_is_refused_whatever_the_site_allows(key: str, reason: str) -> None:
    for spelling in (key, key.lower()):
        for site_name, site in sites_opening(key):
            verdict = judged(spelling, site)
            assert verdict == RESERVED, f"{spelling} is open under {site_name} ({reason}): {verdict}"


@pytest.mark.parametrize(("key", "reason"), RESERVED_ROWS, ids=[row[0] for row in RESERVED_ROWS])
def test_a_profile_setting_a_reserved_key_is_refused_and_the_plan_keeps_the_shards_own(
    key: str, reason: str
) -> None:
    vllm = engine(EnvPolicy(allow={key}))
    shard = with_env(single(), {key: "x"})
    assert vllm.validate(shard.profile) == [f"profile 'llama70b-h100x8': env {key}: {RESERVED[1]}"], reason
    with pytest.raises(SpecError):
        vllm.plan(shard)


def test_every_reserved_key_has_a_row_with_its_reason_here() -> None:
    missing = sorted((RESERVED_ENV | SECRET_ENV) - {row[0] for row in RESERVED_ROWS})
    assert not missing, f"reserved vLLM keys without a row (and a reason) in this file: {missing}"
    assert frozenset({"VLLM_API_KEY"}) == SECRET_ENV


def _every_kind_of_shard() -> list[tuple[VllmConfig, ShardSpec]]:
    cpu = profile(tp=2, gpus_per_node=2, args=())
    return [
        (VllmConfig(), single()),
        (VllmConfig(), single(api_key="", bind_addr="")),
        (VllmConfig(), single(gpu_indices=(), threads=8, kv_cache_mib=4096, profile=cpu)),
        (VllmConfig(), single(gpu_indices=(), threads=0, kv_cache_mib=1024, profile=cpu)),
        (VllmConfig(), two_node(1, gpu_indices=(), hcas=(), gid_index=None, kv_cache_mib=2048)),
        (VllmConfig(), two_node(0)),
        (VllmConfig(), two_node(1)),
        (VllmConfig(), two_node(1, bind_addr="node-1.cluster.local")),
        (VllmConfig(multinode="ray"), two_node(0)),
        (VllmConfig(multinode="ray"), two_node(1)),
        (VllmConfig(multinode="ray"), two_node(0, leader_addr="fd00::11", bind_addr="fd00::11")),
    ]


@pytest.mark.parametrize(("config", "shard"), _every_kind_of_shard())
def test_every_variable_the_plugin_generates_is_reserved(config: VllmConfig, shard: ShardSpec) -> None:
    # A generated variable a profile could also set would be silently dropped at launch:
    # refusing it when the profile is validated says so up front. OMP_NUM_THREADS alone is
    # left open: GPU profiles tune it, and on a CPU shard the plan reports it dropped.
    protected = engine(config=config).policy.protected_env | {"OMP_NUM_THREADS"}
    placed = placement_env(shard).env
    for command in engine(config=config).plan(shard).commands:
        generated = set(command.env) - set(placed)
        assert generated <= protected, f"{command.name}: generated but not reserved: {generated - protected}"


@pytest.mark.parametrize(("config", "shard"), _every_kind_of_shard())
def test_the_placement_variables_are_in_every_command_unchanged(config: VllmConfig, shard: ShardSpec) -> None:
    placed = dict(placement_env(shard).env)
    tuned = with_env(shard, {"VLLM_ATTENTION_BACKEND": "FLASHINFER"})
    for command in engine(config=config).plan(tuned).commands:
        assert {key: command.env.get(key) for key in placed} == placed, command.name
        assert all(command.why[key] for key in placed), command.name


# --- what profiles may set: vLLM's tuning namespace ---------------------------------------------


def test_a_profile_sets_a_vllm_tuning_variable() -> None:
    shard = with_env(single(), {"VLLM_ATTENTION_BACKEND": "FLASHINFER", "VLLM_LOGGING_LEVEL": "DEBUG"})
    plan = engine().plan(shard)
    (server,) = plan.commands
    assert server.env["VLLM_ATTENTION_BACKEND"] == "FLASHINFER"
    assert server.env["VLLM_LOGGING_LEVEL"] == "DEBUG"
    assert server.why["VLLM_ATTENTION_BACKEND"].startswith("set by the profile")
    assert plan.dropped_env == ()


def test_vllms_namespace_is_opened_by_the_vllm_engine_alone() -> None:
    # The core opens no engine's namespace: the same name is unknown to a site's policy alone.
    assert OPEN_ENV == ("VLLM_",)
    assert judged("VLLM_ATTENTION_BACKEND") == (False, "")
    assert DEFAULT_POLICY.unsafe_env("VLLM_ATTENTION_BACKEND") == (True, UNKNOWN)
    assert judged("SGLANG_LOG_LEVEL") == (True, UNKNOWN), "another engine's namespace stays closed"


def test_the_api_key_variable_cannot_be_set_even_when_the_site_allows_it() -> None:
    for site in (EnvPolicy(allow=["VLLM_API_KEY"]), EnvPolicy(allow_unsafe={"VLLM_API_KEY": "ops ticket 7"})):
        vllm = engine(site)
        shard = with_env(single(), {"VLLM_API_KEY": "sk-from-the-profile"})
        assert vllm.validate(shard.profile) == [f"profile 'llama70b-h100x8': env VLLM_API_KEY: {RESERVED[1]}"]
        with pytest.raises(SpecError):
            vllm.plan(shard)
        assert vllm.env_policy.unsafe_allowances({"VLLM_API_KEY": "x"}) == []
    # The key the server gets is the shard spec's, marked secret.
    (server,) = engine().plan(single()).commands
    assert server.env["VLLM_API_KEY"] == KEY
    assert server.secret_env == frozenset({"VLLM_API_KEY"})


def test_ray_address_is_refused() -> None:
    # Under Ray the server would join the cluster the profile names; without Ray, Ray's
    # client in vLLM would still attach to it.
    for config in (VllmConfig(), VllmConfig(multinode="ray")):
        vllm = engine(EnvPolicy(allow={"RAY_ADDRESS"}), config)
        shard = with_env(two_node(0), {"RAY_ADDRESS": "192.0.2.1:6379"})
        assert vllm.validate(shard.profile) == [f"profile 'llama405b-2x8': env RAY_ADDRESS: {RESERVED[1]}"]
        with pytest.raises(SpecError):
            vllm.plan(shard)


# --- the env rules, met through vLLM's namespace ------------------------------------------------


@pytest.mark.parametrize(("length", "bad"), [(255, False), (256, False), (257, True)])
def test_a_name_may_be_256_characters_and_no_more(length: int, bad: bool) -> None:
    key = "VLLM_" + "X" * (length - 5)
    assert judged(key)[0] is bad
    if bad:
        assert judged(key)[1] == "name longer than 256 characters"


def test_a_sites_deny_prefixes_close_part_of_vllms_namespace() -> None:
    # How a site withdraws a family after an advisory without waiting for a release.
    assert judged("VLLM_EXPERIMENTAL_KERNEL") == (False, "")
    assert judged("VLLM_EXPERIMENTAL_KERNEL", EnvPolicy(deny_prefixes=("VLLM_EXPERIMENTAL_",))) == (
        True,
        SITE,
    )
    assert judged("VLLM_ATTENTION_BACKEND", EnvPolicy(deny={"VLLM_ATTENTION_BACKEND"})) == (True, SITE)


def test_a_sites_deny_beats_its_own_allow() -> None:
    assert judged("VLLM_X", EnvPolicy(deny={"VLLM_X"}, allow={"VLLM_X"})) == (True, SITE)


@pytest.mark.parametrize(
    "suffix",
    [
        "_PATH", "_DIR", "_FILE", "_HOME", "_ROOT", "_LIB", "_SO_PATH", "_PLUGIN", "_PLUGINS",
        "_MODULE", "_PACKAGE", "_CLASS", "_HOOK", "_COMMAND", "_CMD", "_EXECUTABLE", "_COMPILER",
        "_CONFIG_PATH", "_TEMPLATE",
    ],
)  # fmt: skip
def test_an_unknown_vllm_name_that_points_at_code_or_files_is_refused(suffix: str) -> None:
    # A release adds VLLM_FOO_PLUGIN before the deny list knows it: a name ending like a
    # path, module or program is refused until someone looks.
    key = f"VLLM_NEW_THING{suffix}"
    assert judged(key) == (True, SUFFIX), f"{key}: the {suffix} heuristic was lost"
    assert judged(key.lower()) == (True, SUFFIX)


def test_a_site_may_open_a_name_the_suffix_heuristic_refuses() -> None:
    # Not a floor: allow opens it, quietly; allow_unsafe opens it and every plan says so.
    assert judged("VLLM_NEW_PLUGIN", EnvPolicy(allow={"VLLM_NEW_PLUGIN"})) == (False, "")
    site = EnvPolicy(allow={"VLLM_NEW_CACHE_DIR"})
    assert engine(site).env_policy.problems({"VLLM_NEW_CACHE_DIR": "x"}) == []
    unsafe = EnvPolicy(allow_unsafe={"VLLM_NEW_PLUGIN": "pinned build"})
    assert engine(unsafe).env_policy.unsafe_allowances({"VLLM_NEW_PLUGIN": "x", "NCCL_ALGO": "Ring"}) == [
        ("VLLM_NEW_PLUGIN", "pinned build")
    ]
    shard = with_env(single(), {"VLLM_NEW_PLUGIN": "x"})
    notes = engine(unsafe).plan(shard).notes
    assert any("VLLM_NEW_PLUGIN" in note and "pinned build" in note for note in notes)


def test_allow_unsafe_for_a_name_open_anyway_is_not_reported() -> None:
    site = EnvPolicy(allow_unsafe={"VLLM_ATTENTION_BACKEND": "belt and braces"})
    assert engine(site).env_policy.unsafe_allowances({"VLLM_ATTENTION_BACKEND": "FLASHINFER"}) == []


@pytest.mark.parametrize("key", ["VLLM_NEW_THING_CONF", "VLLM_SOME_NEW_CONF"])
def test_a_vllm_conf_name_is_judged_by_its_value(key: str) -> None:
    policy = engine().env_policy
    assert policy.unsafe_env(key) == (False, "")
    assert policy.unsafe_value(key, "expandable_segments:True") == (False, "")
    for value in ("/etc/evil.conf", "evil.yaml", "../x", "~root"):
        assert policy.unsafe_value(key, value)[0], f"{key}={value} names a file and was accepted"


def test_a_conf_key_marked_as_a_path_still_needs_the_site_to_open_it() -> None:
    marked = engine(EnvPolicy(path_keys={"VLLM_X_CONF"})).env_policy
    assert marked.unsafe_value("VLLM_X_CONF", "/etc/x.conf")[0]
    opened = engine(EnvPolicy(path_keys={"VLLM_X_CONF"}, allow={"vllm_x_conf"})).env_policy
    assert opened.unsafe_value("VLLM_X_CONF", "/etc/x.conf") == (False, "")


def test_problems_judge_names_before_values_in_key_order() -> None:
    env = {"VLLM_B": "/x", "LD_PRELOAD": "ok", "VLLM_A": "fine", "VLLM_NCCL_SO_PATH": "x"}
    assert engine().env_policy.problems(env) == [
        ("LD_PRELOAD", "denied: the dynamic loader or libc would load code or data from it"),
        ("VLLM_B", PATHY),
        ("VLLM_NCCL_SO_PATH", f"denied: {DENIED_ENV[0].why}"),
    ]


# --- the policy itself ------------------------------------------------------------------------


def test_the_policy_is_built_once_per_config_and_carries_the_sites_allowed_flags() -> None:
    plugin = VllmEngine(VllmConfig(allow_args=("--trust-remote-code",)))
    assert plugin.policy() is plugin.policy()
    assert plugin.policy().allowed_args == {"--trust-remote-code"}
    assert plugin.policy().display_name == "vLLM"
    assert VllmEngine().policy().allowed_args == frozenset()
