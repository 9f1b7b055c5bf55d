"""Data parallel in the simulated engine: ranks in processes, a group that forms and breaks as one.

The shape is vLLM's. Each process hosts some data-parallel ranks, each an engine core
of its own (its queue, its prefix cache, its metrics labelled ``engine="<rank>"``, its
KV events on the configured port plus its rank). The process of rank 0 is the leader:
it listens on ``--data-parallel-rpc-port`` at ``--data-parallel-address`` and every
other process joins it there. No rank serves until every rank of the replica has joined
and loaded, as vLLM's data-parallel group forms only then; a process that leaves breaks
the group for good (the others turn unhealthy), and a leader that goes makes every other
process exit 1.

An API server spreads requests over the ranks it fronts by vLLM's score (four per
waiting request, one per running; ties taken in turn): under internal balancing the
leader fronts every rank, its headless members' through their join connection; under
hybrid balancing each node's server fronts its own ranks; under external, each rank is
its own server.

The protocol is JSON lines over one TCP connection per member process:

* member -> leader ``{"op": "join", "ranks", "size", "mode", "model", "tp", "pp", "serves",
  "events"}``; the leader answers ``{"op": "welcome"}`` or ``{"op": "refused", "reason"}``;
* member -> leader ``{"op": "ready"}`` once its ranks have loaded; leader -> every member
  ``{"op": "group-ready"}`` once every rank has, or ``{"op": "broken", "reason"}`` when a
  member has gone;
* both ways ``{"op": "ping"}`` every heartbeat: three silent heartbeats, or the connection
  closing, mean the peer is gone;
* to a headless member under internal balancing: ``{"op": "run", "id", "rank", "job"}``
  and ``{"op": "abort", "id"}``; back ``{"op": "step", "id", "step"}`` per token, then
  ``{"op": "end", "id"}`` or ``{"op": "fail", "id", "reason"}``, and ``{"op": "metrics",
  "text"}`` every heartbeat.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import json
import sys
from collections.abc import AsyncGenerator, Callable
from typing import Any

from enginekit_sim.server.core import EngineCore
from enginekit_sim.server.jobs import BROKEN, READY, STARTING, EngineDead, Job
from enginekit_sim.server.metrics import merge
from enginekit_sim.server.settings import INTERNAL, DataParallel, Settings

JOIN_REPLY_TIMEOUT = 10.0


def _say(message: str) -> None:
    print(f"enginekit-sim: {message}", file=sys.stderr, flush=True)


def _ranks(ranks: tuple[int, ...] | list[int]) -> str:
    return f"{ranks[0]}" if len(ranks) == 1 else f"{ranks[0]}-{ranks[-1]}"


class Link:
    """One JSON-lines connection with heartbeats, either side of it."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, heartbeat: float) -> None:
        self.reader, self.writer, self.heartbeat = reader, writer, heartbeat
        self._pinger: asyncio.Task[None] | None = None

    def send(self, message: dict[str, Any]) -> None:
        """Queue ``message``; a closed connection is noticed by the reader, not here."""
        if not self.writer.is_closing():
            self.writer.write(json.dumps(message).encode() + b"\n")

    async def receive(self, timeout: float) -> Any:
        """The next message, or None when the connection closed or the timeout passed."""
        line = await asyncio.wait_for(self.reader.readline(), timeout)
        return json.loads(line) if line else None

    def start_pings(self) -> None:
        """Ping every heartbeat, so the peer knows this side lives."""
        self._pinger = asyncio.ensure_future(self._ping())

    async def _ping(self) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):
            while not self.writer.is_closing():
                self.send({"op": "ping"})
                await self.writer.drain()
                await asyncio.sleep(self.heartbeat)

    async def messages(self, on_message: Callable[[dict[str, Any]], None]) -> str:
        """Hand each message but pings to ``on_message`` until the peer goes; return why it went."""
        while True:
            try:
                message = await self.receive(3 * self.heartbeat)
            except asyncio.TimeoutError:
                return f"no heartbeat for {3 * self.heartbeat:g} s"
            except ConnectionResetError:
                return "connection closed: reset"
            except (OSError, ValueError, RecursionError) as exc:
                return f"connection failed: {exc}"
            if message is None:
                return "connection closed"
            if isinstance(message, dict) and message.get("op") != "ping":
                on_message(message)

    def close(self) -> None:
        """Stop pinging and close the connection."""
        if self._pinger is not None:
            self._pinger.cancel()
        self.writer.close()


