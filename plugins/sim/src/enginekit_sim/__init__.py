"""enginekit-sim: the simulated inference engine, as an enginekit plugin and as a real server."""

from __future__ import annotations

__version__ = "0.1.0"
