"""``enginekit run``: start a shard's launch plan on this node and supervise it to its end.

The module is not called ``run``: ``enginekit.cli.run`` is the console script's entry
point, which a submodule of that name would replace once imported.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from typing import Any

from enginekit.base.errors import SpecError
from enginekit.base.exits import EXIT_OK
from enginekit.cli.context import Invalid, Run
from enginekit.cli.inputs import load_gpus
from enginekit.run import FromEnv, Supervisor, resolve
from enginekit.run.devicecheck import listing_of
from enginekit.run.dryrun import describe
from enginekit.run.options import options_from

#: ``--option``'s destination and the :class:`RunOptions` field it sets.
_TIMINGS = {
    "leader_timeout": "leader_timeout",
    "startup_timeout": "startup_timeout",
    "stop_grace": "stop_grace",
    "leader_gone_grace": "leader_gone_grace",
}


def run_shard(run: Run) -> int:
    """Plan the shard (fields from the environment first), then run it, or say what would run."""
    args = run.args
    key_variable = args.api_key_from_env or ""
    if key_variable and run.environ.get(key_variable):
        # Masked from here on, in every message and line, whatever field it turns up in.
        run.secrets.append(run.environ[key_variable])
    spec = run.load_spec(args.spec)
    names = FromEnv(
        rank=args.rank_from_env or "",
        leader_addr=args.leader_addr_from_env or "",
        bind_addr=args.bind_addr_from_env or "",
        api_key=key_variable,
    )
    resolved = resolve(spec, run.environ, names)
    gpus = load_gpus(args.gpus)
    engine = run.registry.engine(resolved.spec.profile.engine)
    try:
        plan = engine.plan(resolved.spec, gpus)
    except SpecError as exc:
        raise Invalid(exc.problems) from None
    given: dict[str, Any] = {field: getattr(args, dest) for dest, field in _TIMINGS.items()}
    options = options_from(run.config.run, given, raw_logs=args.raw_logs)
    for dropped in plan.dropped_env:
        run.error(f"profile env {dropped.key} dropped: {dropped.why}", kind="warning")
    if args.dry_run:
        listing = listing_of(plan, engine)
        text = describe(
            plan, options=options, listing=listing, status_file=args.status_file, consumed=resolved.consumed
        )
        run.out.write(text)
        return EXIT_OK
    inherited = {k: v for k, v in run.environ.items() if k not in resolved.consumed}
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()  # what was said before goes first: the runner writes below the text layer
    gc.enable()  # the console script starts without it; a supervisor lives as long as its shard
    supervisor = Supervisor(
        plan,
        environ=inherited,
        engine=engine,
        options=options,
        status_file=args.status_file,
        secrets=run.secrets,
    )
    return supervisor.run()
