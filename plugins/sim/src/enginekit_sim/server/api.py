"""The HTTP API on aiohttp: OpenAI endpoints, ``/health``, ``/metrics``, and vLLM's API-key guard."""

from __future__ import annotations

import asyncio
import hmac
import json
import time
from collections.abc import Awaitable, Callable
from contextlib import aclosing

from aiohttp import web

from enginekit_sim import __version__
from enginekit_sim.server import openai
from enginekit_sim.server.core import EngineCore
from enginekit_sim.server.jobs import READY, EngineDead
from enginekit_sim.server.settings import KVEvents

#: vLLM's guarded prefixes: everything else (/health, /metrics, /version) stays open.
GUARDED = ("/v1", "/v2", "/inference", "/cohere")
Handler = Callable[[web.BaseRequest], Awaitable[web.StreamResponse]]


def kv_event_sources(config: KVEvents | None, rank: int) -> dict[str, dict[str, object]]:
    """vLLM's ``/kv_event_sources``: each data-parallel rank's ``KVEventsConfig``, all its fields.

    The fields the sim has no setting for carry vLLM 0.32's defaults, as recorded in
    tests/data/vllm-0.32.0/endpoints.json; without KV events there is no source.
    """
    if config is None:
        return {}
    return {
        str(rank): {
            "enable_kv_cache_events": True,
            "publisher": "zmq",
            "endpoint": config.endpoint,
            "replay_endpoint": None,
            "buffer_steps": 10000,
            "hwm": 100000,
            "max_queue_size": 100000,
            "topic": config.topic,
        }
    }


def _error(exc: openai.ApiError) -> web.Response:
    return web.json_response(exc.body(), status=exc.status)


