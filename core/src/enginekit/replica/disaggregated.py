"""A disaggregated replica: prefill and decode instances of one model, their KV transfer and their router.

Each instance is a replica of its role's profile (:class:`~enginekit.replica.spec.ReplicaSpec`),
expanded and checked as one; what holds across instances is checked here: one model, one
engine, ports that no two instances on a host share, GPUs that no two instances on a host
share, and the router's ports clear of them all.

Every port comes from the layout. An instance that says no HTTP port takes its role's
``http_port`` plus its index in the role; the KV transfer's side channels are laid one
after another from ``transfer.port``, prefill instances first, each taking the ports its
engine derives from its base (:func:`enginekit.spec.rules.kv_transfer_span`), so two
instances never derive the same port wherever they run.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from enginekit.base.errors import SpecError
from enginekit.base.secrets import MASK
from enginekit.layout.compute import layout
from enginekit.layout.model import ANY_ENGINE, MAX_PORT, MIN_PORT, Layout, LayoutRules, Listener
from enginekit.replica.spec import (
    Placement,
    ReplicaNode,
    ReplicaSpec,
    _node_inputs,
    expand,
    replica_problems,
)
from enginekit.spec.convert import structure
from enginekit.spec.model import DECODE, KV_EVENTS_BIND, PREFILL, Profile, ShardSpec
from enginekit.spec.rules import is_host, is_loopback, kv_transfer_span

#: The roles of a disaggregated replica, in the order its instances are laid out.
DISAGGREGATED_ROLES = (PREFILL, DECODE)
#: What either router takes as a policy in front of prefill and decode instances (each
#: router's own are judged when its command is built): vllm-router's and sglang-router's.
ROUTER_POLICIES = (
    "round_robin",
    "random",
    "cache_aware",
    "power_of_two",
    "consistent_hash",
    "sticky_least_loaded",
    "manual",
)


@attrs.frozen(kw_only=True)
class Instance:
    """One instance of a role: a replica of the role's profile on its nodes."""

    #: Every node's placement, where the node itself does not say.
    placement: Placement = attrs.field(factory=Placement)
    #: One entry per node of the role's profile, in rank order; left out on one node.
    nodes: tuple[ReplicaNode, ...] = ()
    #: Its leader's HTTP port; unset takes the role's ``http_port`` plus its index.
    http_port: int | None = None
    #: The port its leader takes the other ranks' join on; required above one node.
    leader_port: int = 0


@attrs.frozen(kw_only=True)
class Role:
    """The instances of one role: its profile (its parallelism), their HTTP ports and their placements."""

    profile: Profile
    #: The first instance's HTTP port; the next instances take the ports after it.
    http_port: int = 0
    instances: tuple[Instance, ...] = (Instance(),)


@attrs.frozen(kw_only=True)
class Transfer:
    """How the instances move the KV cache: the connector, and where the side channels start."""

    #: ``nixl`` (vLLM's NixlConnector, SGLang's nixl backend), ``mooncake``…; empty is the
    #: engine's default.
    connector: str = ""
    #: The first instance's side-channel base port; each next instance's starts after the
    #: ports the one before derives from its base.
    port: int = 0


@attrs.frozen(kw_only=True)
class Router:
    """The router in front of the instances: where clients reach the replica."""

    #: The node it runs on; empty: the first prefill instance's first node.
    addr: str = ""
    #: The address it binds; empty: loopback (a gateway in front reaches it there, and
    #: vllm-router's PD mode checks no client's key: binding wider is a choice to make).
    host: str = ""
    port: int = 0
    #: Its Prometheus port, on ``host``.
    metrics_port: int = 0
    #: Its policy for both roles; empty is the router's default.
    policy: str = ""


@attrs.frozen(kw_only=True)
class DisaggregatedSpec:
    """A replica served by prefill and decode instances behind a router."""

    replica_id: str = ""
    #: What every instance demands of every request, given to each instance's API server.
    api_key: str = attrs.field(default="", repr=False)
    #: Who listens for the instances' KV-cache events (see :attr:`enginekit.ShardSpec.kv_events_mode`).
    kv_events_mode: str = KV_EVENTS_BIND
    pool: str = ""
    profile_fp: str = ""
    transfer: Transfer = Transfer()
    router: Router = Router()
    prefill: Role
    decode: Role


