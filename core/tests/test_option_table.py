"""Option tables: their shape is checked, and one release's view judges pass-through options."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from enginekit.policy.args import ArgSyntax
from enginekit.policy.fields import Allowable
from enginekit.policy.optiontable import OptionTable, OptionTableError, check_option_document


def document() -> dict[str, Any]:
    """A toy engine read at three releases: an option added, one removed, one renamed."""
    return {
        "format": 1,
        "engine": "toy",
        "program": "toy serve",
        "generator": "tools/optiontables/toy.py",
        "releases": [
            {"release": "1.0.0", "source": "toy-1.0.0 wheel: make_parser"},
            {"release": "1.1.0", "source": "toy-1.1.0 wheel: make_parser"},
            {"release": "1.2.0", "source": "toy-1.2.0 wheel: make_parser"},
        ],
        "options": {
            "--disable-cache": {"takes": 0, "in": [["1.2.0", "1.2.0"]]},
            "--max-model-len": {"takes": 1, "in": [["1.0.0", "1.2.0"]]},
            "--no-enable-cache": {"takes": 0, "in": [["1.0.0", "1.1.0"]]},
            "--served-model-name": {"takes": "+", "in": [["1.0.0", "1.2.0"]]},
            "--swap-space": {"takes": 1, "in": [["1.0.0", "1.0.0"]]},
            "--tensor-parallel-size": {"takes": 1, "in": [["1.0.0", "1.2.0"]]},
        },
        "aliases": {"-tp": {"option": "--tensor-parallel-size", "in": [["1.1.0", "1.2.0"]]}},
        "renames": {"--no-enable-cache": {"to": "--disable-cache", "since": "1.2.0"}},
    }


TABLE = OptionTable.from_document(document())
SYNTAX = ArgSyntax(known=TABLE.options, aliases=dict(TABLE.alias_of))
SETTING = "[engines.toy] version"


def problems(release: str | None, *args: str, allowed: tuple[str, ...] = ()) -> list[str]:
    view = TABLE.for_release(release, setting=SETTING)
    return view.unknown_problems(
        "p", SYNTAX.parse(args), allowed=allowed, config_key="engines.toy.allow_args"
    )


def test_a_release_accepts_exactly_the_options_its_parser_had() -> None:
    assert TABLE.for_release("1.0.0", setting=SETTING).known == {
        "--max-model-len",
        "--no-enable-cache",
        "--served-model-name",
        "--swap-space",
        "--tensor-parallel-size",
    }
    assert TABLE.for_release("1.2.0", setting=SETTING).aliases == {"-tp": "--tensor-parallel-size"}
    assert TABLE.for_release("1.0.0", setting=SETTING).aliases == {}
    assert TABLE.arity()["--served-model-name"] is None
    assert TABLE.arity()["--disable-cache"] == 0


def test_the_new_spelling_on_an_old_release_names_the_old_one() -> None:
    assert problems("1.1.0", "--disable-cache") == [
        "profile 'p': args: '--disable-cache' is not an option of toy serve 1.1.0: it is from 1.2.0 "
        "on, where it replaced --no-enable-cache; use --no-enable-cache instead"
    ]


def test_the_old_spelling_on_a_new_release_names_the_new_one() -> None:
    assert problems("1.2.0", "--no-enable-cache") == [
        "profile 'p': args: '--no-enable-cache' is not an option of toy serve 1.2.0: renamed to "
        "--disable-cache in 1.2.0; use --disable-cache instead"
    ]


def test_a_removed_option_says_when_and_a_typo_gets_a_suggestion() -> None:
    assert problems("1.2.0", "--swap-space", "4", "--max-model-length", "4096") == [
        "profile 'p': args: '--swap-space' is not an option of toy serve 1.2.0: removed in 1.1.0 "
        "(last in 1.0.0); remove it",
        "profile 'p': args: '--max-model-length' is not an option of toy serve 1.2.0; did you mean "
        "--max-model-len?; remove it, or, if the node's release has it, list it in engines.toy.allow_args",
    ]


def test_what_the_release_has_passes_in_every_spelling() -> None:
    assert (
        problems(
            "1.2.0", "--max-model-len=8", "--max-model", "8", "-tp", "2", "--served-model-name", "a", "b"
        )
        == []
    )
    assert problems("1.0.0", "--swap-space", "4", "--no-enable-cache") == []


def test_a_short_spelling_is_judged_by_itself() -> None:
    assert problems("1.0.0", "-tp", "2") == [
        "profile 'p': args: '-tp' is not an option of toy serve 1.0.0: it is from 1.1.0 on; remove it"
    ]


def test_the_site_may_vouch_for_an_option_the_table_does_not_know() -> None:
    assert problems("1.2.0", "--brand-new", "1", allowed=("--brand-new",)) == []
    allowable = Allowable({"--trust-remote-code"}, lambda: TABLE.options)
    assert "--brand-new" in allowable
    assert "--trust-remote-code" in allowable
    assert "--max-model-len" not in allowable  # every profile may already use it
    assert "not an option" not in allowable
    assert list(allowable) == ["--trust-remote-code"]


def test_a_release_without_its_own_table_is_told_which_one_stands_in() -> None:
    unset = TABLE.for_release(None, setting=SETTING)
    assert unset.read == "1.2.0"
    assert unset.note is not None
    assert "no toy release is configured ([engines.toy] version)" in unset.note
    assert "toy serve 1.2.0" in unset.note
    between = TABLE.for_release("1.1.5", setting=SETTING)
    assert (between.read, between.note) == (
        "1.1.0",
        "toy 1.1.5 has no option table of its own: pass-through options are checked against "
        "1.1.0's, the newest release read below it",
    )
    assert (
        "is not an option of toy serve 1.1.0 (the release read nearest 1.1.5)"
        in problems("1.1.5", "--disable-cache")[0]
    )
    newer = TABLE.for_release("2.0.0", setting=SETTING)
    assert newer.read == "1.2.0"
    assert newer.note is not None
    assert "newer than every release this plugin has read (1.0.0 to 1.2.0)" in newer.note
    older = TABLE.for_release("0.9.0", setting=SETTING)
    assert older.read == "1.0.0"
    assert older.note is not None
    assert "older than every release" in older.note
    assert TABLE.for_release("1.2.0", setting=SETTING).note is None


def test_a_generated_flag_takes_the_releases_spelling() -> None:
    old, new = (TABLE.for_release(r, setting=SETTING) for r in ("1.1.0", "1.2.0"))
    assert old.spelling("--disable-cache", "--no-enable-cache") == "--no-enable-cache"
    assert new.spelling("--disable-cache", "--no-enable-cache") == "--disable-cache"
    assert old.spelling("--nowhere") == "--nowhere"


BROKEN: list[tuple[str, Any, str]] = [
    ("format", 2, "format is 2, expected 1"),
    ("releases", [], "releases must be a non-empty list"),
    (
        "options",
        {"--b": {"takes": 0, "in": [["1.0.0", "1.0.0"]]}, "--a": {"takes": 0, "in": [["1.0.0", "1.0.0"]]}},
        "options must be sorted",
    ),
    ("options", {"--a": {"takes": -1, "in": [["1.0.0", "1.0.0"]]}}, "takes is -1"),
    (
        "options",
        {"--a": {"takes": 0, "in": [["1.0.0", "9.9.9"]]}},
        "is not a [first, last] range of read releases",
    ),
    ("options", {"--a": {"takes": 0, "in": [["1.2.0", "1.0.0"]]}}, "ranges must be in order"),
    ("options", {"not an option": {"takes": 0, "in": [["1.0.0", "1.0.0"]]}}, "is not an option's spelling"),
    (
        "aliases",
        {"-x": {"option": "--nowhere", "in": [["1.0.0", "1.0.0"]]}},
        "stands for '--nowhere', which is no option",
    ),
    ("renames", {"--a": {"to": "--b", "since": "1.0.0"}}, "both spellings must be options of the table"),
    ("engine", "", "engine must be a non-empty string"),
]


@pytest.mark.parametrize(("key", "value", "problem"), BROKEN, ids=[f"{k}-{p[:20]}" for k, _, p in BROKEN])
def test_a_malformed_table_is_refused_naming_the_fault(key: str, value: Any, problem: str) -> None:
    data = copy.deepcopy(document())
    data[key] = value
    found = check_option_document(data)
    assert any(problem in p for p in found), found
    with pytest.raises(OptionTableError, match=r"toy\.options_table: "):
        OptionTable.from_document(data, name="toy.options_table")


def test_releases_must_be_in_order_and_a_table_not_an_object_is_refused() -> None:
    data = document()
    data["releases"] = list(reversed(data["releases"]))
    assert "releases must be distinct and oldest first" in check_option_document(data)
    assert check_option_document([]) == ["the table is list, expected a JSON object"]
    assert check_option_document(document() | {"extra": 1}) == ["unknown keys: extra"]
    assert check_option_document(document()) == []


def test_a_missing_table_module_is_an_engine_error() -> None:
    with pytest.raises(OptionTableError, match=r"enginekit\.no_such_table: no option table"):
        OptionTable.from_package("enginekit", "no_such_table")


def test_a_word_meant_as_a_value_is_never_echoed_it_may_be_a_secret() -> None:
    found = problems("1.2.0", "--served-model-name", "-sk-SECRET-VALUE")
    assert found == [
        "profile 'p': args[1] follows '--served-model-name', which takes a value, but starts with '-': "
        "toy serve 1.2.0 reads it as an option, and it is none; give the value as --served-model-name=VALUE"
    ]
    assert "SECRET" not in " ".join(problems("1.2.0", "--no-such-flag-takes-one", "--SECRET")[1:])


def test_vouching_for_an_option_a_read_release_has_does_not_make_it_exist() -> None:
    # --disable-cache is 1.2.0's: a site allowing it on 1.0.0 still gets the refusal.
    assert problems("1.0.0", "--disable-cache", allowed=("--disable-cache",))[0].startswith(
        "profile 'p': args: '--disable-cache' is not an option of toy serve 1.0.0: it is from 1.2.0 on"
    )


def test_an_ambiguous_abbreviation_and_an_empty_option_name_are_refused() -> None:
    syntax_view = TABLE.for_release("1.0.0", setting=SETTING)
    both = ArgSyntax(known=TABLE.options, aliases=dict(TABLE.alias_of)).parse(("--s", "1"))
    (problem,) = syntax_view.unknown_problems("p", both, allowed=(), config_key="k")
    assert problem == (
        "profile 'p': args: '--s' is a prefix of several options of toy serve 1.0.0 (--served-model-name, "
        "--swap-space): its parser refuses an ambiguous abbreviation; spell the option out"
    )
    assert problems("1.2.0", "--s", "1") == []  # only --served-model-name starts so in 1.2.0
    assert problems("1.2.0", "--=x") == [
        "profile 'p': args: '--' is not an option of toy serve 1.2.0; remove it"
    ]


def test_allow_args_takes_no_abbreviation_or_case_variant_of_a_known_option() -> None:
    allowable = Allowable(set(), lambda: TABLE.options, underscores=True)
    for near_miss in ("--max-model", "--Max-Model-Len", "--max_model_len", "--swap"):
        assert near_miss not in allowable, near_miss
    assert "--max-model-length" in allowable  # no option starts so: a newer release's


@pytest.mark.parametrize(
    ("key", "entry"),
    [("aliases", {"-x": {"option": ["--max-model-len"], "in": [["1.0.0", "1.0.0"]]}}), ("format", True)],
)
def test_a_table_with_values_of_the_wrong_type_is_one_clear_error(key: str, entry: Any) -> None:
    data = document() | {key: entry}
    with pytest.raises(OptionTableError, match=r"^toy: "):
        OptionTable.from_document(data, name="toy")
    renamed = document()
    renamed["renames"] = {"--no-enable-cache": {"to": {"x": 1}, "since": "1.2.0"}}
    with pytest.raises(OptionTableError, match="the spellings and since must be strings"):
        OptionTable.from_document(renamed, name="toy")


def test_a_one_letter_option_with_its_value_glued_on_is_judged_by_the_option() -> None:
    data = document()
    data["aliases"] = dict(
        sorted({**data["aliases"], "-q": {"option": "--max-model-len", "in": [["1.1.0", "1.2.0"]]}}.items())
    )
    table = OptionTable.from_document(data)
    syntax = ArgSyntax(known=table.options, aliases=dict(table.alias_of))

    def judged(release: str) -> list[str]:
        view = table.for_release(release, setting=SETTING)
        return view.unknown_problems("p", syntax.parse(("-q8",)), allowed=(), config_key="k")

    assert judged("1.2.0") == []
    assert judged("1.0.0") == [
        "profile 'p': args: '-q8' is not an option of toy serve 1.0.0: it is from 1.1.0 on; remove it"
    ]


def test_a_parser_that_takes_any_word_as_a_value_is_not_second_guessed() -> None:
    view = TABLE.for_release("1.2.0", setting=SETTING)
    args = ArgSyntax(known=TABLE.options, aliases=dict(TABLE.alias_of)).parse(
        ("--max-model-len", "-1x", "--nope")
    )
    found = view.unknown_problems("p", args, allowed=(), config_key="k", values_take_any_word=True)
    assert found == [
        "profile 'p': args: '--nope' is not an option of toy serve 1.2.0; remove it, or, if the node's "
        "release has it, list it in k"
    ]


def test_single_dash_abbreviations_are_read_among_the_releases_own_short_options() -> None:
    data = document()
    data["aliases"] = {
        "-tp": {"option": "--tensor-parallel-size", "in": [["1.1.0", "1.2.0"]]},
        "-ts": {"option": "--swap-space", "in": [["1.0.0", "1.0.0"]]},
    }
    table = OptionTable.from_document(data)
    syntax = ArgSyntax(
        known=table.options, aliases={"-tp": "--tensor-parallel-size", "-t": "--tensor-parallel-size"}
    )

    def judged(release: str, *args: str) -> list[str]:
        view = table.for_release(release, setting=SETTING)
        return view.unknown_problems("p", syntax.parse(args), allowed=(), config_key="k")

    assert judged("1.2.0", "-t", "2") == []  # -tp is 1.2.0's only short option starting so
    assert judged("1.0.0", "-t", "2") == [
        "profile 'p': args: '-t' is read by toy serve 1.0.0 as -ts (--swap-space), not as the option "
        "it is elsewhere; spell the option out"
    ]
    assert judged("1.1.0", "-x", "2") == [
        "profile 'p': args: '-x' is not an option of toy serve 1.1.0; remove it"
    ]


def test_a_later_word_of_a_list_option_is_not_echoed_either() -> None:
    found = problems("1.2.0", "--served-model-name", "a", "-sk-SECRET")
    assert found == [
        "profile 'p': args[2] follows '--served-model-name', which takes a value, but starts with '-': "
        "toy serve 1.2.0 reads it as an option, and it is none; give the value as --served-model-name=VALUE"
    ]
    # A fixed count already given: the next word is judged, and named, as an option.
    assert problems("1.2.0", "--max-model-len", "8", "--max-model-length")[0].startswith(
        "profile 'p': args: '--max-model-length' is not an option of toy serve 1.2.0; did you mean"
    )


def test_a_table_module_that_raises_on_import_is_one_table_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "brokentable"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "options_table.py").write_text("1 / 0\n", encoding="utf-8")
    (package / "deep_table.py").write_text(f"TABLE = {'[' * 100000!r}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(
        OptionTableError, match=r"brokentable\.options_table: no option table \(ZeroDivisionError"
    ):
        OptionTable.from_package("brokentable")
    with pytest.raises(OptionTableError, match=r"brokentable\.deep_table: TABLE is not JSON"):
        OptionTable.from_package("brokentable", "deep_table")
