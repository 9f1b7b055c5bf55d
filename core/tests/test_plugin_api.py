"""The plugin API's version: what a plugin asks for, what the registry refuses, and the first release's shims."""

from __future__ import annotations

import importlib
import json
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from enginekit import Command, EngineError, EngineUnavailable, Profile, Registry, ShardSpec, SpecError
from enginekit import plugin as ek
from enginekit.base.moved import FIRST_RELEASE_MODULES
from enginekit.cli.app import main
from enginekit.platform.api import API_VERSION, OLDEST_API, Asked, asked_for, refusal
from hypothesis import given
from hypothesis import strategies as st

APIS = Path(__file__).parent / "data" / "apis"


def shard_for(engine: str, **fields: object) -> ShardSpec:
    """A valid single-GPU shard for ``engine``; ``profile_*`` fields go to the profile."""
    profile = {k[len("profile_") :]: v for k, v in fields.items() if k.startswith("profile_")}
    shard = {k: v for k, v in fields.items() if not k.startswith("profile_")}
    return ShardSpec(
        replica_id="r1",
        shard_id="s1",
        profile=Profile(name="p", engine=engine, model_path="/models/m", **profile),  # type: ignore[arg-type]
        gpu_indices=(0,),
        http_port=8000,
        **shard,  # type: ignore[arg-type]
    )


def _forget() -> None:
    for name in [m for m in sys.modules if m.split(".")[0] == "api_pkgs" or m in FIRST_RELEASE_MODULES]:
        del sys.modules[name]


