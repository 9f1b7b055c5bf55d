"""TensorRT-LLM's own env rules, each with the reason it is there, checked through the engine.

These rows lived in the core's env tables until each engine declared its own (``policy``):
the ``TLLM_``/``TRTLLM_`` namespaces it opens, the proxy, disaggregation, launcher, trace and
telemetry names it denies within them, and the variables it reserves. A row that fails says
what was lost.
"""

from __future__ import annotations

import pytest
from enginekit.plugin import Adapter, Profile, ShardSpec, placement_env
from enginekit.policy.env import DEFAULT_POLICY, EnvPolicy
from enginekit.testing import assert_env_denied, engine_for, env_verdict, sites_opening
from enginekit_trtllm import TrtllmConfig, TrtllmEngine

PY = "/opt/tensorrt-llm/bin/python"
RESERVED = (True, "reserved by the engine: generated for the shard, or carries its secret")
SUFFIX = (True, "denied: its name says it points at a file, directory, module or program")
PROXY = (
    "TensorRT-LLM would run the model through the proxy or disaggregated instance it names instead "
    "of its own workers"
)
TRACE = "TensorRT-LLM would write its profiler trace to the file named by it"
LAUNCHERS = "TensorRT-LLM's own launchers set it for the workers they start"
STARTUP = "TensorRT-LLM would write its startup profile to the file named by it, creating its directories"
USAGE = "TensorRT-LLM would send its usage reports to the server named by it"
CREDENTIAL = "denied: it is a credential"
MIG = "MIG-4f1c2a7e-9b3d-5c6e-8f0a-1b2c3d4e5f60"


def plugin(**config: object) -> TrtllmEngine:
    return TrtllmEngine(TrtllmConfig(python=PY, **config))  # type: ignore[arg-type]


def verdict(key: str, site: EnvPolicy = DEFAULT_POLICY) -> tuple[bool, str]:
    return env_verdict(plugin(), "trtllm", key, site)


@pytest.mark.parametrize(
    "key", ["TLLM_LOG_LEVEL", "TRTLLM_ENABLE_PDL", "TLLM_LLMAPI_BUILD_CACHE", "tllm_log_level"]
)
def test_a_tensorrt_llm_tuning_variable_passes(key: str) -> None:
    assert verdict(key) == (False, ""), f"{key} is tuning and was refused"
    profile = Profile(name="p", engine="trtllm", model_path="/m", env={key: "INFO"})
    assert engine_for(plugin(), "trtllm").validate(profile) == []


def test_the_namespaces_are_tensorrt_llms_alone() -> None:
    assert DEFAULT_POLICY.unsafe_env("TLLM_LOG_LEVEL")[0] is True
    assert DEFAULT_POLICY.unsafe_env("TRTLLM_ENABLE_PDL")[0] is True


@pytest.mark.parametrize("namespace", ["TLLM_", "TRTLLM_"])
@pytest.mark.parametrize("suffix", ["_PATH", "_DIR", "_FILE", "_PLUGIN", "_MODULE", "_EXECUTABLE"])
def test_an_unknown_name_that_points_at_code_or_files_is_refused(namespace: str, suffix: str) -> None:
    key = f"{namespace}NEW_THING{suffix}"
    assert verdict(key) == SUFFIX
    assert verdict(key.lower()) == SUFFIX


DENIED = [
    ("TLLM_SPAWN_PROXY_PROCESS", PROXY, "the model runs through a proxy process, not the engine's workers"),
    ("TLLM_SPAWN_PROXY_PROCESS_IPC_ADDR", PROXY, "the proxy process is reached at an address the author picks"),
    ("TLLM_DISAGG_INSTANCE_IDX", PROXY, "the server joins a disaggregated deployment it names"),
    ("TLLM_TORCH_PROFILE_TRACE", TRACE, "a root process writes files where it names"),
    # The proxy's and disaggregated launchers' wiring under spellings the prefixes miss.
    ("tllm_mpi_size", LAUNCHERS, "trtllm-llmapi-launch's MPI world size, exported beside TLLM_SPAWN_PROXY_PROCESS"),
    ("TRTLLM_DISAGG_ROLE", LAUNCHERS, "the server acts as a disaggregated context or generation worker"),
    ("TRTLLM_DISAGG_DEPLOYMENT_ID", LAUNCHERS, "the server reports itself part of a deployment it is not"),
    ("TRTLLM_STARTUP_PROFILE_OUTPUT", STARTUP, "a root process writes a file, and its directories, where it names"),
    ("TRTLLM_USAGE_STATS_SERVER", USAGE, "the node's usage reports go to a server the author picks"),
]  # fmt: skip


@pytest.mark.parametrize(("key", "group", "reason"), DENIED, ids=[row[0] for row in DENIED])
def test_every_denied_name_is_refused_for_its_reason_whatever_allow_says(
    key: str, group: str, reason: str
) -> None:
    # A floor: only an allow_unsafe entry with a reason opens it, and every plan says so.
    assert_env_denied(plugin(), "trtllm", key, f"denied: {group}", why=reason)


def test_a_credential_in_the_open_namespace_is_still_a_credential() -> None:
    assert_env_denied(
        plugin(), "trtllm", "TLLM_STORE_ACCESS_KEY_ID", CREDENTIAL, why="a key in a profile is published"
    )


