"""The core's floor holds for what a plugin generates, not only for what a profile asks (issue 30).

A plugin's command could set ``LD_PRELOAD`` and every other loader, shell or interpreter
variable the core refuses to profiles. Now such a variable is refused in a command the
plugin builds unless its policy names it in ``unsafe_env`` with the reason, and then every
plan that carries it says so.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from enginekit import Command, EngineError, Registry, ShardSpec, SpecError, hookimpl
from enginekit.placement.builder import CommandBuilder
from enginekit.policy.engine import EnginePolicy
from enginekit.policy.env import floor_group
from enginekit.testing.factories import make_shard


class Setting:
    """An engine whose command sets ``env``, under the policy given."""

    def __init__(self, env: dict[str, str], policy: EnginePolicy | None = None) -> None:
        self.env = env
        self._policy = policy or EnginePolicy(open_env=("SETTING_",))

    @hookimpl
    def policy(self) -> EnginePolicy:
        return self._policy

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        builder = CommandBuilder(shard)
        for name, value in self.env.items():
            builder.put(name, value, "the plugin's own")
        return [builder.command("/usr/bin/setting", [])]


def plan(engine: Setting, **shard: Any) -> Any:
    registry = Registry()
    registry.add(engine, name="setting")
    return registry.engine("setting").plan(make_shard(engine="setting", **shard))


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("LD_PRELOAD", "the dynamic loader or libc would load code"),
        ("LD_LIBRARY_PATH", "the dynamic loader or libc would load code"),
        ("ld_audit", "the dynamic loader or libc would load code"),
        ("PYTHONPATH", "the Python interpreter would import or run code"),
        ("PYTHONSTARTUP", "the Python interpreter would import or run code"),
        ("BASH_ENV", "a shell or another interpreter would run code"),
        ("NODE_OPTIONS", "a shell or another interpreter would run code"),
        ("CUDA_INJECTION64_PATH", "CUDA or its compilers would load a library"),
        ("NCCL_NET_PLUGIN", "NCCL would load a plugin"),
        ("HTTPS_PROXY", "traffic would go through a proxy"),
        ("SSL_CERT_FILE", "traffic would go through a proxy or trust store"),
    ],
)
def test_a_floor_variable_from_a_plugin_is_refused_naming_it_and_why(name: str, why: str) -> None:
    with pytest.raises(EngineError) as caught:
        plan(Setting({name: "/tmp/x.so"}))
    message = str(caught.value)
    assert f"setting {name}, which the core refuses ({why}" in message
    assert "unsafe_env" in message
    assert "hook commands()" in message


@pytest.mark.parametrize("name", ["PYTHONUNBUFFERED", "PYTHONHASHSEED", "OMP_NUM_THREADS", "SETTING_LEVEL"])
def test_what_the_floor_leaves_alone_a_plugin_may_set(name: str) -> None:
    assert plan(Setting({name: "1"})).commands[0].env[name] == "1"


def test_a_declared_variable_is_set_and_every_plan_says_so() -> None:
    policy = EnginePolicy(unsafe_env={"ld_preload": "the vendor's profiler shim, loaded by every rank"})
    built = plan(Setting({"LD_PRELOAD": "/opt/vendor/shim.so"}, policy))
    assert built.commands[0].env["LD_PRELOAD"] == "/opt/vendor/shim.so"
    assert (
        "env LD_PRELOAD is set by the setting engine itself although it can load code or redirect trust "
        "(its policy's unsafe_env: the vendor's profiler shim, loaded by every rank)"
    ) in built.notes


def test_a_declaration_not_used_adds_no_note() -> None:
    policy = EnginePolicy(unsafe_env={"LD_PRELOAD": "only on some builds"})
    assert not any("unsafe_env" in note for note in plan(Setting({}, policy)).notes)


def test_a_declaration_opens_nothing_to_profiles() -> None:
    policy = EnginePolicy(open_env=("SETTING_",), unsafe_env={"LD_PRELOAD": "the plugin's own shim"})
    from enginekit import Profile

    profile = Profile(name="p", engine="setting", env={"LD_PRELOAD": "/home/attacker/evil.so"})
    with pytest.raises(SpecError, match="env LD_PRELOAD: denied: the dynamic loader"):
        plan(Setting({}, policy), profile=profile)


def test_the_engines_key_variable_is_no_floor_breach() -> None:
    # *_API_KEY is a credential name the floor refuses to profiles; the engine's own secret
    # variable, declared and marked, carries the shard's key.
    policy = EnginePolicy(secret_env={"SETTING_API_KEY"})

    class Keyed(Setting):
        @hookimpl
        def commands(self, shard: ShardSpec) -> list[Command]:
            return [
                CommandBuilder(shard).put_secret("SETTING_API_KEY", shard.api_key).command("/usr/bin/k", [])
            ]

    assert "SETTING_API_KEY" in plan(Keyed({}, policy)).commands[0].secret_env


@pytest.mark.parametrize(
    "unsafe",
    [
        {"LD PRELOAD": "a reason"},
        {"LD_PRELOAD": ""},
        {"LD_PRELOAD": "   "},
        {"LD_PRELOAD": "line\nbreak"},
        {"LD_PRELOAD": 3},
        {7: "a reason"},
    ],
)
def test_a_declaration_that_is_no_table_of_names_to_reasons_breaks_the_policy(unsafe: dict[Any, Any]) -> None:
    policy = EnginePolicy(unsafe_env=unsafe)
    with pytest.raises(
        EngineError, match="unsafe_env is not a table of portable names to a printable reason"
    ):
        plan(Setting({}, policy))


def test_a_declaration_that_is_no_table_at_all_breaks_the_policy() -> None:
    policy = EnginePolicy(unsafe_env=["LD_PRELOAD"])  # type: ignore[arg-type]
    with pytest.raises(EngineError, match="unsafe_env is not a table"):
        plan(Setting({}, policy))


def test_floor_group_is_the_built_in_floor_only() -> None:
    assert floor_group("LD_PRELOAD") is not None
    assert floor_group("MALLOC_ARENA_MAX") is None  # its group is no floor: a site may open it
    assert floor_group("MALLOC_CHECK_") is not None
    assert floor_group("PYTHONUNBUFFERED") is None
    assert floor_group("VLLM_LOGGING_LEVEL") is None


def test_marking_a_floor_variable_secret_neither_hides_nor_allows_it() -> None:
    """Only a credential name may pass as the engine's key variable: LD_PRELOAD marked secret is refused."""

    class Hidden(Setting):
        @hookimpl
        def commands(self, shard: ShardSpec) -> list[Command]:
            builder = CommandBuilder(shard).put("LD_PRELOAD", "/tmp/evil.so", "x")
            return [
                attrs.evolve(builder.command("/usr/bin/setting", []), secret_env=frozenset({"LD_PRELOAD"}))
            ]

    policy = EnginePolicy(secret_env=("LD_PRELOAD",))
    with pytest.raises(EngineError, match="setting LD_PRELOAD, which the core refuses"):
        plan(Hidden({}, policy))


