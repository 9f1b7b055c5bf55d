"""Plugins with hook mistakes: a misspelled hook, and one missing a required hook."""

from enginekit import Command, hookimpl


class TypoEngine:
    @hookimpl
    def validate(self):
        return []

    @hookimpl
    def comands(self, shard):
        return [Command(path="typo")]


class IncompleteEngine:
    @hookimpl
    def validate(self):
        return []
