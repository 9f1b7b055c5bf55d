"""An engine that writes straight to file descriptor 1, at import and while it builds."""

import os

from enginekit import Command, hookimpl

os.write(1, b"fdwriter at import\n")


class FdWriterEngine:
    @hookimpl
    def validate(self, profile):
        return []

    @hookimpl
    def commands(self, shard):
        os.write(1, b"fdwriter in commands\n")
        return [Command(path="fdwriter", args=("--port", str(shard.http_port)))]
