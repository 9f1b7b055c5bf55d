"""``EngineConformance``: the contract every engine plugin keeps, as tests a plugin inherits in one class."""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import re
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import attrs
import pytest

from enginekit.base.errors import EngineError, EnginekitError, EngineUnavailable, HookError, SpecError
from enginekit.placement.env import TUNABLE, EnvBuild, apply_profile_env, placement_env
from enginekit.platform.engine import CHANGED_INPUT, Engine
from enginekit.policy.env import DEFAULT_POLICY, EnvPolicy
from enginekit.spec.convert import structure, unstructure
from enginekit.spec.model import Command, GPUInfo, Profile, ShardSpec
from enginekit.testing.engines import engine_for, instantiate
from enginekit.testing.factories import SHAPES, check_shapes, example_shard, make_replica
from enginekit.testing.purity import ADVICE, forbid_side_effects

if TYPE_CHECKING:
    from hypothesis import strategies as st

    from enginekit.plan.launch import LaunchPlan

#: Pass-through arguments that some engine refuses, or checks the value of: each makes
#: an engine's ``validate`` speak, so its sentences can be checked for the profile's name.
PROVOKING_ARGS: tuple[tuple[str, ...], ...] = (
    ("--quantization", "fp8"),
    ("--quantization", "no-such-method"),
    ("--dtype", "float3"),
    ("--kv-cache-dtype", "fp8"),
    ("--tensor-parallel-size", "3"),
    ("-tp", "9"),
    ("--port", "1"),
    ("--host", "0.0.0.0"),
    ("--model", "/elsewhere"),
    ("--served-model-name", "other"),
    ("--api-key", "not-the-key"),
    ("--trust-remote-code",),
    ("--chat-template", "/etc/passwd"),
    ("--load-format", "pt"),
    ("--max-model-len", "-1"),
    ("--ctx-size", "0"),
    ("--n-gpu-layers", "many"),
    ("--enable-lora",),
    ("--no-such-option-anywhere",),
    ("stray-positional",),
)
#: GPUs old and new, for the engines that check compute capability or memory.
PROVOKING_GPUS: tuple[tuple[GPUInfo, ...], ...] = (
    (),
    (GPUInfo(index=0, name="Tesla P100-PCIE-16GB", compute_capability="6.0", memory_total_mb=16280),),
    (GPUInfo(index=0, name="Tesla V100-SXM2-16GB", compute_capability="7.0", memory_total_mb=16160),),
    (GPUInfo(index=0, name="Tesla T4", compute_capability="7.5", memory_total_mb=15360),),
    (GPUInfo(index=0, name="NVIDIA A100-SXM4-80GB", compute_capability="8.0", memory_total_mb=81920),),
    (GPUInfo(index=0, name="NVIDIA H100 80GB HBM3", compute_capability="9.0", memory_total_mb=81559),),
)
#: Wrong types in a raw shard spec: (the field's path under the spec, the wrong value).
WRONG_TYPES: tuple[tuple[str, object], ...] = (
    ("profile.tp", "2"),
    ("profile.args", "--max-model-len 4096"),
    ("profile.env", ["NCCL_DEBUG=INFO"]),
    ("profile.kv_events", "yes"),
    ("profile.adapters", "lora"),
    ("profile.nodes", True),
    ("profile.name", 7),
    ("http_port", "8000"),
    ("gpu_indices", "0,1"),
    ("api_key", ["a-key-in-a-list-0123456789"]),
)
#: What a refusal of each shape must say (a regular expression, any case): its name, in words.
SHAPE_WORDS: Mapping[str, str] = {
    "multi_node": r"node",
    "mig": r"\bMIG\b",
    "cpu": r"\bCPU\b|\bno GPUs?\b|without (a )?GPU",
    "lora": r"adapter|LoRA",
    "kv_events": r"kv[_ -]?(cache[_ -]?)?events?",
}
#: The value a profile tries to give a variable it may not set.
_OVERRIDE = "set-by-the-profile"


