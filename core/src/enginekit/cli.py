"""The ``enginekit`` command: the edge where config files and the environment are read."""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import json
import os
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from enginekit.config import (
    DEFAULT_CONFIG_PATH,
    NodeConfig,
    load_config,
    looks_like_node_config,
    registry_for,
)
from enginekit.convert import load_document, parse_any, read_text, structure
from enginekit.errors import EnginekitError, ProblemsError, SpecError
from enginekit.model import GPUInfo, Profile, ShardSpec
from enginekit.ncclenv import EnvBuild, shard_env
from enginekit.registry import Registry

EXIT_OK, EXIT_INVALID, EXIT_UNUSABLE = 0, 1, 2
#: A bug in enginekit itself (sysexits' EX_SOFTWARE): one line, and the traceback only
#: when ``ENGINEKIT_TRACEBACK=1`` asks for it.
EXIT_BUG = 70
#: The reader of stdout went away (``render --json | head``), as a shell reports SIGPIPE.
EXIT_CLOSED_PIPE = 141
ENV_FORMATS = ("shell", "dotenv", "json")


@attrs.frozen
class _GPUList:
    gpus: tuple[GPUInfo, ...]


class _Invalid(Exception):
    """Validation failed: exit 1, with every problem listed."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)


def _parser() -> argparse.ArgumentParser:
    # --config is accepted before or after the subcommand: SUPPRESS keeps a subcommand's
    # unset copy from overwriting the one given before it.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--config",
        type=Path,
        default=argparse.SUPPRESS,
        help=f"node config (default: $ENGINEKIT_CONFIG, then {DEFAULT_CONFIG_PATH} if it exists)",
    )
    parser = argparse.ArgumentParser(
        prog="enginekit",
        description="Show exactly how an inference engine shard will be started, and why.",
        parents=[common],
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    engines = sub.add_parser("engines", parents=[common], help="list installed engines and their status")
    engines.add_argument("--json", action="store_true", help="machine-readable output")
    render = sub.add_parser("render", parents=[common], help="the launch plan of a shard")
    render.add_argument("spec", type=Path, help="shard spec with its profile (TOML or JSON)")
    render.add_argument("--explain", action="store_true", help="say why each variable is set")
    render.add_argument("--json", action="store_true", help="machine-readable output")
    render.add_argument("--gpus", type=Path, help="GPU list to validate the profile against")
    render.add_argument("--show-secrets", action="store_true", help="print the API key unmasked")
    env = sub.add_parser("env", parents=[common], help="the NCCL/CUDA environment of a shard alone")
    env.add_argument("spec", type=Path, help="shard spec with its profile (TOML or JSON)")
    env.add_argument("--explain", action="store_true", help="say why each variable is set")
    env.add_argument(
        "--format",
        choices=ENV_FORMATS,
        default="shell",
        help="shell: export lines, quoted, safe to eval (default); dotenv: KEY=value lines; json",
    )
    env.add_argument("--json", action="store_true", help="the same as --format json")
    validate = sub.add_parser("validate", parents=[common], help="validate a profile, all problems at once")
    validate.add_argument("profile", type=Path, help="a profile, or a shard spec holding one")
    validate.add_argument("--gpus", type=Path, help="GPU list (TOML [[gpus]] or a JSON list)")
    return parser


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 validation failed, 2 unusable input).

    Whatever plugins print while they are imported or called goes to stderr: stdout
    holds the command's output and nothing else, so ``--json`` is always JSON.
    """
    args = _parser().parse_args(argv)
    environ = os.environ if environ is None else environ
    out = io.StringIO()
    registry: Registry | None = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            config = _config(getattr(args, "config", None), environ)
            registry = registry_for(config, environ)
            code = _HANDLERS[args.command](args, registry, config, out)
    except _Invalid as exc:
        _problems("invalid", exc.problems)
        code = EXIT_INVALID
    except ProblemsError as exc:
        _problems("error", exc.problems)
        code = EXIT_UNUSABLE
    except EnginekitError as exc:
        _error(str(exc))
        code = EXIT_UNUSABLE
    except Exception as exc:
        if environ.get("ENGINEKIT_TRACEBACK") == "1":
            raise
        _error(
            f"internal error, a bug in enginekit ({type(exc).__name__}: {exc}); "
            f"ENGINEKIT_TRACEBACK=1 shows where"
        )
        code = EXIT_BUG
    if registry is not None:
        for warning in registry.warnings:
            _error(warning, kind="warning")
    return _emit(out.getvalue(), code)


