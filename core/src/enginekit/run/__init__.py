"""``enginekit run``'s machinery: a reference supervisor that runs a launch plan on the node.

Never imported by the pure builders, nor by ``import enginekit``: planning starts nothing.
"""

from __future__ import annotations

from enginekit.run.exits import (
    EXIT_CPU_FALLBACK,
    EXIT_INVALID,
    EXIT_LEADER_GONE,
    EXIT_LEADER_TIMEOUT,
    EXIT_OK,
    EXIT_SIDECAR_EXITED,
    EXIT_STARTUP_TIMEOUT,
    EXIT_UNUSABLE,
)
from enginekit.run.fromenv import FromEnv, Resolved, resolve
from enginekit.run.options import RunOptions
from enginekit.run.supervisor import Supervisor

__all__ = [
    "EXIT_CPU_FALLBACK",
    "EXIT_INVALID",
    "EXIT_LEADER_GONE",
    "EXIT_LEADER_TIMEOUT",
    "EXIT_OK",
    "EXIT_SIDECAR_EXITED",
    "EXIT_STARTUP_TIMEOUT",
    "EXIT_UNUSABLE",
    "FromEnv",
    "Resolved",
    "RunOptions",
    "Supervisor",
    "resolve",
]
