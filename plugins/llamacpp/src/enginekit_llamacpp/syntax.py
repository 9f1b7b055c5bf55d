"""llama-server's parser as enginekit reads it, over the flags of :mod:`enginekit_llamacpp.flags`.

Its own module, imported when a plan first reads a profile's arguments: ``enginekit
engines`` imports the flags for the config's checks, and never needs a parser.
"""

from __future__ import annotations

import attrs
from enginekit.plugin import ArgSyntax

from enginekit_llamacpp.flags import ALIASES, MANAGED, NOT_GGUF, PRIORITY, RISKY, SECRET, _is_number


@attrs.frozen
class ServerSyntax(ArgSyntax):
    """llama-server's parser (``common_params_parse_ex``): exact names, ``_`` read as ``-`` in long ones.

    It has no abbreviations and no glued short values, so ``-to`` is ``--timeout`` and
    never ``-t o``; it has no ``--flag=value`` either, but such a token is still read as
    the flag, which can only refuse more. Long aliases map to one canonical name, so the
    tables list each flag once.
    """

    def normalise(self, token: str) -> str | None:
        """The canonical long spelling of ``token``, or None when it is not an option."""
        if token.startswith("--"):
            name = super().normalise(token)
        elif token.startswith("-") and token != "-" and not _is_number(token):
            name = token.split("=", 1)[0]
        else:
            return None
        return None if name is None else self.aliases.get(name, name)


SYNTAX = ServerSyntax(
    known=frozenset([*MANAGED, *RISKY, *SECRET, *NOT_GGUF, *PRIORITY]),
    aliases=ALIASES,
    underscores=True,
    abbreviations=False,
)
