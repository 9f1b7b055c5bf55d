"""The hooks an engine plugin implements: the plugin author's manual.

An engine plugin is a class (or a module, for an engine without configuration) whose
methods carry :data:`hookimpl`, published under the entry point group
:data:`ENTRY_POINT_GROUP` with the engine's name as the entry point's name::

    [project.entry-points."enginekit.engines"]
    myengine = "enginekit_myengine.plugin:MyEngine"

The class may declare (see :class:`enginekit.plugin.EngineClass`) ``config_type`` (an
attrs class the registry structures the node config's ``[engines.<name>]`` section
into, passed to ``__init__``) and ``takes_installed_build = True`` (the engine runs a
build the agent installed; its root arrives as the ``installed`` argument of :func:`commands`).

The registry calls each hook on exactly one engine, the one the profile names, so every
spec is ``firstresult``: the answer comes back as a plain value. A plugin declares only
the arguments it uses; pluggy passes the rest by name. Hooks must be pure: functions of
their arguments and the engine's frozen config, with no ``os.environ`` reads, no
subprocesses and no filesystem probing. That is what makes every rule testable without
a GPU.

Answers are checked at the boundary (:mod:`enginekit.platform.contract`): an exception or a
malformed answer from any hook becomes one :class:`~enginekit.base.errors.EngineError` naming
the engine, its distribution and the hook. Raise ``EngineError`` yourself to refuse a
shard with a reason; anything else you raise is reported as a bug in the plugin.

Non-engine plugins (a scheduler's instrumentation, a site's policy) are registered with
``Registry.add_wrapper`` and may only use ``@hookimpl(wrapper=True)``: they wrap every
engine's answer and never replace it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Protocol

import pluggy

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from enginekit.layout.model import LayoutRules
    from enginekit.policy.args import ParsedArgs
    from enginekit.policy.engine import EnginePolicy
    from enginekit.spec.model import Command, GPUInfo, Profile, ShardSpec

PROJECT_NAME = "enginekit"
ENTRY_POINT_GROUP = "enginekit.engines"
REQUIRED_HOOKS = frozenset({"validate", "commands"})
DEFAULT_HEALTH_PATH = "/health"
DEFAULT_METRICS_PATH = "/metrics"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec(firstresult=True)
def policy() -> EnginePolicy | None:
    """Declare the variables and flags this engine owns: an :class:`~enginekit.policy.engine.EnginePolicy`.

    Optional (nothing opened, nothing reserved); asked once per engine, so a function of
    the frozen config. The registry applies it for this engine's profiles only: the env
    namespaces it opens, the variables it reserves and the ones carrying its secrets
    (protected from every profile, whatever the site allows), the names it denies, and
    how its parser reads ``args``, with the flags enginekit manages, the risky flags the
    site may allow (``allowed_args``, from the engine's config) and the secret flags.
    The core refuses what the policy declares before :func:`validate` is called.
    """


@hookspec(firstresult=True)
def layout_rules() -> LayoutRules | None:
    """Declare what this engine's layouts look like: a :class:`~enginekit.layout.model.LayoutRules`.

    Optional (tensor and pipeline parallel only: a profile asking for data or expert
    parallel is refused); asked once per engine. Which data-parallel balancing modes the
    engine has, whether it has expert parallel and which all-to-all backends, the ports
    its data-parallel leader listens on (each at its offset from the replica's leader port,
    and which of them every node must keep free), whether its KV-event publishers move by
    the data-parallel rank, and whether a process serving no API still runs a health stub
    on the HTTP port. From these the core lays out every replica
    (:func:`enginekit.plugin.shard_layout` gives a shard its process): build ranks and
    ports from that slice, never from arithmetic of your own.
    """


@hookspec(firstresult=True)
def validate(profile: Profile, gpus: Sequence[GPUInfo], args: ParsedArgs) -> list[str] | None:
    """Reject a profile that cannot work on these GPUs, before anything is started.

    **Required.** The registry has already applied the checks every engine shares
    (:func:`enginekit.policy.checks.validate_common`, the site's env policy with this engine's
    own, and the flag policy of :func:`policy`); return only what is particular to this
    engine: quantization floors, parallelism it cannot do, values of pass-through
    arguments it must refuse. Return one sentence per problem, each starting
    ``profile 'name':`` and naming the field and what was expected, so a user fixes
    every problem in one round. An empty list (or ``None``) means valid.

    :param profile: How the model runs: engine, parallelism, args, env, adapters.
    :param gpus: The GPUs placement chose on this node, in shard order; empty when the
        caller has no GPU facts (a CPU shard, or a dry run), in which case checks that
        need them pass.
    :param args: The profile's ``args`` read once with the policy's syntax: look options
        up with ``args.find({...})`` and ``args.values("--opt")`` instead of scanning.
    """


@hookspec(firstresult=True)
def commands(shard: ShardSpec, installed: Path | None) -> list[Command] | None:
    """Return the processes that make up one shard, in start order.

    **Required.** Most shards are a single process. vLLM under Ray is not: the leader
    runs a Ray head and then the server against it, and a worker runs only the Ray
    join. Returning a sequence is what lets a supervisor treat both the same way:
    every command but the last is a sidecar kept alive for the shard's lifetime, and the
    last one's exit is the shard's exit.

    Each command's ``env`` holds only what the engine generates: build it with
    :class:`enginekit.plugin.CommandBuilder`, which starts from the shard's placement
    variables (the registry refuses a command that drops or changes one). The
    registry applies the profile's overrides afterwards, filtered by the site's env
    policy; a variable the engine generates is never overridden by a profile (except the
    NCCL tuning escape hatch, :data:`enginekit.plugin.TUNABLE`). The profile has passed
    the shared checks and this engine's :func:`validate`, and the shard
    :func:`enginekit.spec.rules.check_spec`, before this is called: do not check them again.
    The API key reaches the engine through ``env`` only, named in ``secret_env`` (and
    declared in the policy's ``secret_env``); the registry refuses a command whose
    arguments contain it. Return a list (not a generator)
    of at least one command; argv elements and env values are plain text without control
    characters.

    :param shard: This node's shard of one replica.
    :param installed: Root of the build the agent installed for this engine, or ``None``
        when the engine runs what the node already has. Passed only to engines whose
        class sets ``takes_installed_build = True``.
    :raises enginekit.base.errors.EngineError: when this engine cannot build this shard (say why).
    """


@hookspec(firstresult=True)
def serves_http(shard: ShardSpec) -> bool | None:
    """Return whether this rank answers the OpenAI API.

    Optional; the registry assumes ``shard.is_leader()`` when the engine does not answer.
    In a multi-node replica only the leader does: health-checking a worker's port would
    time out and fail a replica that is coming up perfectly well, which is exactly what
    happened before this existed.
    """


@hookspec(firstresult=True)
def health_path() -> str | None:
    """Return the path, appended to the shard's base URL, that answers 200 only when ready.

    Optional; the registry assumes ``/health``. It must mean *ready*, not *alive*: an
    endpoint that answers 200 while the model loads makes a supervisor route traffic to
    a shard that cannot serve it.
    """


@hookspec(firstresult=True)
def metrics_path() -> str | None:
    """Return the path, appended to the shard's base URL, that serves Prometheus text.

    Optional; the registry assumes ``/metrics``. Add whatever flag makes it real in
    :func:`commands`, and say in :func:`notes` when a scraper needs the API key.
    """


@hookspec(firstresult=True)
def notes(shard: ShardSpec) -> list[str] | None:
    """Return what an operator should know about how this shard will run.

    Optional; none by default. Shown in the rendered plan: endpoints an API key does not
    protect, a site exception that applies (serving without authentication), what the
    engine itself still exposes.
    """


@hookspec(firstresult=True)
def leader_exit(shard: ShardSpec) -> str | None:
    """Return what happens to this worker rank when its leader's process goes.

    Optional; asked for every rank but the leader (``ShardSpec.is_leader()``). ``"stops"``
    when the rank's processes exit by themselves once the leader is gone,
    ``"must_be_stopped"`` when they stay up until something stops them. The default is
    ``"must_be_stopped"``: a supervisor told that stops what would have stopped anyway,
    while one wrongly told ``"stops"`` leaves a worker holding its GPUs for good. Such a
    worker is watched at ``leader_port``, or, for a data-parallel replica of an engine whose
    ``layout_rules`` say ``coordination_closes``, at the leader's API server (the plan's
    ``leader_watch_port``).
    """


@hookspec(firstresult=True)
def device_listing(shard: ShardSpec | None, installed: Path | None) -> Command | None:
    """Return the command that lists the GPUs the engine's build can see.

    Optional, the seed's ``CPUFallback``; ``None`` (the default) means the engine never
    silently runs on the CPU when it was placed on GPUs. An engine that can (llama.cpp
    built without CUDA does) returns the command here and parses its output in
    :func:`parse_devices`. Running it is the caller's job, so this stays pure; the agent
    checks such a shard is on its GPUs before calling it ready. When the caller names the
    shard (``None`` otherwise), the registry adds the shard's placement variables to the
    command's ``env``, so the listing sees exactly the shard's devices.
    """


@hookspec(firstresult=True)
def parse_devices(output: str) -> list[str] | None:
    """Parse the output of :func:`device_listing` into the devices the build sees.

    Optional; required with :func:`device_listing`. Return an empty list when the build
    sees no GPU: that shard would run on the CPU.
    """


@hookspec(firstresult=True)
def help_command(command: Command) -> Command | None:
    """Return the command that prints every option of the engine started by ``command``.

    Optional; the registry assumes ``command.path --help``. Engines whose path is an
    interpreter starting a module must answer, or ``--help`` reaches Python.
    """


@hookspec(firstresult=True)
def unavailable() -> str | None:
    """Return why this engine cannot be offered on this node, or ``None`` when it can.

    Optional; available by default. For an engine the agent does not install and that
    needs the node config to name it (TensorRT-LLM's interpreter): say how to enable it.
    """


@hookspec(firstresult=True)
def example_shard() -> ShardSpec | None:
    """Return a shard of this engine that it plans: ``enginekit engines --check`` plans it.

    Optional (plugin API 1.0). Without it, the check plans the canonical single-GPU shard
    (one GPU, tensor parallel 1, a model under ``/models``); give one when the engine
    needs more to plan (a model file of its format, an option it requires). Its profile
    must name this engine.
    """


class EngineClass(Protocol):
    """What an engine plugin class may declare, besides its hook implementations.

    ``config_type`` is the attrs class the registry structures ``[engines.<name>]`` into
    and passes to ``__init__``; ``takes_installed_build`` says the engine runs a build
    the agent installed (its root arrives as ``installed`` in ``commands``). Both are
    optional: a class without ``config_type`` is instantiated without arguments.
    """

    config_type: ClassVar[type]
    takes_installed_build: ClassVar[bool]

    def __init__(self, config: object) -> None: ...
