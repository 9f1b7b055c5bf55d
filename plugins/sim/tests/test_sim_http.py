"""The simulator's HTTP/1.1 layer, in process on loopback: framing, order, limits, and a client that goes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import Awaitable, Callable

import pytest
from enginekit_sim.server.http import MAX_HEAD_BYTES, MAX_HEADERS, HttpServer, Outcome, Reply, Request
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

LIMIT = 1000
#: Pieces of 64 KiB the flood handler streams: 125 MiB, far past what buffers hold.
FLOOD = 2000


def refusal(status: int, reason: str) -> Reply:
    return Reply(status, json.dumps({"status": status, "reason": reason}).encode())


class App:
    """Handlers by path: ``/echo`` answers at once, ``/slow`` later, ``/stream`` in pieces."""

    def __init__(self) -> None:
        self.cancelled = asyncio.Event()
        self.started = asyncio.Event()
        self.written = 0

    def __call__(self, request: Request) -> Outcome:
        if request.path == "/slow":
            return self.slow(request)
        if request.path == "/later":
            return self.later(request)
        if request.path == "/while":
            return self.slow(request, 2.5)
        if request.path == "/forever":
            return self.forever()
        if request.path == "/stream":
            return self.stream(request, pieces=3, size=5)
        if request.path == "/flood":
            return self.stream(request, pieces=FLOOD, size=64 * 1024)
        if request.path == "/bug":
            raise RuntimeError("a handler's bug")
        if request.path == "/big":
            return Reply(200, b"x" * (32 << 20))
        answer = {
            "method": request.method,
            "path": request.path,
            "query": request.query,
            "body": request.body.decode("latin-1"),
            "auth": request.headers.get("authorization"),
        }
        return Reply(200, json.dumps(answer).encode())

    async def slow(self, request: Request, seconds: float = 0.05) -> Reply:
        await asyncio.sleep(seconds)
        return Reply(200, b"slow " + request.body)

    async def later(self, request: Request) -> Reply:
        await asyncio.sleep(0)
        return Reply(200, request.body)

    async def forever(self) -> Reply:
        self.started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        return Reply(200)

    async def stream(self, request: Request, *, pieces: int, size: int) -> None:
        out = request.stream(((b"content-type", b"text/plain"),))
        for i in range(pieces):
            if out.write(bytes([97 + i % 26]) * size):
                await out.drain()
            self.written = i + 1
        out.end()


Scenario = Callable[[HttpServer, App], Awaitable[None]]


def guard(request: Request) -> Reply | None:
    """Refuses ``/guarded`` from the head, as the API refuses a request without its key."""
    if request.path == "/checkbug":
        raise RuntimeError("a check's bug")
    return Reply(401, b'{"status": 401}') if request.path == "/guarded" else None


def serve(scenario: Scenario, keep_alive: float = 5.0, **timeouts: float) -> None:
    """Run ``scenario`` against a fresh server on a free loopback port, then stop it."""

    async def main() -> None:
        app = App()
        server = HttpServer(
            app, check=guard, max_body=LIMIT, refusal=refusal, keep_alive=keep_alive, **timeouts
        )
        await server.start("127.0.0.1", 0)
        try:
            await asyncio.wait_for(scenario(server, app), 20)
        finally:
            await server.close()

    asyncio.run(main())


async def exchange(port: int, data: bytes, *, until_close: bool = True, wait: float = 5.0) -> bytes:
    """Send ``data``; read until the server closes (or ``wait`` seconds pass)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    out = b""
    try:
        while chunk := await asyncio.wait_for(reader.read(65536), wait):
            out += chunk
            if not until_close and out.count(b"\r\n\r\n") >= 1:
                break
    except asyncio.TimeoutError:
        pass
    writer.close()
    return out


def answers(raw: bytes) -> list[tuple[int, dict[str, str], bytes]]:
    """Split a run of whole (content-length) answers into status, headers, body."""
    out = []
    while raw:
        head, _, raw = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines[1:])
        length = int(headers.get("content-length", "0"))
        out.append((int(lines[0].split()[1]), headers, raw[:length]))
        raw = raw[length:]
    return out


