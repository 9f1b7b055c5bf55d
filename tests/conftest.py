"""Cross-distribution tests: they need core and every in-repo engine plugin installed."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
IN_REPO_ENGINES = {"vllm", "sglang", "llamacpp", "trtllm", "sim"}
