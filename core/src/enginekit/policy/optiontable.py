"""An engine's options per release, from the table its plugin ships, and what one release accepts.

A plugin generates its table by running each release's own argument parser and ships it
as the ``TABLE`` of its ``options_table`` module (the format: ``docs/option-tables.md``).
The core reads it, checks its shape, and answers for one configured release: which
options it accepts, how many values each takes, how a generated flag is spelt there, and,
for an option it does not accept, what is known about it ("did you mean", "from 0.34.0
on", "removed in 0.26.0", "renamed to …").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from enginekit.base.errors import EngineError
from enginekit.base.versions import Version, parse_version
from enginekit.policy.args import ParsedArgs, spelling

#: The shape this module reads; a table of another shape is refused, not guessed at.
TABLE_FORMAT = 1
#: ``takes`` values besides whole numbers: argparse's ``nargs`` for an optional value,
#: any number of values and at least one. They read as "several" (None) in an arity table.
_LIST_TAKES = ("?", "*", "+")
_OPTION = re.compile(r"--?[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
#: How alike an unknown option must be to a real one to be offered as "did you mean".
_CLOSE = 0.8


class OptionTableError(EngineError):
    """A plugin's option table that is not in the shape this core reads: a plugin bug."""


def check_option_document(data: object) -> list[str]:
    """Every way ``data`` (an ``options_table.TABLE``) breaks the table format; [] when none."""
    if not isinstance(data, Mapping):
        return [f"the table is {type(data).__name__}, expected a JSON object"]
    problems = []
    expected = {"format", "engine", "program", "generator", "releases", "options", "aliases", "renames"}
    if missing := sorted(expected - set(data)):
        problems.append(f"missing keys: {', '.join(missing)}")
    if extra := sorted(str(key) for key in set(data) - expected):
        problems.append(f"unknown keys: {', '.join(extra)}")
    if type(data.get("format")) is not int or data.get("format") != TABLE_FORMAT:
        problems.append(f"format is {data.get('format')!r}, expected {TABLE_FORMAT}")
    for key in ("engine", "program", "generator"):
        if not isinstance(data.get(key), str) or not data.get(key):
            problems.append(f"{key} must be a non-empty string")
    releases = _check_releases(data.get("releases"), problems)
    _check_entries(data.get("options"), "options", releases, problems, _check_option)
    _check_entries(data.get("aliases"), "aliases", releases, problems, _check_alias)
    options = _mapping(data.get("options"))
    aliases = _mapping(data.get("aliases"))
    for alias, entry in aliases.items():
        if isinstance(entry, Mapping) and (
            type(entry.get("option")) is not str or entry.get("option") not in options
        ):
            problems.append(f"aliases[{alias!r}]: stands for {entry.get('option')!r}, which is no option")
    _check_renames(data.get("renames"), options, releases, problems)
    return problems


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _check_releases(raw: object, problems: list[str]) -> list[str]:
    if not isinstance(raw, list) or not raw:
        problems.append("releases must be a non-empty list")
        return []
    names: list[str] = []
    versions: list[Version] = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, Mapping) or set(entry) != {"release", "source"}:
            problems.append(f"releases[{i}]: expected an object with release and source")
            continue
        if not isinstance(entry["source"], str) or not entry["source"]:
            problems.append(f"releases[{i}]: source must say what was read")
        try:
            versions.append(parse_version(entry["release"]))
        except ValueError as error:
            problems.append(f"releases[{i}]: {error}")
            continue
        names.append(entry["release"])
    if versions != sorted(versions) or len(set(versions)) != len(versions):
        problems.append("releases must be distinct and oldest first")
    return names


