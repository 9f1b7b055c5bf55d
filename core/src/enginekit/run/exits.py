"""The exit statuses of ``enginekit run``, one meaning each, and how a child's end becomes one."""

from __future__ import annotations

import signal

#: The main process exited 0 on its own.
EXIT_OK = 0
#: The shard spec breaks a rule (every problem listed), as for ``enginekit render``.
EXIT_INVALID = 1
#: Unusable input (as for ``render``), a variable named by a ``--…-from-env`` option that
#: is missing, empty or wrong, or a program of the plan that could not be started.
EXIT_UNUSABLE = 2
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
#: A bug in enginekit itself, as for every subcommand.
EXIT_BUG = 70

#: How a shell reports a process that died of signal N: 128 + N.
SIGNAL_BASE = 128


def exit_status(returncode: int) -> int:
    """A child's end as a shell reports it: its exit code, or 128 + N when signal N killed it."""
    return SIGNAL_BASE - returncode if returncode < 0 else returncode


def describe_end(returncode: int) -> str:
    """A child's end in words: ``exit status 3``, ``killed by SIGKILL``."""
    if returncode >= 0:
        return f"exit status {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    return f"killed by {name} (status {exit_status(returncode)})"
