"""KV-cache events over ZMQ exactly as vLLM's ``ZmqEventPublisher`` sends them.

Each batch is one multipart message ``(topic, seq, payload)``: the topic as UTF-8, the
sequence number as 8 big-endian bytes counting from 0, and the msgpack ``KVEventBatch``
``[ts, events, data_parallel_rank]``. Events are msgpack maps tagged by ``type``, as vLLM
sends them since it dropped ``array_like`` from its event structs (vllm#42892); the
``array`` format is the positional one older vLLM releases and their consumers use.

With a ``replay_endpoint`` a ROUTER socket answers replay requests as vLLM 0.32's
(vllm/distributed/kv_events.py, ``_service_replay``): a request is the starting sequence
number as 8 big-endian bytes, behind the empty delimiter a REQ socket adds (a DEALER sends
it itself); the answer is every buffered batch from that number on, each as ``(topic, seq,
payload)``, then the end marker ``(b"", -1 as 8 signed big-endian bytes, b"")``.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import importlib
import time
from collections.abc import Callable
from typing import Any

import zmq

from enginekit_sim.server.kvcache import Event
from enginekit_sim.server.settings import KVEvents

#: Field order of vLLM's positional (``array_like``) structs, after the tag.
_POSITIONAL = {
    "BlockStored": (
        "block_hashes",
        "parent_block_hash",
        "token_ids",
        "block_size",
        "lora_id",
        "medium",
        "lora_name",
    ),
    "BlockRemoved": ("block_hashes", "medium"),
    "AllBlocksCleared": (),
}


def _packer() -> Callable[[Any], bytes]:
    # msgpack ships no type information; its one function used here is typed by hand.
    packb: Callable[..., bytes] = importlib.import_module("msgpack").packb
    return lambda obj: packb(obj, use_bin_type=True)


def encode_event(event: Event, fmt: str) -> Any:
    """One event in the wire shape of ``fmt`` (``map`` or ``array``)."""
    if fmt == "map":
        return event
    return [event["type"], *(event[name] for name in _POSITIONAL[event["type"]])]


def binds(endpoint: str) -> bool:
    """vLLM's rule: wildcard, IPv6-any, ipc and inproc endpoints are bound, the rest connected."""
    return "*" in endpoint or "::" in endpoint or endpoint.startswith(("ipc://", "inproc://"))


#: vLLM's end-of-replay sequence number: -1 as 8 signed big-endian bytes.
END_SEQ = (-1).to_bytes(8, "big", signed=True)


def offset_endpoint(endpoint: str, rank: int) -> str:
    """vLLM's ``offset_endpoint_port``: each data-parallel rank publishes on the port plus its rank.

    ``inproc`` endpoints get a ``_dp<rank>`` suffix instead; a tcp port of 0 is the OS's,
    and rank 0 keeps the endpoint as given.
    """
    if not endpoint or rank == 0:
        return endpoint
    if "inproc" in endpoint:
        return f"{endpoint}_dp{rank}"
    head, colon, port = endpoint.rpartition(":")
    if "tcp" not in endpoint or not colon or not port.isdigit() or int(port) == 0:
        return endpoint
    return f"{head}:{int(port) + rank}"


