"""The exports' pure parts: the rank template, the site options, the LeaderWorkerSet and the batch script."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import attrs
import pytest
from enginekit.config import load_config
from enginekit.errors import SpecError
from enginekit.export.lws import manifest
from enginekit.export.options import (
    ExportError,
    LWSOptions,
    SlurmOptions,
    check_lws,
    check_slurm,
    overridden,
    site_options,
)
from enginekit.export.slurm import script
from enginekit.export.template import RankTemplate, rank_template, readable_json
from enginekit.replica import load_replica
from hypothesis import given, settings
from hypothesis import strategies as st

REPLICA: dict[str, Any] = {
    "replica_id": "r1",
    "leader_port": 29501,
    "http_port": 8000,
    "api_key": "sk-export-test-0123456789abcdef",
    "placement": {"gpu_indices": [0, 1], "hcas": ["mlx5_0:1"], "mgmt_interface": "eth0"},
    "nodes": [{"addr": "10.0.0.31"}, {"addr": "10.0.0.32"}],
    "profile": {"name": "p", "engine": "tiny", "tp": 4, "gpus_per_node": 2, "nodes": 2},
}
ONE_HOST: dict[str, Any] = {
    **REPLICA,
    "placement": {},
    "nodes": [{"addr": "127.0.0.1"}, {"addr": "127.0.0.1"}],
}
IMAGE = "registry.example.com/enginekit:1"


def _template(doc: dict[str, Any] = REPLICA, *, one_host: bool = False) -> RankTemplate:
    return rank_template(load_replica(doc), one_host=one_host)


def _problems(doc: dict[str, Any], *, one_host: bool = False) -> tuple[str, ...]:
    with pytest.raises(SpecError) as caught:
        _template(doc, one_host=one_host)
    return caught.value.problems


def test_the_template_is_the_leaders_spec_without_what_the_scheduler_gives() -> None:
    exported = _template()
    template = exported.template
    assert (template.rank, template.shard_id, template.api_key) == (0, "", "")
    assert (template.leader_addr, template.bind_addr) == ("", "")
    assert template.gpu_indices == (0, 1)
    assert template.hcas == ("mlx5_0:1",)
    assert exported.gpus_per_node == 2
    # Every rank is planned at stand-in addresses, never at the replica's own.
    assert [spec.bind_addr for spec in exported.ranks] == ["192.0.2.1", "192.0.2.2"]
    assert {spec.leader_addr for spec in exported.ranks} == {"192.0.2.1"}


def test_on_one_host_the_addresses_are_the_replicas_own() -> None:
    template = _template(ONE_HOST, one_host=True).template
    assert (template.leader_addr, template.bind_addr) == ("127.0.0.1", "127.0.0.1")


def test_one_host_needs_every_node_at_one_address() -> None:
    doc = {**ONE_HOST, "nodes": [{"addr": "127.0.0.1"}, {"addr": "127.0.0.2"}]}
    assert _problems(doc, one_host=True) == (
        "nodes: on one host, every node must be listed with the same addr (e.g. 127.0.0.1), "
        "got ['127.0.0.1', '127.0.0.2']",
    )


def test_one_host_refuses_gpus_every_rank_would_share() -> None:
    doc = {**ONE_HOST, "placement": {"gpu_indices": [0, 1]}}
    assert _problems(doc, one_host=True) == (
        "placement.gpu_indices: every rank on one host would get the same GPUs; a replica on "
        "one host runs on the CPU (the simulated engine) only",
    )


def test_nodes_placed_differently_cannot_share_one_template() -> None:
    doc = {**REPLICA, "nodes": [{"addr": "10.0.0.31"}, {"addr": "10.0.0.32", "hcas": ["mlx5_1:1"]}]}
    assert _problems(doc) == (
        "nodes[1].hcas: ('mlx5_1:1',), but nodes[0]'s is ('mlx5_0:1',): an export starts every "
        "rank from one spec, so every node's placement must be the same (only the rank and the "
        "addresses come from the scheduler)",
    )


def test_a_scheduler_numbers_the_gpus_it_hands_out_from_zero() -> None:
    doc = {**REPLICA, "placement": {"gpu_indices": [2, 3]}}
    assert _problems(doc) == (
        "placement.gpu_indices: a rank sees only the 2 GPU(s) it asks the scheduler for, "
        "numbered 0-1; got [2, 3]",
    )


def test_gpu_uuids_are_the_schedulers_to_pick() -> None:
    uuid = "GPU-12345678-1234-1234-1234-123456789abc"
    doc = {**REPLICA, "placement": {"gpu_uuids": [uuid, uuid.replace("1", "2")]}}
    assert _problems(doc)[0].startswith("placement.gpu_uuids: a scheduler picks the devices")


def test_an_invalid_replica_is_refused_with_its_problems() -> None:
    doc = {**REPLICA, "leader_port": 0}
    assert _problems(doc) == ("leader_port: expected a port in 1-65535, got 0",)


def _lws(key: bool = True, **options: Any) -> dict[str, Any]:
    return manifest(_template(), LWSOptions(image=IMAGE, **options), health_path="/health", key=key)


def _items(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["kind"]: item for item in doc["items"]}


def test_the_leaderworkerset_runs_enginekit_run_for_each_pods_rank() -> None:
    lws = _items(_lws())["LeaderWorkerSet"]
    template = lws["spec"]["leaderWorkerTemplate"]
    assert (template["size"], template["restartPolicy"]) == (2, "RecreateGroupOnPodRestart")
    assert lws["spec"]["startupPolicy"] == "LeaderCreated"
    leader = template["leaderTemplate"]["spec"]["containers"][0]
    worker = template["workerTemplate"]["spec"]["containers"][0]
    common = ["enginekit", "run", "/etc/enginekit/replica/spec.json", "--rank-from-env", "LWS_WORKER_INDEX"]
    common += ["--leader-addr-from-env", "LWS_LEADER_ADDRESS", "--bind-addr-from-env", "ENGINEKIT_POD_IP"]
    assert leader["command"] == [
        *common,
        "--api-key-from-env",
        "ENGINEKIT_API_KEY",
        "--startup-timeout",
        "1800",
    ]
    assert worker["command"] == [*common, "--startup-timeout", "1800"]
    assert leader["resources"] == worker["resources"] == {"limits": {"nvidia.com/gpu": "2"}}
    assert leader["securityContext"] == {"capabilities": {"add": ["IPC_LOCK"]}}


def test_the_key_comes_from_a_secret_and_only_the_leader_gets_it() -> None:
    template = _items(_lws(secret="llm-keys:r1"))["LeaderWorkerSet"]["spec"]["leaderWorkerTemplate"]
    leader_env = template["leaderTemplate"]["spec"]["containers"][0]["env"]
    assert leader_env[1] == {
        "name": "ENGINEKIT_API_KEY",
        "valueFrom": {"secretKeyRef": {"name": "llm-keys", "key": "r1"}},
    }
    assert [e["name"] for e in template["workerTemplate"]["spec"]["containers"][0]["env"]] == [
        "ENGINEKIT_POD_IP"
    ]
    default = _items(_lws())["LeaderWorkerSet"]["spec"]["leaderWorkerTemplate"]["leaderTemplate"]
    assert default["spec"]["containers"][0]["env"][1]["valueFrom"]["secretKeyRef"] == {
        "name": "r1-api-key",
        "key": "api-key",
    }


def test_without_a_key_no_secret_is_referenced() -> None:
    assert "secretKeyRef" not in json.dumps(_lws(key=False))


def test_only_the_leader_is_probed_and_generously_at_start() -> None:
    template = _items(_lws(startup_timeout=600))["LeaderWorkerSet"]["spec"]["leaderWorkerTemplate"]
    leader = template["leaderTemplate"]["spec"]["containers"][0]
    worker = template["workerTemplate"]["spec"]["containers"][0]
    assert leader["readinessProbe"]["httpGet"] == {"path": "/health", "port": "http"}
    assert leader["startupProbe"]["periodSeconds"] * leader["startupProbe"]["failureThreshold"] == 600
    assert "readinessProbe" not in worker
    assert "startupProbe" not in worker
    assert "ports" not in worker


def test_site_resources_selectors_and_shm_reach_every_pod() -> None:
    doc = _lws(
        rdma_resources={"rdma/ib": 1}, node_selector={"pool": "h100"}, shm_size="64Gi", namespace="llm"
    )
    template = _items(doc)["LeaderWorkerSet"]["spec"]["leaderWorkerTemplate"]
    for role in ("leaderTemplate", "workerTemplate"):
        pod = template[role]["spec"]
        assert pod["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "2", "rdma/ib": "1"}
        assert pod["nodeSelector"] == {"pool": "h100"}
        assert pod["volumes"][0] == {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}}
    assert {item["metadata"]["namespace"] for item in doc["items"]} == {"llm"}


def test_the_service_selects_the_leaders_http_port() -> None:
    service = _items(_lws())["Service"]
    assert service["spec"]["selector"] == {"leaderworkerset.sigs.k8s.io/name": "r1", "role": "leader"}
    assert service["spec"]["ports"] == [
        {"name": "http", "port": 8000, "targetPort": "http", "protocol": "TCP"}
    ]


def test_the_config_map_holds_the_template_every_pod_reads() -> None:
    data = _items(_lws())["ConfigMap"]["data"]["spec.json"]
    assert json.loads(data) == _template().template.to_dict()


def test_a_single_node_replica_is_a_group_of_one_leader() -> None:
    doc = {**REPLICA, "nodes": [], "leader_port": 0, "profile": {"name": "p", "engine": "tiny", "tp": 2}}
    exported = rank_template(load_replica(doc))
    template = manifest(exported, LWSOptions(image=IMAGE), health_path="/health", key=True)["items"][1]
    group = template["spec"]["leaderWorkerTemplate"]
    assert group["size"] == 1
    assert "leaderTemplate" not in group
    assert "readinessProbe" in group["workerTemplate"]["spec"]["containers"][0]


def _script(doc: dict[str, Any] = REPLICA, *, key: bool = True, **options: Any) -> str:
    one_host = bool(options.get("one_node"))
    return script(_template(doc, one_host=one_host), SlurmOptions(**options), key=key)


def test_the_script_runs_one_task_per_node_with_the_rank_from_slurm() -> None:
    text = _script(partition="gpu", time="1-00:00:00")
    for line in (
        "#SBATCH --nodes=2",
        "#SBATCH --ntasks-per-node=1",
        "#SBATCH --gpus-per-node=2",
        "#SBATCH --partition=gpu",
        "#SBATCH --time=1-00:00:00",
        'exec srun --kill-on-bad-exit=1 --wait=60 --cpus-per-task="$SLURM_CPUS_ON_NODE" \\',
        '  enginekit run "$spec" --rank-from-env SLURM_PROCID --leader-addr-from-env SLURM_LAUNCH_NODE_IPADDR '
        "--api-key-from-env ENGINEKIT_API_KEY",
        ': "${ENGINEKIT_API_KEY:?is not set: the replica needs its API key}"',
    ):
        assert line in text.splitlines()


def test_the_key_file_is_read_into_the_variable_never_written() -> None:
    text = _script(api_key_file="/etc/llm/key file", api_key_env="LLM_KEY")
    assert "LLM_KEY=\"$(< '/etc/llm/key file')\"" in text.splitlines()
    assert "export LLM_KEY" in text.splitlines()
    assert "--api-key-from-env LLM_KEY" in text
    assert REPLICA["api_key"] not in text


def test_without_a_key_the_script_asks_for_none() -> None:
    text = _script(key=False)
    assert "API_KEY" not in text


def test_on_one_node_every_rank_is_a_task_at_the_replicas_address() -> None:
    text = _script(ONE_HOST, one_node=True)
    assert "#SBATCH --nodes=1" in text.splitlines()
    assert "#SBATCH --ntasks-per-node=2" in text.splitlines()
    assert "--gpus-per-node" not in text
    assert "--leader-addr-from-env" not in text
    assert '--cpus-per-task="$(( SLURM_CPUS_ON_NODE / 2 ))"' in text


def test_the_bind_address_may_come_from_a_site_variable() -> None:
    assert "--bind-addr-from-env NODE_ADDR" in _script(bind_addr_env="NODE_ADDR")


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash here to read the script")
def test_the_script_is_valid_bash() -> None:
    checked = subprocess.run(["bash", "-n"], input=_script(), capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr


def test_the_spec_in_the_script_is_the_template() -> None:
    text = _script()
    body = text.split("<<'ENGINEKIT_SPEC'\n", 1)[1].split("\nENGINEKIT_SPEC\n", 1)[0]
    assert json.loads(body) == _template().template.to_dict()


@settings(max_examples=60, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda c: st.lists(c) | st.dictionaries(st.text(), c),
    )
)
def test_readable_json_is_json(value: Any) -> None:
    assert json.loads(readable_json(value)) == value


KEYS = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._~+/=:", min_size=16, max_size=64).map(
    lambda k: "k" + k
)


@settings(max_examples=40, deadline=None)
@given(key=KEYS)
def test_no_key_is_ever_written(key: str) -> None:
    doc = {**REPLICA, "api_key": key}
    exported = rank_template(load_replica(doc))
    assert key not in json.dumps(manifest(exported, LWSOptions(image=IMAGE), health_path="/health", key=True))
    assert key not in script(exported, SlurmOptions(), key=True)
    assert key not in script(exported, SlurmOptions(api_key_file="/k"), key=True)


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({}, "--image: required: the image with enginekit and the engine (or [export.lws] image)"),
        (
            {"image": IMAGE, "namespace": "Bad_NS"},
            "--namespace: expected a namespace (a lower-case DNS label), got 'Bad_NS'",
        ),
        ({"image": "a b"}, "--image: expected an image reference (registry/name:tag), got 'a b'"),
        (
            {"image": IMAGE, "rdma_resources": {"rdma/ib": 0}},
            "--rdma-resource rdma/ib: expected a count in 1-1024, got 0",
        ),
        (
            {"image": IMAGE, "secret": "keys:a b"},
            "--secret: expected a key of letters, digits, '-', '_' or '.', got 'a b'",
        ),
        ({"image": IMAGE, "replicas": 0}, "--replicas: expected 1-10000, got 0"),
        (
            {"image": IMAGE, "shm_size": "lots"},
            "--shm-size: expected a Kubernetes quantity such as 64Gi, got 'lots'",
        ),
    ],
)
def test_lws_options_are_checked(options: dict[str, Any], problem: str) -> None:
    with pytest.raises(ExportError) as caught:
        check_lws(LWSOptions(**options))
    assert caught.value.problems == (problem,)


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        (
            {"partition": "gpu\nrm"},
            "--partition: expected letters, digits and _ . : , @ + % = - only, got a string that contains a control character (U+000A)",
        ),
        (
            {"api_key_file": "relative"},
            "--api-key-file: expected an absolute path of plain characters, got 'relative'",
        ),
        (
            {"api_key_env": "1BAD"},
            "--api-key-env: expected a variable name (letters, digits, '_'), got '1BAD'",
        ),
        (
            {"enginekit": "/opt/x y"},
            "--enginekit: expected an absolute path of plain characters, got '/opt/x y'",
        ),
    ],
)
def test_slurm_options_are_checked(options: dict[str, Any], problem: str) -> None:
    with pytest.raises(ExportError) as caught:
        check_slurm(SlurmOptions(**options))
    assert caught.value.problems == (problem,)


def test_site_options_come_from_the_node_config_and_flags_win(tmp_path: Any) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[export.lws]\nimage = "site/image:1"\nnode_selector = {pool = "a", zone = "z"}\n')
    site = site_options(load_config(path).export)
    options = overridden(site.lws, {"node_selector": {"pool": "b"}, "image": None, "replicas": 3})
    assert options == attrs.evolve(site.lws, node_selector={"pool": "b", "zone": "z"}, replicas=3)
    assert options.image == "site/image:1"


def test_a_mistyped_site_option_is_named() -> None:
    with pytest.raises(ExportError) as caught:
        site_options({"lws": {"imag": "x"}})
    assert caught.value.problems == ("config.export.lws.imag: unknown field",)
