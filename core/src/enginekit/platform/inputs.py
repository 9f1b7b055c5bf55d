"""What a hook was given, recorded so that a hook that changed it is found, named and undone.

The model is frozen all the way down (attrs frozen classes, tuples, :class:`FrozenDict`),
so a hook can change its input only by going around that: ``object.__setattr__(shard,
"gpu_indices", (0,))``, ``dict.__setitem__(profile.env, k, v)``, or a list it smuggled in
that way and then appended to. Left alone, such a change rewrites the caller's spec (a
plan would say GPUs 0-7 while ``CUDA_VISIBLE_DEVICES`` says 0) and every later hook's.

:class:`Inputs` records every object reachable from a hook's arguments: for an attrs
instance, its fields' values *by identity*; for a table or a list, its items. Comparing
again is a few C-level passes, no copy: measured in ``bench/bench_plan.py`` against the
other way (a deep copy before, compared after). What changed is put back by
:meth:`Inputs.restore`, so the caller's spec is unchanged whatever the plugin did.
"""

from __future__ import annotations

import functools
import operator
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any

import attrs

#: Values that cannot hold anything a hook could change.
_ATOMS = frozenset({str, int, float, bool, type(None), bytes, complex})
#: Kinds of record.
_FIELDS, _TABLE, _LIST = 0, 1, 2


def _holds_nothing_changeable(tp: object) -> bool:
    """Whether a field of declared type ``tp`` holds only values no hook can change in place.

    A ``str`` or a ``tuple[int, ...]`` is replaced, never changed: the identity check of the
    field itself sees that. A nested attrs class, a table or an ``object`` may change inside.
    """
    if tp in _ATOMS:
        return True
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (tuple, frozenset) or origin is types.UnionType or origin is typing.Union:
        return all(arg is Ellipsis or _holds_nothing_changeable(arg) for arg in args)
    return False


@functools.cache
def _getter(cls: type) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]], tuple[int, ...]] | None:
    """For an attrs class: its field names, one C-level getter returning their values as a
    tuple, and the positions of the fields whose declared type can hold something changeable."""
    if getattr(cls, "__attrs_attrs__", None) is None:
        return None
    try:
        fields = attrs.fields(attrs.resolve_types(cls))
        kinds = [_holds_nothing_changeable(field.type) for field in fields]
    except Exception:  # annotations that do not resolve: look inside every field
        fields = attrs.fields(cls)
        kinds = [False] * len(fields)
    names = tuple(field.name for field in fields)
    many = operator.attrgetter(*names) if names else (lambda _: ())
    one: Callable[[Any], tuple[Any, ...]] = (lambda obj: (many(obj),)) if len(names) == 1 else many
    return names, one, tuple(i for i, plain in enumerate(kinds) if not plain)


def _recorded(value: object) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]], tuple[int, ...]]:
    """The getter of an attrs instance's class, which recording it made."""
    cls: type = type(value)
    found = _getter(cls)
    assert found is not None  # recorded only when it had one
    return found


class Inputs:
    """Everything reachable from some values, recorded; then whether any of it changed, and undoing it."""

    __slots__ = ("_records",)

    def __init__(self, values: Iterable[object]) -> None:
        records: list[tuple[Any, tuple[Any, ...], int]] = []
        seen: set[int] = set()
        stack: list[Any] = list(values)
        while stack:
            value = stack.pop()
            cls: type = type(value)
            if cls in _ATOMS or id(value) in seen:
                continue
            seen.add(id(value))
            if cls is tuple or cls is frozenset:
                stack.extend(value)  # cannot change, but what it holds might
            elif isinstance(value, dict):
                items = tuple(dict.items(value))
                records.append((value, items, _TABLE))
                stack.extend(v for _, v in items)
            elif cls is list:
                snapshot = tuple(value)
                records.append((value, snapshot, _LIST))
                stack.extend(snapshot)
            else:
                getter = _getter(cls)
                if getter is not None:
                    snapshot = getter[1](value)
                    records.append((value, snapshot, _FIELDS))
                    stack.extend([snapshot[i] for i in getter[2]])
        self._records = records

    def changed(self) -> str | None:
        """What changed, as ``Class.field`` (or the table's or list's kind); ``None`` when nothing did."""
        for value, snapshot, kind in self._records:
            if kind == _FIELDS:
                names, getter, _ = _recorded(value)
                now = getter(value)
                # Identity first, element by element, in C; a field replaced by an equal
                # value changed nothing a later hook reads.
                if now != snapshot:
                    field = next(n for n, a, b in zip(names, now, snapshot, strict=True) if a != b)
                    return f"{type(value).__name__}.{field}"
            elif kind == _TABLE:
                if tuple(dict.items(value)) != snapshot:
                    return "a table (its items)"
            elif tuple(value) != snapshot:
                return "a list (its items)"
        return None

    def restore(self) -> None:
        """Put back everything recorded: the caller's objects hold what they held before."""
        for value, snapshot, kind in self._records:
            if kind == _FIELDS:
                names = _recorded(value)[0]
                for name, old in zip(names, snapshot, strict=True):
                    object.__setattr__(value, name, old)
            elif kind == _TABLE:
                dict.clear(value)
                dict.update(value, snapshot)
            else:
                value[:] = snapshot
