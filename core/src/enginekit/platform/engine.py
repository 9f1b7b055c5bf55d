"""``Engine``: one engine chosen by name, the single typed boundary over its hooks."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from enginekit.base.errors import EngineError, EnginekitError, SpecError
from enginekit.base.logs import logger
from enginekit.base.secrets import argv_leaks, leaks, masked, masked_error
from enginekit.placement.env import DroppedVar, EnvBuild, apply_profile_env, placement_env
from enginekit.plan.launch import LaunchPlan
from enginekit.plan.leader import LEADER_EXIT_CHOICES, MUST_BE_STOPPED
from enginekit.platform import hookspecs
from enginekit.platform.contract import Answers
from enginekit.platform.inputs import Inputs
from enginekit.policy.args import ParsedArgs
from enginekit.policy.checks import arg_policy_problems, bounds_problems, validate_common
from enginekit.policy.engine import EnginePolicy
from enginekit.policy.env import CREDENTIALS, DEFAULT_POLICY, RESERVED, EnvPolicy, floor_group
from enginekit.spec.model import AGGREGATED, Adapter, Command, GPUInfo, Profile, ShardSpec
from enginekit.spec.rules import check_spec, listens_everywhere, same_ip

if TYPE_CHECKING:
    from enginekit.layout.model import KVEventSource, LayoutRules, ProcessLayout

#: The hook caller that reaches this engine (and wrappers) only, by hook name.
HookLookup = Callable[[str], Callable[..., Any]]


class Engine:
    """One engine's handle: its hook callers, its policy and its installed build, checked at every call.

    Obtain one from :meth:`Registry.engine`. Calls reach only this engine's hook
    implementations, plus registered wrappers. Every method checks that the profile
    names this engine, so a second engine can never answer for the first, and checks
    every answer, so a broken plugin is one :class:`EngineError` naming it and the hook.
    """

    def __init__(
        self,
        name: str,
        plugin: object,
        hooks: HookLookup,
        *,
        source: str = "added in process",
        site_policy: EnvPolicy | Callable[[], EnvPolicy] = DEFAULT_POLICY,
        installed: Path | None = None,
    ) -> None:
        self.name = name
        #: The plugin object, for introspection (its config); call hooks through the
        #: Engine, which checks what goes in and what comes out.
        self.plugin = plugin
        self.source = source
        #: The build the agent installed for this engine, if any.
        self.installed = installed
        #: The site's policy, or where to read it at every call (the registry's, which a
        #: reloaded node config replaces: a handle already handed out judges by it too).
        self._site_policy = site_policy
        self._hooks = hooks
        self._answers = Answers(name, source)
        self._constants: dict[str, Any] = {}
        self._validated: dict[object, tuple[EnvPolicy, object, tuple[str, ...]]] = {}
        self._policy: EnginePolicy | None = None
        #: Whether the plugin answers the ``policy`` hook; the first release's had none.
        self._declares_policy = True
        self._env_policy: tuple[EnvPolicy, EnvPolicy] | None = None

    def __repr__(self) -> str:
        return f"Engine({self.name!r})"

    def _call(self, hook_name: str, **kwargs: Any) -> Any:
        shard = kwargs.get("shard")
        secret = shard.api_key if isinstance(shard, ShardSpec) else ""
        if _PLAN_HOLDS_INPUTS.get():
            # plan() recorded the shard once, and checks it once, after every hook ran.
            return self._answers.call(hook_name, self._hooks(hook_name), secret, **kwargs)
        # The parsed args are the core's own reading, memoised as checks read them.
        held = Inputs(value for key, value in kwargs.items() if key != "args")
        try:
            return self._answers.call(hook_name, self._hooks(hook_name), secret, **kwargs)
        finally:
            self._undo_changes(hook_name, held)

    def _undo_changes(self, hook_name: str, held: Inputs) -> None:
        """Put back what the hook changed of its input, and say it broke its contract."""
        changed = held.changed()
        if changed is not None:
            held.restore()
            raise self._answers.broken(
                hook_name,
                f"{CHANGED_INPUT} ({changed}); hooks must leave their inputs alone "
                f"(the caller's spec was put back as it was)",
            )

    @property
    def policy(self) -> EnginePolicy:
        """What this engine declares about the variables and flags it owns (its ``policy`` hook)."""
        if self._policy is None:
            answer = self._constant("policy")
            self._declares_policy = answer is not None
            self._policy = self._answers.policy("policy", answer)
        return self._policy

    @property
    def layout_rules(self) -> LayoutRules:
        """What this engine's layouts look like (its ``layout_rules`` hook); by default TP and PP only."""
        key = "checked layout_rules"
        if key not in self._constants:
            self._constants[key] = self._answers.layout_rules("layout_rules", self._constant("layout_rules"))
        return self._constants[key]  # type: ignore[no-any-return]

    def layout(self, shard: ShardSpec) -> ProcessLayout:
        """The process ``shard`` is in its replica's layout: its ranks, GPUs, ports and dials.

        :raises SpecError: the replica's shape cannot be laid out for this engine.
        """
        from enginekit.layout.compute import shard_layout

        self._check(shard.profile)
        return shard_layout(shard, self.layout_rules)

    def kv_event_sources(self, shard: ShardSpec) -> tuple[KVEventSource, ...]:
        """Where consumers connect to ``shard``'s KV-cache events under this engine's layout rules.

        Empty unless the profile publishes, the shard has a ``kv_events_port`` and its
        publishers bind. See :func:`enginekit.layout.compute.kv_event_sources`.
        """
        if not (shard.profile.kv_events and shard.kv_events_port):
            return ()  # the common case imports nothing
        from enginekit.layout.compute import kv_event_sources

        return kv_event_sources(shard, self.layout_rules)

    @property
    def site_policy(self) -> EnvPolicy:
        """The site's env policy in force."""
        site = self._site_policy
        return site if isinstance(site, EnvPolicy) else site()

    @property
    def env_policy(self) -> EnvPolicy:
        """The site's env policy with this engine's own rules: what its profiles may set."""
        site = self.site_policy
        if self._env_policy is None or self._env_policy[0] is not site:
            self._env_policy = (site, site.for_engine(self.policy))
        return self._env_policy[1]

    def _check(self, profile: Profile) -> None:
        if profile.engine != self.name:
            raise SpecError(
                [f"profile {profile.name!r}: engine is {profile.engine!r}, but it was given to {self.name!r}"]
            )

    def validate(self, profile: Profile, gpus: Sequence[GPUInfo] = ()) -> list[str]:
        """Every problem with ``profile`` on ``gpus``: the shared checks, then the engine's own.

        A profile whose numbers or sizes are out of their domain is not given to the
        engine's checks at all: they mean nothing there, and may cost in proportion.
        """
        self._check(profile)
        env_policy = self.env_policy
        # The shards of a replica, and the replicas of a fleet, share a few profiles: judged
        # once each, by value (types included, so 1 and True differ), under the policy in
        # force. Only while the engine's own validate is all that answers: a wrapper sees
        # every call.
        hook = self._hooks("validate")
        key = _value_key(profile, gpus) if getattr(hook, "alone", False) else None
        kept = self._validated.get(key) if key is not None else None
        # The same policy in force and the same implementation answering: a plugin
        # replaced under this name since is judged afresh.
        if kept is not None and kept[0] is env_policy and kept[1] is hook:
            return list(kept[2])
        problems = self._validate(profile, gpus, env_policy)
        if key is not None:
            if len(self._validated) >= _VALIDATED_LIMIT:
                self._validated.clear()
            self._validated[key] = (env_policy, hook, tuple(problems))
        return problems

    def _validate(self, profile: Profile, gpus: Sequence[GPUInfo], env_policy: EnvPolicy) -> list[str]:
        out_of_bounds = bounds_problems(profile)
        policy = self.policy
        problems = validate_common(profile, gpus, env_policy)
        if out_of_bounds:
            return list(dict.fromkeys([*out_of_bounds, *problems]))
        # Read once, here, with the engine's syntax: every check below looks options up.
        # An engine may read them its own way (a subclass of ArgSyntax): what that raises
        # is the plugin's bug, reported as such.
        args = self._answers.call("policy", policy.syntax.parse, args=profile.args)
        if not (
            isinstance(args, ParsedArgs)
            and type(args.tokens) is tuple
            and len(args.tokens) == len(profile.args)
            and args.syntax is policy.syntax
            and isinstance(args.uses, Mapping)
        ):
            raise self._answers.broken("policy", "returned a syntax whose parse() does not read the args")
        # The policy's arity is the plugin's code too: what it raises or answers wrongly is its bug.
        flags = self._answers.call(
            "policy", arg_policy_problems, profile=profile, args=args, policy=policy, engine=self.name
        )
        problems += self._answers.sentences("policy", flags)
        answer = self._answers.sentences(
            "validate", self._call("validate", profile=profile, gpus=tuple(gpus), args=args)
        )
        return list(dict.fromkeys([*problems, *answer]))

    def problems(self, shard: ShardSpec, gpus: Sequence[GPUInfo] = ()) -> list[str]:
        """Every problem with ``shard`` and its profile: what :meth:`plan` refuses, all at once."""
        self._check(shard.profile)
        try:
            problems = self.validate(shard.profile, gpus) + check_spec(shard)
            if not problems and shard.role != AGGREGATED and self.layout_rules.kv_transfer is None:
                # An engine that says nothing of a KV transfer would start an aggregated
                # server that no decode instance can read from: refused, not ignored.
                engine = self.layout_rules.named or f"engine {self.name!r}"
                problems = [
                    f"role: {shard.role!r}: {engine} serves no disaggregated role in enginekit "
                    f"(its plugin declares no KV transfer, LayoutRules.kv_transfer): run it aggregated"
                ]
            if not problems and _lays_out(shard):
                problems = self._layout_problems(shard)
        except EnginekitError as exc:
            # What the engine's reading or checks raise may quote the args, which may hold it.
            raise masked_error(exc, shard.api_key) from None
        # A key pasted into another field (a path, a name) is still the key: never echoed.
        return [masked(problem, shard.api_key) for problem in problems]

    def _layout_problems(self, shard: ShardSpec) -> list[str]:
        from enginekit.layout.compute import HTTP

        try:
            process = self.layout(shard)
        except SpecError as exc:
            return list(exc.problems)
        if self._hidden_from_watchers(shard):
            return [
                f"bind_addr: {shard.bind_addr!r}, but the replica's other processes watch this leader's API "
                f"server at {_watched_addr(shard)} (leader_addr, or loopback on one node; a {self.name} "
                f"leader closes leader_port once every rank has joined): bind it there or on every "
                f"address (''), or give that address as leader_addr"
            ]
        if self._watched_at_http(shard) and process.dialed(HTTP) is None:
            return [
                f"leader_http_port: required for a worker rank of a data-parallel {self.name} replica "
                f"(a {self.name} leader closes leader_port once every rank has joined, so the "
                f"supervisor watches the leader's API server, the first node's HTTP port, instead); "
                f"enginekit layout --shards and the exports write it"
            ]
        return []

    def _hidden_from_watchers(self, shard: ShardSpec) -> bool:
        """Whether ``shard`` leads workers that watch its API server at an address it does not bind."""
        profile = shard.profile
        return (
            shard.is_leader()
            and profile.data_parallel > 1
            and (shard.nnodes > 1 or profile.dp_balancing == "external")
            and self.layout_rules.coordination_closes
            and not listens_everywhere(shard.bind_addr)
            # Only two IP literals are known to differ: a name may be the bound address.
            and same_ip(shard.bind_addr, _watched_addr(shard)) is False
        )

    def _watched_at_http(self, shard: ShardSpec) -> bool:
        """Whether a supervisor watches this worker's leader at its API server, not at ``leader_port``."""
        return (
            shard.profile.data_parallel > 1
            and self.layout_rules.coordination_closes
            and self.on_leader_exit(shard) == MUST_BE_STOPPED
        )

    def leader_watch_port(self, shard: ShardSpec) -> int:
        """The port at ``shard.leader_addr`` whose closing says the leader is gone; 0 when none is watched.

        ``leader_port``, unless the engine closes that once its group has formed
        (:attr:`LayoutRules.coordination_closes`): then the leader's API server's, which the
        layout has every other process dial.
        """
        if self.on_leader_exit(shard) != MUST_BE_STOPPED:
            return 0  # the leader itself, or a rank that stops by itself
        if self._watched_at_http(shard):  # data parallel: laid out
            problems = self.problems(shard)
            if problems:
                raise SpecError(problems)  # nothing to watch, or not where it is watched
            from enginekit.layout.compute import HTTP

            dial = self.layout(shard).dialed(HTTP)
            if dial is not None:  # problems() said it is
                return dial.port
        return shard.leader_port

    def commands(self, shard: ShardSpec, gpus: Sequence[GPUInfo] = ()) -> list[Command]:
        """The processes of ``shard`` in start order, with profile overrides applied.

        Runs exactly the checks :meth:`plan` runs; there is no way to build a command
        from a profile or spec that :meth:`plan` would refuse.

        :raises SpecError: when the profile or the shard spec has problems, all listed.
        """
        problems = self.problems(shard, gpus)
        if problems:
            raise SpecError(problems)
        commands, dropped = self._build(shard)
        for var in dropped:
            message = f"profile {shard.profile.name!r}: env {var.key} dropped: {var.why}"
            logger().warning("%s", masked(message, shard.api_key))
        return commands

    def _build(self, shard: ShardSpec) -> tuple[list[Command], tuple[DroppedVar, ...]]:
        # Only ever called after every check passed: see commands() and plan().
        answer = self._call("commands", shard=shard, installed=self.installed)
        built: list[Command] = []
        dropped: dict[str, DroppedVar] = {}
        placed = placement_env(shard).env
        declared = self.policy.secret_env
        for index, command in enumerate(self._answers.commands("commands", answer)):
            try:
                self._check_command(index, command, placed, declared, shard.api_key)
            except EngineError as exc:
                raise masked_error(exc, shard.api_key) from None
            env = apply_profile_env(EnvBuild(command.env, command.why), shard, self.env_policy)
            dropped.update((var.key, var) for var in env.dropped)
            built.append(_with_env(command, env, self.name))
        argv = [arg for command in built for arg in command.argv()]
        if shard.api_key and argv_leaks(argv, shard.api_key):
            # Any local user can read /proc/PID/cmdline: a key there is a key published.
            raise _key_on_command_line(self.name, shard)
        return built, tuple(dropped.values())

    def _check_command(
        self,
        index: int,
        command: Command,
        placed: dict[str, str] | Any,
        declared: frozenset[str],
        api_key: str,
    ) -> None:
        """A command keeps the shard's placement variables as generated, declares and marks its secrets."""
        where = f"command {index} ({command.name or command.path})"
        for key, value in placed.items():
            if command.env.get(key) != value:
                # Without it the engine takes GPUs or NICs another shard holds: refuse, loudly.
                what = "with a changed value of" if key in command.env else "without"
                raise self._answers.broken(
                    "commands",
                    f"returned {where} {what} the shard's placement variable {key}; build "
                    f"commands with enginekit.plugin.CommandBuilder, which keeps them as generated",
                )
        claimed = sorted(key for key in command.env if key.upper() in RESERVED and key not in placed)
        if claimed:
            # ROCR_VISIBLE_DEVICES next to the shard's CUDA_VISIBLE_DEVICES picks other GPUs.
            raise self._answers.broken(
                "commands",
                f"returned {where} setting {claimed[0]}, which only the shard's placement sets",
            )
        self._hold_the_floor("commands", where, command, placed)
        undeclared = sorted(key for key in command.secret_env if key.upper() not in declared)
        if undeclared and not self._declares_policy:
            # The first release had no policy hook: its plugins named their secrets only
            # here. Kept through 1.x, loudly; the generated value still wins over a profile's.
            from enginekit.base.deprecation import deprecated

            deprecated(
                f"engine {self.name!r}: secret variables {undeclared} named only in a command's secret_env",
                "declare them in the policy() hook's EnginePolicy(secret_env=...)",
                stacklevel=2,
            )
        elif undeclared:
            raise self._answers.broken(
                "commands",
                f"returned {where} with secret variables {undeclared} its policy() does not declare "
                f"in secret_env, so profiles are not kept from setting them",
            )
        unmarked = sorted(
            k for k, v in command.env.items() if k not in command.secret_env and leaks(v, api_key)
        )
        if unmarked:
            # Shown by `enginekit env`, logged and exported as an ordinary variable: a leak,
            # the plugin's, as a key on its command line is.
            raise self._answers.broken(
                "commands",
                f"returned {where} with the API key in {', '.join(unmarked)}, which it does not mark "
                f"secret: name the variable in the command's secret_env (and the policy's)",
            )

    def _hold_the_floor(self, hook: str, where: str, command: Command, placed: Mapping[str, str]) -> None:
        """Refuse a floor variable (the loader's, a shell's…) in ``command``, unless declared.

        The floor holds for what a plugin generates as for what a profile asks: LD_PRELOAD
        from a plugin loads code into a root process all the same. The one way through is
        the policy's ``unsafe_env``; an engine's key variable, marked secret, may be a
        credential name, and only that: marking LD_PRELOAD secret would hide it, not allow it.
        """
        unsafe = self.policy.unsafe_env
        secret = {name.upper() for name in command.secret_env} | self.policy.secret_env
        for name in command.env:
            upper = name.upper()
            if name in placed or upper in unsafe:
                continue
            group = floor_group(name)
            if group is None or (group is CREDENTIALS and upper in secret):
                continue
            raise self._answers.broken(
                hook,
                f"returned {where} setting {name}, which the core refuses ({group.why}); an engine "
                f"that must set it names it in its policy's unsafe_env, with the reason",
            )

    def serves_http(self, shard: ShardSpec) -> bool:
        """Whether this rank answers the OpenAI API (default: the leader, or its layout's API servers)."""
        self._check(shard.profile)
        answer = self._answers.flag("serves_http", self._call("serves_http", shard=shard))
        if answer is not None:
            return answer
        if _lays_out(shard):
            from enginekit.layout.model import API_SERVER

            return self.layout(shard).role == API_SERVER
        return shard.is_leader()

    def _constant(self, hook_name: str) -> Any:
        # Hooks without arguments are pure functions of a frozen config: ask once. What a
        # hook raises is not remembered: it is asked again, and fails again, next time.
        if hook_name not in self._constants:
            self._constants[hook_name] = self._answers.call(hook_name, self._hooks(hook_name))
        return self._constants[hook_name]

    def health_path(self) -> str:
        """The path that answers 200 only when the shard is ready."""
        return self._path("health_path", hookspecs.DEFAULT_HEALTH_PATH)

    def metrics_path(self) -> str:
        """The path that serves Prometheus text."""
        return self._path("metrics_path", hookspecs.DEFAULT_METRICS_PATH)

    def _path(self, hook_name: str, default: str) -> str:
        key = "checked " + hook_name
        if key not in self._constants:
            self._constants[key] = self._answers.url_path(hook_name, self._constant(hook_name), default)
        return self._constants[key]  # type: ignore[no-any-return]

    def notes(self, shard: ShardSpec) -> list[str]:
        """What an operator should know about how this shard will run."""
        return self._answers.sentences("notes", self._call("notes", shard=shard))

    def on_leader_exit(self, shard: ShardSpec) -> str:
        """What a supervisor must do with ``shard`` when its leader goes; "" for the leader itself."""
        if shard.is_leader():
            return ""
        answer = self._call("leader_exit", shard=shard)
        return self._answers.choice("leader_exit", answer, LEADER_EXIT_CHOICES, MUST_BE_STOPPED)

    def example_shard(self) -> ShardSpec | None:
        """The shard this engine gives ``enginekit engines --check`` to plan; ``None``: the canonical one."""
        return self._answers.example("example_shard", self._call("example_shard"))

    def device_listing(self, shard: ShardSpec | None = None) -> Command | None:
        """The command that lists the GPUs the engine's build sees, for engines that can fall back to CPU.

        Given the shard, the command carries the shard's placement variables, so it sees
        exactly the devices the shard's engine will; ``None`` when the engine never falls back.
        """
        if shard is not None:
            problems = self.problems(shard)
            if problems:
                raise SpecError(problems)
        answer = self._call("device_listing", shard=shard, installed=self.installed)
        listing = self._answers.optional_command("device_listing", answer)
        if listing is not None:
            self._hold_the_floor("device_listing", "a listing", listing, {})
        if listing is None or shard is None:
            return listing
        if shard.api_key and argv_leaks(listing.argv(), shard.api_key):
            raise _key_on_command_line(self.name, shard)
        placed = placement_env(shard)
        return attrs.evolve(listing, env={**placed.env, **listing.env}, why={**placed.why, **listing.why})

    def parse_devices(self, output: str) -> list[str]:
        """The devices in :meth:`device_listing`'s output; empty means the build would run on the CPU."""
        answer = self._call("parse_devices", output=output)
        if answer is None:
            raise EngineError(f"engine {self.name!r} lists no devices: it never falls back to CPU")
        return self._answers.sentences("parse_devices", answer)

    def help_command(self, command: Command) -> Command:
        """The command that prints every option of the engine ``command`` starts."""
        answer = self._answers.optional_command("help_command", self._call("help_command", command=command))
        if answer is not None:
            self._hold_the_floor("help_command", "a help command", answer, {})
        return answer or Command(path=command.path, args=("--help",))

    def unavailable(self) -> str | None:
        """Why this engine cannot be offered on this node, or None."""
        return self._answers.reason("unavailable", self._constant("unavailable"))

    def plan(self, shard: ShardSpec, gpus: Sequence[GPUInfo] = ()) -> LaunchPlan:
        """Validate the profile, then build everything a supervisor needs to run ``shard``.

        :raises SpecError: when the profile or the shard spec has problems, all listed.
        :raises EngineError: when the engine cannot build this shard, or broke its contract
            (a hook that changed what it was given among them: named, its change undone).
        """
        gpus = tuple(gpus)
        # One record of the shard before any hook runs, checked once after all of them:
        # a hook-by-hook check costs several times more, and is needed only to name the
        # hook once a change is found.
        held = Inputs((shard, gpus))
        token = _PLAN_HOLDS_INPUTS.set(True)
        try:
            plan = self._plan(shard, gpus)
        except Exception:
            # Whatever a hook raised, a change it made first is the bug to report (an
            # interruption is the operator's, and goes through as it is).
            changed = held.changed()
            if changed is None:
                raise
        else:
            changed = held.changed()
        finally:
            _PLAN_HOLDS_INPUTS.reset(token)
        if changed is not None:
            held.restore()
            self._validated.clear()  # a verdict given while a hook changed its input
            self._plan(shard, gpus)  # hook by hook now: raises naming the hook
            raise EngineError(
                f"engine {self.name!r} ({self.source}): a hook {CHANGED_INPUT} "
                f"({changed}) once, and not again when planned hook by hook; hooks must leave "
                f"their inputs alone (the caller's spec was put back as it was)"
            )
        return plan

    def verify(self, received: LaunchPlan, expected: ShardSpec, gpus: Sequence[GPUInfo] = ()) -> None:
        """Check that ``received`` is exactly the plan ``expected`` yields here, field by field.

        ``expected`` is the shard the receiver asked for (from the spec it sent, or was
        sent by a party it trusts), never ``received.shard``: a plan whose shard and commands
        were both rewritten agrees with itself.

        :raises PlanMismatch: naming every field that differs (values shown with the key masked).
        :raises SpecError: when ``expected`` itself breaks a rule.
        """
        from enginekit.platform.verify import check

        check(received, self.plan(expected, gpus))

    def _plan(self, shard: ShardSpec, gpus: tuple[GPUInfo, ...]) -> LaunchPlan:
        problems = self.problems(shard, gpus)
        if problems:
            raise SpecError(problems)
        commands, dropped = self._build(shard)
        allowances = [
            f"env {key} is set although it can load code or redirect trust: the site allows it "
            f"(env_policy.allow_unsafe: {reason})"
            for key, reason in self.env_policy.unsafe_allowances(shard.profile.env)
        ]
        if self.policy.unsafe_env:
            present = {name.upper() for command in commands for name in command.env}
            allowances += [
                f"env {name} is set by the {self.name} engine itself although it can load code or "
                f"redirect trust (its policy's unsafe_env: {why})"
                for name, why in sorted(self.policy.unsafe_env.items())
                if name in present
            ]
        return LaunchPlan(
            engine=self.name,
            shard=shard,
            commands=tuple(commands),
            serves_http=self.serves_http(shard),
            health_path=self.health_path(),
            metrics_path=self.metrics_path(),
            notes=(*self.notes(shard), *allowances),
            dropped_env=dropped,
            on_leader_exit=self.on_leader_exit(shard),
            leader_watch_port=self.leader_watch_port(shard),
            kv_events=self.kv_event_sources(shard),
        )


