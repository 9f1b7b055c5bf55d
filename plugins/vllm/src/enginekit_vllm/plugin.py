"""Engine plugin ``vllm``: command lines and environments for ``vllm serve``, alone or across nodes."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from enginekit.plugin import hookimpl

from enginekit_vllm.config import VllmConfig

# Each hook imports what it uses when it first runs: `enginekit engines` imports every
# engine to list it, and needs its config and its hooks, not its planning code.
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from enginekit.plugin import Command, EnginePolicy, GPUInfo, LayoutRules, ParsedArgs, Profile, ShardSpec

RAY_COMMANDS = frozenset({"ray-head", "ray-worker"})


class VllmEngine:
    """Hooks for vLLM. The vllm package itself is never imported: every fact is in the tables."""

    config_type: ClassVar[type[VllmConfig]] = VllmConfig
    takes_installed_build: ClassVar[bool] = True

    # A frozen config: one shared default instance cannot be mutated through another engine.
    def __init__(self, config: VllmConfig = VllmConfig()) -> None:  # noqa: B008
        self.config = config
        # A function of the frozen config: built when first asked, then answered as often.
        self._policy: EnginePolicy | None = None

    def __repr__(self) -> str:
        return f"VllmEngine({self.config!r})"

    @hookimpl
    def policy(self) -> EnginePolicy:
        """VLLM_ opened, placement and the key reserved, vLLM's and Ray's risky names denied."""
        if self._policy is None:
            from enginekit_vllm.policy import engine_policy

            self._policy = engine_policy(self.config)
        return self._policy

    @hookimpl
    def layout_rules(self) -> LayoutRules:
        """Data parallel in all three balancing modes, expert parallel, KV-event ports moved by the rank."""
        from enginekit_vllm.dataparallel import layout_rules

        return layout_rules(self.config.release)

    @hookimpl
    def validate(self, profile: Profile, gpus: Sequence[GPUInfo], args: ParsedArgs) -> list[str]:
        """Argument values, quantization floors and removals, multi-node and MIG limits."""
        from enginekit_vllm.validation import profile_problems

        return profile_problems(self.config, profile, gpus, args)

    @hookimpl
    def commands(self, shard: ShardSpec, installed: Path | None) -> list[Command]:
        """The server; under Ray the leader's head first, and on a worker node only the join."""
        from enginekit_vllm.launch import build

        return build(self.config, shard, installed)

    @hookimpl
    def serves_http(self, shard: ShardSpec) -> bool:
        """Only the leader: a native worker runs --headless, a Ray worker runs no server at all.

        Under data parallel, every API server of the layout: the leader alone (internal
        balancing), every node's (hybrid) or every rank's (external).
        """
        if shard.profile.data_parallel > 1:
            from enginekit.plugin import API_SERVER, shard_layout

            return shard_layout(shard, self.layout_rules()).role == API_SERVER
        return shard.is_leader()

    @hookimpl
    def health_path(self) -> str:
        """200 once the engine is up; the socket refuses connections while the model loads."""
        return "/health"

    @hookimpl
    def metrics_path(self) -> str:
        """Prometheus text, always mounted, never behind the API key."""
        return "/metrics"

    @hookimpl
    def notes(self, shard: ShardSpec) -> list[str]:
        """What the API key leaves open, and what else listens."""
        from enginekit_vllm.notes import shard_notes

        return shard_notes(self.config, shard)

    @hookimpl
    def leader_exit(self, shard: ShardSpec) -> str:
        """A worker keeps running: a --headless worker stayed up minutes after its leader left.

        Under Ray, ``ray start --block`` keeps the worker node in a cluster whose head is
        gone until its own GCS timeout; either way the supervisor stops it. So does a
        data-parallel worker, headless or serving its own ranks (seen on 0.32.0's CPU
        build): it is watched at the leader's API server, as the layout rules say, since
        the handshake port it dialed closes once every engine has joined.
        """
        return "must_be_stopped"

    @hookimpl
    def help_command(self, command: Command) -> Command:
        """``vllm serve --help=all`` (plain ``--help`` lists only config groups); ``ray start --help``."""
        from enginekit.plugin import Command

        if command.name in RAY_COMMANDS:
            args: tuple[str, ...] = ("start", "--help")
        elif self.config.facts.help_all:
            args = ("serve", "--help=all")
        else:
            args = ("serve", "--help")
        # The same environment (a CPU build needs VLLM_TARGET_DEVICE to import), minus secrets.
        env = {k: v for k, v in command.env.items() if k not in command.secret_env}
        return Command(path=command.path, args=args, env=env, name=f"{command.name or 'vllm'}-help")
