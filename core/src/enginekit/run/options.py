"""How ``enginekit run`` waits and stops: every timeout, grace and interval, with its default."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import attrs

from enginekit.base.errors import EnginekitError
from enginekit.base.text import printable

#: Defaults, in seconds. A vLLM shard of a large model can take many minutes to load
#: and compile; a worker pod may start long before its leader's image is pulled.
LEADER_TIMEOUT = 900.0
STARTUP_TIMEOUT = 1800.0
#: Below Kubernetes' default termination grace (30 s): the runner kills what is left
#: before the kubelet kills the runner.
STOP_GRACE = 20.0
LEADER_GONE_GRACE = 30.0
PROBE_TIMEOUT = 60.0


#: The longest wait or grace: the command line's bound on every timeout (a day), so one
#: set in the node config or by an export is one the command line would take too.
MAX_SECONDS = 86400.0


def _is_seconds(value: object) -> bool:
    """Whether ``value`` is a positive number of seconds, at most a day (a bool is not a number here)."""
    return (
        not isinstance(value, bool)
        and isinstance(value, int | float)
        and math.isfinite(value)
        and 0 < value <= MAX_SECONDS
    )


def _shown(value: object) -> str:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return repr(value) if number else type(value).__name__


def _positive(_instance: object, attribute: attrs.Attribute[float], value: float) -> None:
    if not _is_seconds(value):
        raise ValueError(
            f"{attribute.name}: expected a positive number of seconds{_at_most(value)}, got {_shown(value)}"
        )


@attrs.frozen(kw_only=True)
class RunOptions:
    """The timeouts and graces of a :class:`~enginekit.run.Supervisor`, in seconds."""

    #: How long a command marked ``wait_for_leader_port`` waits for the leader's port.
    leader_timeout: float = attrs.field(default=LEADER_TIMEOUT, validator=_positive)
    #: How long the health URL has to answer 200, from the main process's start.
    startup_timeout: float = attrs.field(default=STARTUP_TIMEOUT, validator=_positive)
    #: Between SIGTERM to every process group and SIGKILL to what is left.
    stop_grace: float = attrs.field(default=STOP_GRACE, validator=_positive)
    #: How long the leader's port may stay closed before a worker that must be stopped is.
    leader_gone_grace: float = attrs.field(default=LEADER_GONE_GRACE, validator=_positive)
    #: How long the device listing may run.
    probe_timeout: float = attrs.field(default=PROBE_TIMEOUT, validator=_positive)
    #: Between two requests to the health URL, and how long one may take.
    health_interval: float = attrs.field(default=0.5, validator=_positive)
    health_timeout: float = attrs.field(default=10.0, validator=_positive)
    #: Between two connection attempts to the leader's port.
    leader_interval: float = attrs.field(default=0.5, validator=_positive)
    #: Between two progress lines while waiting.
    progress_every: float = attrs.field(default=10.0, validator=_positive)
    #: Pass children's lines on without the ``[name]`` prefix.
    raw_logs: bool = False
    #: Catch SIGTERM, SIGINT and SIGHUP while running (main thread only); otherwise call
    #: :meth:`~enginekit.run.Supervisor.stop`.
    handle_signals: bool = True

    def leader_opens_within(self, *, at_join_port: bool) -> float:
        """How long a watched leader's port may stay unopened before the worker gives up on it.

        Its join port opens at once (``leader_timeout``); its API server, watched where the
        engine closes the join port after the start, opens only once its model has loaded,
        as a rank's health does (``startup_timeout`` too).
        """
        return self.leader_timeout if at_join_port else max(self.startup_timeout, self.leader_timeout)


#: What a node config's ``[run]`` may set: the waits a site tunes to its models and pods.
CONFIGURABLE = ("leader_timeout", "startup_timeout", "stop_grace", "leader_gone_grace")


class RunConfigError(EnginekitError):
    """The node config's ``[run]`` holds a key or value ``enginekit run`` cannot take."""


def options_from(section: Mapping[str, Any], given: Mapping[str, Any], **rest: Any) -> RunOptions:
    """The options: ``given`` (the command line's) over the node config's ``[run]`` ``section``.

    :raises RunConfigError: naming every unknown key and every value that is not a
        positive number of seconds, at once.
    """
    expected = ", ".join(CONFIGURABLE)
    problems = [
        f"node config [run]: unknown key {printable(str(key), 80)!r}; expected one of {expected}"
        for key in section
        if key not in CONFIGURABLE
    ]
    problems += [
        f"node config [run] {key}: expected a positive number of seconds{_at_most(section[key])}, "
        f"got {_shown(section[key])}"
        for key in CONFIGURABLE
        if section.get(key) is not None and not _is_seconds(section[key])
    ]
    if problems:
        raise RunConfigError("; ".join(problems))
    configured = {key: float(section[key]) for key in CONFIGURABLE if section.get(key) is not None}
    return RunOptions(**{**configured, **{k: v for k, v in given.items() if v is not None}}, **rest)


def _at_most(value: object) -> str:
    # The bound is named only where it is what the value broke: a word or a negative number
    # is wrong for another reason, and its message stays as short as before.
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > MAX_SECONDS:
        return ""
    return f", at most {MAX_SECONDS:g} (a day)"
