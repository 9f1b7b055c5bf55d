"""The ``enginekit`` command: the edge where config files and the environment are read."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from enginekit.config import DEFAULT_CONFIG_PATH, NodeConfig, load_config, registry_for
from enginekit.convert import load_document, structure
from enginekit.errors import EngineError, EnginekitError, EngineUnavailable, ProblemsError, SpecError
from enginekit.model import GPUInfo, Profile, ShardSpec
from enginekit.ncclenv import shard_env
from enginekit.registry import Registry

EXIT_OK, EXIT_INVALID, EXIT_UNUSABLE = 0, 1, 2


@attrs.frozen
class _GPUList:
    gpus: tuple[GPUInfo, ...]


class _Invalid(Exception):
    """Validation failed: exit 1, with every problem listed."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="enginekit",
        description="Show exactly how an inference engine shard will be started, and why.",
    )
    parser.add_argument(
        "--config",
        type=Path,
        help=f"node config (default: $ENGINEKIT_CONFIG, then {DEFAULT_CONFIG_PATH} if it exists)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    engines = sub.add_parser("engines", help="list installed engines and their status")
    engines.add_argument("--json", action="store_true", help="machine-readable output")
    render = sub.add_parser("render", help="the launch plan of a shard")
    env = sub.add_parser("env", help="the NCCL/CUDA environment of a shard alone")
    for p in (render, env):
        p.add_argument("spec", type=Path, help="shard spec with its profile (TOML or JSON)")
        p.add_argument("--explain", action="store_true", help="say why each variable is set")
        p.add_argument("--json", action="store_true", help="machine-readable output")
    render.add_argument("--gpus", type=Path, help="GPU list to validate the profile against")
    render.add_argument("--show-secrets", action="store_true", help="print the API key unmasked")
    validate = sub.add_parser("validate", help="validate a profile, all problems at once")
    validate.add_argument("profile", type=Path, help="a profile, or a shard spec holding one")
    validate.add_argument("--gpus", type=Path, help="GPU list (TOML [[gpus]] or a JSON list)")
    return parser


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 validation failed, 2 unusable input)."""
    args = _parser().parse_args(argv)
    environ = os.environ if environ is None else environ
    try:
        config = _config(args.config, environ)
        registry = registry_for(config, environ)
        for warning in registry.warnings:
            print(f"enginekit: warning: {warning}", file=sys.stderr)
        handler = {"engines": _engines, "render": _render, "env": _env, "validate": _validate}
        return handler[args.command](args, registry, config)
    except _Invalid as exc:
        _problems("invalid", exc.problems)
        return EXIT_INVALID
    except ProblemsError as exc:
        _problems("error", exc.problems)
        return EXIT_UNUSABLE
    except (EngineUnavailable, EngineError, EnginekitError) as exc:
        print(f"enginekit: error: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE


def _problems(kind: str, problems: Sequence[str]) -> None:
    if len(problems) == 1:
        print(f"enginekit: {kind}: {problems[0]}", file=sys.stderr)
        return
    print(f"enginekit: {kind}: {len(problems)} problems:", file=sys.stderr)
    for problem in problems:
        print(f"  - {problem}", file=sys.stderr)


def _config(path: Path | None, environ: Mapping[str, str]) -> NodeConfig:
    if path is not None:
        return load_config(path, required=True)
    if environ.get("ENGINEKIT_CONFIG"):
        return load_config(Path(environ["ENGINEKIT_CONFIG"]), required=True)
    return load_config(DEFAULT_CONFIG_PATH, required=False)


def _load_spec(path: Path, lenient: bool) -> ShardSpec:
    spec, unknown = structure(load_document(path), ShardSpec, path="spec", lenient=lenient)
    for problem in unknown:
        print(f"enginekit: warning: {path}: {problem} (ignored: lenient mode)", file=sys.stderr)
    return spec


def _load_gpus(path: Path | None) -> tuple[GPUInfo, ...]:
    if path is None:
        return ()
    raw: Any = load_document(path) if path.suffix != ".json" else json.loads(_read(path))
    items = raw.get("gpus") if isinstance(raw, Mapping) else raw
    if not isinstance(items, list):
        raise SpecError([f"{path}: expected a list of GPUs (TOML [[gpus]] or a JSON list)"])
    gpus, _ = structure({"gpus": items}, _GPUList, path=str(path))
    return gpus.gpus


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError([f"{path}: cannot read: {exc}"]) from None


def _engines(args: argparse.Namespace, registry: Registry, config: NodeConfig) -> int:
    rows = registry.statuses()
    if args.json:
        print(
            json.dumps(
                [{"name": r.name, "status": r.status, "source": r.source, "detail": r.detail} for r in rows],
                indent=2,
            )
        )
        return EXIT_OK
    if not rows:
        print("no engines installed (pip install enginekit-vllm, enginekit-sim, …)")
    width = max((len(r.name) for r in rows), default=0)
    for row in rows:
        detail = "; ".join(part for part in (row.source, row.detail) if part)
        print(f"{row.name:<{width}}  {row.status:<11}  {detail}".rstrip())
    return EXIT_OK


def _render(args: argparse.Namespace, registry: Registry, config: NodeConfig) -> int:
    spec = _load_spec(args.spec, config.lenient)
    gpus = _load_gpus(args.gpus)
    engine = registry.engine(spec.profile.engine)
    try:
        plan = engine.plan(spec, gpus)
    except SpecError as exc:
        raise _Invalid(exc.problems) from None
    if args.json:
        print(json.dumps(plan.to_dict(show_secrets=args.show_secrets), indent=2))
    else:
        sys.stdout.write(plan.render_text(explain=args.explain, show_secrets=args.show_secrets))
    return EXIT_OK


def _env(args: argparse.Namespace, registry: Registry, config: NodeConfig) -> int:
    spec = _load_spec(args.spec, config.lenient)
    build = shard_env(spec, registry.policy)
    if args.json:
        print(
            json.dumps(
                {
                    "env": dict(sorted(build.env.items())),
                    "why": dict(sorted(build.why.items())),
                    "dropped": [{"key": d.key, "why": d.why} for d in build.dropped],
                },
                indent=2,
            )
        )
        return EXIT_OK
    for key in sorted(build.env):
        print(f"{key}={build.env[key]}")
        if args.explain:
            print(f"  # {build.why[key]}")
    for dropped in build.dropped:
        print(f"# dropped {dropped.key}: {dropped.why}", file=sys.stderr)
    return EXIT_OK


def _validate(args: argparse.Namespace, registry: Registry, config: NodeConfig) -> int:
    raw = load_document(args.profile)
    holder = "profile" in raw and isinstance(raw["profile"], Mapping)
    if holder:
        profile = _load_spec(args.profile, config.lenient).profile
    else:
        profile, unknown = structure(raw, Profile, path="profile", lenient=config.lenient)
        for problem in unknown:
            print(f"enginekit: warning: {problem} (ignored: lenient mode)", file=sys.stderr)
    problems = registry.engine(profile.engine).validate(profile, _load_gpus(args.gpus))
    if problems:
        raise _Invalid(problems)
    print(f"profile {profile.name!r}: valid for engine {profile.engine!r}")
    return EXIT_OK


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
