"""End to end: the rendered command runs, through the core launcher, a stand-in ``tensorrt_llm`` module."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from enginekit.spec.model import Adapter, Profile, ShardSpec
from enginekit.testing import engine_for
from enginekit_trtllm import TrtllmConfig, TrtllmEngine
from hypothesis import given, settings
from hypothesis import strategies as st

#: Records what the engine would have seen, next to the package, and exits.
STAND_IN = textwrap.dedent(
    """
    import json, os, stat, sys
    from pathlib import Path

    def main():
        args = sys.argv[1:]
        path = args[args.index("--extra_llm_api_options") + 1]
        report = {
            "argv0": sys.argv[0],
            "args": args,
            "isolated": sys.flags.isolated,
            "options_path": path,
            "mode": stat.S_IMODE(os.stat(path).st_mode),
            "dir_mode": stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode),
            "options": Path(path).read_text(encoding="ascii"),
            "env_left": "ENGINEKIT_TRTLLM_OPTIONS" in os.environ,
            "visible": os.environ.get("CUDA_VISIBLE_DEVICES"),
        }
        Path(__file__).parents[2].joinpath("report.json").write_text(json.dumps(report))

    if __name__ == "__main__":
        main()
    """
)


def _package(root: Path, body: str) -> None:
    serve = root / "tensorrt_llm" / "commands" / "serve.py"
    serve.parent.mkdir(parents=True)
    (root / "tensorrt_llm" / "__init__.py").write_text("")
    (serve.parent / "__init__.py").write_text("")
    serve.write_text(body)


@pytest.fixture(scope="module")
def interpreter(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A venv whose site-packages reach the stand-in through a .pth: the launcher's -I ignores PYTHONPATH."""
    base = tmp_path_factory.mktemp("trtllm")
    root = base / "stand-in"
    _package(root, STAND_IN)
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    [site] = list(venv.glob("lib/python*/site-packages"))
    (site / "stand_in.pth").write_text(str(root) + "\n")
    return venv / "bin" / "python", root


def _run(python: Path, root: Path, profile: Profile, decoy: Path) -> tuple[dict[str, Any], list[str]]:
    plugin = TrtllmEngine(TrtllmConfig(python=str(python)))
    spec = ShardSpec(profile=profile, gpu_indices=(0, 1), http_port=8123, bind_addr="127.0.0.1")
    [command] = engine_for(plugin, "trtllm").plan(spec).commands
    # PYTHONPATH points at a decoy tensorrt_llm: -I must make the interpreter ignore it.
    inherited = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(decoy)}
    env = command.environ(inherited)
    done = subprocess.run(command.argv(), env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads((root / "report.json").read_text())
    (root / "report.json").unlink()
    return report, list(command.args)


def test_adapters_reach_the_engine_in_a_private_file(interpreter: tuple[Path, Path], tmp_path: Path) -> None:
    python, root = interpreter
    decoy = tmp_path / "decoy"
    _package(decoy, "raise SystemExit('the decoy ran: PYTHONPATH was honoured')\n")
    adapters = (
        Adapter(name="sql", path="/adapters/sql v2"),
        Adapter(name="chat-de", path='/adapters/de "quoted" ü'),
        Adapter(name="a0", path="/adapters/0"),
    )
    profile = Profile(name="p", engine="trtllm", tp=2, model_path="/models/llama", adapters=adapters)
    report, args = _run(python, root, profile, decoy)

    assert report["isolated"] == 1
    assert report["argv0"].endswith("tensorrt_llm/commands/serve.py")
    assert report["args"][:-2] == args[3:]
    assert report["args"][:2] == ["serve", "/models/llama"]
    assert report["args"][-2] == "--extra_llm_api_options"
    assert report["mode"] == 0o600
    assert report["dir_mode"] == 0o700
    assert report["env_left"] is False, "the launcher removes the body from the environment"
    assert report["visible"] == "0,1"
    options = json.loads(report["options"])
    assert options["lora_config"]["lora_dir"] == [a.path for a in adapters]
    assert options["lora_config"]["max_loras"] == 3
    assert options["return_perf_metrics"] is True
    assert not Path(report["options_path"]).exists(), "the private directory is removed at exit"


def test_without_adapters_the_file_still_enables_prometheus(
    interpreter: tuple[Path, Path], tmp_path: Path
) -> None:
    python, root = interpreter
    profile = Profile(name="p", engine="trtllm", tp=2, model_path="/models/llama", served_model_name="llama")
    report, _ = _run(python, root, profile, tmp_path)
    assert json.loads(report["options"]) == {"return_perf_metrics": True}
    assert report["args"][report["args"].index("--served_model_name") + 1] == "llama"


def test_options_text_is_yaml_too() -> None:
    yaml = pytest.importorskip("yaml")
    from enginekit_trtllm.options import options_document, options_text

    tricky = ("/a: b # c", "/\\ü'\"{}[],&*!|>%@`", "/emoji/\U0001f600", "/not/\\ud83d\\ude00")

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1), max_size=4))
    def round_trip(paths: list[str]) -> None:
        adapters = tuple(Adapter(name=f"a{i}", path=p) for i, p in enumerate([*tricky, *paths]))
        profile = Profile(name="p", engine="trtllm", model_path="/m", adapters=adapters)
        document = options_document(profile, TrtllmConfig(python="/py"))
        assert yaml.safe_load(options_text(document)) == document

    round_trip()
