"""Valid profiles and shard specs for tests, one factory per launch shape."""

from __future__ import annotations

from typing import Any

import attrs

from enginekit.spec.model import Adapter, Profile, ShardSpec

#: The launch shapes the kit knows, each with a factory here and a strategy in
#: :mod:`enginekit.testing.strategies`.
SHAPES: tuple[str, ...] = ("single", "multi_node", "mig", "cpu", "lora", "kv_events")

#: The engine name a profile gets when the test does not say.
DEFAULT_ENGINE = "test"

#: A key the spec rules accept (16+ characters of base64/JWT's alphabet, not starting
#: with ``-``) that looks random, so a plugin that echoes it anywhere is caught by a
#: plain substring search; fixed, so two plans of one shard compare equal.
TEST_API_KEY = "ekt.Q7vXr2Lm9ZpK4wTb8NcYs3Hd"

#: A MIG instance as nvidia-smi names it (``MIG-<uuid>``).
TEST_MIG_UUID = "MIG-5c1e6a2e-8f3b-5d7a-9c41-2b7e0f6d3a19"

#: Placement numbers MIG instances from 1000: indices no CUDA process knows.
MIG_INDEX_BASE = 1000


def make_profile(**overrides: Any) -> Profile:
    """A valid single-GPU profile (engine ``test`` unless ``engine=`` says); ``overrides`` are its fields."""
    fields: dict[str, Any] = {
        "name": "conformance",
        "engine": DEFAULT_ENGINE,
        "model_path": "/models/llama-3-8b-instruct",
        "served_model_name": "llama-3-8b",
        "tp": 1,
    }
    fields.update(overrides)
    return Profile(**fields)


def make_shard(profile: Profile | None = None, *, engine: str | None = None, **overrides: Any) -> ShardSpec:
    """A valid shard of ``profile`` (default: :func:`make_profile`); ``overrides`` are ShardSpec fields.

    The defaults follow the profile: one GPU per tensor-parallel rank, and for a
    multi-node profile the leader (rank 0) with an IPv4 rendezvous on the management
    network. ``engine`` names the engine of the default profile.
    """
    if profile is None:
        profile = make_profile() if engine is None else make_profile(engine=engine)
    elif engine is not None and engine != profile.engine:
        raise ValueError(f"make_shard: engine {engine!r} given with a profile for {profile.engine!r}")
    fields: dict[str, Any] = {
        "replica_id": "r1",
        "shard_id": "r1-0",
        "rank": 0,
        "nnodes": profile.node_count,
        "gpu_indices": tuple(range(profile.per_node)),
        "http_port": 8000,
        "bind_addr": "10.0.0.1",
        "api_key": TEST_API_KEY,
    }
    if profile.node_count > 1:
        fields.update(leader_addr="10.0.0.1", leader_port=29500, mgmt_interface="eth0")
    fields.update(overrides)
    return ShardSpec(profile=profile, **fields)


def multi_node_profile(engine: str = DEFAULT_ENGINE, *, nnodes: int = 2, gpus_per_node: int = 1) -> Profile:
    """A profile whose tensor-parallel group spans ``nnodes`` nodes of ``gpus_per_node`` GPUs."""
    return make_profile(engine=engine, nodes=nnodes, gpus_per_node=gpus_per_node, tp=nnodes * gpus_per_node)


def make_multi_node(
    profile: Profile | None = None,
    *,
    engine: str = DEFAULT_ENGINE,
    rank: int = 0,
    nnodes: int = 2,
    ipv6: bool = False,
    **overrides: Any,
) -> ShardSpec:
    """Rank ``rank`` of a replica over ``nnodes`` nodes on RoCE: the leader at rank 0, a worker above.

    The leader listens on the rendezvous address; every node binds its own management
    address (``10.0.0.<rank+1>``, or ``fd00::<rank+1>`` with ``ipv6``).
    """
    profile = profile or multi_node_profile(engine, nnodes=nnodes)
    leader, own = ("fd00::1", f"fd00::{rank + 1}") if ipv6 else ("10.0.0.1", f"10.0.0.{rank + 1}")
    fields: dict[str, Any] = {
        "shard_id": f"r1-{rank}",
        "rank": rank,
        "nnodes": profile.node_count,
        "leader_addr": leader,
        "leader_port": 29500,
        "bind_addr": own,
        "hcas": ("mlx5_0", "mlx5_1"),
        "gid_index": 3,
        "mgmt_interface": "eth0",
        "fabric": "roce:fabric-a",
    }
    fields.update(overrides)
    return make_shard(profile, **fields)


