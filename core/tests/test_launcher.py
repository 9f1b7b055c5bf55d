"""The Python launcher: secrets and file bodies reach the engine inside the process only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from enginekit.placement.launcher import FileArg, launcher_args

STAND_IN = """
import json, os, stat, sys
path = sys.argv[sys.argv.index("--options") + 1]
with open("/proc/self/cmdline", "rb") as f:
    cmdline = f.read().decode()
print(json.dumps({
    "argv": sys.argv[1:],
    "cmdline": cmdline,
    "file": open(path).read(),
    "mode": stat.S_IMODE(os.stat(path).st_mode),
    "env_left": [k for k in ("ENGINEKIT_KEY", "ENGINEKIT_OPTS") if k in os.environ],
    "name": __name__,
}))
"""


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
def test_secret_and_file_reach_the_module_but_not_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "standin_engine.py").write_text(STAND_IN)
    args = launcher_args(
        "standin_engine",
        ["--model", "/m"],
        secret_args={"--api-key": "ENGINEKIT_KEY"},
        file_args=[FileArg("--options", "ENGINEKIT_OPTS", "options.yaml")],
        isolated=False,  # -I would drop the cwd from sys.path, where the stand-in lives
    )
    env = {**os.environ, "ENGINEKIT_KEY": "sekrit-key", "ENGINEKIT_OPTS": "lora_config: {}\n"}
    out = subprocess.run(
        [sys.executable, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30, check=True
    )
    seen = json.loads(out.stdout)
    assert seen["argv"][:4] == ["--model", "/m", "--api-key", "sekrit-key"]
    assert "sekrit-key" not in seen["cmdline"]
    assert "sekrit-key" not in " ".join(args)
    assert seen["file"] == "lora_config: {}\n"
    assert seen["mode"] == 0o600
    assert seen["env_left"] == []
    assert seen["name"] == "__main__"


def test_a_missing_variable_is_a_clear_exit(tmp_path: Path) -> None:
    (tmp_path / "standin_engine.py").write_text("print('ran')")
    args = launcher_args("standin_engine", [], secret_args={"--api-key": "ENGINEKIT_NOPE"}, isolated=False)
    env = {k: v for k, v in os.environ.items() if k != "ENGINEKIT_NOPE"}
    out = subprocess.run(
        [sys.executable, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 1
    assert "enginekit launcher: ENGINEKIT_NOPE is not set" in out.stderr
    assert "ran" not in out.stdout


def test_isolated_by_default_and_plain_when_nothing_is_handed_over() -> None:
    assert launcher_args("m", ["--x"]) == ("-I", "-m", "m", "--x")
    assert launcher_args("m", ["--x"], secret_args={"--k": "ENGINEKIT_K"})[:2] == ("-I", "-c")
    assert launcher_args("m", ["--x"], secret_args={"--k": "ENGINEKIT_K"})[-1] == "--x"
