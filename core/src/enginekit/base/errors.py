"""Typed exceptions: every failure a user can cause has one, with a readable message."""

from __future__ import annotations

from collections.abc import Iterable


class EnginekitError(Exception):
    """Base of every error enginekit raises on purpose."""


class ProblemsError(EnginekitError):
    """An input with one or more problems, all reported at once."""

    def __init__(self, problems: Iterable[str]) -> None:
        # A lone string is one problem: iterated, it would be one "problem" per character.
        self.problems: tuple[str, ...] = (problems,) if isinstance(problems, str) else tuple(problems)
        super().__init__("; ".join(self.problems) if self.problems else "invalid input")


class SpecError(ProblemsError):
    """A shard spec, profile or GPU list that does not structure or breaks a spec rule."""


class EnvPolicyError(ProblemsError):
    """A profile environment variable the site's policy refuses."""


class ConfigError(ProblemsError):
    """A node configuration that cannot be used."""


class PlanMismatch(ProblemsError):
    """A received launch plan that is not what the shard its receiver expected yields.

    One problem per field that differs, each naming it (``plan.shard.bind_addr``).
    """


class EngineUnavailable(EnginekitError):
    """The engine asked for is unknown, disabled, unavailable or failed to load."""


class EngineError(EnginekitError):
    """An engine plugin broke its contract, or cannot build this shard."""


class HookError(EngineError):
    """One hook of an engine plugin raised, or answered what its contract does not allow.

    ``hook`` names it (``commands``), for a caller that reports engines by what broke.
    """

    def __init__(self, message: str, hook: str = "") -> None:
        super().__init__(message)
        self.hook = hook
