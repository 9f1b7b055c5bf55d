"""``FrozenDict``: the read-only mapping the model's tables are, so a hook cannot change what it is given.

A subclass of ``dict``, not a new ``Mapping``: everything that reads a dict (``json``,
``subprocess``'s ``env=``, cattrs, ``isinstance(x, dict)`` in a plugin) reads it unchanged,
at the C speed of a dict. Every method that would change it raises ``TypeError``; what
bypasses that (``dict.__setitem__(d, k, v)``) is what the registry's input check catches.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class FrozenDict(dict[K, V]):
    """A ``dict`` that cannot be changed after it is made; hashable, equal to a dict with the same items."""

    __slots__ = ()

    def _read_only(self, *_args: object, **_kwargs: object) -> NoReturn:
        raise TypeError(
            "this table is read-only: enginekit's model is frozen all the way down; "
            "build a new one (dict(table) | {...}) instead"
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # dict.__init__ on a table that has items would add to it: a second call changes it.
        if self:
            self._read_only()
        dict.__init__(self, *args, **kwargs)

    __setitem__ = __delitem__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only
    __ior__ = _read_only

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[Any, ...]:
        # pickle and copy build it from a plain dict; dict's own reduce would call __setitem__.
        return (type(self), (dict(self),))

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


def frozen(value: Mapping[K, V] | Iterable[tuple[K, V]]) -> FrozenDict[K, V]:
    """``value`` as a :class:`FrozenDict`; one already frozen is returned as it is (no copy)."""
    return value if type(value) is FrozenDict else FrozenDict(value)
