"""Final attacks: a verdict must not answer for GPUs or adapters changed since it was judged."""

from __future__ import annotations

from typing import Any

from enginekit import Command, GPUInfo, Profile, Registry, hookimpl
from enginekit.placement.builder import CommandBuilder
from enginekit.spec.model import ShardSpec


class _Plain:
    @hookimpl
    def validate(self, profile: Profile) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [CommandBuilder(shard).command("srv", ["serve"])]


def _engine() -> Any:
    registry = Registry()
    registry.add(_Plain(), name="plain")
    return registry.engine("plain")


def test_a_gpu_changed_in_place_is_judged_afresh() -> None:
    """A broken plugin (or a hostile caller) rewrites a frozen GPUInfo with
    ``object.__setattr__``; the same tuple, handed back, must not carry the verdict on
    the GPU it held before: index 70000 is out of range however it got there."""
    engine = _engine()
    profile = Profile(name="p", engine="plain", model_path="/m")
    gpu = GPUInfo(index=0, name="H100")
    gpus = (gpu,)
    assert engine.validate(profile, gpus) == []
    object.__setattr__(gpu, "index", 70000)
    fresh = engine.validate(profile, (GPUInfo(index=70000, name="H100"),))
    assert any("outside" in p for p in fresh)
    assert engine.validate(profile, gpus) == fresh


def test_a_gpu_given_a_bad_capability_in_place_is_judged_afresh() -> None:
    """Its capability rewritten in place: the cached key (the same GPU objects, their
    hash cached) matches the stored verdict, so the bad capability goes unreported."""
    engine = _engine()
    profile = Profile(name="p", engine="plain", model_path="/m")
    gpu = GPUInfo(index=0, name="H100", compute_capability="9.0")
    gpus = (gpu,)
    assert engine.validate(profile, gpus) == []
    object.__setattr__(gpu, "compute_capability", "nine")
    assert any("compute capability" in p for p in engine.validate(profile, gpus))


def test_an_adapter_changed_in_place_is_judged_afresh() -> None:
    # Adapters cache their hash too: the memo keys them by their fields, read at each call.
    from enginekit import Adapter

    class Plain:
        @hookimpl
        def validate(self, profile: Profile) -> list[str]:
            return []

        @hookimpl
        def commands(self, shard: ShardSpec) -> list[Command]:
            return [CommandBuilder(shard).command("srv", ["serve"])]

    registry = Registry()
    registry.add(Plain(), name="plain")
    engine = registry.engine("plain")
    adapter = Adapter(name="a", path="/loras/a")
    profile = Profile(name="p", engine="plain", model_path="/m", adapters=(adapter,))
    assert engine.validate(profile) == []
    object.__setattr__(adapter, "path", "-rf")
    assert any("starts with '-'" in problem for problem in engine.validate(profile))