def get(path: str, extra: str = "", body: bytes = b"", version: str = "1.1") -> bytes:
    length = f"Content-Length: {len(body)}\r\n" if body else ""
    return f"POST {path} HTTP/{version}\r\nHost: x\r\n{length}{extra}\r\n".encode() + body


def test_pipelined_requests_are_answered_in_order_whatever_each_waits_for() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        data = get("/slow", body=b"one") + get("/echo", body=b"two") + get("/echo", "Connection: close\r\n")
        replies = answers(await exchange(server.port, data))
        assert [status for status, _, _ in replies] == [200, 200, 200]
        assert replies[0][2] == b"slow one"
        assert json.loads(replies[1][2])["body"] == "two"
        assert replies[2][1]["connection"] == "close"

    serve(scenario)


def test_many_pipelined_requests_to_a_waiting_handler_are_all_answered_in_order() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        count = 300
        data = b"".join(get("/later", body=b"%d" % i) for i in range(count))
        replies = answers(await exchange(server.port, data + get("/echo", "Connection: close\r\n")))
        assert [body for _, _, body in replies[:count]] == [b"%d" % i for i in range(count)]
        assert len(replies) == count + 1

    serve(scenario)


def test_head_of_an_answer_that_waited_has_no_body_either() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        data = b"HEAD /slow HTTP/1.1\r\nHost: x\r\n\r\n" + get("/echo", "Connection: close\r\n")
        raw = await exchange(server.port, data)
        head, _, rest = raw.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 OK")
        assert head.endswith(b"\r\ncontent-length: 5")  # b"slow " and no body
        assert rest.startswith(b"HTTP/1.1 200 OK")  # the next answer, not the first one's body

    serve(scenario)


def test_a_connection_is_kept_alive_between_requests_and_closed_when_idle() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        for body in (b"a", b"b"):
            writer.write(get("/echo", body=body))
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            assert json.loads(await reader.readexactly(length))["body"] == body.decode()
        # Idle past the keep-alive (1 s here; checked once a second): the server closes.
        assert await asyncio.wait_for(reader.read(), 4) == b""
        writer.close()

    serve(scenario, keep_alive=1.0)


def test_http_1_0_gets_its_answer_and_the_connection_closes() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        (reply,) = answers(await exchange(server.port, get("/echo", body=b"x", version="1.0")))
        assert reply[0] == 200
        assert reply[1]["connection"] == "close"
        # A stream to an HTTP/1.0 client is not chunked: its end is the connection's.
        raw = await exchange(server.port, get("/stream", version="1.0"))
        head, _, body = raw.partition(b"\r\n\r\n")
        assert b"transfer-encoding" not in head.lower()
        assert body == b"aaaaabbbbbccccc"

    serve(scenario)


def test_a_stream_is_chunked_and_the_connection_serves_on() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        raw = await exchange(server.port, get("/stream") + get("/echo", "Connection: close\r\n"))
        head, _, rest = raw.partition(b"\r\n\r\n")
        assert b"transfer-encoding: chunked" in head
        assert rest.startswith(b"5\r\naaaaa\r\n5\r\nbbbbb\r\n5\r\nccccc\r\n0\r\n\r\n")
        assert answers(rest.split(b"0\r\n\r\n", 1)[1])[0][0] == 200

    serve(scenario)


def test_head_answers_the_length_without_the_body() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        raw = await exchange(server.port, b"HEAD /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        head, _, body = raw.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 OK")
        assert int(head.split(b"content-length: ")[1].split(b"\r\n")[0]) > 0
        assert body == b""

    serve(scenario)


def test_the_path_is_decoded_and_the_query_kept_apart() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        (reply,) = answers(await exchange(server.port, get("/v1/%63hat?a=%20b", "Connection: close\r\n")))
        answer = json.loads(reply[2])
        assert (answer["path"], answer["query"]) == ("/v1/chat", "a=%20b")

    serve(scenario)


