"""``python -m enginekit_sim``: the command line that lists the devices or runs the server."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence

from enginekit_sim.commandline import ArgsError, build_parser
from enginekit_sim.faults import parse_faults
from enginekit_sim.server.settings import visible_devices


def _devices(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    fallback = any(f.kind == "cpu-fallback" for f in parse_faults(args.fault))
    devices = [] if fallback else visible_devices(environ)
    if not devices:
        print("no GPU visible: the simulated engine runs on the CPU")
    for device in devices:
        print(f"GPU {device}")
    return 0


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Run the command line; returns the exit status (2 for bad arguments, as argparse does)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except ArgsError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    if args.command == "devices":
        return _devices(args, os.environ if environ is None else environ)
    # Imported only to serve: listing the devices loads no HTTP framework.
    from enginekit_sim.server.app import serve

    return serve(args)
