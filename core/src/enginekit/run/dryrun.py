"""``enginekit run --dry-run``: the plan, and every step the runner would take with it, started nothing."""

from __future__ import annotations

import shlex
from collections.abc import Collection
from pathlib import Path

from enginekit.base.text import host_port, printable
from enginekit.plan.launch import LaunchPlan
from enginekit.plan.leader import MUST_BE_STOPPED, STOPS
from enginekit.run.exits import (
    EXIT_CPU_FALLBACK,
    EXIT_LEADER_GONE,
    EXIT_LEADER_TIMEOUT,
    EXIT_SIDECAR_EXITED,
    EXIT_STARTUP_TIMEOUT,
)
from enginekit.run.options import RunOptions


def describe(
    plan: LaunchPlan,
    *,
    options: RunOptions,
    listing: list[str] | None,
    status_file: Path | None = None,
    consumed: Collection[str] = (),
) -> str:
    """The masked plan, then the steps; ``listing`` is the device listing's argv, None for no check."""
    shard = plan.shard
    steps: list[str] = []
    if listing is not None:
        steps.append(
            f"run the device listing in the main process's environment, and refuse to start "
            f"(exit {EXIT_CPU_FALLBACK}) if the engine's build sees no GPU: "
            f"{printable(shlex.join(listing), 500)}"
        )
    last = len(plan.commands) - 1
    leader = host_port(shard.leader_addr, shard.leader_port)
    without = f" (less ${', $'.join(sorted(consumed))})" if consumed else ""
    for index, command in enumerate(plan.commands):
        if command.wait_for_leader_port:
            steps.append(
                f"wait until the leader at {leader} accepts connections, at most "
                f"{options.leader_timeout:g} s (exit {EXIT_LEADER_TIMEOUT} after)"
            )
        kind = "the main process" if index == last else f"sidecar {index + 1} (its exit stops the shard)"
        steps.append(
            f"start {kind}, {command.name or command.path}, in a process group of its own: its argv and "
            f"generated env as above, over the inherited environment{without}"
        )
    if plan.serves_http:
        steps.append(
            f"wait until {plan.base_url}{plan.health_path} answers 200, at most "
            f"{options.startup_timeout:g} s from the main process's start "
            f"(exit {EXIT_STARTUP_TIMEOUT} after); polled every {options.health_interval:g} s, "
            f"each request at most {options.health_timeout:g} s, the API key sent only if the "
            f"endpoint answers 401 or 403; then report ready, and unready when it drops"
        )
    else:
        steps.append("report running once started: this rank serves no HTTP and has no health URL")
    if plan.on_leader_exit == MUST_BE_STOPPED and plan.leader_watch_port == shard.leader_port:
        steps.append(
            f"stop the shard (exit {EXIT_LEADER_GONE}) when the leader's port {leader} stays closed for "
            f"{options.leader_gone_grace:g} s"
        )
    elif plan.on_leader_exit == MUST_BE_STOPPED:
        server = host_port(shard.leader_addr, plan.leader_watch_port)
        bound = options.leader_opens_within(at_join_port=False)
        steps.append(
            f"stop the shard (exit {EXIT_LEADER_GONE}) when the leader's API server {server} stays closed "
            f"for {options.leader_gone_grace:g} s once it has opened (the engine closes {leader} once "
            f"every rank has joined); exit {EXIT_LEADER_TIMEOUT} if it has not opened within {bound:g} s"
        )
    elif plan.on_leader_exit == STOPS:
        steps.append("when the leader goes, this rank exits by itself: exit with its status")
    if len(plan.commands) > 1:
        steps.append(f"stop the shard (exit {EXIT_SIDECAR_EXITED}) when a sidecar exits")
    steps.append(
        "exit with the main process's status when it exits (128+N when signal N killed it); on "
        f"SIGTERM, SIGINT or SIGHUP: SIGTERM to every process group, SIGKILL after "
        f"{options.stop_grace:g} s, exit 128+N"
    )
    steps.append(f"write the status to {status_file}" if status_file is not None else "write no status file")
    lines = ["", "enginekit run would:", *(f"  {i}. {step}" for i, step in enumerate(steps, 1))]
    lines.append("nothing was started (--dry-run)")
    return plan.render_text() + "\n".join(lines) + "\n"
