"""Running a program an engine names (device listing, help): an argv, no shell, bounded in time and output."""

from __future__ import annotations

import contextlib
import os
import selectors
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from typing import IO, NamedTuple

from enginekit.base.errors import EnginekitError
from enginekit.base.text import printable

#: The most stdout read: a device listing is a few lines, vLLM's whole help about 100 KiB.
MAX_OUTPUT_BYTES = 4 * 1024 * 1024
#: How much of the end of stderr is kept, and how many of its last lines a message shows.
STDERR_KEPT_BYTES = 64 * 1024
STDERR_LINES = 10


class CannotRun(EnginekitError):
    """The program did not run to a clean end: not found, stopped, failed, or said too much."""


class Finished(NamedTuple):
    """What a program that exited 0 wrote."""

    stdout: str
    stderr: str


class StartFailed(EnginekitError):
    """A program could not be started at all: ``why`` says so without naming the caller."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def start_program(argv: Sequence[str], env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """Start ``argv`` with exactly ``env``, stdin closed, both outputs piped, in a session of its own.

    No shell reads the arguments. Its own session: no terminal signals it, and its process
    group (id = its pid) holds exactly what it starts, to be stopped as one.

    :raises StartFailed: not found, not executable, or refused by the OS (``why`` says which).
    """
    argv = list(argv)
    try:
        return subprocess.Popen(
            argv,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            close_fds=True,
            start_new_session=True,
        )
    except FileNotFoundError:
        where = "" if "/" in argv[0] else " on PATH"
        raise StartFailed(f"{printable(argv[0], 300)} not found{where}") from None
    except PermissionError:
        raise StartFailed(f"{printable(argv[0], 300)}: permission denied") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the inherited environment
        raise StartFailed(str(getattr(exc, "strerror", None) or exc)) from None


def run_program(
    argv: Sequence[str],
    env: Mapping[str, str],
    *,
    timeout: float,
    what: str,
    cancelled: Callable[[], bool] | None = None,
) -> Finished:
    """Run ``argv`` with exactly ``env`` and stdin closed; its output once it has exited 0.

    When it overstays ``timeout``, or ``cancelled`` says so (a supervisor told to stop),
    it is stopped together with whatever it started.

    :raises CannotRun: naming ``what`` and the command line, with the end of its stderr
        when it ran and failed.
    """
    argv = list(argv)
    shown = printable(shlex.join(argv), 500)
    try:
        process = start_program(argv, env)
    except StartFailed as exc:
        raise CannotRun(f"{what} cannot run: {exc.why}: {shown}") from None
    ending: str | None = "interrupted"
    try:
        stdout, stderr, ending = _collect(process, timeout, cancelled)
    finally:
        _finish(process, kill=ending is not None)
    if ending is not None:
        raise CannotRun(f"{what} {ending} and was stopped: {shown}{_tail(stderr)}")
    if process.returncode != 0:
        raise CannotRun(f"{what} failed ({ended(process.returncode)}): {shown}{_tail(stderr)}")
    return Finished(stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace"))


#: How often a cancellable program's caller is asked whether to stop it, in seconds.
CANCEL_CHECK = 0.1


def _collect(
    process: subprocess.Popen[bytes], timeout: float, cancelled: Callable[[], bool] | None
) -> tuple[bytes, bytes, str | None]:
    """Read both pipes until the program closes them and exits; why it had to be stopped, if it did."""
    assert process.stdout is not None
    assert process.stderr is not None
    deadline = time.monotonic() + timeout
    late = f"did not finish within {timeout:g} s"
    out, err = bytearray(), bytearray()
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ, out)
        selector.register(process.stderr, selectors.EVENT_READ, err)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return bytes(out), bytes(err), late
            if cancelled is not None:
                if cancelled():
                    return bytes(out), bytes(err), "was cancelled"
                left = min(left, CANCEL_CHECK)
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                elif key.data is out:
                    out += chunk
                    if len(out) > MAX_OUTPUT_BYTES:
                        return bytes(out), bytes(err), f"wrote more than {MAX_OUTPUT_BYTES} bytes"
                else:
                    err += chunk
                    del err[:-STDERR_KEPT_BYTES]  # where a failing program says why: its end
    # Both pipes closed: it has exited, or is about to; a program that closed them and
    # kept running is still held to the deadline (and to ``cancelled``).
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return bytes(out), bytes(err), late
        if cancelled is not None and cancelled():
            return bytes(out), bytes(err), "was cancelled"
        try:
            process.wait(timeout=left if cancelled is None else min(left, CANCEL_CHECK))
        except subprocess.TimeoutExpired:
            continue
        return bytes(out), bytes(err), None


def _finish(process: subprocess.Popen[bytes], *, kill: bool) -> None:
    """Stop the program's whole session when it must be stopped; reap it and close its pipes."""
    if kill:
        # Its own session: the process group is exactly what it started, nothing else.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    pipes: tuple[IO[bytes] | None, ...] = (process.stdout, process.stderr)
    for pipe in pipes:
        if pipe is not None:
            pipe.close()


def ended(code: int) -> str:
    """How a program ended, from its ``returncode``: ``exit status 3``, ``killed by SIGKILL``."""
    if code >= 0:
        return f"exit status {code}"
    try:
        return f"killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"killed by signal {-code}"


def _tail(stderr: bytes) -> str:
    """The last lines of ``stderr``, escaped: a program's output never drives the terminal."""
    lines = [line for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    if not lines:
        return "\n  (nothing on stderr)"
    shown = lines[-STDERR_LINES:]
    head = "stderr" if len(shown) == len(lines) else f"stderr, last {len(shown)} lines"
    return f"\n  {head}:" + "".join(f"\n  | {printable(line, 300)}" for line in shown)
