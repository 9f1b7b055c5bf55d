"""The node config: which engines this node offers, their settings, and the site's env policy."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from enginekit.convert import load_document, structure
from enginekit.envpolicy import EnvPolicy
from enginekit.errors import ConfigError, SpecError
from enginekit.registry import Registry

DEFAULT_CONFIG_PATH = Path("/etc/enginekit/config.toml")


@attrs.frozen(kw_only=True)
class EnvPolicyConfig:
    """``[env_policy]``: what the site adds to the built-in env rules."""

    deny: tuple[str, ...] = ()
    deny_prefixes: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    allow_prefixes: tuple[str, ...] = ()
    path_keys: tuple[str, ...] = ()

    def policy(self) -> EnvPolicy:
        """The policy these settings make."""
        return EnvPolicy(
            deny=frozenset(self.deny),
            deny_prefixes=self.deny_prefixes,
            allow=frozenset(self.allow),
            allow_prefixes=self.allow_prefixes,
            path_keys=frozenset(self.path_keys),
        )


@attrs.frozen(kw_only=True)
class NodeConfig:
    """The whole node config file (TOML)::

    disabled = ["trtllm"]          # never imported or offered here
    lenient = false                # unknown spec keys reported, not fatal
    [env_policy]
    deny = ["NCCL_ALGO"]
    [installed]
    vllm = "/opt/enginekit/vllm-0.34.0"
    [engines.vllm]                 # each engine's own section
    version = "0.34.0"
    """

    disabled: tuple[str, ...] = ()
    #: An allowlist; empty means every installed engine.
    enabled: tuple[str, ...] = ()
    lenient: bool = False
    env_policy: EnvPolicyConfig = EnvPolicyConfig()
    #: Builds the agent installed, by engine name.
    installed: Mapping[str, str] = attrs.field(factory=dict)
    #: Raw sections, structured by each engine into its own config type when it loads.
    engines: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)


def load_config(path: Path | None, *, required: bool) -> NodeConfig:
    """Read the node config at ``path``; a missing optional file is the empty config.

    :raises ConfigError: when the file cannot be read or does not structure.
    """
    if path is None or (not required and not path.exists()):
        return NodeConfig()
    try:
        raw = load_document(path)
        config, _ = structure(raw, NodeConfig, path="config")
    except SpecError as exc:
        raise ConfigError(exc.problems) from None
    for name, section in config.engines.items():
        if not isinstance(section, Mapping):
            raise ConfigError([f"config.engines.{name}: expected a table"])
    return config


def names_from(value: str | None) -> set[str] | None:
    """Parse ``ENGINEKIT_ENGINES``-style comma lists; None when the variable is unset."""
    return None if value is None else {n.strip() for n in value.split(",") if n.strip()}


def registry_for(config: NodeConfig, environ: Mapping[str, str]) -> Registry:
    """Build the node's registry from its config and the given environment.

    ``ENGINEKIT_ENGINES`` is an allowlist (narrowing ``enabled``); ``ENGINEKIT_DISABLE_ENGINES``
    adds to ``disabled``.
    """
    enable = set(config.enabled) or None
    from_env = names_from(environ.get("ENGINEKIT_ENGINES"))
    if from_env is not None:
        enable = from_env if enable is None else enable & from_env
    disable = set(config.disabled) | (names_from(environ.get("ENGINEKIT_DISABLE_ENGINES")) or set())
    registry = Registry.from_entry_points(
        config=config.engines,
        enable=enable,
        disable=disable,
        policy=config.env_policy.policy(),
        lenient=config.lenient,
    )
    for name, path in config.installed.items():
        if name in registry.names() and not registry.use_installed(name, Path(path)):
            registry.warnings.append(f"installed.{name}: engine {name!r} takes no installed build")
    return registry
