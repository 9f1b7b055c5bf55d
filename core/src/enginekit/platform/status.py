"""What became of each engine: the rows of ``enginekit engines`` and the failures behind them.

Apart from the registry, which imports it only when an engine fails or is listed: a
command that plans a shard never builds these classes.
"""

from __future__ import annotations

import attrs

from enginekit.platform.api import Asked, asked_for
from enginekit.platform.entrypoints import Provider

#: The states of ``enginekit engines``, in the order an operator reads them.
STATUSES = ("ok", "unavailable", "disabled", "failed")


@attrs.frozen
class Failure:
    """An engine that could not be registered: what provided it and what went wrong."""

    name: str
    source: str
    reason: str
    providers: tuple[Provider, ...] = attrs.field(default=(), kw_only=True)


@attrs.frozen
class EngineStatus:
    """One row of ``enginekit engines``: ok, disabled, unavailable or failed, why, and what provides it."""

    name: str
    #: One of :data:`STATUSES`.
    status: str
    reason: str = attrs.field(default="", kw_only=True)
    #: The distributions that provide it: one, none for an engine added in process, or
    #: several when they clash over the name.
    providers: tuple[Provider, ...] = attrs.field(default=(), kw_only=True)
    #: The hooks the engine implements, sorted; ``None`` when it was never loaded.
    hooks: tuple[str, ...] | None = attrs.field(default=None, kw_only=True)
    #: What added an engine that no distribution provides (``Registry.add``'s ``source``).
    origin: str = attrs.field(default="", kw_only=True)

    #: Seconds importing its module and building its plugin object took; ``None`` when never loaded.
    import_seconds: float | None = attrs.field(default=None, kw_only=True)
    #: The hook that broke when ``engines --check`` planned its example (``failed`` rows only).
    failed_hook: str = attrs.field(default="", kw_only=True)

    @property
    def plugin_api(self) -> Asked | None:
        """The plugin API the providing distribution asks for; ``None`` unless exactly one provides it."""
        return asked_for(self.providers[0].requires) if len(self.providers) == 1 else None

    @property
    def engine(self) -> str:
        """The engine's name (the JSON field's name)."""
        return self.name

    @property
    def detail(self) -> str:
        """The reason; the name this field had before it was structured."""
        return self.reason

    @property
    def source(self) -> str:
        """What provided it, as one line: ``dist version (module:attr)``, joined with "and"."""
        return " and ".join(str(p) for p in self.providers) or self.origin

    @property
    def distribution(self) -> str | None:
        """The providing distribution, when exactly one provides it."""
        return self.providers[0].distribution if len(self.providers) == 1 else None

    @property
    def version(self) -> str | None:
        """The providing distribution's version, when exactly one provides it."""
        return self.providers[0].version if len(self.providers) == 1 else None

    @property
    def entry_point(self) -> str | None:
        """``module:attribute`` of the entry point, when exactly one provides it."""
        return self.providers[0].entry_point if len(self.providers) == 1 else None
