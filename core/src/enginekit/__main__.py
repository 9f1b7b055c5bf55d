"""``python -m enginekit``: the same as the ``enginekit`` command."""

from __future__ import annotations

from enginekit.cli import run

run()
