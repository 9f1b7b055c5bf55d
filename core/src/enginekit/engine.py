"""``Engine``: one engine chosen by name, the single typed boundary over its hooks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs

from enginekit import hookspecs
from enginekit.checks import validate_common
from enginekit.errors import EngineError, SpecError
from enginekit.logs import logger
from enginekit.model import Command, GPUInfo, Profile, ShardSpec
from enginekit.ncclenv import DroppedVar, EnvBuild, apply_profile_env, placement_env
from enginekit.speccheck import check_spec

if TYPE_CHECKING:
    from enginekit.plan import LaunchPlan
    from enginekit.registry import Registry


class Engine:
    """Calls reach only this engine's hook implementations, plus registered wrappers.

    Obtain one from :meth:`Registry.engine`. Every method checks that the profile names
    this engine, so a second engine can never answer for the first.
    """

    def __init__(self, name: str, registry: Registry, plugin: object) -> None:
        self.name = name
        self.plugin = plugin
        self._registry = registry

    def __repr__(self) -> str:
        return f"Engine({self.name!r})"

    def _call(self, hook_name: str, **kwargs: Any) -> Any:
        return self._registry.caller(self.name, hook_name)(**kwargs)

    def _check(self, profile: Profile) -> None:
        if profile.engine != self.name:
            raise SpecError(
                [f"profile {profile.name!r}: engine is {profile.engine!r}, but it was given to {self.name!r}"]
            )

    def validate(self, profile: Profile, gpus: Sequence[GPUInfo] = ()) -> list[str]:
        """Every problem with ``profile`` on ``gpus``: the shared checks, then the engine's own."""
        self._check(profile)
        problems = validate_common(profile, gpus, self._registry.policy)
        answer = self._call("validate", profile=profile, gpus=tuple(gpus)) or []
        return list(dict.fromkeys([*problems, *answer]))

    def commands(self, shard: ShardSpec) -> list[Command]:
        """The processes of ``shard`` in start order, with profile overrides applied."""
        commands, dropped = self._build(shard)
        for var in dropped:
            logger().warning("profile %r: env %s dropped: %s", shard.profile.name, var.key, var.why)
        return commands

    def _build(
        self, shard: ShardSpec, *, checked: bool = False
    ) -> tuple[list[Command], tuple[DroppedVar, ...]]:
        self._check(shard.profile)
        problems = [] if checked else check_spec(shard)
        if problems:
            raise SpecError(problems)
        result = self._call("commands", shard=shard, installed=self._registry.installed(self.name))
        if not result or not all(isinstance(c, Command) for c in result):
            raise EngineError(f"engine {self.name!r} returned no commands, or something else than Commands")
        built: list[Command] = []
        dropped: tuple[DroppedVar, ...] = ()
        for command in result:
            env = apply_profile_env(EnvBuild(command.env, command.why), shard, self._registry.policy)
            dropped = env.dropped
            built.append(_with_env(command, env, self.name))
        if shard.api_key and shard.api_key in "\0".join(arg for c in built for arg in c.argv()):
            # Any local user can read /proc/PID/cmdline: a key there is a key published.
            raise EngineError(f"engine {self.name!r} put the API key on a command line; refusing it")
        return built, dropped

    def serves_http(self, shard: ShardSpec) -> bool:
        """Whether this rank answers the OpenAI API (default: the leader only)."""
        self._check(shard.profile)
        answer = self._call("serves_http", shard=shard)
        return shard.is_leader() if answer is None else bool(answer)

    def _constant(self, hook_name: str) -> Any:
        # Hooks without arguments are pure functions of a frozen config: ask once.
        return self._registry.constant(self.name, hook_name)

    def health_path(self) -> str:
        """The path that answers 200 only when the shard is ready."""
        return str(self._constant("health_path") or hookspecs.DEFAULT_HEALTH_PATH)

    def metrics_path(self) -> str:
        """The path that serves Prometheus text."""
        return str(self._constant("metrics_path") or hookspecs.DEFAULT_METRICS_PATH)

    def notes(self, shard: ShardSpec) -> list[str]:
        """What an operator should know about how this shard will run."""
        return list(self._call("notes", shard=shard) or [])

    def device_listing(self, shard: ShardSpec | None = None) -> Command | None:
        """The command that lists the GPUs the engine's build sees, for engines that can fall back to CPU.

        Given the shard, the command carries the shard's placement variables, so it sees
        exactly the devices the shard's engine will; ``None`` when the engine never falls back.
        """
        answer = self._call("device_listing", shard=shard, installed=self._registry.installed(self.name))
        if not isinstance(answer, Command):
            return None
        if shard is None:
            return answer
        placed = placement_env(shard)
        return attrs.evolve(answer, env={**placed.env, **answer.env}, why={**placed.why, **answer.why})

    def parse_devices(self, output: str) -> list[str]:
        """The devices in :meth:`device_listing`'s output; empty means the build would run on the CPU."""
        answer = self._call("parse_devices", output=output)
        if answer is None:
            raise EngineError(f"engine {self.name!r} lists no devices: it never falls back to CPU")
        return list(answer)

    def help_command(self, command: Command) -> Command:
        """The command that prints every option of the engine ``command`` starts."""
        answer = self._call("help_command", command=command)
        return answer if isinstance(answer, Command) else Command(path=command.path, args=("--help",))

    def unavailable(self) -> str | None:
        """Why this engine cannot be offered on this node, or None."""
        answer = self._constant("unavailable")
        return str(answer) if answer else None

    def plan(self, shard: ShardSpec, gpus: Sequence[GPUInfo] = ()) -> LaunchPlan:
        """Validate the profile, then build everything a supervisor needs to run ``shard``.

        :raises SpecError: when the profile or the shard spec has problems, all listed.
        """
        from enginekit.plan import LaunchPlan

        self._check(shard.profile)
        problems = self.validate(shard.profile, gpus) + check_spec(shard)
        if problems:
            raise SpecError(problems)
        commands, dropped = self._build(shard, checked=True)
        return LaunchPlan(
            engine=self.name,
            shard=shard,
            commands=tuple(commands),
            serves_http=self.serves_http(shard),
            health_path=self.health_path(),
            metrics_path=self.metrics_path(),
            notes=tuple(self.notes(shard)),
            dropped_env=dropped,
        )


def _with_env(command: Command, env: EnvBuild, engine: str) -> Command:
    why = {key: env.why.get(key) or f"generated by the {engine} engine plugin" for key in env.env}
    return Command(
        path=command.path,
        args=command.args,
        env=env.env,
        name=command.name,
        wait_for_leader_port=command.wait_for_leader_port,
        secret_env=command.secret_env,
        why=why,
    )
