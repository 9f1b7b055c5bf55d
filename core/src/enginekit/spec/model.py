"""Frozen values passed to and returned from engine hooks: profiles, shard specs, GPUs, commands."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from enginekit.base.errors import SpecError
from enginekit.base.frozen import FrozenDict, frozen
from enginekit.base.secrets import MASK
from enginekit.spec.convert import structure, unstructure
from enginekit.spec.documents import looks_like_node_config, scrubbed

#: Where an engine listens when the agent gave it no bind address.
ALL_ADDRESSES = "0.0.0.0"

#: Domain bounds, checked with the rules (a value beyond them is a mistake or an attack,
#: and some engines do work in proportion to them): parallel degrees and node counts,
#: a GPU's index (placement numbers MIG instances from 1000), CPU cores per shard.
MAX_PARALLEL = 65536
MAX_NODES = 65536
MAX_GPU_INDEX = 65535
MAX_THREADS = 65536
#: 64 TiB: more than any one node has, and small enough for every engine's own setting.
MAX_KV_CACHE_MIB = 64 * 1024 * 1024
#: Where requests enter a data-parallel replica: one API server in front of every rank,
#: one per node in front of its own ranks, or one per rank behind the site's balancer.
DP_BALANCING = ("internal", "hybrid", "external")
#: Who listens for a shard's KV-cache events (:attr:`ShardSpec.kv_events_mode`).
KV_EVENTS_BIND, KV_EVENTS_CONNECT = "bind", "connect"
KV_EVENTS_MODES = (KV_EVENTS_BIND, KV_EVENTS_CONNECT)
#: What a shard does with a request (:attr:`ShardSpec.role`): all of it, as every shard did
#: before roles; only the prompt's prefill, handing the KV cache it computed to a decode
#: instance; or only the decode, from a prefill instance's KV cache.
AGGREGATED, PREFILL, DECODE = "aggregated", "prefill", "decode"
ROLES = (AGGREGATED, PREFILL, DECODE)


def _dict(value: Mapping[str, str]) -> FrozenDict[str, str]:
    """A table field, frozen: a hook changing its profile's env would change the caller's spec."""
    return frozen(value)


def _tuple(value: Iterable[Any]) -> tuple[Any, ...]:
    """A list field, frozen: a spec changed in place after it was checked is no longer the one checked."""
    if isinstance(value, str | bytes):
        # A string is iterable too: "GPU-1" would become the devices G, P, U, -, 1.
        raise TypeError(f"expected a list, got {type(value).__name__}")
    return tuple(value)


def is_mig(uuid: str) -> bool:
    """Whether a device UUID names a MIG instance: ``MIG-…``, in either case.

    nvidia-smi prints upper case, but people copy them into lower-case systems; one
    rule, case-insensitive, for every check that asks.
    """
    return uuid[:4].upper() == "MIG-"


@attrs.frozen(kw_only=True, cache_hash=True)
class Adapter:
    """A LoRA adapter loaded beside the model.

    ``path`` is a source until the agent has fetched it, a local path after.
    """

    name: str
    path: str


@attrs.frozen(kw_only=True)
class Profile:
    """How a model runs on a GPU class, reduced to what launching needs (the catalog's profile)."""

    name: str
    engine: str
    gpu_class: str = ""
    #: Tensor parallel degree.
    tp: int = 1
    #: Pipeline parallel degree; 0, the Go agent's zero value, means 1.
    pp: int = 1
    #: How many GPUs each shard occupies; 0 means ``tp`` (single node only).
    gpus_per_node: int = 0
    #: How many nodes the replica spans; 0 means 1. Above 1, a fabric is required.
    nodes: int = 1
    #: Passed through to the engine after the arguments enginekit manages, once the
    #: engine's argument policy has accepted them.
    args: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    #: Tuning variables for the engine's environment, filtered by the site's env policy.
    #: Placement-derived keys are reserved and cannot be overridden here.
    env: Mapping[str, str] = attrs.field(factory=FrozenDict, converter=_dict)
    model_path: str = ""
    #: The name clients use, which need not match the path.
    served_model_name: str = ""
    #: In order: an adapter's index is the id requests apply it by.
    adapters: tuple[Adapter, ...] = attrs.field(default=(), converter=_tuple)
    #: Publish KV-cache events to the agent, for the router's precise prefix index.
    kv_events: bool = False
    #: Data parallel degree: how many copies of the model (each of ``tp`` x ``pp`` GPUs)
    #: serve the replica side by side; 0, the Go zero value, means 1.
    dp: int = 1
    #: Data-parallel ranks on each node; 0 spreads ``dp`` evenly over ``nodes``.
    dp_per_node: int = 0
    #: Where requests enter a data-parallel replica (see :data:`DP_BALANCING`): ``internal``
    #: (one API server in front of every rank), ``hybrid`` (one per node, in front of its
    #: own ranks) or ``external`` (one per rank, behind the site's load balancer).
    dp_balancing: str = "internal"
    #: Expert parallel: the MoE layers' experts are spread over the ranks instead of copied.
    expert_parallel: bool = False
    #: The all-to-all backend expert parallel exchanges tokens with, in the engine's own
    #: words (vLLM's ``deepep_low_latency``, SGLang's ``deepep``); empty is the engine's default.
    all2all: str = ""

    @property
    def pipeline_degree(self) -> int:
        """The pipeline parallel degree, with the Go zero value read as 1."""
        return max(self.pp, 1)

    @property
    def node_count(self) -> int:
        """How many nodes the replica spans, with the Go zero value read as 1."""
        return max(self.nodes, 1)

    @property
    def data_parallel(self) -> int:
        """The data parallel degree, with the Go zero value read as 1."""
        return max(self.dp, 1)

    @property
    def dp_local(self) -> int:
        """Data-parallel ranks on each node: ``dp_per_node``, or ``dp`` spread evenly over the nodes."""
        return self.dp_per_node or max(self.data_parallel // self.node_count, 1)

    @property
    def per_node(self) -> int:
        """How many GPUs each node of this profile occupies (each shard, but for ``external`` balancing)."""
        if self.data_parallel > 1:
            return self.gpus_per_node or self.tp * self.pipeline_degree * self.dp_local
        return self.gpus_per_node or self.tp

    @property
    def per_shard(self) -> int:
        """How many GPUs each shard occupies: a node's, or one rank's under ``external`` balancing."""
        if self.data_parallel > 1 and self.dp_balancing == "external":
            return self.tp * self.pipeline_degree
        return self.per_node

    def model_name(self) -> str:
        """The name clients ask for: the served name, or the model path when none is set."""
        return self.served_model_name or self.model_path


@attrs.frozen(kw_only=True, cache_hash=True)
class GPUInfo:
    """The facts about one GPU that validation needs."""

    index: int
    name: str = ""
    #: ``"major.minor"``, e.g. ``"9.0"``; empty when unknown.
    compute_capability: str = ""
    memory_total_mb: int = 0


@attrs.frozen(kw_only=True)
class ShardSpec:
    """One shard of one replica on this node, as the agent hands it over."""

    replica_id: str = ""
    shard_id: str = ""
    #: The node rank; 0 is the leader and serves HTTP.
    rank: int = 0
    nnodes: int = 1
    #: The distributed init endpoint, always on the management network rather than
    #: the fabric: NCCL bootstraps over TCP and only then moves to RDMA.
    leader_addr: str = ""
    leader_port: int = 0
    #: The leader's HTTP port (its API server's, on ``leader_addr``); 0 when not given. A
    #: worker whose engine closes ``leader_port`` once every rank has joined (vLLM's
    #: data-parallel handshake) is watched here instead: while the leader runs, its API
    #: server listens. The same on every shard of a replica.
    leader_http_port: int = 0
    #: The first data-parallel rank this shard hosts, as the replica's layout numbers
    #: them (:mod:`enginekit.layout`); 0 without data parallel.
    dp_rank: int = 0
    #: The local GPUs this shard uses, as nvidia-smi numbers them.
    gpu_indices: tuple[int, ...] = attrs.field(default=(), converter=_tuple)
    #: The same devices by UUID, in the same order, set only when one of them is a MIG
    #: instance: an instance has no index CUDA knows, so ``CUDA_VISIBLE_DEVICES=MIG-…``
    #: is the only way to give a process one (placement's 1000-and-up indices mean
    #: nothing to CUDA).
    gpu_uuids: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    #: The adapters of the chosen fabric, and only that fabric.
    hcas: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    #: The ethernet interface used for bootstrap traffic.
    mgmt_interface: str = ""
    #: The RoCE v2 GID index for the HCAs; None on InfiniBand, where NCCL needs none.
    gid_index: int | None = None
    http_port: int = 0
    profile: Profile
    #: The address the engine listens on (the node's management address); empty
    #: listens on every address.
    bind_addr: str = ""
    #: What the engine demands of every request. Only ever given to the engine in its
    #: environment: any local user can read a command line.
    api_key: str = attrs.field(default="", repr=False)
    #: The base port of this shard's KV-cache events; 0 for none. Under ``kv_events_mode``
    #: ``bind`` the engine's publishers listen there (each data-parallel rank on the port
    #: plus its rank, where the engine moves them) and any number of consumers connect;
    #: under ``connect`` the agent's subscriber listens there on loopback.
    kv_events_port: int = 0
    #: Who listens for the KV-cache events: ``bind`` (the engine's publisher, on
    #: ``kv_events_port``: what routers and indexers that subscribe, such as vllm-router's
    #: ``--kv-event-source``, expect) or ``connect`` (the publisher connects to a subscriber
    #: on ``127.0.0.1:kv_events_port``, the node agent's, as the Go agent runs one).
    kv_events_mode: str = KV_EVENTS_BIND
    #: What the shard does with a request (:data:`ROLES`): ``aggregated`` (all of it),
    #: ``prefill`` (the prompt, whose KV cache a decode instance then takes) or ``decode``
    #: (the tokens after it, from a prefill's KV cache). The same on every rank of an instance.
    role: str = AGGREGATED
    #: How the prefill and decode instances move the KV cache (``nixl``, ``mooncake``), as
    #: the routers name it; empty is the engine's default. Only with a role.
    kv_connector: str = ""
    #: The first port of the KV transfer's side channel, where the instances find each
    #: other's caches: vLLM's NIXL handshake listeners (which it moves by the data-parallel
    #: and tensor-parallel rank), SGLang's bootstrap server on a prefill's leader; 0 for the
    #: engine's default. Only with a role.
    kv_transfer_port: int = 0
    #: CPU cores placement reserved for a shard with no GPU; 0 leaves it to the engine.
    threads: int = 0
    #: Memory placement reserved for the KV cache of a shard with no GPU, in MiB; the
    #: model's weights and the engine's own working memory come on top. Told to the engine
    #: in its own setting (``VLLM_CPU_KVCACHE_SPACE``…); ignored on GPUs. 0 leaves it to the
    #: engine, and vLLM's CPU build then wants most of the NUMA node's memory free at start.
    kv_cache_mib: int = 0
    #: Control-plane facts carried so the agent can report them back after a restart.
    #: ``fabric`` with an ``nvl:`` prefix also says the replica is inside a multi-node
    #: NVLink domain, which changes NCCL's environment.
    pool: str = ""
    fabric: str = ""
    #: Identifies the profile version the shard was started from; carried, never read.
    profile_fp: str = ""

    def to_dict(self, *, go_names: bool = False, show_secrets: bool = False) -> dict[str, Any]:
        """JSON-ready data that :meth:`from_dict` reads back equal (with ``show_secrets``).

        ``go_names`` writes the Go agent's field names (``ReplicaID``, ``GPUIndices``);
        the API key is masked unless ``show_secrets``.
        """
        return dump_spec(self, go_names=go_names, show_secrets=show_secrets)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> ShardSpec:
        """The spec in ``raw``, in either spelling, checked as strictly as a spec file.

        :raises SpecError: listing every problem; a masked API key is one.
        """
        return spec_from_document(raw)[0]

    def host(self) -> str:
        """Where the engine listens."""
        return self.bind_addr or ALL_ADDRESSES

    def is_leader(self) -> bool:
        """Whether this shard is the replica's leader: the first node's, and the first data-parallel rank's.

        The one every other shard dials. Under ``external`` balancing the first node also
        runs a process for each of its other ranks: those dial the leader like any worker.
        """
        return self.rank == 0 and self.dp_rank == 0

    def on_mig(self) -> bool:
        """Whether the shard was given a MIG instance."""
        return any(is_mig(uuid) for uuid in self.gpu_uuids)

    def is_multi_node(self) -> bool:
        """Whether the replica spans more than one node."""
        return self.nnodes > 1

    def on_cpu(self) -> bool:
        """Whether the shard computes on the CPU: it was given no GPU at all."""
        return not self.gpu_indices and not self.gpu_uuids


@attrs.frozen(kw_only=True)
class Command:
    """A fully resolved launch: what to exec, with which generated environment."""

    path: str
    args: tuple[str, ...] = ()
    #: Only the variables the engine adapter generates; :meth:`environment` merges
    #: them over an inherited environment the caller passes in.
    env: Mapping[str, str] = attrs.field(factory=FrozenDict, converter=_dict)
    #: Distinguishes the processes of a multi-process shard in logs.
    name: str = ""
    #: Hold this command until ``leader_addr:leader_port`` accepts a connection. It
    #: exists for Ray: the head must listen before a worker can join.
    wait_for_leader_port: bool = False
    #: Names of variables in ``env`` whose values are secret: masked when rendered.
    secret_env: frozenset[str] = frozenset()
    #: Why each generated variable is set, by name, for ``render --explain``.
    why: Mapping[str, str] = attrs.field(factory=FrozenDict, converter=_dict)

    def argv(self) -> list[str]:
        """The argument vector to exec: the path, then the arguments."""
        return [self.path, *self.args]

    def environ(self, inherited: Mapping[str, str]) -> dict[str, str]:
        """The complete environment to exec with: the generated variables over ``inherited``.

        Inheriting matters: engines need PATH, HOME, HF_HOME and whatever else the
        operator set up in the unit file. A supervisor passes ``os.environ``; nothing in
        enginekit reads it. The result is what ``subprocess.Popen(env=…)`` takes, sorted
        by name so a command is reproducible and diffable in logs.
        """
        merged = {**inherited, **self.env}
        return dict(sorted(merged.items()))

    def environment(self, inherited: Mapping[str, str]) -> list[str]:
        """The first release's form of :meth:`environ`: ``KEY=value`` strings, sorted (deprecated)."""
        from enginekit.base.deprecation import deprecated

        deprecated("Command.environment(inherited)", "use Command.environ(inherited), a dict")
        return [f"{key}={value}" for key, value in self.environ(inherited).items()]


#: The field names the Go agent's encoding/json reads and writes, by class and field.
#: Untagged Go fields are matched by their Go name, case-insensitively but never across
#: an underscore, so ``replica_id`` is not ``ReplicaID`` to it; tagged ones by their tag.
GO_NAMES: Mapping[type, Mapping[str, str]] = {
    ShardSpec: {
        "replica_id": "ReplicaID",
        "shard_id": "ShardID",
        "rank": "Rank",
        "nnodes": "NNodes",
        "leader_addr": "LeaderAddr",
        "leader_port": "LeaderPort",
        "leader_http_port": "leader_http_port",
        "dp_rank": "dp_rank",
        "gpu_indices": "GPUIndices",
        "gpu_uuids": "gpu_uuids",
        "hcas": "HCAs",
        "mgmt_interface": "MgmtInterface",
        "gid_index": "GIDIndex",
        "http_port": "HTTPPort",
        "profile": "Profile",
        "bind_addr": "bind_addr",
        "api_key": "api_key",
        "kv_events_port": "kv_events_port",
        "kv_events_mode": "kv_events_mode",
        "role": "role",
        "kv_connector": "kv_connector",
        "kv_transfer_port": "kv_transfer_port",
        "threads": "threads",
        "kv_cache_mib": "kv_cache_mib",
        "pool": "Pool",
        "fabric": "Fabric",
        "profile_fp": "ProfileFP",
    },
    Profile: {
        "name": "Name",
        "engine": "Engine",
        "gpu_class": "GPUClass",
        "tp": "TP",
        "pp": "PP",
        "gpus_per_node": "GPUsPerNode",
        "nodes": "Nodes",
        "args": "Args",
        "env": "Env",
        "model_path": "ModelPath",
        "served_model_name": "ServedModelName",
        "adapters": "Adapters",
        "kv_events": "kv_events",
        "dp": "dp",
        "dp_per_node": "dp_per_node",
        "dp_balancing": "dp_balancing",
        "expert_parallel": "expert_parallel",
        "all2all": "all2all",
    },
    Adapter: {"name": "name", "path": "path"},
}


def dump_spec(spec: ShardSpec, *, go_names: bool = False, show_secrets: bool = False) -> dict[str, Any]:
    """The spec as JSON-ready data that :func:`load_spec` reads back equal.

    :param go_names: write the Go agent's field names (``ReplicaID``, ``GPUIndices``), so
        an agent decoding with encoding/json reads every field; enginekit reads both.
    :param show_secrets: write the API key; otherwise it is replaced by a mask, which
        :func:`load_spec` refuses, so a masked spec is never mistaken for a usable one.
    """
    data: dict[str, Any] = unstructure(spec)
    if spec.api_key and not show_secrets:
        # Wherever it was pasted (an env value, an argument), the key is shown as the mask.
        data = scrubbed(data, spec.api_key)
        data["api_key"] = MASK
    return _renamed(data, ShardSpec) if go_names else data


def _renamed(data: dict[str, Any], cls: type) -> dict[str, Any]:
    names = GO_NAMES[cls]
    out = {names[key]: value for key, value in data.items()}
    if cls is ShardSpec:
        out[names["profile"]] = _renamed(data["profile"], Profile)
    elif cls is Profile:
        out[names["adapters"]] = [_renamed(item, Adapter) for item in data["adapters"]]
    return out


def spec_from_document(
    raw: Mapping[str, Any], *, where: str = "spec", lenient: bool = False
) -> tuple[ShardSpec, list[str]]:
    """The shard spec a parsed document holds, and the unknown fields ``lenient`` let through.

    :raises SpecError: listing every problem; a node config given as a spec, and a masked
        API key, are problems too.
    """
    if looks_like_node_config(raw):
        raise SpecError([f"{where}: a node config, not a shard spec (it has no profile)"])
    spec, unknown = structure(raw, ShardSpec, path="spec", lenient=lenient)
    if spec.api_key == MASK:
        raise SpecError(
            [f"spec.api_key: holds the mask {MASK!r}, not a key: write the spec with show_secrets=True"]
        )
    return spec, unknown
