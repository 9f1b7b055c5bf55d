"""The CUDA/NCCL environment every engine process of a shard shares, with the reason for each variable.

This is the part of launching the plan marks critical: a single missing or wrong NCCL
variable turns a working tensor-parallel group into one that hangs on its first
all-reduce. Pure: a function of the shard spec and the env policy, nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs

from enginekit.policy.env import DEFAULT_POLICY, EnvPolicy
from enginekit.spec.model import AGGREGATED, ShardSpec

PROFILE_OVERRIDE = "set by the profile: the escape hatch for per-cluster tuning no adapter can guess"


@attrs.frozen
class DroppedVar:
    """A profile variable the env policy kept out of the environment, and why."""

    key: str
    why: str


@attrs.frozen
class EnvBuild:
    """Generated variables, why each is set, and the profile variables that were dropped."""

    env: Mapping[str, str]
    why: Mapping[str, str]
    dropped: tuple[DroppedVar, ...] = ()


def visible_devices(spec: ShardSpec) -> str:
    """``CUDA_VISIBLE_DEVICES`` for a shard: its indices, or their UUIDs when the agent named them."""
    if spec.gpu_uuids:
        return ",".join(spec.gpu_uuids)
    return ",".join(str(index) for index in spec.gpu_indices)


#: The last shard asked about and its answer: a plan asks for the same shard's
#: placement several times (the builder, then the registry's check of every command).
_last: tuple[ShardSpec | None, EnvBuild | None] = (None, None)


def forget_placement() -> None:
    """Forget the last shard's placement: a test that starts clean."""
    global _last
    _last = (None, None)


def placement_env(spec: ShardSpec) -> EnvBuild:
    """The variables derived from where the shard was placed: the seed's ``baseEnv`` rules.

    Engine plugins start from this (through :class:`enginekit.placement.builder.CommandBuilder`)
    and add their own; profile overrides are applied by the registry afterwards, so a
    plugin never needs the site's policy. The answer is read-only: copy it to change it.
    """
    global _last
    shard, build = _last
    if shard is spec and build is not None:
        # The same frozen spec: none of the fields read below can have changed.
        return build
    build = _placement_env(spec)
    _last = (spec, build)
    return build


