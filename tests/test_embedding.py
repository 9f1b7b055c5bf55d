"""Embedding enginekit as a scheduler would: the public names only, plans over JSON, the published schemas."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import enginekit
import jsonschema
import pytest
from enginekit.cli import main

from tests.conftest import EXAMPLES

SPECS = sorted(p for p in EXAMPLES.glob("*.toml") if p.name != "node-config.toml")
CONFIG = EXAMPLES / "node-config.toml"
SCRIPT = EXAMPLES / "scheduler.py"


def test_the_scheduler_script_plans_1000_specs_and_reads_every_plan_back_equal() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--shards", "1000"], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("1000 specs planned for llamacpp, sglang, sim, trtllm, vllm; 1000 plans")
    assert result.stdout.rstrip().endswith("; 1000 read back equal")


def test_the_scheduler_script_uses_only_names_enginekit_exports() -> None:
    tree = ast.parse(SCRIPT.read_text())
    imports = [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]
    from_enginekit = [n for n in imports if "enginekit" in ast.unparse(n)]
    assert [ast.unparse(n) for n in from_enginekit] == ["import enginekit"]
    used = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "enginekit"
    }
    assert used
    assert used <= set(enginekit.__all__)


@pytest.fixture(scope="module")
def registry() -> enginekit.Registry:
    return enginekit.registry_for(CONFIG)


@pytest.mark.parametrize("path", SPECS, ids=[p.stem for p in SPECS])
def test_every_examples_plan_validates_against_the_published_schema(
    path: Path, registry: enginekit.Registry
) -> None:
    spec = enginekit.load_spec(path).spec
    plan = registry.engine(spec.profile.engine).plan(spec)
    plan_schema = jsonschema.Draft202012Validator(enginekit.schema("plan"))
    for show_secrets in (False, True):
        data = json.loads(json.dumps(plan.to_dict(show_secrets=show_secrets)))
        plan_schema.validate(data)
    assert enginekit.LaunchPlan.from_dict(data) == plan
    jsonschema.validate(spec.to_dict(), enginekit.schema("spec"))
    jsonschema.validate(spec.to_dict(go_names=True), enginekit.schema("spec-go"))


@pytest.mark.parametrize("path", SPECS, ids=[p.stem for p in SPECS])
def test_render_json_is_the_published_plan_format(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--config", str(CONFIG), "render", str(path), "--json", "--show-secrets"], {})
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    jsonschema.validate(data, enginekit.schema("plan"))
    spec = enginekit.load_spec(path).spec
    assert enginekit.LaunchPlan.from_dict(data).shard == spec


def test_registry_for_reads_only_the_environment_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGINEKIT_ENGINES", "sim")
    assert {"vllm", "sim"} <= set(enginekit.registry_for().names())
    assert enginekit.registry_for(environ={"ENGINEKIT_ENGINES": "sim"}).names() == ["sim"]
    narrowed = enginekit.registry_for({"disabled": ["vllm"]}, {"ENGINEKIT_DISABLE_ENGINES": "sglang"})
    assert not {"vllm", "sglang"} & set(narrowed.names())


def test_registry_for_names_a_config_problem() -> None:
    with pytest.raises(enginekit.ConfigError) as caught:
        enginekit.registry_for({"disabled": "vllm"})
    assert list(caught.value.problems) == ["config.disabled: expected a list, got str 'vllm'"]


def test_an_agent_that_plans_again_catches_a_tampered_plan(registry: enginekit.Registry) -> None:
    spec = enginekit.load_spec(EXAMPLES / "vllm-single-node-tp8.toml").spec
    sent = registry.engine("vllm").plan(spec).to_dict(show_secrets=True)
    sent["commands"][-1]["env"]["LD_PRELOAD"] = "/tmp/evil.so"
    received = enginekit.LaunchPlan.from_dict(sent)  # well formed, so it reads
    assert registry.engine(received.engine).plan(received.shard) != received


def test_registry_for_refuses_an_environment_that_is_not_strings() -> None:
    with pytest.raises(enginekit.ConfigError) as caught:
        enginekit.registry_for(environ={"ENGINEKIT_ENGINES": 5})  # type: ignore[dict-item]
    assert list(caught.value.problems) == ["ENGINEKIT_ENGINES: expected a string of engine names, got int"]


def test_the_package_lists_its_public_names_only() -> None:
    assert dir(enginekit) == sorted(enginekit.__all__)
    assert "importlib" not in dir(enginekit)
