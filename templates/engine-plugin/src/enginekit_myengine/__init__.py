"""enginekit engine plugin for myengine-server (a template: copy it, rename it, make it yours)."""

from __future__ import annotations

from enginekit_myengine.config import MyEngineConfig
from enginekit_myengine.plugin import MyEngine

__all__ = ["MyEngine", "MyEngineConfig"]
