"""The registry: lazy discovery, failures per engine, clashes, disabling, scoped calls, wrappers."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Generator
from pathlib import Path

import attrs
import pluggy
import pytest
from enginekit import Command, EnginekitError, EngineUnavailable, Registry, ShardSpec, hookimpl
from enginekit.base.text import printable
from enginekit.placement.builder import CommandBuilder
from enginekit.platform.entrypoints import headers as _headers
from enginekit.platform.registry import FIRST_PARTY, _hook_problem
from hypothesis import given, settings
from hypothesis import strategies as st

#: The committed fake distributions (the fake_dists fixture's), for a fresh interpreter.
DISTS = Path(__file__).parent / "data" / "dists"

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


def test_add_refuses_misspelled_and_missing_hooks_naming_the_hook_meant() -> None:
    class Typo(Alpha):
        @hookimpl
        def comands(self) -> None: ...

    class Missing:
        @hookimpl
        def validate(self) -> list[str]:
            return []

    registry = Registry()
    with pytest.raises(pluggy.PluginValidationError) as typo:
        registry.add(Typo(), name="typo", source="ek-typo 1.0, ek_typo.plugin:Engine")
    assert str(typo.value) == (
        "engine 'typo' (ek-typo 1.0, ek_typo.plugin:Engine): unknown hook 'comands' (did you mean 'commands'?)"
    )
    with pytest.raises(pluggy.PluginValidationError) as missing:
        registry.add(Missing(), name="missing")
    assert str(missing.value) == "engine 'missing' (added in process): lacks required hooks ['commands']"
    assert registry.names() == []
    registry.add(Alpha(), name="typo")  # nothing was left behind


class _Misspelt(Alpha):
    @hookimpl
    def frobnicate(self) -> None: ...


class _WrongArgument:
    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shrad: ShardSpec) -> list[Command]:
        return []


class _NotAGenerator(Alpha):
    @hookimpl(wrapper=True)
    def notes(self) -> list[str]:
        return []


@pytest.mark.parametrize(
    ("plugin", "expected"),
    [
        (_Misspelt(), "engine 'x' (added in process): unknown hook 'frobnicate'"),
        (
            _WrongArgument(),
            "engine 'x' (added in process): hook 'commands' takes argument 'shrad', which enginekit never "
            "passes (did you mean 'shard'? it passes: installed, shard)",
        ),
    ],
)
def test_a_hook_pluggy_refuses_is_one_line_without_the_plugin_object(plugin: object, expected: str) -> None:
    registry = Registry()
    with pytest.raises(pluggy.PluginValidationError) as err:
        registry.add(plugin, name="x")
    assert str(err.value) == expected
    assert registry.names() == []


def test_what_pluggy_alone_refuses_keeps_its_words_on_one_line() -> None:
    registry = Registry()
    with pytest.raises(pluggy.PluginValidationError) as err:
        registry.add(_NotAGenerator(), name="x")
    message = str(err.value)
    assert message.startswith("engine 'x' (added in process): ")
    assert "not a generator function" in message
    assert "\n" not in message
    assert " object at 0x" not in message


def test_a_pluggy_message_loses_object_addresses() -> None:
    exc = pluggy.PluginValidationError(
        object(), "unknown hook 'x' in plugin <a.b.C object at 0x7f12ab>\nmore"
    )
    assert _hook_problem(Registry().pm, object(), exc) == "unknown hook 'x' in plugin <a.b.C> more"


def test_unknown_engine_names_the_ones_there_are(registry: Registry) -> None:
    with pytest.raises(EngineUnavailable, match=r"^unknown engine 'x' \(installed: alpha, beta\)$"):
        registry.engine("x")
    with pytest.raises(EngineUnavailable) as err:
        registry.engine("alpah")
    assert str(err.value) == "unknown engine 'alpah' (did you mean 'alpha'? installed: alpha, beta)"
    with pytest.raises(EngineUnavailable, match=r"^unknown engine 'x' \(installed: none\)$"):
        Registry().engine("x")


@pytest.mark.parametrize("name", sorted(FIRST_PARTY))
def test_a_first_party_engine_that_is_not_installed_says_what_to_install(name: str) -> None:
    with pytest.raises(EngineUnavailable) as err:
        Registry().engine(name)
    assert str(err.value) == (
        f"engine {name!r} is not installed on this node: install the enginekit-{name} distribution"
    )


@given(st.text(max_size=80))
def test_an_unknown_name_is_one_printable_line_and_suggests_only_what_is_installed(name: str) -> None:
    registry = Registry()
    registry.add(Alpha(), name="alpha")
    registry.add(Beta(), name="beta")
    message = registry.not_installed(name)
    assert printable(message, 10_000) == message
    assert "\n" not in message
    assert "(did you mean" not in message or "(did you mean 'alpha'?" in message or "'beta'?" in message


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
    assert rows["typo"].reason == "unknown hook 'comands' (did you mean 'commands'?)"
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
    with pytest.raises(EngineUnavailable) as typo:
        registry.engine("typo")
    assert str(typo.value) == (
        "engine 'typo' failed to load (fake-ok 1.0, fake_pkgs.typo:TypoEngine): "
        "unknown hook 'comands' (did you mean 'commands'?)"
    )
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
    registry = Registry.from_entry_points(config={"confgurable": {}, "zzzzzz": {}})
    assert registry.warnings == [
        "engines.confgurable: configured, but no such engine is installed (did you mean 'configurable'?)",
        "engines.zzzzzz: configured, but no such engine is installed",
    ]


def test_names_not_installed_in_the_allowlist_and_deny_list_suggest_the_name_meant(fake_dists: Path) -> None:
    registry = Registry.from_entry_points(
        enable={"fake", "ofline", "qqqqqq", "sglang"}, disable={"brokn": "a test"}, installed={"fak": "/x"}
    )
    rows = {row.name: row for row in registry.statuses()}
    assert rows["ofline"].reason == "enabled but not installed (did you mean 'offline'?)"
    assert rows["qqqqqq"].reason == "enabled but not installed"
    if "sglang" not in registry.installed_names():
        assert rows["sglang"].reason == "enabled but not installed: install the enginekit-sglang distribution"
    assert (rows["ofline"].providers, rows["ofline"].source, rows["ofline"].hooks) == ((), "", None)
    assert registry.warnings == [
        "a test names 'brokn', but no such engine is installed (did you mean 'broken'?)",
        "installed.fak: no such engine is installed (did you mean 'fake'?)",
    ]
    with pytest.raises(
        EngineUnavailable, match=r"^unknown engine 'ofline' \(did you mean 'offline'\? installed: "
    ):
        registry.engine("ofline")


def test_a_module_plugin_takes_no_config(fake_dists: Path) -> None:
    registry = Registry.from_entry_points(config={"modular": {"x": 1}})
    with pytest.raises(EngineUnavailable, match="engine 'modular' takes no configuration"):
        registry.engine("modular")


def test_two_registries_share_nothing(fake_dists: Path) -> None:
    one = Registry.from_entry_points(config={"configurable": {"knob": 1}})
    two = Registry.from_entry_points(config={"configurable": {"knob": 2}})
    assert one.engine("configurable").plugin is not two.engine("configurable").plugin


# --- structured statuses, and what is imported for them ------------------------------


def test_a_status_carries_its_distribution_entry_point_and_hooks(fake_dists: Path) -> None:
    registry = Registry.from_entry_points(disable={"modular": "the node config's disabled list names it"})
    rows = {row.name: row for row in registry.statuses()}
    fake = rows["fake"]
    assert (fake.engine, fake.status, fake.reason) == ("fake", "ok", "")
    assert (fake.distribution, fake.version, fake.entry_point) == (
        "fake-ok",
        "1.0",
        "fake_pkgs.ok:FakeEngine",
    )
    assert fake.hooks == ("commands", "notes", "policy", "validate")
    assert rows["offline"].hooks == ("commands", "notes", "policy", "unavailable", "validate")
    broken = rows["broken"]
    assert (broken.status, broken.hooks, broken.distribution) == ("failed", None, "fake-ok")
    assert broken.entry_point == "fake_pkgs.broken:Engine"
    modular = rows["modular"]
    assert (modular.status, modular.hooks, modular.entry_point) == ("disabled", None, "fake_pkgs.modular")
    assert modular.source == "fake-ok 1.0 (fake_pkgs.modular)"
    twin = rows["twin"]
    assert (twin.distribution, twin.version, twin.entry_point) == (None, None, None)
    assert [str(p) for p in twin.providers] == [
        "fake-clash 2.0 (fake_pkgs.clash:OtherEngine)",
        "fake-ok 1.0 (fake_pkgs.ok:FakeEngine)",
    ]
    assert "fake_pkgs.modular" not in sys.modules


def test_an_engine_added_in_process_has_no_distribution(registry: Registry) -> None:
    [alpha] = registry.statuses(["alpha"])
    assert (alpha.status, alpha.providers, alpha.source) == ("ok", (), "added in process")
    assert alpha.hooks == ("commands", "validate")


def test_statuses_of_named_engines_load_those_alone(fake_dists: Path) -> None:
    registry = Registry.from_entry_points()
    assert [row.name for row in registry.statuses(["offline", "fake"])] == ["fake", "offline"]
    assert "fake_pkgs.broken" not in sys.modules
    assert [(row.name, row.status) for row in registry.statuses(["broken"])] == [("broken", "failed")]
    with pytest.raises(
        EngineUnavailable, match=r"^unknown engine 'fkae' \(did you mean 'fake'\? installed: "
    ):
        registry.statuses(["fake", "fkae"])


def _imported_after(code: str) -> set[str]:
    script = (
        "import sys, json; before = set(sys.modules)\n"
        f"{code}\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(DISTS)},
    )
    return set(json.loads(out.stdout))


def test_listing_engines_never_loads_the_planning_code() -> None:
    # Making an engine handle, and planning, import the rest: listing pays for none of it.
    listed = _imported_after(
        "from enginekit.platform.registry import Registry\n"
        "r = Registry.from_entry_points(enable={'fake', 'offline', 'configurable'}); r.statuses()"
    )
    assert "fake_pkgs.ok" in listed
    assert not {"enginekit.platform.engine", "enginekit.plan.launch", "enginekit.spec.rules"} & listed
    planned = _imported_after(
        "from enginekit.platform.registry import Registry\nRegistry.from_entry_points(enable={'fake'}).engine('fake')"
    )
    assert "enginekit.platform.engine" in planned


def test_building_a_registry_imports_no_engine_and_no_planning_code() -> None:
    imported = _imported_after(
        "from enginekit.platform.registry import Registry\nRegistry.from_entry_points().names()"
    )
    assert not [name for name in imported if name.startswith("fake_pkgs")]
    assert (
        not {
            "enginekit.platform.engine",
            "enginekit.spec.convert",
            "enginekit.policy.env",
            "enginekit.platform.contract",
        }
        & imported
    )


_token = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.", min_size=1, max_size=20)


@settings(max_examples=60, deadline=None)
@given(
    name=_token,
    version=_token,
    before=st.lists(st.sampled_from(["Metadata-Version: 2.1", "Summary: x", "Requires-Dist: y"]), max_size=3),
    body=st.sampled_from(["", "Name: impostor\nVersion: 9\n", "a README\n\nName: impostor"]),
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_the_name_and_version_read_are_the_metadatas(
    name: str, version: str, before: list[str], body: str, newline: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        info = Path(tmp) / "x-1.dist-info"
        info.mkdir()
        lines = [*before, f"Name: {name}", f"Version: {version}"]
        (info / "METADATA").write_bytes((newline.join(lines) + newline + newline + body).encode())
        dist = importlib.metadata.PathDistribution(info)
        assert _headers(dist)[:2] == (dist.metadata["Name"], dist.metadata["Version"]) == (name, version)
        assert _headers(dist)[2] == tuple(dist.metadata.get_all("Requires-Dist") or ())


def test_metadata_without_a_version_is_shown_as_unknown(tmp_path: Path) -> None:
    info = tmp_path / "x-1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: x\n")
    assert _headers(importlib.metadata.PathDistribution(info))[:2] == ("x", "?")


def test_an_engine_replaced_in_process_is_no_longer_the_distributions(fake_dists: Path) -> None:
    registry = Registry.from_entry_points()
    registry.add(Alpha(), name="fake", replace=True, source="the scheduler's own")
    [row] = registry.statuses(["fake"])
    assert (row.providers, row.source, row.hooks) == ((), "the scheduler's own", ("commands", "validate"))


def test_registering_a_plugin_reads_none_of_its_properties() -> None:
    # pluggy before 1.4 reads every attribute with getattr: a property (a cached one that
    # reads an option table, say) would run, and raise, while the plugin registers.
    from functools import cached_property

    from enginekit.plugin import hookimpl
    from enginekit.testing import engine_for

    class Lazy:
        @property
        def expensive(self) -> str:
            raise AssertionError("read while registering")

        @cached_property
        def table(self) -> str:
            raise AssertionError("read while registering")

        @hookimpl
        def validate(self) -> list[str]:
            return []

        @hookimpl
        def commands(self) -> list[object]:
            return []

        @hookimpl
        def health_path(self) -> str:
            return "/ready"

    assert engine_for(Lazy(), "lazy").health_path() == "/ready"
