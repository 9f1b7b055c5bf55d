"""Every distribution's packaging metadata agrees: one license text, one license declaration, one build floor."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
# Each distribution builds from its own folder and may only ship files inside it, so each
# holds a copy of the repository's LICENSE; these tests keep the copies identical.
DISTRIBUTIONS = [ROOT / "core", *sorted((ROOT / "plugins").glob("*/")), ROOT / "templates" / "engine-plugin"]
IDS = [str(path.relative_to(ROOT)) for path in DISTRIBUTIONS]
PYTHONS = ["3.10", "3.11", "3.12", "3.13"]


def pyproject(path: Path) -> dict[str, Any]:
    return tomllib.loads((path / "pyproject.toml").read_text())


def core_version() -> str:
    text = (ROOT / "core" / "src" / "enginekit" / "_version.py").read_text()
    found = re.search(r'^__version__ = "([^"]+)"$', text, re.MULTILINE)
    assert found, "core/src/enginekit/_version.py: no __version__ line"
    return found.group(1)


def test_the_license_is_apache_2_with_the_projects_copyright_line() -> None:
    lines = (ROOT / "LICENSE").read_text().splitlines()
    assert lines[0] == "Copyright 2026 The enginekit authors"
    assert lines[2].strip() == "Apache License"
    assert lines[3].strip() == "Version 2.0, January 2004"
    assert "END OF TERMS AND CONDITIONS" in (line.strip() for line in lines)


@pytest.mark.parametrize("path", DISTRIBUTIONS, ids=IDS)
def test_each_distribution_ships_the_repositorys_license_unchanged(path: Path) -> None:
    assert (path / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes(), (
        f"cp LICENSE {path.relative_to(ROOT)}/"
    )


@pytest.mark.parametrize("path", DISTRIBUTIONS, ids=IDS)
def test_each_distribution_declares_the_license_as_pep_639_says(path: Path) -> None:
    project = pyproject(path)["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    # PEP 639 deprecates license classifiers beside an SPDX expression; PyPI refuses both.
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]


@pytest.mark.parametrize("path", DISTRIBUTIONS, ids=IDS)
def test_each_distribution_builds_with_a_hatchling_that_writes_pep_639_metadata(path: Path) -> None:
    # hatchling 1.26 takes the same pyproject.toml but writes a legacy License field, no License-File.
    assert pyproject(path)["build-system"]["requires"] == ["hatchling>=1.27"]


@pytest.mark.parametrize("path", DISTRIBUTIONS, ids=IDS)
def test_each_distribution_says_who_made_it_and_what_it_runs_on(path: Path) -> None:
    project = pyproject(path)["project"]
    assert project["authors"] == [{"name": "The enginekit authors"}]
    assert project["requires-python"] == f">={PYTHONS[0]}"
    classifiers = set(project["classifiers"])
    assert {f"Programming Language :: Python :: {v}" for v in PYTHONS} <= classifiers
    assert {
        "Development Status :: 3 - Alpha",
        "Typing :: Typed",
        "Operating System :: POSIX :: Linux",
    } <= classifiers
    assert (path / project["readme"]).is_file()
    # Nothing is published yet: a readme link relative to the repository would break on an index.
    assert not re.search(r"\]\((?!https?://|#)", (path / project["readme"]).read_text())


def test_the_core_version_is_written_once_and_read_by_the_build() -> None:
    config = pyproject(ROOT / "core")
    assert "version" not in config["project"]
    assert config["project"]["dynamic"] == ["version"]
    assert config["tool"]["hatch"]["version"]["path"] == "src/enginekit/_version.py"


@pytest.mark.parametrize("path", DISTRIBUTIONS[1:], ids=IDS[1:])
def test_each_plugin_accepts_the_core_of_this_repository(path: Path) -> None:
    wanted = [Requirement(r) for r in pyproject(path)["project"]["dependencies"] if r.startswith("enginekit")]
    assert len(wanted) == 1
    assert wanted[0].specifier.contains(core_version()), f"{wanted[0]} refuses the core's {core_version()}"
