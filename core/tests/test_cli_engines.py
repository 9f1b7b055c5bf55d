"""``enginekit engines [NAME ...]`` and ``enginekit --version``: statuses, fields, exit statuses, names meant."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import enginekit
import pytest
from enginekit.cli import main
from enginekit.platform.status import STATUSES

NO_CONFIG = {"ENGINEKIT_CONFIG": ""}
#: Every fake engine but the well-behaved ones, out of the way: what is left is a working node.
HEALTHY = {"ENGINEKIT_ENGINES": "fake offline configurable"}


def run(
    capsys: pytest.CaptureFixture[str], *argv: str, environ: dict[str, str] | None = None
) -> tuple[int, str, str]:
    code = main(list(argv), {**NO_CONFIG, **(environ or {})})
    out, err = capsys.readouterr()
    return code, out, err


def test_a_node_whose_engines_are_ok_unavailable_or_disabled_exits_0(
    fake_dists: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "engines", environ=HEALTHY)
    assert code == 0, err
    statuses = {line.split()[0]: line.split()[1] for line in out.splitlines()}
    assert statuses["fake"] == "ok"
    assert statuses["offline"] == "unavailable"
    assert statuses["broken"] == "disabled"


def test_a_failed_engine_makes_the_listing_exit_1_and_is_listed_with_why(
    fake_dists: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "engines")
    assert code == 1
    assert err == ""
    line = next(line for line in out.splitlines() if line.startswith("typo "))
    assert line.split()[1] == "failed"
    assert line.endswith(
        "fake-ok 1.0 (fake_pkgs.typo:TypoEngine); unknown hook 'comands' (did you mean 'commands'?)"
    )
    assert " object at 0x" not in out


def test_named_engines_are_the_only_ones_loaded_and_judged(
    fake_dists: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "engines", "offline", "fake", "fake")
    assert (code, err) == (0, "")
    assert [line.split()[:2] for line in out.splitlines()] == [["fake", "ok"], ["offline", "unavailable"]]
    assert "fake_pkgs.broken" not in sys.modules
    code, out, _ = run(capsys, "engines", "fake", "broken")
    assert code == 1
    assert [line.split()[:2] for line in out.splitlines()] == [["broken", "failed"], ["fake", "ok"]]


def test_a_named_engine_that_is_not_installed_exits_2_naming_the_one_meant(
    fake_dists: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "engines", "fake", "fkae")
    assert code == 2
    assert [line.split()[:2] for line in out.splitlines()] == [["fake", "ok"]]
    assert err.startswith("enginekit: error: unknown engine 'fkae' (did you mean 'fake'? installed: ")
    installed = err.split("installed: ")[1].rstrip(")\n").split(", ")
    assert installed == sorted(installed)
    assert {"broken", "configurable", "fake", "incomplete", "modular", "offline", "twin", "typo"} <= set(
        installed
    )
    assert len(err.splitlines()) == 1
    code, out, err = run(capsys, "engines", "--json", "fkae")
    assert (code, json.loads(out)) == (2, [])


def test_a_named_disabled_engine_is_fine(fake_dists: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "engines", "broken", environ={"ENGINEKIT_DISABLE_ENGINES": "broken"})
    assert code == 0
    assert out == (
        "broken  disabled     fake-ok 1.0 (fake_pkgs.broken:Engine); ENGINEKIT_DISABLE_ENGINES names it\n"
    )
    assert "fake_pkgs.broken" not in sys.modules


def test_json_rows_have_structured_fields(fake_dists: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "engines", "--json", environ={"ENGINEKIT_DISABLE_ENGINES": "modular"})
    assert code == 1
    rows = {row["engine"]: row for row in json.loads(out)}
    assert isinstance(rows["fake"]["import_seconds"], float)
    assert rows["fake"] == {
        "engine": "fake",
        "status": "ok",
        "reason": None,
        "distribution": "fake-ok",
        "version": "1.0",
        "entry_point": "fake_pkgs.ok:FakeEngine",
        "hooks": ["commands", "notes", "policy", "validate"],
        "import_seconds": rows["fake"]["import_seconds"],
        "slow": False,
        "failed_hook": None,
        "plugin_api": {"version": "1.0", "declared": False, "requirement": None},
        "providers": [
            {"distribution": "fake-ok", "version": "1.0", "entry_point": "fake_pkgs.ok:FakeEngine"}
        ],
        "name": "fake",
        "source": "fake-ok 1.0 (fake_pkgs.ok:FakeEngine)",
        "detail": "",
    }
    typo = rows["typo"]
    assert (typo["status"], typo["hooks"]) == ("failed", None)
    assert typo["reason"] == typo["detail"] == "unknown hook 'comands' (did you mean 'commands'?)"
    assert (rows["modular"]["status"], rows["modular"]["entry_point"]) == ("disabled", "fake_pkgs.modular")
    twin = rows["twin"]
    assert (twin["distribution"], twin["version"], twin["entry_point"]) == (None, None, None)
    assert [p["distribution"] for p in twin["providers"]] == ["fake-clash", "fake-ok"]
    assert {row["status"] for row in rows.values()} == set(STATUSES)


def test_a_plugin_with_a_misspelt_hook_is_named_with_the_hook_meant_when_used(
    fake_dists: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "spec.json"
    spec.write_text(
        json.dumps(
            {
                "replica_id": "r",
                "shard_id": "s",
                "http_port": 8000,
                "profile": {"name": "p", "engine": "typo"},
            }
        )
    )
    code, _, err = run(capsys, "render", str(spec))
    assert (code, err) == (
        2,
        "enginekit: error: engine 'typo' failed to load (fake-ok 1.0, fake_pkgs.typo:TypoEngine): "
        "unknown hook 'comands' (did you mean 'commands'?)\n",
    )


def test_version_lists_the_core_and_each_engine_distribution_importing_none(
    fake_dists: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The node config is not read: a version prints on a node whose config is broken.
    code, out, err = run(capsys, "--version", environ={"ENGINEKIT_CONFIG": "/nonexistent/config.toml"})
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"enginekit {enginekit.__version__}"
    assert "fake-clash 2.0 (engine twin)" in lines
    assert (
        "fake-ok 1.0 (engines broken, configurable, fake, incomplete, modular, offline, twin, typo)" in lines
    )
    assert not [name for name in sys.modules if name.startswith("fake_pkgs")]


def test_the_version_is_the_core_distributions() -> None:
    from importlib.metadata import version

    assert enginekit.__version__ == version("enginekit")
