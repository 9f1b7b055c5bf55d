"""The launch plan of one shard: what a supervisor runs, and how it is shown to an operator."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

import attrs

from enginekit.base.secrets import MASK, masked
from enginekit.base.text import host_port
from enginekit.layout.model import KVEventSource
from enginekit.placement.env import DroppedVar
from enginekit.plan.format import plan_dict
from enginekit.plan.leader import LEADER_EXIT_CHOICES, MUST_BE_STOPPED, STOPS, leader_watch_problem
from enginekit.spec.model import Command, ShardSpec


@attrs.frozen
class LaunchPlan:
    """Everything a supervisor needs to run one shard, built purely from its spec."""

    engine: str
    shard: ShardSpec
    #: In start order: every command but the last is a sidecar kept alive for the
    #: shard's lifetime; the last one's exit is the shard's exit.
    commands: tuple[Command, ...]
    serves_http: bool
    health_path: str
    metrics_path: str
    notes: tuple[str, ...] = ()
    dropped_env: tuple[DroppedVar, ...] = ()
    #: What a supervisor must do with this worker rank when its leader's process goes:
    #: :data:`STOPS` (nothing: it exits by itself) or :data:`MUST_BE_STOPPED` (stop it, or
    #: it holds its GPUs and the replica cannot be started again). Empty for the leader;
    #: a worker's defaults to the safe answer.
    on_leader_exit: str = attrs.field(
        default=attrs.Factory(lambda plan: "" if plan.shard.is_leader() else MUST_BE_STOPPED, takes_self=True)
    )

    @on_leader_exit.validator
    def _fits_the_rank(self, _attribute: attrs.Attribute[str], value: str) -> None:
        # A plan to_dict writes must read back: from_dict holds it to the same rule.
        expected = ("",) if self.shard.is_leader() else LEADER_EXIT_CHOICES
        if value not in expected:
            role = "the leader" if self.shard.is_leader() else "a worker rank"
            raise ValueError(f"on_leader_exit {value!r} for {role}: expected one of {expected}")

    #: Where a supervisor watches for the leader's end, when :attr:`on_leader_exit` is
    #: :data:`MUST_BE_STOPPED`: a port at ``shard.leader_addr``, closed for a while once the
    #: leader is gone. ``shard.leader_port`` unless the engine closes that once its group
    #: has formed (vLLM's data-parallel handshake): then the leader's API server's. Given as
    #: 0, it is ``shard.leader_port``; it is 0 wherever nothing is watched (the leader, a
    #: rank that stops by itself), whatever was given: ``attrs.evolve`` of
    #: ``on_leader_exit`` needs no second change.
    leader_watch_port: int = attrs.field(default=0)

    @leader_watch_port.validator
    def _a_port(self, _attribute: attrs.Attribute[int], value: int) -> None:
        problem = leader_watch_problem(MUST_BE_STOPPED, value)  # the range; the rest is set after
        if problem:
            raise ValueError(problem)

    #: Where consumers connect to this shard's KV-cache events, one source per rank that
    #: publishes here: given when its publishers bind (``kv_events_mode`` ``bind``), empty
    #: when they connect to a subscriber or publish none.
    kv_events: tuple[KVEventSource, ...] = ()

    def __attrs_post_init__(self) -> None:
        if self.on_leader_exit != MUST_BE_STOPPED:
            object.__setattr__(self, "leader_watch_port", 0)
        elif not self.leader_watch_port:
            object.__setattr__(self, "leader_watch_port", self.shard.leader_port)

    @property
    def base_url(self) -> str:
        """Where the shard's API answers, as seen from this node."""
        return f"http://{host_port(self.shard.bind_addr or '127.0.0.1', self.shard.http_port)}"

    def to_dict(self, *, show_secrets: bool = False) -> dict[str, Any]:
        """The plan in its versioned JSON form; every secret masked unless ``show_secrets``.

        :meth:`from_dict` reads what this writes with ``show_secrets`` back equal; the
        format and what may change in it are described in ``docs/plan-format.md``.
        """
        return plan_dict(self, show_secrets=show_secrets)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> LaunchPlan:
        """The plan in ``raw``, as :meth:`to_dict` wrote it with ``show_secrets``.

        :raises SpecError: listing every problem: a field of the wrong type or shape, an
            unknown field (ignored instead when the plan is from a newer minor format),
            another major format version, a masked secret, a derived field that does
            not match what it derives from.
        """
        # The reading classes are imported by the few that read plans, not by every render.
        from enginekit.plan.reading import read_plan

        return read_plan(raw, cls)

    def render_text(self, *, explain: bool = False, show_secrets: bool = False) -> str:
        """The plan as an operator reads it at a terminal."""
        shard = self.shard
        role = "leader" if shard.is_leader() else "worker"
        lines = [
            f"shard {shard.shard_id or '-'} of replica {shard.replica_id or '-'}: engine "
            f"{self.engine}, profile {shard.profile.name}, rank {shard.rank} of {shard.nnodes} ({role})",
        ]
        if self.serves_http:
            lines.append(f"serves HTTP at {self.base_url}")
            lines.append(f"  health:  {self.base_url}{self.health_path}")
            lines.append(f"  metrics: {self.base_url}{self.metrics_path}")
        else:
            lines.append("serves HTTP: no (only the leader answers the API; do not health-check this rank)")
        if self.on_leader_exit == MUST_BE_STOPPED:
            watched = host_port(shard.leader_addr, self.leader_watch_port)
            lines.append(f"when the leader exits: this rank keeps running; stop it too (watch {watched})")
        elif self.on_leader_exit == STOPS:
            lines.append("when the leader exits: this rank exits by itself")
        for source in self.kv_events:
            replay = f" (replay: {source.replay})" if source.replay else ""
            lines.append(f"KV-cache events of rank {source.rank}: subscribe at {source.endpoint}{replay}")
        for i, command in enumerate(self.commands, 1):
            kind = (
                "main process" if i == len(self.commands) else "sidecar, kept alive for the shard's lifetime"
            )
            lines += ["", f"command {i}/{len(self.commands)}: {command.name or command.path} ({kind})"]
            if command.wait_for_leader_port:
                leader = host_port(shard.leader_addr, shard.leader_port)
                lines.append(f"  waits until {leader} accepts connections")
            lines.append(f"  argv: {shlex.join(command.argv())}")
            lines.append("  env (generated; merged over the inherited environment):")
            for key in sorted(command.env):
                secret = key in command.secret_env and not show_secrets
                value = MASK if secret else command.env[key]
                shown = value if secret else shlex.quote(value) if value else "''"
                lines.append(f"    {key}={shown}")
                if explain and key in command.why:
                    lines.append(f"      # {command.why[key]}")
        if self.notes:
            lines += ["", "notes:"] + [f"  - {note}" for note in self.notes]
        if self.dropped_env:
            lines += ["", "profile env dropped by the site's policy:"]
            lines += [f"  - {d.key}: {d.why}" for d in self.dropped_env]
        text = "\n".join(lines) + "\n"
        return text if show_secrets or not shard.api_key else masked(text, shard.api_key)
