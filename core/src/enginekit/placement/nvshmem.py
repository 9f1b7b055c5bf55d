"""NVSHMEM's settings for expert parallel across nodes (DeepEP, pplx-kernels), from the shard's placement.

DeepEP's internode kernels (and pplx-kernels) move tokens between nodes with NVSHMEM
over RDMA, GPU-initiated (IBGDA). NVSHMEM does not read NCCL's variables: left to
itself it opens every mlx5 adapter of the node, another fabric's included, bootstraps
over the first ``ib*`` interface it finds (often one that does not route between
nodes) and, on RoCE, picks its own GID. Each is a hang at ``nvshmem init`` or on the
first dispatch. The settings here are the ones an orchestrator owns, from what
placement already chose for NCCL; what DeepEP sets itself (the IBGDA switches, queue
pairs, team count, P2P and NVLS) it overwrites, so it is left alone.

Pure: a function of the shard spec.
"""

from __future__ import annotations

from enginekit.spec.model import ShardSpec

#: The adapter-name part of an ``hcas`` entry NVSHMEM's IBGDA accepts without being told:
#: it skips every device whose name does not contain it (hard-coded before NVSHMEM 3.4,
#: ``NVSHMEM_HCA_PREFIX`` since).
IBGDA_DEFAULT_PREFIX = "mlx5"


def nvshmem_env(spec: ShardSpec, backend: str) -> list[tuple[str, str, str]]:
    """The NVSHMEM variables a process of ``spec`` needs for ``backend`` across nodes: ``(name, value, why)``.

    Empty on one node (NVSHMEM then runs over NVLink, with nothing to choose); across nodes
    IBGDA is always on, and the rest is what placement chose. ``backend`` is the engine's name for the
    all-to-all backend, said in each reason.
    """
    if not spec.is_multi_node():
        return []
    found = []
    if spec.hcas:
        found.append(
            (
                "NVSHMEM_HCA_LIST",
                ",".join(spec.hcas),
                f"{backend}: only the chosen fabric's adapters, as NCCL_IB_HCA; NVSHMEM reads no NCCL "
                f"variable and would otherwise open every adapter, another fabric's included (names "
                f"match exactly, each with its port)",
            )
        )
        names = [hca.partition(":")[0] for hca in spec.hcas]
        prefix = _common_prefix(names)
        if prefix and not all(IBGDA_DEFAULT_PREFIX in name for name in names):
            found.append(
                (
                    "NVSHMEM_HCA_PREFIX",
                    prefix,
                    f"{backend}: the adapters' names do not contain {IBGDA_DEFAULT_PREFIX!r}, and IBGDA "
                    f"skips every adapter whose name lacks this prefix (NVSHMEM 3.4 or later reads it)",
                )
            )
        if spec.gid_index is not None:
            found.append(
                (
                    "NVSHMEM_IB_GID_INDEX",
                    str(spec.gid_index),
                    f"{backend}: RoCE: the same routable RoCE v2 GID entry as NCCL_IB_GID_INDEX, so "
                    f"NVSHMEM's queue pairs reach the peers NCCL's do",
                )
            )
    found.append(
        (
            "NVSHMEM_IB_ENABLE_IBGDA",
            "1",
            f"{backend}: GPU-initiated RDMA (IBGDA) between nodes; DeepEP turns it on itself, "
            f"pplx-kernels needs it set",
        )
    )
    if spec.mgmt_interface:
        found.append(
            (
                "NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME",
                spec.mgmt_interface,
                f"{backend}: NVSHMEM's bootstrap on the management interface, as NCCL_SOCKET_IFNAME; "
                f"left unset it tries IB-over-IP interfaces first, which may not route between nodes, "
                f"and init hangs",
            )
        )
    return found


def _common_prefix(names: list[str]) -> str:
    """The longest start every name shares (NVSHMEM matches the prefix as a substring).

    The first and last names in sorted order differ soonest, so their shared start is
    everyone's; past the end of the last, its slice is empty and differs.
    """
    first, last = min(names), max(names)
    for i, letter in enumerate(first):
        if letter != last[i : i + 1]:
            return first[:i]
    return first
