"""What a worker rank does when its replica's leader is gone: the plan's ``on_leader_exit`` values."""

from __future__ import annotations

#: ``LaunchPlan.on_leader_exit`` of a worker rank whose processes exit by themselves once
#: the leader is gone.
STOPS = "stops"
#: ... of a worker rank that stays up until something stops it.
MUST_BE_STOPPED = "must_be_stopped"
LEADER_EXIT_CHOICES = (STOPS, MUST_BE_STOPPED)


def leader_watch_problem(on_leader_exit: str, port: object) -> str | None:
    """Why a plan may not say ``port`` for ``leader_watch_port`` beside ``on_leader_exit``; None if it may."""
    if on_leader_exit == MUST_BE_STOPPED:
        if type(port) is not int or not 0 <= port <= 65535:
            return f"leader_watch_port: expected a port in 0-65535 (0: leader_port), got {port!r}"
    elif type(port) is not int or port != 0:
        return (
            f"leader_watch_port: expected 0 where nothing is watched (on_leader_exit {on_leader_exit!r}), "
            f"got {port!r}"
        )
    return None
