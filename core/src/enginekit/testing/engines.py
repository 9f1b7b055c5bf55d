"""One plugin in a fresh registry (``engine_for``), its contract (``check_engine``), its site policies."""

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


def sites_opening(*names: str, unsafe: bool = True) -> list[tuple[str, EnvPolicy]]:
    """Every way a site can try to open ``names`` to profiles, each with how it does.

    The default policy, ``allow`` by name, ``allow_prefixes`` of each name's namespace (up
    to its first ``_``) and, with ``unsafe``, ``allow_unsafe`` with a reason and the names
    marked as paths. A reserved or secret variable stays refused under every one; a floor
    name under all but the last.
    """
    namespaces = tuple(dict.fromkeys(name.split("_", 1)[0] + "_" for name in names))
    sites = [
        ("the default policy", DEFAULT_POLICY),
        ("a site allowing it by name", EnvPolicy(allow=names)),
        ("a site opening its namespace", EnvPolicy(allow_prefixes=namespaces)),
    ]
    if unsafe:
        opened = EnvPolicy(allow_unsafe=dict.fromkeys(names, "site ticket 7"), path_keys=names)
        sites.append(("a site allowing it as unsafe", opened))
    return sites
