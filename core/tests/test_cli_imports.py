"""Each subcommand imports what it uses and nothing more: start-up time is paid per subcommand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vllm-single-node-tp8.toml"
#: What planning a shard needs, and no listing of engines does.
PLANNING = {
    "enginekit.platform.engine",
    "enginekit.plan.launch",
    "enginekit.spec.rules",
    "enginekit.cli.plans",
}
#: What running an engine's programs needs.
RUNNING = {"enginekit.cli.probe", "enginekit.run.process"}
#: What building a shard's commands needs, and listing engines does not: the reading of
#: arguments, the model, the env rules, reading documents and specs.
BUILDING = {
    "enginekit.policy.args",
    "enginekit.spec.model",
    "enginekit.policy.engine",
    "enginekit.policy.env",
    "enginekit.placement.env",
    "enginekit.placement.builder",
    "enginekit.policy.checks",
    "enginekit.placement.launcher",
    "enginekit.spec.convert",
    "enginekit.spec.io",
}
#: The modules of the engine plugins that only their planning hooks use.
PLUGIN_PLANNING = {"launch", "validation", "policy", "argpolicy", "notes", "serveargs", "build"}
PLUGIN_PLANNING |= {"command", "devices", "options", "quant", "settings", "server", "syntax", "clickargs"}


def imported_by(*argv: str) -> set[str]:
    """The modules a fresh interpreter has loaded once ``enginekit ARGV`` is done."""
    code = (
        "import json, sys\n"
        "from enginekit.cli import main\n"
        f"main({list(argv)!r}, {{'ENGINEKIT_CONFIG': ''}})\n"
        "sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "ENGINEKIT_ENGINES"},
    )
    return set(json.loads(out.stderr.rsplit("MODULES ", 1)[1]))


def imported_by_the_dependencies() -> set[str]:
    """What importing pluggy and attrs loads by itself: an older pluggy imports importlib.metadata."""
    code = "import json, sys; import pluggy, attrs; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return set(json.loads(out.stdout))


#: What enginekit itself never imports to plan or print a version: a quarter of a cold render.
METADATA_READING = {"importlib.metadata", "email.message", "zipfile", "shutil", "importlib.resources"}


def test_importing_the_cli_imports_only_what_reading_arguments_needs() -> None:
    code = "import json, sys; import enginekit.cli; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = set(json.loads(out.stdout))
    heavy = {
        "enginekit.platform.config",
        "enginekit.platform.registry",
        "enginekit.spec.convert",
        "enginekit.spec.model",
        "cattrs",
        "pluggy",
    }
    assert not heavy & loaded
    assert not {name for name in loaded if name.startswith("enginekit_")}


def test_version_reads_metadata_and_imports_no_engine_nor_the_config() -> None:
    loaded = imported_by("--version")
    assert not {name for name in loaded if name.startswith("enginekit_")}
    assert not {"enginekit.platform.config", "enginekit.spec.convert", "cattrs", *PLANNING, *RUNNING} & loaded
    assert not METADATA_READING & (loaded - imported_by_the_dependencies())


def test_engines_imports_the_engines_but_no_planning_code() -> None:
    loaded = imported_by("engines")
    assert "enginekit.cli.engines" in loaded
    assert not (PLANNING | RUNNING) & loaded


def test_engines_imports_each_engine_without_what_its_planning_hooks_use() -> None:
    # Every engine is imported, configured and asked whether it is available: its config
    # and its hooks, never the model, the env rules or the modules its hooks import.
    loaded = imported_by("engines")
    assert not BUILDING & loaded
    assert not {
        name
        for name in loaded
        if name.startswith("enginekit_") and name.rpartition(".")[2] in PLUGIN_PLANNING
    }


@pytest.mark.skipif(not EXAMPLE.exists(), reason="the examples are not here")
def test_render_imports_no_listing_and_no_process_running() -> None:
    pytest.importorskip("enginekit_vllm")
    loaded = imported_by("render", str(EXAMPLE))
    assert "enginekit.cli.plans" in loaded
    assert not ({"enginekit.cli.engines", "enginekit.cli.version", "enginekit.cli.envout"} | RUNNING) & loaded
    # A well-typed spec is built without cattrs: importing it was a tenth of a cold render.
    assert "cattrs" not in loaded
    # Nor importlib.metadata (the e-mail parser, zipfile, csv): entry points are read from
    # the metadata directories, and importing it was a quarter of a cold render. Nor
    # shutil, which argparse's own formatter imports for the terminal's width.
    assert not METADATA_READING & (loaded - imported_by_the_dependencies())
    # Nor the rows `engines` shows: planning a shard of an engine that loaded needs none.
    assert "enginekit.platform.status" not in loaded
    # Nor is the layout: a replica of tensor and pipeline parallel alone never needs it.
    assert not {"enginekit.layout.compute", "enginekit_vllm.dataparallel"} & loaded
    assert not {
        name for name in loaded if name.startswith("enginekit_") and not name.startswith("enginekit_vllm")
    }
