"""CI: check built wheels and sdists carry LICENSE, PEP 639 metadata, py.typed and their entry points."""

from __future__ import annotations

import configparser
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
LICENSE = (ROOT / "LICENSE").read_bytes()
PROJECTS = [ROOT / "core", *sorted((ROOT / "plugins").glob("*/")), ROOT / "templates" / "engine-plugin"]


def one(dist: Path, pattern: str) -> Path:
    """The single file matching ``pattern``: a missing or doubled build is an error."""
    found = sorted(dist.glob(pattern))
    if len(found) != 1:
        raise SystemExit(f"check_dist: expected one {pattern} in {dist}, found {[p.name for p in found]}")
    return found[0]


def entry_points(project: dict[str, Any]) -> dict[str, dict[str, str]]:
    """The entry points pyproject.toml declares, grouped as entry_points.txt groups them."""
    groups = {group: dict(names) for group, names in project.get("entry-points", {}).items()}
    if project.get("scripts"):
        groups["console_scripts"] = dict(project["scripts"])
    return groups


def metadata_problems(text: str, where: str) -> list[str]:
    """PEP 639: the SPDX expression and the license file, and no license classifier beside them."""
    lines = text.splitlines()
    wanted = ("License-Expression: Apache-2.0", "License-File: LICENSE")
    problems = [f"{where}: no {want!r} in its metadata" for want in wanted if want not in lines]
    if any(line.startswith("Classifier: License ::") for line in lines):
        problems.append(f"{where}: a License classifier beside the SPDX expression")
    return problems


def check_wheel(wheel: Path, project: dict[str, Any], package: str) -> list[str]:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        info = next(name.split("/")[0] for name in names if name.split("/")[0].endswith(".dist-info"))
        problems = metadata_problems(zf.read(f"{info}/METADATA").decode(), wheel.name)
        if f"{info}/licenses/LICENSE" not in names or zf.read(f"{info}/licenses/LICENSE") != LICENSE:
            problems.append(f"{wheel.name}: {info}/licenses/LICENSE missing or not the repository's LICENSE")
        if f"{package}/py.typed" not in names:
            problems.append(f"{wheel.name}: no {package}/py.typed")
        parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
        parser.optionxform = str  # type: ignore[assignment,method-assign]  # entry point names keep their case
        parser.read_string(zf.read(f"{info}/entry_points.txt").decode())
    found = {group: dict(parser[group]) for group in parser.sections()}
    if found != entry_points(project):
        problems.append(f"{wheel.name}: entry points {found}, not {entry_points(project)}")
    return problems


def check_sdist(sdist: Path) -> list[str]:
    top = sdist.name.removesuffix(".tar.gz")
    with tarfile.open(sdist) as tf:
        names = set(tf.getnames())
        license_file = tf.extractfile(f"{top}/LICENSE") if f"{top}/LICENSE" in names else None
        pkg_info = tf.extractfile(f"{top}/PKG-INFO") if f"{top}/PKG-INFO" in names else None
        problems = metadata_problems(pkg_info.read().decode() if pkg_info else "", sdist.name)
        if license_file is None or license_file.read() != LICENSE:
            problems.append(f"{sdist.name}: {top}/LICENSE missing or not the repository's LICENSE")
    return problems


def check(path: Path, dist: Path) -> list[str]:
    """Every problem with one distribution's wheel and sdist; prints what was checked when none."""
    config = tomllib.loads((path / "pyproject.toml").read_text())
    project = config["project"]
    package = Path(config["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"][0]).name
    stem = project["name"].replace("-", "_")
    wheel, sdist = one(dist, f"{stem}-*.whl"), one(dist, f"{stem}-*.tar.gz")
    problems = check_wheel(wheel, project, package) + check_sdist(sdist)
    if not problems:
        declared = entry_points(project).items()
        groups = "; ".join(f"{group}: {', '.join(sorted(names))}" for group, names in declared)
        print(f"{wheel.name} + {sdist.name}: LICENSE, License-Expression, {package}/py.typed, {groups}")
    return problems


def main() -> None:
    dist = Path(sys.argv[1])
    problems = [problem for path in PROJECTS for problem in check(path, dist)]
    if problems:
        raise SystemExit("check_dist: " + "\ncheck_dist: ".join(problems))


if __name__ == "__main__":
    main()