def _job(job: Job) -> dict[str, Any]:
    return dataclasses.asdict(job)


class RemoteRank:
    """A rank of a headless member as the leader's API server sees it: its runs go over the join link."""

    def __init__(self, rank: int, group: Group) -> None:
        self.rank = rank
        self.group = group
        self.running = 0

    def load(self) -> int:
        """vLLM's score from the leader's side: the requests it has sent there and not seen end."""
        return self.running

    def complete_now(self, job: Job) -> bool:
        """A remote rank never finishes a request without a trip over the network."""
        return False

    async def complete(self, job: Job) -> None:
        """Run ``job`` there to its end."""
        async for _ in self.run(job):
            pass

    async def run(self, job: Job) -> AsyncGenerator[int, None]:
        """Run ``job`` there, yielding each step as the member reports it.

        :raises EngineDead: the member failed the request or went away.
        """
        member = self.group.members.get(self.rank)
        if member is None or self.group.broken:
            raise EngineDead(self.group.broken or f"data-parallel rank {self.rank} has not joined")
        ident, queue = member.open()
        self.running += 1
        member.link.send({"op": "run", "id": ident, "rank": self.rank, "job": _job(job)})
        ended = False
        try:
            while True:
                message = await queue.get()
                op = message.get("op")
                step = message.get("step")
                if op == "step" and type(step) is int:
                    yield step
                elif op == "step":
                    ended = True  # the member is broken: its run cannot be trusted further
                    raise EngineDead(f"data-parallel rank {self.rank} reported a step that is no number")
                elif op == "end":
                    ended = True
                    return
                else:
                    ended = True
                    raise EngineDead(str(message.get("reason", "the rank failed the request")))
        finally:
            self.running -= 1
            member.close(ident)
            if not ended:
                member.link.send({"op": "abort", "id": ident})


def _own(endpoints: Any, ranks: tuple[int, ...]) -> dict[int, str]:
    """The endpoints a joining member announced for its own ranks, by rank; none for anything else."""
    if not isinstance(endpoints, dict):
        return {}
    return {int(k): str(v) for k, v in endpoints.items() if int(k) in ranks}


class Member:
    """A process that joined the leader: its ranks, its link, and the runs open on it."""

    def __init__(
        self,
        ranks: tuple[int, ...],
        link: Link,
        events: dict[int, str],
        replays: dict[int, str] | None = None,
    ) -> None:
        self.ranks, self.link, self.events = ranks, link, events
        #: Its ranks' replay endpoints, as it announced them.
        self.replays = replays or {}
        self.metrics = ""
        self._runs: dict[int, asyncio.Queue[dict[str, Any]]] = {}
        self._ids = itertools.count(1)

    def open(self) -> tuple[int, asyncio.Queue[dict[str, Any]]]:
        """A new run's id and the queue its messages arrive on."""
        ident = next(self._ids)
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._runs[ident] = queue
        return ident, queue

    def close(self, ident: int) -> None:
        """Forget run ``ident``."""
        self._runs.pop(ident, None)

    def deliver(self, message: dict[str, Any]) -> None:
        """A run's step, end or failure, to the run waiting for it; late ones for a closed run dropped."""
        ident = message.get("id", 0)
        queue = self._runs.get(ident) if isinstance(ident, int) else None
        if queue is not None:
            queue.put_nowait(message)

    def fail_all(self, reason: str) -> None:
        """Every open run fails: the member is gone."""
        for queue in self._runs.values():
            queue.put_nowait({"op": "fail", "reason": reason})