@pytest.fixture
def api_dists(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The fixture distributions of ``data/apis`` on sys.path; their modules forgotten afterwards."""
    monkeypatch.syspath_prepend(str(APIS))
    importlib.invalidate_caches()
    _forget()
    yield APIS
    _forget()


# --- what a distribution asks for ---------------------------------------------------------


@pytest.mark.parametrize(
    ("requires", "version"),
    [
        (["enginekit>=1.0,<2"], "1.0"),
        (["enginekit >= 1.2, < 2"], "1.2"),
        (["enginekit (>=1.1,<2)"], "1.1"),  # the old parenthesised form
        (["Enginekit~=1.3"], "1.3"),  # names are case-insensitive
        (["enginekit[testing]>=1.4"], "1.4"),
        (["enginekit==1.5.*"], "1.5"),
        (["enginekit===1.6.2"], "1.6"),
        (["enginekit>1.7"], "1.7"),
        (["enginekit>=2.0rc1"], "2.0"),
        (["enginekit>=1.0,>=1.2,!=1.3,<=1.9"], "1.2"),  # the highest lower bound
        (["enginekit>=3; python_version >= '3.10'"], "3.0"),  # a marker that is not an extra
        (["enginekit~=0.1.0"], "1.0"),  # before 1.0: the API 1.0 froze
        (["enginekit>=0.1.0"], "1.0"),
        (["enginekit<2"], OLDEST_API),  # no lower bound: the oldest accepted
        (["enginekit"], OLDEST_API),
    ],
)
def test_the_api_asked_for_is_the_lowest_release_the_range_admits(requires: list[str], version: str) -> None:
    asked = asked_for(requires)
    assert asked.version == version
    assert asked.declared
    assert asked.requirement == requires[0]


@pytest.mark.parametrize(
    "requires",
    [
        [],
        ["enginekit-vllm>=2"],  # another distribution
        ["enginekit_sim>=2"],
        ["enginekitx>=2"],
        ["pluggy>=1.3", "attrs"],
        ['enginekit[testing]>=2; extra == "test"'],  # an optional feature's, not the runtime's
    ],
)
def test_a_distribution_without_an_enginekit_requirement_declares_nothing(requires: list[str]) -> None:
    asked = asked_for(requires)
    assert asked == Asked(OLDEST_API)
    assert not asked.declared
    assert str(asked) == (
        "1.0 (it declares none: no Requires-Dist on enginekit, so it is read as written for plugin "
        "API 1.0, the oldest this core accepts)"
    )


def test_the_runtime_requirement_wins_over_an_extras_one() -> None:
    asked = asked_for(['enginekit[testing]>=2.0; extra == "test"', "enginekit>=1.1,<2"])
    assert asked == Asked("1.1", "enginekit>=1.1,<2")


@pytest.mark.parametrize(
    ("version", "why"),
    [
        ("2.0", "another major version than the 1.1 this core offers"),
        ("0.9", "another major version than the 1.1 this core offers"),
        ("1.2", "newer than the 1.1 this core offers: upgrade enginekit"),
    ],
)
def test_another_major_or_a_newer_minor_is_refused(version: str, why: str) -> None:
    asked = Asked(version, f"enginekit>={version}")
    assert (
        refusal(asked)
        == f"refused: written for plugin API {version} (Requires-Dist: enginekit>={version}), {why}"
    )


def test_a_requirement_is_shown_printable_and_bounded(tmp_path: Path) -> None:
    import importlib.metadata

    from enginekit.platform.entrypoints import Provider

    info = tmp_path / "evil-1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Name: evil\nVersion: 1\nRequires-Dist: enginekit>=9\x1b[2J" + "x" * 500 + "\n\n"
    )
    (info / "entry_points.txt").write_text("[enginekit.engines]\nevil = evil:Engine\n")
    [ep] = importlib.metadata.PathDistribution(info).entry_points
    [line] = Provider.of(ep).requires
    assert "\x1b" not in line
    assert len(line) <= 301  # 300 characters and an ellipsis
    assert asked_for([line]).version == "9.0"


def test_this_api_and_an_undeclared_one_are_accepted() -> None:
    assert API_VERSION == ek.API_VERSION == "1.1"
    assert refusal(Asked(API_VERSION, "enginekit>=1.0")) is None
    assert refusal(Asked(OLDEST_API)) is None


@given(st.lists(st.text(max_size=40), max_size=4))
def test_any_metadata_reads_without_raising(requires: list[str]) -> None:
    asked = asked_for(requires)
    major, minor = asked.version.split(".")
    assert major.isdigit()
    assert minor.isdigit()


@given(st.from_regex(r"enginekit ?(>=|~=|==|>) ?[0-9]{1,3}(\.[0-9]{1,3}){0,2}", fullmatch=True))
def test_any_lower_bound_reads_as_its_major_and_minor(requirement: str) -> None:
    version = requirement.split("=")[-1].split(">")[-1].strip()
    parts = [*version.split("."), "0"]
    expected = "1.0" if int(parts[0]) < 1 else f"{int(parts[0])}.{int(parts[1])}"
    assert asked_for([requirement]).version == expected


# --- the registry refuses before importing ------------------------------------------------


def test_a_plugin_for_another_major_version_is_refused_before_it_is_imported(api_dists: Path) -> None:
    registry = Registry.from_entry_points()
    [row] = registry.statuses(["future"])
    assert "api_pkgs.never_imported" not in sys.modules
    assert row.status == "failed"
    assert row.reason == (
        "refused: written for plugin API 2.0 (Requires-Dist: enginekit (>=2.0,<3)), another major "
        "version than the 1.1 this core offers"
    )
    with pytest.raises(EngineUnavailable) as caught:
        registry.engine("future")
    # One message: the plugin, its distribution, the API it asks for, the one offered.
    assert str(caught.value) == (
        "engine 'future' failed to load (future-engine 3.0, api_pkgs.never_imported:Engine): refused: "
        "written for plugin API 2.0 (Requires-Dist: enginekit (>=2.0,<3)), another major version than "
        "the 1.1 this core offers"
    )
    assert "api_pkgs.never_imported" not in sys.modules


def test_a_plugin_for_a_newer_minor_version_is_refused_naming_the_upgrade(api_dists: Path) -> None:
    registry = Registry.from_entry_points()
    [row] = registry.statuses(["newer"])
    assert row.status == "failed"
    assert row.reason == (
        "refused: written for plugin API 1.3 (Requires-Dist: enginekit>=1.3,<2), newer than the 1.1 "
        "this core offers: upgrade enginekit"
    )
    assert "api_pkgs.never_imported" not in sys.modules


def test_a_plugin_that_says_nothing_runs_and_is_listed_as_undeclared(
    api_dists: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = Registry.from_entry_points()
    [row] = registry.statuses(["silent"])
    assert row.status == "ok"
    assert row.plugin_api == Asked(OLDEST_API)
    plan = registry.engine("silent").plan(shard_for("silent"))
    assert plan.commands[-1].path == "/usr/bin/silent-server"

    assert main(["engines", "silent"]) == 0
    line = capsys.readouterr().out
    assert line.startswith("silent  ok  ")
    assert line.rstrip().endswith(
        "silent-engine 0.9 (api_pkgs.silent:Engine); plugin API 1.0 (it declares none: no Requires-Dist "
        "on enginekit, so it is read as written for plugin API 1.0, the oldest this core accepts)"
    )
    assert main(["engines", "--json", "silent"]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert listed["plugin_api"] == {"version": "1.0", "declared": False, "requirement": None}


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_engines_lists_a_refused_plugin_as_failed_with_the_versions(
    api_dists: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["engines", "future", "newer", "firstrel"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("firstrel  ok  ")
    assert out[1].startswith("future    failed  ")
    assert "written for plugin API 2.0 (Requires-Dist: enginekit (>=2.0,<3))" in out[1]
    assert "newer than the 1.1 this core offers: upgrade enginekit" in out[2]
    assert main(["engines", "--json", "firstrel"]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert listed["plugin_api"] == {"version": "1.0", "declared": True, "requirement": "enginekit>=0.1.0"}


# --- the first release's plugin works unchanged -------------------------------------------


def test_the_first_release_plugin_plans_unchanged_with_deprecation_warnings(api_dists: Path) -> None:
    registry = Registry.from_entry_points()
    shard = shard_for("firstrel", api_key="sk-first-release-key-0123456789")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plan = registry.engine("firstrel").plan(shard)
    messages = {str(w.message) for w in caught}
    assert (
        "module enginekit.args is deprecated: import from enginekit.plugin (or enginekit.policy.args); "
        "it is removed in enginekit 2.0" in messages
    )
    assert any(m.startswith("module enginekit.ncclenv is deprecated") for m in messages)
    assert (
        "managed_option_problems(profile_name, args_list, ..., syntax) is deprecated: pass the "
        "ParsedArgs that validate() receives (or syntax.parse(args_list)) and no syntax; it is removed "
        "in enginekit 2.0" in messages
    )
    assert any(
        m.startswith("engine 'firstrel': secret variables ['ECHO_API_KEY'] named only") for m in messages
    )
    # Every warning about a call points at the plugin's own line, not at enginekit or
    # importlib; the one about a command it returned, at where the core found it.
    assert {Path(w.filename).name for w in caught} == {"first_release.py", "engine.py"}
    assert all(Path(w.filename).name == "first_release.py" for w in caught if "secret" not in str(w.message))
    [command] = plan.commands
    assert command.argv() == ["/usr/bin/echo-server", "--model", "/models/m", "--port", "8000"]
    assert command.env["ECHO_API_KEY"] == "sk-first-release-key-0123456789"
    assert command.secret_env == frozenset({"ECHO_API_KEY"})
    assert command.env["CUDA_VISIBLE_DEVICES"] == "0"
    assert plan.health_path == "/healthz"


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_first_release_plugin_still_refuses_what_it_refused(api_dists: Path) -> None:
    engine = Registry.from_entry_points().engine("firstrel")
    shard = shard_for("firstrel", profile_args=("-p", "9000", "--load-plugin=/tmp/x", "stray", "--verbose"))
    with pytest.raises(SpecError) as caught:
        engine.plan(shard)
    assert list(caught.value.problems) == [
        "profile 'p': args: '-p' sets --port, which enginekit manages; the shard spec's http_port "
        "decides where it listens; drop it",
        "profile 'p': args: '--load-plugin' (--load-plugin) imports Python code from a path on the host; "
        'refused unless the site allows it (engines.firstrel.allow_args = ["--load-plugin"])',
        "profile 'p': args[3]: not an option, and '--load-plugin' (args[2]) before it has its value "
        "already, after '=', so echo-server would read it as a positional argument; a profile's args may "
        "give none (enginekit passes the model itself): remove it, or put it right after the option it is "
        "a value of",
    ]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_first_release_plugin_refusing_a_shard_is_a_typed_error(api_dists: Path) -> None:
    engine = Registry.from_entry_points().engine("firstrel")
    with pytest.raises(EngineError, match=r"^echo-server publishes no KV-cache events$"):
        engine.plan(shard_for("firstrel", profile_kv_events=True, kv_events_port=5557))


# --- each shim on its own -----------------------------------------------------------------


@pytest.mark.parametrize(("old", "new"), sorted(FIRST_RELEASE_MODULES.items()))
def test_each_first_release_module_name_forwards_to_its_room(old: str, new: str) -> None:
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"^module {old} is deprecated: import from enginekit.plugin"):
        module = importlib.import_module(old)
    target = importlib.import_module(new)
    public = [name for name in vars(target) if not name.startswith("_")]
    assert public
    assert all(getattr(module, name) is getattr(target, name) for name in public)
    assert set(dir(module)) == set(dir(target))
    sys.modules.pop(old, None)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_name_the_first_release_never_had_is_still_not_found() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("enginekit.no_such_module")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("enginekit.args.deeper")


def test_the_first_release_plan_module_name_still_gives_the_plan() -> None:
    import enginekit.plan

    with pytest.warns(
        DeprecationWarning, match="enginekit.plan.LaunchPlan is deprecated: import LaunchPlan from"
    ):
        assert enginekit.plan.LaunchPlan is ek.__dict__.get("LaunchPlan", None) or enginekit.LaunchPlan
    with pytest.raises(AttributeError, match="no_such_name"):
        enginekit.plan.no_such_name  # noqa: B018


def test_command_environment_is_the_first_release_form_of_environ() -> None:
    command = Command(path="/bin/x", env={"B": "2", "A": "1"})
    with pytest.warns(DeprecationWarning, match=r"Command.environment\(inherited\) is deprecated: use"):
        assert command.environment({"PATH": "/usr/bin", "A": "0"}) == ["A=1", "B=2", "PATH=/usr/bin"]


@pytest.mark.parametrize(
    "helper", [ek.managed_option_problems, ek.code_loading_problems, ek.positional_problems]
)
def test_the_helpers_take_the_first_release_list_and_syntax_with_a_warning(helper: object) -> None:
    syntax = ek.ArgSyntax(known={"--port", "--x"})
    args = ["--port", "1", "--x", "y", "z"]
    kwargs: dict[str, object] = {}
    extra: tuple[object, ...] = ()
    if helper is ek.managed_option_problems:
        extra = ({"--port": "drop it"},)
    elif helper is ek.code_loading_problems:
        extra, kwargs = ({"--x": "runs code"}, ()), {"config_key": "k"}
    else:
        kwargs = {"arity": {"--port": 1, "--x": 1}}
    new = helper("p", syntax.parse(args), *extra, **kwargs)  # type: ignore[operator]
    assert new
    with pytest.warns(DeprecationWarning, match=r"\(profile_name, args_list, \.\.\., syntax\) is deprecated"):
        old = helper("p", args, *extra, syntax, **kwargs)  # type: ignore[operator]
    assert old == new
    with pytest.raises(TypeError, match="takes the ParsedArgs validate\\(\\) receives"):
        helper("p", args, *extra, **kwargs)  # type: ignore[operator]


def test_every_specifier_is_read_not_only_the_first() -> None:
    assert asked_for(["enginekit<3,!=1.5,>=1.2"]).version == "1.2"
    assert asked_for(["enginekit (<3, >=1.3)"]).version == "1.3"
    assert asked_for(["enginekit >=1.4 , garbage, <2"]).version == "1.4"
    assert asked_for(["enginekit>=latest,>=1.1"]).version == "1.1"
    assert asked_for(["enginekit>=2.0.1"]).version == "2.0"


def test_the_first_enginekit_requirement_for_the_runtime_is_the_one_read() -> None:
    assert (
        asked_for(['enginekit>=1.9; extra == "docs"', "pluggy", "enginekit>=1.2", "enginekit>=1.7"]).version
        == "1.2"
    )


def test_only_a_newer_minor_of_this_major_is_newer() -> None:
    assert refusal(Asked("1.0", "enginekit>=1.0")) is None
    assert refusal(Asked("1.1", "enginekit>=1.1")) is None
    assert refusal(Asked("1.2", "enginekit>=1.2")) is not None
    assert refusal(Asked("1.10", "enginekit>=1.10")) == (
        "refused: written for plugin API 1.10 (Requires-Dist: enginekit>=1.10), newer than the 1.1 this core "
        "offers: upgrade enginekit"
    )


def test_an_api_older_than_the_oldest_accepted_is_refused_saying_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from enginekit.platform import api

    monkeypatch.setattr(api, "API_VERSION", "1.4")
    monkeypatch.setattr(api, "OLDEST_API", "1.2")
    assert api.refusal(Asked("1.1", "enginekit>=1.1")) == (
        "refused: written for plugin API 1.1 (Requires-Dist: enginekit>=1.1), older than 1.2, the oldest this "
        "core still accepts"
    )
    assert api.refusal(Asked("1.2", "enginekit>=1.2")) is None
    assert api.refusal(Asked("1.4", "enginekit>=1.4")) is None
    assert api.refusal(Asked("1", "enginekit>=1")) is not None  # read as 1.0
    assert api.asked_for(["enginekit~=0.2"]) == Asked("1.2", "enginekit~=0.2")


def test_a_bare_major_reads_as_its_minor_zero() -> None:
    assert refusal(Asked("1", "enginekit>=1")) is None
    assert asked_for(["enginekit>=1"]).version == "1.0"


def test_a_malformed_specifier_is_skipped_not_the_end_of_the_list() -> None:
    assert asked_for(["enginekit ~=, >=1.3"]).version == "1.3"
    assert asked_for(["enginekit <2, >=1.3"]).version == "1.3"