#: How the error about a hook that changed its input says so (the conformance kit finds it by this).
CHANGED_INPUT = "changed what it was given"

#: Set while :meth:`Engine.plan` holds the record of its inputs (per thread and task).
_PLAN_HOLDS_INPUTS: ContextVar[bool] = ContextVar("enginekit_plan_holds_inputs", default=False)

#: Distinct profiles (and GPU lists) one engine remembers the verdict on.
_VALIDATED_LIMIT = 256


def _value_key(profile: Profile, gpus: Sequence[GPUInfo]) -> object:
    """An exact, hashable key for a profile and its GPUs, or None when they have none.

    Every field's value and type (``1`` and ``True`` are equal in Python, not to a check),
    the env table as its items, adapters and GPUs by their fields' values.
    """
    try:
        if not all(map(_plain_adapter, profile.adapters)):
            return None
        values = _profile_fields(profile)
        env = tuple(profile.env.items())
        key = (
            values,
            tuple(map(type, values)),
            env,
            tuple(map(type, (item for pair in env for item in pair))),
            tuple(map(type, profile.args)),
            # Adapters and GPUs by their fields, read now: a frozen object's cached hash
            # and identity would outlive a field set in place.
            tuple((adapter.name, adapter.path) for adapter in profile.adapters),
            _gpus_key(gpus),
        )
        hash(key)
    except (TypeError, AttributeError):
        return None  # a value of a kind nobody structured: judged every time
    return key


