"""A data-parallel replica of the simulated engine, end to end, in each of vLLM's balancing modes.

Four ranks over two "nodes" that are two loopback addresses of this machine (127.0.0.2
and 127.0.0.3), two ranks each: ``enginekit layout --json`` says which processes run,
which ports each listens on and whom each dials; every process is then started by its
own ``enginekit run`` from the shard spec ``enginekit layout --shards`` wrote for it, as
each node's agent would; the ports each engine process is then listening on are read from the kernel
(``/proc/net/tcp`` and the process's sockets) and must be exactly the layout's; and every
API server the layout names answers completions with the key, spread over the ranks it
fronts. Every wait is bounded, and the runner fixture stops whatever a failed test left.
"""

from __future__ import annotations

import http.client
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zmq
from enginekit.replica.spec import expand, load_replica
from enginekit.spec.model import dump_spec
from enginekit_sim.testing import KVSubscriber

from tests.conftest import EXAMPLES


def _run_sim_module() -> Any:
    """``tests/test_run_sim.py``, loaded by its path: under pytest's importlib mode ``tests`` is
    no package older pytest versions import a test module from."""
    path = Path(__file__).with_name("test_run_sim.py")
    spec = importlib.util.spec_from_file_location("enginekit_run_sim_tests", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


_run_sim = _run_sim_module()
WAIT, Runner, free_port, nothing_left = (
    _run_sim.WAIT,
    _run_sim.Runner,
    _run_sim.free_port,
    _run_sim.nothing_left,
)

pytestmark = pytest.mark.skipif(
    not Path("/proc/net/tcp").exists(), reason="reads listening sockets from Linux's /proc"
)

# The runner fixtures of ``enginekit run``'s own tests: each runner in a session of its own,
# and whatever a failed test left killed (and the test failed for it).
node_config = _run_sim.node_config
start = _run_sim.start

EXAMPLE = EXAMPLES / "replicas/sim-dp.toml"
KEY = "sim-demo-key-0123456789abcdef"  # the example's
ADDRS = ("127.0.0.2", "127.0.0.3")


def replica_file(tmp_path: Path, mode: str, kv_events_port: int = 0) -> Path:
    """The shipped example in ``mode``, on ports free now, publishing KV events from ``kv_events_port`` on."""
    text = EXAMPLE.read_text()
    text = text.replace('dp_balancing = "internal"', f'dp_balancing = "{mode}"')
    text = re.sub(r"(?m)^leader_port = \d+", f"leader_port = {free_port()}", text)
    # Two HTTP ports in a row (external balancing's second process takes the next one).
    http = free_port()
    while http >= 65535:
        http = free_port()
    text = re.sub(r"(?m)^http_port = \d+", f"http_port = {http}", text)
    if kv_events_port:
        # The agent's subscribers listen, and each rank's publisher connects to its own.
        text = text.replace("[placement]\n", 'kv_events_mode = "connect"\n\n[placement]\n', 1)
        text = text.replace("[placement]\n", f"[placement]\nkv_events_port = {kv_events_port}\n")
        text = text.replace('dp_balancing = "', 'kv_events = true\ndp_balancing = "')
    path = tmp_path / f"sim-dp-{mode}.toml"
    path.write_text(text)
    return path


def layout_json(path: Path, shards: Path) -> dict[str, Any]:
    """``enginekit layout --json``, writing each process's shard spec into ``shards``."""
    done = subprocess.run(
        [sys.executable, "-m", "enginekit", "layout", str(path), "--json", "--shards", str(shards)],
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _sockets(pid: int) -> set[int]:
    """The inodes of the sockets process ``pid`` holds."""
    inodes = set()
    fds = Path(f"/proc/{pid}/fd")
    for fd in fds.iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue  # closed meanwhile
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes


def listening(pid: int) -> set[tuple[str, int]]:
    """Every IPv4 TCP address and port process ``pid`` listens on, as the kernel shows them."""
    inodes = _sockets(pid)
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, state, inode = fields[1], fields[3], int(fields[9])
        if state != "0A" or inode not in inodes:  # 0A: LISTEN
            continue
        hex_addr, hex_port = local.split(":")
        addr = ".".join(str(int(hex_addr[i : i + 2], 16)) for i in (6, 4, 2, 0))  # little-endian
        found.add((addr, int(hex_port, 16)))
    return found


def post(addr: str, port: int, key: str, prompt: str) -> tuple[int, Any]:
    connection = http.client.HTTPConnection(addr, port, timeout=WAIT)
    try:
        body = json.dumps({"model": "sim-tiny", "prompt": prompt, "max_tokens": 3})
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
        connection.request("POST", "/v1/completions", body, headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def served_by(addr: str, port: int) -> dict[str, float]:
    """Generation tokens per engine (data-parallel rank) in the server's metrics."""
    connection = http.client.HTTPConnection(addr, port, timeout=WAIT)
    try:
        connection.request("GET", "/metrics")
        text = connection.getresponse().read().decode()
    finally:
        connection.close()
    pattern = r'(?m)^vllm:generation_tokens_total\{model_name="sim-tiny",engine="(\d+)"\} (\S+)$'
    return {rank: float(value) for rank, value in re.findall(pattern, text)}


@pytest.mark.parametrize("mode", ["internal", "hybrid", "external"])
def test_each_balancing_mode_serves_through_the_layout_s_api_servers_on_the_layout_s_ports(
    mode: str, tmp_path: Path, start: Callable[..., Any], request: pytest.FixtureRequest
) -> None:
    subscribers = subscribed(4)
    request.addfinalizer(lambda: [s.close() for s in subscribers])
    path = replica_file(tmp_path, mode, kv_events_port=subscribers[0].port)
    laid = layout_json(path, tmp_path / "shards")
    processes = [p for node in laid["nodes"] for p in node["processes"]]
    # The agent's subscribers listen where the layout says each rank publishes.
    assert sorted(
        port
        for p in processes
        for listener in p["listens"]
        if listener["name"] == "kv-events"
        for port in range(listener["port"], listener["port"] + listener["count"])
    ) == [s.port for s in subscribers]
    # The shard specs the layout wrote, one per process in the layout's order, as each
    # node's agent would be handed its own.
    shards = [tmp_path / "shards" / f"{shard.shard_id}.json" for shard in expand(load_replica(path))]
    assert sorted(shards) == sorted((tmp_path / "shards").iterdir())
    assert len(shards) == len(processes)

    runners = []
    for shard, process in zip(shards, processes, strict=True):
        runners.append((start(f"{mode}-{shard.stem}", shard), process, laid["nodes"][process["node"]]))
    for runner, process, _node in runners:
        runner.wait_state("ready" if process["role"] == "api-server" else "running")
    # Every process listens on exactly what the layout says it does, at its node's address.
    for runner, process, node in runners:
        (pid,) = runner.pids()
        want = {(node["addr"], x["port"]) for x in process["listens"] if x["name"] != "kv-events"}
        runner.wait_until(lambda pid=pid, want=want: listening(pid) == want)

    servers = [
        (node["addr"], p["listens"][0]["port"], p) for _, p, node in runners if p["role"] == "api-server"
    ]
    assert [p["listens"][0]["name"] for _, _, p in servers] == ["http"] * len(servers)
    for addr, port, process in servers:
        fronted = {str(r) for r in (range(4) if mode == "internal" else process["dp_ranks"])}
        for i in range(2 * len(fronted)):
            # Longer than a KV-cache block (16 tokens): its blocks are stored, and said so.
            status, body = post(addr, port, KEY, f"request {i} to {addr}:{port} " + "and more " * 20)
            assert status == 200, body
            assert body["choices"][0]["text"]
        assert post(addr, port, "", "no key")[0] == 401
        # Spread over every rank it fronts, and only those (a remote rank's series arrive
        # with its heartbeat, every second).
        runner = next(r for r, p, _ in runners if p is process)
        runner.wait_until(lambda a=addr, p=port, f=fronted: {r for r, v in served_by(a, p).items() if v} == f)

    # Every rank published its cache's events on its own port, naming itself.
    for rank, subscriber in enumerate(subscribers):
        got = subscriber.receive(WAIT)
        assert got is not None, f"no KV events from rank {rank}"
        assert got[2][2] == rank

    for runner, _, _ in runners:
        runner.process.send_signal(signal.SIGTERM)
    for runner, _, _ in runners:
        assert runner.exit_code() in (0, 128 + signal.SIGTERM)
        nothing_left(runner)


def subscribed(count: int) -> list[KVSubscriber]:
    """``count`` subscribers on consecutive loopback ports, as an agent listens for a node's ranks."""
    for _ in range(50):
        first = KVSubscriber()
        subscribers = [first]
        try:
            subscribers += [KVSubscriber(port=first.port + i) for i in range(1, count)]
        except zmq.ZMQError:  # a port of the run is taken: another base
            for subscriber in subscribers:
                subscriber.close()
            continue
        return subscribers
    pytest.fail(f"no {count} consecutive free ports on loopback")


def test_a_headless_rank_that_dies_breaks_the_group_and_the_leader_s_death_ends_the_others(
    tmp_path: Path, start: Callable[..., Any]
) -> None:
    path = replica_file(tmp_path, "hybrid")
    leader_shard, other_shard = expand(load_replica(path))
    other = start("other", dump_spec(other_shard, show_secrets=True))
    # The other node's process waits for the leader's port before its engine starts.
    other.wait_until(lambda: "waits until the leader at 127.0.0.2" in other.stderr())
    assert other.pids() == []
    leader = start("leader", dump_spec(leader_shard, show_secrets=True))
    leader.wait_state("ready")
    other.wait_state("ready")
    # Ready only once every rank had joined: after the other node's engine started.
    ready_at = next(t["at"] for t in leader.status()["transitions"] if t["state"] == "ready")
    assert ready_at > other.status()["processes"][0]["started"]

    (leader_engine,) = leader.pids()
    os.kill(leader_engine, signal.SIGKILL)
    assert leader.exit_code() == 128 + signal.SIGKILL
    assert other.exit_code() == 1  # a process whose data-parallel leader went exits 1
    nothing_left(leader)
    nothing_left(other)
    deadline = time.monotonic() + WAIT
    while "went away" not in other.stderr() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "the data-parallel leader at 127.0.0.2" in other.stderr()


def test_an_exported_hybrid_replica_s_pods_serve_when_run_as_the_kubelet_would(
    tmp_path: Path, start: Callable[..., Any]
) -> None:
    """Each pod of ``export lws`` started with its own command and variables, as the kubelet starts it.

    Hybrid balancing: every pod serves its own ranks' API, so every pod gets the key from
    the Secret, and finds its first data-parallel rank from its worker index.
    """
    path = replica_file(tmp_path, "hybrid")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "enginekit",
            "export",
            "lws",
            str(path),
            "--image",
            "registry.example.com/x:1",
        ],
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    items = {item["kind"]: item for item in json.loads(done.stdout)["items"]}
    spec = tmp_path / "spec.json"
    spec.write_text(next(iter(items["ConfigMap"]["data"].values())))
    template = items["LeaderWorkerSet"]["spec"]["leaderWorkerTemplate"]
    http = json.loads(spec.read_text())["http_port"]
    runners = []
    for index, pod in enumerate((template["leaderTemplate"], template["workerTemplate"])):
        (container,) = pod["spec"]["containers"]
        argv = container["command"]
        assert argv[:2] == ["enginekit", "run"]
        env = {"LWS_WORKER_INDEX": str(index), "LWS_LEADER_ADDRESS": ADDRS[0]}
        for variable in container["env"]:
            source = variable["valueFrom"]
            env[variable["name"]] = ADDRS[index] if "fieldRef" in source else KEY  # the pod IP, or the Secret
        runners.append(start(f"pod-{index}", spec, *argv[3:], **env))
    for runner in runners:
        runner.wait_state("ready")
    for index, addr in enumerate(ADDRS):
        status, body = post(addr, http, KEY, "hello " + "and more " * 20)
        assert status == 200, body
        assert post(addr, http, "", "no key")[0] == 401
        (pid,) = runners[index].pids()
        assert (addr, http) in listening(pid)
    for runner in runners:
        runner.process.send_signal(signal.SIGTERM)
    for runner in runners:
        assert runner.exit_code() in (0, 128 + signal.SIGTERM)
        nothing_left(runner)
