"""The HTTP API on aiohttp: OpenAI endpoints, ``/health``, ``/metrics``, and vLLM's API-key guard."""

from __future__ import annotations

import asyncio
import hmac
import json
import time
from collections.abc import Awaitable, Callable
from contextlib import aclosing

from aiohttp import web

from enginekit_sim import __version__, openai
from enginekit_sim.engine import Engine
from enginekit_sim.jobs import READY, EngineDead

#: vLLM's guarded prefixes: everything else (/health, /metrics, /version) stays open.
GUARDED = ("/v1", "/v2", "/inference", "/cohere")
#: The largest request body read: a prompt far beyond any context length.
MAX_BODY = 64 * 1024 * 1024
Handler = Callable[[web.BaseRequest], Awaitable[web.StreamResponse]]


def _error(exc: openai.ApiError) -> web.Response:
    return web.json_response(exc.body(), status=exc.status)


class Api:
    """The handlers, bound to one engine, behind aiohttp's low-level server.

    Routing is one dictionary lookup: the router, sub-apps and middleware chain of
    ``web.Application`` cost more per request than anything this API needs from them.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.created = int(time.time())
        self._ids = 0
        self._expected = f"bearer {engine.settings.api_key}".encode() if engine.settings.api_key else b""
        self.routes: dict[tuple[str, str], Handler] = {
            ("GET", "/health"): self.health,
            ("GET", "/metrics"): self.metrics,
            ("GET", "/version"): self.version,
            ("GET", "/v1/models"): self.models,
            ("POST", "/v1/completions"): self.completions,
            ("POST", "/v1/chat/completions"): self.chat,
            ("POST", "/reset_prefix_cache"): self.reset_prefix_cache,
        }

    def server(self) -> web.Server:
        """The aiohttp low-level server answering every request through :meth:`handle`."""
        return web.Server(self.handle, access_log=None)

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
        if any(known == path for _, known in self.routes):
            return _error(openai.ApiError(405, f"method {method} is not allowed on {path}"))
        return _error(openai.ApiError(404, f"no route {path}"))

    def _authorized(self, request: web.BaseRequest) -> bool:
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        # The scheme is case-insensitive, the key is not; compare in constant time.
        return hmac.compare_digest(f"{scheme.lower()} {token}".encode(), self._expected)

    async def health(self, request: web.BaseRequest) -> web.Response:
        engine = self.engine
        slow = engine.settings.fault("slow-health")
        if slow is not None:
            await asyncio.sleep(slow.amount)
        if engine.healthy():
            return web.Response(status=200)
        reason = engine.reason or ("injected flap-health" if engine.state == READY else engine.state)
        return web.json_response({"status": engine.state, "reason": reason}, status=503)

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
        self.engine.cache.clear()
        return web.Response(status=200)

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
            if (request.content_length or 0) > MAX_BODY:
                raise openai.ApiError(413, f"the request body is larger than {MAX_BODY} bytes")
            body = json.loads((await request.content.read()).decode("utf-8"))
            req = openai.parse(body, chat=chat, names=s.names, adapters=s.adapters, max_len=s.max_model_len)
        except ValueError:
            return _error(openai.ApiError(400, "the request body is not valid JSON"))
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
        try:
            if req.chat:
                await response.write(b"".join(chunks.role(i) for i in range(job.n)))
            async with aclosing(self.engine.run(job)) as run:
                async for step in run:
                    finish = job.finish_reason if step == last else None
                    await response.write(
                        b"".join(chunks.token(i, job.outputs[i][step], finish) for i in range(job.n))
                    )
                    steps = step + 1
            if req.include_usage:
                await response.write(chunks.usage(steps))
            await response.write(openai.DONE)
            await response.write_eof()
        except EngineDead as exc:
            # As vLLM streams an error: an error event, then the end of the stream.
            error = openai.ApiError(503, f"the engine is dead: {exc}").body()
            await response.write(b"data: " + json.dumps(error).encode() + b"\n\n" + openai.DONE)
            await response.write_eof()
        except ConnectionError:
            # The client went away: the engine counted the request as aborted.
            pass
        return response
