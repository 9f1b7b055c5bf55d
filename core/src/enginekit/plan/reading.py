"""Reading a launch plan back from its JSON form: every field checked, the derived ones recomputed."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping

import attrs

from enginekit.base.errors import SpecError
from enginekit.base.secrets import MASK, argv_leaks, leaks, masked
from enginekit.base.text import is_portable_name, is_url_path
from enginekit.layout.model import KVEventSource, endpoint_problem
from enginekit.placement.env import DroppedVar
from enginekit.plan.format import P, _derived
from enginekit.plan.formats import newer_minor
from enginekit.plan.leader import LEADER_EXIT_CHOICES, MUST_BE_STOPPED, leader_watch_problem
from enginekit.spec.convert import entries_named, folded_names, structure
from enginekit.spec.model import KV_EVENTS_BIND, Command, ShardSpec, _dict
from enginekit.spec.rules import key_problems


@attrs.frozen(kw_only=True)
class _CommandDoc:
    path: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = attrs.field(factory=dict, converter=_dict)
    name: str = ""
    wait_for_leader_port: bool = False
    secret_env: tuple[str, ...] = ()
    why: Mapping[str, str] = attrs.field(factory=dict, converter=_dict)
    shell: str | None = None


@attrs.frozen(kw_only=True)
class _DroppedDoc:
    key: str
    why: str


@attrs.frozen(kw_only=True)
class _KVEventDoc:
    rank: int
    endpoint: str
    replay: str = ""


@attrs.frozen(kw_only=True)
class _PlanDoc:
    format_version: str
    engine: str
    shard: ShardSpec
    commands: tuple[_CommandDoc, ...]
    serves_http: bool
    health_path: str
    metrics_path: str
    notes: tuple[str, ...] = ()
    dropped_env: tuple[_DroppedDoc, ...] = ()
    on_leader_exit: str | None = None
    leader_watch_port: int | None = None
    kv_events: tuple[_KVEventDoc, ...] = ()
    replica_id: str | None = None
    shard_id: str | None = None
    profile: str | None = None
    rank: int | None = None
    nnodes: int | None = None
    base_url: str | None = None
    health_url: str | None = None
    metrics_url: str | None = None


def read_plan(raw: object, make: Callable[..., P]) -> P:
    """The plan ``raw`` holds, as :func:`plan_dict` wrote it with ``show_secrets``, made by ``make``.

    The shape, types and text of every field are checked as strictly as a spec's, and
    the derived fields against what they derive from; the engine's rules are not run
    again (a reader that does not trust the writer plans the shard from its spec).

    :raises SpecError: listing every problem, each naming its field (``plan.commands[0].env``).
    """
    if not isinstance(raw, Mapping):
        raise SpecError([f"plan: expected a table of fields, got {type(raw).__name__}"])
    versions = entries_named(raw, "format_version")
    newer = newer_minor(versions[0] if versions else None, "plan.format_version")
    doc, _ = structure(raw, _PlanDoc, path="plan", lenient=newer)
    problems = _masked_secrets(doc)
    if doc.shard.api_key != MASK:
        # The key rules, as when the shard was planned: a short key is a guessable one, and
        # one under the masking's length would pass the checks below unseen.
        problems += [f"plan.shard.{problem}" for problem in key_problems(doc.shard.api_key)]
    if not doc.commands:
        problems.append("plan.commands: expected at least one command (the main process)")
    for field in ("health_path", "metrics_path"):
        if not is_url_path(getattr(doc, field)):
            problems.append(f"plan.{field}: expected a URL path starting with '/', without spaces")
    commands = []
    for i, item in enumerate(doc.commands):
        if not item.path:
            problems.append(f"plan.commands[{i}].path: expected the program to exec, got ''")
        names = [name for name in item.env if not is_portable_name(name)]
        if names:
            # ``CUDA_VISIBLE_DEVICES=7`` as a name is a second entry for the real variable.
            shown = ", ".join(repr(name)[:40] for name in names)
            problems.append(f"plan.commands[{i}].env: names that are not portable variable names: {shown}")
        stray = sorted(set(item.secret_env) - set(item.env))
        if stray:
            problems.append(
                f"plan.commands[{i}].secret_env: names {', '.join(stray)}, which env does not set"
            )
        command = Command(
            path=item.path,
            args=item.args,
            env=item.env,
            name=item.name,
            wait_for_leader_port=item.wait_for_leader_port,
            secret_env=frozenset(item.secret_env),
            why=item.why,
        )
        if item.shell is not None and item.shell != shlex.join(command.argv()):
            problems.append(f"plan.commands[{i}].shell: does not match path and args")
        problems += _key_problems(i, command, doc.shard.api_key)
        commands.append(command)
    plan = make(
        engine=doc.engine,
        shard=doc.shard,
        commands=tuple(commands),
        serves_http=doc.serves_http,
        health_path=doc.health_path,
        metrics_path=doc.metrics_path,
        notes=doc.notes,
        dropped_env=tuple(DroppedVar(d.key, d.why) for d in doc.dropped_env),
        **_leader_watch(doc, problems),
        kv_events=_kv_events(doc, problems),
    )
    if doc.engine != doc.shard.profile.engine:
        problems.append(
            f"plan.engine: {doc.engine!r}, but the shard's profile names {doc.shard.profile.engine!r}"
        )
    present = folded_names(raw)
    for field, expected in _derived(plan).items():
        # Absent is fine (a reader computes it); present, even as null, must be right.
        given = getattr(doc, field)
        if field.replace("_", "") in present and given != expected:
            problems.append(f"plan.{field}: {given!r} does not match the shard (expected {expected!r})")
    if problems:
        key = doc.shard.api_key
        raise SpecError([masked(problem, key) for problem in problems] if key != MASK else problems)
    return plan


def _leader_exit(doc: _PlanDoc, problems: list[str]) -> str:
    """The plan's ``on_leader_exit``; a worker's plan from before the field says what is safe."""

    leader = doc.shard.is_leader()
    if doc.on_leader_exit is None:
        return "" if leader else MUST_BE_STOPPED
    if leader and doc.on_leader_exit != "":
        shown = repr(doc.on_leader_exit)[:40]
        problems.append(f"plan.on_leader_exit: {shown}, but the shard is the leader (expected '')")
        return ""
    if not leader and doc.on_leader_exit not in LEADER_EXIT_CHOICES:
        expected = " or ".join(repr(choice) for choice in LEADER_EXIT_CHOICES)
        shown = repr(doc.on_leader_exit)[:40]
        problems.append(f"plan.on_leader_exit: {shown} for a worker rank, expected {expected}")
        return MUST_BE_STOPPED
    return doc.on_leader_exit


def _leader_watch(doc: _PlanDoc, problems: list[str]) -> dict[str, object]:
    """The plan's ``on_leader_exit`` and ``leader_watch_port`` (absent: the default, ``leader_port``)."""
    on_exit = _leader_exit(doc, problems)
    if doc.leader_watch_port is None:
        return {"on_leader_exit": on_exit}  # the plan's default: leader_port, where one is watched
    problem = leader_watch_problem(on_exit, doc.leader_watch_port)
    if problem:
        problems.append(f"plan.{problem}")
        return {"on_leader_exit": on_exit}
    return {"on_leader_exit": on_exit, "leader_watch_port": doc.leader_watch_port}


