"""Abuse a real server on loopback: each case gets the right 4xx, logs no traceback, and leaves it healthy."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from enginekit.spec.model import Profile
from enginekit.testing import engine_for
from enginekit_sim.plugin import SimEngine
from enginekit_sim.plugin.config import SimConfig
from enginekit_sim.server.textgen import IdMemo, token_id
from enginekit_sim.testing import free_port, poll, request

KEY = "abuse-key-0a1b2c3d4e5f"


class Server:
    """``python -m enginekit_sim serve`` on a loopback port, its output kept in a file."""

    def __init__(self, *args: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
        argv = [sys.executable, "-m", "enginekit_sim", "serve", "/models/tiny"]
        argv += ["--served-model-name", "tiny", "--host", "127.0.0.1", "--port", str(self.port)]
        argv += ["--startup-seconds", "0", "--ttft-ms", "1", "--itl-ms", "1", *args]
        self.popen = subprocess.Popen(
            argv,
            env={"ENGINEKIT_API_KEY": KEY, "PATH": "/usr/bin:/bin"},
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        poll(self.url + "/health", lambda s: s == 200, timeout=15)

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def check_clean(self) -> None:
        """Still healthy, and nothing went to the log as a traceback or a handler error."""
        assert request(self.url + "/health", timeout=2)[0] == 200
        out = self.output()
        assert "Traceback" not in out, out
        assert "error answering" not in out, out  # what a handler's failure prints

    def close(self) -> None:
        self.popen.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(5)
        self.log.close()


@pytest.fixture
def serve() -> Iterator[Callable[..., Server]]:
    started: list[Server] = []

    def run(*args: str) -> Server:
        server = Server(*args)
        started.append(server)
        return server

    yield run
    for server in started:
        server.close()


def raw(port: int, data: bytes, timeout: float = 5.0) -> bytes:
    """Send ``data`` as is and read the whole answer (the request asks to close)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        out = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and (chunk := sock.recv(65536)):
            out += chunk
        return out


def error_of(raw_body: bytes) -> dict[str, Any]:
    error = json.loads(raw_body)["error"]
    assert set(error) == {"message", "type", "param", "code"}
    return dict(error)


def test_non_ascii_bytes_in_the_key_are_401(serve: Callable[..., Server]) -> None:
    server = serve()
    for header in (b"Bearer \xff\xfe", b"\xff\xfe", b"Bearer " + "ключ".encode()):
        answer = raw(
            server.port,
            b"GET /v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: "
            + header
            + b"\r\nConnection: close\r\n\r\n",
        )
        assert answer.startswith(b"HTTP/1.1 401 "), answer[:200]
        assert error_of(answer.partition(b"\r\n\r\n")[2])["type"] == "AuthenticationError"
    assert request(server.url + "/v1/models", key=KEY)[0] == 200
    server.check_clean()


def test_a_request_without_the_key_is_refused_before_its_body_is_read(serve: Callable[..., Server]) -> None:
    server = serve()
    # 60 MiB declared and none of it sent: the answer comes from the head alone, so no
    # client without the key can make the server hold a body.
    head = b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 62914560\r\n\r\n"
    answer = raw(server.port, head, timeout=3)
    assert answer.startswith(b"HTTP/1.1 401 "), answer[:200]
    assert error_of(answer.partition(b"\r\n\r\n")[2])["type"] == "AuthenticationError"
    server.check_clean()


@pytest.mark.parametrize(("open_", "close"), [(b"[", b"]"), (b'{"a":', b"}")])
def test_deeply_nested_json_is_400(serve: Callable[..., Server], open_: bytes, close: bytes) -> None:
    server = serve()
    status, body = request(server.url + "/v1/completions", open_ * 5000 + b"1" + close * 5000, key=KEY)
    assert status == 400
    error = error_of(body)
    assert error["type"] == "BadRequestError"
    assert "nested too deeply" in error["message"]
    server.check_clean()


