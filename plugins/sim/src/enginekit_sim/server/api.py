"""The HTTP API: OpenAI endpoints, ``/health``, ``/metrics``, and vLLM's API-key guard."""

from __future__ import annotations

import asyncio
import hmac
import json
import time
from collections.abc import Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from enginekit_sim import __version__
from enginekit_sim.server import openai
from enginekit_sim.server import transfer as kv_transfer
from enginekit_sim.server.core import EngineCore
from enginekit_sim.server.http import Handler, HttpServer, Outcome, Reply, Request, Stream
from enginekit_sim.server.jobs import READY, EngineDead
from enginekit_sim.server.settings import KVEvents

if TYPE_CHECKING:
    from enginekit_sim.server.dataparallel import Front

#: vLLM's guarded prefixes: everything else (/health, /metrics, /version) stays open.
GUARDED = ("/v1", "/v2", "/inference", "/cohere")


def kv_event_sources(
    endpoints: Mapping[int, str], config: KVEvents | None, replays: Mapping[int, str] | None = None
) -> dict[str, dict[str, object]]:
    """vLLM's ``/kv_event_sources``: the ``KVEventsConfig`` of each rank an API server fronts, by rank.

    Each endpoint is the rank's own, as its publisher resolved it (the configured port
    plus the rank), and so is its replay endpoint (None without one), as vLLM 0.32's
    ``ZmqEventPublisher.get_publisher_config`` reports them (vllm/distributed/kv_events.py).
    The sizes are the configured ones, vLLM's defaults when not given, as recorded in
    tests/data/vllm-0.32.0/endpoints.json; without KV events there is none.
    """
    config = config or KVEvents(endpoint="")
    replays = replays or {}
    return {
        str(rank): {
            "enable_kv_cache_events": True,
            "publisher": "zmq",
            "endpoint": endpoint,
            "replay_endpoint": replays.get(rank),
            "buffer_steps": config.buffer_steps,
            "hwm": config.hwm,
            "max_queue_size": config.max_queue_size,
            "topic": config.topic,
        }
        for rank, endpoint in sorted(endpoints.items())
    }


#: vLLM 0.32's answer on a scale-out route without --enable-scale-out (403, PermissionDeniedError).
SCALE_OUT_DISABLED = (
    "Scale-out endpoints are disabled. Restart vllm serve with --enable-scale-out to enable them."
)


def _body(request: Request) -> Any:
    """The request's JSON body.

    :raises openai.ApiError: 400 for a body that is not JSON, or nested too deeply.
    """
    try:
        # The body is whole and within --max-body-bytes: the HTTP layer counted it in.
        return json.loads(request.body.decode("utf-8"))
    except ValueError:
        raise openai.ApiError(400, "the request body is not valid JSON") from None
    except RecursionError:
        # json's decoder recurses once a level: a body nested past the interpreter's
        # recursion limit (about 1000 levels) is refused here, before it reaches a 500.
        raise openai.ApiError(400, "the request body is nested too deeply") from None


def _json(value: object, status: int = 200) -> Reply:
    return Reply(status, json.dumps(value).encode())


def _error(exc: openai.ApiError) -> Reply:
    return _json(exc.body(), exc.status)


