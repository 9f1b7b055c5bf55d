"""Shard specs in and out: from a file, text or document; to JSON in enginekit's or the Go agent's names."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from enginekit.contract import MASK, masked
from enginekit.convert import (
    entries_named,
    folded_names,
    load_document,
    parse_document,
    structure,
    unstructure,
)
from enginekit.errors import SpecError
from enginekit.model import Adapter, Profile, ShardSpec

#: The field names the Go agent's encoding/json reads and writes, by class and field.
#: Untagged Go fields are matched by their Go name, case-insensitively but never across
#: an underscore, so ``replica_id`` is not ``ReplicaID`` to it; tagged ones by their tag.
GO_NAMES: Mapping[type, Mapping[str, str]] = {
    ShardSpec: {
        "replica_id": "ReplicaID",
        "shard_id": "ShardID",
        "rank": "Rank",
        "nnodes": "NNodes",
        "leader_addr": "LeaderAddr",
        "leader_port": "LeaderPort",
        "gpu_indices": "GPUIndices",
        "gpu_uuids": "gpu_uuids",
        "hcas": "HCAs",
        "mgmt_interface": "MgmtInterface",
        "gid_index": "GIDIndex",
        "http_port": "HTTPPort",
        "profile": "Profile",
        "bind_addr": "bind_addr",
        "api_key": "api_key",
        "kv_events_port": "kv_events_port",
        "threads": "threads",
        "kv_cache_mib": "kv_cache_mib",
        "pool": "Pool",
        "fabric": "Fabric",
        "profile_fp": "ProfileFP",
    },
    Profile: {
        "name": "Name",
        "engine": "Engine",
        "gpu_class": "GPUClass",
        "tp": "TP",
        "pp": "PP",
        "gpus_per_node": "GPUsPerNode",
        "nodes": "Nodes",
        "args": "Args",
        "env": "Env",
        "model_path": "ModelPath",
        "served_model_name": "ServedModelName",
        "adapters": "Adapters",
        "kv_events": "kv_events",
    },
    Adapter: {"name": "name", "path": "path"},
}

#: Keys only a node config has, folded as structuring folds them.
_NODE_CONFIG_KEYS = frozenset({"disabled", "enabled", "lenient", "envpolicy", "installed", "engines"})


@attrs.frozen
class LoadedSpec:
    """A shard spec as loaded, and what loading it ignored."""

    spec: ShardSpec
    #: ``"spec.field: unknown field"`` for each key left out; only ever non-empty when
    #: loaded with ``lenient=True``, for version skew with a newer control plane.
    unknown: tuple[str, ...] = ()


def load_spec(
    source: str | os.PathLike[str] | Mapping[str, Any], *, lenient: bool = False, name: str = ""
) -> LoadedSpec:
    """Load a shard spec with its profile, its shape and types checked as strictly as ``render`` does.

    The rules (ports in range, keys long enough, the engine's flags) are the engine's to
    apply: :meth:`Engine.plan` and :meth:`Engine.validate` apply them.

    :param source: a :class:`pathlib.Path` (or any path-like) is a TOML or JSON file, read
        with the size and nesting limits; a ``str`` is the document's text (TOML or JSON);
        a mapping is an already parsed document. Field names may be enginekit's
        (``replica_id``) or the Go agent's (``ReplicaID``); unknown fields are an error.
    :param lenient: unknown fields are reported in :attr:`LoadedSpec.unknown` instead.
    :param name: what to call the document in messages; given, every problem starts with
        it (``shard-7: spec.profile.tp: …``), so a caller loading many can tell them apart.
    :raises SpecError: listing every problem, each naming its field
        (``spec.profile.tp: expected an integer, got str '8'``).
    """
    try:
        raw = read_document(source, name)
        where = name or (str(source) if isinstance(source, os.PathLike) else "spec")
        if looks_like_node_config(raw):
            raise SpecError([f"{where}: a node config, not a shard spec (it has no profile)"])
        spec, unknown = structure(raw, ShardSpec, path="spec", lenient=lenient)
        if spec.api_key == MASK:
            raise SpecError(
                [f"spec.api_key: holds the mask {MASK!r}, not a key: write the spec with show_secrets=True"]
            )
    except SpecError as exc:
        if not name:
            raise
        raise SpecError([p if p.startswith(f"{name}: ") else f"{name}: {p}" for p in exc.problems]) from None
    return LoadedSpec(spec, tuple(unknown))


def read_document(source: object, name: str) -> Mapping[str, Any]:
    """A spec document from a path-like (a bounded TOML or JSON file), its text, or a mapping.

    Shard specs and replica specs are read by this one reader.

    :raises SpecError: naming ``name`` (``spec`` when empty) and what is wrong.
    """
    if isinstance(source, Mapping):
        return source
    if isinstance(source, os.PathLike):
        return load_document(Path(source))
    if isinstance(source, str):
        try:
            return parse_document(source, name=name or "spec")
        except SpecError as exc:
            if "\n" not in source and source.strip().endswith((".toml", ".json")):
                # The one mistake every first caller makes: a path given as a str.
                hint = f"a str is the document's text; to read the file {source!r}, pass a pathlib.Path"
                raise SpecError([*exc.problems, hint]) from None
            raise
    raise SpecError(
        [f"{name or 'spec'}: expected a path, a document's text or a mapping, got {type(source).__name__}"]
    )


def dump_spec(spec: ShardSpec, *, go_names: bool = False, show_secrets: bool = False) -> dict[str, Any]:
    """The spec as JSON-ready data that :func:`load_spec` reads back equal.

    :param go_names: write the Go agent's field names (``ReplicaID``, ``GPUIndices``), so
        an agent decoding with encoding/json reads every field; enginekit reads both.
    :param show_secrets: write the API key; otherwise it is replaced by a mask, which
        :func:`load_spec` refuses, so a masked spec is never mistaken for a usable one.
    """
    data: dict[str, Any] = unstructure(spec)
    if spec.api_key and not show_secrets:
        # Wherever it was pasted (an env value, an argument), the key is shown as the mask.
        data = scrubbed(data, spec.api_key)
        data["api_key"] = MASK
    return _renamed(data, ShardSpec) if go_names else data


def scrubbed(value: Any, secret: str, *, names: bool = False) -> Any:
    """JSON-ready ``value`` with ``secret`` masked in every value, whatever put it where.

    Mapping keys are masked only where they are data (``names``: the variable names of an
    ``env`` or ``why`` table), never the format's own field names, which a short key could
    otherwise rewrite into a document no reader understands.
    """
    if not secret:
        return value
    if isinstance(value, str):
        return masked(value, secret)
    if isinstance(value, dict):
        return {
            (masked(k, secret) if names else k): scrubbed(v, secret, names=not names and k in _NAMED_TABLES)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [scrubbed(v, secret) for v in value]
    return value


#: The fields whose tables are keyed by data (variable names), not by the format's names.
_NAMED_TABLES = frozenset({"env", "why"})


def _renamed(data: dict[str, Any], cls: type) -> dict[str, Any]:
    names = GO_NAMES[cls]
    out = {names[key]: value for key, value in data.items()}
    if cls is ShardSpec:
        out[names["profile"]] = _renamed(data["profile"], Profile)
    elif cls is Profile:
        out[names["adapters"]] = [_renamed(item, Adapter) for item in data["adapters"]]
    return out


def holds_profile(raw: Mapping[str, Any]) -> bool:
    """Whether a document is a shard spec: it has a profile, however the key is spelled."""
    return bool(entries_named(raw, "profile"))


def looks_like_node_config(raw: Mapping[str, Any]) -> bool:
    """Whether a document given as a shard spec is a node config: config keys and no profile."""
    return not holds_profile(raw) and bool(folded_names(raw) & _NODE_CONFIG_KEYS)
