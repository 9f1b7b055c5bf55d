"""The launch plan's JSON form as ``LaunchPlan.to_dict`` writes it (``reading`` reads it back)."""

from __future__ import annotations

import shlex
from typing import Any, Protocol, TypeVar

from enginekit.base.secrets import MASK
from enginekit.layout.model import KVEventSource
from enginekit.placement.env import DroppedVar
from enginekit.plan.formats import FORMAT_VERSION
from enginekit.spec.documents import scrubbed
from enginekit.spec.model import Command, ShardSpec, dump_spec


class PlanFields(Protocol):
    """What the format writes of a plan: ``LaunchPlan``'s fields, named here so that the
    format, which the plan's methods call, never imports the plan's class."""

    @property
    def engine(self) -> str: ...
    @property
    def shard(self) -> ShardSpec: ...
    @property
    def commands(self) -> tuple[Command, ...]: ...
    @property
    def serves_http(self) -> bool: ...
    @property
    def health_path(self) -> str: ...
    @property
    def metrics_path(self) -> str: ...
    @property
    def notes(self) -> tuple[str, ...]: ...
    @property
    def dropped_env(self) -> tuple[DroppedVar, ...]: ...
    @property
    def on_leader_exit(self) -> str: ...
    @property
    def leader_watch_port(self) -> int: ...
    @property
    def kv_events(self) -> tuple[KVEventSource, ...]: ...
    @property
    def base_url(self) -> str: ...


#: The plan class :func:`read_plan` builds.
P = TypeVar("P", bound=PlanFields)


def plan_dict(plan: PlanFields, *, show_secrets: bool) -> dict[str, Any]:
    """The plan as JSON-ready data; every secret masked unless ``show_secrets``."""
    shard = plan.shard
    out = {
        "format_version": FORMAT_VERSION,
        "engine": plan.engine,
        "shard": dump_spec(shard, show_secrets=show_secrets),
        "commands": [_command_dict(c, show_secrets) for c in plan.commands],
        "serves_http": plan.serves_http,
        "health_path": plan.health_path,
        "metrics_path": plan.metrics_path,
        "notes": list(plan.notes),
        "dropped_env": [{"key": d.key, "why": d.why} for d in plan.dropped_env],
        "on_leader_exit": plan.on_leader_exit,
        "leader_watch_port": plan.leader_watch_port,
        "kv_events": [{"rank": e.rank, "endpoint": e.endpoint, "replay": e.replay} for e in plan.kv_events],
        **_derived(plan),
    }
    return out if show_secrets else scrubbed(out, shard.api_key)


def _derived(plan: PlanFields) -> dict[str, Any]:
    """Facts that follow from the rest, at hand for readers; recomputed, and checked, on reading."""
    shard, http = plan.shard, plan.serves_http
    return {
        "replica_id": shard.replica_id,
        "shard_id": shard.shard_id,
        "profile": shard.profile.name,
        "rank": shard.rank,
        "nnodes": shard.nnodes,
        "base_url": plan.base_url if http else None,
        "health_url": plan.base_url + plan.health_path if http else None,
        "metrics_url": plan.base_url + plan.metrics_path if http else None,
    }


def _command_dict(command: Command, show_secrets: bool) -> dict[str, Any]:
    env = {
        key: MASK if key in command.secret_env and not show_secrets else value
        for key, value in sorted(command.env.items())
    }
    return {
        "name": command.name,
        "path": command.path,
        "args": list(command.args),
        "shell": shlex.join(command.argv()),
        "env": env,
        "secret_env": sorted(command.secret_env),
        "wait_for_leader_port": command.wait_for_leader_port,
        "why": dict(sorted(command.why.items())),
    }


# --- reading ------------------------------------------------------------------------------
