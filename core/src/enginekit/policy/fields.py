"""Shared fields for an engine's config section: its executable, its allowed flags, its release."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from typing import Any

import attrs

from enginekit.base.text import unsafe_text
from enginekit.base.versions import parse_version

#: A program name looked up on ``PATH``: no directory part, nothing a parser reads as a flag.
_BARE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._+-]{0,254}\Z")


def executable_problem(value: object) -> str | None:
    """Why ``value`` is not an executable enginekit will start, or None when it is one.

    The one rule for every engine: an **absolute path** (``/opt/vllm/bin/vllm``), or a
    **bare name** (``vllm``) that the supervisor resolves on the ``PATH`` of the
    environment it launches with, the agent's own (profiles can never set ``PATH``). A
    relative path would depend on whatever directory the agent runs in, as root.
    """
    if not isinstance(value, str) or not value:
        return "expected a program name or an absolute path"
    if unsafe_text(value) is not None or value != value.strip():
        return "expected a program name or an absolute path, without control or invisible characters"
    if value.startswith("/"):
        parts = value.split("/")
        # A trailing '/' leaves an empty last part, as '//' leaves one inside.
        if ".." in parts or "." in parts or "" in parts[1:]:
            return "expected an absolute path to a program (no '.', '..' or empty parts, no trailing '/')"
        return None
    if "/" in value:
        return (
            "a relative path depends on the agent's working directory: give an absolute path or a bare name"
        )
    if not _BARE_NAME.match(value):
        return "expected a program name of letters, digits and . _ + - (not starting with '-')"
    return None


def check_executable(_instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """attrs validator: :func:`executable_problem`."""
    why = executable_problem(value)
    if why is not None:
        raise ValueError(f"{attribute.name} {value!r}: {why}")


def executable(default: str) -> Any:
    """A config field holding a program: ``executable: str = executable("vllm")``."""
    return attrs.field(default=default, validator=check_executable)


def resolve_executable(configured: str, installed: Path | None, relative: str) -> str:
    """The program to start: ``<installed>/<relative>`` from an installed build, else as configured."""
    return str(installed / relative) if installed is not None else configured


def check_version(*, final_only: bool = False, optional: bool = False) -> Any:
    """attrs validator: a release :func:`~enginekit.base.versions.parse_version` reads.

    ``""`` passes when ``optional``.
    """

    def check(_instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if optional and value == "":
            return
        try:
            parse_version(value, final_only=final_only)  # type: ignore[arg-type]
        except ValueError as exc:
            raise ValueError(f"{attribute.name}: {exc}") from None

    return check


def version(default: str = "", *, final_only: bool = False) -> Any:
    """A config field holding the engine's release: ``version: str = version()``.

    With no default (""), a site that does not say which release it runs leaves it empty,
    and the plugin says in its plans which release it assumed; a plugin whose checks
    follow the release should take that default rather than guess one silently.
    """
    return attrs.field(
        default=default, validator=check_version(final_only=final_only, optional=default == "")
    )


def check_allow_args(allowable: Collection[str], *, never: Collection[str] = ()) -> Any:
    """attrs validator for ``allow_args``: only flags the plugin refuses, in canonical spelling.

    :param allowable: The flags a site may allow (the engine's risky flags).
    :param never: Flags enginekit sets itself or that carry secrets: never allowed.
    """

    def check(_instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        for flag in value:  # type: ignore[attr-defined]
            if flag in never:
                raise ValueError(
                    f"{attribute.name}: {flag!r} is set by enginekit itself or carries a secret, "
                    f"and cannot be allowed"
                )
            if flag not in allowable:
                raise ValueError(
                    f"{attribute.name}: {flag!r} is not a flag this plugin refuses; name flags in "
                    f"their canonical spelling, one of: {', '.join(sorted(allowable)) or 'none'}"
                )

    return check


def _as_tuple(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def allow_args(allowable: Collection[str], *, never: Collection[str] = ()) -> Any:
    """A config field listing the risky flags this site allows: ``allow_args = allow_args(RISKY)``."""
    # A Python function, not ``tuple`` itself: attrs reads a converter's signature when it
    # builds the class, and a builtin's costs compiling the tokenizer's patterns (~3 ms of
    # every start that imports an engine's config).
    return attrs.field(default=(), converter=_as_tuple, validator=check_allow_args(allowable, never=never))


#: A long option's spelling: what ``allow_args`` may name beyond a plugin's refused flags.
_LONG_OPTION = re.compile(r"--[A-Za-z0-9][A-Za-z0-9_-]*\Z")


class Allowable(Collection[str]):
    """The options a site may name in ``allow_args``.

    Those the plugin refuses by default, and any long option its table does not know: an
    option of a release newer than the table, refused until the site vouches for it. An
    option some read release accepts is no allowance (every profile may use it where the
    release has it), so naming one is a mistake. Iterating gives the refused ones, the
    list a message can show.
    """

    def __init__(
        self, refused: Iterable[str], known: Callable[[], Collection[str]], *, underscores: bool = False
    ) -> None:
        """:param known: Every option of the table, asked for only when a site names one
        the plugin does not refuse: reading the table is left to the configs that need it.
        :param underscores: The engine reads ``_`` as ``-`` in a long option (vLLM): an
        underscore spelling of a known option is that option, misspelt, not a newer one."""
        self._refused = frozenset(refused)
        self._known = known
        self._underscores = underscores

    def __contains__(self, flag: object) -> bool:
        if not isinstance(flag, str):
            return False
        if flag in self._refused:
            return True
        if not _LONG_OPTION.match(flag):
            return False
        spelt = "--" + flag[2:].replace("_", "-") if self._underscores else flag
        known = self._known()
        if spelt in known or spelt in self._refused or spelt.lower() in known:
            return False
        # A prefix of a known option is that option abbreviated, never a newer one.
        return not any(option.startswith(spelt) for option in known)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._refused))

    def __len__(self) -> int:
        return len(self._refused)
