"""The exit statuses of ``enginekit run``, one meaning each, and how a child's end becomes one."""

from __future__ import annotations

# 0, 1, 2 and 70 mean here what they mean for every subcommand: the main process exited
# 0 (or the plan was printed), the spec breaks a rule, unusable input (a variable a
# ``--…-from-env`` option names is missing, empty or wrong, or a program of the plan could
# not start), a bug in enginekit.
from enginekit.base.exits import EXIT_BUG as EXIT_BUG
from enginekit.base.exits import EXIT_INVALID as EXIT_INVALID
from enginekit.base.exits import EXIT_OK as EXIT_OK
from enginekit.base.exits import EXIT_UNUSABLE as EXIT_UNUSABLE
from enginekit.run.process import ended

#: The device listing says the engine's build would run on the CPU while the shard was
#: placed on GPUs: nothing was started.
EXIT_CPU_FALLBACK = 81
#: The leader's port never accepted a connection within the leader timeout.
EXIT_LEADER_TIMEOUT = 82
#: The health URL never answered 200 within the startup timeout.
EXIT_STARTUP_TIMEOUT = 83
#: A sidecar exited, which stops the shard.
EXIT_SIDECAR_EXITED = 84
#: A worker that must be stopped when its leader goes was stopped: the leader's port
#: stayed closed for the leader-gone grace.
EXIT_LEADER_GONE = 85

#: How a shell reports a process that died of signal N: 128 + N.
SIGNAL_BASE = 128


def exit_status(returncode: int) -> int:
    """A child's end as a shell reports it: its exit code, or 128 + N when signal N killed it."""
    return SIGNAL_BASE - returncode if returncode < 0 else returncode


def describe_end(returncode: int) -> str:
    """A child's end in words: ``exit status 3``, ``killed by SIGKILL (status 137)``."""
    if returncode >= 0:
        return ended(returncode)
    return f"{ended(returncode)} (status {exit_status(returncode)})"
