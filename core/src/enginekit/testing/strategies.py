"""Hypothesis strategies: valid shard specs of every launch shape, and API keys.

Every shard drawn passes :func:`enginekit.spec.rules.check_spec` and its profile
:func:`enginekit.policy.checks.validate_common`: a plugin's test can assume the core accepts
it, so whatever fails is the engine's doing. Needs ``hypothesis`` (``enginekit[testing]``).
"""

from __future__ import annotations

import operator
import string
from collections.abc import Callable, Iterable
from typing import Any

try:
    from hypothesis import strategies as st
except ImportError as exc:  # pragma: no cover - exercised in a subprocess without hypothesis
    raise ImportError(
        "enginekit.testing.strategies needs hypothesis: install it, or enginekit[testing]"
    ) from exc

from enginekit.spec.model import KV_EVENTS_BIND, KV_EVENTS_MODES, Adapter, Profile, ShardSpec
from enginekit.testing.factories import MIG_INDEX_BASE, SHAPES, check_shapes

#: The characters of base64, base64url and JWT keys: what the spec rules accept in a key.
KEY_ALPHABET = string.ascii_letters + string.digits + "._~+/=:-"
#: A key never starts with ``-``, where an engine's parser would read a flag.
_KEY_FIRST = KEY_ALPHABET.replace("-", "")

#: Paths and names clients use; fixed lists, so no generated key can be a substring of them.
_MODEL_PATHS = (
    "/models/llama-3-8b-instruct",
    "/var/lib/models/qwen2.5-7b",
    "/srv/models/mistral-7b-v0.3",
)
_SERVED_NAMES = ("", "llama-3-8b", "qwen2.5", "mistral")
#: Tuning variables in namespaces every engine opens (the core's open namespaces).
_TUNING_ENV = {
    "NCCL_DEBUG": "WARN",
    "TOKENIZERS_PARALLELISM": "false",
    "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1",
    "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
}
_INTERFACES = ("", "eth0", "bond0", "ens1f0np0")
_HCAS = ("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3:1", "ibp12s0")
#: Short ids: shorter than any key, so an id echoed in an argv never looks like the key.
_ID = string.ascii_lowercase + string.digits + "-"


def api_keys(*, min_size: int = 16, max_size: int = 64) -> st.SearchStrategy[str]:
    """Keys the spec rules accept: ``min_size`` to ``max_size`` of :data:`KEY_ALPHABET`, no leading ``-``.

    Random-looking, as real keys are: each is spelled from a hash of what Hypothesis draws,
    never from text it draws. The registry recognises a key by any twelve of its characters
    in a row, and Hypothesis seeds text with the constants of the code under test: a drawn
    ``000INEKIT_API_K`` shares a run with ``ENGINEKIT_API_KEY`` on a launcher's command line,
    and would make a valid shard look like one that leaks its key. Never holding ``--``
    either: ``3--served-model-`` beside a port ending in 3 and an option is the same.
    """
    if min_size < 1 or max_size < min_size:
        raise ValueError(f"api_keys: need 1 <= min_size <= max_size, got {min_size}, {max_size}")
    spelled = st.builds(_spelled, st.binary(max_size=16), st.integers(min_size, max_size))
    return spelled.filter(lambda key: "--" not in key)


def _spelled(seed: bytes, size: int) -> str:
    """``size`` characters of :data:`KEY_ALPHABET` from a hash of ``seed``; the first never ``-``."""
    import hashlib

    stream = b""
    counter = 0
    while len(stream) < size:
        stream += hashlib.sha256(seed + counter.to_bytes(4, "big")).digest()
        counter += 1
    first = _KEY_FIRST[stream[0] % len(_KEY_FIRST)]
    return first + "".join(KEY_ALPHABET[byte % len(KEY_ALPHABET)] for byte in stream[1:size])


def profile_names() -> st.SearchStrategy[str]:
    """Profile names as catalogs write them: a letter, then up to 11 letters, digits or ``-``."""
    return _IDENT


