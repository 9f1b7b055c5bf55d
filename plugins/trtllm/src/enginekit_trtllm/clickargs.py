"""Pass-through arguments read the way Click's parser reads them for ``trtllm-serve serve``.

Click gives an option that takes a value the next argument, whatever it is:
``--tokenizer --log_level`` sets the tokenizer to ``--log_level``, and ``--log_level`` is
not an option there. The shared reader in ``enginekit.policy.args`` stops at a token starting
with ``--``, which is argparse's reading, so :class:`ClickSyntax` reads the arguments
Click's way first, and every check (the core's and this plugin's) looks at that reading:
a copy in which such values no longer look like options, with the values Click gives.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs
from enginekit.plugin import ArgSyntax, OptionUse, ParsedArgs, spelling

#: What a value that starts with '-' is replaced by in the masked copy: a word, which the
#: shared checks take for the value of the option before it, as Click does.
MASK = "value"


@attrs.frozen
class ClickReading:
    """The profile's args as Click reads them.

    :ivar masked: The args, with every value that starts with '-' replaced by ``MASK``, at
        the same places: the shared checks read options and positional words from it
        the way Click reads them, and name the same indices.
    :ivar values: The value Click gives each option, by the option token's index.
    :ivar missing: The indices of options that take a value and are the last argument.
    """

    masked: tuple[str, ...]
    values: Mapping[int, str]
    missing: tuple[int, ...]


def read(args: Sequence[str], arity: Mapping[str, int | None]) -> ClickReading:
    """Read ``args`` as Click's ``OptionParser`` does, given the values each option takes.

    Click matches a long option exactly (no prefixes, no ``_``/``-`` folding) and splits
    ``--flag=value`` at the first '='. An option ``arity`` does not know (one a site
    allowed for a newer release) may take a value or not: a following word is taken as
    its value, and a following option is read as an option, so it is checked either way.
    """
    masked = list(args)
    values: dict[int, str] = {}
    missing: list[int] = []
    index = 0
    while index < len(args):
        token = args[index]
        index += 1
        if token == "--":
            break  # Click reads the rest as positional; the core refuses the '--' itself
        if not token.startswith("-") or len(token) == 1:
            continue  # a positional word, Click's own test (``arg[:1]`` a prefix, longer than 1)
        name = spelling(token)
        takes = arity.get(name)
        if "=" in token:
            if takes != 0:
                values[index - 1] = token.split("=", 1)[1]
            continue
        if takes == 0:
            continue
        if index == len(args):
            if takes == 1:
                missing.append(index - 1)
            continue  # the last argument: nothing follows to take as a value
        following = args[index]
        if takes is None and following.startswith("-"):
            continue
        values[index - 1] = following
        if following.startswith("-"):
            masked[index] = MASK
        index += 1
    return ClickReading(masked=tuple(masked), values=values, missing=tuple(missing))


@attrs.frozen(eq=False)
class ClickSyntax(ArgSyntax):
    """trtllm-serve's parser: long options matched exactly, each taking its values Click's way.

    :meth:`parse` reads the arguments with :func:`read`: the parsed tokens are the masked
    copy (a value that starts with '-' is no option, so no check reads it as one, and a
    word after it is positional), and each option's value is the one Click gives it.

    :ivar arity: The values each option takes (0 for a flag, 1 for the others).
    """

    arity: Mapping[str, int | None] = attrs.field(factory=dict)

    def parse(self, args: Sequence[str]) -> ParsedArgs:
        """``args`` read once as Click reads them; the same list is read only once."""
        key = ("click", tuple(args))
        parsed = self._memo.get(key)
        if parsed is None:
            parsed = self._read(key[1])
            self._remember(key, parsed)
        return parsed

    def _read(self, tokens: tuple[str, ...]) -> ParsedArgs:
        reading = read(tokens, self.arity)
        uses: dict[str, list[OptionUse]] = {}
        for index, token in enumerate(reading.masked):
            for option in self.meanings(token):
                use = OptionUse(index, token, option, reading.values.get(index))
                uses.setdefault(option, []).append(use)
        found = {option: tuple(each) for option, each in uses.items()}
        return ParsedArgs(tokens=reading.masked, syntax=self, uses=found)


def missing_value(args: ParsedArgs, arity: Mapping[str, int | None]) -> int | None:
    """The index of the last argument when it is an option left without the value it takes.

    What :func:`read` calls ``missing``, found from the reading itself: a value Click took
    is masked, so the last token is an option only when Click reads it as one, and only
    when no bare ``--`` before it ended option parsing.
    """
    last = len(args.tokens) - 1
    if last < 0:
        return None
    token = args.tokens[last]
    stops = args.uses.get("--", ())
    if (stops and stops[0].index < last) or not token.startswith("-") or "=" in token:
        return None
    return last if arity.get(token) == 1 else None