class Api:
    """The handlers, bound to one engine, behind aiohttp's low-level server.

    Routing is one dictionary lookup: the router, sub-apps and middleware chain of
    ``web.Application`` cost more per request than anything this API needs from them.
    """

    def __init__(self, engine: EngineCore) -> None:
        self.engine = engine
        self.created = int(time.time())
        self._ids = 0
        self._expected = f"bearer {engine.settings.api_key}".encode() if engine.settings.api_key else b""
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
            ("POST", "/reset_prefix_cache"): self.reset_prefix_cache,
        }

    def server(self) -> web.Server:
        """The aiohttp low-level server answering every request through :meth:`handle`.

        Handlers are cancelled when their client disconnects, so a request nobody waits for
        gives its slot back at once instead of running to its end.
        """
        return web.Server(self.handle, access_log=None, handler_cancellation=True)

    async def handle(self, request: web.BaseRequest) -> web.StreamResponse:
        """Check the key where vLLM does, then dispatch; unknown paths get OpenAI-shaped errors."""
        method, path = request.method, request.path
        if (
            self._expected
            and path.startswith(GUARDED)
            and method != "OPTIONS"
            and not self._authorized(request)
        ):
            message = "Unauthorized: send a valid API key as 'Authorization: Bearer <key>'"
            return _error(openai.ApiError(401, message))
        route = self.routes.get(("GET" if method == "HEAD" else method, path))
        if route is not None:
            return await route(request)
        allowed = sorted({known_method for known_method, known in self.routes if known == path})
        if allowed:
            response = _error(openai.ApiError(405, f"method {method} is not allowed on {path}"))
            response.headers["Allow"] = ", ".join(allowed)
            return response
        return _error(openai.ApiError(404, f"no route {path}"))

    def _authorized(self, request: web.BaseRequest) -> bool:
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        # The scheme is case-insensitive, the key is not; compare in constant time. Raw
        # non-UTF-8 bytes in the header arrive as lone surrogates, which surrogatepass
        # encodes (to bytes no key has) instead of failing the request with a 500.
        given = f"{scheme.lower()} {token}".encode("utf-8", "surrogatepass")
        return hmac.compare_digest(given, self._expected)

    async def health(self, request: web.BaseRequest) -> web.Response:
        engine = self.engine
        slow = engine.settings.fault("slow-health")
        if slow is not None:
            await asyncio.sleep(slow.amount)
        if engine.healthy():
            return web.Response(status=200)
        reason = engine.reason or ("injected flap-health" if engine.state == READY else engine.state)
        return web.json_response({"status": engine.state, "reason": reason}, status=503)

    async def load(self, request: web.BaseRequest) -> web.Response:
        # vLLM counts in-flight requests here only with --enable-server-load-tracking, which
        # the sim does not take: without it vLLM answers 0 at any load.
        return web.json_response({"server_load": 0})

    async def kv_event_sources(self, request: web.BaseRequest) -> web.Response:
        publisher = self.engine.publisher
        return web.json_response(
            kv_event_sources(self.engine.settings.kv_events, publisher.rank if publisher else 0)
        )

    async def metrics(self, request: web.BaseRequest) -> web.Response:
        body = self.engine.metrics.render().encode()
        return web.Response(body=body, headers={"Content-Type": "text/plain; version=0.0.4; charset=utf-8"})

    async def version(self, request: web.BaseRequest) -> web.Response:
        return web.json_response({"version": __version__, "engine": "enginekit-sim"})

    async def models(self, request: web.BaseRequest) -> web.Response:
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
        return web.json_response({"object": "list", "data": data})

    async def reset_prefix_cache(self, request: web.BaseRequest) -> web.Response:
        # As vLLM 0.32: refused (false) while running requests hold blocks; callers retry.
        return web.json_response({"success": self.engine.cache.clear()})

    async def completions(self, request: web.BaseRequest) -> web.StreamResponse:
        return await self._generate(request, chat=False)

    async def chat(self, request: web.BaseRequest) -> web.StreamResponse:
        return await self._generate(request, chat=True)

    async def _generate(self, request: web.BaseRequest, *, chat: bool) -> web.StreamResponse:
        engine, s = self.engine, self.engine.settings
        if engine.state != READY:
            why = (
                "the engine is still starting"
                if engine.state == "starting"
                else f"the engine is dead: {engine.reason}"
            )
            return _error(openai.ApiError(503, why))
        engine.count_request()
        try:
            body = json.loads((await self._body(request)).decode("utf-8"))
            req = openai.parse(
                body,
                chat=chat,
                names=s.names,
                adapters=s.adapters,
                max_len=s.max_model_len,
                max_prompt_bytes=s.max_prompt_bytes,
            )
        except ValueError:
            return _error(openai.ApiError(400, "the request body is not valid JSON"))
        except RecursionError:
            # json's decoder recurses once a level: a body nested past the interpreter's
            # recursion limit (about 1000 levels) is refused here, before it reaches a 500.
            return _error(openai.ApiError(400, "the request body is nested too deeply"))
        except openai.ApiError as exc:
            return _error(exc)
        engine.plan(req.job)
        self._ids += 1
        rid = f"{'chatcmpl' if chat else 'cmpl'}-{self.created:x}{self._ids:08x}"
        created = int(time.time())
        if not req.stream:
            try:
                await engine.complete(req.job)
            except EngineDead as exc:
                return _error(openai.ApiError(503, f"the engine is dead: {exc}"))
            return web.Response(body=openai.response(req, rid, created), content_type="application/json")
        return await self._stream(request, req, rid, created)

    async def _body(self, request: web.BaseRequest) -> bytes:
        """The whole body, counted as it arrives: a chunked body declares no length to check first.

        :raises openai.ApiError: 413 once the body passes ``--max-body-bytes``.
        """
        limit = self.engine.settings.max_body_bytes
        too_large = openai.ApiError(413, f"the request body is larger than {limit} bytes")
        if (request.content_length or 0) > limit:
            raise too_large
        content = request.content
        if content.is_eof():
            # The whole body came with the head (every small request does): take it as it is.
            body = content.read_nowait()
            if len(body) > limit:
                raise too_large
            return body
        chunks, size = [], 0
        # Each readany() returns what has arrived (EOF is b""), so the loop ends with the body.
        while chunk := await request.content.readany():
            size += len(chunk)
            if size > limit:
                raise too_large
            chunks.append(chunk)
        return b"".join(chunks)

    async def _stream(
        self, request: web.BaseRequest, req: openai.Request, rid: str, created: int
    ) -> web.StreamResponse:
        job = req.job
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        chunks = openai.Chunks(req, rid, created)
        last, steps = job.max_tokens - 1, 0
        watch = _WriteWatch(response, self.engine.settings.stream_write_timeout_s)
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
                    await watch.write(data)
                    steps = step + 1
            if req.include_usage:
                await watch.write(chunks.usage(steps))
            await watch.write(openai.DONE)
            await response.write_eof()
        except EngineDead as exc:
            # As vLLM streams an error: an error event, then the end of the stream.
            error = openai.ApiError(503, f"the engine is dead: {exc}").body()
            await watch.write(b"data: " + json.dumps(error).encode() + b"\n\n" + openai.DONE)
            await response.write_eof()
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
            if request.transport is not None:
                request.transport.abort()
        finally:
            watch.close()
        return response


class _WriteWatch:
    """Drops a stream whose client leaves one write unread for ``timeout`` seconds.

    A stalled reader fills the socket's buffers and then holds ``write`` (and so its
    engine slot) forever. One timer per stream looks a few times a timeout at the write in
    progress, instead of a timer per write: writes are the hot path.
    """

    def __init__(self, response: web.StreamResponse, timeout: float) -> None:
        self.response, self.timeout = response, timeout
        self.loop = asyncio.get_running_loop()
        self.task = asyncio.current_task()
        #: When the write in progress began; None between writes.
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

    async def write(self, data: bytes) -> None:
        """Write ``data``, timed by the watch."""
        self.since = time.monotonic()  # the loop's clock, without looking the loop up
        await self.response.write(data)
        self.since = None

    def close(self) -> None:
        """Stop watching."""
        self._timer.cancel()
