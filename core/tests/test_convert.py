"""The shared converter: strict types, Go spellings, unknown keys by path, JSON/TOML round trips."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from enginekit import Adapter, Profile, ShardSpec, SpecError
from enginekit.spec.convert import parse_document, structure, unstructure
from hypothesis import given
from hypothesis import strategies as st

MINIMAL = {"http_port": 8000, "profile": {"name": "p", "engine": "vllm", "model_path": "/m"}}


def test_unknown_keys_are_errors_naming_their_path() -> None:
    raw = {**MINIMAL, "profile": {**MINIMAL["profile"], "adpaters": []}, "gpu_indicez": [0]}
    with pytest.raises(SpecError) as err:
        structure(raw, ShardSpec, path="spec")
    assert set(err.value.problems) == {
        "spec.profile.adpaters: unknown field",
        "spec.gpu_indicez: unknown field",
    }


def test_lenient_mode_reports_unknown_keys_and_structures_the_rest() -> None:
    raw = {**MINIMAL, "new_control_plane_field": 1, "profile": {**MINIMAL["profile"], "future": "x"}}
    spec, unknown = structure(raw, ShardSpec, path="spec", lenient=True)
    assert spec.profile.model_path == "/m"
    assert sorted(unknown) == [
        "spec.new_control_plane_field: unknown field",
        "spec.profile.future: unknown field",
    ]


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("http_port", "8000", "spec.http_port: expected an integer, got str '8000'"),
        ("http_port", True, "spec.http_port: expected an integer, got bool True"),
        ("http_port", 1.5, "spec.http_port: expected an integer, got float 1.5"),
        ("gpu_indices", [True], "spec.gpu_indices[0]: expected an integer, got bool True"),
        ("gpu_indices", ["0"], "spec.gpu_indices[0]: expected an integer, got str '0'"),
        ("bind_addr", 10, "spec.bind_addr: expected a string, got int 10"),
    ],
)
def test_types_are_not_coerced(field: str, value: object, expected: str) -> None:
    with pytest.raises(SpecError) as err:
        structure({**MINIMAL, field: value}, ShardSpec, path="spec")
    assert err.value.problems == (expected,)


def test_every_problem_is_reported_at_once() -> None:
    raw = {"http_port": "x", "rank": None, "profile": {"name": 1, "engine": "vllm", "tp": "2"}}
    with pytest.raises(SpecError) as err:
        structure(raw, ShardSpec, path="spec")
    assert len(err.value.problems) == 3
    assert "spec.profile.name: expected a string, got int 1" in err.value.problems


def test_missing_required_field_is_named() -> None:
    with pytest.raises(SpecError) as err:
        structure({"http_port": 1}, ShardSpec, path="spec")
    assert err.value.problems == ("spec.profile: required field missing",)


def test_specs_persisted_by_the_go_agent_load_unchanged() -> None:
    # encoding/json of the seed's ShardSpec: untagged fields keep their Go names, tagged
    # ones use their tags, and nil slices, maps and pointers are null.
    go = {
        "ReplicaID": "r7",
        "ShardID": "r7-1",
        "Rank": 1,
        "NNodes": 2,
        "LeaderAddr": "10.0.0.1",
        "LeaderPort": 29500,
        "GPUIndices": [0, 1],
        "gpu_uuids": None,
        "HCAs": ["mlx5_0:1"],
        "MgmtInterface": "eth0",
        "GIDIndex": 3,
        "HTTPPort": 8000,
        "bind_addr": "10.0.0.2",
        "api_key": "k",
        "kv_events_port": 5557,
        "threads": 0,
        "Pool": "a",
        "Fabric": "ib:f1",
        "ProfileFP": "fp",
        "Profile": {
            "Name": "llama",
            "Engine": "vllm",
            "GPUClass": "H100",
            "TP": 2,
            "PP": 2,
            "GPUsPerNode": 2,
            "Nodes": 2,
            "Args": None,
            "Env": None,
            "ModelPath": "/m",
            "ServedModelName": "llama",
            "Adapters": [{"name": "a", "path": "/a"}],
            "kv_events": True,
        },
    }
    spec, _ = structure(go, ShardSpec, path="spec")
    assert spec.replica_id == "r7"
    assert spec.nnodes == 2
    assert spec.gpu_indices == (0, 1)
    assert spec.gpu_uuids == ()
    assert spec.gid_index == 3
    assert spec.kv_events_port == 5557
    assert spec.profile.gpus_per_node == 2
    assert spec.profile.args == ()
    assert spec.profile.env == {}
    assert spec.profile.adapters == (Adapter(name="a", path="/a"),)


def test_one_field_given_twice_in_two_spellings_is_an_error() -> None:
    with pytest.raises(SpecError, match=r"spec.HTTPPort: given twice"):
        structure({**MINIMAL, "HTTPPort": 9000}, ShardSpec, path="spec")


def test_parse_document_names_the_file_and_the_format() -> None:
    with pytest.raises(SpecError, match=r"^spec.toml: not valid TOML"):
        parse_document("a = ", name="spec.toml", suffix=".toml")
    with pytest.raises(SpecError, match="expected a table/object"):
        parse_document("[1, 2]", name="x.json", suffix=".json")


names = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=12)
profiles = st.builds(
    Profile,
    name=names,
    engine=st.sampled_from(["vllm", "sglang", "sim"]),
    tp=st.integers(1, 8),
    pp=st.integers(1, 4),
    args=st.lists(names, max_size=3).map(tuple),
    env=st.dictionaries(st.from_regex(r"[A-Z_]{1,8}", fullmatch=True), names, max_size=3),
    model_path=names,
    adapters=st.lists(st.builds(Adapter, name=names, path=names), max_size=2).map(tuple),
    kv_events=st.booleans(),
)
shards = st.builds(
    ShardSpec,
    profile=profiles,
    rank=st.integers(0, 3),
    nnodes=st.integers(1, 4),
    gpu_indices=st.lists(st.integers(0, 7), max_size=4).map(tuple),
    gid_index=st.none() | st.integers(0, 5),
    http_port=st.integers(1, 65535),
    api_key=names,
    hcas=st.lists(names, max_size=2).map(tuple),
)


@given(shards)
def test_json_round_trip(spec: ShardSpec) -> None:
    back, _ = structure(json.loads(json.dumps(unstructure(spec))), ShardSpec, path="spec")
    assert back == spec


@given(shards)
def test_toml_round_trip(spec: ShardSpec) -> None:
    back, _ = structure(
        parse_document(_to_toml(unstructure(spec)), name="t", suffix=".toml"), ShardSpec, path="spec"
    )
    assert back == spec


def _to_toml(data: dict[str, object], prefix: str = "") -> str:
    """A minimal TOML writer for the round trip (the core only reads TOML)."""
    scalars, tables = [], []
    for key, value in data.items():
        if value is None:
            continue
        if isinstance(value, dict) and key != "env":
            tables.append((key, value))
        elif isinstance(value, dict):
            inline = ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in value.items())
            scalars.append(f"{key} = {{{inline}}}")
        elif isinstance(value, list | tuple) and value and isinstance(value[0], dict):
            items = ", ".join(
                "{" + ", ".join(f"{k} = {json.dumps(v)}" for k, v in item.items()) + "}" for item in value
            )
            scalars.append(f"{key} = [{items}]")
        else:
            scalars.append(f"{key} = {json.dumps(list(value) if isinstance(value, tuple) else value)}")
    out = ([f"[{prefix}]"] if prefix else []) + scalars
    for key, table in tables:
        out.append(_to_toml(table, f"{prefix}.{key}" if prefix else key))
    return "\n".join(out) + "\n"


def test_duplicate_json_keys_are_an_error() -> None:
    with pytest.raises(SpecError, match="key 'http_port' appears twice"):
        parse_document('{"http_port": 1, "http_port": 2}', name="x.json", suffix=".json")


@attrs.frozen
class _Rates:
    rate: float = 1.0


@pytest.mark.parametrize("value", ["50", True, "1_0", "\u0665", float("inf"), float("nan"), [1.0], 10**400])
def test_a_float_field_takes_a_finite_number_written_as_one(value: object) -> None:
    with pytest.raises(SpecError) as err:
        structure({"rate": value}, _Rates, path="engines.x")
    assert err.value.problems[0].startswith("engines.x.rate: expected")


@pytest.mark.parametrize(("value", "expected"), [(2, 2.0), (0.5, 0.5), (-1e3, -1000.0)])
def test_a_float_field_takes_ints_and_floats(value: object, expected: float) -> None:
    assert structure({"rate": value}, _Rates, path="engines.x")[0].rate == expected


def test_an_integer_too_long_to_print_is_measured_by_its_bits() -> None:
    from enginekit.spec.convert import _digits

    assert _digits(2**13998) == str(len(str(2**13998)))
    assert _digits(10**4000) == "4001"
    assert _digits(10**5000) == "about 5001"  # str() of it would raise: beyond 4,300 digits
    assert _digits(10**20000) == "about 20001"


def test_a_file_that_cannot_be_opened_is_named_with_the_reason(tmp_path: Path) -> None:
    from enginekit.spec.convert import read_text

    with pytest.raises(SpecError) as caught:
        read_text(tmp_path / "missing.toml")
    assert caught.value.problems == (f"{tmp_path / 'missing.toml'}: cannot read: No such file or directory",)