def _check_entries(raw: object, key: str, releases: list[str], problems: list[str], check: Any) -> None:
    position = {release: i for i, release in enumerate(releases)}
    if not isinstance(raw, Mapping):
        problems.append(f"{key} must be an object")
        return
    if not all(type(name) is str for name in raw) or list(raw) != sorted(raw):
        problems.append(f"{key} must be sorted by spelling")
    for name, entry in raw.items():
        if not isinstance(name, str) or not _OPTION.match(name):
            problems.append(f"{key}: {name!r} is not an option's spelling")
            continue
        # type() first: a parsed table holds dicts, and an ABC's isinstance is slow.
        if type(entry) is not dict and not isinstance(entry, Mapping):
            problems.append(f"{_where(key, name)}: expected an object")
            continue
        # Where a problem is, is written only when there is one: this runs for every entry.
        check(key, name, entry, problems)
        _check_spans(key, name, entry.get("in"), position, problems)


def _where(key: str, name: str) -> str:
    """Where in the table an entry is (``options['--x']``): written only when a problem is found."""
    return f"{key}[{name!r}]"


def _check_option(key: str, name: str, entry: Mapping[str, Any], problems: list[str]) -> None:
    if set(entry) != {"takes", "in"}:
        problems.append(f"{_where(key, name)}: expected takes and in")
    takes = entry.get("takes")
    if not (takes in _LIST_TAKES or (type(takes) is int and 0 <= takes <= 8)):
        problems.append(
            f"{_where(key, name)}: takes is {takes!r}, expected 0-8 or one of {', '.join(_LIST_TAKES)}"
        )


def _check_alias(key: str, name: str, entry: Mapping[str, Any], problems: list[str]) -> None:
    if set(entry) != {"option", "in"}:
        problems.append(f"{_where(key, name)}: expected option and in")


def _check_spans(
    key: str, name: str, spans: object, position: Mapping[str, int], problems: list[str]
) -> None:
    if not isinstance(spans, list) or not spans:
        problems.append(f"{_where(key, name)}: in must be a non-empty list of [first, last] ranges")
        return
    last = -1
    for span in spans:
        # Written out, not with all(): a table has hundreds of entries, read at every start.
        first = end = None
        if isinstance(span, list) and len(span) == 2 and type(span[0]) is str and type(span[1]) is str:
            first, end = position.get(span[0]), position.get(span[1])
        if first is None or end is None:
            problems.append(f"{_where(key, name)}: {span!r} is not a [first, last] range of read releases")
            return
        if first > end or first <= last:
            problems.append(f"{_where(key, name)}: ranges must be in order and apart ({span!r})")
            return
        last = end


def _check_renames(raw: object, options: Mapping[str, Any], releases: list[str], problems: list[str]) -> None:
    if not isinstance(raw, Mapping):
        problems.append("renames must be an object")
        return
    for old, entry in raw.items():
        if not isinstance(entry, Mapping) or set(entry) != {"to", "since"}:
            problems.append(f"renames[{old!r}]: expected to and since")
            continue
        if not all(type(value) is str for value in (old, entry["to"], entry["since"])):
            problems.append(f"renames[{old!r}]: the spellings and since must be strings")
            continue
        if old not in options or entry["to"] not in options:
            problems.append(f"renames[{old!r}]: both spellings must be options of the table")
        if entry["since"] not in releases:
            problems.append(f"renames[{old!r}]: since {entry['since']!r} is not a read release")


def _indexes(
    spans: Iterable[Sequence[str]], position: Mapping[str, int], made: dict[tuple[str, ...], frozenset[int]]
) -> frozenset[int]:
    # A table has hundreds of options, read at every start that checks args, and most share
    # a few spans (every release, from one release on): each distinct one is made once,
    # its ranges joined in C.
    key = tuple(part for span in spans for part in span)
    found = made.get(key)
    if found is None:
        found = made[key] = frozenset().union(
            *(range(position[first], position[last] + 1) for first, last in spans)
        )
    return found


def _arity(takes: int | str) -> int | None:
    return takes if isinstance(takes, int) else None


