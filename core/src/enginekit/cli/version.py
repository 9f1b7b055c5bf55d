"""``enginekit --version``: the core's version and each engine distribution's, importing none of them."""

from __future__ import annotations

from enginekit._version import __version__
from enginekit.base.exits import EXIT_OK
from enginekit.base.text import printable
from enginekit.cli.context import Run
from enginekit.platform.entrypoints import Provider, entry_points
from enginekit.platform.hookspecs import ENTRY_POINT_GROUP


def version(run: Run) -> int:
    """``enginekit X`` then ``DIST VERSION (engine NAME)`` per distribution, from entry-point metadata only.

    The node config is not read: what is installed does not depend on it, and a version
    must print on a node whose config is broken.
    """
    engines: dict[tuple[str, str], list[str]] = {}
    declared, unreadable = entry_points(ENTRY_POINT_GROUP)
    for problem in unreadable:
        run.error(printable(problem, 500), kind="warning")
    for ep in declared:
        provider = Provider.of(ep)
        engines.setdefault((provider.distribution, provider.version), []).append(ep.name)
    print(f"enginekit {__version__}", file=run.out)
    for (distribution, release), names in sorted(engines.items(), key=lambda item: item[0][0].lower()):
        listed = ", ".join(sorted(set(names)))
        kind = "engine" if len(set(names)) == 1 else "engines"
        print(f"{distribution} {release} ({kind} {printable(listed, 500)})", file=run.out)
    return EXIT_OK
