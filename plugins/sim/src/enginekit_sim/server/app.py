"""Running the simulated engine: a leader serving HTTP (and taking workers' joins), or a headless worker."""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import gc
import os
import signal
import sys
from typing import Any

from enginekit_sim.commandline import API_KEY_ENV
from enginekit_sim.server.api import Api
from enginekit_sim.server.cluster import Leader, run_worker
from enginekit_sim.server.core import EngineCore
from enginekit_sim.server.dataparallel import Front, Group, RemoteRank, serve_member
from enginekit_sim.server.jobs import die
from enginekit_sim.server.metrics import Gauge
from enginekit_sim.server.publisher import Publisher
from enginekit_sim.server.settings import INTERNAL, DataParallel, Settings, StartupError, settings_from


def _settle(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _say(message: str) -> None:
    print(f"enginekit-sim: {message}", file=sys.stderr, flush=True)


def serve(args: argparse.Namespace) -> int:
    """Run ``serve`` until SIGTERM/SIGINT (0), a fault, or a broken group (1)."""
    try:
        settings = settings_from(args, os.environ)
    except StartupError as exc:
        _say(f"error: {exc}")
        return 1
    # The key stays in this process only: nothing started from here inherits it.
    os.environ.pop(API_KEY_ENV, None)
    exit_fault = settings.fault("exit-at-start")
    if exit_fault is not None:
        _say(f"injected exit-at-start; exiting with {exit_fault.code}")
        return exit_fault.code
    dp = settings.dp
    if dp is not None:
        role = "API server" if dp.serves else "headless process"
        ranks = f"{dp.ranks[0]}-{dp.ranks[-1]}"
        where = f"{role} of data-parallel ranks {ranks} of {dp.size} ({dp.mode} balancing)"
    else:
        role = "worker" if settings.nnodes > 1 and settings.rank > 0 else "leader"
        where = f"{role} rank {settings.rank} of {settings.nnodes}"
    _say(
        f"{where}: model {settings.model!r} as "
        f"{settings.served_name!r}, TP {settings.tp} x PP {settings.pp}, "
        f"devices {','.join(settings.devices) or 'none (CPU)'}"
    )
    if settings.kv_cache_note:
        _say(settings.kv_cache_note)
    return asyncio.run(_main(settings))


async def _main(settings: Settings) -> int:
    loop = asyncio.get_running_loop()
    stop: asyncio.Future[int] = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, _settle, stop, 0)
    if settings.threads > 0:
        loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(max_workers=settings.threads))
    if settings.dp is not None:
        return await _data_parallel(settings, settings.dp, stop)
    if settings.nnodes > 1 and settings.rank > 0:
        return await _worker(settings, stop)
    return await _leader(settings, stop)


def _settled() -> None:
    """Start-up is over: keep what it made out of every later garbage collection.

    The modules, the text passages and the server's own objects live as long as the
    process; left to the collector, each full collection walks all of them again (some
    36,000 objects, 5-8 ms), a pause every stream in flight would see as a late token.
    """
    gc.collect()
    gc.freeze()


def _load(settings: Settings, on_loaded: asyncio.Future[None]) -> None:
    """Finish "loading the model" after the start-up time, unless the start is made to hang."""
    if settings.fault("hang-at-start") is not None:
        _say("injected hang-at-start: never ready")
        return
    asyncio.get_running_loop().call_later(settings.startup_s, _settle, on_loaded, None)


async def _worker(settings: Settings, stop: asyncio.Future[int]) -> int:
    loop = asyncio.get_running_loop()
    loaded: asyncio.Future[None] = loop.create_future()
    crash = settings.fault("crash-after-seconds")
    if crash is not None:
        loaded.add_done_callback(
            lambda _: loop.call_later(crash.amount, die, crash.code, "injected crash-after-seconds")
        )
    _load(settings, loaded)
    _settled()
    worker = asyncio.ensure_future(run_worker(settings, loaded))
    await asyncio.wait({worker, stop}, return_when=asyncio.FIRST_COMPLETED)
    if stop.done():
        worker.cancel()
        return stop.result()
    return worker.result()


def _publishers(settings: Settings, ranks: tuple[int, ...]) -> dict[int, Publisher | None]:
    """Each rank's KV-event publisher (None without KV events), its sockets open.

    :raises StartupError: an endpoint cannot be bound (a replay port in use), as vLLM stops.
    """
    import zmq

    config = settings.kv_events
    made: dict[int, Publisher | None] = {}
    try:
        for rank in ranks:
            made[rank] = Publisher(config, rank) if config is not None else None
    except zmq.ZMQError as exc:
        for publisher in made.values():
            if publisher is not None:
                publisher.close()
        where = f" (data-parallel rank {rank})" if settings.dp is not None else ""
        raise StartupError(f"--kv-events-config{where}: {exc}") from None
    return made