class Group:
    """On the leader: the replica's processes joining on the rpc port, forming and breaking as one."""

    def __init__(
        self,
        settings: Settings,
        dp: DataParallel,
        on_ready: Callable[[], None],
        on_broken: Callable[[str], None],
    ) -> None:
        self.settings, self.dp = settings, dp
        #: The member hosting each rank that has joined (the leader's own ranks are not here).
        self.members: dict[int, Member] = {}
        self.ready: set[int] = set()
        self.loaded = False
        self.formed = False
        self.broken = ""
        self._on_ready, self._on_broken = on_ready, on_broken
        self._server: asyncio.Server | None = None
        self._links: set[Link] = set()
        self._handlers: set[asyncio.Task[Any]] = set()
        self._closing = False

    async def start(self) -> None:
        """Listen on the rpc port at the data-parallel address."""
        self._server = await asyncio.start_server(self._handle, host=self.dp.address, port=self.dp.rpc_port)

    async def close(self) -> None:
        """Stop listening and drop every member: each sees its leader go and exits."""
        self._closing = True
        if self._server is not None:
            self._server.close()
            for link in list(self._links):
                link.close()
            # Each member's handler sees its connection end: let it finish, not be cancelled.
            if self._handlers:
                await asyncio.wait(self._handlers, timeout=JOIN_REPLY_TIMEOUT)
            await self._server.wait_closed()

    def joined(self) -> list[Member]:
        """Each member that joined, once (``members`` names one per rank it hosts)."""
        return list({id(member): member for member in self.members.values()}.values())

    def set_loaded(self) -> None:
        """The leader's own ranks have loaded."""
        self.loaded = True
        self._check()

    def _check(self) -> None:
        others = set(range(self.dp.size)) - set(self.dp.ranks)
        if self.formed or self.broken or not self.loaded or not others <= self.ready:
            return
        self.formed = True
        _say(f"every one of {self.dp.size} data-parallel ranks has joined and loaded")
        for link in self._links:
            link.send({"op": "group-ready"})
        self._on_ready()

    def _refusal(self, msg: Any) -> str:
        s, dp = self.settings, self.dp
        if not isinstance(msg, dict) or msg.get("op") != "join":
            return "expected a join"
        ranks = msg.get("ranks")
        if not isinstance(ranks, list) or not ranks or not all(isinstance(r, int) for r in ranks):
            return "a join names the data-parallel ranks it hosts"
        if self.broken:
            return f"the replica is broken ({self.broken}); restart every process"
        for rank in ranks:
            if not 0 <= rank < dp.size:
                return f"data-parallel rank {rank} is not in 0..{dp.size - 1}"
            if rank in dp.ranks or rank in self.members:
                return f"data-parallel rank {rank} has already joined"
        want = {"size": dp.size, "mode": dp.mode, "model": s.model, "tp": s.tp, "pp": s.pp}
        for key, value in want.items():
            if msg.get(key) != value:
                return f"{key} is {msg.get(key)!r} on ranks {_ranks(ranks)}, {value!r} on the leader"
        if dp.mode == INTERNAL and msg.get("serves"):
            return "under internal balancing only the leader serves the API: start the others --headless"
        return ""

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = Link(reader, writer, self.settings.heartbeat_s)
        member: Member | None = None
        self._links.add(link)
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)
        try:
            try:
                msg = await link.receive(JOIN_REPLY_TIMEOUT)
            except (OSError, ValueError, RecursionError, asyncio.TimeoutError):
                return
            refusal = self._refusal(msg)
            if refusal:
                link.send({"op": "refused", "reason": refusal})
                await writer.drain()
                return
            ranks = tuple(msg["ranks"])
            # Only its own ranks' endpoints: a member names no other rank's publisher.
            member = Member(ranks, link, _own(msg.get("events"), ranks), _own(msg.get("replays"), ranks))
            for rank in member.ranks:
                self.members[rank] = member
            _say(f"data-parallel ranks {_ranks(member.ranks)} joined")
            link.send({"op": "welcome"})
            link.start_pings()
            joined = member
            why = await link.messages(lambda message: self._message(joined, message))
            self._lose(member, why)
        except Exception as exc:  # whatever a peer sent that broke its handler: it is gone
            if member is not None:
                self._lose(member, f"connection failed: {exc!r}")
        finally:
            self._links.discard(link)
            link.close()

    def _message(self, member: Member, message: dict[str, Any]) -> None:
        op = message.get("op")
        if op == "ready":
            self.ready.update(member.ranks)
            self._check()
        elif op == "metrics":
            member.metrics = str(message.get("text", ""))
        else:
            member.deliver(message)

    def _lose(self, member: Member, why: str) -> None:
        member.fail_all(f"data-parallel ranks {_ranks(member.ranks)} left: {why}")
        if self._closing:
            return
        if not self.broken:
            self.broken = f"data-parallel ranks {_ranks(member.ranks)} left: {why}"
            for link in self._links:
                link.send({"op": "broken", "reason": self.broken})
        self._on_broken(self.broken)


