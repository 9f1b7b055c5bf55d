"""Everything an engine plugin needs, from one module: ``from enginekit import plugin as ek``.

A plugin author imports from here and nowhere else in enginekit: the hook marker, the
model types, the errors, the command builder, the argument-syntax helpers and problem
builders, the capability checks, the launcher helpers, the release parser and the shared
config fields. What is re-exported here is the plugin API; it changes only with notice.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

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
from enginekit.policy import EnginePolicy, EnvDeny
from enginekit.versions import Version, newest_at_or_below, parse_version


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
    "OptionUse",
    "ParsedArgs",
    "Profile",
    "ShardSpec",
    "SpecError",
    "Version",
    "allow_args",
    "check_allow_args",
    "check_executable",
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
