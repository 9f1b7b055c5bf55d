"""enginekit engine plugin for vLLM: ``vllm serve`` command lines, single node, Ray or native multi-node."""

from __future__ import annotations

from enginekit_vllm.config import VllmConfig
from enginekit_vllm.plugin import VllmEngine

__all__ = ["VllmConfig", "VllmEngine"]
