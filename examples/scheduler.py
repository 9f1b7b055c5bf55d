"""A scheduler embedding enginekit: load shard specs, plan them, ship the plans as JSON, read them back.

Uses only names the ``enginekit`` package exports. Every example spec in this folder is
the template of many shards (another replica id, another port), as a scheduler placing
replicas across a fleet would make them::

    python examples/scheduler.py [--shards 1000] [--config examples/node-config.toml]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import enginekit

HERE = Path(__file__).resolve().parent


def shard_specs(count: int) -> list[enginekit.ShardSpec]:
    """``count`` distinct specs, cycling through the example specs in this folder."""
    templates = [
        enginekit.load_spec(path).spec.to_dict(show_secrets=True)
        for path in sorted(HERE.glob("*.toml"))
        if path.name != "node-config.toml"
    ]
    specs = []
    for i in range(count):
        raw = dict(templates[i % len(templates)])
        raw["replica_id"] = f"{raw['replica_id'] or 'replica'}-{i}"
        raw["http_port"] = 20000 + i
        specs.append(enginekit.load_spec(raw).spec)
    return specs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shards", type=int, default=1000)
    parser.add_argument("--config", type=Path, default=HERE / "node-config.toml")
    args = parser.parse_args()
    registry = enginekit.registry_for(args.config)  # no environment: this scheduler's own rules
    specs = shard_specs(args.shards)
    plans = [registry.engine(spec.profile.engine).plan(spec) for spec in specs]
    # What goes over the wire: the plan's versioned JSON, secrets included for the agent
    # that launches it (and so sent only over an authenticated, encrypted channel).
    wire = [json.dumps(plan.to_dict(show_secrets=True)) for plan in plans]
    received = [enginekit.LaunchPlan.from_dict(json.loads(text)) for text in wire]
    same = sum(a == b for a, b in zip(plans, received, strict=True))
    engines = sorted({plan.engine for plan in plans})
    print(
        f"{len(specs)} specs planned for {', '.join(engines)}; {len(wire)} plans shipped as JSON "
        f"(format {enginekit.FORMAT_VERSION}, {sum(map(len, wire)) // 1024} KiB); {same} read back equal"
    )
    return 0 if same == len(plans) else 1


if __name__ == "__main__":
    sys.exit(main())
