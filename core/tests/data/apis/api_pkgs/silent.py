"""A plugin whose distribution names no enginekit requirement: read as the oldest API."""

from __future__ import annotations

from enginekit import plugin as ek


class Engine:
    @ek.hookimpl
    def validate(self, profile: ek.Profile) -> list[str]:
        return []

    @ek.hookimpl
    def commands(self, shard: ek.ShardSpec) -> list[ek.Command]:
        return [ek.CommandBuilder(shard).command("/usr/bin/silent-server", ["--port", str(shard.http_port)])]
