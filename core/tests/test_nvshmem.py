"""NVSHMEM's fabric settings for expert parallel across nodes: exact values, reasons, and properties."""

from __future__ import annotations

from enginekit import Profile, ShardSpec
from enginekit.placement.env import nccl_env
from enginekit.placement.nvshmem import nvshmem_env
from enginekit.plugin import nvshmem_env as exported
from hypothesis import given
from hypothesis import strategies as st

BACKEND = "vLLM's deepep_low_latency all-to-all"


def shard_for(**fields: object) -> ShardSpec:
    """A valid shard; ``profile_*`` fields go to its profile."""
    profile = {k[len("profile_") :]: v for k, v in fields.items() if k.startswith("profile_")}
    shard = {k: v for k, v in fields.items() if not k.startswith("profile_")}
    values: dict[str, object] = {"http_port": 8000, "gpu_indices": (0,), **shard}
    return ShardSpec(profile=Profile(name="p", engine="fake", model_path="/m", **profile), **values)  # type: ignore[arg-type]


def two_node(**fields: object) -> ShardSpec:
    values: dict[str, object] = {
        "rank": 1,
        "nnodes": 2,
        "leader_addr": "10.0.0.1",
        "leader_port": 29500,
        "profile_nodes": 2,
        "profile_tp": 2,
        "profile_gpus_per_node": 1,
        "gpu_indices": (0,),
    }
    return shard_for(**{**values, **fields})


def as_env(spec: ShardSpec) -> dict[str, str]:
    return {name: value for name, value, _ in nvshmem_env(spec, BACKEND)}


def test_infiniband_across_nodes_passes_placement_s_choices_on() -> None:
    spec = two_node(hcas=("mlx5_0:1", "mlx5_3:1"), mgmt_interface="eth0")
    assert as_env(spec) == {
        "NVSHMEM_HCA_LIST": "mlx5_0:1,mlx5_3:1",
        "NVSHMEM_IB_ENABLE_IBGDA": "1",
        "NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME": "eth0",
    }
    found = nvshmem_env(spec, BACKEND)
    assert [name for name, _, _ in found] == [
        "NVSHMEM_HCA_LIST",
        "NVSHMEM_IB_ENABLE_IBGDA",
        "NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME",
    ]
    reasons = {name: why for name, _, why in found}
    assert all(why.startswith(BACKEND + ": ") for why in reasons.values())
    assert "another fabric's included" in reasons["NVSHMEM_HCA_LIST"]
    assert "pplx-kernels needs it set" in reasons["NVSHMEM_IB_ENABLE_IBGDA"]
    assert "may not route between nodes" in reasons["NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME"]
    assert exported is nvshmem_env


def test_roce_takes_the_same_gid_as_nccl() -> None:
    spec = two_node(hcas=("mlx5_0:1",), gid_index=3)
    env = as_env(spec)
    assert env["NVSHMEM_IB_GID_INDEX"] == "3" == nccl_env(spec)["NCCL_IB_GID_INDEX"]
    why = {name: why for name, _, why in nvshmem_env(spec, BACKEND)}["NVSHMEM_IB_GID_INDEX"]
    assert "RoCE v2 GID entry as NCCL_IB_GID_INDEX" in why
    assert "NVSHMEM_IB_GID_INDEX" not in as_env(two_node(hcas=("mlx5_0:1",)))
    assert as_env(two_node(hcas=("mlx5_0:1",), gid_index=0))["NVSHMEM_IB_GID_INDEX"] == "0"


def test_adapters_ibgda_would_skip_get_their_prefix() -> None:
    env = as_env(two_node(hcas=("ibp3s0:1", "ibp4s0:1")))
    assert env["NVSHMEM_HCA_PREFIX"] == "ibp"
    assert as_env(two_node(hcas=("rocep1s0f0",)))["NVSHMEM_HCA_PREFIX"] == "rocep1s0f0"
    assert (
        as_env(two_node(hcas=("rocep1s0f0:1",)))["NVSHMEM_HCA_PREFIX"] == "rocep1s0f0"
    )  # the name, not the port
    assert as_env(two_node(hcas=("ibp3s0", "ibp3")))["NVSHMEM_HCA_PREFIX"] == "ibp3"
    # mlx5 names need none, in any position; names sharing no start cannot be given one.
    assert "NVSHMEM_HCA_PREFIX" not in as_env(two_node(hcas=("mlx5_0", "mlx5_bond_1")))
    assert "NVSHMEM_HCA_PREFIX" not in as_env(two_node(hcas=("ibp3s0", "rocep1s0")))
    assert as_env(two_node(hcas=("mlx5_0", "ibp3s0")))["NVSHMEM_HCA_LIST"] == "mlx5_0,ibp3s0"
    assert "NVSHMEM_HCA_PREFIX" not in as_env(two_node(hcas=("mlx5_0", "ibp3s0")))
    why = {name: why for name, _, why in nvshmem_env(two_node(hcas=("ibp3s0",)), BACKEND)}
    assert "do not contain 'mlx5'" in why["NVSHMEM_HCA_PREFIX"]
    assert as_env(two_node(hcas=("ibp3", "ibp3s0")))["NVSHMEM_HCA_PREFIX"] == "ibp3"


def test_one_node_gets_nothing_and_no_placement_ibgda_alone() -> None:
    assert nvshmem_env(shard_for(hcas=("mlx5_0:1",), mgmt_interface="eth0"), BACKEND) == []
    assert as_env(two_node()) == {"NVSHMEM_IB_ENABLE_IBGDA": "1"}  # pplx needs it whatever placement says
    assert as_env(two_node(mgmt_interface="bond0")) == {
        "NVSHMEM_IB_ENABLE_IBGDA": "1",
        "NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME": "bond0",
    }


HCA = st.from_regex(r"(mlx5_|ibp|rocep)[0-9]{1,2}(:[12])?", fullmatch=True)


@given(
    hcas=st.lists(HCA, max_size=4, unique=True),
    gid=st.none() | st.integers(0, 255),
    ifname=st.sampled_from(["", "eth0", "bond0.100"]),
    nnodes=st.integers(1, 4),
)
def test_every_value_is_placement_s_own_as_nccl_has_it(
    hcas: list[str], gid: int | None, ifname: str, nnodes: int
) -> None:
    spec = two_node(
        hcas=tuple(hcas),
        gid_index=gid if hcas else None,
        mgmt_interface=ifname,
        nnodes=nnodes,
        rank=nnodes - 1,
        profile_nodes=nnodes,
        profile_tp=nnodes,
    )
    env, nccl = as_env(spec), nccl_env(spec)
    if nnodes == 1:
        assert env == {}
        return
    assert env.get("NVSHMEM_HCA_LIST") == nccl.get("NCCL_IB_HCA")
    assert env.get("NVSHMEM_IB_GID_INDEX") == nccl.get("NCCL_IB_GID_INDEX")
    assert env.get("NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME") == nccl.get("NCCL_SOCKET_IFNAME")
    assert env["NVSHMEM_IB_ENABLE_IBGDA"] == "1"
    prefix = env.get("NVSHMEM_HCA_PREFIX")
    if prefix is not None:
        assert all(hca.startswith(prefix) for hca in hcas)
        assert not all("mlx5" in hca for hca in hcas)
