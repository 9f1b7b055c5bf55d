"""Every manifest `enginekit export lws` writes is one a Kubernetes API server takes: the LeaderWorkerSet v1 schema, and the core objects' fields."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from enginekit.cli import main

from tests.conftest import EXAMPLES

SCHEMA = Path(__file__).parent / "data" / "lws" / "leaderworkerset-v1.schema.json"
CONFIG = EXAMPLES / "node-config.toml"
IMAGE = "registry.example.com/enginekit:1"
DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\Z")

pytestmark = pytest.mark.skipif(
    not SCHEMA.exists(),
    reason=f"the LeaderWorkerSet v1 schema is not here ({SCHEMA}); see tests/data/lws/README.md",
)


def strict(schema: Any) -> Any:
    """The CRD schema as a JSON Schema, and stricter than an API server: an unknown field is an error.

    An API server drops fields its structural schema does not name, silently: a misspelt
    ``readinessProbe`` would be a manifest without one. ``x-kubernetes-*`` keys are
    annotations, but for ``int-or-string``, which widens the type.
    """
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: strict(value) for key, value in schema.items()}
    if out.pop("x-kubernetes-int-or-string", False):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if (
        "properties" in out
        and "additionalProperties" not in out
        and not out.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    return out


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = strict(json.loads(SCHEMA.read_text()))
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def _export(*args: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code = main(["--config", str(CONFIG), "export", "lws", *args], {})
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


CASES = {
    "vllm-two-node": [
        str(EXAMPLES / "replicas/vllm-two-node.toml"),
        "--image",
        IMAGE,
        "--namespace",
        "inference",
        "--rdma-resource",
        "rdma/ib=1",
        "--node-selector",
        "nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3",
        "--shm-size",
        "64Gi",
        "--replicas",
        "2",
        "--secret",
        "llm-keys:llama",
    ],
    "sim-two-rank": [str(EXAMPLES / "replicas/sim-two-rank.toml"), "--image", IMAGE],
    "vllm-wide-ep": [str(EXAMPLES / "replicas/vllm-wide-ep.toml"), "--image", IMAGE],
    "sglang-wide-ep": [str(EXAMPLES / "replicas/sglang-wide-ep.toml"), "--image", IMAGE],
    "sim-dp": [str(EXAMPLES / "replicas/sim-dp.toml"), "--image", IMAGE],
}


@pytest.mark.parametrize("args", CASES.values(), ids=CASES.keys())
def test_the_leaderworkerset_validates_against_the_v1_schema(
    args: list[str], validator: jsonschema.protocols.Validator, capsys: pytest.CaptureFixture[str]
) -> None:
    items = {item["kind"]: item for item in _export(*args, capsys=capsys)["items"]}
    lws = items["LeaderWorkerSet"]
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(lws)]
    assert errors == []
    assert DNS_LABEL.match(lws["metadata"]["name"])


def test_the_schema_check_catches_a_misspelt_field(
    validator: jsonschema.protocols.Validator, capsys: pytest.CaptureFixture[str]
) -> None:
    lws = _export(*CASES["vllm-two-node"], capsys=capsys)["items"][1]
    broken = copy.deepcopy(lws)
    broken["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]["readinesProbe"] = {}
    broken["spec"]["leaderWorkerTemplate"]["restartPolicy"] = "Sometimes"
    messages = [e.message for e in validator.iter_errors(broken)]
    assert any("readinesProbe" in m for m in messages)
    assert any("'Sometimes' is not one of" in m for m in messages)


#: The core objects' fields this export writes, as the Kubernetes v1 API defines them: the
#: ``kubernetes`` client's models would check no more than this (types and required
#: fields), at the cost of a large dependency tree for the tests.
OBJECT_META = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"},
        "namespace": {"type": "string", "pattern": r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"},
        "labels": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 63}},
    },
}
CORE = {
    "ConfigMap": {
        "type": "object",
        "required": ["apiVersion", "kind", "metadata", "data"],
        "additionalProperties": False,
        "properties": {
            "apiVersion": {"const": "v1"},
            "kind": {"const": "ConfigMap"},
            "metadata": OBJECT_META,
            "data": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "propertyNames": {"pattern": r"^[-._a-zA-Z0-9]+$"},
            },
        },
    },
    "Service": {
        "type": "object",
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "additionalProperties": False,
        "properties": {
            "apiVersion": {"const": "v1"},
            "kind": {"const": "Service"},
            "metadata": OBJECT_META,
            "spec": {
                "type": "object",
                "additionalProperties": False,
                "required": ["ports", "selector"],
                "properties": {
                    "type": {"enum": ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"]},
                    "selector": {"type": "object", "additionalProperties": {"type": "string"}},
                    "ports": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "required": ["port"],
                            "additionalProperties": False,
                            "properties": {
                                "name": {"type": "string"},
                                "port": {"type": "integer", "minimum": 1, "maximum": 65535},
                                "targetPort": {
                                    "anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 15}]
                                },
                                "protocol": {"enum": ["TCP", "UDP", "SCTP"]},
                            },
                        },
                    },
                },
            },
        },
    },
}


@pytest.mark.parametrize("args", CASES.values(), ids=CASES.keys())
def test_the_core_objects_have_the_fields_the_v1_api_requires(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    document = _export(*args, capsys=capsys)
    assert (document["apiVersion"], document["kind"]) == ("v1", "List")
    items = {item["kind"]: item for item in document["items"]}
    assert sorted(items) == ["ConfigMap", "LeaderWorkerSet", "Service"]
    for kind, schema in CORE.items():
        jsonschema.Draft7Validator(schema).validate(items[kind])
    lws = items["LeaderWorkerSet"]
    jsonschema.Draft7Validator(OBJECT_META).validate(lws["metadata"])
    # What the Service selects and forwards to is what the leader pods carry and name.
    leader = (
        lws["spec"]["leaderWorkerTemplate"].get("leaderTemplate")
        or lws["spec"]["leaderWorkerTemplate"]["workerTemplate"]
    )
    container = leader["spec"]["containers"][0]
    assert items["Service"]["spec"]["selector"]["role"] == leader["metadata"]["labels"]["role"]
    assert [p["name"] for p in container["ports"]] == [items["Service"]["spec"]["ports"][0]["targetPort"]]
    # Every volume a container mounts is a volume of its pod, and the ConfigMap is the one made here.
    volumes = {v["name"]: v for v in leader["spec"]["volumes"]}
    assert {m["name"] for m in container["volumeMounts"]} <= set(volumes)
    assert volumes["spec"]["configMap"]["name"] == items["ConfigMap"]["metadata"]["name"]
