"""Every replica example lays out, and the engines without data or expert parallel refuse them by name."""

from __future__ import annotations

from pathlib import Path

import pytest
from enginekit.cli import main

from tests.conftest import EXAMPLES

CONFIG = EXAMPLES / "node-config.toml"
REPLICAS = sorted((EXAMPLES / "replicas").glob("*.toml"))
WIDE_EP = EXAMPLES / "replicas/sglang-wide-ep.toml"


def _layout(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, str, str]:
    code = main(["--config", str(CONFIG), "layout", str(path)], {})
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("path", REPLICAS, ids=[p.name for p in REPLICAS])
def test_every_replica_example_lays_out(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    code, out, err = _layout(capsys, path)
    assert (code, err) == (0, "")
    assert out.startswith("replica ")


def test_the_sglang_example_is_among_them() -> None:
    assert WIDE_EP in REPLICAS


@pytest.mark.parametrize("engine", ["llamacpp", "trtllm"])
def test_an_engine_without_data_or_expert_parallel_refuses_each_by_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, engine: str
) -> None:
    path = tmp_path / "r.toml"
    # SGLang's own arguments mean nothing to the others: the refusal is the layout's alone.
    path.write_text(
        WIDE_EP.read_text().replace('engine = "sglang"', f'engine = "{engine}"').split("args = [")[0]
    )
    code, out, err = _layout(capsys, path)
    assert (code, out) == (1, "")
    assert f"dp: engine '{engine}' has no data parallel (dp is 16)" in err
    assert f"expert_parallel: engine '{engine}' has no expert parallel" in err
    alone = tmp_path / "ep.toml"
    alone.write_text(
        'replica_id = "one"\nhttp_port = 8000\n[placement]\ngpu_indices = [0, 1, 2, 3]\n'
        f'[profile]\nname = "moe"\nengine = "{engine}"\ntp = 4\nexpert_parallel = true\n'
        'model_path = "/models/m"\n'
    )
    code, out, err = _layout(capsys, alone)
    assert (code, out) == (1, "")
    assert f"expert_parallel: engine '{engine}' has no expert parallel" in err
    assert "has no data parallel" not in err
