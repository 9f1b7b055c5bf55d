"""The ``enginekit`` logger, imported only when something is logged: logging costs start-up time."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging


def logger() -> logging.Logger:
    """The logger every enginekit warning goes to."""
    import logging

    return logging.getLogger("enginekit")
