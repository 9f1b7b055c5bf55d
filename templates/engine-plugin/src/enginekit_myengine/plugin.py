"""``MyEngine``: the hook implementations for myengine-server."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from enginekit import plugin as ek

from enginekit_myengine.config import MyEngineConfig
from enginekit_myengine.policy import (
    API_KEY_ENV,
    DTYPES,
    FP8_MIN_CAPABILITY,
    FP8_SINCE,
    HOST_IP_ENV,
    engine_policy,
)

HEALTH_PATH = "/ready"
METRICS_PATH = "/metrics"
DEFAULT_CONFIG = MyEngineConfig()


class MyEngine:
    """myengine-server: one process per shard; in a multi-node replica the leader serves, workers join it.

    A plain class, not attrs: pluggy tells plugins apart by identity, which value
    equality would break.
    """

    #: The registry structures ``[engines.myengine]`` into this and passes it to ``__init__``.
    config_type: ClassVar[type[MyEngineConfig]] = MyEngineConfig

    def __init__(self, config: MyEngineConfig = DEFAULT_CONFIG) -> None:
        self.config = config
        # The config is frozen: read the release once, not once per profile.
        self.release = ek.parse_version(config.version)

    @ek.hookimpl
    def policy(self) -> ek.EnginePolicy:
        """The variables and flags myengine-server owns; the core enforces them before ``validate``."""
        return engine_policy(allowed=self.config.allow_args)

    @ek.hookimpl
    def validate(self, profile: ek.Profile, gpus: Sequence[ek.GPUInfo], args: ek.ParsedArgs) -> list[str]:
        """Value checks only: the flag tables of ``policy`` were applied already."""
        where = f"profile {profile.name!r}"
        problems = []
        if profile.kv_events:
            problems.append(f"{where}: kv_events: myengine-server publishes no KV-cache events; set it false")
        if profile.adapters:
            problems.append(f"{where}: adapters: myengine-server cannot load LoRA adapters; remove them")
        dtypes = args.values("--dtype")
        problems += [
            f"{where}: args: --dtype {value!r}: expected one of {', '.join(DTYPES)}"
            for value in dtypes
            if value not in DTYPES
        ]
        if dtypes and dtypes[-1] == "fp8":  # the parser keeps the last one given
            if self.release < FP8_SINCE:
                problems.append(
                    f"{where}: args: --dtype fp8 needs myengine-server {FP8_SINCE} or later, and "
                    f"engines.myengine.version is {self.release}"
                )
            problems += ek.require_compute_capability(profile, gpus, FP8_MIN_CAPABILITY, "--dtype fp8")
        return problems

    @ek.hookimpl
    def commands(self, shard: ek.ShardSpec) -> list[ek.Command]:
        """One process: the leader serves the API, every other rank joins it headless."""
        profile = shard.profile
        # Starts from the placement variables (CUDA_VISIBLE_DEVICES, NCCL_*): they cannot be forgotten.
        build = ek.CommandBuilder(shard)
        args = [
            *("--model", profile.model_path),
            *("--tensor-parallel-size", str(profile.tp)),
            *("--pipeline-parallel-size", str(profile.pipeline_degree)),
        ]
        if shard.on_cpu():
            # CUDA_VISIBLE_DEVICES is empty already; --device cpu stops it looking for a GPU at all.
            args += ["--device", "cpu", *(["--threads", str(shard.threads)] if shard.threads else [])]
        if shard.is_multi_node():
            args += ["--nnodes", str(shard.nnodes), "--node-rank", str(shard.rank)]
            args += ["--leader", ek.leader_endpoint(shard)]
            ip = ek.node_ip(shard)
            if ip is not None:
                build.put(
                    HOST_IP_ENV,
                    ip,
                    "the address peers reach this node at; unset, myengine-server advertises the "
                    "first interface it finds, which the other nodes may not route to",
                )
        if shard.is_leader():
            args += ["--host", shard.host(), "--port", str(shard.http_port)]
            args += ["--served-model-name", profile.model_name(), "--enable-metrics"]
            # The environment, never argv: any local user can read a command line.
            build.put_secret(API_KEY_ENV, shard.api_key)
        else:
            args.append("--headless")  # a worker serves no API, so it never holds the key
        return [
            build.command(
                self.config.executable,
                [*args, *profile.args],
                name="myengine-server",
                # A worker's join fails at once while the leader is not listening yet.
                wait_for_leader_port=not shard.is_leader(),
            )
        ]

    @ek.hookimpl
    def serves_http(self, shard: ek.ShardSpec) -> bool:
        """Only the leader answers the API: health-checking a headless worker would time out."""
        return shard.is_leader()

    @ek.hookimpl
    def health_path(self) -> str:
        """``/ready``: 200 once the model is loaded (``/health`` answers 200 while it loads)."""
        return HEALTH_PATH

    @ek.hookimpl
    def metrics_path(self) -> str:
        """``/metrics``, made real by ``--enable-metrics``."""
        return METRICS_PATH

    @ek.hookimpl
    def notes(self, shard: ek.ShardSpec) -> list[str]:
        """Who serves, and what the API key protects."""
        if not shard.is_leader():
            return [f"rank {shard.rank} serves no HTTP: it joins the leader at {ek.leader_endpoint(shard)}"]
        if shard.api_key:
            return [f"{HEALTH_PATH} and {METRICS_PATH} answer without the API key; every other path asks"]
        return ["no API key: whoever reaches the port can use every endpoint"]
