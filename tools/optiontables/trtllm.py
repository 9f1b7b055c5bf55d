"""Write trtllm-serve's option table from each TensorRT-LLM release's own CLI reference.

Run by hand, from the repository root, with the workspace's Python (not in CI)::

    python tools/optiontables/trtllm.py [--out plugins/trtllm/src/enginekit_trtllm/options_table.py] \\
        [--work /tmp/optiontables/trtllm] [--offline]

It writes the plugin's ``options_table.py`` (the JSON document as ``TABLE``, through
``enginekit.plugin.write_table_module``, which checks its shape first).

What is read. ``trtllm-serve serve`` is a Click command (``tensorrt_llm.commands.serve``).
Each release's documentation carries its CLI reference, which sphinx-click generates at
documentation build time by importing that release's module and walking the ``serve``
command's parameters: for every option it prints one signature, its ``opts`` and
``secondary_opts`` joined by ``", "``, then ``<metavar>`` unless the option is a flag
(``--tensor_parallel_size, --tp_size <tensor_parallel_size>``, ``--telemetry,
--no-telemetry``, ``--trust_remote_code``). So the reference is the real parser's
definition, rendered by Click's own objects; this script reads those signatures from the
page ``<release>/commands/trtllm-serve/trtllm-serve.html`` of the versioned documentation
(the ``serve`` section, anchors ``cmdoption-trtllm-serve-serve-*``).

Why not the package. TensorRT-LLM's wheels are several GB and are published on NVIDIA's
own index; its PyPI uploads are stub source archives without the code (checked for
1.2.1 and 1.4.0rc1: a ``pyproject.toml`` and licence texts), so there is no ``serve.py``
to import from a registry.

How. For each release in ``RELEASES`` the page is downloaded into ``<work>/pages/`` (once;
a page already there is read again), the serve section's signatures are written to
``<work>/signatures/<release>.txt``, one per line, and their sha256 is checked against
the one pinned in ``RELEASES``. Where no page can be downloaded (no network), a
``signatures/<release>.txt`` already in the work folder is read instead and checked the
same way: the digest is over the signature lines only, so a download and a copy of the
same reference agree, and a copy that differs from the published page is refused. The
table in the repository was made from such copies, transcribed from the published pages;
one run with network access downloads every page and re-checks them against the digests.

Choices. The table's format has no place for an option's choices, but the plugin keeps the
``--backend`` choices of some releases (``BACKEND_CHOICES`` in ``enginekit_trtllm.flags``).
From a downloaded page this script prints the choices the reference lists for ``--backend``
(sphinx-click's ``Options:`` field, ``pytorch | _autodeploy``), so a run with network
access shows whether that fact table still agrees; from saved signatures it cannot.

Reading a signature. Every long spelling is an option, spelled exactly as Click matches it
(``--tp_size``: Click folds neither ``_`` nor ``-``); a flag's ``--no-x`` is an option of
its own; a flag takes 0 values, any other option 1 (sphinx-click prints one metavar
whatever ``nargs`` is; the ``serve`` options have none above 1, as far as the CLI
stability reference ``tests/unittest/api_stability/references/trtllm_serve_cli.yaml`` of
the 1.3.0rc2x line shows: str, int, float, bool, Path and Choice types only). A
``multiple`` option takes one value per use. Short spellings (none in ``serve`` so far)
become aliases of the first long spelling of their option. A spelling that a release
dropped while another spelling of the same option (or a new option with the same metavar)
went on is recorded as a rename.

Limits. sphinx-click leaves out options declared ``hidden=True``, so such an option is not
in the table. ``RELEASES`` holds the releases whose documentation could be read; add one
by appending it (the docs commit and the source commit in the page footer are for the
record) and pinning the digest the first run prints.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import re
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

# The sibling module: this script runs from its own folder, which Python puts on the path.
from common import spans

ENGINE = "trtllm"
PROGRAM = "trtllm-serve serve"
GENERATOR = "tools/optiontables/trtllm.py"
DOCS = "https://nvidia.github.io/TensorRT-LLM"
PAGE = "commands/trtllm-serve/trtllm-serve.html"
#: Anchors of the ``serve`` command's entries; ``-arg-`` ones are its positional arguments.
ANCHOR = "cmdoption-trtllm-serve-serve-"
#: Where the table goes, from the repository root (``--out`` moves it).
OUT = Path("plugins/trtllm/src/enginekit_trtllm/options_table.py")


@dataclass(frozen=True)
class Release:
    """One release's CLI reference, pinned.

    :ivar release: The release, as TensorRT-LLM spells it.
    :ivar docs_commit: The commit of the documentation branch (``gh-pages``) read.
    :ivar source_commit: The source commit the page says it was generated from (its footer).
    :ivar digest: sha256 of the ``serve`` signatures, one per line.
    """

    release: str
    docs_commit: str
    source_commit: str
    digest: str


RELEASES: tuple[Release, ...] = (
    Release(
        "1.0.0",
        "090dc64986babe6445f97234e18db6e35d50af55",
        "ae8270b",
        "70629df86667a090ec26cfc9db1e02fc2c15a5a0892815687ec7808306976930",
    ),
    Release(
        "1.1.0",
        "8660c119a1f9be58cb574b8895f60bdb2e2c40ec",
        "48b7b5d",
        "70629df86667a090ec26cfc9db1e02fc2c15a5a0892815687ec7808306976930",
    ),
    Release(
        "1.2.0",
        "7e873e54c296912df55b4c961e67079963ae4d34",
        "dbdb13b",
        "44c463590f0138d63c78ff84b231dcf25fdac8da5ae0ef0bbd59703938531bfc",
    ),
    Release(
        "1.2.1",
        "58fb435eacc402f3bd177e60f592c955d2b0719d",
        "376f7e1",
        "44c463590f0138d63c78ff84b231dcf25fdac8da5ae0ef0bbd59703938531bfc",
    ),
    Release(
        "1.3.0rc6",
        "8a61efde10f96d3aedba8ff02ed8dffefd3aa809",
        "617440d",
        "4f158b795001453dc0cfce6e5a5af9340e7a7ce1e7a6ac2957a1e797595c9e8a",
    ),
    Release(
        "1.3.0rc7",
        "c95d0792f1c7e31e092f8155cec29b24c96e969c",
        "69de4a6",
        "99872e8ac9b1df3cf322db977b18b6d93a0f36b0ea42cf188df9c4ae638937ed",
    ),
    Release(
        "1.3.0rc15",
        "55d831ffcbd84b41730d67dfa2591c63a984caa8",
        "c72d43d",
        "bc37a40e55cba7607bb3cd26ba9d267ceeb9b66d208a2103b68b3bfe8e40dad1",
    ),
    Release(
        "1.3.0rc17",
        "88b1a30c42ca6084af4feaf2fbddf48f00012084",
        "a422420",
        "e6ef6c5623196836bab417f9676cdcc043f3fac9e131ac884a71210d30c1b0cb",
    ),
    Release(
        "1.3.0rc22",
        "0694d640e984759d125df55bac27a19e0079fe8e",
        "8ba9340",
        "f3bd3371620759242ecf4f3faf30c291d4f6f523ae04185f297e62e4ee7e97a1",
    ),
    Release(
        "1.3.0rc25",
        "7dd67b7fd0c658c0d15e23552a6e0927141078dd",
        "785c948",
        "26551aad56e2bfcdc904eaaaf23c1786a7b7e3549248b1383dbca1276f371ef0",
    ),
    Release(
        "1.3.0rc29",
        "bf0ee2fb9e631721224a86a367f65930b0fea1e2",
        "c76f4a8",
        "e994f13ef2e06e6158b6ed6ae893f5f6d78263134eaea9a1ace85b36cf57902f",
    ),
)


@dataclass(frozen=True)
class Signature:
    """One option entry of the reference: its spellings, and whether it takes a value."""

    spellings: tuple[str, ...]
    metavar: str | None


@dataclass
class Read:
    """What one release's ``serve`` accepts, as its reference lists it.

    :ivar backend_choices: The ``--backend`` choices the page lists; None when read from
        saved signatures, which hold no choices.
    """

    release: Release
    signatures: list[Signature]
    backend_choices: tuple[str, ...] | None = None

    def spellings(self) -> dict[str, Signature]:
        return {spelling: sig for sig in self.signatures for spelling in sig.spellings}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def sha256_lines(lines: Sequence[str]) -> str:
    return hashlib.sha256(("\n".join(lines) + "\n").encode()).hexdigest()


class _SignatureParser(HTMLParser):
    """Collects the text of every ``<dt>`` whose anchor is a ``serve`` option."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._text: list[str] | None = None
        self._depth = 0  # inside the definition's headerlink ``<a>``: its "#" is no text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "dt" and (values.get("id") or "").startswith(ANCHOR):
            self._text = []
        elif tag == "a" and self._text is not None and "headerlink" in (values.get("class") or ""):
            self._depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._depth:
            self._depth -= 1
        elif tag == "dt" and self._text is not None:
            self.found.append(" ".join("".join(self._text).split()))
            self._text = None

    def handle_data(self, data: str) -> None:
        if self._text is not None and not self._depth:
            self._text.append(data)


