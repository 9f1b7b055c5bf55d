"""The shard spec rules every ``commands`` call passes through, each naming the field it breaks."""

from __future__ import annotations

import functools
import ipaddress
import re
import typing
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from enginekit.base.text import has_unsafe, unsafe_text
from enginekit.spec.convert import unstructure
from enginekit.spec.model import (
    AGGREGATED,
    KV_EVENTS_BIND,
    KV_EVENTS_MODES,
    MAX_GPU_INDEX,
    MAX_KV_CACHE_MIB,
    MAX_NODES,
    MAX_THREADS,
    ROLES,
    Profile,
    ShardSpec,
    is_mig,
)

# nvidia-smi prints the prefixes upper case; either case is read the same, here and by
# every rule that asks "is this a MIG instance?" (enginekit.spec.model.is_mig). Patterns
# are kept as text and compiled by re's own cache when a spec first has such a field:
# compiling them all was a noticeable part of starting a command.
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_MIG = rf"[Mm][Ii][Gg]-(?:{_UUID}|[Gg][Pp][Uu]-{_UUID}/\d{{1,3}}/\d{{1,3}})\Z"
_GPU = rf"[Gg][Pp][Uu]-{_UUID}\Z"
_HCA = r"[A-Za-z0-9][A-Za-z0-9_.-]*(?::\d{1,3})?\Z"
_IFNAME = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,14}\Z"
_HOSTNAME = (
    r"(?=.{1,253}\Z)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?\Z"
)
#: The characters of base64, base64url and JWT keys: none is special to a shell, to
#: shlex quoting or to a URL, so a masked plan never shows part of a key split by quoting.
_KEY_CHARACTERS = r"[A-Za-z0-9._~+/=:-]+"
MAX_API_KEY = 4096
#: Shorter keys are guessable, and short ones such as ``serve`` or ``8000`` also occur in
#: every command line, where masking them would garble the plan.
MIN_API_KEY = 16
#: A RoCE GID index is an 8-bit field of the address vector NCCL builds.
MAX_GID_INDEX = 255
#: More devices and adapters than any node has.
MAX_DEVICES = 1024
MAX_HCAS = 64
#: A KV connector's name as the routers and engines spell it (``nixl``, ``mooncake``).
_CONNECTOR = r"[a-z][a-z0-9_-]{0,31}\Z"


def check_spec(spec: ShardSpec) -> list[str]:
    """Return every rule ``spec`` breaks, as ``shard spec: field: problem`` sentences."""
    return [f"shard spec {spec.shard_id or '(unnamed)'}: {p}" for p in _problems(spec)]


