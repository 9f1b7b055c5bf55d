"""The exported Slurm script on a real Slurm: a two-rank simulated replica serves a completion, and scancel stops it all."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def _fixture_module() -> Any:
    """``tests/slurm_fixture.py``, loaded by its path: it is also a script CI runs, and under
    pytest's importlib mode ``tests`` is no package older pytest versions import from."""
    path = Path(__file__).with_name("slurm_fixture.py")
    spec = importlib.util.spec_from_file_location("enginekit_slurm_fixture", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


_slurm = _fixture_module()
SlurmUnavailable, slurm_running = _slurm.SlurmUnavailable, _slurm.slurm_running

BIN = Path(sys.executable).parent
#: How long the whole replica may take to answer, from sbatch: a two-task job starts in a
#: few seconds here, the simulated engine in two more.
READY_SECONDS = 90.0
STOP_SECONDS = 45.0


@pytest.fixture(scope="module")
def slurm() -> Iterator[None]:
    """A running Slurm, or a skip saying why not (a failure where CI requires one)."""
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(slurm_running())
        except SlurmUnavailable as exc:
            if os.environ.get("ENGINEKIT_REQUIRE_SLURM") == "1":
                pytest.fail(f"ENGINEKIT_REQUIRE_SLURM=1, but Slurm is not here: {exc}")
            pytest.skip(f"no Slurm on this machine: {exc}")
        yield


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _get(url: str, *, key: str = "", body: dict[str, object] | None = None) -> tuple[int, bytes]:
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except (OSError, urllib.error.URLError):
        return 0, b""


def _ours(marker: str) -> list[str]:
    """Every live process whose command line holds ``marker``, as text."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (proc / "stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if marker in cmdline and state not in ("Z", "X"):
            found.append(f"{proc.name}: {cmdline.strip()}")
    return found


def _squeue(job: str) -> str:
    """The job's state; ``PENDING`` while slurmctld is too busy to answer (a loaded machine)."""
    for _ in range(3):
        try:
            done = subprocess.run(
                ["squeue", "-h", "-j", job, "-o", "%T"], capture_output=True, text=True, timeout=20
            )
        except subprocess.TimeoutExpired:
            continue
        return done.stdout.strip()
    return "PENDING"


#: The two replicas exported: tensor parallel over two ranks, and four data-parallel ranks
#: over two nodes behind the leader's one API server (each task finds its first rank from
#: its own SLURM_PROCID, through the replica's layout).
SHAPES = {
    "tensor-parallel": {"tp": 2, "gpus_per_node": 1},
    "data-parallel": {"tp": 1, "dp": 4, "gpus_per_node": 2, "dp_balancing": "internal"},
}


def test_a_two_rank_sim_replica_runs_on_slurm_serves_a_completion_and_scancel_stops_it(
    slurm: None, tmp_path: Path
) -> None:
    # One after the other, in one test: the jobs are exclusive on the one node, and a
    # Slurm this test started is stopped when its module ends.
    for shape in sorted(SHAPES):
        folder = tmp_path / shape
        folder.mkdir()
        _serve_on_slurm(folder, shape)


def _serve_on_slurm(tmp_path: Path, shape: str) -> None:
    key = "sk-e2e-" + secrets.token_hex(16)
    model = "e2e-" + secrets.token_hex(6)  # marks this test's processes, and no one else's
    http_port, leader_port = _free_ports(2)
    replica = {
        "replica_id": "sim-e2e",
        "leader_port": leader_port,
        "http_port": http_port,
        "api_key": key,
        "nodes": [{"addr": "127.0.0.1"}, {"addr": "127.0.0.1"}],
        "profile": {
            "name": "sim-e2e",
            "engine": "sim",
            "model_path": "/models/e2e",
            "served_model_name": model,
            "nodes": 2,
            **SHAPES[shape],
        },
    }
    (tmp_path / "replica.json").write_text(json.dumps(replica))
    # The simulated engine runs in this interpreter: the job's nodes are this machine.
    config = tmp_path / "node.toml"
    config.write_text(f"[engines.sim]\npython = {json.dumps(sys.executable)}\nstartup_seconds = 0.5\n")
    exported = subprocess.run(
        [str(BIN / "enginekit"), "--config", str(config), "export", "slurm", "replica.json", "--one-node"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert exported.returncode == 0, exported.stderr
    script = tmp_path / "replica.sbatch"
    script.write_text(exported.stdout)
    assert key not in exported.stdout

    environ = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",  # enginekit: this venv's
        "ENGINEKIT_CONFIG": str(config),
        "ENGINEKIT_API_KEY": key,  # the submitter's variable: sbatch passes it on
    }
    submitted = subprocess.run(
        ["sbatch", "--parsable", f"--chdir={tmp_path}", f"--output={tmp_path}/job-%j.out", str(script)],
        capture_output=True,
        text=True,
        timeout=30,
        env=environ,
    )
    assert submitted.returncode == 0, submitted.stderr
    job = submitted.stdout.strip().split(";")[0]
    log = tmp_path / f"job-{job}.out"
    base = f"http://127.0.0.1:{http_port}"
    try:
        deadline = time.monotonic() + READY_SECONDS
        while _get(base + "/health")[0] != 200:
            state = _squeue(job)
            if time.monotonic() > deadline or state not in ("PENDING", "RUNNING", "CONFIGURING"):
                output = log.read_text(errors="replace") if log.exists() else "(no output)"
                pytest.fail(f"the leader never became healthy (job {job}: {state or 'gone'}):\n{output}")
            time.sleep(0.5)

        # Both ranks are this job's tasks, and no command line holds the key.
        assert len(_ours(model)) >= 2, _ours(model)
        assert not _ours(key)
        status, body = _get(
            base + "/v1/completions", key=key, body={"model": model, "prompt": "hi", "max_tokens": 4}
        )
        assert status == 200, body
        assert json.loads(body)["choices"][0]["text"]
        assert (
            _get(base + "/v1/completions", body={"model": model, "prompt": "hi", "max_tokens": 4})[0] == 401
        )
        if shape == "data-parallel":
            # Every rank joined and serves: four requests in turn reach all four.
            for _ in range(3):
                _get(
                    base + "/v1/completions", key=key, body={"model": model, "prompt": "hi", "max_tokens": 4}
                )
            served: set[str] = set()
            deadline = time.monotonic() + 10  # a remote rank's series arrive with its heartbeat
            while served != {"0", "1", "2", "3"} and time.monotonic() < deadline:
                metrics = _get(base + "/metrics")[1].decode()
                served = {
                    line.split('engine="', 1)[1].split('"', 1)[0]
                    for line in metrics.splitlines()
                    if line.startswith("vllm:generation_tokens_total{") and not line.endswith(" 0.0")
                }
                time.sleep(0.2)
            assert served == {"0", "1", "2", "3"}
    finally:
        for _ in range(3):  # a busy slurmctld may not answer at once: the job must not outlive us
            with contextlib.suppress(subprocess.TimeoutExpired):
                if subprocess.run(["scancel", job], capture_output=True, timeout=30).returncode == 0:
                    break
        deadline = time.monotonic() + STOP_SECONDS
        while (_squeue(job) or _ours(model)) and time.monotonic() < deadline:
            time.sleep(0.5)
        left = _ours(model)
        for line in left:  # never leave this test's processes behind, whatever failed
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(line.split(":", 1)[0]), 9)
        shutil.rmtree(f"/tmp/enginekit-{job}", ignore_errors=True)
    assert not _squeue(job), "the job is still in the queue after scancel"
    assert not left, f"still running after scancel: {left}"
    assert key not in log.read_text(errors="replace")
