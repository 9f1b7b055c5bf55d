"""The option table a plugin makes from its engine's parser with enginekit's own tooling."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from enginekit.cli.app import main
from enginekit.plugin import OptionTable, check_table_module

from enginekit_myengine.policy import KNOWN

TOOLS = Path(__file__).resolve().parents[1] / "tools"


def test_the_table_is_made_with_enginekit_option_table_and_reads_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.syspath_prepend(str(TOOLS))
    package = tmp_path / "made_table"
    package.mkdir()
    (package / "__init__.py").write_text('"""A package holding the table made here."""\n')
    table = package / "options_table.py"
    code = main(
        [
            "option-table",
            str(table),
            "--parser",
            "option_table_parser:make_parser",
            "--release",
            "1.2.0",
            "--engine",
            "myengine",
            "--program",
            "myengine-server",
            "--generator",
            "enginekit option-table",
        ]
    )
    assert code == 0, capsys.readouterr().err
    assert check_table_module(table) == []
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("made_table.options_table", None)
    made = OptionTable.from_package("made_table")
    assert made.releases == ("1.2.0",)
    # Every option the policy knows is one the parser has (and --help besides).
    assert made.options == frozenset({*KNOWN, "--help"})
