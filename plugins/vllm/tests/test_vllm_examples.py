"""The repository's vLLM example specs render, directly and through the README's quickstart command."""

from __future__ import annotations

from pathlib import Path

import pytest
from enginekit import Registry, ShardSpec
from enginekit.cli import main
from enginekit.spec.convert import load_document, structure
from enginekit.testing import engine_for
from enginekit_vllm import VllmEngine

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SPECS = sorted(EXAMPLES.glob("vllm-*.toml"))
QUICKSTART = EXAMPLES / "vllm-single-node-tp8.toml"


def _spec(path: Path) -> ShardSpec:
    spec, _ = structure(load_document(path), ShardSpec, path="spec")
    return spec


@pytest.mark.skipif(not SPECS, reason="no examples/ directory beside this plugin")
@pytest.mark.parametrize("path", SPECS, ids=[p.stem for p in SPECS])
def test_example_renders(path: Path) -> None:
    spec = _spec(path)
    plan = engine_for(VllmEngine(), "vllm").plan(spec)
    assert plan.commands
    assert plan.commands[-1].path == "vllm"
    assert plan.serves_http is spec.is_leader()
    text = plan.render_text(explain=True)
    assert not spec.api_key or spec.api_key not in text


@pytest.mark.skipif(not QUICKSTART.exists(), reason="no quickstart example")
def test_quickstart_example_is_the_documented_shard() -> None:
    (command,) = engine_for(VllmEngine(), "vllm").commands(_spec(QUICKSTART))
    assert command.argv() == [
        "vllm", "serve", "/models/meta-llama/Llama-3.1-70B-Instruct",
        "--host", "10.1.0.21", "--port", "8000", "--served-model-name", "llama-3.1-70b",
        "--tensor-parallel-size", "8", "--pipeline-parallel-size", "1",
        "--max-model-len", "32768", "--gpu-memory-utilization", "0.92", "--enable-prefix-caching",
    ]  # fmt: skip
    assert command.env["VLLM_LOGGING_LEVEL"] == "INFO"


@pytest.mark.skipif(not QUICKSTART.exists(), reason="no quickstart example")
def test_readme_quickstart_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if "vllm" not in Registry.from_entry_points().names():
        pytest.skip("enginekit-vllm is not installed (entry points)")
    config = tmp_path / "config.toml"
    config.write_text('[engines.vllm]\nversion = "0.34.0"\n', encoding="utf-8")
    code = main(["--config", str(config), "render", str(QUICKSTART), "--explain"], {})
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "argv: vllm serve /models/meta-llama/Llama-3.1-70B-Instruct --host 10.1.0.21" in out
    assert "VLLM_API_KEY=<secret>" in out
    assert _spec(QUICKSTART).api_key not in out
    assert "# the API key: vLLM reads it from here, never from argv" in out
