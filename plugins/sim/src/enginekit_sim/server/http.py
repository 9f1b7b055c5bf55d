"""HTTP/1.1 for the simulator's API: llhttp's parser (httptools, as vLLM's uvicorn uses) on asyncio.

A server this small serves what the API needs and no more: whole requests (the body
read, and limited, before the handler runs), answers whole or streamed in chunks,
keep-alive, pipelining, and a handler cancelled when its client goes. A handler that
needs no waiting answers at once, inside ``data_received``: no task, no coroutine, which
is what lets a zero-latency simulator keep up with a bare server.

A request is judged by its head first (``check``: the API key), so one refused is
answered before any of its body is read. Limits, each answered with its status and the
connection closed:

* a request head (request line and headers) over :data:`MAX_HEAD_BYTES` or with more
  than :data:`MAX_HEADERS` fields: 431;
* a body over the server's ``max_body`` bytes, counted as it arrives (a chunked body
  declares no length to check first): 413, before any of it is kept past the limit;
* anything the parser refuses (a malformed request line, conflicting lengths, a bad
  chunk): 400, as uvicorn answers it.

Connections that hold up nothing but themselves are closed: one with nothing in progress
that sends nothing for ``keep_alive`` seconds after its last answer (vLLM's default is
5 s, ``VLLM_HTTP_TIMEOUT_KEEP_ALIVE``); one whose request has not arrived whole
``read_timeout`` seconds (:data:`READ_TIMEOUT`) after it began, not counting time the
server kept it waiting; one that reads nothing of a whole answer, or of what is left to
send when closing, for ``write_timeout`` seconds. A stream's writes are watched by the
stream's writer (see ``api._WriteWatch``). Pipelined requests are answered in order;
while one is in progress, what follows is read but not parsed, up to
:data:`MAX_HELD_BYTES`, so that a client that leaves is still seen to leave.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import email.utils
import http
import socket
import struct
import sys
import time
import traceback
from collections.abc import Callable, Coroutine
from typing import Any, NoReturn, TypeAlias
from urllib.parse import unquote

import httptools

#: The request line and headers together, in bytes.
MAX_HEAD_BYTES = 64 * 1024
MAX_HEADERS = 128
#: What a pipelining client may send ahead of the request in progress before it is made to wait.
MAX_HELD_BYTES = 64 * 1024
#: Seconds a request may take to arrive whole, from its first byte, by default (a drip is dropped).
READ_TIMEOUT = 60.0
SERVER = b"enginekit-sim"
_clock = time.monotonic
JSON = b"application/json"
_STATUS_LINES = {
    status.value: f"HTTP/1.1 {status.value} {status.phrase}\r\n".encode() for status in http.HTTPStatus
}


class Reply:
    """A whole answer: status, body, its content type and any other headers."""

    __slots__ = ("body", "content_type", "headers", "status")

    def __init__(
        self,
        status: int,
        body: bytes = b"",
        content_type: bytes = JSON,
        headers: tuple[tuple[bytes, bytes], ...] = (),
    ) -> None:
        self.status, self.body, self.content_type, self.headers = status, body, content_type, headers


#: What a handler returns: a reply now, or a coroutine the server runs as a task, ending in
#: a reply or in None once it has streamed its answer itself (:meth:`Request.stream`).
Outcome: TypeAlias = "Reply | Coroutine[Any, Any, Reply | None]"
Handler: TypeAlias = Callable[["Request"], Outcome]
#: Builds the answer to a request the server refuses itself (status, reason).
Refusal: TypeAlias = Callable[[int, str], Reply]
#: Judges a request by its head before any of its body is read: a Reply refuses it.
Check: TypeAlias = Callable[["Request"], "Reply | None"]


def _no_check(request: Request) -> Reply | None:
    return None


class Request:
    """One whole request: method, decoded path, query, headers (lower-case names), body."""

    __slots__ = ("_conn", "body", "headers", "http11", "keep_alive", "method", "path", "query", "streamed")

    def __init__(
        self,
        conn: _Connection,
        method: str,
        path: str,
        query: str,
        headers: dict[str, str],
        body: bytes,
        keep_alive: bool,
        http11: bool = True,
    ) -> None:
        self._conn = conn
        self.method, self.path, self.query = method, path, query
        #: Values as Latin-1 text: every byte kept as it came, none refused.
        self.headers = headers
        self.body = body
        self.keep_alive = keep_alive
        self.http11 = http11
        #: The stream this request is answered with, once one is started.
        self.streamed: Stream | None = None

    def stream(self, headers: tuple[tuple[bytes, bytes], ...]) -> Stream:
        """Start a 200 answer sent in pieces: chunked on HTTP/1.1, to the connection's end on 1.0."""
        self.streamed = Stream(self._conn, headers, chunked=self.http11)
        return self.streamed

    def abort(self) -> None:
        """Drop the connection at once, whatever its buffers still hold."""
        self._conn.abort()


