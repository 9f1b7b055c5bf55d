"""The node config's ``[engines.llamacpp]`` section."""

from __future__ import annotations

from typing import Any

import attrs

from enginekit_llamacpp.flags import ALLOWABLE, EXECUTABLE


def _check_allowed(_: Any, attribute: attrs.Attribute[tuple[str, ...]], value: tuple[str, ...]) -> None:
    # A misspelt or abbreviated name would otherwise allow nothing, silently; a site
    # that wrote "--rpc" in its config must get exactly --rpc.
    unknown = [flag for flag in value if flag not in ALLOWABLE]
    if unknown:
        raise ValueError(
            f"allow_args: {', '.join(map(repr, unknown))}: not a flag this plugin gates; "
            f"name each as one of {', '.join(sorted(ALLOWABLE))}"
        )


@attrs.frozen(kw_only=True)
class LlamaCppConfig:
    """How this node runs llama-server.

    :ivar executable: The ``llama-server`` program (a name looked up on ``PATH``, or a
        path), used when the agent installed no build; with one it is ``<build>/bin/llama-server``.
    :ivar allow_args: Flags profiles may pass through although they reach outside the
        process (``"--rpc"``, ``"--path"``, …; see :data:`enginekit_llamacpp.flags.RISKY`),
        spelt canonically.
    """

    executable: str = attrs.field(default=EXECUTABLE, validator=attrs.validators.min_len(1))
    allow_args: tuple[str, ...] = attrs.field(default=(), validator=_check_allowed)
