"""Which characters may reach an argv element, an environment value or a log line, and why not."""

from __future__ import annotations

import functools
import re
from typing import Any

#: Characters no string bound for a process may hold:
#:
#: - NUL ends a C string early at exec, so the engine reads less than was checked;
#: - C0 and C1 controls and DEL split ``KEY=VALUE`` lines, forge log lines and drive terminals;
#: - bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) make an operator
#:   read ``--a --b`` where the bytes say ``--b --a`` ("Trojan Source");
#: - U+2028 and U+2029 are line breaks to JavaScript and to some log viewers;
#: - invisible characters — direction marks (U+061C, U+200E, U+200F), zero-width spaces
#:   and joiners (U+200B–U+200D, U+2060–U+2064, U+FEFF) and tag characters
#:   (U+E0000–U+E007F) — make two different strings look the same;
#: - a lone surrogate is not text at all: it cannot be encoded as UTF-8, so it crashes
#:   whatever prints or execs it.
#:
#: Compiled the first time it is read (a module ``__getattr__``): the common text, printable
#: ASCII, never needs it, and compiling it was a sizeable part of starting a command.
UNSAFE_CHARACTERS: re.Pattern[str]
_UNSAFE_CHARACTERS = (
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064"
    "\u2066-\u2069\ufeff\ud800-\udfff\U000e0000-\U000e007f]"
)


@functools.cache
def _unsafe() -> re.Pattern[str]:
    return re.compile(_UNSAFE_CHARACTERS)


def __getattr__(name: str) -> Any:
    if name == "UNSAFE_CHARACTERS":
        globals()[name] = pattern = _unsafe()  # found directly from now on
        return pattern
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def has_unsafe(text: str) -> bool:
    """Whether ``text`` holds a character of :data:`UNSAFE_CHARACTERS`.

    Printable ASCII, by far the common case, is answered without the pattern: in ASCII the
    unsafe characters are exactly the ones ``str.isprintable`` refuses (controls and DEL),
    and both tests run in C, many times faster than a search. They are ``str``'s own
    methods, called as such: a subclass that overrides them answers nothing here.
    """
    if str.isascii(text) and str.isprintable(text):
        return False
    return _unsafe().search(text) is not None


def unsafe_text(text: str) -> str | None:
    """Why ``text`` may not reach a process, or None when it may. The text itself is never echoed."""
    if str.isascii(text) and str.isprintable(text):
        return None
    found = _unsafe().search(text)
    if found is None:
        return None
    return f"contains {describe(found.group())}"


def describe(char: str) -> str:
    """Name one unsafe character by kind and code point, never by showing it."""
    code = ord(char)
    if code == 0:
        kind = "a NUL byte"
    elif code < 0x20 or code == 0x7F:
        kind = "a control character"
    elif code <= 0x9F:
        kind = "a C1 control character"
    elif code in (0x2028, 0x2029):
        kind = "a Unicode line separator"
    elif 0xD800 <= code <= 0xDFFF:
        kind = "a lone surrogate (not valid Unicode text)"
    elif 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069:
        kind = "a bidirectional override"
    else:
        kind = "an invisible character"
    return f"{kind} (U+{code:04X})"


def printable(text: str, limit: int = 2000) -> str:
    """``text`` fit for one line of a terminal: unsafe characters escaped, at most ``limit`` long.

    For text enginekit did not write (a plugin's message, a name from an entry point):
    shown, so an operator can act on it, but never able to forge a line or hide itself.
    """
    if has_unsafe(text):
        text = "".join(_escaped(char) for char in text)
    return text if len(text) <= limit else text[:limit] + "…"


def _escaped(char: str) -> str:
    return f"\\u{{{ord(char):04X}}}" if _unsafe().match(char) else char


# The patterns are compiled by ``re`` (and kept in its cache) when a check first reads
# them: `enginekit engines` checks only the ``unavailable`` answer, which reads none.
#: A variable name or namespace: ASCII letters, digits and ``_``, not starting with a digit.
_PORTABLE = r"[A-Za-z_][A-Za-z0-9_]{0,255}\Z"


def is_portable_name(name: str) -> bool:
    """Whether ``name`` means one variable to every exec: a POSIX portable name.

    ``CUDA_VISIBLE_DEVICES=0,1`` as a name would be a second entry for the real variable.
    """
    return re.match(_PORTABLE, name) is not None


def is_url_path(path: str) -> bool:
    """Whether ``path`` can follow a base URL: it starts with ``/`` and is plain text.

    ``12345`` would make http://127.0.0.1:800012345 of a health URL, ``@evil/`` another host.
    """
    return path.startswith("/") and not unsafe_text(path) and " " not in path


def host_port(host: str, port: int) -> str:
    """``host:port``, with an IPv6 address in brackets (``[fd00::1]:29500``) as every parser wants."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
