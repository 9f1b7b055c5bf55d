"""``enginekit layout``: the table before launch, its JSON, and a replica it refuses with every reason."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from enginekit.cli import main

from tests.conftest import EXAMPLES

CONFIG = EXAMPLES / "node-config.toml"
VLLM = EXAMPLES / "replicas/vllm-two-node.toml"


def _layout(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--config", str(CONFIG), "layout", *args], {})
    out, err = capsys.readouterr()
    return code, out, err


def test_a_two_node_replica_shows_who_listens_and_who_dials(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _layout(capsys, str(VLLM))
    assert (code, err) == (0, "")
    assert out == (
        "replica llama405b-r1: vllm, TP 8 x PP 2 x DP 1\n"
        "NODE  ADDR       PROC  ROLE        DP RANKS  GPUS  LISTENS                     DIALS\n"
        "0     10.1.0.31  0     api-server  0         0-7   http 8000, dist-init 29501  -\n"
        "1     10.1.0.32  0     headless    0         0-7   -                           dist-init 10.1.0.31:29501\n"
    )


def test_json_holds_every_process_its_listeners_and_dials(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _layout(capsys, str(VLLM), "--json")
    data = json.loads(out)
    assert code == 0
    assert (data["replica_id"], data["engine"], data["tp"], data["pp"], data["dp"]) == (
        "llama405b-r1",
        "vllm",
        8,
        2,
        1,
    )
    head, worker = (node["processes"][0] for node in data["nodes"])
    assert head["listens"] == [
        {"name": "http", "port": 8000, "count": 1},
        {"name": "dist-init", "port": 29501, "count": 1},
    ]
    assert worker["dials"] == [{"name": "dist-init", "node": 0, "addr": "10.1.0.31", "port": 29501}]
    assert worker["role"] == "headless"
    assert worker["gpus"] == list(range(8))


def test_a_data_parallel_replica_for_an_engine_without_it_is_exit_1_with_the_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "r.toml"
    path.write_text(
        VLLM.read_text()
        .replace('engine = "vllm"', 'engine = "llamacpp"')
        .replace("tp = 8\n", "tp = 8\ndp = 2\n")
    )
    code, out, err = _layout(capsys, str(path))
    assert (code, out) == (1, "")
    assert "dp: engine 'llamacpp' has no data parallel (dp is 2)" in err


def test_an_unreadable_replica_is_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = _layout(capsys, str(tmp_path / "missing.toml"))
    assert (code, out) == (2, "")
    assert "missing.toml" in err


WIDE_EP = EXAMPLES / "replicas/vllm-wide-ep.toml"


def test_the_docs_show_what_layout_prints(capsys: pytest.CaptureFixture[str]) -> None:
    page = (EXAMPLES.parent / "docs" / "layouts.md").read_text()
    blocks = re.findall(r"```console\n\$ enginekit layout (\S+)\n```\n+```text\n(.*?)```\n", page, re.S)
    assert blocks, "docs/layouts.md shows no layout"
    for example, shown in blocks:
        code, out, err = _layout(capsys, str(EXAMPLES.parent / example))
        assert (code, err) == (0, "")
        assert out == shown, f"docs/layouts.md: `enginekit layout {example}` changed; paste it again"


def test_data_parallel_is_exported_and_external_balancing_of_a_node_s_many_ranks_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    hybrid = tmp_path / "hybrid.toml"
    hybrid.write_text(WIDE_EP.read_text().replace('dp_balancing = "internal"', 'dp_balancing = "hybrid"'))
    external = tmp_path / "external.toml"
    external.write_text(WIDE_EP.read_text().replace('dp_balancing = "internal"', 'dp_balancing = "external"'))
    for target in (["lws", "--image", "registry.example.com/x:1"], ["slurm"]):
        for replica in (WIDE_EP, hybrid):
            code = main(["--config", str(CONFIG), "export", target[0], str(replica), *target[1:]], {})
            out, err = capsys.readouterr()
            assert (code, err) == (0, "")
            assert "dp_balancing" in out  # the spec every pod or task starts from
        code = main(["--config", str(CONFIG), "export", target[0], str(external), *target[1:]], {})
        out, err = capsys.readouterr()
        assert (code, out) == (1, "")
        assert "dp_per_node: external balancing runs each rank as its own process" in err
        assert "enginekit layout --shards" in err


SIM_DP = EXAMPLES / "replicas/sim-dp.toml"


def test_shards_writes_each_process_s_spec_for_its_node_readable_by_its_owner_only(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from enginekit.replica.spec import expand, load_replica
    from enginekit.spec.model import dump_spec

    folder = tmp_path / "out" / "shards"
    code, out, err = _layout(capsys, str(SIM_DP), "--shards", str(folder))
    assert code == 0
    assert out.startswith("replica sim-dp: sim, TP 1 x PP 1 x DP 4")
    assert err == f"enginekit: note: wrote 2 shard spec(s) to {folder}: sim-dp-0.json, sim-dp-1.json\n"
    assert "sim-demo-key" not in out + err
    assert folder.stat().st_mode & 0o777 == 0o700
    for shard in expand(load_replica(SIM_DP)):
        path = folder / f"{shard.shard_id}.json"
        assert path.stat().st_mode & 0o777 == 0o600
        assert json.loads(path.read_text()) == dump_spec(shard, show_secrets=True)
    # The API server's spec holds the key run needs; the headless process's none.
    assert json.loads((folder / "sim-dp-0.json").read_text())["api_key"] == "sim-demo-key-0123456789abcdef"
    assert json.loads((folder / "sim-dp-1.json").read_text())["api_key"] == ""


def test_shards_never_writes_through_a_link_nor_keeps_a_file_s_wider_mode(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "shards"
    folder.mkdir()
    target = tmp_path / "elsewhere.json"
    target.write_text("untouched")
    (folder / "sim-dp-0.json").symlink_to(target)
    (folder / "sim-dp-1.json").write_text("old")
    (folder / "sim-dp-1.json").chmod(0o644)
    code, out, err = _layout(capsys, str(SIM_DP), "--shards", str(folder))
    assert (code, out) == (1, "")
    assert f"--shards: cannot write {str(folder / 'sim-dp-0.json')!r}" in err
    assert target.read_text() == "untouched"
    (folder / "sim-dp-0.json").unlink()
    assert _layout(capsys, str(SIM_DP), "--shards", str(folder))[0] == 0
    assert (folder / "sim-dp-1.json").stat().st_mode & 0o777 == 0o600
    assert json.loads((folder / "sim-dp-1.json").read_text())["shard_id"] == "sim-dp-1"


def test_shards_names_a_file_safely_whatever_the_shard_id(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    replica = tmp_path / "r.toml"
    replica.write_text(SIM_DP.read_text().replace('replica_id = "sim-dp"', 'replica_id = ""'))
    folder = tmp_path / "shards"
    assert _layout(capsys, str(replica), "--shards", str(folder))[0] == 0
    assert sorted(p.name for p in folder.iterdir()) == ["shard-0.json", "shard-1.json"]
    unwritable = tmp_path / "file"
    unwritable.write_text("")
    code, _, err = _layout(capsys, str(SIM_DP), "--shards", str(unwritable / "sub"))
    assert code == 1
    assert "--shards: cannot make" in err