@attrs.frozen(kw_only=True)
class InstanceSpec:
    """One instance as its ranks are built: its role, its index in the role, and its replica spec."""

    role: str
    index: int
    replica: ReplicaSpec

    @property
    def where(self) -> str:
        """How a problem names it: ``prefill.instances[1]``."""
        return f"{self.role}.instances[{self.index}]"


def load_disaggregated(
    source: str | os.PathLike[str] | Mapping[str, Any], *, lenient: bool = False, name: str = ""
) -> DisaggregatedSpec:
    """Load a disaggregated replica spec (TOML or JSON), its shape and types checked strictly.

    ``source`` is read as :func:`enginekit.load_spec` reads it. The rules across instances
    are :func:`disaggregated_problems`'.

    :raises SpecError: listing every problem, each naming its field.
    """
    from enginekit.spec.documents import read_document

    raw = read_document(source, name or "disaggregated")
    try:
        spec, _ = structure(raw, DisaggregatedSpec, path="disaggregated", lenient=lenient)
    except SpecError as exc:
        if not name:
            raise
        raise SpecError([f"{name}: {p}" for p in exc.problems]) from None
    if spec.api_key == MASK:
        raise SpecError([f"disaggregated.api_key: holds the mask {MASK!r}, not a key"])
    return spec


def is_disaggregated(raw: Mapping[str, Any]) -> bool:
    """Whether a parsed document is a disaggregated replica spec: it has a prefill and a decode table."""
    return isinstance(raw.get("prefill"), Mapping) and isinstance(raw.get("decode"), Mapping)


def instances(spec: DisaggregatedSpec) -> tuple[InstanceSpec, ...]:
    """Every instance's replica spec, prefill instances first, with the ports the layout gives them; pure."""
    out = []
    transfer = spec.transfer.port
    for role in DISAGGREGATED_ROLES:
        group: Role = getattr(spec, role)
        span = kv_transfer_span(group.profile)
        for i, instance in enumerate(group.instances):
            http = instance.http_port if instance.http_port is not None else group.http_port + i
            replica = ReplicaSpec(
                replica_id=f"{spec.replica_id}-{role}-{i}" if spec.replica_id else "",
                profile=group.profile,
                leader_port=instance.leader_port,
                http_port=http if group.http_port or instance.http_port is not None else 0,
                api_key=spec.api_key,
                kv_events_mode=spec.kv_events_mode,
                role=role,
                kv_connector=spec.transfer.connector,
                kv_transfer_port=transfer,
                pool=spec.pool,
                profile_fp=spec.profile_fp,
                placement=instance.placement,
                nodes=instance.nodes,
            )
            out.append(InstanceSpec(role=role, index=i, replica=replica))
            if transfer:
                transfer += span
    return tuple(out)


def disaggregated_problems(spec: DisaggregatedSpec) -> list[str]:
    """Every rule the disaggregated replica breaks, each naming its field; none is fine.

    Each instance is judged as a replica (its problems prefixed with the instance), then
    what spans instances: one model and engine, the transfer's base port, and every host's
    ports and GPUs, the router's included.
    """
    problems = list(_whole(spec))
    laid = instances(spec)
    for instance in laid:
        problems += [f"{instance.where}: {p}" for p in replica_problems(instance.replica)]
    if problems:
        return problems  # a host's ports, from instances of the wrong shape, say nothing more useful
    return _host_problems(spec, laid)


def expand_disaggregated(spec: DisaggregatedSpec) -> tuple[tuple[InstanceSpec, tuple[ShardSpec, ...]], ...]:
    """Each instance and its ranks' shard specs, prefill instances first; pure.

    :raises SpecError: listing every problem :func:`disaggregated_problems` finds.
    """
    problems = disaggregated_problems(spec)
    if problems:
        raise SpecError(problems)
    return tuple((instance, expand(instance.replica)) for instance in instances(spec))


