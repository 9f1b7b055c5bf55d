"""``enginekit validate PROFILE|SPEC``: every problem with a profile, and its spec when given one."""

from __future__ import annotations

from enginekit.base.errors import SpecError
from enginekit.base.exits import EXIT_OK
from enginekit.cli.context import Invalid, Run
from enginekit.cli.inputs import load_gpus
from enginekit.spec.convert import structure
from enginekit.spec.documents import holds_profile, looks_like_node_config
from enginekit.spec.model import Profile


def validate(run: Run) -> int:
    """Exit 0 and say so when valid; exit 1 with every problem listed when not."""
    args = run.args
    raw, name = run.document(args.profile)
    gpus = load_gpus(args.gpus)
    if holds_profile(raw):
        # A whole spec: checked exactly as render checks it, Go field spellings included.
        spec = run.spec_from(raw, name)
        profile = spec.profile
        try:
            run.registry.engine(profile.engine).plan(spec, gpus)
            problems: list[str] = []
        except SpecError as exc:
            problems = list(exc.problems)
    elif looks_like_node_config(raw):
        raise SpecError([f"{name}: a node config, not a profile or spec; pass it with --config"])
    else:
        profile, unknown = structure(raw, Profile, path="profile", lenient=run.config.lenient)
        for problem in unknown:
            run.error(f"{problem} (ignored: lenient mode)", kind="warning")
        problems = run.registry.engine(profile.engine).validate(profile, gpus)
    if problems:
        raise Invalid(problems)
    print(f"profile {profile.name!r}: valid for engine {profile.engine!r}", file=run.out)
    return EXIT_OK
