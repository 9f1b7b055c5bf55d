"""A module plugin: an engine without configuration."""

from enginekit.plugin import CommandBuilder, hookimpl


@hookimpl
def validate():
    return []


@hookimpl
def commands(shard):
    return [CommandBuilder(shard).command("modular", [shard.profile.model_path])]
