"""Every engine's option table: well formed, written by its generator, and never edited by hand."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest
from enginekit.plugin import OptionTable, check_option_document

ROOT = Path(__file__).resolve().parents[1]
TABLES = sorted(ROOT.glob("plugins/*/src/*/options_table.py"))


def _tablemodule() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "tablemodule", ROOT / "tools" / "optiontables" / "tablemodule.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("tablemodule", module)
    spec.loader.exec_module(module)
    return module


def test_every_engine_that_checks_options_ships_a_table() -> None:
    assert {path.parent.name for path in TABLES} >= {"enginekit_vllm", "enginekit_sglang", "enginekit_trtllm"}


@pytest.mark.parametrize("path", TABLES, ids=[path.parent.name for path in TABLES])
def test_the_table_is_well_formed_and_exactly_what_its_generator_writes(path: Path) -> None:
    writer = _tablemodule()
    text = path.read_text(encoding="utf-8")
    document = writer.read_table(text)
    assert check_option_document(document) == []
    # Byte for byte what the writer makes of the document: nobody edited it by hand.
    assert writer.table_text(document) == text
    generator = ROOT / document["generator"]
    assert generator.is_file(), f"{path}: generator {document['generator']} is not in the repository"
    assert document["engine"] == path.parent.name.removeprefix("enginekit_")
    table = OptionTable.from_package(path.parent.name)
    assert table.releases == tuple(entry["release"] for entry in document["releases"])
    for source in table.sources:
        assert "sha256" in source or "digest" in source, source


def test_a_table_module_holds_the_json_text_and_reads_back() -> None:
    writer = _tablemodule()
    document = json.loads(json.dumps(writer.read_table(TABLES[0].read_text(encoding="utf-8"))))
    document["releases"][0]["source"] = "a source with ''' in it"
    with pytest.raises(ValueError, match="which would end the string"):
        writer.table_text(document)