class Front:
    """What the HTTP handlers serve under data parallel: the ranks this API server fronts, as one engine.

    It answers what :class:`~enginekit_sim.server.core.EngineCore` answers the handlers,
    and hands each request to one rank.
    """

    def __init__(
        self,
        settings: Settings,
        cores: dict[int, EngineCore],
        remote: dict[int, RemoteRank],
        group: Group | None,
    ) -> None:
        self.settings = settings
        self.cores = cores
        self.group = group
        fronted = settings.dp.fronted if settings.dp is not None else tuple(cores)
        self._ranks: list[EngineCore | RemoteRank] = [cores[r] if r in cores else remote[r] for r in fronted]
        self._turn = 0
        self._first = next(iter(cores.values()))
        #: The state of the group as this process knows it.
        self.state = STARTING
        self.reason = "waiting for every data-parallel rank to join"
        self.publisher = None

    @property
    def metrics(self) -> Front:
        """Itself: it renders every fronted rank's series."""
        return self

    @property
    def cache(self) -> Front:
        """Itself: it clears every rank's prefix cache."""
        return self

    def set_ready(self) -> None:
        """The group formed: every rank serves."""
        if self.state != STARTING:
            return
        self.state, self.reason = READY, ""
        for core in self.cores.values():
            core.set_ready()

    def set_broken(self, reason: str) -> None:
        """A process of the group went: unhealthy for good, as the whole group is."""
        self.state, self.reason = BROKEN, reason
        for core in self.cores.values():
            core.set_broken(reason)

    def healthy(self) -> bool:
        """Ready and every local rank healthy (an injected flapping fault flaps the whole server)."""
        return self.state == READY and self._first.healthy()

    def count_request(self) -> None:
        """Count an arriving request on the first local rank, where the crash faults count."""
        self._first.count_request()

    def plan(self, job: Job) -> None:
        """Draw the job's output, deterministically per seed, wherever it then runs."""
        self._first.plan(job)

    def _choose(self) -> EngineCore | RemoteRank:
        count = len(self._ranks)
        order = [self._ranks[(self._turn + i) % count] for i in range(count)]
        return min(order, key=lambda rank: rank.load())

    def pick(self) -> EngineCore | RemoteRank:
        """The rank with the lowest score; ties are taken in turn, so an idle replica spreads its requests."""
        chosen = self._choose()
        self._turn = (self._ranks.index(chosen) + 1) % len(self._ranks)
        return chosen

    def complete_now(self, job: Job) -> bool:
        """Run ``job`` to its end at once where the chosen rank can: a local rank of an instant model.

        The turn moves on only when it did: otherwise the same rank is picked for the wait.
        """
        if self._choose().complete_now(job):
            self.pick()
            return True
        return False

    async def complete(self, job: Job) -> None:
        """Run ``job`` on the chosen rank to its end."""
        await self.pick().complete(job)

    def run(self, job: Job) -> AsyncGenerator[int, None]:
        """Run ``job`` on the chosen rank, token by token."""
        return self.pick().run(job)

    def render(self) -> str:
        """Every fronted rank's series in one exposition: local ranks now, members' as last reported."""
        texts = [core.metrics.render() for core in self.cores.values()]
        if self.group is not None:
            texts += [m.metrics for m in self.group.joined() if m.metrics]
        return merge(texts)

    def clear(self) -> bool:
        """Clear every local rank's prefix cache (vLLM's answer: false while a request holds blocks)."""
        cleared = [core.cache.clear() for core in self.cores.values()]
        return all(cleared)

    def event_endpoints(self) -> dict[int, str]:
        """Where each fronted rank's KV-cache events go: local ranks' own, members' as they joined."""
        found: dict[int, str] = {}
        for core in self.cores.values():
            found.update(core.event_endpoints())
        if self.group is not None and self.settings.dp is not None:
            for member in self.group.joined():
                found.update(member.events)
            fronted = set(self.settings.dp.fronted)
            found = {rank: endpoint for rank, endpoint in found.items() if rank in fronted}
        return found

    def replay_endpoints(self) -> dict[int, str]:
        """Where each fronted rank answers KV-event replays: local ranks' own, members' as they joined."""
        found: dict[int, str] = {}
        for core in self.cores.values():
            found.update(core.replay_endpoints())
        if self.group is not None and self.settings.dp is not None:
            for member in self.group.joined():
                found.update(member.replays)
            fronted = set(self.settings.dp.fronted)
            found = {rank: endpoint for rank, endpoint in found.items() if rank in fronted}
        return found


