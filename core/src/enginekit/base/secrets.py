"""Secrets in text: the mask, and masking a key wherever a message, an error or a log line carries it."""

from __future__ import annotations

from collections.abc import Iterable

from enginekit.base.errors import EngineError, EnginekitError, HookError
from enginekit.base.text import printable

MASK = "<secret>"


#: Shorter values are not masked: the spec rules refuse such a key (it is guessable), and
#: masking every "8000" or "serve" in a message would make it unreadable.
MIN_MASKED = 8


def masked(text: str, secret: str) -> str:
    """``text`` with every occurrence of ``secret`` replaced by the mask.

    A value cut short for a message (``'sk-proj-AbCd…``) is still most of the key: a
    prefix of it that ends where the text was cut is masked too.
    """
    if len(secret) < MIN_MASKED:
        return text
    text = text.replace(secret, MASK)
    quoted = repr(secret)[1:-1]
    if quoted != secret:
        # A message shows a value with repr(): a key holding a quote or a backslash is
        # escaped there, and must be found in that form too.
        text = text.replace(quoted, MASK)
    if "…" in text:
        for end in range(len(secret) - 1, MIN_MASKED - 1, -1):
            text = text.replace(secret[:end] + "…", MASK + "…")
    return text


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
