"""Option value types for the command line: argparse's ``type=`` functions, shared by every subcommand."""

from __future__ import annotations

import argparse
import math

MAX_TIMEOUT = 86400.0


def variable(text: str) -> str:
    """An environment variable's name; argparse's ``type``. Empty would read as not given."""
    if not text or "=" in text or "\0" in text:
        raise argparse.ArgumentTypeError(f"expected an environment variable's name, got {text!r}")
    return text


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
