"""The ``enginekit`` command: the edge where config files, stdin and the environment are read.

Importing this package imports only what parsing the arguments needs; each subcommand's
handler, in its own module, imports what it uses when it runs.
"""

from __future__ import annotations

from enginekit.base.exits import (
    EXIT_BUG,
    EXIT_CLOSED_PIPE,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_UNUSABLE,
)
from enginekit.cli.app import main, run
from enginekit.cli.parser import ENV_FORMATS

__all__ = [
    "ENV_FORMATS",
    "EXIT_BUG",
    "EXIT_CLOSED_PIPE",
    "EXIT_INTERRUPTED",
    "EXIT_INVALID",
    "EXIT_OK",
    "EXIT_UNUSABLE",
    "main",
    "run",
]
