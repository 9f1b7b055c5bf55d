"""What each hook may answer: answers are checked at the boundary, so a broken plugin is one clear error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from enginekit.errors import EngineError
from enginekit.model import Command
from enginekit.text import unsafe_text

#: The longest problem, note or reason a plugin may return; longer ones are cut, not refused.
MAX_MESSAGE = 2000


class Answers:
    """Checks the answers of one engine's hooks; every error names the engine, its source and the hook."""

    def __init__(self, engine: str, source: str) -> None:
        self.engine = engine
        self.source = source

    def broken(self, hook: str, what: str) -> EngineError:
        """The error for a hook that broke its contract."""
        return EngineError(f"engine {self.engine!r} ({self.source}): hook {hook}() {what}")

    def sentences(self, hook: str, answer: object) -> list[str]:
        """A list of sentences (problems, notes); ``None`` is the empty list."""
        if answer is None:
            return []
        if not isinstance(answer, list | tuple):
            # A string is iterable too: it would become one "problem" per character.
            raise self.broken(hook, f"returned {_kind(answer)}, expected a list of strings")
        for item in answer:
            if not isinstance(item, str):
                raise self.broken(hook, f"returned a list holding {_kind(item)}, expected strings")
        return [_printable(item) for item in answer]

    def commands(self, answer: object) -> list[Command]:
        """A non-empty list of well-formed commands."""
        if not isinstance(answer, list | tuple):
            # A generator would be consumed once and then look empty everywhere else.
            raise self.broken("commands", f"returned {_kind(answer)}, expected a list of Commands")
        if not answer:
            raise self.broken("commands", "returned no commands; a shard is at least one process")
        for i, command in enumerate(answer):
            self.command("commands", command, where=f"command {i}")
        return list(answer)

    def command(self, hook: str, command: object, *, where: str = "the command") -> Command:
        """One command whose argv and environment can be executed as they are."""
        if not isinstance(command, Command):
            raise self.broken(hook, f"returned {_kind(command)} as {where}, expected a Command")
        if not isinstance(command.path, str) or not command.path:
            raise self.broken(hook, f"returned {where} without a path")
        _each_text(self, hook, where, "argv", (command.path, *command.args))
        _each_text(self, hook, where, "env name", command.env)
        _each_text(self, hook, where, "env value", command.env.values())
        if not isinstance(command.name, str) or not isinstance(command.wait_for_leader_port, bool):
            raise self.broken(hook, f"returned {where} with a name or wait flag of the wrong type")
        if not isinstance(command.secret_env, frozenset) or not command.secret_env <= command.env.keys():
            raise self.broken(hook, f"returned {where} whose secret_env names variables it does not set")
        for key, reason in command.why.items():
            if not isinstance(key, str) or not isinstance(reason, str):
                raise self.broken(hook, f"returned {where} whose why is not a table of strings")
        return command

    def optional_command(self, hook: str, answer: object) -> Command | None:
        """A command, or ``None`` for "not implemented"."""
        return None if answer is None else self.command(hook, answer)

    def flag(self, hook: str, answer: object) -> bool | None:
        """True, False, or ``None`` for "use the default"."""
        if answer is not None and not isinstance(answer, bool):
            raise self.broken(hook, f"returned {_kind(answer)}, expected true or false")
        return answer

    def url_path(self, hook: str, answer: object, default: str) -> str:
        """A path appended to the shard's base URL: it starts with ``/`` and is plain text."""
        if answer is None:
            return default
        if not isinstance(answer, str) or not answer.startswith("/") or unsafe_text(answer) or " " in answer:
            # ``12345`` would make http://127.0.0.1:800012345 of the health URL.
            raise self.broken(hook, f"returned {_kind(answer)}, expected a URL path starting with '/'")
        return answer

    def reason(self, hook: str, answer: object) -> str | None:
        """A sentence, or ``None``."""
        if answer is None or answer == "":
            return None
        if not isinstance(answer, str):
            raise self.broken(hook, f"returned {_kind(answer)}, expected a sentence or None")
        return _printable(answer)

    def call(self, hook: str, function: Callable[..., Any], secret: str = "", **kwargs: Any) -> Any:
        """Call ``function``; whatever it raises becomes one error naming the engine and the hook.

        An :class:`~enginekit.errors.EnginekitError` is the plugin saying why it refuses:
        it keeps its type (so a refusal stays a refusal) with the key masked. Anything
        else is a bug in the plugin, reported as such.
        """
        from enginekit.errors import EnginekitError

        try:
            return function(**kwargs)
        except EnginekitError as exc:
            if secret and secret in str(exc):
                raise type(exc)(_masked(exc, secret)) from None
            raise
        except Exception as exc:
            message = _printable(str(exc).replace(secret, "<secret>") if secret else str(exc))
            raise self.broken(hook, f"raised {type(exc).__name__}: {message}") from None


def _each_text(answers: Answers, hook: str, where: str, what: str, items: Any) -> None:
    for item in items:
        if not isinstance(item, str):
            raise answers.broken(hook, f"returned {where} with an {what} of type {type(item).__name__}")
        problem = unsafe_text(item)
        if problem:
            raise answers.broken(hook, f"returned {where} with an {what} that {problem}")


def _kind(value: object) -> str:
    """What a value is, without showing it: it may be anything, a secret included."""
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    return f"a value of type {type(value).__name__}"


def _printable(text: str) -> str:
    """``text`` with unsafe characters escaped and its length bounded, fit for one line of a terminal."""
    if unsafe_text(text):
        text = text.encode("unicode_escape", "backslashreplace").decode("ascii")
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + "…"


def _masked(exc: Exception, secret: str) -> Any:
    problems = getattr(exc, "problems", None)
    if problems is not None:
        return [p.replace(secret, "<secret>") for p in problems]
    return str(exc).replace(secret, "<secret>")
