"""The KV transfer between a prefill and a decode instance, as the routers and the ports see it.

Two engines' protocols, as their routers drive them: vLLM's NIXL (below) and SGLang's
bootstrap. Under SGLang's, the router sends one request to a prefill and a decode at once,
each carrying ``bootstrap_host``, ``bootstrap_port`` and ``bootstrap_room``; the prefill
computes the prompt and holds its blocks under the room at its bootstrap server (on
``--disaggregation-bootstrap-port``, its leader's); the decode asks that server for the
room, waiting until the prefill holds it, and the client gets the decode's answer.

What crosses HTTP is vLLM's: a request whose ``kv_transfer_params`` say ``do_remote_decode``
is prefilled here, and its answer carries the parameters a decode instance needs
(``remote_engine_id``, ``remote_block_ids``, ``remote_host``, ``remote_port``…, the keys
of vLLM 0.34's pull scheduler); a request that carries them back with
``do_remote_prefill`` is decoded from the prefill's cache instead of computing it.

What crosses the side channel is the simulator's own, since no NIXL moves memory here:
each rank listens where vLLM's engine core would (``VLLM_NIXL_SIDE_CHANNEL_HOST``, and
``VLLM_NIXL_SIDE_CHANNEL_PORT`` plus its data-parallel rank, from vLLM 0.11.1), so a port
another instance holds stops this one at start as it stops vLLM; a decode instance asks
the prefill's side channel for the request's blocks (one JSON line each way) and is told
how many tokens they hold, then waits the modelled transfer time for them.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: The variables vLLM's NixlConnector reads, and their defaults from vLLM 0.11.1.
HOST_ENV, PORT_ENV = "VLLM_NIXL_SIDE_CHANNEL_HOST", "VLLM_NIXL_SIDE_CHANNEL_PORT"
DEFAULT_HOST, DEFAULT_PORT = "localhost", 5600
CONNECTOR = "NixlConnector"
ROLES = ("kv_both", "kv_producer", "kv_consumer")
#: How long a prefill holds a request's blocks for its decode (vLLM's kv_lease_duration default).
HOLD_SECONDS = 30.0
#: The longest side-channel line read: a request id and a few numbers.
MAX_LINE = 4096


#: vLLM's protocol (``kv_transfer_params``) and SGLang's (``bootstrap_*``).
VLLM, SGLANG = "vllm", "sglang"
#: How long a prefill's bootstrap server waits for a room a decode asks for: the router
#: sends the request to both at once (SGLang's SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT is 300).
ROOM_WAIT = 30.0


@dataclass(frozen=True)
class TransferConfig:
    """A prefill or decode instance's transfer: whose protocol, and where its side channel listens."""

    host: str
    port: int
    engine_id: str
    #: Seconds to move one token's KV cache from the prefill.
    s_per_token: float
    protocol: str = VLLM
    #: SGLang's ``--disaggregation-mode``: ``prefill`` or ``decode``; empty under vLLM's,
    #: where each request says which it is.
    mode: str = ""


def bootstrap_config(
    mode: str, port: int, host: str, ms_per_token: float, problems: list[str]
) -> TransferConfig | None:
    """SGLang's ``--disaggregation-mode`` and bootstrap port; None for ``null`` (no role)."""
    if mode == "null":
        return None
    if not 1 <= port <= 65535:
        problems.append(f"--disaggregation-bootstrap-port must be a port, got {port}")
    # SGLang's bootstrap server listens on every address of the prefill's host.
    return TransferConfig(
        host=host or "0.0.0.0",
        port=port,
        engine_id="",
        s_per_token=ms_per_token / 1000,
        protocol=SGLANG,
        mode=mode,
    )


def transfer_config(
    text: str, environ: Mapping[str, str], ms_per_token: float, problems: list[str]
) -> TransferConfig | None:
    """The transfer ``--kv-transfer-config`` asks for, or None without one; problems are said as vLLM's."""
    if not text:
        return None
    try:
        config = json.loads(text)
    except ValueError:
        problems.append("--kv-transfer-config must be a JSON object")
        return None
    if not isinstance(config, dict):
        problems.append("--kv-transfer-config must be a JSON object")
        return None
    if config.get("kv_connector") != CONNECTOR:
        problems.append(
            f"--kv-transfer-config: the simulator moves KV caches as vLLM's {CONNECTOR} does, "
            f"not {str(config.get('kv_connector'))[:40]!r}"
        )
    if config.get("kv_role") not in ROLES:
        problems.append(f"--kv-transfer-config: kv_role must be one of {', '.join(ROLES)}")
    port_text = environ.get(PORT_ENV, str(DEFAULT_PORT))
    if not (port_text.isascii() and port_text.isdigit() and 1 <= int(port_text) <= 65535):
        problems.append(f"{PORT_ENV} must be a port, got {port_text[:40]!r}")
        port_text = str(DEFAULT_PORT)
    engine_id = config.get("engine_id")
    return TransferConfig(
        host=environ.get(HOST_ENV, DEFAULT_HOST),
        port=int(port_text),
        engine_id=engine_id if isinstance(engine_id, str) and engine_id else str(uuid.uuid4()),
        s_per_token=ms_per_token / 1000,
    )


