"""The shared NCCL/CUDA environment: the seed's rules, explanations, and properties."""

from __future__ import annotations

from collections.abc import Callable

import attrs
from enginekit import Profile, ShardSpec
from enginekit.placement.env import nccl_env, placement_env, shard_env
from enginekit.policy.env import RESERVED, EnvPolicy
from hypothesis import given
from hypothesis import strategies as st

Make = Callable[..., ShardSpec]
MIG = "MIG-4f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6"


def test_single_node_without_fabric_disables_ib(make_shard: Make) -> None:
    assert nccl_env(make_shard(gpu_indices=(2, 3), profile_tp=2)) == {
        "CUDA_VISIBLE_DEVICES": "2,3",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "NCCL_IB_DISABLE": "1",
    }


def test_infiniband_roce_and_management_interface(make_shard: Make) -> None:
    spec = make_shard(hcas=("mlx5_0:1", "mlx5_1:1"), gid_index=3, mgmt_interface="eth0")
    assert nccl_env(spec) == {
        "CUDA_VISIBLE_DEVICES": "0",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "NCCL_IB_HCA": "mlx5_0:1,mlx5_1:1",
        "NCCL_IB_DISABLE": "0",
        "NCCL_IB_GID_INDEX": "3",
        "NCCL_SOCKET_IFNAME": "eth0",
        "GLOO_SOCKET_IFNAME": "eth0",
    }


def test_infiniband_needs_no_gid_index(make_shard: Make) -> None:
    assert "NCCL_IB_GID_INDEX" not in nccl_env(make_shard(hcas=("mlx5_0",)))


def test_multi_node_nvlink_enables_mnnvl_and_cumem(make_shard: Make) -> None:
    spec = make_shard(
        nnodes=2,
        fabric="nvl:gb200-rack-1",
        leader_addr="10.0.0.1",
        leader_port=29500,
        profile_nodes=2,
        profile_gpus_per_node=1,
    )
    env = nccl_env(spec)
    assert env["NCCL_MNNVL_ENABLE"] == "1"
    assert env["NCCL_CUMEM_ENABLE"] == "1"
    assert "NCCL_MNNVL_ENABLE" not in nccl_env(attrs.evolve(spec, fabric="ib:f1"))
    assert "NCCL_MNNVL_ENABLE" not in nccl_env(make_shard(fabric="nvl:x"))  # single node: no


def test_mig_shard_is_given_its_uuid(make_shard: Make) -> None:
    assert nccl_env(make_shard(gpu_indices=(1000,), gpu_uuids=(MIG,)))["CUDA_VISIBLE_DEVICES"] == MIG


def test_cpu_shard_hides_every_gpu(make_shard: Make) -> None:
    assert nccl_env(make_shard(gpu_indices=(), threads=8))["CUDA_VISIBLE_DEVICES"] == ""


def test_profile_tuning_wins_but_reserved_and_unsafe_keys_are_dropped_and_reported(make_shard: Make) -> None:
    spec = make_shard(
        hcas=("mlx5_0",),
        profile_env={
            "NCCL_IB_DISABLE": "1",
            "NCCL_DEBUG": "INFO",
            "CUDA_VISIBLE_DEVICES": "0,1,2,3",
            "LD_PRELOAD": "/x.so",
        },
    )
    build = shard_env(spec)
    assert build.env["NCCL_IB_DISABLE"] == "1"  # the seed's escape hatch stays
    assert build.env["NCCL_DEBUG"] == "INFO"
    assert build.env["CUDA_VISIBLE_DEVICES"] == "0"
    assert "LD_PRELOAD" not in build.env
    assert {d.key: d.why for d in build.dropped} == {
        "CUDA_VISIBLE_DEVICES": "reserved: derived from the shard spec",
        "LD_PRELOAD": "denied: the dynamic loader or libc would load code or data from it",
    }
    assert build.why["NCCL_DEBUG"].startswith("set by the profile")


def test_every_variable_is_explained(make_shard: Make) -> None:
    spec = make_shard(
        hcas=("mlx5_0",),
        gid_index=1,
        mgmt_interface="eth0",
        nnodes=2,
        fabric="nvl:x",
        leader_addr="h",
        leader_port=1,
        profile_nodes=2,
        profile_gpus_per_node=1,
    )
    build = placement_env(spec)
    assert set(build.why) == set(build.env)
    assert all(len(reason) > 20 for reason in build.why.values())


def test_site_policy_applies(make_shard: Make) -> None:
    spec = make_shard(profile_env={"NCCL_ALGO": "Ring"})
    assert "NCCL_ALGO" not in nccl_env(spec, EnvPolicy(deny={"NCCL_ALGO"}))


indices = st.lists(st.integers(0, 15), min_size=0, max_size=8, unique=True).map(tuple)
hca_lists = st.lists(st.from_regex(r"mlx5_[0-9]{1,2}(:1)?", fullmatch=True), max_size=4, unique=True).map(
    tuple
)
env_maps = st.dictionaries(
    st.one_of(
        st.sampled_from(sorted(RESERVED)),
        st.sampled_from(["LD_PRELOAD", "PYTHONPATH", "NCCL_DEBUG"]),
        st.from_regex(r"[A-Z][A-Z0-9_]{0,12}", fullmatch=True),
    ),
    st.text(max_size=10),
    max_size=6,
)


@given(indices, hca_lists, env_maps)
def test_properties(gpus: tuple[int, ...], hcas: tuple[str, ...], env: dict[str, str]) -> None:
    spec = ShardSpec(
        profile=Profile(name="p", engine="x", model_path="/m", tp=max(len(gpus), 1), env=env),
        gpu_indices=gpus,
        hcas=hcas,
        http_port=1,
    )
    built = shard_env(spec)
    # CUDA_VISIBLE_DEVICES always names exactly the shard's devices, whatever the profile says.
    assert built.env["CUDA_VISIBLE_DEVICES"] == ",".join(map(str, gpus))
    assert built.env["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID"
    # No HCAs: IB disabled (unless the profile's tuning says otherwise, the seed's escape hatch).
    if not hcas and "NCCL_IB_DISABLE" not in env:
        assert built.env["NCCL_IB_DISABLE"] == "1"
    # A reserved or unsafe key never reaches the environment from the profile.
    for key, value in env.items():
        if key in {d.key for d in built.dropped}:
            assert built.env.get(key) != value or (
                key in placement_env(spec).env and placement_env(spec).env[key] == value
            )
        else:
            assert built.env[key] == value
    for key in RESERVED & set(built.env):
        assert built.env[key] == placement_env(spec).env[key]
