"""Variables an engine generates for a shard's placement are the engine's, for every engine and shard kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from enginekit.cli import main
from enginekit.spec.convert import load_document

from tests.conftest import EXAMPLES

CONFIG = EXAMPLES / "node-config.toml"
#: (example, variables its engine generates for the shard that a profile must not move)
GENERATED = [
    ("vllm-cpu.toml", {"OMP_NUM_THREADS": "64"}),
    ("vllm-cpu.toml", {"VLLM_CPU_OMP_THREADS_BIND": "all"}),
    ("vllm-cpu.toml", {"VLLM_TARGET_DEVICE": "cuda"}),
    ("llamacpp-cpu.toml", {"CUDA_VISIBLE_DEVICES": "0"}),
]


@pytest.mark.parametrize(
    ("example", "overrides"), GENERATED, ids=[f"{g[0]}-{next(iter(g[1]))}" for g in GENERATED]
)
def test_a_profile_cannot_move_what_the_engine_generates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], example: str, overrides: dict[str, str]
) -> None:
    spec = dict(load_document(EXAMPLES / example))
    spec["profile"] = {**spec["profile"], "env": {**spec["profile"].get("env", {}), **overrides}}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    code = main(["--config", str(CONFIG), "render", str(path), "--json"], {})
    out, err = capsys.readouterr()
    if code == 1:  # refused outright as reserved: also keeps the plan honest
        assert all(key in err for key in overrides), err
        return
    assert code == 0, err
    plan = json.loads(out)
    env = plan["commands"][-1]["env"]
    for key, value in overrides.items():
        assert env.get(key) != value, f"{key} was moved by the profile"
    dropped = {d["key"] for d in plan["dropped_env"]}
    assert {k for k in overrides if k in env} <= dropped
    code = main(["--config", str(CONFIG), "env", str(path), "--format", "json"], {})
    out, err = capsys.readouterr()
    assert code == 0, err
    shown = json.loads(out)["env"]
    assert {k: shown.get(k) for k in overrides} == {k: env.get(k) for k in overrides}
