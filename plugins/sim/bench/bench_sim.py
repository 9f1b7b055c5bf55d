"""Benchmark of the simulated engine against bare servers answering the same bytes.

Run from a venv with enginekit, enginekit-sim and aiohttp (the baseline's) installed, as
the repository's development environment has them::

    python plugins/sim/bench/bench_sim.py            # all three parts, about a minute
    python plugins/sim/bench/bench_sim.py --quick    # a smoke run: one short round each
    python plugins/sim/bench/bench_sim.py --json     # machine-readable

The baseline is a bare aiohttp ``web.Server`` (no access log, handlers cancelled when
the client goes: the low-level layer of the most used asyncio HTTP stack) doing the
least the same exchange needs: it reads the body and decodes its JSON, then answers with
the very bytes the simulator answered a warm-up request with (one response, or one
stream's events, the same count and sizes), each event due on the same schedule (time
to first token, then one inter-token latency per token, all from the request's arrival,
as the simulator paces them). The servers are up at once and measured in alternating
rounds, so drift on a shared machine hits all alike; every round's ratio is printed.

1. **Requests per second**, non-streaming ``/v1/completions`` (16 tokens) at zero
   simulated latency over keep-alive connections. Target: at least 0.7x the baseline.
   A second bare server is measured beside it: the simulator's own HTTP layer (llhttp's
   parser through httptools, on asyncio) doing the same least work, so the ratio to it
   is what the simulator adds on its own layer: routing, the key check, validation, the
   scheduler, the prefix cache, metrics and the text it makes.
2. **Token gaps at 50 streams**, 20 ms ITL: the time between consecutive events of each
   stream as the client receives them, p50/p99/max, against the configured ITL and
   against the baseline's. A stall in the middle of a stream shows here; a stream's
   total duration would hide it. Target: the simulator's p99 within 10% of the baseline's.
3. **Capacity**: the same measurement at 500 concurrent streams (and the levels given),
   the server alone on one core (pinned by default where there are two or more; the
   client, a Python process, on another). A level is *held* when every stream gets
   every token and, over the rounds, the median p99 gap is within 10% of the
   baseline's at the same level and at most 1.5x the ITL, counting the gaps once every
   stream has its first token (during the ramp each arriving request is parsed and
   admitted between the others' tokens: that is the cost of a burst of arrivals, printed
   too, not of holding the streams). The baseline shows what one core and this client
   allow. The client leaves its garbage collector off while it measures: the
   instrument's own pauses would read as late tokens.

Everything runs on loopback with free ports; the servers are separate processes (the
simulator from the plugin's rendered command) killed at the end. Figures are printed,
never asserted: CI runs ``--quick`` as a smoke test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from enginekit.spec.model import Profile, ShardSpec
from enginekit.testing import engine_for
from enginekit_sim.plugin import SimEngine
from enginekit_sim.plugin.config import SimConfig

#: The baseline: ``web.Server`` reading and decoding the request, answering recorded bytes.
BARE = r"""
import asyncio, json, sys
from aiohttp import web

port, ttft, itl, recorded = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
with open(recorded, encoding="utf-8") as f:
    answers = json.load(f)
whole = answers["response"].encode()
events = [event.encode() for event in answers["events"]]

async def handle(request):
    body = json.loads(await request.read())
    if not body.get("stream"):
        return web.Response(body=whole, content_type="application/json")
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await response.prepare(request)
    loop = asyncio.get_running_loop()
    first = loop.time() + ttft
    last = len(events) - 2  # [DONE] follows the last token at once
    for i, event in enumerate(events):
        # Each token due on one timeline from the start, as the simulator paces them: a
        # late wake-up delays one token, not every later one.
        wait = first + min(i, last) * itl - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        await response.write(event)
    await response.write_eof()
    return response

async def main():
    runner = web.ServerRunner(web.Server(handle, access_log=None, handler_cancellation=True))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    await asyncio.Event().wait()

