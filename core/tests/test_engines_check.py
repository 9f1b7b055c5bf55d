"""``enginekit engines --check``: each engine plans its example shard, and a broken hook is failed, by name."""

from __future__ import annotations

import importlib
import itertools
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from enginekit import Command, HookError, Registry, ShardSpec, hookimpl
from enginekit.cli.app import main
from enginekit.placement.builder import CommandBuilder
from enginekit.platform import registry as registry_module
from enginekit.platform.check import canonical_shard, check
from enginekit.testing.factories import make_shard

CHECKS = Path(__file__).parent / "data" / "checks"


@pytest.fixture
def check_dists(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(CHECKS))
    importlib.invalidate_caches()
    yield CHECKS
    for name in [m for m in sys.modules if m.split(".")[0] == "check_pkgs"]:
        del sys.modules[name]


def _engines(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["engines", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_plain_engines_lists_a_broken_plugin_as_ok_and_plans_nothing(
    check_dists: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _engines(capsys, "raising", "garbage")
    assert code == 0
    assert [line.split()[:2] for line in out.splitlines()] == [["garbage", "ok"], ["raising", "ok"]]


def test_check_fails_an_engine_whose_hook_raises_naming_the_hook_and_the_reason(
    check_dists: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _engines(capsys, "--check", "raising")
    assert code == 1
    assert out == (
        "raising  failed       check-engines 2.0 (check_pkgs.engines:Raising); engine 'raising' "
        "(check-engines 2.0 (check_pkgs.engines:Raising)): hook commands() raised RuntimeError: the "
        "table of flags is missing\n"
    )


def test_check_fails_an_engine_answering_garbage(
    check_dists: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _engines(capsys, "--check", "--json", "garbage", "badexample")
    assert code == 1
    rows = {row["engine"]: row for row in json.loads(out)}
    assert rows["garbage"]["status"] == "failed"
    assert rows["garbage"]["failed_hook"] == "commands"
    assert rows["garbage"]["reason"].endswith(
        "hook commands() returned a string of 28 characters, expected a list of Commands"
    )
    assert rows["badexample"]["failed_hook"] == "example_shard"
    assert rows["badexample"]["reason"].endswith(
        "hook example_shard() returned a value of type dict, expected a ShardSpec"
    )


def test_check_passes_good_engines_with_their_own_example_or_the_canonical_shard(
    check_dists: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _engines(capsys, "--check", "--json", "good", "exampled")
    assert code == 0
    rows = {row["engine"]: row for row in json.loads(out)}
    assert {name: (row["status"], row["failed_hook"]) for name, row in rows.items()} == {
        "exampled": ("ok", None),
        "good": ("ok", None),
    }
    registry = Registry.from_entry_points()
    assert check(registry.engine("exampled")).shard == "the engine's example"
    assert check(registry.engine("good")).shard == "the canonical single-GPU shard"


def test_an_engine_refusing_its_example_is_failed_without_a_hook_to_blame(
    check_dists: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _engines(capsys, "--check", "--json", "refusing")
    assert code == 1
    [row] = json.loads(out)
    assert (row["status"], row["failed_hook"]) == ("failed", None)
    assert row["reason"] == (
        "the canonical single-GPU shard was refused: profile 'example': refusing everything"
    )


def test_every_installed_first_party_engine_passes_its_check(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _engines(capsys, "--check", "--json")
    rows = {row["engine"]: row for row in json.loads(out)}
    installed = [name for name in ("vllm", "sglang", "llamacpp", "sim") if name in rows]
    if not installed and "trtllm" not in rows:
        pytest.skip("no first-party engine is installed (the core's tests alone)")
    for name in installed:
        assert rows[name]["status"] == "ok", rows[name]
    if "trtllm" in rows:
        assert rows["trtllm"]["status"] == "unavailable"  # not planned: it cannot run here
    assert code == 0


def test_the_import_time_is_in_json_and_over_a_second_is_a_warning(
    check_dists: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ticks = itertools.count(step=0.7)  # each reading of the clock 0.7 s after the last
    monkeypatch.setattr(registry_module, "_clock", lambda: next(ticks))
    code, out, err = _engines(capsys, "--json", "slow")
    assert code == 0
    [row] = json.loads(out)
    assert row["import_seconds"] == 0.7
    assert err == ""
    ticks = itertools.count(step=1.5)
    code, out, err = _engines(capsys, "slow")
    assert code == 0
    assert out.split()[:2] == ["slow", "slow"]  # listed as slow: ok, and usable
    assert err == (
        "enginekit: warning: engine 'slow' took 1.5 s to import (check-engines 2.0 (check_pkgs.slow:Slow)), "
        "over the budget of 1 s (import_budget); every enginekit command that uses it pays for that\n"
    )
    ticks = itertools.count(step=1.5)
    code, out, err = _engines(capsys, "--json", "slow")
    [row] = json.loads(out)
    assert (code, row["status"], row["slow"]) == (0, "ok", True)


def test_the_import_budget_is_the_node_configs(
    check_dists: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = tmp_path / "node.toml"
    config.write_text("import_budget = 2.5\n")
    ticks = itertools.count(step=2.0)
    monkeypatch.setattr(registry_module, "_clock", lambda: next(ticks))
    code = main(["engines", "--config", str(config), "--json", "slow"])
    out, err = capsys.readouterr()
    [row] = json.loads(out)
    assert (code, row["status"], row["slow"], err) == (0, "ok", False, "")
    ticks = itertools.count(step=3.0)
    code = main(["engines", "--config", str(config), "slow"])
    out, err = capsys.readouterr()
    assert out.split()[:2] == ["slow", "slow"]
    assert "over the budget of 2.5 s (import_budget)" in err


@pytest.mark.parametrize("budget", ["0", "-1", "1e9", '"fast"', "true", "nan"])
def test_an_import_budget_that_is_no_duration_is_refused_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, budget: str
) -> None:
    config = tmp_path / "node.toml"
    config.write_text(f"import_budget = {budget}\n")
    code = main(["engines", "--config", str(config)])
    _, err = capsys.readouterr()
    assert code != 0
    assert "import_budget" in err
    assert "Traceback" not in err


class Quick:
    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [CommandBuilder(shard).command("/usr/bin/quick", [])]


def test_a_slow_engine_never_delays_planning_another(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the engine asked for is imported: one whose import sleeps is never paid for by another."""
    dist = tmp_path / "slow_dist-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: slow-dist\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[enginekit.engines]\nsleepy = sleepy_plugin:Engine\n")
    (tmp_path / "sleepy_plugin.py").write_text("import time\ntime.sleep(30)\nclass Engine: pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    registry = Registry.from_entry_points()
    registry.add(Quick(), name="quick")
    started = time.monotonic()
    registry.engine("quick").plan(make_shard(engine="quick"))
    assert "sleepy" in registry.names()
    assert "sleepy_plugin" not in sys.modules
    assert time.monotonic() - started < 20  # far under the sleep: it never ran


def test_an_engine_never_imported_has_no_import_time(
    check_dists: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _engines(capsys, "--json", "good")
    assert code == 0
    assert json.loads(out)[0]["import_seconds"] >= 0
    registry = Registry.from_entry_points(disable=["slow"])
    [row] = registry.statuses(["slow"])
    assert (row.status, row.import_seconds) == ("disabled", None)


def test_the_canonical_shard_is_one_gpu_tensor_parallel_one() -> None:
    shard = canonical_shard("x")
    assert (shard.profile.engine, shard.profile.tp, shard.gpu_indices, shard.nnodes) == ("x", 1, (0,), 1)


def test_a_hook_error_keeps_its_hook_through_masking() -> None:
    from enginekit.base.secrets import masked_error

    error = masked_error(
        HookError("hook commands() raised: sk-secret-0123456789", "commands"), "sk-secret-0123456789"
    )
    assert isinstance(error, HookError)
    assert (error.hook, str(error)) == ("commands", "hook commands() raised: <secret>")