def test_header_bytes_reach_the_handler_as_sent() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        data = (
            b"POST /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \xff\xfe\r\nConnection: close\r\n\r\n"
        )
        (reply,) = answers(await exchange(server.port, data))
        assert json.loads(reply[2])["auth"].encode("latin-1") == b"Bearer \xff\xfe"

    serve(scenario)


@pytest.mark.parametrize(
    ("data", "status"),
    [
        (b"NOT HTTP AT ALL\r\n\r\n", 400),
        (b"POST /echo HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
        (b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        (b"POST /echo HTTP/1.1\r\nContent-Length: 5000\r\n\r\n", 413),
        (
            b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
            + b"3e8\r\n"
            + b"x" * 1000
            + b"\r\n1\r\nx\r\n",
            413,
        ),
        (b"GET /" + b"a" * (MAX_HEAD_BYTES + 10) + b" HTTP/1.1\r\n\r\n", 431),
        (b"GET / HTTP/1.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(MAX_HEADERS + 1)) + b"\r\n", 431),
        # A repeated field counts each time it is sent, and each line's ": " and end count.
        (b"GET / HTTP/1.1\r\n" + b"X: 1\r\n" * (MAX_HEADERS + 1) + b"\r\n", 431),
        # 100 fields of 653 bytes of name and value: 65,300, under the limit only without their framing.
        (
            b"GET / HTTP/1.1\r\n"
            + b"".join(b"X%02d: %s\r\n" % (i, b"v" * 650) for i in range(100))
            + b"\r\n",
            431,
        ),
    ],
    ids=[
        "garbage",
        "two-lengths",
        "bad-chunk",
        "declared-too-large",
        "chunked-too-large",
        "long-url",
        "many-fields",
        "one-field-many-times",
        "counted-with-its-framing",
    ],
)
def test_what_the_server_refuses_is_answered_once_and_closed(data: bytes, status: int) -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        # Anything sent after the refused request is never read: the connection closes.
        (reply,) = answers(await exchange(server.port, data + get("/echo")))
        assert reply[0] == status
        assert reply[1]["connection"] == "close"
        assert json.loads(reply[2])["status"] == status
        # The server itself is unharmed.
        assert answers(await exchange(server.port, get("/echo", "Connection: close\r\n")))[0][0] == 200

    serve(scenario)


def test_a_header_that_never_ends_is_refused_at_the_head_limit() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"GET / HTTP/1.1\r\nX-Endless: ")
        sent, answer = 0, b""
        # In pieces, as a slow client would: the parser holds an unfinished field whole,
        # so only the count of pieces that were all head can stop it.
        while sent < 4 * MAX_HEAD_BYTES and not answer:
            writer.write(b"y" * 8192)
            sent += 8192
            await writer.drain()
            with contextlib.suppress(asyncio.TimeoutError):
                answer = await asyncio.wait_for(reader.read(65536), 0.01)
        answer += await asyncio.wait_for(reader.read(), 5)
        assert answer.startswith(b"HTTP/1.1 431 ")
        assert sent <= MAX_HEAD_BYTES + 2 * 8192
        writer.close()

    serve(scenario)


def test_100_continue_is_sent_before_the_body_is() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
        assert await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5) == b"HTTP/1.1 100 Continue\r\n\r\n"
        writer.write(b"abc")
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 200 OK")
        writer.close()

    serve(scenario)


def test_an_upgrade_is_answered_as_plain_http_and_closed() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        data = b"GET /echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n\x81\x00"
        (reply,) = answers(await exchange(server.port, data))
        assert reply[0] == 200

    serve(scenario)


def test_a_client_that_goes_cancels_its_handler() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        _reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(get("/forever"))
        await asyncio.wait_for(app.started.wait(), 5)
        writer.close()
        await asyncio.wait_for(app.cancelled.wait(), 5)
        assert not server.connections

    serve(scenario)


def test_a_handler_bug_is_a_500_for_that_request_only(capsys: pytest.CaptureFixture[str]) -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        (reply,) = answers(await exchange(server.port, get("/bug") + get("/echo")))
        assert reply[0] == 500
        assert answers(await exchange(server.port, get("/echo", "Connection: close\r\n")))[0][0] == 200

    serve(scenario)
    assert "RuntimeError: a handler's bug" in capsys.readouterr().err


def test_a_stream_waits_for_a_client_that_does_not_read() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(get("/flood", "Connection: close\r\n"))
            await asyncio.sleep(0.5)
            # The kernel's buffers and the transport's high-water mark hold some MiB at
            # most: the handler is made to wait long before its 125 MiB are out.
            assert 0 < app.written < FLOOD // 2
            sock.setblocking(False)
            loop = asyncio.get_running_loop()
            received = 0
            while chunk := await loop.sock_recv(sock, 1 << 20):
                received += len(chunk)
        assert app.written == FLOOD
        assert received > FLOOD * 64 * 1024

    serve(scenario)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.binary(min_size=1, max_size=300), min_size=1, max_size=4))
