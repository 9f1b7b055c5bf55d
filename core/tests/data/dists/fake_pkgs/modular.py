"""A module plugin: an engine without configuration."""

from enginekit import Command, hookimpl


@hookimpl
def validate():
    return []


@hookimpl
def commands(shard):
    return [Command(path="modular", args=(shard.profile.model_path,))]
