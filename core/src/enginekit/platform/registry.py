"""The registry: engines discovered through entry points, loaded on first use, called one at a time."""

from __future__ import annotations

import contextlib
import functools
import inspect
import re
import sys
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import pluggy

from enginekit.base.errors import ConfigError, EnginekitError, EngineUnavailable
from enginekit.base.logs import logger
from enginekit.base.text import printable, unsafe_text
from enginekit.platform import hookspecs
from enginekit.platform.api import asked_for, refusal
from enginekit.platform.entrypoints import EntryPoint, Provider, entry_points

# Imported when first needed, not here: listing engines, printing versions and building a
# registry from hundreds of distributions never pay for the planning machinery.
if TYPE_CHECKING:
    from enginekit.plan.launch import LaunchPlan
    from enginekit.platform.engine import Engine
    from enginekit.platform.hookspecs import EngineClass
    from enginekit.platform.status import EngineStatus, Failure
    from enginekit.policy.env import EnvPolicy
    from enginekit.spec.model import GPUInfo, ShardSpec

#: The engines this project publishes, each as the distribution ``enginekit-<name>``: a
#: node without one is told what to install, not that the name means nothing.
FIRST_PARTY = frozenset({"vllm", "sglang", "llamacpp", "trtllm", "sim"})


class _BadHooks(pluggy.PluginValidationError):
    """A plugin whose hooks do not fit enginekit's: ``problem`` says how, without the engine's name."""

    def __init__(self, plugin: object, message: str, problem: str) -> None:
        super().__init__(plugin, message)
        self.problem = problem


