"""The data-parallel group against a hostile or broken peer on the leader's rpc port, and back.

A member whose messages break the leader's handler (an unhashable id, JSON nested past the
recursion limit) is lost like one that left, never dropped silently with its ranks still
joined and /health true; a member names KV-event endpoints for its own ranks only; a run a
member cannot carry out is failed back, and a step that is no number fails the request.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

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


def _join(events: dict[str, str]) -> dict[str, Any]:
    """A headless member's join for rank 1 of two, announcing ``events`` as its KV-event endpoints."""
    return {
        "op": "join",
        "ranks": [1],
        "size": 2,
        "mode": "internal",
        "model": "/m",
        "tp": 1,
        "pp": 1,
        "serves": False,
        "events": events,
    }


@pytest.mark.parametrize(
    "poison",
    [
        b'{"op": "step", "id": [1], "step": 0}\n',  # unhashable id: TypeError in Member.deliver
        b"[" * 60000 + b"\n",  # nested too deep: RecursionError in json.loads
    ],
    ids=["unhashable-id", "deep-nesting"],
)
def test_a_member_sending_poison_is_lost_not_silently_dropped(poison: bytes) -> None:
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
        join = _join({})
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


def test_a_member_cannot_name_another_rank_s_kv_event_endpoint() -> None:
    """A joining member's "events" once named rank 0 too, and the leader's
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
        join = _join({"0": "tcp://evil:1", "1": "tcp://member:5558"})
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


def test_a_run_the_member_cannot_carry_out_is_failed_back_whatever_went_wrong() -> None:
    from enginekit_sim.server.dataparallel import _run

    sent: list[dict[str, Any]] = []
    link = type("L", (), {"send": lambda self, m: sent.append(m)})()

    class Broken:
        def run(self, job: Any) -> Any:
            raise RuntimeError("boom")

    runs: dict[int, Any] = {}
    for raw in ({"prompt": "x", "prompt_tokens": ["x"], "max_tokens": 1}, {"unknown": 1}, None):
        asyncio.run(_run(link, Broken(), 3, raw, runs))  # type: ignore[arg-type]
        assert sent[-1] == {
            "op": "fail",
            "id": 3,
            "reason": "the leader sent a request this rank cannot read",
        }


def test_a_step_that_is_no_number_fails_the_request_not_the_server() -> None:
    from enginekit_sim.server.dataparallel import Member

    settings = _settings()
    assert settings.dp is not None
    group = Group(settings, settings.dp, lambda: None, lambda reason: None)
    sent: list[dict[str, Any]] = []
    member = Member((1,), type("L", (), {"send": lambda self, m: sent.append(m)})(), {})  # type: ignore[arg-type]
    group.members[1] = member
    remote = RemoteRank(1, group)

    async def scenario() -> None:
        done = asyncio.ensure_future(remote.complete(Job(prompt="x", prompt_tokens=["x"], max_tokens=2)))
        await asyncio.sleep(0)
        member.deliver({"op": "step", "id": sent[-1]["id"], "step": "one"})
        with pytest.raises(EngineDead, match="reported a step that is no number"):
            await done

    asyncio.run(scenario())
    assert remote.load() == 0
