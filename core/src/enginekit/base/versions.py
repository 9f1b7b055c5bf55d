"""Release numbers, one parser for every engine: ``0.34.0``, ``1.3.0rc7``, ``0.5.4.post2``, ``0.34.0+cpu``."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import TypeVar

import attrs

_RELEASE = re.compile(
    r"v?(?P<release>\d{1,6}(?:\.\d{1,6}){0,4})"
    r"(?:(?P<pre>a|b|rc)(?P<pre_n>\d{1,6}))?"
    r"(?:\.post(?P<post>\d{1,6}))?"
    r"(?:\.dev(?P<dev>\d{1,6}))?"
    r"(?:\+(?P<local>[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*))?\Z",
    re.ASCII,
)
_PRE = {"a": 0, "b": 1, "rc": 2}
#: Sorts a final release after its pre-releases.
_FINAL = (3, 0)
#: Sorts a development build of a release before every pre-release of it.
_DEV_ONLY = (-1, 0)


@functools.total_ordering
@attrs.frozen(eq=False)
class Version:
    """A release, ordered as PEP 440 orders them; ``0.11`` equals ``0.11.0``.

    A pre-release sorts before its final release and a ``.dev`` build before both. The
    ``+local`` label (``+cpu``, ``+cu128``) is kept for display and ignored in comparisons.
    """

    release: tuple[int, ...]
    pre: tuple[int, int] = _FINAL
    post: int = -1
    dev: float = float("inf")
    text: str = ""
    # Compared often (every fact of an engine is keyed by release): one tuple, built once.
    _key: tuple[object, ...] = attrs.field(init=False, repr=False)

    @_key.default
    def _make_key(self) -> tuple[object, ...]:
        return (self.release, self.pre, self.post, self.dev)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Version) and self._key == other._key

    def __lt__(self, other: Version) -> bool:
        return self._key < other._key

    def __hash__(self) -> int:
        return hash(self._key)

    @property
    def is_final(self) -> bool:
        """No ``a``/``b``/``rc`` and no ``.dev``: a release the engine's project published as final."""
        return self.pre == _FINAL and self.dev == float("inf")

    def __str__(self) -> str:
        return self.text or ".".join(str(part) for part in self.release)


def parse_version(text: str, *, final_only: bool = False) -> Version:
    """``text`` as a :class:`Version`.

    :param final_only: refuse pre-releases and ``.dev`` builds, for an engine whose facts
        are keyed by final releases, where guessing a pre-release's place picks wrong flags.
    :raises ValueError: saying what was expected.
    """
    match = _RELEASE.match(text) if isinstance(text, str) else None
    if match is None:
        allowed = (
            "a local label like '+cpu' allowed"
            if final_only
            else ("pre-releases like '1.3.0rc7' and local labels like '+cpu' allowed")
        )
        raise ValueError(
            f"{text!r} is not a release number: expected numbers separated by dots, such as "
            f"'0.34.0' ({allowed})"
        )
    numbers = [int(part) for part in match["release"].split(".")]
    while len(numbers) > 3 and numbers[-1] == 0:
        numbers.pop()
    release = tuple(numbers) + (0,) * (3 - len(numbers))
    if match["pre"]:
        pre = (_PRE[match["pre"]], int(match["pre_n"]))
    elif match["dev"] and not match["post"]:
        pre = _DEV_ONLY  # ``1.3.0.dev1`` comes before ``1.3.0a1``
    else:
        pre = _FINAL
    version = Version(
        release=release,
        pre=pre,
        post=int(match["post"]) if match["post"] else -1,
        dev=int(match["dev"]) if match["dev"] else float("inf"),
        text=text.removeprefix("v"),
    )
    if final_only and not version.is_final:
        raise ValueError(
            f"{text!r} is a pre-release or development build: give the final release the node "
            f"runs, such as {'.'.join(map(str, release))!r}"
        )
    return version


V = TypeVar("V")


def newest_at_or_below(table: Mapping[Version, V], version: Version) -> Version:
    """The newest release in ``table`` not after ``version``; the oldest when all are after it."""
    below = [release for release in table if release <= version]
    return max(below) if below else min(table)
