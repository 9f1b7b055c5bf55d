"""The registry at its edges: metadata as found, clashes, installed builds, what a failure records and logs."""

from __future__ import annotations

import importlib
import importlib.metadata
import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pluggy
import pytest
from enginekit import EngineUnavailable, Registry, hookimpl
from enginekit.platform.entrypoints import Provider
from enginekit.platform.entrypoints import headers as _headers
from enginekit.policy.env import DEFAULT_POLICY, EnvPolicy

#: The plugin module every distribution below points at: written once per test.
PLUGIN = """
import sys
from enginekit.plugin import hookimpl

print("imported, chatty", file=sys.stdout)


class Quiet:
    @hookimpl
    def validate(self):
        return []

    @hookimpl
    def commands(self):
        return []


class Built(Quiet):
    takes_installed_build = True


class Garbage(Quiet):
    @hookimpl
    def unavailable(self):
        return 5


class Raises(Quiet):
    @hookimpl
    def unavailable(self):
        raise RuntimeError("the probe broke")


class Away(Quiet):
    @hookimpl
    def unavailable(self):
        return "no GPU here"


class Failing:
    def __init__(self):
        raise RuntimeError("cannot start")


class Stranger(Quiet):
    @hookimpl
    def commands(self, shrad):
        return []


class Misspelt(Quiet):
    @hookimpl
    def comands(self):
        return []
"""

Dist = Callable[..., Path]
#: The group the distributions below register in: the installed engines stay out of sight.
GROUP = "enginekit.edge_engines"


@pytest.fixture
def dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Dist]:
    """Make a distribution on sys.path: ``dist(name, {engine: "module:attr"}, metadata=..., where=...)``."""
    package = tmp_path / "pkgs"
    (package / "edge_pkgs").mkdir(parents=True)
    (package / "edge_pkgs" / "__init__.py").write_text("")
    (package / "edge_pkgs" / "plugin.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(package))

    def make(
        name: str,
        engines: dict[str, str],
        *,
        metadata: str | None = None,
        where: str = "site",
        filename: str = "METADATA",
        suffix: str = "dist-info",
    ) -> Path:
        root = tmp_path / where
        if not root.exists():
            root.mkdir()
            monkeypatch.syspath_prepend(str(root))
        info = root / f"{name}-1.0.{suffix}"
        info.mkdir()
        lines = "".join(f"{engine} = {target}\n" for engine, target in engines.items())
        (info / "entry_points.txt").write_text(f"[{GROUP}]\n{lines}")
        text = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n" if metadata is None else metadata
        (info / filename).write_text(text)
        importlib.invalidate_caches()
        return info

    yield make
    for module in [m for m in sys.modules if m == "edge_pkgs" or m.startswith("edge_pkgs.")]:
        del sys.modules[module]


# --- metadata, as distributions write it


def test_headers_written_in_another_case_are_read_by_the_standard_reader(tmp_path: Path) -> None:
    info = tmp_path / "x-1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("name: lower\nversion: 2.0\nrequires-dist: enginekit>=1.0\n")
    assert _headers(importlib.metadata.PathDistribution(info)) == ("lower", "2.0", ("enginekit>=1.0",))


def test_metadata_without_a_name_shows_a_question_mark(tmp_path: Path) -> None:
    info = tmp_path / "x-1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nVersion: 3\n")
    assert _headers(importlib.metadata.PathDistribution(info)) == ("?", "3", ())


def test_a_requirement_holding_a_colon_is_read_whole(tmp_path: Path) -> None:
    info = tmp_path / "x-1.dist-info"
    info.mkdir()
    url = "enginekit @ https://example.com/enginekit-1.0-py3-none-any.whl"
    (info / "METADATA").write_text(f"Name: x\nVersion: 1\nRequires-Dist: {url}\n")
    assert _headers(importlib.metadata.PathDistribution(info)) == ("x", "1", (url,))


