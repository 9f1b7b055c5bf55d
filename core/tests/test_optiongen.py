"""Making option tables from an engine's own parser: argparse and Click, releases merged, the module written."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path

import pytest
from enginekit import plugin as ek
from enginekit.cli.app import main
from enginekit.plugin import OptionTable
from hypothesis import given, settings
from hypothesis import strategies as st


def server_parser(release: str) -> argparse.ArgumentParser:
    """A made-up engine's parser across releases: 1.0 has --no-enable-cache, 1.1 renames it."""
    parser = argparse.ArgumentParser(prog="fake-server")
    parser.add_argument("model")
    parser.add_argument("--port", "-p", type=int)
    parser.add_argument("--tensor-parallel-size", "-tp", type=int)
    parser.add_argument("--trust-remote-code", action="store_true")
    parser.add_argument("--verbose", "-v", action="count")
    parser.add_argument("--lora-modules", nargs="+")
    parser.add_argument("--chat-template", nargs="?")
    parser.add_argument("--hidden", help=argparse.SUPPRESS)
    parser.add_argument("--pair", nargs=2)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--fast", action="store_true")
    group.add_argument("--slow", action="store_false", dest="fast")
    if release == "1.0":
        parser.add_argument("--no-enable-cache", action="store_true")
    else:
        parser.add_argument("--disable-cache", action="store_true")
    return parser


def test_an_argparse_parser_reads_as_every_option_it_matches() -> None:
    read = ek.read_argparse(server_parser("1.0"), "1.0", "fake-server 1.0")
    assert dict(read.options) == {
        "--help": 0,
        "--port": 1,
        "--tensor-parallel-size": 1,
        "--trust-remote-code": 0,
        "--verbose": 0,
        "--lora-modules": "+",
        "--chat-template": "?",
        "--hidden": 1,  # hidden from --help, still parsed
        "--pair": 2,
        "--fast": 0,
        "--slow": 0,
        "--no-enable-cache": 0,
    }
    assert dict(read.aliases) == {
        "-h": "--help",
        "-p": "--port",
        "-tp": "--tensor-parallel-size",
        "-v": "--verbose",
    }


def test_an_option_taking_the_rest_is_a_list() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rest", nargs=argparse.REMAINDER)
    assert ek.read_argparse(parser, "1", "s").options["--rest"] == "*"


def test_a_click_command_reads_as_its_options() -> None:
    # Click is the dev group's (the core does not depend on it): the workspace run has it.
    click = pytest.importorskip("click")

    @click.command()
    @click.argument("model")
    @click.option("--port", "-p", type=int)
    @click.option("--tp_size", type=int)
    @click.option("--trust_remote_code", is_flag=True)
    @click.option("--backend/--no-backend", default=True)
    @click.option("--extra", multiple=True)
    @click.option("--pair", nargs=2)
    @click.option("-v", "--verbose", count=True)
    @click.option("-q", is_flag=True)
    @click.option("-n", type=int)
    def serve(**_: object) -> None:
        """serve."""

    read = ek.read_click(serve, "2.0", "click 2.0")
    assert (read.release, read.source) == ("2.0", "click 2.0")
    assert dict(read.options) == {
        "-q": 0,
        "-n": 1,
        "--port": 1,
        "--tp_size": 1,
        "--trust_remote_code": 0,
        "--backend": 0,
        "--no-backend": 0,
        "--extra": 1,
        "--pair": 2,
        "--verbose": 0,
        "--help": 0,
    }
    assert dict(read.aliases) == {"-p": "--port", "-v": "--verbose"}


def test_releases_merge_into_ranges_and_a_rename_is_found() -> None:
    reads = [ek.read_argparse(server_parser(r), r, f"fake {r}") for r in ("1.0", "1.1")]
    document = ek.option_document(
        engine="fake", program="fake-server", generator="gen", reads=reads, renames=ek.find_renames(reads)
    )
    assert document["options"]["--port"] == {"takes": 1, "in": [["1.0", "1.1"]]}
    assert document["options"]["--no-enable-cache"] == {"takes": 0, "in": [["1.0", "1.0"]]}
    assert document["options"]["--disable-cache"] == {"takes": 0, "in": [["1.1", "1.1"]]}
    assert document["renames"] == {"--no-enable-cache": {"to": "--disable-cache", "since": "1.1"}}
    assert ek.check_option_document(document) == []
    # Read back per release, as it was read.
    assert [dict(r.options) for r in ek.document_reads(document)] == [dict(r.options) for r in reads]


def test_a_release_merged_later_lands_in_version_order_and_replaces_its_namesake() -> None:
    first = ek.option_document(
        engine="fake",
        program="fake-server",
        generator="gen",
        reads=[ek.read_argparse(server_parser("1.1"), "1.1", "a")],
    )
    merged = ek.merge_release(first, ek.read_argparse(server_parser("1.0"), "1.0", "b"))
    assert [entry["release"] for entry in merged["releases"]] == ["1.0", "1.1"]
    assert merged["renames"] == {"--no-enable-cache": {"to": "--disable-cache", "since": "1.1"}}
    again = ek.merge_release(merged, ek.read_argparse(server_parser("1.0"), "1.0", "c"))
    assert [entry["source"] for entry in again["releases"]] == ["c", "a"]


