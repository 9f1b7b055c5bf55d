"""Writes an option table as the module a plugin ships (``options_table.py``), and reads one back."""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: The module's name inside each plugin package: ``OptionTable.from_package`` imports it.
MODULE = "options_table.py"
_QUOTES = "'" * 3


def table_text(doc: Mapping[str, Any]) -> str:
    """The module's source: a docstring and ``TABLE``, the JSON document as a string.

    A module rather than a data file: the plugin imports it, so reading it is no file
    access inside a hook. A string rather than a dict literal: importing a literal of
    hundreds of options runs the bytecode that builds it (about 30 ms), where a string is
    loaded whole from the compiled file and ``json`` reads it in about a millisecond.
    """
    body = json.dumps(doc, indent=1, ensure_ascii=True)
    if _QUOTES in body:
        raise ValueError(f"the table's text holds {_QUOTES}, which would end the string")
    docstring = (
        f"{doc['program']}'s options per release, written by {doc['generator']} from each "
        f"release's own parser: do not edit."
    )
    text = f'"""{docstring}"""\n\nTABLE = r{_QUOTES}{body}{_QUOTES}\n'
    if read_table(text) != doc:
        raise ValueError("the table does not read back equal")
    return text


def read_table(text: str) -> Any:
    """The document a module's source holds in ``TABLE``, read without running the module."""
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["TABLE"]:
            return json.loads(ast.literal_eval(node.value))
    raise ValueError("no TABLE in the module")


def write_table(doc: Mapping[str, Any], out: Path) -> None:
    """Write ``doc`` to ``out`` (a plugin's ``options_table.py``), checking its shape first."""
    from enginekit.policy.optiontable import check_option_document

    problems = check_option_document(doc)
    if problems:
        raise ValueError(f"{out}: {'; '.join(problems)}")
    out.write_text(table_text(doc), encoding="utf-8")
