"""An engine that writes straight to file descriptor 1, at import and while it builds."""

import os

from enginekit.plugin import CommandBuilder, hookimpl

os.write(1, b"fdwriter at import\n")


class FdWriterEngine:
    @hookimpl
    def validate(self, profile):
        return []

    @hookimpl
    def commands(self, shard):
        os.write(1, b"fdwriter in commands\n")
        return [CommandBuilder(shard).command("fdwriter", ["--port", str(shard.http_port)])]