def test_an_egg_info_reads_its_pkg_info(dist: Dist) -> None:
    dist("egg", {"egg": "edge_pkgs.plugin:Quiet"}, filename="PKG-INFO", suffix="egg-info")
    [ep] = [ep for ep in importlib.metadata.entry_points(group=GROUP) if ep.name == "egg"]
    assert Provider.of(ep)[:3] == ("egg", "1.0", "edge_pkgs.plugin:Quiet")


class _Damaged:
    """A distribution whose metadata cannot be read at all."""

    def read_text(self, name: str) -> str:
        raise OSError("unreadable")


def test_a_damaged_distribution_is_listed_as_question_marks() -> None:
    ep = importlib.metadata.EntryPoint("x", "m:A", "enginekit.engines")
    ep._for(_Damaged())  # type: ignore[arg-type]
    assert Provider.of(ep) == Provider("?", "?", "m:A", ())


def test_what_metadata_says_is_bounded_field_by_field(tmp_path: Path) -> None:
    info = tmp_path / "x-1.dist-info"
    info.mkdir()
    requires = "".join(f"Requires-Dist: r{i}\n" for i in range(250))
    (info / "METADATA").write_text(f"Name: {'n' * 250}\nVersion: {'9' * 150}\n{requires}")
    ep = importlib.metadata.EntryPoint("x", "m:" + "A" * 400, "enginekit.engines")
    ep._for(importlib.metadata.PathDistribution(info))
    provider = Provider.of(ep)
    assert provider.distribution == "n" * 200 + "…"
    assert provider.version == "9" * 100 + "…"
    assert provider.entry_point == ("m:" + "A" * 400)[:300] + "…"
    assert len(provider.requires) == 200
    assert provider.requires[-1] == "r199"


# --- discovery: clashes, disabled names, the policy


def test_one_distribution_found_twice_on_the_path_is_no_clash(dist: Dist) -> None:
    dist("same", {"same": "edge_pkgs.plugin:Quiet"}, where="a")
    dist("same", {"same": "edge_pkgs.plugin:Quiet"}, where="b")
    registry = Registry.from_entry_points(group=GROUP)
    assert registry.engine("same").name == "same"
    assert "same" not in registry.failures


def test_one_distribution_naming_two_targets_for_one_engine_is_a_clash(dist: Dist) -> None:
    info = dist("same", {"twice": "edge_pkgs.plugin:Quiet"})
    entry_points = info / "entry_points.txt"
    entry_points.write_text(entry_points.read_text() + "twice = edge_pkgs.plugin:Built\n")
    registry = Registry.from_entry_points(group=GROUP)
    with pytest.raises(EngineUnavailable, match="2 distributions provide engine 'twice'"):
        registry.engine("twice")


def test_two_distributions_naming_one_target_clash_and_the_row_names_both(dist: Dist) -> None:
    dist("first", {"twin": "edge_pkgs.plugin:Quiet"})
    dist("second", {"twin": "edge_pkgs.plugin:Quiet"})
    [row] = Registry.from_entry_points(group=GROUP).statuses(["twin"])
    assert row.status == "failed"
    assert row.origin == ("first 1.0 (edge_pkgs.plugin:Quiet) and second 1.0 (edge_pkgs.plugin:Quiet)")
    assert [p.distribution for p in row.providers] == ["first", "second"]


def test_a_disabled_list_gives_each_name_the_same_reason(dist: Dist) -> None:
    dist("quiet", {"quiet": "edge_pkgs.plugin:Quiet"})
    [row] = Registry.from_entry_points(group=GROUP, disable=["quiet"]).statuses(["quiet"])
    assert (row.status, row.reason) == ("disabled", "disabled here")


def test_an_enabled_first_party_engine_that_is_missing_says_what_to_install(dist: Dist) -> None:
    dist("quiet", {"quiet": "edge_pkgs.plugin:Quiet"})
    registry = Registry.from_entry_points(group=GROUP, enable=["quiet", "trtllm"])
    assert registry.failures["trtllm"].reason == (
        "enabled but not installed: install the enginekit-trtllm distribution"
    )


