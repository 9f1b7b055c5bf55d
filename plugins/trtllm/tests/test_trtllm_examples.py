"""The repository's TensorRT-LLM example specs render, exactly as documented."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from enginekit.plan.launch import LaunchPlan
from enginekit.spec.convert import load_document, structure
from enginekit.spec.model import GPUInfo, ShardSpec
from enginekit.testing import engine_for
from enginekit_trtllm import TrtllmConfig, TrtllmEngine

EXAMPLES = Path(__file__).parents[3] / "examples"
PY = "/opt/tensorrt-llm/bin/python"


def _plan(name: str, gpus: tuple[GPUInfo, ...]) -> LaunchPlan:
    path = EXAMPLES / name
    if not path.exists():
        pytest.skip(f"{path} is not in this checkout")
    spec, _ = structure(load_document(path), ShardSpec, path="spec")
    return engine_for(TrtllmEngine(TrtllmConfig(python=PY)), "trtllm").plan(spec, gpus)


def test_tp8_with_adapters() -> None:
    h100 = tuple(GPUInfo(index=i, name="NVIDIA H100 80GB HBM3", compute_capability="9.0") for i in range(8))
    plan = _plan("trtllm-tp8-lora.toml", h100)
    [command] = plan.commands
    assert command.argv()[:3] == [PY, "-I", "-c"]
    assert shlex.join(command.argv()[4:]) == (
        "serve /models/nvidia/Llama-3.3-70B-Instruct-FP8 --host 10.20.0.11 --port 8000 --backend pytorch "
        "--tp_size 8 --pp_size 1 --served_model_name llama-3.3-70b --max_batch_size 256 --max_num_tokens "
        "8192 --kv_cache_free_gpu_memory_fraction 0.85 --no-telemetry"
    )
    options = json.loads(command.env["ENGINEKIT_TRTLLM_OPTIONS"])
    assert options["lora_config"]["lora_dir"] == [
        "/adapters/llama-3.3-70b/sql-assistant",
        "/adapters/llama-3.3-70b/support-de",
    ]
    assert {k: v for k, v in command.env.items() if k != "ENGINEKIT_TRTLLM_OPTIONS"} == {
        "CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "NCCL_IB_DISABLE": "1",
        "NCCL_SOCKET_IFNAME": "eno1",
        "GLOO_SOCKET_IFNAME": "eno1",
        "NCCL_DEBUG": "WARN",
    }
    assert plan.metrics_path == "/prometheus/metrics"
    assert "sql-assistant = 0" in plan.render_text()


def test_single_gpu() -> None:
    plan = _plan("trtllm-single-gpu.toml", (GPUInfo(index=3, name="NVIDIA L40S", compute_capability="8.9"),))
    [command] = plan.commands
    assert command.argv()[4:] == [
        "serve",
        "/models/Qwen/Qwen3-8B",
        "--host",
        "10.20.0.12",
        "--port",
        "8003",
        "--backend",
        "pytorch",
        "--tp_size",
        "1",
        "--pp_size",
        "1",
        "--served_model_name",
        "qwen3-8b",
        "--kv_cache_dtype",
        "fp8",
        "--max_seq_len",
        "32768",
    ]
    assert command.env["CUDA_VISIBLE_DEVICES"] == "3"
