"""Every example spec renders through the CLI, as a user would run it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from enginekit import ShardSpec
from enginekit.cli import main
from enginekit.spec.convert import load_document, structure

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SPECS = sorted(p for p in EXAMPLES.glob("*.toml") if p.name != "node-config.toml")
CONFIG = EXAMPLES / "node-config.toml"


def test_there_are_examples_for_every_engine() -> None:
    engines = {load_document(p)["profile"]["engine"] for p in SPECS}
    assert {"vllm", "sglang", "llamacpp", "trtllm", "sim"} <= engines


@pytest.mark.parametrize("path", SPECS, ids=[p.stem for p in SPECS])
def test_example_renders(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec, _ = structure(load_document(path), ShardSpec, path="spec")
    code = main(["--config", str(CONFIG), "render", str(path), "--json"], {})
    out, err = capsys.readouterr()
    assert code == 0, err
    plan = json.loads(out)
    assert plan["commands"], "a shard is at least one process"
    assert plan["serves_http"] == (spec.rank == 0)
    if spec.api_key:
        assert spec.api_key not in out
        assert any("<secret>" in c["env"].values() for c in plan["commands"])
    for command in plan["commands"]:
        assert command["env"]["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID"
    code = main(["--config", str(CONFIG), "render", str(path), "--explain"], {})
    text, err = capsys.readouterr()
    assert code == 0, err
    assert "# " in text
    assert not spec.api_key or spec.api_key not in text
