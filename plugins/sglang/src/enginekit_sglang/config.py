"""``[engines.sglang]``: which interpreter runs SGLang, which release it is, what the site allows."""

from __future__ import annotations

import re
from typing import Any

import attrs

from enginekit_sglang.flags import ALLOWABLE, TABLES_VERSION

_VERSION = re.compile(r"\d+(\.\d+){1,3}([a-z0-9.+-]*)\Z")


def _version(_instance: Any, _attribute: Any, value: str) -> None:
    if not _VERSION.match(value):
        raise ValueError(f"version: expected a release such as {TABLES_VERSION!r}, got {value!r}")


def _python(_instance: Any, _attribute: Any, value: str) -> None:
    if not value or value != value.strip() or any(c < " " for c in value):
        raise ValueError(f"python: expected an interpreter name or path, got {value!r}")


def _allowed(_instance: Any, _attribute: Any, value: tuple[str, ...]) -> None:
    # Only canonical spellings: an allowance for "--trust-remote" would read as if it
    # allowed something, and match nothing.
    unknown = [flag for flag in value if flag not in ALLOWABLE]
    if unknown:
        raise ValueError(
            f"allow_args: {unknown} are not options this plugin refuses; it knows {sorted(ALLOWABLE)}"
        )


@attrs.frozen(kw_only=True)
class SglangConfig:
    """The node's SGLang settings, structured from the node config's ``[engines.sglang]``.

    An installed build (a virtual environment the agent made) overrides ``python``
    with its own ``bin/python``.
    """

    #: The interpreter that has SGLang installed: a name looked up on PATH, or a path.
    python: str = attrs.field(default="python3", validator=_python)
    #: The SGLang release that interpreter runs. The flag and quantization tables are
    #: those of 0.5.23; another release is launched the same way, and the plan says so.
    version: str = attrs.field(default=TABLES_VERSION, validator=_version)
    #: Options the site allows in profiles although they load code, write or read where
    #: their value says, or reach other hosts; canonical spelling only (``"--trust-remote-code"``).
    allow_args: tuple[str, ...] = attrs.field(default=(), validator=_allowed)
