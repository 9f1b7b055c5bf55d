"""The disaggregated examples: laid out, written as shard specs, planned, and fronted by a PD router."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from enginekit.cli import main

from tests.conftest import EXAMPLES

CONFIG = EXAMPLES / "node-config.toml"
FOLDER = EXAMPLES / "disaggregated"
SPECS = sorted(FOLDER.glob("*.toml"))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--config", str(CONFIG), *args], {})
    out, err = capsys.readouterr()
    return code, out, err


def test_there_are_examples_of_the_simulator_and_of_vllm() -> None:
    assert [p.name for p in SPECS] == ["sim-pd.toml", "vllm-pd.toml"]


@pytest.mark.parametrize("path", SPECS, ids=[p.name for p in SPECS])
def test_each_lays_out_with_the_router_first_and_every_instances_side_channel(
    capsys: pytest.CaptureFixture[str], path: Path, tmp_path: Path
) -> None:
    code, out, err = run(capsys, "layout", str(path), "--shards", str(tmp_path / "shards"))
    assert code == 0, err
    assert out.startswith("router of ")
    assert out.count("kv-transfer ") == 3
    written = sorted(p.name for p in (tmp_path / "shards").iterdir())
    assert len(written) == 3
    for name in written:
        code, out, err = run(capsys, "render", str(tmp_path / "shards" / name), "--json")
        assert code == 0, err
        plan = json.loads(out)
        role = plan["shard"]["role"]
        assert role in ("prefill", "decode")
        (command,) = [c for c in plan["commands"] if "--kv-transfer-config" in c["args"]]
        config = json.loads(command["args"][command["args"].index("--kv-transfer-config") + 1])
        assert config["kv_connector"] == "NixlConnector"
        assert config["kv_role"] == ("kv_producer" if role == "prefill" else "kv_consumer")
        assert command["env"]["VLLM_NIXL_SIDE_CHANNEL_PORT"] == str(plan["shard"]["kv_transfer_port"])


def test_the_vllm_example_moves_the_cache_over_the_placements_hcas(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "layout", str(FOLDER / "vllm-pd.toml"), "--shards", str(tmp_path))
    assert code == 0, err
    code, out, err = run(capsys, "render", str(tmp_path / "llama70b-pd-decode-0-0.json"), "--json")
    assert code == 0, err
    env = json.loads(out)["commands"][-1]["env"]
    assert env["UCX_NET_DEVICES"] == "mlx5_0:1,mlx5_1:1"
    assert env["UCX_IB_GID_INDEX"] == "3"
    assert env["VLLM_NIXL_SIDE_CHANNEL_HOST"] == "10.1.0.32"


def test_the_sim_examples_router_is_vllm_router_in_pd_mode(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "layout", str(FOLDER / "sim-pd.toml"), "--shards", str(tmp_path))
    assert code == 0, err
    shards = sorted(str(p) for p in tmp_path.glob("*.json"))
    code, out, err = run(capsys, "router", *shards, "--port", "8300", "--metrics-port", "8301", "--dry-run")
    assert code == 0, err
    shown = json.loads(out)
    assert "--vllm-pd-disaggregation" in shown["argv"]
    assert shown["argv"].count("--prefill") == 2
    assert shown["env"] == {"OPENAI_API_KEY": "<secret>"}


DOC = EXAMPLES.parent / "docs" / "disaggregated.md"


def test_the_docs_show_what_layout_prints_and_the_routers_argv(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import re
    import shlex

    page = DOC.read_text()
    ((example, shown),) = re.findall(
        r"```console\n\$ enginekit layout (\S+)\n```\n+```text\n(.*?)```\n", page, re.S
    )
    code, out, err = run(capsys, "layout", str(EXAMPLES.parent / example), "--shards", str(tmp_path))
    assert code == 0, err
    assert out == shown, f"docs/disaggregated.md: `enginekit layout {example}` changed; paste it again"
    (router,) = re.findall(
        r"```console\n\$ enginekit router .*?\n```\n+```text\n(vllm-router .*?)\nenv: (.*?)\n```", page, re.S
    )
    shards = sorted(str(p) for p in tmp_path.glob("*.json"))
    code, out, err = run(capsys, "router", *shards, "--port", "8300", "--metrics-port", "8301", "--dry-run")
    assert code == 0, err
    shown_json = json.loads(out)
    assert shlex.split(router[0].replace("\n", " ")) == shown_json["argv"]
    assert router[1] == " ".join(f"{k}={v}" for k, v in shown_json["env"].items())


def test_the_router_is_a_process_of_the_replica_built_from_its_spec_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "router", str(FOLDER / "sim-pd.toml"), "--dry-run")
    assert code == 0, err
    shown = json.loads(out)
    argv = shown["argv"]
    # The spec's [router]: its port and metrics port; the instances' URLs from their layout.
    assert argv[argv.index("--port") + 1] == "8300"
    assert argv[argv.index("--prometheus-port") + 1] == "8301"
    assert [argv[i + 1] for i, a in enumerate(argv) if a in ("--prefill", "--decode")] == [
        "http://127.0.0.1:8310",
        "http://127.0.0.1:8311",
        "http://127.0.0.1:8320",
    ]
    # An option says otherwise where it is given.
    code, out, err = run(capsys, "router", str(FOLDER / "sim-pd.toml"), "--port", "9300", "--dry-run")
    assert code == 0, err
    assert "9300" in json.loads(out)["argv"]


def test_shard_specs_without_a_port_are_refused_naming_the_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "router", str(EXAMPLES / "sim-single.toml"), "--dry-run")
    assert (code, out) == (2, "")
    assert "router: --port: required (where clients reach the router)" in err


@pytest.mark.parametrize("kind", [["lws", "--image", "registry.example.com/x:1"], ["slurm"]])
def test_an_export_of_a_disaggregated_replica_says_it_is_not_built(
    capsys: pytest.CaptureFixture[str], kind: list[str]
) -> None:
    code, out, err = run(capsys, "export", kind[0], str(FOLDER / "sim-pd.toml"), *kind[1:])
    assert (code, out) == (1, "")
    assert "a disaggregated replica (prefill and decode): its export is not built yet" in err


def test_the_layout_as_json_names_the_router_and_every_instances_listeners(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "layout", str(FOLDER / "sim-pd.toml"), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["router"] == {"addr": "127.0.0.1", "host": "127.0.0.1", "port": 8300, "metrics_port": 8301}
    seen = [
        (
            i["role"],
            i["index"],
            [(x["name"], x["port"]) for n in i["nodes"] for p in n["processes"] for x in p["listens"]],
        )
        for i in data["instances"]
    ]
    assert seen == [
        ("prefill", 0, [("http", 8310), ("kv-transfer", 5600)]),
        ("prefill", 1, [("http", 8311), ("kv-transfer", 5601)]),
        ("decode", 0, [("http", 8320), ("kv-transfer", 5602)]),
    ]
