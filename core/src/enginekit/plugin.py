"""Everything an engine plugin needs, from one module: ``from enginekit import plugin as ek``.

A plugin author imports from here and nowhere else in enginekit: the hook marker, the
model types, the errors, the command builder, the argument-syntax helpers and problem
builders, the capability checks, the launcher helpers, the release parser and the shared
config fields. What is re-exported here is the plugin API, versioned as
:data:`API_VERSION`: within a major version no name here or in ``enginekit.testing`` is
removed or changes its meaning; one on its way out warns (``DeprecationWarning``) for at
least one minor release first, and ``CHANGELOG.md`` lists every change. A plugin states the
API it was written for with its range on ``enginekit`` (``enginekit >= 1.0, < 2``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enginekit.base.lazy import lazy_exports

if TYPE_CHECKING:
    from enginekit.base.errors import ConfigError, EngineError, SpecError
    from enginekit.base.text import host_port
    from enginekit.base.versions import Version, newest_at_or_below, parse_version
    from enginekit.layout.compute import kv_event_sources, kv_events_endpoints, kv_events_wiring, shard_layout
    from enginekit.layout.model import (
        API_SERVER,
        HEADLESS,
        HEALTH_STUB,
        Coordination,
        Dial,
        KVEventSource,
        LayoutRules,
        Listener,
        ProcessLayout,
    )
    from enginekit.placement.builder import CommandBuilder, is_ip, leader_endpoint, node_ip
    from enginekit.placement.env import TUNABLE, placement_env, visible_devices
    from enginekit.placement.launcher import FileArg, launcher_args
    from enginekit.placement.nvshmem import nvshmem_env
    from enginekit.platform.api import API_VERSION
    from enginekit.platform.hookspecs import (
        DEFAULT_HEALTH_PATH,
        DEFAULT_METRICS_PATH,
        ENTRY_POINT_GROUP,
        EngineClass,
        hookimpl,
    )
    from enginekit.policy.args import (
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
    from enginekit.policy.checks import quantization_of, require_compute_capability
    from enginekit.policy.engine import EnginePolicy, EnvAlias, EnvDeny
    from enginekit.policy.fields import (
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
    from enginekit.policy.optiongen import (
        OptionRename,
        ReleaseRead,
        check_table_module,
        document_reads,
        find_renames,
        merge_release,
        option_document,
        read_argparse,
        read_click,
        read_table_module,
        release_spans,
        table_module_text,
        write_table_module,
    )
    from enginekit.policy.optiontable import (
        OptionTable,
        OptionTableError,
        ReleaseOptions,
        check_option_document,
    )
    from enginekit.spec.model import DP_BALANCING, Adapter, Command, GPUInfo, Profile, ShardSpec, is_mig

#: Each name of the plugin API and the module it lives in, imported on first use (PEP 562).
#: ``enginekit engines`` imports every engine plugin, and a plugin's import needs only its
#: config fields and the hook marker: the planning modules (the model, the argument
#: reading, the command builder, the checks) load when a hook first uses them.
_EXPORTS = {
    "API_SERVER": "enginekit.layout.model",
    "DP_BALANCING": "enginekit.spec.model",
    "Coordination": "enginekit.layout.model",
    "Dial": "enginekit.layout.model",
    "HEADLESS": "enginekit.layout.model",
    "HEALTH_STUB": "enginekit.layout.model",
    "LayoutRules": "enginekit.layout.model",
    "Listener": "enginekit.layout.model",
    "ProcessLayout": "enginekit.layout.model",
    "shard_layout": "enginekit.layout.compute",
    "kv_events_endpoints": "enginekit.layout.compute",
    "kv_event_sources": "enginekit.layout.compute",
    "kv_events_wiring": "enginekit.layout.compute",
    "KVEventSource": "enginekit.layout.model",
    "Adapter": "enginekit.spec.model",
    "Allowable": "enginekit.policy.fields",
    "ArgSyntax": "enginekit.policy.args",
    "Command": "enginekit.spec.model",
    "CommandBuilder": "enginekit.placement.builder",
    "ConfigError": "enginekit.base.errors",
    "DEFAULT_HEALTH_PATH": "enginekit.platform.hookspecs",
    "DEFAULT_METRICS_PATH": "enginekit.platform.hookspecs",
    "API_VERSION": "enginekit.platform.api",
    "ENTRY_POINT_GROUP": "enginekit.platform.hookspecs",
    "EngineClass": "enginekit.platform.hookspecs",
    "EngineError": "enginekit.base.errors",
    "EnginePolicy": "enginekit.policy.engine",
    "EnvAlias": "enginekit.policy.engine",
    "EnvDeny": "enginekit.policy.engine",
    "FileArg": "enginekit.placement.launcher",
    "GPUInfo": "enginekit.spec.model",
    "OptionTable": "enginekit.policy.optiontable",
    "OptionTableError": "enginekit.policy.optiontable",
    "OptionUse": "enginekit.policy.args",
    "ParsedArgs": "enginekit.policy.args",
    "ReleaseOptions": "enginekit.policy.optiontable",
    "Profile": "enginekit.spec.model",
    "ShardSpec": "enginekit.spec.model",
    "SpecError": "enginekit.base.errors",
    "TUNABLE": "enginekit.placement.env",
    "Version": "enginekit.base.versions",
    "allow_args": "enginekit.policy.fields",
    "check_allow_args": "enginekit.policy.fields",
    "check_executable": "enginekit.policy.fields",
    "check_option_document": "enginekit.policy.optiontable",
    "OptionRename": "enginekit.policy.optiongen",
    "ReleaseRead": "enginekit.policy.optiongen",
    "check_table_module": "enginekit.policy.optiongen",
    "document_reads": "enginekit.policy.optiongen",
    "find_renames": "enginekit.policy.optiongen",
    "merge_release": "enginekit.policy.optiongen",
    "option_document": "enginekit.policy.optiongen",
    "read_argparse": "enginekit.policy.optiongen",
    "read_click": "enginekit.policy.optiongen",
    "read_table_module": "enginekit.policy.optiongen",
    "release_spans": "enginekit.policy.optiongen",
    "table_module_text": "enginekit.policy.optiongen",
    "write_table_module": "enginekit.policy.optiongen",
    "check_version": "enginekit.policy.fields",
    "code_loading_problems": "enginekit.policy.args",
    "executable": "enginekit.policy.fields",
    "executable_problem": "enginekit.policy.fields",
    "hookimpl": "enginekit.platform.hookspecs",
    "host_port": "enginekit.base.text",
    "is_ip": "enginekit.placement.builder",
    "is_mig": "enginekit.spec.model",
    "launcher_args": "enginekit.placement.launcher",
    "leader_endpoint": "enginekit.placement.builder",
    "load_format_problem": "enginekit.policy.args",
    "managed_option_problems": "enginekit.policy.args",
    "newest_at_or_below": "enginekit.base.versions",
    "node_ip": "enginekit.placement.builder",
    "nvshmem_env": "enginekit.placement.nvshmem",
    "parse_version": "enginekit.base.versions",
    "placement_env": "enginekit.placement.env",
    "positional_problems": "enginekit.policy.args",
    "quantization_of": "enginekit.policy.checks",
    "require_compute_capability": "enginekit.policy.checks",
    "resolve_executable": "enginekit.policy.fields",
    "secret_option_problems": "enginekit.policy.args",
    "spelling": "enginekit.policy.args",
    "version": "enginekit.policy.fields",
    "visible_devices": "enginekit.placement.env",
}


__all__ = [
    "API_SERVER",
    "API_VERSION",
    "DEFAULT_HEALTH_PATH",
    "DEFAULT_METRICS_PATH",
    "DP_BALANCING",
    "ENTRY_POINT_GROUP",
    "HEADLESS",
    "HEALTH_STUB",
    "TUNABLE",
    "Adapter",
    "Allowable",
    "ArgSyntax",
    "Command",
    "CommandBuilder",
    "ConfigError",
    "Coordination",
    "Dial",
    "EngineClass",
    "EngineError",
    "EnginePolicy",
    "EnvAlias",
    "EnvDeny",
    "FileArg",
    "GPUInfo",
    "KVEventSource",
    "LayoutRules",
    "Listener",
    "OptionRename",
    "OptionTable",
    "OptionTableError",
    "OptionUse",
    "ParsedArgs",
    "ProcessLayout",
    "Profile",
    "ReleaseOptions",
    "ReleaseRead",
    "ShardSpec",
    "SpecError",
    "Version",
    "allow_args",
    "check_allow_args",
    "check_executable",
    "check_option_document",
    "check_table_module",
    "check_version",
    "code_loading_problems",
    "document_reads",
    "executable",
    "executable_problem",
    "find_renames",
    "hookimpl",
    "host_port",
    "is_ip",
    "is_mig",
    "kv_event_sources",
    "kv_events_endpoints",
    "kv_events_wiring",
    "launcher_args",
    "leader_endpoint",
    "load_format_problem",
    "managed_option_problems",
    "merge_release",
    "newest_at_or_below",
    "node_ip",
    "nvshmem_env",
    "option_document",
    "parse_version",
    "placement_env",
    "positional_problems",
    "quantization_of",
    "read_argparse",
    "read_click",
    "read_table_module",
    "release_spans",
    "require_compute_capability",
    "resolve_executable",
    "secret_option_problems",
    "shard_layout",
    "spelling",
    "table_module_text",
    "version",
    "visible_devices",
    "write_table_module",
]


__getattr__, __dir__ = lazy_exports("enginekit.plugin", _EXPORTS, globals(), __all__)