def disaggregated_layouts(
    spec: DisaggregatedSpec, rules: Mapping[str, LayoutRules] | None = None
) -> tuple[tuple[InstanceSpec, Layout], ...]:
    """Each instance's layout under its engine's rules (by role; any engine's where not given); pure.

    :raises SpecError: listing every problem :func:`disaggregated_problems` finds.
    """
    problems = disaggregated_problems(spec)
    if problems:
        raise SpecError(problems)
    given = rules or {}
    return tuple(
        (instance, _layout_of(instance.replica, given.get(instance.role, ANY_ENGINE)))
        for instance in instances(spec)
    )


def router_host(spec: DisaggregatedSpec) -> tuple[str, str]:
    """Where the router runs (its node's address) and what it binds (loopback unless ``router.host``)."""
    first = spec.prefill.instances[0] if spec.prefill.instances else Instance()
    addr = spec.router.addr or (first.nodes[0].addr if first.nodes else "")
    return addr, spec.router.host or "127.0.0.1"


def _layout_of(replica: ReplicaSpec, rules: LayoutRules) -> Layout:
    return layout(
        replica.profile, _node_inputs(replica), leader_port=replica.leader_port, rules=rules, checked=False
    )


def _whole(spec: DisaggregatedSpec) -> Iterator[str]:
    prefill, decode = spec.prefill.profile, spec.decode.profile
    for role in DISAGGREGATED_ROLES:
        group: Role = getattr(spec, role)
        if not group.instances:
            yield f"{role}.instances: a disaggregated replica needs at least one {role} instance"
        if group.http_port and not MIN_PORT <= group.http_port + max(len(group.instances) - 1, 0) <= MAX_PORT:
            yield (
                f"{role}.http_port: expected a port in {MIN_PORT}-{MAX_PORT} for every instance, "
                f"got {group.http_port}"
            )
    if prefill.engine != decode.engine:
        yield (
            f"decode.profile.engine: {decode.engine!r}, but prefill runs {prefill.engine!r}: "
            f"the instances hand each other their KV cache, so one engine serves both roles"
        )
    if prefill.model_path != decode.model_path:
        yield (
            f"decode.profile.model_path: {decode.model_path!r}, but prefill loads {prefill.model_path!r}: "
            f"a decode instance continues from the prefill's KV cache, so both load one model"
        )
    if prefill.model_name() != decode.model_name():
        yield (
            f"decode.profile.served_model_name: {decode.model_name()!r}, but prefill serves "
            f"{prefill.model_name()!r}: the router sends one request to both"
        )
    low, high = sorted((max(prefill.tp, 1), max(decode.tp, 1)))
    if high % low:
        # vLLM's NIXL (from 0.14.0) and SGLang map each decode worker's heads to prefill
        # workers only when one tensor-parallel size divides the other.
        yield (
            f"decode.profile.tp: {decode.tp}, and prefill's is {prefill.tp}: the KV cache moves "
            f"between them only when one tensor-parallel size divides the other"
        )
    if not MIN_PORT <= spec.transfer.port <= MAX_PORT:
        yield (
            f"transfer.port: expected a port in {MIN_PORT}-{MAX_PORT}: the side channels' first port, "
            f"which every instance's derives from (got {spec.transfer.port})"
        )
    else:
        total = sum(
            kv_transfer_span(getattr(spec, role).profile) * len(getattr(spec, role).instances)
            for role in DISAGGREGATED_ROLES
        )
        if total > MAX_PORT:
            yield (
                f"transfer.port: the instances take {total} side-channel ports (each dp x tp), more "
                f"than a host has"
            )
        elif spec.transfer.port + total - 1 > MAX_PORT:
            yield (
                f"transfer.port: {spec.transfer.port} leaves no room for the {total} side-channel port(s) "
                f"the instances take after it (each dp x tp): at most {MAX_PORT + 1 - total}"
            )
    router = spec.router
    if not MIN_PORT <= router.port <= MAX_PORT:
        yield (
            f"router.port: expected a port in {MIN_PORT}-{MAX_PORT}: where clients reach the replica, "
            f"got {router.port}"
        )
    if router.metrics_port and not MIN_PORT <= router.metrics_port <= MAX_PORT:
        yield f"router.metrics_port: expected a port in {MIN_PORT}-{MAX_PORT}, got {router.metrics_port}"
    elif router.metrics_port and router.metrics_port == router.port:
        yield f"router.metrics_port: {router.metrics_port} is the router's own port"
    for field in ("addr", "host"):
        value = getattr(router, field)
        if value and not is_host(value):
            yield f"router.{field}: expected a host name or IP address, got {value[:40]!r}"
    if router.policy and router.policy not in ROUTER_POLICIES:
        yield f"router.policy: expected one of {', '.join(ROUTER_POLICIES)}, got {router.policy[:40]!r}"


