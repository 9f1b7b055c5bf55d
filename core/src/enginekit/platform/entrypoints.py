"""One entry-point group and who provides each entry, read from the installed distributions' metadata.

``importlib.metadata.entry_points(group=...)`` answers the same question, but importing
``importlib.metadata`` imports the e-mail parser, ``zipfile``, ``csv`` and ``importlib.abc``
with it: on a cold ``enginekit render`` that was a quarter of the time the process ran.
This reader follows ``importlib.metadata`` for the layout installers write (``*.dist-info``
and ``*.egg-info`` directories in directories on ``sys.path``): the same distributions in
the same order, the first of a name on the path winning, the same ``entry_points.txt``
syntax. Where the environment holds anything else (a zip file or an ``.egg`` on the path, a
metadata directory named in a way the standard reader resolves from its metadata, a
finder on ``sys.meta_path`` that lists distributions of its own) it says so, and
:func:`entry_points` asks ``importlib.metadata``. The tests compare both readers over
generated trees.

"The same" holds for the names installers write; for hand-made directory names whose
lowercasing depends on their neighbours (a Greek capital sigma before ``.`` and ``_``),
which copy of a name is kept may differ. Where the standard reader raises, on a
distribution whose ``entry_points.txt`` is not UTF-8 or has a line without ``=``, this one
reads on: a distribution whose entry points in the group are unreadable is named in a
warning (its name made printable, once however many lines are broken), one broken only
elsewhere in its file is not (when handed off, the standard reader cannot tell, and it is),
and every other distribution is listed.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import re
import sys
from collections.abc import Iterator, Sequence
from importlib.machinery import PathFinder
from typing import Any, NamedTuple, Protocol

from enginekit.base.text import printable

_SUFFIXES = (".dist-info", ".egg-info")


class Distribution(Protocol):
    """What enginekit reads of a distribution: its metadata files, as text."""

    def read_text(self, filename: str) -> str | None:
        """The file's text, or None when the distribution has no such file."""

    @property
    def metadata(self) -> Any:
        """The standard reader's parse of ``METADATA``, for a file a header scan cannot read."""


class MetadataDirectory:
    """A ``*.dist-info`` or ``*.egg-info`` directory: a distribution as installers lay it out."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def __repr__(self) -> str:
        return f"MetadataDirectory({self.path!r})"

    def read_text(self, filename: str) -> str | None:
        """The file's text as UTF-8; None when it is missing or unreadable, as the standard reader says.

        :raises UnicodeDecodeError: for a file that is not UTF-8, as the standard reader does.
        """
        try:
            with open(os.path.join(self.path, filename), "rb") as file:
                data = file.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
            return None
        return data.decode("utf-8")

    @property
    def metadata(self) -> Any:
        """The standard reader's parse of ``METADATA``: imported only for a file it alone can read."""
        import importlib.metadata
        import pathlib

        return importlib.metadata.PathDistribution(pathlib.Path(self.path)).metadata


class EntryPoint:
    """One ``name = value`` line of a distribution's ``entry_points.txt``, in one group."""

    __slots__ = ("dist", "group", "name", "value")

    def __init__(self, name: str, value: str, group: str, dist: Distribution | None) -> None:
        self.name = name
        self.value = value
        self.group = group
        self.dist = dist

    def __repr__(self) -> str:
        return f"EntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"

    def load(self) -> Any:
        """Import the module the value names and return the attribute it names, as the standard reader does.

        :raises ValueError: for a value that is not ``module[:attribute] [extras]``.
        """
        match = re.match(
            r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$", self.value
        )
        if match is None:
            raise ValueError(f"entry point {self.value!r} is not 'module:attribute'")
        attributes = [part for part in (match.group("attr") or "").split(".") if part]
        return functools.reduce(getattr, attributes, importlib.import_module(match.group("module")))


def entry_points(group: str) -> tuple[list[EntryPoint], list[str]]:
    """Every entry point in ``group`` of the installed distributions, and what could not be read.

    The second list names each distribution whose entry points were partly or wholly
    unreadable (the standard reader raises for it, and so for every other).
    """
    found = read_directories(group, sys.path)
    return found if found is not None else _standard(group)


def read_directories(group: str, path: Sequence[object]) -> tuple[list[EntryPoint], list[str]] | None:
    """:func:`entry_points` from the metadata directories on ``path``; None where they may not say all."""
    if any(finder is not PathFinder and hasattr(finder, "find_distributions") for finder in sys.meta_path):
        return None  # a finder with distributions of its own: only the standard reader asks it
    seen: set[str] = set()
    found: list[EntryPoint] = []
    problems: list[str] = []
    for entry in path:
        infos = _infos(entry)
        if infos is None:
            return None
        for info in infos:
            name = _name(os.path.basename(info))
            if name is None:
                return None
            if name not in seen:  # the first of a name on the path is the one installed
                seen.add(name)
                found.extend(_read(MetadataDirectory(info), group, problems))
    return found, problems


