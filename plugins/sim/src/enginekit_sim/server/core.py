"""The simulated engine core: readiness, the concurrency limit and queue, the latency model, the cache."""

from __future__ import annotations

import asyncio
import collections
import sys
import time
from collections.abc import AsyncGenerator

from enginekit_sim.server import textgen
from enginekit_sim.server.jobs import BROKEN, READY, STARTING, EngineDead, Job, Running, die
from enginekit_sim.server.kvcache import PrefixCache
from enginekit_sim.server.metrics import Metrics
from enginekit_sim.server.publisher import Publisher
from enginekit_sim.server.settings import Settings
from enginekit_sim.server.transfer import SideChannel

#: The event loop's clock (asyncio's default loop reads ``time.monotonic``), read directly:
#: it is read twice a token, and looking the running loop up each time is most of its cost.
_now = time.monotonic


class EngineCore:
    """The state a leader's HTTP handlers share."""

    def __init__(self, settings: Settings, publisher: Publisher | None = None, rank: int = 0) -> None:
        self.settings = settings
        #: Its data-parallel rank: the ``engine`` label of its metrics, the rank of its events.
        self.rank = rank
        self.state = STARTING
        self.reason = "loading the model"
        self.ready_at = 0.0
        self.requests = 0
        self.running = 0
        #: Requests waiting for a slot, in arrival order; a finishing request hands its
        #: slot to the first of them.
        self._waiting: collections.deque[asyncio.Future[None]] = collections.deque()
        self._crash_after = settings.fault("crash-after-requests")
        self.metrics = Metrics(settings.served_name, settings.max_model_len, lambda: self.running, rank)
        self.publisher = publisher
        self.cache = PrefixCache(
            settings.block_size, settings.num_blocks, publisher.publish if publisher is not None else None
        )
        self.metrics.kv_usage = self.cache.usage
        #: A prefill or decode instance's side channel (``--kv-transfer-config``); None without.
        side = (
            SideChannel(settings.transfer, rank, settings.tp, on_served=self.metrics.served.inc)
            if settings.transfer
            else None
        )
        #: Where a decode reads this instance's held blocks; None where nothing listens
        #: (no transfer, or an SGLang decode).
        self.side_channel = side if side is not None and side.listens else None
        self.metrics.transfer = settings.transfer is not None
        self._lora_ids = {name: i + 1 for i, name in enumerate(settings.adapters)}
        #: A model that takes no time: every token is due the moment its request is admitted.
        self._instant = settings.ttft_s == 0 and settings.itl_s == 0 and settings.prefill_s_per_token == 0

    def set_ready(self) -> None:
        """The model is loaded and every worker is in: serve, and start any crash timer."""
        if self.state != STARTING:
            return
        self.state, self.reason, self.ready_at = READY, "", time.monotonic()
        print(f"enginekit-sim: ready, serving {self.settings.served_name!r}", file=sys.stderr, flush=True)
        crash = self.settings.fault("crash-after-seconds")
        if crash is not None:
            asyncio.get_running_loop().call_later(
                crash.amount, die, crash.code, "injected crash-after-seconds"
            )

    def set_broken(self, reason: str) -> None:
        """Something a real engine cannot recover from happened: unhealthy from now on."""
        if self.state != BROKEN:
            print(f"enginekit-sim: unhealthy: {reason}", file=sys.stderr, flush=True)
        self.state, self.reason = BROKEN, reason

    def event_endpoints(self) -> dict[int, str]:
        """Where its KV-cache events go, by its rank: none without a publisher."""
        return {self.rank: self.publisher.endpoint} if self.publisher is not None else {}

    def replay_endpoints(self) -> dict[int, str]:
        """Where its publisher answers replays, by its rank: none without a replay endpoint."""
        publisher = self.publisher
        if publisher is None or publisher.replay_endpoint is None:
            return {}
        return {self.rank: publisher.replay_endpoint}

    def load(self) -> int:
        """How busy it is, as vLLM's front end scores an engine: four per waiting request, one per running."""
        return 4 * self.metrics.waiting_count + self.running

    def healthy(self) -> bool:
        """Whether ``/health`` answers 200 now (a flapping fault turns every other period off)."""
        if self.state != READY:
            return False
        flap = self.settings.fault("flap-health")
        if flap is not None and flap.amount > 0:
            return int((time.monotonic() - self.ready_at) / flap.amount) % 2 == 0
        return True

    def count_request(self) -> None:
        """Count an arriving request; the crash-after-requests fault fires on the one past its limit."""
        self.requests += 1
        crash = self._crash_after
        if crash is not None and self.requests > crash.amount:
            die(crash.code, f"injected crash-after-requests after {int(crash.amount)} requests")

    def plan(self, job: Job) -> None:
        """Draw the output of every choice: deterministic per seed (see :func:`textgen.source`)."""
        s = self.settings
        if job.n == 1:
            material = textgen.source(job.seed, job.prompt, s.seed, self.requests * 131, job.greedy)
            job.outputs = [textgen.generate(material, job.max_tokens)]
            return
        job.outputs = [
            textgen.generate(
                textgen.source(
                    None if job.seed is None else job.seed + i,
                    job.prompt,
                    s.seed,
                    self.requests * 131 + i,
                    job.greedy,
                ),
                job.max_tokens,
            )
            for i in range(job.n)
        ]

    def _admit_now(self, job: Job) -> Running | None:
        """Start the job at once if a slot is free and nobody waits; None otherwise."""
        if self.running < self.settings.max_num_seqs and not self._waiting:
            self.running += 1
            arrived = _now()
            return self._start(job, arrived, arrived)
        return None

    async def _admit(self, job: Job) -> Running:
        """Wait for a slot (the queue), then start the job."""
        arrived = _now()
        await self._queue()
        return self._start(job, arrived, _now())

    async def _queue(self) -> None:
        m = self.metrics
        slot = asyncio.get_running_loop().create_future()
        self._waiting.append(slot)
        m.waiting_count += 1
        try:
            await slot  # the releasing request counted us in
        except asyncio.CancelledError:
            if slot.done() and not slot.cancelled():
                self._release_slot()  # handed over just as we gave up: pass it on
            raise
        finally:
            m.waiting_count -= 1

    def _start(self, job: Job, arrived: float, start: float) -> Running:
        """Holding a slot: take the prompt's blocks from the prefix cache and set the schedule."""
        s, m = self.settings, self.metrics
        m.queue.observe(start - arrived)
        ids = job.token_ids()
        admission = self.cache.admit(ids, job.adapter, self._lora_ids.get(job.adapter or ""))
        m.cache_queries.value += len(ids)
        m.cache_hits.value += admission.hit_tokens
        m.prompt_tokens.value += len(ids)
        m.prompt_len.observe(len(ids))
        # A decode instance computes none of what it read from a prefill's cache.
        done = max(admission.hit_tokens, min(job.transferred, len(ids)))
        m.computed.value += len(ids) - done
        first = start + s.ttft_s + (len(ids) - done) * s.prefill_s_per_token
        return Running(job, arrived, first, start, ids, admission)

    def _release_slot(self) -> None:
        while self._waiting:
            slot = self._waiting.popleft()
            if not slot.done():
                slot.set_result(None)  # the slot passes over: running stays the same
                return
        self.running -= 1

    def _due(self, run: Running, step: int) -> float:
        """Seconds until token ``step`` is due: ``first + step * itl`` from admission.

        Measured from admission, never from the previous token, so a late wake-up does
        not push every later token back. The callers sleep only when it is positive: a
        token already due costs no coroutine and no trip through the event loop.
        """
        return run.first + step * self.settings.itl_s - _now()

    def _reached(self, run: Running, step: int) -> None:
        """Token ``step`` is out: account for it. A group that lost a member fails the request."""
        if self.state == BROKEN:
            raise EngineDead(self.reason)
        now = _now()
        if step == 0:
            self.metrics.ttft.observe(now - run.arrived)
        else:
            gap = step + 1 - run.steps
            self.metrics.itl.observe((now - run.previous) / gap, gap)
        run.previous, run.steps = now, step + 1

    def _finish(self, run: Running) -> None:
        m, job = self.metrics, run.job
        self._release_slot()
        generated = run.steps * job.n
        m.generation_tokens.value += generated
        m.output_len.observe(generated)
        m.success[job.finish_reason if run.steps == job.max_tokens else "abort"] += 1
        m.e2e.observe(run.previous - run.arrived)  # to the last token, when the request finished
        # Only output tokens that complete a block can be cached: id just those.
        size, prompt = self.cache.block_size, len(run.ids)
        whole = (prompt + run.steps) // size * size - prompt
        tail = job.outputs[0][:whole] if job.outputs and whole > 0 else []
        self.cache.release(run.admission, run.ids + textgen.piece_ids(tail) if tail else run.ids)

    def complete_now(self, job: Job) -> bool:
        """Run ``job`` to its end at once if the model takes no time and a slot is free.

        What :meth:`complete` would do without ever waiting, with no coroutine to make:
        False, having changed nothing, when the job must wait for a slot or its tokens.
        """
        if not self._instant:
            return False
        run = self._admit_now(job)
        if run is None:
            return False
        try:
            self._reached(run, 0)
            if job.max_tokens > 1:
                self._reached(run, job.max_tokens - 1)
        finally:
            self._finish(run)
        return True

    async def complete(self, job: Job) -> None:
        """Run ``job`` to its end: only the first and last tokens need a timer, on the same schedule."""
        # Most requests find a slot: starting them costs no coroutine.
        run = self._admit_now(job) or await self._admit(job)
        try:
            for step in (0, job.max_tokens - 1) if job.max_tokens > 1 else (0,):
                wait = self._due(run, step)
                if wait > 0:
                    await asyncio.sleep(wait)
                self._reached(run, step)
        finally:
            self._finish(run)

    async def run(self, job: Job) -> AsyncGenerator[int, None]:
        """Run ``job`` token by token, yielding each step's index when it is due."""
        run = self._admit_now(job) or await self._admit(job)
        try:
            for step in range(job.max_tokens):
                wait = self._due(run, step)
                if wait > 0:
                    await asyncio.sleep(wait)
                self._reached(run, step)
                yield step
        finally:
            self._finish(run)
