"""``enginekit engines --check``: each engine plans its example shard, and a broken hook is failed, by name."""

from __future__ import annotations

import importlib
import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from enginekit import HookError, Registry
from enginekit.cli.app import main
from enginekit.platform import registry as registry_module
from enginekit.platform.check import canonical_shard, check

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
    assert err == (
        "enginekit: warning: engine 'slow' took 1.5 s to import (check-engines 2.0 (check_pkgs.slow:Slow)); "
        "every enginekit command that uses it pays for that\n"
    )


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
