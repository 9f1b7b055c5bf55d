"""Realistic shard specs shared by the vLLM plugin's tests."""

from __future__ import annotations

from typing import Any

import attrs
from enginekit import Adapter, GPUInfo, Profile, ShardSpec

KEY = "sk-3f9c2a7b1e8d4c6a9b0e2f4d6c8a1b3e"
H100 = tuple(GPUInfo(index=i, name="NVIDIA H100 80GB HBM3", compute_capability="9.0") for i in range(8))
FABRIC_ENV = {
    "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
    "CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7",
    "NCCL_IB_HCA": "mlx5_0:1,mlx5_1:1",
    "NCCL_IB_DISABLE": "0",
    "NCCL_IB_GID_INDEX": "3",
    "NCCL_SOCKET_IFNAME": "eth0",
    "GLOO_SOCKET_IFNAME": "eth0",
}


def profile(**changes: Any) -> Profile:
    """Llama 3.1 70B on one node of eight H100s."""
    base = Profile(
        name="llama70b-h100x8",
        engine="vllm",
        gpu_class="h100",
        tp=8,
        model_path="/models/meta-llama/Llama-3.1-70B-Instruct",
        served_model_name="llama-3.1-70b",
        args=("--max-model-len", "32768", "--gpu-memory-utilization", "0.92"),
    )
    return attrs.evolve(base, **changes)


def single(**changes: Any) -> ShardSpec:
    """One node, TP=8, with an API key."""
    base = ShardSpec(
        replica_id="r-7f3a",
        shard_id="r-7f3a-0",
        gpu_indices=(0, 1, 2, 3, 4, 5, 6, 7),
        http_port=8000,
        bind_addr="10.0.0.11",
        api_key=KEY,
        profile=profile(),
    )
    return attrs.evolve(base, **changes)


def two_node(rank: int, **changes: Any) -> ShardSpec:
    """Llama 3.1 405B FP8 over two nodes (TP 8 x PP 2) on RoCE, rank ``rank``."""
    big = profile(
        name="llama405b-2x8",
        tp=8,
        pp=2,
        gpus_per_node=8,
        nodes=2,
        model_path="/models/meta-llama/Llama-3.1-405B-Instruct-FP8",
        served_model_name="llama-3.1-405b",
        args=("--max-model-len", "16384"),
    )
    base = ShardSpec(
        replica_id="r-405",
        shard_id=f"r-405-{rank}",
        rank=rank,
        nnodes=2,
        leader_addr="10.0.0.11",
        leader_port=6379,
        gpu_indices=(0, 1, 2, 3, 4, 5, 6, 7),
        hcas=("mlx5_0:1", "mlx5_1:1"),
        mgmt_interface="eth0",
        gid_index=3,
        http_port=8000,
        bind_addr=f"10.0.0.{11 + rank}",
        api_key=KEY,
        fabric="roce:rack-a",
        profile=big,
    )
    return attrs.evolve(base, **changes)


def adapters() -> tuple[Adapter, ...]:
    """Three LoRA adapters, one with a comma in its path."""
    return (
        Adapter(name="sql-expert", path="/var/lib/enginekit/adapters/sql-expert"),
        Adapter(name="support.v2", path="/var/lib/enginekit/adapters/support=v2"),
        Adapter(name="legal", path="/var/lib/enginekit/adapters/legal,eu"),
    )
