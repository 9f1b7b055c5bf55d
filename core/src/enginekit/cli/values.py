"""Option value types for the command line: argparse's ``type=`` functions, shared by every subcommand."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

MAX_TIMEOUT = 86400.0


def carrier(field: str) -> Callable[[str], str]:
    """argparse's ``type`` for ``--FIELD-from-env``: a variable that may carry ``field``.

    Empty would read as not given; a name the shell, Slurm or enginekit sets or reads
    itself is refused (``enginekit.policy.carriers``), the key's more strictly.
    """

    def variable(text: str) -> str:
        from enginekit.policy.carriers import problem

        why = problem(text, field)
        if why is not None:
            raise argparse.ArgumentTypeError(why)
        return text

    variable.__name__ = "variable"  # argparse names the type in its messages
    return variable


def seconds(text: str) -> float:
    """An option's value as a positive number of seconds, at most a day; argparse's ``type``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    if value > MAX_TIMEOUT:
        # Beyond what the OS's wait takes (it overflows), and never what was meant.
        raise argparse.ArgumentTypeError(f"expected at most {MAX_TIMEOUT:g} seconds (a day), got {text!r}")
    return value
