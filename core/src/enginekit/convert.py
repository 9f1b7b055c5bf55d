"""The one shared cattrs converter: strict types, Go field spellings, unknown keys by path."""

from __future__ import annotations

import functools
import json
import sys
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import attrs
import cattrs

from enginekit.errors import SpecError

T = TypeVar("T")


def _strict_int(value: object, _: type) -> int:
    # bool is an int in Python: a spec saying ``tp = true`` is a mistake, not 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {_shown(value)}")
    return value


def _strict_str(value: object, _: type) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {_shown(value)}")
    return value


def _strict_bool(value: object, _: type) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {_shown(value)}")
    return value


def _shown(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'…' if len(text) > 40 else ''}"


def _fast_tuple(conv: cattrs.Converter, item: type) -> Callable[[object, type], tuple[Any, ...]]:
    """A hook for ``tuple[item, ...]``: plain well-typed lists skip cattrs' per-element machinery."""
    slow = conv.get_structure_hook(tuple[item, ...])  # type: ignore[valid-type]

    def structure_tuple(value: object, tp: type) -> tuple[Any, ...]:
        if type(value) in (list, tuple) and all(type(x) is item for x in value):  # type: ignore[attr-defined]
            return tuple(value)  # type: ignore[arg-type]
        return slow(value, tp)  # type: ignore[no-any-return]

    return structure_tuple


def _is_tuple_of(item: type) -> Callable[[Any], bool]:
    exact = tuple[item, ...]  # type: ignore[valid-type]
    return lambda tp: bool(tp == exact)


def _make_converter() -> cattrs.Converter:
    conv = cattrs.Converter()
    conv.register_structure_hook(int, _strict_int)
    conv.register_structure_hook(str, _strict_str)
    conv.register_structure_hook(bool, _strict_bool)
    for item in (int, str):
        conv.register_structure_hook_func(_is_tuple_of(item), _fast_tuple(conv, item))
    conv.register_unstructure_hook(frozenset, sorted)
    return conv


#: The converter for every model type and every engine's config section. A plugin that
#: needs its own hooks uses ``converter.copy()`` and never registers on this one.
converter = _make_converter()


@functools.lru_cache(maxsize=1024)
def _folded(name: str) -> str:
    """Fold a field name so snake_case and the Go agent's spellings meet.

    ``replica_id``, ``ReplicaID`` and ``replicaId`` all fold to ``replicaid``; Go's
    encoding/json matches keys case-insensitively too, so specs persisted by the Go
    agent (``GPUIndices``, ``HTTPPort``, ``GIDIndex``, ``kv_events_port``…) load unchanged.
    """
    return name.replace("_", "").lower()


def _inner_attrs_type(tp: Any) -> type | None:
    """The attrs class a field holds directly or as tuple elements, if any."""
    if attrs.has(tp):
        return typing.cast("type", tp)
    if typing.get_origin(tp) is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis and attrs.has(args[0]):
            return typing.cast("type", args[0])
    return None


@attrs.frozen
class _FieldInfo:
    name: str
    accepts_none: bool
    #: The attrs class of a nested field, and whether it is a tuple of them.
    nested: type | None
    many: bool


@functools.cache
def _fields_of(cls: type) -> dict[str, _FieldInfo]:
    """Each field of ``cls`` by its folded name, resolved once per class."""
    out = {}
    for field in attrs.fields(attrs.resolve_types(cls)):
        nested = _inner_attrs_type(field.type)
        many = nested is not None and not attrs.has(field.type)
        accepts_none = type(None) in typing.get_args(field.type)
        info = _FieldInfo(field.name, accepts_none, nested, many)
        out[field.name] = info  # the canonical spelling, found without folding
        out[_folded(field.name)] = info
    return out


