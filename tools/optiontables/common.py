"""Shared pieces of the option-table generators: ranges, renames and writing the document."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Union

#: How many values an option takes: a whole number, or argparse's ``"?"``, ``"*"``, ``"+"``.
Takes = Union[int, str]  # noqa: UP007  (a runtime alias, and the repository still targets 3.10)

#: The shape of the documents written here (``docs/option-tables.md``).
FORMAT = 1

_MENTION = re.compile(r"(?<![\w-])--[A-Za-z0-9][A-Za-z0-9_-]*")


@dataclasses.dataclass
class Read:
    """What one release's parser accepts.

    :ivar release: The release, as the engine spells it.
    :ivar source: What was run on what: the file, its sha256, the parser entry point.
    :ivar options: Every long spelling, with how many values it takes.
    :ivar aliases: Every other spelling (short options), with the long option it stands for.
    """

    release: str
    source: str
    options: dict[str, Takes]
    aliases: dict[str, str]


@dataclasses.dataclass(frozen=True)
class Rename:
    """An old spelling, the spelling that replaced it, and the evidence for it."""

    old: str
    new: str
    since: str
    why: str


def spans(indices: Iterable[int], releases: Sequence[str]) -> list[list[str]]:
    """Release indices as inclusive ``[first, last]`` ranges over ``releases``, in order."""
    ranges: list[list[int]] = []
    for index in sorted(set(indices)):
        if ranges and ranges[-1][1] == index - 1:
            ranges[-1][1] = index
        else:
            ranges.append([index, index])
    return [[releases[first], releases[last]] for first, last in ranges]


def takes_changes(reads: Sequence[Read]) -> dict[str, list[tuple[str, Takes]]]:
    """Options whose number of values changed between releases: each change, oldest first."""
    seen: dict[str, list[tuple[str, Takes]]] = {}
    for read in reads:
        for option, takes in read.options.items():
            history = seen.setdefault(option, [])
            if not history or history[-1][1] != takes:
                history.append((read.release, takes))
    return {option: history for option, history in seen.items() if len(history) > 1}


def alias_changes(reads: Sequence[Read]) -> dict[str, list[tuple[str, str]]]:
    """Aliases that stood for different options in different releases: each change, oldest first."""
    seen: dict[str, list[tuple[str, str]]] = {}
    for read in reads:
        for alias, option in read.aliases.items():
            history = seen.setdefault(alias, [])
            if not history or history[-1][1] != option:
                history.append((read.release, option))
    return {alias: history for alias, history in seen.items() if len(history) > 1}


def build_document(
    *, engine: str, program: str, generator: str, reads: Sequence[Read], renames: Iterable[Rename]
) -> dict[str, Any]:
    """The option-table document of ``reads`` (oldest first).

    An option's ``takes`` is the newest release's, and an alias stands for the option it
    stands for in the newest release that has it (:func:`takes_changes` and
    :func:`alias_changes` list where older releases differ, for the generator to report).
    """
    releases = [read.release for read in reads]
    option_in: dict[str, list[int]] = {}
    option_takes: dict[str, Takes] = {}
    alias_in: dict[str, list[int]] = {}
    alias_of: dict[str, str] = {}
    for index, read in enumerate(reads):
        for option, takes in read.options.items():
            option_in.setdefault(option, []).append(index)
            option_takes[option] = takes
        for alias, option in read.aliases.items():
            alias_in.setdefault(alias, []).append(index)
            alias_of[alias] = option
    return {
        "format": FORMAT,
        "engine": engine,
        "program": program,
        "generator": generator,
        "releases": [{"release": read.release, "source": read.source} for read in reads],
        "options": {
            option: {"takes": option_takes[option], "in": spans(option_in[option], releases)}
            for option in sorted(option_in)
        },
        "aliases": {
            alias: {"option": alias_of[alias], "in": spans(alias_in[alias], releases)}
            for alias in sorted(alias_in)
        },
        "renames": {
            rename.old: {"to": rename.new, "since": rename.since}
            for rename in sorted(renames, key=lambda rename: rename.old)
        },
    }


def write_document(document: Mapping[str, Any], path: Path) -> None:
    """Write ``document`` as the plugin's ``options_table.py`` (one-space indent, keys as built)."""
    from tablemodule import write_table

    path.parent.mkdir(parents=True, exist_ok=True)
    write_table(document, path)


