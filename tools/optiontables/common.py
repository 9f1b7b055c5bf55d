"""Shared pieces of the project's option-table generators, on top of the core's tooling.

Reading a parser, merging releases into ranges, finding renames from spellings and writing
the ``options_table.py`` module are ``enginekit.plugin``'s (``read_argparse``,
``option_document``, ``find_renames``, ``write_table_module``…), as any plugin author has
them; what is here is what only these engines need: deprecation notices read as renames,
digests of downloaded wheels, and the reports the generators print.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Union

from enginekit.plugin import (
    OptionRename,
    ReleaseRead,
    find_renames,
    option_document,
    release_spans,
    write_table_module,
)
from enginekit.policy.optiongen import _switch

#: How many values an option takes: a whole number, or argparse's ``"?"``, ``"*"``, ``"+"``.
Takes = Union[int, str]  # noqa: UP007  (a runtime alias, and the repository still targets 3.10)

_MENTION = re.compile(r"(?<![\w-])--[A-Za-z0-9][A-Za-z0-9_-]*")


#: One release's reading and a rename, as the core's option-table tooling has them.
Read = ReleaseRead
Rename = OptionRename
#: Release indices as inclusive ranges; the document; its module; renames the spellings show.
spans = release_spans
build_document = option_document
write_document = write_table_module
spelling_renames = find_renames
switch = _switch


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


def sha256(path: Path) -> str:
    """The hex sha256 of the file at ``path``."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _opposite(old: str, new: str) -> bool:
    """Whether two spellings switch the same thing opposite ways (``--disable-x``, ``--enable-x``)."""
    before, after = switch(old), switch(new)
    return before is not None and after is not None and before[1] == after[1] and before[0] != after[0]


def same_switch(old: str, new: str) -> bool:
    """Whether two different flag spellings switch the same thing the same way."""
    return old != new and switch(old) is not None and switch(old) == switch(new)


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
