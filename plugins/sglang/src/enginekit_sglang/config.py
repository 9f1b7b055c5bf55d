"""``[engines.sglang]``: which interpreter runs SGLang, which release it is, what the site allows."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
from enginekit import plugin as ek

from enginekit_sglang.flags import ALLOWABLE, MANAGED, SECRETS, table

if TYPE_CHECKING:
    from enginekit.plugin import ReleaseOptions

#: Where a site says which release it runs, as the plans' notes name it.
VERSION_SETTING = "[engines.sglang] version"


@attrs.frozen(kw_only=True)
class SglangConfig:
    """The node's SGLang settings, structured from the node config's ``[engines.sglang]``.

    An installed build (a virtual environment the agent made) overrides ``python``
    with its own ``bin/python``.
    """

    #: The interpreter that has SGLang installed: a bare name looked up on the agent's
    #: PATH at launch, or an absolute path (the one executable rule of every engine).
    python: str = ek.executable("python3")
    #: The SGLang release that interpreter runs; "" when the site does not say, and the
    #: plugin then assumes the newest release its option table has read, and says so.
    version: str = ek.version()
    #: Options the site allows in profiles although they load code, write or read where
    #: their value says, or reach other hosts; canonical spelling only (``"--trust-remote-code"``),
    #: or an option newer than every release the option table has read. A prefix
    #: (``"--trust-remote"``) matches no option, so it allows nothing.
    allow_args: tuple[str, ...] = ek.allow_args(ALLOWABLE, never=frozenset(MANAGED) | frozenset(SECRETS))

    @property
    def options(self) -> ReleaseOptions:
        """What the configured release's parser accepts (the newest read when none is configured).

        The table keeps each release's view once made: asking again is a dict lookup. (A
        ``cached_property`` would put its type in the class's annotations, which reading a
        config resolves, and that type's module is the reading of arguments, which listing
        engines must not import.)
        """
        return table().for_release(self.version or None, setting=VERSION_SETTING)

    @property
    def release(self) -> str:
        """The release the plans assume: the configured one, else the newest the table has read."""
        return self.version or table().newest
