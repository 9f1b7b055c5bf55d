"""The sim's declared policy: the variables its commands generate stay its own, the key above all."""

from __future__ import annotations

from typing import Any

import pytest
from enginekit.base.errors import SpecError
from enginekit.placement.env import placement_env
from enginekit.policy.env import EnvPolicy
from enginekit.spec.model import Profile, ShardSpec
from enginekit.testing import engine_for
from enginekit_sim.plugin import SimEngine
from enginekit_sim.plugin.config import SimConfig

KEY = "ENGINEKIT_API_KEY"
FALLBACK = "ENGINEKIT_SIM_CPU_FALLBACK"
#: Every way a site could try to open a name to profiles.
SITES = {
    "allow": EnvPolicy(allow={KEY, FALLBACK}),
    "allow_prefixes": EnvPolicy(allow_prefixes=("ENGINEKIT_",)),
    "allow_unsafe": EnvPolicy(allow_unsafe={KEY: "the operator asked", FALLBACK: "the operator asked"}),
    "all": EnvPolicy(
        allow={KEY, FALLBACK},
        allow_prefixes=("ENGINEKIT_", "ENGINEKIT_SIM_"),
        allow_unsafe={KEY: "the operator asked", FALLBACK: "the operator asked"},
        path_keys={KEY},
    ),
}


def profile(**fields: Any) -> Profile:
    return Profile(**{"name": "p", "engine": "sim", "model_path": "/models/tiny", **fields})


def test_the_policy_declares_what_the_commands_generate_and_is_built_once() -> None:
    plugin = SimEngine(SimConfig(allow_args=("--trust-remote-code",)))
    assert plugin.policy() is plugin.policy()
    policy = engine_for(plugin, "sim").policy
    assert policy.secret_env == frozenset({KEY})
    assert policy.reserved_env == frozenset({FALLBACK})
    # The simulator reads no tuning variable of its own: it opens no namespace.
    assert policy.open_env == ()
    assert policy.allowed_args == frozenset({"--trust-remote-code"})
    assert policy.display_name == "the simulated engine"
    assert set(policy.managed_args) >= {"--host", "--port", "--tensor-parallel-size", "--threads"}
    assert set(policy.secret_args) == {"--api-key"}
    assert set(policy.risky_args) == {"--trust-remote-code"}


@pytest.mark.parametrize("site", SITES.values(), ids=SITES)
@pytest.mark.parametrize("name", [KEY, KEY.lower(), FALLBACK, "Enginekit_Sim_Cpu_Fallback"])
def test_no_profile_sets_the_key_or_a_generated_variable_whatever_the_site_allows(
    site: EnvPolicy, name: str
) -> None:
    engine = engine_for(SimEngine(), "sim", policy=site)
    bad, why = engine.env_policy.unsafe_env(name)
    assert bad, name
    assert "reserved" in why
    found = engine.validate(profile(env={name: "1"}))
    assert any(f"env {name}" in problem for problem in found), found
    # Nothing starts either: the plan refuses what validation refuses.
    spec = ShardSpec(profile=profile(env={name: "1"}), http_port=8000, gpu_indices=(0,), api_key="k" * 32)
    with pytest.raises(SpecError, match=name):
        engine.plan(spec)


def test_the_key_in_the_command_is_the_shards() -> None:
    spec = ShardSpec(profile=profile(), http_port=8000, gpu_indices=(0,), api_key="k" * 32)
    (command,) = engine_for(SimEngine(), "sim", policy=SITES["all"]).plan(spec).commands
    assert command.env[KEY] == "k" * 32
    assert command.secret_env == frozenset({KEY})


def _two_node(rank: int, **fields: Any) -> ShardSpec:
    values: dict[str, Any] = {
        "profile": profile(tp=4, gpus_per_node=2, nodes=2, args=("--fault", "cpu-fallback@1")),
        "rank": rank,
        "nnodes": 2,
        "leader_addr": "10.0.0.1",
        "leader_port": 29500,
        "http_port": 8000,
        "gpu_indices": (0, 1),
        "mgmt_interface": "eth0",
        "hcas": ("mlx5_0", "mlx5_1"),
        "gid_index": 3,
        "api_key": "k" * 32,
    }
    values.update(fields)
    return ShardSpec(**values)


#: One shard of every kind the sim starts: GPUs, none, a MIG instance, each rank of two nodes.
SHAPES: dict[str, ShardSpec] = {
    "single": ShardSpec(profile=profile(tp=2), http_port=8000, gpu_indices=(2, 3)),
    "cpu": ShardSpec(profile=profile(), http_port=8000, gpu_indices=(), threads=8),
    "mig": ShardSpec(
        profile=profile(),
        http_port=8000,
        gpu_indices=(1000,),
        gpu_uuids=("MIG-5f1e3c2a-0b1d-4e6f-8a9b-0c1d2e3f4a5b",),
    ),
    "mig-lower-case": ShardSpec(
        profile=profile(),
        http_port=8000,
        gpu_indices=(1000,),
        gpu_uuids=("mig-5f1e3c2a-0b1d-4e6f-8a9b-0c1d2e3f4a5b",),
    ),
    "leader": _two_node(0),
    "worker": _two_node(1, gpu_indices=(4, 5)),
}


@pytest.mark.parametrize("spec", SHAPES.values(), ids=SHAPES)
def test_every_command_carries_the_placement_variables_unchanged(spec: ShardSpec) -> None:
    placed = dict(placement_env(spec).env)
    assert "CUDA_VISIBLE_DEVICES" in placed
    plugin = SimEngine()
    # What the hook returns, and what the registry hands out after the profile's env.
    for commands in (plugin.commands(spec), engine_for(plugin, "sim").commands(spec)):
        assert commands
        for command in commands:
            assert {key: command.env.get(key) for key in placed} == placed, command.name
            assert set(placed) <= set(command.why)
