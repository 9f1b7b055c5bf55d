"""The command's arguments: one table of subcommands, each naming its handler without importing it.

Adding a subcommand is one :class:`Subcommand` entry here (its arguments and help) and
one handler function ``(Run) -> int`` in the module the entry names.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, cast

from enginekit.cli.values import carrier, seconds, status_path

#: ``enginekit.platform.config.DEFAULT_CONFIG_PATH``, written out so that reading the arguments
#: imports no config machinery; a test keeps the two equal.
DEFAULT_CONFIG = "/etc/enginekit/config.toml"
ENV_FORMATS = ("shell", "dotenv", "json")
#: How long ``probe`` and ``help-options`` let the engine's program run, in seconds.
DEFAULT_TIMEOUT = 60.0
#: ``enginekit.plan.formats.SCHEMA_FILES``' names, written out for the same reason; a test keeps them equal.
SCHEMA_KINDS = ("plan", "spec", "spec-go")

SPEC_HELP = "shard spec with its [profile], TOML or JSON; '-' reads it from stdin"
EXIT_STATUS = """\
SPEC is a TOML or JSON shard spec with its [profile]; '-' reads it from stdin.

exit status:
  0    success
  1    validation failed, every problem listed; engines: an engine asked about
       failed; probe: the engine's build would run on the CPU
  2    unusable input (unreadable, oversized or malformed spec or config, unknown
       field, unknown, disabled or unavailable engine, a plugin that broke its
       contract), or a program the engine names could not run
  130  interrupted; 141 stdout closed by its reader; 70 a bug in enginekit
"""


class Subcommand(NamedTuple):
    """One subcommand: its name, help, arguments, and the handler that runs it."""

    name: str
    help: str
    #: ``module:function`` under ``enginekit.cli``, imported only when this subcommand runs.
    handler: str
    arguments: Callable[[argparse.ArgumentParser], None]
    epilog: str = ""


def _engines(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="NAME", help="engines to report on (default: all)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--check",
        action="store_true",
        help="also plan each available engine's example shard: "
        "one whose hooks raise or answer garbage there is failed",
    )


def _render(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC", help=SPEC_HELP)
    parser.add_argument("--explain", action="store_true", help="say why each variable is set")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--gpus", type=Path, help="GPU list to validate the profile against")
    parser.add_argument("--show-secrets", action="store_true", help="print the API key unmasked")


def _env(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC", help=SPEC_HELP)
    parser.add_argument("--explain", action="store_true", help="say why each variable is set")
    parser.add_argument(
        "--format",
        choices=ENV_FORMATS,
        default="shell",
        help="shell: export lines, quoted, safe to eval (default); dotenv: KEY=value lines; json",
    )
    parser.add_argument("--json", action="store_true", help="the same as --format json")
    parser.add_argument("--show-secrets", action="store_true", help="include secret variables (the API key)")


def _validate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "profile", metavar="PROFILE|SPEC", help="a profile, or a shard spec holding one; '-' reads stdin"
    )
    parser.add_argument("--gpus", type=Path, help="GPU list (TOML [[gpus]] or a JSON list)")


def _probe(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC", help=SPEC_HELP)
    _timeout(parser, "the device listing")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def _help_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC", help=SPEC_HELP)
    _timeout(parser, "the help command")


def _schema(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "kind",
        choices=SCHEMA_KINDS,
        help="plan: the launch plan (render --json); spec: a shard spec; spec-go: in the Go agent's names",
    )


def _export(parser: argparse.ArgumentParser) -> None:
    # Its targets and their many options live with the handler, loaded only to parse them.
    from enginekit.cli.export import arguments

    arguments(parser)


def _layout(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "replica",
        metavar="REPLICA",
        help="replica spec: a [profile] with its [placement] and [[nodes]], TOML or JSON; '-' reads stdin",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--shards",
        metavar="DIR",
        help="also write each process's shard spec to DIR/<shard_id>.json (mode 0600: an API "
        "server's holds the key), for `enginekit run` on its node",
    )


def _router(parser: argparse.ArgumentParser) -> None:
    from enginekit.cli.router import arguments

    arguments(parser)


def _option_table(parser: argparse.ArgumentParser) -> None:
    from enginekit.cli.optiontable import arguments

    arguments(parser)


def _spec(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC", help=SPEC_HELP)
    parser.add_argument(
        "--go-names", action="store_true", help="the Go agent's field names (ReplicaID, GPUIndices, …)"
    )
    parser.add_argument("--show-secrets", action="store_true", help="write the API key unmasked")


#: ``enginekit run``'s exit statuses, written out so that reading the arguments imports
#: no runner; a test keeps them equal to ``enginekit.run.exits``.
RUN_EPILOG = """\
Builds the plan with every check render makes, then starts each command in order with
exactly its argv and its generated variables over the inherited environment, each in a
process group of its own, and supervises the shard until its main process exits. The
children's lines and the runner's own (timestamped) go to stderr; stdout carries only
the plan of --dry-run. docs/running.md has the whole lifecycle and the status file.

