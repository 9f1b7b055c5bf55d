"""``engine_for`` and ``check_engine``: one plugin in a fresh registry, and the one-shard contract check."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from enginekit.convert import structure
from enginekit.engine import Engine
from enginekit.envpolicy import DEFAULT_POLICY, EnvPolicy
from enginekit.model import Command, GPUInfo, ShardSpec
from enginekit.registry import Registry


def instantiate(plugin: object, name: str) -> object:
    """The plugin object for ``plugin``: an instance or module as it is, a class with its default config.

    A class with a ``config_type`` gets that type structured from an empty section, as
    the registry does for a node config that does not configure the engine; any other
    class is called without arguments.
    """
    if not isinstance(plugin, type):
        return plugin
    config_type = getattr(plugin, "config_type", None)
    if config_type is None:
        return plugin()
    config, _ = structure({}, config_type, path=f"engines.{name}")
    return plugin(config)


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
