"""``TrtllmEngine``: TensorRT-LLM's ``trtllm-serve``, started through the interpreter the node names."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, ClassVar

from enginekit.plugin import EngineError, hookimpl

from enginekit_trtllm.config import TrtllmConfig, has_served_name
from enginekit_trtllm.flags import MODULE, OPTIONS_FLAG, SUBCOMMAND

# Each hook imports what it uses when it first runs: `enginekit engines` imports every
# engine to list it, and needs its config and its hooks, not its planning code.
if TYPE_CHECKING:
    from collections.abc import Sequence

    from enginekit.plugin import Command, EnginePolicy, GPUInfo, ParsedArgs, Profile, ShardSpec

HOW_TO_ENABLE = (
    "the agent does not install TensorRT-LLM; name the interpreter it is installed in, in the "
    'node config: [engines.trtllm] python = "/path/to/venv/bin/python"'
)
PROMETHEUS_PATH = "/prometheus/metrics"
#: Frozen, so one shared default is safe.
DEFAULT_CONFIG = TrtllmConfig()
JSON_STATS_PATH = "/metrics"


class TrtllmEngine:
    """Builds ``<python> -m tensorrt_llm.commands.serve serve MODEL …`` for one single-node shard."""

    config_type: ClassVar[type[TrtllmConfig]] = TrtllmConfig
    #: The node's own install, named by ``python``; the agent installs no build of it.
    takes_installed_build: ClassVar[bool] = False

    def __init__(self, config: TrtllmConfig = DEFAULT_CONFIG) -> None:
        self.config = config
        # A function of the frozen config: built when first asked, then answered as often.
        self._policy: EnginePolicy | None = None

    @functools.cached_property
    def _served_name(self) -> bool:
        """Whether the configured release has ``--served_model_name``: asked only when planning,
        so listing the engines reads no option table."""
        return has_served_name(self.config)

    @hookimpl
    def policy(self) -> EnginePolicy:
        """``TLLM_``/``TRTLLM_`` open but for the launchers', trace and telemetry names; Click's options."""
        if self._policy is None:
            from enginekit_trtllm.policy import engine_policy

            self._policy = engine_policy(self.config.allow_args)
        return self._policy

    @hookimpl
    def unavailable(self) -> str | None:
        """Offered only where the node config names the interpreter."""
        return None if self.config.python else HOW_TO_ENABLE

    @hookimpl
    def validate(self, profile: Profile, gpus: Sequence[GPUInfo], args: ParsedArgs) -> list[str]:
        """Multi-node, adapters on the wrong backend, option values and names, quantization floors."""
        from enginekit_trtllm.validation import problems

        return problems(profile, gpus, args, self.config)

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        """One process: the server, with its options file written by the launcher when it needs one."""
        from enginekit.plugin import CommandBuilder, FileArg, launcher_args

        from enginekit_trtllm.options import OPTIONS_ENV, OPTIONS_FILENAME, options_document, options_text

        self._refuse(shard)
        config, profile = self.config, shard.profile
        engine_args = [
            SUBCOMMAND,
            profile.model_path,
            # Its default is localhost, where nothing off the node reaches it.
            *("--host", shard.host(), "--port", str(shard.http_port)),
            *("--backend", config.backend),
            *("--tp_size", str(profile.tp), "--pp_size", str(profile.pipeline_degree)),
        ]
        if self._served_name:
            # Always given, so clients ask for model_name() whatever the path looks like:
            # without it a local directory is served under its basename.
            engine_args += ["--served_model_name", profile.model_name()]
        engine_args += profile.args
        build = CommandBuilder(shard)
        document = options_document(profile, config)
        if not document:
            args: tuple[str, ...] = ("-I", "-m", MODULE, *engine_args)
        else:
            build.put(
                OPTIONS_ENV,
                options_text(document),
                "the extra LLM API options (" + ", ".join(document) + "): the launcher writes them "
                "to a private 0600 file and appends --extra_llm_api_options with its path, so no "
                "supervisor prepares files and nothing else can swap them",
            )
            file_arg = FileArg(OPTIONS_FLAG, OPTIONS_ENV, OPTIONS_FILENAME)
            args = launcher_args(MODULE, engine_args, file_args=[file_arg])
        return [build.command(config.python, args, name="trtllm-serve")]

    def _refuse(self, shard: ShardSpec) -> None:
        from enginekit.plugin import host_port

        from enginekit_trtllm.validation import MULTI_NODE_REASON

        where = f"shard {shard.shard_id or '(unnamed)'} of profile {shard.profile.name!r}"
        endpoint = host_port(shard.host(), shard.http_port)
        if not self.config.python:
            raise EngineError(f"{where}: TensorRT-LLM is unavailable on this node: {HOW_TO_ENABLE}")
        if shard.is_multi_node():
            raise EngineError(f"{where}: spans {shard.nnodes} nodes, but {MULTI_NODE_REASON}")
        if shard.on_cpu():
            raise EngineError(f"{where}: has no GPU, and TensorRT-LLM runs only on NVIDIA GPUs")
        if shard.api_key and not self.config.allow_unauthenticated:
            # Serving anyway would publish an endpoint its owner believes is protected.
            raise EngineError(
                f"{where}: has an API key, but trtllm-serve has no authentication (no API key "
                f"option; NVIDIA/TensorRT-LLM#9950), so the key would not be enforced and the "
                f"model would be open to anyone who reaches {endpoint}; serve it "
                f"with an engine that enforces keys, or accept the risk for this node with "
                f"[engines.trtllm] allow_unauthenticated = true"
            )

    @hookimpl
    def metrics_path(self) -> str:
        """Prometheus text, mounted only when the options file sets ``return_perf_metrics``."""
        return PROMETHEUS_PATH if self.config.prometheus_metrics else JSON_STATS_PATH

    @hookimpl
    def help_command(self, command: Command) -> Command:
        """The interpreter's ``-m tensorrt_llm.commands.serve serve --help``."""
        from enginekit.plugin import Command

        from enginekit_trtllm.options import OPTIONS_ENV

        env = {key: value for key, value in command.env.items() if key != OPTIONS_ENV}
        return Command(path=command.path, args=("-I", "-m", MODULE, SUBCOMMAND, "--help"), env=env)

    @hookimpl
    def notes(self, shard: ShardSpec) -> list[str]:
        """No authentication, metrics paths, adapters, and which release's options were assumed."""
        from enginekit.plugin import host_port

        config, profile = self.config, shard.profile
        endpoint = host_port(shard.host(), shard.http_port)
        out = [
            f"trtllm-serve has no authentication: everything on {endpoint} "
            f"(the OpenAI API, /update_weights, /release_memory, /kv_cache_events, the metrics) "
            f"answers anyone who can reach it"
        ]
        if shard.api_key:
            out.append(
                "the shard's API key is NOT enforced: this node allows TensorRT-LLM without "
                "authentication ([engines.trtllm] allow_unauthenticated = true)"
            )
        if config.prometheus_metrics:
            out.append(
                f"{PROMETHEUS_PATH} serves Prometheus text (return_perf_metrics is set); "
                f"{JSON_STATS_PATH} is JSON iteration stats, not Prometheus"
            )
        else:
            out.append(
                f"{JSON_STATS_PATH} is JSON iteration stats, not Prometheus: a Prometheus scraper "
                f"gets nothing it can parse ([engines.trtllm] prometheus_metrics = true fixes it)"
            )
        if profile.adapters:
            ids = ", ".join(f"{a.name} = {i} ({a.path})" for i, a in enumerate(profile.adapters))
            out.append(
                'requests choose an adapter with "lora_request": {"lora_name", "lora_int_id", '
                f'"lora_path"}}, ids in the profile\'s order: {ids}; the server loads whatever '
                f"path a request names"
            )
        if not self._served_name:
            base = profile.model_path.rstrip("/").rsplit("/", 1)[-1]
            out.append(
                f"TensorRT-LLM {config.release} has no --served_model_name: clients ask for "
                f"{base!r} if model_path is a local directory, {profile.model_path!r} otherwise"
            )
        if config.options.note:
            out.append(config.options.note)
        return out