def test_any_bytes_get_an_answer_or_a_close_and_the_server_serves_on(pieces: list[bytes]) -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        for piece in pieces:
            writer.write(piece)
        writer.write_eof()
        out = b""
        try:
            while chunk := await asyncio.wait_for(reader.read(65536), 1):
                out += chunk
        except (asyncio.TimeoutError, ConnectionError):
            pass
        writer.close()
        assert out == b"" or out.startswith(b"HTTP/1.1 ")
        assert answers(await exchange(server.port, get("/echo", "Connection: close\r\n")))[0][0] == 200

    serve(scenario)


def test_a_request_refused_by_its_head_is_answered_before_its_body_is_sent() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        # Declared larger than the body limit too: the head's refusal comes first.
        head = b"POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Length: 50000000\r\n\r\n"
        (reply,) = answers(await exchange(server.port, head, wait=2))
        assert reply[0] == 401
        assert reply[1]["connection"] == "close"

    serve(scenario)


def test_a_client_that_leaves_with_a_request_pipelined_still_cancels_its_handler() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        _reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(get("/forever") + get("/echo"))
        await asyncio.wait_for(app.started.wait(), 5)
        writer.close()
        await asyncio.wait_for(app.cancelled.wait(), 5)

    serve(scenario)


def test_http_1_0_keep_alive_is_said_in_the_answer_and_kept() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        for _ in range(2):
            writer.write(get("/echo", "Connection: keep-alive\r\n", body=b"x", version="1.0"))
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            assert b"\r\nconnection: keep-alive\r\n" in head
            length = int(head.split(b"content-length: ")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
        writer.close()

    serve(scenario)


def test_100_continue_is_not_sent_to_http_1_0() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        data = b"POST /echo HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nz"
        raw = await exchange(server.port, data)
        assert raw.startswith(b"HTTP/1.1 200 OK")

    serve(scenario)


def test_a_request_dripped_slower_than_the_read_timeout_is_dropped() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        loop = asyncio.get_running_loop()
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"POST /echo HTTP/1.1\r\nContent-Length: 100\r\n\r\n")
        began = loop.time()
        with contextlib.suppress(ConnectionError):
            # A byte every 0.3 s keeps the keep-alive from firing; the read timeout does not care.
            while not reader.at_eof() and loop.time() - began < 8:
                writer.write(b"a")
                await asyncio.sleep(0.3)
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(reader.read(1), 0.01)
        assert loop.time() - began < 4
        writer.close()

    serve(scenario, read_timeout=1.0)


def test_a_client_that_reads_nothing_of_a_whole_answer_is_dropped() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(get("/big"))
            # 32 MiB unread: writing pauses, and after the write timeout the server lets go.
            for _ in range(50):
                await asyncio.sleep(0.1)
                if not server.connections:
                    break
            assert not server.connections

    serve(scenario, write_timeout=1.0)