def _infos(entry: object) -> list[str] | None:
    """The metadata directories in one path entry, in listing order; None for what is no plain directory."""
    if not isinstance(entry, str):
        return None  # bytes or a path object: left to the standard reader
    if os.path.basename(entry).lower().endswith(".egg"):
        return None  # an egg and its EGG-INFO: the standard reader's own rules
    try:
        children = os.listdir(entry or ".")
    except NotADirectoryError:
        return None  # a zip file, perhaps: the standard reader opens it
    except OSError:
        return []  # missing or unreadable: the standard reader finds nothing there either
    return [os.path.join(entry, child) for child in children if child.lower().endswith(_SUFFIXES)]


def _name(stem: str) -> str | None:
    """The normalized name a metadata directory's own name gives; None where its METADATA must say."""
    base, ext = os.path.splitext(stem)
    if ext not in _SUFFIXES:
        return None  # ``X.DIST-INFO``: listed, but named from its METADATA
    # PEP 503, with underscores for its dashes: ``Foo.Bar-1.0`` is ``foo_bar``.
    return re.sub(r"[-_.]+", "_", base.partition("-")[0]).lower() or None


def _read(dist: MetadataDirectory, group: str, problems: list[str]) -> Iterator[EntryPoint]:
    """The ``group`` lines of ``entry_points.txt``, by the standard reader's syntax."""
    try:
        text = dist.read_text("entry_points.txt")
    except (UnicodeDecodeError, OSError) as error:
        problems.append(
            f"{printable(dist.path)}: entry_points.txt is unreadable ({type(error).__name__}); skipped"
        )
        return
    if not text:
        return
    section: str | None = None  # lines before the first section belong to none
    broken = 0
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
        elif section == group:
            name, equals, value = line.partition("=")
            if equals:
                yield EntryPoint(name.strip(), value.strip(), group, dist)
            else:
                broken += 1
    if broken:
        lines = "a line" if broken == 1 else f"{broken} lines"
        where = f"{printable(dist.path)}: entry_points.txt [{printable(group)}]"
        problems.append(f"{where} has {lines} without '='; skipped")


def _standard(group: str) -> tuple[list[EntryPoint], list[str]]:
    """The standard reader's answer, one distribution at a time: one it cannot read hides no other."""
    import importlib.metadata

    found: list[EntryPoint] = []
    problems: list[str] = []
    seen: set[str] = set()
    for dist in importlib.metadata.distributions():
        try:
            # The standard reader's own key for "the same distribution": entry_points() dedups
            # by it (Python 3.10 onwards; named from the directory, else the metadata).
            key = dist._normalized_name  # type: ignore[attr-defined]
            if key in seen:
                continue
            seen.add(key)
            declared = dist.entry_points.select(group=group)
            found.extend(EntryPoint(ep.name, ep.value, ep.group, dist) for ep in declared)
        except Exception as error:  # a damaged distribution: named, and the others read
            where = printable(str(getattr(dist, "_path", "a distribution a finder lists")))
            problems.append(f"{where}: its entry points are unreadable ({type(error).__name__}); skipped")
    return found, problems


class Provider(NamedTuple):
    """A distribution's claim on an engine name, read from its metadata: nothing is imported."""

    distribution: str
    version: str
    #: ``module:attribute``, as the entry point names it.
    entry_point: str
    #: The distribution's ``Requires-Dist`` lines: its range on ``enginekit`` says which
    #: plugin API it was written for (:mod:`enginekit.platform.api`).
    requires: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.distribution} {self.version} ({self.entry_point})"

    @property
    def label(self) -> str:
        """``dist version, module:attr``: how a message names the code it blames."""
        return f"{self.distribution} {self.version}, {self.entry_point}"

    @classmethod
    def of(cls, ep: EntryPoint | Any) -> Provider:
        """The distribution behind ``ep``; ``?`` for what its metadata does not say."""
        name = version = "?"
        requires: tuple[str, ...] = ()
        with contextlib.suppress(Exception):  # a damaged dist-info still lists, as "?"
            if ep.dist is not None:
                name, version, requires = headers(ep.dist)
        # What metadata says is printed by engines: printable, bounded, whatever a dist-info holds.
        shown = tuple(printable(line, 300) for line in requires[:200])
        return cls(printable(name, 200), printable(version, 100), printable(ep.value, 300), shown)


def headers(dist: Distribution) -> tuple[str, str, tuple[str, ...]]:
    """``Name``, ``Version`` and every ``Requires-Dist`` from the metadata's header lines.

    ``dist.metadata`` runs the e-mail parser over the whole file, a plugin's README
    included, for each field read: every engine shown paid for it at start-up.
    """
    fields: dict[str, str] = {}
    requires: list[str] = []
    for line in (dist.read_text("METADATA") or dist.read_text("PKG-INFO") or "").splitlines():
        if not line.strip():
            break  # the headers end at the first blank line; the description follows
        key, colon, value = line.partition(":")
        if colon and key in ("Name", "Version"):
            fields.setdefault(key, value.strip())
        elif colon and key == "Requires-Dist":
            requires.append(value.strip())
    if len(fields) < 2:  # an unusual file: the standard reader decides
        meta = dist.metadata
        fields = {key: str(meta[key]) for key in ("Name", "Version") if key in meta}
        requires = [str(line) for line in meta.get_all("Requires-Dist") or ()]
    return fields.get("Name", "?"), fields.get("Version", "?"), tuple(requires)
