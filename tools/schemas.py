"""Write the published JSON Schemas from the attrs model they describe, or check the shipped ones match.

The shard spec's schema comes from ``ShardSpec`` (and ``Profile``, ``Adapter``), the
plan's from the classes ``LaunchPlan.from_dict`` reads it with, so a field added to the
model and not to the schema fails ``--check`` (run by the test suite)::

    python tools/schemas.py          # rewrite core/src/enginekit/plan/schemas/*.json
    python tools/schemas.py --check  # exit 1, naming the stale files, when they differ
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
from enginekit.plan.formats import FORMAT_VERSION, SCHEMA_FILES
from enginekit.plan.leader import LEADER_EXIT_CHOICES
from enginekit.plan.reading import _PlanDoc
from enginekit.spec.convert import INT64_MAX, INT64_MIN
from enginekit.spec.model import GO_NAMES, ShardSpec

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "core" / "src" / "enginekit" / "plan" / "schemas"
DIALECT = "https://json-schema.org/draft/2020-12/schema"
#: The schemas' identifiers: names, not addresses; nothing is fetched from them.
ID_BASE = "urn:enginekit:schema:"

#: What each plan field holds, for fields whose reading class has no comment of its own.
PLAN_NOTES = {
    "format_version": "MAJOR.MINOR of this format. A reader of 1.x reads every 1.y, leaving out "
    "fields it does not know; another major version is refused.",
    "engine": "The engine that builds and runs the shard; the same as shard.profile.engine.",
    "shard": "The shard spec the plan was built from; its api_key is '<secret>' unless written "
    "with secrets shown.",
    "commands": "In start order: every command but the last is a sidecar kept alive for the shard's "
    "lifetime; the last one's exit is the shard's exit.",
    "serves_http": "Whether this shard answers the API (only the leader of a multi-node replica does).",
    "health_path": "The path of the engine's health endpoint.",
    "metrics_path": "The path of the engine's Prometheus metrics endpoint.",
    "notes": "What an operator should know about how this shard will run.",
    "dropped_env": "Profile variables the site's env policy kept out of the environment, and why.",
    "on_leader_exit": "What a supervisor must do with this worker rank when its leader's process goes: "
    "'stops' (it exits by itself) or 'must_be_stopped' (it keeps running until stopped); '' for the "
    "leader. Absent (written before format 1.1): '' for the leader, 'must_be_stopped' for a worker.",
    "leader_watch_port": "Where a supervisor watches for the leader's end when on_leader_exit is "
    "'must_be_stopped': a port at shard.leader_addr (shard.leader_port, or the leader's API server's "
    "where the engine closes that once its group has formed); 0 otherwise. Absent (written before "
    "format 1.2): shard.leader_port where one is watched.",
    "replica_id": "Derived: shard.replica_id.",
    "shard_id": "Derived: shard.shard_id.",
    "profile": "Derived: shard.profile.name.",
    "rank": "Derived: shard.rank.",
    "nnodes": "Derived: shard.nnodes.",
    "base_url": "Derived: where the shard's API answers, from this node; null when it serves no HTTP.",
    "health_url": "Derived: base_url + health_path; null when the shard serves no HTTP.",
    "metrics_url": "Derived: base_url + metrics_path; null when the shard serves no HTTP.",
    "path": "The program to exec.",
    "args": "Its arguments, after the program.",
    "env": "The variables enginekit generates, merged over the inherited environment at launch.",
    "name": "Distinguishes the processes of a multi-process shard in logs.",
    "wait_for_leader_port": "Hold this command until leader_addr:leader_port accepts a connection.",
    "secret_env": "Names of env variables whose values are secret; '<secret>' unless shown.",
    "why": "Why each generated variable is set, by name.",
    "shell": "Derived: path and args, shell-quoted, for reading.",
    "key": "The variable's name.",
}


def field_notes(cls: type) -> dict[str, str]:
    """The ``#:`` comments above each field of ``cls``, joined into one line per field."""
    notes: dict[str, str] = {}
    pending: list[str] = []
    for line in inspect.getsource(cls).splitlines():
        text = line.strip()
        if text.startswith("#:"):
            pending.append(text[2:].strip())
            continue
        found = re.match(r"(\w+)\s*:", text)
        if found and pending:
            # Plain text for readers outside Python: ``x`` is reStructuredText's code.
            notes[found.group(1)] = " ".join(pending).replace("``", "`")
        pending = []
    return notes


