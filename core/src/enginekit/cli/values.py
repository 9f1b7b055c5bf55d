"""Option value types for the command line: argparse's ``type=`` functions, shared by every subcommand."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from pathlib import Path

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


#: A number as the command line takes one: ASCII digits, an optional fraction, nothing
#: else. ``float`` and ``int`` alone take more: ``1_0`` (ten), other scripts' digits
#: (``١٠``), spaces around, ``inf``, ``1e3``, a sign.
_DECIMAL = re.compile(r"[0-9]{1,30}(\.[0-9]{1,30})?\Z")
_WHOLE = re.compile(r"[0-9]{1,9}\Z")


def whole(text: str) -> int | None:
    """``text`` as a whole number written in plain decimal digits (at most 9), else None."""
    return int(text) if _WHOLE.match(text) else None


def count(text: str) -> int:
    """A whole number; argparse's ``type``."""
    value = whole(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    return value


def seconds(text: str) -> float:
    """An option's value as a positive number of seconds, at most a day; argparse's ``type``."""
    if not _DECIMAL.match(text):
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds in plain digits (such as 30 or 2.5), got {text!r}"
        )
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    if value > MAX_TIMEOUT:
        # Beyond what the OS's wait takes (it overflows), and never what was meant.
        raise argparse.ArgumentTypeError(f"expected at most {MAX_TIMEOUT:g} seconds (a day), got {text!r}")
    return value


def status_path(text: str) -> Path:
    """``--status-file``'s value: a path the runner may replace, judged before anything starts.

    What is there is judged again at every write (``enginekit.run.status``); this makes a
    wrong path an error at once, not a warning once the shard is running.
    """
    from enginekit.run.status import refusal

    if not text:
        # An empty path would name the current directory.
        raise argparse.ArgumentTypeError("expected a file path, got ''")
    path = Path(text)
    why = refusal(path)
    if why is not None:
        raise argparse.ArgumentTypeError(why)
    return path
