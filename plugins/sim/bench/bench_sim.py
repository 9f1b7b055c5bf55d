"""Benchmark of the simulated engine: request rate against a hello-world server, and streams held on schedule.

Run from a venv with enginekit and enginekit-sim installed::

    python plugins/sim/bench/bench_sim.py            # both parts, a few seconds each
    python plugins/sim/bench/bench_sim.py --json     # machine-readable

1. Requests per second of non-streaming ``/v1/completions`` (16 tokens out) at zero
   simulated latency, against a bare aiohttp hello-world server in the same run, with
   the same client: both servers up at once, measured in alternating rounds, medians
   compared. Target: at least half of the hello-world rate.
2. How many concurrent streams the simulator holds at 20 ms inter-token latency while
   staying within 10% of schedule: for each level, every stream's duration from
   request to last token, against ``ttft + (tokens - 1) * itl``; a level holds when
   the 99th percentile is at most 1.10 times the schedule.

Everything runs on loopback with free ports; the servers are started as separate
processes (the simulator from the plugin's rendered command) and killed at the end.
With ``--pin`` (on a quiet machine with two cores or more) the server is pinned to one
core and the client to another; on a shared machine pinning only adds contention.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

from enginekit.model import Profile, ShardSpec
from enginekit.testing import engine_for
from enginekit_sim.plugin import SimEngine
from enginekit_sim.plugin.config import SimConfig

HELLO = """
import sys
from aiohttp import web
async def hello(request):
    await request.read()
    return web.Response(text="Hello, world!")
