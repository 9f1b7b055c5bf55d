"""The exports' pure parts: the rank template, the site options, the LeaderWorkerSet and the batch script."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from typing import Any

import attrs
import pytest
from enginekit.base.errors import SpecError
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
from enginekit.export.runline import RunLine
from enginekit.export.slurm import SCRIPT_VARIABLES, script
from enginekit.export.template import RankTemplate, rank_template, readable_json
from enginekit.platform.config import load_config
from enginekit.policy import carriers
from enginekit.replica.spec import load_replica
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
        'exec srun --distribution=block --kill-on-bad-exit=1 --wait=60 --cpus-per-task="$SLURM_CPUS_ON_NODE" \\',
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
            "--shm-size: expected a positive Kubernetes quantity such as 64Gi, got 'lots'",
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
            "--api-key-env: expected a variable name (letters, digits and '_', not starting with a digit), "
            "got '1BAD'",
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


# Attacks and careless input (the review of issue 16): each was accepted, or crashed, before.


@pytest.mark.parametrize("replica_id", ["UPPER", "9abc", "a.b", "x_y", "-lead", "é", "a" * 64, "a$(id)"])
def test_a_replica_id_that_cannot_name_a_leaderworkerset_is_refused_not_exported(replica_id: str) -> None:
    exported = _template({**REPLICA, "replica_id": replica_id})
    with pytest.raises(ExportError) as caught:
        manifest(exported, LWSOptions(image=IMAGE), health_path="/health", key=True)
    (problem,) = caught.value.problems
    assert problem.startswith("replica_id: a LeaderWorkerSet's name must be a DNS-1035 label")
    assert problem.endswith(", or give --name")
    # --name is the way out, and the replica id stays what it was inside the spec.
    lws = manifest(exported, LWSOptions(image=IMAGE, name="r1"), health_path="/health", key=True)
    assert [item["metadata"]["name"] for item in lws["items"]] == ["r1-spec", "r1", "r1-http"]


def test_an_unnamed_replica_needs_a_name_for_kubernetes() -> None:
    with pytest.raises(ExportError) as caught:
        manifest(
            _template({**REPLICA, "replica_id": ""}), LWSOptions(image=IMAGE), health_path="/h", key=True
        )
    assert caught.value.problems == ("replica_id: empty, and the LeaderWorkerSet needs a name: give --name",)


def test_a_name_must_leave_room_for_every_groups_statefulset() -> None:
    name = "a" * 50
    fits = LWSOptions(image=IMAGE, name=name, replicas=10)  # a...a-9: 52
    manifest(_template(), fits, health_path="/health", key=True)
    with pytest.raises(ExportError) as caught:
        manifest(_template(), attrs.evolve(fits, replicas=11), health_path="/health", key=True)
    assert caught.value.problems == (
        f"--name: 50 characters is too long for 11 group(s) of 2: the StatefulSet '{name}-10' would "
        "be 53, and Kubernetes creates no pod for one longer than 52",
    )


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        (
            {"name": "9abc"},
            "--name: expected a DNS-1035 label: lower-case letters, digits and '-', starting with a "
            "letter, at most 63 characters (it names the set's headless Service), got '9abc'",
        ),
        *[
            (
                {"rdma_resources": {resource: 1}},
                "--rdma-resource: expected a device plugin's resource name such as rdma/ib (a "
                f"domain/name outside kubernetes.io, not nvidia.com/gpu), got {resource!r}",
            )
            # The GPU count would be overridden; cpu or memory limited to 1 starves the engine.
            for resource in (
                "nvidia.com/gpu",
                "memory",
                "cpu",
                "hugepages-2Mi",
                "kubernetes.io/x",
                "a.kubernetes.io/x",
            )
        ],
        *[
            (
                {"shm_size": size},
                f"--shm-size: expected a positive Kubernetes quantity such as 64Gi, got {size!r}",
            )
            for size in ("0", "0.0Gi", "00Mi")
        ],
    ],
)
def test_lws_options_that_would_break_the_pods_are_refused(options: dict[str, Any], problem: str) -> None:
    with pytest.raises(ExportError) as caught:
        check_lws(LWSOptions(image=IMAGE, **options))
    assert caught.value.problems == (problem,)


def test_an_rdma_resource_never_changes_the_gpu_count() -> None:
    check_lws(LWSOptions(image=IMAGE, rdma_resources={"rdma/ib": 1, "nvidia.com/hostdev": 2}))
    limits = _items(_lws(rdma_resources={"rdma/ib": 1}))["LeaderWorkerSet"]["spec"]["leaderWorkerTemplate"]
    assert limits["workerTemplate"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "2"


@pytest.mark.parametrize(
    ("options", "why"),
    [
        # The script's own variables, each set to a value anybody can guess (a path, a host).
        *(
            ({"api_key_env": own}, "must be upper case")
            for own in ("spec_source", "spec", "spec_dir", "first_node")
        ),
        ({"api_key_env": "PATH"}, "the shell, the runtime or enginekit reads"),
        ({"api_key_env": "BASH_ENV"}, "the shell, the runtime or enginekit reads"),
        ({"api_key_env": "ENV"}, "the shell, the runtime or enginekit reads"),
        ({"api_key_env": "ENGINEKIT_ENGINES"}, "the shell, the runtime or enginekit reads"),
        ({"api_key_env": "ENGINEKIT_POD_IP"}, "carries leader_addr or bind_addr, not api_key"),
        ({"api_key_env": "SLURM_PROCID"}, "a scheduler or Kubernetes sets"),
        ({"api_key_env": "SLURM_JOB_ID"}, "a scheduler or Kubernetes sets"),
        ({"api_key_env": "SBATCH_PARTITION"}, "a scheduler or Kubernetes sets"),
        ({"api_key_env": "SRUN_CPUS_PER_TASK"}, "a scheduler or Kubernetes sets"),
        ({"bind_addr_env": "SLURM_LAUNCH_NODE_IPADDR"}, "Slurm's or a launcher's"),
        ({"bind_addr_env": "LD_PRELOAD"}, "the shell, the runtime or enginekit reads"),
        ({"bind_addr_env": "first_node"}, "upper-case name (the script's own are lower case)"),
    ],
)
def test_the_key_and_address_variables_are_the_sites_own(options: dict[str, Any], why: str) -> None:
    with pytest.raises(ExportError) as caught:
        check_slurm(SlurmOptions(**options))
    (problem,) = caught.value.problems
    flag = "--api-key-env" if "api_key_env" in options else "--bind-addr-env"
    assert problem.startswith(f"{flag}: ")
    assert why in problem
    assert repr(next(iter(options.values()))) in problem


def test_one_variable_cannot_be_the_key_and_the_address() -> None:
    with pytest.raises(ExportError) as caught:
        check_slurm(SlurmOptions(api_key_env="SITE_VAR", bind_addr_env="SITE_VAR"))
    assert caught.value.problems == (
        "--bind-addr-env: 'SITE_VAR' is --api-key-env too: one variable cannot be both",
    )


KEY = REPLICA["api_key"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"pool": f"pool-{KEY}"}, "pool"),
        ({"profile_fp": KEY}, "profile_fp"),
        ({"placement": {**REPLICA["placement"], "fabric": KEY}}, "placement.fabric"),
        (
            {"nodes": [{"addr": "10.0.0.31", "fabric": KEY}, {"addr": "10.0.0.32", "fabric": KEY}]},
            "nodes[0].fabric",
        ),
        ({"profile": {**REPLICA["profile"], "env": {"SITE_NOTE": KEY}}}, "profile.env.SITE_NOTE"),
        (
            {"profile": {**REPLICA["profile"], "env": {f"X{KEY}".replace("-", "_"): "1"}}},
            "profile.env (a name in it)",
        ),
    ],
)
def test_a_key_pasted_into_a_written_field_is_refused_naming_the_field(
    change: dict[str, Any], field: str
) -> None:
    doc = {**REPLICA, **change}
    key = KEY.replace("-", "_") if "(a name" in field else KEY
    doc["api_key"] = key
    problems = _problems(doc)
    assert problems == (
        f"{field}: holds the replica's API key, and an export writes this field into a manifest or "
        "script that everyone who may read it sees; the key reaches the leader only from its Secret, "
        "file or variable (the value is not shown)",
    )
    assert key not in " ".join(problems)


@pytest.mark.parametrize("one_host", [False, True])
def test_a_replica_listing_too_few_nodes_is_refused_not_a_crash(one_host: bool) -> None:
    doc = {**(ONE_HOST if one_host else REPLICA)}
    doc["nodes"] = doc["nodes"][:1]
    assert _problems(doc, one_host=one_host) == (
        "nodes: the profile 'p' spans 2 node(s), the replica lists 1",
    )


def _run_with_stand_ins(tmp_path: Any, commands: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The script run by bash, with Slurm's commands replaced by the shell ``commands`` given."""
    for name, body in commands.items():
        (tmp_path / name).write_text(f"#!/bin/sh\n{body}\n")
        (tmp_path / name).chmod(0o755)
    environ = {
        "PATH": f"{tmp_path}:/usr/bin:/bin",
        "SLURM_JOB_ID": "7",
        "SLURM_JOB_NUM_NODES": "2",
        "SLURM_JOB_NODELIST": "n[1,9]",
        "SLURMD_NODENAME": "n1",
        "SLURM_CPUS_ON_NODE": "4",
        "TMPDIR": str(tmp_path),
    }
    return subprocess.run(
        ["bash", "-s"], input=_script(key=False), capture_output=True, text=True, timeout=30, env=environ
    )


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash here to run the script")
@pytest.mark.parametrize("first", ["n1", "n2"])
def test_the_script_stops_unless_it_runs_on_the_first_node_where_rank_0_starts(
    first: str, tmp_path: Any
) -> None:
    # Stand-ins for Slurm's commands: scontrol lists the allocation, sbcast and srun say they ran.
    ran = _run_with_stand_ins(
        tmp_path,
        {
            "scontrol": f"echo {first}; echo n9",
            "sbcast": "exit 0",
            "srun": 'case "$*" in *mkdir*) echo "made $*" ;; *) echo "srun ran" ;; esac',
        },
    )
    if first == "n1":
        made = "made --nodes=2 --ntasks=2 --ntasks-per-node=1 mkdir -m 700 /tmp/enginekit-7\n"
        assert (ran.returncode, ran.stdout) == (0, made + "srun ran\n"), ran.stderr
    else:
        assert ran.returncode == 1
        assert ran.stdout == ""  # nothing made on the nodes, no rank started
        assert "the batch script runs on n1, not on the first node n2, where rank 0 starts" in ran.stderr