def test_the_site_policy_given_is_the_registry_s(dist: Dist) -> None:
    policy = EnvPolicy(allow=frozenset({"MY_SITE_VAR"}))
    assert Registry.from_entry_points(group=GROUP, policy=policy).policy is policy
    assert Registry.from_entry_points(group=GROUP).policy is DEFAULT_POLICY


# --- loading: output, installed builds, what a failure records


def test_a_plugin_printing_while_imported_prints_to_stderr(
    dist: Dist, capsys: pytest.CaptureFixture[str]
) -> None:
    dist("quiet", {"quiet": "edge_pkgs.plugin:Quiet"})
    Registry.from_entry_points(group=GROUP).engine("quiet")
    out, err = capsys.readouterr()
    assert (out, err) == ("", "imported, chatty\n")


def test_an_installed_build_reaches_the_engine_that_takes_one(dist: Dist) -> None:
    dist("built", {"built": "edge_pkgs.plugin:Built", "quiet": "edge_pkgs.plugin:Quiet"})
    registry = Registry.from_entry_points(
        group=GROUP, installed={"built": "/opt/built", "quiet": "/opt/quiet"}
    )
    registry.engine("built")
    registry.engine("quiet")
    assert registry.installed("built") == Path("/opt/built")
    assert registry.installed("quiet") is None
    assert registry.warnings == ["installed.quiet: engine 'quiet' takes no installed build"]


@pytest.mark.parametrize("value", ["opt/relative", 5, "/opt/x\x00y"])
def test_an_installed_build_that_is_no_absolute_path_fails_that_engine(dist: Dist, value: object) -> None:
    dist("built", {"built": "edge_pkgs.plugin:Built"})
    registry = Registry.from_entry_points(group=GROUP, installed={"built": value})
    with pytest.raises(EngineUnavailable, match=r"installed\.built: expected an absolute path"):
        registry.engine("built")


def test_each_failure_records_its_source_and_import_time(
    dist: Dist, caplog: pytest.LogCaptureFixture
) -> None:
    dist("failing", {"failing": "edge_pkgs.plugin:Failing", "missing": "edge_pkgs.nothing:X"})
    caplog.set_level(logging.DEBUG, logger="enginekit")
    rows = {row.name: row for row in Registry.from_entry_points(group=GROUP).statuses()}
    source = "failing 1.0 (edge_pkgs.plugin:Failing)"
    assert rows["failing"].status == "failed"
    assert rows["failing"].origin == source
    assert rows["failing"].import_seconds is not None
    assert rows["missing"].origin == "failing 1.0 (edge_pkgs.nothing:X)"
    loaded = [r for r in caplog.records if r.getMessage() == "engine 'failing' failed to load"]
    assert len(loaded) == 1
    assert loaded[0].exc_info
    assert loaded[0].exc_info[0] is RuntimeError
    assert f"engine 'failing' unavailable ({source}): RuntimeError: cannot start" in caplog.messages


def test_a_plugin_refused_for_its_api_records_its_source(dist: Dist) -> None:
    dist(
        "future",
        {"future": "edge_pkgs.plugin:Quiet"},
        metadata="Metadata-Version: 2.1\nName: future\nVersion: 1.0\nRequires-Dist: enginekit>=2.0\n",
    )
    [row] = Registry.from_entry_points(group=GROUP).statuses(["future"])
    assert row.status == "failed"
    assert row.origin == "future 1.0 (edge_pkgs.plugin:Quiet)"
    assert "edge_pkgs.plugin" not in sys.modules


def test_a_plugin_with_bad_hooks_records_its_source(dist: Dist) -> None:
    dist("bad", {"bad": "edge_pkgs.plugin:Misspelt"})
    [row] = Registry.from_entry_points(group=GROUP).statuses(["bad"])
    assert (row.status, row.origin) == ("failed", "bad 1.0 (edge_pkgs.plugin:Misspelt)")
    assert row.reason == "unknown hook 'comands' (did you mean 'commands'?)"


# --- statuses