# Built once: a strategy is validated when first drawn from, and drawing from a fresh
# one per example costs more than the example.
_IDENT = st.builds(operator.add, st.sampled_from(string.ascii_lowercase), st.text(alphabet=_ID, max_size=11))
_IPV4 = st.ip_addresses(v=4).map(str)
_IPV6 = st.ip_addresses(v=6).map(str)
_PORT = st.integers(1024, 65535)
_TWO_PORTS = st.lists(_PORT, min_size=2, max_size=2, unique=True)
_KEY_OR_NONE = st.one_of(api_keys(), st.just(""))
_BIND = st.one_of(st.just(""), _IPV4, _IPV6)
_ENV_KEYS = st.sets(st.sampled_from(sorted(_TUNING_ENV)))
_GPU_INDICES = {
    count: st.lists(st.integers(0, 15), min_size=count, max_size=count, unique=True) for count in (1, 2, 4, 8)
}
_HCA_LISTS = st.lists(st.sampled_from(_HCAS), min_size=1, max_size=4, unique=True)
_MIG_INDEX = st.one_of(
    st.just(()),
    st.integers(MIG_INDEX_BASE, MIG_INDEX_BASE + 63).map(lambda i: (i,)),
    st.integers(0, 7).map(lambda i: (i,)),
)


def _profile(draw: st.DrawFn, engine: str, **fields: Any) -> Profile:
    """A profile with drawn names, model and tuning env; ``fields`` fix the shape's parallelism."""
    env_keys = draw(_ENV_KEYS)
    values: dict[str, Any] = {
        "name": draw(_IDENT),
        "engine": engine,
        "model_path": draw(st.sampled_from(_MODEL_PATHS)),
        "served_model_name": draw(st.sampled_from(_SERVED_NAMES)),
        "env": {key: _TUNING_ENV[key] for key in sorted(env_keys)},
    }
    values.update(fields)
    return Profile(**values)


def _shard(draw: st.DrawFn, profile: Profile, **fields: Any) -> ShardSpec:
    """A shard of ``profile`` with drawn ids, port, addresses and key; ``fields`` fix the shape."""
    values: dict[str, Any] = {
        "replica_id": draw(_IDENT),
        "shard_id": draw(_IDENT),
        "nnodes": profile.node_count,
        "http_port": draw(_PORT),
        "bind_addr": draw(_BIND),
        "mgmt_interface": draw(st.sampled_from(_INTERFACES)),
        "api_key": draw(_KEY_OR_NONE),
    }
    values.update(fields)
    return ShardSpec(profile=profile, **values)


def _gpus(draw: st.DrawFn, count: int) -> tuple[int, ...]:
    return tuple(draw(_GPU_INDICES[count]))


@st.composite
def _single(draw: st.DrawFn, engine: str) -> ShardSpec:
    tp = draw(st.sampled_from((1, 2, 4, 8)))
    # 0 is the Go agent's zero value for pp, nodes and gpus_per_node: it means the default.
    profile = _profile(
        draw,
        engine,
        tp=tp,
        pp=draw(st.sampled_from((0, 1))),
        nodes=draw(st.sampled_from((0, 1))),
        gpus_per_node=draw(st.sampled_from((0, tp))),
    )
    return _shard(draw, profile, gpu_indices=_gpus(draw, tp))


