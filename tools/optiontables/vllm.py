"""Generate vLLM's option table by running each release's own ``vllm serve`` argument parser.

Run by hand (not in CI), from the repository root::

    python tools/optiontables/vllm.py [--out plugins/vllm/src/enginekit_vllm/options_table.py] \\
        [--work /tmp/optiontables/vllm] [--release 0.34.0 ...] [--fresh] [--drop-wheels]

What it does, for each release in ``RELEASES`` (every final release from 0.11.0 on):

1. asks PyPI, through ``pip install --dry-run --report``, for the wheel ``pip`` would take
   and the sha256 the index publishes for it, downloads it with ``pip download --no-deps``
   and checks the file against that digest (recorded in the release's ``source``);
2. unpacks the ``vllm`` package and its metadata from the wheel (no build, nothing
   installed);
3. in a subprocess of a work virtual environment (CPU ``torch`` and the light Python
   dependencies of vLLM, pinned in ``VENV_PACKAGES``; made on first run), imports the
   release's ``vllm.entrypoints.cli.serve`` and builds the ``serve`` subparser as
   ``vllm``'s own ``main()`` does (a ``FlexibleArgumentParser``, ``add_subparsers``,
   ``ServeSubcommand.subparser_init``, which calls ``make_arg_parser``), then reads every
   option string the parser registered (``_option_string_actions``: that includes the
   spellings vLLM hides from ``--help`` but still accepts), with its action's ``nargs``,
   help text and deprecation mark.

vLLM imports GPU kernels and optional packages the work environment lacks. A
``sys.meta_path`` finder gives those a stand-in module, but only for imports vLLM's own
modules make and do not guard themselves: vLLM itself and every installed package are
the real ones, and an availability check (a guarded import, ``find_spec``) still sees
the package missing. The platform is set to vLLM's CPU platform, which only changes
defaults. The stand-ins used are printed per release.

Each release's reading is kept under ``WORK/results``, so a rerun reads only releases it
has not read (``--fresh`` reads again). The unpacked tree is deleted after reading; the
wheels (about 240 MB each) stay in ``WORK/wheels`` unless ``--drop-wheels``.

Renames come only from what the parsers show: a spelling that goes away for good as one
of the same shape arrives (``common.spelling_renames``); a spelling vLLM still accepts but
hides from help beside a shown spelling that switches the same way (``--no-enable-x``
beside ``--disable-x``); a deprecation notice that names the replacement of an option a
later release drops (``common.deprecation_renames``).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.abc
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
import time
import types
import zipfile
from pathlib import Path
from typing import Any

ENGINE = "vllm"
PROGRAM = "vllm serve"
GENERATOR = "tools/optiontables/vllm.py"

#: Every final release from 0.11.0 to 0.34.0, patch releases included, oldest first
#: (pre-releases and ``.post`` rebuilds left out).
RELEASES = (
    "0.11.0", "0.11.1", "0.11.2", "0.12.0", "0.13.0", "0.14.0", "0.14.1", "0.15.0",
    "0.15.1", "0.16.0", "0.17.0", "0.17.1", "0.18.0", "0.18.1", "0.19.0", "0.19.1",
    "0.20.0", "0.20.1", "0.20.2", "0.21.0", "0.22.0", "0.22.1", "0.23.0", "0.24.0",
    "0.25.0", "0.25.1", "0.26.0", "0.27.0", "0.27.1", "0.28.0", "0.29.0", "0.30.0",
    "0.31.0", "0.32.0", "0.33.0", "0.34.0",
)  # fmt: skip

#: What the work environment holds: a CPU build of torch (vLLM's modules need the real
#: one) and the pure-Python or light dependencies vLLM imports on the way to its parser.
#: pip must find a CPU build of torch (a ``find-links`` or index that has one); the
#: default index would give the CUDA build, which works but is several GB.
VENV_PACKAGES = (
    "torch==2.13.0",
    "aiohttp==3.14.5", "blake3==1.0.11", "cachetools==8.0.2", "cbor2==6.3.0",
    "cloudpickle==3.1.3", "einops==0.8.2", "fastapi[standard]==0.165.0",
    "huggingface_hub==2.4.0", "ijson==3.6.0", "jsonschema==4.26.0", "msgspec==0.23.0",
    "numpy==2.4.6", "openai==3.60.0", "orjson==3.13.0", "partial-json-parser==0.2.1.1.post7",
    "pillow==13.0.0", "prometheus-fastapi-instrumentator==8.1.0", "prometheus_client==0.26.0",
    "protobuf==7.36.2", "psutil==7.2.2", "py-cpuinfo==9.0.0", "pybase64==1.5.1",
    "pydantic==2.14.4", "python-json-logger==4.2.0", "PyYAML==6.0.4", "pyzmq==27.3.0",
    "regex==2026.11.19", "requests==2.34.2", "safetensors==0.8.0", "sentencepiece==0.2.3",
    "setproctitle==1.3.8", "tiktoken==0.14.0", "tokenizers==0.23.3", "tqdm==4.70.1",
    "transformers==5.24.0", "uvloop==0.23.0", "watchfiles==1.3.0",
    # Optional ones some releases import unguarded on the way to the parser.
    "diskcache==5.6.3", "gguf==0.19.0", "llguidance==1.9.1",
    "model-hosting-container-standards==0.1.16", "openai-harmony==0.0.8", "termplotlib==0.3.9",
)  # fmt: skip

#: Bumped when the probe reads more or differently, so kept readings are not reused.
PROBE_VERSION = 1

#: Single-dash spellings vLLM's ``FlexibleArgumentParser.parse_args`` rewrites itself
#: before argparse sees them (``-O3`` is ``--optimization-level 3`` from 0.12.0 on), each with
#: a value to try it with. The probe keeps one only where parsing it really sets an option.
REWRITTEN = {"-O": "3"}

# ---------------------------------------------------------------------------------------
# The probe: runs inside the work environment, on one unpacked release.
# ---------------------------------------------------------------------------------------


def _decorating(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether a call looks like a bare decorator applied to a function or class."""
    return len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], _StubMeta)


