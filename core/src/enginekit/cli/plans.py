"""``enginekit render`` and ``enginekit env``: a shard's launch plan, and its main process's environment."""

from __future__ import annotations

from pathlib import Path

from enginekit.base.errors import SpecError
from enginekit.base.exits import EXIT_OK
from enginekit.base.secrets import leaks, masked
from enginekit.cli.context import Invalid, Run
from enginekit.cli.inputs import load_gpus
from enginekit.plan.launch import LaunchPlan


def plan_for(run: Run, source: str, gpus_path: Path | None = None) -> LaunchPlan:
    """The plan of the spec ``source`` names; an invalid shard is exit 1, every problem listed."""
    spec = run.load_spec(source)
    gpus = load_gpus(gpus_path)
    engine = run.registry.engine(spec.profile.engine)
    try:
        return engine.plan(spec, gpus)
    except SpecError as exc:
        raise Invalid(exc.problems) from None


def render(run: Run) -> int:
    """Print the launch plan: text for an operator, or ``--json``."""
    args = run.args
    plan = plan_for(run, args.spec, args.gpus)
    if args.json:
        import json  # only for --json: the text plan is what an operator reads

        print(json.dumps(plan.to_dict(show_secrets=args.show_secrets), indent=2), file=run.out)
    else:
        run.out.write(plan.render_text(explain=args.explain, show_secrets=args.show_secrets))
    return EXIT_OK


def env(run: Run) -> int:
    """Print the environment the shard's engine itself starts with, in the format asked for."""
    # The same plan, checks and exit codes as render (an unknown engine is unusable input,
    # a refused variable an invalid profile), the engine's own variables included and the
    # profile's overrides judged exactly as there.
    from enginekit.cli.envout import EnvView, write_env  # env's own formats: render never needs them

    args = run.args
    plan = plan_for(run, args.spec)
    last = plan.commands[-1]
    shown = {k: v for k, v in last.env.items() if args.show_secrets or k not in last.secret_env}
    key = plan.shard.api_key
    # Only a profile's own variable can hold the key unmarked (an engine's is refused as its
    # leak): named, so "<secret>" in the output is never a mystery, nor taken for a value.
    holding = sorted(k for k, v in last.env.items() if k not in last.secret_env and key and leaks(v, key))
    if not args.show_secrets and key:
        shown = {k: masked(v, key) for k, v in shown.items()}
    view = EnvView(
        env=dict(sorted(shown.items())),
        why={k: last.why.get(k, "") for k in sorted(shown)},
        omitted=sorted(set(last.env) - set(shown)),
        notes=list(plan.notes),
        dropped=[{"key": d.key, "why": d.why} for d in plan.dropped_env],
        holding_key=holding,
    )
    run.out.write(write_env(view, "json" if args.json else args.format, explain=args.explain))
    for name in holding:
        run.error(
            f"env {name} holds the API key, and is no secret variable of engine {plan.engine!r}: "
            f"the profile's env put it there; {'shown' if args.show_secrets else 'masked'} here, "
            f"and the engine reads it as an ordinary value",
            kind="warning",
        )
    for dropped in plan.dropped_env:
        run.error(f"profile env {dropped.key} dropped: {dropped.why}", kind="warning")
    return EXIT_OK
