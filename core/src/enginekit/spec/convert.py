"""The one shared cattrs converter: strict types and shapes, Go field spellings, bounded documents.

cattrs is imported the first time a document needs it (a value of the wrong type, a
missing field, unstructuring): a well-typed spec is built without it, and a cold
``render`` does not pay for importing it.
"""

from __future__ import annotations

import functools
import math
import os
import re
import stat
import sys
import types
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import attrs

from enginekit.base.errors import SpecError
from enginekit.base.secrets import masked
from enginekit.base.text import unsafe_text

if typing.TYPE_CHECKING:
    import cattrs

T = TypeVar("T")

#: The largest spec, config or GPU-list file read. Real ones are a few KiB; the cap is
#: what keeps ``--gpus /dev/zero`` from reading until memory runs out.
MAX_DOCUMENT_BYTES = 1024 * 1024
#: How deeply tables and lists may nest. The deepest real document nests four levels; a
#: thousand levels is a ``RecursionError`` in every parser and walker after the reader.
MAX_NESTING = 32
#: Every integer fits a signed 64-bit value, as in the Go agent that sends them: a
#: larger one is a mistake or an attack, never a GPU index. Fields have tighter domain
#: bounds, checked where their meaning is known.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _strict_int(value: object, _: type) -> int:
    # bool is an int in Python: a spec saying ``tp = true`` is a mistake, not 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {_shown(value)}")
    if not _fits_int64(value):
        raise ValueError(f"expected an integer that fits 64 bits, got one of {_digits(value)} digits")
    return value


def _fits_int64(value: int) -> bool:
    return INT64_MIN <= value <= INT64_MAX


def _digits(value: int) -> str:
    # str() of an int beyond Python's 4,300-digit limit raises: estimate from its bits.
    bits = abs(value).bit_length()
    return str(len(str(value))) if bits < 14_000 else f"about {int(bits * 0.30103) + 1}"


def _strict_float(value: object, _: type) -> float:
    # A number, written as one: never a bool, a string ("50", "1_0", "٥") or an infinity.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {_shown(value)}")
    try:
        number = float(value)
    except OverflowError:  # an int beyond any float
        raise ValueError(f"expected a finite number, got an integer of {len(str(value))} digits") from None
    if not math.isfinite(number):
        raise ValueError(f"expected a finite number, got {number}")
    return number


def _strict_str(value: object, _: type) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {_shown(value)}")
    _check_text(value)
    return value


def _check_text(value: str) -> None:
    # Every string structured from input may reach an argv, an environment or a log line.
    problem = unsafe_text(value)  # printable ASCII, the common case, answered in C
    if problem is not None:
        raise ValueError(problem)


def _strict_bool(value: object, _: type) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {_shown(value)}")
    return value


def _shown(value: object) -> str:
    # Containers are named, not shown: their text could be anything, a secret included.
    if not isinstance(value, str | int | float | bool) or value is None:
        return type(value).__name__
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'…' if len(text) > 40 else ''}"


def _key_shown(key: object) -> str:
    """A mapping key as it may appear in a message: plain names as they are, anything else quoted."""
    if isinstance(key, str) and re.fullmatch(_PLAIN_KEY, key):
        return key
    text = repr(key)
    return text[:40] + ("…" if len(text) > 40 else "")


#: Text, compiled by re's cache when a message first needs it: only a spec with a mistake does.
_PLAIN_KEY = r"[A-Za-z0-9_.-]{1,64}"


def _fast_tuple(conv: cattrs.Converter, item: type) -> Callable[[object, type], tuple[Any, ...]]:
    """A hook for ``tuple[item, ...]``: plain well-typed lists skip cattrs' per-element machinery."""
    slow = conv.get_structure_hook(tuple[item, ...])  # type: ignore[valid-type]
    check = _check_text if item is str else _check_int64

    def structure_tuple(value: object, tp: type) -> tuple[Any, ...]:
        if type(value) not in (list, tuple):
            # A string is iterable and a table iterates its keys: neither is ever a list.
            raise TypeError(f"expected a list, got {_shown(value)}")
        if all(type(x) is item for x in value):  # type: ignore[attr-defined]
            try:
                for x in value:  # type: ignore[attr-defined]
                    check(x)
                return tuple(value)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                pass  # judged again below, where the problem is named with its index
        return slow(value, tp)  # type: ignore[no-any-return]

    return structure_tuple


def _check_int64(value: int) -> None:
    _strict_int(value, int)


