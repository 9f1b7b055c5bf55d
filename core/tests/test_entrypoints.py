"""Entry points read from metadata directories: the same answer as importlib.metadata, or a hand-off to it."""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.metadata
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from enginekit.platform import entrypoints
from enginekit.platform.entrypoints import EntryPoint, MetadataDirectory, read_directories
from enginekit.platform.registry import Registry
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

GROUP = "enginekit.test_entrypoints"
Row = tuple[str, str, str, str]


def standard(path: list[str], group: str = GROUP) -> list[Row]:
    """What importlib.metadata finds on ``path``, as rows."""
    saved = sys.path[:]
    sys.path[:] = path
    try:
        importlib.invalidate_caches()
        found = importlib.metadata.entry_points(group=group)
        return [(ep.name, ep.value, ep.group, str(ep.dist._path)) for ep in found]  # type: ignore[union-attr]
    finally:
        sys.path[:] = saved
        importlib.invalidate_caches()


def ours(path: list[str], group: str = GROUP) -> list[Row] | None:
    found = read_directories(group, path)
    if found is None:
        return None
    assert found[1] == []
    return [(ep.name, ep.value, ep.group, ep.dist.path) for ep in found[0]]  # type: ignore[union-attr]


def write(root: Path, directory: str, text: str | bytes | None, metadata: str | None = None) -> Path:
    info = root / directory
    info.mkdir(parents=True)
    if isinstance(text, bytes):
        (info / "entry_points.txt").write_bytes(text)
    elif text is not None:
        (info / "entry_points.txt").write_text(text, encoding="utf-8")
    name = directory.partition("-")[0]
    (info / "METADATA").write_text(metadata or f"Metadata-Version: 2.1\nName: {name}\nVersion: 1\n")
    return info


# --- the same answer as the standard reader, over generated trees

NAMES = st.sampled_from(["foo", "Foo", "foo_bar", "foo.bar", "Foo-Bar", "foo__bar", "baz", "a.b_c"])
VERSIONS = st.sampled_from(["", "-1.0", "-2.0", "-1.0.dev1", "-0"])
SUFFIXES = st.sampled_from([".dist-info", ".egg-info"])
SECTIONS = st.sampled_from([GROUP, "console_scripts", f" {GROUP} ", f"{GROUP}.x"])
LINE = st.one_of(
    st.tuples(
        st.sampled_from(["e", "E", "e.x", "e-1"]), st.sampled_from(["m:A", "m", " m : A.b ", "m:A [x]"])
    ).map(lambda pair: f"{pair[0]} = {pair[1]}"),
    st.sampled_from(["", "   ", "# e = commented:Out", "; e = semicolon:Kept", "e=tight:Value", "e = a = b"]),
)
SECTION_TEXT = st.tuples(SECTIONS, st.lists(LINE, max_size=4)).map(
    lambda s: f"[{s[0]}]\n" + "\n".join(s[1]) + "\n"
)
DIST = st.tuples(
    NAMES, VERSIONS, SUFFIXES, st.one_of(st.none(), st.lists(SECTION_TEXT, max_size=3).map("".join))
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(DIST, max_size=5), min_size=1, max_size=3))
def test_the_same_entry_points_as_importlib_metadata(
    tree: list[list[tuple[str, str, str, str | None]]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = []
        for i, entry in enumerate(tree):
            root = Path(tmp) / f"p{i}"
            root.mkdir()
            path.append(str(root))
            for name, version, suffix, text in entry:
                if not (root / f"{name}{version}{suffix}").exists():
                    write(root, f"{name}{version}{suffix}", text)
        path.append(str(Path(tmp) / "missing"))
        assert ours(path) == standard(path)


def test_the_first_of_a_name_on_the_path_wins_whatever_its_spelling(tmp_path: Path) -> None:
    write(tmp_path / "a", "Foo.Bar-1.dist-info", f"[{GROUP}]\nfirst = a:A\n")
    write(tmp_path / "b", "foo_bar-2.dist-info", f"[{GROUP}]\nsecond = b:B\n")
    path = [str(tmp_path / "a"), str(tmp_path / "b")]
    assert (
        ours(path) == standard(path) == [("first", "a:A", GROUP, str(tmp_path / "a" / "Foo.Bar-1.dist-info"))]
    )


def test_the_current_directory_is_read_for_an_empty_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "here-1.dist-info", f"[{GROUP}]\nhere = here:Engine\n")
    monkeypatch.chdir(tmp_path)
    assert ours([""]) == standard([""]) == [("here", "here:Engine", GROUP, "here-1.dist-info")]


def test_the_installed_engines_are_the_standard_readers(fake_dists: Path) -> None:
    for group in ("enginekit.engines", "console_scripts", "pytest11"):
        assert ours(sys.path, group) == standard(sys.path[:], group)


# --- where it hands off


@pytest.mark.parametrize(
    "layout",
    ["zip", "egg", "upper-case suffix", "nameless", "bytes", "finder"],
)
def test_what_it_does_not_follow_goes_to_the_standard_reader(
    layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path: list[object] = [str(tmp_path)]
    if layout == "zip":
        archive = tmp_path / "plugins.zip"
        with zipfile.ZipFile(archive, "w") as zipped:
            zipped.writestr("zipped-1.dist-info/entry_points.txt", f"[{GROUP}]\nzipped = z:Z\n")
            zipped.writestr("zipped-1.dist-info/METADATA", "Name: zipped\nVersion: 1\n")
        path = [str(archive)]
    elif layout == "egg":
        write(tmp_path / "thing-1.egg", "EGG-INFO", f"[{GROUP}]\negg = e:E\n")
        path = [str(tmp_path / "thing-1.egg")]
    elif layout == "upper-case suffix":
        write(tmp_path, "Shout-1.DIST-INFO", f"[{GROUP}]\nshout = s:S\n", "Name: shout\nVersion: 1\n")
    elif layout == "nameless":
        write(tmp_path, "-1.dist-info", f"[{GROUP}]\nnameless = n:N\n", "Name: nameless\nVersion: 1\n")
    elif layout == "bytes":
        path = [str(tmp_path).encode()]
    else:

        class Finder:
            @staticmethod
            def find_distributions(context: object = None) -> Iterator[object]:
                return iter(())

        monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder])
    assert read_directories(GROUP, path) is None
    if layout not in ("bytes", "finder"):
        assert standard([str(p) for p in path]) != []  # the standard reader does find something there


