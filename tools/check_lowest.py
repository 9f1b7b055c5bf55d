"""CI, after a lowest-direct sync: every lower bound the repository states is the version installed."""

from __future__ import annotations

import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
MEMBERS = [ROOT / "core", *sorted((ROOT / "plugins").glob("*/"))]


def stated() -> list[tuple[str, Requirement]]:
    """Each workspace member's dependencies, then the dev group's, with who states them."""
    found: list[tuple[str, Requirement]] = []
    for path in MEMBERS:
        project = tomllib.loads((path / "pyproject.toml").read_text())["project"]
        found += [(project["name"], Requirement(line)) for line in project["dependencies"]]
    groups = tomllib.loads((ROOT / "pyproject.toml").read_text())["dependency-groups"]
    found += [("dev group", Requirement(line)) for line in groups["dev"] if isinstance(line, str)]
    return found


def main() -> None:
    members = {owner for owner, _ in stated() if owner != "dev group"}
    print(f"lowest: Python {platform.python_version()}")
    problems = []
    for owner, requirement in stated():
        if requirement.name in members or (requirement.marker and not requirement.marker.evaluate()):
            continue  # the workspace's own distributions; a requirement for another Python
        floors = [Version(spec.version) for spec in requirement.specifier if spec.operator in (">=", "==")]
        if not floors:
            continue
        try:
            installed = Version(version(requirement.name))
        except PackageNotFoundError:
            problems.append(f"{requirement.name} ({owner}) is not installed")
            continue
        print(f"lowest: {requirement.name} {installed} ({owner}: {requirement.specifier})")
        if installed != max(floors):
            problems.append(f"{requirement.name} {installed} is not {owner}'s stated floor {max(floors)}")
    if problems:
        raise SystemExit("check_lowest: " + "\ncheck_lowest: ".join(problems))


if __name__ == "__main__":
    main()
