"""Helpers for testing engine plugins: import them from a plugin's tests (opt-in, no pytest plugin)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from enginekit.engine import Engine
from enginekit.envpolicy import DEFAULT_POLICY, EnvPolicy
from enginekit.model import Command, GPUInfo, ShardSpec
from enginekit.registry import Registry


def engine_for(
    plugin: object, name: str, *, installed: Path | None = None, policy: EnvPolicy = DEFAULT_POLICY
) -> Engine:
    """Register ``plugin`` alone in a fresh registry and return it as engine ``name``."""
    registry = Registry(policy=policy)
    registry.add(plugin, name=name)
    if installed is not None and not registry.use_installed(name, installed):
        raise AssertionError(f"engine {name!r} takes no installed build")
    return registry.engine(name)


def check_engine(plugin: object, shard: ShardSpec, gpus: Sequence[GPUInfo] = ()) -> list[Command]:
    """Assert the contracts every engine keeps for a valid ``shard``, and return its commands."""
    engine = engine_for(plugin, shard.profile.engine)
    problems = engine.problems(shard, gpus)
    assert problems == [], problems
    plan = engine.plan(shard, gpus)  # the one build path: every check, then the hooks
    commands = list(plan.commands)
    assert commands == engine.commands(shard, gpus), "building is deterministic"
    for command in commands:
        assert command.path, "every command has a path"
        assert all(isinstance(v, str) for v in command.env.values())
        assert set(command.secret_env) <= set(command.env), "secret_env names variables in env"
        if shard.api_key:
            assert all(shard.api_key not in arg for arg in command.argv()), "API key in argv"
    # A leader's main process may wait only for a sidecar of its own that listens on the
    # leader port (a Ray head); with nothing before it, it would wait for itself forever.
    assert not (shard.is_leader() and commands[-1].wait_for_leader_port and len(commands) == 1)
    for path in (engine.health_path(), engine.metrics_path()):
        assert path.startswith("/"), path
    assert engine.serves_http(shard) in (True, False)
    if shard.is_multi_node() and not shard.is_leader():
        assert engine.serves_http(shard) is False, "only the leader serves HTTP"
    return commands
