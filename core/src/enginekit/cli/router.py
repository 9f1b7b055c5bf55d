"""``enginekit router``: the router in front of shards, its command from their plans, shown or run."""

from __future__ import annotations

import argparse
import os

from enginekit.base.errors import SpecError
from enginekit.base.exits import EXIT_OK, EXIT_UNUSABLE
from enginekit.cli.context import Invalid, Run
from enginekit.cli.values import count


def arguments(parser: argparse.ArgumentParser) -> None:
    """The router command's arguments."""
    from enginekit.replica.router import (
        DEFAULT_BLOCK_SIZE,
        DEFAULT_METRICS_PORT,
        KV_AWARE,
        PD_DEFAULT_POLICY,
        POLICIES,
        VLLM_ROUTER,
    )

    parser.add_argument(
        "specs",
        metavar="SPEC",
        nargs="+",
        help=(
            "the shard spec of each API server the router fronts, as given to `enginekit run`: "
            "aggregated workers, or a disaggregated replica's prefill and decode instances"
        ),
    )
    parser.add_argument("--port", type=count, required=True, help="where clients reach the router")
    parser.add_argument("--host", default="127.0.0.1", help="the address it binds (default: 127.0.0.1)")
    parser.add_argument(
        "--metrics-port",
        type=count,
        default=DEFAULT_METRICS_PORT,
        help=f"its Prometheus port, on --host (default: {DEFAULT_METRICS_PORT}, vllm-router's)",
    )
    parser.add_argument(
        "--policy",
        choices=POLICIES,
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
    from enginekit.cli.plans import plan_for
    from enginekit.replica.router import (
        KV_AWARE,
        PD_DEFAULT_POLICY,
        RouterOptions,
        is_disaggregated,
        router_command,
    )

    args = run.args
    if not args.executable:
        raise Invalid(["router: --executable: expected the router program, got ''"], code=EXIT_UNUSABLE)
    plans = [plan_for(run, source) for source in args.specs]
    policy = args.policy or (PD_DEFAULT_POLICY if is_disaggregated(plans) else KV_AWARE)
    options = RouterOptions(
        port=args.port,
        host=args.host,
        policy=policy,
        unchecked_clients=args.unchecked_clients,
        block_size=args.block_size,
        executable=args.executable,
        metrics_port=args.metrics_port,
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