@st.composite
def _multi_node(draw: st.DrawFn, engine: str) -> ShardSpec:
    nnodes = draw(st.integers(2, 4))
    per_node = draw(st.sampled_from((1, 2, 4, 8)))
    # Tensor parallel over every GPU, or one pipeline stage per node.
    pp = draw(st.sampled_from((1, nnodes)))
    profile = _profile(draw, engine, tp=per_node * nnodes // pp, pp=pp, nodes=nnodes, gpus_per_node=per_node)
    rank = draw(st.integers(0, nnodes - 1))
    address = _IPV6 if draw(st.booleans()) else _IPV4
    leader = draw(address)
    fabric = draw(st.sampled_from(("tcp", "ib", "roce", "nvl")))
    hcas: tuple[str, ...] = ()
    if fabric != "tcp":
        hcas = tuple(draw(_HCA_LISTS))
    # Distinct: the leader listens on both at once.
    http_port, leader_port = draw(_TWO_PORTS)
    return _shard(
        draw,
        profile,
        rank=rank,
        leader_addr=leader,
        leader_port=leader_port,
        http_port=http_port,
        # Every node binds its own management address, of the leader's family.
        bind_addr=leader if rank == 0 else draw(address),
        gpu_indices=_gpus(draw, per_node),
        hcas=hcas,
        gid_index=draw(st.integers(0, 7)) if fabric == "roce" else None,
        mgmt_interface=draw(st.sampled_from(_INTERFACES[1:])),
        fabric={"tcp": "", "ib": "ib:fabric-a", "roce": "roce:fabric-b", "nvl": "nvl:domain-1"}[fabric],
    )


@st.composite
def _mig(draw: st.DrawFn, engine: str) -> ShardSpec:
    uuid = str(draw(st.uuids()))
    prefix = draw(st.sampled_from(("MIG-", "mig-")))
    # Current drivers name the instance by its own UUID; older ones by the parent GPU's,
    # with the GPU and compute instance numbers.
    legacy = draw(st.booleans())
    name = f"{prefix}GPU-{uuid}/{draw(st.integers(1, 14))}/0" if legacy else prefix + uuid
    index = draw(_MIG_INDEX)
    return _shard(draw, _profile(draw, engine, tp=1), gpu_indices=index, gpu_uuids=(name,))


@st.composite
def _cpu(draw: st.DrawFn, engine: str) -> ShardSpec:
    return _shard(
        draw,
        _profile(draw, engine, tp=1),
        gpu_indices=(),
        threads=draw(st.integers(0, 64)),
        kv_cache_mib=draw(st.integers(1, 64)) * 1024,
    )


@st.composite
def _lora(draw: st.DrawFn, engine: str) -> ShardSpec:
    names = draw(st.lists(_IDENT, min_size=1, max_size=4, unique=True))
    adapters = tuple(Adapter(name=name, path=f"/var/lib/enginekit/adapters/{name}") for name in names)
    tp = draw(st.sampled_from((1, 2)))
    profile = _profile(draw, engine, tp=tp, adapters=adapters)
    return _shard(draw, profile, gpu_indices=_gpus(draw, tp))


@st.composite
def _kv_events(draw: st.DrawFn, engine: str) -> ShardSpec:
    tp = draw(st.sampled_from((1, 2)))
    profile = _profile(draw, engine, tp=tp, kv_events=True)
    mode = draw(st.sampled_from(KV_EVENTS_MODES))
    # A binding publisher also takes the port after, for its replay endpoint.
    kv_port = draw(st.integers(1024, 65534))
    http_port = draw(_PORT.filter(lambda port: not kv_port <= port <= kv_port + 1))
    return _shard(
        draw,
        profile,
        gpu_indices=_gpus(draw, tp),
        http_port=http_port,
        kv_events_port=kv_port,
        kv_events_mode=mode,
        # A binding publisher listens on IPv4 only: subscribers are never sent to an IPv6 address.
        bind_addr=draw(_BIND if mode != KV_EVENTS_BIND else st.one_of(st.just(""), _IPV4)),
    )


_SHAPE_STRATEGIES: dict[str, Callable[[str], st.SearchStrategy[ShardSpec]]] = {
    "single": _single,
    "multi_node": _multi_node,
    "mig": _mig,
    "cpu": _cpu,
    "lora": _lora,
    "kv_events": _kv_events,
}


def shards(engine: str, shapes: Iterable[str] = SHAPES) -> st.SearchStrategy[ShardSpec]:
    """Valid shards of ``engine``'s profiles, of the given launch ``shapes`` (default: all of :data:`SHAPES`).

    - ``single``: one node, TP 1-8 on that many GPUs, Go zero values for pp/nodes/gpus_per_node;
    - ``multi_node``: 2-4 nodes, leader or worker, IPv4 or IPv6 rendezvous, TCP, InfiniBand,
      RoCE (with a GID index) or a multi-node NVLink fabric, TP or PP across the nodes;
    - ``mig``: one MIG instance by UUID (either case, current or legacy form);
    - ``cpu``: no GPU, with or without reserved cores, with the KV-cache memory placement reserved;
    - ``lora``: 1-4 adapters with plain names; ``kv_events``: KV-cache events to a port.

    Each draws a key (or none), bind address, interface and tuning env besides.
    """
    chosen = check_shapes(shapes if isinstance(shapes, str) else tuple(shapes))
    if not chosen:
        raise ValueError("shards: no shapes given")
    return st.one_of(*(_SHAPE_STRATEGIES[shape](engine) for shape in SHAPES if shape in chosen))