@attrs.frozen(eq=False)
class OptionTable:
    """Every option of every release a plugin has read, from its ``options_table`` module.

    :ivar engine: The engine's registered name.
    :ivar program: What parses the options, as messages name it (``vllm serve``).
    :ivar releases: The releases read, oldest first, as the engine spells them.
    :ivar sources: What was run on what, for each release.
    :ivar takes: How many values each option takes (None: a list, or an optional value).
    :ivar option_in: The indexes into ``releases`` of the releases that accept each option.
    :ivar alias_of: Each other spelling, with the option it stands for.
    :ivar alias_in: The releases that accept each other spelling.
    :ivar renames: An old spelling, the spelling that replaced it, and since which release.
    """

    engine: str
    program: str
    releases: tuple[str, ...]
    sources: tuple[str, ...]
    takes: Mapping[str, int | None]
    option_in: Mapping[str, frozenset[int]]
    alias_of: Mapping[str, str]
    alias_in: Mapping[str, frozenset[int]]
    renames: Mapping[str, tuple[str, str]]
    _versions: tuple[Version, ...] = attrs.field(init=False, repr=False)
    _views: dict[tuple[str | None, str], ReleaseOptions] = attrs.field(factory=dict, init=False, repr=False)

    @_versions.default
    def _parse_releases(self) -> tuple[Version, ...]:
        return tuple(parse_version(release) for release in self.releases)

    @classmethod
    def from_document(cls, data: object, *, name: str = "option table") -> OptionTable:
        """The table ``data`` holds (an ``options_table.TABLE``).

        :raises OptionTableError: naming every way it breaks the format.
        """
        problems = check_option_document(data)
        if problems:
            raise OptionTableError(f"{name}: {'; '.join(problems)}")
        assert isinstance(data, Mapping)
        releases = tuple(entry["release"] for entry in data["releases"])
        position = {release: i for i, release in enumerate(releases)}
        options, aliases = data["options"], data["aliases"]
        made: dict[tuple[str, ...], frozenset[int]] = {}
        return cls(
            engine=data["engine"],
            program=data["program"],
            releases=releases,
            sources=tuple(entry["source"] for entry in data["releases"]),
            takes={option: _arity(entry["takes"]) for option, entry in options.items()},
            option_in={option: _indexes(entry["in"], position, made) for option, entry in options.items()},
            alias_of={alias: entry["option"] for alias, entry in aliases.items()},
            alias_in={alias: _indexes(entry["in"], position, made) for alias, entry in aliases.items()},
            renames={old: (entry["to"], entry["since"]) for old, entry in data["renames"].items()},
        )

    @classmethod
    def from_package(cls, package: str, module: str = "options_table") -> OptionTable:
        """The table a plugin package ships as ``<package>.<module>.TABLE``, read once per process.

        ``TABLE`` is the JSON document as a string. A module, not a data file: importing
        it is no file read inside a hook, and Python keeps it compiled.
        """
        return _package_table(package, module)

    @property
    def newest(self) -> str:
        """The newest release read."""
        return self.releases[-1]

    @property
    def oldest(self) -> str:
        """The oldest release read."""
        return self.releases[0]

    @property
    def options(self) -> frozenset[str]:
        """Every long option some read release accepts."""
        return frozenset(self.takes)

    def arity(self) -> dict[str, int | None]:
        """How many values each option of any release takes: the table every release shares."""
        return dict(self.takes)

    def for_release(self, release: str | Version | None, *, setting: str) -> ReleaseOptions:
        """What ``release`` accepts: its own table, or the nearest read one with a note saying so.

        :param release: The configured release; None or "" when the site configured none.
        :param setting: Where a site configures it, for the notes (``[engines.vllm] version``).
        """
        asked = None if release is None or release == "" else str(release)
        key = (asked, setting)
        view = self._views.get(key)
        if view is None:
            view = self._choose(asked, setting)
            self._views[key] = view
        return view

    def _choose(self, asked: str | None, setting: str) -> ReleaseOptions:
        last = len(self.releases) - 1
        window = f"{self.oldest} to {self.newest}"
        if asked is None:
            note = (
                f"no {self.engine} release is configured ({setting}): pass-through options are "
                f"checked against {self.program} {self.newest}, the newest release this plugin has "
                f"read ({window}); set {setting} to the release the node runs"
            )
            return ReleaseOptions(self, last, asked, note)
        version = parse_version(asked)
        if version in self._versions:
            return ReleaseOptions(self, self._versions.index(version), asked, None)
        below = [i for i, read in enumerate(self._versions) if read <= version]
        if not below:
            note = (
                f"{self.engine} {asked} is older than every release this plugin has read ({window}): "
                f"pass-through options are checked against {self.oldest}'s"
            )
            return ReleaseOptions(self, 0, asked, note)
        index = below[-1]
        if index == last:
            note = (
                f"{self.engine} {asked} is newer than every release this plugin has read ({window}): "
                f"pass-through options are checked against {self.newest}'s; an option added since "
                f"is refused until the plugin is upgraded or the site lists it in allow_args"
            )
        else:
            note = (
                f"{self.engine} {asked} has no option table of its own: pass-through options are "
                f"checked against {self.releases[index]}'s, the newest release read below it"
            )
        return ReleaseOptions(self, index, asked, note)


