"""The real ``vllm-router`` (``--policy kv_aware``) in front of two simulated shards, fed their KV events.

Two shards started with ``enginekit run`` from their specs, on loopback, each with an API
key and KV-cache events in the default ``bind`` mode; the router's command built from
their plans (``enginekit render --json``: ``base_url`` and ``kv_events``), never from
ports computed here. Everything is asserted on metrics: the shards' (``vllm:...``) and
the router's (``vllm_router_...``, on ``--prometheus-port``).

What vllm-router 0.1.17 needs of a worker, as these tests found it:

* ``GET /health`` (at start and every ``--health-check-interval-secs``); it reads no
  ``/v1/models``. Without a static event source it asks ``GET /kv_event_sources`` and
  ``GET /get_server_info`` (which vLLM and the simulator do not serve: that worker is not
  indexed), so every worker gets ``--kv-event-source``, and ``--kv-event-model``, which it
  refuses to start without.
* The prompt's token ids from the worker: ``POST /v1/completions/render`` (or
  ``/v1/chat/completions/render``) on every worker, with the client's ``Authorization``
  header; never ``/tokenize``. Those routes answer only with ``--enable-scale-out`` in the
  engine's args: without it every lookup is ``missing_tokens`` and routing ignores the cache.
* ``--kv-event-block-size`` equal to the workers' block size: with another size nothing
  matches, silently.

It does not replay a worker's past events when it starts, and notices a cleared cache only
when the worker publishes its next batch (vLLM publishes ``AllBlocksCleared`` after its
next engine step, and so does the simulator): ``router_has_seen`` waits for that.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

KEY = "sk-kv-router-0123456789abcdef"
MODEL = "tiny"
BLOCK = 8  # the shards' KV block size, in tokens; not vllm-router's default 16, so a missing flag shows
PREFIX = 8 * BLOCK  # the shared prefix: eight blocks
REQUESTS = 20
WAIT = 20.0  # the most any one step may take on a loaded machine


def router_executable(name: str = "vllm-router") -> str | None:
    """The router ``name`` on PATH, or next to this interpreter (a virtual environment not activated)."""
    found = shutil.which(name)
    if found:
        return found
    sibling = Path(sys.executable).parent / name
    return str(sibling) if sibling.is_file() and os.access(sibling, os.X_OK) else None


ROUTER = router_executable()
pytestmark = pytest.mark.skipif(
    ROUTER is None,
    reason="vllm-router is not installed (pip install vllm-router==0.1.17): "
    "not on PATH and not next to " + sys.executable,
)


def recording(folder: Path, router: str) -> Path:
    """A stand-in executable that records the environment and argv it was started with, then execs ``router``.

    vllm-router sets its process title a moment after it starts, overwriting the memory
    /proc/PID/environ and /proc/PID/cmdline read: what enginekit gave it is read here.
    """
    script = folder / "record-router"
    script.write_text(
        "#!/bin/sh\n"
        f'/usr/bin/env -0 > "{folder}/router.environ"\n'
        f'printf "%s\\0" "$@" > "{folder}/router.argv"\n'
        f'exec "{router}" "$@"\n'
    )
    script.chmod(0o700)
    return script


def recorded_environ(folder: Path) -> dict[str, str]:
    """What :func:`recording` saw of the router's environment."""
    items = (folder / "router.environ").read_bytes().decode().split("\0")
    return dict(item.split("=", 1) for item in items if "=" in item)


def enginekit(config: Path, *args: str) -> list[str]:
    """The ``enginekit`` command with the test's node config."""
    return [sys.executable, "-m", "enginekit", "--config", str(config), *args]


# Ports --------------------------------------------------------------------------------------


#: Where the tests' ports are drawn: below Linux's ephemeral range (32768 on), from which the
#: kernel gives outgoing connections and bind(0) their ports. A port drawn there could be
#: taken by any connection between its probe's release and the engine's bind; below, only
#: another test drawing the same one could take it.
PORT_RANGE = (20000, 32000)