exit status:
  N    the main process's own exit status when it exits (128+N: killed by signal N)
  1    validation failed, every problem listed (as render)
  2    unusable input (as render); a variable a --*-from-env option names is missing,
       empty or wrong; a program of the plan, or its device listing, could not run
  81   refused before starting anything: the engine's build would run on the CPU
  82   the leader's port did not accept a connection within --leader-timeout
  83   the health URL did not answer 200 within --startup-timeout
  84   a sidecar exited, which stops the shard
  85   a worker its plan says must be stopped: the leader's port stayed closed
       for --leader-gone-grace
  129, 130, 143  stopped by SIGHUP, SIGINT or SIGTERM: every process group was sent
       SIGTERM, then SIGKILL after --stop-grace; nothing is left running
  70   a bug in enginekit
"""
#: ``enginekit.run.options``' defaults, written out for the same reason.
RUN_TIMINGS = (
    ("--leader-timeout", 900.0, "how long a command that waits for the leader waits for its port"),
    ("--startup-timeout", 1800.0, "how long the health URL has to answer 200, from the main process's start"),
    ("--stop-grace", 20.0, "between SIGTERM to every process group and SIGKILL"),
    ("--leader-gone-grace", 30.0, "how long the leader's port may stay closed before a worker is stopped"),
)


def _run(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC", help=SPEC_HELP)
    parser.add_argument("--gpus", type=Path, help="GPU list to validate the profile against")
    parser.add_argument("--dry-run", action="store_true", help="print the plan and every step; start nothing")
    parser.add_argument("--raw-logs", action="store_true", help="children's lines without the [name] prefix")
    for field, example in (
        ("rank", "LWS_WORKER_INDEX"),
        ("leader-addr", "LWS_LEADER_ADDRESS"),
        ("bind-addr", "POD_IP"),
        ("api-key", "a secretKeyRef's; removed from the children's environment"),
    ):
        parser.add_argument(
            f"--{field}-from-env",
            metavar="VAR",
            type=carrier(field.replace("-", "_")),  # not applied to a default of None, as to ""
            help=f"take the spec's {field.replace('-', '_')} from $VAR ({example})",
        )
    for option, default, what in RUN_TIMINGS:
        parser.add_argument(option, type=seconds, metavar="SECONDS", help=f"{what} (default: {default:g})")
    parser.add_argument(
        "--status-file",
        type=status_path,
        metavar="PATH",
        help="keep the shard's state there, as JSON (a regular file, or nothing yet; never a link or device)",
    )


def _timeout(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"stop {what} after this long (default: {DEFAULT_TIMEOUT:g})",
    )


SUBCOMMANDS: tuple[Subcommand, ...] = (
    Subcommand(
        "engines",
        "installed engines: ok, unavailable, disabled or failed, and why",
        "engines:engines",
        _engines,
        epilog="exit status: 0 every engine asked about (every installed one when none is named)\n"
        "is ok, unavailable or disabled; 1 one of them failed (listed as failed, with why);\n"
        "2 a named engine is not installed here, or the node config is unusable.",
    ),
    Subcommand("render", "the launch plan of a shard", "plans:render", _render),
    Subcommand(
        "env",
        "the main process's environment: `export` lines, safe to eval",
        "plans:env",
        _env,
    ),
    Subcommand(
        "validate", "every problem with a profile (and its spec), at once", "validate:validate", _validate
    ),
    Subcommand(
        "probe",
        "run the engine's device listing for a shard: would its build run on the CPU?",
        "probe:probe",
        _probe,
        epilog="The listing runs with the shard's placement variables over the inherited environment,\n"
        "as the engine will.\n\n"
        "exit status: 0 the build sees GPUs (or the engine never falls back to the CPU, or the\n"
        "shard is placed on no GPU); 1 the build sees no GPU: the shard would run on the CPU;\n"
        "2 the spec is unusable or invalid, or the listing cannot run (not found, timed out,\n"
        "failed, or printed what the engine cannot read).",
    ),
    Subcommand(
        "help-options",
        "every option of the shard's engine, as its own --help prints it",
        "probe:help_options",
        _help_options,
        epilog="Runs the help command the engine names for the shard's main process.\n\n"
        "exit status: 0 printed; 1 the spec is invalid; 2 unusable input, or the help\n"
        "command cannot run (not found, timed out, failed or printed nothing).",
    ),
    Subcommand(
        "spec",
        "a shard spec as JSON, in enginekit's field names or the Go agent's",
        "formats:spec",
        _spec,
        epilog="Reads either spelling and writes one: what the Go agent persists and reads back\n"
        "with --go-names. The API key is masked unless --show-secrets; a masked spec\n"
        "is refused when read again. Checks the spec's shape and types; validate checks its rules.",
    ),
    Subcommand(
        "schema",
        "the JSON Schema of the launch plan or the shard spec",
        "formats:schema",
        _schema,
        epilog="Draft 2020-12, as shipped in the package; docs/plan-format.md says what may change.",
    ),
    Subcommand(
        "layout",
        "a replica laid out: every node's processes, ranks, GPUs, ports and who dials whom",
        "layout:show",
        _layout,
        epilog="REPLICA is a TOML or JSON replica spec (docs/layouts.md). Every rank and port shown\n"
        "is the one the shards are started with; each shard is checked as render checks it.\n"
        "With --shards, each node's agent starts its shards with `enginekit run DIR/<id>.json`.\n\n"
        "exit status: 0 shown; 1 the replica cannot be laid out or a shard is invalid (every\n"
        "problem listed); 2 unusable input, or an engine that is not available here.",
    ),
    Subcommand(
        "router",
        "the router in front of shards (vllm-router): its command from their plans, shown or started",
        "router:router",
        _router,
        epilog="Each SPEC is an API server's shard spec; under --policy kv_aware the router subscribes\n"
        "to each one's KV-cache events where its plan says (render --json: kv_events). The key\n"
        "never reaches the router: clients send it, and the router forwards it to the worker.\n\n"
        "exit status: the router's own, once started; 1 a spec is invalid or the router cannot\n"
        "front them (every problem listed); 2 unusable input, or the router cannot start.",
    ),
    Subcommand(
        "export",
        "a whole replica for a scheduler: a Kubernetes LeaderWorkerSet or a Slurm batch script",
        "export:export",
        _export,
        epilog="REPLICA is a TOML or JSON replica spec (docs/kubernetes.md, docs/slurm.md). The API\n"
        "key is never written: the ranks get it from a Secret, a file or a variable at start.\n\n"
        "exit status: 0 written; 1 the replica is invalid or cannot be exported (every problem\n"
        "listed); 2 unusable input or options.",
    ),
    Subcommand(
        "option-table",
        "an engine release's options, read from its own parser, into a plugin's option table",
        "optiontable:option_table",
        _option_table,
        epilog="For plugin authors (docs/option-tables.md): run once per engine release, where the\n"
        "engine is installed. PARSER is imported and run: give only your own code.\n\n"
        "exit status: 0 written (or, with --check, well formed); 1 --check found problems;\n"
        "2 unusable options, a parser that cannot be read, or a table that would not read back.",
    ),
    Subcommand(
        "run",
        "start a shard's plan on this node and supervise it: leader wait, health, signals",
        "supervise:run_shard",
        _run,
        epilog=RUN_EPILOG,
    ),
)


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, given the terminal's width rather than asking :mod:`shutil` for it.

    argparse makes a formatter for every argument it adds, and its own imports ``shutil``
    (and with it ``bz2``, ``lzma`` and ``zlib``) to learn the width: a cost on every
    command for the help that is rarely printed. The width is ``shutil.get_terminal_size``'s:
    ``$COLUMNS``, else the terminal's, else 80; argparse keeps two columns spare.
    """

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
        **kwargs: Any,
    ) -> None:
        # Whatever else a newer argparse passes (3.14: prefix_chars, color) goes through.
        width = _columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width, **kwargs)


