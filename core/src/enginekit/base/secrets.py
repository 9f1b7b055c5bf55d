"""Secrets in text: the mask, and masking a key wherever a message, an error or a log line carries it."""

from __future__ import annotations

import binascii
import functools
from collections.abc import Iterable

from enginekit.base.errors import EngineError, EnginekitError, HookError
from enginekit.base.text import printable

MASK = "<secret>"


#: Shorter values are not masked: the spec rules refuse such a key (it is guessable), and
#: masking every "8000" or "serve" in a message would make it unreadable.
MIN_MASKED = 8


#: A run of this many characters of a key, or of its base64 or URL-encoded form, is
#: treated as the key: a key cut short (a command named after its first 20 characters),
#: upper- or lower-cased, is still most of it, and a guess from there is cheap.
MIN_RUN = 12

#: What URL encoding leaves as it is (RFC 3986's unreserved characters); every other byte
#: is written ``%XX``. By hand: ``urllib.parse`` costs a cold ``render`` more than all this.
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def masked(text: str, secret: str) -> str:
    """``text`` with every run of :data:`MIN_RUN` or more characters of ``secret`` masked.

    In any case, and in its base64 and URL-encoded forms; ``secret`` itself when it is
    shorter than the run. A value cut short for a message (``'sk-proj-AbCd…``) is still
    most of the key: a prefix of it that ends where the text was cut is masked too.
    """
    if len(secret) < MIN_MASKED:
        return text
    spans = _spans(text, secret)
    if spans:
        pieces = []
        last = 0
        for start, end in spans:
            pieces.append(text[last:start])
            pieces.append(MASK)
            last = end
        pieces.append(text[last:])
        text = "".join(pieces)
    if "…" in text:
        for end in range(min(len(secret), MIN_RUN) - 1, MIN_MASKED - 1, -1):
            text = text.replace(secret[:end] + "…", MASK + "…")
    return text


def leaks(text: str, secret: str) -> bool:
    """Whether ``text`` holds ``secret`` in any form :func:`masked` masks."""
    return len(secret) >= MIN_MASKED and bool(_spans(text, secret))


def argv_leaks(argv: Iterable[str], secret: str) -> bool:
    """Whether ``argv`` carries ``secret`` as :func:`leaks` finds it, in one element or split over several."""
    argv = list(argv)
    return leaks("\0".join(argv), secret) or leaks("".join(argv), secret)


def _spans(text: str, secret: str) -> list[tuple[int, int]]:
    """The sorted, merged ``(start, end)`` spans of ``text`` that are runs of a form of ``secret``.

    In time linear in ``text`` whatever the key: each run of ``run`` characters holds a gram
    of half that length starting at a multiple of it, so only those positions are looked
    up, and a hit is checked against the form's windows around it, never extended one
    character at a time (a long or periodic key would make that quadratic).
    """
    found: list[tuple[int, int]] = []
    if len(text) < MIN_MASKED:
        return found
    low = text.translate(_ASCII_LOWER)  # the same length: only ASCII letters change
    for run, step, grams, windows in _forms(secret):
        for at in range(0, len(low) - step + 1, step):
            if low[at : at + step] in grams:
                for start in range(max(0, at + step - run), min(at, len(low) - run) + 1):
                    if low[start : start + run] in windows:
                        found.append((start, start + run))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


@functools.lru_cache(maxsize=16)
def _forms(secret: str) -> tuple[tuple[int, int, frozenset[str], frozenset[str]], ...]:
    """Each lower-cased form of ``secret``: the run that counts, its half, and both as sets.

    The forms: the key; as ``repr`` escapes it (a message shows values with ``repr``); as
    URL-encoded; and base64 (standard and URL-safe alphabets) at each of the three byte
    alignments the key can have inside a longer encoded value, less the characters that
    depend on its neighbours.
    """
    raw = secret.encode("utf-8", "surrogatepass")
    quoted = "".join(chr(byte) if chr(byte) in _UNRESERVED else f"%{byte:02X}" for byte in raw)
    forms = {secret, repr(secret)[1:-1], quoted, quoted.replace("%20", "+")}
    for shift in range(3):
        encoded = binascii.b2a_base64(bytes(shift) + raw, newline=False).decode("ascii")
        # The first group holds the zero bytes' bits (when shifted), the last the next value's.
        core = encoded[4 if shift else 0 : len(encoded) - 4]
        forms.update((core, core.replace("+", "-").replace("/", "_")))
    answer = []
    for form in sorted(forms):
        low = form.translate(_ASCII_LOWER)
        run = min(MIN_RUN, len(low))
        if run < MIN_MASKED and form != secret:
            continue  # an encoded fragment that short says nothing of the key
        step = max(1, run // 2)
        grams = frozenset(low[at : at + step] for at in range(len(low) - step + 1))
        windows = frozenset(low[at : at + run] for at in range(len(low) - run + 1))
        answer.append((run, step, grams, windows))
    return tuple(answer)


def described(exc: BaseException, secret: str = "") -> str:
    """``Type: message`` for an exception a plugin raised: printable, key masked, never raising.

    The problems of a :class:`~enginekit.base.errors.ProblemsError` are its message, joined.
    """
    kind = printable(type(exc).__name__, 80)
    try:
        problems = getattr(exc, "problems", None)
        text = "; ".join(_plain(p) for p in problems) if problems else _plain(exc)
    except Exception:  # an exception whose __str__ raises says nothing more
        return kind
    return f"{kind}: {printable(masked(text, secret))}" if text else kind


def _plain(value: object) -> str:
    """``str(value)`` as a plain ``str``: a subclass's methods never run on it afterwards."""
    return str.__str__(str(value))


def masked_error(exc: EnginekitError, secret: str) -> EnginekitError:
    """``exc`` as the core's own error of the same kind, with ``secret`` masked and the text printable."""
    return _refusal(exc, secret)


def _refusal(exc: EnginekitError, secret: str) -> EnginekitError:
    """The plugin's refusal as the core's own error of the same kind, masked and printable."""
    from enginekit.base.errors import ProblemsError

    try:
        problems = getattr(exc, "problems", None)
        if isinstance(exc, ProblemsError) and isinstance(problems, tuple | list):
            kind = next(k for k in type(exc).__mro__ if k.__module__ == "enginekit.base.errors")
            return kind([printable(masked(_plain(p), secret)) for p in problems])  # type: ignore[no-any-return]
        kind = next(k for k in type(exc).__mro__ if k.__module__ == "enginekit.base.errors")
        refusal: EnginekitError = kind(printable(masked(_plain(exc), secret)))
        hook = getattr(exc, "hook", None)
        if isinstance(refusal, HookError) and type(hook) is str:
            refusal.hook = hook
        return refusal
    except Exception:
        return EngineError("a plugin raised an error that cannot be shown")


def masked_all(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret replaced by the mask."""
    secrets = list(secrets)
    if not secrets:
        return text
    for secret in secrets:
        text = masked(text, secret)
    return text