class Ports:
    """Free ports on every address, each held until :meth:`release`, so no two picks collide."""

    def __init__(self) -> None:
        self._held: list[socket.socket] = []
        self._draw = random.Random()

    def _take(self, port: int) -> bool:
        probe = socket.socket()
        try:
            probe.bind(("0.0.0.0", port))
        except OSError:
            probe.close()
            return False
        self._held.append(probe)
        return True

    def run(self, count: int) -> int:
        """The first of ``count`` consecutive free ports, all held until :meth:`release`."""
        for _ in range(200):
            first = self._draw.randrange(PORT_RANGE[0], PORT_RANGE[1] - count)
            taken = 0
            while taken < count and self._take(first + taken):
                taken += 1
            if taken == count:
                return first
            for probe in self._held[len(self._held) - taken :]:
                probe.close()
            del self._held[len(self._held) - taken :]
        pytest.fail(f"no {count} consecutive free ports found")

    def one(self) -> int:
        return self.run(1)

    def pair(self) -> int:
        """N with N and N + 1 free on every address: the KV port (bound ``tcp://*:N``) and its replay port."""
        return self.run(2)

    def release(self) -> None:
        for probe in self._held:
            probe.close()
        self._held.clear()


# HTTP and metrics ---------------------------------------------------------------------------


def call(url: str, method: str = "GET", body: Any = None, key: str = "") -> tuple[int, Any]:
    host, _, port = url.removeprefix("http://").partition(":")
    connection = http.client.HTTPConnection(host, int(port.split("/")[0]), timeout=WAIT)
    path = "/" + port.partition("/")[2]
    try:
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
        connection.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = connection.getresponse()
        data = response.read()
        try:
            return response.status, json.loads(data)
        except ValueError:
            return response.status, data.decode(errors="replace")
    finally:
        connection.close()


def complete(base_url: str, prompt: str, key: str = KEY) -> tuple[int, Any]:
    return call(
        base_url + "/v1/completions", "POST", {"model": MODEL, "prompt": prompt, "max_tokens": 2}, key
    )


def words(tag: str, count: int) -> str:
    """``count`` tokens to the simulator's tokenizer (one per ASCII word)."""
    return " ".join(f"{tag}{i}" for i in range(count))


_SAMPLE = re.compile(r"^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$")
_LABEL = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')


