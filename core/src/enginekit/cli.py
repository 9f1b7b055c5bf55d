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
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from enginekit.config import (
    DEFAULT_CONFIG_PATH,
    NodeConfig,
    holds_profile,
    load_config,
    looks_like_node_config,
    registry_for,
)
from enginekit.contract import masked
from enginekit.convert import entries_named, load_document, parse_any, read_text, structure
from enginekit.errors import EnginekitError, ProblemsError, SpecError
from enginekit.model import GPUInfo, Profile, ShardSpec
from enginekit.plan import LaunchPlan
from enginekit.registry import Registry
from enginekit.text import printable

EXIT_OK, EXIT_INVALID, EXIT_UNUSABLE = 0, 1, 2
#: A bug in enginekit itself (sysexits' EX_SOFTWARE): one line, and the traceback only
#: when ``ENGINEKIT_TRACEBACK=1`` asks for it.
EXIT_BUG = 70
#: The reader of stdout went away (``render --json | head``), as a shell reports SIGPIPE.
EXIT_CLOSED_PIPE = 141
#: Interrupted from the terminal (128 + SIGINT), as a shell reports it.
EXIT_INTERRUPTED = 130
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
    env = sub.add_parser("env", parents=[common], help="the environment the shard's engine starts with")
    env.add_argument("spec", type=Path, help="shard spec with its profile (TOML or JSON)")
    env.add_argument("--explain", action="store_true", help="say why each variable is set")
    env.add_argument(
        "--format",
        choices=ENV_FORMATS,
        default="shell",
        help="shell: export lines, quoted, safe to eval (default); dotenv: KEY=value lines; json",
    )
    env.add_argument("--json", action="store_true", help="the same as --format json")
    env.add_argument("--show-secrets", action="store_true", help="include secret variables (the API key)")
    validate = sub.add_parser("validate", parents=[common], help="validate a profile, all problems at once")
    validate.add_argument("profile", type=Path, help="a profile, or a shard spec holding one")
    validate.add_argument("--gpus", type=Path, help="GPU list (TOML [[gpus]] or a JSON list)")
    return parser


@attrs.define
class _Run:
    """One invocation: its arguments, node config, registry, output, and the secrets to mask."""

    args: argparse.Namespace
    config: NodeConfig
    registry: Registry
    out: io.StringIO = attrs.field(factory=io.StringIO)

    def load_spec(self, path: Path) -> ShardSpec:
        raw = load_document(path)
        if looks_like_node_config(raw):
            raise SpecError([f"{path}: a node config, not a shard spec; pass it with --config"])
        _SECRETS.extend(_raw_keys(raw))
        spec, unknown = structure(raw, ShardSpec, path="spec", lenient=self.config.lenient)
        for problem in unknown:
            _error(f"{path}: {problem} (ignored: lenient mode)", kind="warning")
        return spec


#: The API keys of the specs this invocation read: masked in every message it prints.
_SECRETS: list[str] = []


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 validation failed, 2 unusable input).

    Whatever plugins print while they are imported or called goes to stderr, through
    ``print`` or straight to file descriptor 1: stdout holds the command's output and
    nothing else, so ``--json`` is always JSON.
    """
    args = _parser().parse_args(argv)
    environ = os.environ if environ is None else environ
    _tolerant_streams()
    _SECRETS.clear()
    run: _Run | None = None
    code = EXIT_BUG
    try:
        with _stdout_to_stderr():
            config = _config(getattr(args, "config", None), environ)
            run = _Run(args, config, registry_for(config, environ))
            code = _HANDLERS[args.command](run)
    except _Invalid as exc:
        _problems("invalid", exc.problems)
        code = EXIT_INVALID
    except ProblemsError as exc:
        _problems("error", exc.problems)
        code = EXIT_UNUSABLE
    except EnginekitError as exc:
        _error(str(exc))
        code = EXIT_UNUSABLE
    except KeyboardInterrupt:
        _error("interrupted")
        return EXIT_INTERRUPTED
    except Exception as exc:
        if environ.get("ENGINEKIT_TRACEBACK") == "1":
            raise
        _error(
            f"internal error, a bug in enginekit ({type(exc).__name__}); ENGINEKIT_TRACEBACK=1 shows where"
        )
        code = EXIT_BUG
    if run is not None:
        for warning in run.registry.warnings:
            _error(warning, kind="warning")
    text = run.out.getvalue() if run is not None else ""
    if not getattr(args, "show_secrets", False):
        # Whatever field a key was pasted into (a profile name, an env name, a note), the
        # output shows the mask; --show-secrets is the one way to print it.
        for secret in _SECRETS:
            text = masked(text, secret)
    return _emit(text, code)


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Point stdout at stderr, for Python's ``print`` and for file descriptor 1 alike."""
    saved: int | None = None
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved is not None:
            # Flushed while fd 1 is still stderr: what a plugin wrote through the
            # interpreter's original stdout object must not surface after the output.
            with contextlib.suppress(OSError, ValueError, AttributeError):
                sys.__stdout__.flush()  # type: ignore[union-attr]
            os.dup2(saved, 1)
            os.close(saved)


