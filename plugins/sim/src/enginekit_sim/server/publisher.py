"""KV-cache events over ZMQ exactly as vLLM's ``ZmqEventPublisher`` sends them.

Each batch is one multipart message ``(topic, seq, payload)``: the topic as UTF-8, the
sequence number as 8 big-endian bytes counting from 0, and the msgpack ``KVEventBatch``
``[ts, events, data_parallel_rank]``. Events are msgpack maps tagged by ``type``, as vLLM
sends them since it dropped ``array_like`` from its event structs (vllm#42892); the
``array`` format is the positional one older vLLM releases and their consumers use.
"""

from __future__ import annotations

import asyncio
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
        self.config = config
        self.rank = rank
        #: Where it publishes: the configured endpoint moved by its data-parallel rank.
        self.endpoint = offset_endpoint(config.endpoint, rank)
        self.sent = 0
        self.dropped = 0
        self._pack = _packer()
        self._topic = config.topic.encode("utf-8")
        self._pending: list[Event] = []
        self._context = zmq.Context()
        self._socket = self._context.socket(zmq.PUB)
        self._socket.setsockopt(zmq.SNDHWM, 100_000)
        self._socket.setsockopt(zmq.LINGER, 0)
        if binds(self.endpoint):
            self._socket.bind(self.endpoint)
        else:
            self._socket.connect(self.endpoint)

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
        self.sent += 1

    def close(self) -> None:
        """Send what is pending and close the socket."""
        self.flush()
        self._socket.close(linger=0)
        self._context.term()
