"""What the command reads: a spec or profile from a file or stdin, and a GPU list, all bounded."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

import attrs

from enginekit.base.errors import SpecError
from enginekit.spec.convert import (
    MAX_DOCUMENT_BYTES,
    decoded,
    load_document,
    parse_any,
    parse_document,
    read_text,
    structure,
)
from enginekit.spec.io import load_spec
from enginekit.spec.model import GPUInfo, ShardSpec

#: The SPEC argument that means "read it from stdin".
STDIN = "-"
#: How messages name stdin, as they name a file by its path.
STDIN_NAME = "<stdin>"


def read_document(source: str, stdin: IO[str] | None) -> tuple[Mapping[str, Any], str]:
    """The parsed document ``source`` names (a path, or ``-`` for stdin) and the name messages use."""
    if source != STDIN:
        path = Path(source)
        return load_document(path), str(path)
    text = read_stdin(stdin)
    # A spec is a table: a JSON one starts with "{", which no TOML document can.
    suffix = ".json" if text.lstrip()[:1] == "{" else ".toml"
    return parse_document(text, name=STDIN_NAME, suffix=suffix), STDIN_NAME


def read_stdin(stdin: IO[str] | None, *, limit: int = MAX_DOCUMENT_BYTES) -> str:
    """All of stdin as UTF-8 text, refusing more than ``limit`` bytes as a file is refused.

    :raises SpecError: naming stdin and what is wrong with it.
    """
    if stdin is None:
        raise SpecError([f"{STDIN_NAME}: cannot read: stdin is closed"])
    try:
        buffer = getattr(stdin, "buffer", None)
        # Bytes where there are any: the limit is in bytes, and the text is checked as UTF-8 here.
        data = buffer.read(limit + 1) if buffer is not None else stdin.read(limit + 1).encode()
    except UnicodeError:  # a text stream holding what UTF-8 cannot carry
        raise SpecError([f"{STDIN_NAME}: not UTF-8 text"]) from None
    except ValueError:  # read from a closed file
        raise SpecError([f"{STDIN_NAME}: cannot read: stdin is closed"]) from None
    except OSError as exc:
        raise SpecError([f"{STDIN_NAME}: cannot read: {exc.strerror or exc}"]) from None
    if not isinstance(data, bytes):
        raise SpecError([f"{STDIN_NAME}: cannot read: not a byte stream"])
    return decoded(data, name=STDIN_NAME, limit=limit)


def structure_spec(raw: Mapping[str, Any], *, lenient: bool) -> tuple[ShardSpec, list[str]]:
    """The shard spec in a parsed document, and the unknown fields lenient mode let through."""
    # The public loader: the command accepts exactly the specs an embedding scheduler does.
    loaded = load_spec(raw, lenient=lenient)
    return loaded.spec, list(loaded.unknown)


@attrs.frozen
class _GPUList:
    gpus: tuple[GPUInfo, ...]


def load_gpus(path: Path | None) -> tuple[GPUInfo, ...]:
    """The GPUs of a ``--gpus`` file: TOML ``[[gpus]]`` or a JSON list; none without one."""
    if path is None:
        return ()
    raw: Any = parse_any(read_text(path), name=str(path), suffix=path.suffix.lower())
    items = raw.get("gpus") if isinstance(raw, Mapping) else raw
    if not isinstance(items, list):
        raise SpecError([f"{path}: expected a list of GPUs (TOML [[gpus]] or a JSON list)"])
    gpus, _ = structure({"gpus": items}, _GPUList, path=str(path))
    indices = [gpu.index for gpu in gpus.gpus]
    if len(set(indices)) != len(indices):
        # Eight entries for GPU 0 are one GPU: counted as eight, they would pass a TP8 profile.
        raise SpecError([f"{path}: a GPU index is listed more than once"])
    return gpus.gpus
