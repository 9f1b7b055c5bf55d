"""``enginekit option-table``: a release's options, read from the engine's own parser, into a plugin's table.

For plugin authors, run once per engine release in an environment where the engine is
installed: ``PARSER`` (``module:attribute``) is imported, so it is the author's own code
that runs, never anything of a node's. It names an ``argparse.ArgumentParser``, a Click
command, or a function returning either.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import Any

from enginekit.base.exits import EXIT_INVALID, EXIT_OK, EXIT_UNUSABLE
from enginekit.cli.context import Run


def arguments(parser: argparse.ArgumentParser) -> None:
    """The subcommand's options."""
    parser.add_argument(
        "table", type=Path, metavar="TABLE", help="the plugin's options_table.py (made if missing)"
    )
    parser.add_argument(
        "--parser",
        metavar="MODULE:ATTR",
        help="the engine's parser: an argparse.ArgumentParser, a Click command, or a function returning one",
    )
    parser.add_argument("--release", help="the engine release PARSER is from (required with --parser)")
    parser.add_argument("--source", default="", help="what was read: the file, its digest, the entry point")
    parser.add_argument("--engine", help="the engine's name (a new table only)")
    parser.add_argument("--program", help="what parses the options, as a message names it (a new table only)")
    parser.add_argument(
        "--generator",
        help="the script or command, from the repository root, that writes the table (a new table only)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="only check TABLE: well formed, and exactly what the writer makes of it",
    )


def _load(spec: str) -> Any:
    module, colon, attribute = spec.partition(":")
    if not colon or not module or not attribute:
        raise ValueError(f"--parser {spec!r}: expected MODULE:ATTR")
    try:
        value: Any = importlib.import_module(module)
        for part in attribute.split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"--parser {spec!r}: {exc}") from None
    if callable(value) and not isinstance(value, argparse.ArgumentParser) and not hasattr(value, "params"):
        try:
            value = value()
        except Exception as exc:  # the author's code: what it raises is theirs to see
            raise ValueError(f"--parser {spec!r}: calling it raised {type(exc).__name__}: {exc}") from None
    return value


def option_table(run: Run) -> int:
    """Add the release PARSER reads to TABLE (or make TABLE), or with ``--check`` check TABLE."""
    from enginekit.policy.optiongen import (
        check_table_module,
        merge_release,
        option_document,
        read_argparse,
        read_click,
        read_table_module,
        write_table_module,
    )

    args = run.args
    if args.check:
        problems = check_table_module(args.table)
        for problem in problems:
            run.error(problem, kind="invalid")
        if not problems:
            print(f"{args.table}: well formed, and exactly what the writer makes of it", file=run.out)
        return EXIT_INVALID if problems else EXIT_OK
    if not args.parser or not args.release:
        run.error("option-table: --parser and --release are needed to read a release (or --check)")
        return EXIT_UNUSABLE
    try:
        parser = _load(args.parser)
        if isinstance(parser, argparse.ArgumentParser):
            read = read_argparse(parser, args.release, args.source or f"{args.parser} ({args.release})")
        elif hasattr(parser, "params"):
            read = read_click(parser, args.release, args.source or f"{args.parser} ({args.release})")
        else:
            raise ValueError(
                f"--parser {args.parser!r}: a {type(parser).__name__}, not an argparse or Click parser"
            )
        if args.table.exists():
            document = merge_release(read_table_module(args.table.read_text(encoding="utf-8")), read)
        else:
            missing = [f"--{name}" for name in ("engine", "program", "generator") if not getattr(args, name)]
            if missing:
                raise ValueError(f"{args.table} does not exist yet: a new table needs {', '.join(missing)}")
            document = option_document(
                engine=args.engine, program=args.program, generator=args.generator, reads=[read]
            )
        write_table_module(document, args.table)
    except (ValueError, OSError) as exc:
        run.error(f"option-table: {exc}")
        return EXIT_UNUSABLE
    releases = ", ".join(entry["release"] for entry in document["releases"])
    print(
        f"{args.table}: {len(read.options)} options of {document['program']} {args.release}; "
        f"releases {releases}; read back and checked",
        file=run.out,
    )
    return EXIT_OK
