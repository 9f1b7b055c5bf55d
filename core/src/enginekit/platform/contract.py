"""What each hook may answer: answers are checked at the boundary, so a broken plugin is one clear error."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from enginekit.base.errors import EngineError, EnginekitError, HookError
from enginekit.base.frozen import FrozenDict
from enginekit.base.secrets import _refusal, described
from enginekit.base.text import has_unsafe, is_portable_name, is_url_path, printable, unsafe_text

# Imported by the checks that read them: ``enginekit engines`` checks only the
# ``unavailable`` answer, and must not load the model or the policy types to do it.
if TYPE_CHECKING:
    from enginekit.layout.model import LayoutRules
    from enginekit.policy.engine import EnginePolicy
    from enginekit.spec.model import Command, ShardSpec

F = TypeVar("F", bound=Callable[..., Any])
#: Portable names, one per line: every env name of a command checked in one match.
_PORTABLE_NAMES = r"(?:[A-Za-z_][A-Za-z0-9_]{0,255}\n)+\Z"
#: A part of a variable name: a prefix, or a suffix such as ``_PATH``.
_NAME_PART = r"[A-Za-z0-9_]{1,256}\Z"
#: The shortest namespace an engine may open: its name and an underscore, at the least.
_MIN_NAMESPACE = 3


def _guarded(check: F) -> F:
    """Whatever a hostile answer does while it is read (an ``__iter__`` or ``__eq__`` that
    raises) is the plugin's fault, reported as such, never a crash of the caller."""

    @functools.wraps(check)
    def guarded(self: Answers, hook: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return check(self, hook, *args, **kwargs)
        except EngineError:
            raise
        except Exception as exc:
            raise self.broken(
                hook, f"returned an answer that cannot be read ({type(exc).__name__})"
            ) from None

    return guarded  # type: ignore[return-value]


class Answers:
    """Checks the answers of one engine's hooks; every error names the engine, its source and the hook.

    Every check is guarded: an answer may be an object whose methods (``__class__``
    included, which ``isinstance`` reads) are the plugin's. Strings are recognised by
    their real type, ``type(x)``, which no object can fake.
    """

    def __init__(self, engine: str, source: str) -> None:
        self.engine = engine
        self.source = source

    def broken(self, hook: str, what: str) -> HookError:
        """The error for a hook that broke its contract."""
        return HookError(f"engine {self.engine!r} ({printable(self.source)}): hook {hook}() {what}", hook)

    @_guarded
    def sentences(self, hook: str, answer: object) -> list[str]:
        """A list of sentences (problems, notes); ``None`` is the empty list."""
        if answer is None:
            return []
        if type(answer) not in (list, tuple):
            # A string is iterable too: it would become one "problem" per character.
            raise self.broken(hook, f"returned {_kind(answer)}, expected a list of strings")
        out = []
        for item in answer:  # type: ignore[attr-defined]
            if not issubclass(type(item), str):
                raise self.broken(hook, f"returned a list holding {_kind(item)}, expected strings")
            out.append(printable(str.__str__(item)))  # a plain copy: a subclass's methods never run
        return out

    @_guarded
    def commands(self, hook: str, answer: object) -> list[Command]:
        """A non-empty list of well-formed commands."""
        if type(answer) not in (list, tuple):
            # A generator would be consumed once and then look empty everywhere else.
            raise self.broken(hook, f"returned {_kind(answer)}, expected a list of Commands")
        commands = list(answer)  # type: ignore[call-overload]
        if not commands:
            raise self.broken(hook, "returned no commands; a shard is at least one process")
        return [self._command(hook, command, f"command {i}") for i, command in enumerate(commands)]

    @_guarded
    def example(self, hook: str, answer: object) -> ShardSpec | None:
        """A shard of this engine, or ``None`` for "not implemented"."""
        from enginekit.spec.model import ShardSpec

        if answer is None:
            return None
        if type(answer) is not ShardSpec:
            raise self.broken(hook, f"returned {_kind(answer)}, expected a ShardSpec")
        if answer.profile.engine != self.engine:
            engine = printable(str(answer.profile.engine), 64)
            raise self.broken(hook, f"returned a shard whose profile names engine {engine!r}")
        return answer

    @_guarded
    def optional_command(self, hook: str, answer: object) -> Command | None:
        """A command, or ``None`` for "not implemented"."""
        return None if answer is None else self._command(hook, answer, "the command")

    def _command(self, hook: str, command: object, where: str) -> Command:
        from enginekit.spec.model import Command

        if type(command) is not Command:
            raise self.broken(hook, f"returned {_kind(command)} as {where}, expected a Command")
        if type(command.path) is not str or not command.path:
            raise self.broken(hook, f"returned {where} without a path")
        if type(command.args) is not tuple:
            # A string is a sequence too: "--abc" would run as the options -, -, a, b, c.
            raise self.broken(
                hook, f"returned {where} whose args are {_kind(command.args)}, expected a tuple"
            )
        for what, value in (("env", command.env), ("why", command.why)):
            if type(value) is not FrozenDict:
                # Command's converter makes one; a plain dict got in around it, and could change.
                raise self.broken(hook, f"returned {where} whose {what} is {_kind(value)}, expected a table")
        texts = (command.path, *command.args, *command.env, *command.env.values(), command.name)
        texts += (*command.why, *command.why.values())
        if set(map(type, texts)) != {str} or has_unsafe(" ".join(texts)):
            # Rare: find which, to say so.
            _each_text(self, hook, where, "an argv element", (command.path, *command.args))
            _each_text(self, hook, where, "an env name", command.env)
            _each_text(self, hook, where, "an env value", command.env.values())
            _each_text(self, hook, where, "a name", (command.name,))
            _each_text(self, hook, where, "a reason", (*command.why, *command.why.values()))
        if command.env and not re.match(_PORTABLE_NAMES, "\n".join(command.env) + "\n"):
            # "CUDA_VISIBLE_DEVICES=0,1" as a name is a second entry for the real variable.
            raise self.broken(hook, f"returned {where} with an env name that is not a portable name")
        if type(command.wait_for_leader_port) is not bool:
            raise self.broken(hook, f"returned {where} whose wait_for_leader_port is not true or false")
        secret = command.secret_env
        if (
            type(secret) is not frozenset
            or not all(type(k) is str for k in secret)
            or not secret <= command.env.keys()
        ):
            raise self.broken(hook, f"returned {where} whose secret_env names variables it does not set")
        return command

    @_guarded
    def policy(self, hook: str, answer: object) -> EnginePolicy:
        """An :class:`EnginePolicy` whose fields hold what they say; ``None`` is no policy."""
        from enginekit.policy.args import ArgSyntax
        from enginekit.policy.engine import NO_POLICY, EnginePolicy

        if answer is None:
            return NO_POLICY
        if type(answer) is not EnginePolicy:
            raise self.broken(hook, f"returned {_kind(answer)}, expected an EnginePolicy")
        names = (*answer.open_env, *answer.reserved_env, *answer.secret_env)
        if set(map(type, names)) - {str} or not all(map(is_portable_name, names)):
            raise self.broken(hook, "returned a policy whose variable names are not portable names")
        if any(len(prefix) < _MIN_NAMESPACE for prefix in answer.open_env):
            # "" or "A" would open every unknown name to this engine's profiles.
            raise self.broken(
                hook, f"returned a policy opening a namespace shorter than {_MIN_NAMESPACE} characters"
            )
        if not all(_deny_group_ok(group) for group in answer.denied_env):
            raise self.broken(
                hook,
                "returned a policy whose denied_env holds something other than EnvDeny groups of "
                "portable names, a printable reason and a true or false floor",
            )
        if not _aliases_ok(answer.env_aliases):
            raise self.broken(
                hook,
                "returned a policy whose env_aliases are not EnvAlias entries of two different portable "
                f"names (prefixes of at least {_MIN_NAMESPACE} characters), a printable reason, none the "
                "alias of another, no name read by two",
            )
        unsafe = answer.unsafe_env
        if not isinstance(unsafe, Mapping) or not all(
            type(name) is str and is_portable_name(name) and _texts(why) and why.strip()
            for name, why in unsafe.items()
        ):
            raise self.broken(
                hook,
                "returned a policy whose unsafe_env is not a table of portable names to a printable reason",
            )
        if not isinstance(answer.syntax, ArgSyntax):
            raise self.broken(hook, "returned a policy whose syntax is not an ArgSyntax")
        for field in ("managed_args", "risky_args", "secret_args"):
            table = getattr(answer, field)
            if not isinstance(table, Mapping) or not _texts(*table, *table.values()):
                raise self.broken(hook, f"returned a policy whose {field} is not a table of option to text")
        if not _texts(answer.display_name) and answer.display_name != "":
            raise self.broken(hook, "returned a policy whose display_name is not plain text")
        if set(map(type, answer.allowed_args)) - {str}:
            raise self.broken(hook, "returned a policy whose allowed_args are not option names")
        arity = answer.arity
        if arity is not None and not (callable(arity) or isinstance(arity, Mapping)):
            raise self.broken(hook, "returned a policy whose arity is neither a table nor a function")
        if isinstance(arity, Mapping) and not all(
            type(option) is str and (count is None or (type(count) is int and count >= 0))
            for option, count in arity.items()
        ):
            raise self.broken(hook, "returned a policy whose arity table is not option to a count of values")
        return answer

    @_guarded
    def layout_rules(self, hook: str, answer: object) -> LayoutRules:
        """A :class:`LayoutRules` whose fields hold what they say; ``None``: tensor and pipeline only."""
        from enginekit.layout.model import NO_DATA_PARALLEL, LayoutRules
        from enginekit.spec.model import DP_BALANCING

        if answer is None:
            return NO_DATA_PARALLEL
        if type(answer) is not LayoutRules:
            raise self.broken(hook, f"returned {_kind(answer)}, expected a LayoutRules")
        if type(answer.balancing) is not frozenset or not answer.balancing <= set(DP_BALANCING):
            raise self.broken(
                hook, f"returned layout rules whose balancing is not a set of {', '.join(DP_BALANCING)}"
            )
        flags = (
            answer.expert_parallel,
            answer.kv_events_per_rank,
            answer.kv_events_replay,
            answer.health_stub,
        )
        if {type(flag) for flag in flags} != {bool}:
            raise self.broken(
                hook,
                "returned layout rules whose expert_parallel, kv_events_per_rank, kv_events_replay or "
                "health_stub is not true or false",
            )
        if type(answer.all2all) is not frozenset or not _texts(*answer.all2all):
            raise self.broken(hook, "returned layout rules whose all2all is not a set of names")
        ports = answer.coordination
        names = [getattr(port, "name", None) for port in ports]
        if not _texts(*names) or len(set(names)) != len(names) or len(names) > 16:
            raise self.broken(
                hook, "returned layout rules whose coordination is not up to 16 distinct port names"
            )
        if not all(_coordination_port(port) for port in ports):
            raise self.broken(
                hook,
                f"returned layout rules whose coordination ports are not each an offset of 0-{MAX_OFFSET} "
                f"from the leader port, a count of 1-{MAX_OFFSET} ports, and true or false for per_rank "
                f"and every_node",
            )
        if not _transfer_ports(answer.kv_transfer):
            raise self.broken(
                hook,
                "returned layout rules whose kv_transfer is neither None nor KVTransferPorts with roles a "
                "set of prefill and decode and scope one of leader, rank or tp-rank",
            )
        return answer

    @_guarded
    def flag(self, hook: str, answer: object) -> bool | None:
        """True, False, or ``None`` for "use the default"."""
        if answer is not None and type(answer) is not bool:
            raise self.broken(hook, f"returned {_kind(answer)}, expected true or false")
        return answer

    @_guarded
    def url_path(self, hook: str, answer: object, default: str) -> str:
        """A path appended to the shard's base URL: it starts with ``/`` and is plain text."""
        if answer is None:
            return default
        if type(answer) is not str or not is_url_path(answer):
            # ``12345`` would make http://127.0.0.1:800012345 of the health URL.
            raise self.broken(hook, f"returned {_kind(answer)}, expected a URL path starting with '/'")
        return answer

    @_guarded
    def choice(self, hook: str, answer: object, choices: tuple[str, ...], default: str) -> str:
        """One of ``choices``, or ``default`` for ``None``."""
        if answer is None:
            return default
        if type(answer) is not str or answer not in choices:
            expected = " or ".join(repr(choice) for choice in choices)
            raise self.broken(hook, f"returned {_kind(answer)}, expected {expected}")
        return answer

    @_guarded
    def reason(self, hook: str, answer: object) -> str | None:
        """A sentence, or ``None``."""
        if answer is None or (type(answer) is str and not answer):
            return None
        if not issubclass(type(answer), str):
            raise self.broken(hook, f"returned {_kind(answer)}, expected a sentence or None")
        return printable(str.__str__(answer))

    def call(self, hook: str, function: Callable[..., Any], secret: str = "", **kwargs: Any) -> Any:
        """Call ``function``; whatever it raises becomes one error naming the engine and the hook.

        An :class:`~enginekit.base.errors.EnginekitError` is the plugin saying why it refuses:
        it keeps its kind (so a refusal stays a refusal), with the key masked and the
        text made printable. Anything else — ``SystemExit`` included: a plugin does not
        decide the caller's exit status — is a bug in the plugin, reported as such.
        """
        try:
            return function(**kwargs)
        except EnginekitError as exc:
            raise _refusal(exc, secret) from None
        except KeyboardInterrupt:
            raise  # the operator pressed Ctrl-C: an interruption, not the plugin's answer
        except BaseException as exc:  # SystemExit and its kin are the plugin's answer too
            raise self.broken(hook, f"raised {described(exc, secret)}") from None


#: The farthest a coordination port may lie from the leader port, and the most ports it may take.
MAX_OFFSET = 1024


def _transfer_ports(ports: object) -> bool:
    """Whether ``ports`` is None, or KV-transfer listeners the layout can place (known roles and scope)."""
    from enginekit.layout.model import TRANSFER_SCOPES, KVTransferPorts
    from enginekit.spec.model import DECODE, PREFILL

    if ports is None:
        return True
    return (
        type(ports) is KVTransferPorts
        and type(ports.roles) is frozenset
        and ports.roles <= {PREFILL, DECODE}
        and type(ports.scope) is str
        and ports.scope in TRANSFER_SCOPES
    )


def _coordination_port(port: object) -> bool:
    """Whether a coordination entry is one, with an offset and count in bounds and flags that are flags."""
    from enginekit.layout.model import Coordination

    if type(port) is not Coordination:
        return False
    numbers_ok = type(port.offset) is int and type(port.count) is int
    flags_ok = type(port.per_rank) is bool and type(port.every_node) is bool
    return numbers_ok and flags_ok and 0 <= port.offset <= MAX_OFFSET and 1 <= port.count <= MAX_OFFSET


def _texts(*items: object) -> bool:
    """Whether every item is a non-empty string a message may show as it is."""
    return all(type(item) is str and item and not has_unsafe(item) for item in items)


def _deny_group_ok(group: object) -> bool:
    from enginekit.policy.engine import EnvDeny

    if type(group) is not EnvDeny or type(group.floor) is not bool or not _texts(group.why):
        return False
    names = (*group.names, *group.prefixes, *group.suffixes)
    name_part = re.compile(_NAME_PART)
    return all(type(name) is str and name_part.match(name) for name in names)


def _aliases_ok(aliases: object) -> bool:
    """Whether ``aliases`` are :class:`EnvAlias` entries the env policy can judge by.

    One step each: an alias whose target another alias rewrites would stand for a third
    name, which the policy does not follow.
    """
    from enginekit.policy.engine import EnvAlias

    if type(aliases) is not tuple:
        return False
    name_part = re.compile(_NAME_PART)
    for alias in aliases:
        if type(alias) is not EnvAlias or type(alias.prefix) is not bool:
            return False
        names = (alias.alias, alias.target)
        if not all(type(name) is str and name_part.match(name) for name in names):
            return False
        short = alias.prefix and len(alias.alias) < _MIN_NAMESPACE
        if short or alias.alias == alias.target or (alias.why and not _texts(alias.why)):
            return False
        if any(other.read_as(alias.target) not in (None, alias.target) for other in aliases):
            return False
        # Two aliases reading one name: the policy follows the first, and the second's
        # target, however refused, would never be judged.
        probe = alias.alias + ("X" if alias.prefix else "")
        if any(other is not alias and other.read_as(probe) is not None for other in aliases):
            return False
    return True


def _each_text(answers: Answers, hook: str, where: str, what: str, items: Any) -> None:
    for item in items:
        if type(item) is not str:
            raise answers.broken(hook, f"returned {where} with {what} of type {type(item).__name__}")
        problem = unsafe_text(item)
        if problem:
            raise answers.broken(hook, f"returned {where} with {what} that {problem}")


def _kind(value: object) -> str:
    """What a value is, without showing it: it may be anything, a secret included."""
    if issubclass(type(value), str):
        return f"a string of {str.__len__(value)} characters"  # type: ignore[arg-type]
    return f"a value of type {printable(type(value).__name__, 80)}"