def test_every_denied_group_is_still_declared() -> None:
    policy = engine_for(plugin(), "trtllm").policy
    groups = {group.why: group for group in policy.denied_env}
    assert set(groups[PROXY].prefixes) == {"TLLM_SPAWN_PROXY_PROCESS", "TLLM_DISAGG_"}
    assert "TLLM_TORCH_PROFILE_TRACE" in groups[TRACE].names
    launchers = next(group for why, group in groups.items() if why.startswith(LAUNCHERS))
    assert launchers.names == {"TLLM_MPI_SIZE", "TRTLLM_DISAGG_ROLE", "TRTLLM_DISAGG_DEPLOYMENT_ID"}
    assert groups[STARTUP].names == {"TRTLLM_STARTUP_PROFILE_OUTPUT"}
    assert groups[USAGE].names == {"TRTLLM_USAGE_STATS_SERVER"}
    assert all(group.floor for group in policy.denied_env)
    assert policy.open_env == ("TLLM_", "TRTLLM_")


#: Names of the open namespaces with no file-like suffix: only the policy's own groups refuse them.
OPEN_BUT_DENIED = [
    ("tllm_mpi_size", LAUNCHERS),
    ("TRTLLM_DISAGG_ROLE", LAUNCHERS),
    ("TRTLLM_DISAGG_DEPLOYMENT_ID", LAUNCHERS),
    ("TRTLLM_STARTUP_PROFILE_OUTPUT", STARTUP),
    ("TRTLLM_USAGE_STATS_SERVER", USAGE),
]


@pytest.mark.parametrize(("key", "group"), OPEN_BUT_DENIED, ids=[row[0] for row in OPEN_BUT_DENIED])
def test_a_profile_setting_a_launcher_trace_or_telemetry_name_is_refused(key: str, group: str) -> None:
    profile = Profile(name="p", engine="trtllm", model_path="/m", env={key: "x"})
    [problem] = engine_for(plugin(), "trtllm").validate(profile)
    assert problem.startswith(f"profile 'p': env {key}: denied: {group}"), problem


@pytest.mark.parametrize("site", [DEFAULT_POLICY, EnvPolicy(allow={"TLLM_RANK"})], ids=["built-in", "allow"])
def test_tllm_rank_is_refused_as_the_rank_it_stands_for(site: EnvPolicy) -> None:
    # TLLM_ is open, but the C++ logger reads TLLM_RANK before RANK, which the shard decides.
    profile = Profile(name="p", engine="trtllm", model_path="/m", env={"TLLM_RANK": "0"})
    [problem] = engine_for(plugin(), "trtllm", policy=site).validate(profile)
    assert problem.startswith("profile 'p': env TLLM_RANK: the engine reads it as RANK ("), problem


@pytest.mark.parametrize("key", ["DO_NOT_TRACK", "TELEMETRY_DISABLED"])
def test_a_telemetry_opt_out_is_judged_as_trtllms_own_opt_out(key: str) -> None:
    # Read as TRTLLM_NO_USAGE_STATS, which is open: the alias refuses nothing more, and a
    # site that allows the name by itself opens it.
    assert verdict("TRTLLM_NO_USAGE_STATS") == (False, "")
    assert verdict(key)[0] is True
    assert verdict(key, EnvPolicy(allow={key})) == (False, "")


RESERVED_ROWS = [
    ("OPENAI_API_KEY", "trtllm-serve has no key: a profile setting one would believe the server is protected"),
    ("ENGINEKIT_TRTLLM_OPTIONS", "the options document enginekit checked and the launcher writes"),
]  # fmt: skip


@pytest.mark.parametrize(("key", "reason"), RESERVED_ROWS, ids=[row[0] for row in RESERVED_ROWS])
def test_every_reserved_name_is_refused_whatever_the_site_allows(key: str, reason: str) -> None:
    for spelling in (key, key.lower()):
        for how, site in sites_opening(key):
            bad, said = verdict(spelling, site)
            assert bad, f"{spelling} is settable under {how}: {reason}"
            assert said.startswith("reserved"), said


def test_the_key_variable_is_not_settable_even_where_the_site_allows_it_by_name() -> None:
    engine = engine_for(plugin(), "trtllm", policy=EnvPolicy(allow={"OPENAI_API_KEY"}))
    profile = Profile(name="p", engine="trtllm", model_path="/m", env={"OPENAI_API_KEY": "mine"})
    assert engine.validate(profile) == [
        "profile 'p': env OPENAI_API_KEY: reserved by the engine: generated for the shard, or carries its secret"
    ]
    assert ("OPENAI_API_KEY", RESERVED[1]) in engine.env_policy.problems({"OPENAI_API_KEY": "mine"})


def test_trtllm_declares_no_secret_variable() -> None:
    # It passes no key at all (trtllm-serve has no authentication).
    assert engine_for(plugin(), "trtllm").policy.secret_env == frozenset()


def shards() -> list[ShardSpec]:
    def profile(**fields: object) -> Profile:
        return Profile(**{"name": "p", "engine": "trtllm", "model_path": "/models/llama", **fields})  # type: ignore[arg-type]

    lora = (Adapter(name="a", path="/adapters/a"),)
    return [
        ShardSpec(profile=profile(), http_port=8000, gpu_indices=(3,)),
        ShardSpec(profile=profile(tp=2), http_port=8000, gpu_indices=(0, 1), mgmt_interface="eth0",
                  hcas=("mlx5_0",), gid_index=3),
        ShardSpec(profile=profile(adapters=lora), http_port=8000, gpu_indices=(1001,), gpu_uuids=(MIG,)),
    ]  # fmt: skip


@pytest.mark.parametrize("metrics", [True, False], ids=["with-options", "plain"])
@pytest.mark.parametrize("shard", shards(), ids=["gpu", "tp2-fabric", "mig-lora"])
def test_placement_variables_are_in_every_command(shard: ShardSpec, metrics: bool) -> None:
    placed = placement_env(shard).env
    engine = plugin(prometheus_metrics=metrics)
    for command in (*engine.commands(shard), *engine_for(engine, "trtllm").commands(shard)):
        assert {key: command.env.get(key) for key in placed} == dict(placed)
        assert set(command.why) == set(command.env)
