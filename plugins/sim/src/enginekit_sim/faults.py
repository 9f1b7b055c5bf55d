"""Faults the simulated engine injects on demand: how each is written, parsed and scoped to a rank."""

from __future__ import annotations

from dataclasses import dataclass

#: Every fault, with its argument syntax and what a supervisor sees. ``@RANK`` after any
#: of them limits it to that node rank (``crash-after-seconds:5@1``).
FAULTS: dict[str, str] = {
    "exit-at-start": "exit-at-start[:CODE]: exit with CODE (default 1) before listening on any port",
    "hang-at-start": "hang-at-start: stay alive but never become ready (/health answers 503 for ever)",
    "crash-after-seconds": "crash-after-seconds:S[:CODE]: exit with CODE (default 1) S seconds after ready",
    "crash-after-requests": "crash-after-requests:N[:CODE]: answer N requests, exit with CODE at the next",
    "flap-health": "flap-health:SECONDS: once ready, /health alternates 200 and 503 every SECONDS",
    "slow-health": "slow-health:SECONDS: /health answers only after SECONDS",
    "cpu-fallback": "cpu-fallback: serve as usual, but the device listing reports no GPU (fell back to CPU)",
}
_NO_ARGUMENT = frozenset({"hang-at-start", "cpu-fallback"})
_WITH_CODE = frozenset({"exit-at-start", "crash-after-seconds", "crash-after-requests"})
_COUNTED = frozenset({"crash-after-requests"})


@dataclass(frozen=True)
class Fault:
    """One injected fault: its kind, its amount (seconds or requests), exit code and rank."""

    kind: str
    amount: float = 0.0
    code: int = 1
    #: The only node rank it applies to; None applies it to every rank.
    rank: int | None = None

    def applies_to(self, rank: int) -> bool:
        """Whether this fault is injected on node rank ``rank``."""
        return self.rank is None or self.rank == rank


def parse_fault(text: str) -> Fault:
    """Parse one fault as written after ``--fault``.

    :raises ValueError: naming what is wrong and the accepted forms.
    """
    body, at, rank_text = text.partition("@")
    rank = None
    if at:
        if not rank_text.isdigit():
            raise ValueError(f"fault {text!r}: the rank after '@' must be a node rank (0, 1, ...)")
        rank = int(rank_text)
    kind, *parts = body.split(":")
    if kind not in FAULTS:
        raise ValueError(f"fault {text!r}: unknown kind {kind!r}; expected one of {', '.join(FAULTS)}")
    usage = f"fault {text!r}: expected {_usage(kind)}"
    most = 0 if kind in _NO_ARGUMENT else 2 if kind in _WITH_CODE else 1
    if len(parts) > most or (kind not in _NO_ARGUMENT | {"exit-at-start"} and not parts):
        raise ValueError(usage)
    if kind == "exit-at-start":
        return Fault(kind, code=_code(parts[0], usage) if parts else 1, rank=rank)
    if kind in _NO_ARGUMENT:
        return Fault(kind, rank=rank)
    amount = _amount(parts[0], usage, whole=kind in _COUNTED)
    code = _code(parts[1], usage) if len(parts) > 1 else 1
    return Fault(kind, amount=amount, code=code, rank=rank)


def _usage(kind: str) -> str:
    return FAULTS[kind].split(": ", 1)[0]


def _amount(text: str, usage: str, *, whole: bool) -> float:
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        raise ValueError(f"{usage} ({text!r} is not a {'whole number' if whole else 'number'})") from None
    if not 0 <= value < 1e9:
        raise ValueError(f"{usage} ({text!r} must be 0 or more)")
    return float(value)


def _code(text: str, usage: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 255:
        raise ValueError(f"{usage} (exit code {text!r} must be 0-255)")
    return int(text)


def parse_faults(texts: tuple[str, ...] | list[str]) -> list[Fault]:
    """Parse several faults, reporting every bad one at once.

    :raises ValueError: with one sentence per bad fault, joined by ``; ``.
    """
    faults, problems = [], []
    for text in texts:
        try:
            faults.append(parse_fault(text))
        except ValueError as exc:
            problems.append(str(exc))
    if problems:
        raise ValueError("; ".join(problems))
    return faults
