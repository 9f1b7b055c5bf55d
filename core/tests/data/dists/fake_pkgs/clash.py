"""A second distribution claiming an engine name another already provides."""

from enginekit.plugin import CommandBuilder, hookimpl


class OtherEngine:
    @hookimpl
    def validate(self):
        return []

    @hookimpl
    def commands(self, shard):
        return [CommandBuilder(shard).command("other", [])]