class _ChoicesParser(HTMLParser):
    """Collects the text pieces of the ``<dd>`` that follows one option's ``<dt>``."""

    def __init__(self, anchor: str) -> None:
        super().__init__(convert_charrefs=True)
        self.anchor = anchor
        self.pieces: list[str] = []
        self._after = False  # the option's <dt> was seen, its <dd> not yet
        self._depth = 0  # <dd> nesting inside the option's own <dd>; 0 outside it

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "dt" and dict(attrs).get("id") == self.anchor:
            self._after = True
        elif tag == "dd" and (self._after or self._depth):
            self._after = False
            self._depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "dd" and self._depth:
            self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._depth and data.strip():
            self.pieces.append(data.strip())


def page_choices(page: str, option: str) -> tuple[str, ...] | None:
    """The choices the reference lists for ``serve``'s ``option`` (its ``Options:`` field).

    sphinx-click writes a Click ``Choice``'s choices as a field of the option's entry:
    ``Options`` ``:`` ``pytorch | _autodeploy``. None when the entry has no such field.
    """
    parser = _ChoicesParser(ANCHOR + option.lstrip("-"))
    parser.feed(page)
    parser.close()
    text = " ".join(parser.pieces)
    found = re.search(r"\bOptions\s*:\s*([\w.-]+(?:\s*\|\s*[\w.-]+)*)", text)
    return tuple(choice.strip() for choice in found[1].split("|")) if found else None