def _problems(spec: ShardSpec) -> Iterator[str]:
    oversized = [
        f"{field}: more than {limit} entries ({len(items)})"
        for field, items, limit in (
            ("gpu_indices", spec.gpu_indices, MAX_DEVICES),
            ("gpu_uuids", spec.gpu_uuids, MAX_DEVICES),
            ("hcas", spec.hcas, MAX_HCAS),
        )
        if len(items) > limit
    ]
    if oversized:
        # Nothing else is checked: every other rule would scan, and echo, the oversized list.
        yield from oversized
        return
    texts: list[str] = []
    _collect(spec, texts)
    if has_unsafe("".join(texts)):  # the common case needs no paths
        yield from _strings(unstructure(spec), "")
    yield from _port("http_port", spec.http_port)
    if spec.kv_events_port:
        yield from _port("kv_events_port", spec.kv_events_port)
    if spec.kv_events_mode not in KV_EVENTS_MODES:
        shown = repr(spec.kv_events_mode)[:40]
        yield f"kv_events_mode: expected {' or '.join(map(repr, KV_EVENTS_MODES))}, got {shown}"
    elif spec.kv_events_mode == KV_EVENTS_BIND and 0 < spec.kv_events_port <= 65535:
        yield from _kv_event_ports(spec)
        if spec.profile.kv_events:
            yield from _kv_event_host(spec)
    yield from _role(spec)
    if spec.leader_http_port:
        yield from _port("leader_http_port", spec.leader_http_port)
    if not 1 <= spec.nnodes <= MAX_NODES:
        yield f"nnodes: expected 1-{MAX_NODES}, got {spec.nnodes}"
    elif not 0 <= spec.rank < spec.nnodes:
        yield f"rank: must be in 0..{spec.nnodes - 1} for {spec.nnodes} node(s), got {spec.rank}"
    dp = spec.profile.data_parallel
    if not 0 <= spec.dp_rank < dp:
        yield f"dp_rank: must be in 0..{dp - 1} for data parallel {dp}, got {spec.dp_rank}"
    if spec.nnodes != spec.profile.node_count and 1 <= spec.nnodes <= MAX_NODES:
        yield (
            f"nnodes: the shard says {spec.nnodes} node(s), its profile "
            f"{spec.profile.name!r} says {spec.profile.node_count}"
        )
    if spec.is_multi_node():
        if not spec.leader_addr:
            yield "leader_addr: required when the replica spans more than one node"
        yield from _port("leader_port", spec.leader_port)
    elif spec.leader_port:
        yield from _port("leader_port", spec.leader_port)
    if spec.leader_addr and not is_host(spec.leader_addr):
        yield f"leader_addr: expected a host name or IP address, got {spec.leader_addr!r}"
    if spec.bind_addr and not is_host(spec.bind_addr):
        yield f"bind_addr: expected a host name or IP address, got {spec.bind_addr!r}"
    yield from _devices(spec)
    if len(set(spec.hcas)) != len(spec.hcas):
        twice = sorted(hca for hca, count in Counter(spec.hcas).items() if count > 1)
        yield f"hcas: listed twice: {twice[:8]}"
    for hca in spec.hcas:
        if not re.match(_HCA, hca):
            yield f"hcas: expected an adapter name with an optional :port, got {hca!r}"
    if spec.mgmt_interface and not re.match(_IFNAME, spec.mgmt_interface):
        yield (
            f"mgmt_interface: expected an interface name of at most 15 letters, digits, "
            f"'.', '_' or '-', got {spec.mgmt_interface!r}"
        )
    if spec.gid_index is not None and not 0 <= spec.gid_index <= MAX_GID_INDEX:
        yield f"gid_index: expected a GID table index in 0-{MAX_GID_INDEX}, got {spec.gid_index}"
    if spec.gid_index is not None and not spec.hcas:
        yield "gid_index: set, but the shard has no HCAs for it to apply to"
    if not 0 <= spec.threads <= MAX_THREADS:
        yield f"threads: expected 0-{MAX_THREADS} cores, got {spec.threads}"
    if not 0 <= spec.kv_cache_mib <= MAX_KV_CACHE_MIB:
        yield f"kv_cache_mib: expected 0-{MAX_KV_CACHE_MIB} MiB, got {spec.kv_cache_mib}"
    yield from _api_key(spec.api_key)


@functools.cache
def _text_fields(cls: type) -> tuple[tuple[str, str], ...]:
    """The fields of ``cls`` that hold strings, and how: once per class."""
    kinds = []
    for field in attrs.fields(attrs.resolve_types(cls)):
        tp, origin = field.type, typing.get_origin(field.type)
        args = typing.get_args(field.type)
        if field.name == "api_key":
            continue  # checked on its own, and never echoed
        if tp is str:
            kinds.append((field.name, "str"))
        elif origin is tuple and args[:1] == (str,):
            kinds.append((field.name, "strs"))
        elif origin in (Mapping, dict):
            kinds.append((field.name, "map"))
        elif attrs.has(tp):
            kinds.append((field.name, "one"))
        elif origin is tuple and args and attrs.has(args[0]):
            kinds.append((field.name, "many"))
    return tuple(kinds)


