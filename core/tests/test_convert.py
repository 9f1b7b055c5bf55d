"""The shared converter: strict types, Go spellings, unknown keys by path, JSON/TOML round trips."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar

import attrs
import pytest
from enginekit import Adapter, Profile, ShardSpec, SpecError
from enginekit.spec import convert
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


# --- the direct path: a well-typed document built without cattrs, the same as cattrs builds it


def _through_cattrs(raw: object, cls: type, *, lenient: bool = False) -> tuple[object, list[str]] | str:
    """What ``structure`` answers with the direct path closed: the value, or the error text."""
    saved = convert._direct_class
    convert._direct_class = lambda _cls: lambda _value: convert._TO_CATTRS  # type: ignore[assignment]
    try:
        return structure(raw, cls, path="spec", lenient=lenient)
    except SpecError as exc:
        return str(exc)
    finally:
        convert._direct_class = saved  # type: ignore[assignment]


def _answer(raw: object, cls: type, *, lenient: bool = False) -> tuple[object, list[str]] | str:
    try:
        return structure(raw, cls, path="spec", lenient=lenient)
    except SpecError as exc:
        return str(exc)


#: Values a field may be sent, right and wrong: the direct path takes some, cattrs the rest.
_ANY_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**64)
    | st.floats(allow_nan=True)
    | st.text(max_size=6)
    | st.sampled_from(["x\x00", "\u202e", "GPU-1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


@given(
    shards.map(unstructure),
    st.dictionaries(st.sampled_from(sorted(attrs.fields_dict(ShardSpec))), _ANY_VALUE, max_size=2),
    st.booleans(),
)
def test_the_direct_path_answers_as_cattrs_does(
    good: dict[str, object], changes: dict[str, object], lenient: bool
) -> None:
    raw = {**good, **changes}
    assert _answer(raw, ShardSpec, lenient=lenient) == _through_cattrs(raw, ShardSpec, lenient=lenient)


@given(
    profiles.map(unstructure),
    st.dictionaries(st.sampled_from(sorted(attrs.fields_dict(Profile))), _ANY_VALUE, max_size=2),
)
def test_the_direct_path_answers_as_cattrs_does_for_a_profile(
    good: dict[str, object], changes: dict[str, object]
) -> None:
    raw = {**good, **changes}
    assert _answer(raw, Profile) == _through_cattrs(raw, Profile)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("http_port", True),  # a bool is no integer
        ("http_port", 2**63),  # past 64 bits
        ("http_port", "8000"),
        ("replica_id", "a\x00b"),  # a NUL
        ("replica_id", 5),
        ("gid_index", "3"),
        ("gpu_indices", "0,1"),  # a string is no list
        ("gpu_indices", [0, True]),
        ("hcas", ["mlx5_0", 1]),
        ("rank", -(2**63) - 1),
    ],
)
def test_a_wrong_value_is_named_as_cattrs_names_it(field: str, value: object) -> None:
    raw = {**_EXAMPLE, field: value}
    answer = _answer(raw, ShardSpec)
    assert isinstance(answer, str)
    assert f"spec.{field}" in answer
    assert answer == _through_cattrs(raw, ShardSpec)


_EXAMPLE = {"http_port": 8000, "profile": {"name": "p", "engine": "vllm", "env": {"A": "1"}}}


def test_a_missing_field_and_a_refused_value_are_left_to_cattrs() -> None:
    missing = _answer({"http_port": 1, "profile": {"engine": "vllm"}}, ShardSpec)
    assert missing == _through_cattrs({"http_port": 1, "profile": {"engine": "vllm"}}, ShardSpec)
    assert isinstance(missing, str)
    assert "spec.profile.name: required field missing" in missing


def test_a_table_key_that_is_no_text_is_left_to_cattrs() -> None:
    raw = {**_EXAMPLE, "profile": {"name": "p", "engine": "vllm", "env": {1: "x"}}}
    assert _answer(raw, ShardSpec) == _through_cattrs(raw, ShardSpec)
    bad_value = {**_EXAMPLE, "profile": {"name": "p", "engine": "vllm", "env": {"A": 1}}}
    answer = _answer(bad_value, ShardSpec)
    assert isinstance(answer, str)
    assert "env" in answer
    assert answer == _through_cattrs(bad_value, ShardSpec)


def test_shipped_examples_are_built_without_cattrs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The direct path is the common one: every shipped example's spec takes it."""
    # The repository's examples, from wherever the tests run (the mutation tool copies them).
    root = next((p for p in Path(__file__).resolve().parents if (p / "examples").is_dir()), None)
    if root is None:
        pytest.skip("run outside the repository: no examples/ above the tests")
    examples = sorted((root / "examples").glob("*.toml"))
    assert examples
    calls: list[type] = []

    class Spy:
        def structure(self, raw: object, cls: type) -> object:
            calls.append(cls)
            return real.structure(raw, cls)

    real = convert.shared_converter()
    monkeypatch.setattr(convert, "shared_converter", Spy)
    built = 0
    for path in examples:
        raw = parse_document(path.read_text(), name=path.name, suffix=".toml")
        if "profile" in raw:
            spec, _ = structure(raw, ShardSpec, path="spec")
            assert spec.profile.engine
            built += 1
    assert built
    assert calls == []
    # The spy sees cattrs when it is used: a wrong value goes through it.
    with pytest.raises(SpecError):
        structure({**_EXAMPLE, "http_port": "x"}, ShardSpec, path="spec")
    assert calls == [ShardSpec]


@attrs.frozen
class WithFloat:
    x: float = 0.0