def page_signatures(page: str) -> list[str]:
    """The ``serve`` option signatures of a CLI reference page, in page order."""
    parser = _SignatureParser()
    parser.feed(page)
    parser.close()
    # The positional MODEL has an entry too; options are the entries that start with '-'.
    return [text for text in parser.found if text.startswith("-")]


_SPELLING = re.compile(r"--?[A-Za-z0-9][A-Za-z0-9_.-]*\Z")


def parse_signature(text: str) -> Signature:
    """``--a, --b <meta>`` as its spellings and metavar (None for a flag)."""
    spellings: list[str] = []
    metavar: str | None = None
    for part in text.split(", "):
        name, _, rest = part.partition(" ")
        if not _SPELLING.match(name) or (rest and not re.fullmatch(r"<[^<>]+>", rest)):
            raise SystemExit(f"unexpected option signature {text!r}")
        spellings.append(name)
        if rest:
            metavar = html.unescape(rest[1:-1])
    return Signature(tuple(spellings), metavar)


def fetch(release: Release, work: Path, offline: bool) -> Read:
    """The release's ``serve`` options: from its page (downloaded once) or a saved copy."""
    page = work / "pages" / f"{release.release}.html"
    saved = work / "signatures" / f"{release.release}.txt"
    if not page.exists() and not offline:
        url = f"{DOCS}/{release.release}/{PAGE}"
        try:
            with urllib.request.urlopen(url, timeout=60) as answer:
                body = answer.read()
        except (urllib.error.URLError, OSError) as error:
            log(f"{release.release}: cannot download {url} ({error})")
        else:
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_bytes(body)
    choices: tuple[str, ...] | None = None
    if page.exists():
        text = page.read_text(encoding="utf-8")
        choices = page_choices(text, "--backend")
        footer = re.search(r"generated by TensorRT-LLM commit <a [^>]*>([0-9a-f]+)</a>", text)
        if footer and not release.source_commit.startswith(footer[1][:7]):
            log(f"{release.release}: the page now says commit {footer[1]}, not {release.source_commit}")
        lines = page_signatures(text)
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text("\n".join(lines) + "\n", encoding="utf-8")
    elif saved.exists():
        lines = saved.read_text(encoding="utf-8").splitlines()
    else:
        raise SystemExit(f"{release.release}: no page and no {saved}")
    digest = sha256_lines(lines)
    if digest != release.digest:
        raise SystemExit(
            f"{release.release}: signatures sha256 {digest}, pinned {release.digest}: "
            f"compare {saved} with the published reference before pinning the new digest"
        )
    return Read(release, [parse_signature(line) for line in lines], choices)


