"""``enginekit run`` with the simulated engine: real runners, real engines, on loopback.

Every runner is a separate ``enginekit run`` process in a session of its own, with a
status file; every wait is bounded, and the fixture kills whatever a failed test left
(the runner's group and every process group its status file names), then fails if it
had to.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES

KEY = "sk-sim-run-0123456789abcdef"
EXAMPLE_KEY = "sim-demo-key-0123456789abcdef"  # examples/sim-single.toml's
WAIT = 60.0  # the most any one step may take on a loaded machine


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def spec(port: int, *args: str, key: str = KEY, **fields: Any) -> dict[str, Any]:
    """A one-GPU simulated shard on loopback that starts in 0.2 s; ``fields`` override the spec's."""
    return {
        "replica_id": "t",
        "shard_id": "t-0",
        "bind_addr": "127.0.0.1",
        "http_port": port,
        "gpu_indices": [0],
        **({"api_key": key} if key else {}),
        **fields,
        "profile": {
            "name": "tiny",
            "engine": "sim",
            "model_path": "/models/tiny",
            "served_model_name": "tiny",
            "args": ["--startup-seconds", "0.2", *args],
            **fields.get("profile", {}),
        },
    }


def pair(join_port: int, http_port: int, rank: int) -> dict[str, Any]:
    """One rank of a two-node simulated replica on loopback."""
    return spec(
        http_port,
        key="",
        shard_id=f"p-{rank}",
        rank=rank,
        nnodes=2,
        leader_addr="127.0.0.1",
        leader_port=join_port,
        gpu_indices=[2 * rank, 2 * rank + 1],
        profile={"tp": 4, "gpus_per_node": 2, "nodes": 2},
    )


class Runner:
    """One ``enginekit run`` process, its stderr and its status file."""

    def __init__(
        self, folder: Path, name: str, source: Path, config: Path, *options: str, env: dict[str, str]
    ):
        self.name = name
        self.status_file = folder / f"{name}.status.json"
        self.err_file = folder / f"{name}.stderr"
        self.out_file = folder / f"{name}.stdout"
        argv = [sys.executable, "-m", "enginekit", "--config", str(config), "run", str(source)]
        argv += ["--status-file", str(self.status_file), *options]
        with self.err_file.open("wb") as err, self.out_file.open("wb") as out:
            self.process = subprocess.Popen(
                argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env, start_new_session=True
            )

    def status(self) -> dict[str, Any]:
        try:
            return json.loads(self.status_file.read_text())  # type: ignore[no-any-return]
        except FileNotFoundError:
            return {}

    def stderr(self) -> str:
        return self.err_file.read_text(errors="replace")

    def pids(self) -> list[int]:
        return [p["pid"] for p in self.status().get("processes", [])]

    def wait_until(self, what: Callable[[], bool], timeout: float = WAIT) -> None:
        deadline = time.monotonic() + timeout
        while not what():
            if time.monotonic() > deadline:
                pytest.fail(f"{self.name}: timed out; its stderr:\n{self.stderr()}")
            if self.process.poll() is not None and not what():
                pytest.fail(f"{self.name} exited {self.process.returncode}; its stderr:\n{self.stderr()}")
            time.sleep(0.05)

    def wait_state(self, state: str, timeout: float = WAIT) -> None:
        self.wait_until(lambda: self.status().get("state") == state, timeout)

    def exit_code(self, timeout: float = WAIT) -> int:
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{self.name} did not exit within {timeout} s; its stderr:\n{self.stderr()}")


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def nothing_left(runner: Runner) -> None:
    assert runner.process.poll() is not None
    for pid in runner.pids():
        deadline = time.monotonic() + 10  # a killed grandchild is reaped by init a moment later
        while group_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not group_alive(pid), f"{runner.name}: process group {pid} is still running"


@pytest.fixture
def node_config(tmp_path: Path) -> Path:
    config = tmp_path / "node.toml"
    config.write_text(f"[engines.sim]\npython = {json.dumps(sys.executable)}\n")
    return config


