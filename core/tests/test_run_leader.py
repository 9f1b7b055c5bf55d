"""Waiting for the leader's port: a name lookup that hangs holds up neither a stop nor the timeout."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
from enginekit.run import leader


@pytest.fixture
def hanging_lookup(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Every connection attempt hangs (as in a resolver that never answers) until released."""
    release = threading.Event()

    def hang(*_args: object, **_kwargs: object) -> socket.socket:
        release.wait(30)
        raise OSError("released")

    monkeypatch.setattr(leader.socket, "create_connection", hang)
    yield release
    release.set()


def _wait(*, timeout: float, cancelled: object) -> tuple[bool | None, float]:
    began = time.monotonic()
    result = leader.wait_for_port(
        "leader.example",
        29500,
        timeout=timeout,
        interval=0.1,
        progress_every=60,
        progress=lambda _elapsed: None,
        cancelled=cancelled,  # type: ignore[arg-type]
    )
    return result, time.monotonic() - began


def test_a_stop_during_a_hanging_lookup_is_taken_at_once(hanging_lookup: threading.Event) -> None:
    stop_at = time.monotonic() + 0.3
    result, took = _wait(timeout=60, cancelled=lambda: time.monotonic() >= stop_at)
    assert result is None
    assert took < 1.5


def test_the_leader_timeout_holds_during_a_hanging_lookup(hanging_lookup: threading.Event) -> None:
    result, took = _wait(timeout=0.5, cancelled=lambda: False)
    assert result is False
    assert took < 1.5


def test_a_port_that_accepts_is_found() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        result = leader.wait_for_port(
            "127.0.0.1",
            port,
            timeout=5,
            interval=0.1,
            progress_every=60,
            progress=lambda _elapsed: None,
            cancelled=lambda: False,
        )
    assert result is True
