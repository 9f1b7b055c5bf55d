"""Reading pass-through arguments the way an engine's parser will, so checks cannot be sidestepped.

argparse accepts ``--flag=value``, unambiguous prefixes of long options, and (in vLLM)
underscores for dashes and dotted JSON keys. A check that looks only for the literal
``--trust-remote-code`` is one ``--trust_remote`` away from being bypassed, so every
token is normalised and matched against the engine's known options first.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence

import attrs


def _option_set(options: Iterable[str]) -> frozenset[str]:
    return frozenset(options)


@attrs.frozen
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
    """

    known: frozenset[str] = attrs.field(default=frozenset(), converter=_option_set)
    aliases: Mapping[str, str] = attrs.field(factory=dict)
    underscores: bool = False
    abbreviations: bool = True
    dotted: bool = False

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
            if name == alias or (len(alias) == 2 and token.startswith(alias)):
                return option
        return name

    def meanings(self, token: str) -> frozenset[str]:
        """The options ``token`` may select: one, several when it is an ambiguous prefix, or none."""
        name = self.normalise(token)
        if name is None:
            return frozenset()
        if name in self.known or not name.startswith("--"):
            return frozenset({name})
        if self.abbreviations and len(name) > 2:
            matches = frozenset(option for option in self.known if option.startswith(name))
            if matches:
                return matches
        return frozenset({name})


@attrs.frozen
class OptionUse:
    """One place in the arguments where an option of interest is given."""

    index: int
    token: str
    option: str
    value: str | None


def find_options(args: Sequence[str], options: Collection[str], syntax: ArgSyntax) -> list[OptionUse]:
    """Every place in ``args`` that may select one of ``options``, with its value if it takes one."""
    found = []
    for index, token in enumerate(args):
        hits = syntax.meanings(token) & frozenset(options)
        for option in sorted(hits):
            found.append(OptionUse(index, token, option, _value(args, index, token, syntax)))
    return found


def option_values(args: Sequence[str], option: str, syntax: ArgSyntax) -> list[str]:
    """The values given to ``option`` in ``args``, in order (``--x v``, ``--x=v``, prefixes…)."""
    return [use.value for use in find_options(args, {option}, syntax) if use.value is not None]


def _value(args: Sequence[str], index: int, token: str, syntax: ArgSyntax) -> str | None:
    if "=" in token:
        return token.split("=", 1)[1]
    glued = token[:2] in syntax.aliases and token not in syntax.aliases and token not in syntax.known
    if glued and not token.startswith("--"):
        return token[2:]  # ``-qawq``: a one-letter option with its value attached
    if index + 1 < len(args) and not args[index + 1].startswith("--"):
        return args[index + 1]
    return None


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def managed_option_problems(
    profile_name: str, args: Sequence[str], managed: Mapping[str, str], syntax: ArgSyntax
) -> list[str]:
    """Refuse options enginekit sets itself; ``managed`` maps each to the field to use instead."""
    return [
        f"profile {profile_name!r}: args: {spelling(use.token)!r} sets {use.option}, which enginekit "
        f"manages; {managed[use.option]}"
        for use in find_options(args, managed, syntax)
    ]


def code_loading_problems(
    profile_name: str,
    args: Sequence[str],
    risky: Mapping[str, str],
    allowed: Collection[str],
    syntax: ArgSyntax,
    *,
    config_key: str,
) -> list[str]:
    """Refuse options that load or run code (``risky`` maps each to why) unless the site allows them."""
    return [
        f"profile {profile_name!r}: args: {spelling(use.token)!r} ({use.option}) {risky[use.option]}; "
        f'refused unless the site allows it ({config_key} = ["{use.option}"])'
        for use in find_options(args, risky, syntax)
        if use.option not in allowed
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
    args: Sequence[str],
    syntax: ArgSyntax,
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
    """
    count = arity if callable(arity) else arity.get
    problems = []
    # The values the last option may still take (None: any number), and why a bare
    # token is positional once it has them.
    remaining: int | None = 0
    why = "no option comes before it to take it as a value"
    for index, token in enumerate(args):
        if syntax.normalise(token) is not None:
            remaining, why = _takes(token, index, syntax, count)
            continue
        if remaining is None:
            continue
        if remaining > 0:
            remaining -= 1
            continue
        problems.append(
            f"profile {profile_name!r}: args[{index}]: not an option, and {why}, so {engine} "
            f"would read it as a positional argument; a profile's args may give none "
            f"(enginekit passes the model itself): remove it, or put it right after the "
            f"option it is a value of"
        )
        why = f"the token before it (args[{index}]) is refused for the same reason"
    return problems


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
        not token.startswith("--")
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
