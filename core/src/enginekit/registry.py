"""The registry: engines discovered through entry points, loaded on first use, called one at a time."""

from __future__ import annotations

import contextlib
import importlib.metadata
import sys
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import pluggy

from enginekit import hookspecs
from enginekit.contract import described
from enginekit.convert import structure
from enginekit.engine import Engine
from enginekit.envpolicy import DEFAULT_POLICY, EnvPolicy
from enginekit.errors import ConfigError, EnginekitError, EngineUnavailable
from enginekit.logs import logger
from enginekit.text import unsafe_text

if TYPE_CHECKING:
    from enginekit.plugin import EngineClass


@attrs.frozen
class Failure:
    """An engine that could not be registered: what provided it and what went wrong."""

    name: str
    source: str
    reason: str


@attrs.frozen
class EngineStatus:
    """One row of ``enginekit engines``: ok, disabled, unavailable or failed, and why."""

    name: str
    status: str
    source: str = ""
    detail: str = ""


class Registry:
    """Engine plugins in one pluggy PluginManager, keyed by engine name.

    Building one from entry points imports nothing: an engine's module is imported the
    first time that engine is asked for, so rendering a vLLM shard imports only the
    vLLM plugin, and a broken TensorRT-LLM install never stops vLLM.
    """

    def __init__(self, *, policy: EnvPolicy = DEFAULT_POLICY, lenient: bool = False) -> None:
        self.pm = _Manager(hookspecs.PROJECT_NAME)
        self.pm.add_hookspecs(hookspecs)
        self._policy = policy
        self.lenient = lenient
        self.failures: dict[str, Failure] = {}
        self.warnings: list[str] = []
        self._engines: dict[str, object] = {}
        self._sources: dict[str, str] = {}
        self._pending: dict[str, importlib.metadata.EntryPoint] = {}
        self._configs: Mapping[str, Mapping[str, Any]] = {}
        self._installed: dict[str, Path] = {}
        #: ``[installed]`` from the node config, as written: checked when its engine
        #: loads, so one engine's entry never imports, or breaks, another.
        self._installed_wanted: dict[str, object] = {}
        #: Engines this node does not offer, and what said so.
        self._disabled: dict[str, str] = {}
        self._callers: dict[tuple[str, str], Any] = {}
        self._handles: dict[str, Engine] = {}

    @property
    def policy(self) -> EnvPolicy:
        """The site's env policy; each engine adds its own rules to it."""
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
        policy: EnvPolicy = DEFAULT_POLICY,
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
        :param lenient: Unknown keys in config sections and specs are reported, not fatal.
        :param installed: Builds the agent installed, by engine name; each is checked
            when its engine loads.
        :param not_enabled_because: Why an engine outside ``enable`` is not offered.
        """
        registry = cls(policy=policy, lenient=lenient)
        registry._configs = dict(config or {})
        registry._installed_wanted = dict(installed or {})
        reasons = disable if isinstance(disable, Mapping) else dict.fromkeys(disable, "disabled here")
        found: dict[str, list[importlib.metadata.EntryPoint]] = {}
        for ep in importlib.metadata.entry_points(group=group):
            found.setdefault(ep.name, []).append(ep)
        for name, eps in found.items():
            if name in reasons:
                registry._disabled[name] = reasons[name]
            elif enable is not None and name not in enable:
                registry._disabled[name] = not_enabled_because
            elif len(eps) > 1 and (
                len({ep.value for ep in eps}) > 1 or len({_distribution(ep) for ep in eps}) > 1
            ):
                # Two distributions claim one name: refuse to guess which one is meant. A
                # third party registering "vllm" must not quietly replace, or break, vLLM,
                # even by pointing at the same module path its own package shadows.
                sources = " and ".join(sorted(_source(ep) for ep in eps))
                registry._fail(
                    name,
                    sources,
                    f"{len(eps)} distributions provide engine {name!r} and enginekit will not "
                    f"guess which to run: uninstall all but one",
                )
            else:
                registry._pending[name] = eps[0]
        for name in sorted(set(enable or ()) - set(found)):
            registry._fail(name, "-", "enabled but not installed")
        for name in sorted(set(reasons) - set(found)):
            registry.warnings.append(f"{reasons[name]} names {name!r}, but no such engine is installed")
        for name in sorted(set(registry._configs) - set(found)):
            registry.warnings.append(f"engines.{name}: configured, but no such engine is installed")
        for name in sorted(set(registry._installed_wanted) - set(found)):
            registry.warnings.append(f"installed.{name}: no such engine is installed")
        return registry

    def add(self, plugin: object, name: str, *, replace: bool = False, source: str = "") -> None:
        """Register ``plugin`` as engine ``name`` after checking its hooks.

        Refuses a name already taken unless ``replace``: names come from any installed
        distribution, and silently replacing one is how the wrong engine gets launched.
        """
        if name in self._engines or name in self._pending:
            if not replace:
                raise EnginekitError(f"engine {name!r} is already registered (pass replace=True)")
            self._remove(name)
        try:
            self.pm.register(plugin, name=name)
            self.pm.check_pending()  # unknown hook names, e.g. "comands"
            implemented = {caller.name for caller in self.pm.get_hookcallers(plugin) or ()}
            missing = hookspecs.REQUIRED_HOOKS - implemented
            if missing:
                raise pluggy.PluginValidationError(
                    plugin, f"engine {name!r} lacks required hooks {sorted(missing)}"
                )
        except Exception:
            if self.pm.has_plugin(name):  # pluggy can leave partial state behind
                self.pm.unregister(name=name)
            raise
        self._engines[name] = plugin
        self._sources[name] = source or "added in process"
        self._forget()

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

    def _handle(self, name: str) -> Engine:
        engine = self._handles.get(name)
        if engine is None:
            plugin = self._plugin(name)
            engine = Engine(
                name,
                plugin,
                lambda hook_name: self._caller(name, hook_name),
                source=self.source(name),
                site_policy=lambda: self._policy,
                installed=self._installed.get(name),
            )
            self._handles[name] = engine
        return engine

    def statuses(self) -> list[EngineStatus]:
        """Load every engine and report each one's status, sorted by name.

        Never raises for an engine: one whose constant hooks raise or answer garbage is
        listed as failed, with the reason, and every other engine is listed as it is.
        """
        rows = []
        for name in sorted(self._pending):
            self._load(name)
        for name in list(self._engines):
            try:
                reason = self.engine_unavailable_reason(name)
            except EnginekitError as exc:
                rows.append(EngineStatus(name, "failed", self._sources[name], str(exc)))
                continue
            status = "unavailable" if reason else "ok"
            rows.append(EngineStatus(name, status, self._sources[name], reason or ""))
        rows += [EngineStatus(name, "disabled", "", why) for name, why in self._disabled.items()]
        rows += [EngineStatus(f.name, "failed", f.source, f.reason) for f in self.failures.values()]
        return sorted(rows, key=lambda row: row.name)

    def engine_unavailable_reason(self, name: str) -> str | None:
        """Why a registered engine cannot be offered here, or None."""
        return self._handle(name).unavailable()

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
        if name in self.failures:
            failure = self.failures[name]
            raise EngineUnavailable(f"engine {name!r} failed to load ({failure.source}): {failure.reason}")
        have = ", ".join(self.names()) or "none"
        raise EngineUnavailable(f"unknown engine {name!r} (have {have})")

    def _load(self, name: str) -> None:
        ep = self._pending.pop(name)
        try:
            # A plugin that prints while it is imported must not corrupt what the caller
            # prints (``render --json``): its output goes to stderr.
            with contextlib.redirect_stdout(sys.stderr):
                target = ep.load()
                plugin = _instantiate(target, self._configs.get(name, {}), name, self.lenient, self.warnings)
            installed = _installed_path(name, self._installed_wanted.pop(name, None))
            self.add(plugin, name, source=_source(ep))
            if installed is not None and not self.use_installed(name, installed):
                self.warnings.append(f"installed.{name}: engine {name!r} takes no installed build")
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # one broken engine hides no other, whatever it raises
            logger().debug("engine %r failed to load", name, exc_info=True)
            self._fail(name, _source(ep), described(exc))

    def _fail(self, name: str, source: str, reason: str) -> None:
        # Reported where it matters, once: by ``engines`` and when this engine is asked
        # for. Logging it here would print it on every command, for every engine.
        logger().debug("engine %r unavailable (%s): %s", name, source, reason)
        self.failures[name] = Failure(name, source, reason)

    def _remove(self, name: str) -> None:
        self._pending.pop(name, None)
        if name in self._engines:
            self.pm.unregister(name=name)
            del self._engines[name]
        self._forget()


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


def _instantiate(obj: Any, raw: object, name: str, lenient: bool, warnings: list[str]) -> object:
    """Classes get their typed config section; a module plugin is used as it is."""
    if not isinstance(raw, Mapping):
        raise ConfigError([f"engines.{name}: expected a table, got {type(raw).__name__}"])
    config_type = getattr(obj, "config_type", None) if isinstance(obj, type) else None
    if config_type is not None:
        config, unknown = structure(raw, config_type, path=f"engines.{name}", lenient=lenient)
        warnings.extend(unknown)
        engine_class: type[EngineClass] = obj
        return engine_class(config)
    if raw:
        raise EnginekitError(f"engine {name!r} takes no configuration (engines.{name})")
    return obj() if isinstance(obj, type) else obj


def _installed_path(name: str, value: object) -> Path | None:
    """The ``[installed]`` build of engine ``name``: an absolute path, or refused with the field named."""
    if value is None:
        return None
    # Relative to whatever directory the agent runs in, as root, is never what was meant.
    if not isinstance(value, str) or not value.startswith("/") or unsafe_text(value):
        raise ConfigError([f"installed.{name}: expected an absolute path to the build's root"])
    return Path(value)


def _distribution(ep: importlib.metadata.EntryPoint) -> str:
    return ep.dist.metadata["Name"] if ep.dist is not None else "?"


def _source(ep: importlib.metadata.EntryPoint) -> str:
    dist = ep.dist
    where = f"{dist.metadata['Name']} {dist.version}" if dist is not None else "?"
    return f"{where} ({ep.value})"
