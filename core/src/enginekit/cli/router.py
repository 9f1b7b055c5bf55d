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
        POLICIES,
        VLLM_ROUTER,
    )

    parser.add_argument(
        "specs",
        metavar="SPEC",
        nargs="+",
        help="the shard spec of each API server the router fronts, as given to `enginekit run`",
    )
    parser.add_argument("--port", type=count, required=True, help="where clients reach the router")
    parser.add_argument("--host", default="127.0.0.1", help="the address it binds (default: 127.0.0.1)")
    parser.add_argument(
        "--metrics-port",
        type=count,
        default=DEFAULT_METRICS_PORT,
        help=f"its Prometheus port, on --host (default: {DEFAULT_METRICS_PORT}, vllm-router's)",
    )
    parser.add_argument("--policy", choices=POLICIES, default=KV_AWARE, help=f"default: {KV_AWARE}")
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
    from enginekit.replica.router import RouterOptions, router_command

    args = run.args
    if not args.executable:
        raise Invalid(["router: --executable: expected the router program, got ''"], code=EXIT_UNUSABLE)
    plans = [plan_for(run, source) for source in args.specs]
    options = RouterOptions(
        port=args.port,
        host=args.host,
        policy=args.policy,
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

        removed = sorted(names | (run.environ.keys() - env.keys()))
        print(json.dumps({"argv": list(command.argv()), "removed_env": removed}, indent=2), file=run.out)
        return EXIT_OK
    try:
        # The router replaces this process: whoever supervises enginekit supervises the router.
        os.execvpe(command.path, list(command.argv()), env)
    except OSError as exc:
        said = f"router: cannot start {command.path!r}: {exc.strerror}"
        raise Invalid([said], code=EXIT_UNUSABLE) from None
    return EXIT_OK  # not reached