def test_the_module_reads_back_checks_and_refuses_what_would_not(tmp_path: Path) -> None:
    document = ek.option_document(
        engine="fake",
        program="fake-server",
        generator="gen",
        reads=[ek.read_argparse(server_parser("1.0"), "1.0", "s")],
    )
    path = tmp_path / "pkg" / "options_table.py"
    ek.write_table_module(document, path)
    assert ek.read_table_module(path.read_text()) == document
    assert ek.check_table_module(path) == []
    path.write_text(path.read_text().replace('"takes": 2', '"takes":  2'))
    assert ek.check_table_module(path) == [
        f"{path}: not what the writer makes of its document (edited by hand?)"
    ]
    path.write_text("TABLE = 1\n")
    assert ek.check_table_module(path)[0].startswith(f"{path}: not an option table module")
    broken = dict(document, releases=[{"release": "1.0", "source": "a ''' quote"}])
    with pytest.raises(ValueError, match="which would end the string"):
        ek.table_module_text(broken)
    with pytest.raises(ValueError, match="format"):
        ek.table_module_text(dict(document, format=9))


# No deadline: each example builds argparse parsers, and a loaded CI machine once took 390 ms.
@settings(deadline=None)
@given(st.lists(st.sampled_from(["1.0", "1.1", "1.2", "2.0"]), min_size=1, max_size=6))
def test_merging_releases_in_any_order_gives_one_document(order: list[str]) -> None:
    def read(r: str) -> ek.ReleaseRead:
        return ek.read_argparse(server_parser("1.0" if r == "1.0" else "1.1"), r, f"s{r}")

    document = ek.option_document(engine="f", program="f", generator="g", reads=[read(order[0])])
    for release in order[1:]:
        document = ek.merge_release(document, read(release))
    expected = sorted(set(order), key=lambda r: tuple(map(int, r.split("."))))
    assert [entry["release"] for entry in document["releases"]] == expected
    assert ek.check_option_document(document) == []


# --- a third party, with the shipped tooling alone --------------------------------------------


ENGINE = '''
"""A third party's engine: its own argparse parser, per release."""
import argparse


def make_parser():
    parser = argparse.ArgumentParser(prog="tiny-server")
    parser.add_argument("--port", type=int)
    parser.add_argument("--max-batch", type=int)
    parser.add_argument({flag!r}, action="store_true")
    return parser
'''


def test_a_third_party_generates_its_table_with_the_command_and_plans_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    table = tmp_path / "tiny_plugin" / "options_table.py"
    (tmp_path / "tiny_plugin").mkdir()
    (tmp_path / "tiny_plugin" / "__init__.py").write_text('"""tiny."""\n')
    for release, flag, module in (
        ("3.0", "--no-enable-warmup", "tiny_engine_a"),
        ("3.1", "--disable-warmup", "tiny_engine_b"),
    ):
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(ENGINE.format(flag=flag)))
        args = ["option-table", str(table), "--parser", f"{module}:make_parser", "--release", release]
        if release == "3.0":
            args += ["--engine", "tiny", "--program", "tiny-server", "--generator", "enginekit option-table"]
        assert main(args) == 0
        assert capsys.readouterr().out.startswith(f"{table}: 4 options of tiny-server {release}; releases ")
    assert main(["option-table", "--check", str(table)]) == 0
    assert "well formed" in capsys.readouterr().out
    sys.modules.pop("tiny_plugin.options_table", None)
    options = OptionTable.from_package("tiny_plugin").for_release("3.0", setting="[engines.tiny] version")
    syntax = ek.ArgSyntax(known=OptionTable.from_package("tiny_plugin").options)
    problems = options.unknown_problems(
        "p",
        syntax.parse(["--disable-warmup", "--max-batch", "8"]),
        allowed=(),
        config_key="engines.tiny.allow_args",
    )
    assert problems == [
        "profile 'p': args: '--disable-warmup' is not an option of tiny-server 3.0: it is from 3.1 on, where it "
        "replaced --no-enable-warmup; use --no-enable-warmup instead"
    ]
    document = json.loads(json.dumps(ek.read_table_module(table.read_text())))
    assert document["renames"] == {"--no-enable-warmup": {"to": "--disable-warmup", "since": "3.1"}}


def test_the_command_says_what_is_wrong_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "options_table.py"
    assert main(["option-table", str(table), "--parser", "nomodule", "--release", "1"]) == 2
    assert "expected MODULE:ATTR" in capsys.readouterr().err
    assert main(["option-table", str(table), "--parser", "argparse:ArgumentParser", "--release", "1"]) == 2
    assert "a new table needs --engine, --program, --generator" in capsys.readouterr().err
    assert main(["option-table", str(table), "--parser", "json:dumps", "--release", "1"]) == 2
    assert "calling it raised TypeError" in capsys.readouterr().err
    assert main(["option-table", str(table), "--parser", "json:JSONDecoder", "--release", "1"]) == 2
    assert "not an argparse or Click parser" in capsys.readouterr().err
    assert main(["option-table", str(table)]) == 2
    assert "--parser and --release are needed" in capsys.readouterr().err
    assert main(["option-table", "--check", str(table)]) == 1
    assert not table.exists()