def _collect(value: Any, out: list[str]) -> None:
    """Every string inside an attrs value, keys of mappings included (but not the API key)."""
    cls: type = type(value)
    for name, kind in _text_fields(cls):
        item = getattr(value, name)
        if kind == "str":
            out.append(item)
        elif kind == "strs":
            out.extend(item)
        elif kind == "map":
            out.extend(item)
            out.extend(item.values())
        elif kind == "one":
            _collect(item, out)
        else:
            for element in item:
                _collect(element, out)


def _strings(value: object, path: str) -> Iterator[str]:
    # No NUL, control or bidi characters anywhere (see enginekit.base.text). The key's value
    # is checked on its own, and never echoed.
    if isinstance(value, str):
        problem = unsafe_text(value)
        if problem is not None and path != "api_key":
            yield f"{path}: {problem}"
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key, f"{path}.{key!r}" if path else repr(key))
            yield from _strings(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]")


def _kv_event_ports(spec: ShardSpec) -> Iterator[str]:
    """A binding publisher's ports, each rank's and then each rank's replay, clear of the shard's others."""
    first = spec.kv_events_port
    # Each data-parallel rank's publisher, then each rank's replay endpoint after them all
    # (enginekit.layout.compute.kv_events_replay_base): twice the data-parallel size.
    last = first + 2 * spec.profile.data_parallel - 1
    if last > 65535:
        yield (
            f"kv_events_port: {first} leaves no room for the ports a binding publisher takes up to "
            f"{last} (each data-parallel rank's, then each rank's replay endpoint): at most "
            f"{65536 - 2 * spec.profile.data_parallel}, or kv_events_mode 'connect'"
        )
        return
    for field, port in (("http_port", spec.http_port), ("leader_port", spec.leader_port)):
        if first <= port <= last:
            yield (
                f"{field}: {port} is one of the ports the KV-event publisher binds, {first}-{last} "
                f"(kv_events_port, each data-parallel rank's, then each rank's replay endpoint)"
            )


def _role(spec: ShardSpec) -> Iterator[str]:
    """A role named as the model names it, and the KV transfer's settings only where a role moves a cache."""
    if spec.role not in ROLES:
        yield f"role: expected one of {', '.join(map(repr, ROLES))}, got {repr(spec.role)[:40]}"
        return
    if spec.role == AGGREGATED:
        for field in ("kv_connector", "kv_transfer_port"):
            if getattr(spec, field):
                yield (
                    f"{field}: set, but role is 'aggregated': only a prefill or decode shard "
                    f"moves a KV cache (role 'prefill' or 'decode')"
                )
        return
    if listens_everywhere(spec.bind_addr) and not (spec.rank == 0 and spec.leader_addr):
        # Its side channel binds its own address and its answers name it to the other
        # instances: without one it would be loopback, which no other host reaches.
        yield (
            f"bind_addr: a {spec.role} shard is reached by the other instances at its own address "
            f"(its KV transfer's side channel binds there): give the node's address (127.0.0.1 where "
            f"every instance runs on this host)"
        )
    if spec.kv_connector and not re.match(_CONNECTOR, spec.kv_connector):
        yield (
            f"kv_connector: expected a connector's name in lower case (nixl, mooncake), "
            f"got {spec.kv_connector[:40]!r}"
        )
    if spec.kv_transfer_port:
        yield from _port("kv_transfer_port", spec.kv_transfer_port)
        if 0 < spec.kv_transfer_port <= 65535:
            yield from _kv_transfer_ports(spec)


def kv_transfer_span(profile: Profile) -> int:
    """How many ports from ``kv_transfer_port`` an instance keeps for its KV transfer, whatever the engine.

    vLLM's NIXL side channel is the widest: each data-parallel rank's workers listen on the
    base port plus the rank times the tensor-parallel size, plus their tensor-parallel rank.
    The layout of an engine that listens on fewer keeps no more free than it uses.
    """
    return profile.data_parallel * max(profile.tp, 1)


