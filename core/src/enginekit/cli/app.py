"""``main``: parse the arguments, run one handler, and turn every outcome into one exit status."""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import cast

from enginekit.base.errors import EnginekitError, ProblemsError
from enginekit.base.exits import EXIT_BUG, EXIT_INTERRUPTED, EXIT_UNUSABLE
from enginekit.base.secrets import masked_all
from enginekit.cli import output
from enginekit.cli.context import Invalid, Run
from enginekit.cli.parser import parse

Handler = Callable[[Run], int]


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 validation failed, 2 unusable input).

    ``environ`` is the environment the command reads (``ENGINEKIT_*``) and that the programs
    it runs inherit; ``os.environ`` when not given. Whatever plugins print while they are
    imported or called goes to stderr, through ``print`` or straight to file descriptor 1:
    stdout holds the command's output and nothing else, so ``--json`` is always JSON.
    """
    try:
        args = parse(None if argv is None else list(argv))
    except SystemExit as exc:  # --help, or arguments argparse refused: already said
        return exc.code if isinstance(exc.code, int) else EXIT_UNUSABLE
    run = Run(args, os.environ if environ is None else environ)
    output.tolerant_streams()
    code = EXIT_BUG
    try:
        with output.stdout_to_stderr(run.secrets):
            code = _handler(args.handler)(run)
    except Invalid as exc:
        output.problems("invalid", exc.problems, secrets=run.secrets)
        code = exc.code
    except ProblemsError as exc:
        output.problems("error", exc.problems, secrets=run.secrets)
        code = EXIT_UNUSABLE
    except EnginekitError as exc:
        run.error(str(exc))
        code = EXIT_UNUSABLE
    except KeyboardInterrupt:
        run.error("interrupted")
        return EXIT_INTERRUPTED
    except Exception as exc:
        if run.environ.get("ENGINEKIT_TRACEBACK") == "1":
            raise
        run.error(
            f"internal error, a bug in enginekit ({type(exc).__name__}); ENGINEKIT_TRACEBACK=1 shows where"
        )
        code = EXIT_BUG
    for warning in run.warnings():
        run.error(warning, kind="warning")
    text = run.out.getvalue()
    if not getattr(args, "show_secrets", False):
        text = masked_all(text, run.secrets)
    return output.emit(text, code)


def _handler(spec: str) -> Handler:
    """The handler ``module:function`` names, imported now: each subcommand pays for its own imports."""
    module, _, function = spec.partition(":")
    return cast(Handler, getattr(importlib.import_module(f"enginekit.cli.{module}"), function))


def run() -> None:
    """Console-script entry point.

    The cyclic garbage collector is off: a command lives for a moment and its few cycles
    die with it, while the collector, run dozens of times as modules and classes are made,
    was about a tenth of a cold ``render``. ``enginekit run`` turns it on before it starts
    supervising, since it lives as long as its shard: in-process too, where ``main`` else
    leaves the caller's collector as it is.
    """
    gc.disable()
    sys.exit(main())
