"""llama-server's own env rules, each with the reason it is there, checked through the engine.

These rows lived in the core's env tables until each engine declared its own (``policy``):
ggml's open namespace, the backend library and the ``LLAMA_ARG_`` twins it denies, and the
variables it reserves. A row that fails says what a profile could now do.
"""

from __future__ import annotations

import pytest
from enginekit.plugin import Profile, ShardSpec, placement_env
from enginekit.policy.env import DEFAULT_POLICY, EnvPolicy
from enginekit.testing import assert_env_denied, engine_for, env_verdict, sites_opening
from enginekit_llamacpp import LlamaCppConfig, LlamaCppEngine

RESERVED = (True, "reserved by the engine: generated for the shard, or carries its secret")
SUFFIX = (True, "denied: its name says it points at a file, directory, module or program")
GGML = "ggml would load the out-of-tree backend library named by it"
TWIN = "llama-server reads every flag from its LLAMA_ARG_ twin, bypassing the argument checks"
MIG = "MIG-4f7a8c2e-1b3d-4e5f-8a9b-0c1d2e3f4a5b"


def verdict(key: str, site: EnvPolicy = DEFAULT_POLICY) -> tuple[bool, str]:
    return env_verdict(LlamaCppEngine(), "llamacpp", key, site)


# --- ggml's namespace is open: the escape hatch for per-cluster tuning ------------------------


@pytest.mark.parametrize("key", ["GGML_CUDA_NO_PINNED", "GGML_CUDA_FORCE_MMQ", "GGML_SCHED_MAX_COPIES"])
def test_a_ggml_tuning_variable_passes(key: str) -> None:
    assert verdict(key) == (False, ""), f"{key} is tuning and was refused"
    profile = Profile(name="p", engine="llamacpp", model_path="/m.gguf", env={key: "1"})
    assert engine_for(LlamaCppEngine(), "llamacpp").validate(profile) == []


def test_the_namespace_is_llama_cpps_alone() -> None:
    # Another engine's profiles do not get ggml's namespace: the core opens none of it.
    assert DEFAULT_POLICY.unsafe_env("GGML_CUDA_NO_PINNED")[0] is True


@pytest.mark.parametrize("suffix", ["_PATH", "_DIR", "_FILE", "_PLUGIN", "_MODULE", "_EXECUTABLE"])
def test_an_unknown_ggml_name_that_points_at_code_or_files_is_refused(suffix: str) -> None:
    # A release adds GGML_FOO_PLUGIN before anyone reviews it: refused until someone looks.
    key = f"GGML_NEW_THING{suffix}"
    assert verdict(key) == SUFFIX
    assert verdict(key.lower()) == SUFFIX


# --- denied, for the reason each one is ---------------------------------------------------------

DENIED = [
    ("GGML_BACKEND_PATH", GGML, "ggml dlopens the backend library it names"),
    ("LLAMA_ARG_RPC", TWIN, "--rpc sends the model's layers to remote hosts, bypassing the argument checks"),
    ("LLAMA_ARG_MODEL", TWIN, "--model swaps the model, bypassing the argument checks"),
    ("LLAMA_ARG_STATIC_PATH", TWIN, "--path serves a directory of the node over HTTP"),
    ("LLAMA_ARG_API_KEY_FILE", TWIN, "--api-key-file reads keys from a host file"),
    ("LLAMA_ARG_X", TWIN, "every twin, known or not, sets a flag the checks never see"),
]  # fmt: skip


@pytest.mark.parametrize(("key", "group", "reason"), DENIED, ids=[row[0] for row in DENIED])
def test_every_denied_name_is_refused_for_its_reason_whatever_allow_says(
    key: str, group: str, reason: str
) -> None:
    # A floor: only an allow_unsafe entry with a reason opens it, and every plan says so.
    assert_env_denied(LlamaCppEngine(), "llamacpp", key, f"denied: {group}", why=reason)


def test_llama_arg_x_is_refused_in_a_profile() -> None:
    profile = Profile(name="p", engine="llamacpp", model_path="/m.gguf", env={"LLAMA_ARG_X": "1"})
    assert engine_for(LlamaCppEngine(), "llamacpp").validate(profile) == [
        f"profile 'p': env LLAMA_ARG_X: denied: {TWIN}"
    ]