def _tolerant_streams() -> None:
    # A terminal or pipe whose encoding cannot show a character (PYTHONIOENCODING=ascii
    # and a model path with an é) gets an escape, not a UnicodeEncodeError.
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(Exception):
                reconfigure(errors="backslashreplace")


def _emit(text: str, code: int) -> int:
    """Write the output; a reader that went away ends the command quietly, a full disk with one line."""
    try:
        if sys.stdout is None:
            raise OSError(errno.EBADF, "stdout is closed")
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # Nothing more can be written there; point stdout at /dev/null so the
        # interpreter's own flush at exit does not fail a second time.
        _silence_stdout()
        return EXIT_CLOSED_PIPE
    except OSError as exc:
        _silence_stdout()
        _error(f"cannot write the output: {exc.strerror or exc}")
        return EXIT_UNUSABLE
    return code


def _silence_stdout() -> None:
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _error(message: str, *, kind: str = "error") -> None:
    for secret in _SECRETS:
        message = masked(message, secret)
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(f"enginekit: {kind}: {message}", file=sys.stderr)


def _problems(kind: str, problems: Sequence[str]) -> None:
    if len(problems) == 1:
        _error(problems[0], kind=kind)
        return
    lines = [f"{len(problems)} problems:", *(f"  - {problem}" for problem in problems)]
    _error("\n".join(lines), kind=kind)


def _raw_keys(raw: Mapping[str, Any]) -> list[str]:
    """The API key of a raw spec, however it is spelled, as long as it is a string."""
    return [value for value in entries_named(raw, "api_key") if isinstance(value, str)]


def _config(path: Path | None, environ: Mapping[str, str]) -> NodeConfig:
    if path is not None:
        return load_config(path, required=True)
    if environ.get("ENGINEKIT_CONFIG"):
        return load_config(Path(environ["ENGINEKIT_CONFIG"]), required=True)
    return load_config(DEFAULT_CONFIG_PATH, required=False)


def _load_gpus(path: Path | None) -> tuple[GPUInfo, ...]:
    if path is None:
        return ()
    raw: Any = parse_any(read_text(path), name=str(path), suffix=path.suffix.lower())
    items = raw.get("gpus") if isinstance(raw, Mapping) else raw
    if not isinstance(items, list):
        raise SpecError([f"{path}: expected a list of GPUs (TOML [[gpus]] or a JSON list)"])
    gpus, _ = structure({"gpus": items}, _GPUList, path=str(path))
    indices = [gpu.index for gpu in gpus.gpus]
    if len(set(indices)) != len(indices):
        # Eight entries for GPU 0 are one GPU: counted as eight, they would pass a TP8 profile.
        raise SpecError([f"{path}: a GPU index is listed more than once"])
    return gpus.gpus


def _engines(run: _Run) -> int:
    rows = run.registry.statuses()
    if run.args.json:
        fields = [{"name": r.name, "status": r.status, "source": r.source, "detail": r.detail} for r in rows]
        print(json.dumps(fields, indent=2), file=run.out)
        return EXIT_OK
    if not rows:
        print("no engines installed (pip install enginekit-vllm, enginekit-sim, …)", file=run.out)
    width = max((len(printable(r.name, 64)) for r in rows), default=0)
    for row in rows:
        detail = printable("; ".join(part for part in (row.source, row.detail) if part))
        print(f"{printable(row.name, 64):<{width}}  {row.status:<11}  {detail}".rstrip(), file=run.out)
    return EXIT_OK


def _plan(run: _Run, spec_path: Path, gpus_path: Path | None) -> LaunchPlan:
    spec = run.load_spec(spec_path)
    gpus = _load_gpus(gpus_path)
    engine = run.registry.engine(spec.profile.engine)
    try:
        return engine.plan(spec, gpus)
    except SpecError as exc:
        raise _Invalid(exc.problems) from None