def _normalise(raw: object, cls: type, path: str, unknown: list[str], errors: list[str]) -> Any:
    """Rename keys to field names, drop Go ``null`` collections, and note unknown keys."""
    if not isinstance(raw, Mapping):
        errors.append(f"{path}: expected a table of fields, got {_shown(raw)}")
        return None
    fields = _fields_of(cls)
    out: dict[str, Any] = {}
    for key, value in raw.items():
        field = (fields.get(key) or fields.get(_folded(key))) if isinstance(key, str) else None
        if field is None:
            unknown.append(f"{path}.{key}: unknown field" if path else f"{key}: unknown field")
            continue
        if field.name in out:
            errors.append(f"{path}.{key}: given twice (as {field.name!r} and {key!r})")
            continue
        if value is None and not field.accepts_none:
            # Go marshals a nil slice, map or pointer as null: it means "not set".
            continue
        if field.nested is not None and not field.many:
            value = _normalise(value, field.nested, f"{path}.{key}", unknown, errors)
        elif field.nested is not None and isinstance(value, list | tuple):
            value = [
                _normalise(item, field.nested, f"{path}.{key}[{i}]", unknown, errors)
                for i, item in enumerate(value)
            ]
        out[field.name] = value
    return out


def _format_leaf(exc: BaseException, _type: Any) -> str:
    if isinstance(exc, KeyError):
        return "required field missing"
    if isinstance(exc, TypeError | ValueError):
        return str(exc)
    return f"invalid value ({type(exc).__name__})"


def structure(raw: object, cls: type[T], *, path: str, lenient: bool = False) -> tuple[T, list[str]]:
    """Structure ``raw`` into ``cls``, reporting every problem at once.

    Unknown keys are an error naming their path (``profile.adpaters: unknown field``).
    With ``lenient``, for version skew with a newer control plane, they are returned
    as the second element instead and the rest is structured.

    :raises SpecError: listing every problem, each as ``path.field: what was expected``.
    """
    unknown: list[str] = []
    errors: list[str] = []
    normalised = _normalise(raw, cls, path, unknown, errors)
    if not lenient:
        errors = unknown + errors
    if errors:
        raise SpecError(errors)
    try:
        value = converter.structure(normalised, cls)
    except cattrs.BaseValidationError as exc:
        lines = cattrs.transform_error(exc, path=path, format_exception=_format_leaf)
        raise SpecError(_path_first(line) for line in lines) from None
    except (TypeError, ValueError) as exc:
        raise SpecError([f"{path}: {exc}"]) from None
    return value, unknown


def _path_first(line: str) -> str:
    message, sep, where = line.rpartition(" @ ")
    return f"{where}: {message}" if sep else line


def _toml(text: str) -> Any:
    # Imported here: most specs a supervisor hands over are JSON, and start-up time counts.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    return tomllib.loads(text)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # json keeps the last of two equal keys silently; a checker and a consumer that pick
    # different ones disagree about what was asked for.
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {key!r} appears twice")
        out[key] = value
    return out


def unstructure(value: object) -> Any:
    """Turn a model value into plain dicts, lists and scalars (JSON-ready)."""
    return converter.unstructure(value)


def load_document(path: Path) -> Mapping[str, Any]:
    """Read a TOML or JSON file into a mapping; the suffix chooses, JSON is tried first otherwise.

    :raises SpecError: when the file cannot be read or parsed, naming the file.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError([f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}"]) from None
    return parse_document(text, name=str(path), suffix=path.suffix.lower())


def parse_document(text: str, *, name: str, suffix: str = "") -> Mapping[str, Any]:
    """Parse TOML or JSON text; ``suffix`` (``.toml``/``.json``) picks the format."""
    kinds = [suffix] if suffix in {".toml", ".json"} else [".json", ".toml"]
    problems = []
    for kind in kinds:
        try:
            data = json.loads(text, object_pairs_hook=_no_duplicates) if kind == ".json" else _toml(text)
        except ValueError as exc:  # TOMLDecodeError is a ValueError
            problems.append(f"{name}: not valid {kind[1:].upper()}: {exc}")
            continue
        if not isinstance(data, Mapping):
            raise SpecError([f"{name}: expected a table/object at the top, got {_shown(data)}"])
        return data
    raise SpecError(problems[-1:] if len(kinds) == 1 else problems)
