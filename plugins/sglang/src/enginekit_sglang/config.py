"""``[engines.sglang]``: which interpreter runs SGLang, which release it is, what the site allows."""

from __future__ import annotations

import attrs
from enginekit import plugin as ek

from enginekit_sglang.flags import ALLOWABLE, MANAGED, SECRETS, TABLES_VERSION


@attrs.frozen(kw_only=True)
class SglangConfig:
    """The node's SGLang settings, structured from the node config's ``[engines.sglang]``.

    An installed build (a virtual environment the agent made) overrides ``python``
    with its own ``bin/python``.
    """

    #: The interpreter that has SGLang installed: a bare name looked up on the agent's
    #: PATH at launch, or an absolute path (the one executable rule of every engine).
    python: str = ek.executable("python3")
    #: The SGLang release that interpreter runs. The flag and quantization tables are
    #: those of 0.5.23; another release is launched the same way, and the plan says so.
    version: str = ek.version(TABLES_VERSION)
    #: Options the site allows in profiles although they load code, write or read where
    #: their value says, or reach other hosts; canonical spelling only (``"--trust-remote-code"``):
    #: an allowance for ``"--trust-remote"`` would read as if it allowed something, and match nothing.
    allow_args: tuple[str, ...] = ek.allow_args(ALLOWABLE, never=frozenset(MANAGED) | frozenset(SECRETS))
