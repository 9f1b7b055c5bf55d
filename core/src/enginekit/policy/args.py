"""Reading pass-through arguments the way an engine's parser will, so checks cannot be sidestepped.

argparse accepts ``--flag=value``, unambiguous prefixes of long options, and (in vLLM)
underscores for dashes and dotted JSON keys. A check that looks only for the literal
``--trust-remote-code`` is one ``--trust_remote`` away from being bypassed, so every
token is normalised and matched against the engine's known options first.
"""

from __future__ import annotations

import bisect
import re
import weakref
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

import attrs

from enginekit.base.frozen import FrozenDict, frozen

#: Distinct tokens (and argument lists) one syntax remembers how it read: enough for
#: every profile of a node many times over, and bounded whatever a control plane sends.
_CACHE_LIMIT = 4096
#: Every syntax made, for :func:`forget_readings`.
_SYNTAXES: weakref.WeakValueDictionary[int, ArgSyntax] = weakref.WeakValueDictionary()
#: Longer tokens, and argument lists longer in all, are read again each time: the memo's
#: size stays bounded in bytes too, not only in entries.
_MEMO_TOKEN = 256
_MEMO_ARGS = 16384


def forget_readings() -> None:
    """Forget what every syntax remembers it read: memory back, or a test that starts clean."""
    for syntax in list(_SYNTAXES.values()):
        syntax._memo.clear()


def _option_set(options: Iterable[str]) -> frozenset[str]:
    return frozenset(options)


def _frozen_aliases(value: Mapping[str, str]) -> FrozenDict[str, str]:
    return frozen(value)


@attrs.frozen(eq=False)
class ArgSyntax:
    """How one engine's parser reads options.

    :ivar known: Every long option the plugin knows the engine's parser has. An exact
        match wins, as in argparse; otherwise a token that is a prefix of several known
        options could mean any of them. List every real option that is a prefix of a
        refused one, or it will be refused too.
    :ivar aliases: Short spellings (``-q``) mapped to their long option.
    :ivar underscores: ``_`` and ``-`` are the same inside a long option (vLLM).
    :ivar abbreviations: Unambiguous prefixes are accepted (argparse's ``allow_abbrev``).
    :ivar dotted: ``--option.key value`` sets a key of a JSON option (vLLM).
    :ivar glued: A one-letter short option takes its value attached (``-O3``, ``-qawq``),
        as argparse and Click read them. llama-server's parser does not: ``-tp8`` there
        is no option at all, never ``-t p8``.
    """

    known: frozenset[str] = attrs.field(default=frozenset(), converter=_option_set)
    aliases: Mapping[str, str] = attrs.field(factory=FrozenDict, converter=_frozen_aliases)
    underscores: bool = False
    abbreviations: bool = True
    dotted: bool = False
    glued: bool = True
    # Reading a token is pure, and profiles repeat the same few: each is read once. The
    # known options sorted, so a prefix finds its matches by bisection, not by a scan.
    _memo: dict[Any, Any] = attrs.field(factory=dict, init=False, eq=False, repr=False)
    _sorted: list[str] = attrs.field(init=False, eq=False, repr=False)

    @_sorted.default
    def _sort_known(self) -> list[str]:
        _SYNTAXES[id(self)] = self  # by id: a subclass may compare by value, and not hash
        return sorted(self.known)

    def parse(self, args: Sequence[str]) -> ParsedArgs:
        """``args`` read once as this parser reads them; the same list is read only once."""
        key = ("args", tuple(args))
        parsed = self._memo.get(key)
        if parsed is None:
            parsed = ParsedArgs.read(key[1], self)
            if sum(map(len, key[1])) <= _MEMO_ARGS:
                self._remember(key, parsed)
        return parsed

    def _remember(self, key: object, value: object) -> None:
        if len(self._memo) >= _CACHE_LIMIT:
            self._memo.clear()
        self._memo[key] = value

    def normalise(self, token: str) -> str | None:
        """The long-option spelling of ``token``, or None when it is not an option."""
        if not token.startswith("-") or token == "-" or _is_number(token):
            return None
        name = token.split("=", 1)[0]
        if name.startswith("--"):
            if self.dotted:
                name = name.split(".", 1)[0]
            if self.underscores:
                name = "--" + name[2:].replace("_", "-")
            return name
        for alias, option in self.aliases.items():
            # ``-q awq``, ``-q=awq`` and, for a one-letter alias, ``-qawq``.
            if name == alias or (self.glued and len(alias) == 2 and token.startswith(alias)):
                return option
        return name

    def meanings(self, token: str) -> frozenset[str]:
        """The options ``token`` may select: one, several when it is an ambiguous prefix, or none."""
        found = self._memo.get(token)
        if found is None:
            found = self._meanings(token)
            if len(token) <= _MEMO_TOKEN:
                self._remember(token, found)
        return found

    def _meanings(self, token: str) -> frozenset[str]:
        name = self.normalise(token)
        if name is None:
            return frozenset()
        if name in self.known or not name.startswith("--"):
            return frozenset({name})
        if self.abbreviations and len(name) > 2:
            start = bisect.bisect_left(self._sorted, name)
            matches = []
            for option in self._sorted[start:]:
                if not option.startswith(name):
                    break
                matches.append(option)
            if matches:
                return frozenset(matches)
        return frozenset({name})


