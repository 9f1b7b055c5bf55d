"""Well-formed fake engines: one without config, one with a config section, one unavailable."""

from __future__ import annotations

from typing import ClassVar

import attrs

from enginekit.plugin import CommandBuilder, EnginePolicy, hookimpl


@attrs.frozen(kw_only=True)
class KnobConfig:
    executable: str = "fake-server"
    knob: int = 1


class FakeEngine:
    takes_installed_build: ClassVar[bool] = True

    @hookimpl
    def policy(self):
        return EnginePolicy(secret_env="FAKE_API_KEY")

    @hookimpl
    def validate(self, profile):
        return [f"profile {profile.name!r}: fake refuses tp 3"] if profile.tp == 3 else []

    @hookimpl
    def commands(self, shard, installed):
        build = CommandBuilder(shard)
        build.put_secret("FAKE_API_KEY", shard.api_key, "the API key, through the environment only")
        path = f"{installed}/bin/fake-server" if installed else "fake-server"
        args = (shard.profile.model_path, "--host", shard.host(), "--port", str(shard.http_port))
        return [build.command(path, args, name="fake")]

    @hookimpl
    def notes(self, shard):
        return ["fake engines serve nothing"] if shard.api_key else []


class ConfigurableEngine:
    config_type: ClassVar[type[KnobConfig]] = KnobConfig

    def __init__(self, config: KnobConfig = KnobConfig()) -> None:
        self.config = config

    @hookimpl
    def validate(self):
        return []

    @hookimpl
    def commands(self, shard):
        return [CommandBuilder(shard).command(self.config.executable, [f"--knob={self.config.knob}"])]


class OfflineEngine(FakeEngine):
    @hookimpl
    def unavailable(self):
        return "set [engines.offline] interpreter to enable it"
