"""enginekit: pure builders for the command lines and environments that start LLM inference engines."""

from __future__ import annotations

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
from enginekit.hookspecs import ENTRY_POINT_GROUP, hookimpl
from enginekit.model import Adapter, Command, GPUInfo, Profile, ShardSpec
from enginekit.plan import LaunchPlan
from enginekit.registry import EngineStatus, Failure, Registry

__all__ = [
    "ENTRY_POINT_GROUP",
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
    "ProblemsError",
    "Profile",
    "Registry",
    "ShardSpec",
    "SpecError",
    "hookimpl",
]
