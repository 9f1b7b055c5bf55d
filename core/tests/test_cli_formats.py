"""``enginekit schema`` and ``enginekit spec``: the shipped schemas, and specs written in either spelling."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from enginekit.cli import main
from enginekit.cli.parser import SCHEMA_KINDS
from enginekit.plan.formats import SCHEMA_FILES, schema_text
from enginekit.spec.io import load_spec

KEY = "sk-formats-0123456789abcdef"
SPEC = f"""
ReplicaID = "r1"
gpu_indices = [0, 1]
HTTPPort = 8000
api_key = "{KEY}"
[profile]
name = "p"
Engine = "sim"
tp = 2
"""
NO_CONFIG = {"ENGINEKIT_CONFIG": ""}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv), NO_CONFIG)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_offers_every_published_schema() -> None:
    assert set(SCHEMA_KINDS) == set(SCHEMA_FILES)


@pytest.mark.parametrize("kind", SCHEMA_KINDS)
def test_schema_prints_the_shipped_file(kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "schema", kind)
    assert (code, err) == (0, "")
    assert out == schema_text(kind)
    assert json.loads(out)["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_an_unknown_schema_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "schema", "profile")
    assert (code, out) == (2, "")
    assert "invalid choice: 'profile' (choose from 'plan', 'spec', 'spec-go')" in err


@pytest.fixture
def spec_file(tmp_path: Path) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(SPEC)
    return path


def test_spec_writes_snake_case_with_the_key_masked(
    spec_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "spec", str(spec_file))
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert (data["replica_id"], data["http_port"], data["api_key"]) == ("r1", 8000, "<secret>")
    assert KEY not in out


def test_spec_with_go_names_is_what_the_go_agent_reads_and_reads_back_equal(
    spec_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "spec", str(spec_file), "--go-names", "--show-secrets")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert (data["ReplicaID"], data["HTTPPort"], data["GPUIndices"], data["api_key"]) == (
        "r1",
        8000,
        [0, 1],
        KEY,
    )
    assert data["Profile"]["TP"] == 2
    assert load_spec(out).spec == load_spec(spec_file).spec


def test_spec_reads_stdin_and_refuses_bad_input_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = f'{{"profile": {{"name": "p", "engine": "sim", "tp": "2"}}, "api_key": "{KEY}"}}'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(bad.encode()), encoding="utf-8"))
    code, out, err = run(capsys, "spec", "-")
    assert (code, out) == (2, "")
    assert err == "enginekit: error: spec.profile.tp: expected an integer, got str '2'\n"
