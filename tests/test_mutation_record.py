"""The mutation gate's record: what makes a target run again, and what lets it rest.

CI reruns only the gated targets whose inputs differ from ``tools/mutation-record.json``
(``--changed``), plus a rotating few (``--rotate``). These tests pin the two halves of that
bargain: any change to what a target's score is a function of changes its digest (so a
weakened test is never waved through as verified), and the rotation reaches every target
across commits.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent


def _mutation_tool() -> ModuleType:
    """``tools/mutation.py``, loaded by path (the tools are no package)."""
    spec = importlib.util.spec_from_file_location("mutation_tool", ROOT / "tools" / "mutation.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mutation_tool", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    return _mutation_tool()


def _target(tool: ModuleType, name: str) -> Any:
    return next(t for t in tool.TARGETS if t.name == name)


@pytest.fixture
def tree(tmp_path: Path, tool: ModuleType) -> Path:
    """A copy of what ``core.carriers``' digest reads, to change one file at a time."""
    target = _target(tool, "core.carriers")
    for relative in [
        "pyproject.toml",
        "tools/mutation-equivalents.json",
        f"{target.dist}/{target.source}",
        *(f"{target.dist}/{f}" for f in tool._test_files(target)),
    ]:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / relative, tmp_path / relative)
    return tmp_path


def test_the_digest_is_a_function_of_the_files_not_of_where_they_lie(tool: ModuleType, tree: Path) -> None:
    target = _target(tool, "core.carriers")
    assert tool.inputs_digest(target, tree) == tool.inputs_digest(target, ROOT)


@pytest.mark.parametrize(
    "relative",
    [
        "core/src/enginekit/policy/carriers.py",  # the module
        "core/tests/test_carriers.py",  # a test file of its selection
        "core/tests/conftest.py",  # the conftest every selection loads
    ],
)
def test_any_change_to_a_file_it_reads_changes_the_digest(
    tool: ModuleType, tree: Path, relative: str
) -> None:
    target = _target(tool, "core.carriers")
    before = tool.inputs_digest(target, tree)
    path = tree / relative
    path.write_bytes(path.read_bytes() + b"\n")  # even a trailing newline
    assert tool.inputs_digest(target, tree) != before


def test_a_weakened_test_is_a_changed_target(tool: ModuleType, tree: Path) -> None:
    """The case the gate exists for: an assertion dropped from a test, module untouched."""
    target = _target(tool, "core.carriers")
    test = tree / "core/tests/test_carriers.py"
    record = {target.name: {"inputs": tool.inputs_digest(target, tree), "score": 100.0, "seconds": 10}}
    text = test.read_text(encoding="utf-8")
    assert "assert " in text
    test.write_text(text.replace("assert ", "assert True or ", 1), encoding="utf-8")
    digests = {target.name: tool.inputs_digest(target, tree)}
    chosen = tool.select([target], record, digests, 95.0, "seed", 0.0)
    assert chosen.changed == (target,)
    assert chosen.verified == ()


def test_the_settings_the_pin_and_the_equivalents_are_inputs(tool: ModuleType, tree: Path) -> None:
    target = _target(tool, "core.carriers")
    before = tool.inputs_digest(target, tree)
    pyproject = tree / "pyproject.toml"
    original = pyproject.read_text(encoding="utf-8")
    assert "[tool.mutmut]" in original
    pyproject.write_text(original.replace("[tool.mutmut]", "[tool.mutmut]\nx = 1", 1), encoding="utf-8")
    assert tool.inputs_digest(target, tree) != before
    pyproject.write_text(original, encoding="utf-8")
    assert tool.inputs_digest(target, tree) == before
    equivalents = tree / "tools/mutation-equivalents.json"
    rows = json.loads(equivalents.read_text(encoding="utf-8"))
    rows.append({"target": target.name, "original": "a", "mutant": "b", "why": "c"})
    equivalents.write_text(json.dumps(rows), encoding="utf-8")
    assert tool.inputs_digest(target, tree) != before


def test_another_targets_equivalent_is_not_an_input(tool: ModuleType, tree: Path) -> None:
    target = _target(tool, "core.carriers")
    before = tool.inputs_digest(target, tree)
    equivalents = tree / "tools/mutation-equivalents.json"
    rows = json.loads(equivalents.read_text(encoding="utf-8"))
    rows.append({"target": "core.args", "original": "a", "mutant": "b", "why": "c"})
    equivalents.write_text(json.dumps(rows), encoding="utf-8")
    assert tool.inputs_digest(target, tree) == before


def test_a_missing_test_file_is_an_input_too(tool: ModuleType, tree: Path) -> None:
    target = _target(tool, "core.carriers")
    before = tool.inputs_digest(target, tree)
    (tree / "core/tests/test_carriers.py").unlink()
    assert tool.inputs_digest(target, tree) != before


def _record(tool: ModuleType, targets: list[Any], score: float = 100.0, seconds: int = 60) -> dict[str, Any]:
    return {t.name: {"inputs": f"d-{t.name}", "score": score, "seconds": seconds} for t in targets}


def _digests(targets: list[Any]) -> dict[str, str]:
    return {t.name: f"d-{t.name}" for t in targets}