@dataclass
class SideChannel:
    """One rank's side channel: where a decode instance asks for the blocks this prefill holds."""

    config: TransferConfig
    rank: int = 0
    tp: int = 1
    #: Held requests: the tokens their blocks hold, and when the hold lapses.
    held: dict[str, tuple[int, float]] = field(default_factory=dict)
    #: Called once for each request whose blocks a decode instance read.
    on_served: Callable[[], None] = lambda: None
    _server: asyncio.Server | None = None
    #: Rooms a decode asked for before the prefill held them, and who waits for each.
    _waiting: dict[str, asyncio.Event] = field(default_factory=dict)

    @property
    def port(self) -> int:
        """Where this rank listens: the base plus its data-parallel rank (vLLM 0.11.1 on); SGLang's one."""
        return self.config.port + (self.rank if self.config.protocol == VLLM else 0)

    @property
    def listens(self) -> bool:
        """Whether this instance listens at all: every vLLM one, only an SGLang prefill."""
        return self.config.protocol == VLLM or self.config.mode == "prefill"

    async def start(self) -> None:
        """Bind, or raise OSError as vLLM's ZMQ bind does on a port another process holds."""
        self._server = await asyncio.start_server(self._serve, self.config.host, self.port, limit=MAX_LINE)

    def close(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.close()

    def hold(self, request_id: str, tokens: int, block_size: int) -> dict[str, Any]:
        """Keep a prefilled request's blocks for its decode; the ``kv_transfer_params`` to answer with."""
        now = asyncio.get_running_loop().time()
        self.held = {rid: kept for rid, kept in self.held.items() if kept[1] > now}
        self.held[request_id] = (tokens, now + HOLD_SECONDS)
        waiter = self._waiting.pop(request_id, None)
        if waiter is not None:
            waiter.set()
        blocks = list(range(1, (tokens + block_size - 1) // block_size + 1))
        return {
            "do_remote_prefill": True,
            "do_remote_decode": False,
            "remote_block_ids": [blocks],
            "remote_engine_id": self.config.engine_id,
            "remote_request_id": request_id,
            "remote_host": self.config.host,
            "remote_port": self.port,
            "tp_size": self.tp,
            "dcp_size": 1,
            "pp_size": 1,
            "remote_num_tokens": tokens,
            "remote_blocks_expiry_time": None,
            "remote_registration_generation": 0,
            "transfer_mode": "pull",
        }

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), 10)
            asked = json.loads(line) if line else None
            rid = asked.get("remote_request_id") if isinstance(asked, dict) else None
            if isinstance(rid, str) and rid not in self.held and self.config.protocol == SGLANG:
                # The router sent the request to both at once: wait for the prefill to hold it.
                waiter = self._waiting.setdefault(rid, asyncio.Event())
                try:
                    await asyncio.wait_for(waiter.wait(), ROOM_WAIT)
                except asyncio.TimeoutError:
                    # Never held: forget the room, or every such ask would be kept for ever.
                    if self._waiting.get(rid) is waiter:
                        del self._waiting[rid]
            kept = self.held.pop(rid, None) if isinstance(rid, str) else None
            if kept is None:
                answer: dict[str, Any] = {"error": "no blocks held for that request"}
            else:
                self.on_served()
                answer = {"tokens": kept[0]}
            writer.write(json.dumps(answer).encode() + b"\n")
            await writer.drain()
        except (OSError, ValueError, asyncio.TimeoutError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()


class TransferFailed(Exception):
    """The prefill's blocks could not be read: the decode fails the request (kv_load_failure_policy fail)."""


async def fetch(params: Mapping[str, Any], timeout: float = 10.0) -> int:
    """Ask the prefill's side channel for a request's blocks (vLLM's ``kv_transfer_params``); their tokens.

    :raises TransferFailed: the parameters lack what vLLM's decode needs, or the prefill
        does not answer with the blocks.
    """
    host, port, rid = params.get("remote_host"), params.get("remote_port"), params.get("remote_request_id")
    if not isinstance(host, str) or type(port) is not int or not isinstance(rid, str):
        raise TransferFailed("kv_transfer_params lack remote_host, remote_port or remote_request_id")
    return await fetch_from(host, port, rid, timeout)


async def fetch_from(host: str, port: int, rid: str, timeout: float = 10.0) -> int:
    """Ask the side channel at ``host:port`` for the blocks held under ``rid``; how many tokens they hold.

    :raises TransferFailed: nothing answers there, or it holds no blocks under ``rid``.
    """
    shown = f"{host[:80]}:{port}"
    if not 1 <= port <= 65535:
        raise TransferFailed(f"the prefill's side channel port {port} is no port (1-65535)")
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, limit=MAX_LINE), timeout)
        try:
            writer.write(json.dumps({"remote_request_id": rid}).encode() + b"\n")
            await writer.drain()
            answer = json.loads(await asyncio.wait_for(reader.readline(), timeout + ROOM_WAIT) or b"{}")
        finally:
            writer.close()
    except (OSError, ValueError, asyncio.TimeoutError) as exc:
        raise TransferFailed(f"the prefill's side channel at {shown} did not answer: {exc}") from None
    tokens = answer.get("tokens") if isinstance(answer, dict) else None
    if type(tokens) is not int:
        raise TransferFailed(f"the prefill at {shown} holds no blocks for request {rid[:80]!r}")
    return tokens
