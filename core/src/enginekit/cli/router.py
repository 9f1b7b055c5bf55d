"""``enginekit router``: the router in front of shards, its command from their plans, shown or run."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from enginekit.base.errors import SpecError
from enginekit.base.exits import EXIT_OK, EXIT_UNUSABLE
from enginekit.cli.context import Invalid, Run
from enginekit.cli.values import count

if TYPE_CHECKING:
    from enginekit.plan.launch import LaunchPlan


def arguments(parser: argparse.ArgumentParser) -> None:
    """The router command's arguments."""
    from enginekit.replica.router import (
        DEFAULT_BLOCK_SIZE,
        DEFAULT_METRICS_PORT,
        KV_AWARE,
        PD_DEFAULT_POLICY,
        POLICIES,
        SGLANG_POLICIES,
        VLLM_ROUTER,
    )

    parser.add_argument(
        "specs",
        metavar="SPEC",
        nargs="+",
        help=(
            "the shard spec of each API server the router fronts, as given to `enginekit run`: "
            "aggregated workers, or a disaggregated replica's prefill and decode instances; or one "
            "disaggregated replica spec, whose [router] says the rest"
        ),
    )
    parser.add_argument(
        "--port",
        type=count,
        default=None,
        help="where clients reach the router (required but from a replica spec)",
    )
    parser.add_argument(
        "--host", default=None, help="the address it binds (default: a replica spec's, else 127.0.0.1)"
    )
    parser.add_argument(
        "--metrics-port",
        type=count,
        default=None,
        help=f"its Prometheus port, on --host (default: a replica spec's, else {DEFAULT_METRICS_PORT})",
    )
    parser.add_argument(
        "--policy",
        choices=tuple(dict.fromkeys((*POLICIES, *SGLANG_POLICIES))),
        default=None,
        help=f"default: {KV_AWARE}, or {PD_DEFAULT_POLICY} in front of prefill and decode instances",
    )
    parser.add_argument(
        "--unchecked-clients",
        action="store_true",
        help=(
            "in front of prefill and decode instances with a key, serve beyond loopback although "
            "vllm-router checks no client's key there: only behind a gateway that checks every client"
        ),
    )
    parser.add_argument(
        "--block-size",
        type=count,
        default=DEFAULT_BLOCK_SIZE,
        help=f"the workers' KV-cache block size in tokens (default: {DEFAULT_BLOCK_SIZE}, vLLM's on GPUs)",
    )
    parser.add_argument(
        "--executable", default=VLLM_ROUTER, help=f"the router program (default: {VLLM_ROUTER})"
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the command as JSON (argv, and the variables kept from it)",
    )


def router(run: Run) -> int:
    """Plan every shard, build the router's command from the plans, and print it or exec it."""
    from enginekit.replica.router import (
        DEFAULT_METRICS_PORT,
        KV_AWARE,
        PD_DEFAULT_POLICY,
        RouterOptions,
        is_disaggregated,
        router_command,
    )

    args = run.args
    if not args.executable:
        raise Invalid(["router: --executable: expected the router program, got ''"], code=EXIT_UNUSABLE)
    plans, given = _plans(run)
    policy = (
        args.policy or given.get("policy") or (PD_DEFAULT_POLICY if is_disaggregated(plans) else KV_AWARE)
    )
    # An option given wins, even one that is wrong ('--host=' is refused, not replaced).
    port = args.port if args.port is not None else given.get("port")
    if port is None:
        raise Invalid(["router: --port: required (where clients reach the router)"], code=EXIT_UNUSABLE)
    options = RouterOptions(
        port=port,
        host=args.host if args.host is not None else given.get("host") or "127.0.0.1",
        policy=policy,
        unchecked_clients=args.unchecked_clients,
        block_size=args.block_size,
        executable=args.executable,
        metrics_port=(
            args.metrics_port
            if args.metrics_port is not None
            else given.get("metrics_port") or DEFAULT_METRICS_PORT
        ),
    )
    try:
        command = router_command(plans, options)
    except SpecError as exc:
        raise Invalid(exc.problems) from None
    # No key reaches the router: it forwards each client's Authorization header, and every
    # variable that carries a key here is kept from it, and any other whose value holds a
    # worker's key in any form (a client's OPENAI_API_KEY in the same shell), as probe keeps them.
    from enginekit.run.devicecheck import without_secrets

    names = run.registry.secret_variables()
    env = dict(run.environ)
    for key in {plan.shard.api_key for plan in plans}:
        env = without_secrets(env, names, key)
    if args.dry_run:
        import json

        from enginekit.base.secrets import MASK

        removed = sorted(names | (run.environ.keys() - env.keys()))
        given = {name: MASK if name in command.secret_env else value for name, value in command.env.items()}
        shown = {"argv": list(command.argv()), "removed_env": removed, "env": given}
        print(json.dumps(shown, indent=2), file=run.out)
        return EXIT_OK
    # What the router itself is given (the key a PD router calls the instances with) goes
    # in after the node's keys were taken out.
    env.update(command.env)
    try:
        # The router replaces this process: whoever supervises enginekit supervises the router.
        os.execvpe(command.path, list(command.argv()), env)
    except OSError as exc:
        said = f"router: cannot start {command.path!r}: {exc.strerror}"
        raise Invalid([said], code=EXIT_UNUSABLE) from None
    return EXIT_OK  # not reached


def _plans(run: Run) -> tuple[list[LaunchPlan], dict[str, Any]]:
    """The plans of the API servers the router fronts, and what a disaggregated replica's [router] says.

    One disaggregated replica spec is expanded as ``enginekit layout --shards`` expands it:
    the router fronts each instance's API servers, and takes its port, metrics port, bind
    address and policy from the spec where no option says otherwise.
    """
    from enginekit.cli.plans import plan_for

    sources = run.args.specs
    if len(sources) == 1:
        from enginekit.replica.disaggregated import is_disaggregated as spec_is_disaggregated

        raw, _ = run.document(sources[0])
        if spec_is_disaggregated(raw):
            return _replica_plans(run, raw)
    return [plan_for(run, source) for source in sources], {}


def _replica_plans(run: Run, raw: Any) -> tuple[list[LaunchPlan], dict[str, Any]]:
    from enginekit.replica.disaggregated import expand_disaggregated, load_disaggregated, router_host

    spec = load_disaggregated(raw, lenient=run.config.lenient)
    try:
        expanded = expand_disaggregated(spec)
        plans = [run.registry.engine(s.profile.engine).plan(s) for _, ranks in expanded for s in ranks]
    except SpecError as exc:
        raise Invalid(exc.problems) from None
    _, host = router_host(spec)
    given = {
        "port": spec.router.port,
        "metrics_port": spec.router.metrics_port,
        "host": host,
        "policy": spec.router.policy,
    }
    return [plan for plan in plans if plan.serves_http], given
