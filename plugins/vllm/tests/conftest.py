"""Lets the vLLM tests import their shared specs (``vllm_specs``) under ``--import-mode=importlib``."""

from __future__ import annotations

import sys
from pathlib import Path

# importlib mode puts no test directory on sys.path; the helper's name is unique to this plugin.
_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
