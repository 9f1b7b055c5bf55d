"""``enginekit probe`` and ``enginekit help-options``: run what the engine names for a shard, and read it."""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Any

from enginekit.base.errors import SpecError
from enginekit.base.exits import EXIT_INVALID, EXIT_OK, EXIT_UNUSABLE
from enginekit.base.text import printable
from enginekit.cli.context import Invalid, Run
from enginekit.run.process import CannotRun, run_program
from enginekit.spec.model import ShardSpec

if TYPE_CHECKING:
    from enginekit.platform.engine import Engine

#: ``probe --json``'s verdicts, and the exit status of each.
VERDICTS = {
    "gpu": EXIT_OK,  # the build sees GPUs
    "cpu": EXIT_INVALID,  # it sees none: the shard would run on the CPU
    "no-listing": EXIT_OK,  # the engine never falls back to the CPU
    "cpu-shard": EXIT_OK,  # placed on no GPU: the CPU is where it was meant to run
}


def probe(run: Run) -> int:
    """Run the engine's device listing in the shard's environment: does its build see the shard's GPUs?"""
    args = run.args
    spec = run.load_spec(args.spec)
    engine = run.registry.engine(spec.profile.engine)
    # Here 1 means "would run on the CPU": a spec that cannot be probed is unusable input.
    problems = engine.problems(spec)
    if problems:
        raise Invalid(problems, code=EXIT_UNUSABLE)
    report: dict[str, Any] = {
        "engine": engine.name,
        "replica": spec.replica_id,
        "shard": spec.shard_id,
        "placed_on": _placed_on(spec),
        "listing": None,
        "devices": None,
    }
    lines = [_heading(spec, engine.name)]
    report["verdict"] = verdict = _verdict(run, spec, engine, report, lines)
    if args.json:
        print(json.dumps(report, indent=2), file=run.out)
    else:
        run.out.write("".join(f"{line}\n" for line in lines))
    return VERDICTS[verdict]


def _verdict(run: Run, spec: ShardSpec, engine: Engine, report: dict[str, Any], lines: list[str]) -> str:
    """Run the listing as ``enginekit run`` does before it starts; findings go to ``report``, ``lines``."""
    from enginekit.run.devicecheck import CPU_SHARD, NO_LISTING, check_devices, listing_of

    try:
        plan = engine.plan(spec)
    except SpecError as exc:
        raise Invalid(exc.problems, code=EXIT_UNUSABLE) from None
    argv = listing_of(plan, engine)
    if argv is not None:
        report["listing"] = argv
        lines.append(f"device listing: {printable(shlex.join(argv), 500)}")
    checked = check_devices(
        plan, engine, run.environ, timeout=run.args.timeout, secret=run.registry.secret_variables()
    )
    if checked.verdict == CPU_SHARD:
        lines.append("placed on no GPU: it runs on the CPU by design, there is no fallback to detect")
    elif checked.verdict == NO_LISTING:
        lines.append(f"engine {engine.name} never falls back to the CPU: it has no device listing to run")
    else:
        report["devices"] = list(checked.devices)
        lines += _seen(list(checked.devices), len(report["placed_on"]))
    return checked.verdict


def _placed_on(spec: ShardSpec) -> list[str]:
    return [str(device) for device in (spec.gpu_uuids or spec.gpu_indices)]


def _heading(spec: ShardSpec, engine: str) -> str:
    placed = _placed_on(spec)
    where = f"GPU{'s' if len(placed) > 1 else ''} {', '.join(placed)}" if placed else "no GPU"
    shard = f"shard {spec.shard_id or '-'} of replica {spec.replica_id or '-'}"
    return f"{shard}: engine {engine}, placed on {where}"


def _seen(devices: list[str], placed: int) -> list[str]:
    if not devices:
        return ["the build sees no GPU: the shard would run on the CPU"]
    count = f"{len(devices)} device{'s' if len(devices) > 1 else ''}"
    if len(devices) != placed:
        count += f", the shard is placed on {placed}"
    return [f"the build sees {count}:", *(f"  - {device}" for device in devices)]


def help_options(run: Run) -> int:
    """Print every option of the engine the shard's main process starts, as its own help prints them."""
    args = run.args
    spec = run.load_spec(args.spec)
    engine = run.registry.engine(spec.profile.engine)
    try:
        plan = engine.plan(spec)
    except SpecError as exc:
        raise Invalid(exc.problems) from None
    main = plan.commands[-1]
    helper = engine.help_command(main)
    # A help text never needs the API key: whatever carries it, this engine's or another's,
    # stays out of the helper's environment, generated or inherited.
    from enginekit.run.devicecheck import without_secrets

    secret = {*main.secret_env, *engine.policy.secret_env, *run.registry.secret_variables()}
    env = without_secrets(helper.environ(run.environ), secret, spec.api_key)
    what = f"the help command of engine {engine.name!r}"
    finished = run_program(helper.argv(), env, timeout=args.timeout, what=what)
    if not finished.stdout.strip():
        raise CannotRun(f"{what} printed nothing: {printable(shlex.join(helper.argv()), 500)}")
    # Escaped line by line: what another program prints never drives the terminal.
    run.out.write(
        "".join(f"{printable(line.expandtabs(), 100_000)}\n" for line in finished.stdout.splitlines())
    )
    return EXIT_OK