@pytest.fixture
def start(tmp_path: Path, node_config: Path) -> Iterator[Callable[..., Runner]]:
    runners: list[Runner] = []

    def starting(name: str, document: dict[str, Any] | Path, *options: str, **env: str) -> Runner:
        source = document
        if not isinstance(source, Path):
            source = tmp_path / f"{name}.json"
            source.write_text(json.dumps(document))
        environ = {**os.environ, **env}
        environ.pop("ENGINEKIT_CONFIG", None)
        runners.append(Runner(tmp_path, name, source, node_config, *options, env=environ))
        return runners[-1]

    yield starting
    left = []
    for runner in runners:
        if runner.process.poll() is None:
            left.append(f"runner {runner.name}")
            with contextlib.suppress(ProcessLookupError):
                os.killpg(runner.process.pid, signal.SIGKILL)
            runner.process.wait(timeout=WAIT)
        for pid in runner.pids():
            if group_alive(pid):
                left.append(f"{runner.name}'s process group {pid}")
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
    assert not left, f"left running: {left}"


def request(port: int, method: str, path: str, body: Any = None, key: str = "") -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
    try:
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
        connection.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = connection.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data.startswith(b"{") else data.decode()
    finally:
        connection.close()


def complete(port: int, key: str) -> tuple[int, Any]:
    return request(
        port, "POST", "/v1/completions", {"model": "tiny", "prompt": "Hello", "max_tokens": 4}, key
    )


def test_one_shard_starts_serves_through_the_key_and_stops_on_sigterm_leaving_nothing(
    start: Callable[..., Runner],
) -> None:
    port = free_port()
    runner = start("single", spec(port))
    runner.wait_state("ready")
    status, answer = complete(port, KEY)
    assert status == 200
    assert answer["usage"]["completion_tokens"] == 4
    assert complete(port, "")[0] == 401
    (pid,) = runner.pids()
    assert KEY not in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    runner.process.send_signal(signal.SIGTERM)
    assert runner.exit_code() == 143
    nothing_left(runner)
    final = runner.status()
    assert (final["state"], final["exit_code"], final["reason"]) == ("exited", 143, "stopped by SIGTERM")
    assert [t["state"] for t in final["transitions"]] == ["starting", "ready", "stopping", "exited"]
    err = runner.stderr()
    assert "enginekit run: state starting -> ready: " in err
    assert "[sim] enginekit-sim: ready, serving 'tiny'" in err
    assert "[sim] enginekit-sim: shutting down" in err  # it stopped cleanly, within the grace
    assert "SIGKILL (" not in err
    assert KEY not in err + runner.status_file.read_text() + runner.out_file.read_text()


def test_the_example_serves_completions_and_ctrl_c_leaves_nothing_running(
    start: Callable[..., Runner],
) -> None:
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 8100)) == 0:
            pytest.skip("the example's port 8100 is in use on this machine")
    runner = start("example", EXAMPLES / "sim-single.toml")
    runner.wait_state("ready")
    assert complete(8100, EXAMPLE_KEY)[0] == 200
    runner.process.send_signal(signal.SIGINT)  # what Ctrl-C sends the foreground runner
    assert runner.exit_code() == 130
    nothing_left(runner)
    assert EXAMPLE_KEY not in runner.stderr()


def test_dry_run_prints_the_masked_plan_and_every_step_and_starts_nothing(
    start: Callable[..., Runner],
) -> None:
    runner = start("dry", EXAMPLES / "sim-single.toml", "--dry-run", "--stop-grace", "5")
    assert runner.exit_code() == 0
    out = runner.out_file.read_text()
    assert "ENGINEKIT_API_KEY=<secret>" in out
    assert "enginekit run would:\n  1. run the device listing in the main process's environment" in out
    assert "wait until http://127.0.0.1:8100/health answers 200, at most 1800 s" in out
    assert "SIGKILL after 5 s, exit 128+N" in out
    assert out.endswith("nothing was started (--dry-run)\n")
    assert EXAMPLE_KEY not in out + runner.stderr()
    assert not runner.status_file.exists()


def test_the_key_from_a_variable_reaches_the_engine_and_the_variable_does_not(
    start: Callable[..., Runner],
) -> None:
    port = free_port()
    runner = start("from-env", spec(port, key=""), "--api-key-from-env", "SIM_SECRET", SIM_SECRET=KEY)
    runner.wait_state("ready")
    assert complete(port, KEY)[0] == 200
    assert complete(port, "")[0] == 401
    (pid,) = runner.pids()
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    assert not [entry for entry in environ if entry.startswith(b"SIM_SECRET=")]
    runner.process.send_signal(signal.SIGTERM)
    assert runner.exit_code() == 143
    nothing_left(runner)
    assert KEY not in runner.stderr() + runner.status_file.read_text()


