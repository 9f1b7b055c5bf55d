"""enginekit-sglang: the enginekit engine plugin that starts SGLang servers."""

from __future__ import annotations

from enginekit_sglang.config import SglangConfig
from enginekit_sglang.plugin import SglangEngine

__all__ = ["SglangConfig", "SglangEngine"]
