"""What a worker rank does when its replica's leader is gone: the plan's ``on_leader_exit`` values."""

from __future__ import annotations

#: ``LaunchPlan.on_leader_exit`` of a worker rank whose processes exit by themselves once
#: the leader is gone.
STOPS = "stops"
#: ... of a worker rank that stays up until something stops it.
MUST_BE_STOPPED = "must_be_stopped"
LEADER_EXIT_CHOICES = (STOPS, MUST_BE_STOPPED)
