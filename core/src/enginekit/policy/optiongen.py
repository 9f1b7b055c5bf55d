"""Making an option table: read a release's parser (argparse or Click), merge releases, write the module.

What a plugin author runs once per engine release, never while a plan is built: the
engine's own parser is read as the engine builds it (``read_argparse``, ``read_click``),
the releases are merged into one document of version ranges (``option_document``,
``merge_release``), renames between releases are found from the spellings
(``find_renames``), and the document is written as the plugin's ``options_table.py``
(``write_table_module``), which is read back and checked before it is kept.
``enginekit option-table`` does all of it from the command line; ``docs/option-tables.md``
has the format.
"""

from __future__ import annotations

import argparse
import ast
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Union

import attrs

from enginekit.policy.optiontable import check_option_document

#: How many values an option takes: a whole number, or argparse's ``"?"``, ``"*"``, ``"+"``.
Takes = Union[int, str]  # noqa: UP007  (a runtime alias, and the core still supports 3.10)

#: The shape of the documents written here (``docs/option-tables.md``).
FORMAT = 1
#: The module's name inside each plugin package: ``OptionTable.from_package`` imports it.
TABLE_MODULE = "options_table.py"
_QUOTES = "'" * 3


@attrs.frozen
class ReleaseRead:
    """What one release's parser accepts: every long option with its value count, every other spelling."""

    #: The release, as the engine spells it (``0.34.0``, ``1.2.0rc3``; a build number).
    release: str
    #: What was run on what: the file, its sha256, the parser entry point.
    source: str
    #: Every canonical long spelling, and how many values it takes.
    options: Mapping[str, Takes]
    #: Every other spelling (short options, second long names), and the option it stands for.
    aliases: Mapping[str, str] = attrs.field(factory=dict)


@attrs.frozen
class OptionRename:
    """An old spelling, the one that replaced it, the first release with only the new one, and why."""

    old: str
    new: str
    since: str
    why: str = ""


def _takes(nargs: object) -> Takes:
    if nargs is None:
        return 1
    if nargs == argparse.REMAINDER:
        return "*"
    if isinstance(nargs, int) or nargs in ("?", "*", "+"):
        return nargs
    raise ValueError(f"an option takes nargs={nargs!r}, which an option table cannot say")


def read_argparse(parser: argparse.ArgumentParser, release: str, source: str) -> ReleaseRead:
    """Every option ``parser`` matches (hidden ones too), as the table of ``release``.

    An option's canonical spelling is its first long one (``--tensor-parallel-size``);
    every other spelling of the same action (``-tp``) is an alias. Flags
    (``store_true``, ``count``, ``help``…) take 0 values; ``nargs`` is kept as argparse has it.
    """
    options: dict[str, Takes] = {}
    aliases: dict[str, str] = {}
    # What argparse matches against: every spelling registered, SUPPRESSed ones included.
    for action in dict.fromkeys(parser._option_string_actions.values()):
        strings = list(action.option_strings)
        longs = [s for s in strings if s.startswith("--")]
        canonical = longs[0] if longs else strings[0]
        options[canonical] = _takes(action.nargs)
        for other in strings:
            if other != canonical:
                aliases[other] = canonical
    return ReleaseRead(release, source, options, aliases)


def read_click(command: Any, release: str, source: str) -> ReleaseRead:
    """Every option of a Click ``command`` (``click.Command``), ``--help`` included, for ``release``.

    A boolean flag's secondary spelling (``--no-x`` of ``--x/--no-x``) is an option of its
    own taking no value, as Click reads it. Click is imported by the caller, not here.
    """
    options: dict[str, Takes] = {}
    aliases: dict[str, str] = {}
    # With the options Click adds itself (--help), as its parser matches them.
    for param in command.get_params(command.context_class(command)):
        if param.param_type_name != "option":
            continue  # an argument: no option spelling
        longs = [s for s in param.opts if s.startswith("--")]
        canonical = longs[0] if longs else param.opts[0]
        # Click options take a fixed number of values (nargs=-1 is for arguments only).
        options[canonical] = 0 if param.is_flag or param.count else param.nargs
        for other in param.opts:
            if other != canonical:
                aliases[other] = canonical
        for secondary in param.secondary_opts:
            options[secondary] = 0
    return ReleaseRead(release, source, options, aliases)