def _placement_env(spec: ShardSpec) -> EnvBuild:
    env: dict[str, str] = {}
    why: dict[str, str] = {}

    def put(key: str, value: str, reason: str) -> None:
        env[key] = value
        why[key] = reason

    if spec.on_cpu():
        put(
            "CUDA_VISIBLE_DEVICES",
            "",
            "a CPU shard: hide every GPU so the engine cannot take one another shard holds",
        )
    elif spec.gpu_uuids:
        put(
            "CUDA_VISIBLE_DEVICES",
            visible_devices(spec),
            "pins the shard to its devices by UUID: a MIG instance has no index CUDA knows",
        )
    else:
        put(
            "CUDA_VISIBLE_DEVICES",
            visible_devices(spec),
            "pins the shard to its GPUs, so two shards on one node cannot fight over a card",
        )
    put(
        "CUDA_DEVICE_ORDER",
        "PCI_BUS_ID",
        "placement's indices are nvidia-smi's, which counts by PCI bus; CUDA counts fastest "
        "first, and on a node with two kinds of GPU the shard would get another shard's card",
    )
    if spec.hcas:
        put(
            "NCCL_IB_HCA",
            ",".join(spec.hcas),
            "only the chosen fabric's adapters: left unset, NCCL may pick an adapter of another "
            "fabric where the peer is unreachable, and the job hangs instead of failing",
        )
        put("NCCL_IB_DISABLE", "0", "the shard has a fabric: RDMA is the path")
        if spec.gid_index is not None:
            put(
                "NCCL_IB_GID_INDEX",
                str(spec.gid_index),
                "RoCE: the routable RoCE v2 GID entry; NCCL's default is a link-local v1 one on "
                "most hosts, and a job on it hangs",
            )
        if spec.role != AGGREGATED:
            # A prefill or decode instance moves its KV cache with UCX (NIXL's, Mooncake's),
            # which takes every device it finds otherwise, the management network's included.
            put(
                "UCX_NET_DEVICES",
                ",".join(dict.fromkeys(hca if ":" in hca else f"{hca}:1" for hca in spec.hcas)),
                "the KV transfer's devices: the chosen fabric's adapters (port 1 where none is "
                "said), as NCCL's; left unset, UCX may send the cache over another network",
            )
            if spec.gid_index is not None:
                put(
                    "UCX_IB_GID_INDEX",
                    str(spec.gid_index),
                    "RoCE: the routable RoCE v2 GID entry placement chose, NCCL's too; UCX's own "
                    "pick may be a GID whose address does not route between the nodes",
                )
    else:
        put(
            "NCCL_IB_DISABLE",
            "1",
            "no fabric (single node, or a node without one): NCCL stops looking for IB instead of timing out",
        )
    if spec.is_multi_node() and spec.fabric.startswith("nvl:"):
        reason = (
            "inside a multi-node NVLink domain: NCCL carries collectives over NVLink "
            "between nodes only when told to, and needs cuMem (and IMEX) for it"
        )
        put("NCCL_MNNVL_ENABLE", "1", reason)
        put("NCCL_CUMEM_ENABLE", "1", reason)
    if spec.mgmt_interface:
        reason = (
            "bootstrap pinned to the management interface; otherwise every interface is "
            "probed, including IB-over-IP addresses that cannot route between fabrics"
        )
        put("NCCL_SOCKET_IFNAME", spec.mgmt_interface, reason)
        put("GLOO_SOCKET_IFNAME", spec.mgmt_interface, reason)
    return EnvBuild(env=MappingProxyType(env), why=MappingProxyType(why))


#: The generated variables a profile may override: the seed's escape hatch for the
#: per-cluster tuning no adapter can guess (a fabric that must not be used for RDMA,
#: NVLink between nodes switched off while IMEX is broken). Every other variable an
#: engine generates is derived from the shard's placement or carries its key, and
#: overriding it would break isolation or leak rather than tune.
TUNABLE: frozenset[str] = frozenset({"NCCL_IB_DISABLE", "NCCL_MNNVL_ENABLE", "NCCL_CUMEM_ENABLE"})
GENERATED = "reserved: generated for this shard (its placement, its key or the engine's own wiring)"


def apply_profile_env(build: EnvBuild, spec: ShardSpec, policy: EnvPolicy = DEFAULT_POLICY) -> EnvBuild:
    """Apply the profile's variables over ``build``; the policy's refusals are reported, not set.

    Checked again here, not only where the profile was validated: this is the process
    about to run as root, whatever sent the profile, judged by today's deny list. A
    variable ``build`` generated is kept unless it is :data:`TUNABLE`, for every engine
    and every kind of shard, so the plan never says one thing and runs another.
    """
    refused = dict(policy.problems(spec.profile.env))
    for key in spec.profile.env:
        if key in build.env and key not in TUNABLE and key not in refused:
            refused[key] = GENERATED
    env, why = dict(build.env), dict(build.why)
    for key, value in spec.profile.env.items():
        if key not in refused:
            env[key] = value
            why[key] = PROFILE_OVERRIDE
    dropped = tuple(DroppedVar(key, reason) for key, reason in refused.items())
    return EnvBuild(env=env, why=why, dropped=build.dropped + dropped)


def shard_env(spec: ShardSpec, policy: EnvPolicy = DEFAULT_POLICY) -> EnvBuild:
    """The shared environment with profile overrides applied: what every engine process sees."""
    return apply_profile_env(placement_env(spec), spec, policy)


def nccl_env(spec: ShardSpec, policy: EnvPolicy = DEFAULT_POLICY) -> dict[str, str]:
    """The environment a shard with this spec is given, for a tool that shows an operator."""
    return dict(shard_env(spec, policy).env)
