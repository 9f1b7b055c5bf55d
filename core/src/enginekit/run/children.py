"""The shard's processes: each started with exactly its argv and environment, in a group of its own."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence

from enginekit.base.errors import EnginekitError
from enginekit.base.text import printable
from enginekit.run.logs import LineSplitter, LogSink, pump, timestamp
from enginekit.run.process import StartFailed, start_program


class CannotStart(EnginekitError):
    """A command of the plan could not be started: its program is missing or cannot be executed."""


class Child:
    """One running command: its process, its process group, and the threads passing its output on."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        env: Mapping[str, str],
        sink: LogSink,
        *,
        raw: bool = False,
        secrets: Collection[str] = (),
    ) -> None:
        self.name = name
        shown = printable(shlex.join(argv), 500)
        try:
            # A session of its own: the runner's terminal never signals it, and its process
            # group (id = its pid) holds exactly what it starts, to be stopped as one.
            self.process = start_program(argv, env)
        except StartFailed as exc:
            raise CannotStart(f"{name}: cannot start: {exc.why}: {shown}") from None
        self.pid = self.pgid = self.process.pid
        self.started = timestamp()
        self.started_at = time.monotonic()
        prefix = b"" if raw else f"[{name}] ".encode("utf-8", "backslashreplace")
        self._pumps: list[threading.Thread] = []
        try:
            for stream in (self.process.stdout, self.process.stderr):
                assert stream is not None
                # The pump owns the descriptor from here: Popen's file object must not close it too.
                fd = os.dup(stream.fileno())
                stream.close()
                thread = threading.Thread(
                    target=pump,
                    args=(fd, LineSplitter(prefix, secrets), sink),
                    name=f"enginekit-run-{name}",
                    daemon=True,
                )
                try:
                    thread.start()
                except BaseException:
                    os.close(fd)  # no pump took it
                    raise
                self._pumps.append(thread)
        except (OSError, RuntimeError) as exc:  # out of descriptors, or of threads
            # The process runs, but the caller never gets a Child to stop: stop it here, or
            # it outlives the runner.
            self.signal_group(signal.SIGKILL)
            self.process.wait()
            for stream in (self.process.stdout, self.process.stderr):
                if stream is not None:
                    stream.close()
            raise CannotStart(
                f"{name}: cannot pass its output on ({getattr(exc, 'strerror', None) or exc}), "
                f"so it was stopped: {shown}"
            ) from None

    @property
    def returncode(self) -> int | None:
        """Its exit status as Popen reports it (negative: killed by that signal), None while it runs."""
        return self.process.poll()

    def signal_group(self, signum: int) -> None:
        """Send ``signum`` to every process of its group; a group already gone is no error."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, signum)

    def group_alive(self) -> bool:
        """Whether any process of its group is left (the child itself is reaped first, if it has exited)."""
        if self.process.poll() is None:
            return True
        try:
            os.killpg(self.pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # pragma: no cover - the id now belongs to another user's group
            return False
        return True

    def output_held(self) -> bool:
        """Whether its stdout or stderr is still open at the other end: some process still holds it."""
        return any(thread.is_alive() for thread in self._pumps)

    def join_pumps(self, timeout: float) -> None:
        """Wait, at most ``timeout`` in all, for its output to be passed on to the end."""
        deadline = time.monotonic() + timeout
        for thread in self._pumps:
            thread.join(max(deadline - time.monotonic(), 0.0))


def stop_groups(children: Sequence[Child], grace: float, escalated: Callable[[], bool]) -> list[str]:
    """SIGTERM every group, SIGKILL what is left after ``grace`` (or at once when ``escalated()``).

    Returns the names of the children that had to be killed. Every child is reaped.
    """
    for child in children:
        child.signal_group(signal.SIGTERM)
    deadline = time.monotonic() + grace
    while any(child.group_alive() for child in children):
        if time.monotonic() >= deadline or escalated():
            break
        time.sleep(0.05)
    killed = [child.name for child in children if child.group_alive()]
    kill_groups(children)
    return killed


def kill_groups(children: Sequence[Child], *, settle: float = 5.0) -> None:
    """SIGKILL every group, reap every child, and wait (bounded) until no group has a process left."""
    for child in children:
        child.signal_group(signal.SIGKILL)
    for child in children:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.process.wait(timeout=settle)
    # A grandchild killed with its group is reaped by init (or by this runner, as PID 1):
    # until then the group still answers. Bounded: a process in uninterruptible sleep can
    # outlast any wait.
    deadline = time.monotonic() + settle
    while any(child.group_alive() for child in children) and time.monotonic() < deadline:
        if os.getpid() == 1:
            reap_orphans({child.pid for child in children})
        time.sleep(0.02)


def reap_orphans(ours: Collection[int]) -> list[int]:
    """Reap exited processes that are not ``ours``: the orphans a container's PID 1 inherits.

    Only a process this one may wait for is seen: its own children, and, as PID 1 (or a
    subreaper), orphans reparented to it. ``ours`` are left for :class:`Child` to reap, so
    their exit statuses are read where they are expected. Callers reap only as PID 1: in
    any other process, a child that is not ours belongs to whoever embeds the runner.
    """
    reaped: list[int] = []
    while True:
        try:
            # WNOWAIT: look without reaping, so a child of ours is never reaped here.
            found = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return reaped
        if found is None or found.si_pid == 0 or found.si_pid in ours:
            return reaped
        with contextlib.suppress(ChildProcessError):
            os.waitpid(found.si_pid, 0)
        reaped.append(found.si_pid)