def test_statuses_list_every_engine_past_one_whose_answer_breaks(dist: Dist) -> None:
    dist(
        "many",
        {
            "a_garbage": "edge_pkgs.plugin:Garbage",
            "b_raises": "edge_pkgs.plugin:Raises",
            "c_away": "edge_pkgs.plugin:Away",
            "d_quiet": "edge_pkgs.plugin:Quiet",
        },
    )
    rows = {row.name: row for row in Registry.from_entry_points(group=GROUP).statuses()}
    assert [rows[n].status for n in sorted(rows)] == ["failed", "failed", "unavailable", "ok"]
    assert rows["a_garbage"].reason == (
        "engine 'a_garbage' (many 1.0 (edge_pkgs.plugin:Garbage)): hook unavailable() returned a value "
        "of type int, expected a sentence or None"
    )
    assert rows["b_raises"].reason == (
        "engine 'b_raises' (many 1.0 (edge_pkgs.plugin:Raises)): hook unavailable() raised RuntimeError: "
        "the probe broke"
    )
    assert [p.distribution for p in rows["b_raises"].providers] == ["many"]
    assert rows["b_raises"].hooks == ("commands", "unavailable", "validate")
    assert rows["c_away"].reason == "no GPU here"
    assert (rows["d_quiet"].reason, rows["d_quiet"].origin) == ("", "")
    assert rows["d_quiet"].hooks == ("commands", "validate")


def test_statuses_load_only_the_engines_asked_about_and_check_only_when_asked(dist: Dist) -> None:
    dist("pair", {"asked": "edge_pkgs.plugin:Quiet", "other": "edge_pkgs.plugin:Failing"})
    registry = Registry.from_entry_points(group=GROUP)
    [row] = registry.statuses(["asked"])
    assert row.status == "ok"
    assert "other" not in registry.failures  # never loaded
    assert registry.names() == ["asked", "other"]


def test_the_reason_of_an_engine_asked_before_and_after_its_handle_is_made(dist: Dist) -> None:
    dist("away", {"away": "edge_pkgs.plugin:Away"})
    registry = Registry.from_entry_points(group=GROUP)
    assert registry.engine_unavailable_reason("away") == "no GPU here"
    with pytest.raises(EngineUnavailable, match="no GPU here"):
        registry.engine("away")
    assert registry.engine_unavailable_reason("away") == "no GPU here"
    assert registry.source("nothing") == "not registered"


# --- what pluggy refuses, said plainly


class _Base:
    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self) -> list[object]:
        return []


def _refusal(plugin: object) -> str:
    with pytest.raises(pluggy.PluginValidationError) as caught:
        Registry().add(plugin, name="x")
    return str(caught.value)


def test_a_hook_under_another_name_is_judged_as_the_hook_it_names() -> None:
    class Renamed(_Base):
        @hookimpl(specname="health_path")
        def where(self, shard: object) -> str:
            return "/"

    assert _refusal(Renamed()) == (
        "engine 'x' (added in process): hook 'health_path' takes argument 'shard', which enginekit "
        "never passes (it passes: nothing)"
    )


def test_an_argument_like_none_passed_gets_no_guess() -> None:
    class Stranger(_Base):
        @hookimpl
        def commands(self, zzzzzz: object) -> list[object]:  # type: ignore[override]
            return []

    message = _refusal(Stranger())
    assert "takes argument 'zzzzzz', which enginekit never passes (it passes: " in message
    assert "did you mean" not in message


def test_a_hook_whose_name_is_dunder_like_on_one_side_only_still_registers() -> None:
    class Odd:
        @hookimpl(specname="commands")
        def commands__(self) -> list[object]:
            return []

    setattr(Odd, "__validate", hookimpl(specname="validate")(lambda self: []))
    registry = Registry()
    registry.add(Odd(), name="odd")
    assert registry.statuses(["odd"])[0].hooks == ("commands", "validate")


