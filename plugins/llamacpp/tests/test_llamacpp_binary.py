"""Optional: the built commands against a real llama-server (its parser, /health, /metrics, adapters).

Skipped unless ENGINEKIT_TEST_LLAMA_SERVER names a llama-server binary. The server tests
also need ENGINEKIT_TEST_LLAMA_MODEL (a GGUF file, any tiny model will do) and take
adapters for it from ENGINEKIT_TEST_LLAMA_LORAS (paths separated by os.pathsep). Every
process listens on loopback only, is bounded in time, and is stopped by the test.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from enginekit import Adapter, Command, Profile, ShardSpec
from enginekit.testing import engine_for
from enginekit_llamacpp import LlamaCppConfig, LlamaCppEngine

BINARY = os.environ.get("ENGINEKIT_TEST_LLAMA_SERVER", "")
MODEL = os.environ.get("ENGINEKIT_TEST_LLAMA_MODEL", "")
LORAS = [p for p in os.environ.get("ENGINEKIT_TEST_LLAMA_LORAS", "").split(os.pathsep) if p]
KEY = "sk-enginekit-test-0123456789"

pytestmark = pytest.mark.skipif(not BINARY, reason="ENGINEKIT_TEST_LLAMA_SERVER names no llama-server")
needs_model = pytest.mark.skipif(not MODEL, reason="ENGINEKIT_TEST_LLAMA_MODEL names no GGUF model")


def command_for(tmp_path: Path, **fields: object) -> Command:
    profile = {k[len("profile_") :]: v for k, v in fields.items() if k.startswith("profile_")}
    spec = {k: v for k, v in fields.items() if not k.startswith("profile_")}
    shard = ShardSpec(
        profile=Profile(
            **{"name": "t", "engine": "llamacpp", "model_path": MODEL or "/nonexistent.gguf", **profile}
        ),  # type: ignore[arg-type]
        **{"shard_id": "s0", "http_port": free_port(), "bind_addr": "127.0.0.1", **spec},  # type: ignore[arg-type]
    )
    (command,) = engine_for(LlamaCppEngine(LlamaCppConfig(executable=BINARY)), "llamacpp").commands(shard)
    return command


def run(command: Command, tmp_path: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command.argv(), env=environ(command, tmp_path), capture_output=True, text=True, timeout=timeout
    )


def environ(command: Command, tmp_path: Path) -> dict[str, str]:
    # HOME in a fresh folder: no user config.ini of the machine running the tests applies.
    return command.environ({"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_listing_parses() -> None:
    listing = engine_for(LlamaCppEngine(LlamaCppConfig(executable=BINARY)), "llamacpp").device_listing()
    assert listing is not None
    out = subprocess.run(listing.argv(), capture_output=True, text=True, timeout=60, check=True)
    devices = engine_for(LlamaCppEngine(), "llamacpp").parse_devices(out.stdout + out.stderr)
    assert isinstance(devices, list)


def test_llama_server_accepts_every_flag_of_a_cpu_shard(tmp_path: Path) -> None:
    adapters = (
        Adapter(name="a", path="/nonexistent/a.gguf"),
        Adapter(name="b", path="/nonexistent/b,2.gguf"),
    )
    command = command_for(
        tmp_path,
        gpu_indices=(),
        threads=2,
        api_key=KEY,
        profile_served_model_name="tiny",
        profile_adapters=adapters,
        profile_args=("-c", "256", "-np", "1", "-to", "30"),
    )
    done = run(command, tmp_path)
    # Parsed, then failed on the missing files: a parse error would name the argument.
    assert "invalid argument" not in done.stderr
    assert "error while handling argument" not in done.stderr


def test_a_gpu_shard_on_a_build_without_cuda_fails_instead_of_running_on_the_cpu(tmp_path: Path) -> None:
    listing = subprocess.run([BINARY, "--list-devices"], capture_output=True, text=True, timeout=60)
    if any(line.strip().startswith("CUDA") for line in listing.stdout.splitlines()):
        pytest.skip("this build has CUDA")
    done = run(command_for(tmp_path, gpu_indices=(0,)), tmp_path)
    assert done.returncode != 0
    assert "invalid device: CUDA0" in done.stderr


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    adapters = tuple(Adapter(name=f"a{i}", path=p) for i, p in enumerate(LORAS))
    command = command_for(
        tmp_path,
        gpu_indices=(),
        threads=2,
        api_key=KEY,
        profile_served_model_name="tiny",
        profile_adapters=adapters,
    )
    port = command.args[command.args.index("--port") + 1]
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(
        command.argv(), env=environ(command, tmp_path), stdout=log, stderr=subprocess.STDOUT, text=True
    )
    try:
        yield f"http://127.0.0.1:{port}", proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)
        log.close()


def get(url: str, key: str = "") -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"} if key else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@needs_model
def test_health_means_ready_and_metrics_need_the_key(server: tuple[str, subprocess.Popen[str]]) -> None:
    base, proc = server
    deadline = time.monotonic() + 120
    seen: set[int] = set()
    while time.monotonic() < deadline:
        assert proc.poll() is None, "llama-server exited"
        try:
            status, _ = get(base + "/health")
        except OSError:
            time.sleep(0.2)
            continue
        seen.add(status)
        if status == 200:
            break
        assert status == 503
        time.sleep(0.2)
    assert 200 in seen
    assert get(base + "/metrics")[0] == 401
    status, text = get(base + "/metrics", KEY)
    assert status == 200
    assert "llamacpp:" in text
    status, body = get(base + "/v1/models", KEY)
    assert status == 200
    assert "tiny" in [m["id"] for m in json.loads(body)["data"]]
    if LORAS:
        status, body = get(base + "/lora-adapters", KEY)
        assert status == 200
        listed = json.loads(body)
        assert [(a["id"], a["path"], a["scale"]) for a in listed] == [
            (i, p, 0.0) for i, p in enumerate(LORAS)
        ]
