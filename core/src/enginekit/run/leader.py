"""The leader's port, seen from a worker: does it accept TCP connections yet, and still?"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

#: How long one connection attempt may take: a dropped SYN must not hold the runner up.
CONNECT_TIMEOUT = 1.0
#: How often a wait looks whether it was cancelled. A plain sleep, not an Event: a
#: signal handler that sets an Event can deadlock the thread it interrupts.
TICK = 0.1


def port_open(host: str, port: int, *, timeout: float = CONNECT_TIMEOUT) -> bool:
    """Whether ``host:port`` accepts a TCP connection now; the connection is closed at once."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except (OSError, ValueError):  # refused, unreachable, unresolvable, timed out
        return False


def wait_for_port(
    host: str,
    port: int,
    *,
    timeout: float,
    interval: float,
    progress_every: float,
    progress: Callable[[float], None],
    cancelled: Callable[[], bool],
) -> bool | None:
    """Wait until ``host:port`` accepts a connection: True when it does, False past ``timeout``.

    None as soon as ``cancelled()`` turns true (checked at least every :data:`TICK`
    seconds); ``progress(elapsed)`` is called every ``progress_every`` seconds while waiting.
    """
    start = time.monotonic()
    next_progress = start + progress_every
    while True:
        if cancelled():
            return None
        left = start + timeout - time.monotonic()
        opened = _attempt(host, port, max(min(CONNECT_TIMEOUT, left), 0.05), start + timeout, cancelled)
        if opened is None:
            return None
        if opened:
            return True
        now = time.monotonic()
        if now - start >= timeout:
            return False
        if now >= next_progress:
            progress(now - start)
            next_progress += progress_every
        pause_until = min(now + interval, start + timeout)
        while time.monotonic() < pause_until and not cancelled():
            time.sleep(min(TICK, max(pause_until - time.monotonic(), 0.0)))


def _attempt(
    host: str, port: int, connect_timeout: float, deadline: float, cancelled: Callable[[], bool]
) -> bool | None:
    """One connection attempt in a thread of its own; None when cancelled while it runs.

    The connect is bounded, the name lookup before it is not: a resolver that hangs
    would otherwise hold up the runner's signals and its leader timeout. Such a thread is
    left to finish on its own (a daemon): it holds nothing but a socket being made.
    """
    found: list[bool] = []
    thread = threading.Thread(
        target=lambda: found.append(port_open(host, port, timeout=connect_timeout)),
        name="enginekit-run-leader-connect",
        daemon=True,
    )
    thread.start()
    while thread.is_alive():
        if cancelled():
            return None
        if time.monotonic() >= deadline:
            return False
        thread.join(TICK)
    return bool(found and found[0])


class PortWatch:
    """How long the leader's port has stayed closed since it was last open, checked in a thread of its own.

    A port never seen open has not *gone*: the leader may still be starting (a pod whose
    image is still being pulled), so the time closed counts only from its first opening.
    A connection attempt can take a second; the runner's loop, which also watches the
    children and the signals, must never wait for one.
    """

    def __init__(self, host: str, port: int, *, interval: float) -> None:
        self._host, self._port, self._interval = host, port, interval
        self.started_at = time.monotonic()
        #: Whether the port has accepted a connection since the watch began.
        self.seen_open = False
        self._closed_since: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="enginekit-run-leader-watch", daemon=True)
        self._thread.start()

    def closed_for(self) -> float:
        """Seconds the port has been closed without a break; 0 while it accepts connections."""
        since = self._closed_since
        return 0.0 if since is None else time.monotonic() - since

    def stop(self) -> None:
        self._stop.set()

    def _watch(self) -> None:
        while not self._stop.is_set():
            if port_open(self._host, self._port):
                self.seen_open = True
                self._closed_since = None
            elif self.seen_open and self._closed_since is None:
                self._closed_since = time.monotonic()
            self._stop.wait(self._interval)
