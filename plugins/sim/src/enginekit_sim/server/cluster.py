"""The join protocol of a simulated multi-node replica: workers join the leader and live and die with it.

JSON lines over one TCP connection per worker, to the leader port (``--master-addr``/
``--master-port``, where a real tensor-parallel group rendezvouses):

* worker -> leader ``{"op": "join", "rank", "nnodes", "model", "tp", "pp"}``; the leader
  answers ``{"op": "welcome"}`` or ``{"op": "refused", "reason"}`` and closes;
* worker -> leader ``{"op": "ready"}`` once its share of the model is "loaded";
* both ways ``{"op": "ping"}`` every heartbeat; silence for three heartbeats, or the
  connection closing, means the peer is gone. A worker then exits 1; a leader turns
  unhealthy for good, as a tensor-parallel group that lost a member does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Callable
from typing import Any

from enginekit_sim.server.settings import Settings

JOIN_REPLY_TIMEOUT = 10.0


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


async def _pinger(writer: asyncio.StreamWriter, interval: float) -> None:
    with contextlib.suppress(ConnectionError, RuntimeError):
        while True:
            writer.write(_line({"op": "ping"}))
            await writer.drain()
            await asyncio.sleep(interval)


class Leader:
    """Takes workers' joins on the leader port and tracks who is in."""

    def __init__(
        self, settings: Settings, on_change: Callable[[], None], on_lost: Callable[[str], None]
    ) -> None:
        self.settings = settings
        self.ranks: dict[int, str] = {}
        self.lost = ""
        self._on_change, self._on_lost = on_change, on_lost
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        #: Each worker's connection handler, so that closing can wait for it to end.
        self._handlers: set[asyncio.Task[Any]] = set()
        self._closing = False

    def all_ready(self) -> bool:
        """Whether every worker rank has joined and loaded."""
        return not self.lost and sum(s == "ready" for s in self.ranks.values()) == self.settings.nnodes - 1

    async def start(self) -> None:
        """Listen on the leader port."""
        s = self.settings
        self._server = await asyncio.start_server(self._handle, host=s.master_addr, port=s.master_port)

    async def close(self) -> None:
        """Stop listening; workers see the connection close and exit.

        Each handler is let finish, never cancelled: asyncio's stream server reads the
        result of a handler task that ends cancelled (as ``asyncio.run`` cancels whatever
        is left when the process stops), and Python 3.10 and 3.11 log that as an
        "Exception in callback" traceback on every stop of a leader with a worker.
        """
        self._closing = True
        if self._server is not None:
            self._server.close()
            for writer in list(self._writers):
                writer.close()  # its handler reads the end of the connection and returns
            if self._handlers:
                _, left = await asyncio.wait(self._handlers, timeout=JOIN_REPLY_TIMEOUT / 2)
                # A worker that does not read holds a closing connection open: drop it.
                for writer in list(self._writers):
                    writer.transport.abort()
                if left:
                    await asyncio.wait(left, timeout=JOIN_REPLY_TIMEOUT / 2)
            await self._server.wait_closed()

    def _refusal(self, msg: Any) -> str:
        s = self.settings
        if not isinstance(msg, dict) or msg.get("op") != "join":
            return "expected a join"
        rank = msg.get("rank")
        if not isinstance(rank, int) or not 1 <= rank < s.nnodes:
            return f"rank {rank!r} is not a worker rank of a {s.nnodes}-node replica"
        if self.lost:
            return f"the replica is broken ({self.lost}); restart every rank"
        if rank in self.ranks:
            return f"rank {rank} has already joined"
        want = {"nnodes": s.nnodes, "model": s.model, "tp": s.tp, "pp": s.pp}
        for key, value in want.items():
            if msg.get(key) != value:
                return f"{key} is {msg.get(key)!r} on rank {rank}, {value!r} on the leader"
        return ""

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        rank = None
        pinger = None
        self._writers.add(writer)
        handler = asyncio.current_task()
        if handler is not None:
            self._handlers.add(handler)
        try:
            msg = json.loads(await asyncio.wait_for(reader.readline(), JOIN_REPLY_TIMEOUT) or b"null")
            refusal = self._refusal(msg)
            if refusal:
                writer.write(_line({"op": "refused", "reason": refusal}))
                await writer.drain()
                return
            rank = msg["rank"]
            self.ranks[rank] = "joined"
            print(f"enginekit-sim: worker rank {rank} joined", file=sys.stderr, flush=True)
            writer.write(_line({"op": "welcome"}))
            pinger = asyncio.create_task(_pinger(writer, self.settings.heartbeat_s))
            why = await _listen(reader, self.settings.heartbeat_s, lambda: self._ready(rank))
            self._lose(rank, why)
        except (OSError, ValueError, asyncio.TimeoutError) as exc:
            if rank is not None:
                self._lose(rank, f"connection failed: {exc or type(exc).__name__}")
        finally:
            if pinger is not None:
                pinger.cancel()
            self._writers.discard(writer)
            if handler is not None:
                self._handlers.discard(handler)
            writer.close()

    def _ready(self, rank: int) -> None:
        self.ranks[rank] = "ready"
        self._on_change()

    def _lose(self, rank: int, why: str) -> None:
        if self._closing:
            return
        self.lost = self.lost or f"worker rank {rank} left: {why}"
        self._on_lost(self.lost)