async def _leader(settings: Settings, stop: asyncio.Future[int]) -> int:
    loop = asyncio.get_running_loop()
    try:
        publisher = _publishers(settings, (0,))[0]
    except StartupError as exc:
        _say(f"error: {exc}")
        return 1
    engine = EngineCore(settings, publisher)
    loaded: asyncio.Future[None] = loop.create_future()
    leader: Leader | None = None

    def check() -> None:
        if loaded.done() and (leader is None or leader.all_ready()):
            engine.set_ready()

    if settings.nnodes > 1:
        leader = Leader(settings, check, engine.set_broken)
        ranks = leader.ranks
        engine.metrics.extra.append(
            Gauge(
                "enginekit_sim_workers_ready",
                "Worker ranks joined and loaded.",
                lambda: list(ranks.values()).count("ready"),
            )
        )
    engine.metrics.info = {
        "rank": str(settings.rank),
        "nnodes": str(settings.nnodes),
        "tp": str(settings.tp),
        "pp": str(settings.pp),
        "devices": ",".join(settings.devices),
        "threads": str(settings.threads),
        "adapters": ",".join(settings.adapters),
        "kv_events": settings.kv_events.endpoint if settings.kv_events is not None else "",
    }
    server = Api(engine).server()
    try:
        if leader is not None:
            # The rendezvous listens first, as a real group's does, so workers can join
            # while the leader is still loading.
            await leader.start()
        if engine.side_channel is not None:
            # Bound before the API, as vLLM's engine core binds it before the server answers.
            await engine.side_channel.start()
        await server.start(settings.host or None, settings.port)
    except OSError as exc:
        _say(f"error: cannot listen: {exc}")
        await server.close()
        if leader is not None:
            await leader.close()
        return 1
    where = f"{settings.host or '*'}:{settings.port}"
    _say(
        f"listening on {where}"
        + (f", workers join at {settings.master_addr}:{settings.master_port}" if leader else "")
    )
    loaded.add_done_callback(lambda _: check())
    _load(settings, loaded)
    _settled()
    code = await stop
    _say("shutting down")
    if leader is not None:
        await leader.close()
    if engine.side_channel is not None:
        engine.side_channel.close()
    await server.close()
    if publisher is not None:
        publisher.close()
    return code


async def _data_parallel(settings: Settings, dp: DataParallel, stop: asyncio.Future[int]) -> int:
    """One process of a data-parallel replica: its ranks, the group, and its API server if it has one."""
    loop = asyncio.get_running_loop()
    try:
        publishers = _publishers(settings, dp.ranks)
    except StartupError as exc:
        _say(f"error: {exc}")
        return 1
    cores = {rank: EngineCore(settings, publisher, rank) for rank, publisher in publishers.items()}
    for rank, core in cores.items():
        core.metrics.info = {
            "dp_rank": str(rank),
            "dp_size": str(dp.size),
            "balancing": dp.mode,
            "tp": str(settings.tp),
            "pp": str(settings.pp),
            "devices": ",".join(settings.devices),
            "kv_events": core.publisher.endpoint if core.publisher is not None else "",
        }
    front: Front | None = None

    def ready() -> None:
        if front is not None:
            front.set_ready()
        else:
            for core in cores.values():
                core.set_ready()

    def broken(reason: str) -> None:
        if front is not None:
            front.set_broken(reason)
        else:  # a headless process has nothing left to serve: it exits, as its engine would
            _say(f"unhealthy: {reason}")
            _settle(stop, 1)

    group = Group(settings, dp, ready, broken) if dp.leader else None
    remote = {}
    if group is not None and dp.mode == INTERNAL:
        remote = {rank: RemoteRank(rank, group) for rank in dp.fronted if rank not in cores}
    if dp.serves:
        front = Front(settings, cores, remote, group)
    server = Api(front).server() if front is not None else None
    try:
        if group is not None:
            await group.start()
        if server is not None:
            await server.start(settings.host or None, settings.port)
    except OSError as exc:
        _say(f"error: cannot listen: {exc}")
        await _close(group, server, cores)
        return 1
    listening = [f"API on {settings.host or '*'}:{settings.port}"] if server is not None else []
    if group is not None:
        listening.append(f"data-parallel joins at {dp.address}:{dp.rpc_port}")
    if listening:
        _say("listening: " + ", ".join(listening))
    loaded: asyncio.Future[None] = loop.create_future()
    member = None
    if group is not None:
        loaded.add_done_callback(lambda _: group.set_loaded())
    else:
        member = asyncio.ensure_future(serve_member(settings, dp, cores, loaded, ready, broken))
    _load(settings, loaded)
    _settled()
    waits: set[asyncio.Future[Any]] = {stop} if member is None else {stop, member}
    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    code = stop.result() if stop.done() else member.result() if member is not None else 0
    if member is not None and not member.done():
        member.cancel()
    _say("shutting down")
    await _close(group, server, cores)
    return code


async def _close(group: Group | None, server: Any, cores: dict[int, EngineCore]) -> None:
    if group is not None:
        await group.close()
    if server is not None:
        await server.close()
    for core in cores.values():
        if core.publisher is not None:
            core.publisher.close()