def source_note(release: Release) -> str:
    return (
        f"TensorRT-LLM {release.release} CLI reference ({DOCS}/{release.release}/{PAGE}, "
        f"docs branch commit {release.docs_commit}, generated from source commit "
        f"{release.source_commit} by sphinx-click from tensorrt_llm.commands.serve): "
        f"serve option signatures, sha256 {release.digest}"
    )


def renames(reads: Sequence[Read]) -> dict[str, dict[str, str]]:
    """Spellings a release dropped for good while the option went on under another one.

    The other spelling is one the same option had alongside it in the release before
    (``--visual_gen_args, --extra_visual_gen_options`` then ``--visual_gen_args``), or
    else that of the one option new in this release with the same metavar.
    """
    found: dict[str, dict[str, str]] = {}
    names = [read.spellings() for read in reads]
    for index in range(1, len(reads)):
        before, now = names[index - 1], names[index]
        for old, signature in before.items():
            if old in now or any(old in later for later in names[index:]):
                continue
            mates = [s for s in signature.spellings if s != old and s.startswith("--") and s in now]
            if not mates and signature.metavar is not None:
                mates = [
                    sig.spellings[0]
                    for sig in reads[index].signatures
                    if sig.metavar == signature.metavar and not any(s in before for s in sig.spellings)
                ]
            if len(mates) == 1:
                found[old] = {"to": mates[0], "since": reads[index].release.release}
    return dict(sorted(found.items()))


def document(reads: Sequence[Read]) -> dict[str, Any]:
    """The table in the shape ``docs/option-tables.md`` describes."""
    releases = [read.release.release for read in reads]
    takes: dict[str, dict[int, int]] = {}
    aliases: dict[str, dict[int, str]] = {}
    for index, read in enumerate(reads):
        for signature in read.signatures:
            longs = [s for s in signature.spellings if s.startswith("--")]
            if not longs:
                raise SystemExit(f"{read.release.release}: {signature.spellings} has no long spelling")
            for spelling in signature.spellings:
                if spelling in longs:
                    takes.setdefault(spelling, {})[index] = 0 if signature.metavar is None else 1
                else:
                    aliases.setdefault(spelling, {})[index] = longs[0]
    options: dict[str, Any] = {}
    for option in sorted(takes):
        counts = set(takes[option].values())
        if len(counts) > 1:
            raise SystemExit(f"{option} is a flag in some releases and takes a value in others")
        options[option] = {"takes": counts.pop(), "in": spans(takes[option], releases)}
    alias_entries: dict[str, Any] = {}
    for alias in sorted(aliases):
        targets = set(aliases[alias].values())
        if len(targets) > 1:
            raise SystemExit(f"{alias} stands for {sorted(targets)} in different releases")
        alias_entries[alias] = {"option": targets.pop(), "in": spans(aliases[alias], releases)}
    return {
        "format": 1,
        "engine": ENGINE,
        "program": PROGRAM,
        "generator": GENERATOR,
        "releases": [
            {"release": read.release.release, "source": source_note(read.release)} for read in reads
        ],
        "options": options,
        "aliases": alias_entries,
        "renames": renames(reads),
    }


def summary(reads: Sequence[Read], doc: Mapping[str, Any]) -> None:
    for read in reads:
        count = len({s for sig in read.signatures for s in sig.spellings if s.startswith("--")})
        log(
            f"{read.release.release}: {len(read.signatures)} options in the reference, {count} long spellings"
        )
    for old, entry in doc["renames"].items():
        log(f"rename: {old} -> {entry['to']} since {entry['since']}")
    for read in reads:
        choices = read.backend_choices
        shown = " | ".join(choices) if choices else "not read (no page, or no Options field)"
        log(f"{read.release.release}: --backend choices: {shown}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=OUT, help=f"the module to write (default {OUT})")
    parser.add_argument(
        "--work", type=Path, default=Path("/tmp/optiontables/trtllm"), help="downloaded pages and signatures"
    )
    parser.add_argument(
        "--offline", action="store_true", help="download nothing; read what the work folder has"
    )
    args = parser.parse_args(argv)
    work: Path = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    reads = [fetch(release, work, args.offline) for release in RELEASES]
    doc = document(reads)
    summary(reads, doc)
    # The sibling module, found from this file's folder: it checks the shape, then writes.
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from enginekit.plugin import write_table_module as write_table

    write_table(doc, args.out)
    counts = f"{len(doc['options'])} options, {len(doc['aliases'])} aliases, {len(reads)} releases"
    log(f"wrote {args.out}: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