def test_a_recorded_score_under_the_line_runs_again(tool: ModuleType) -> None:
    targets = list(tool.TARGETS[:3])
    record = _record(tool, targets)
    record[targets[1].name]["score"] = 94.99
    chosen = tool.select(targets, record, _digests(targets), 95.0, "s", 0.0)
    assert chosen.changed == (targets[1],)
    assert set(chosen.verified) == {targets[0], targets[2]}


def test_a_target_absent_from_the_record_runs(tool: ModuleType) -> None:
    targets = list(tool.TARGETS[:3])
    record = _record(tool, targets[:2])
    chosen = tool.select(targets, record, _digests(targets), 95.0, "s", 0.0)
    assert chosen.changed == (targets[2],)
    assert chosen.chosen == [targets[2]]


@settings(max_examples=60, deadline=None)
@given(seed=st.text(max_size=40), rotate=st.floats(min_value=0, max_value=5000))
def test_the_rotation_partitions_the_verified_and_keeps_to_its_budget(seed: str, rotate: float) -> None:
    tool = _mutation_tool()
    targets = list(tool.TARGETS)
    record = {
        t.name: {"inputs": f"d-{t.name}", "score": 100.0, "seconds": 10 + (i * 37) % 200}
        for i, t in enumerate(targets)
    }
    chosen = tool.select(targets, record, _digests(targets), 95.0, seed, rotate)
    assert chosen.changed == ()
    assert set(chosen.rotating).isdisjoint(chosen.verified)
    assert set(chosen.rotating) | set(chosen.verified) == set(targets)
    if rotate > 0:
        assert chosen.rotating, "a rotation always takes at least one target"
        if len(chosen.rotating) > 1:
            assert sum(record[t.name]["seconds"] for t in chosen.rotating) <= rotate
    else:
        assert chosen.rotating == ()


def test_across_commits_the_rotation_reaches_every_target(tool: ModuleType) -> None:
    """Drift through a module a target's tests only call is caught on some later commit."""
    targets = list(tool.TARGETS)
    record = _record(tool, targets, seconds=120)
    reached: set[str] = set()
    for n in range(400):
        seed = hashlib.sha1(str(n).encode()).hexdigest()  # commit ids, as git draws them
        reached |= {
            t.name for t in tool.select(targets, record, _digests(targets), 95.0, seed, 300.0).rotating
        }
    assert reached == {t.name for t in targets}


def test_the_draw_depends_on_the_seed(tool: ModuleType) -> None:
    targets = list(tool.TARGETS)
    record = _record(tool, targets, seconds=120)
    draws = {
        tuple(t.name for t in tool.select(targets, record, _digests(targets), 95.0, seed, 300.0).rotating)
        for seed in ("a", "b", "c", "d", "e")
    }
    assert len(draws) > 1


def test_write_record_keeps_what_did_not_run_and_drops_the_unfinished(
    tool: ModuleType, tmp_path: Path
) -> None:
    path = tmp_path / "record.json"
    first, second, third = tool.TARGETS[:3]
    path.write_text(
        json.dumps(
            {
                "schema": tool.RECORD_SCHEMA,
                "targets": {
                    first.name: {"inputs": "old", "score": 100.0, "seconds": 5},
                    second.name: {"inputs": "old", "score": 100.0, "seconds": 5},
                    "gone.target": {"inputs": "x", "score": 100.0, "seconds": 5},
                },
            }
        ),
        encoding="utf-8",
    )
    scores = [
        tool.Score(third, total=10, killed=9, seconds=12.4),
        tool.Score(second, total=10, killed=10, complete=False),
    ]
    tool.write_record(scores, path, ROOT)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["schema"] == tool.RECORD_SCHEMA
    targets = data["targets"]
    assert targets[first.name]["inputs"] == "old", "a target that did not run keeps its entry"
    assert second.name not in targets, "a run stopped at its budget is no evidence"
    assert "gone.target" not in targets, "a target no longer in the table is dropped"
    assert targets[third.name] == {"inputs": tool.inputs_digest(third, ROOT), "score": 90.0, "seconds": 12}
    assert tool.read_record(path) == targets


def test_a_missing_record_means_everything_runs(tool: ModuleType, tmp_path: Path) -> None:
    assert tool.read_record(tmp_path / "absent.json") == {}


def test_the_committed_record_is_readable_and_names_only_gated_targets(tool: ModuleType) -> None:
    record = tool.read_record()
    gated = {t.name for t in tool.TARGETS if t.gated}
    assert set(record) <= {t.name for t in tool.TARGETS}
    for name, entry in record.items():
        assert len(entry["inputs"]) == 64, name
        assert 0.0 <= entry["score"] <= 100.0, name
        assert entry["seconds"] >= 0, name
    assert json.loads(tool.RECORD_FILE.read_text(encoding="utf-8"))["schema"] == tool.RECORD_SCHEMA
    assert gated, "the table has gated targets"


def test_the_digest_recorded_is_the_one_taken_before_the_run(tool: ModuleType, tmp_path: Path) -> None:
    """A file edited while a long run goes on makes its target run again next time."""
    path = tmp_path / "record.json"
    target = tool.TARGETS[0]
    tool.write_record([tool.Score(target, total=4, killed=4)], path, ROOT, digests={target.name: "before"})
    assert tool.read_record(path)[target.name]["inputs"] == "before"