def sha256(path: Path) -> str:
    """The hex sha256 of the file at ``path``."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def switch(option: str) -> tuple[bool, str] | None:
    """Which way a flag spelling switches, and what: ``--no-enable-x`` is ``(False, "x")``.

    None for a spelling that is not a long option. Every long option reads as a switch
    here; callers compare only spellings that take no value.
    """
    if not option.startswith("--"):
        return None
    name = option[2:].replace("_", "-")
    for prefix, on in (("no-enable-", False), ("no-disable-", True), ("enable-", True), ("disable-", False)):
        if name.startswith(prefix):
            return on, name[len(prefix) :]
    if name.startswith("no-"):
        return False, name[3:]
    return True, name


def _opposite(old: str, new: str) -> bool:
    """Whether two spellings switch the same thing opposite ways (``--disable-x``, ``--enable-x``)."""
    before, after = switch(old), switch(new)
    return before is not None and after is not None and before[1] == after[1] and before[0] != after[0]


def same_switch(old: str, new: str) -> bool:
    """Whether two different flag spellings switch the same thing the same way."""
    return old != new and switch(old) is not None and switch(old) == switch(new)


def spelling_renames(reads: Sequence[Read]) -> list[Rename]:
    """Renames the option sets show: a spelling gone for good as one of the same shape arrives.

    Between two consecutive releases, an option the older has and the newer lacks, and
    that never comes back, is renamed to an option only the newer has when exactly one
    such option is the same switch (``--no-enable-x`` and ``--disable-x``; ``--x`` and
    ``--enable-x``; ``--no-x`` and ``--disable-x``), both taking no value, or the same
    spelling with ``-`` for ``_``.
    """
    found: list[Rename] = []
    for at in range(1, len(reads)):
        before, after = reads[at - 1], reads[at]
        gone = [
            option
            for option in sorted(set(before.options) - set(after.options))
            if all(option not in later.options for later in reads[at:])
        ]
        arrived = sorted(set(after.options) - set(before.options))
        for old in gone:
            matches = [
                new
                for new in arrived
                if old.replace("_", "-") == new
                or (before.options[old] == 0 and after.options[new] == 0 and same_switch(old, new))
            ]
            if len(matches) == 1:
                why = f"{old} last in {before.release}; {matches[0]} first in {after.release}"
                found.append(Rename(old, matches[0], after.release, why))
    return found


def mentioned_options(text: str) -> list[str]:
    """The long options a help text names, in order, each once, spelt with ``-``."""
    names: list[str] = []
    for match in _MENTION.findall(text):
        name = match.replace("_", "-").rstrip("-")
        if name not in names:
            names.append(name)
    return names


def deprecation_renames(reads: Sequence[Read], notes: Mapping[str, Mapping[str, str]]) -> list[Rename]:
    """Renames a deprecation notice names, where the deprecated option is later removed.

    :param notes: For each release, each option its parser marks deprecated (or whose help
        says it is), with that help text.

    An option whose notice names exactly one other option (``use --y instead``, ``renamed
    to --y``), that a later release drops while it has the named one, is renamed to it from
    that release on. Flags whose notice names the opposite switch are left out: the
    advice there is to drop the flag, not to spell it differently.
    """
    releases = [read.release for read in reads]
    found: dict[str, Rename] = {}
    for at, read in enumerate(reads):
        for old, text in notes.get(read.release, {}).items():
            named = [option for option in mentioned_options(text) if option != old]
            if old in found or len(named) != 1:
                continue
            new = named[0]
            if _opposite(old, new):
                continue
            gone = next(
                (later for later in range(at + 1, len(reads)) if old not in reads[later].options), None
            )
            if gone is None or new not in reads[gone].options:
                continue
            if any(old in reads[later].options for later in range(gone, len(reads))):
                continue
            why = f"{read.release} marks {old} deprecated, naming {new}; {old} last in {releases[gone - 1]}"
            found[old] = Rename(old, new, releases[gone], why)
    return list(found.values())


def merge_renames(*groups: Iterable[Rename]) -> list[Rename]:
    """One rename per old spelling: the first group that names it wins."""
    merged: dict[str, Rename] = {}
    for group in groups:
        for rename in group:
            merged.setdefault(rename.old, rename)
    return [merged[old] for old in sorted(merged)]
