"""``enginekit engines [NAME ...]``: each engine's status, why, and the distribution that provides it."""

from __future__ import annotations

from typing import Any

from enginekit.base.exits import EXIT_INVALID, EXIT_OK, EXIT_UNUSABLE
from enginekit.base.text import printable
from enginekit.cli.context import Run
from enginekit.platform.status import EngineStatus


def engines(run: Run) -> int:
    """List the engines asked about (every installed one when none is named).

    Exit 0 when each is ok, unavailable or disabled (states of a working install), 1 when
    one failed (with ``--check``: or failed to plan its example shard), 2 when a named one
    is not installed here at all.
    """
    registry = run.registry
    names = list(dict.fromkeys(run.args.names))
    missing = [name for name in names if not registry.knows(name)]
    asked = [name for name in names if name not in missing] if names else None
    rows = registry.statuses(asked, check=run.args.check)
    budget = run.config.import_budget
    slow = {row.name for row in rows if _slow(row, budget)}
    for row in rows:
        if row.name in slow:
            # Every command that uses the engine pays it: worth an operator's attention.
            run.error(
                f"engine {row.name!r} took {row.import_seconds:.1f} s to import ({row.source}), over the "
                f"budget of {budget:g} s (import_budget); every enginekit command that uses it pays for that",
                kind="warning",
            )
    if run.args.json:
        import json  # only for --json: the listing is what an operator types

        print(json.dumps([_row(row, row.name in slow) for row in rows], indent=2), file=run.out)
    elif not rows and not names:
        print("no engines installed (pip install enginekit-vllm, enginekit-sim, …)", file=run.out)
    else:
        width = max((len(printable(row.name, 64)) for row in rows), default=0)
        for row in rows:
            detail = printable("; ".join(part for part in (row.source, row.reason, _undeclared(row)) if part))
            # Slow is still ok, and usable: shown where an operator reads the listing.
            status = "slow" if row.name in slow else row.status
            print(f"{printable(row.name, 64):<{width}}  {status:<11}  {detail}".rstrip(), file=run.out)
    for name in missing:
        run.error(registry.not_installed(name))
    if missing:
        return EXIT_UNUSABLE
    return EXIT_INVALID if any(row.status == "failed" for row in rows) else EXIT_OK


def _slow(row: EngineStatus, budget: float) -> bool:
    return row.status == "ok" and row.import_seconds is not None and row.import_seconds > budget


def _undeclared(row: EngineStatus) -> str:
    """The note for a plugin that says nothing of the API it was written for."""
    asked = row.plugin_api
    if asked is None or asked.declared or row.status in ("disabled", "failed"):
        return ""
    return f"plugin API {asked}"


def _row(row: EngineStatus, slow: bool) -> dict[str, Any]:
    asked = row.plugin_api
    return {
        "engine": row.name,
        "status": row.status,
        "reason": row.reason or None,
        "distribution": row.distribution,
        "version": row.version,
        "entry_point": row.entry_point,
        "hooks": None if row.hooks is None else list(row.hooks),
        # Seconds its import took; null when it was never imported (disabled, refused).
        "import_seconds": None if row.import_seconds is None else round(row.import_seconds, 4),
        # Ok, and usable, but its import took longer than the node's import_budget.
        "slow": slow,
        # With --check: the hook that broke planning the engine's example; null otherwise.
        "failed_hook": row.failed_hook or None,
        # The plugin API its distribution asks for (its Requires-Dist on enginekit).
        "plugin_api": None
        if asked is None
        else {"version": asked.version, "declared": asked.declared, "requirement": asked.requirement or None},
        # Every distribution that claims the name: one, or several that clash over it.
        "providers": [
            {"distribution": p.distribution, "version": p.version, "entry_point": p.entry_point}
            for p in row.providers
        ],
        # The fields as they were before they were structured, for readers of that format.
        "name": row.name,
        "source": row.source,
        "detail": row.reason,
    }
