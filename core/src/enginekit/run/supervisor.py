"""``Supervisor``: start a plan's commands in order, gate on the leader and on health, stop them all."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import attrs

from enginekit.base.errors import EnginekitError
from enginekit.base.text import host_port, printable
from enginekit.plan.launch import LaunchPlan
from enginekit.plan.leader import MUST_BE_STOPPED
from enginekit.run import status as st
from enginekit.run.children import CannotStart, Child, kill_groups, reap_orphans, stop_groups
from enginekit.run.exits import (
    EXIT_BUG,
    EXIT_CPU_FALLBACK,
    EXIT_LEADER_GONE,
    EXIT_LEADER_TIMEOUT,
    EXIT_SIDECAR_EXITED,
    EXIT_STARTUP_TIMEOUT,
    EXIT_UNUSABLE,
    SIGNAL_BASE,
    describe_end,
    exit_status,
)
from enginekit.run.leader import TICK, PortWatch, wait_for_port
from enginekit.run.logs import ByteSink, LogSink, default_stream, timestamp
from enginekit.run.options import RunOptions
from enginekit.run.readiness import Health, HealthPoller

if TYPE_CHECKING:
    from enginekit.platform.engine import Engine

#: The signals that stop the shard: each is forwarded as SIGTERM to every process group.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
#: How long, in all, the runner waits for the children's last lines once their groups are gone.
PUMP_GRACE = 2.0


class Supervisor:
    """Runs one shard from its launch plan, until its main process exits or it is stopped.

    ``run()`` checks the devices (when ``engine`` is given and has a device listing),
    starts each command in order (holding one marked ``wait_for_leader_port`` until the
    leader's port accepts connections), polls the health URL until it answers 200, and
    watches: a sidecar's exit stops the shard, the main process's exit is the shard's exit,
    a worker that must be stopped when its leader goes is stopped. Whatever ends it, every
    process group is sent SIGTERM, then SIGKILL after the stop grace, and reaped.

    :param environ: What the children inherit, under each command's generated variables.
        Nothing is read from ``os.environ``.
    :param engine: The plan's engine, for the CPU-fallback check; without it, none is made.
    :param status_file: Where the state is written as JSON, atomically, at every change:
        nothing there yet, or a regular file (see :func:`enginekit.run.status.refusal`).
    :param log: Where children's lines and the runner's messages go (stderr by default).
    :param secrets: Masked in every line besides the plan's own key.
    """

    def __init__(
        self,
        plan: LaunchPlan,
        *,
        environ: Mapping[str, str],
        engine: Engine | None = None,
        options: RunOptions | None = None,
        status_file: Path | None = None,
        log: ByteSink | None = None,
        secrets: Sequence[str] = (),
    ) -> None:
        if not plan.commands:
            # Nothing to start, and no main process whose exit would end the run.
            raise ValueError(f"the plan of shard {plan.shard.shard_id or '-'} has no commands to run")
        self.plan = plan
        self.options = options or RunOptions()
        self._inherited = dict(environ)
        self._engine = engine
        self._secrets = [s for s in (plan.shard.api_key, *secrets) if s]
        self._log = LogSink(log if log is not None else default_stream(), self._secrets)
        if status_file is not None:
            why = st.refusal(status_file)
            if why is not None:
                # Refused before anything starts, as the command line refuses it.
                raise st.StatusPathRefused(f"status_file: {why}")
        self._status = st.StatusFile(status_file) if status_file is not None else None
        #: Whether the last write of the status file failed, and whether that was said.
        self._status_failing = False
        self._status_warned = False
        self._children: list[Child] = []
        self._names = _names(plan)
        self._stop_signal: int | None = None
        self._escalated = False
        self._started = False
        self._state = st.STARTING
        self._since = timestamp()
        self._reason = "starting"
        self._transitions = [{"state": st.STARTING, "at": self._since}]
        self._exit_code: int | None = None
        self._health_url = plan.base_url + plan.health_path if plan.serves_http else None

    @property
    def state(self) -> str:
        """One of :data:`enginekit.run.status.STATES`."""
        return self._state

    @property
    def pids(self) -> list[int]:
        """The pids (and process group ids) of the processes started so far, in start order."""
        return [child.pid for child in self._children]

    def stop(self, signum: int = signal.SIGTERM) -> None:
        """Ask the shard to stop, as if ``enginekit run`` had received ``signum``; from any thread.

        ``run()`` then returns 128 + ``signum``. A second call stops at once: SIGKILL to
        every group, without waiting for the grace.
        """
        # Plain assignments only: this also runs as a signal handler, which must take no lock.
        if self._stop_signal is None:
            self._stop_signal = signum
        else:
            self._escalated = True

    def run(self) -> int:
        """Run the shard to its end and return the exit status (see ``docs/running.md``)."""
        if self._started:
            raise RuntimeError("a Supervisor runs its plan once; make another to run it again")
        self._started = True
        code: int | None = None
        with self._signals_caught():
            try:
                self._write_status()
                code = self._supervise()
            except Exception as exc:
                # Still stopped and recorded as over: a status file left at "ready" would
                # tell a node agent the shard serves while nothing runs.
                self._reason = f"stopped by an internal error ({type(exc).__name__})"
                raise
            finally:
                self._shut_down(code)
        return code

    # The phases, in order.

    def _supervise(self) -> int:
        shard = self.plan.shard
        role = "leader" if shard.is_leader() else "worker"
        self._say(
            f"shard {shard.shard_id or '-'} of replica {shard.replica_id or '-'}: engine {self.plan.engine}, "
            f"rank {shard.rank} of {shard.nnodes} ({role}), {len(self.plan.commands)} command(s)"
        )
        code = self._check_devices()
        if code is not None:
            return code
        last = len(self.plan.commands) - 1
        for index, command in enumerate(self.plan.commands):
            if command.wait_for_leader_port:
                code = self._wait_for_leader(self._names[index])
                if code is not None:
                    return code
            code = self._interrupted()
            if code is not None:
                return code
            try:
                child = Child(
                    self._names[index],
                    command.argv(),
                    command.environ(self._inherited),
                    self._log,
                    raw=self.options.raw_logs,
                    secrets=self._secrets,
                )
            except CannotStart as exc:
                self._error(str(exc))
                return EXIT_UNUSABLE
            self._children.append(child)
            kind = "main process" if index == last else "sidecar"
            self._say(
                f"started {kind} {child.name} (pid {child.pid}, its own process group): "
                f"{printable(shlex.join(command.argv()), 2000)}"
            )
            self._write_status()
        return self._watch()

    def _check_devices(self) -> int | None:
        if self._engine is None:
            return None
        from enginekit.run.devicecheck import CPU, GPU, check_devices

        try:
            found = check_devices(
                self.plan,
                self._engine,
                self._inherited,
                timeout=self.options.probe_timeout,
                cancelled=lambda: self._stop_signal is not None,
            )
        except EnginekitError as exc:  # the listing could not run, or the engine broke its contract
            stopped = self._interrupted()
            if stopped is not None:  # told to stop while the listing ran: it was stopped too
                return stopped
            self._error(f"cannot check the devices: {exc}")
            return EXIT_UNUSABLE
        listing = printable(shlex.join(found.argv), 500)
        if found.verdict == GPU:
            seen = ", ".join(printable(d, 100) for d in found.devices[:16])
            self._say(
                f"device check: the engine's build sees {len(found.devices)} device(s): {seen} ({listing})"
            )
        elif found.verdict == CPU:
            placed = [str(d) for d in (self.plan.shard.gpu_uuids or self.plan.shard.gpu_indices)]
            self._error(
                f"refusing to start: the engine's build sees no GPU, so the shard placed on GPU(s) "
                f"{', '.join(placed)} would run on the CPU (device listing: {listing})"
            )
            return EXIT_CPU_FALLBACK
        return None

    def _wait_for_leader(self, name: str) -> int | None:
        shard = self.plan.shard
        where = host_port(shard.leader_addr, shard.leader_port)
        timeout = self.options.leader_timeout
        self._set_state(st.STARTING, f"{name} waits for the leader at {where}")
        self._say(f"{name} waits until the leader at {where} accepts connections (at most {timeout:g} s)")
        result = wait_for_port(
            shard.leader_addr,
            shard.leader_port,
            timeout=timeout,
            interval=self.options.leader_interval,
            progress_every=self.options.progress_every,
            progress=lambda elapsed: self._say(
                f"still waiting for the leader at {where}: {elapsed:.0f} s of {timeout:g} s"
            ),
            cancelled=lambda: self._stop_signal is not None or self._sidecar_gone() is not None,
        )
        if result is None:
            return self._interrupted() or self._check_children()
        if not result:
            self._error(f"the leader at {where} did not accept a connection within {timeout:g} s")
            return EXIT_LEADER_TIMEOUT
        self._say(f"the leader at {where} accepts connections")
        return None

    def _watch(self) -> int:
        """Follow the started shard until it ends: children, health, the leader, signals."""
        options, shard = self.options, self.plan.shard
        main = self._children[-1]
        health: HealthPoller | None = None
        watch: PortWatch | None = None
        if self._health_url is not None:
            health = HealthPoller(
                self._health_url,
                key=shard.api_key,
                interval=options.health_interval,
                timeout=options.health_timeout,
            )
            self._say(f"waiting for {self._health_url} to answer 200 (at most {options.startup_timeout:g} s)")
        else:
            self._set_state(st.RUNNING, "started; this rank serves no HTTP, there is no health URL to check")
        if not shard.is_leader() and self.plan.on_leader_exit == MUST_BE_STOPPED:
            port = self.plan.leader_watch_port
            watch = PortWatch(shard.leader_addr, port, interval=options.leader_interval)
            if port != shard.leader_port:
                where = host_port(shard.leader_addr, port)
                self._say(f"watching the leader's API server at {where}: the leader is gone once it closes")
        try:
            readiness = _Readiness(main.started_at, main.started_at + options.progress_every)
            while True:
                time.sleep(TICK)
                if os.getpid() == 1:
                    reap_orphans(self.pids)
                code = self._interrupted() or self._check_children()
                if code is None and health is not None:
                    code = self._follow_health(health, readiness)
                if code is None and watch is not None:
                    code = self._leader_gone(watch)
                if code is not None:
                    return code
        finally:
            for poller in (health, watch):
                if poller is not None:
                    poller.stop()

    def _follow_health(self, poller: HealthPoller, readiness: _Readiness) -> int | None:
        """Turn the poller's latest answer into a state change, a progress line or the startup timeout."""
        options, url = self.options, poller.url
        now = time.monotonic()
        elapsed = now - readiness.started_at
        if poller.sends_key and not readiness.told_key:
            readiness.told_key = True
            self._say(f"{url} asked for the API key: sending it as a bearer token from now on")
        latest = poller.latest
        if latest is not None and latest is not readiness.seen:
            readiness.seen = latest
            if latest.ready and self._state != st.READY:
                self._set_state(st.READY, f"{url} answered 200, {elapsed:.1f} s after the start")
            elif not latest.ready and self._state == st.READY:
                self._set_state(st.UNREADY, f"{url} {latest.describe()}")
        if self._state != st.STARTING:
            return None
        last = readiness.seen.describe() if readiness.seen is not None else "has not answered yet"
        if elapsed >= options.startup_timeout:
            self._error(f"not ready within {options.startup_timeout:g} s: {url} {last}")
            return EXIT_STARTUP_TIMEOUT
        if now >= readiness.next_progress:
            readiness.next_progress += options.progress_every
            self._say(f"not ready yet, {elapsed:.0f} s of {options.startup_timeout:g} s: {url} {last}")
        return None

    def _leader_gone(self, watch: PortWatch) -> int | None:
        shard, options = self.plan.shard, self.options
        where = host_port(shard.leader_addr, self.plan.leader_watch_port)
        timeout = options.leader_opens_within(at_join_port=self.plan.leader_watch_port == shard.leader_port)
        grace = options.leader_gone_grace
        if not watch.seen_open and time.monotonic() - watch.started_at >= timeout:
            self._error(f"the leader at {where} did not accept a connection within {timeout:g} s")
            return EXIT_LEADER_TIMEOUT
        if watch.closed_for() < grace:
            return None
        self._error(
            f"the leader at {where} has not accepted a connection for {grace:g} s: stopping this worker, "
            f"which its plan says keeps running (and holding its GPUs) until it is stopped"
        )
        return EXIT_LEADER_GONE

    def _shut_down(self, code: int | None) -> None:
        """Stop every process group that has a process left, reap everything, and say how it ended."""
        children = self._children
        if any(child.group_alive() for child in children):
            self._set_state(st.STOPPING, self._reason)
            grace = self.options.stop_grace
            self._say(
                f"stopping {', '.join(c.name for c in children)}: SIGTERM to each process group, "
                f"SIGKILL after {grace:g} s"
            )
            killed = stop_groups(children, grace, lambda: self._escalated)
            if killed:
                why = "a second signal" if self._escalated else f"not stopped within {grace:g} s"
                self._warn(f"killed {', '.join(killed)} with SIGKILL ({why})")
        else:
            kill_groups(children)
        deadline = time.monotonic() + PUMP_GRACE
        for child in children:
            child.join_pumps(max(deadline - time.monotonic(), 0.0))
        held = [child.name for child in children if child.output_held()]
        if held:
            # Its group is gone, so whatever still holds its output left the group (setsid,
            # a daemon's double fork) and is out of the runner's reach: say so, not silently.
            self._warn(
                f"the output of {', '.join(held)} is still held open by a process outside its "
                f"process group (one that started a session of its own): it may still be running, "
                f"beyond the reach of enginekit run"
            )
        if code is None:
            # An exception is on its way out, and the caller reports it; the file says it is over.
            self._exit_code = EXIT_BUG
            self._set_state(st.EXITED, self._reason)
            return
        self._exit_code = code
        self._say(f"exit status {code}: {self._reason}")
        self._set_state(st.EXITED, self._reason)

    # What ends the shard.

    def _interrupted(self) -> int | None:
        signum = self._stop_signal
        if signum is None:
            return None
        self._reason = f"stopped by {_signal_name(signum)}"
        return SIGNAL_BASE + signum

    def _sidecar_gone(self) -> Child | None:
        main_started = len(self._children) == len(self.plan.commands)
        sidecars = self._children[:-1] if main_started else self._children
        return next((child for child in sidecars if child.returncode is not None), None)

    def _check_children(self) -> int | None:
        sidecar = self._sidecar_gone()
        if sidecar is not None:
            assert sidecar.returncode is not None
            self._error(
                f"sidecar {sidecar.name} exited ({describe_end(sidecar.returncode)}): stopping the shard"
            )
            self._reason = f"sidecar {sidecar.name} exited ({describe_end(sidecar.returncode)})"
            return EXIT_SIDECAR_EXITED
        if len(self._children) < len(self.plan.commands):
            return None
        main = self._children[-1]
        returncode = main.returncode
        if returncode is None:
            return None
        self._reason = f"the main process {main.name} exited ({describe_end(returncode)})"
        self._say(self._reason)
        return exit_status(returncode)

    # Reporting.

    def _set_state(self, state: str, reason: str) -> None:
        self._reason = reason
        if state != self._state:
            previous, self._state, self._since = self._state, state, timestamp()
            self._transitions = [*self._transitions, {"state": state, "at": self._since}][
                -st.MAX_TRANSITIONS :
            ]
            if state != st.EXITED:  # the exit has its own line, with the status
                self._say(f"state {previous} -> {state}: {reason}")
        self._write_status()

    def _document(self) -> dict[str, Any]:
        shard = self.plan.shard
        processes = [
            {
                "name": child.name,
                "pid": child.pid,
                "pgid": child.pgid,
                "started": child.started,
                "exit_status": None if child.returncode is None else exit_status(child.returncode),
            }
            for child in self._children
        ]
        document: dict[str, Any] = {
            "format_version": st.STATUS_FORMAT,
            "state": self._state,
            "since": self._since,
            "updated": timestamp(),
            "reason": self._reason,
            "exit_code": self._exit_code,
            "runner_pid": os.getpid(),
            "engine": self.plan.engine,
            "replica_id": shard.replica_id,
            "shard_id": shard.shard_id,
            "rank": shard.rank,
            "nnodes": shard.nnodes,
            "health_url": self._health_url,
            "processes": processes,
            "transitions": self._transitions,
        }
        # A reason quotes what failed (an argv, a plugin's message), and an argv may hold the key.
        masked: dict[str, Any] = _masked(document, self._secrets)
        return masked

    def _write_status(self) -> None:
        if self._status is None:
            return
        try:
            self._status.write(self._document())
        except st.StatusPathRefused as exc:
            # Swapped since the start for something it must not replace: said once, and
            # no more writes, rather than stop the shard or try again at every change.
            self._warn(f"the status file is no longer written: {exc}")
            self._status = None
            return
        except OSError as exc:
            # Said once: the shard runs on without its status file rather than stop for it.
            # Every later change tries again: a disk full for a moment must not leave the
            # file saying "ready" for good after the shard has exited.
            if not self._status_warned:
                self._warn(
                    f"cannot write the status file {self._status.path}: {exc.strerror or exc}; "
                    f"trying again at every change"
                )
            self._status_failing = self._status_warned = True
            return
        if self._status_failing:
            self._status_failing = False
            self._say(f"the status file {self._status.path} is written again")

    def _say(self, message: str) -> None:
        self._log.say(message)

    def _warn(self, message: str) -> None:
        self._log.say(message, kind="warning")

    def _error(self, message: str) -> None:
        self._reason = message
        self._log.say(message, kind="error")

    @contextlib.contextmanager
    def _signals_caught(self) -> Iterator[None]:
        if not self.options.handle_signals:
            yield
            return
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError(
                "handle_signals needs the main thread; pass handle_signals=False and call stop()"
            )
        previous = {signum: signal.signal(signum, self._on_signal) for signum in STOP_SIGNALS}
        try:
            yield
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        self.stop(signum)


@attrs.define
class _Readiness:
    """What following the health URL remembers between two looks."""

    started_at: float
    next_progress: float
    seen: Health | None = None
    told_key: bool = False


def _names(plan: LaunchPlan) -> list[str]:
    """Each command's name in logs: its own, else ``main`` or ``sidecar-N``; never twice the same."""
    names: list[str] = []
    last = len(plan.commands) - 1
    for index, command in enumerate(plan.commands):
        name = printable(command.name, 64) or ("main" if index == last else f"sidecar-{index + 1}")
        if name in names:
            name = f"{name}-{index + 1}"
        names.append(name)
    return names


def _masked(value: Any, secrets: Sequence[str]) -> Any:
    """``value`` (a JSON document) with every secret masked in every string of it."""
    from enginekit.base.secrets import masked_all

    if isinstance(value, str):
        return masked_all(value, secrets)
    if isinstance(value, dict):
        return {key: _masked(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [_masked(item, secrets) for item in value]
    return value


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
