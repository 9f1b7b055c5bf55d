"""The node config's ``[engines.llamacpp]`` section."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs
from enginekit import plugin as ek

from enginekit_llamacpp.flags import ALLOWABLE, EXECUTABLE, NEVER_ALLOWED, table

if TYPE_CHECKING:
    from enginekit.plugin import ReleaseOptions

#: Where a site says which build it runs, as the plans' notes name it.
BUILD_SETTING = "[engines.llamacpp] build"
#: Far above any build llama.cpp has tagged (b11312 is from 2026), below a typo's digits.
MAX_BUILD = 10**7


def _check_build(_instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    # type() rather than isinstance(): TOML's true is a bool, which is an int to Python.
    if type(value) is not int or not 0 <= value <= MAX_BUILD:
        raise ValueError(
            f"{attribute.name}: {value!r} is not a llama.cpp build number: give the number "
            f"`llama-server --version` prints (version: 9445 (af6528e) is build = 9445), "
            f"or 0 when not configured"
        )


@attrs.frozen(kw_only=True)
class LlamaCppConfig:
    """How this node runs llama-server.

    :ivar executable: The ``llama-server`` program (a name looked up on the agent's
        ``PATH``, or an absolute path), used when the agent installed no build; with one it
        is ``<build>/bin/llama-server``.
    :ivar build: The llama.cpp build number that program is (``llama-server --version``
        prints ``version: 9445 (af6528e)``; its tag is ``b9445``): pass-through options are
        checked against that build's. 0 when the site does not say: the newest build the
        option table has read is assumed, and the plans say so.
    :ivar allow_args: Flags profiles may pass through although they reach outside the
        process (``"--rpc"``, ``"--path"``, …; see :data:`enginekit_llamacpp.flags.RISKY`),
        spelt canonically: a misspelt or abbreviated name is a config error, never a
        silent allow of nothing. A long option newer than every build read may be listed too.
    """

    executable: str = ek.executable(EXECUTABLE)
    build: int = attrs.field(default=0, validator=_check_build)
    allow_args: tuple[str, ...] = ek.allow_args(ALLOWABLE, never=NEVER_ALLOWED)

    @property
    def options(self) -> ReleaseOptions:
        """What the configured build's parser accepts (the newest read when none is configured).

        The table keeps each build's view once made: asking again is a dict lookup. (A
        ``cached_property`` would put its type in the class's annotations, which reading a
        config resolves, and that type's module is the reading of arguments, which listing
        engines must not import.)
        """
        return table().for_release(str(self.build) if self.build else None, setting=BUILD_SETTING)

    @property
    def release(self) -> str:
        """The build the plans assume: the configured one, else the newest the table has read."""
        return str(self.build) if self.build else table().newest