def _is_tuple_of(item: type) -> Callable[[Any], bool]:
    exact = tuple[item, ...]  # type: ignore[valid-type]
    return lambda tp: bool(tp == exact)


def _make_converter() -> cattrs.Converter:
    import cattrs

    conv = cattrs.Converter()
    conv.register_structure_hook(int, _strict_int)
    conv.register_structure_hook(str, _strict_str)
    conv.register_structure_hook(bool, _strict_bool)
    conv.register_structure_hook(float, _strict_float)
    for item in (int, str):
        conv.register_structure_hook_func(_is_tuple_of(item), _fast_tuple(conv, item))
    # JSON has no sets: a set field is written as a sorted list, the same every time.
    conv.register_unstructure_hook_func(_is_set, sorted)
    return conv


def _is_set(tp: Any) -> bool:
    # ``frozenset[str]`` must be caught by its origin: cattrs' own set handling would win.
    return tp in (frozenset, set) or typing.get_origin(tp) in (frozenset, set)


@functools.cache
def shared_converter() -> cattrs.Converter:
    """The converter for every model type and every engine's config section, made once.

    A plugin that needs its own hooks uses ``shared_converter().copy()`` and never
    registers on this one.
    """
    return _make_converter()


def __getattr__(name: str) -> Any:
    # ``convert.converter``, as it was before cattrs was imported on first use.
    if name == "converter":
        return shared_converter()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.lru_cache(maxsize=1024)
def _folded(name: str) -> str:
    """Fold a field name so snake_case and the Go agent's spellings meet.

    ``replica_id``, ``ReplicaID`` and ``replicaId`` all fold to ``replicaid``; Go's
    encoding/json matches keys case-insensitively too, so specs persisted by the Go
    agent (``GPUIndices``, ``HTTPPort``, ``GIDIndex``, ``kv_events_port``…) load unchanged.
    """
    # ASCII only: str.lower() folds the Kelvin sign into "k", which would let a
    # lookalike spelling of "api_key" reach the key's field.
    return name.replace("_", "").lower() if name.isascii() else name


def entries_named(raw: Mapping[Any, Any], field: str) -> list[Any]:
    """The values of ``raw``'s top-level keys that spell ``field``, in any spelling structuring accepts."""
    want = _folded(field)
    return [value for key, value in raw.items() if isinstance(key, str) and _folded(key) == want]


def folded_names(raw: Mapping[Any, Any]) -> set[str]:
    """``raw``'s top-level keys as structuring reads them (``ReplicaID`` is ``replicaid``)."""
    return {_folded(key) for key in raw if isinstance(key, str)}


def _inner_attrs_type(tp: Any) -> type | None:
    """The attrs class a field holds directly or as tuple elements, if any."""
    if attrs.has(tp):
        return typing.cast("type", tp)
    if typing.get_origin(tp) is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis and attrs.has(args[0]):
            return typing.cast("type", args[0])
    return None


class _FieldInfo:
    """What structuring needs to know of one field, resolved once per class.

    A plain class: every start that structures anything makes this class, and an attrs
    class or a named tuple (which compiles each field's annotation) costs many times more.
    """

    __slots__ = ("accepts_none", "many", "name", "nested", "secret", "shape")

    def __init__(
        self, name: str, accepts_none: bool, nested: type | None, many: bool, shape: str, secret: bool
    ) -> None:
        self.name = name
        self.accepts_none = accepts_none
        #: The attrs class of a nested field, and whether it is a tuple of them.
        self.nested = nested
        self.many = many
        #: ``"list"`` or ``"table"`` when the field is a collection, else ``""``.
        self.shape = shape
        #: A field that is not shown in its class's repr holds a secret: never echo its value.
        self.secret = secret


