"""The published JSON Schemas: shipped as generated from the model, and agreeing with the loader."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import jsonschema
import pytest
from enginekit import SpecError, load_spec, schema
from enginekit.plan.formats import SCHEMA_FILES, schema_text
from enginekit.plan.reading import _CommandDoc, _DroppedDoc, _PlanDoc
from enginekit.spec.model import GO_NAMES, Adapter, Profile, ShardSpec
from hypothesis import given, settings
from hypothesis import strategies as st

#: The generator, found from the repository this test runs in (mutation testing runs a copy
#: of the tests one level deeper).
TOOL = next(
    (
        p / "tools" / "schemas.py"
        for p in Path(__file__).resolve().parents
        if (p / "tools" / "schemas.py").exists()
    ),
    None,
)


def generator() -> ModuleType:
    if TOOL is None:
        pytest.skip("tools/schemas.py is not in this tree")
    spec = importlib.util.spec_from_file_location("schemas_tool", TOOL)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["schemas_tool"] = module
    spec.loader.exec_module(module)
    return module


def validator(kind: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema(kind))


@pytest.mark.parametrize("kind", sorted(SCHEMA_FILES))
def test_shipped_schemas_are_what_the_model_generates(kind: str) -> None:
    # A field added to the model and not to the shipped file fails here: run tools/schemas.py.
    assert schema_text(kind) == generator().rendered(kind)


@pytest.mark.parametrize("kind", sorted(SCHEMA_FILES))
def test_shipped_schemas_are_valid_draft_2020_12(kind: str) -> None:
    jsonschema.Draft202012Validator.check_schema(schema(kind))


def properties(kind: str, definition: str | None) -> tuple[set[str], set[str]]:
    found = schema(kind)
    node = found["$defs"][definition] if definition else found
    return set(node["properties"]), set(node["required"])


@pytest.mark.parametrize(
    ("kind", "definition", "cls"),
    [
        ("spec", None, ShardSpec),
        ("spec", "Profile", Profile),
        ("spec", "Adapter", Adapter),
        ("plan", None, _PlanDoc),
        ("plan", "Command", _CommandDoc),
        ("plan", "Dropped", _DroppedDoc),
        ("plan", "ShardSpec", ShardSpec),
    ],
)
def test_every_field_of_the_model_and_only_those_is_in_the_schema(
    kind: str, definition: str | None, cls: type
) -> None:
    names, required = properties(kind, definition)
    fields = attrs.fields(cls)
    assert names == {f.name for f in fields}
    assert required == {f.name for f in fields if f.default is attrs.NOTHING}


def test_the_go_schema_has_the_go_names() -> None:
    names, required = properties("spec-go", None)
    assert names == set(GO_NAMES[ShardSpec].values())
    assert required == {"Profile"}
    assert properties("spec-go", "Profile")[0] == set(GO_NAMES[Profile].values())


def test_the_plan_schema_pins_the_major_version() -> None:
    version = validator("plan").schema["properties"]["format_version"]
    assert version["pattern"] == r"^1\.[0-9]{1,6}$"


#: A value of the wrong JSON type for each kind of field, and one of the right type.
WRONG = {"string": 5, "integer": "8", "boolean": "yes", "array": "a", "object": [1]}


def spec_fields() -> list[tuple[str, str]]:
    out = []
    for where, definition in (("", None), ("profile.", "Profile")):
        node = schema("spec") if definition is None else schema("spec")["$defs"][definition]
        for name, prop in node["properties"].items():
            kind = prop.get("type") or prop.get("anyOf", [{}])[0].get("type")
            if isinstance(kind, list):  # ["array", "null"]: null is "not set"
                kind = kind[0]
            if kind in WRONG:
                out.append((where + name, kind))
    return out


def base() -> dict[str, Any]:
    return {"profile": {"name": "p", "engine": "sim"}}


@pytest.mark.parametrize(("field", "kind"), spec_fields())
def test_schema_and_loader_refuse_the_same_wrong_types(field: str, kind: str) -> None:
    raw = base()
    target = raw["profile"] if field.startswith("profile.") else raw
    target[field.removeprefix("profile.")] = WRONG[kind]
    assert not validator("spec").is_valid(raw)
    with pytest.raises(SpecError) as caught:
        load_spec(raw)
    assert f"spec.{field}" in caught.value.problems[0]


@settings(max_examples=60, deadline=None)
@given(
    st.fixed_dictionaries(
        {"profile": st.fixed_dictionaries({"name": st.text(min_size=1), "engine": st.text(min_size=1)})},
        optional={
            "rank": st.integers(-(2**63), 2**63 - 1),
            "gpu_indices": st.lists(st.integers(0, 2**16)),
            "hcas": st.lists(st.text()),
            "gid_index": st.none() | st.integers(0, 255),
            "bind_addr": st.text(),
        },
    )
)
def test_what_the_loader_accepts_the_schema_accepts(raw: dict[str, Any]) -> None:
    # Text the loader refuses (control characters) the schema does not judge: it
    # describes shapes and types; enginekit's rules are enginekit's to apply.
    try:
        loaded = load_spec(raw).spec
    except SpecError:
        return
    assert validator("spec").is_valid(json.loads(json.dumps(loaded.to_dict(show_secrets=True))))
    assert validator("spec-go").is_valid(loaded.to_dict(go_names=True, show_secrets=True))