@attrs.frozen
class NotInit:
    x: int = 0
    y: int = attrs.field(default=0, init=False)


@attrs.frozen
class Chain:
    next: Chain | None = None


@attrs.frozen
class Pair:
    both: tuple[int, str] = (0, "")


@attrs.frozen
class Keyed:
    table: Mapping[int, str] = attrs.field(factory=dict)


@attrs.frozen
class Floats:
    xs: tuple[float, ...] = ()


@attrs.frozen
class FloatTable:
    table: Mapping[str, float] = attrs.field(factory=dict)


@attrs.frozen
class Either:
    x: int | str = 0


@attrs.frozen
class NoneFirst:
    x: None | int = None  # noqa: RUF036 - None first on purpose: the direct path reads either order


T_ = TypeVar("T_")


@attrs.frozen
class Limits(Generic[T_]):
    low: T_
    high: T_


@attrs.frozen
class WithGeneric:
    python: str = "python3"
    limits: Limits[int] | None = None


#: A field typed with something no one can hash (a plugin's mistake, which cattrs tolerates).
Unreadable = attrs.make_class(
    "Unreadable",
    {"n": attrs.field(default=1), "odd": attrs.field(default=None, type=[int])},
    frozen=True,
)


@attrs.frozen
class Leaf:
    name: str
    size: int | None = None


@attrs.frozen
class Tree:
    leaves: tuple[Leaf, ...] = ()
    first: Leaf | None = None
    extra: Mapping[str, Any] = attrs.field(factory=dict)
    flags: tuple[bool, ...] = ()


def test_fields_of_types_the_direct_path_does_not_build_are_left_to_cattrs() -> None:
    given = [
        (WithFloat, {"x": 1.0}),
        (NotInit, {"y": 1}),  # a field __init__ does not take
        (Chain, {"next": {}}),  # a class holding itself
        (Pair, {"both": [0, ""]}),
        (Keyed, {"table": {1: "a"}}),
        (Floats, {"xs": [1.0]}),
        (FloatTable, {"table": {"a": 1.0}}),
        (Either, {"x": 1}),
    ]
    for cls, value in given:
        build = convert._direct_class(cls)
        assert build(value) is convert._TO_CATTRS, cls
        # Without such a field, as an empty config section, the class's defaults are built.
        assert build({}) == cls(), cls
    # …and each is still structured, by cattrs.
    assert structure({"x": 1}, WithFloat, path="w")[0] == WithFloat(1.0)
    assert structure({"next": {}}, Chain, path="c")[0] == Chain(Chain())


def test_the_direct_path_builds_nested_optional_and_listed_classes() -> None:
    build = convert._direct_class(Tree)
    raw = {
        "leaves": [{"name": "a"}, {"name": "b", "size": 2}],
        "first": None,
        "extra": {"k": [1]},
        "flags": [True],
    }
    assert build(raw) == Tree((Leaf("a"), Leaf("b", 2)), None, {"k": [1]}, (True,))
    assert build({"first": {"name": "c"}}) == Tree(first=Leaf("c"))
    assert build({"leaves": [{"name": 1}]}) is convert._TO_CATTRS
    assert build({"leaves": ({"name": "t"},)}) == Tree((Leaf("t"),))
    assert build({"leaves": {"name": "a"}}) is convert._TO_CATTRS
    assert build({"extra": {1: "x"}}) is convert._TO_CATTRS
    assert build({"extra": []}) is convert._TO_CATTRS
    assert build({"flags": [1]}) is convert._TO_CATTRS
    assert build({"unknown": 1}) is convert._TO_CATTRS
    assert build([("leaves", [])]) is convert._TO_CATTRS
    assert build({"first": {"size": 1}}) is convert._TO_CATTRS  # its name missing


def test_the_direct_path_takes_an_optional_written_either_way_and_the_whole_int64_range() -> None:
    build = convert._direct_class(NoneFirst)
    assert build({"x": 3}) == NoneFirst(3)
    assert build({"x": None}) == NoneFirst(None)
    for edge in (convert.INT64_MIN, convert.INT64_MAX):
        assert convert._direct_int(edge) == edge
        assert convert._strict_int(edge, int) == edge
    for beyond in (convert.INT64_MIN - 1, convert.INT64_MAX + 1):
        assert convert._direct_int(beyond) is convert._TO_CATTRS


def test_a_plugin_class_the_direct_path_cannot_read_is_structured_as_before() -> None:
    """A generic class inside, or an annotation nothing can hash: cattrs reads them, as before."""
    assert structure({}, WithGeneric, path="engines.x")[0] == WithGeneric()
    # Given, the generic class is cattrs' to read, whatever its release makes of it (the
    # oldest allowed attrs cannot resolve a generic alias; newer ones build it).
    raw = {"limits": {"low": 1, "high": 2}}
    assert _answer(raw, WithGeneric) == _through_cattrs(raw, WithGeneric)
    assert convert._direct_class(Unreadable) is convert._to_cattrs
    assert convert._to_cattrs({}) is convert._TO_CATTRS
    for raw in ({}, {"n": 2}):
        assert _answer(raw, Unreadable) == _through_cattrs(raw, Unreadable)


def test_the_shared_converter_is_made_once_and_still_reachable_by_its_old_name() -> None:
    made = convert.shared_converter()
    assert convert.shared_converter() is made
    assert convert.converter is made  # the module attribute it was before cattrs was lazy
    with pytest.raises(
        AttributeError, match=r"module 'enginekit\.spec\.convert' has no attribute 'convertor'"
    ):
        _ = convert.convertor  # type: ignore[attr-defined]