def _columns() -> int:
    """The terminal's width by ``shutil.get_terminal_size``'s rule, whatever ``$COLUMNS`` holds."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):  # unset, or no number (``COLUMNS=²`` is a digit, not an int)
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size().columns
        except (OSError, ValueError):  # no terminal on stdout, or stdout closed
            columns = 0
    return columns if columns > 0 else 80


class _Deferred:
    """A subcommand's parser, made when argparse first reaches for it: to parse that subcommand.

    The top-level help and its errors name every subcommand from the table alone, and a
    command line runs one: making the other subcommands' parsers was most of the time
    spent reading the arguments.
    """

    def __init__(self, arguments: Callable[[argparse.ArgumentParser], None], kwargs: dict[str, Any]) -> None:
        self._arguments = arguments
        self._kwargs = kwargs
        self._parser: argparse.ArgumentParser | None = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_arguments", "_kwargs", "_parser"):
            raise AttributeError(name)  # not the parser's: copying or comparing this object
        if self._parser is None:
            self._parser = argparse.ArgumentParser(**self._kwargs)
            self._arguments(self._parser)
        return getattr(self._parser, name)


def _deferred(*, arguments: Callable[[argparse.ArgumentParser], None], **kwargs: Any) -> _Deferred:
    """``add_parser``'s parser class: the arguments ``add_parser`` was given, kept until needed."""
    return _Deferred(arguments, kwargs)