class Publisher:
    """Collects events and sends them as one batch per loop turn, like one batch per engine step."""

    def __init__(self, config: KVEvents, rank: int = 0) -> None:
        """Open the sockets; with a replay endpoint, answer replays on the running loop, if any.

        :raises zmq.ZMQError: an endpoint cannot be bound or connected.
        """
        self.config = config
        self.rank = rank
        #: Where it publishes: the configured endpoint moved by its data-parallel rank.
        self.endpoint = offset_endpoint(config.endpoint, rank)
        #: Where it answers replays, moved by the rank as vLLM moves it; None without.
        self.replay_endpoint = (
            offset_endpoint(config.replay_endpoint, rank) if config.replay_endpoint else None
        )
        self.sent = 0
        self.dropped = 0
        self._pack = _packer()
        self._topic = config.topic.encode("utf-8")
        self._pending: list[Event] = []
        #: The last ``buffer_steps`` batches as sent, ``(seq, payload)``, for replays.
        self._buffer: collections.deque[tuple[int, bytes]] = collections.deque(maxlen=config.buffer_steps)
        self._context = zmq.Context()
        self._socket = self._context.socket(zmq.PUB)
        # vLLM's set_hwm: the high-water mark both ways (a PUB socket only sends).
        self._socket.setsockopt(zmq.SNDHWM, config.hwm)
        self._socket.setsockopt(zmq.RCVHWM, config.hwm)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._replay: zmq.Socket[bytes] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: The turn of the loop booked to answer the next replay request; None when none is.
        self._next: asyncio.Handle | None = None
        try:
            if binds(self.endpoint):
                self._socket.bind(self.endpoint)
            else:
                self._socket.connect(self.endpoint)
            if self.replay_endpoint is not None:
                # Always bound, as vLLM binds it: consumers connect to ask.
                self._replay = self._context.socket(zmq.ROUTER)
                self._replay.setsockopt(zmq.LINGER, 0)
                self._replay.bind(self.replay_endpoint)
        except zmq.ZMQError:
            self._close_sockets()
            raise
        if self._replay is not None:
            with contextlib.suppress(RuntimeError):  # no running loop: serve_replays() by hand
                self._loop = asyncio.get_running_loop()
                self._loop.add_reader(self._replay, self.serve_replays)

    def publish(self, events: list[Event]) -> None:
        """Queue ``events``; the batch goes out when the current loop turn ends."""
        if not self._pending:
            asyncio.get_running_loop().call_soon(self.flush)
        self._pending.extend(events)

    def flush(self) -> None:
        """Send the pending events as one batch now."""
        if not self._pending:
            return
        events, self._pending = self._pending, []
        fmt = self.config.fmt
        batch = [time.time(), [encode_event(e, fmt) for e in events], self.rank]
        frames = (self._topic, self.sent.to_bytes(8, "big"), self._pack(batch))
        try:
            # Never block the server on a slow subscriber: drop at the high-water mark,
            # as a PUB socket does, and count it.
            self._socket.send_multipart(frames, flags=zmq.NOBLOCK)
        except zmq.Again:
            self.dropped += 1
        if self._replay is not None:
            # Buffered even when the subscriber missed it, as vLLM's PUB socket drops at
            # its high-water mark without a word: a replay is how a consumer gets it back.
            self._buffer.append((self.sent, frames[2]))
        self.sent += 1

    def serve_replays(self) -> None:
        """Answer a replay request waiting, as vLLM's ``_service_replay`` answers one a turn.

        vLLM answers on its publisher's thread, one request a turn of it: its API server
        never waits. Here the event loop serves HTTP too, so each request is a turn of the
        loop of its own, the next booked while any waits: a client asking again and again
        cannot hold the loop (and /health) for as long as it keeps asking. ZMQ's descriptor
        only says the socket's state changed, and sending can take the signal of a request
        that arrived meanwhile: the socket is asked again on each turn until none waits.
        Without a running loop (called by hand) every request waiting is answered.
        """
        if self._replay is None or self._next is not None:
            return  # a turn is booked: it asks the socket itself
        if self._loop is None:
            while self._answer_one():
                pass
        elif self._answer_one():
            self._next = self._loop.call_soon(self._turn)

    def _turn(self) -> None:
        self._next = None
        if self._answer_one() and self._loop is not None:
            self._next = self._loop.call_soon(self._turn)

    def _answer_one(self) -> bool:
        """Answer the first replay request waiting; False when none waits."""
        replay = self._replay
        if replay is None or not replay.poll(0):
            return False
        try:
            frames = replay.recv_multipart(zmq.NOBLOCK)
        except zmq.Again:
            return False
        if len(frames) != 3:
            return True  # vLLM logs "Invalid replay request" and answers nothing
        client, _, start = frames
        first = int.from_bytes(start, "big")
        # A ROUTER socket drops what it cannot route (the client left) or queue (past
        # its high-water mark): nothing here blocks, as nothing does in vLLM's.
        for seq, payload in self._buffer:
            if seq >= first:
                replay.send_multipart((client, b"", self._topic, seq.to_bytes(8, "big"), payload))
        replay.send_multipart((client, b"", b"", END_SEQ, b""))
        return True

    def close(self) -> None:
        """Send what is pending and close the sockets."""
        self.flush()
        self._close_sockets()

    def _close_sockets(self) -> None:
        if self._next is not None:
            self._next.cancel()
            self._next = None
        if self._loop is not None and self._replay is not None and not self._loop.is_closed():
            self._loop.remove_reader(self._replay)
        self._socket.close(linger=0)
        if self._replay is not None:
            self._replay.close(linger=0)
        self._context.term()
