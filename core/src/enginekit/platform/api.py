"""The plugin API's version, and which version an installed plugin was written for.

A plugin says which API it was written for the way every Python distribution says what
it needs: a ``Requires-Dist`` range on ``enginekit`` in its metadata
(``dependencies = ["enginekit >= 1.0, < 2"]``). pip reads that range before it installs
anything, a site operator reads it with ``pip show`` or in the wheel, and the registry
reads it from the installed metadata before it imports the plugin: a plugin for another
major version is refused without one line of it running. The core's major version is the
plugin API's major version, so the range a plugin already needs for pip is the
declaration; nothing else is asked of its author.

The API a plugin asks for is the lowest release its range admits (``>= 1.2`` is API 1.2;
``~= 1.1`` is 1.1): that is the release its author wrote against, and every later minor
release keeps it. An upper bound is the author's caution, which pip applies at install
time; the registry does not second-guess it. The releases before 1.0 spoke the API that
1.0 froze (with its deprecated spellings, see ``CHANGELOG.md``), so ``>= 0.1`` is read as
1.0. A plugin whose metadata names no ``enginekit`` at all is read as written for the
oldest API this core accepts, and ``enginekit engines`` says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import attrs

#: The plugin API this core offers: ``enginekit.plugin.API_VERSION``. Its major number is
#: the core's major version; its minor number grows when a name is added.
API_VERSION = "1.1"
#: The oldest plugin API this core still runs plugins for (each deprecated name of it kept).
OLDEST_API = "1.0"

#: ``enginekit``, then an optional extras list, then the version specifiers and markers;
#: not ``enginekit-vllm`` or ``enginekit_sim`` (another distribution), in any case.
_REQUIREMENT = re.compile(r"\s*enginekit(?![A-Za-z0-9._-])\s*(\[[^\]]*\])?\s*(.*)", re.IGNORECASE | re.DOTALL)
#: One version specifier: operator and version (PEP 440).
_SPECIFIER = re.compile(r"\s*(===|==|~=|>=|<=|!=|>|<)\s*([^\s,;()]+)\s*")
#: A release's leading numbers.
_RELEASE = re.compile(r"v?(\d+)(?:\.(\d+))?")


@attrs.frozen
class Asked:
    """The plugin API a distribution asks for, read from its ``Requires-Dist``."""

    #: ``major.minor``.
    version: str
    #: The requirement as written (``enginekit>=1.0,<2``); empty when there is none.
    requirement: str = ""

    @property
    def declared(self) -> bool:
        """Whether the distribution says which API it was written for."""
        return bool(self.requirement)

    def __str__(self) -> str:
        if not self.declared:
            return (
                f"{self.version} (it declares none: no Requires-Dist on enginekit, so it is read as "
                f"written for plugin API {OLDEST_API}, the oldest this core accepts)"
            )
        return f"{self.version} (Requires-Dist: {self.requirement})"


def asked_for(requires: Iterable[str]) -> Asked:
    """The plugin API that ``requires`` (a distribution's ``Requires-Dist`` lines) asks for.

    A requirement under an ``extra`` marker is an optional feature's (the kit, for tests),
    not what the plugin runs on, and is left out. A malformed one reads as no declaration.
    """
    for line in requires:
        match = _REQUIREMENT.fullmatch(line)
        if match is None:
            continue
        rest = match.group(2)
        specifiers, _, marker = rest.partition(";")
        if re.search(r"\bextra\b", marker):
            continue
        lowest = _lowest(specifiers.strip().strip("()"))
        return Asked(_as_api(lowest), line.strip())
    return Asked(OLDEST_API)


def _lowest(specifiers: str) -> tuple[int, int]:
    """The lowest ``(major, minor)`` the specifiers admit; ``(0, 0)`` when nothing bounds it below."""
    lowest = (0, 0)
    for part in specifiers.split(","):
        match = _SPECIFIER.fullmatch(part)
        if match is None:
            continue
        operator, version = match.groups()
        release = _RELEASE.match(version)
        if release is None or operator in ("<", "<=", "!="):
            continue
        lowest = max(lowest, (int(release.group(1)), int(release.group(2) or 0)))
    return lowest


def _as_api(release: tuple[int, int]) -> str:
    """The plugin API of a core release: its ``major.minor``, the releases before 1.0 read as 1.0."""
    major, minor = release
    return OLDEST_API if major < 1 else f"{major}.{minor}"


def _key(version: str) -> tuple[int, int]:
    major, _, minor = version.partition(".")
    return int(major), int(minor or 0)


def refusal(asked: Asked) -> str | None:
    """Why this core does not run a plugin asking for ``asked``, or ``None`` when it does.

    Another major version is refused (its names may mean something else here), and so is a
    newer minor version of this one (it may use names this core does not have yet).
    """
    offered = _key(API_VERSION)
    wanted = _key(asked.version)
    if wanted[0] == offered[0] and _key(OLDEST_API) <= wanted <= offered:
        return None
    if wanted[0] != offered[0]:
        why = f"another major version than the {API_VERSION} this core offers"
    elif wanted > offered:
        why = f"newer than the {API_VERSION} this core offers: upgrade enginekit"
    else:
        why = f"older than {OLDEST_API}, the oldest this core still accepts"
    return f"refused: written for plugin API {asked}, {why}"
