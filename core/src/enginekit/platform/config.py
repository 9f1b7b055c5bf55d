"""The node config: which engines this node offers, their settings, and the site's env policy."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from enginekit.base.errors import ConfigError, SpecError
from enginekit.platform.registry import Registry

# Imported where used: a node that adds nothing to the env rules lists its engines
# without loading them (the registry loads the built-in policy when a plan needs it).
if TYPE_CHECKING:
    from enginekit.policy.env import EnvPolicy

DEFAULT_CONFIG_PATH = Path("/etc/enginekit/config.toml")


@attrs.frozen(kw_only=True)
class EnvPolicyConfig:
    """``[env_policy]``: what the site adds to the built-in env rules.

    ``allow`` cannot open the floor groups (the loader, shells and interpreters, Python,
    CUDA injection, NCCL plugins, MPI, code loading, the model hub, credentials, proxies
    and TLS, Ray, the engines' code-loading variables, ``LLAMA_ARG_*``). Only
    ``[env_policy.allow_unsafe]`` can, one name at a time with the site's reason, which
    every plan that uses it repeats::

        [env_policy.allow_unsafe]
        LD_PRELOAD = "site profiler, ticket OPS-123"
    """

    deny: tuple[str, ...] = ()
    deny_prefixes: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    allow_prefixes: tuple[str, ...] = ()
    path_keys: tuple[str, ...] = ()
    #: Floor-group names the site accepts anyway, each with its reason.
    allow_unsafe: Mapping[str, str] = attrs.field(factory=dict)

    def policy(self) -> EnvPolicy:
        """The policy these settings make.

        :raises ConfigError: when an ``allow_unsafe`` name is not a variable name, is given
            twice, or its reason is blank or not plain text.
        """
        from enginekit.policy.env import EnvPolicy

        problems = EnvPolicy.allow_unsafe_problems(self.allow_unsafe)
        if problems:
            raise ConfigError([f"env_policy.allow_unsafe.{key}: {why}" for key, why in problems])
        return EnvPolicy(
            deny=frozenset(self.deny),
            deny_prefixes=self.deny_prefixes,
            allow=frozenset(self.allow),
            allow_prefixes=self.allow_prefixes,
            path_keys=frozenset(self.path_keys),
            allow_unsafe=self.allow_unsafe,
        )


def _a_budget(_instance: object, _attribute: object, value: float) -> None:
    if not (isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 3600):
        raise ValueError(f"import_budget: expected seconds above 0 and at most 3600, got {value!r}")


@attrs.frozen(kw_only=True)
class NodeConfig:
    """The whole node config file (TOML)::

    disabled = ["trtllm"]          # never imported or offered here
    lenient = false                # unknown spec keys reported, not fatal
    import_budget = 1.0            # seconds; an engine importing slower is listed as slow
    [env_policy]
    deny = ["NCCL_ALGO"]
    [installed]
    vllm = "/opt/enginekit/vllm-0.34.0"
    [engines.vllm]                 # each engine's own section
    version = "0.34.0"
    [run]                          # enginekit run's timeouts, in seconds
    startup_timeout = 3600
    """

    disabled: tuple[str, ...] = ()
    #: An allowlist; empty means every installed engine.
    enabled: tuple[str, ...] = ()
    lenient: bool = False
    #: Seconds an engine's import may take before ``enginekit engines`` lists it as slow:
    #: every command using it pays that, and a plugin should import in milliseconds.
    import_budget: float = attrs.field(default=1.0, validator=_a_budget)
    env_policy: EnvPolicyConfig = EnvPolicyConfig()
    #: Builds the agent installed, by engine name: each checked when its engine loads,
    #: so a mistake in one never stops another.
    installed: Mapping[str, Any] = attrs.field(factory=dict)
    #: Raw sections, structured by each engine into its own config type when it loads.
    engines: Mapping[str, Any] = attrs.field(factory=dict)
    #: ``[export.lws]`` and ``[export.slurm]``: the site's scheduler facts for ``enginekit
    #: export``, raw; structured (strictly) only by ``export``, so no other command minds them.
    export: Mapping[str, Any] = attrs.field(factory=dict)
    #: ``[run]``: ``enginekit run``'s timeouts and graces on this node, raw; structured
    #: (strictly) only by ``run``, whose options on the command line win over them.
    run: Mapping[str, Any] = attrs.field(factory=dict)


#: ``[env_policy]`` as a node config without one has it.
_NO_ADDITIONS = EnvPolicyConfig()


def load_config(path: str | os.PathLike[str] | None, *, required: bool = True) -> NodeConfig:
    """Read the node config at ``path``; a missing file is the empty config unless ``required``.

    :raises ConfigError: when the file cannot be read or does not structure.
    """
    path = None if path is None else Path(path)
    if path is None or (not required and not path.exists()):
        return NodeConfig()
    # Only a config file read needs them: a node without one lists its engines without.
    from enginekit.spec.convert import load_document, structure
    from enginekit.spec.documents import holds_profile

    try:
        raw = load_document(path)
        if holds_profile(raw):
            raise SpecError([f"{path}: a shard spec (it has a profile), not a node config; pass it as SPEC"])
        config, _ = structure(raw, NodeConfig, path="config")
    except SpecError as exc:
        raise ConfigError(exc.problems) from None
    return config


def _node_config(config: NodeConfig | str | os.PathLike[str] | Mapping[str, Any] | None) -> NodeConfig:
    if config is None:
        return NodeConfig()
    if isinstance(config, NodeConfig):
        return config
    if isinstance(config, str | os.PathLike):
        return load_config(Path(config), required=True)
    if isinstance(config, Mapping):
        from enginekit.spec.convert import structure

        try:
            return structure(config, NodeConfig, path="config")[0]
        except SpecError as exc:
            raise ConfigError(exc.problems) from None
    raise ConfigError([f"config: expected a NodeConfig, a path or a mapping, got {type(config).__name__}"])


def names_from(value: str | None) -> set[str] | None:
    """Parse an ``ENGINEKIT_ENGINES``-style list (commas and/or whitespace); None when unset or blank.

    A blank value means "not set", as an empty ``enabled = []`` does: it never means
    "enable nothing", which would silently disable every engine on the node.
    """
    if value is None:
        return None
    names = {name for name in value.replace(",", " ").split() if name}
    return names or None


def registry_for(
    config: NodeConfig | str | os.PathLike[str] | Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Registry:
    """The node's registry, built exactly as the ``enginekit`` command builds it.

    :param config: the node config: a :class:`NodeConfig`, the path of its TOML or JSON
        file, or its parsed document; ``None`` is the empty config (every installed
        engine, the built-in env policy).
    :param environ: the variables that narrow the engines, as the command reads them from
        its own environment: ``ENGINEKIT_ENGINES`` is an allowlist (narrowing ``enabled``)
        and ``ENGINEKIT_DISABLE_ENGINES`` adds to ``disabled``. Nothing is read from
        ``os.environ``: pass it to behave as the command does. Every engine left out
        says what left it out.
    :raises ConfigError: when the config does not load, naming each problem.
    """
    config = _node_config(config)
    environ = environ or {}
    for name in ("ENGINEKIT_ENGINES", "ENGINEKIT_DISABLE_ENGINES"):
        value = environ.get(name)
        if value is not None and not isinstance(value, str):
            raise ConfigError([f"{name}: expected a string of engine names, got {type(value).__name__}"])
    enable = set(config.enabled) or None
    said = ["the node config's enabled list"] if enable is not None else []
    from_env = names_from(environ.get("ENGINEKIT_ENGINES"))
    if from_env is not None:
        enable = from_env if enable is None else enable & from_env
        said.append("ENGINEKIT_ENGINES")
    disable = dict.fromkeys(config.disabled, "the node config's disabled list names it")
    for name in names_from(environ.get("ENGINEKIT_DISABLE_ENGINES")) or ():
        disable.setdefault(name, "ENGINEKIT_DISABLE_ENGINES names it")
    # A site that adds nothing gets the built-in policy (equal to the one its empty
    # settings make), which the registry loads when a plan first reads it: listing the
    # engines never does.
    policy = None if config.env_policy == _NO_ADDITIONS else config.env_policy.policy()
    registry = Registry.from_entry_points(
        config=config.engines,
        enable=enable,
        disable=disable,
        policy=policy,
        lenient=config.lenient,
        installed=config.installed,
        not_enabled_because="not in " + " or ".join(said),
    )
    if policy is None:  # nothing allowed, so nothing to warn about
        return registry
    # Said when the config is read, not first when a plan using the key is refused.
    for field, keys in (
        ("allow", sorted(policy.allow)),
        ("allow_unsafe", [k for k, _ in policy.allow_unsafe]),
    ):
        for key in keys:
            bad, why = policy.unsafe_env(key)
            if bad:
                registry.warnings.append(f"env_policy.{field}: {key} stays refused: {why}")
    return registry