class Registry:
    """Engine plugins in one pluggy PluginManager, keyed by engine name.

    Building one from entry points imports nothing: an engine's module is imported the
    first time that engine is asked for, so rendering a vLLM shard imports only the
    vLLM plugin, and a broken TensorRT-LLM install never stops vLLM.
    """

    def __init__(self, *, policy: EnvPolicy | None = None, lenient: bool = False) -> None:
        self.pm = _Manager(hookspecs.PROJECT_NAME)
        self.pm.add_hookspecs(hookspecs)
        #: ``None``: the built-in policy, imported the first time it is read.
        self._policy = policy
        self.lenient = lenient
        self.failures: dict[str, Failure] = {}
        self.warnings: list[str] = []
        self._engines: dict[str, object] = {}
        self._sources: dict[str, str] = {}
        self._hooks: dict[str, tuple[str, ...]] = {}
        self._pending: dict[str, EntryPoint] = {}
        #: Every entry point found, by engine name, whatever became of it.
        self._found: dict[str, list[EntryPoint]] = {}
        self._providers: dict[str, tuple[Provider, ...]] = {}
        self._configs: Mapping[str, Mapping[str, Any]] = {}
        self._installed: dict[str, Path] = {}
        #: ``[installed]`` from the node config, as written: checked when its engine
        #: loads, so one engine's entry never imports, or breaks, another.
        self._installed_wanted: dict[str, object] = {}
        #: Engines this node does not offer, and what said so.
        self._disabled: dict[str, str] = {}
        self._callers: dict[tuple[str, str], Any] = {}
        self._handles: dict[str, Engine] = {}
        #: Seconds each engine loaded from an entry point took to import and build.
        self._import_seconds: dict[str, float] = {}

    @property
    def policy(self) -> EnvPolicy:
        """The site's env policy; each engine adds its own rules to it."""
        if self._policy is None:
            from enginekit.policy.env import DEFAULT_POLICY

            self._policy = DEFAULT_POLICY
        return self._policy

    @policy.setter
    def policy(self, policy: EnvPolicy) -> None:
        self._policy = policy  # every engine handle reads it at its next call

    @classmethod
    def from_entry_points(
        cls,
        *,
        config: Mapping[str, Mapping[str, Any]] | None = None,
        enable: Collection[str] | None = None,
        disable: Collection[str] | Mapping[str, str] = (),
        policy: EnvPolicy | None = None,
        lenient: bool = False,
        group: str = hookspecs.ENTRY_POINT_GROUP,
        installed: Mapping[str, object] | None = None,
        not_enabled_because: str = "not in the list of enabled engines",
    ) -> Registry:
        """Find installed engines without importing them.

        :param config: Each engine's raw config section, by engine name.
        :param enable: An allowlist of engine names; ``None`` enables every installed one.
        :param disable: Engines this node never imports or offers; a mapping also says
            why, by name (shown by ``enginekit engines`` and when the engine is asked for).
        :param policy: The site's env policy; ``None`` is the built-in one.
        :param lenient: Unknown keys in config sections and specs are reported, not fatal.
        :param installed: Builds the agent installed, by engine name; each is checked
            when its engine loads.
        :param not_enabled_because: Why an engine outside ``enable`` is not offered.
        """
        registry = cls(policy=policy, lenient=lenient)
        registry._configs = dict(config or {})
        registry._installed_wanted = dict(installed or {})
        reasons = disable if isinstance(disable, Mapping) else dict.fromkeys(disable, "disabled here")
        found = registry._found
        declared, unreadable = entry_points(group)
        registry.warnings.extend(unreadable)
        for ep in declared:
            found.setdefault(ep.name, []).append(ep)
        for name, eps in found.items():
            if name in reasons:
                registry._disabled[name] = reasons[name]
            elif enable is not None and name not in enable:
                registry._disabled[name] = not_enabled_because
            elif len(eps) > 1 and (
                len({ep.value for ep in eps}) > 1
                or len({p.distribution for p in registry.providers(name)}) > 1
            ):
                # Two distributions claim one name: refuse to guess which one is meant. A
                # third party registering "vllm" must not quietly replace, or break, vLLM,
                # even by pointing at the same module path its own package shadows.
                providers = tuple(sorted(registry.providers(name), key=str))
                registry._fail(
                    name,
                    " and ".join(str(p) for p in providers),
                    f"{len(eps)} distributions provide engine {name!r} and enginekit will not "
                    f"guess which to run: uninstall all but one",
                    providers=providers,
                )
            else:
                registry._pending[name] = eps[0]
        choices = sorted(found)
        for name in sorted(set(enable or ()) - set(found)):
            registry._fail(name, "", "enabled but not installed" + _not_found_hint(name, choices, ": "))
        for name in sorted(set(reasons) - set(found)):
            registry.warnings.append(
                f"{reasons[name]} names {name!r}, but no such engine is installed{_close(name, choices)}"
            )
        for name in sorted(set(registry._configs) - set(found)):
            registry.warnings.append(
                f"engines.{name}: configured, but no such engine is installed{_close(name, choices)}"
            )
        for name in sorted(set(registry._installed_wanted) - set(found)):
            registry.warnings.append(f"installed.{name}: no such engine is installed{_close(name, choices)}")
        return registry

    def providers(self, name: str) -> tuple[Provider, ...]:
        """The distributions whose entry points name engine ``name``; reads metadata, imports nothing."""
        if name not in self._providers:
            # One distribution found twice on the path is one provider, not a clash.
            self._providers[name] = tuple(dict.fromkeys(Provider.of(ep) for ep in self._found.get(name, ())))
        return self._providers[name]

    def add(self, plugin: object, name: str, *, replace: bool = False, source: str = "") -> None:
        """Register ``plugin`` as engine ``name`` after checking its hooks.

        Refuses a name already taken unless ``replace``: names come from any installed
        distribution, and silently replacing one is how the wrong engine gets launched.

        :raises pluggy.PluginValidationError: a hook enginekit does not have (``comands``,
            with the hook meant), an argument no hook passes, or a required hook missing;
            the message names the engine and ``source``, never the plugin object.
        """
        self._add(plugin, name, replace=replace, source=source or "added in process", label="")

    def _add(self, plugin: object, name: str, *, replace: bool, source: str, label: str) -> None:
        if name in self._engines or name in self._pending:
            if not replace:
                raise EnginekitError(f"engine {name!r} is already registered (pass replace=True)")
            self._remove(name)
        try:
            self.pm.register(plugin, name=name)
            implemented = {caller.name for caller in self.pm.get_hookcallers(plugin) or ()}
            problem = _unknown_hook(self.pm, plugin, implemented)
            if problem is None:
                self.pm.check_pending()  # what the check above does not know of: pluggy's own
                missing = hookspecs.REQUIRED_HOOKS - implemented
                if missing:
                    problem = f"lacks required hooks {sorted(missing)}"
            if problem is not None:
                raise _BadHooks(plugin, f"engine {name!r} ({label or source}): {problem}", problem)
        except _BadHooks:
            self._unregister(name)
            raise
        except pluggy.PluginValidationError as exc:
            self._unregister(name)
            problem = _hook_problem(self.pm, plugin, exc)
            raise _BadHooks(plugin, f"engine {name!r} ({label or source}): {problem}", problem) from None
        except Exception:
            self._unregister(name)
            raise
        self._engines[name] = plugin
        self._sources[name] = source
        self._hooks[name] = tuple(sorted(implemented))
        if not label:  # added in process: no distribution provides it, whatever was installed
            self._providers[name] = ()
        self._forget()

    def _unregister(self, name: str) -> None:
        if self.pm.has_plugin(name):  # pluggy can leave partial state behind
            self.pm.unregister(name=name)

    def add_wrapper(self, plugin: object, name: str) -> None:
        """Register a non-engine plugin whose hooks wrap every engine's (``wrapper=True`` only)."""
        self.pm.register(plugin, name=name)
        for caller in self.pm.get_hookcallers(plugin) or ():
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin and not (impl.wrapper or impl.hookwrapper):
                    self.pm.unregister(plugin)
                    raise EnginekitError(
                        f"wrapper plugin {name!r}: hook {caller.name!r} must be "
                        f"@hookimpl(wrapper=True); a plain implementation would answer for engines"
                    )
        self._forget()

    def _forget(self) -> None:
        """Drop every hook caller and engine handle: the plugins they reach have changed."""
        self._callers.clear()
        self._handles.clear()

    def use_installed(self, name: str, path: Path) -> bool:
        """Point engine ``name`` at a build the agent installed; False if it takes none."""
        if not getattr(self._plugin(name), "takes_installed_build", False):
            return False
        self._installed[name] = Path(path)
        self._handles.pop(name, None)
        return True

    def installed(self, name: str) -> Path | None:
        """The build engine ``name`` was pointed at, if any."""
        return self._installed.get(name)

    def source(self, name: str) -> str:
        """What provided engine ``name``: distribution, version and entry point."""
        return self._sources.get(name, "not registered")

    def names(self) -> list[str]:
        """The engines installed and enabled here, sorted; imports nothing."""
        return sorted(set(self._engines) | set(self._pending))

    def installed_names(self) -> list[str]:
        """Every engine an installed distribution provides or that was added, whatever its status; sorted."""
        return sorted(set(self._found) | set(self._engines))

    def secret_variables(self) -> frozenset[str]:
        """Every variable that carries an API key here: each enabled engine's, and every published one's.

        For a program run outside a shard's own process (a help text, a device listing),
        which needs none: a key another engine reads must not reach it either. A disabled
        engine is never imported, and one that fails to load declares nothing: the
        published engines' key variables and the core's are kept out by name.
        """
        from enginekit.policy.carriers import KNOWN_KEY_VARIABLES

        names = set(KNOWN_KEY_VARIABLES)
        for name in self.names():
            with contextlib.suppress(EnginekitError):
                names |= self._handle(name).policy.secret_env
        return frozenset(names)

    def knows(self, name: str) -> bool:
        """Whether ``name`` is an installed engine (ok, unavailable, disabled or failed); imports nothing."""
        return name in self._found or name in self._engines

    def not_installed(self, name: str) -> str:
        """The message for an engine nothing here provides: the name meant, or what to install."""
        choices = self.installed_names()
        if name in FIRST_PARTY:
            return f"engine {name!r} is not installed on this node: install the enginekit-{name} distribution"
        guess = _guess(name, choices)
        meant = f"did you mean {guess!r}? " if guess else ""
        have = ", ".join(choices) or "none"
        return f"unknown engine {printable(repr(name), 200)} ({meant}installed: {have})"

    def engine(self, name: str) -> Engine:
        """Return the engine called ``name``, or say precisely why there is none.

        :raises EngineUnavailable: unknown, disabled on this node, failed to load, or
            unavailable here (with what to do about it).
        """
        engine = self._handle(name)
        reason = engine.unavailable()
        if reason:
            raise EngineUnavailable(f"engine {name!r} is unavailable on this node: {reason}")
        return engine

    def verify_plan(
        self, received: LaunchPlan | Mapping[str, Any], expected: ShardSpec, gpus: Sequence[GPUInfo] = ()
    ) -> LaunchPlan:
        """The plan received, once it is exactly what ``expected`` yields on this node.

        ``received`` is a plan or its JSON form (read with ``LaunchPlan.from_dict``, so it
        must carry its secrets); ``expected`` is the shard the receiver asked for, never
        the one the plan carries. Planned by ``expected``'s engine.

        :raises PlanMismatch: naming every field that differs.
        :raises SpecError: when the plan does not read, or ``expected`` breaks a rule.
        :raises EngineUnavailable: when ``expected``'s engine cannot be used here.
        """
        from enginekit.plan.launch import LaunchPlan

        plan = received if isinstance(received, LaunchPlan) else LaunchPlan.from_dict(received)
        self.engine(expected.profile.engine).verify(plan, expected, gpus)
        return plan

    def _handle(self, name: str) -> Engine:
        engine = self._handles.get(name)
        if engine is None:
            from enginekit.platform.engine import Engine

            plugin = self._plugin(name)
            engine = Engine(
                name,
                plugin,
                lambda hook_name: self._caller(name, hook_name),
                source=self.source(name),
                site_policy=lambda: self.policy,
                installed=self._installed.get(name),
            )
            self._handles[name] = engine
        return engine

    def statuses(self, names: Iterable[str] | None = None, *, check: bool = False) -> list[EngineStatus]:
        """Load the engines named (every one when ``None``) and report each one's status, sorted by name.

        Never raises for an engine: one whose constant hooks raise or answer garbage is
        listed as failed, with the reason, and every other engine is listed as it is.
        Only the engines asked about are imported; disabled ones never are.

        :param check: also plan each available engine's example shard
            (:func:`enginekit.platform.check.check`): one whose hooks raise or answer
            garbage there is listed as failed, with the hook and the reason.

        :raises EngineUnavailable: for a name no installed distribution provides.
        """
        from enginekit.platform.status import EngineStatus

        wanted: set[str] | None = None
        if names is not None:
            wanted = set(names)
            for name in sorted(wanted):
                if not self.knows(name):
                    raise EngineUnavailable(self.not_installed(name))

        def asked(name: str) -> bool:
            return wanted is None or name in wanted

        for name in sorted(filter(asked, self._pending)):
            self._load(name)
        rows = []
        for name in filter(asked, list(self._engines)):
            providers = self.providers(name)
            common: dict[str, Any] = {
                "providers": providers,
                "hooks": self._hooks.get(name, ()),
                "origin": "" if providers else self._sources[name],
                "import_seconds": self._import_seconds.get(name),
            }
            try:
                reason = self.engine_unavailable_reason(name)
            except EnginekitError as exc:
                rows.append(EngineStatus(name, "failed", reason=str(exc), **common))
                continue
            if check and not reason:
                from enginekit.platform.check import check as check_engine

                result = check_engine(self._handle(name))
                if not result.ok:
                    rows.append(
                        EngineStatus(name, "failed", reason=result.reason, failed_hook=result.hook, **common)
                    )
                    continue
            rows.append(EngineStatus(name, "unavailable" if reason else "ok", reason=reason or "", **common))
        rows += [
            EngineStatus(name, "disabled", reason=why, providers=self.providers(name))
            for name, why in self._disabled.items()
            if asked(name)
        ]
        rows += [
            EngineStatus(
                f.name,
                "failed",
                reason=f.reason,
                providers=f.providers,
                origin=f.source,
                import_seconds=self._import_seconds.get(f.name),
            )
            for f in self.failures.values()
            if asked(f.name)
        ]
        return sorted(rows, key=lambda row: row.name)

    def engine_unavailable_reason(self, name: str) -> str | None:
        """Why a registered engine cannot be offered here, or None.

        Asked through the engine's handle once there is one; before that, through the same
        answer checks without making one, so listing engines never loads the planning code.
        """
        handle = self._handles.get(name)
        if handle is not None:
            return handle.unavailable()
        from enginekit.platform.contract import Answers

        self._plugin(name)  # loaded, or why not
        answers = Answers(name, self.source(name))
        return answers.reason("unavailable", answers.call("unavailable", self._caller(name, "unavailable")))

    def _caller(self, name: str, hook_name: str) -> Any:
        """The hook caller that reaches engine ``name`` (and wrappers) but no other engine."""
        key = (name, hook_name)
        if key not in self._callers:
            others = [p for other, p in self._engines.items() if other != name]
            caller = self.pm.subset_hook_caller(hook_name, remove_plugins=others)
            impls = caller.get_hookimpls()
            if not impls:
                # An optional hook nobody implements answers None without a trip through pluggy.
                self._callers[key] = _no_answer
            elif len(impls) == 1 and not (impls[0].wrapper or impls[0].hookwrapper or impls[0].kwargnames):
                # The engine's own implementation alone, no wrapper: call it as pluggy would
                # (with the arguments it declares), without the machinery wrappers need, for
                # as long as nothing else is registered for the hook (``pm`` is public).
                self._callers[key] = _Direct(impls[0], self.pm, caller)
            else:
                self._callers[key] = caller
        return self._callers[key]

    def _plugin(self, name: str) -> object:
        if name in self._engines:
            return self._engines[name]
        if name in self._pending:
            self._load(name)
            if name in self._engines:
                return self._engines[name]
        if name in self._disabled:
            raise EngineUnavailable(f"engine {name!r} is disabled on this node: {self._disabled[name]}")
        if name in self.failures and self.knows(name):
            failure = self.failures[name]
            where = ", ".join(p.label for p in failure.providers) if len(failure.providers) == 1 else None
            raise EngineUnavailable(
                f"engine {name!r} failed to load ({where or failure.source}): {failure.reason}"
            )
        raise EngineUnavailable(self.not_installed(name))

    def _load(self, name: str) -> None:
        ep = self._pending.pop(name)
        provider = Provider.of(ep)
        self._providers[name] = (provider,)
        # Before anything of the plugin is imported: its metadata says which API it needs.
        refused = refusal(asked_for(provider.requires))
        if refused is not None:
            self._fail(name, str(provider), refused, providers=(provider,))
            return
        try:
            # A plugin that prints while it is imported must not corrupt what the caller
            # prints (``render --json``): its output goes to stderr.
            with contextlib.redirect_stdout(sys.stderr):
                start = _clock()
                try:
                    target = ep.load()
                    plugin = _instantiate(
                        target, self._configs.get(name, {}), name, self.lenient, self.warnings
                    )
                finally:
                    self._import_seconds[name] = _clock() - start
            installed = _installed_path(name, self._installed_wanted.pop(name, None))
            self._add(plugin, name, replace=False, source=str(provider), label=provider.label)
            if installed is not None and not self.use_installed(name, installed):
                self.warnings.append(f"installed.{name}: engine {name!r} takes no installed build")
        except KeyboardInterrupt:
            raise
        except _BadHooks as exc:
            self._fail(name, str(provider), exc.problem, providers=(provider,))
        except BaseException as exc:  # one broken engine hides no other, whatever it raises
            from enginekit.base.secrets import described

            logger().debug("engine %r failed to load", name, exc_info=True)
            self._fail(name, str(provider), described(exc), providers=(provider,))

    def _fail(self, name: str, source: str, reason: str, *, providers: tuple[Provider, ...] = ()) -> None:
        # Reported where it matters, once: by ``engines`` and when this engine is asked
        # for. Logging it here would print it on every command, for every engine.
        logger().debug("engine %r unavailable (%s): %s", name, source, reason)
        from enginekit.platform.status import Failure

        self.failures[name] = Failure(name, source, reason, providers=providers)

    def _remove(self, name: str) -> None:
        self._pending.pop(name, None)
        if name in self._engines:
            self.pm.unregister(name=name)
            del self._engines[name]
            self._hooks.pop(name, None)
        self._forget()


