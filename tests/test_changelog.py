"""CHANGELOG.md: Keep a Changelog's shape, a Plugin API section in every release, every deprecation listed."""

from __future__ import annotations

import re
from pathlib import Path

import enginekit
import pytest
from enginekit.base.deprecation import REMOVED_IN
from enginekit.base.moved import FIRST_RELEASE_MODULES

ROOT = Path(__file__).resolve().parent.parent
CHANGELOG = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
#: ``## [1.0.0] - 2026-12-05`` or ``## [Unreleased]``, and the text up to the next one.
ENTRIES = re.findall(
    r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?\n(.*?)(?=^## \[|\Z)", CHANGELOG, re.M | re.S
)


def test_the_entries_are_unreleased_then_releases_newest_first() -> None:
    versions = [version for version, _, _ in ENTRIES]
    assert versions[0] == "Unreleased"
    released = [tuple(int(n) for n in v.split(".")) for v in versions[1:]]
    assert released == sorted(released, reverse=True)
    assert all(date for version, date, _ in ENTRIES[1:])


def test_the_newest_release_is_this_cores_version() -> None:
    assert ENTRIES[1][0] == enginekit.__version__


@pytest.mark.parametrize(("version", "body"), [(v, b) for v, _, b in ENTRIES], ids=[v for v, _, _ in ENTRIES])
def test_every_entry_has_a_plugin_api_section(version: str, body: str) -> None:
    assert "\n### Plugin API\n" in f"\n{body}"


def test_every_deprecated_name_is_listed_with_the_release_that_removes_it() -> None:
    deprecated = CHANGELOG[CHANGELOG.index(f"#### Deprecated (removed in {REMOVED_IN})") :]
    for name in [
        *FIRST_RELEASE_MODULES,
        "enginekit.plan.LaunchPlan",
        "managed_option_problems(profile_name, args_list",
        "code_loading_problems(profile_name, args_list",
        "positional_problems(profile_name, args_list",
        "Command.environment(inherited)",
        "secret_env",
    ]:
        assert f"`{name}" in deprecated, name


def test_the_plugin_guide_links_the_changelog() -> None:
    guide = (ROOT / "docs" / "writing-an-engine-plugin.md").read_text(encoding="utf-8")
    assert "](../CHANGELOG.md)" in guide