def make_replica(
    profile: Profile | None = None, *, engine: str = DEFAULT_ENGINE, nnodes: int = 2, **overrides: Any
) -> list[ShardSpec]:
    """Every rank of one multi-node replica, leader first."""
    profile = profile or multi_node_profile(engine, nnodes=nnodes)
    return [make_multi_node(profile, rank=rank, **overrides) for rank in range(profile.node_count)]


def make_mig(profile: Profile | None = None, *, engine: str = DEFAULT_ENGINE, **overrides: Any) -> ShardSpec:
    """A shard on one MIG instance: named by its ``MIG-`` UUID, its placement index 1000 and up."""
    fields: dict[str, Any] = {"gpu_indices": (MIG_INDEX_BASE,), "gpu_uuids": (TEST_MIG_UUID,)}
    fields.update(overrides)
    return make_shard(profile or make_profile(engine=engine), **fields)


def make_cpu(profile: Profile | None = None, *, engine: str = DEFAULT_ENGINE, **overrides: Any) -> ShardSpec:
    """A shard given no GPU at all, with the cores and the KV-cache memory placement reserved for it."""
    fields: dict[str, Any] = {"gpu_indices": (), "threads": 8, "kv_cache_mib": 4096}
    fields.update(overrides)
    return make_shard(profile or make_profile(engine=engine), **fields)


def lora_adapters(count: int = 2) -> tuple[Adapter, ...]:
    """``count`` LoRA adapters with plain names, fetched to local paths."""
    return tuple(
        Adapter(name=f"lora-{i}", path=f"/var/lib/enginekit/adapters/lora-{i}") for i in range(count)
    )


def make_lora(
    profile: Profile | None = None, *, engine: str = DEFAULT_ENGINE, adapters: int = 2, **overrides: Any
) -> ShardSpec:
    """A single-node shard whose profile loads ``adapters`` LoRA adapters beside the model."""
    base = profile or make_profile(engine=engine)
    if not base.adapters:
        base = attrs.evolve(base, adapters=lora_adapters(adapters))
    return make_shard(base, **overrides)


def make_kv_events(
    profile: Profile | None = None, *, engine: str = DEFAULT_ENGINE, **overrides: Any
) -> ShardSpec:
    """A single-node shard that publishes KV-cache events to the agent's loopback port."""
    fields: dict[str, Any] = {"kv_events_port": 5557}
    fields.update(overrides)
    return make_shard(attrs.evolve(profile or make_profile(engine=engine), kv_events=True), **fields)


def example_shard(shape: str, engine: str = DEFAULT_ENGINE) -> ShardSpec:
    """The plain example of ``shape`` (one of :data:`SHAPES`) for ``engine``; multi-node: the leader."""
    makers = {
        "single": lambda: make_shard(engine=engine),
        "multi_node": lambda: make_multi_node(engine=engine),
        "mig": lambda: make_mig(engine=engine),
        "cpu": lambda: make_cpu(engine=engine),
        "lora": lambda: make_lora(engine=engine),
        "kv_events": lambda: make_kv_events(engine=engine),
    }
    if shape not in makers:
        raise ValueError(f"unknown shape {shape!r}; the shapes are {', '.join(SHAPES)}")
    return makers[shape]()


def check_shapes(shapes: object) -> frozenset[str]:
    """``shapes`` as a set of known shape names, or a ValueError naming the unknown ones."""
    if isinstance(shapes, str):
        # One name is one shape, not one per character.
        shapes = (shapes,)
    if not isinstance(shapes, frozenset | set | tuple | list):
        raise ValueError(f"shapes: expected a set of shape names, got {type(shapes).__name__}")
    unknown = sorted(str(shape) for shape in shapes if shape not in SHAPES)
    if unknown:
        raise ValueError(f"shapes: unknown {unknown}; the shapes are {', '.join(SHAPES)}")
    return frozenset(shapes)