def build_parser() -> argparse.ArgumentParser:
    """The ``enginekit`` argument parser; ``--config`` goes before or after the subcommand."""
    # SUPPRESS keeps a subcommand's unset copy of --config from overwriting the one given
    # before it.
    common = argparse.ArgumentParser(add_help=False, formatter_class=_Formatter)
    common.add_argument(
        "--config",
        type=Path,
        default=argparse.SUPPRESS,
        help=f"node config (default: $ENGINEKIT_CONFIG, then {DEFAULT_CONFIG} if it exists)",
    )
    parser = argparse.ArgumentParser(
        prog="enginekit",
        description="Show exactly how an inference engine shard will be started, and why.",
        epilog=EXIT_STATUS,
        formatter_class=_Formatter,
        parents=[common],
    )
    parser.add_argument(
        "--version",
        action="store_true",
        help="print the version of enginekit and of every installed engine distribution",
    )
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=cast("type[argparse.ArgumentParser]", _deferred)
    )
    for command in SUBCOMMANDS:
        sub.add_parser(
            command.name,
            parents=[common],
            help=command.help,
            description=command.help[:1].upper() + command.help[1:] + ".",
            epilog=command.epilog or None,
            formatter_class=_Formatter,
            arguments=command.arguments,
        )
    return parser


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The arguments, with ``command`` set to the handler to run (``version`` for ``--version``).

    :raises SystemExit: for ``--help`` (0) and for arguments argparse refuses (2), after
        printing the help or the usage and the error.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        args.handler = "version:version"
    elif args.command is None:
        parser.error(f"a command is required: {', '.join(c.name for c in SUBCOMMANDS)}")
    else:
        args.handler = next(c.handler for c in SUBCOMMANDS if c.name == args.command)
    return args
