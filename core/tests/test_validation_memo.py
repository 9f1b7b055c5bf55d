"""A profile is judged once per value: the memo never answers for another value, policy or wrapper."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest
from enginekit import Command, GPUInfo, Profile, Registry, hookimpl
from enginekit.placement.builder import CommandBuilder
from enginekit.policy.env import EnvPolicy
from enginekit.spec.model import ShardSpec


class Counting:
    """An engine that counts how often its own checks run."""

    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def validate(self, profile: Profile) -> list[str]:
        self.calls += 1
        return [f"profile {profile.name!r}: tp {profile.tp!r}"] if type(profile.tp) is not int else []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [CommandBuilder(shard).command("srv", ["serve"])]


def _engine(plugin: Counting, policy: EnvPolicy | None = None) -> Any:
    registry = Registry() if policy is None else Registry(policy=policy)
    registry.add(plugin, name="count")
    return registry, registry.engine("count")


def _profile(**fields: Any) -> Profile:
    return Profile(**{"name": "p", "engine": "count", "model_path": "/m", **fields})


def test_the_shards_of_a_fleet_share_one_judgement_of_their_profile() -> None:
    plugin = Counting()
    _, engine = _engine(plugin)
    for _ in range(5):
        assert engine.validate(_profile()) == []
        assert engine.validate(_profile(), (GPUInfo(index=0, name="H100"),)) == []
    assert plugin.calls == 2  # one per distinct (profile, GPUs) value


def test_a_changed_value_is_judged_again() -> None:
    plugin = Counting()
    _, engine = _engine(plugin)
    profile = _profile(env={"NCCL_DEBUG": "INFO"})
    assert engine.validate(profile) == []
    with pytest.raises(TypeError, match="read-only"):
        profile.env["LD_PRELOAD"] = "/tmp/x.so"  # type: ignore[index]
    # Forced in around the read-only table, the change is still seen: judged by value.
    dict.__setitem__(profile.env, "LD_PRELOAD", "/tmp/x.so")
    problems = engine.validate(profile)
    assert any("env LD_PRELOAD" in problem for problem in problems), problems
    assert plugin.calls == 2


def test_equal_values_of_other_types_are_not_the_same_profile() -> None:
    plugin = Counting()
    _, engine = _engine(plugin)
    assert engine.validate(_profile(tp=1)) == []
    assert engine.validate(_profile(tp=True)) == ["profile 'p': tp True"]


def test_a_new_site_policy_judges_again() -> None:
    plugin = Counting()
    registry, engine = _engine(plugin)
    profile = _profile(env={"NCCL_DEBUG": "INFO"})
    assert engine.validate(profile) == []
    registry.policy = EnvPolicy(deny=["NCCL_DEBUG"])
    assert any("env NCCL_DEBUG" in problem for problem in engine.validate(profile))


class Audit:
    """A wrapper that sees every validation: none may be answered from memory."""

    def __init__(self) -> None:
        self.seen = 0

    @hookimpl(wrapper=True)
    def validate(self) -> Generator[None, list[str], list[str]]:
        self.seen += 1
        answer = yield
        return answer


def test_a_wrapper_sees_every_validation() -> None:
    plugin, audit = Counting(), Audit()
    registry, engine = _engine(plugin)
    engine.validate(_profile())
    registry.add_wrapper(audit, name="audit")
    for _ in range(3):
        registry.engine("count").validate(_profile())
        engine.validate(_profile())
    assert audit.seen == 6
