"""An engine's plan says where a consumer subscribes to the shard's KV-cache events, from its layout rules."""

from __future__ import annotations

import attrs
import pytest
from enginekit import Command, Profile, ShardSpec, hookimpl
from enginekit.layout.model import KVEventSource, LayoutRules
from enginekit.placement.builder import CommandBuilder
from enginekit.testing import engine_for

REPLAYING = LayoutRules(kv_events_per_rank=True, kv_events_replay=True)


class Publishing:
    """A plugin whose publishers bind a replay endpoint too (``rules``), as vLLM's do."""

    rules = REPLAYING

    @hookimpl
    def layout_rules(self) -> LayoutRules:
        return self.rules

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [CommandBuilder(shard).command("serve", ["--port", str(shard.http_port)])]


def shard(**fields: object) -> ShardSpec:
    profile = Profile(name="p", engine="pub", model_path="/m", kv_events=True)
    defaults: dict[str, object] = {"http_port": 8000, "bind_addr": "10.0.0.7", "kv_events_port": 5557}
    return ShardSpec(profile=profile, **{**defaults, **fields})  # type: ignore[arg-type]


def test_the_plan_of_a_binding_publisher_names_its_source_and_replay() -> None:
    engine = engine_for(Publishing(), "pub")
    source = KVEventSource(rank=0, endpoint="tcp://10.0.0.7:5557", replay="tcp://10.0.0.7:5558")
    assert engine.plan(shard()).kv_events == (source,)
    assert engine.kv_event_sources(shard()) == (source,)


@pytest.mark.parametrize(
    "fields",
    [{"kv_events_mode": "connect"}, {"kv_events_port": 0}],
)
def test_no_source_where_the_publisher_connects_or_has_no_port(fields: dict[str, object]) -> None:
    assert engine_for(Publishing(), "pub").plan(shard(**fields)).kv_events == ()


def test_no_source_where_the_profile_publishes_nothing() -> None:
    quiet = attrs.evolve(shard(), profile=attrs.evolve(shard().profile, kv_events=False))
    assert engine_for(Publishing(), "pub").plan(quiet).kv_events == ()
