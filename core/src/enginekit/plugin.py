"""Everything an engine plugin needs, from one module: ``from enginekit import plugin as ek``.

A plugin author imports from here and nowhere else in enginekit: the hook marker, the
model types, the errors, the command builder, the argument-syntax helpers and problem
builders, the capability checks, the launcher helpers, the release parser and the shared
config fields. What is re-exported here is the plugin API; it changes only with notice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Protocol

from enginekit.lazy import lazy_exports

if TYPE_CHECKING:
    from enginekit.args import (
        ArgSyntax,
        OptionUse,
        ParsedArgs,
        code_loading_problems,
        load_format_problem,
        managed_option_problems,
        positional_problems,
        secret_option_problems,
        spelling,
    )
    from enginekit.builder import CommandBuilder, host_port, is_ip, leader_endpoint, node_ip
    from enginekit.checks import quantization_of, require_compute_capability
    from enginekit.errors import ConfigError, EngineError, SpecError
    from enginekit.fields import (
        Allowable,
        allow_args,
        check_allow_args,
        check_executable,
        check_version,
        executable,
        executable_problem,
        resolve_executable,
        version,
    )
    from enginekit.hookspecs import DEFAULT_HEALTH_PATH, DEFAULT_METRICS_PATH, ENTRY_POINT_GROUP, hookimpl
    from enginekit.launcher import FileArg, launcher_args
    from enginekit.model import Adapter, Command, GPUInfo, Profile, ShardSpec, is_mig
    from enginekit.ncclenv import TUNABLE, placement_env, visible_devices
    from enginekit.optiontable import (
        OptionTable,
        OptionTableError,
        ReleaseOptions,
        check_option_document,
    )
    from enginekit.policy import EnginePolicy, EnvDeny
    from enginekit.versions import Version, newest_at_or_below, parse_version

#: Each name of the plugin API and the module it lives in, imported on first use (PEP 562).
#: ``enginekit engines`` imports every engine plugin, and a plugin's import needs only its
#: config fields and the hook marker: the planning modules (the model, the argument
#: reading, the command builder, the checks) load when a hook first uses them.
_EXPORTS = {
    "Adapter": "enginekit.model",
    "Allowable": "enginekit.fields",
    "ArgSyntax": "enginekit.args",
    "Command": "enginekit.model",
    "CommandBuilder": "enginekit.builder",
    "ConfigError": "enginekit.errors",
    "DEFAULT_HEALTH_PATH": "enginekit.hookspecs",
    "DEFAULT_METRICS_PATH": "enginekit.hookspecs",
    "ENTRY_POINT_GROUP": "enginekit.hookspecs",
    "EngineError": "enginekit.errors",
    "EnginePolicy": "enginekit.policy",
    "EnvDeny": "enginekit.policy",
    "FileArg": "enginekit.launcher",
    "GPUInfo": "enginekit.model",
    "OptionTable": "enginekit.optiontable",
    "OptionTableError": "enginekit.optiontable",
    "OptionUse": "enginekit.args",
    "ParsedArgs": "enginekit.args",
    "ReleaseOptions": "enginekit.optiontable",
    "Profile": "enginekit.model",
    "ShardSpec": "enginekit.model",
    "SpecError": "enginekit.errors",
    "TUNABLE": "enginekit.ncclenv",
    "Version": "enginekit.versions",
    "allow_args": "enginekit.fields",
    "check_allow_args": "enginekit.fields",
    "check_executable": "enginekit.fields",
    "check_option_document": "enginekit.optiontable",
    "check_version": "enginekit.fields",
    "code_loading_problems": "enginekit.args",
    "executable": "enginekit.fields",
    "executable_problem": "enginekit.fields",
    "hookimpl": "enginekit.hookspecs",
    "host_port": "enginekit.builder",
    "is_ip": "enginekit.builder",
    "is_mig": "enginekit.model",
    "launcher_args": "enginekit.launcher",
    "leader_endpoint": "enginekit.builder",
    "load_format_problem": "enginekit.args",
    "managed_option_problems": "enginekit.args",
    "newest_at_or_below": "enginekit.versions",
    "node_ip": "enginekit.builder",
    "parse_version": "enginekit.versions",
    "placement_env": "enginekit.ncclenv",
    "positional_problems": "enginekit.args",
    "quantization_of": "enginekit.checks",
    "require_compute_capability": "enginekit.checks",
    "resolve_executable": "enginekit.fields",
    "secret_option_problems": "enginekit.args",
    "spelling": "enginekit.args",
    "version": "enginekit.fields",
    "visible_devices": "enginekit.ncclenv",
}


class EngineClass(Protocol):
    """What an engine plugin class may declare, besides its hook implementations.

    ``config_type`` is the attrs class the registry structures ``[engines.<name>]`` into
    and passes to ``__init__``; ``takes_installed_build`` says the engine runs a build
    the agent installed (its root arrives as ``installed`` in ``commands``). Both are
    optional: a class without ``config_type`` is instantiated without arguments.
    """

    config_type: ClassVar[type]
    takes_installed_build: ClassVar[bool]

    def __init__(self, config: object) -> None: ...


__all__ = [
    "DEFAULT_HEALTH_PATH",
    "DEFAULT_METRICS_PATH",
    "ENTRY_POINT_GROUP",
    "TUNABLE",
    "Adapter",
    "Allowable",
    "ArgSyntax",
    "Command",
    "CommandBuilder",
    "ConfigError",
    "EngineClass",
    "EngineError",
    "EnginePolicy",
    "EnvDeny",
    "FileArg",
    "GPUInfo",
    "OptionTable",
    "OptionTableError",
    "OptionUse",
    "ParsedArgs",
    "Profile",
    "ReleaseOptions",
    "ShardSpec",
    "SpecError",
    "Version",
    "allow_args",
    "check_allow_args",
    "check_executable",
    "check_option_document",
    "check_version",
    "code_loading_problems",
    "executable",
    "executable_problem",
    "hookimpl",
    "host_port",
    "is_ip",
    "is_mig",
    "launcher_args",
    "leader_endpoint",
    "load_format_problem",
    "managed_option_problems",
    "newest_at_or_below",
    "node_ip",
    "parse_version",
    "placement_env",
    "positional_problems",
    "quantization_of",
    "require_compute_capability",
    "resolve_executable",
    "secret_option_problems",
    "spelling",
    "version",
    "visible_devices",
]


__getattr__, __dir__ = lazy_exports("enginekit.plugin", _EXPORTS, globals(), __all__)