async def _listen(reader: asyncio.StreamReader, heartbeat: float, on_ready: Callable[[], None]) -> str:
    """Read the peer's lines until it goes away; return why it is considered gone."""
    while True:
        try:
            line = await asyncio.wait_for(reader.readline(), 3 * heartbeat)
        except asyncio.TimeoutError:
            return f"no heartbeat for {3 * heartbeat:g} s"
        except ConnectionResetError:
            # A killed peer's kernel resets a connection with unread heartbeats in it
            # instead of closing it: the same departure.
            return "connection closed: reset"
        if not line:
            return "connection closed"
        message = json.loads(line)
        if isinstance(message, dict) and message.get("op") == "ready":
            on_ready()


async def run_worker(settings: Settings, loaded: asyncio.Future[None]) -> int:
    """Join the leader, report ready once ``loaded`` is done, and return when the leader is gone.

    :returns: 1 when the join fails or the leader goes away, as a real worker exits.
    """
    s, loop = settings, asyncio.get_running_loop()
    where = f"{s.master_addr}:{s.master_port}"
    deadline = loop.time() + s.join_timeout_s
    while True:
        try:
            connecting = asyncio.open_connection(s.master_addr, s.master_port)
            reader, writer = await asyncio.wait_for(connecting, JOIN_REPLY_TIMEOUT)
            break
        except (OSError, asyncio.TimeoutError) as exc:
            if loop.time() >= deadline:
                print(
                    f"enginekit-sim: could not reach the leader at {where}: {exc}",
                    file=sys.stderr,
                    flush=True,
                )
                return 1
            await asyncio.sleep(0.1)
    join = {"op": "join", "rank": s.rank, "nnodes": s.nnodes, "model": s.model, "tp": s.tp, "pp": s.pp}
    writer.write(_line(join))
    try:
        reply = json.loads(await asyncio.wait_for(reader.readline(), JOIN_REPLY_TIMEOUT) or b"null")
    except (OSError, ValueError, asyncio.TimeoutError) as exc:
        reply = {"op": "refused", "reason": f"no answer ({exc or type(exc).__name__})"}
    if not isinstance(reply, dict) or reply.get("op") != "welcome":
        reason = reply.get("reason") if isinstance(reply, dict) else reply
        print(
            f"enginekit-sim: the leader at {where} refused rank {s.rank}: {reason}",
            file=sys.stderr,
            flush=True,
        )
        writer.close()
        return 1
    print(f"enginekit-sim: rank {s.rank} joined the leader at {where}", file=sys.stderr, flush=True)
    pinger = asyncio.create_task(_pinger(writer, s.heartbeat_s))

    def report(done: asyncio.Future[None]) -> None:
        with contextlib.suppress(RuntimeError, asyncio.CancelledError):
            done.result()
            writer.write(_line({"op": "ready"}))

    loaded.add_done_callback(report)
    try:
        why = await _listen(reader, s.heartbeat_s, lambda: None)
    except (OSError, ValueError) as exc:
        why = f"connection failed: {exc}"
    finally:
        pinger.cancel()
        writer.close()
    print(f"enginekit-sim: the leader at {where} went away ({why})", file=sys.stderr, flush=True)
    return 1