class _StubMeta(type):
    """The type of stand-in classes: any attribute, subscript or union of them works."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _stub_type(f"{cls.__qualname__}.{name}")

    def __getitem__(cls, item: Any) -> Any:
        return cls

    def __or__(cls, other: Any) -> Any:
        return Any

    def __ror__(cls, other: Any) -> Any:
        return Any

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        # A stand-in used as a decorator (a kernel's @jit) leaves the function as it is.
        if _decorating(args, kwargs):
            return args[0]
        return super().__call__(*args, **kwargs)

    def __iter__(cls) -> Any:
        return iter(())

    def __len__(cls) -> int:
        return 0


class _StubBase(metaclass=_StubMeta):
    """A stand-in object: callable, subscriptable, empty and false."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        # vLLM's pydantic configs name stand-in types in their fields: accept anything.
        core_schema: Any = importlib.import_module("pydantic_core.core_schema")
        return core_schema.any_schema()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _stub_type(name)()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _decorating(args, kwargs):
            return args[0]
        return _stub_type("result")()

    def __getitem__(self, item: Any) -> Any:
        return _stub_type("item")()

    def __iter__(self) -> Any:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __bool__(self) -> bool:
        return False

    def __index__(self) -> int:
        return 0


def _stub_type(name: str) -> Any:
    return _StubMeta(name.rsplit(".", 1)[-1], (_StubBase,), {"__qualname__": name, "__module__": "stub"})