def _fields_but(kind: type, *skip: str) -> Callable[[Any], tuple[Any, ...]]:
    names = [field.name for field in attrs.fields(kind) if field.name not in skip]
    getter = operator.attrgetter(*names)
    return lambda value: getter(value) if type(value) is kind else _not_keyed()


def _not_keyed() -> tuple[Any, ...]:
    raise TypeError("a subclass is judged every time")


_profile_fields = _fields_but(Profile, "env", "adapters")
_gpu_fields = _fields_but(GPUInfo)


def _gpus_key(gpus: Sequence[GPUInfo]) -> object:
    """The GPUs by their fields' values, each of exactly its declared type."""
    if not all(map(_plain_gpu, gpus)):
        return _not_keyed()
    return tuple(_gpu_fields(gpu) for gpu in gpus)


def _plain_gpu(gpu: object) -> bool:
    """A GPU whose fields hold exactly their declared types: equal to another only when the same."""
    return (
        type(gpu) is GPUInfo
        and type(gpu.index) is int
        and type(gpu.name) is str
        and type(gpu.compute_capability) is str
        and type(gpu.memory_total_mb) is int
    )


def _plain_adapter(adapter: object) -> bool:
    return type(adapter) is Adapter and type(adapter.name) is str and type(adapter.path) is str


