"""The node config's ``[engines.llamacpp]`` section."""

from __future__ import annotations

import attrs
from enginekit import plugin as ek

from enginekit_llamacpp.flags import ALLOWABLE, EXECUTABLE, NEVER_ALLOWED


@attrs.frozen(kw_only=True)
class LlamaCppConfig:
    """How this node runs llama-server.

    :ivar executable: The ``llama-server`` program (a name looked up on the agent's
        ``PATH``, or an absolute path), used when the agent installed no build; with one it
        is ``<build>/bin/llama-server``.
    :ivar allow_args: Flags profiles may pass through although they reach outside the
        process (``"--rpc"``, ``"--path"``, …; see :data:`enginekit_llamacpp.flags.RISKY`),
        spelt canonically: a misspelt or abbreviated name is a config error, never a
        silent allow of nothing.
    """

    executable: str = ek.executable(EXECUTABLE)
    allow_args: tuple[str, ...] = ek.allow_args(ALLOWABLE, never=NEVER_ALLOWED)