async def serve_member(
    settings: Settings,
    dp: DataParallel,
    cores: dict[int, EngineCore],
    loaded: asyncio.Future[None],
    on_ready: Callable[[], None],
    on_broken: Callable[[str], None],
) -> int:
    """A process that is not the leader: join it, report ready once loaded, run what it sends.

    :returns: 1 when the join fails or the leader goes, as a real engine's process exits.
    """
    s, loop = settings, asyncio.get_running_loop()
    where = f"{dp.address}:{dp.rpc_port}"
    deadline = loop.time() + s.join_timeout_s
    while True:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(dp.address, dp.rpc_port), JOIN_REPLY_TIMEOUT
            )
            break
        except (OSError, asyncio.TimeoutError) as exc:
            if loop.time() >= deadline:
                _say(f"could not reach the data-parallel leader at {where}: {exc}")
                return 1
            await asyncio.sleep(0.1)
    link = Link(reader, writer, s.heartbeat_s)
    events = {str(r): endpoint for core in cores.values() for r, endpoint in core.event_endpoints().items()}
    replays = {str(r): endpoint for core in cores.values() for r, endpoint in core.replay_endpoints().items()}
    link.send(
        {
            "op": "join",
            "ranks": list(dp.ranks),
            "size": dp.size,
            "mode": dp.mode,
            "model": s.model,
            "tp": s.tp,
            "pp": s.pp,
            "serves": dp.serves,
            "events": events,
            "replays": replays,
        }
    )
    try:
        reply = await link.receive(JOIN_REPLY_TIMEOUT)
    except (OSError, ValueError, asyncio.TimeoutError) as exc:
        reply = {"op": "refused", "reason": f"no answer ({exc or type(exc).__name__})"}
    if not isinstance(reply, dict) or reply.get("op") != "welcome":
        reason = reply.get("reason") if isinstance(reply, dict) else reply
        _say(f"the data-parallel leader at {where} refused ranks {_ranks(dp.ranks)}: {reason}")
        link.close()
        return 1
    _say(f"data-parallel ranks {_ranks(dp.ranks)} joined the leader at {where}")
    link.start_pings()
    runs: dict[int, asyncio.Task[None]] = {}

    def report(done: asyncio.Future[None]) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            done.result()
            link.send({"op": "ready"})

    loaded.add_done_callback(report)
    reporter = asyncio.ensure_future(_report_metrics(link, cores)) if not dp.serves else None

    def on_message(message: dict[str, Any]) -> None:
        op = message.get("op")
        if op == "group-ready":
            on_ready()
        elif op == "broken":
            on_broken(str(message.get("reason", "a data-parallel process left")))
        elif op == "run":
            ident = message.get("id")
            rank = message.get("rank")
            core = cores.get(rank) if type(rank) is int else None
            if type(ident) is int and ident not in runs and core is not None:
                runs[ident] = asyncio.ensure_future(_run(link, core, ident, message.get("job"), runs))
        elif op == "abort":
            ident = message.get("id")
            task = runs.pop(ident, None) if type(ident) is int else None
            if task is not None:
                task.cancel()

    try:
        why = await link.messages(on_message)
    finally:
        if reporter is not None:
            reporter.cancel()
        for task in runs.values():
            task.cancel()
        link.close()
    _say(f"the data-parallel leader at {where} went away ({why})")
    return 1


async def _run(
    link: Link, core: EngineCore, ident: int, raw: Any, runs: dict[int, asyncio.Task[None]]
) -> None:
    """Run one request the leader sent, reporting each step."""
    try:
        job = Job(**raw)
        async for step in core.run(job):
            link.send({"op": "step", "id": ident, "step": step})
        link.send({"op": "end", "id": ident})
    except EngineDead as exc:
        link.send({"op": "fail", "id": ident, "reason": str(exc)})
    except asyncio.CancelledError:
        raise  # aborted by the leader, or the process is stopping
    except Exception:  # whatever the job holds, the leader hears of it: never silence
        link.send({"op": "fail", "id": ident, "reason": "the leader sent a request this rank cannot read"})
    finally:
        runs.pop(ident, None)


async def _report_metrics(link: Link, cores: dict[int, EngineCore]) -> None:
    """Send the ranks' series every heartbeat: the leader's API server serves them with its own."""
    while True:
        link.send({"op": "metrics", "text": merge([core.metrics.render() for core in cores.values()])})
        await asyncio.sleep(link.heartbeat)