def test_every_denied_group_is_still_declared() -> None:
    policy = engine_for(LlamaCppEngine(), "llamacpp").policy
    groups = {group.why: group for group in policy.denied_env}
    assert "GGML_BACKEND_PATH" in groups[GGML].names
    assert "LLAMA_ARG_" in groups[TWIN].prefixes
    assert all(group.floor for group in policy.denied_env)
    assert policy.open_env == ("GGML_",)


# --- reserved: generated for the shard, or its key ----------------------------------------------

RESERVED_ROWS = [
    ("GGML_VK_VISIBLE_DEVICES", "llama.cpp's Vulkan device list: any other value reaches another shard's card"),
    ("LLAMA_API_KEY", "the API key comes from the shard spec's api_key only: a profile would replace or publish it"),
]  # fmt: skip


@pytest.mark.parametrize(("key", "reason"), RESERVED_ROWS, ids=[row[0] for row in RESERVED_ROWS])
def test_every_reserved_name_is_refused_whatever_the_site_allows(key: str, reason: str) -> None:
    for spelling in (key, key.lower()):
        for how, site in sites_opening(key):
            assert verdict(spelling, site) == RESERVED, f"{spelling} is settable under {how}: {reason}"


def test_the_key_variable_is_not_settable_even_where_the_site_allows_it_by_name() -> None:
    engine = engine_for(LlamaCppEngine(), "llamacpp", policy=EnvPolicy(allow={"LLAMA_API_KEY"}))
    profile = Profile(name="p", engine="llamacpp", model_path="/m.gguf", env={"LLAMA_API_KEY": "mine"})
    assert engine.validate(profile) == [
        "profile 'p': env LLAMA_API_KEY: reserved by the engine: generated for the shard, or carries its secret"
    ]
    # The second line of defence: at launch, a profile's value is dropped, never set.
    assert ("LLAMA_API_KEY", RESERVED[1]) in engine.env_policy.problems({"LLAMA_API_KEY": "mine"})


def test_the_key_variable_is_declared_secret() -> None:
    policy = engine_for(LlamaCppEngine(), "llamacpp").policy
    assert policy.secret_env == frozenset({"LLAMA_API_KEY"})
    assert policy.reserved_env == frozenset({"GGML_VK_VISIBLE_DEVICES"})


# --- placement reaches every command ------------------------------------------------------------


def shards() -> list[ShardSpec]:
    profile = Profile(name="p", engine="llamacpp", model_path="/m.gguf")
    return [
        ShardSpec(profile=profile, http_port=8080, gpu_indices=(3,)),
        ShardSpec(profile=Profile(name="p", engine="llamacpp", model_path="/m.gguf", tp=2), http_port=8080,
                  gpu_indices=(0, 1), mgmt_interface="eth0", hcas=("mlx5_0",), gid_index=3),
        ShardSpec(profile=profile, http_port=8080, gpu_indices=(1001,), gpu_uuids=(MIG,), api_key="k" * 20),
        ShardSpec(profile=profile, http_port=8080, threads=4),
    ]  # fmt: skip


@pytest.mark.parametrize("shard", shards(), ids=["gpu", "tp2-fabric", "mig", "cpu"])
def test_placement_variables_are_in_every_command_the_device_listing_included(shard: ShardSpec) -> None:
    placed = placement_env(shard).env
    plugin = LlamaCppEngine(LlamaCppConfig())
    # The hooks themselves, before the registry adds anything: built on the placement env.
    for command in (*plugin.commands(shard, None), plugin.device_listing(shard, None)):
        assert {key: command.env.get(key) for key in placed} == dict(placed), command.name
        assert set(command.why) == set(command.env)
    engine = engine_for(plugin, "llamacpp")
    listing = engine.device_listing(shard)
    assert listing is not None
    for command in (*engine.commands(shard), listing):
        assert {key: command.env.get(key) for key in placed} == dict(placed), command.name
