"""Release numbers: one parser and one order for every engine's facts."""

from __future__ import annotations

import itertools

import pytest
from enginekit.base.versions import Version, newest_at_or_below, parse_version
from hypothesis import given
from hypothesis import strategies as st

#: Releases in ascending order, as PEP 440 orders them.
ASCENDING = [
    "0.9.2",
    "0.10.0",
    "0.11.0a1",
    "0.11.0b2",
    "0.11.0rc1",
    "0.11.0rc2.dev1",
    "0.11.0rc2",
    "0.11.0",
    "0.11.0.post1.dev2",
    "0.11.0.post1",
    "0.11.0.post2",
    "0.11.1",
    "1.0.0",
    "1.0.0.1",
    "10.0.0",
]


@pytest.mark.parametrize(("lower", "higher"), list(itertools.pairwise(ASCENDING)))
def test_releases_are_ordered_as_pep_440_orders_them(lower: str, higher: str) -> None:
    assert parse_version(lower) < parse_version(higher)
    assert parse_version(higher) > parse_version(lower)


def test_a_number_compares_as_a_number_not_as_text() -> None:
    assert parse_version("0.9.0") < parse_version("0.10.0") < parse_version("0.100.0")


@pytest.mark.parametrize(
    ("short", "long"),
    [
        ("0.11", "0.11.0"),
        ("1", "1.0.0"),
        ("1.0.0.0", "1.0.0"),
        ("1.2.3.0.0", "1.2.3"),
        ("v0.34.0", "0.34.0"),
        ("0.34.0+cpu", "0.34.0"),
        ("0.34.0+cu128.torch2.7", "0.34.0+rocm"),
    ],
)
def test_equal_releases_are_equal_whatever_their_spelling(short: str, long: str) -> None:
    # A local label (+cpu, +cu128) names a build of the release, not another release.
    assert parse_version(short) == parse_version(long)
    assert hash(parse_version(short)) == hash(parse_version(long))


@pytest.mark.parametrize("text", ["0.34.0", "1.3.0rc7", "0.5.4.post2", "0.34.0+cpu", "0.11", "2.0.0.dev1"])
def test_a_version_shows_as_it_was_written(text: str) -> None:
    assert str(parse_version(text)) == text
    assert str(parse_version("v" + text)) == text


def test_a_version_built_without_text_shows_its_release() -> None:
    assert str(Version(release=(0, 11, 0))) == "0.11.0"


@pytest.mark.parametrize(
    ("text", "final"),
    [
        ("0.34.0", True),
        ("0.5.4.post2", True),
        ("0.34.0+cpu", True),
        ("1.3.0rc7", False),
        ("1.3.0a1", False),
        ("1.3.0b1", False),
        ("1.3.0.dev1", False),
        ("1.3.0.post1.dev1", False),
    ],
)
def test_final_only_refuses_pre_releases_and_development_builds(text: str, final: bool) -> None:
    assert parse_version(text).is_final is final
    if final:
        assert parse_version(text, final_only=True) == parse_version(text)
    else:
        with pytest.raises(
            ValueError, match=r"is a pre-release or development build: give the final release"
        ):
            parse_version(text, final_only=True)


def test_final_only_names_the_release_to_give_instead() -> None:
    with pytest.raises(ValueError, match="pre-release") as err:
        parse_version("1.3.0rc7", final_only=True)
    assert str(err.value) == (
        "'1.3.0rc7' is a pre-release or development build: give the final release the node "
        "runs, such as '1.3.0'"
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "latest",
        "main",
        "1..2",
        "1.2.",
        ".1.2",
        " 1.2",
        "1.2 ",
        "1.2\n",
        "1.2.3.4.5.6",
        "1234567.0",
        "1.2.3-rc1",
        "1.2.3RC1",
        "1.2.3rc",
        "1.2.3+",
        "1.2.3+a b",
        "1.2.3; rm -rf /",
    ],
)
def test_garbage_is_refused_with_a_clear_value_error(text: str) -> None:
    with pytest.raises(ValueError, match="is not a release number") as err:
        parse_version(text)
    assert str(err.value) == (
        f"{text!r} is not a release number: expected numbers separated by dots, such as "
        f"'0.34.0' (pre-releases like '1.3.0rc7' and local labels like '+cpu' allowed)"
    )


