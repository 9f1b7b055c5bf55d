"""Helpers to test against the simulated engine: start rendered commands, wait for them, read what they serve.

Used by this distribution's tests, and meant for a control plane's or router's: every
wait is bounded, every process runs in its own session so it can be killed whole.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

from enginekit.plugin import Command


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Proc:
    """A started command: its output goes to a file, so a full pipe can never block it."""

    def __init__(self, command: Command, extra_env: Mapping[str, str] | None = None) -> None:
        inherited = {k: v for k, v in os.environ.items() if not k.startswith(("ENGINEKIT_", "CUDA_"))}
        env = command.environ(inherited)
        env.update(extra_env or {})
        # Closed by close(); a context manager cannot span the process's life.
        self.log = tempfile.TemporaryFile()  # noqa: SIM115
        self.popen = subprocess.Popen(
            command.argv(), env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def wait(self, timeout: float) -> int:
        """The exit status, waiting at most ``timeout`` seconds (TimeoutExpired otherwise)."""
        return self.popen.wait(timeout)

    def alive(self) -> bool:
        """Whether it is still running."""
        return self.popen.poll() is None

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` to its whole session, if it still runs."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, sig)

    def output(self) -> str:
        """Everything the process printed so far."""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def close(self) -> None:
        """Kill the process (and its session), reap it, and drop its log."""
        self.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(5)
        self.log.close()


def request(
    url: str,
    body: Any = None,
    key: str | None = None,
    timeout: float = 5.0,
    headers: Mapping[str, str] | None = None,
) -> tuple[int, bytes]:
    """One HTTP request: (status, body); status 0 when nothing answers."""
    data = None if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers=dict(headers or {}))
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if key is not None:
        req.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return 0, b""


def poll(url: str, until: Callable[[int], bool], timeout: float, seen: list[int] | None = None) -> int:
    """Poll ``url`` every 50 ms until its status satisfies ``until``; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        status, _ = request(url, timeout=2.0)
        if seen is not None and (not seen or seen[-1] != status):
            seen.append(status)
        if until(status):
            return status
        if time.monotonic() > deadline:
            raise AssertionError(f"{url}: status {status} after {timeout} s (seen {seen})")
        time.sleep(0.05)


def wait_port(host: str, port: int, timeout: float) -> None:
    """What a supervisor does for ``wait_for_leader_port``: hold until the port accepts."""
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{host}:{port} did not accept within {timeout} s")
        time.sleep(0.05)


def parse_metrics(text: str) -> dict[str, float]:
    """Parse Prometheus text into ``{'name{labels}': value}``, checking every line's shape."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            assert line.startswith(("# HELP ", "# TYPE ")) or not line, line
            continue
        name, value = line.rsplit(" ", 1)
        out[name] = float(value)
    return out


def sample(parsed: Mapping[str, float], name: str, **labels: str) -> float:
    """The value of the one sample ``name`` whose labels include ``labels``."""
    found = [
        value
        for key, value in parsed.items()
        if key.split("{", 1)[0] == name and all(f'{k}="{v}"' in key for k, v in labels.items())
    ]
    assert len(found) == 1, (name, labels, found)
    return found[0]


def stream(url: str, body: Any, key: str | None = None, timeout: float = 10.0) -> tuple[list[Any], bool]:
    """POST a streaming request and read its server-sent events: (JSON chunks, whether [DONE] came)."""
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    if key is not None:
        req.add_header("Authorization", f"Bearer {key}")
    chunks: list[Any] = []
    with urllib.request.urlopen(req, timeout=timeout) as response:
        assert response.headers.get_content_type() == "text/event-stream"
        for raw in response:
            line = raw.decode().strip()
            if not line:
                continue
            assert line.startswith("data: "), line
            if line == "data: [DONE]":
                return chunks, True
            chunks.append(json.loads(line[6:]))
    return chunks, False


class KVSubscriber:
    """The agent's side of KV-cache events: a SUB socket bound on a loopback port, as vLLM expects.

    A thread receives continuously, as an agent does. It matters: a bound SUB socket sends
    its subscription to a publisher that connects only when the socket is next used, and
    a publisher drops what it sends before the subscription arrives.
    """

    def __init__(self, topic: str = "", port: int = 0) -> None:
        """Bind on ``port`` of loopback, or on a free one when it is 0.

        :raises zmq.ZMQError: ``port`` is taken.
        """
        import zmq

        self._unpackb: Callable[..., Any] = __import__("msgpack").unpackb
        self._context = zmq.Context()
        self.socket = self._context.socket(zmq.SUB)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt_string(zmq.SUBSCRIBE, topic)
        if port:
            self.socket.bind(f"tcp://127.0.0.1:{port}")
            self.port = port
        else:
            self.port = self.socket.bind_to_random_port("tcp://127.0.0.1")
        self._received: queue.Queue[tuple[bytes, int, Any]] = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._receive_loop, name="kv-subscriber", daemon=True)
        self._thread.start()

    def _receive_loop(self) -> None:
        while not self._stop.is_set():
            if self.socket.poll(20):
                topic, seq, payload = self.socket.recv_multipart()
                self._received.put((topic, int.from_bytes(seq, "big"), self._unpackb(payload, raw=False)))

    def receive(self, timeout: float) -> tuple[bytes, int, Any] | None:
        """The next ``(topic, seq, decoded KVEventBatch)``, or None after ``timeout`` seconds."""
        try:
            return self._received.get(timeout=timeout)
        except queue.Empty:
            return None

    def events(self, until: Callable[[list[Any]], bool], timeout: float) -> list[Any]:
        """Collect events until ``until(events)`` holds; fail after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        found: list[Any] = []
        while not until(found):
            got = self.receive(max(deadline - time.monotonic(), 0))
            if got is None:
                raise AssertionError(f"KV events: condition not met within {timeout} s; got {found}")
            found.extend(got[2][1])
        return found

    def close(self) -> None:
        """Stop receiving and close the socket."""
        self._stop.set()
        self._thread.join(5)
        self.socket.close(linger=0)
        self._context.term()
