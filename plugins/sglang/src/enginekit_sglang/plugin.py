"""``SglangEngine``: the hooks that start SGLang's server for a shard."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from enginekit.plugin import hookimpl, resolve_executable

from enginekit_sglang.config import SglangConfig
from enginekit_sglang.flags import MODULE, NOT_ON_CUDA

# Each hook imports what it uses when it first runs: `enginekit engines` imports every
# engine to list it, and needs its config and its hooks, not its planning code.
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from enginekit.plugin import Command, EnginePolicy, GPUInfo, LayoutRules, ParsedArgs, Profile, ShardSpec

#: A config is frozen, so one default instance serves every engine built without one.
DEFAULT_CONFIG = SglangConfig()


class SglangEngine:
    """SGLang, started as ``python -m sglang.launch_server`` through enginekit's launcher.

    The launcher exists for the API key: SGLang reads it only from ``--api-key``, and a
    command line is public on a Linux node. The key travels in ``ENGINEKIT_API_KEY``
    and is appended to ``sys.argv`` inside the interpreter, which ``ps`` never sees.
    """

    config_type: ClassVar[type[SglangConfig]] = SglangConfig
    #: The agent may install SGLang into a virtual environment; its interpreter is used.
    takes_installed_build: ClassVar[bool] = True

    def __init__(self, config: SglangConfig = DEFAULT_CONFIG) -> None:
        self.config = config
        # A function of the frozen config: built when first asked, then answered as often.
        self._policy: EnginePolicy | None = None

    @hookimpl
    def policy(self) -> EnginePolicy:
        """SGLang's variables and flags: what profiles may set, what enginekit sets, what loads code."""
        if self._policy is None:
            from enginekit.plugin import parse_version

            from enginekit_sglang.policy import engine_policy

            self._policy = engine_policy(self.config.allow_args, parse_version(self.config.release))
        return self._policy

    @hookimpl
    def layout_rules(self) -> LayoutRules:
        """Data-parallel attention behind one API server, expert parallel, the ports derived from D."""
        from enginekit.plugin import parse_version

        from enginekit_sglang.dataparallel import layout_rules

        return layout_rules(parse_version(self.config.release))

    @hookimpl
    def validate(self, profile: Profile, gpus: Sequence[GPUInfo], args: ParsedArgs) -> list[str]:
        """SGLang's own rules: options the release lacks, argument values, quantization, the served name.

        The core has already refused what :meth:`policy` declares (positional tokens,
        managed, risky and secret options); ``args`` is the profile's args read once.
        """
        from enginekit_sglang.validation import (
            arg_problems,
            parallel_problems,
            quantization_problems,
            served_name_problems,
        )

        return [
            *arg_problems(profile, args, self.config),
            *quantization_problems(profile, gpus, args),
            *served_name_problems(profile),
            *parallel_problems(profile, args, self.config),
        ]

    @hookimpl
    def commands(self, shard: ShardSpec, installed: Path | None) -> list[Command]:
        """One process on every rank: the same server, told its rank and the leader's address.

        Workers wait for the leader's port, where rank 0 opens the rendezvous
        (``--dist-init-addr``): started first, a worker would spend its connection timeout
        on a leader that is not there yet.
        """
        from enginekit.plugin import EngineError, launcher_args, parse_version, quantization_of

        from enginekit_sglang.build import KEY_ENV, server_args, server_env
        from enginekit_sglang.dataparallel import waits_for_leader
        from enginekit_sglang.flags import SYNTAX

        profile = shard.profile
        # The profile's own checks ran before this hook (the core runs validate first);
        # what is left depends on the shard: a method without a CUDA kernel on a GPU shard.
        method = quantization_of(SYNTAX.parse(profile.args))  # remembered from validate: no new scan
        if method in NOT_ON_CUDA and not shard.on_cpu():
            raise EngineError(
                f"profile {profile.name!r}: args: --quantization {method!r}: {NOT_ON_CUDA[method]}"
            )
        if shard.role != "aggregated":
            from enginekit_sglang.disaggregated import transfer_problem

            problem = transfer_problem(shard)
            if problem is not None:
                raise EngineError(problem)
        secret = {"--api-key": KEY_ENV} if shard.api_key else None
        build = server_env(shard)
        release = parse_version(self.config.release)
        return [
            build.command(
                self.interpreter(installed),
                launcher_args(MODULE, server_args(shard, release), secret_args=secret),
                name="sglang" if shard.is_leader() else f"sglang-rank{shard.rank}",
                wait_for_leader_port=not shard.is_leader() and waits_for_leader(profile, release),
            )
        ]

    def interpreter(self, installed: Path | None) -> str:
        """The Python that runs SGLang: the installed build's, else the configured one."""
        return resolve_executable(self.config.python, installed, "bin/python")

    @hookimpl
    def serves_http(self, shard: ShardSpec) -> bool:
        """Only rank 0 serves the API: ranks 1 and up run schedulers and a stub health server.

        That stub answers ``/health``, ``/health_generate`` and ``/ping`` with 200
        unconditionally (SGLang's ``launch_dummy_health_check_server``), whether or not
        the rank has joined, loaded its weights or died inside: health-checking it proves
        nothing, which is why a worker is never treated as an HTTP endpoint.
        """
        return shard.is_leader()

    @hookimpl
    def health_path(self) -> str:
        """``/health``: 503 until warm-up finishes, then a one-token generation must succeed."""
        return "/health"

    @hookimpl
    def metrics_path(self) -> str:
        """``/metrics``: mounted because :meth:`commands` always passes ``--enable-metrics``."""
        return "/metrics"

    @hookimpl
    def notes(self, shard: ShardSpec) -> list[str]:
        """What SGLang itself still exposes, and how each rank should (not) be watched."""
        from enginekit.plugin import parse_version

        from enginekit_sglang.build import kv_events_config
        from enginekit_sglang.notes import shard_notes

        release = parse_version(self.config.release)
        events = kv_events_config(shard, release) if shard.kv_events_port else ""
        return shard_notes(shard, self.config, events)

    @hookimpl
    def leader_exit(self, shard: ShardSpec) -> str:
        """``"must_be_stopped"``: a worker rank stays up when its leader's process goes.

        The safe answer, and the one SGLang's source supports (0.5.1 to 0.5.23 read; the
        files named are 0.5.23's). A worker's main process blocks joining its schedulers
        (``srt/entrypoints/engine.py``, ``_launch_subprocesses``), which stop on rank 0's
        ShutdownReq broadcast and on nothing else that watches rank 0: there is no heartbeat,
        and the scheduler watchdog (``srt/utils/watchdog.py``) fires only while a batch or
        start-up is stuck, not while a rank idles waiting for rank 0's next broadcast. A
        scheduler whose collective with rank 0 raises does exit, taking its rank down by
        SIGQUIT (``srt/managers/scheduler.py``, ``run_scheduler_process``), but a node that is
        lost rather than closed need not make it raise. From 0.5.21 the worker's main
        process even ignores SIGTERM, "waiting for the rank-0 ShutdownReq broadcast", and
        SGLang's own comment calls the orchestrator's kill timeout the backstop.
        """
        return "must_be_stopped"

    @hookimpl
    def help_command(self, command: Command) -> Command:
        """The interpreter asked for SGLang's options (``path --help`` would print Python's)."""
        from enginekit.plugin import Command

        return Command(
            path=command.path,
            args=("-I", "-m", MODULE, "--help"),
            env={k: v for k, v in command.env.items() if k not in command.secret_env},
            name="sglang-help",
        )