def _emit(text: str, code: int) -> int:
    """Write the output; a reader that went away ends the command quietly, a full disk with one line."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # Nothing more can be written there; point stdout at /dev/null so the
        # interpreter's own flush at exit does not fail a second time.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_CLOSED_PIPE
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        _error(f"cannot write the output: {exc.strerror or errno.errorcode.get(exc.errno or 0, exc)}")
        return EXIT_UNUSABLE
    return code


def _error(message: str, *, kind: str = "error") -> None:
    with contextlib.suppress(OSError):
        print(f"enginekit: {kind}: {message}", file=sys.stderr)


def _problems(kind: str, problems: Sequence[str]) -> None:
    if len(problems) == 1:
        _error(problems[0], kind=kind)
        return
    lines = [f"{len(problems)} problems:", *(f"  - {problem}" for problem in problems)]
    _error("\n".join(lines), kind=kind)


def _config(path: Path | None, environ: Mapping[str, str]) -> NodeConfig:
    if path is not None:
        return load_config(path, required=True)
    if environ.get("ENGINEKIT_CONFIG"):
        return load_config(Path(environ["ENGINEKIT_CONFIG"]), required=True)
    return load_config(DEFAULT_CONFIG_PATH, required=False)


def _load_spec(path: Path, lenient: bool) -> ShardSpec:
    raw = load_document(path)
    if looks_like_node_config(raw):
        raise SpecError([f"{path}: a node config, not a shard spec; pass it with --config"])
    spec, unknown = structure(raw, ShardSpec, path="spec", lenient=lenient)
    for problem in unknown:
        _error(f"{path}: {problem} (ignored: lenient mode)", kind="warning")
    return spec


def _load_gpus(path: Path | None) -> tuple[GPUInfo, ...]:
    if path is None:
        return ()
    raw: Any = parse_any(read_text(path), name=str(path), suffix=path.suffix.lower())
    items = raw.get("gpus") if isinstance(raw, Mapping) else raw
    if not isinstance(items, list):
        raise SpecError([f"{path}: expected a list of GPUs (TOML [[gpus]] or a JSON list)"])
    gpus, _ = structure({"gpus": items}, _GPUList, path=str(path))
    return gpus.gpus


def _engines(args: argparse.Namespace, registry: Registry, config: NodeConfig, out: io.StringIO) -> int:
    rows = registry.statuses()
    if args.json:
        fields = [{"name": r.name, "status": r.status, "source": r.source, "detail": r.detail} for r in rows]
        print(json.dumps(fields, indent=2), file=out)
        return EXIT_OK
    if not rows:
        print("no engines installed (pip install enginekit-vllm, enginekit-sim, …)", file=out)
    width = max((len(r.name) for r in rows), default=0)
    for row in rows:
        detail = "; ".join(part for part in (row.source, row.detail) if part)
        print(f"{row.name:<{width}}  {row.status:<11}  {detail}".rstrip(), file=out)
    return EXIT_OK


def _render(args: argparse.Namespace, registry: Registry, config: NodeConfig, out: io.StringIO) -> int:
    spec = _load_spec(args.spec, config.lenient)
    gpus = _load_gpus(args.gpus)
    engine = registry.engine(spec.profile.engine)
    try:
        plan = engine.plan(spec, gpus)
    except SpecError as exc:
        raise _Invalid(exc.problems) from None
    if args.json:
        print(json.dumps(plan.to_dict(show_secrets=args.show_secrets), indent=2), file=out)
    else:
        out.write(plan.render_text(explain=args.explain, show_secrets=args.show_secrets))
    return EXIT_OK


def _env(args: argparse.Namespace, registry: Registry, config: NodeConfig, out: io.StringIO) -> int:
    spec = _load_spec(args.spec, config.lenient)
    # The same checks and exit codes as render: an unknown engine is unusable input (2),
    # a variable the policy refuses is an invalid profile (1).
    problems = registry.engine(spec.profile.engine).problems(spec)
    if problems:
        raise _Invalid(problems)
    build = shard_env(spec, registry.policy)
    out.write(_ENV_WRITERS["json" if args.json else args.format](build, args.explain))
    for dropped in build.dropped:
        _error(f"dropped {dropped.key}: {dropped.why}", kind="warning")
    return EXIT_OK


def _env_shell(build: EnvBuild, explain: bool) -> str:
    # Every value is quoted exactly as render quotes argv, so `eval "$(enginekit env …)"`
    # sets variables and never runs what a profile value holds.
    lines = []
    for key in sorted(build.env):
        if explain:
            lines.append(f"# {_one_line(build.why[key])}")
        lines.append(f"export {key}={shlex.quote(build.env[key])}")
    return "".join(f"{line}\n" for line in lines)


def _env_dotenv(build: EnvBuild, explain: bool) -> str:
    # KEY=value as docker's --env-file reads it: no quoting, which is safe only because a
    # value can hold no newline (the env policy refuses control characters).
    lines = []
    for key in sorted(build.env):
        if explain:
            lines.append(f"# {_one_line(build.why[key])}")
        lines.append(f"{key}={build.env[key]}")
    return "".join(f"{line}\n" for line in lines)


def _env_json(build: EnvBuild, explain: bool) -> str:
    document = {
        "env": dict(sorted(build.env.items())),
        "why": dict(sorted(build.why.items())),
        "dropped": [{"key": d.key, "why": d.why} for d in build.dropped],
    }
    return json.dumps(document, indent=2) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


_ENV_WRITERS: dict[str, Callable[[EnvBuild, bool], str]] = {
    "shell": _env_shell,
    "dotenv": _env_dotenv,
    "json": _env_json,
}


def _validate(args: argparse.Namespace, registry: Registry, config: NodeConfig, out: io.StringIO) -> int:
    raw = load_document(args.profile)
    gpus = _load_gpus(args.gpus)
    if _holds_profile(raw):
        # A whole spec: checked exactly as render checks it, Go field spellings included.
        spec = _load_spec(args.profile, config.lenient)
        profile = spec.profile
        problems = registry.engine(profile.engine).problems(spec, gpus)
    elif looks_like_node_config(raw):
        raise SpecError(
            [f"{args.profile}: a node config, not a profile or shard spec; pass it with --config"]
        )
    else:
        profile, unknown = structure(raw, Profile, path="profile", lenient=config.lenient)
        for problem in unknown:
            _error(f"{problem} (ignored: lenient mode)", kind="warning")
        problems = registry.engine(profile.engine).validate(profile, gpus)
    if problems:
        raise _Invalid(problems)
    print(f"profile {profile.name!r}: valid for engine {profile.engine!r}", file=out)
    return EXIT_OK


def _holds_profile(raw: Mapping[str, Any]) -> bool:
    return any(isinstance(key, str) and key.replace("_", "").lower() == "profile" for key in raw)


_HANDLERS: dict[str, Callable[[argparse.Namespace, Registry, NodeConfig, io.StringIO], int]] = {
    "engines": _engines,
    "render": _render,
    "env": _env,
    "validate": _validate,
}


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