def test_a_two_node_replica_worker_waits_leader_gets_ready_with_it_and_both_fail_when_the_leader_dies(
    start: Callable[..., Runner],
) -> None:
    join, leader_http, worker_http = free_port(), free_port(), free_port()
    # The worker's rank and leader address come from the environment, as LeaderWorkerSet sets them.
    worker_spec = {**pair(join, worker_http, 1), "rank": 0, "leader_addr": "placeholder"}
    worker = start(
        "worker",
        worker_spec,
        "--rank-from-env",
        "LWS_WORKER_INDEX",
        "--leader-addr-from-env",
        "LWS_LEADER_ADDRESS",
        LWS_WORKER_INDEX="1",
        LWS_LEADER_ADDRESS="127.0.0.1",
    )
    worker.wait_until(
        lambda: f"waits until the leader at 127.0.0.1:{join} accepts connections" in worker.stderr()
    )
    assert worker.status()["state"] == "starting"
    assert worker.pids() == []
    leader = start("leader", pair(join, leader_http, 0))
    leader.wait_state("ready")
    worker.wait_state("running")
    # Ready only once the worker had joined: after the worker's engine started.
    ready_at = next(t["at"] for t in leader.status()["transitions"] if t["state"] == "ready")
    assert ready_at > worker.status()["processes"][0]["started"]
    assert "enginekit_sim_workers_ready" in request(leader_http, "GET", "/metrics")[1]

    (leader_engine,) = leader.pids()
    os.kill(leader_engine, signal.SIGKILL)
    assert leader.exit_code() == 128 + signal.SIGKILL
    assert worker.exit_code() == 1  # the simulated worker exits 1 when its leader goes
    nothing_left(leader)
    nothing_left(worker)
    assert "the main process sim-worker-1 exited (exit status 1)" in worker.stderr()


def test_a_crash_after_requests_is_the_runner_s_exit_status(start: Callable[..., Runner]) -> None:
    port = free_port()
    runner = start("crash", spec(port, "--fault", "crash-after-requests:2:7"))
    runner.wait_state("ready")
    assert [complete(port, KEY)[0] for _ in range(2)] == [200, 200]
    with pytest.raises((ConnectionError, http.client.HTTPException)):
        complete(port, KEY)
    assert runner.exit_code() == 7
    nothing_left(runner)
    assert runner.status()["reason"] == "the main process sim exited (exit status 7)"


def test_a_slow_health_endpoint_is_waited_for(start: Callable[..., Runner]) -> None:
    port = free_port()
    runner = start("slow", spec(port, "--fault", "slow-health:1.5"))
    runner.wait_state("ready")
    reason = runner.status()["reason"]
    assert reason.startswith(f"http://127.0.0.1:{port}/health answered 200, ")
    assert float(reason.split(", ")[1].split(" s ")[0]) >= 1.5
    runner.process.send_signal(signal.SIGTERM)
    assert runner.exit_code() == 143
    nothing_left(runner)


def test_an_engine_that_never_gets_healthy_is_a_startup_timeout(start: Callable[..., Runner]) -> None:
    port = free_port()
    runner = start("hang", spec(port, "--fault", "hang-at-start"), "--startup-timeout", "2")
    assert runner.exit_code() == 83
    nothing_left(runner)
    assert f"error: not ready within 2 s: http://127.0.0.1:{port}/health answered 503" in runner.stderr()
    assert runner.status()["exit_code"] == 83


def test_a_build_that_fell_back_to_the_cpu_is_refused_before_anything_starts(
    start: Callable[..., Runner],
) -> None:
    port = free_port()
    runner = start("cpu", spec(port, "--fault", "cpu-fallback"))
    assert runner.exit_code() == 81
    err = runner.stderr()
    assert (
        "error: refusing to start: the engine's build sees no GPU, so the shard placed on GPU(s) 0 "
        "would run on the CPU (device listing: "
    ) in err
    assert runner.pids() == []
    assert runner.status()["state"] == "exited"
    assert "[sim]" not in err