def _shape(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin in (tuple, list, frozenset, set):
        return "list"
    if origin in (Mapping, dict) or tp in (Mapping, dict):
        return "table"
    return ""


@functools.cache
def _fields_of(cls: type) -> dict[str, _FieldInfo]:
    """Each field of ``cls`` by its folded name, resolved once per class."""
    out = {}
    for field in attrs.fields(attrs.resolve_types(cls)):
        nested = _inner_attrs_type(field.type)
        many = nested is not None and not attrs.has(field.type)
        accepts_none = type(None) in typing.get_args(field.type)
        info = _FieldInfo(field.name, accepts_none, nested, many, _shape(field.type), not field.repr)
        out[field.name] = info  # the canonical spelling, found without folding
        out[_folded(field.name)] = info
    return out


#: What a direct builder answers for a value it leaves to cattrs.
_TO_CATTRS: Any = object()


def _direct_str(value: object) -> object:
    if type(value) is not str or unsafe_text(value) is not None:
        return _TO_CATTRS
    return value


def _direct_int(value: object) -> object:
    if type(value) is not int or not _fits_int64(value):
        return _TO_CATTRS
    return value


def _direct_bool(value: object) -> object:
    return value if type(value) is bool else _TO_CATTRS


def _direct_any(value: object) -> object:
    return value


_DIRECT_SCALARS: dict[Any, Callable[[object], object]] = {
    str: _direct_str,
    int: _direct_int,
    bool: _direct_bool,
    Any: _direct_any,
}


def _direct_optional(inner: Callable[[object], object]) -> Callable[[object], object]:
    def build(value: object) -> object:
        return None if value is None else inner(value)

    return build


def _direct_tuple(item: Callable[[object], object]) -> Callable[[object], object]:
    def build(value: object) -> object:
        if type(value) is not list and type(value) is not tuple:
            return _TO_CATTRS
        out = tuple(map(item, value))
        return _TO_CATTRS if any(x is _TO_CATTRS for x in out) else out

    return build


def _direct_table(item: Callable[[object], object]) -> Callable[[object], object]:
    def build(value: object) -> object:
        if type(value) is not dict:
            return _TO_CATTRS
        out = {_direct_str(key): item(entry) for key, entry in value.items()}
        return _TO_CATTRS if any(x is _TO_CATTRS for x in (*out, *out.values())) else out

    return build


def _direct_for(tp: Any) -> Callable[[object], object] | None:
    """A builder for values of type ``tp`` that need no conversion, or None for a type it leaves to cattrs."""
    scalar = _DIRECT_SCALARS.get(tp)
    if scalar is not None:
        return scalar
    if isinstance(tp, type) and attrs.has(tp):  # a generic alias (Limits[int]) is left to cattrs
        return None if tp in _DIRECT_PENDING else _direct_class(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = _direct_for(args[0] if args[1] is type(None) else args[1])
        return None if inner is None else _direct_optional(inner)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _direct_for(args[0])
        return None if item is None else _direct_tuple(item)
    if origin in (Mapping, dict) and len(args) == 2 and args[0] is str:
        entry = _direct_for(args[1])
        return None if entry is None else _direct_table(entry)
    return None


def _to_cattrs(value: object) -> object:
    return _TO_CATTRS


#: The classes whose builders are being made, for a class that holds itself.
_DIRECT_PENDING: set[type] = set()


@functools.cache
def _direct_class(cls: type) -> Callable[[object], object]:
    """A builder of ``cls`` from a normalised table whose values already have their fields' types.

    cattrs compiles a structuring function for each class the first time it meets it,
    which was the largest single cost of starting a command; a spec as sent is almost
    always already well typed, so it is built directly, and so is a table that gives only
    such fields (an empty config section is the class's defaults). Anything else (a wrong
    type, a missing field, a value a validator refuses, a field of a type not handled here,
    or one ``__init__`` does not take) is left to cattrs, which builds the same value or
    names every problem.
    """
    builders: dict[str, tuple[str, Callable[[object], object]]] = {}
    _DIRECT_PENDING.add(cls)  # a field holding its own class is left to cattrs
    try:
        for field in attrs.fields(attrs.resolve_types(cls)):
            builder = _direct_for(field.type) if field.init else None
            if builder is not None:
                builders[field.name] = (field.alias, builder)
    except Exception:  # a plugin's annotations this path cannot read: cattrs reads them, as before
        return _to_cattrs
    finally:
        _DIRECT_PENDING.discard(cls)

    def build(value: object) -> object:
        if type(value) is not dict:
            return _TO_CATTRS
        kwargs = {}
        for name, item in value.items():
            found = builders.get(name)
            if found is None:
                return _TO_CATTRS
            built = found[1](item)
            if built is _TO_CATTRS:
                return _TO_CATTRS
            kwargs[found[0]] = built
        try:
            return cls(**kwargs)
        except Exception:  # a field missing, a validator refusing: cattrs says which
            return _TO_CATTRS

    return build


def _fits_shape(shape: str, value: object) -> bool:
    if shape == "list":
        return isinstance(value, list | tuple)
    if shape == "table":
        return isinstance(value, Mapping)
    return True


def _normalise(
    raw: object, cls: type, path: str, unknown: list[str], errors: list[str], secrets: list[str]
) -> Any:
    """Rename keys to field names, drop Go ``null`` collections, note unknown keys and secret values."""
    if not isinstance(raw, Mapping):
        errors.append(f"{path}: expected a table of fields, got {_shown(raw)}")
        return None
    fields = _fields_of(cls)
    out: dict[str, Any] = {}
    for key, value in raw.items():
        field = (fields.get(key) or fields.get(_folded(key))) if isinstance(key, str) else None
        if (
            field is not None
            and field.name not in out
            and field.nested is None
            and not field.secret
            and (value is not None or field.accepts_none)
            and _fits_shape(field.shape, value)
        ):
            out[field.name] = value  # the common case: a known scalar or a well-shaped collection
            continue
        where = f"{path}.{_key_shown(key)}" if path else _key_shown(key)
        if field is None:
            if isinstance(key, str) and not key.isascii() and _lookalike(key, fields):
                # Go's encoding/json folds Unicode case, so it reads a Kelvin sign as "k":
                # a name it would take for a field is refused, even in lenient mode.
                errors.append(
                    f"{where}: not a field name, but one Go would read as {_lookalike(key, fields)!r}"
                )
                continue
            unknown.append(f"{where}: unknown field")
            continue
        if field.name in out:
            errors.append(f"{where}: given twice (as {field.name!r} and {_key_shown(key)!r})")
            continue
        if value is None and not field.accepts_none:
            # Go marshals a nil slice, map or pointer as null: it means "not set".
            continue
        if field.secret and not isinstance(value, str):
            # The value is a secret whatever its type: a list holding the key is still the
            # key, masked wherever else it appears.
            secrets.extend(text for text in strings_in(value) if text)
            errors.append(f"{where}: expected a string, got {type(value).__name__} (the value is not shown)")
            continue
        if field.secret and value:
            secrets.append(value)
        if not _fits_shape(field.shape, value):
            # A string is iterable and a table iterates its keys: neither is ever a list.
            expected = "a list" if field.shape == "list" else "a table"
            errors.append(f"{where}: expected {expected}, got {_shown(value)}")
            continue
        if field.nested is not None and not field.many:
            value = _normalise(value, field.nested, where, unknown, errors, secrets)
        elif field.nested is not None:
            value = [
                _normalise(item, field.nested, f"{where}[{i}]", unknown, errors, secrets)
                for i, item in enumerate(value)
            ]
        out[field.name] = value
    return out


def _lookalike(key: str, fields: Mapping[str, _FieldInfo]) -> str:
    """The field Go's encoding/json would read a non-ASCII ``key`` as, or ``""``.

    Go matches names with Unicode simple case folding, under which exactly two
    characters outside ASCII fold onto ASCII letters: the Kelvin sign and the long s.
    """
    folded = key.replace("\u212a", "k").replace("\u017f", "s")
    field = fields.get(_folded(folded)) if folded.isascii() else None
    return field.name if field is not None else ""


def strings_in(value: object) -> list[str]:
    """Every string held in ``value``, however deeply; iterative, so no depth breaks it."""
    found: list[str] = []
    stack = [value]
    while stack and len(found) < 10_000:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
    return found


def _format_leaf(exc: BaseException, _type: Any) -> str:
    if isinstance(exc, KeyError):
        return "required field missing"
    if isinstance(exc, TypeError | ValueError):
        return str(exc)
    return f"invalid value ({type(exc).__name__})"


def structure(raw: object, cls: type[T], *, path: str, lenient: bool = False) -> tuple[T, list[str]]:
    """Structure ``raw`` into ``cls``, reporting every problem at once.

    A document whose values already have their fields' types is built directly; anything
    else is left to cattrs, which builds the same value or names each problem (the direct
    path never adds a message of its own).

    Unknown keys are an error naming their path (``profile.adpaters: unknown field``).
    With ``lenient``, for version skew with a newer control plane, they are returned
    as the second element instead and the rest is structured.

    :raises SpecError: listing every problem, each as ``path.field: what was expected``.
    """
    unknown: list[str] = []
    errors: list[str] = []
    secrets: list[str] = []
    normalised = _normalise(raw, cls, path, unknown, errors, secrets)
    if not lenient:
        errors = unknown + errors
    if errors:
        raise SpecError(_masked(errors, secrets))
    built = _direct_class(typing.cast("type", cls))(normalised)
    if built is not _TO_CATTRS:
        return typing.cast("T", built), _masked(unknown, secrets)
    import cattrs

    try:
        value: T = shared_converter().structure(normalised, cls)
    except cattrs.BaseValidationError as exc:
        lines = cattrs.transform_error(exc, path=path, format_exception=_format_leaf)
        raise SpecError(_masked([_path_first(line) for line in lines], secrets)) from None
    except (TypeError, ValueError) as exc:
        raise SpecError(_masked([f"{path}: {exc}"], secrets)) from None
    return value, _masked(unknown, secrets)


def _masked(problems: list[str], secrets: list[str]) -> list[str]:
    """Mask every secret value wherever it appears: a key pasted into another field is still the key."""
    for secret in secrets:
        problems = [masked(problem, secret) for problem in problems]
    return problems


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


def _json(text: str) -> Any:
    # Imported here too: `enginekit engines` reads no document, and start-up time counts.
    import json

    return json.loads(text, object_pairs_hook=_no_duplicates)


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
    return shared_converter().unstructure(value)


def load_document(path: Path) -> Mapping[str, Any]:
    """Read a TOML or JSON file into a mapping; the suffix chooses, JSON is tried first otherwise.

    Only a regular file of at most :data:`MAX_DOCUMENT_BYTES` is read, and its tables and
    lists may nest :data:`MAX_NESTING` deep: a device, a FIFO or a document built to
    exhaust memory or the stack is refused with a message, never read until it breaks.

    :raises SpecError: when the file cannot be read or parsed, naming the file.
    """
    return parse_document(read_text(path), name=str(path), suffix=path.suffix.lower())


def read_text(path: Path, *, limit: int = MAX_DOCUMENT_BYTES) -> str:
    """The UTF-8 text of the regular file at ``path``, refusing anything else or anything larger.

    :raises SpecError: naming the file and what is wrong with it.
    """
    try:
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SpecError([f"{path}: cannot read: {exc.strerror or exc}"]) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SpecError([f"{path}: cannot read: not a regular file"])
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(limit + 1)
    except OSError as exc:
        raise SpecError([f"{path}: cannot read: {exc.strerror or exc}"]) from None
    finally:
        os.close(fd)
    return decoded(data, name=str(path), limit=limit)


def decoded(data: bytes, *, name: str, limit: int = MAX_DOCUMENT_BYTES) -> str:
    """The UTF-8 text of ``data`` read from ``name`` (at most ``limit + 1`` bytes of it).

    :raises SpecError: when it is over ``limit`` bytes or not UTF-8.
    """
    if len(data) > limit:
        raise SpecError([f"{name}: larger than {limit} bytes; a spec or config is a few KiB"])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError([f"{name}: not UTF-8 text (byte {exc.start})"]) from None


def parse_document(text: str, *, name: str, suffix: str = "") -> Mapping[str, Any]:
    """Parse TOML or JSON text; ``suffix`` (``.toml``/``.json``) picks the format."""
    return _top_table(parse_any(text, name=name, suffix=suffix), name)


def parse_any(text: str, *, name: str, suffix: str = "") -> Any:
    """Parse TOML or JSON text into whatever it holds, nesting at most :data:`MAX_NESTING` deep."""
    if len(text) > MAX_DOCUMENT_BYTES:
        raise SpecError([f"{name}: larger than {MAX_DOCUMENT_BYTES} bytes; a spec or config is a few KiB"])
    kinds = [suffix] if suffix in {".toml", ".json"} else [".json", ".toml"]
    problems = []
    for kind in kinds:
        try:
            data = _json(text) if kind == ".json" else _toml(text)
        except RecursionError:
            raise SpecError([f"{name}: nested more than {MAX_NESTING} levels deep"]) from None
        except ValueError as exc:  # TOMLDecodeError is a ValueError
            problems.append(f"{name}: not valid {kind[1:].upper()}: {_parse_message(exc)}")
            continue
        if _depth_exceeds(data, MAX_NESTING):
            raise SpecError([f"{name}: nested more than {MAX_NESTING} levels deep"])
        return data
    raise SpecError(problems[-1:] if len(kinds) == 1 else problems)


def _parse_message(exc: ValueError) -> str:
    # A parser's message may quote the offending text: escape it, and keep it short.
    text = str(exc).encode("unicode_escape", "backslashreplace").decode("ascii")
    return text[:200] + ("…" if len(text) > 200 else "")


def _top_table(data: Any, name: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise SpecError([f"{name}: expected a table/object at the top, got {_shown(data)}"])
    return data


def _depth_exceeds(data: Any, limit: int) -> bool:
    """Whether tables and lists nest deeper than ``limit``; iterative, so no depth breaks it."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > limit:
                return True
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False