def test_a_hook_pluggy_refuses_in_an_installed_plugin_is_its_failure(dist: Dist) -> None:
    dist("stranger", {"stranger": "edge_pkgs.plugin:Stranger"})
    [row] = Registry.from_entry_points(group=GROUP).statuses(["stranger"])
    assert row.reason == (
        "hook 'commands' takes argument 'shrad', which enginekit never passes "
        "(did you mean 'shard'? it passes: installed, shard)"
    )


def test_a_section_that_is_no_table_fails_its_engine(dist: Dist) -> None:
    dist("quiet", {"quiet": "edge_pkgs.plugin:Quiet"})
    registry = Registry.from_entry_points(group=GROUP, config={"quiet": [1]})
    with pytest.raises(EngineUnavailable, match=r"engines\.quiet: expected a table, got list"):
        registry.engine("quiet")


def test_a_failure_with_one_provider_names_its_distribution_and_entry_point(dist: Dist) -> None:
    dist("failing", {"failing": "edge_pkgs.plugin:Failing"})
    registry = Registry.from_entry_points(group=GROUP)
    with pytest.raises(EngineUnavailable) as caught:
        registry.engine("failing")
    assert str(caught.value) == (
        "engine 'failing' failed to load (failing 1.0, edge_pkgs.plugin:Failing): RuntimeError: cannot start"
    )


def test_the_same_line_twice_in_one_distribution_is_no_clash(dist: Dist) -> None:
    info = dist("same", {"same": "edge_pkgs.plugin:Quiet"})
    entry_points = info / "entry_points.txt"
    entry_points.write_text(entry_points.read_text() + "same = edge_pkgs.plugin:Quiet\n")
    registry = Registry.from_entry_points(group=GROUP)
    assert registry.engine("same").name == "same"


def test_handles_are_kept_and_an_installed_build_given_later_reaches_them(dist: Dist) -> None:
    dist("built", {"built": "edge_pkgs.plugin:Built"})
    registry = Registry.from_entry_points(group=GROUP)
    first = registry.engine("built")
    assert registry.engine("built") is first
    assert first.installed is None
    assert registry.use_installed("built", Path("/opt/later"))
    assert registry.engine("built").installed == Path("/opt/later")


def test_a_refused_plugin_is_left_neither_registered_nor_named() -> None:
    class Stranger(_Base):
        @hookimpl
        def commands(self, zzzzzz: object) -> list[object]:  # type: ignore[override]
            return []

    class Typo(_Base):
        @hookimpl
        def comands(self) -> list[object]:
            return []

    registry = Registry()
    for plugin in (Stranger(), Typo()):
        with pytest.raises(pluggy.PluginValidationError) as caught:
            registry.add(plugin, name="x")
        assert caught.value.plugin is plugin
        assert not registry.pm.has_plugin("x")
    registry.add(_Base(), name="x")
    assert registry.names() == ["x"]


def test_registry_defaults_and_lookups_of_what_is_not_there() -> None:
    registry = Registry()
    assert registry.lenient is False
    assert registry.providers("nothing") == ()
    long = "e" * 300
    assert registry.not_installed(long) == f"unknown engine {repr(long)[:200]}… (installed: none)"


def test_a_wrapper_is_registered_under_its_name() -> None:
    class Stamp:
        @hookimpl(wrapper=True)
        def health_path(self) -> object:
            return (yield)

    registry = Registry()
    registry.add_wrapper(Stamp(), "stamp")
    assert registry.pm.has_plugin("stamp")


def test_a_private_hook_implementation_is_not_an_unknown_hook() -> None:
    class Private(_Base):
        @hookimpl
        def _helper(self) -> None:
            return None

    registry = Registry()
    registry.add(Private(), name="private")
    assert registry.names() == ["private"]


def test_an_optional_unknown_hook_does_not_hide_a_real_unknown_one() -> None:
    class Both(_Base):
        @hookimpl(optionalhook=True)
        def aaa_extra(self) -> None:
            return None

        @hookimpl
        def zzz_unknown(self) -> None:
            return None

    assert _refusal(Both()) == "engine 'x' (added in process): unknown hook 'zzz_unknown'"
