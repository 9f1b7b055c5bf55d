"""Documents before they are specs: read from a path, text or mapping, told apart, a key masked in them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from enginekit.base.errors import SpecError
from enginekit.base.secrets import masked
from enginekit.spec.convert import entries_named, folded_names, load_document, parse_document

#: Keys only a node config has, folded as structuring folds them.
_NODE_CONFIG_KEYS = frozenset({"disabled", "enabled", "lenient", "envpolicy", "installed", "engines"})


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


def holds_profile(raw: Mapping[str, Any]) -> bool:
    """Whether a document is a shard spec: it has a profile, however the key is spelled."""
    return bool(entries_named(raw, "profile"))


def looks_like_node_config(raw: Mapping[str, Any]) -> bool:
    """Whether a document given as a shard spec is a node config: config keys and no profile."""
    return not holds_profile(raw) and bool(folded_names(raw) & _NODE_CONFIG_KEYS)
