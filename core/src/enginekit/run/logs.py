"""Where the runner writes: children's output line by line, prefixed, and its own timestamped messages.

A child may write anything: bytes that are not UTF-8, lines without an end, lines of
megabytes, carriage-return progress bars. Lines are passed on as bytes, never decoded,
cut at :data:`MAX_LINE_BYTES`, and every secret is masked in them before they are written.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import sys
import threading
from collections.abc import Iterable, Sequence
from typing import IO, Protocol

from enginekit.base.secrets import MASK, MIN_MASKED, masked
from enginekit.base.text import printable

#: The longest line passed on in one piece; a longer one is cut into lines of this size.
MAX_LINE_BYTES = 64 * 1024
#: How much a pump reads at once.
READ_BYTES = 64 * 1024
_MASK = MASK.encode()


class ByteSink(Protocol):
    """What output goes to: a binary stream (``sys.stderr.buffer``, a file opened ``"wb"``)."""

    def write(self, data: bytes, /) -> object: ...

    def flush(self) -> object: ...


def timestamp() -> str:
    """Now, in UTC, as ISO 8601 with milliseconds: ``2025-01-31T12:00:00.123Z``."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


class LineSplitter:
    """Bytes in, whole lines out: each prefixed, every secret masked, none longer than the limit.

    A line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (a progress bar's redraw). A line
    longer than ``limit`` is cut; the cut never falls inside a secret still arriving.
    """

    def __init__(self, prefix: bytes, secrets: Iterable[str] = (), *, limit: int = MAX_LINE_BYTES) -> None:
        self._prefix = prefix
        self._secrets = sorted({s.encode() for s in secrets if s}, key=len, reverse=True)
        # Bytes kept back at a cut: a secret split there would be masked in neither half.
        self._keep = max((len(s) for s in self._secrets), default=1) - 1
        self._limit = max(limit, self._keep + 1)
        self._pending = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        """The lines ``chunk`` completes, each ending in ``\\n``."""
        data = self._pending + chunk
        lines: list[bytes] = []
        start = 0
        while True:
            end = _line_end(data, start)
            if end is None:
                break
            stop, after = end
            if stop == len(data) - 1 and data[stop:] == b"\r":
                break  # a "\r" last: its "\n" may be in the next chunk
            lines += self._pieces(data[start:stop])
            start = after
        rest = data[start:]
        # Beyond the limit, with room for a secret still arriving to stay whole after the cut.
        while len(rest) > self._limit + self._keep:
            cut = self._cut(rest)
            lines.append(rest[:cut])
            rest = rest[cut:]
        self._pending = rest
        return [self._line(line) for line in lines]

    def _pieces(self, line: bytes) -> list[bytes]:
        """A whole line, cut where it is longer than the limit."""
        pieces = []
        while len(line) > self._limit:
            cut = self._cut(line)
            pieces.append(line[:cut])
            line = line[cut:]
        return [*pieces, line]

    def finish(self) -> list[bytes]:
        """What is left at the end of the stream, as a last line; nothing when nothing is left."""
        rest, self._pending = self._pending.rstrip(b"\r"), b""
        return [self._line(piece) for piece in self._pieces(rest)] if rest else []

    def _cut(self, data: bytes) -> int:
        cut = self._limit
        for secret in self._secrets:
            # A secret that starts before the cut and ends after it moves the cut before it.
            found = data.find(secret, max(cut - len(secret) + 1, 0), cut + len(secret) - 1)
            if 0 < found < cut:
                return found
        return cut

    def _line(self, line: bytes) -> bytes:
        for secret in self._secrets:
            line = line.replace(secret, _MASK)
            if len(line) >= MIN_MASKED:
                # Most of a key, re-cased, encoded or cut short before an ellipsis, is masked
                # as the key is; bytes that are not UTF-8 come back unchanged.
                text = line.decode("utf-8", "surrogateescape")
                shown = masked(text, secret.decode("utf-8", "surrogateescape"))
                if shown != text:
                    line = shown.encode("utf-8", "surrogateescape")
        return self._prefix + line + b"\n"


def _line_end(data: bytes, start: int) -> tuple[int, int] | None:
    """Where the next line from ``start`` ends and the one after begins, or None."""
    newline = data.find(b"\n", start)
    ret = data.find(b"\r", start, newline if newline >= 0 else len(data))
    if ret >= 0:
        return (ret, ret + 2) if data[ret + 1 : ret + 2] == b"\n" else (ret, ret + 1)
    if newline >= 0:
        return newline, newline + 1
    return None


class LogSink:
    """One output stream shared by every pump and the runner: whole lines only, secrets masked.

    A stream that cannot be written (closed, a reader gone) is given up on quietly: the
    children are never held back because nobody reads their logs.
    """

    def __init__(self, stream: ByteSink, secrets: Sequence[str] = ()) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        #: Read at every message: a key learnt later is masked too.
        self.secrets = secrets
        self._broken = False

    def write_lines(self, lines: Iterable[bytes]) -> None:
        """Lines already split and masked, written together."""
        data = b"".join(lines)
        if not data:
            return
        with self._lock:
            if self._broken:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
            except (OSError, ValueError):
                self._broken = True

    def say(self, message: str, *, kind: str = "") -> None:
        """One message of the runner's, timestamped, secrets masked, never able to forge a line."""
        from enginekit.base.secrets import masked_all

        label = f"{kind}: " if kind else ""
        lines = masked_all(message, self.secrets).split("\n")
        text = "".join(f"{timestamp()} enginekit run: {label}{printable(line, 4000)}\n" for line in lines)
        self.write_lines([text.encode("utf-8", "backslashreplace")])


def pump(fd: int, splitter: LineSplitter, sink: LogSink) -> None:
    """Pass what ``fd`` yields to ``sink`` line by line until its end; then close it."""
    try:
        while True:
            try:
                chunk = os.read(fd, READ_BYTES)
            except InterruptedError:  # pragma: no cover - PEP 475 retries it
                continue
            except OSError:
                break
            if not chunk:
                break
            sink.write_lines(splitter.feed(chunk))
        sink.write_lines(splitter.finish())
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


def default_stream() -> ByteSink:
    """The runner's stderr, as bytes."""
    buffer = getattr(sys.stderr, "buffer", None)
    if buffer is not None:
        return buffer  # type: ignore[no-any-return]
    return _TextStream(sys.stderr)


class _TextStream:
    """A text stream (a test's capture, a replaced ``sys.stderr``) taking bytes."""

    def __init__(self, stream: IO[str] | None) -> None:
        self._stream = stream

    def write(self, data: bytes, /) -> int:
        if self._stream is not None:
            self._stream.write(data.decode("utf-8", "backslashreplace"))
        return len(data)

    def flush(self) -> None:
        if self._stream is not None:
            self._stream.flush()