def _host_problems(spec: DisaggregatedSpec, laid: tuple[InstanceSpec, ...]) -> list[str]:
    """Two instances, or an instance and the router, on one port or one GPU of one host.

    An instance's own ports were judged with it; here every listener of every instance is
    placed on its node's host (:func:`_host`: one name however the address is spelled), and
    the router's on its own.
    """
    held: dict[str, list[tuple[Listener, str]]] = {}
    gpus: dict[tuple[str, int], str] = {}
    problems = []
    for instance in laid:
        replica = instance.replica
        nodes = replica.nodes or (ReplicaNode(),)
        for node_layout in _layout_of(replica, ANY_ENGINE).nodes:
            node = nodes[node_layout.index]
            host = _host(node.addr)
            where = f"{instance.where} node {node_layout.index}"
            for process in node_layout.processes:
                for listener in (*process.listens, *process.reserves):
                    held.setdefault(host, []).append((listener, f"{where}'s {listener}"))
                for gpu in process.gpus if _lists_gpus(node, replica) else ():
                    other = gpus.setdefault((host, gpu), where)
                    if other != where:
                        problems.append(f"{where}: GPU {gpu} is {other}'s too, on the same host ({host})")
    addr, _ = router_host(spec)
    router_at = _host(addr)
    if router_at != LOCAL and LOCAL in held:
        # It would be told the instances' loopback URLs, and reach its own host's.
        problems.append(
            f"router.addr: {addr} is another host than the instances at a loopback address, which a "
            f"router there cannot reach: run it on their host, or give them addresses it reaches"
        )
    for name, port in (("router.port", spec.router.port), ("router.metrics_port", spec.router.metrics_port)):
        if port:
            held.setdefault(router_at, []).append((Listener(name, port), name))
    for host, listeners in held.items():
        problems += _clashes(host, listeners)
    return problems


#: How a node with no address, or a loopback one, is named: the one local host.
LOCAL = "this host"


def _host(addr: str) -> str:
    """One name per host however its address is spelled: no address, ``localhost`` and loopback are this host.

    An IP address is written as Python writes it (``0:0::1`` is ``::1``); a name other than
    ``localhost`` is kept as given, unresolved (nothing is read while a plan is built).
    """
    if not addr or is_loopback(addr):
        return LOCAL
    try:
        address = ipaddress.ip_address(addr)
    except ValueError:
        return addr.lower().rstrip(".")
    return str(getattr(address, "ipv4_mapped", None) or address)


def _lists_gpus(node: ReplicaNode, replica: ReplicaSpec) -> bool:
    """Whether the node's GPUs are named (its own or the instance's placement): unnamed ones are stand-ins."""
    return bool(node.gpu_indices if node.gpu_indices is not None else replica.placement.gpu_indices)


def _clashes(host: str, listeners: list[tuple[Listener, str]]) -> Iterator[str]:
    """Each pair of one host's listeners whose ports overlap, in the order they were laid out."""
    ordered = sorted(enumerate(listeners), key=lambda entry: (entry[1][0].port, entry[0]))
    open_: list[tuple[int, tuple[Listener, str]]] = []
    found = []
    for seq, (listener, said) in ordered:
        open_ = [(s, (other, o)) for s, (other, o) in open_ if other.last >= listener.port]
        for s, (_, other_said) in open_:
            first, second = sorted(((s, other_said), (seq, said)))
            found.append((second[0], first[0], f"{second[1]} overlaps {first[1]} on the same host ({host})"))
        open_.append((seq, (listener, said)))
    for _, _, message in sorted(found):
        yield message
