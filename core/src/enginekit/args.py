"""Reading pass-through arguments the way an engine's parser will, so checks cannot be sidestepped.

argparse accepts ``--flag=value``, unambiguous prefixes of long options, and (in vLLM)
underscores for dashes and dotted JSON keys. A check that looks only for the literal
``--trust-remote-code`` is one ``--trust_remote`` away from being bypassed, so every
token is normalised and matched against the engine's known options first.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence

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
