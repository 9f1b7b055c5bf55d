"""One plugin in a fresh registry (``engine_for``), its contract (``check_engine``), its site policies."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from enginekit.platform.engine import Engine
from enginekit.platform.registry import Registry
from enginekit.policy.env import DEFAULT_POLICY, EnvPolicy
from enginekit.spec.convert import structure
from enginekit.spec.model import Command, GPUInfo, ShardSpec


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
    if shard.profile.data_parallel > 1:
        # Under data parallel the layout names the API servers: the leader alone (internal
        # balancing), every node's (hybrid) or every rank's (external).
        from enginekit.layout.model import API_SERVER

        serves = engine.layout(shard).role == API_SERVER
        assert engine.serves_http(shard) is serves, "the layout's API servers serve HTTP, and only they"
    elif shard.is_multi_node() and not shard.is_leader():
        assert engine.serves_http(shard) is False, "only the leader serves HTTP"
    return commands


#: The reason the kit's ``allow_unsafe`` entries give: what a site writes to open a floor name.
UNSAFE_REASON = "site ticket 7"


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
        opened = EnvPolicy(allow_unsafe=dict.fromkeys(names, UNSAFE_REASON), path_keys=names)
        sites.append(("a site allowing it as unsafe", opened))
    return sites


def env_verdict(plugin: object, engine: str, name: str, site: EnvPolicy = DEFAULT_POLICY) -> tuple[bool, str]:
    """How a profile of ``plugin`` (as engine ``engine``) may set ``name`` under ``site``.

    ``(True, why)`` when it is refused, ``(False, "")`` when it is accepted: the site's
    policy with the engine's own rules added, as ``validate`` judges a profile's ``env``.
    """
    return engine_for(plugin, engine, policy=site).env_policy.unsafe_env(name)


def assert_env_denied(
    plugin: object, engine: str, name: str, reason_part: str, *, floor: bool = True, why: str = ""
) -> None:
    """Assert that ``name`` is on ``plugin``'s deny list for its reason, whatever a site allows.

    In both spellings (as given and lower case) and under every site of
    ``sites_opening(name, unsafe=False)``, the name is refused with a reason that starts
    ``"denied: "`` and contains ``reason_part`` (a part of the group's ``why``). For a
    floor group (``floor=True``), a site's ``allow`` list cannot open it either, and its
    refusal says to use ``allow_unsafe``; an ``allow_unsafe`` entry with a reason opens
    it, and the engine reports that reason. A group that is not a floor is opened by
    ``allow``. ``why`` (what a profile could do with the name) ends every failure message,
    which also names the spelling, the site and what the engine said instead.
    """
    upper = name.upper()
    because = f" ({why})" if why else ""
    for site_name, site in sites_opening(name, unsafe=False):
        policy = engine_for(plugin, engine, policy=site).env_policy
        opens = not floor and upper in site.allow
        for spelling in dict.fromkeys((name, name.lower())):
            bad, said = policy.unsafe_env(spelling)
            if opens:
                assert (bad, said) == (False, ""), (
                    f"{spelling} is not opened by {site_name}, though its group is not a floor: "
                    f"{engine} says {said!r}{because}"
                )
                continue
            refused = bad and said.startswith("denied: ") and reason_part in said
            assert refused, (
                f"{spelling} under {site_name}: expected a refusal 'denied: …{reason_part}…', but "
                f"{engine} judges it {said or 'acceptable'!r}{because}"
            )
            if floor and upper in site.allow:
                assert "allow_unsafe" in said, (
                    f"{spelling} under {site_name}: the refusal does not say a floor name needs "
                    f"allow_unsafe: {said!r}{because}"
                )
    if floor:
        policy = engine_for(plugin, engine, policy=EnvPolicy(allow_unsafe={name: UNSAFE_REASON})).env_policy
        for spelling in dict.fromkeys((name, name.lower())):
            verdict = policy.unsafe_env(spelling)
            assert verdict == (False, ""), (
                f"{spelling} is not opened by a site allowing it as unsafe ({UNSAFE_REASON!r}): "
                f"{engine} says {verdict[1]!r}{because}"
            )
        allowances = policy.unsafe_allowances({name: "1"})
        assert allowances == [(name, UNSAFE_REASON)], (
            f"{name}, opened by allow_unsafe, is not reported with the site's reason: {allowances}{because}"
        )