def _require_hypothesis() -> None:
    """Fail clearly when hypothesis is missing: the kit loads without it, its checks need it."""
    try:
        import hypothesis  # noqa: F401
    except ImportError:  # pragma: no cover - exercised in a subprocess without hypothesis
        pytest.fail("the conformance checks need hypothesis: install it, or enginekit[testing]")


def _what(shard: ShardSpec) -> str:
    """The shard as a failure message names it: its shape and role."""
    if shard.is_multi_node():
        role = "leader" if shard.is_leader() else f"worker (rank {shard.rank})"
        text = f"{role} of a {shard.nnodes}-node replica"
    elif shard.on_mig():
        text = "single-node shard on a MIG instance"
    elif shard.on_cpu():
        text = "CPU shard"
    else:
        text = f"single-node shard on {len(shard.gpu_indices)} GPU(s)"
    extras = []
    if shard.profile.adapters:
        extras.append(f"{len(shard.profile.adapters)} LoRA adapter(s)")
    if shard.profile.kv_events:
        extras.append("KV-cache events")
    return text + (f" with {' and '.join(extras)}" if extras else "")


def _where(index: int, command: Command) -> str:
    return f"command {index} ({command.name or command.path})"


def _difference(first: LaunchPlan, second: LaunchPlan) -> str:
    """The first thing two plans of one shard disagree on, without showing a secret value."""
    if len(first.commands) != len(second.commands):
        return f"{len(first.commands)} command(s), then {len(second.commands)}"
    for index, (one, two) in enumerate(zip(first.commands, second.commands, strict=True)):
        where = _where(index, one)
        if one.argv() != two.argv():
            return f"{where}: argv {one.argv()} then {two.argv()}"
        if one.env != two.env:
            keys = sorted(k for k in {*one.env, *two.env} if one.env.get(k) != two.env.get(k))
            return f"{where}: env {keys} differ"
        if one != two:
            return f"{where}: {', '.join(_fields_differing(one, two))} differ"
    for field in (
        "serves_http",
        "health_path",
        "metrics_path",
        "notes",
        "dropped_env",
        "on_leader_exit",
        "leader_watch_port",
    ):
        if getattr(first, field) != getattr(second, field):
            return f"{field} differs"
    return "the plans differ"


def _fields_differing(one: Command, two: Command) -> list[str]:
    return [f.name for f in attrs.fields(Command) if getattr(one, f.name) != getattr(two, f.name)]


def _with(raw: Mapping[str, Any], path: str, value: object) -> dict[str, Any]:
    """A deep copy of ``raw`` with the dotted ``path`` set to ``value``."""
    out = copy.deepcopy(dict(raw))
    node = out
    *parents, last = path.split(".")
    for part in parents:
        node = node[part]
    node[last] = value
    return out