#: A stream's headers, as vLLM sends server-sent events.
_STREAM_HEADERS = ((b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"))
_METRICS_TYPE = b"text/plain; version=0.0.4; charset=utf-8"


class Api:
    """The handlers, bound to one engine, behind the simulator's HTTP server.

    Routing is one dictionary lookup. A handler answers at once (a :class:`Reply`) when it
    has nothing to wait for, or returns a coroutine the server runs as a task: most
    requests to a zero-latency model never make one.
    """

    def __init__(self, engine: EngineCore | Front) -> None:
        # One engine core, or the ranks an API server fronts under data parallel.
        self.engine = engine
        self.created = int(time.time())
        self._ids = 0
        key = engine.settings.api_key
        #: The key's bytes as a client sends them (UTF-8); empty when none is set.
        self._key = key.encode() if key else b""
        self.routes: dict[tuple[str, str], Handler] = {
            ("GET", "/health"): self.health,
            # SageMaker's liveness check: vLLM answers it with its /health handler, both methods.
            ("GET", "/ping"): self.health,
            ("POST", "/ping"): self.health,
            ("GET", "/load"): self.load,
            ("GET", "/kv_event_sources"): self.kv_event_sources,
            ("GET", "/metrics"): self.metrics,
            ("GET", "/version"): self.version,
            ("GET", "/v1/models"): self.models,
            ("POST", "/v1/completions"): self.completions,
            ("POST", "/v1/chat/completions"): self.chat,
            # Served by vLLM by default, outside /v1: the key does not guard them there either.
            ("POST", "/tokenize"): self.tokenize,
            ("POST", "/detokenize"): self.detokenize,
            # vLLM's scale-out render endpoints: 403 without --enable-scale-out.
            ("POST", "/v1/completions/render"): self.render_completion,
            ("POST", "/v1/chat/completions/render"): self.render_chat,
        }
        if engine.settings.dev_mode:
            # vLLM 0.32 registers its development routes only with VLLM_SERVER_DEV_MODE
            # (vllm/entrypoints/launchers/api_server/routers.py): without it, a 404.
            self.routes[("POST", "/reset_prefix_cache")] = self.reset_prefix_cache

    def server(self) -> HttpServer:
        """The HTTP server answering every request through :meth:`handle`.

        Handlers are cancelled when their client disconnects, so a request nobody waits for
        gives its slot back at once instead of running to its end.
        """
        s = self.engine.settings
        return HttpServer(
            self.handle,
            check=self.check,
            max_body=s.max_body_bytes,
            refusal=self.refusal,
            keep_alive=s.keep_alive_s,
            write_timeout=s.stream_write_timeout_s,
        )

    @staticmethod
    def refusal(status: int, reason: str) -> Reply:
        """A request the HTTP layer refuses (too large, malformed), answered in the OpenAI shape."""
        return _error(openai.ApiError(status, reason))

    def check(self, request: Request) -> Reply | None:
        """The key, where vLLM checks it, judged from the head: a refused body is never read."""
        guarded = self._key and request.path.startswith(GUARDED) and request.method != "OPTIONS"
        if guarded and not self._authorized(request):
            message = "Unauthorized: send a valid API key as 'Authorization: Bearer <key>'"
            return _error(openai.ApiError(401, message))
        return None

    def handle(self, request: Request) -> Outcome:
        """Dispatch a request :meth:`check` let through; unknown paths get OpenAI-shaped errors."""
        method, path = request.method, request.path
        route = self.routes.get(("GET" if method == "HEAD" else method, path))
        if route is not None:
            return route(request)
        allowed = sorted({known_method for known_method, known in self.routes if known == path})
        if allowed:
            response = _error(openai.ApiError(405, f"method {method} is not allowed on {path}"))
            response.headers = ((b"allow", ", ".join(allowed).encode()),)
            return response
        return _error(openai.ApiError(404, f"no route {path}"))

    def _authorized(self, request: Request) -> bool:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        # The scheme is case-insensitive, the key is not; compare in constant time. Header
        # values are Latin-1 text holding the bytes as sent: back to those bytes, any byte
        # a client sends is compared, none fails the request.
        return scheme.lower() == "bearer" and hmac.compare_digest(token.encode("latin-1"), self._key)

    def health(self, request: Request) -> Outcome:
        slow = self.engine.settings.fault("slow-health")
        if slow is not None:
            return self._health_after(slow.amount)
        return self._health()

    async def _health_after(self, delay: float) -> Reply:
        await asyncio.sleep(delay)
        return self._health()

    def _health(self) -> Reply:
        engine = self.engine
        if engine.healthy():
            return Reply(200)
        reason = engine.reason or ("injected flap-health" if engine.state == READY else engine.state)
        return _json({"status": engine.state, "reason": reason}, 503)

    def load(self, request: Request) -> Reply:
        # vLLM counts in-flight requests here only with --enable-server-load-tracking, which
        # the sim does not take: without it vLLM answers 0 at any load.
        return _json({"server_load": 0})

    def kv_event_sources(self, request: Request) -> Reply:
        engine = self.engine
        return _json(
            kv_event_sources(engine.event_endpoints(), engine.settings.kv_events, engine.replay_endpoints())
        )

    def metrics(self, request: Request) -> Reply:
        return Reply(200, self.engine.metrics.render().encode(), _METRICS_TYPE)

    def version(self, request: Request) -> Reply:
        return _json({"version": __version__, "engine": "enginekit-sim"})

    def models(self, request: Request) -> Reply:
        s = self.engine.settings
        card = {"object": "model", "created": self.created, "owned_by": "enginekit-sim"}
        data = [
            {"id": n, **card, "root": s.model, "parent": None, "max_model_len": s.max_model_len}
            for n in s.names
        ]
        data += [
            {"id": name, **card, "root": path, "parent": s.served_name, "max_model_len": None}
            for name, path in s.adapters.items()
        ]
        return _json({"object": "list", "data": data})

    def reset_prefix_cache(self, request: Request) -> Reply:
        # As vLLM 0.32: refused (false) while running requests hold blocks; callers retry.
        return _json({"success": self.engine.cache.clear()})

    def tokenize(self, request: Request) -> Reply:
        s = self.engine.settings
        try:
            answer = openai.tokenize(
                _body(request),
                names=s.names,
                adapters=s.adapters,
                max_len=s.max_model_len,
                max_prompt_bytes=s.max_prompt_bytes,
            )
        except openai.ApiError as exc:
            return _error(exc)
        return _json(answer)

    def detokenize(self, request: Request) -> Reply:
        s = self.engine.settings
        try:
            return _json(openai.detokenize(_body(request), names=s.names, adapters=s.adapters))
        except openai.ApiError as exc:
            return _error(exc)

    def render_completion(self, request: Request) -> Reply:
        return self._render(request, chat=False)

    def render_chat(self, request: Request) -> Reply:
        return self._render(request, chat=True)

    def _render(self, request: Request, *, chat: bool) -> Reply:
        """vLLM's render: the request as the ``GenerateRequest`` it would run; a list of them for completions.

        As vLLM 0.32 (vllm/entrypoints/scale_out/factories.py), without --enable-scale-out
        the route answers 403 whatever the body, which it does not read.
        """
        if not self.engine.settings.enable_scale_out:
            return _error(openai.ApiError(403, SCALE_OUT_DISABLED))
        try:
            body = _body(request)
            parsed = self._parse(body, chat=chat)
        except openai.ApiError as exc:
            return _error(exc)
        generate = openai.rendered(parsed, body, self._request_id(chat))
        return _json(generate if chat else [generate])

    def _parse(self, body: Any, *, chat: bool) -> openai.Request:
        """A completion or chat request under this server's names, adapters and limits.

        :raises openai.ApiError: what vLLM answers such a request with.
        """
        s = self.engine.settings
        return openai.parse(
            body,
            chat=chat,
            names=s.names,
            adapters=s.adapters,
            max_len=s.max_model_len,
            max_prompt_bytes=s.max_prompt_bytes,
        )

    def _request_id(self, chat: bool) -> str:
        """The next request's id, in vLLM's shape (``cmpl-…``, ``chatcmpl-…``)."""
        self._ids += 1
        return f"{'chatcmpl' if chat else 'cmpl'}-{self.created:x}{self._ids:08x}"

    def completions(self, request: Request) -> Outcome:
        return self._generate(request, chat=False)

    def chat(self, request: Request) -> Outcome:
        return self._generate(request, chat=True)

    def _generate(self, request: Request, *, chat: bool) -> Outcome:
        engine = self.engine
        if engine.state != READY:
            why = (
                "the engine is still starting"
                if engine.state == "starting"
                else f"the engine is dead: {engine.reason}"
            )
            return _error(openai.ApiError(503, why))
        engine.count_request()
        try:
            req = self._parse(_body(request), chat=chat)
        except openai.ApiError as exc:
            return _error(exc)
        role = self._transfer_role(req)
        if role == "bootstrap-prefill":
            # SGLang's prefill computes the prompt and its first token; the router throws
            # the answer away and the client gets the decode's.
            req.job.max_tokens = 1
        engine.plan(req.job)
        rid = self._request_id(chat)
        created = int(time.time())
        if role == "remote-decode":
            return self._decode_remote(request, req, rid, created)
        if role in ("remote-prefill", "bootstrap-prefill"):
            return self._prefill_remote(request, req, rid, created)
        if req.stream:
            return self._stream(request, req, rid, created)
        try:
            if engine.complete_now(req.job):
                return Reply(200, openai.response(req, rid, created))
        except EngineDead as exc:
            return _error(openai.ApiError(503, f"the engine is dead: {exc}"))
        return self._complete(req, rid, created)

    def _transfer_role(self, req: openai.Request) -> str:
        """What a prefill or decode instance does with ``req``: its part of a request, or all of it.

        ``remote-prefill`` and ``remote-decode`` under vLLM's protocol, as the request's
        ``kv_transfer_params`` say; ``bootstrap-prefill`` and ``remote-decode`` under
        SGLang's, as the instance's mode says, for a request with a bootstrap room; ``""``
        for a request served whole.
        """
        transfer = self.engine.settings.transfer
        if transfer is None or not isinstance(self.engine, EngineCore):
            return ""
        if transfer.protocol == kv_transfer.SGLANG:
            if req.bootstrap is None:
                return ""
            return "bootstrap-prefill" if transfer.mode == "prefill" else "remote-decode"
        params = req.kv_transfer
        if params is None:
            return ""
        if params.get("do_remote_prefill") is True:
            return "remote-decode"
        if params.get("do_remote_decode") is True and not req.stream:
            return "remote-prefill"
        return ""

    async def _prefill_remote(
        self, request: Request, req: openai.Request, rid: str, created: int
    ) -> Reply | None:
        """A prefill for a decode instance: computed here, its blocks held for the decode to read.

        Under vLLM's protocol the answer says where (``kv_transfer_params``); under SGLang's
        the blocks are held under the request's bootstrap room, and the answer is thrown away.
        """
        engine = self.engine
        assert isinstance(engine, EngineCore)
        side = engine.side_channel
        assert side is not None
        key = rid if req.bootstrap is None else str(req.bootstrap[2])
        if req.stream:  # SGLang's router passes a client's stream on to the prefill too
            await self._stream(request, req, rid, created)
            side.hold(key, len(req.job.token_ids()), engine.settings.block_size)
            return None
        try:
            await engine.complete(req.job)
        except EngineDead as exc:
            return _error(openai.ApiError(503, f"the engine is dead: {exc}"))
        held = side.hold(key, len(req.job.token_ids()), engine.settings.block_size)
        return Reply(200, openai.response(req, rid, created, None if req.bootstrap else held))

    async def _decode_remote(
        self, request: Request, req: openai.Request, rid: str, created: int
    ) -> Reply | None:
        """A decode from a prefill's cache: read over its side channel, then no prompt is computed here."""
        engine = self.engine
        assert isinstance(engine, EngineCore)  # a data-parallel front has no side channel
        settings, metrics = engine.settings, engine.metrics
        assert settings.transfer is not None
        started = time.monotonic()
        try:
            if req.bootstrap is not None:
                host, port, room = req.bootstrap
                if port is None:  # the router named no port: the decode's own flag says it
                    port = settings.transfer.port
                tokens = await kv_transfer.fetch_from(host, port, str(room))
            else:
                assert req.kv_transfer is not None
                tokens = await kv_transfer.fetch(req.kv_transfer)
        except kv_transfer.TransferFailed as exc:
            # kv_load_failure_policy "fail": the request fails rather than being recomputed.
            return _error(openai.ApiError(500, f"KV transfer failed: {exc}"))
        wait = tokens * settings.transfer.s_per_token
        if wait > 0:
            await asyncio.sleep(wait)
        metrics.xfer.observe(time.monotonic() - started)
        metrics.transferred.value += tokens
        req.job.transferred = tokens
        if req.stream:
            await self._stream(request, req, rid, created)
            return None
        return await self._complete(req, rid, created)

    async def _complete(self, req: openai.Request, rid: str, created: int) -> Reply:
        """A non-streaming request that waits: for a slot, or for its tokens to be due."""
        try:
            await self.engine.complete(req.job)
        except EngineDead as exc:
            return _error(openai.ApiError(503, f"the engine is dead: {exc}"))
        return Reply(200, openai.response(req, rid, created))

    async def _stream(self, request: Request, req: openai.Request, rid: str, created: int) -> None:
        job = req.job
        stream = request.stream(_STREAM_HEADERS)
        chunks = openai.Chunks(req, rid, created)
        last, steps = job.max_tokens - 1, 0
        watch = _WriteWatch(stream, self.engine.settings.stream_write_timeout_s)
        try:
            if req.chat:
                await watch.write(b"".join(chunks.role(i) for i in range(job.n)))
            async with aclosing(self.engine.run(job)) as run:
                async for step in run:
                    finish = job.finish_reason if step == last else None
                    if job.n == 1:  # most requests: one chunk, no generator to join
                        data = chunks.token(0, job.outputs[0][step], finish)
                    else:
                        data = b"".join(chunks.token(i, job.outputs[i][step], finish) for i in range(job.n))
                    if stream.write(data):  # the hot path: no coroutine unless the client is behind
                        await watch.drain()
                    steps = step + 1
            if req.include_usage:
                await watch.write(chunks.usage(steps))
            await watch.write(openai.DONE)
            stream.end()
        except EngineDead as exc:
            # As vLLM streams an error: an error event, then the end of the stream.
            error = openai.ApiError(503, f"the engine is dead: {exc}").body()
            await watch.write(b"data: " + json.dumps(error).encode() + b"\n\n" + openai.DONE)
            stream.end()
        except ConnectionError:
            # The client went away: the engine counted the request as aborted.
            pass
        except asyncio.CancelledError:
            if not watch.stalled:
                raise  # the client disconnected, or the server is stopping
            # Ours: the client stopped reading. The run is closed (its slot freed); drop
            # the connection, whose buffers still hold what it never read.
            # Python 3.11+ counts cancellations; taken back, later timeouts work (3.10 has none).
            uncancel = getattr(asyncio.current_task(), "uncancel", None)
            if uncancel is not None:
                uncancel()
            request.abort()
        finally:
            watch.close()


class _WriteWatch:
    """Drops a stream whose client leaves it waiting to write for ``timeout`` seconds.

    A stalled reader fills the socket's buffers and then holds the writer (and so its
    engine slot) forever. One timer per stream looks a few times a timeout at the wait in
    progress, instead of a timer per write: writes are the hot path.
    """

    def __init__(self, stream: Stream, timeout: float) -> None:
        self.stream, self.timeout = stream, timeout
        self.loop = asyncio.get_running_loop()
        self.task = asyncio.current_task()
        #: When the wait in progress began; None while the client keeps up.
        self.since: float | None = None
        self.stalled = False
        self._timer = self.loop.call_later(timeout / 4, self._check)

    def _check(self) -> None:
        since = self.since
        if since is not None and time.monotonic() - since >= self.timeout and self.task is not None:
            self.stalled = True
            self.task.cancel()
            return
        self._timer = self.loop.call_later(self.timeout / 4, self._check)

    async def drain(self) -> None:
        """Wait, timed by the watch, until the client has read enough."""
        self.since = time.monotonic()  # the loop's clock, without looking the loop up
        await self.stream.drain()
        self.since = None

    async def write(self, data: bytes) -> None:
        """Write ``data``; wait, timed, if the client is behind."""
        if self.stream.write(data):
            await self.drain()

    def close(self) -> None:
        """Stop watching."""
        self._timer.cancel()