def test_an_engine_that_exits_at_start_gives_its_code(start: Callable[..., Runner]) -> None:
    runner = start("exits", spec(free_port(), "--fault", "exit-at-start:42"))
    assert runner.exit_code() == 42
    nothing_left(runner)


@pytest.mark.parametrize(
    ("fault", "verdict", "code"), [((), "gpu", 0), (("--fault", "cpu-fallback"), "cpu", 1)]
)
def test_probe_sees_the_machine_as_run_does(
    tmp_path: Path, node_config: Path, fault: tuple[str, ...], verdict: str, code: int
) -> None:
    # The listing runs in the main process's environment, so a profile-level fallback
    # (the engine's own variables) is seen by `probe` exactly as `run` refuses it.
    path = tmp_path / "shard.json"
    path.write_text(json.dumps(spec(free_port(), *fault)))
    done = subprocess.run(
        [sys.executable, "-m", "enginekit", "--config", str(node_config), "probe", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == code, done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == verdict
    assert report["listing"][1:4] == ["-I", "-m", "enginekit_sim"]
    assert KEY not in done.stdout + done.stderr


def test_a_subscriber_at_the_rendered_kv_event_source_receives_the_shards_batches_and_replays(
    start: Callable[..., Runner], tmp_path: Path, node_config: Path
) -> None:
    """The example's events, where ``render`` says a consumer connects: live, and replayed from sequence 0."""
    zmq = pytest.importorskip("zmq")
    msgpack = pytest.importorskip("msgpack")
    text = (EXAMPLES / "sim-single.toml").read_text()
    http, events = free_port(), free_port()
    while events + 1 == http or events >= 65535:
        events = free_port()
    text = text.replace("http_port = 8100", f"http_port = {http}").replace(
        "kv_events_port = 5557", f"kv_events_port = {events}"
    )
    source = tmp_path / "sim-single.toml"
    source.write_text(text)
    rendered = subprocess.run(
        [sys.executable, "-m", "enginekit", "--config", str(node_config), "render", str(source), "--json"],
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=True,
    )
    (found,) = json.loads(rendered.stdout)["kv_events"]
    assert found == {
        "rank": 0,
        "endpoint": f"tcp://127.0.0.1:{events}",
        "replay": f"tcp://127.0.0.1:{events + 1}",
    }
    shown = subprocess.run(
        [sys.executable, "-m", "enginekit", "--config", str(node_config), "render", str(source)],
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=True,
    ).stdout
    assert f"KV-cache events of rank 0: subscribe at tcp://127.0.0.1:{events}" in shown

    context = zmq.Context()
    subscriber = context.socket(zmq.SUB)
    subscriber.setsockopt(zmq.LINGER, 0)
    subscriber.setsockopt(zmq.SUBSCRIBE, b"")
    subscriber.connect(found["endpoint"])  # before the engine binds: ZMQ connects when it can
    try:
        runner = start("events", source)
        runner.wait_state("ready")
        prompt = "the quick brown fox jumps over the lazy dog " * 4  # several 16-token blocks
        status, _ = request(
            http, "POST", "/v1/completions", {"model": "tiny", "prompt": prompt, "max_tokens": 1}, EXAMPLE_KEY
        )
        assert status == 200
        assert subscriber.poll(int(WAIT * 1000)), "no batch reached the subscriber"
        topic, seq, payload = subscriber.recv_multipart()
        batch = msgpack.unpackb(payload)
        assert (topic, int.from_bytes(seq, "big")) == (b"", 0)
        assert any(event["type"] == "BlockStored" for event in batch[1])
        # A consumer that joined late asks the replay endpoint for everything from 0.
        replay = context.socket(zmq.DEALER)
        replay.setsockopt(zmq.LINGER, 0)
        replay.connect(found["replay"])
        try:
            replay.send_multipart([b"", (0).to_bytes(8, "big")])
            assert replay.poll(int(WAIT * 1000)), "no answer from the replay endpoint"
            first = replay.recv_multipart()
            assert first[-1] == payload
            assert int.from_bytes(first[-2], "big") == 0
        finally:
            replay.close()
        runner.process.send_signal(signal.SIGTERM)
        runner.exit_code()
    finally:
        subscriber.close()
        context.term()