def _kv_transfer_ports(spec: ShardSpec) -> Iterator[str]:
    """The transfer's ports inside 1-65535 and clear of the shard's other ports."""
    first = spec.kv_transfer_port
    last = first + kv_transfer_span(spec.profile) - 1
    if last > 65535:
        yield (
            f"kv_transfer_port: {first} leaves no room for the {last - first + 1} port(s) the KV "
            f"transfer's side channel takes (one per tensor-parallel rank of each data-parallel "
            f"rank): at most {65536 - (last - first + 1)}"
        )
        return
    events = spec.kv_events_port
    width = 2 if spec.kv_events_mode == KV_EVENTS_BIND else 1
    others = [
        ("http_port", spec.http_port, spec.http_port),
        ("leader_port", spec.leader_port, spec.leader_port),
    ]
    if events:
        others.append(("kv_events_port", events, events + width * spec.profile.data_parallel - 1))
    for field, low, high in others:
        if low and low <= last and first <= high:
            yield (
                f"{field}: {low if low == high else f'{low}-{high}'} overlaps the KV transfer's "
                f"side channel, {first}-{last} (kv_transfer_port, one port per tensor-parallel rank "
                f"of each data-parallel rank)"
            )


def _kv_event_host(spec: ShardSpec) -> Iterator[str]:
    """A binding publisher's subscribers are sent to an IPv4 address or a host name: it listens on IPv4 only.

    vLLM, SGLang and the simulator bind ``tcp://*:PORT`` (and the replay endpoint, for an
    IPv6 shard, on ``*`` too) without ZMQ's IPV6 option, so on IPv4 addresses alone; the
    plan's ``kv_events`` send subscribers to the address of
    :func:`enginekit.layout.compute.kv_event_sources`: the shard's ``bind_addr``, else the
    leader's for the first node. An IPv6 address there is one nothing listens on, and a
    router subscribing to it routes blind without a word.
    """
    if not listens_everywhere(spec.bind_addr):
        field, host = "bind_addr", spec.bind_addr
    elif spec.rank == 0 and spec.leader_addr:
        field, host = "leader_addr", spec.leader_addr
    else:
        return
    ip = _ip(host)
    # An IPv4-mapped address (::ffff:10.0.0.7) is dialled over IPv4.
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is None:
        yield (
            f"{field}: {host} is an IPv6 address, where the plan's kv_events would send subscribers, "
            f"and a binding KV-event publisher listens on IPv4 only (tcp://*:{spec.kv_events_port} "
            f"without ZMQ's IPV6 option, as vLLM, SGLang and the simulator bind it): an IPv4 address or "
            f"a host name, or kv_events_mode 'connect'"
        )


def _port(field: str, port: int) -> Iterator[str]:
    if not 1 <= port <= 65535:
        yield f"{field}: expected a port in 1-65535, got {port}"


