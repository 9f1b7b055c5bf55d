"""Every shipped example, with every engine: a rewritten plan is caught, an honest one passes.

The receiver plans the shard it expects and compares; the attack rewrites the plan's shard
and rebuilds its commands with the real engine, so it agrees with itself everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from enginekit import EngineError, LaunchPlan, PlanMismatch, Registry, load_spec, registry_for

from tests.conftest import EXAMPLES

SHARDS = sorted(p for p in EXAMPLES.glob("*.toml") if p.name != "node-config.toml")

#: What an attacker would change, each a field of the shard a node agent asked for.
ATTACKS = {
    "api_key": "ekt.attacker-chosen-key-0123456789",
    "bind_addr": "0.0.0.0",
    "http_port": 18000,
    "shard_id": "someone-else",
}


@pytest.fixture(scope="module")
def registry() -> Registry:
    return registry_for(EXAMPLES / "node-config.toml")


@pytest.mark.parametrize("path", SHARDS, ids=[p.stem for p in SHARDS])
def test_the_honest_plan_passes_in_its_json_form(registry: Registry, path: Path) -> None:
    shard = load_spec(path).spec
    plan = registry.engine(shard.profile.engine).plan(shard)
    raw = json.loads(json.dumps(plan.to_dict(show_secrets=True)))
    assert registry.verify_plan(raw, shard) == plan


@pytest.mark.parametrize("field", sorted(ATTACKS))
@pytest.mark.parametrize("path", SHARDS, ids=[p.stem for p in SHARDS])
def test_a_rewritten_shard_with_rebuilt_commands_is_caught(
    registry: Registry, path: Path, field: str
) -> None:
    shard = load_spec(path).spec
    engine = registry.engine(shard.profile.engine)
    rewritten = attrs.evolve(shard, **{field: ATTACKS[field]})
    if field == "api_key" and shard.profile.engine == "trtllm":
        # trtllm-serve enforces no key: a node refuses to build a keyed shard for it at all.
        with pytest.raises(EngineError, match="no authentication"):
            engine.plan(rewritten)
        return
    bad: LaunchPlan = engine.plan(rewritten)
    assert engine.plan(bad.shard) == bad, "the plan agrees with itself: replanning it passes"
    with pytest.raises(PlanMismatch) as caught:
        registry.verify_plan(bad, shard)
    named = {problem.split(":")[0] for problem in caught.value.problems}
    assert f"plan.shard.{field}" in named
    text = str(caught.value)
    assert ATTACKS["api_key"] not in text
    if shard.api_key:
        assert shard.api_key not in text