class Stream:
    """An answer written a piece at a time; a writer waits (:meth:`drain`) while the client is not reading."""

    __slots__ = ("_chunked", "_conn", "_transport", "ended")

    def __init__(self, conn: _Connection, headers: tuple[tuple[bytes, bytes], ...], *, chunked: bool) -> None:
        self._conn, self._chunked, self.ended = conn, chunked, False
        self._transport = conn.transport
        framing = b"transfer-encoding: chunked\r\n" if chunked else b"connection: close\r\n"
        conn.write(conn.head(200, headers) + framing + b"\r\n")

    def write(self, data: bytes) -> bool:
        """Send ``data`` (a plain call: a token costs no coroutine); True when the client is behind.

        After True, the writer awaits :meth:`drain` before writing more.

        :raises ConnectionResetError: the client has gone.
        """
        conn = self._conn
        if conn.closed:
            raise ConnectionResetError("the client closed the connection")
        if data:  # an empty chunk would end the answer
            self._transport.write(b"%x\r\n%s\r\n" % (len(data), data) if self._chunked else data)  # type: ignore[union-attr]
        return conn.write_paused

    async def drain(self) -> None:
        """Wait until the client has read enough for writing to go on.

        :raises ConnectionResetError: the client has gone.
        """
        if self._conn.write_paused:
            await self._conn.drain()

    def end(self) -> None:
        """Finish the answer."""
        if not self.ended and not self._conn.closed:
            self.ended = True
            if self._chunked:
                self._conn.write(b"0\r\n\r\n")


def _report(request: Request) -> None:
    """Print the exception being handled, a bug in answering ``request``, with its traceback."""
    print(
        f"enginekit-sim: error answering {request.method} {request.path}:\n{traceback.format_exc()}",
        file=sys.stderr,
        flush=True,
    )


class _Refused(Exception):
    """Raised from a parser callback to stop parsing: the connection is answered and closed."""