@functools.cache
def _package_table(package: str, module: str) -> OptionTable:
    import importlib
    import json  # here: only validating a profile with pass-through args needs it

    where = f"{package}.{module}"
    try:
        text = importlib.import_module(where).TABLE
    except Exception as error:  # a third party's module: whatever it raises is its bug
        raise OptionTableError(f"{where}: no option table ({type(error).__name__}: {error})") from None
    if not isinstance(text, str):
        raise OptionTableError(f"{where}: TABLE is {type(text).__name__}, expected the JSON document as text")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise OptionTableError(f"{where}: TABLE is not JSON ({type(error).__name__})") from None
    return OptionTable.from_document(data, name=where)


@attrs.frozen(eq=False)
class ReleaseOptions:
    """What one release accepts, from its table (or the nearest read one).

    :ivar table: The whole table.
    :ivar index: The release whose options are used, as an index into ``table.releases``.
    :ivar asked: The release the site configured, or None when it configured none.
    :ivar note: Why another release's table stands in for ``asked``; None when none does.
    """

    table: OptionTable
    index: int
    asked: str | None
    note: str | None

    @property
    def read(self) -> str:
        """The release whose options are used."""
        return self.table.releases[self.index]

    @functools.cached_property
    def known(self) -> frozenset[str]:
        """Every long option this release accepts."""
        return frozenset(option for option, where in self.table.option_in.items() if self.index in where)

    @functools.cached_property
    def aliases(self) -> Mapping[str, str]:
        """Every other spelling this release accepts, with the option it stands for."""
        return {
            alias: option
            for alias, option in self.table.alias_of.items()
            if self.index in self.table.alias_in[alias]
        }

    @property
    def name(self) -> str:
        """The program and release, as messages say them."""
        if self.asked is None:
            return f"{self.table.program} {self.read} (assumed: no release is configured)"
        if self.note is None:
            return f"{self.table.program} {self.read}"
        return f"{self.table.program} {self.read} (the release read nearest {self.asked})"

    def accepts(self, option: str) -> bool:
        """Whether this release's parser accepts ``option`` (a long option or another spelling)."""
        return option in self.known or option in self.aliases

    def spelling(self, *candidates: str) -> str:
        """The first of ``candidates`` this release accepts, for a flag a plugin generates.

        The first candidate when none is accepted: the newest spelling, for a release older
        than the table, where a plugin's flag is refused at start rather than dropped.
        """
        for candidate in candidates:
            if self.accepts(candidate):
                return candidate
        return candidates[0]

    def why_not(self, option: str) -> str:
        """What is known about ``option``, which this release does not accept, as a clause."""
        return self._explain(option)[0]

    def _explain(self, option: str) -> tuple[str, str | None]:
        """The clause saying what is known about ``option``, and the spelling to use instead."""
        table = self.table
        rename = table.renames.get(option)
        if rename and self.accepts(rename[0]):
            return f": renamed to {rename[0]} in {rename[1]}", rename[0]
        for old, (new, _since) in table.renames.items():
            if new == option and self.accepts(old):
                # The first release with the new spelling, not the rename's ``since`` (the
                # first with only the new one): the two may overlap.
                first = table.releases[min(table.option_in[new])]
                return f": it is from {first} on, where it replaced {old}", old
        where = table.option_in.get(option) or table.alias_in.get(option)
        if where:
            return ": " + self._when(where, rename), None
        import difflib  # here: only a refused option needs it

        close = difflib.get_close_matches(option, sorted(self.known | set(self.aliases)), n=1, cutoff=_CLOSE)
        return (f"; did you mean {close[0]}?", None) if close else ("", None)

    def _when(self, where: frozenset[int], rename: tuple[str, str] | None) -> str:
        releases = self.table.releases
        if min(where) > self.index:
            return f"it is from {releases[min(where)]} on"
        if max(where) < self.index:
            gone = releases[max(where) + 1]
            later = f", later spelt {rename[0]}" if rename else ""
            return f"removed in {gone} (last in {releases[max(where)]}){later}"
        return f"only {', '.join(_spans(sorted(where), releases))} accept it"

    def _known_anywhere(self, option: str) -> bool:
        return option in self.table.takes or option in self.table.alias_of

    def unknown_problems(
        self,
        profile_name: str,
        args: ParsedArgs,
        *,
        allowed: Collection[str],
        config_key: str,
        values_take_any_word: bool = False,
    ) -> list[str]:
        """One sentence for each pass-through option this release's parser would refuse.

        :param args: The profile's args, read with the plugin's syntax (which knows every
            release's options, so an abbreviation resolves as the engine resolves it).
        :param allowed: Options the site vouches for (``allow_args``): passed when no read
            release knows them (a newer release's); one a read release has is still checked
            against the configured release, since allowing a risky flag does not make it exist.
        :param config_key: Where the site lists them, for the message.
        :param values_take_any_word: The parser takes the words after an option that takes
            values as those values, whatever they start with (Click, llama-server), where
            argparse reads a word starting with '-' as an option.
        """
        problems = []
        by_token = dict(_options_by_token(args))
        vouched = {option for option in allowed if not self._known_anywhere(option)}
        values = self._value_words(args, by_token) if values_take_any_word else set()
        for index, options in by_token.items():
            token = args.tokens[index]
            if options & vouched or token == "--" or index in values:
                continue
            where = f"profile {profile_name!r}: args"
            after = None if index - 1 in values else self._value_of(args, by_token, index)
            if after is not None and values_take_any_word:
                # After an option the table does not know (its own refusal comes first):
                # the word may be its value, and a secret; it is not echoed.
                continue
            if after is not None:
                # The word was meant as the value of the option before it, and may be a
                # secret (a key after --api-key): it is never echoed.
                problems.append(
                    f"{where}[{index}] follows {after!r}, which takes a value, but starts with '-': "
                    f"{self.name} reads it as an option, and it is none; give the value as "
                    f"{after}=VALUE"
                )
                continue
            syntax = args.syntax
            problem = self._judge(
                token, options, config_key, syntax.normalise(token), syntax.abbreviations, syntax.glued
            )
            if problem is not None:
                problems.append(f"{where}: {spelling(token)!r} {problem}")
        return problems

    def _value_words(self, args: ParsedArgs, by_token: Mapping[int, set[str]]) -> set[int]:
        """The indexes of the words a parser that takes any word as a value takes as values."""
        values: set[int] = set()
        index = 0
        while index < len(args.tokens):
            options = by_token.get(index, set())
            counts = {self.table.takes.get(option) for option in options}
            if index not in values and len(counts) == 1 and "=" not in args.tokens[index]:
                (count,) = counts
                if isinstance(count, int) and count > 0:
                    values.update(range(index + 1, index + 1 + count))
                    index += count
            index += 1
        return values

    def _value_of(self, args: ParsedArgs, by_token: Mapping[int, set[str]], index: int) -> str | None:
        """The option ``args[index]`` is probably the value of, when this release would refuse it."""
        token = args.tokens[index]
        # The nearest option before it, over the plain words between: a list option
        # (``--api-key k1 -k2``) has them all as values, and the next may be a secret too.
        previous = index - 1
        while previous >= 0 and previous not in by_token:
            previous -= 1
        before = by_token.get(previous)
        if not before or "=" in args.tokens[previous] or not token.startswith("-"):
            return None
        normal = args.syntax.normalise(token)
        syntax = args.syntax
        if self._judge(token, by_token[index], "", normal, syntax.abbreviations, syntax.glued) is None:
            return None  # an option this release has: argparse reads it as one, rightly
        between = index - previous - 1  # the values it already has
        takes = [self.table.takes.get(option, None) for option in before]
        # A fixed count already given leaves this word no value of it; a list (None) or
        # an unknown option may still be taking values.
        if all(count is not None and count <= between for count in takes):
            return None
        return spelling(args.tokens[previous])

    def _judge(
        self,
        token: str,
        options: set[str],
        config_key: str,
        exact: str | None,
        abbreviates: bool = False,
        glued: bool = True,
    ) -> str | None:
        """Why this release refuses ``token`` (which may select ``options``), or None.

        :param exact: The long option ``token`` spells out in full, as the parser reads it.
        :param glued: The parser reads ``-O3`` as ``-O`` with its value attached.
        """
        head = spelling(token)
        if options == {"--"}:
            # ``--=x`` or ``--.x``: argparse finds no option by that name.
            return f"is not an option of {self.name}; remove it"
        if not head.startswith("--"):
            head = head.split(".", 1)[0]  # ``-cc.mode x``: a key of the option -cc spells
        alias = head if head in self.table.alias_of else None
        if alias is None and glued and not head.startswith("--") and head[:2] in self.table.alias_of:
            alias = head[:2]  # ``-O3``: a one-letter option with its value glued on
        if alias is not None and not head.startswith("--"):
            if self.index in self.table.alias_in[alias]:
                return None
            if not abbreviates or alias != head:
                return f"is not an option of {self.name}{self.why_not(alias)}; remove it"
        if abbreviates and not head.startswith("--") and len(head) > 1:
            # argparse abbreviates single-dash options too, among this release's own.
            starting = sorted(a for a in self.aliases if not a.startswith("--") and a.startswith(head))
            if len(starting) == 1 and self.aliases[starting[0]] in options:
                return None
            if len(starting) == 1:
                # Read here as another option than the checks read it: never let it through.
                target = self.aliases[starting[0]]
                return (
                    f"is read by {self.name} as {starting[0]} ({target}), not as the option it is "
                    f"elsewhere; spell the option out"
                )
            if len(starting) > 1:
                return (
                    f"is a prefix of several options of {self.name} ({', '.join(starting[:6])}): its "
                    f"parser refuses an ambiguous abbreviation; spell the option out"
                )
            if not starting or head in self.table.alias_of:
                return f"is not an option of {self.name}{self.why_not(head)}; remove it"
        accepted = options & self.known
        if len(accepted) == 1 or exact in self.known:
            return None  # argparse takes an exact spelling over the longer ones it starts
        if accepted:
            shown = ", ".join(sorted(accepted)[:6]) + (", …" if len(accepted) > 6 else "")
            return (
                f"is a prefix of several options of {self.name} ({shown}): its parser refuses an "
                f"ambiguous abbreviation; spell the option out"
            )
        shown = min(options) if len(options) == 1 else head
        clause, instead = self._explain(shown)
        if instead is not None:
            remedy = f"use {instead} instead"
        elif self._known_anywhere(shown):
            remedy = "remove it"
        else:
            remedy = f"remove it, or, if the node's release has it, list it in {config_key}"
        return f"is not an option of {self.name}{clause}; {remedy}"


def _options_by_token(args: ParsedArgs) -> Iterator[tuple[int, set[str]]]:
    by_token: dict[int, set[str]] = {}
    for option, uses in args.uses.items():
        for use in uses:
            by_token.setdefault(use.index, set()).add(option)
    for index in sorted(by_token):
        yield index, by_token[index]


def _spans(indexes: Sequence[int], releases: Sequence[str]) -> Iterator[str]:
    start = previous = indexes[0]
    for i in [*indexes[1:], None]:
        if i is not None and i == previous + 1:
            previous = i
            continue
        yield releases[start] if start == previous else f"{releases[start]}–{releases[previous]}"
        if i is not None:
            start = previous = i
