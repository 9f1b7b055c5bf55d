"""The node config's ``[engines.myengine]`` section."""

from __future__ import annotations

import attrs
from enginekit import plugin as ek

from enginekit_myengine.policy import MANAGED_ARGS, RISKY_ARGS, SECRET_ARGS


@attrs.frozen(kw_only=True)
class MyEngineConfig:
    """How this node runs myengine-server.

    :ivar executable: The program: a name looked up on the agent's ``PATH``, or an absolute path.
    :ivar version: The release installed on this node; it decides which features exist.
    :ivar allow_args: Risky flags this site lets profiles pass, spelt canonically
        (``["--trust-remote-code"]``); flags enginekit sets and secret flags never.
    """

    executable: str = ek.executable("myengine-server")
    version: str = ek.version("1.4.0")
    allow_args: tuple[str, ...] = ek.allow_args(RISKY_ARGS, never=[*MANAGED_ARGS, *SECRET_ARGS])
