"""An engine's optional answers, each checked and named: help, device listing, leader exit, devices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest
from enginekit import Command, EngineError, Profile, ShardSpec, hookimpl
from enginekit.placement.builder import CommandBuilder
from enginekit.testing import engine_for

KEY = "sk-engine-answers-0123456789"


class Answering:
    """A plugin whose optional hooks answer what the test sets on the class."""

    help: Any = None
    listing: Any = None
    leader: Any = "stops"
    devices: Any = ()
    seen: dict[str, Any]

    def __init__(self) -> None:
        self.seen = {}

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [CommandBuilder(shard).command("serve", ["--port", str(shard.http_port)])]

    @hookimpl
    def help_command(self, command: Command) -> Any:
        self.seen["help"] = command
        return self.help

    @hookimpl
    def device_listing(self, shard: ShardSpec | None, installed: Path | None) -> Any:
        self.seen["listing"] = (shard, installed)
        return self.listing(shard) if callable(self.listing) else self.listing

    @hookimpl
    def leader_exit(self, shard: ShardSpec) -> Any:
        self.seen["leader"] = shard
        return self.leader

    @hookimpl
    def parse_devices(self, output: str) -> Any:
        self.seen["devices"] = output
        return self.devices


def _worker() -> ShardSpec:
    return ShardSpec(
        rank=1,
        nnodes=2,
        leader_addr="10.0.0.1",
        leader_port=29600,
        http_port=8000,
        gpu_indices=(0,),
        profile=Profile(name="p", engine="answering", nodes=2, model_path="/m"),
    )


def _leader(engine: str = "answering", **fields: Any) -> ShardSpec:
    return ShardSpec(
        http_port=8000,
        gpu_indices=(0,),
        profile=Profile(name="p", engine=engine, model_path="/m"),
        **fields,
    )


def test_help_is_the_program_with_help_unless_the_plugin_says_otherwise() -> None:
    plugin = Answering()
    engine = engine_for(plugin, "answering")
    command = Command(path="/opt/serve", args=("x",))
    assert engine.help_command(command) == Command(path="/opt/serve", args=("--help",))
    assert plugin.seen["help"] == command
    plugin.help = Command(path="/opt/serve", args=("help", "all"))
    assert engine.help_command(command) == Command(path="/opt/serve", args=("help", "all"))
    plugin.help = 5
    with pytest.raises(EngineError, match=r"hook help_command\(\) returned"):
        engine.help_command(command)


def test_a_device_listing_gets_the_shard_the_build_and_the_placement() -> None:
    plugin = Answering()
    plugin.listing = lambda shard: Command(path="/opt/list", env={"CUDA_VISIBLE_DEVICES": "7", "MINE": "1"})
    engine = engine_for(plugin, "answering", installed=None)
    shard = _leader()
    listing = engine.device_listing(shard)
    assert plugin.seen["listing"] == (shard, None)
    assert listing is not None
    assert listing.path == "/opt/list"
    assert listing.env["MINE"] == "1"
    # The placement's variables come with it; what the listing sets itself wins.
    assert listing.env["CUDA_VISIBLE_DEVICES"] == "7"
    assert set(listing.env) > {"CUDA_VISIBLE_DEVICES", "MINE"}
    assert set(listing.why) >= set(listing.env) - {"MINE", "CUDA_VISIBLE_DEVICES"}
    plugin.listing = "not a command"
    with pytest.raises(EngineError, match=r"hook device_listing\(\) returned"):
        engine.device_listing(shard)


def test_a_device_listing_with_the_key_on_its_command_line_is_refused() -> None:
    plugin = Answering()
    plugin.listing = lambda shard: Command(path="/opt/list", args=("--key", shard.api_key))
    engine = engine_for(plugin, "answering")
    with pytest.raises(EngineError) as caught:
        engine.device_listing(_leader(api_key=KEY))
    assert str(caught.value) == "engine 'answering' put the API key on a command line; refusing it"


def test_a_worker_asks_the_plugin_what_its_leader_s_exit_means() -> None:
    plugin = Answering()
    engine = engine_for(plugin, "answering")
    worker = _worker()
    assert engine.on_leader_exit(worker) == "stops"
    assert plugin.seen["leader"] == worker
    assert engine.on_leader_exit(_leader()) == ""
    plugin.leader = "explode"
    with pytest.raises(EngineError) as caught:
        engine.on_leader_exit(worker)
    assert str(caught.value) == (
        "engine 'answering' (added in process): hook leader_exit() returned a string of 7 characters, "
        "expected 'stops' or 'must_be_stopped'"
    )


def test_devices_are_the_plugin_s_sentences_checked() -> None:
    plugin = Answering()
    plugin.devices = ["GPU 0: H200"]
    engine = engine_for(plugin, "answering")
    assert engine.parse_devices("nvidia-smi -L output") == ["GPU 0: H200"]
    assert plugin.seen["devices"] == "nvidia-smi -L output"
    plugin.devices = [5]
    with pytest.raises(EngineError, match=r"hook parse_devices\(\) returned"):
        engine.parse_devices("x")


class Unexplained:
    """A plugin whose command sets a variable without saying why, and keeps its name and wait."""

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        made = CommandBuilder(shard).command("serve", [], name="main", wait_for_leader_port=True)
        return [attrs.evolve(made, env={**made.env, "OWN_SETTING": "1"})]


def test_a_variable_the_plugin_does_not_explain_is_said_to_be_its_own() -> None:
    [command] = engine_for(Unexplained(), "unexplained").commands(_leader("unexplained"))
    assert command.why["OWN_SETTING"] == "generated by the unexplained engine plugin"
    assert all(command.why.values())
    assert command.why.keys() == command.env.keys()
    assert (command.name, command.wait_for_leader_port) == ("main", True)


class Undeclared:
    """A policy-less plugin naming a secret variable only in a command (the first release's way)."""

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        made = CommandBuilder(shard).command("serve", [])
        return [
            attrs.evolve(made, env={**made.env, "MY_KEY": shard.api_key}, secret_env=frozenset({"MY_KEY"}))
        ]


def test_a_secret_named_only_in_a_command_is_a_deprecation_naming_the_replacement() -> None:
    engine = engine_for(Undeclared(), "undeclared")
    with pytest.warns(DeprecationWarning, match="named only in a command's secret_env") as caught:
        engine.commands(_leader("undeclared", api_key=KEY))
    assert str(caught[0].message) == (
        "engine 'undeclared': secret variables ['MY_KEY'] named only in a command's secret_env is "
        "deprecated: declare them in the policy() hook's EnginePolicy(secret_env=...); it is removed "
        "in enginekit 2.0"
    )