app = web.Application()
app.router.add_post("/v1/completions", hello)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), access_log=None, print=None)
"""
PROMPT = "Summarise the benefits of a simulated inference engine for testing a router."


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


PIN = False


def pin(pid: int, cpu: int) -> None:
    """With --pin on two cores or more: the server on one core, the client on another."""
    cpus = sorted(os.sched_getaffinity(0))
    if PIN and len(cpus) >= 2:
        os.sched_setaffinity(pid, {cpus[cpu % len(cpus)]})


@contextlib.contextmanager
def server(
    argv: list[str], port: int, env: dict[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pin(proc.pid, 0)
    try:
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
                break
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError(f"{argv[:4]} did not listen on {port}")
            time.sleep(0.05)
        time.sleep(0.2)
        yield proc
    finally:
        proc.kill()
        proc.wait(10)


def sim_command(port: int, **config: Any) -> tuple[list[str], dict[str, str]]:
    """The simulator's command as the plugin renders it, with a benchmark's latency model."""
    profile = Profile(name="bench", engine="sim", model_path="/models/bench", served_model_name="bench")
    spec = ShardSpec(profile=profile, bind_addr="127.0.0.1", http_port=port, gpu_indices=(0,))
    settings = {"python": sys.executable, "startup_seconds": 0.0, **config}
    (command,) = engine_for(SimEngine(SimConfig(**settings)), "sim").commands(spec)
    env = command.environ(os.environ)
    return command.argv(), env


class _Client(asyncio.Protocol):
    """A keep-alive HTTP/1.1 client doing one request after another, parsing as little as it can."""

    def __init__(self, request: bytes, stop_at: float, done: asyncio.Future[None]) -> None:
        self.request, self.stop_at, self.done = request, stop_at, done
        self.buffer = b""
        self.count = self.errors = 0
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            head_end = self.buffer.find(b"\r\n\r\n")
            if head_end < 0:
                return
            head = self.buffer[:head_end].lower()
            length = int(head.split(b"content-length:", 1)[1].split(b"\r\n", 1)[0])
            if len(self.buffer) < head_end + 4 + length:
                return
            self.errors += not head.startswith(b"http/1.1 200")
            self.buffer = self.buffer[head_end + 4 + length :]
            self.count += 1
            if time.monotonic() >= self.stop_at:
                assert self.transport is not None
                self.transport.close()
                return
            assert self.transport is not None
            self.transport.write(self.request)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


async def _rate(port: int, body: bytes, connections: int, seconds: float) -> tuple[float, int]:
    loop = asyncio.get_running_loop()
    request = (
        b"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    began = time.monotonic()
    clients = []
    for _ in range(connections):
        done = loop.create_future()
        _, client = await loop.create_connection(
            lambda d=done: _Client(request, began + seconds, d), "127.0.0.1", port
        )
        clients.append(client)
    await asyncio.wait_for(asyncio.gather(*(c.done for c in clients)), seconds + 30)
    elapsed = time.monotonic() - began
    return sum(c.count for c in clients) / elapsed, sum(c.errors for c in clients)


def request_rate(seconds: float, connections: int, rounds: int) -> dict[str, Any]:
    """Both servers up at once, measured in alternation; the medians, so drift hits both alike."""
    body = json.dumps({"model": "bench", "prompt": PROMPT, "max_tokens": 16}).encode()
    hello_port, sim_port = free_port(), free_port()
    argv, env = sim_command(sim_port, ttft_ms=0.0, itl_ms=0.0, max_num_seqs=100_000)
    hello: list[float] = []
    sim: list[float] = []
    with server([sys.executable, "-c", HELLO, str(hello_port)], hello_port), server(argv, sim_port, env):
        for port in (hello_port, sim_port):
            asyncio.run(_rate(port, body, connections, 1.0))  # warm up
        for _ in range(rounds):
            for port, rates in ((hello_port, hello), (sim_port, sim)):
                rate, errors = asyncio.run(_rate(port, body, connections, seconds))
                assert errors == 0, f"{errors} failed requests"
                rates.append(rate)
    results = {"hello_rps": statistics.median(hello), "sim_rps": statistics.median(sim)}
    results["ratio"] = results["sim_rps"] / results["hello_rps"]
    results["ratios"] = [round(s / h, 3) for h, s in zip(hello, sim, strict=True)]
    return results


class _Stream(asyncio.Protocol):
    """One streaming request: when it was sent, and when its last token arrived."""

    def __init__(self, request: bytes, done: asyncio.Future[float]) -> None:
        self.request, self.done, self.sent = request, done, 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.sent = time.monotonic()
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        if b"[DONE]" in data and not self.done.done():
            self.done.set_result(time.monotonic() - self.sent)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_exception(ConnectionError(f"stream closed early: {exc}"))


async def _streams(port: int, count: int, tokens: int) -> list[float]:
    loop = asyncio.get_running_loop()
    body = json.dumps({"model": "bench", "prompt": PROMPT, "max_tokens": tokens, "stream": True}).encode()
    request = (
        b"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    futures: list[asyncio.Future[float]] = []
    transports = []
    for i in range(count):
        done: asyncio.Future[float] = loop.create_future()
        transport, _ = await loop.create_connection(lambda d=done: _Stream(request, d), "127.0.0.1", port)
        transports.append(transport)
        futures.append(done)
        if i % 50 == 49:
            await asyncio.sleep(0.005)  # a ramp, not a thundering herd: arrivals spread over time
    try:
        return list(await asyncio.wait_for(asyncio.gather(*futures), 120))
    finally:
        for transport in transports:
            transport.close()


def streams_on_schedule(itl_ms: float, ttft_ms: float, tokens: int, levels: list[int]) -> dict[str, Any]:
    schedule = (ttft_ms + (tokens - 1) * itl_ms) / 1000
    port = free_port()
    argv, env = sim_command(port, ttft_ms=ttft_ms, itl_ms=itl_ms, max_num_seqs=100_000)
    rows = []
    held = 0
    with server(argv, port, env):
        for count in levels:
            durations = sorted(asyncio.run(_streams(port, count, tokens)))
            p50 = statistics.median(durations) / schedule
            p99 = durations[min(len(durations) - 1, int(len(durations) * 0.99))] / schedule
            rows.append({"streams": count, "p50": round(p50, 3), "p99": round(p99, 3), "ok": p99 <= 1.10})
            if p99 > 1.10:
                break
            held = count
    return {
        "itl_ms": itl_ms,
        "ttft_ms": ttft_ms,
        "tokens": tokens,
        "schedule_s": schedule,
        "held": held,
        "levels": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of each request-rate run")
    parser.add_argument("--rounds", type=int, default=5, help="request-rate runs per server, alternating")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--itl-ms", type=float, default=20.0)
    parser.add_argument("--tokens", type=int, default=50, help="tokens per stream")
    parser.add_argument("--levels", default="100,200,400,600,800,1000,1200,1600,2000,3000,4000")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--pin", action="store_true", help="pin server and client to one core each")
    args = parser.parse_args()
    global PIN
    PIN = args.pin
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    pin(os.getpid(), 1)
    rate = request_rate(args.seconds, args.connections, args.rounds)
    levels = [int(n) for n in args.levels.split(",")]
    streams = streams_on_schedule(args.itl_ms, args.itl_ms, args.tokens, levels)
    if args.json:
        print(json.dumps({"request_rate": rate, "streams": streams}, indent=2))
        return 0
    print(
        f"non-streaming completions, zero latency, {args.connections} connections, "
        f"median of {args.rounds} alternating {args.seconds:g} s runs:"
    )
    print(f"  hello-world aiohttp: {rate['hello_rps']:8.0f} req/s")
    print(f"  enginekit-sim:       {rate['sim_rps']:8.0f} req/s  ({rate['ratio']:.2f}x; target >= 0.5x)")
    print(f"  ratio per round: {', '.join(f'{r:.2f}' for r in rate['ratios'])}")
    print(f"streams at {args.itl_ms:g} ms ITL, {args.tokens} tokens, schedule {streams['schedule_s']:.3f} s:")
    for row in streams["levels"]:
        verdict = "on schedule" if row["ok"] else "late"
        print(f"  {row['streams']:5d} streams: p50 {row['p50']:.3f}x  p99 {row['p99']:.3f}x  {verdict}")
    print(f"  held within 10% of schedule: {streams['held']} concurrent streams")
    return 0


if __name__ == "__main__":
    sys.exit(main())
