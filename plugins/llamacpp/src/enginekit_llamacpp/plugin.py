"""``LlamaCppEngine``: the hook implementations for llama.cpp's ``llama-server``."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from enginekit.plugin import hookimpl, resolve_executable

from enginekit_llamacpp.config import LlamaCppConfig
from enginekit_llamacpp.flags import API_KEY_ENV, EXECUTABLE

# Each hook imports what it uses when it first runs: `enginekit engines` imports every
# engine to list it, and needs its config and its hooks, not its planning code.
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from enginekit.plugin import Command, EnginePolicy, GPUInfo, ParsedArgs, Profile, ShardSpec

HEALTH_PATH = "/health"
DEFAULT_CONFIG = LlamaCppConfig()
METRICS_PATH = "/metrics"


class LlamaCppEngine:
    """llama-server: one process per shard, on one node, on its GPUs or on the CPU.

    A plain class: pluggy tells plugins apart by identity, which attrs' value equality
    would break.
    """

    config_type: ClassVar[type[LlamaCppConfig]] = LlamaCppConfig
    #: The agent installs llama.cpp builds; one arrives as ``installed``.
    takes_installed_build: ClassVar[bool] = True

    def __init__(self, config: LlamaCppConfig = DEFAULT_CONFIG) -> None:
        self.config = config
        # A function of the frozen config: built when first asked, then answered as often.
        self._policy: EnginePolicy | None = None

    def executable(self, installed: Path | None) -> str:
        """The llama-server to run: the installed build's, or the configured one."""
        return resolve_executable(self.config.executable, installed, f"bin/{EXECUTABLE}")

    @hookimpl
    def policy(self) -> EnginePolicy:
        """``GGML_`` open, ``LLAMA_ARG_*`` and the backend library denied, the key reserved, the flags."""
        if self._policy is None:
            from enginekit_llamacpp.policy import engine_policy

            self._policy = engine_policy(self.config.allow_args)
        return self._policy

    @hookimpl
    def validate(self, profile: Profile, gpus: Sequence[GPUInfo], args: ParsedArgs) -> list[str]:
        """Single node, no pipeline parallelism, GGUF-only flags, presets and thread priorities."""
        from enginekit_llamacpp.validation import profile_problems

        del gpus  # llama.cpp runs on any card its build supports; nothing to check here
        return profile_problems(profile, args, self.config)

    @hookimpl
    def commands(self, shard: ShardSpec, installed: Path | None) -> list[Command]:
        """One llama-server process."""
        from enginekit_llamacpp.command import server_command

        return [server_command(shard, self.executable(installed))]

    @hookimpl
    def health_path(self) -> str:
        """``/health``: 503 while the model loads, 200 once it can serve (the port listens throughout)."""
        return HEALTH_PATH

    @hookimpl
    def metrics_path(self) -> str:
        """``/metrics``, made real by ``--metrics``."""
        return METRICS_PATH

    @hookimpl
    def notes(self, shard: ShardSpec) -> list[str]:
        """The key's reach (/metrics too), adapters, the KV cache, the CPU check, the build assumed."""
        notes = [
            "/health answers 503 while the model loads and 200 once it is ready; it and /v1/health "
            "are the only endpoints that never ask for the key"
        ]
        if shard.api_key:
            notes.append(
                f"the API key ({API_KEY_ENV}) guards /metrics too: a Prometheus scraper must send "
                f"'Authorization: Bearer <key>' (or 'X-Api-Key: <key>')"
            )
        else:
            notes.append(
                "no API key: whoever reaches the port can use every endpoint, /metrics and "
                "POST /lora-adapters included"
            )
        if shard.profile.adapters:
            ids = ", ".join(f"{i} = {a.name}" for i, a in enumerate(shard.profile.adapters))
            notes.append(
                f"adapters load at scale 0 and a request applies one by id ({ids}): "
                f'"lora": [{{"id": 0, "scale": 1.0}}]; POST /lora-adapters changes the default for '
                f"every request"
            )
        if shard.on_cpu() and shard.kv_cache_mib:
            notes.append(
                f"kv_cache_mib ({shard.kv_cache_mib} MiB) is not passed on: llama-server sizes its KV "
                f"cache from the profile's --ctx-size (and --parallel), not from kv_cache_mib"
            )
        if not shard.on_cpu():
            notes.append(
                "a llama.cpp build without CUDA would run on the CPU: --device CUDA0… makes it fail "
                "at start instead, and `llama-server --list-devices` in this shard's environment "
                "shows what the build sees"
            )
        if self.config.options.note is not None:
            notes.append(self.config.options.note)
        return notes

    @hookimpl
    def device_listing(self, shard: ShardSpec | None, installed: Path | None) -> Command:
        """``llama-server --list-devices``, with the shard's placement variables when given one."""
        from enginekit_llamacpp.devices import listing_command

        return listing_command(self.executable(installed), shard)

    @hookimpl
    def parse_devices(self, output: str) -> list[str]:
        """The non-CPU devices in the listing; empty means the build would run on the CPU."""
        from enginekit_llamacpp.devices import parse_listing

        return parse_listing(output)
