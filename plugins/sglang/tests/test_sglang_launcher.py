"""End to end: the rendered command hands the key to a stand-in SGLang without ever showing it.

The stand-in is a ``sglang/launch_server.py`` installed into a throwaway virtual
environment, used as the agent's installed build, so the command's own interpreter
finds it while ``-I`` ignores ``PYTHONPATH`` (which points at a decoy to prove it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import attrs
import pytest
from enginekit import Profile, ShardSpec
from enginekit.testing import engine_for
from enginekit_sglang import SglangEngine

KEY = "sk-e2e-4b1f9c0d7a2e4f6b8c1d3e5f7a9b0c2d"

STAND_IN = r"""
import json, os, subprocess, sys
child = subprocess.run(
    [sys.executable, "-c", "import json, os; print(json.dumps(sorted(os.environ)))"],
    capture_output=True, text=True, timeout=30, check=True,
)
with open("/proc/self/cmdline", "rb") as f:
    cmdline = [a.decode() for a in f.read().split(b"\0") if a]
report = {
    "who": "stand-in",
    "name": __name__,
    "argv": sys.argv,
    "cmdline": cmdline,
    "key_in_env": "ENGINEKIT_API_KEY" in os.environ,
    "child_env": json.loads(child.stdout),
}
with open(os.environ["STANDIN_REPORT"], "w") as f:
    json.dump(report, f)
"""

DECOY = r"""
import json, os
with open(os.environ["STANDIN_REPORT"], "w") as f:
    json.dump({"who": "decoy"}, f)
"""


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with the stand-in installed: what the agent's build looks like."""
    root = tmp_path_factory.mktemp("sglang-build")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    purelib = subprocess.run(
        [str(root / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    package = Path(purelib) / "sglang"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "launch_server.py").write_text(STAND_IN)
    return root


def run(command_argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command_argv, env=env, capture_output=True, text=True, timeout=60)


def spec(api_key: str) -> ShardSpec:
    profile = Profile(
        name="e2e",
        engine="sglang",
        tp=1,
        model_path="/models/tiny",
        served_model_name="tiny",
        args=("--mem-fraction-static", "0.5"),
    )
    return ShardSpec(shard_id="e2e-0", profile=profile, gpu_indices=(0,), http_port=30123, api_key=api_key)


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads /proc/PID/cmdline")
def test_key_reaches_sglang_but_never_a_command_line(build: Path, tmp_path: Path) -> None:
    engine = engine_for(SglangEngine(), "sglang", installed=build)
    (command,) = engine.commands(spec(KEY))
    assert command.path == str(build / "bin" / "python")
    assert all(KEY not in arg for arg in command.argv())

    decoy = tmp_path / "decoy"
    (decoy / "sglang").mkdir(parents=True)
    (decoy / "sglang" / "__init__.py").write_text("")
    (decoy / "sglang" / "launch_server.py").write_text(DECOY)
    report_path = tmp_path / "report.json"
    inherited = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(decoy),
        "STANDIN_REPORT": str(report_path),
    }
    result = run(command.argv(), command.environ(inherited))
    assert result.returncode == 0, result.stderr

    report = json.loads(report_path.read_text())
    assert report["who"] == "stand-in", "-I must ignore PYTHONPATH"
    assert report["name"] == "__main__"
    server_args = list(command.args[3:])
    # SGLang parses exactly enginekit's arguments, then the key the launcher added.
    assert report["argv"][1:] == [*server_args, "--api-key", KEY]
    assert report["argv"][0].endswith("sglang/launch_server.py")
    # What ps and /proc/PID/cmdline show: the launcher's command line, without the key.
    assert report["cmdline"] == command.argv()
    assert all(KEY not in arg for arg in report["cmdline"])
    # Taken out of the environment before SGLang ran: its children never inherit it.
    assert report["key_in_env"] is False
    assert "ENGINEKIT_API_KEY" not in report["child_env"]
    assert "STANDIN_REPORT" in report["child_env"]


def test_without_a_key_no_flag_is_added(build: Path, tmp_path: Path) -> None:
    engine = engine_for(SglangEngine(), "sglang", installed=build)
    (command,) = engine.commands(spec(""))
    report_path = tmp_path / "report.json"
    inherited = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "STANDIN_REPORT": str(report_path)}
    result = run(command.argv(), command.environ(inherited))
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["argv"][1:] == list(command.args[3:])
    assert "--api-key" not in report["argv"]


def test_a_lost_key_stops_the_launch_instead_of_serving_unauthenticated(build: Path, tmp_path: Path) -> None:
    engine = engine_for(SglangEngine(), "sglang", installed=build)
    (command,) = engine.commands(spec(KEY))
    stripped = attrs.evolve(command, env={k: v for k, v in command.env.items() if k != "ENGINEKIT_API_KEY"})
    report_path = tmp_path / "report.json"
    inherited = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "STANDIN_REPORT": str(report_path)}
    result = run(stripped.argv(), stripped.environ(inherited))
    assert result.returncode != 0
    assert "ENGINEKIT_API_KEY is not set" in result.stderr
    assert not report_path.exists()