class _StubModule(types.ModuleType):
    """A stand-in module: a package (so submodules import) whose every attribute is a stand-in."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = _stub_type(f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = _StubModule(spec.name)
        module.__path__ = []
        module.__file__ = f"<stand-in {spec.name}>"
        module.__version__ = "0.0.0"  # type: ignore[attr-defined]
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


_GUARDED: dict[str, list[tuple[int, int]]] = {}


def _guarded(filename: str, line: int) -> bool:
    """Whether ``line`` of ``filename`` is in a ``try`` whose handler copes with an import failing."""
    if filename not in _GUARDED:
        blocks: list[tuple[int, int]] = []
        try:
            tree = ast.parse(Path(filename).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            tree = ast.Module(body=[], type_ignores=[])
        for node in ast.walk(tree):
            if isinstance(node, ast.Try) and node.body and any(_copes(h) for h in node.handlers):
                blocks.append((node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno))
        _GUARDED[filename] = blocks
    return any(first <= line <= last for first, last in _GUARDED[filename])


def _copes(handler: ast.ExceptHandler) -> bool:
    # A handler that only re-raises does not cope: the import must work.
    if len(handler.body) == 1 and isinstance(handler.body[0], ast.Raise):
        return False
    kinds = handler.type
    if kinds is None:
        return True
    names = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
    caught = {kind.id if isinstance(kind, ast.Name) else getattr(kind, "attr", "") for kind in names}
    return bool(caught & {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _importer_is_vllm(here: str = __file__) -> bool:
    """Whether the import being looked up is an unguarded import statement in vLLM's code."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        # importlib's own frames, import_module included, and this file's are the machinery.
        if name.startswith("<frozen importlib") or name == here or name.endswith("importlib/__init__.py"):
            frame = frame.f_back  # type: ignore[assignment]
            continue
        if not str(frame.f_globals.get("__name__", "")).startswith("vllm"):
            return False
        return not _guarded(name, frame.f_lineno)
    return False


class _StubFinder(importlib.abc.MetaPathFinder):
    """Finds a stand-in for a module no other finder has, when vLLM's code needs it."""

    def __init__(self) -> None:
        self.stubbed: set[str] = set()

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name == "vllm" or name.startswith("vllm."):
            return None
        parent = sys.modules.get(name.rpartition(".")[0])
        if not isinstance(parent, _StubModule) and not _importer_is_vllm():
            return None
        for finder in sys.meta_path:
            if finder is not self and (spec := finder.find_spec(name, path, target)) is not None:
                return spec
        self.stubbed.add(name)
        return importlib.machinery.ModuleSpec(name, _StubLoader(), is_package=True)


def _nargs(value: Any) -> int | str | None:
    if value is None or isinstance(value, (int, str)):
        return value
    raise TypeError(f"unexpected nargs {value!r}")


def probe(tree: str) -> dict[str, Any]:
    """Build ``vllm serve``'s parser from the release unpacked at ``tree`` and describe it."""
    sys.path.insert(0, tree)
    finder = _StubFinder()
    sys.meta_path.insert(0, finder)
    # The platform only picks defaults and choices; vLLM's CPU platform needs no device,
    # and a parser needs none of the compiled kernels it would load.
    os.environ["VLLM_TARGET_DEVICE"] = "cpu"
    platforms: Any = importlib.import_module("vllm.platforms")
    platform = importlib.import_module("vllm.platforms.cpu").CpuPlatform()
    platform.import_kernels = lambda: None
    platforms._current_platform = platform
    serve = importlib.import_module("vllm.entrypoints.cli.serve")
    flexible: Any = None
    for where in ("vllm.utils.argparse_utils", "vllm.utils"):
        try:
            flexible = importlib.import_module(where).FlexibleArgumentParser
            break
        except (ImportError, AttributeError):
            continue
    if flexible is None:
        raise RuntimeError("no FlexibleArgumentParser in vllm.utils.argparse_utils or vllm.utils")
    # As vllm.entrypoints.cli.main builds it: the top parser, its subparsers, serve's own.
    top = flexible(description="vLLM CLI")
    subparsers = top.add_subparsers(required=False, dest="subparser")
    serving = [command for command in serve.cmd_init() if command.name == "serve"]
    if len(serving) != 1:
        raise RuntimeError("vllm.entrypoints.cli.serve.cmd_init() has no single serve command")
    parser = serving[0].subparser_init(subparsers)
    deprecated: set[Any] = getattr(parser, "_deprecated", set())
    actions: list[dict[str, Any]] = []
    number: dict[int, int] = {}
    for action in parser._actions:
        if not action.option_strings:
            continue
        number[id(action)] = len(actions)
        actions.append(
            {
                "strings": [],
                "shown": list(action.option_strings),
                "nargs": _nargs(action.nargs),
                "kind": type(action).__name__,
                "dest": action.dest,
                "help": action.help if isinstance(action.help, str) else None,
                "deprecated": bool(action in deprecated or getattr(action, "deprecated", False)),
            }
        )
    # What argparse matches against: every spelling registered, hidden ones included.
    for string, action in parser._option_string_actions.items():
        actions[number[id(action)]]["strings"].append(string)
    return {
        "actions": actions,
        "rewritten": _rewritten(parser),
        "stubbed": sorted(finder.stubbed),
        "parser": f"{type(parser).__module__}.{type(parser).__qualname__}",
        "python": sys.version.split()[0],
    }