#: An assignment as a shell reads one: ``NAME=`` at a word's start, or ``export``/``read``/``for``.
_ASSIGNED = re.compile(r"(?:^|[\s;&|(])(?:(?:export|readonly|local|declare)\s+)?([A-Za-z_][A-Za-z0-9_]*)\+?=")
_NAMED = re.compile(r"\b(?:export|read|for)\s+(?:-\w+\s+)*([A-Za-z_][A-Za-z0-9_]*)")
_SLURM_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "one_node": st.booleans(),
        "api_key_file": st.just("/etc/llm/key"),
        "api_key_env": st.sampled_from(["ENGINEKIT_API_KEY", "LLM_KEY", "K"]),
        "bind_addr_env": st.just("NODE_ADDR"),
        "node_config": st.just("/etc/enginekit.toml"),
        "startup_timeout": st.just(600.0),
    },
)


def _assigned(text: str) -> set[str]:
    """Every variable a script assigns, the here-document's JSON left out."""
    body = re.sub(r"<<'ENGINEKIT_SPEC'\n.*?\nENGINEKIT_SPEC\n", "\n", text, flags=re.S)
    code = "\n".join(line for line in body.splitlines() if not line.lstrip().startswith("#"))
    return set(_ASSIGNED.findall(code)) | set(_NAMED.findall(code))


