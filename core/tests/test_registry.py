"""The registry: lazy discovery, failures per engine, clashes, disabling, scoped calls, wrappers."""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator
from pathlib import Path

import attrs
import pytest
from enginekit import Command, EnginekitError, EngineUnavailable, Registry, ShardSpec, hookimpl
from enginekit.builder import CommandBuilder

Make = Callable[..., ShardSpec]


class Alpha:
    takes_installed_build = True

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec, installed: Path | None) -> list[Command]:
        return [CommandBuilder(shard).command(str(installed or "alpha"), [shard.profile.model_path])]


class Beta:
    @hookimpl
    def validate(self, profile: object) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [CommandBuilder(shard).command("beta", [])]

    @hookimpl
    def serves_http(self) -> bool:
        return True

    @hookimpl
    def health_path(self) -> str:
        return "/ready"


@pytest.fixture
def registry() -> Registry:
    registry = Registry()
    registry.add(Alpha(), name="alpha")
    registry.add(Beta(), name="beta")
    return registry


def test_each_engine_answers_only_for_itself(registry: Registry, make_shard: Make) -> None:
    assert [c.path for c in registry.engine("alpha").commands(make_shard("alpha"))] == ["alpha"]
    assert [c.path for c in registry.engine("beta").commands(make_shard("beta"))] == ["beta"]
    assert registry.engine("alpha").health_path() == "/health"
    assert registry.engine("beta").health_path() == "/ready"
    assert registry.engine("alpha").metrics_path() == "/metrics"


def test_broadcast_call_would_answer_for_the_wrong_engine(registry: Registry, make_shard: Make) -> None:
    # Why nothing outside the registry calls pm.hook.*: the last registered engine answers.
    [command] = registry.pm.hook.commands(shard=make_shard("alpha"), installed=None)
    assert command.path == "beta"


def test_serves_http_defaults_to_the_leader(registry: Registry, make_shard: Make) -> None:
    worker = make_shard(
        "alpha", rank=1, nnodes=2, leader_addr="h", leader_port=1, profile_nodes=2, profile_gpus_per_node=1
    )
    assert registry.engine("alpha").serves_http(worker) is False
    assert registry.engine("alpha").serves_http(make_shard("alpha")) is True


def test_a_profile_for_another_engine_is_refused(registry: Registry, make_shard: Make) -> None:
    with pytest.raises(EnginekitError, match="engine is 'beta', but it was given to 'alpha'"):
        registry.engine("alpha").commands(make_shard("beta"))


def test_use_installed_only_for_engines_that_take_builds(registry: Registry, make_shard: Make) -> None:
    assert registry.use_installed("alpha", Path("/opt/alpha-2"))
    assert not registry.use_installed("beta", Path("/opt/beta"))
    assert registry.engine("alpha").commands(make_shard("alpha"))[0].path == "/opt/alpha-2"


def test_add_refuses_a_taken_name_unless_told_to_replace(registry: Registry, make_shard: Make) -> None:
    with pytest.raises(EnginekitError, match="engine 'alpha' is already registered"):
        registry.add(Beta(), name="alpha")
    registry.add(Beta(), name="alpha", replace=True)
    assert registry.engine("alpha").commands(make_shard("alpha"))[0].path == "beta"


def test_add_refuses_misspelled_and_missing_hooks() -> None:
    class Typo(Alpha):
        @hookimpl
        def comands(self) -> None: ...

    class Missing:
        @hookimpl
        def validate(self) -> list[str]:
            return []

    registry = Registry()
    with pytest.raises(Exception, match="comands"):
        registry.add(Typo(), name="typo")
    with pytest.raises(Exception, match=r"lacks required hooks \['commands'\]"):
        registry.add(Missing(), name="missing")
    assert registry.names() == []
    registry.add(Alpha(), name="typo")  # nothing was left behind


def test_unknown_engine_names_the_ones_there_are(registry: Registry) -> None:
    with pytest.raises(EngineUnavailable, match=r"^unknown engine 'x' \(have alpha, beta\)$"):
        registry.engine("x")


class Stamp:
    """A scheduler's wrapper: sees every engine's commands, never replaces the engine."""

    @hookimpl(wrapper=True)
    def commands(self) -> Generator[None, list[Command], list[Command]]:
        commands = yield
        # Each command keeps its environment: the registry refuses one without its placement.
        return [attrs.evolve(c, path="numactl", args=("--cpunodebind=0", c.path, *c.args)) for c in commands]