class _Connection(asyncio.Protocol):
    """One client connection: parses requests, runs them one at a time, answers in order."""

    def __init__(self, server: HttpServer) -> None:
        self.server = server
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpRequestParser(self)
        self.closed = False
        #: The HTTP version of the request being answered.
        self.http11 = True
        self.write_paused = False
        self.paused_since = 0.0
        self.last_active = _clock()
        #: When close() was asked for, for a client that never reads what is left; 0 before.
        self.closing_since = 0.0
        #: A request's head asked for 100 Continue while another was in progress.
        self._continue_owed = False
        #: When the request being read began to arrive; 0 between requests.
        self.reading_since = 0.0
        #: Requests parsed and not yet answered, in order; a Reply is an answer the
        #: server made itself (a refusal), after which the connection closes.
        self._queue: collections.deque[Request | Reply] = collections.deque()
        #: What arrived while a request was in progress, not yet parsed (pipelining).
        self._held: list[bytes] = []
        self._held_bytes = 0
        self._task: asyncio.Task[None] | None = None
        self._drain: asyncio.Future[None] | None = None
        self._reading_paused = False
        self._begun_count = 0
        self._request: Request | None = None
        self._reset_message()

    # -- the parser's callbacks --------------------------------------------------------

    def _reset_message(self) -> None:
        self._url = b""
        self._headers: dict[str, str] = {}
        self._fields = 0
        self._body: list[bytes] = []
        self._body_size = 0
        #: Head bytes the callbacks were given, and whole pieces of input that were all
        #: head: the parser holds a field until it ends, so that second count is what
        #: bounds a field that never does. Both undercount, so neither refuses early.
        self._head_size = 0
        self._head_pieces = 0
        self._in_head = True
        self._begun = False

    def on_message_begin(self) -> None:
        self._begun = True
        self._begun_count += 1
        self.reading_since = _clock()

    def on_url(self, url: bytes) -> None:
        self._url += url
        self._head_size += len(url)
        if self._head_size > MAX_HEAD_BYTES:
            self._refuse(431, f"the request head is larger than {MAX_HEAD_BYTES} bytes")

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_size += len(name) + len(value) + 4  # ": " and the line's end
        self._fields += 1
        if self._head_size > MAX_HEAD_BYTES or self._fields > MAX_HEADERS:
            self._refuse(431, f"the request head is over {MAX_HEAD_BYTES} bytes or {MAX_HEADERS} fields")
        key = name.decode("latin-1").lower()
        headers = self._headers
        if key not in headers:  # the first of repeated fields counts, as Starlette reads them
            headers[key] = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        self._in_head = False
        parser, url, headers = self.parser, self._url, self._headers
        if url[:1] == b"/" and b"%" not in url and b"?" not in url and b"#" not in url:
            path, query = url.decode("latin-1"), ""  # most requests: nothing to decode
        else:
            try:
                parsed = httptools.parse_url(url)
            except httptools.HttpParserInvalidURLError:
                self._refuse(400, "the request target is not a valid URL")
            path = unquote((parsed.path or b"/").decode("latin-1"))
            query = (parsed.query or b"").decode("latin-1")
        http11 = parser.get_http_version() == "1.1"
        request = self._request = Request(
            self,
            parser.get_method().decode("latin-1"),
            path,
            query,
            headers,
            b"",
            parser.should_keep_alive(),
            http11,
        )
        # Refused from its head alone (a missing key): no byte of the body is kept.
        try:
            refused = self.server.check(request)
        except Exception:  # the check's bug, not the client's: a 500, said as a handler's is
            _report(request)
            refused = self.server.refusal(500, "Internal Server Error")
        if refused is not None:
            self._queue.append(refused)
            raise _Refused("refused by its head")
        length = headers.get("content-length")
        limit = self.server.max_body
        if length is not None and length.isdigit() and int(length) > limit:
            self._refuse(413, f"the request body is larger than {limit} bytes")
        if http11 and headers.get("expect", "").lower() == "100-continue":
            # The client waits for this before sending its body (curl: up to a second);
            # behind a request in progress it is owed, and sent once that is answered.
            if not self._queue and self._task is None:
                self.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            else:
                self._continue_owed = True

    def on_body(self, body: bytes) -> None:
        self._body_size += len(body)
        if self._body_size > self.server.max_body:
            self._refuse(413, f"the request body is larger than {self.server.max_body} bytes")
        self._body.append(body)

    def on_message_complete(self) -> None:
        request, body = self._request, self._body
        assert request is not None
        if body:
            request.body = body[0] if len(body) == 1 else b"".join(body)
        self._request = None
        self.reading_since = 0.0
        self._continue_owed = False
        self._reset_message()
        self._queue.append(request)

    def _refuse(self, status: int, reason: str) -> NoReturn:
        self._queue.append(self.server.refusal(status, reason))
        raise _Refused(reason)

    # -- asyncio's callbacks -----------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.server.connections.add(self)

    def data_received(self, data: bytes) -> None:
        queue = self._queue
        if self.closed or (queue and type(queue[-1]) is Reply):
            return  # refused: nothing after the refusal is read
        self.last_active = _clock()
        if self._task is not None or queue or self.write_paused:
            # A request is in progress: what comes after it waits, unparsed, until it is
            # answered. Reading goes on (so a client that leaves is seen, and its handler
            # cancelled) up to a bound, past which the client is made to wait.
            self._held.append(data)
            self._held_bytes += len(data)
            if self._held_bytes > MAX_HELD_BYTES and not self._reading_paused:
                self._reading_paused = True
                self.transport.pause_reading()  # type: ignore[union-attr]
            return
        self._feed(data)
        self._next()

    def _feed(self, data: bytes) -> None:
        """Parse ``data``: whole requests join the queue, and what is refused ends it."""
        queue = self._queue
        # A piece that arrives, and leaves, in the middle of one message's head is all head.
        head_of = self._begun_count if self._in_head and self._begun else -1
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            # No protocol switch is served: the request that asked is answered, then the
            # connection closes (its bytes after the head belong to the other protocol).
            queue.append(self.server.refusal(0, ""))
        except httptools.HttpParserError as exc:
            if not isinstance(exc.__context__, _Refused):
                queue.append(self.server.refusal(400, "Invalid HTTP request received."))
        else:
            if self._in_head and self._begun and self._begun_count == head_of:
                self._head_pieces += len(data)
                if self._head_pieces > MAX_HEAD_BYTES:
                    reason = f"the request head is larger than {MAX_HEAD_BYTES} bytes"
                    queue.append(self.server.refusal(431, reason))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.server.connections.discard(self)
        self._queue.clear()
        self._held.clear()
        if self._task is not None:
            self._task.cancel()  # the handler stops: its client is gone
        self._wake(ConnectionResetError("the client closed the connection"))

    def pause_writing(self) -> None:
        self.write_paused = True
        self.paused_since = _clock()

    def resume_writing(self) -> None:
        self.write_paused = False
        self._wake(None)
        if self._task is None:
            self._next()

    # -- answering -----------------------------------------------------------------------

    def _next(self) -> None:
        """Answer what is queued, in order, until a handler must wait or the client stops reading."""
        queue, handler = self._queue, self.server.handler
        while not self.closed and not self.write_paused:
            if not queue:
                # Everything answered: the keep-alive counts from here.
                self.last_active = _clock()
                if self._continue_owed:
                    self._continue_owed = False
                    self.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                if not self._held:
                    break
                # Parse what arrived meanwhile, and read again if that had stopped. A request
                # that began before is timed from now: the server kept it waiting, not its client.
                held = b"".join(self._held)
                self._held.clear()
                self._held_bytes = 0
                if self.reading_since:
                    self.reading_since = self.last_active
                if self._reading_paused:
                    self._reading_paused = False
                    self.transport.resume_reading()  # type: ignore[union-attr]
                self._feed(held)
                continue
            item = queue.popleft()
            if type(item) is Reply:
                if item.status:
                    self.send(item, keep_alive=False)
                else:
                    self.close()
                return
            assert type(item) is Request
            self.http11 = item.http11
            try:
                outcome = handler(item)
            except Exception:  # one request's bug answers 500; the server goes on
                self._internal_error(item)
                return
            if type(outcome) is Reply:
                self.send(outcome, keep_alive=item.keep_alive, head_only=item.method == "HEAD")
                continue
            self._task = asyncio.get_running_loop().create_task(self._run(item, outcome))  # type: ignore[arg-type]
            return

    async def _run(self, request: Request, outcome: Coroutine[Any, Any, Reply | None]) -> None:
        try:
            reply = await outcome
        except asyncio.CancelledError:
            return  # the client went (or the server is stopping): nobody to answer
        except Exception:
            self._task = None
            self._internal_error(request)
            return
        self._task = None
        stream = request.streamed
        if reply is not None:
            self.send(reply, keep_alive=request.keep_alive, head_only=request.method == "HEAD")
        elif stream is None or not stream.ended or not stream._chunked or not request.keep_alive:
            self.close()  # a stream cut short, or one whose end only closing can mark
        if not self.closed:
            self._next()

    def _internal_error(self, request: Request) -> None:
        _report(request)
        self.send(self.server.refusal(500, "Internal Server Error"), keep_alive=False)

    def head(self, status: int, headers: tuple[tuple[bytes, bytes], ...]) -> bytes:
        """The status line and the common headers, then ``headers``; the blank line is the caller's."""
        line = _STATUS_LINES.get(status) or b"HTTP/1.1 %d Unknown\r\n" % status
        extra = b"".join(b"%s: %s\r\n" % pair for pair in headers) if headers else b""
        return b"%sdate: %s\r\nserver: %s\r\n%s" % (line, self.server.date, SERVER, extra)

    def send(self, reply: Reply, *, keep_alive: bool, head_only: bool = False) -> None:
        """Write a whole answer; close after it unless the connection stays open."""
        body = reply.body
        plain = reply.status == 200 and reply.content_type is JSON and not reply.headers
        if plain and keep_alive and body and self.http11 and not head_only:
            # Most answers: one format of a head made once a second (for its date).
            self.write(self.server.json_ok % (len(body), body))
            return
        typed = b"content-type: %s\r\n" % reply.content_type if body else b""
        if not keep_alive:
            closing = b"connection: close\r\n"
        else:  # HTTP/1.0 closes unless told otherwise
            closing = b"" if self.http11 else b"connection: keep-alive\r\n"
        self.write(
            b"%s%scontent-length: %d\r\n%s\r\n%s"
            % (self.head(reply.status, reply.headers), typed, len(body), closing, b"" if head_only else body)
        )
        if not keep_alive:
            self.close()

    def write(self, data: bytes) -> None:
        if not self.closed:
            self.transport.write(data)  # type: ignore[union-attr]

    async def drain(self) -> None:
        """Wait until the client reads enough for writing to resume."""
        if self._drain is None:
            self._drain = asyncio.get_running_loop().create_future()
        await self._drain

    def _wake(self, error: Exception | None) -> None:
        waiter, self._drain = self._drain, None
        if waiter is not None and not waiter.done():
            if error is None:
                waiter.set_result(None)
            else:
                waiter.set_exception(error)

    def close(self) -> None:
        """Close once what was written is sent."""
        if not self.closed:
            self.closed = True
            self.closing_since = _clock()
            self.transport.close()  # type: ignore[union-attr]

    def abort(self) -> None:
        """Close at once, dropping what was written and not sent, and the kernel's copy of it."""
        self.closed = True
        transport = self.transport
        if transport is not None:
            sock = transport.get_extra_info("socket")
            if sock is not None:
                # A reset rather than a FIN: an unread backlog is freed now, not after the
                # kernel's orphan limits give up on a peer that never reads it.
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            transport.abort()

    def busy(self) -> bool:
        """A request is waiting, running, or being written: the server, not the client, holds it up."""
        return self._task is not None or bool(self._queue) or bool(self._held) or self.write_paused

    def idle_handler(self) -> bool:
        """No handler is running (a running one watches its own writes)."""
        return self._task is None

    def idle(self) -> bool:
        """Nothing in progress: no request arriving, waiting, running or being written."""
        return not self.reading_since and not self.busy()