def test_the_standard_path_finder_lists_nothing_of_its_own() -> None:
    assert importlib.machinery.PathFinder in sys.meta_path
    assert read_directories(GROUP, []) == ([], [])


def test_a_hand_off_answers_what_the_standard_reader_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("zipped-1.dist-info/entry_points.txt", f"[{GROUP}]\nzipped = z:Z\n")
        zipped.writestr("zipped-1.dist-info/METADATA", "Name: zipped\nVersion: 1\n")
    monkeypatch.syspath_prepend(str(archive))
    importlib.invalidate_caches()
    found, problems = entrypoints.entry_points(GROUP)
    assert [(ep.name, ep.value, ep.group) for ep in found] == [("zipped", "z:Z", GROUP)]
    assert problems == []
    assert found[0].dist is not None
    assert "zipped" in (found[0].dist.read_text("METADATA") or "")


def test_a_hand_off_names_what_the_standard_reader_breaks_on_and_lists_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A line without '=' anywhere in a file makes importlib.metadata raise for that
    # distribution, and entry_points() for every distribution: one is named, none hidden.
    write(tmp_path, "broken-1.dist-info", "[console_scripts]\nbroken\n")
    write(tmp_path, "good-1.dist-info", f"[{GROUP}]\ngood = g:G\n")
    write(tmp_path, "good-2.dist-info", f"[{GROUP}]\nshadowed = s:S\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    monkeypatch.setattr(entrypoints, "read_directories", lambda group, path: None)
    importlib.invalidate_caches()
    with pytest.raises(TypeError):
        importlib.metadata.entry_points(group=GROUP)
    found, problems = entrypoints.entry_points(GROUP)
    assert [(ep.name, ep.value) for ep in found] == [("good", "g:G")] or [
        (ep.name, ep.value) for ep in found
    ] == [("shadowed", "s:S")]
    assert problems == [
        f"{tmp_path / 'broken-1.dist-info'}: its entry points are unreadable (TypeError); skipped"
    ]


# --- what the standard reader breaks on, read on


def test_a_distribution_whose_entry_points_are_not_utf8_is_named_and_the_rest_read(tmp_path: Path) -> None:
    write(tmp_path, "bad-1.dist-info", b"[" + GROUP.encode() + b"]\nbad = \xff\xfe:X\n")
    write(tmp_path, "good-1.dist-info", f"[{GROUP}]\ngood = g:G\n")
    found = read_directories(GROUP, [str(tmp_path)])
    assert found is not None
    assert [ep.name for ep in found[0]] == ["good"]
    assert found[1] == [
        f"{tmp_path / 'bad-1.dist-info'}: entry_points.txt is unreadable (UnicodeDecodeError); skipped"
    ]


def test_a_line_without_an_equals_sign_is_named_in_the_group_and_ignored_elsewhere(tmp_path: Path) -> None:
    write(tmp_path, "odd-1.dist-info", f"[other]\nnothing here\n[{GROUP}]\njust a name\nfine = f:F\n")
    found = read_directories(GROUP, [str(tmp_path)])
    assert found is not None
    assert [(ep.name, ep.value) for ep in found[0]] == [("fine", "f:F")]
    assert found[1] == [
        f"{tmp_path / 'odd-1.dist-info'}: entry_points.txt [{GROUP}] has a line without '='; skipped"
    ]


def test_the_registry_warns_of_an_unreadable_distribution_and_lists_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "bad-1.dist-info", b"\xff")
    write(tmp_path, "good-1.dist-info", f"[{GROUP}]\ngood = g:G\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry.from_entry_points(group=GROUP)
    assert registry.installed_names() == ["good"]
    assert registry.warnings == [
        f"{tmp_path / 'bad-1.dist-info'}: entry_points.txt is unreadable (UnicodeDecodeError); skipped"
    ]


def test_a_missing_or_unlistable_path_entry_holds_nothing(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory, not a zip")
    assert read_directories(GROUP, [str(tmp_path / "nowhere")]) == ([], [])
    assert read_directories(GROUP, [str(tmp_path / "file")]) is None  # a zip, perhaps: the standard reader's


# --- the pieces


class TestLoad:
    def test_module_and_attribute_path(self) -> None:
        assert EntryPoint("x", "os.path:join", GROUP, None).load() is importlib.import_module("os.path").join
        assert EntryPoint("x", "importlib : machinery.PathFinder ", GROUP, None).load() is (
            importlib.machinery.PathFinder
        )

    def test_a_module_alone_and_extras(self) -> None:
        assert EntryPoint("x", "os.path", GROUP, None).load() is importlib.import_module("os.path")
        assert (
            EntryPoint("x", "os:sep [extra1, extra2]", GROUP, None).load()
            == importlib.import_module("os").sep
        )

    @pytest.mark.parametrize("value", ["", ":attr", "a b:c", "mod:attr junk", "mod:"])
    def test_a_value_that_names_no_module_is_refused(self, value: str) -> None:
        with pytest.raises(ValueError, match="is not 'module:attribute'"):
            EntryPoint("x", value, GROUP, None).load()

    def test_as_the_standard_reader_loads(self) -> None:
        for value in ("os.path:join", "os", "os:sep [x]", "importlib:machinery.PathFinder"):
            standard_ep = importlib.metadata.EntryPoint(name="x", value=value, group=GROUP)
            assert EntryPoint("x", value, GROUP, None).load() is standard_ep.load()

    def test_shown(self) -> None:
        assert (
            repr(EntryPoint("n", "m:A", GROUP, None)) == f"EntryPoint(name='n', value='m:A', group='{GROUP}')"
        )


class TestMetadataDirectory:
    def test_reads_files_and_says_none_for_what_is_not_one(self, tmp_path: Path) -> None:
        info = write(tmp_path, "x-1.dist-info", "[g]\n")
        (info / "sub").mkdir()
        dist = MetadataDirectory(str(info))
        assert dist.read_text("entry_points.txt") == "[g]\n"
        assert dist.read_text("missing") is None
        assert dist.read_text("sub") is None
        assert MetadataDirectory(str(tmp_path / "nowhere")).read_text("METADATA") is None
        assert repr(dist) == f"MetadataDirectory({str(info)!r})"

    def test_metadata_is_the_standard_readers(self, tmp_path: Path) -> None:
        info = write(tmp_path, "x-1.dist-info", None, "name: lower\nversion: 2.0\n")
        meta = MetadataDirectory(str(info)).metadata
        assert (meta["Name"], meta["Version"]) == ("lower", "2.0")

    def test_text_that_is_not_utf8_raises_as_the_standard_reader_does(self, tmp_path: Path) -> None:
        info = write(tmp_path, "x-1.dist-info", b"\xff")
        with pytest.raises(UnicodeDecodeError):
            MetadataDirectory(str(info)).read_text("entry_points.txt")
        with pytest.raises(UnicodeDecodeError):
            importlib.metadata.PathDistribution(info).read_text("entry_points.txt")


class TestNames:
    @pytest.mark.parametrize(
        ("stem", "name"),
        [
            ("Foo.Bar-1.0.dist-info", "foo_bar"),
            ("foo__bar-2.egg-info", "foo_bar"),
            ("A-.dist-info", "a"),
            ("x._y-1.dist-info", "x_y"),
            ("plain.dist-info", "plain"),
        ],
    )
    def test_a_directory_names_its_distribution_as_pep_503_does(self, stem: str, name: str) -> None:
        assert entrypoints._name(stem) == name

    @pytest.mark.parametrize("stem", ["Foo-1.DIST-INFO", "-1.0.dist-info", "foo-1.dist", ".dist-info"])
    def test_a_name_the_metadata_must_give_is_none(self, stem: str) -> None:
        assert entrypoints._name(stem) is None


class TestSections:
    def test_a_group_whose_name_ends_in_other_characters_is_read_exactly(self, tmp_path: Path) -> None:
        write(tmp_path, "x-1.dist-info", "[X.grp.X]\nmine = m:M\n[.grp.]\nother = o:O\n")
        found = read_directories("X.grp.X", [str(tmp_path)])
        assert found is not None
        assert [ep.name for ep in found[0]] == ["mine"]

    def test_lines_before_the_first_section_belong_to_no_group(self, tmp_path: Path) -> None:
        write(tmp_path, "x-1.dist-info", "loose = l:L\n[g]\nkept = k:K\n")
        assert read_directories("", [str(tmp_path)]) == ([], [])
        assert standard([str(tmp_path)], "") == []
        found = read_directories("g", [str(tmp_path)])
        assert found is not None
        assert [ep.name for ep in found[0]] == ["kept"]

    def test_a_line_is_a_section_only_when_bracketed_at_both_ends(self, tmp_path: Path) -> None:
        write(tmp_path, "x-1.dist-info", "[g]\nextras = m:A [x]\n[half = h:H\n")
        found = read_directories("g", [str(tmp_path)])
        assert found is not None
        assert [(ep.name, ep.value) for ep in found[0]] == [("extras", "m:A [x]"), ("[half", "h:H")]
        assert [(row[0], row[1]) for row in standard([str(tmp_path)], "g")] == [
            ("extras", "m:A [x]"),
            ("[half", "h:H"),
        ]

    def test_a_comment_is_no_entry(self, tmp_path: Path) -> None:
        write(tmp_path, "x-1.dist-info", "[g]\n#hidden = c:C\n  # also = c:D\nshown = s:S\n")
        found = read_directories("g", [str(tmp_path)])
        assert found is not None
        assert [ep.name for ep in found[0]] == ["shown"]


def test_many_broken_lines_are_one_warning(tmp_path: Path) -> None:
    write(tmp_path, "odd-1.dist-info", f"[{GROUP}]\n" + "junk\n" * 1000)
    assert read_directories(GROUP, [str(tmp_path)]) == (
        [],
        [f"{tmp_path / 'odd-1.dist-info'}: entry_points.txt [{GROUP}] has 1000 lines without '='; skipped"],
    )


def test_a_hostile_directory_name_cannot_forge_a_line(tmp_path: Path) -> None:
    write(tmp_path, "evil\x1b[2J\nenginekit: error: spoofed-1.dist-info", b"\xff")
    write(tmp_path, "\x1b[31mred-1.dist-info", f"[{GROUP}]\nx\n")
    found = read_directories(GROUP, [str(tmp_path)])
    assert found is not None
    assert len(found[1]) == 2
    for problem in found[1]:
        assert "\n" not in problem
        assert "\x1b" not in problem


def test_a_hand_off_tells_distributions_apart_by_the_standard_readers_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Named from the directory, as importlib.metadata does: a METADATA naming another
    # distribution does not make two one.
    write(tmp_path, "alpha-1.dist-info", f"[{GROUP}]\nalpha = a:A\n", "Name: beta\nVersion: 1\n")
    write(tmp_path, "beta-1.dist-info", f"[{GROUP}]\nbeta = b:B\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    monkeypatch.setattr(entrypoints, "read_directories", lambda group, path: None)
    importlib.invalidate_caches()
    found, problems = entrypoints.entry_points(GROUP)
    assert (
        sorted(ep.name for ep in found)
        == ["alpha", "beta"]
        == sorted(row[0] for row in standard([str(tmp_path)]))
    )
    assert problems == []


def test_a_finders_distribution_that_breaks_is_named_as_such(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken(importlib.metadata.Distribution):
        def read_text(self, filename: str) -> str | None:
            return {
                "METADATA": "Name: finder-made\nVersion: 1\n",
                "entry_points.txt": "[x]\nno equals\n",
            }.get(filename)

        def locate_file(self, path: object) -> Path:
            raise NotImplementedError

    class Finder:
        @staticmethod
        def find_distributions(context: object = None) -> Iterator[importlib.metadata.Distribution]:
            return iter([Broken()])

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder])
    found, problems = entrypoints.entry_points(GROUP)
    assert "a distribution a finder lists: its entry points are unreadable (TypeError); skipped" in problems
    assert all(ep.group == GROUP for ep in found)


def test_a_value_holding_an_equals_sign_is_split_at_the_first(tmp_path: Path) -> None:
    write(tmp_path, "x-1.dist-info", f"[{GROUP}]\ne = a = b\n")
    assert ours([str(tmp_path)]) == standard([str(tmp_path)])
    found = read_directories(GROUP, [str(tmp_path)])
    assert found is not None
    assert [(ep.name, ep.value) for ep in found[0]] == [("e", "a = b")]