def test_wrappers_wrap_the_selected_engine_only(registry: Registry, make_shard: Make) -> None:
    registry.add_wrapper(Stamp(), name="stamp")
    assert registry.engine("alpha").commands(make_shard("alpha"))[0].args == (
        "--cpunodebind=0",
        "alpha",
        "/models/m",
    )
    assert registry.engine("beta").commands(make_shard("beta"))[0].args == ("--cpunodebind=0", "beta")


def test_a_wrapper_may_not_answer_for_engines(registry: Registry) -> None:
    with pytest.raises(EnginekitError, match="must be @hookimpl\\(wrapper=True\\)"):
        registry.add_wrapper(Beta(), name="pretender")


# --- entry points, through the committed fake distributions -------------------------


def test_discovery_imports_nothing(fake_dists: Path) -> None:
    registry = Registry.from_entry_points()
    assert {"fake", "configurable", "broken", "typo", "modular"} <= set(registry.names())
    assert not [m for m in sys.modules if m.startswith("fake_pkgs")]
    registry.engine("fake")
    assert "fake_pkgs.ok" in sys.modules
    assert "fake_pkgs.broken" not in sys.modules


def test_broken_misspelled_incomplete_clashing_and_misconfigured_are_reported(fake_dists: Path) -> None:
    registry = Registry.from_entry_points(config={"configurable": {"knbo": 3}})
    rows = {row.name: row for row in registry.statuses()}
    assert rows["fake"].status == "ok"
    assert rows["fake"].source == "fake-ok 1.0 (fake_pkgs.ok:FakeEngine)"
    assert rows["modular"].status == "ok"
    assert rows["broken"].status == "failed"
    assert "ModuleNotFoundError: No module named 'enginekit_missing_dependency'" in rows["broken"].detail
    assert "comands" in rows["typo"].detail
    assert "lacks required hooks ['commands']" in rows["incomplete"].detail
    assert rows["configurable"].detail == "SpecError: engines.configurable.knbo: unknown field"
    assert rows["twin"].status == "failed"
    assert rows["twin"].source == (
        "fake-clash 2.0 (fake_pkgs.clash:OtherEngine) and fake-ok 1.0 (fake_pkgs.ok:FakeEngine)"
    )
    assert rows["twin"].detail == (
        "2 distributions provide engine 'twin' and enginekit will not guess which to run: uninstall all but one"
    )
    assert rows["offline"].status == "unavailable"
    with pytest.raises(EngineUnavailable, match=r"engine 'broken' failed to load \(fake-ok 1.0"):
        registry.engine("broken")
    with pytest.raises(EngineUnavailable, match=r"set \[engines.offline\] interpreter"):
        registry.engine("offline")


def test_config_section_structures_into_the_engine(fake_dists: Path, make_shard: Make) -> None:
    registry = Registry.from_entry_points(config={"configurable": {"knob": 7}})
    assert registry.engine("configurable").commands(make_shard("configurable"))[0].args == ("--knob=7",)


def test_lenient_config_reports_unknown_keys(fake_dists: Path) -> None:
    registry = Registry.from_entry_points(config={"configurable": {"knob": 7, "future": 1}}, lenient=True)
    registry.engine("configurable")
    assert registry.warnings == ["engines.configurable.future: unknown field"]


def test_disabled_engine_is_never_imported(fake_dists: Path) -> None:
    registry = Registry.from_entry_points(disable={"broken"})
    assert "broken" not in registry.names()
    with pytest.raises(EngineUnavailable, match="engine 'broken' is disabled on this node"):
        registry.engine("broken")
    registry.statuses()
    assert "fake_pkgs.broken" not in sys.modules


def test_allowlist_and_missing_enabled_engine(fake_dists: Path) -> None:
    registry = Registry.from_entry_points(enable={"fake", "nonesuch"})
    assert registry.names() == ["fake"]
    rows = {row.name: (row.status, row.detail) for row in registry.statuses()}
    assert rows["nonesuch"] == ("failed", "enabled but not installed")
    assert rows["broken"] == ("disabled", "not in the list of enabled engines")


def test_config_for_an_engine_that_is_not_installed_is_a_warning(fake_dists: Path) -> None:
    registry = Registry.from_entry_points(config={"vlm": {}})
    assert registry.warnings == ["engines.vlm: configured, but no such engine is installed"]


def test_a_module_plugin_takes_no_config(fake_dists: Path) -> None:
    registry = Registry.from_entry_points(config={"modular": {"x": 1}})
    with pytest.raises(EngineUnavailable, match="engine 'modular' takes no configuration"):
        registry.engine("modular")


def test_two_registries_share_nothing(fake_dists: Path) -> None:
    one = Registry.from_entry_points(config={"configurable": {"knob": 1}})
    two = Registry.from_entry_points(config={"configurable": {"knob": 2}})
    assert one.engine("configurable").plugin is not two.engine("configurable").plugin
