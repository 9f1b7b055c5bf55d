"""The render plugin: the simulated engine's hooks and node config; nothing of the server is imported."""

from __future__ import annotations

from enginekit_sim.plugin.hooks import SimEngine

__all__ = ["SimEngine"]
