"""Every engine's option table: well formed, written by its generator, and never edited by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from enginekit.plugin import (
    OptionTable,
    check_option_document,
    check_table_module,
    read_table_module,
    table_module_text,
)

ROOT = Path(__file__).resolve().parents[1]
TABLES = sorted(ROOT.glob("plugins/*/src/*/options_table.py"))


def test_every_engine_that_checks_options_ships_a_table() -> None:
    assert {path.parent.name for path in TABLES} >= {"enginekit_vllm", "enginekit_sglang", "enginekit_trtllm"}


@pytest.mark.parametrize("path", TABLES, ids=[path.parent.name for path in TABLES])
def test_the_table_is_well_formed_and_exactly_what_its_generator_writes(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    document = read_table_module(text)
    assert check_option_document(document) == []
    # Byte for byte what the writer makes of the document: nobody edited it by hand.
    assert table_module_text(document) == text
    assert check_table_module(path) == []
    generator = ROOT / document["generator"]
    assert generator.is_file(), f"{path}: generator {document['generator']} is not in the repository"
    assert document["engine"] == path.parent.name.removeprefix("enginekit_")
    table = OptionTable.from_package(path.parent.name)
    assert table.releases == tuple(entry["release"] for entry in document["releases"])
    for source in table.sources:
        assert "sha256" in source or "digest" in source, source


def test_a_table_module_holds_the_json_text_and_reads_back() -> None:
    document = json.loads(json.dumps(read_table_module(TABLES[0].read_text(encoding="utf-8"))))
    document["releases"][0]["source"] = "a source with ''' in it"
    with pytest.raises(ValueError, match="which would end the string"):
        table_module_text(document)