def metric(text: str, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels`` (0 when there is none)."""
    total = 0.0
    for line in text.splitlines():
        match = _SAMPLE.match(line.strip())
        if match and match.group(1) == name:
            have = dict(_LABEL.findall(match.group(2) or ""))
            if all(have.get(k) == v for k, v in labels.items()):
                total += float(match.group(3))
    return total


# Processes ----------------------------------------------------------------------------------


def kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


class Shard:
    """One ``enginekit run`` of a spec, in a session of its own, with its plan and status file."""

    def __init__(self, folder: Path, name: str, spec: dict[str, Any], config: Path, env: dict[str, str]):
        self.name = name
        source = folder / f"{name}.json"
        source.write_text(json.dumps(spec))
        self.source = source
        rendered = subprocess.run(
            [sys.executable, "-m", "enginekit", "--config", str(config), "render", str(source), "--json"],
            capture_output=True, text=True, timeout=60, env=env,
        )  # fmt: skip
        assert rendered.returncode == 0, rendered.stderr
        self.plan: dict[str, Any] = json.loads(rendered.stdout)
        self.url: str = self.plan["base_url"]
        self.status_file = folder / f"{name}.status.json"
        self.err_file = folder / f"{name}.stderr"
        argv = [sys.executable, "-m", "enginekit", "--config", str(config), "run", str(source)]
        with self.err_file.open("wb") as err:
            self.process = subprocess.Popen(
                [*argv, "--status-file", str(self.status_file)],
                stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL, env=env,
                start_new_session=True,
            )  # fmt: skip

    def status(self) -> dict[str, Any]:
        try:
            return json.loads(self.status_file.read_text())  # type: ignore[no-any-return]
        except (FileNotFoundError, ValueError):
            return {}

    def wait_ready(self, deadline: float) -> None:
        while self.status().get("state") != "ready":
            if self.process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"shard {self.name} not ready; its stderr:\n{self.err_file.read_text(errors='replace')}"
                )
            time.sleep(0.05)

    def metrics(self) -> str:
        status, text = call(self.url + "/metrics")
        assert status == 200
        return str(text)

    def stop(self) -> None:
        engines = [p["pid"] for p in self.status().get("processes", [])]
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                kill_group(self.process.pid)
                self.process.wait(timeout=10)
        for pid in engines:  # the runner stops its engines; these are what a killed runner left
            kill_group(pid)


class Router:
    """``vllm-router`` in a session of its own, its output in a file."""

    def __init__(self, folder: Path, argv: list[str], port: int, metrics_port: int, env: dict[str, str]):
        self.argv = argv
        self.url = f"http://127.0.0.1:{port}"
        self.metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
        self.out_file = folder / "router.out"
        with self.out_file.open("wb") as out:
            self.process = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                start_new_session=True,
            )  # fmt: skip

    def output(self) -> str:
        return re.sub(r"\x1b\[[0-9;]*m", "", self.out_file.read_text(errors="replace"))[-6000:]

    def wait_ready(self, deadline: float, workers: int) -> None:
        while True:
            with contextlib.suppress(OSError, http.client.HTTPException):
                status, body = call(self.url + "/readiness")
                if status == 200 and isinstance(body, dict) and body.get("healthy_workers") == workers:
                    return
            if self.process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"vllm-router not ready: {self.argv}\nits output:\n{self.output()}")
            time.sleep(0.1)

    def metrics(self) -> str:
        status, text = call(self.metrics_url)
        assert status == 200, text
        return str(text)

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=10)
        kill_group(self.process.pid)
        self.process.wait(timeout=10)


class Cluster:
    def __init__(self, shards: list[Shard], router: Router):
        self.shards = shards
        self.router = router
        self._canaries = 0

    def lookups(self, result: str) -> float:
        """The router's KV-index lookups with this result (``hit``, ``miss``, ``missing_tokens``)."""
        return metric(self.router.metrics(), "vllm_router_kv_placement_lookups_total", result=result)

    def served(self) -> list[float]:
        """Requests each shard has finished."""
        return [metric(s.metrics(), "vllm:request_success_total") for s in self.shards]

    def hits(self) -> list[float]:
        """Prompt tokens each shard found in its prefix cache."""
        return [metric(s.metrics(), "vllm:prefix_cache_hits_total") for s in self.shards]

    def route(self, prompt: str) -> int:
        """Send ``prompt`` through the router; the index of the shard that served it."""
        before = self.served()
        status, body = complete(self.router.url, prompt)
        assert status == 200, body
        gained = [after - was for after, was in zip(self.served(), before, strict=True)]
        assert sorted(gained) == [0, 1], gained
        return gained.index(1)

    def router_has_seen(self, shard: Shard) -> None:
        """Wait until the router holds every KV event ``shard`` has published so far.

        A fresh canary prompt goes to the shard itself (its batch follows every earlier one
        on the same stream, and starts with ``AllBlocksCleared`` after a reset); then the
        canary is asked of the router until it finds it in its index. A lookup that misses
        stores only that canary elsewhere, and the next try takes a new one.
        """
        deadline = time.monotonic() + WAIT
        pause = 0.05
        while True:
            self._canaries += 1
            canary = words(f"c{self._canaries}w", 2 * BLOCK)
            assert complete(shard.url, canary)[0] == 200
            time.sleep(pause)
            before = self.lookups("hit")
            self.route(canary + " probe")
            if self.lookups("hit") > before:
                return
            if time.monotonic() > deadline:
                kv = [
                    line for line in self.router.metrics().splitlines() if line.startswith("vllm_router_kv_")
                ]
                pytest.fail(
                    f"vllm-router never found {shard.name}'s KV events in its index: "
                    + "\n".join(["its KV metrics:", *kv, "its output:", self.router.output()])
                )
            pause = min(pause * 2, 1.0)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    """Two simulated shards with KV events and a key, and vllm-router under kv_aware in front of them."""
    config = tmp_path / "node.toml"
    config.write_text(
        f"[engines.sim]\npython = {json.dumps(sys.executable)}\n\n"
        # The simulator serves POST /reset_prefix_cache only with VLLM_SERVER_DEV_MODE, as vLLM;
        # the site opens that variable to profiles.
        '[env_policy]\nallow = ["VLLM_SERVER_DEV_MODE"]\n'
    )
    env = {k: v for k, v in os.environ.items() if k not in ("ENGINEKIT_CONFIG", "VLLM_SERVER_DEV_MODE")}
    ports = Ports()
    specs: list[dict[str, Any]] = []
    for name in ("a", "b"):
        specs.append({
            "replica_id": name, "shard_id": f"{name}-0", "bind_addr": "127.0.0.1",
            "http_port": ports.one(), "kv_events_port": ports.pair(),
            "gpu_indices": [0], "api_key": KEY,
            "profile": {
                "name": "tiny", "engine": "sim", "model_path": "/models/tiny", "served_model_name": MODEL,
                "kv_events": True,
                "env": {"VLLM_SERVER_DEV_MODE": "1"},
                # --enable-scale-out: the router asks the workers to render prompts into token ids.
                "args": ["--startup-seconds", "0.2", "--ttft-ms", "1", "--itl-ms", "1",
                         "--block-size", str(BLOCK), "--enable-scale-out"],
            },
        })  # fmt: skip
    router_port, metrics_port = ports.one(), ports.one()
    ports.release()
    shards: list[Shard] = []
    router: Router | None = None
    try:
        for spec in specs:
            shards.append(Shard(tmp_path, spec["replica_id"], spec, config, env))
        deadline = time.monotonic() + WAIT
        for shard in shards:
            assert shard.plan["shard"]["kv_events_mode"] == "bind"
            assert [e["rank"] for e in shard.plan["kv_events"]] == [0]
            shard.wait_ready(deadline)
        # The router's command, built by enginekit from the shards' plans; started by it too
        # (it execs the router). Its metrics on a port of its own: vllm-router's default,
        # 29000, is one for every router on the host.
        assert ROUTER is not None
        options = ["--port", str(router_port), "--metrics-port", str(metrics_port)]
        options += ["--block-size", str(BLOCK), "--executable", str(recording(tmp_path, ROUTER))]
        argv = enginekit(config, "router", *(str(s.source) for s in shards), *options)
        shown = subprocess.run([*argv, "--dry-run"], capture_output=True, text=True, timeout=60, env=env)
        assert shown.returncode == 0, shown.stderr
        built = json.loads(shown.stdout)["argv"]
        assert KEY not in " ".join(built)
        for shard in shards:
            (source,) = shard.plan["kv_events"]
            assert f"{shard.url}={source['endpoint']}" in built
            assert f"{shard.url}={source['replay']}" in built
        # A node's key variables in enginekit's environment are kept from the router it starts.
        router_env = {**env, "VLLM_API_KEY": KEY, "ENGINEKIT_API_KEY": KEY}
        router = Router(tmp_path, argv, router_port, metrics_port, router_env)
        router.wait_ready(time.monotonic() + WAIT, workers=len(shards))
        yield Cluster(shards, router)
    finally:
        if router is not None:
            router.stop()
        for shard in shards:
            shard.stop()


def test_a_shared_prefix_goes_to_the_shard_holding_it_and_the_router_credits_what_the_shards_hit(
    cluster: Cluster,
) -> None:
    a, b = cluster.shards
    prefixes = [words("a", PREFIX), words("b", PREFIX)]
    # Each shard holds one prefix, put there by a request sent to it directly: only its KV
    # events can tell the router which. A router blind to them sends both to one shard.
    for shard, prefix in zip(cluster.shards, prefixes, strict=True):
        assert complete(shard.url, prefix + " warm")[0] == 200
    cluster.router_has_seen(a)
    cluster.router_has_seen(b)

    router_before, hits_before = cluster.router.metrics(), cluster.hits()
    prompt_before = [metric(s.metrics(), "vllm:prompt_tokens_total") for s in cluster.shards]
    placed = [cluster.route(prefixes[i % 2] + f" q{i}") == i % 2 for i in range(REQUESTS)]
    router_after, hits_after = cluster.router.metrics(), cluster.hits()

    assert sum(placed) >= 0.9 * REQUESTS, placed  # chance: half
    # Every prompt is the prefix plus one token: its whole blocks, the prefix, are what a hit
    # credits, and what the shard that holds them finds in its cache.
    prompt_after = [metric(s.metrics(), "vllm:prompt_tokens_total") for s in cluster.shards]
    assert sum(prompt_after) - sum(prompt_before) == REQUESTS * (PREFIX + 1)

    def delta(name: str, **labels: str) -> float:
        return metric(router_after, name, **labels) - metric(router_before, name, **labels)

    router_hits = delta("vllm_router_kv_placement_lookups_total", result="hit")
    assert router_hits == sum(placed)
    assert delta("vllm_router_kv_placement_lookups_total") == REQUESTS
    assert (
        delta("vllm_router_prefix_routing_decisions_total", policy="kv_aware", outcome="prefix_cost")
        == REQUESTS
    )
    assert sum(hits_after) - sum(hits_before) == PREFIX * router_hits
    for i, shard in enumerate(cluster.shards):
        assert hits_after[i] - hits_before[i] == PREFIX * sum(placed[i::2])
        # The router's own count per worker agrees with the shards'.
        served_here = sum(1 for j, ok in enumerate(placed) if ok == (j % 2 == i))
        assert delta("vllm_router_cb_outcomes_total", worker=shard.url, outcome="success") == served_here
    # The token ids came from the workers' render endpoint, on every request.
    assert delta("vllm_router_kv_routing_inputs_total", transport="http", result="render") >= REQUESTS
    assert delta("vllm_router_kv_routing_inputs_total", result="preparation_rejected") == 0


def test_once_the_holder_clears_its_cache_the_router_stops_crediting_it(cluster: Cluster) -> None:
    a, b = cluster.shards
    prefix_a, prefix_b = words("a", PREFIX), words("b", PREFIX)
    assert complete(a.url, prefix_a + " warm")[0] == 200
    assert complete(b.url, prefix_b + " warm")[0] == 200
    cluster.router_has_seen(a)
    cluster.router_has_seen(b)
    hits, credited = cluster.hits(), cluster.lookups("hit")
    assert cluster.route(prefix_a + " before") == 0
    assert (cluster.lookups("hit") - credited, cluster.hits()[0] - hits[0]) == (1, PREFIX)

    assert call(a.url + "/reset_prefix_cache", "POST") == (200, {"success": True})
    # The shard says so with its next batch, after its next step, as vLLM does.
    cluster.router_has_seen(a)

    hits, credited, missed = cluster.hits(), cluster.lookups("hit"), cluster.lookups("miss")
    cluster.route(prefix_a + " after")  # wherever the router's load balance sends it
    assert (cluster.lookups("hit") - credited, cluster.lookups("miss") - missed) == (0, 1)
    assert cluster.hits() == hits  # no shard had it: the router credited none
    # The other shard's credit is untouched.
    assert cluster.route(prefix_b + " after") == 1
    assert cluster.lookups("hit") - credited == 1
    assert cluster.hits()[1] - hits[1] == PREFIX


def test_the_client_s_key_goes_through_the_router_and_the_workers_check_it(cluster: Cluster) -> None:
    prompt = words("k", PREFIX)
    before = cluster.router.metrics()
    status, body = complete(cluster.router.url, prompt)
    assert status == 200, body
    for key in ("", "sk-wrong-0123456789abcdef"):
        status, body = complete(cluster.router.url, prompt, key=key)
        assert status == 401, body
        assert body["error"]["type"] == "AuthenticationError"  # the simulator's answer, passed on
    after = cluster.router.metrics()
    renders = metric(after, "vllm_router_kv_routing_inputs_total", result="render") - metric(
        before, "vllm_router_kv_routing_inputs_total", result="render"
    )
    rejected = metric(after, "vllm_router_kv_routing_inputs_total", result="preparation_rejected") - metric(
        before, "vllm_router_kv_routing_inputs_total", result="preparation_rejected"
    )
    # The router renders on every worker with the client's header: with the key both answer,
    # without it both refuse (and the router routes without token ids).
    assert (renders, rejected) == (len(cluster.shards), 2 * len(cluster.shards))
    # The router holds no key: nothing on its command line, nothing in its environment, as
    # enginekit started it (recorded by the stand-in in front of it: vllm-router overwrites
    # what /proc shows of both once it runs).
    folder = cluster.router.out_file.parent
    assert KEY.encode() not in (folder / "router.argv").read_bytes()
    environ = recorded_environ(folder)
    assert environ
    assert KEY not in "".join(environ.values())