def _kv_events(doc: _PlanDoc, problems: list[str]) -> tuple[KVEventSource, ...]:
    """The plan's KV-event sources: each a ``tcp://HOST:PORT``, each rank the shard's, once, in order.

    A consumer reads them in rank order (vllm-router's ``URL=ENDPOINT,ENDPOINT`` is one
    endpoint per data-parallel rank), so a rank given twice would be a rank the shard does
    not have. Only a shard whose publishers bind has any (docs/plan-format.md).
    """
    sources = tuple(KVEventSource(rank=e.rank, endpoint=e.endpoint, replay=e.replay) for e in doc.kv_events)
    if not sources:
        return sources
    shard, profile = doc.shard, doc.shard.profile
    binds = profile.kv_events and shard.kv_events_port and shard.kv_events_mode == KV_EVENTS_BIND
    if not binds:
        why = (
            "the profile publishes no kv_events"
            if not profile.kv_events
            else "the shard has no kv_events_port"
            if not shard.kv_events_port
            else f"the shard's kv_events_mode is {shard.kv_events_mode[:40]!r}, not 'bind'"
        )
        problems.append(f"plan.kv_events: {len(sources)} source(s), but {why}: a consumer subscribes to none")
        return sources
    # One entry past the ranks is already a rank twice or one the shard lacks: the rest of a
    # longer list is said once, not echoed a line per entry.
    checked = profile.data_parallel + 1
    if len(sources) > checked:
        problems.append(
            f"plan.kv_events: {len(sources)} sources, but the shard's profile has "
            f"{profile.data_parallel} data-parallel rank(s): at most one source each (the first "
            f"{checked} checked)"
        )
    last = -1
    for i, item in enumerate(sources[:checked]):
        where = f"plan.kv_events[{i}]"
        problems += [
            f"{where}.{field}: {problem}"
            for field, text in (("endpoint", item.endpoint), ("replay", item.replay))
            if (field == "endpoint" or text) and (problem := endpoint_problem(text))
        ]
        if not 0 <= item.rank < profile.data_parallel:
            problems.append(
                f"{where}.rank: {item.rank}, but the shard's profile has data-parallel ranks "
                f"0-{profile.data_parallel - 1}"
            )
        elif item.rank <= last:
            problems.append(f"{where}.rank: {item.rank} after rank {last}: each rank once, in rank order")
        last = max(last, item.rank)
    return sources


def _key_problems(index: int, command: Command, key: str) -> list[str]:
    """Where a command read back carries the key as no plan enginekit writes does.

    Every rule that keeps a plan's own key off a command line and out of plain variables
    is the core's, whatever the engine: a plan that breaks one was not written by it, or
    was changed since, and a supervisor starting it would publish the key.
    """
    if not key or key == MASK:
        return []
    where = f"plan.commands[{index}]"
    problems = []
    if argv_leaks(command.argv(), key):
        problems.append(f"{where}: its path or args hold the API key, which any local user could read")
    plain = sorted(
        name for name, value in command.env.items() if name not in command.secret_env and leaks(value, key)
    )
    if plain:
        problems.append(f"{where}.env: {', '.join(plain)} holds the API key without being in secret_env")
    return problems


def _masked_secrets(doc: _PlanDoc) -> list[str]:
    hint = "a plan read back must be written with show_secrets=True"
    problems = []
    if doc.shard.api_key == MASK:
        problems.append(f"plan.shard.api_key: holds the mask {MASK!r}, not a key: {hint}")
    for i, command in enumerate(doc.commands):
        for key in sorted(command.secret_env):
            if command.env.get(key) == MASK:
                problems.append(f"plan.commands[{i}].env.{key}: holds the mask {MASK!r}: {hint}")
    return problems