#: The spec's fields that never reach a command line: the key's own, and the profile's
#: variables, which enginekit itself puts in the environment. A key in them does not
#: explain one on a command line: that is the engine's doing.
_OFF_THE_COMMAND_LINE = frozenset({"api_key", "profile.env"})


def _key_on_command_line(engine: str, shard: ShardSpec) -> EngineError:
    """The refusal of a command line that carries the API key: the spec's fields that hold it, if any.

    A key pasted into a field the engine passes on (``model_path``, ``args``, an adapter's
    path) is the spec's to fix, not the engine's; only the field's name is said, never
    its value.
    """
    fields = _fields_holding(shard, shard.api_key)
    if not fields:
        return EngineError(f"engine {engine!r} put the API key on a command line; refusing it")
    named = fields[0] if len(fields) == 1 else ", ".join(fields[:-1]) + " and " + fields[-1]
    holds, it = ("holds", "it") if len(fields) == 1 else ("hold", "them")
    return EngineError(
        f"{named} {holds} the API key; engine {engine!r} passes {it} on a command line, which any "
        f"local user can read: take the key out of {it} (the engine gets it only in its environment, "
        f"from api_key); refusing it"
    )


def _fields_holding(shard: ShardSpec, key: str) -> list[str]:
    """The spec's fields, as ``profile.model_path`` or ``profile.args[3]``, whose value holds ``key``."""
    found: list[str] = []

    def walk(value: Any, path: str) -> None:
        if path in _OFF_THE_COMMAND_LINE:
            return
        if isinstance(value, str):
            if leaks(value, key):
                found.append(path)
        elif isinstance(value, dict):
            for name, item in value.items():
                walk(item, f"{path}.{name}" if path else str(name))
        elif isinstance(value, list):
            before = len(found)
            for index, item in enumerate(value):
                walk(item, f"{path}[{index}]")
            texts = [item for item in value if isinstance(item, str)]
            if len(found) == before and argv_leaks(texts, key):
                found.append(path)  # split over its elements: "--api-key", "sk-ab", "cd"

    walk(shard.to_dict(show_secrets=True), "")
    return found


