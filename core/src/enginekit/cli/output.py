"""Where the command writes: its output to stdout at the end, messages to stderr, secrets masked."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import IO

from enginekit.base.exits import EXIT_CLOSED_PIPE, EXIT_UNUSABLE
from enginekit.base.secrets import masked_all


def error(message: str, *, kind: str = "error", secrets: Iterable[str] = ()) -> None:
    """One message on stderr, ``enginekit: KIND: message``, never the secrets."""
    if sys.stderr is None:
        return  # stderr closed: print(file=None) would write the message to stdout
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(f"enginekit: {kind}: {masked_all(message, secrets)}", file=sys.stderr)


def problems(kind: str, found: Sequence[str], *, secrets: Iterable[str] = ()) -> None:
    """Every problem at once: one line for one, a counted list for several."""
    if len(found) == 1:
        error(found[0], kind=kind, secrets=secrets)
        return
    lines = [f"{len(found)} problems:", *(f"  - {problem}" for problem in found)]
    error("\n".join(lines), kind=kind, secrets=secrets)


@contextlib.contextmanager
def stdout_to_stderr(secrets: Sequence[str] = ()) -> Iterator[None]:
    """Point stdout at stderr, for Python's ``print`` and for file descriptor 1 alike.

    Whatever plugins print while they are imported or called goes to stderr: stdout holds
    the command's output and nothing else, so ``--json`` is always JSON. What they print
    through Python has ``secrets`` masked (the list is read at each write, so a key read
    later is masked too); with stderr closed, it goes nowhere.
    """
    saved: int | None = None
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stdout.flush()
        saved = os.dup(1)
        try:
            os.dup2(2, 1)
        except OSError:
            # Descriptor 2 is closed: a plugin writing to 1 must still never reach stdout.
            sink = os.open(os.devnull, os.O_WRONLY)
            os.dup2(sink, 1)
            os.close(sink)
    target = _Masking(sys.stderr, secrets) if sys.stderr is not None else _Nowhere()
    try:
        with contextlib.redirect_stdout(target):
            yield
    finally:
        if saved is not None:
            # Flushed while fd 1 is still stderr: what a plugin wrote through the
            # interpreter's original stdout object must not surface after the output.
            with contextlib.suppress(OSError, ValueError, AttributeError):
                sys.__stdout__.flush()  # type: ignore[union-attr]
            os.dup2(saved, 1)
            os.close(saved)


class _Masking:
    """A text stream that masks the secrets in what is written through it."""

    def __init__(self, stream: IO[str], secrets: Sequence[str]) -> None:
        self._stream, self._secrets = stream, secrets

    def write(self, text: str) -> int:
        self._stream.write(masked_all(text, self._secrets))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


class _Nowhere:
    """Where a plugin's ``print`` goes when stderr is closed."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def tolerant_streams() -> None:
    """Escape what the terminal's encoding cannot show instead of failing on it."""
    # A terminal or pipe whose encoding cannot show a character (PYTHONIOENCODING=ascii
    # and a model path with an é) gets an escape, not a UnicodeEncodeError.
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(Exception):
                reconfigure(errors="backslashreplace")


def emit(text: str, code: int) -> int:
    """Write the output; a reader that went away ends the command quietly, a full disk with one line."""
    try:
        if sys.stdout is None:
            raise OSError(errno.EBADF, "stdout is closed")
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # Nothing more can be written there; point stdout at /dev/null so the
        # interpreter's own flush at exit does not fail a second time.
        _silence_stdout()
        return EXIT_CLOSED_PIPE
    except OSError as exc:
        _silence_stdout()
        error(f"cannot write the output: {exc.strerror or exc}")
        return EXIT_UNUSABLE
    return code


def _silence_stdout() -> None:
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
