"""enginekit engine plugin for TensorRT-LLM's ``trtllm-serve``, started through a configured interpreter."""

from __future__ import annotations

from enginekit_trtllm.config import TrtllmConfig
from enginekit_trtllm.plugin import TrtllmEngine

__all__ = ["TrtllmConfig", "TrtllmEngine"]
