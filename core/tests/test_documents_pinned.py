"""Reading specs and configs: what is refused, and what each refusal says (issue 17).

Everything a supervisor hands over is read here before any rule sees it. A limit moved
by one, a problem that stops the others being reported, or a message that names the
wrong place is a spec fixed in three rounds instead of one, or one read differently by
the checker and the engine.
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from enginekit import Profile, ShardSpec
from enginekit.base.errors import SpecError
from enginekit.spec.convert import (
    INT64_MAX,
    INT64_MIN,
    MAX_DOCUMENT_BYTES,
    MAX_NESTING,
    converter,
    load_document,
    parse_any,
    parse_document,
    read_text,
    structure,
    unstructure,
)

BASE = {"name": "p", "engine": "x"}


def problems_of(raw: object, cls: type = Profile, path: str = "profile") -> list[str]:
    with pytest.raises(SpecError) as err:
        structure(raw, cls, path=path)
    return list(err.value.problems)


# --- integers, booleans and lists -----------------------------------------------------------


@pytest.mark.parametrize("value", [INT64_MIN, INT64_MAX, 0, -1])
def test_every_64_bit_integer_is_read(value: int) -> None:
    profile, _ = structure({**BASE, "tp": value}, Profile, path="profile")
    assert profile.tp == value
    spec, _ = structure({"profile": BASE, "gpu_indices": [value]}, ShardSpec, path="spec")
    assert spec.gpu_indices == (value,)


@pytest.mark.parametrize("value", [INT64_MIN - 1, INT64_MAX + 1])
def test_an_integer_past_64_bits_is_refused_without_echoing_it(value: int) -> None:
    # The Go agent cannot have sent it; its digits would fill the message.
    digits = len(str(value))
    assert problems_of({**BASE, "tp": value}) == [
        f"profile.tp: expected an integer that fits 64 bits, got one of {digits} digits"
    ]
    [problem] = problems_of({"profile": BASE, "gpu_indices": [value]}, ShardSpec, "spec")
    assert problem.endswith(f"expected an integer that fits 64 bits, got one of {digits} digits")


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("y" * 38, repr("y" * 38)),  # a 40-character repr is shown whole
        ("y" * 39, repr("y" * 39)[:40] + "…"),  # 41: cut at 40
        ("y" * 60, repr("y" * 60)[:40] + "…"),
        (1.5, "1.5"),
    ],
)
def test_a_wrong_scalar_is_named_by_type_and_its_first_40_characters(value: object, shown: str) -> None:
    kind = type(value).__name__
    assert problems_of({**BASE, "kv_events": value}) == [
        f"profile.kv_events: expected true or false, got {kind} {shown}"
    ]


def test_a_container_given_for_a_scalar_is_named_not_shown() -> None:
    assert problems_of({**BASE, "kv_events": {"secret": "x"}}) == [
        "profile.kv_events: expected true or false, got dict"
    ]


def test_the_shared_converter_never_reads_a_string_as_a_list() -> None:
    # "abc" is iterable: read as a list it would be ('a', 'b', 'c') of GPUs or flags.
    with pytest.raises(TypeError, match=r"^expected a list, got str 'abc'$"):
        converter.structure("abc", tuple[str, ...])
    with pytest.raises(TypeError, match=r"^expected a list, got dict$"):
        converter.structure({"a": 1}, tuple[int, ...])
    assert converter.structure(["a", "b"], tuple[str, ...]) == ("a", "b")


@pytest.mark.parametrize(
    ("value", "why"),
    [("0.5", "expected a number, got str '0.5'"), (True, "expected a number, got bool True")],
)
def test_a_number_is_written_as_a_number(value: object, why: str) -> None:
    with pytest.raises(TypeError) as err:
        converter.structure(value, float)
    assert str(err.value) == why
    assert converter.structure(2, float) == 2.0


def test_a_set_is_unstructured_as_a_sorted_list() -> None:
    # JSON has no sets, and a stable order makes plans diffable.
    assert unstructure(frozenset({"b", "a"})) == ["a", "b"]
    assert json.dumps(unstructure(frozenset({"B", "A"}))) == '["A", "B"]'


# --- keys, paths and every problem at once ---------------------------------------------------


def test_every_problem_of_a_document_is_reported_at_once() -> None:
    raw = {
        **BASE,
        "tq": 1,
        "tp": 1,
        "TP": 2,
        "zz": 1,
        "args": "--x",
        "env": "A=B",
        "adapters": ["not a table", {"name": "a", "path": "/a", "pth": 1}],
        "yy": 2,
    }
    assert problems_of(raw) == [
        "profile.tq: unknown field",
        "profile.zz: unknown field",
        "profile.adapters[1].pth: unknown field",
        "profile.yy: unknown field",
        "profile.TP: given twice (as 'tp' and 'TP')",
        "profile.args: expected a list, got str '--x'",
        "profile.env: expected a table, got str 'A=B'",
        "profile.adapters[0]: expected a table of fields, got str 'not a table'",
    ]


def test_a_secret_of_the_wrong_type_is_refused_without_showing_it_and_the_rest_is_still_reported() -> None:
    raw = {"profile": BASE, "api_key": ["sk-live-3f9c2a7b1e8d4c6a"], "zz": 1, "http_port": "x"}
    problems = problems_of(raw, ShardSpec, "spec")
    assert problems[:2] == [
        "spec.zz: unknown field",
        "spec.api_key: expected a string, got list (the value is not shown)",
    ]
    assert not any("sk-live" in p for p in problems)


def test_a_top_level_key_is_named_without_a_leading_dot() -> None:
    assert problems_of({**BASE, "tq": 1}, Profile, "") == ["tq: unknown field"]


@pytest.mark.parametrize(
    ("key", "shown"),
    [
        ("K" * 64, "K" * 64),  # a plain key of up to 64 characters is shown as it is
        ("K" * 65, repr("K" * 65)[:40] + "…"),
        ("bad key!", "'bad key!'"),
        ("k" * 37 + "!", repr("k" * 37 + "!")),  # 40 characters quoted: whole
        ("k" * 38 + "!", repr("k" * 38 + "!")[:40] + "…"),
        (7, "7"),
    ],
)
def test_an_unknown_key_is_quoted_and_cut_unless_it_is_a_plain_name(key: object, shown: str) -> None:
    raw: dict[object, object] = {"name": "p", "engine": "x", key: 1}
    assert problems_of(raw) == [f"profile.{shown}: unknown field"]


def test_a_message_holding_an_at_sign_keeps_its_path_first() -> None:
    # cattrs writes "message @ path": the path is after the last " @ ", not the first.
    assert problems_of({**BASE, "tp": "a @ b"}) == ["profile.tp: expected an integer, got str 'a @ b'"]


def _echo(instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    if value.startswith("bad"):
        raise ValueError(f"{attribute.name} {value!r} is not allowed")


@attrs.frozen(kw_only=True)
class _Keyed:
    key: str = attrs.field(default="", repr=False)
    name: str = attrs.field(default="", validator=_echo)


def test_a_validators_error_is_reported_with_its_path_and_a_secret_masked() -> None:
    assert problems_of({"name": "bad-name"}, _Keyed, "engines.x") == [
        "engines.x: name 'bad-name' is not allowed"
    ]
    secret = "bad-sk-3f9c2a7b1e8d4c6a9b0e"
    problems = problems_of({"key": secret, "name": secret}, _Keyed, "engines.x")
    assert len(problems) == 1
    assert problems[0].startswith("engines.x: name ")
    assert secret not in problems[0]


# --- documents: size, format, nesting -------------------------------------------------------------


def test_json_is_tried_first_then_toml_when_the_suffix_does_not_say() -> None:
    assert parse_document('{"a": 1}', name="x") == {"a": 1}
    assert parse_document("a = 1", name="x") == {"a": 1}
    assert parse_document("a = 1", name="x", suffix=".toml") == {"a": 1}


def test_a_document_neither_format_reads_names_both_attempts() -> None:
    with pytest.raises(SpecError) as err:
        parse_document("{", name="x")
    assert [p.split(":", 2)[:2] for p in err.value.problems] == [
        ["x", " not valid JSON"],
        ["x", " not valid TOML"],
    ]


@pytest.mark.parametrize(("suffix", "kind"), [(".json", "JSON"), (".toml", "TOML")])
def test_a_suffix_names_the_one_format_tried(suffix: str, kind: str) -> None:
    with pytest.raises(SpecError) as err:
        parse_document("{", name="x", suffix=suffix)
    [problem] = err.value.problems
    assert problem.startswith(f"x: not valid {kind}: ")


def test_a_parsers_message_is_escaped_and_cut_at_200_characters() -> None:
    # A duplicate key is quoted in the message: it may hold anything, a terminal escape too.
    with pytest.raises(SpecError) as err:
        parse_document('{"ééé": 1, "ééé": 2}', name="x", suffix=".json")
    assert err.value.problems == ("x: not valid JSON: key '\\xe9\\xe9\\xe9' appears twice",)
    for length, cut in ((180, False), (181, True)):
        key = "k" * length  # the message is 20 characters around the key
        with pytest.raises(SpecError) as long:
            parse_document(json.dumps({key: 1})[:-1] + f', "{key}": 2}}', name="x", suffix=".json")
        [problem] = long.value.problems
        text = problem.removeprefix("x: not valid JSON: ")
        assert text.endswith("…") is cut
        assert len(text) == (201 if cut else 200)


def test_the_top_of_a_document_is_a_table() -> None:
    with pytest.raises(SpecError) as err:
        parse_document("[1]", name="spec.json", suffix=".json")
    assert err.value.problems == ("spec.json: expected a table/object at the top, got list",)


def test_a_document_may_be_exactly_the_size_limit() -> None:
    padding = MAX_DOCUMENT_BYTES - len('{"a": ""}')
    text = '{"a": "' + "x" * padding + '"}'
    assert len(text) == MAX_DOCUMENT_BYTES
    assert parse_document(text, name="x", suffix=".json")["a"] == "x" * padding
    with pytest.raises(SpecError) as err:
        parse_document(text + " ", name="x", suffix=".json")
    assert err.value.problems == (
        f"x: larger than {MAX_DOCUMENT_BYTES} bytes; a spec or config is a few KiB",
    )


@pytest.mark.parametrize(
    ("depth", "ok"), [(MAX_NESTING - 1, True), (MAX_NESTING, True), (MAX_NESTING + 1, False)]
)
def test_nesting_is_allowed_up_to_its_limit(depth: int, ok: bool) -> None:
    text = "[" * depth + "]" * depth
    if ok:
        assert parse_any(text, name="x", suffix=".json") is not None
    else:
        with pytest.raises(SpecError) as err:
            parse_any(text, name="x", suffix=".json")
        assert err.value.problems == (f"x: nested more than {MAX_NESTING} levels deep",)


def test_nesting_counts_tables_and_lists_alike() -> None:
    inner: object = {}
    for level in range(MAX_NESTING - 1):
        inner = [inner] if level % 2 else {"k": inner}
    assert parse_any(json.dumps(inner), name="x", suffix=".json") == inner
    with pytest.raises(SpecError):
        parse_any(json.dumps({"k": inner, "j": [[inner]]}), name="x", suffix=".json")


# --- files ------------------------------------------------------------------------------------------


def test_a_file_is_named_in_every_problem(tmp_path: Path) -> None:
    bad = tmp_path / "spec.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(SpecError) as err:
        load_document(bad)
    [problem] = err.value.problems  # the suffix says JSON: TOML is not tried
    assert problem.startswith(f"{bad}: not valid JSON: ")
    upper = tmp_path / "SPEC.JSON"
    upper.write_text("{", encoding="utf-8")
    with pytest.raises(SpecError) as upper_err:
        load_document(upper)
    assert len(upper_err.value.problems) == 1


def test_a_toml_file_is_read_as_toml(tmp_path: Path) -> None:
    path = tmp_path / "node.toml"
    path.write_text('[engines.vllm]\nversion = "0.34.0"\n', encoding="utf-8")
    assert load_document(path) == {"engines": {"vllm": {"version": "0.34.0"}}}


def test_a_missing_file_says_why_in_words(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(SpecError) as err:
        read_text(missing)
    assert err.value.problems == (f"{missing}: cannot read: No such file or directory",)


@pytest.mark.parametrize(("size", "ok"), [(9, True), (10, True), (11, False)])
def test_a_file_may_be_exactly_the_limit(tmp_path: Path, size: int, ok: bool) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b"x" * size)
    if ok:
        assert read_text(path, limit=10) == "x" * size
    else:
        with pytest.raises(SpecError) as err:
            read_text(path, limit=10)
        assert err.value.problems == (f"{path}: larger than 10 bytes; a spec or config is a few KiB",)


def test_a_file_that_is_not_utf8_names_the_first_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b'{"a"\xff}')
    with pytest.raises(SpecError) as err:
        read_text(path)
    assert err.value.problems == (f"{path}: not UTF-8 text (byte 4)",)


def test_a_directory_is_not_a_regular_file(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as err:
        read_text(tmp_path)
    assert err.value.problems == (f"{tmp_path}: cannot read: not a regular file",)
