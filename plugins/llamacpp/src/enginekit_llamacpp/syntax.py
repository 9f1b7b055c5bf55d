"""llama-server's parser as enginekit reads it: every option of every build read, and the plugin's flags.

Its own module, imported when a plan first reads a profile's arguments: ``enginekit
engines`` imports the flags for the config's checks, and never needs a parser or the table.
"""

from __future__ import annotations

import attrs
from enginekit.plugin import ArgSyntax

from enginekit_llamacpp.flags import ALIASES, NAMED, _is_number, table


@attrs.frozen
class ServerSyntax(ArgSyntax):
    """llama-server's parser (``common_params_parse_ex``): exact names, ``_`` read as ``-`` in long ones.

    It has no abbreviations and no glued short values, so ``-to`` is ``--timeout`` and
    never ``-t o``; it has no ``--flag=value`` either, but such a token is still read as
    the flag, which can only refuse more (validation refuses the token itself). Every
    other spelling maps to one canonical name, so the tables list each flag once.
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


#: Every build's other spellings (``-c``, ``--spec-draft-threads``), then the plugin's own:
#: the table was made with the plugin's canonical names, and they win where both say.
ALIASES_ALL: dict[str, str] = {**table().alias_of, **ALIASES}

#: Values each option takes: the table's (the newest build's count), and one for the
#: plugin's flags it lacks (read as options even where no build has them, ``--file`` or
#: other engines' ``--quantization``, so they are refused by name), each taking a value.
ARITY: dict[str, int | None] = {**dict.fromkeys(NAMED, 1), **table().arity()}

SYNTAX = ServerSyntax(
    known=table().options | NAMED,
    aliases=ALIASES_ALL,
    underscores=True,
    abbreviations=False,
    glued=False,
)