#: The clock an engine's import is timed with (a test may replace it).
_clock = time.perf_counter


def _no_answer(**_: Any) -> None:
    return None


class _Manager(pluggy.PluginManager):
    """pluggy's plugin manager, counting what is registered: a direct call knows when to step aside."""

    generation = 0

    def register(self, plugin: object, name: str | None = None) -> str | None:
        self.generation += 1
        return super().register(plugin, name)

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any:
        self.generation += 1
        return super().unregister(plugin, name)

    def parse_hookimpl_opts(self, plugin: object, name: str) -> Any:
        # pluggy looks up every attribute the plugin has, ``object``'s two dozen dunders
        # included, with inspect.getattr_static: a cost paid by every engine at start-up.
        # No hook is named like a dunder, and pluggy never validates a "_" name anyway.
        if name[:2] == "__" and name[-2:] == "__":
            return None
        # pluggy before 1.4 reads each attribute with getattr, which runs a property (a
        # plugin's cached_property may read its option table): a descriptor that is no
        # function is never a hook implementation, so it is not read at all.
        static = inspect.getattr_static(plugin, name, None)
        if isinstance(static, (property, functools.cached_property)):
            return None
        return super().parse_hookimpl_opts(plugin, name)


class _Direct:
    """A call of one hook implementation with the arguments it declares, as pluggy makes it.

    Through ``caller`` (pluggy's) instead once anything else is registered or removed: a
    wrapper registered on the plugin manager directly wraps every later call.
    """

    __slots__ = ("argnames", "caller", "function", "pm", "seen")

    def __init__(self, impl: Any, pm: _Manager, caller: Any) -> None:
        self.function, self.argnames = impl.function, impl.argnames
        self.pm, self.caller, self.seen = pm, caller, pm.generation

    @property
    def alone(self) -> bool:
        """Whether the engine's own implementation is still all there is: no wrapper sees the call."""
        return self.pm.generation == self.seen

    def __call__(self, **kwargs: Any) -> Any:
        if self.pm.generation != self.seen:
            return self.caller(**kwargs)
        return self.function(*[kwargs[name] for name in self.argnames])


