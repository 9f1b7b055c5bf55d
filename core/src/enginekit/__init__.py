"""enginekit: pure builders for the command lines and environments that start LLM inference engines."""

from __future__ import annotations

from typing import TYPE_CHECKING

from enginekit._version import __version__
from enginekit.base import moved
from enginekit.base.lazy import lazy_exports

if TYPE_CHECKING:
    from enginekit.base.errors import (
        ConfigError,
        EngineError,
        EnginekitError,
        EngineUnavailable,
        EnvPolicyError,
        HookError,
        PlanMismatch,
        ProblemsError,
        SpecError,
    )
    from enginekit.plan.formats import FORMAT_VERSION, schema
    from enginekit.plan.launch import LaunchPlan
    from enginekit.platform.config import NodeConfig, load_config, registry_for
    from enginekit.platform.engine import Engine
    from enginekit.platform.hookspecs import ENTRY_POINT_GROUP, hookimpl
    from enginekit.platform.registry import Registry
    from enginekit.platform.status import EngineStatus, Failure
    from enginekit.spec.io import LoadedSpec, load_spec
    from enginekit.spec.model import Adapter, Command, GPUInfo, Profile, ShardSpec

#: Each public name and the module it lives in. Imported on first use (PEP 562): a
#: scheduler importing one name, and the CLI, pay only for the modules they touch.
_EXPORTS = {
    "ENTRY_POINT_GROUP": "enginekit.platform.hookspecs",
    "FORMAT_VERSION": "enginekit.plan.formats",
    "Adapter": "enginekit.spec.model",
    "Command": "enginekit.spec.model",
    "ConfigError": "enginekit.base.errors",
    "Engine": "enginekit.platform.engine",
    "EngineError": "enginekit.base.errors",
    "HookError": "enginekit.base.errors",
    "EngineStatus": "enginekit.platform.status",
    "EngineUnavailable": "enginekit.base.errors",
    "PlanMismatch": "enginekit.base.errors",
    "EnginekitError": "enginekit.base.errors",
    "EnvPolicyError": "enginekit.base.errors",
    "Failure": "enginekit.platform.status",
    "GPUInfo": "enginekit.spec.model",
    "LaunchPlan": "enginekit.plan.launch",
    "LoadedSpec": "enginekit.spec.io",
    "NodeConfig": "enginekit.platform.config",
    "ProblemsError": "enginekit.base.errors",
    "Profile": "enginekit.spec.model",
    "Registry": "enginekit.platform.registry",
    "ShardSpec": "enginekit.spec.model",
    "SpecError": "enginekit.base.errors",
    "hookimpl": "enginekit.platform.hookspecs",
    "load_config": "enginekit.platform.config",
    "load_spec": "enginekit.spec.io",
    "registry_for": "enginekit.platform.config",
    "schema": "enginekit.plan.formats",
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
    "HookError",
    "LaunchPlan",
    "LoadedSpec",
    "NodeConfig",
    "PlanMismatch",
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

# The first release's module names (enginekit.args, enginekit.model…), for its plugins.
moved.install()