def type_schema(
    tp: Any, defs: dict[str, Any], names: Mapping[type, Mapping[str, str]] | None, *, nullable: bool = False
) -> dict[str, Any]:
    """The schema of one field type; attrs classes go to ``$defs``."""
    origin = typing.get_origin(tp)
    if tp is str:
        return {"type": "string"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer", "minimum": INT64_MIN, "maximum": INT64_MAX}
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(options) != 1:
            raise TypeError(f"no schema for {tp!r}")
        inner = type_schema(options[0], defs, names)
        return {"anyOf": [inner, {"type": "null"}]}
    if origin is tuple:
        item, rest = typing.get_args(tp)
        if rest is not Ellipsis:
            raise TypeError(f"no schema for {tp!r}")
        items = type_schema(item, defs, names, nullable=nullable)
        return {"type": ["array", "null"] if nullable else "array", "items": items}
    if origin is Mapping or tp is Mapping:
        _, value = typing.get_args(tp)
        values = type_schema(value, defs, names, nullable=nullable)
        return {"type": ["object", "null"] if nullable else "object", "additionalProperties": values}
    if attrs.has(tp):
        name = tp.__name__.lstrip("_").removesuffix("Doc")
        if name not in defs:
            defs[name] = {}  # claimed first: a class that holds itself ends here
            defs[name] = class_schema(tp, defs, names, nullable=nullable)
        return {"$ref": f"#/$defs/{name}"}
    raise TypeError(f"no schema for {tp!r}")


def class_schema(
    cls: type, defs: dict[str, Any], names: Mapping[type, Mapping[str, str]] | None, *, nullable: bool = False
) -> dict[str, Any]:
    """An object schema: every field, its type and what it holds; unknown fields refused."""
    # The plan's reading classes are private and uncommented: their notes are kept here.
    notes = (
        {**PLAN_NOTES, **field_notes(cls)} if cls.__module__ == "enginekit.plan.reading" else field_notes(cls)
    )
    rename = (names or {}).get(cls, {})
    properties: dict[str, Any] = {}
    required = []
    for field in attrs.fields(attrs.resolve_types(cls)):
        key = rename.get(field.name, field.name)
        prop = type_schema(field.type, defs, names, nullable=nullable)
        if field.name in notes:
            prop = {"description": notes[field.name], **prop}
        properties[key] = prop
        if field.default is attrs.NOTHING:
            required.append(key)
    doc = (inspect.getdoc(cls) or "").split("\n\n")[0].replace("\n", " ")
    out: dict[str, Any] = {"type": "object"}
    if doc and not cls.__name__.startswith("_"):
        out["description"] = doc
    out |= {"properties": properties, "required": required, "additionalProperties": False}
    return out


def document(kind: str) -> dict[str, Any]:
    """The whole schema of one published format."""
    defs: dict[str, Any] = {}
    names = GO_NAMES if kind == "spec-go" else None
    root = _PlanDoc if kind == "plan" else ShardSpec
    # In a spec, null for a list or table means "not set": Go writes a nil slice or map so.
    body = class_schema(root, defs, names, nullable=kind != "plan")
    title = {
        "spec": "enginekit shard spec",
        "spec-go": "enginekit shard spec, in the Go agent's field names",
        "plan": f"enginekit launch plan, format {FORMAT_VERSION}",
    }[kind]
    if kind == "plan":
        major = FORMAT_VERSION.split(".")[0]
        version = body["properties"]["format_version"]
        # The reader's rule: a minor of at most six digits. ``not`` a newline, because a
        # Python reader's ``$`` also matches before a final one.
        version["pattern"] = rf"^{major}\.[0-9]{{1,6}}$"
        version["not"] = {"pattern": "\n"}
        body["properties"]["commands"]["minItems"] = 1
        body["properties"]["on_leader_exit"]["anyOf"] = [
            {"enum": ["", *LEADER_EXIT_CHOICES]},
            {"type": "null"},
        ]
        body["properties"]["leader_watch_port"]["anyOf"] = [
            {"type": "integer", "minimum": 0, "maximum": 65535},
            {"type": "null"},
        ]
    return {
        "$schema": DIALECT,
        "$id": f"{ID_BASE}{SCHEMA_FILES[kind].removesuffix('.schema.json')}",
        "title": title,
        **body,
        "$defs": dict(sorted(defs.items())),
    }


def rendered(kind: str) -> str:
    return json.dumps(document(kind), indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    stale = []
    for kind, filename in SCHEMA_FILES.items():
        path = SCHEMA_DIR / filename
        text = rendered(kind)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path))
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print("stale schemas (run python tools/schemas.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
