"""The repository's llama.cpp examples render through the whole plan: validate, spec checks, commands."""

from __future__ import annotations

from pathlib import Path

import pytest
from enginekit import ShardSpec
from enginekit.plan.launch import LaunchPlan
from enginekit.spec.convert import load_document, structure
from enginekit.testing import engine_for
from enginekit_llamacpp import LlamaCppEngine

EXAMPLES = Path(__file__).parents[3] / "examples"


def plan_of(name: str) -> LaunchPlan:
    path = EXAMPLES / name
    if not path.exists():
        pytest.skip(f"{path} is not here (an installed sdist has no examples)")
    spec, _ = structure(load_document(path), ShardSpec, path="spec")
    return engine_for(LlamaCppEngine(), spec.profile.engine).plan(spec)


def test_cpu_example() -> None:
    plan = plan_of("llamacpp-cpu.toml")
    (command,) = plan.commands
    assert command.argv() == [
        "llama-server",
        "--model", "/models/gguf/qwen2.5-7b-instruct-q4_k_m.gguf",
        "--host", "10.0.0.12",
        "--port", "8081",
        "--alias", "qwen2.5-7b-instruct",
        "--device", "none",
        "--n-gpu-layers", "0",
        "--threads", "16",
        "--metrics",
        "--no-slots",
        "--ctx-size", "8192", "--parallel", "2",
    ]  # fmt: skip
    assert dict(command.env) == {
        "CUDA_VISIBLE_DEVICES": "",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "NCCL_IB_DISABLE": "1",
    }
    assert plan.health_path == "/health"
    assert plan.to_dict()["metrics_url"] == "http://10.0.0.12:8081/metrics"


def test_gpu_example() -> None:
    plan = plan_of("llamacpp-gpu.toml")
    (command,) = plan.commands
    assert command.argv() == [
        "llama-server",
        "--model", "/models/gguf/Meta-Llama-3.1-70B-Instruct-Q4_K_M.gguf",
        "--host", "10.0.0.11",
        "--port", "8080",
        "--alias", "llama-3.1-70b-instruct",
        "--device", "CUDA0,CUDA1",
        "--n-gpu-layers", "all",
        "--split-mode", "layer",
        "--tensor-split", "1,1",
        "--lora-scaled", "/adapters/llama-3.1-70b-sql-lora-f16.gguf:0",
        "--metrics",
        "--no-slots",
        "--ctx-size", "32768", "--parallel", "4", "--flash-attn", "on",
        "--cache-type-k", "q8_0", "--cache-type-v", "q8_0",
    ]  # fmt: skip
    assert dict(command.env) == {
        "CUDA_VISIBLE_DEVICES": "2,3",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "NCCL_IB_DISABLE": "1",
        "LLAMA_API_KEY": "example-key-replace-me",
    }
    shown = plan.to_dict()
    assert "example-key-replace-me" not in repr(shown)
    assert any("guards /metrics too" in note for note in plan.notes)