@functools.lru_cache(maxsize=1024)
def is_host(text: str) -> bool:
    """Whether ``text`` is a host name or an IP address, as ``bind_addr`` and ``leader_addr`` must be."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        # A last label of digits alone is no host name: resolvers read ``127.1`` and
        # ``2130706433`` as IPv4 addresses in forms Python refuses, so refuse them too.
        return bool(re.match(_HOSTNAME, text)) and not text.rstrip(".").rsplit(".", 1)[-1].isdigit()
    # ``fe80::1%eth0``: Python accepts any text as the zone; it is an interface name.
    zone = getattr(address, "scope_id", None)
    return zone is None or bool(re.match(_IFNAME, zone))


def _devices(spec: ShardSpec) -> Iterator[str]:
    if any(not 0 <= i <= MAX_GPU_INDEX for i in spec.gpu_indices):
        yield f"gpu_indices: each must be in 0-{MAX_GPU_INDEX}, got {list(spec.gpu_indices)[:16]}"
    if len(set(spec.gpu_indices)) != len(spec.gpu_indices):
        twice = sorted(index for index, count in Counter(spec.gpu_indices).items() if count > 1)
        yield f"gpu_indices: listed twice: {twice[:8]}"
    uuids = spec.gpu_uuids
    if not uuids:
        if spec.gpu_indices and len(spec.gpu_indices) != spec.profile.per_shard:
            yield (
                f"gpu_indices: profile {spec.profile.name!r} needs {spec.profile.per_shard} "
                f"GPU(s) per {_shard_unit(spec.profile)}, the shard has {len(spec.gpu_indices)}"
            )
        return
    if len({uuid.upper() for uuid in uuids}) != len(uuids):
        yield "gpu_uuids: a device is listed twice (UUIDs are compared in either case)"
    if spec.gpu_indices and len(uuids) != len(spec.gpu_indices):
        yield (
            f"gpu_uuids: names {len(uuids)} device(s) but gpu_indices has "
            f"{len(spec.gpu_indices)}; they name the same devices in the same order"
        )
    migs = [u for u in uuids if is_mig(u)]
    for uuid in uuids:
        if not (re.match(_MIG, uuid) or re.match(_GPU, uuid)):
            yield f"gpu_uuids: expected MIG-<uuid> or GPU-<uuid>, got {uuid!r}"
    if migs and len(uuids) > 1:
        # CUDA enumerates a single MIG device per process, and no ordinary GPU once any
        # MIG instance is visible: a second device would silently go unused.
        yield (
            f"gpu_uuids: a shard on MIG gets exactly one instance (CUDA enumerates one MIG "
            f"device per process), got {len(uuids)} devices"
        )
    if migs and spec.profile.per_shard != 1:
        yield (
            f"gpu_uuids: profile {spec.profile.name!r} needs {spec.profile.per_shard} GPUs per "
            f"{_shard_unit(spec.profile)}, but a MIG shard has one instance"
        )


def _shard_unit(profile: Profile) -> str:
    return "rank" if profile.per_shard != profile.per_node else "node"


def key_problems(key: str) -> list[str]:
    """What is wrong with an API key (``api_key: …``, never showing it); none for no key."""
    return list(_api_key(key))


def _api_key(key: str) -> Iterator[str]:
    # No message here shows the key, or any part of it.
    if not key:
        return
    if len(key) > MAX_API_KEY:
        yield f"api_key: longer than {MAX_API_KEY} characters"
    elif len(key) < MIN_API_KEY:
        yield f"api_key: shorter than {MIN_API_KEY} characters, so guessable (the value is not shown)"
    if not re.fullmatch(_KEY_CHARACTERS, key):
        yield (
            "api_key: must be ASCII letters, digits and . _ ~ + / = : - only, as base64 and JWT "
            "keys are (the value is not shown)"
        )
    elif key.startswith("-"):
        yield "api_key: must not start with '-', where an engine's parser would read it as a flag"


def listens_everywhere(bind_addr: str) -> bool:
    """Whether ``bind_addr`` listens on every address (empty, ``0.0.0.0``, ``::`` in any spelling)."""
    ip = _ip(bind_addr)
    return not bind_addr or (ip is not None and ip.is_unspecified)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this host's loopback: ``localhost``, or a loopback address in any spelling.

    IPv4-mapped ones (``::ffff:127.0.0.1``) included. A name that merely starts with ``127.``
    resolves wherever its owner likes, so it is none.
    """
    if host.lower().rstrip(".") == "localhost":
        return True
    ip = _ip(host)
    if ip is None:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return bool(ip.is_loopback or (mapped is not None and mapped.is_loopback))


def same_ip(one: str, other: str) -> bool | None:
    """Whether two addresses are one IP address, however spelled; None when either is a name.

    Names are not resolved here (nothing is read while a plan is built): a headless
    Service's name and its pod's IP may well be one host, and only the network knows.
    """
    first, second = _ip(one), _ip(other)
    return None if first is None or second is None else first == second


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None
