"""The core distribution's version, the one place it is written (the build reads it from here)."""

from __future__ import annotations

__version__ = "1.0.0"
