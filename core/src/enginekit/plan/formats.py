"""The versioned JSON formats: the plan's format version, the rule for reading it, the published schemas."""

from __future__ import annotations

import re
from typing import Any

from enginekit.base.errors import SpecError

#: The version of the JSON plan :meth:`LaunchPlan.to_dict` writes, as ``MAJOR.MINOR``.
#: A minor release adds optional fields only; anything else is a new major version.
FORMAT_VERSION = "1.4"

#: Each published schema, by the name ``enginekit schema`` takes.
SCHEMA_FILES = {
    "spec": "shard-spec.schema.json",
    "spec-go": "shard-spec-go.schema.json",
    "plan": "launch-plan.schema.json",
}

#: ``MAJOR.MINOR``: a major written as a number is (``01`` is no major version).
_VERSION = re.compile(r"(0|[1-9][0-9]{0,5})\.([0-9]{1,6})")


def schema_text(kind: str) -> str:
    """The JSON Schema (draft 2020-12) of a published format, as shipped: ``spec``, ``spec-go`` or ``plan``.

    :raises KeyError: for any other kind.
    """
    # Imported here: every plan names FORMAT_VERSION, and only ``enginekit schema`` reads a
    # schema; importlib.resources brings tempfile and random with it.
    from importlib import resources

    return (resources.files("enginekit.plan") / "schemas" / SCHEMA_FILES[kind]).read_text(encoding="utf-8")


def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of a published format, parsed (see :func:`schema_text`)."""
    import json

    loaded: dict[str, Any] = json.loads(schema_text(kind))
    return loaded


def newer_minor(version: object, where: str) -> bool:
    """Whether a document of ``version`` is readable here, and from a newer minor release.

    A reader of 1.x reads every 1.y: a newer minor only adds optional fields, which are
    left out (and an older reader never sees a field it does not know is optional).

    :raises SpecError: for a missing or malformed version, or another major version.
    """
    ours = _VERSION.fullmatch(FORMAT_VERSION)
    found = _VERSION.fullmatch(version) if isinstance(version, str) else None
    if ours is None or found is None:
        shown = repr(version)[:40] if isinstance(version, str | int | float) else type(version).__name__
        raise SpecError([f"{where}: expected a version like {FORMAT_VERSION!r}, got {shown}"])
    if found.group(1) != ours.group(1):
        raise SpecError(
            [f"{where}: format {version} is not one this enginekit reads (it reads {ours.group(1)}.x)"]
        )
    return int(found.group(2)) > int(ours.group(2))
