"""Real entry points: every in-repo engine is found, loads cleanly, and nothing clashes."""

from __future__ import annotations

import subprocess
import sys

from enginekit import Registry

IN_REPO_ENGINES = {"vllm", "sglang", "llamacpp", "trtllm", "sim"}


def test_every_in_repo_engine_is_discovered_and_loads() -> None:
    registry = Registry.from_entry_points()
    assert set(registry.names()) >= IN_REPO_ENGINES
    rows = {row.name: row for row in registry.statuses()}
    assert not registry.failures, registry.failures
    for name in IN_REPO_ENGINES - {"trtllm"}:
        assert rows[name].status == "ok", rows[name]
        assert rows[name].source.startswith(f"enginekit-{name} 1.0.0 (enginekit_{name}.plugin:")
    # TensorRT-LLM is not installed by the agent: offered only once its interpreter is named.
    assert rows["trtllm"].status == "unavailable"
    assert "python" in rows["trtllm"].detail


def test_trtllm_is_offered_once_its_interpreter_is_configured() -> None:
    registry = Registry.from_entry_points(config={"trtllm": {"python": "/opt/trtllm/bin/python"}})
    assert {row.name: row.status for row in registry.statuses()}["trtllm"] == "ok"


def test_rendering_one_engine_imports_no_other_plugin() -> None:
    code = (
        "import sys; from enginekit import Registry; r = Registry.from_entry_points(); r.engine('sim');"
        "print(sorted(m for m in sys.modules if m.startswith('enginekit_') and '.' not in m))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "['enginekit_sim']"


def test_a_disabled_engine_is_never_imported() -> None:
    code = (
        "import sys; from enginekit import Registry; r = Registry.from_entry_points(disable={'vllm'});"
        "r.statuses(); print('enginekit_vllm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "False"