def _render(run: _Run) -> int:
    args = run.args
    plan = _plan(run, args.spec, args.gpus)
    if args.json:
        print(json.dumps(plan.to_dict(show_secrets=args.show_secrets), indent=2), file=run.out)
    else:
        run.out.write(plan.render_text(explain=args.explain, show_secrets=args.show_secrets))
    return EXIT_OK


def _env(run: _Run) -> int:
    # The environment the shard's engine itself starts with: the same plan, checks and
    # exit codes as render (an unknown engine is unusable input, a refused variable an
    # invalid profile), the engine's own variables included and the profile's overrides
    # judged exactly as there.
    args = run.args
    plan = _plan(run, args.spec, None)
    last = plan.commands[-1]
    shown = {k: v for k, v in last.env.items() if args.show_secrets or k not in last.secret_env}
    if not args.show_secrets and plan.shard.api_key:
        shown = {k: masked(v, plan.shard.api_key) for k, v in shown.items()}
    view = _EnvView(
        env=dict(sorted(shown.items())),
        why={k: last.why.get(k, "") for k in sorted(shown)},
        omitted=sorted(set(last.env) - set(shown)),
        notes=list(plan.notes),
        dropped=[{"key": d.key, "why": d.why} for d in plan.dropped_env],
    )
    run.out.write(_ENV_WRITERS["json" if args.json else args.format](view, args.explain))
    for dropped in plan.dropped_env:
        _error(f"profile env {dropped.key} dropped: {dropped.why}", kind="warning")
    return EXIT_OK


@attrs.frozen
class _EnvView:
    env: dict[str, str]
    why: dict[str, str]
    omitted: list[str]
    notes: list[str]
    dropped: list[dict[str, str]]


def _env_shell(view: _EnvView, explain: bool) -> str:
    # Every value is quoted exactly as render quotes argv, so `eval "$(enginekit env …)"`
    # sets variables and never runs what a profile value holds.
    return _env_lines(view, explain, lambda key, value: f"export {key}={shlex.quote(value)}")


def _env_dotenv(view: _EnvView, explain: bool) -> str:
    # KEY=value as docker's --env-file reads it: no quoting, which is safe only because a
    # value can hold no newline (the env policy and the plugin contract refuse them).
    return _env_lines(view, explain, lambda key, value: f"{key}={value}")


def _env_lines(view: _EnvView, explain: bool, line: Callable[[str, str], str]) -> str:
    lines = _env_comments(view)
    for key, value in view.env.items():
        if explain:
            lines.append(f"# {_one_line(view.why[key])}")
        lines.append(line(key, value))
    return "".join(f"{text}\n" for text in lines)


def _env_comments(view: _EnvView) -> list[str]:
    lines = [f"# note: {_one_line(note)}" for note in view.notes]
    lines += [f"# {key}: a secret, left out (--show-secrets includes it)" for key in view.omitted]
    return lines


def _env_json(view: _EnvView, explain: bool) -> str:
    return json.dumps(attrs.asdict(view), indent=2) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


_ENV_WRITERS: dict[str, Callable[[_EnvView, bool], str]] = {
    "shell": _env_shell,
    "dotenv": _env_dotenv,
    "json": _env_json,
}


def _validate(run: _Run) -> int:
    args = run.args
    raw = load_document(args.profile)
    gpus = _load_gpus(args.gpus)
    if holds_profile(raw):
        # A whole spec: checked exactly as render checks it, Go field spellings included.
        spec = run.load_spec(args.profile)
        profile = spec.profile
        try:
            run.registry.engine(profile.engine).plan(spec, gpus)
            problems: list[str] = []
        except SpecError as exc:
            problems = list(exc.problems)
    elif looks_like_node_config(raw):
        raise SpecError([f"{args.profile}: a node config, not a profile or spec; pass it with --config"])
    else:
        profile, unknown = structure(raw, Profile, path="profile", lenient=run.config.lenient)
        for problem in unknown:
            _error(f"{problem} (ignored: lenient mode)", kind="warning")
        problems = run.registry.engine(profile.engine).validate(profile, gpus)
    if problems:
        raise _Invalid(problems)
    print(f"profile {profile.name!r}: valid for engine {profile.engine!r}", file=run.out)
    return EXIT_OK


_HANDLERS: dict[str, Callable[[_Run], int]] = {
    "engines": _engines,
    "render": _render,
    "env": _env,
    "validate": _validate,
}


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