def test_a_client_pipelining_far_ahead_of_a_waiting_request_is_made_to_wait() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        loop = asyncio.get_running_loop()
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.setblocking(False)
            await loop.sock_sendall(sock, get("/forever"))
            await asyncio.wait_for(app.started.wait(), 5)
            # 64 MiB of small requests behind it: the server reads a bound's worth ahead and
            # then stops, so past what the kernel's buffers hold the client cannot send.
            burst, sent, deadline = get("/echo") * 100_000, 0, loop.time() + 1.0
            while sent < 64 << 20 and loop.time() < deadline:
                try:
                    sent += sock.send(burst)
                except BlockingIOError:
                    await asyncio.sleep(0.01)
            assert sent < 32 << 20

    serve(scenario)


async def read_answer(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """One whole (content-length) answer from ``reader``: its head and its body."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    return head, await asyncio.wait_for(reader.readexactly(length), 5)


def test_the_keep_alive_counts_from_the_end_of_an_answer_not_its_start() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(get("/while"))  # answered after 2.5 s, past the 2 s keep-alive
        assert (await read_answer(reader))[1] == b"slow "
        # Idle 1.2 s since the answer: the server's once-a-second look comes in that time,
        # and must find the connection young.
        await asyncio.sleep(1.2)
        writer.write(get("/echo", body=b"again"))
        assert json.loads((await read_answer(reader))[1])["body"] == "again"
        writer.close()

    serve(scenario, keep_alive=2.0)


def test_a_pause_inside_a_request_is_not_idleness() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"POST /echo HTTP/1.1\r\nContent-Length: 5\r\n\r\n")
        await asyncio.sleep(2.2)  # past the 1 s keep-alive: a request is arriving, not idle
        writer.write(b"later")
        assert json.loads((await read_answer(reader))[1])["body"] == "later"
        writer.close()

    serve(scenario, keep_alive=1.0)


def test_a_request_held_behind_a_long_one_is_not_timed_while_it_waits() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        second = get("/echo", body=b"two")
        # The second request begins in the same read as the first: the server holds the
        # rest of it unparsed for 2.5 s, past the 1 s read timeout, through no fault of the client.
        writer.write(get("/while") + second[:10])
        await asyncio.sleep(0.2)
        writer.write(second[10:])
        assert (await read_answer(reader))[1] == b"slow "
        assert json.loads((await read_answer(reader))[1])["body"] == "two"
        writer.close()

    serve(scenario, read_timeout=1.0)


def test_100_continue_owed_behind_a_request_in_progress_is_sent_once_it_is_answered() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        expecting = b"POST /echo HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"
        writer.write(get("/slow") + expecting)
        assert (await read_answer(reader))[1] == b"slow "
        assert await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5) == b"HTTP/1.1 100 Continue\r\n\r\n"
        writer.write(b"abc")
        assert json.loads((await read_answer(reader))[1])["body"] == "abc"
        writer.close()

    serve(scenario)


def test_a_closed_connection_whose_client_never_reads_is_dropped() -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(get("/echo"))
            for _ in range(50):
                await asyncio.sleep(0.02)
                if server.connections:
                    break
            (conn,) = server.connections
            # Writing never pauses (a high-water mark above the answer), so only the rule
            # for closing connections can let go of it.
            assert conn.transport is not None
            conn.transport.set_write_buffer_limits(high=64 << 20)
            sock.sendall(get("/big", "Connection: close\r\n"))
            for _ in range(60):
                await asyncio.sleep(0.1)
                if not server.connections:
                    break
            assert not server.connections

    serve(scenario, write_timeout=1.0)


def test_a_check_that_fails_is_a_500_with_its_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    async def scenario(server: HttpServer, app: App) -> None:
        (reply,) = answers(await exchange(server.port, get("/checkbug")))
        assert reply[0] == 500
        assert answers(await exchange(server.port, get("/echo", "Connection: close\r\n")))[0][0] == 200

    serve(scenario)
    assert "RuntimeError: a check's bug" in capsys.readouterr().err
