"""enginekit engine plugin for llama.cpp's ``llama-server``."""

from __future__ import annotations

from enginekit_llamacpp.config import LlamaCppConfig
from enginekit_llamacpp.plugin import LlamaCppEngine

__all__ = ["LlamaCppConfig", "LlamaCppEngine"]