class EngineConformance:
    """The checks every engine plugin passes; a plugin's tests subclass it (in a class named ``Test…``)::

        class TestConformance(EngineConformance):
            plugin = MyEngine()       # an instance, a module, a class (default config) or a factory
            engine = "myengine"
            shapes = frozenset({"single", "multi_node", "lora"})   # what the engine supports

    Every ``test_*`` method runs against shards drawn by
    :func:`enginekit.testing.strategies.shards` (plus the plain example of each shape),
    passed through :meth:`adapt`; shapes not in :attr:`shapes` are skipped. Each
    ``check_*`` method takes one shard (or profile) and raises :class:`AssertionError`
    naming the problem, so a plugin's own tests can call it on a shard of their choice.
    """

    #: The engine plugin: an object with hook implementations, a module, a class
    #: (instantiated with its default config) or a function returning a fresh one.
    plugin: ClassVar[object]
    #: The engine's name, as profiles name it.
    engine: ClassVar[str]
    #: The launch shapes the engine supports (see :data:`enginekit.testing.SHAPES`).
    shapes: ClassVar[frozenset[str]] = frozenset(SHAPES)
    #: The root of an installed build, for engines with ``takes_installed_build``.
    installed: ClassVar[Path | None] = None
    #: The site's env policy the engine is checked under.
    policy: ClassVar[EnvPolicy] = DEFAULT_POLICY
    #: Whether a shard that serves HTTP gets the API key (in a secret variable). An
    #: engine without authentication sets False, and says so in its notes.
    takes_api_key: ClassVar[bool] = True
    #: Drawn shards per check and shape: enough to find a shape's corner, fast in CI.
    max_examples: ClassVar[int] = 25
    #: What the engine's device listing prints, for an engine with ``device_listing``:
    #: parsed under the purity guard, and it must parse. Empty: ``""`` is parsed, and a
    #: refusal of it accepted.
    device_output: ClassVar[str] = ""

    # -- what an author may override ---------------------------------------------

    def adapt(self, shard: ShardSpec) -> ShardSpec:
        """Adjust a drawn shard to what this engine needs (a model file it requires, say); default: as it is.

        The result must still be valid: every check plans it and expects success.
        """
        return shard

    def invalid_profiles(self) -> Iterable[Profile]:
        """Profiles this engine's ``validate`` refuses: each must be refused, every sentence naming it."""
        return ()

    # -- building -------------------------------------------------------------------

    def new_plugin(self) -> object:
        """A plugin object from :attr:`plugin`: a factory is called, a class instantiated."""
        cls = type(self)
        if not hasattr(cls, "plugin") or not isinstance(getattr(cls, "engine", None), str) or not cls.engine:
            raise AssertionError(
                f"{cls.__name__}: set the class attributes 'plugin' (the engine plugin) "
                f"and 'engine' (its name)"
            )
        raw = cls.plugin
        if inspect.isfunction(raw) or isinstance(raw, functools.partial):
            raw = raw()
        try:
            return instantiate(raw, cls.engine)
        except EnginekitError as exc:
            raise AssertionError(
                f"{cls.__name__}: the plugin class cannot be built with its default config ({exc}); "
                f"give a factory instead (plugin = lambda: MyEngine(MyConfig(...)))"
            ) from None

    def new_engine(self, policy: EnvPolicy | None = None) -> Engine:
        """The engine in a fresh registry, under :attr:`policy` or the given site policy."""
        return self._engine_for(self.new_plugin(), self.policy if policy is None else policy)

    def _engine_for(self, plugin: object, policy: EnvPolicy) -> Engine:
        try:
            return engine_for(plugin, self.engine, installed=self.installed, policy=policy)
        except EngineUnavailable as exc:
            raise AssertionError(
                f"{exc}; give the conformance class a plugin configured so it is available "
                f"(plugin = lambda: MyEngine(MyConfig(...)))"
            ) from None

    def plan(self, shard: ShardSpec, engine: Engine | None = None) -> LaunchPlan:
        """The shard's plan; a refusal of this valid shard is an AssertionError with the core's reason."""
        engine = engine or self.new_engine()
        try:
            return engine.plan(shard)
        except EnginekitError as exc:
            raise AssertionError(
                f"engine {self.engine!r} could not plan a valid {_what(shard)}: {exc}"
            ) from None

    # -- the checks, one shard at a time -------------------------------------------------

    def check_plans(self, shard: ShardSpec) -> LaunchPlan:
        """The engine plans the shard: at least one command, each with a path."""
        plan = self.plan(shard)
        assert plan.commands, f"engine {self.engine!r} planned no command for a {_what(shard)}"
        return plan

    def check_pure(self, shard: ShardSpec) -> None:
        """No hook reads the environment, the filesystem, processes or the network while planning."""
        plugin = self.new_plugin()  # building the plugin object is not a hook
        failure: BaseException | None = None
        with forbid_side_effects() as touched:
            try:
                engine = self._engine_for(plugin, self.policy)
                engine.validate(shard.profile)
                plan = engine.plan(shard)
                for command in plan.commands:
                    engine.help_command(command)
                if engine.device_listing(shard) is not None and self.device_output:
                    engine.parse_devices(self.device_output)
                elif engine.device_listing(shard) is not None:
                    # Only to run the hook under the guard: refusing no output is an answer too.
                    with contextlib.suppress(EnginekitError):
                        engine.parse_devices("")
            except Exception as exc:  # reported below, after what was touched
                failure = exc
        if touched:
            seen = ", ".join(dict.fromkeys(touched))
            raise AssertionError(
                f"engine {self.engine!r} is not pure: planning a {_what(shard)}, its hooks "
                f"touched {seen}; {ADVICE}"
            )
        if failure is not None:
            raise AssertionError(
                f"engine {self.engine!r} could not plan a valid {_what(shard)}: {failure}"
            ) from None

    def check_inputs_unchanged(self, shard: ShardSpec) -> None:
        """No hook changes what it is given: the shard, its profile, its GPUs, a command.

        Every hook is called on its own, so the one that changed its input is named; the
        shard is then compared with a deep copy taken before (the core puts a change back,
        and says which hook made it).
        """
        before = copy.deepcopy(shard)
        engine = self.new_engine()
        try:
            engine.validate(shard.profile, ())
            for command in engine.commands(shard):
                engine.help_command(command)
            engine.serves_http(shard)
            engine.notes(shard)
            engine.on_leader_exit(shard)
            engine.device_listing(shard)
        except EnginekitError as exc:
            if CHANGED_INPUT in str(exc):
                raise AssertionError(
                    f"engine {self.engine!r} changed its input planning a {_what(shard)}: {exc}"
                ) from None
            raise AssertionError(
                f"engine {self.engine!r} could not plan a valid {_what(shard)}: {exc}"
            ) from None
        assert shard == before, f"planning a {_what(shard)} changed it, and the core did not see it"

    def check_refuses_unlisted(self, shape: str) -> None:
        """The plain example of a shape the engine does not list is refused, cleanly, naming the shape.

        Not a crash (any other exception), and not a silent plan of something the engine
        does not support: a ``SpecError`` or ``EngineError`` whose message names the
        shape (a MIG instance, nodes, the CPU, adapters, KV-cache events).
        """
        shard = self.adapt(example_shard(shape, self.engine))
        engine = self.new_engine()
        try:
            plan = engine.plan(shard)
        except HookError as exc:
            # A hook that raised something else, or answered garbage: the core caught it.
            raise AssertionError(
                f"engine {self.engine!r} crashed on a {_what(shard)} it does not list, instead of "
                f"refusing it with a SpecError or EngineError: {exc}"
            ) from None
        except (SpecError, EngineError) as exc:
            if not re.search(SHAPE_WORDS[shape], str(exc), re.IGNORECASE):
                raise AssertionError(
                    f"engine {self.engine!r} refused a {_what(shard)} it does not list, but without "
                    f"naming the shape (expected /{SHAPE_WORDS[shape]}/ in the message): {exc}"
                ) from None
            return
        except Exception as exc:
            raise AssertionError(
                f"engine {self.engine!r} crashed on a {_what(shard)} it does not list, instead of "
                f"refusing it with a SpecError or EngineError: {type(exc).__name__}: {exc}"
            ) from None
        raise AssertionError(
            f"engine {self.engine!r} planned a {_what(shard)}, a shape it does not list "
            f"({len(plan.commands)} command(s)): refuse it naming the shape, or list {shape!r} in shapes"
        )

    def check_deterministic(self, shard: ShardSpec) -> None:
        """Planning is a function of the shard: twice on one engine, and on a fresh one, the same plan."""
        engine = self.new_engine()
        first = self.plan(shard, engine)
        for other, how in (
            (self.plan(shard, engine), "planned twice by one engine"),
            (self.plan(shard), "planned by a fresh engine"),
        ):
            if other != first:
                raise AssertionError(
                    f"engine {self.engine!r} is not deterministic: a {_what(shard)} {how} "
                    f"gave two plans ({_difference(first, other)})"
                )
        assert engine.validate(shard.profile) == engine.validate(shard.profile), (
            f"engine {self.engine!r} is not deterministic: validate() answered one profile twice differently"
        )

    def check_api_key(self, shard: ShardSpec) -> None:
        """The key is in no argv (joined either way), name, reason or note, and only in secret env."""
        key = shard.api_key
        if not key:
            return
        engine = self.new_engine()
        plan = self.plan(shard, engine)
        argv = [arg for command in plan.commands for arg in command.argv()]
        for command in plan.commands:
            argv += engine.help_command(command).argv()
        listing = engine.device_listing(shard)
        if listing is not None:
            argv += listing.argv()
        for joined in ("\0".join(argv), "".join(argv), " ".join(argv)):
            assert key not in joined, (
                f"engine {self.engine!r} put the API key of a {_what(shard)} in an argv, where any local "
                f"user reads it: pass it in a variable named in secret_env"
            )
        for index, command in enumerate(plan.commands):
            where = _where(index, command)
            texts = (command.name, *command.why, *command.why.values())
            assert not any(key in text for text in texts), (
                f"engine {self.engine!r}: {where} shows the API key in its name or reasons"
            )
            for name, value in command.env.items():
                assert key not in value or name in command.secret_env, (
                    f"engine {self.engine!r}: {where} carries the API key in env {name} without naming "
                    f"it in secret_env, so every rendered plan shows the key"
                )
        assert not any(key in note for note in plan.notes), (
            f"engine {self.engine!r}: a note shows the API key"
        )
        if plan.serves_http and self.takes_api_key:
            carried = [
                name
                for command in plan.commands
                for name in command.secret_env
                if key in command.env.get(name, "")
            ]
            assert carried, (
                f"engine {self.engine!r}: the {_what(shard)} serves HTTP but no command carries the API key "
                f"in a secret variable, so it would serve without authentication (set takes_api_key = False "
                f"on the conformance class if the engine has none, and say so in notes())"
            )
        if plan.serves_http and not self.takes_api_key:
            # The shard was given a key the engine does not enforce: an operator must be told.
            assert plan.notes, (
                f"engine {self.engine!r}: the {_what(shard)} has an API key the engine does not "
                f"enforce, and notes() says nothing: say that the endpoint is open"
            )

    def check_placement(self, shard: ShardSpec) -> None:
        """Every command carries the shard's placement variables as :func:`placement_env` derives them."""
        plan = self.plan(shard)
        placed = placement_env(shard).env
        tuned = TUNABLE & set(shard.profile.env)  # the profile's escape hatch may retune these
        for index, command in enumerate(plan.commands):
            for key, value in placed.items():
                if key in tuned:
                    continue
                got = command.env.get(key)
                assert got == value, (
                    f"engine {self.engine!r}: {_where(index, command)} of a {_what(shard)} has placement "
                    f"variable {key}={got!r}, placement says {value!r}; build commands with "
                    f"enginekit.placement.builder.CommandBuilder"
                )

    def check_secret_env(self, shard: ShardSpec) -> None:
        """Every variable a command marks secret is declared in the engine's ``policy().secret_env``."""
        engine = self.new_engine()
        plan = self.plan(shard, engine)
        declared = engine.policy.secret_env
        for index, command in enumerate(plan.commands):
            undeclared = sorted(key for key in command.secret_env if key.upper() not in declared)
            assert not undeclared, (
                f"engine {self.engine!r}: {_where(index, command)} marks {undeclared} secret, but "
                f"policy().secret_env does not declare them, so profiles are not kept from setting them"
            )

    def check_protected_env(self, shard: ShardSpec) -> None:
        """No profile sets the engine's secret, reserved or placement variables, whatever the site allows.

        Each site policy opens the names every way a site can (``allow``, ``allow_unsafe``,
        ``allow_prefixes``); validation must still refuse each name, and the launch
        environment must keep what the engine generated.
        """
        engine = self.new_engine()
        declared = engine.policy
        plan = self.plan(shard, engine)
        placed = set(placement_env(shard).env) - TUNABLE
        # A variable carrying the key is a secret one, declared or not.
        keyed = {
            name
            for command in plan.commands
            for name, value in command.env.items()
            if shard.api_key and shard.api_key in value
        }
        names = sorted(declared.secret_env | declared.reserved_env | placed | keyed)
        profile = attrs.evolve(shard.profile, env={**shard.profile.env, **dict.fromkeys(names, _OVERRIDE)})
        bad = attrs.evolve(shard, profile=profile)
        sites = (
            ("allow", EnvPolicy(allow=names)),
            ("allow_unsafe", EnvPolicy(allow_unsafe=dict.fromkeys(names, "conformance check"))),
            ("allow_prefixes", EnvPolicy(allow_prefixes=names)),
        )
        for how, site in sites:
            opened = self.new_engine(site)
            problems = opened.validate(profile)
            for name in names:
                assert any(f"env {name}:" in problem for problem in problems), (
                    f"engine {self.engine!r}: a profile may set {name} when the site opens it with "
                    f"env_policy.{how}; declare it in policy().reserved_env or secret_env"
                )
            for index, command in enumerate(plan.commands):
                launched = apply_profile_env(EnvBuild(command.env, command.why), bad, opened.env_policy).env
                for name in names:
                    assert launched.get(name) == command.env.get(name), (
                        f"engine {self.engine!r}: with env_policy.{how}, a profile's {name} reaches "
                        f"{_where(index, command)} of a {_what(shard)}"
                    )

    def check_validate_messages(self, profile: Profile, gpus: Sequence[GPUInfo] = ()) -> list[str]:
        """Every sentence ``validate`` returns starts ``profile '<name>':``; returns them."""
        problems = self.new_engine().validate(profile, gpus)
        prefix = f"profile {profile.name!r}:"
        unnamed = [problem for problem in problems if not problem.startswith(prefix)]
        assert not unnamed, (
            f"engine {self.engine!r}: validate() returned sentences that do not start {prefix!r}, so a "
            f"user cannot tell which profile they are about: {unnamed[:5]}"
        )
        return problems

    def check_roles(self, shard: ShardSpec) -> None:
        """A multi-node worker does not serve HTTP; a leader does, and never waits for its own port."""
        engine = self.new_engine()
        plan = self.plan(shard, engine)
        if shard.is_leader():
            assert plan.serves_http, f"engine {self.engine!r}: the {_what(shard)} does not serve HTTP"
            first = plan.commands[0]
            # Nothing before its first command listens on the leader port: it would wait forever.
            assert not first.wait_for_leader_port, (
                f"engine {self.engine!r}: {_where(0, first)} of the {_what(shard)} waits for the "
                f"leader's port, which nothing before it opens: it would wait for itself forever"
            )
        elif shard.is_multi_node():
            serves = engine.serves_http(shard) or plan.serves_http
            assert not serves, (
                f"engine {self.engine!r}: the {_what(shard)} serves HTTP; only the leader does, and "
                f"health-checking a worker's port fails a replica that is coming up well"
            )

    def check_wrong_types(self, shard: ShardSpec) -> None:
        """A raw spec with a wrong type anywhere is one enginekit error naming the field, never a traceback.

        The spec as the agent sends it (unstructured, then structured again) plans the same.
        """
        raw = unstructure(shard)
        again, _ = structure(raw, ShardSpec, path="spec")
        assert again == shard, "a shard does not survive unstructure and structure unchanged"
        for path, value in WRONG_TYPES:
            self._refused(ShardSpec, _with(raw, path, value), "spec", f"spec.{path}")

    def check_paths(self) -> None:
        """The health and metrics paths are URL paths starting with ``/``."""
        engine = self.new_engine()
        for hook in ("health_path", "metrics_path"):
            try:
                path = getattr(engine, hook)()
            except EnginekitError as exc:
                raise AssertionError(f"engine {self.engine!r}: {exc}") from None
            assert path.startswith("/"), f"engine {self.engine!r}: {hook}() is {path!r}, not a path"

    def check_config_types(self) -> None:
        """The engine's config section refuses a wrong type in each field, naming it."""
        config_type = _config_type(self.new_plugin())
        if config_type is None:
            return
        where = f"engines.{self.engine}"
        self._refused(config_type, {"no_such_setting": 1}, where, f"{where}.no_such_setting")
        for field in attrs.fields(attrs.resolve_types(config_type)):
            wrong = _wrong_value(field.type)
            if wrong is not None and not field.name.startswith("_"):
                self._refused(config_type, {field.name: wrong}, where, f"{where}.{field.name}")

    def _refused(self, cls: type, raw: Mapping[str, Any], path: str, field: str) -> None:
        try:
            structure(raw, cls, path=path)
        except EnginekitError as exc:
            if field not in str(exc):
                raise AssertionError(
                    f"structuring {cls.__name__} refused {field}, but without naming it: {exc}"
                ) from None
        except Exception as exc:
            raise AssertionError(
                f"structuring {cls.__name__} with a wrong {field} raised {type(exc).__name__} (a traceback), "
                f"not an enginekit error naming the field"
            ) from exc
        else:
            raise AssertionError(f"structuring {cls.__name__} accepted a wrong type in {field}")

    # -- running them -----------------------------------------------------------------

    def _shapes(self) -> frozenset[str]:
        try:
            return check_shapes(type(self).shapes)
        except ValueError as exc:
            raise AssertionError(f"{type(self).__name__}.{exc}") from None

    def for_each_shard(
        self, shape: str, check: Callable[[ShardSpec], object], *, keyed: bool = False
    ) -> None:
        """Run ``check`` on the plain example of ``shape`` and on drawn ones, each through :meth:`adapt`.

        Skips (pytest) when the engine does not list ``shape``; ``keyed`` draws a key for every shard.
        """
        if shape not in self._shapes():
            pytest.skip(f"engine {self.engine!r} does not list shape {shape!r}")
        _require_hypothesis()
        from hypothesis import example, given, settings
        from hypothesis import strategies as st

        from enginekit.testing.strategies import api_keys, shards

        drawn: st.SearchStrategy[ShardSpec] = shards(self.engine, (shape,))
        if keyed:
            drawn = st.tuples(drawn, api_keys()).map(lambda pair: attrs.evolve(pair[0], api_key=pair[1]))

        @settings(max_examples=self.max_examples, deadline=None)
        @example(example_shard(shape, self.engine))
        @given(drawn)
        def run(shard: ShardSpec) -> None:
            check(self.adapt(shard))

        run()

    @pytest.mark.parametrize("shape", SHAPES)
    def test_plans_valid_shards(self, shape: str) -> None:
        """Every valid shard of a listed shape plans, with at least one command."""
        self.for_each_shard(shape, self.check_plans)

    @pytest.mark.parametrize("shape", SHAPES)
    def test_hooks_are_pure(self, shape: str) -> None:
        """No hook reads os.environ, files, processes or the network."""
        self.for_each_shard(shape, self.check_pure)

    @pytest.mark.parametrize("shape", SHAPES)
    def test_hooks_leave_their_inputs_alone(self, shape: str) -> None:
        """No hook changes the shard, profile, GPUs or command it is given."""
        self.for_each_shard(shape, self.check_inputs_unchanged)

    @pytest.mark.parametrize("shape", [shape for shape in SHAPES if shape != "single"])
    def test_refuses_unlisted_shapes(self, shape: str) -> None:
        """A shape the engine does not list is refused with a SpecError/EngineError naming it."""
        if shape in self._shapes():
            pytest.skip(f"engine {self.engine!r} lists shape {shape!r}")
        self.check_refuses_unlisted(shape)

    @pytest.mark.parametrize("shape", SHAPES)
    def test_plans_are_deterministic(self, shape: str) -> None:
        """One shard, one plan: twice, and on a fresh engine."""
        self.for_each_shard(shape, self.check_deterministic)

    @pytest.mark.parametrize("shape", SHAPES)
    def test_api_key_never_in_argv(self, shape: str) -> None:
        """Random keys stay out of every argv and reach the server only in secret env."""
        self.for_each_shard(shape, self.check_api_key, keyed=True)

    @pytest.mark.parametrize("shape", SHAPES)
    def test_placement_env_is_kept(self, shape: str) -> None:
        """Every command carries the placement variables unchanged."""
        self.for_each_shard(shape, self.check_placement)

    @pytest.mark.parametrize("shape", SHAPES)
    def test_secret_env_is_declared(self, shape: str) -> None:
        """Every secret variable of every command is declared in the engine's policy."""
        self.for_each_shard(shape, self.check_secret_env)

    @pytest.mark.parametrize("shape", SHAPES)
    def test_profile_cannot_set_protected_env(self, shape: str) -> None:
        """Secret, reserved and placement variables stay out of profiles' reach, whatever the site allows."""
        self.for_each_shard(shape, self.check_protected_env)

    @pytest.mark.parametrize("shape", SHAPES)
    def test_leader_never_waits_for_its_own_port(self, shape: str) -> None:
        """Leaders serve HTTP and start without waiting for themselves; workers do not serve."""
        self.for_each_shard(shape, self.check_roles)

    def test_only_the_leader_serves_http(self) -> None:
        """Multi-node workers do not serve HTTP: every rank of a replica, IPv4 and IPv6, then drawn ones."""
        if "multi_node" in self._shapes():
            for ipv6 in (False, True):
                for shard in make_replica(engine=self.engine, nnodes=3, ipv6=ipv6):
                    self.check_roles(self.adapt(shard))
        self.for_each_shard("multi_node", self.check_roles)

    def test_validate_names_the_profile(self) -> None:
        """Every sentence validate() returns starts with ``profile '<name>':``, on profiles it refuses."""
        shapes = self._shapes()
        base = self.adapt(example_shard("single" if "single" in shapes else min(shapes), self.engine)).profile
        for profile in self.invalid_profiles():
            assert self.check_validate_messages(profile), (
                f"engine {self.engine!r}: invalid_profiles() lists profile {profile.name!r}, "
                f"but validate() accepts it"
            )
        _require_hypothesis()
        from hypothesis import given, settings
        from hypothesis import strategies as st

        from enginekit.testing.strategies import profile_names

        @settings(max_examples=self.max_examples, deadline=None)
        @given(
            name=profile_names(),
            args=st.lists(st.sampled_from(PROVOKING_ARGS), max_size=4),
            tp=st.sampled_from((1, 2, 3)),
            gpus=st.sampled_from(PROVOKING_GPUS),
        )
        def run(name: str, args: list[tuple[str, ...]], tp: int, gpus: tuple[GPUInfo, ...]) -> None:
            tokens = tuple(token for option in args for token in option)
            profile = attrs.evolve(base, name=name, args=tokens, tp=tp)
            self.check_validate_messages(profile, gpus)

        run()

    def test_wrong_types_are_refused(self) -> None:
        """A raw spec with a string tp, a string args or a list env is refused with the field named."""
        self.for_each_shard(min(self._shapes(), key=SHAPES.index), self.check_wrong_types)

    def test_config_wrong_types_are_refused(self) -> None:
        """The engine's config section refuses a wrong type in each field, naming it."""
        if _config_type(self.new_plugin()) is None:
            pytest.skip(f"engine {self.engine!r} takes no configuration")
        self.check_config_types()

    def test_health_and_metrics_paths(self) -> None:
        """The health and metrics paths start with '/'."""
        self.check_paths()


def _config_type(plugin: object) -> type | None:
    """The attrs class of the plugin's config section, if it takes one."""
    owner = plugin if isinstance(plugin, type) else type(plugin)
    config_type = getattr(owner, "config_type", None)
    return config_type if isinstance(config_type, type) and attrs.has(config_type) else None


def _wrong_value(tp: object) -> object | None:
    """A value of the wrong type for a field typed ``tp``; None when the type has no plain wrong value."""
    plain: dict[object, object] = {str: 12345, int: "12", float: "1.5", bool: "yes"}
    if tp in plain:
        return plain[tp]
    origin = typing.get_origin(tp)
    if origin in (tuple, list, frozenset, set):
        return "not-a-list"
    if origin in (dict, Mapping):
        return ["not-a-table"]
    return None
