"""The layout's values: what an engine says of its layouts, what a node brings, every process that results."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import attrs

from enginekit.spec.model import DECODE, DP_BALANCING, PREFILL

#: A process that serves the replica's API (HTTP) and one that only computes.
API_SERVER = "api-server"
HEADLESS = "headless"
#: The listener of a headless process's health stub (:attr:`LayoutRules.health_stub`).
HEALTH_STUB = "health-stub"
#: The lowest and highest port a listener may take: 0 means "not set" everywhere in the model.
MIN_PORT, MAX_PORT = 1, 65535


@attrs.frozen
class Coordination:
    """A port of the data-parallel leader's: ``count`` ports at ``offset`` from the replica's ``leader_port``.

    The first node's first process listens on it; every other process dials it at its
    first port (the engine derives the rest of a range from that one), or, for a range of
    one port per data-parallel rank, at its own first rank's port.
    """

    name: str
    #: Its first port's distance from ``leader_port``.
    offset: int = 0
    #: How many ports it takes; ignored when ``per_rank``.
    count: int = 1
    #: One port per data-parallel rank of the replica (``dp`` ports), rank ``r`` at ``offset + r``.
    per_rank: bool = False
    #: The engine requires it free on every node at start, not only on the leader's (SGLang
    #: from 0.5.5 waits for it there, then stops): the other nodes keep it free too.
    every_node: bool = False


def coordination_ports(entries: Iterable[str | Coordination]) -> tuple[Coordination, ...]:
    """``entries`` as :class:`Coordination`, a bare name taking the port after the previous entry's last.

    So ``("a", "b")`` is the contiguous block ``leader_port``, ``leader_port + 1``: the
    form of plugin API 1.1's first drafts, still accepted.
    """
    ports: list[Coordination] = []
    following: int | None = 0
    for entry in entries:
        if isinstance(entry, str) and following is None:
            raise ValueError(f"coordination: {entry!r} follows a range of one port per rank: give its offset")
        port = Coordination(entry, following or 0) if isinstance(entry, str) else entry
        ports.append(port)
        if isinstance(port, Coordination):  # anything else is left to the plugin contract to name
            # A range of one port per rank ends where the replica's dp says: nothing follows it unsaid.
            following = None if port.per_rank else port.offset + port.count
    return tuple(ports)


#: Where an engine's KV-transfer listeners sit (:attr:`KVTransferPorts.scope`).
TRANSFER_LEADER, TRANSFER_RANK, TRANSFER_TP_RANK = "leader", "rank", "tp-rank"
TRANSFER_SCOPES = (TRANSFER_LEADER, TRANSFER_RANK, TRANSFER_TP_RANK)


@attrs.frozen(kw_only=True)
class KVTransferPorts:
    """Where a disaggregated instance's KV transfer listens, from the shard's ``kv_transfer_port``.

    The engine derives each port from that one base, so the layout derives them alike and
    a clash between two instances on one node is found before either starts.
    """

    #: The roles whose processes listen: vLLM's NIXL handshake, both; SGLang's bootstrap
    #: server, a prefill's alone.
    roles: frozenset[str] = frozenset({PREFILL, DECODE})
    #: ``leader``: the instance's first process, on the base port alone (SGLang's bootstrap
    #: server). ``rank``: each data-parallel rank on the base plus its rank. ``tp-rank``: each
    #: worker on the base plus its data-parallel rank times the tensor-parallel size, plus
    #: its tensor-parallel rank (vLLM's NIXL handshake listeners).
    scope: str = TRANSFER_TP_RANK


@attrs.frozen(kw_only=True)
class LayoutRules:
    """What an engine's layouts look like: the facts the layout function takes from the engine.

    Data, not code, so the layout of every engine is computed by the one function in
    :mod:`enginekit.layout.compute` and checked by the same property tests.
    """

    #: The data-parallel balancing modes the engine has (``internal``, ``hybrid``,
    #: ``external``); empty when it has no data parallel at all.
    balancing: frozenset[str] = frozenset()
    #: How a refusal names the engine: its name and the release the node runs (``vLLM
    #: 0.24.0``), for a shape that release cannot run; empty names the profile's engine.
    named: str = ""
    #: Whether the engine spreads experts over the ranks (expert parallel).
    expert_parallel: bool = False
    #: The all-to-all backends expert parallel may use, in the engine's own words; empty
    #: accepts any name (the engine's own checks judge it).
    all2all: frozenset[str] = frozenset()
    #: The ports the data-parallel leader listens on and every other process of the
    #: replica dials, each at its offset from the replica's ``leader_port``; a bare name
    #: takes the port after the previous one (a contiguous block from ``leader_port``).
    coordination: tuple[Coordination, ...] = attrs.field(default=(), converter=coordination_ports)
    #: The leader closes its coordination ports once every rank has joined (vLLM's
    #: handshake), so nothing of them says later whether it still runs: every other process
    #: of a data-parallel replica also dials the leader's API server (its ``http``), where
    #: a supervisor watches for the leader's end.
    coordination_closes: bool = False
    #: Each rank publishes KV-cache events on the base port plus its data-parallel rank
    #: (vLLM); otherwise each process publishes on the base port alone.
    kv_events_per_rank: bool = False
    #: A publisher that binds also binds a replay endpoint (vLLM's ``replay_endpoint``),
    #: where a subscriber that joined late asks for the batches it missed. Its ports are
    #: reserved whatever this says (:func:`enginekit.layout.compute.kv_events_replay_base`);
    #: this says whether the engine serves them, and so whether a plan names them.
    kv_events_replay: bool = False
    #: A process that serves no API still listens on its node's HTTP port, for a stub that
    #: answers health checks whatever its state (SGLang's nodes but the first).
    health_stub: bool = False
    #: Where a prefill or decode instance's KV transfer listens; None for an engine with
    #: no disaggregated serving.
    kv_transfer: KVTransferPorts | None = None


#: An engine that says nothing of layouts: tensor and pipeline parallel only.
NO_DATA_PARALLEL = LayoutRules()
#: Any engine's layout: which processes, ranks and GPUs, and the ports every engine with
#: data parallel listens on (each API server's HTTP port, the leader's ``leader_port``,
#: KV-event ports by the rank). For what holds whatever the engine: a replica's
#: expansion, a rank completed at start. What an engine has besides is judged with its
#: own rules.
ANY_ENGINE = LayoutRules(
    balancing=frozenset(DP_BALANCING),
    expert_parallel=True,
    coordination=("leader",),
    kv_events_per_rank=True,
    # Kept for a binding publisher's replay endpoints, whichever engine: see the spec's rule.
    kv_events_replay=True,
    # The widest any engine derives (vLLM's NIXL side channel), on both roles.
    kv_transfer=KVTransferPorts(),
)


@attrs.frozen(kw_only=True)
class NodeInput:
    """What one node brings to the layout: where it is, its ports, and its GPUs."""

    #: Its management address; empty when the scheduler gives it only at start.
    addr: str = ""
    #: The HTTP port of its first API server; a node's further API servers take the next ones.
    http_port: int = 0
    #: The base port its KV-cache event publishers take; 0 publishes none.
    kv_events_port: int = 0
    #: Whether its publishers bind (``kv_events_mode`` ``bind``): each then also binds a
    #: replay endpoint, after every rank's publisher (:func:`kv_events_replay_base`).
    kv_events_replay: bool = False
    #: The base port of its KV transfer's listeners (:attr:`LayoutRules.kv_transfer`); 0 for none.
    kv_transfer_port: int = 0
    #: The role of the instance it runs (``aggregated``, ``prefill``, ``decode``): whether,
    #: and which, KV-transfer listeners it has.
    role: str = ""
    #: Its GPUs, as nvidia-smi numbers them; empty when the node does not list them,
    #: and positions 0, 1, ... stand for them.
    gpus: tuple[int, ...] = ()


@attrs.frozen
class Listener:
    """A port a process listens on: ``count`` ports from ``port``, one unless the engine derives a range."""

    name: str
    port: int
    count: int = 1

    @property
    def last(self) -> int:
        """The highest port of the range."""
        return self.port + self.count - 1

    def __str__(self) -> str:
        ports = str(self.port) if self.count == 1 else f"{self.port}-{self.last}"
        return f"{self.name} {ports}"


@attrs.frozen
class Dial:
    """An address and port a process connects to: a listener of another process of the replica."""

    name: str
    node: int
    addr: str
    port: int

    def __str__(self) -> str:
        return f"{self.name} -> node {self.node} {self.addr or '?'}:{self.port}"


@attrs.frozen(kw_only=True)
class ProcessLayout:
    """One process of the replica: one engine command line, started by one shard."""

    node: int
    #: Its index among its node's processes.
    index: int
    role: str
    #: The data-parallel ranks it hosts, in order; ``(0,)`` without data parallel.
    dp_ranks: tuple[int, ...]
    #: The GPUs it uses, as the node numbers them.
    gpus: tuple[int, ...]
    listens: tuple[Listener, ...] = ()
    dials: tuple[Dial, ...] = ()
    #: Ports it does not listen on that the engine requires free on its node at start
    #: (:attr:`Coordination.every_node`): another listener of the host there is a clash.
    reserves: tuple[Listener, ...] = ()

    @property
    def dp_start(self) -> int:
        """Its first data-parallel rank (vLLM's ``--data-parallel-start-rank``, ``--data-parallel-rank``)."""
        return self.dp_ranks[0]

    def port(self, name: str) -> int:
        """The first port of its listener ``name``; 0 when it has none."""
        return next((listener.port for listener in self.listens if listener.name == name), 0)

    def dialed(self, name: str) -> Dial | None:
        """What it dials for ``name``; None when it dials nothing by that name."""
        return next((dial for dial in self.dials if dial.name == name), None)


@attrs.frozen(kw_only=True)
class NodeLayout:
    """One node: its address and its processes."""

    index: int
    addr: str
    processes: tuple[ProcessLayout, ...]


@attrs.frozen(kw_only=True)
class Layout:
    """A whole replica: the parallelism it was laid out for and every node's processes."""

    tp: int
    pp: int
    dp: int
    #: Data-parallel ranks per node.
    dp_local: int
    balancing: str
    expert_parallel: bool
    nodes: tuple[NodeLayout, ...]

    def processes(self) -> Iterator[ProcessLayout]:
        """Every process, node by node."""
        for node in self.nodes:
            yield from node.processes

    def process(self, node: int, dp_rank: int = 0) -> ProcessLayout:
        """The process of ``node`` that hosts ``dp_rank`` (its first process when none does).

        :raises IndexError: for a node the layout does not have.
        """
        processes = self.nodes[node].processes
        return next((p for p in processes if dp_rank in p.dp_ranks), processes[0])


#: A ZMQ TCP endpoint as a consumer dials it: ``tcp://HOST:PORT``, an IPv6 host in brackets.
_ENDPOINT = re.compile(r"tcp://(\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9.-]{1,253}):([0-9]{1,5})")


@attrs.frozen(kw_only=True)
class KVEventSource:
    """One rank's KV-cache events, as a subscriber (a router, an indexer) reaches them.

    :ivar rank: The data-parallel rank that publishes (its batches carry it); 0 without
        data parallel.
    :ivar endpoint: The ZMQ endpoint its publisher binds, as a subscriber connects to it
        (what ``vllm-router --kv-event-source URL=ENDPOINT`` takes).
    :ivar replay: The endpoint where a subscriber that joined late asks for the batches it
        missed (``--kv-event-replay-source``); empty when the engine serves no replay.
    """

    rank: int
    endpoint: str
    replay: str = ""


def endpoint_problem(text: str) -> str | None:
    """Why ``text`` is not a ``tcp://HOST:PORT`` endpoint with a port in 1-65535; None if it is."""
    found = _ENDPOINT.fullmatch(text)
    if found is None or not 1 <= int(found.group(2)) <= 65535:
        return f"expected tcp://HOST:PORT with a port in 1-65535, got {text[:80]!r}"
    return None