def release_spans(indices: Iterable[int], releases: Sequence[str]) -> list[list[str]]:
    """Release indices as inclusive ``[first, last]`` ranges over ``releases``, in order."""
    ranges: list[list[int]] = []
    for index in sorted(set(indices)):
        if ranges and ranges[-1][1] == index - 1:
            ranges[-1][1] = index
        else:
            ranges.append([index, index])
    return [[releases[first], releases[last]] for first, last in ranges]


def option_document(
    *,
    engine: str,
    program: str,
    generator: str,
    reads: Sequence[ReleaseRead],
    renames: Iterable[OptionRename] = (),
) -> dict[str, Any]:
    """The option-table document of ``reads``, oldest release first.

    An option's ``takes`` is the newest release's, and an alias stands for what it stands
    for in the newest release that has it.

    :raises ValueError: for a document :func:`~enginekit.policy.optiontable.check_option_document` refuses.
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
    document = {
        "format": FORMAT,
        "engine": engine,
        "program": program,
        "generator": generator,
        "releases": [{"release": read.release, "source": read.source} for read in reads],
        "options": {
            option: {"takes": option_takes[option], "in": release_spans(option_in[option], releases)}
            for option in sorted(option_in)
        },
        "aliases": {
            alias: {"option": alias_of[alias], "in": release_spans(alias_in[alias], releases)}
            for alias in sorted(alias_in)
        },
        "renames": {
            rename.old: {"to": rename.new, "since": rename.since}
            for rename in sorted(renames, key=lambda rename: rename.old)
        },
    }
    problems = check_option_document(document)
    if problems:
        raise ValueError("; ".join(problems))
    return document


def document_reads(document: Mapping[str, Any]) -> list[ReleaseRead]:
    """Each release of a document as it was read: the inverse of :func:`option_document`."""
    releases = [entry["release"] for entry in document["releases"]]
    position = {release: index for index, release in enumerate(releases)}

    def holds(ranges: Sequence[Sequence[str]], index: int) -> bool:
        return any(position[first] <= index <= position[last] for first, last in ranges)

    return [
        ReleaseRead(
            release=release,
            source=document["releases"][index]["source"],
            options={
                option: entry["takes"]
                for option, entry in document["options"].items()
                if holds(entry["in"], index)
            },
            aliases={
                alias: entry["option"]
                for alias, entry in document["aliases"].items()
                if holds(entry["in"], index)
            },
        )
        for index, release in enumerate(releases)
    ]


def merge_release(
    document: Mapping[str, Any], read: ReleaseRead, *, order: Sequence[str] = ()
) -> dict[str, Any]:
    """``document`` with ``read`` added (or replacing the release of the same name), releases in order.

    ``order``: every release's place, oldest first, when the releases do not sort as
    versions do (the core's release order, :func:`~enginekit.base.versions.parse_version`,
    by default). Renames the spellings show (:func:`find_renames`) are added to the
    document's own.
    """
    from enginekit.base.versions import parse_version

    reads = [old for old in document_reads(document) if old.release != read.release] + [read]
    if order:
        place = {release: index for index, release in enumerate(order)}
        reads.sort(key=lambda r: place[r.release])
    else:
        reads.sort(key=lambda r: parse_version(r.release))
    kept = [OptionRename(old, entry["to"], entry["since"]) for old, entry in document["renames"].items()]
    found = {rename.old: rename for rename in find_renames(reads)}
    found.update({rename.old: rename for rename in kept})
    return option_document(
        engine=document["engine"],
        program=document["program"],
        generator=document["generator"],
        reads=reads,
        renames=found.values(),
    )


def _switch(option: str) -> tuple[bool, str] | None:
    """Which way a flag spelling switches, and what: ``--no-enable-x`` is ``(False, "x")``."""
    if not option.startswith("--"):
        return None
    name = option[2:].replace("_", "-")
    for prefix, on in (("no-enable-", False), ("no-disable-", True), ("enable-", True), ("disable-", False)):
        if name.startswith(prefix):
            return on, name[len(prefix) :]
    if name.startswith("no-"):
        return False, name[3:]
    return True, name


def find_renames(reads: Sequence[ReleaseRead]) -> list[OptionRename]:
    """Renames the option sets show: a spelling gone for good as one of the same shape arrives.

    Between two consecutive releases, an option the older has and the newer lacks, and
    that never comes back, is renamed to an option only the newer has when exactly one
    such option is the same switch (``--no-enable-x`` and ``--disable-x``; ``--x`` and
    ``--enable-x``), both taking no value, or the same spelling with ``-`` for ``_``.
    """
    found: list[OptionRename] = []
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
                or (
                    before.options[old] == 0
                    and after.options[new] == 0
                    and _switch(old) is not None
                    and _switch(old) == _switch(new)
                )
            ]
            if len(matches) == 1:
                why = f"{old} last in {before.release}; {matches[0]} first in {after.release}"
                found.append(OptionRename(old, matches[0], after.release, why))
    return found


def table_module_text(document: Mapping[str, Any]) -> str:
    """The ``options_table.py`` a plugin ships: a docstring and ``TABLE``, the JSON document as a string.

    A module rather than a data file: the plugin imports it, so reading it is no file
    access inside a hook. A string rather than a dict literal: importing a literal of
    hundreds of options runs the bytecode that builds it, where a string is loaded whole
    from the compiled file and ``json`` reads it in about a millisecond.

    :raises ValueError: for a document that is not well formed, or would not read back equal.
    """
    problems = check_option_document(document)
    if problems:
        raise ValueError("; ".join(problems))
    body = json.dumps(document, indent=1, ensure_ascii=True)
    if _QUOTES in body:
        raise ValueError(f"the table's text holds {_QUOTES}, which would end the string")
    docstring = (
        f"{document['program']}'s options per release, written by {document['generator']} from each "
        f"release's own parser: do not edit."
    )
    text = f'"""{docstring}"""\n\nTABLE = r{_QUOTES}{body}{_QUOTES}\n'
    if read_table_module(text) != document:
        raise ValueError("the table does not read back equal")
    return text


def read_table_module(text: str) -> Any:
    """The document an ``options_table.py`` holds in ``TABLE``, read without running the module.

    :raises ValueError: when the text has no ``TABLE`` string of JSON.
    """
    try:
        for node in ast.parse(text).body:
            if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["TABLE"]:
                return json.loads(ast.literal_eval(node.value))
    except (SyntaxError, ValueError, TypeError) as exc:
        raise ValueError(f"not an option table module: {exc}") from None
    raise ValueError("not an option table module: no TABLE in it")


def write_table_module(document: Mapping[str, Any], path: Path) -> None:
    """Write ``document`` to ``path`` (a plugin's ``options_table.py``), after checking it reads back.

    :raises ValueError: as :func:`table_module_text`; nothing is written then.
    """
    text = table_module_text(document)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def check_table_module(path: Path) -> list[str]:
    """Every problem with the table module at ``path``: unreadable, malformed, or edited by hand."""
    try:
        text = path.read_text(encoding="utf-8")
        document = read_table_module(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return [f"{path}: {exc}"]
    problems = [f"{path}: {problem}" for problem in check_option_document(document)]
    if not problems and table_module_text(document) != text:
        problems.append(f"{path}: not what the writer makes of its document (edited by hand?)")
    return problems