@settings(max_examples=40, deadline=None)
@given(options=_SLURM_OPTIONS, key=st.booleans())
def test_no_variable_the_script_assigns_could_carry_the_key(options: dict[str, Any], key: bool) -> None:
    text = _script(ONE_HOST if options.get("one_node") else REPLICA, key=key, **options)
    key_variable = options.get("api_key_env", "ENGINEKIT_API_KEY")
    own = _assigned(text) - {key_variable}
    assert own <= set(SCRIPT_VARIABLES)
    assert "spec" in own  # the parser sees the script's assignments
    if not options.get("one_node"):
        assert "first_node" in own
    if key and options.get("api_key_file"):
        assert key_variable in _assigned(text)  # read from the file, and only that
    for name in SCRIPT_VARIABLES:
        assert name == name.lower()
        assert carriers.problem(name, "api_key") is not None
        assert carriers.problem(name, "bind_addr") is None or not carriers.KEY_NAME.match(name)


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash here to run the script")
@pytest.mark.parametrize("variable", ["ENGINEKIT_API_KEY", "LLM_KEY", "SPEC_DIR", "FIRST_NODE", "SPEC"])
def test_the_ranks_get_the_key_the_submitter_set(variable: str, tmp_path: Any) -> None:
    # The script run by bash as sbatch would, with stand-ins for Slurm's commands: srun
    # prints what its tasks would read from the key's variable.
    for name, body in {
        "scontrol": "echo n1; echo n9",
        "sbcast": "exit 0",
        "srun": f'case "$*" in *mkdir*) ;; *) printf "%s" "${variable}" ;; esac',
    }.items():
        (tmp_path / name).write_text(f"#!/bin/sh\n{body}\n")
        (tmp_path / name).chmod(0o755)
    environ = {
        "PATH": f"{tmp_path}:/usr/bin:/bin",
        "SLURM_JOB_ID": "7",
        "SLURM_JOB_NUM_NODES": "2",
        "SLURM_JOB_NODELIST": "n[1,9]",
        "SLURMD_NODENAME": "n1",
        "SLURM_CPUS_ON_NODE": "4",
        "TMPDIR": str(tmp_path),
        variable: "the-submitters-key-0123456789",
    }
    check_slurm(SlurmOptions(api_key_env=variable))
    text = _script(api_key_env=variable)
    ran = subprocess.run(["bash", "-s"], input=text, capture_output=True, text=True, timeout=30, env=environ)
    assert (ran.returncode, ran.stdout) == (0, "the-submitters-key-0123456789"), ran.stderr


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="no shellcheck here")
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"api_key_file": "/etc/k"},
        {"bind_addr_env": "NODE_ADDR", "node_config": "/etc/c.toml"},
        {"one_node": True},
    ],
)
def test_shellcheck_finds_nothing_in_the_script(options: dict[str, Any]) -> None:
    text = _script(ONE_HOST if options.get("one_node") else REPLICA, **options)
    checked = subprocess.run(["shellcheck", "-"], input=text, capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout


def test_the_leaders_service_leaves_the_set_s_own_name_to_the_lws_controller() -> None:
    # The controller makes the headless Service NAME for the pods' DNS names, and none
    # when a Service of that name exists: the workers would never resolve their leader.
    items = _items(_lws())
    assert items["LeaderWorkerSet"]["metadata"]["name"] == "r1"
    assert items["Service"]["metadata"]["name"] == "r1-http"


def test_an_export_never_writes_a_startup_timeout_enginekit_run_would_refuse() -> None:
    # `enginekit run --startup-timeout` takes at most a day: a pod or job given more would
    # fail at start, after it was scheduled (or waited in the queue).
    check_lws(LWSOptions(image=IMAGE, startup_timeout=86400))
    with pytest.raises(ExportError) as caught:
        check_lws(LWSOptions(image=IMAGE, startup_timeout=172800))
    assert caught.value.problems == (
        "--startup-timeout: expected a positive number of seconds, at most 86400 (a day), got 172800",
    )
    line = RunLine(spec="/s.json", startup_timeout=123456.7)
    assert line.argv("enginekit")[-2:] == ["--startup-timeout", "123456.7"], "written exactly"


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash here to run the script")
def test_a_spec_directory_someone_made_before_the_job_stops_it_before_any_rank(tmp_path: Any) -> None:
    # srun's mkdir fails where the path exists (another user's, made ahead of a guessable
    # job id): set -e stops the script, so nothing is written there or read from it.
    ran = _run_with_stand_ins(
        tmp_path,
        {
            "scontrol": "echo n1; echo n9",
            "sbcast": 'echo "sbcast ran"',
            "srun": 'case "$*" in *mkdir*) echo "mkdir: File exists" >&2; exit 1 ;; *) echo "srun ran" ;; esac',
        },
    )
    assert ran.returncode != 0
    assert ran.stdout == ""  # neither sbcast nor a rank ran
    assert "File exists" in ran.stderr


DATA_PARALLEL: dict[str, Any] = {
    "replica_id": "dp",
    "leader_port": 13345,
    "http_port": 8000,
    "api_key": "sk-export-dp-0123456789abcdef",
    "placement": {"gpu_indices": [0, 1]},
    "nodes": [{"addr": "10.0.0.1"}, {"addr": "10.0.0.2"}],
    "profile": {"name": "dp", "engine": "vllm", "model_path": "/m", "dp": 4, "nodes": 2, "gpus_per_node": 2},
}


def test_every_rank_of_a_data_parallel_replica_finds_its_first_rank_from_its_own_rank() -> None:
    from enginekit.run.fromenv import FromEnv, resolve

    exported = rank_template(load_replica(DATA_PARALLEL))
    assert exported.template.dp_rank == 0
    assert [(r.rank, r.dp_rank) for r in exported.ranks] == [(0, 0), (1, 2)]
    names = FromEnv(rank="RANK", api_key="KEY")
    for rank, first in ((0, 0), (1, 2)):
        spec, _ = resolve(exported.template, {"RANK": str(rank), "KEY": "k" * 32}, names)
        assert (spec.rank, spec.dp_rank, spec.shard_id) == (rank, first, f"dp-{rank}")
        assert spec.dp_rank == exported.ranks[rank].dp_rank  # as the replica's own expansion
        # Internal balancing: the leader alone serves, so it alone keeps the key.
        assert spec.api_key == ("k" * 32 if rank == 0 else "")
    with pytest.raises(SpecError, match="rank from \\$RANK"):
        resolve(exported.template, {"RANK": "2", "KEY": "k" * 32}, names)


@pytest.mark.parametrize("mode", ["hybrid", "external"])
def test_where_every_node_serves_every_rank_keeps_the_key_and_every_pod_is_probed_and_served(
    mode: str,
) -> None:
    from enginekit.run.fromenv import FromEnv, resolve

    per_node = 1 if mode == "external" else 2
    doc = {
        **DATA_PARALLEL,
        "profile": {
            **DATA_PARALLEL["profile"],
            "dp_balancing": mode,
            "dp": 2 * per_node,
            "gpus_per_node": per_node,
        },
        "placement": {"gpu_indices": list(range(per_node))},
    }
    exported = rank_template(load_replica(doc))
    assert exported.every_node_serves
    names = FromEnv(rank="RANK", api_key="KEY")
    for rank in (0, 1):
        spec, _ = resolve(exported.template, {"RANK": str(rank), "KEY": "k" * 32}, names)
        assert (spec.dp_rank, spec.api_key) == (rank * per_node, "k" * 32)
    items = manifest(exported, LWSOptions(image="registry.example.com/x:1"), health_path="/health", key=True)[
        "items"
    ]
    (group,) = [item for item in items if item["kind"] == "LeaderWorkerSet"]
    (service,) = [item for item in items if item["kind"] == "Service"]
    template = group["spec"]["leaderWorkerTemplate"]
    for pod in (template["leaderTemplate"], template["workerTemplate"]):
        (container,) = pod["spec"]["containers"]
        assert container["ports"] == [{"name": "http", "containerPort": 8000, "protocol": "TCP"}]
        assert container["readinessProbe"]["httpGet"] == {"path": "/health", "port": "http"}
        assert "--api-key-from-env" in container["command"]
        assert any(e["name"] == "ENGINEKIT_API_KEY" for e in container["env"])
    assert "leaderworkerset.sigs.k8s.io/worker-index" not in str(service["spec"]["selector"])
    assert list(service["spec"]["selector"].values()) == [group["metadata"]["name"]]


def test_internal_balancing_keeps_the_key_probes_and_service_to_the_leader() -> None:
    exported = rank_template(load_replica(DATA_PARALLEL))
    assert not exported.every_node_serves
    items = manifest(exported, LWSOptions(image="registry.example.com/x:1"), health_path="/health", key=True)[
        "items"
    ]
    (group,) = [item for item in items if item["kind"] == "LeaderWorkerSet"]
    (worker,) = group["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"]
    assert "ports" not in worker
    assert "readinessProbe" not in worker
    assert "--api-key-from-env" not in worker["command"]
    (service,) = [item for item in items if item["kind"] == "Service"]
    assert len(service["spec"]["selector"]) == 2  # the set and the leader role


def test_external_balancing_of_several_ranks_per_node_is_not_exported_saying_how() -> None:
    doc = {**DATA_PARALLEL, "profile": {**DATA_PARALLEL["profile"], "dp_balancing": "external"}}
    with pytest.raises(SpecError) as caught:
        rank_template(load_replica(doc))
    (problem,) = caught.value.problems
    assert problem.startswith("profile 'dp': dp_per_node: external balancing runs each rank as its own")
    assert "set dp_per_node = 1" in problem