def _spec_names(pm: pluggy.PluginManager) -> list[str]:
    """The hooks enginekit defines, sorted."""
    return sorted(
        name
        for name, caller in vars(pm.hook).items()
        if not name.startswith("_") and isinstance(caller, pluggy.HookCaller) and caller.has_spec()
    )


def _unknown_hook(pm: pluggy.PluginManager, plugin: object, implemented: Collection[str]) -> str | None:
    """The first hook ``plugin`` implements that enginekit does not define, with the one meant."""
    for name in sorted(implemented):
        caller = getattr(pm.hook, name, None)
        if caller is None or caller.has_spec() or name.startswith("_"):
            continue
        if all(impl.optionalhook for impl in caller.get_hookimpls() if impl.plugin is plugin):
            continue  # pluggy's optionalhook: the plugin said it may be unknown here
        return f"unknown hook {name!r}{_close(name, _spec_names(pm))}"
    return None


def _hook_problem(pm: pluggy.PluginManager, plugin: object, exc: pluggy.PluginValidationError) -> str:
    """What pluggy refused in ``plugin``, said without the plugin's repr and on one line."""
    for attr in sorted(dir(plugin)):
        opts = pm.parse_hookimpl_opts(plugin, attr)
        caller = getattr(pm.hook, (opts or {}).get("specname") or attr, None) if opts else None
        if caller is None or caller.spec is None:
            continue
        with contextlib.suppress(Exception):  # a plugin whose attributes raise: pluggy's words below
            impl = pluggy.HookImpl(plugin, "", getattr(plugin, attr), opts)  # type: ignore[arg-type]
            passed = [*caller.spec.argnames, *caller.spec.kwargnames]
            for arg in sorted(set(impl.argnames) - set(passed)):
                guess = _guess(arg, passed)
                meant = f"did you mean {guess!r}? " if guess else ""
                return (
                    f"hook {caller.name!r} takes argument {arg!r}, which enginekit never passes "
                    f"({meant}it passes: {', '.join(sorted(passed)) or 'nothing'})"
                )
    text = " ".join(str(exc).split())  # pluggy's messages span lines
    # Compiled here, by re's own cache, the first time a plugin is refused: not at every start.
    return re.sub(_OBJECT_REPR, lambda m: f"<{m.group(1)}>", text)


