"""The repository's SGLang example specs render to the plan they describe."""

from __future__ import annotations

from pathlib import Path

import pytest
from enginekit import ShardSpec
from enginekit.spec.convert import load_document, structure
from enginekit.testing import engine_for
from enginekit_sglang import SglangEngine

EXAMPLES = Path(__file__).parents[3] / "examples"
SPECS = sorted(EXAMPLES.glob("sglang-*.toml")) if EXAMPLES.is_dir() else []


def load(path: Path) -> ShardSpec:
    spec, _ = structure(load_document(path), ShardSpec, path="spec")
    return spec


@pytest.mark.skipif(not SPECS, reason="no examples/ directory beside the plugins")
@pytest.mark.parametrize("path", SPECS, ids=[p.name for p in SPECS])
def test_example_renders(path: Path) -> None:
    spec = load(path)
    plan = engine_for(SglangEngine(), "sglang").plan(spec)
    assert plan.dropped_env == ()
    (command,) = plan.commands
    assert command.args[0] == "-I"
    assert (
        command.args[2] == "sglang.launch_server"
        or "runpy.run_module('sglang.launch_server'" in command.args[2]
    )
    assert plan.serves_http is spec.is_leader()
    assert command.wait_for_leader_port is (not spec.is_leader())


@pytest.mark.skipif(not (EXAMPLES / "sglang-two-node-leader.toml").exists(), reason="example absent")
@pytest.mark.parametrize("rank", [0, 1])
def test_two_node_example_exact(rank: int) -> None:
    name = "leader" if rank == 0 else "worker"
    spec = load(EXAMPLES / f"sglang-two-node-{name}.toml")
    assert spec.rank == rank
    (command,) = engine_for(SglangEngine(), "sglang").commands(spec)
    # Bound on the node's own address (SGLang's bind field), where routers subscribe.
    events = f'{{"publisher":"zmq","endpoint":"tcp://10.1.0.{17 + rank}:5557","bind":true}}'
    assert list(command.args[3:]) == [
        "--model-path",
        "/models/deepseek-ai/DeepSeek-V3",
        "--host",
        f"10.1.0.{17 + rank}",
        "--port",
        "30000",
        "--served-model-name",
        "deepseek-v3",
        "--kv-events-config",
        events,
        "--nnodes",
        "2",
        "--node-rank",
        str(rank),
        "--dist-init-addr",
        "10.1.0.17:20000",
        "--enable-metrics",
        "--tp-size",
        "16",
        "--pp-size",
        "1",
        "--mem-fraction-static",
        "0.85",
        "--context-length",
        "65536",
    ]
    assert dict(command.env) == {
        "CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "NCCL_IB_HCA": "mlx5_0:1,mlx5_1:1",
        "NCCL_IB_DISABLE": "0",
        "NCCL_IB_GID_INDEX": "3",
        "NCCL_SOCKET_IFNAME": "eth0",
        "GLOO_SOCKET_IFNAME": "eth0",
        "SGLANG_HEALTH_CHECK_TIMEOUT": "60",
    }