def test_405_and_413_have_their_own_types(serve: Callable[..., Server]) -> None:
    server = serve("--max-body-bytes", "4096")
    status, body = request(server.url + "/health", b"{}")
    assert status == 405
    assert error_of(body) | {"message": ""} == {
        "message": "",
        "type": "MethodNotAllowedError",
        "param": None,
        "code": 405,
    }
    answer = raw(
        server.port, b"POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    # Field names are case-insensitive; the sim sends them lower-case, as uvicorn does.
    assert b"\r\nallow: get\r\n" in answer.partition(b"\r\n\r\n")[0].lower()
    status, body = request(server.url + "/v1/completions", {"prompt": "x" * 5000}, key=KEY)
    assert status == 413
    assert error_of(body)["type"] == "RequestEntityTooLargeError"
    assert error_of(body)["code"] == 413
    fields = b"".join(b"X-Field-%d: 1\r\n" % i for i in range(200))
    answer = raw(server.port, b"GET /health HTTP/1.1\r\nHost: x\r\n" + fields + b"\r\n")
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 ")
    assert error_of(body)["type"] == "RequestHeaderFieldsTooLargeError"
    server.check_clean()


def test_a_chunked_body_is_limited_by_the_bytes_read(serve: Callable[..., Server]) -> None:
    limit = 1024 * 1024
    server = serve("--max-body-bytes", str(limit))
    piece = b" " * 65536

    def chunks() -> Iterator[bytes]:
        yield b'{"prompt": "hi",'
        for _ in range(3 * limit // len(piece)):  # three times the limit, whitespace JSON allows
            yield piece
        yield b"}"

    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        headers = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
        # The server may answer and close before the whole body is sent.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            conn.request("POST", "/v1/completions", body=chunks(), headers=headers, encode_chunked=True)
        response = conn.getresponse()
        assert response.status == 413
        assert error_of(response.read())["type"] == "RequestEntityTooLargeError"
    finally:
        conn.close()
    # Just under the limit, chunked, is read and answered.
    status, _ = request(server.url + "/v1/completions", {"prompt": "hi", "max_tokens": 2}, key=KEY)
    assert status == 200
    server.check_clean()


def test_the_token_id_memo_stays_under_its_byte_bound() -> None:
    memo = IdMemo(max_bytes=200_000, max_token=4096)
    words = [f"{i:06d}" + "w" * 2000 for i in range(500)]  # about 1 MB of unique words
    assert memo.ids(words) == [token_id(w) for w in words]
    assert memo.bytes <= 200_000
    assert 0 < len(memo) < 500
    # The oldest went first: the last word is still there, the first is not.
    assert words[-1] in memo._ids
    assert words[0] not in memo._ids
    # A token past max_token is hashed and never kept.
    small = IdMemo(max_token=8)
    assert small.ids(["x" * 9, "short"]) == [token_id("x" * 9), token_id("short")]
    assert len(small) == 1


def test_a_prompt_over_the_byte_limit_is_refused_and_health_stays_prompt(
    serve: Callable[..., Server],
) -> None:
    server = serve("--max-prompt-bytes", "100000")
    status, body = request(server.url + "/v1/completions", {"prompt": "word " * 30_000}, key=KEY, timeout=10)
    assert status == 400
    assert error_of(body)["param"] == "prompt"
    chat = {"messages": [{"role": "user", "content": "é" * 60_000}]}  # 120 kB as UTF-8
    status, body = request(server.url + "/v1/chat/completions", chat, key=KEY, timeout=10)
    assert status == 400
    assert error_of(body)["param"] == "messages"
    started = time.monotonic()
    assert request(server.url + "/health", timeout=2)[0] == 200
    assert time.monotonic() - started < 1.0
    assert (
        request(server.url + "/v1/completions", {"prompt": "word " * 100, "max_tokens": 2}, key=KEY)[0] == 200
    )
    server.check_clean()


def _stalled(port: int, body: dict[str, Any]) -> socket.socket:
    """A client that sends a request and then never reads: a tiny receive buffer fills at once."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    data = json.dumps(body).encode()
    sock.sendall(
        b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + f"Authorization: Bearer {KEY}\r\nContent-Length: {len(data)}\r\n\r\n".encode()
        + data
    )
    return sock


def test_stalled_streams_and_gone_clients_give_their_slots_back(serve: Callable[..., Server]) -> None:
    server = serve(
        *("--max-num-seqs", "2", "--stream-write-timeout", "1", "--max-model-len", "10000000"),
        *("--itl-ms", "0.01"),
    )
    long = {"prompt": "hi", "max_tokens": 9_000_000}
    stalled = [_stalled(server.port, {**long, "stream": True}) for _ in range(2)]
    try:
        started = time.monotonic()
        status, body = request(
            server.url + "/v1/completions", {"prompt": "hi", "max_tokens": 3}, key=KEY, timeout=20
        )
        assert status == 200, body
        assert time.monotonic() - started < 15
    finally:
        for sock in stalled:
            sock.close()
    # Non-streaming requests (90 s each at this rate) whose clients leave free their slots.
    gone = [_stalled(server.port, long) for _ in range(2)]
    time.sleep(0.3)  # both admitted, holding both slots
    for sock in gone:
        sock.close()
    status, body = request(
        server.url + "/v1/completions", {"prompt": "hi", "max_tokens": 3}, key=KEY, timeout=10
    )
    assert status == 200, body
    server.check_clean()


def test_the_notes_say_reset_prefix_cache_is_not_guarded_by_the_key() -> None:
    from enginekit.spec.model import ShardSpec

    spec = ShardSpec(
        replica_id="r1",
        shard_id="r1-0",
        bind_addr="127.0.0.1",
        http_port=8000,
        gpu_indices=(0,),
        profile=Profile(name="p", engine="sim", model_path="/m", served_model_name="m"),
        api_key=KEY,
    )
    notes = engine_for(SimEngine(SimConfig()), "sim").notes(spec)
    open_note = next(note for note in notes if "without the API key" in note)
    assert "/reset_prefix_cache" in open_note
    assert "only with VLLM_SERVER_DEV_MODE=1" in open_note, "vLLM serves it only in development mode"
