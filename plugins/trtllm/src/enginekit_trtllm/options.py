"""The extra LLM API options document enginekit hands trtllm-serve, as JSON (which is YAML)."""

from __future__ import annotations

import json
import re
from typing import Any

from enginekit.plugin import Profile

from enginekit_trtllm.config import TrtllmConfig

#: The launcher takes the document from this variable and writes it to a private file.
OPTIONS_ENV = "ENGINEKIT_TRTLLM_OPTIONS"
OPTIONS_FILENAME = "extra_llm_api_options.yaml"

# An escaped backslash, or a JSON surrogate pair (a character outside the BMP).
_ESCAPE = re.compile(r"\\\\|\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})")


def options_document(profile: Profile, config: TrtllmConfig) -> dict[str, Any]:
    """The LLM API options this profile needs; empty when it needs none."""
    doc: dict[str, Any] = {}
    if config.prometheus_metrics:
        # openai_server.py mounts Prometheus text at /prometheus/metrics only when the
        # LLM's args have return_perf_metrics; /metrics itself is JSON iteration stats.
        doc["return_perf_metrics"] = True
    if profile.adapters:
        lora: dict[str, Any] = {
            # In the profile's order: an adapter's index is the lora_int_id requests use.
            "lora_dir": [adapter.path for adapter in profile.adapters],
            "max_lora_rank": config.max_lora_rank,
            "max_loras": len(profile.adapters),
            "max_cpu_loras": len(profile.adapters),
        }
        if len(profile.adapters) > 1:
            # With exactly one lora_dir the pytorch backend reads the target modules from
            # it; with several it asserts unless they are named.
            lora["lora_target_modules"] = list(config.lora_target_modules)
        doc["lora_config"] = lora
    return doc


def options_text(doc: dict[str, Any]) -> str:
    """The document as text serve's ``yaml.safe_load`` reads: JSON, ASCII-only.

    JSON is a subset of YAML, so no YAML writer is needed; escaping every non-ASCII
    character keeps the text exact through the environment and any file encoding. One
    exception: PyYAML reads JSON's surrogate pairs as two lone surrogates, so a character
    beyond the BMP is written as YAML's own ``\\UXXXXXXXX`` escape instead.
    """
    return _ESCAPE.sub(_astral, json.dumps(doc, ensure_ascii=True, sort_keys=False))


def _astral(match: re.Match[str]) -> str:
    if match[1] is None:
        return match[0]
    high, low = int(match[1], 16), int(match[2], 16)
    return f"\\U{0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00):08X}"