class Listing(Setting):
    """An engine whose device listing and help command set what ``env`` holds."""

    @hookimpl
    def device_listing(self, shard: ShardSpec) -> Command:
        return Command(path="/usr/bin/true", env=self.env)

    @hookimpl
    def help_command(self, command: Command) -> Command:
        return Command(path="/usr/bin/true", env=self.env)


@pytest.mark.parametrize("name", ["LD_PRELOAD", "BASH_ENV", "PYTHONPATH"])
def test_the_floor_holds_for_the_device_listing_and_the_help_command(name: str) -> None:
    registry = Registry()
    registry.add(Listing({name: "/tmp/x"}), name="setting")
    engine = registry.engine("setting")
    shard = make_shard(engine="setting")
    with pytest.raises(EngineError, match=rf"hook device_listing\(\) returned a listing setting {name}"):
        engine.device_listing(shard)
    with pytest.raises(EngineError, match=rf"hook help_command\(\) returned a help command setting {name}"):
        engine.help_command(Command(path="/usr/bin/setting"))


def test_a_declared_variable_passes_in_the_listing_too() -> None:
    registry = Registry()
    policy = EnginePolicy(unsafe_env={"LD_LIBRARY_PATH": "the vendor's driver libraries"})
    registry.add(Listing({"LD_LIBRARY_PATH": "/opt/vendor/lib"}, policy), name="setting")
    listing = registry.engine("setting").device_listing(make_shard(engine="setting"))
    assert listing is not None
    assert listing.env["LD_LIBRARY_PATH"] == "/opt/vendor/lib"