asyncio.run(main())
"""
#: The floor: the simulator's own HTTP layer (httptools on asyncio) answering recorded bytes.
LLHTTP = r"""
import asyncio, email.utils, json, sys
import httptools

port, recorded = int(sys.argv[1]), sys.argv[2]
with open(recorded, encoding="utf-8") as f:
    whole = json.load(f)["response"].encode()

class Bare(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport, self.parser, self.body = transport, httptools.HttpRequestParser(self), []

    def on_body(self, body):
        self.body.append(body)

    def on_message_complete(self):
        json.loads(b"".join(self.body))
        self.body = []
        date = email.utils.formatdate(usegmt=True).encode()
        self.transport.write(
            b"HTTP/1.1 200 OK\r\ndate: %s\r\nserver: bare\r\ncontent-type: application/json\r\n"
            b"content-length: %d\r\n\r\n%s" % (date, len(whole), whole)
        )

    def data_received(self, data):
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            self.transport.close()

async def main():
    await asyncio.get_running_loop().create_server(Bare, "127.0.0.1", port)
    await asyncio.Event().wait()

asyncio.run(main())
"""
PROMPT = "Summarise the benefits of a simulated inference engine for testing a router."
SERVER_CPU, CLIENT_CPU = 0, 1
#: A level of streams is held when every token arrives, and over the rounds the median of
#: the p99 gap once every stream has started is within 10% of the bare server's at that
#: level (what the simulator adds) and at most 1.5 ITL (past that, the machine is the limit).
HELD_VS_BARE, HELD_VS_ITL = 1.10, 1.5
#: The cores this process may use, read before it pins itself to one of them.
CPUS = sorted(os.sched_getaffinity(0))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pin(pid: int, cpu: int, enabled: bool) -> None:
    """The server on one core, the client on another, where there are two or more."""
    if enabled and len(CPUS) >= 2:
        os.sched_setaffinity(pid, {CPUS[cpu % len(CPUS)]})


@contextlib.contextmanager
def server(argv: list[str], port: int, env: dict[str, str], pinned: bool) -> Iterator[None]:
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pin(proc.pid, SERVER_CPU, pinned)
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
                break
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError(f"{argv[:4]} did not listen on {port}")
            time.sleep(0.05)
        yield
    finally:
        proc.kill()
        proc.wait(10)


def sim_command(port: int, **config: Any) -> tuple[list[str], dict[str, str]]:
    """The simulator's command as the plugin renders it, with a benchmark's latency model."""
    profile = Profile(name="bench", engine="sim", model_path="/models/bench", served_model_name="bench")
    spec = ShardSpec(profile=profile, bind_addr="127.0.0.1", http_port=port, gpu_indices=(0,))
    settings = {"python": sys.executable, "startup_seconds": 0.0, **config}
    (command,) = engine_for(SimEngine(SimConfig(**settings)), "sim").commands(spec)
    return command.argv(), command.environ(os.environ)


def _request(body: dict[str, Any], *, close: bool = False) -> bytes:
    data = json.dumps(body).encode()
    return (
        b"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + (b"Connection: close\r\n" if close else b"")
        + b"Content-Length: "
        + str(len(data)).encode()
        + b"\r\n\r\n"
        + data
    )


def _exchange(port: int, request: bytes) -> bytes:
    """One request on its own connection, the raw response until the server closes it."""
    with socket.create_connection(("127.0.0.1", port), 10) as conn:
        conn.sendall(request)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _unchunk(body: bytes) -> bytes:
    out, rest = [], body
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            break
        out.append(rest[:size])
        rest = rest[size + 2 :]
    return b"".join(out)


def record_answers(port: int, tokens: int, path: Path) -> None:
    """What the simulator answers, kept for the baseline to send back byte for byte."""
    whole = _exchange(port, _request({"model": "bench", "prompt": PROMPT, "max_tokens": 16}, close=True))
    stream = _exchange(
        port,
        _request({"model": "bench", "prompt": PROMPT, "max_tokens": tokens, "stream": True}, close=True),
    )
    events = [event + b"\n\n" for event in _unchunk(stream.split(b"\r\n\r\n", 1)[1]).split(b"\n\n") if event]
    assert len(events) == tokens + 1, f"expected {tokens} token events and [DONE], got {len(events)}"
    answers = {"response": whole.split(b"\r\n\r\n", 1)[1].decode(), "events": [e.decode() for e in events]}
    path.write_text(json.dumps(answers), encoding="utf-8")


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
        assert self.transport is not None
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
                self.transport.close()
                return
            self.transport.write(self.request)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


async def _rate(port: int, request: bytes, connections: int, seconds: float) -> tuple[float, int]:
    loop = asyncio.get_running_loop()
    began = time.monotonic()
    clients = []
    for _ in range(connections):
        done: asyncio.Future[None] = loop.create_future()
        _, client = await loop.create_connection(
            lambda d=done: _Client(request, began + seconds, d), "127.0.0.1", port
        )
        clients.append(client)
    await asyncio.wait_for(asyncio.gather(*(c.done for c in clients)), seconds + 30)
    return sum(c.count for c in clients) / (time.monotonic() - began), sum(c.errors for c in clients)


class _Stream(asyncio.Protocol):
    """One streaming request: when each of its events arrived."""

    def __init__(self, request: bytes, done: asyncio.Future[list[float]]) -> None:
        self.request, self.done = request, done
        self.arrivals: list[float] = []
        self.sent = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.sent = time.monotonic()
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        # Events that arrive in one read arrived at once: that is what the client saw.
        now = time.monotonic()
        self.arrivals.extend([now] * data.count(b"data: "))
        if b"[DONE]" in data and not self.done.done():
            self.done.set_result(self.arrivals)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_exception(ConnectionError(f"stream closed early: {exc}"))


async def _streams(port: int, count: int, tokens: int) -> list[list[float]]:
    """``count`` streams at once; each one's event arrival times, [DONE] left out."""
    loop = asyncio.get_running_loop()
    request = _request({"model": "bench", "prompt": PROMPT, "max_tokens": tokens, "stream": True}, close=True)
    futures: list[asyncio.Future[list[float]]] = []
    transports = []
    try:
        for i in range(count):
            done: asyncio.Future[list[float]] = loop.create_future()
            transport, _ = await loop.create_connection(lambda d=done: _Stream(request, d), "127.0.0.1", port)
            transports.append(transport)
            futures.append(done)
            if i % 50 == 49:
                await asyncio.sleep(0.005)  # a ramp, not a thundering herd
        arrivals = await asyncio.wait_for(asyncio.gather(*futures), 120)
    finally:
        for transport in transports:
            transport.close()
    return [times[:-1] for times in arrivals]


def _gaps(streams: list[list[float]], tokens: int) -> dict[str, Any]:
    """Gaps between consecutive token events of every stream, in milliseconds.

    ``steady_*`` count only gaps that began once every stream had its first token: the
    ramp, where each arriving request is parsed and admitted between other streams'
    tokens, is the cost of a burst of arrivals, not of holding the streams.
    """
    gaps = sorted((b - a) * 1000 for times in streams for a, b in itertools.pairwise(times))
    started = max((times[0] for times in streams if times), default=0.0)
    steady = sorted(
        (b - a) * 1000 for times in streams for a, b in itertools.pairwise(times) if a >= started
    ) or [0.0]
    complete = sum(len(times) == tokens for times in streams)
    return {
        "complete": complete,
        "streams": len(streams),
        "p50_ms": statistics.median(gaps),
        "p99_ms": _p99(gaps),
        "max_ms": gaps[-1],
        "steady_p99_ms": _p99(steady),
        "steady_max_ms": steady[-1],
    }


def _p99(ordered: list[float]) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def _spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.3f}, range {min(values):.3f}-{max(values):.3f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of each request-rate round")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per measurement")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--itl-ms", type=float, default=20.0)
    parser.add_argument("--tokens", type=int, default=50, help="tokens per stream")
    parser.add_argument("--streams", type=int, default=50, help="concurrent streams of part 2")
    parser.add_argument("--levels", default="500,1000", help="concurrent streams of part 3")
    parser.add_argument("--capacity-rounds", type=int, default=3, help="rounds per level of part 3")
    parser.add_argument("--no-pin", action="store_true", help="leave the server and client unpinned")
    parser.add_argument("--quick", action="store_true", help="one short round of each, a smoke run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.rounds, args.tokens, args.levels, args.capacity_rounds = 0.5, 1, 10, "100", 1
    pinned = not args.no_pin
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    pin(os.getpid(), CLIENT_CPU, pinned)
    itl = args.itl_ms
    levels = [int(n) for n in args.levels.split(",") if n]
    results: dict[str, Any] = {"cpus": len(CPUS), "pinned": pinned and len(CPUS) >= 2}
    with tempfile.TemporaryDirectory() as work:
        recorded = Path(work) / "answers.json"
        # Part 1 at zero latency; parts 2 and 3 at the ITL, time to first token = one ITL.
        for part, latency in (("rate", 0.0), ("streams", itl)):
            sim_port, bare_port = free_port(), free_port()
            argv, env = sim_command(sim_port, ttft_ms=latency, itl_ms=latency, max_num_seqs=65_536)
            with server(argv, sim_port, env, pinned):
                record_answers(sim_port, args.tokens, recorded)
                bare = [sys.executable, "-c", BARE, str(bare_port), str(latency / 1000), str(latency / 1000)]
                with server([*bare, str(recorded)], bare_port, dict(os.environ), pinned):
                    ports = {"bare": bare_port, "sim": sim_port}
                    if part == "rate":
                        floor_port = free_port()
                        floor = [sys.executable, "-c", LLHTTP, str(floor_port), str(recorded)]
                        with server(floor, floor_port, dict(os.environ), pinned):
                            results["rate"] = _rate_part({**ports, "llhttp": floor_port}, args)
                    else:
                        results["gaps"] = _gap_part(ports, args, args.streams, args.rounds)
                        results["capacity"] = [
                            _gap_part(ports, args, level, args.capacity_rounds) for level in levels
                        ]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    _print(results, args)
    return 0


def _rate_part(ports: dict[str, int], args: argparse.Namespace) -> dict[str, Any]:
    request = _request({"model": "bench", "prompt": PROMPT, "max_tokens": 16})
    rates: dict[str, list[float]] = {name: [] for name in ports}
    for port in ports.values():
        asyncio.run(_rate(port, request, args.connections, 0.5))  # warm-up
    for _ in range(args.rounds):
        for name, port in ports.items():
            gc.collect()
            gc.disable()  # as for streams: the client's pauses are not the server's
            try:
                rate, errors = asyncio.run(_rate(port, request, args.connections, args.seconds))
            finally:
                gc.enable()
            assert errors == 0, f"{name}: {errors} failed requests"
            rates[name].append(rate)
    ratios = [s / b for b, s in zip(rates["bare"], rates["sim"], strict=True)]
    floor = [s / b for b, s in zip(rates["llhttp"], rates["sim"], strict=True)]
    return {
        "bare_rps": statistics.median(rates["bare"]),
        "llhttp_rps": statistics.median(rates["llhttp"]),
        "sim_rps": statistics.median(rates["sim"]),
        "ratio": statistics.median(ratios),
        "ratios": [round(r, 3) for r in ratios],
        "floor_ratio": statistics.median(floor),
        "floor_ratios": [round(r, 3) for r in floor],
    }


def _gap_part(ports: dict[str, int], args: argparse.Namespace, count: int, rounds: int) -> dict[str, Any]:
    """Alternating rounds of ``count`` streams on each server; every round's gaps, both servers."""
    rows: dict[str, list[dict[str, Any]]] = {"bare": [], "sim": []}
    for _ in range(rounds):
        for name, port in ports.items():
            # The client is the instrument: its own collector's pauses would read as late tokens.
            gc.collect()
            gc.disable()
            try:
                streams = asyncio.run(_streams(port, count, args.tokens))
            finally:
                gc.enable()
            rows[name].append(_gaps(streams, args.tokens))
    ratios = [s["p99_ms"] / b["p99_ms"] for b, s in zip(rows["bare"], rows["sim"], strict=True)]
    steady = [s["steady_p99_ms"] / b["steady_p99_ms"] for b, s in zip(rows["bare"], rows["sim"], strict=True)]
    sim_p99 = statistics.median(s["steady_p99_ms"] for s in rows["sim"])
    held = (
        all(s["complete"] == count for s in rows["sim"])
        and statistics.median(steady) <= HELD_VS_BARE
        and sim_p99 <= HELD_VS_ITL * args.itl_ms
    )
    return {
        "streams": count,
        "rounds": rows,
        "p99_ratio": statistics.median(ratios),
        "ratios": ratios,
        "steady_ratios": steady,
        "held": held,
    }


def _print(results: dict[str, Any], args: argparse.Namespace) -> None:
    rate = results["rate"]
    where = "server and client pinned to a core each" if results["pinned"] else "unpinned"
    print(f"{results['cpus']} CPUs, {where}; baselines answer the sim's recorded bytes")
    print(
        f"1. non-streaming completions, zero latency, {args.connections} connections, {args.rounds} rounds:"
    )
    print(f"   bare aiohttp web.Server:      {rate['bare_rps']:8.0f} req/s (median)")
    print(f"   bare llhttp (the sim's layer): {rate['llhttp_rps']:7.0f} req/s (median)")
    print(f"   enginekit-sim:                {rate['sim_rps']:8.0f} req/s (median)")
    print(f"   ratio sim/bare aiohttp:  {_spread(rate['ratios'])}  (target >= 0.7)")
    print(f"   ratio sim/bare llhttp:   {_spread(rate['floor_ratios'])}  (what the sim adds on its layer)")
    itl = args.itl_ms
    print(
        f"2. token gaps, {args.streams} streams x {args.tokens} tokens at {itl:g} ms ITL, "
        f"{args.rounds} rounds:"
    )
    _print_gaps(results["gaps"], itl)
    print(f"   p99 ratio sim/bare: {_spread(results['gaps']['ratios'])}  (target <= 1.10)")
    print(
        f"3. capacity, {args.capacity_rounds} rounds; held = every token arrives, and once every stream "
        f"has started, median p99 gap <= 1.10x bare's and <= {HELD_VS_ITL * itl:g} ms:"
    )
    for level in results["capacity"]:
        print(f"   {level['streams']} streams:")
        _print_gaps(level, itl)
        print(f"     p99 ratio sim/bare, all gaps:            {_spread(level['ratios'])}")
        print(f"     p99 ratio sim/bare, every stream started: {_spread(level['steady_ratios'])}")
        print(f"     {'held' if level['held'] else 'not held'}")


def _print_gaps(part: dict[str, Any], itl: float) -> None:
    for name in ("bare", "sim"):
        rounds = part["rounds"][name]
        p50 = [r["p50_ms"] for r in rounds]
        p99 = [r["p99_ms"] for r in rounds]
        worst = max(r["max_ms"] for r in rounds)
        complete = min(r["complete"] for r in rounds)
        steady = [r["steady_p99_ms"] for r in rounds]
        print(
            f"   {name:4s} gap p50 {statistics.median(p50):6.2f} ms  p99 {statistics.median(p99):6.2f} ms "
            f"({statistics.median(p99) / itl:.2f}x ITL, rounds {min(p99):.2f}-{max(p99):.2f})  "
            f"max {worst:7.2f} ms  complete streams {complete}/{rounds[0]['streams']}"
        )
        print(
            f"        once every stream started: p99 {statistics.median(steady):6.2f} ms "
            f"({statistics.median(steady) / itl:.2f}x ITL, rounds {min(steady):.2f}-{max(steady):.2f})"
        )


if __name__ == "__main__":
    sys.exit(main())
