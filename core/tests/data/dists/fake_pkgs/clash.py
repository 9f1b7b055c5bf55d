"""A second distribution claiming an engine name another already provides."""

from enginekit import Command, hookimpl


class OtherEngine:
    @hookimpl
    def validate(self):
        return []

    @hookimpl
    def commands(self):
        return [Command(path="other")]