def test_garbage_for_a_final_only_field_says_pre_releases_are_not_allowed() -> None:
    with pytest.raises(ValueError, match="is not a release number") as err:
        parse_version("latest", final_only=True)
    assert str(err.value) == (
        "'latest' is not a release number: expected numbers separated by dots, such as '0.34.0' "
        "(a local label like '+cpu' allowed)"
    )


@pytest.mark.parametrize("value", [None, 0.34, 34, b"0.34.0", ["0.34.0"]])
def test_a_value_that_is_no_string_is_a_value_error(value: object) -> None:
    with pytest.raises(ValueError, match="is not a release number"):
        parse_version(value)  # type: ignore[arg-type]


TABLE = {parse_version(v): v for v in ("0.10.0", "0.11.0", "0.12.0")}


@pytest.mark.parametrize(
    ("asked", "picked"),
    [
        ("0.11.0", "0.11.0"),
        ("0.11.5", "0.11.0"),
        ("0.11", "0.11.0"),
        ("0.12.0rc1", "0.11.0"),  # before 0.12.0: its facts are 0.11's
        ("0.12.0+cpu", "0.12.0"),
        ("0.13.0", "0.12.0"),
        ("0.9.0", "0.10.0"),  # older than every entry: the oldest, not nothing
    ],
)
def test_newest_at_or_below_picks_the_facts_of_the_newest_release_not_after_it(
    asked: str, picked: str
) -> None:
    assert str(newest_at_or_below(TABLE, parse_version(asked))) == picked


# --- properties ---------------------------------------------------------------------------------

_release = st.lists(st.integers(0, 999), min_size=1, max_size=5)


def _padded(numbers: list[int]) -> tuple[int, ...]:
    return tuple(numbers) + (0,) * (5 - len(numbers))


@given(_release, _release)
def test_parsing_keeps_the_order_of_the_numbers(a: list[int], b: list[int]) -> None:
    # A release is its numbers, a missing one being 0: 0.11 == 0.11.0 < 0.11.1.
    va, vb = parse_version(".".join(map(str, a))), parse_version(".".join(map(str, b)))
    assert (va < vb) == (_padded(a) < _padded(b))
    assert (va == vb) == (_padded(a) == _padded(b))


_pre = st.one_of(st.just(""), st.builds("{}{}".format, st.sampled_from(["a", "b", "rc"]), st.integers(0, 99)))
_post = st.one_of(st.just(""), st.builds(".post{}".format, st.integers(0, 99)))
_dev = st.one_of(st.just(""), st.builds(".dev{}".format, st.integers(0, 99)))
_local = st.one_of(st.just(""), st.sampled_from(["+cpu", "+cu128", "+rocm6.2"]))
_text = st.builds(
    lambda release, pre, post, dev, local: ".".join(map(str, release)) + pre + post + dev + local,
    st.lists(st.integers(0, 20), min_size=1, max_size=4),
    _pre,
    _post,
    _dev,
    _local,
)


@given(_text, _text)
def test_the_order_is_pep_440s_with_local_labels_ignored(a: str, b: str) -> None:
    packaging = pytest.importorskip("packaging.version")
    # PEP 440 sorts 0.34.0+cpu after 0.34.0; here a local label names a build of the same
    # release, so only the public part is compared.
    pa, pb = (packaging.Version(packaging.Version(v).public) for v in (a, b))
    assert (parse_version(a) < parse_version(b)) == (pa < pb), (a, b)
    assert (parse_version(a) == parse_version(b)) == (pa == pb), (a, b)
    assert str(parse_version(a)) == a


@pytest.mark.parametrize("pre", ["1.3.0a1", "1.3.0b1", "1.3.0rc1"])
def test_a_development_build_sorts_before_every_pre_release_of_its_release(pre: str) -> None:
    assert parse_version("1.3.0.dev1") < parse_version(pre)


@pytest.mark.parametrize("text", ["\u0661.\u0662", "\uff11.\uff12", "0.3\u0664.0"])
def test_a_release_number_is_ascii_digits_only(text: str) -> None:
    with pytest.raises(ValueError, match="is not a release number"):
        parse_version(text)


def test_unequal_releases_hash_apart() -> None:
    # Releases key every fact table: a constant hash would turn each lookup into a scan.
    hashes = {hash(parse_version(f"0.{minor}.0")) for minor in range(40)}
    assert len(hashes) == 40