def _rewritten(parser: Any) -> dict[str, str]:
    """Each spelling of ``REWRITTEN`` that parsing really turns into an option: its dest."""
    found: dict[str, str] = {}
    for spelling, value in REWRITTEN.items():
        if spelling in parser._option_string_actions:
            continue  # a registered spelling, read with the rest
        try:
            plain = vars(parser.parse_args([]))
            given = vars(parser.parse_args([spelling + value]))
        except (SystemExit, Exception):  # refused: the release does not rewrite it
            continue
        changed = [dest for dest in given if given[dest] != plain.get(dest)]
        if len(changed) == 1:
            found[spelling] = changed[0]
    return found


def _probe_main(tree: str, out: str) -> None:
    result = probe(tree)
    Path(out).write_text(json.dumps(result, indent=1), encoding="utf-8")
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip the interpreter's shutdown: vLLM's and torch's exit hooks have nothing to add.
    os._exit(0)


# ---------------------------------------------------------------------------------------
# The generator: runs with any Python 3.10+, drives pip and the probe.
# ---------------------------------------------------------------------------------------


def _run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, check=True, text=True, **kwargs)


def _venv(work: Path) -> Path:
    """The work environment's Python, made (and filled) on first use."""
    venv = work / "venv"
    python = venv / "bin" / "python"
    stamp = venv / "enginekit-packages.txt"
    wanted = "\n".join(VENV_PACKAGES) + "\n"
    if python.exists() and stamp.exists() and stamp.read_text(encoding="utf-8") == wanted:
        return python
    print(f"setting up {venv} ...", flush=True)
    _run([sys.executable, "-m", "venv", "--clear", str(venv)])
    _run([str(python), "-m", "pip", "install", "--quiet", "--only-binary=:all:", *VENV_PACKAGES])
    stamp.write_text(wanted, encoding="utf-8")
    return python


def _fetch(release: str, python: Path, work: Path) -> tuple[Path, str]:
    """The release's wheel, downloaded and checked against the digest PyPI publishes."""
    from common import sha256

    wheels = work / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    report = work / "reports" / f"{release}.json"
    report.parent.mkdir(parents=True, exist_ok=True)
    pip = [str(python), "-m", "pip"]
    choose = ["--no-deps", "--only-binary=:all:", f"vllm=={release}"]
    _run([*pip, "install", "--quiet", "--dry-run", "--ignore-installed", "--report", str(report), *choose])
    (chosen,) = json.loads(report.read_text(encoding="utf-8"))["install"]
    url = chosen["download_info"]["url"]
    published = chosen["download_info"]["archive_info"]["hashes"]["sha256"]
    wheel = wheels / url.rsplit("/", 1)[-1]
    if not wheel.exists() or sha256(wheel) != published:
        wheel.unlink(missing_ok=True)
        _run([*pip, "download", "--quiet", "--dest", str(wheels), *choose])
    digest = sha256(wheel)
    if digest != published:
        raise SystemExit(f"{wheel.name}: sha256 {digest}, but PyPI publishes {published}")
    return wheel, digest


