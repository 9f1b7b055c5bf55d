"""An engine that prints while it is imported and while it builds: stdout must stay the caller's."""

from enginekit.plugin import CommandBuilder, hookimpl

print("noisy plugin says hello at import")


class NoisyEngine:
    @hookimpl
    def validate(self, profile):
        print("noisy validate")
        return []

    @hookimpl
    def commands(self, shard):
        print("noisy commands")
        return [CommandBuilder(shard).command("noisy", ["--port", str(shard.http_port)])]
