"""REVIEW-26 (hostile review): a joined peer on the leader's rpc port can kill the leader's
handler for its connection without the group noticing: the ranks stay "joined", /health
stays true, and a request already sent there waits forever.

Failed before the fix in the same commit: Group._handle now treats any exception from a member's messages as the
member leaving (or Member.deliver/Link.receive stop raising on hostile input).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest
from enginekit_sim.commandline import build_parser
from enginekit_sim.server.core import EngineCore
from enginekit_sim.server.dataparallel import Front, Group, RemoteRank
from enginekit_sim.server.jobs import EngineDead, Job
from enginekit_sim.server.settings import Settings, settings_from


def _settings() -> Settings:
    args = build_parser().parse_args(
        [
            "serve",
            "/m",
            "--startup-seconds",
            "0",
            "--ttft-ms",
            "0",
            "--itl-ms",
            "0",
            "--heartbeat-seconds",
            "0.05",
            "--data-parallel-size",
            "2",
            "--data-parallel-size-local",
            "1",
        ]
    )
    return settings_from(args, {})


@pytest.mark.parametrize(
    "poison",
    [
        b'{"op": "step", "id": [1], "step": 0}\n',  # unhashable id: TypeError in Member.deliver
        b"[" * 60000 + b"\n",  # nested too deep: RecursionError in json.loads
    ],
    ids=["unhashable-id", "deep-nesting"],
)
def test_review26_a_member_sending_poison_is_lost_not_silently_dropped(poison: bytes) -> None:
    settings = _settings()
    assert settings.dp is not None
    broken: list[str] = []

    async def scenario() -> None:
        assert settings.dp is not None
        dp = dataclasses.replace(settings.dp, address="127.0.0.1", rpc_port=0)
        group = Group(settings, dp, lambda: None, broken.append)
        await group.start()
        assert group._server is not None
        port = group._server.sockets[0].getsockname()[1]
        cores = {0: EngineCore(settings, rank=0)}
        front = Front(settings, cores, {1: RemoteRank(1, group)}, group)
        group._on_ready = front.set_ready

        def on_broken(reason: str) -> None:
            broken.append(reason)
            front.set_broken(reason)

        group._on_broken = on_broken
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        join = {
            "op": "join",
            "ranks": [1],
            "size": 2,
            "mode": "internal",
            "model": "/m",
            "tp": 1,
            "pp": 1,
            "serves": False,
            "events": {},
        }
        writer.write(json.dumps(join).encode() + b"\n" + b'{"op": "ready"}\n')
        await writer.drain()
        assert json.loads(await reader.readline())["op"] == "welcome"
        group.set_loaded()
        for core in cores.values():
            core.set_ready()
        await asyncio.sleep(0.05)
        assert front.healthy()
        job = Job(prompt="x", prompt_tokens=["x"], max_tokens=2, outputs=[["a", "b"]])
        request = asyncio.ensure_future(RemoteRank(1, group).complete(job))
        await asyncio.sleep(0.05)
        writer.write(poison)
        await writer.drain()
        await asyncio.sleep(0.2)
        writer.close()  # and then the peer goes: the leader must notice either
        await asyncio.sleep(0.5)  # ten heartbeats
        healthy = front.healthy()
        try:
            with pytest.raises(EngineDead):
                await asyncio.wait_for(request, 2)
        finally:
            await group.close()
        assert not healthy, "/health still true after the member's connection was dropped"
        assert broken, "the group never broke"

    asyncio.run(scenario())


def test_review26_a_member_cannot_name_another_rank_s_kv_event_endpoint() -> None:
    """REVIEW-26: a joining member's "events" named rank 0 too, and the leader's
    /kv_event_sources then sent routers to the member's endpoint for the leader's own rank."""
    settings = _settings()
    assert settings.dp is not None

    async def scenario() -> dict[int, str]:
        assert settings.dp is not None
        dp = dataclasses.replace(settings.dp, address="127.0.0.1", rpc_port=0)
        group = Group(settings, dp, lambda: None, lambda reason: None)
        await group.start()
        assert group._server is not None
        port = group._server.sockets[0].getsockname()[1]
        cores = {0: EngineCore(settings, rank=0)}
        front = Front(settings, cores, {1: RemoteRank(1, group)}, group)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        join = {
            "op": "join",
            "ranks": [1],
            "size": 2,
            "mode": "internal",
            "model": "/m",
            "tp": 1,
            "pp": 1,
            "serves": False,
            "events": {"0": "tcp://evil:1", "1": "tcp://member:5558"},
        }
        writer.write(json.dumps(join).encode() + b"\n")
        await writer.drain()
        assert json.loads(await reader.readline())["op"] == "welcome"
        try:
            return front.event_endpoints()
        finally:
            writer.close()
            await group.close()

    endpoints = asyncio.run(scenario())
    assert endpoints.get(0) != "tcp://evil:1"
    assert endpoints[1] == "tcp://member:5558"