def _unpack(wheel: Path, release: str, work: Path) -> Path:
    """The ``vllm`` package and its metadata from ``wheel``, under ``WORK/trees/<release>``."""
    tree = work / "trees" / release
    shutil.rmtree(tree, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        wanted = [
            name
            for name in archive.namelist()
            if name.startswith("vllm/") or name.startswith(f"vllm-{release}.dist-info/")
        ]
        archive.extractall(tree, wanted)
    return tree


def _read_release(release: str, python: Path, work: Path, fresh: bool, drop_wheels: bool) -> dict[str, Any]:
    """The kept reading of ``release``, or a new one: wheel, digest and what the probe saw."""
    kept = work / "results" / f"{release}.json"
    if kept.exists() and not fresh:
        reading: dict[str, Any] = json.loads(kept.read_text(encoding="utf-8"))
        if reading.get("probe_version") == PROBE_VERSION:
            return reading
    started = time.monotonic()
    wheel, digest = _fetch(release, python, work)
    tree = _unpack(wheel, release, work)
    out = work / "results" / f"{release}.probe.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    log = work / "results" / f"{release}.log"
    with log.open("w", encoding="utf-8") as sink:
        # -I: neither this file's folder (whose vllm.py would shadow vLLM) nor the
        # caller's environment variables on the path.
        done = subprocess.run(
            [str(python), "-I", str(Path(__file__).resolve()), "--probe", str(tree), str(out)],
            stdout=sink,
            stderr=subprocess.STDOUT,
            timeout=900,
            check=False,
        )
    shutil.rmtree(tree, ignore_errors=True)
    if done.returncode != 0 or not out.exists():
        raise SystemExit(f"vllm {release}: the probe failed (exit {done.returncode}); see {log}")
    reading = {
        "release": release,
        "wheel": wheel.name,
        "sha256": digest,
        "probe_version": PROBE_VERSION,
        "probe": json.loads(out.read_text(encoding="utf-8")),
    }
    kept.write_text(json.dumps(reading, indent=1), encoding="utf-8")
    out.unlink()
    if drop_wheels:
        wheel.unlink()
    print(f"read vllm {release} in {time.monotonic() - started:.0f}s", flush=True)
    return reading


def _takes(action: dict[str, Any]) -> int | str:
    """How many values an action takes, in the table's words."""
    nargs = action["nargs"]
    if nargs is None:
        return 1
    if isinstance(nargs, int) or nargs in ("?", "*", "+"):
        return nargs  # type: ignore[no-any-return]
    raise SystemExit(f"{action['shown']}: nargs {nargs!r} has no place in the table")


def _long(spelling: str) -> str:
    # FlexibleArgumentParser turns '_' into '-' in every long option before argparse sees
    # it, so a spelling is listed with '-'.
    return spelling.replace("_", "-") if spelling.startswith("--") else spelling


class Release:
    """One release's reading, turned into the table's terms."""

    def __init__(self, reading: dict[str, Any]) -> None:
        from common import Read

        self.release: str = reading["release"]
        probe: dict[str, Any] = reading["probe"]
        self.stubbed: list[str] = probe["stubbed"]
        self.options: dict[str, int | str] = {}
        self.aliases: dict[str, str] = {}
        #: Spellings the parser accepts but leaves out of help, with the shown ones beside them.
        self.hidden: dict[str, list[str]] = {}
        #: Deprecated options, with their help text.
        self.deprecated: dict[str, str] = {}
        by_dest: dict[str, str] = {}
        for action in probe["actions"]:
            strings = [_long(s) for s in action["strings"]]
            shown = [_long(s) for s in action["shown"]]
            longs = [s for s in strings if s.startswith("--")]
            canonical = next((s for s in shown if s.startswith("--")), longs[0] if longs else strings[0])
            takes = _takes(action)
            for spelling in strings:
                if spelling.startswith("--") or spelling == canonical:
                    self.options[spelling] = takes
                else:
                    self.aliases[spelling] = canonical
                if spelling not in shown and spelling.startswith("--"):
                    self.hidden[spelling] = shown
            by_dest.setdefault(action["dest"], canonical)
            text = action["help"] or ""
            if action["deprecated"] or "deprecated" in text.lower():
                for spelling in longs:
                    self.deprecated[spelling] = text
        for spelling, dest in probe["rewritten"].items():
            self.aliases[spelling] = by_dest[dest]
        source = (
            f"{reading['wheel']} (PyPI, sha256 {reading['sha256']}): the serve subparser as "
            f"vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
        )
        self.read = Read(self.release, source, dict(sorted(self.options.items())), self.aliases)


def hidden_renames(releases: list[Release]) -> list[Any]:
    """Renames vLLM declares by hiding a spelling: a hidden ``--no-enable-x`` beside a shown ``--disable-x``.

    The new spelling is renamed to from the first release read that accepts it.
    """
    from common import Rename, same_switch

    found: dict[str, Rename] = {}
    for release in releases:
        for old, shown in release.hidden.items():
            if release.options[old] != 0:
                continue
            news = [new for new in shown if same_switch(old, new) and release.options.get(new) == 0]
            if len(news) != 1 or old in found:
                continue
            new = news[0]
            # From where the new spelling's latest unbroken run of releases begins.
            at = releases.index(release)
            while at > 0 and new in releases[at - 1].options:
                at -= 1
            since = releases[at]
            why = (
                f"{release.release} accepts {old} but hides it from help beside {new} (from {since.release})"
            )
            found[old] = Rename(old, new, since.release, why)
    return list(found.values())


def main(argv: list[str] | None = None) -> int:
    """Read every release, write the table, and print what was found."""
    # Imported here: the probe half of this file runs in the work environment with -I,
    # where this folder is not on the path.
    from common import (
        alias_changes,
        build_document,
        deprecation_renames,
        merge_renames,
        spelling_renames,
        takes_changes,
        write_document,
    )

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parents[2] / "plugins/vllm/src/enginekit_vllm/options_table.py",
        help="the options_table.py to write (default: the vLLM plugin's)",
    )
    parser.add_argument(
        "--work", type=Path, default=Path("/tmp/optiontables/vllm"), help="downloads, venv, readings"
    )
    parser.add_argument("--release", action="append", help="read only these releases (default: RELEASES)")
    parser.add_argument("--fresh", action="store_true", help="read every release again")
    parser.add_argument("--drop-wheels", action="store_true", help="delete each wheel once read")
    args = parser.parse_args(argv)
    started = time.monotonic()
    wanted = args.release or list(RELEASES)
    if unknown := sorted(set(wanted) - set(RELEASES)):
        parser.error(f"not in RELEASES: {', '.join(unknown)}")
    work: Path = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    python = _venv(work)
    releases = [
        Release(_read_release(release, python, work, args.fresh, args.drop_wheels))
        for release in RELEASES
        if release in wanted
    ]
    reads = [release.read for release in releases]
    notes = {release.release: release.deprecated for release in releases}
    renames = merge_renames(
        hidden_renames(releases), spelling_renames(reads), deprecation_renames(reads, notes)
    )
    document = build_document(
        engine=ENGINE, program=PROGRAM, generator=GENERATOR, reads=reads, renames=renames
    )
    write_document(document, args.out)

    for release in releases:
        stubbed = ", ".join(sorted({name.split(".")[0] for name in release.stubbed})) or "none"
        counts = f"{len(release.options)} options, {len(release.aliases)} aliases"
        print(f"{release.release}: {counts}; stand-ins: {stubbed}")
    for rename in renames:
        print(f"rename {rename.old} -> {rename.new} since {rename.since}: {rename.why}")
    for option, history in sorted(takes_changes(reads).items()):
        print(f"takes changed: {option}: " + ", ".join(f"{takes!r} from {r}" for r, takes in history))
    for alias, targets in sorted(alias_changes(reads).items()):
        print(f"alias changed: {alias}: " + ", ".join(f"{o} from {r}" for r, o in targets))
    print(f"wrote {args.out}: {len(document['options'])} options, {len(document['aliases'])} aliases, "
          f"{len(renames)} renames, {len(reads)} releases, in {time.monotonic() - started:.0f}s")  # fmt: skip
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--probe"]:
        _probe_main(sys.argv[2], sys.argv[3])
    sys.exit(main())