class OptionUse(NamedTuple):
    """One place in the arguments where an option of interest is given.

    A named tuple: profiles give hundreds, and every one is made on each new reading.
    """

    index: int  # type: ignore[assignment]  # the field, not tuple.index
    token: str
    option: str
    value: str | None


#: Collections whose membership test is a lookup.
_LOOKUPS = (dict, frozenset, set)


@attrs.frozen
class ParsedArgs:
    """A profile's pass-through arguments, read once as the engine's parser reads them.

    Every check on the arguments reads this one value: finding the uses of an option is
    a lookup, not a scan of every token. Obtain one with :meth:`ArgSyntax.parse`.
    """

    tokens: tuple[str, ...]
    syntax: ArgSyntax
    #: Every option some token may select, with each place it is given, in order.
    uses: Mapping[str, tuple[OptionUse, ...]]
    #: What checks found in these arguments, by check: the same arguments, the same answer.
    memo: dict[object, object] = attrs.field(factory=dict, eq=False, repr=False)

    @classmethod
    def read(cls, tokens: Sequence[str], syntax: ArgSyntax) -> ParsedArgs:
        """Read ``tokens`` with ``syntax`` (prefer :meth:`ArgSyntax.parse`, which remembers)."""
        tokens = tuple(tokens)
        uses: dict[str, list[OptionUse]] = {}
        for index, token in enumerate(tokens):
            meanings = syntax.meanings(token)
            if not meanings:
                continue
            value = _value(tokens, index, token, syntax)
            for option in meanings:
                uses.setdefault(option, []).append(OptionUse(index, token, option, value))
        # Read-only: every check, and every later validation of the same args, share it.
        return cls(tokens, syntax, MappingProxyType({option: tuple(found) for option, found in uses.items()}))

    def find(self, options: Collection[str]) -> list[OptionUse]:
        """Every place that may select one of ``options``, in argument order."""
        if not self.uses:
            return []
        if isinstance(options, str):
            options = (options,)
        if type(options) in _LOOKUPS and len(self.uses) < len(options):
            # Few options given, a long table asked about: walk what was given.
            found = [use for option, uses in self.uses.items() if option in options for use in uses]
        else:
            found = [use for option in options for use in self.uses.get(option, ())]
        if len(found) > 1:
            found.sort(key=lambda use: (use.index, use.option))
        return found

    def values(self, option: str) -> list[str]:
        """The values given to ``option``, in order (``--x v``, ``--x=v``, prefixes…)."""
        return [use.value for use in self.uses.get(option, ()) if use.value is not None]

    def last(self, option: str) -> str | None:
        """The value the engine's parser keeps for ``option``: the last one given, or None."""
        values = self.values(option)
        return values[-1] if values else None

    def __len__(self) -> int:
        return len(self.tokens)


def find_options(args: Sequence[str], options: Collection[str], syntax: ArgSyntax) -> list[OptionUse]:
    """Every place in ``args`` that may select one of ``options``, with its value if it takes one."""
    return syntax.parse(args).find(options)


def option_values(args: Sequence[str], option: str, syntax: ArgSyntax) -> list[str]:
    """The values given to ``option`` in ``args``, in order (``--x v``, ``--x=v``, prefixes…)."""
    return syntax.parse(args).values(option)


def _value(args: Sequence[str], index: int, token: str, syntax: ArgSyntax) -> str | None:
    if "=" in token:
        return token.split("=", 1)[1]
    glued = token[:2] in syntax.aliases and token not in syntax.aliases and token not in syntax.known
    if glued and syntax.glued and not token.startswith("--"):
        return token[2:]  # ``-qawq``: a one-letter option with its value attached
    if index + 1 < len(args) and not args[index + 1].startswith("--"):
        return args[index + 1]
    return None


