"""The launch plan.

What a shard will be started with, its JSON format and schemas, and what a worker does when its leader goes.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    # The first release's ``enginekit.plan`` was the module holding LaunchPlan.
    if name == "LaunchPlan":
        from enginekit.base.deprecation import deprecated
        from enginekit.plan.launch import LaunchPlan

        deprecated("enginekit.plan.LaunchPlan", "import LaunchPlan from enginekit")
        return LaunchPlan
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
