"""``enginekit schema`` and ``enginekit spec``: the published JSON Schemas, and a spec in canonical JSON."""

from __future__ import annotations

import json

from enginekit.base.exits import EXIT_OK
from enginekit.cli.context import Run


def schema(run: Run) -> int:
    """Print the JSON Schema of the plan or the shard spec, exactly as shipped."""
    from enginekit.plan.formats import schema_text

    run.out.write(schema_text(run.args.kind))
    return EXIT_OK


def spec(run: Run) -> int:
    """Print a shard spec as JSON in enginekit's field names, or the Go agent's with ``--go-names``."""
    args = run.args
    shard = run.load_spec(args.spec)
    data = shard.to_dict(go_names=args.go_names, show_secrets=args.show_secrets)
    print(json.dumps(data, indent=2), file=run.out)
    return EXIT_OK
