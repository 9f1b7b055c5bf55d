"""enginekit: pure builders for the command lines and environments that start LLM inference engines."""

from __future__ import annotations

from typing import TYPE_CHECKING

from enginekit._version import __version__
from enginekit.lazy import lazy_exports

if TYPE_CHECKING:
    from enginekit.config import NodeConfig, load_config, registry_for
    from enginekit.engine import Engine
    from enginekit.errors import (
        ConfigError,
        EngineError,
        EnginekitError,
        EngineUnavailable,
        EnvPolicyError,
        ProblemsError,
        SpecError,
    )
    from enginekit.formats import FORMAT_VERSION, schema
    from enginekit.hookspecs import ENTRY_POINT_GROUP, hookimpl
    from enginekit.model import Adapter, Command, GPUInfo, Profile, ShardSpec
    from enginekit.plan import LaunchPlan
    from enginekit.registry import EngineStatus, Failure, Registry
    from enginekit.specio import LoadedSpec, load_spec

#: Each public name and the module it lives in. Imported on first use (PEP 562): a
#: scheduler importing one name, and the CLI, pay only for the modules they touch.
_EXPORTS = {
    "ENTRY_POINT_GROUP": "enginekit.hookspecs",
    "FORMAT_VERSION": "enginekit.formats",
    "Adapter": "enginekit.model",
    "Command": "enginekit.model",
    "ConfigError": "enginekit.errors",
    "Engine": "enginekit.engine",
    "EngineError": "enginekit.errors",
    "EngineStatus": "enginekit.registry",
    "EngineUnavailable": "enginekit.errors",
    "EnginekitError": "enginekit.errors",
    "EnvPolicyError": "enginekit.errors",
    "Failure": "enginekit.registry",
    "GPUInfo": "enginekit.model",
    "LaunchPlan": "enginekit.plan",
    "LoadedSpec": "enginekit.specio",
    "NodeConfig": "enginekit.config",
    "ProblemsError": "enginekit.errors",
    "Profile": "enginekit.model",
    "Registry": "enginekit.registry",
    "ShardSpec": "enginekit.model",
    "SpecError": "enginekit.errors",
    "hookimpl": "enginekit.hookspecs",
    "load_config": "enginekit.config",
    "load_spec": "enginekit.specio",
    "registry_for": "enginekit.config",
    "schema": "enginekit.formats",
}

__all__ = [
    "ENTRY_POINT_GROUP",
    "FORMAT_VERSION",
    "Adapter",
    "Command",
    "ConfigError",
    "Engine",
    "EngineError",
    "EngineStatus",
    "EngineUnavailable",
    "EnginekitError",
    "EnvPolicyError",
    "Failure",
    "GPUInfo",
    "LaunchPlan",
    "LoadedSpec",
    "NodeConfig",
    "ProblemsError",
    "Profile",
    "Registry",
    "ShardSpec",
    "SpecError",
    "__version__",
    "hookimpl",
    "load_config",
    "load_spec",
    "registry_for",
    "schema",
]


__getattr__, __dir__ = lazy_exports("enginekit", _EXPORTS, globals(), __all__)