#: argparse's test for a token that is a negative number and so a value, not an option
#: (``ArgumentParser._negative_number_matcher``, the same from Python 3.6 to 3.13). Not
#: ``float()``: it also takes ``-nan``, ``-inf``, ``-1e3`` and ``-1_0``, which argparse reads
#: as options (``-nan`` as ``-n an`` where ``-n`` exists), so a value so spelled would hide one.
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


def _is_number(token: str) -> bool:
    """Whether argparse reads ``token``, which starts with ``-``, as a negative number."""
    return _NEGATIVE_NUMBER.match(token) is not None


def _parsed(args: ParsedArgs | Sequence[str], syntax: ArgSyntax | None, function: str) -> ParsedArgs:
    """``args`` read once: the first release passed the raw list and the syntax (deprecated, kept in 1.x)."""
    if isinstance(args, ParsedArgs):
        return args
    if not isinstance(syntax, ArgSyntax):
        raise TypeError(
            f"{function}() takes the ParsedArgs validate() receives; "
            f"the first release's form (a list of args, then the ArgSyntax) needs the ArgSyntax"
        )
    from enginekit.base.deprecation import deprecated

    deprecated(
        f"{function}(profile_name, args_list, ..., syntax)",
        "pass the ParsedArgs that validate() receives (or syntax.parse(args_list)) and no syntax",
        stacklevel=4,
    )
    return syntax.parse(args)


def managed_option_problems(
    profile_name: str,
    args: ParsedArgs | Sequence[str],
    managed: Mapping[str, str],
    syntax: ArgSyntax | None = None,
) -> list[str]:
    """Refuse options enginekit sets itself; ``managed`` maps each to the field to use instead.

    ``syntax``: only with the first release's form, ``args`` as a list (deprecated).
    """
    args = _parsed(args, syntax, "managed_option_problems")
    return [
        f"profile {profile_name!r}: args: {spelling(use.token)!r} sets {use.option}, which enginekit "
        f"manages; {managed[use.option]}"
        for use in args.find(managed)
    ]


def code_loading_problems(
    profile_name: str,
    args: ParsedArgs | Sequence[str],
    risky: Mapping[str, str],
    allowed: Collection[str],
    syntax: ArgSyntax | None = None,
    *,
    config_key: str,
) -> list[str]:
    """Refuse options that load or run code (``risky`` maps each to why) unless the site allows them.

    ``syntax``: only with the first release's form, ``args`` as a list (deprecated).
    """
    args = _parsed(args, syntax, "code_loading_problems")
    return [
        f"profile {profile_name!r}: args: {spelling(use.token)!r} ({use.option}) {risky[use.option]}; "
        f'refused unless the site allows it ({config_key} = ["{use.option}"])'
        for use in args.find(risky)
        if use.option not in allowed
    ]


def secret_option_problems(profile_name: str, args: ParsedArgs, secrets: Mapping[str, str]) -> list[str]:
    """Refuse options that would put a secret on the command line; ``secrets`` says what to do instead.

    The token is never echoed: its value may be the secret (``--api-key=...``).
    """
    return [
        f"profile {profile_name!r}: args[{use.index}]: {use.option} puts a secret on the command "
        f"line, which every local user can read; {secrets[use.option]}"
        for use in args.find(secrets)
    ]


def spelling(token: str) -> str:
    """The option as the user spelled it, without an attached value (which may be a secret)."""
    return token.split("=", 1)[0]


def stray_token_problems(profile_name: str, args: Sequence[str]) -> Iterator[str]:
    """Tokens no engine should get through a profile: a bare ``--`` ends option parsing."""
    for token in args:
        if token == "--":
            yield (
                f"profile {profile_name!r}: args: a bare '--' ends option parsing, so what "
                f"follows would be read as positional arguments"
            )


#: How many values an option takes: 0 for a flag, n for exactly n, None when the
#: plugin does not know or the option takes a list (argparse's ``nargs="*"``/``"+"``).
Arity = Callable[[str], int | None]


