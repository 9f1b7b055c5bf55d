"""Engines that list as ok, and what planning their example shows."""

from __future__ import annotations

from enginekit import plugin as ek


class Good:
    @ek.hookimpl
    def validate(self, profile: ek.Profile) -> list[str]:
        return []

    @ek.hookimpl
    def commands(self, shard: ek.ShardSpec) -> list[ek.Command]:
        return [ek.CommandBuilder(shard).command("/usr/bin/good", ["--port", str(shard.http_port)])]


class Exampled(Good):
    """Plans only shards whose model is a .gguf file; says so with its own example."""

    @ek.hookimpl
    def validate(self, profile: ek.Profile) -> list[str]:
        if not profile.model_path.endswith(".gguf"):
            return [f"profile {profile.name!r}: model_path: expected a .gguf file"]
        return []

    @ek.hookimpl
    def example_shard(self) -> ek.ShardSpec:
        profile = ek.Profile(name="example", engine="exampled", model_path="/models/m.gguf")
        return ek.ShardSpec(replica_id="r", shard_id="s", profile=profile, gpu_indices=(0,), http_port=8080)


class Raising(Good):
    @ek.hookimpl
    def commands(self, shard: ek.ShardSpec) -> list[ek.Command]:
        raise RuntimeError("the table of flags is missing")


class Garbage(Good):
    @ek.hookimpl
    def commands(self, shard: ek.ShardSpec) -> str:
        return "/usr/bin/garbage --port 8000"


class BadExample(Good):
    @ek.hookimpl
    def example_shard(self) -> dict[str, str]:
        return {"engine": "badexample"}


class Refusing(Good):
    """Refuses every shard, the canonical one included."""

    @ek.hookimpl
    def validate(self, profile: ek.Profile) -> list[str]:
        return [f"profile {profile.name!r}: refusing everything"]