#: ``<module.Class object at 0x7f…>``: an address in a message says nothing to an operator.
_OBJECT_REPR = r"<([\w.]+) object at 0x[0-9a-fA-F]+>"


def _guess(name: str, choices: Iterable[str]) -> str | None:
    """The one of ``choices`` that ``name`` most likely misspells, if any is close."""
    import difflib  # only when a name is wrong

    found = difflib.get_close_matches(name, list(choices), n=1)
    return found[0] if found else None


def _close(name: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` when ``name`` looks like a misspelling of one of ``choices``."""
    guess = _guess(name, choices)
    return f" (did you mean {guess!r}?)" if guess else ""


def _not_found_hint(name: str, choices: Iterable[str], lead: str) -> str:
    """What to do about an engine named but not installed: install it, or the name meant."""
    if name in FIRST_PARTY:
        return f"{lead}install the enginekit-{name} distribution"
    return _close(name, choices)


def _instantiate(obj: Any, raw: object, name: str, lenient: bool, warnings: list[str]) -> object:
    """Classes get their typed config section; a module plugin is used as it is."""
    if not isinstance(raw, Mapping):
        raise ConfigError([f"engines.{name}: expected a table, got {type(raw).__name__}"])
    config_type = getattr(obj, "config_type", None) if isinstance(obj, type) else None
    if config_type is not None:
        # An empty section is the config's defaults, made here: listing engines never
        # imports the spec reader (structure would build the same defaults directly).
        config = _defaults(config_type) if not raw else None
        if config is None:
            from enginekit.spec.convert import structure

            config, unknown = structure(raw, config_type, path=f"engines.{name}", lenient=lenient)
            warnings.extend(unknown)
        engine_class: type[EngineClass] = obj
        return engine_class(config)
    if raw:
        raise EnginekitError(f"engine {name!r} takes no configuration (engines.{name})")
    return obj() if isinstance(obj, type) else obj


def _defaults(cls: type) -> object | None:
    """``cls()``, which is what structuring an empty table makes, or None where structuring decides.

    That is when ``cls`` is not an attrs class, has a field without a default, or refuses
    its defaults: structuring the section then says why, as it always has.
    """
    if not attrs.has(cls) or any(f.init and f.default is attrs.NOTHING for f in attrs.fields(cls)):
        return None
    try:
        return cls()
    except Exception:  # reported as structuring the section reports it
        return None


def _installed_path(name: str, value: object) -> Path | None:
    """The ``[installed]`` build of engine ``name``: an absolute path, or refused with the field named."""
    if value is None:
        return None
    # Relative to whatever directory the agent runs in, as root, is never what was meant.
    if not isinstance(value, str) or not value.startswith("/") or unsafe_text(value):
        raise ConfigError([f"installed.{name}: expected an absolute path to the build's root"])
    return Path(value)
