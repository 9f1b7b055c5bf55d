"""`enginekit export lws|slurm` as a user runs it, on the examples and the docs' own output."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from pathlib import Path

import attrs
import pytest
from enginekit import load_spec
from enginekit.cli import main
from enginekit.replica.spec import expand, load_replica, with_addresses
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLES, ROOT

CONFIG = EXAMPLES / "node-config.toml"
VLLM = EXAMPLES / "replicas/vllm-two-node.toml"
SIM = EXAMPLES / "replicas/sim-two-rank.toml"
IMAGE = "registry.example.com/enginekit-vllm:0.34.0"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--config", str(CONFIG), "export", *args], {})
    out, err = capsys.readouterr()
    return code, out, err


def test_the_vllm_replica_expands_into_the_two_shard_examples() -> None:
    leader, worker = expand(load_replica(VLLM))
    assert leader == load_spec(EXAMPLES / "vllm-two-node-leader.toml").spec
    assert worker == load_spec(EXAMPLES / "vllm-two-node-worker.toml").spec


@pytest.mark.parametrize("target", ["lws", "slurm"])
def test_each_rank_starts_from_the_template_as_the_replica_places_it(
    target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = (
        _run(capsys, target, str(VLLM), "--image", IMAGE)
        if target == "lws"
        else _run(capsys, target, str(VLLM))
    )
    assert code == 0, err
    if target == "lws":
        text = json.loads(out)["items"][0]["data"]["spec.json"]
    else:
        text = out.split("<<'ENGINEKIT_SPEC'\n", 1)[1].split("\nENGINEKIT_SPEC\n", 1)[0]
    template = load_spec(text).spec
    replica = load_replica(VLLM)
    addresses = ["10.9.0.1", "10.9.0.2"]
    for rank, placed in enumerate(expand(with_addresses(replica, addresses))):
        # What enginekit run fills in at start: the rank, the addresses, the key.
        started = attrs.evolve(
            template, rank=rank, leader_addr=addresses[0], bind_addr=addresses[rank], api_key=placed.api_key
        )
        assert started == attrs.evolve(placed, shard_id="")


def test_a_missing_image_is_unusable_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "lws", str(VLLM))
    assert (code, out) == (2, "")
    assert (
        err
        == "enginekit: error: --image: required: the image with enginekit and the engine (or [export.lws] image)\n"
    )


def test_an_invalid_replica_is_exit_1_with_every_problem(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "r.toml"
    path.write_text(
        VLLM.read_text()
        .replace("leader_port = 29501", "leader_port = 0")
        .replace("gid_index = 3", "gid_index = 300")
    )
    code, out, err = _run(capsys, "slurm", str(path))
    assert (code, out) == (1, "")
    assert err == (
        "enginekit: invalid: 2 problems:\n"
        "  - leader_port: expected a port in 1-65535, got 0\n"
        "  - placement.gid_index: expected a GID table index in 0-255, got 300\n"
    )


def test_the_engines_own_rules_are_applied_to_every_rank(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "r.toml"
    path.write_text(VLLM.read_text().replace('args = ["--max-model-len"', 'args = ["--max-modle-len"'))
    code, _, err = _run(capsys, "slurm", str(path))
    assert code == 1
    assert "--max-modle-len" in err
    assert "did you mean" in err


def test_a_shard_spec_is_not_a_replica(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "slurm", str(EXAMPLES / "vllm-two-node-leader.toml"))
    assert code == 2
    assert (
        err
        == "enginekit: error: replica: a shard spec (it has rank, nnodes or addresses at the top), not a replica spec\n"
    )


def test_on_one_node_needs_the_replicas_own_single_address(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "slurm", str(VLLM), "--one-node")
    assert code == 1
    assert "nodes: on one host, every node must be listed with the same addr" in err


def test_site_settings_come_from_the_node_config(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        CONFIG.read_text()
        + '\n[export.lws]\nimage = "site/enginekit:2"\nnamespace = "llm"\n\n[export.slurm]\npartition = "gpu"\n'
    )
    code = main(["export", "lws", str(VLLM), "--config", str(config), "--namespace", "other"], {})
    out, err = capsys.readouterr()
    assert code == 0, err
    pods = json.loads(out)["items"][1]["spec"]["leaderWorkerTemplate"]
    assert pods["leaderTemplate"]["spec"]["containers"][0]["image"] == "site/enginekit:2"
    assert json.loads(out)["items"][1]["metadata"]["namespace"] == "other"
    assert main(["export", "slurm", str(VLLM), "--config", str(config)], {}) == 0
    assert "#SBATCH --partition=gpu" in capsys.readouterr().out.splitlines()


def test_output_goes_to_a_file_when_asked(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = _run(capsys, "slurm", str(SIM), "--one-node", "--output", str(tmp_path / "job.sh"))
    assert (code, out, err) == (0, "", "")
    assert (tmp_path / "job.sh").read_text().startswith("#!/bin/bash\n")


def test_a_flag_of_the_wrong_shape_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "lws", str(VLLM), "--image", IMAGE, "--rdma-resource", "rdma/ib")
    assert code == 2
    assert "argument --rdma-resource: expected KEY=VALUE, got 'rdma/ib'" in err


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        # int() would read these as 10, 3 and 2: a count is plain decimal digits.
        (
            ("--rdma-resource", "rdma/ib=1_0"),
            "argument --rdma-resource: expected NAME=COUNT with a whole count",
        ),
        (
            ("--rdma-resource", "rdma/ib=\u0663"),
            "argument --rdma-resource: expected NAME=COUNT with a whole count",
        ),
        (("--replicas", " 2"), "argument --replicas: expected a whole number, got ' 2'"),
        # Empty would silently read as not given: the replica id's name, kubectl's namespace.
        (("--name", ""), "argument --name: expected a value, got an empty one"),
        (("--namespace", ""), "argument --namespace: expected a value, got an empty one"),
    ],
)
def test_a_count_or_name_that_only_looks_right_is_refused(
    capsys: pytest.CaptureFixture[str], flags: tuple[str, ...], message: str
) -> None:
    code, out, err = _run(capsys, "lws", str(VLLM), "--image", IMAGE, *flags)
    assert (code, out) == (2, "")
    assert message in err


#: Random-looking keys, as real ones are: a key of drawn text can share twelve characters
#: with an argv (ENGINEKIT_API_KEY) and read as a leak.
KEYS = st.binary(max_size=16).map(lambda seed: "k" + hashlib.sha256(seed).hexdigest()[: 15 + len(seed)])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=KEYS.map(lambda k: "k" + k))
def test_no_key_reaches_a_manifest_or_script(
    key: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "r.toml"
    text = VLLM.read_text()
    path.write_text(re.sub(r'api_key = "[^"]*"', f'api_key = "{key}"', text))
    for args in (
        ["lws", str(path), "--image", IMAGE],
        ["slurm", str(path)],
        ["slurm", str(path), "--api-key-file", "/k"],
    ):
        code, out, err = _run(capsys, *args)
        assert code == 0, err
        assert key not in out
        assert key not in err


DOCS = {"kubernetes": ROOT / "docs" / "kubernetes.md", "slurm": ROOT / "docs" / "slurm.md"}


def _generated_blocks(page: Path) -> list[tuple[list[str], str]]:
    """Each ``console`` block that runs ``enginekit export``, with the fenced block after it."""
    text = page.read_text()
    blocks = re.findall(r"```console\n\$ (enginekit export .*?)\n```\n+```[a-z]*\n(.*?)```\n", text, re.S)
    return [(shlex.split(command.replace("\\\n", " "))[1:], output) for command, output in blocks]


@pytest.mark.parametrize("page", DOCS.values(), ids=DOCS.keys())
def test_the_docs_show_what_the_exporter_prints(page: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = _generated_blocks(page)
    assert blocks, f"{page.name} shows no generated output"
    for args, shown in blocks:
        code = main(
            ["--config", str(CONFIG), *[str(ROOT / a) if a.startswith("examples/") else a for a in args]], {}
        )
        out, err = capsys.readouterr()
        assert code == 0, err
        assert out == shown, (
            f"{page.name}: the output of `enginekit {' '.join(args)}` changed; paste it again"
        )


def test_a_replica_listing_too_few_nodes_is_exit_1_not_a_crash(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "r.toml"
    path.write_text(VLLM.read_text().replace('[[nodes]]\nhost = "gpu-a-32"\naddr = "10.1.0.32"\n', ""))
    for args in (["lws", str(path), "--image", IMAGE], ["slurm", str(path)]):
        code, out, err = _run(capsys, *args)
        assert (code, out) == (1, ""), err
        assert (
            err
            == "enginekit: invalid: nodes: the profile 'llama-3.1-405b-fp8-2x8' spans 2 node(s), the replica lists 1\n"
        )


def test_a_key_pasted_into_a_field_never_reaches_a_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Printed output is masked; a file written with --output is not: the export refuses instead.
    key = re.search(r'api_key = "([^"]*)"', VLLM.read_text())[1]  # type: ignore[index]
    path = tmp_path / "r.toml"
    path.write_text(VLLM.read_text().replace('pool = "h100-a"', f'pool = "{key}"'))
    for target in (["lws", str(path), "--image", IMAGE], ["slurm", str(path)]):
        out_file = tmp_path / "out"
        code, out, err = _run(capsys, *target, "--output", str(out_file))
        assert code == 1
        assert err.startswith("enginekit: invalid: pool: holds the replica's API key")
        assert key not in out + err
        assert not out_file.exists()


def test_a_key_in_an_option_value_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    key = re.search(r'api_key = "([^"]*)"', VLLM.read_text())[1]  # type: ignore[index]
    out_file = tmp_path / "job.sh"
    code, out, err = _run(capsys, "slurm", str(VLLM), "--api-key-file", f"/keys/{key}", "-o", str(out_file))
    assert (code, out) == (1, "")
    assert (
        err
        == "enginekit: invalid: the replica's API key is in an option's value; refusing to write it (not shown)\n"
    )
    assert not out_file.exists()


WIDE_EP = EXAMPLES / "replicas/vllm-wide-ep.toml"


def test_every_pod_of_an_exported_data_parallel_replica_plans_from_its_variables(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The exported container's own command, run as LWS runs it: the leader's DNS name, the pod's IP.

    A name is not the pod's IP to a check that reads nothing, yet is the same host: the
    leader plans, and its worker watches the leader's API server at that name.
    """
    code, out, err = _run(capsys, "lws", str(WIDE_EP), "--image", IMAGE)
    assert code == 0, err
    items = json.loads(out)["items"]
    spec = tmp_path / "spec.json"
    spec.write_text(items[0]["data"]["spec.json"])
    lws = next(item for item in items if item["kind"] == "LeaderWorkerSet")
    command = lws["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]["command"]
    assert command[:3] == ["enginekit", "run", "/etc/enginekit/replica/spec.json"]
    leader = "dsr1-r1-0.dsr1-r1.default"
    for index, pod_ip in (("0", "10.244.1.5"), ("1", "10.244.2.7")):
        env = {"LWS_WORKER_INDEX": index, "LWS_LEADER_ADDRESS": leader, "ENGINEKIT_POD_IP": pod_ip}
        code = main(["--config", str(CONFIG), "run", str(spec), *command[3:], "--dry-run"], env)
        out, err = capsys.readouterr()
        assert code == 0, err
        if index == "1":
            assert f"when the leader's API server {leader}:8000 stays closed" in out
