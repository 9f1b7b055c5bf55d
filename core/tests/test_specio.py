"""Loading and writing shard specs through the public API: sources, spellings, masks, mistakes."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from enginekit import LoadedSpec, ShardSpec, SpecError, load_spec
from enginekit.spec.convert import _folded
from enginekit.spec.model import GO_NAMES, Adapter, Profile, dump_spec

KEY = "k" * 8 + "-0123456789abcdef"

TOML = f"""
replica_id = "r1"
rank = 0
gpu_indices = [0, 1]
http_port = 8000
api_key = "{KEY}"
[profile]
name = "llama-8b"
engine = "vllm"
tp = 2
model_path = "/models/llama"
adapters = [{{name = "sql", path = "/adapters/sql"}}]
"""


def spec() -> ShardSpec:
    return load_spec(TOML).spec


def test_a_str_is_toml_or_json_text() -> None:
    from_toml = load_spec(TOML)
    from_json = load_spec(json.dumps(from_toml.spec.to_dict(show_secrets=True)))
    assert isinstance(from_toml, LoadedSpec)
    assert from_toml.unknown == ()
    assert from_json.spec == from_toml.spec
    assert from_toml.spec.profile.adapters == (Adapter(name="sql", path="/adapters/sql"),)


def test_a_path_is_read_as_a_file(tmp_path: Path) -> None:
    path = tmp_path / "spec.toml"
    path.write_text(TOML)
    assert load_spec(path).spec == spec()


def test_a_mapping_is_a_parsed_document() -> None:
    raw = {"profile": {"name": "p", "engine": "sim"}, "gpu_indices": [3]}
    assert load_spec(raw).spec.gpu_indices == (3,)


def test_a_path_given_as_a_str_gets_a_hint() -> None:
    with pytest.raises(SpecError) as caught:
        load_spec("examples/vllm-cpu.toml")
    assert caught.value.problems[-1] == (
        "a str is the document's text; to read the file 'examples/vllm-cpu.toml', pass a pathlib.Path"
    )


def test_anything_else_is_refused_by_type() -> None:
    with pytest.raises(SpecError) as caught:
        load_spec(42)  # type: ignore[arg-type]
    assert list(caught.value.problems) == ["spec: expected a path, a document's text or a mapping, got int"]


def test_unknown_fields_are_errors_unless_lenient() -> None:
    raw = {"profile": {"name": "p", "engine": "sim", "adpaters": []}, "shard_idd": "x"}
    with pytest.raises(SpecError) as caught:
        load_spec(raw)
    assert list(caught.value.problems) == [
        "spec.profile.adpaters: unknown field",
        "spec.shard_idd: unknown field",
    ]
    loaded = load_spec(raw, lenient=True)
    assert loaded.unknown == ("spec.profile.adpaters: unknown field", "spec.shard_idd: unknown field")


def test_every_problem_names_its_field() -> None:
    with pytest.raises(SpecError) as caught:
        load_spec({"profile": {"name": "p", "engine": "sim", "tp": "8"}, "http_port": True})
    assert list(caught.value.problems) == [
        "spec.http_port: expected an integer, got bool True",
        "spec.profile.tp: expected an integer, got str '8'",
    ]


def test_a_node_config_is_not_a_spec() -> None:
    with pytest.raises(SpecError) as caught:
        load_spec({"disabled": ["trtllm"]}, name="node.toml")
    assert list(caught.value.problems) == ["node.toml: a node config, not a shard spec (it has no profile)"]


def test_the_key_is_masked_unless_asked_for_and_a_masked_spec_is_refused() -> None:
    masked = spec().to_dict()
    assert masked["api_key"] == "<secret>"
    assert KEY not in json.dumps(masked)
    with pytest.raises(SpecError) as caught:
        ShardSpec.from_dict(masked)
    assert list(caught.value.problems) == [
        "spec.api_key: holds the mask '<secret>', not a key: write the spec with show_secrets=True"
    ]
    assert ShardSpec.from_dict(spec().to_dict(show_secrets=True)) == spec()


def test_go_names_are_the_go_agents_and_read_back_equal() -> None:
    data = spec().to_dict(go_names=True, show_secrets=True)
    assert list(data)[:4] == ["ReplicaID", "ShardID", "Rank", "NNodes"]
    assert data["GPUIndices"] == [0, 1]
    assert data["HTTPPort"] == 8000
    assert data["api_key"] == KEY  # tagged in Go: `json:"api_key,omitempty"`
    assert data["Profile"]["GPUsPerNode"] == 0
    assert data["Profile"]["Adapters"] == [{"name": "sql", "path": "/adapters/sql"}]
    assert data["Profile"]["kv_events"] is False
    assert ShardSpec.from_dict(json.loads(json.dumps(data))) == spec()


@pytest.mark.parametrize("cls", [ShardSpec, Profile, Adapter])
def test_go_names_cover_every_field_and_fold_to_it(cls: type) -> None:
    fields = [field.name for field in attrs.fields(cls)]
    assert list(GO_NAMES[cls]) == fields
    for field, go_name in GO_NAMES[cls].items():
        # What makes a Go-named spec load: structuring folds case and underscores.
        assert _folded(go_name) == _folded(field)


def test_snake_case_dump_is_the_model_unstructured() -> None:
    data = dump_spec(spec(), show_secrets=True)
    assert data["gpu_indices"] == [0, 1]
    assert data["gid_index"] is None
    assert json.loads(json.dumps(data)) == data


def test_a_node_config_given_as_a_spec_is_named_by_where_it_came_from(tmp_path: Path) -> None:
    node_config = "disabled = ['trtllm']\n"
    path = tmp_path / "node.toml"
    path.write_text(node_config)
    with pytest.raises(SpecError) as from_file:
        load_spec(path)
    assert from_file.value.problems == (f"{path}: a node config, not a shard spec (it has no profile)",)
    with pytest.raises(SpecError) as from_text:
        load_spec(node_config)
    assert from_text.value.problems == ("spec: a node config, not a shard spec (it has no profile)",)
    with pytest.raises(SpecError) as named:
        load_spec(node_config, name="shard-7")
    assert named.value.problems == ("shard-7: a node config, not a shard spec (it has no profile)",)


def test_a_source_of_the_wrong_kind_is_named_as_the_caller_names_it() -> None:
    with pytest.raises(SpecError) as caught:
        load_spec(42, name="shard-7")  # type: ignore[arg-type]
    assert caught.value.problems == ("shard-7: expected a path, a document's text or a mapping, got int",)


def test_a_document_that_does_not_parse_is_named_by_the_callers_name_or_spec() -> None:
    with pytest.raises(SpecError) as unnamed:
        load_spec("profile = [")
    assert unnamed.value.problems == (
        "spec: not valid JSON: Expecting value: line 1 column 1 (char 0)",
        "spec: not valid TOML: Invalid value (at end of document)",
    )
    with pytest.raises(SpecError) as named:
        load_spec("profile = [", name="shard-7")
    assert named.value.problems == (
        "shard-7: not valid JSON: Expecting value: line 1 column 1 (char 0)",
        "shard-7: not valid TOML: Invalid value (at end of document)",
    )


@pytest.mark.parametrize(
    ("text", "hinted"),
    [("examples/x.toml", True), ("  x.json ", True), ("x.yaml", False), ("a = 1\n# b.toml", False)],
)
def test_a_path_given_as_text_gets_the_hint_a_document_does_not(text: str, hinted: bool) -> None:
    with pytest.raises(SpecError) as caught:
        load_spec(text)
    hint = f"a str is the document's text; to read the file {text!r}, pass a pathlib.Path"
    assert (caught.value.problems[-1] == hint) is hinted


def test_only_a_document_without_a_profile_and_with_a_node_config_key_is_a_node_config() -> None:
    with pytest.raises(SpecError) as no_profile:
        load_spec({"replica_id": "r"})
    assert no_profile.value.problems == ("spec.profile: required field missing",)
    with pytest.raises(SpecError) as both:
        load_spec({"profile": {"name": "p", "engine": "x"}, "disabled": []})
    assert both.value.problems == ("spec.disabled: unknown field",)
    with pytest.raises(SpecError) as config:
        load_spec({"Disabled": ["x"]})
    assert config.value.problems == ("spec: a node config, not a shard spec (it has no profile)",)


def test_a_key_is_masked_in_variable_names_but_never_in_the_formats_own_field_names() -> None:
    key = "SK_LIVE_0123456789abcdef"
    spec = ShardSpec(
        replica_id="r",
        shard_id="s",
        gpu_indices=(0,),
        http_port=8000,
        api_key=key,
        profile=Profile(name="p", engine="x", env={key: "1", "A": f"x{key}"}),
    )
    data = dump_spec(spec)
    assert data["profile"]["env"] == {"<secret>": "1", "A": "x<secret>"}
    assert data["api_key"] == "<secret>"
    assert set(data) == set(dump_spec(spec, show_secrets=True))
