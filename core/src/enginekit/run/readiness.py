"""The leader's health URL, polled in a thread of its own: 200 means ready, anything else not (yet)."""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
import urllib.parse
from typing import NamedTuple

#: Statuses that mean "this endpoint wants the API key".
_NEEDS_KEY = (401, 403)


class Health(NamedTuple):
    """One answer of the health URL: its status, or why there was none."""

    status: int | None
    error: str
    at: float

    @property
    def ready(self) -> bool:
        return self.status == 200

    def describe(self) -> str:
        return f"answered {self.status}" if self.status is not None else self.error


def check(url: str, *, key: str = "", timeout: float) -> Health:
    """GET ``url`` once; the key goes in ``Authorization: Bearer`` only when given.

    ``http.client`` and not ``urllib``: urllib would follow ``http_proxy`` from this
    process's environment and redirects, and take the key with it to another host.
    """
    parts = urllib.parse.urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    path = parts.path or "/"
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    late = f"did not answer within {timeout:g} s"
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    # The socket's timeout bounds each read, not the answer: a server that sends a byte
    # every few seconds would hold one request for ever, and the state at its last answer.
    # The whole request gets ``timeout``; past it, the socket is shut, and the read ends.
    overdue = threading.Event()
    timer = threading.Timer(timeout, _cut, (connection, overdue))
    timer.daemon = True
    timer.start()
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read(64 * 1024)  # a health body is small; a huge one is not read whole
        if overdue.is_set():
            return Health(None, late, time.monotonic())
        return Health(response.status, "", time.monotonic())
    except TimeoutError:
        return Health(None, late, time.monotonic())
    except ConnectionRefusedError:
        return Health(None, "connection refused", time.monotonic())
    except (OSError, http.client.HTTPException) as exc:
        return Health(None, late if overdue.is_set() else f"failed: {type(exc).__name__}", time.monotonic())
    finally:
        timer.cancel()
        connection.close()


def _cut(connection: http.client.HTTPConnection, overdue: threading.Event) -> None:
    """End a request that has taken too long: whatever read it waits in returns at once."""
    overdue.set()
    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


class HealthPoller:
    """Polls a health URL every ``interval`` seconds and keeps the latest answer.

    The key is sent only once the endpoint has asked for it (401 or 403 without it):
    most engines leave their health path open, and a key sent nowhere is one leaked nowhere.
    """

    def __init__(self, url: str, *, key: str, interval: float, timeout: float) -> None:
        self.url = url
        self._key = key
        self._interval, self._timeout = interval, timeout
        self.latest: Health | None = None
        #: Set once the key has been sent because the endpoint asked for it.
        self.sends_key = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="enginekit-run-health", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _poll(self) -> None:
        while not self._stop.is_set():
            try:
                health = check(self.url, key=self._key if self.sends_key else "", timeout=self._timeout)
                if health.status in _NEEDS_KEY and self._key and not self.sends_key:
                    self.sends_key = True
                    health = check(self.url, key=self._key, timeout=self._timeout)
            except Exception as exc:  # a thread that died would freeze the state for good
                health = Health(None, f"failed: {type(exc).__name__}", time.monotonic())
            self.latest = health
            self._stop.wait(self._interval)