def positional_problems(
    profile_name: str,
    args: ParsedArgs | Sequence[str],
    syntax: ArgSyntax | None = None,
    *,
    arity: Mapping[str, int | None] | Arity,
    engine: str = "the engine",
) -> list[str]:
    """Refuse every token of ``args`` the engine's parser would read as a positional argument.

    A token that is not an option is positional unless it is a value of the option
    before it. enginekit gives each engine its positional arguments itself (the model)
    and places a profile's args after options of fixed arity, so a stray one is either
    refused at start or read as something else: a second model, or one more item of a
    list option, where it escapes the checks that option's own field gets.

    :param arity: The values each option (in the canonical spelling ``syntax`` gives)
        takes. An option missing from it may take any number, so nothing after it is
        refused: give 0 for flags and 1 for single-value options wherever they are known.
    :param engine: The engine's name, for the message.
    :param syntax: only with the first release's form, ``args`` as a list (deprecated).
    """
    args = _parsed(args, syntax, "positional_problems")
    # Remembered with the arity itself: an id alone may be a new table's at a freed address.
    key = ("positional", id(arity))
    kept = args.memo.get(key)
    if kept is None or kept[0] is not arity:  # type: ignore[index]
        kept = args.memo[key] = (arity, _positional(args, arity, arity if callable(arity) else arity.get))
    found = kept[1]  # type: ignore[index]
    return [
        f"profile {profile_name!r}: args[{index}]: not an option, and {why}, so {engine} "
        f"would read it as a positional argument; a profile's args may give none "
        f"(enginekit passes the model itself): remove it, or put it right after the "
        f"option it is a value of"
        for index, why in found
    ]


#: What the positional check remembers of a token that is no option.
_NOT_AN_OPTION = "not an option"


def _positional(args: ParsedArgs, arity: object, count: Callable[[str], int | None]) -> list[tuple[int, str]]:
    """Each positional token's index, and why it is positional."""
    syntax = args.syntax
    memo = syntax._memo
    found = []
    # The values the last option may still take (None: any number), where that option
    # is, and where the last refused token is: a message is written only when needed.
    remaining: int | None = 0
    option_at = refused_at = -1
    for index, token in enumerate(args.tokens):
        key = ("takes", token, id(arity))
        kept = memo.get(key)
        if kept is not None and kept[0] is arity:
            taken = kept[1]
        else:
            # What a token takes depends on the token alone: each is read once per arity.
            taken = _NOT_AN_OPTION if syntax.normalise(token) is None else _takes(token, 0, syntax, count)[0]
            if len(token) <= _MEMO_TOKEN:
                syntax._remember(key, (arity, taken))
        if taken is not _NOT_AN_OPTION:
            remaining, option_at, refused_at = taken, index, -1
            continue
        if remaining is None:
            continue
        if remaining > 0:
            remaining -= 1
            continue
        if refused_at >= 0:
            why = f"the token before it (args[{refused_at}]) is refused for the same reason"
        elif option_at >= 0:
            why = _takes(args.tokens[option_at], option_at, syntax, count)[1]
        else:
            why = "no option comes before it to take it as a value"
        found.append((index, why))
        refused_at = index
    return found


def _takes(
    token: str, index: int, syntax: ArgSyntax, count: Callable[[str], int | None]
) -> tuple[int | None, str]:
    """How many values the option ``token`` takes, and why a bare token after them is positional."""
    given = f"{spelling(token)!r} (args[{index}]) before it"
    if "=" in token:
        return 0, f"{given} has its value already, after '='"
    if syntax.dotted and "." in spelling(token):
        # ``--json-option.key value`` (or ``-cc.key value``): the key's value, exactly one.
        return 1, f"{given} takes exactly 1 value"
    if _glued(token, syntax):
        return 0, f"{token[:2]!r} (args[{index}]) before it has its value attached"
    takes = {count(option) for option in syntax.meanings(token)}
    # An ambiguous prefix whose meanings differ could take any number.
    value = takes.pop() if len(takes) == 1 else None
    if value == 0:
        return 0, f"{given} takes no value"
    return value, f"{given} takes exactly {value} value{'' if value == 1 else 's'}"


def _glued(token: str, syntax: ArgSyntax) -> bool:
    """``-O3``: a one-letter alias with its value attached, where the syntax reads it so.

    A parser without glued values (llama.cpp's ``-to`` is ``--timeout``, not ``-t o``)
    normalises such a token to itself rather than to the alias's option.
    """
    alias = token[:2]
    return (
        syntax.glued
        and not token.startswith("--")
        and alias in syntax.aliases
        and token not in syntax.aliases
        and token not in syntax.known
        and syntax.normalise(token) == syntax.aliases[alias]
    )


def load_format_problem(value: str, safe: Collection[str], remote: Mapping[str, str]) -> str | None:
    """Why a ``--load-format`` value reaches beyond the model's own files, or None when it does not.

    :param safe: The formats that read only the model's files, in lower case.
    :param remote: The engine's own formats that fetch or import, mapped to what they do.
        Only these are named in the message: any other value is not echoed.
    """
    fmt = value.strip().lower()
    if fmt in safe:
        return None
    known = remote.get(fmt)
    why = (
        f"{fmt}: {known}"
        if known
        else "a load format this plugin does not know to read only the model's files"
    )
    return f"selects a weight loader that reaches beyond the model's own files ({why})"