class HttpServer:
    """Serves ``handler`` over HTTP/1.1 on a TCP port."""

    def __init__(
        self,
        handler: Handler,
        *,
        max_body: int,
        refusal: Refusal,
        keep_alive: float,
        check: Check = _no_check,
        write_timeout: float = 30.0,
        read_timeout: float = READ_TIMEOUT,
    ) -> None:
        self.handler, self.check, self.max_body = handler, check, max_body
        self.keep_alive, self.write_timeout, self.read_timeout = keep_alive, write_timeout, read_timeout
        self._refusal = refusal
        self.connections: set[_Connection] = set()
        self.date = b""
        #: The head of a keep-alive 200 JSON answer, to format with the length and body.
        self.json_ok = b""
        self._server: asyncio.Server | None = None
        self._ticker: asyncio.TimerHandle | None = None

    def refusal(self, status: int, reason: str) -> Reply:
        """The answer to a request refused before its handler (status 0: close, answering nothing)."""
        return Reply(0) if status == 0 else self._refusal(status, reason)

    async def start(self, host: str | None, port: int) -> None:
        """Listen (every interface when ``host`` is None).

        :raises OSError: the port cannot be listened on.
        """
        loop = asyncio.get_running_loop()
        self._tick()
        self._server = await loop.create_server(
            lambda: _Connection(self), host, port, reuse_address=True, backlog=2048
        )

    @property
    def port(self) -> int:
        """The port listened on (the one the system chose, when started on 0)."""
        assert self._server is not None, "not started"
        return int(self._server.sockets[0].getsockname()[1])

    def _tick(self) -> None:
        """Once a second: the Date header's value, and the connections that hold up nothing but themselves.

        The rules are the module's: the keep-alive, the read timeout and the write timeout,
        each applied only where the client, not the server, holds the connection up.
        """
        now = _clock()
        self.date = email.utils.formatdate(usegmt=True).encode()
        self.json_ok = (
            _STATUS_LINES[200]
            + b"date: %s\r\nserver: %s\r\ncontent-type: %s\r\n" % (self.date, SERVER, JSON)
            + b"content-length: %d\r\n\r\n%s"
        )
        for conn in list(self.connections):
            if conn.closed:
                # Closing waits for what is written to be read: not for ever.
                if conn.closing_since and now - conn.closing_since >= self.write_timeout:
                    conn.abort()
            elif conn.idle():
                if now - conn.last_active >= self.keep_alive:
                    conn.close()
            elif conn.reading_since and not conn.busy():
                if now - conn.reading_since >= self.read_timeout:
                    conn.abort()
            elif conn.write_paused and conn.idle_handler() and now - conn.paused_since >= self.write_timeout:
                conn.abort()
        self._ticker = asyncio.get_running_loop().call_later(1.0, self._tick)

    async def close(self) -> None:
        """Stop listening and drop every connection; running handlers are cancelled."""
        if self._ticker is not None:
            self._ticker.cancel()
        if self._server is not None:
            self._server.close()
        for conn in list(self.connections):
            conn.abort()
        if self._server is not None:
            await self._server.wait_closed()