def _with_env(command: Command, env: EnvBuild, engine: str) -> Command:
    why = env.why
    if why.keys() != env.env.keys() or not all(why.values()):  # unexplained, or explained but unset
        why = {key: why.get(key) or f"generated by the {engine} engine plugin" for key in env.env}
    return Command(
        path=command.path,
        args=command.args,
        env=env.env,
        name=command.name,
        wait_for_leader_port=command.wait_for_leader_port,
        secret_env=command.secret_env,
        why=why,
    )


def _watched_addr(shard: ShardSpec) -> str:
    """Where the replica's other processes reach the leader: its ``leader_addr``, on one node loopback.

    (A replica of several nodes has a ``leader_addr``: the spec's own rules say so first.)
    """
    return shard.leader_addr or "127.0.0.1"


def _lays_out(shard: ShardSpec) -> bool:
    """Whether the shard asks for what only the layout judges: data or expert parallel.

    :func:`enginekit.layout.compute.needs_layout`'s rule, written out here so that a
    tensor- and pipeline-parallel shard, judged by the spec's own rules, never imports the
    layout: a cold ``render`` pays for nothing it does not use (a test keeps them equal).
    """
    profile = shard.profile
    return bool(
        profile.data_parallel > 1
        or profile.dp_per_node
        or profile.expert_parallel
        or profile.all2all
        or profile.dp_balancing != "internal"
        or shard.dp_rank
    )
