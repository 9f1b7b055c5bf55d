"""Shard specs in and out: from a file, text or document; to JSON in enginekit's or the Go agent's names."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import attrs

from enginekit.base.errors import SpecError
from enginekit.spec.documents import read_document
from enginekit.spec.model import ShardSpec, spec_from_document


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
        spec, unknown = spec_from_document(raw, where=where, lenient=lenient)
    except SpecError as exc:
        if not name:
            raise
        raise SpecError([p if p.startswith(f"{name}: ") else f"{name}: {p}" for p in exc.problems]) from None
    return LoadedSpec(spec, tuple(unknown))
