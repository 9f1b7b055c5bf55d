"""The first release's module names, kept importable (with a deprecation warning) for its plugins.

Before ``enginekit.plugin`` existed, a plugin imported the core's modules by name
(``from enginekit.args import ArgSyntax``, ``from enginekit.ncclenv import placement_env``).
The core has since moved into rooms (``docs/architecture.md``). A finder at the end of
``sys.meta_path`` answers each of those names with a module that forwards every attribute
to where the module lives now, after warning once per import; a name the first release
never had is left to the normal "no module named" error. Importing ``enginekit`` installs
the finder; it costs nothing until such a name is imported.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import importlib.abc

#: The first release's module, and where its contents live now.
FIRST_RELEASE_MODULES = {
    "enginekit.args": "enginekit.policy.args",
    "enginekit.checks": "enginekit.policy.checks",
    "enginekit.config": "enginekit.platform.config",
    "enginekit.contract": "enginekit.platform.contract",
    "enginekit.convert": "enginekit.spec.convert",
    "enginekit.engine": "enginekit.platform.engine",
    "enginekit.envpolicy": "enginekit.policy.env",
    "enginekit.errors": "enginekit.base.errors",
    "enginekit.hookspecs": "enginekit.platform.hookspecs",
    "enginekit.launcher": "enginekit.placement.launcher",
    "enginekit.logs": "enginekit.base.logs",
    "enginekit.model": "enginekit.spec.model",
    "enginekit.ncclenv": "enginekit.placement.env",
    "enginekit.registry": "enginekit.platform.registry",
    "enginekit.speccheck": "enginekit.spec.rules",
    "enginekit.text": "enginekit.base.text",
}


class _Forwarding(types.ModuleType):
    """A module whose attributes are another module's: the old name, the new contents."""

    def __init__(self, name: str, target: types.ModuleType) -> None:
        super().__init__(name, target.__doc__)
        self._target = target

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._target, attribute)

    def __dir__(self) -> list[str]:
        return dir(self._target)


class _Loader:
    """Makes the forwarding module (``importlib.abc`` is not imported: it costs start-up time)."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        from enginekit.base.deprecation import deprecated

        target = FIRST_RELEASE_MODULES[spec.name]
        deprecated(f"module {spec.name}", f"import from enginekit.plugin (or {target})", stacklevel=3)
        return _Forwarding(spec.name, importlib.import_module(target))

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the module forwards to one already imported."""


class MovedModules:
    """Finds the first release's module names (:data:`FIRST_RELEASE_MODULES`), nothing else."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in FIRST_RELEASE_MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, cast("importlib.abc.Loader", _Loader()))


def install() -> None:
    """Put the finder last on ``sys.meta_path``, once: the real modules are always found first."""
    if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(MovedModules())
