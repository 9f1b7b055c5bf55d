"""Generate SGLang's option table by running each release's own ``ServerArgs.add_cli_args`` parser.

Run by hand (not in CI), from the repository root::

    python tools/optiontables/sglang.py [--out plugins/sglang/src/enginekit_sglang/options_table.py] \\
        [--work /tmp/optiontables/sglang] [--release 0.5.23 ...] [--fresh] [--jobs 2]

It writes the plugin's ``options_table.py`` (the document as the module's ``TABLE`` string,
through ``enginekit.plugin.write_table_module``, which checks its shape first).

What it does, for each release in ``RELEASES`` (every final release and ``.post`` release
from 0.5.1 to 0.5.23; there is no final 0.5.0 on PyPI, only release candidates):

1. asks PyPI, through ``pip install --dry-run --report``, for the wheel pip would take and
   the sha256 the index publishes for it, downloads it with ``pip download --no-deps`` and
   checks the file against that digest and against the one pinned in ``RELEASES`` (both
   are recorded in the release's ``source``);
2. unpacks the wheel (nothing is built or installed);
3. in a subprocess of a work virtual environment (a CPU build of torch and a few light
   libraries, ``VENV_PACKAGES``; made on first run) runs this same file with ``--probe``:
   the release's directory first on ``sys.path``, it checks that ``launch_server.py``
   parses ``sys.argv[1:]`` with ``prepare_server_args`` and that ``prepare_server_args``
   builds its parser as ``argparse.ArgumentParser()`` plus
   ``ServerArgs.add_cli_args(parser)`` and nothing more, builds that same parser, and
   dumps every action: its option strings, ``nargs``, class, help, the ``new_flag`` a
   deprecated action names, and whether using it is refused outright.

``python -m sglang.launch_server`` (what enginekit runs) and ``sglang serve`` parse with the
same ``prepare_server_args``. Importing ``server_args`` pulls in GPU kernels and optional
packages the work environment lacks: a ``sys.meta_path`` finder gives those a stand-in
module, but only for imports that SGLang's own modules make. SGLang and every installed
package are the real ones, and an availability check (``importlib.util.find_spec``) still
sees the package missing.

In the table, every long spelling of an action is an option and every single-dash one an
alias of the action's first long spelling. ``takes`` is 0 where ``nargs`` is 0 (store_true,
store_false, store_const, BooleanOptionalAction, help), 1 where it is None, else ``nargs``.
A deprecated action that stops the server whenever it is given (``parser.error`` or an
exception: SGLang keeps some retired spellings only to say what replaced them) is left out
of the options: the release does not accept it.

Renames come only from what the parsers show, between consecutive releases: a spelling
that goes away while the next release accepts the spelling its last deprecation notice
names (``new_flag``, or help or refusal text such as "use --x instead", "alias for --x",
"replaced by --x"); a spelling that goes away while one arrives with the same non-empty help
text and number of values, or the same name with ``-`` for ``_``. A spelling that comes
back later gets no rename.

Each release's reading is kept under ``WORK/results`` (a rerun reads only releases it has
not read; ``--fresh`` reads again); wheels stay in ``WORK/wheels``, unpacked trees in
``WORK/src``. A first run takes about ten minutes (370 MB of wheels).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
import types
import zipfile
from pathlib import Path
from typing import Any

ENGINE = "sglang"
PROGRAM = "python -m sglang.launch_server"
GENERATOR = "tools/optiontables/sglang.py"
#: Where the table goes, relative to the repository root (the ``--out`` default).
TABLE_MODULE = Path("plugins/sglang/src/enginekit_sglang/options_table.py")

#: Every release read, oldest first, with the sha256 of its wheel on PyPI. 0.5.11 and later
#: ship CPython 3.11 x86_64 wheels (Rust extensions inside), earlier ones pure-Python ones.
#: To add a release, append it with an empty digest: the run prints the digest to pin.
RELEASES: tuple[tuple[str, str], ...] = (
    ("0.5.1", "572c02d83674245899f516af397a38d113935a97660f3e882d20c1c971820909"),
    ("0.5.1.post1", "79d22923502db99d2c41faad3ef423c7961bbabe8a9af8149aa0d27a7d4c093e"),
    ("0.5.1.post2", "10c6097a9a165252070a66b3c8bf38718e49e72019607f18f2cb70c50dbb4925"),
    ("0.5.1.post3", "f92f56f6fa6320012872da1fe37317e665df556af0272eff67af8afb3993ec0c"),
    ("0.5.2", "83aae146f3913ed0802bb1ea356facff47efe0e7d18041a3f143de9ef6e44b2c"),
    ("0.5.3", "14b20822b7c36d7069556e559181bcaa1d3d44b2b0fcbf8818313af4ca22ae7f"),
    ("0.5.3.post1", "0f224b43bda2a771c6a56b03f01bb3ee4aefdf213a322ca33451a845d6f938d8"),
    ("0.5.3.post2", "a2d12288e5c2fd8dd1d1036114ba6ab9ab9ff18822c53618e70566803b5ea160"),
    ("0.5.3.post3", "809fd0c8c0847cd95cf28364ff50475a4d5015c8857b22736c69f3eb12810f0e"),
    ("0.5.4", "342b370145e33f232bef21b73da119d4a96202a0386ebcd54cdbf46a11fbeda3"),
    ("0.5.4.post1", "ed919059d777f4c3a1e029239c16969188623e847ec0b9c23e2d4856e07f70f4"),
    ("0.5.4.post2", "3853ad6538a86b663836825adbda54d154cb4f244523bc72daff7de28bc83e36"),
    ("0.5.4.post3", "054f96cd9f80acc98de740cd6f79330d2e9b61c2efd0692da96f995a9f796821"),
    ("0.5.5", "3c57f135ec0a7a5cf6ae4ed5e0b231d7bf7e0fae588bbc1a881560f1c18db995"),
    ("0.5.5.post1", "a470f7c3ce837a8e414bbeb96da2563e9974f042e03425e8889b373aaeb58180"),
    ("0.5.5.post2", "938d0445dc8116e1b80c223efc875c6738eb6d69ebf78ace6817e06ac15a79d0"),
    ("0.5.5.post3", "0283d290a480e56201cab6e42bc5cf5f505f600a9508d004c06283b052f60203"),
    ("0.5.6", "c32b6a5bafcda41c2f299ed4a1fbe8401946076b4e010fe8feb5b8a9712bf66b"),
    ("0.5.6.post1", "717dd3e1a64a4ac4a14dc791d123c1f90d34fca809237d52e7af39238c560d24"),
    ("0.5.6.post2", "cb542f7adeec56bbb5598443c52d0f347fab74dbb5df09d37cad69eaec780c54"),
    ("0.5.7", "b77f9e5ca5a2ab19b3efba725958fc4de20ba97880e383738c695e8611b51100"),
    ("0.5.8", "b7fbd890f6edd87f46c6e3ce72d592316af316f183c9bd999c3cc44b20fa2451"),
    ("0.5.8.post1", "3fe5ddf6d8b47b234bb192737eb52c94e76282bf910b1185e020f88ec7367e6e"),
    ("0.5.9", "8a936c4d25fea605f44254e533cff2144c73ceffbc1f8738aba393461bbb64d1"),
    ("0.5.10", "ac8855a5d57dac8831fee526bca5212f1ae451f378e2ab08b3baecbc4deb4076"),
    ("0.5.10.post1", "a854a68b11caf6b4b55c241a44378a7cdede7ede325db85c955f131506703bc6"),
    ("0.5.11", "fe0748beaff218d3e16c9018a5e19f018db06fc3c7ac4f90d2f93da1cf074b6f"),
    ("0.5.12", "4ed786a38655851fd055ef57380c34d29b87753b53f63457309f51e5bf48c2e6"),
    ("0.5.12.post1", "94b3f3cc6b97f1364f247b8d9c1d106ec63cf22c55d6b65bc40ff29b0206ef5f"),
    ("0.5.13", "9d26266ab7e99165098f9e173f4a5a0ef6a0b64a6f30ef0b5ee859eead37e75a"),
    ("0.5.13.post1", "1c1653ecf2893c7d7b1cf0c3e1cc9b7550ebad95c809de2f44bcc91b7a1e1fe3"),
    ("0.5.14", "4fe16056b45c8aca00f5f90ceb174dc3a62a3f5dccf159c791370795cd00fc99"),
    ("0.5.15", "21492759b4b99e117bd81610f633422f3fdae2896c2cde6931eab886deccc44f"),
    ("0.5.15.post1", "8e182e1c449197cb6f98716a7cf432a3ea7af78c172f9b840ab28ad9e6cda9b4"),
    ("0.5.16", "d5f345a18953dd35df568ac56bdcb7f5ee910ab39efea4469b714556d1070713"),
    ("0.5.17", "575e38f5683624ded3b4bb267f637a098e5ed37d13a1d1ff5ea09bd781a04d16"),
    ("0.5.18", "e97b585dd2d5db2802599feba47c84cce972f5e1231a6816fef996200207b5cf"),
    ("0.5.19", "425e87377e725d03db8262382008f3fd9561a6cf5d82f485f8b9929f02ffe12b"),
    ("0.5.20", "1573527042f4f6b4ead838302818595fc77fdc611dbcc2e40cd150fbc8f8513c"),
    ("0.5.21", "96c029f75dec99baa33a5db3d41b1bebefdd6bcfba3a2f7c807fe1cf49a87c20"),
    ("0.5.22", "cc9a0f15bd8f877a0584fdb7a1702240177a1f1cc8d17c978715161717b9037b"),
    ("0.5.23", "00b3cd5b265ac76c64185fbb6b95424f324ddd9f428d0306b77bc9db9d859937"),
)

#: The work environment: a CPU build of torch (SGLang's modules use the real one at import)
#: and the light libraries they import on the way to ``server_args``. pip must find a CPU
#: build of torch (a ``find-links`` or index that has one); the default index would give
#: the CUDA build, which works but is several GB.
VENV_PACKAGES = (
    "torch==2.13.0",
    "dill==0.4.1", "msgspec==0.23.0", "numpy==2.4.6", "orjson==3.13.0", "packaging==26.4",
    "psutil==7.2.2", "pydantic==2.14.4", "PyYAML==6.0.4", "requests==2.34.2", "tqdm==4.70.1",
)  # fmt: skip

#: The wheels are CPython 3.11 ones from 0.5.11 on: the environment's Python must match.
PYTHON_VERSION = (3, 11)

#: Bumped when the probe reads more or differently, so kept readings are not reused.
PROBE_VERSION = 1

# ---------------------------------------------------------------------------------------
# The probe: runs inside the work environment, on one unpacked release.
# ---------------------------------------------------------------------------------------

#: Attributes that raise, as the real package does on a machine without a GPU: SGLang's
#: kernels ask Triton for the active driver and fall back to the CPU when that fails.
_NO_GPU = frozenset({"triton.runtime.driver.active"})

#: SGLang modules whose imports are never given stand-ins: this one patches a real
#: ``transformers`` and turns itself off, by its own design, when it is missing.
_REAL_ONLY = frozenset({"sglang.srt.utils.hf_transformers_patches"})


class _StubMeta(type):
    """The type of stand-ins: any attribute, call, subscript or union of them is a stand-in."""

    def __new__(mcs, name: str, bases: tuple[type, ...], ns: dict[str, Any], **kwargs: Any) -> _StubMeta:
        # Keyword arguments of a class statement (TypedDict's total=False) are dropped.
        return super().__new__(mcs, name, bases, ns)

    def __init__(cls, name: str, bases: tuple[type, ...], ns: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(name, bases, ns)

    def __getattr__(cls, name: str) -> Any:
        # Python's own protocols (descriptors, pydantic's hooks, ...) must see a plain class.
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _stub_attribute(f"{cls.__qualname__}.{name}")

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        # A stand-in used as a decorator (a kernel's @jit) leaves the function as it is.
        if len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], _StubMeta):
            return args[0]
        return _stub_type(f"{cls.__qualname__}()")

    def __getitem__(cls, item: Any) -> Any:
        return cls

    def __setitem__(cls, item: Any, value: Any) -> None:
        pass

    def __or__(cls, other: Any) -> Any:
        return cls

    def __ror__(cls, other: Any) -> Any:
        return cls

    def __iter__(cls) -> Any:
        return iter(())

    def __len__(cls) -> int:
        return 0

    def __bool__(cls) -> bool:
        return False

    def __index__(cls) -> int:
        return 0

    def __contains__(cls, item: Any) -> bool:
        return False

    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        # SGLang's pydantic request models name stand-in types in their fields: accept anything.
        return importlib.import_module("pydantic_core.core_schema").any_schema()


class _StubBase:
    def __init_subclass__(cls, **kwargs: Any) -> None:
        pass


def _stub_type(name: str) -> Any:
    return _StubMeta(name.rsplit(".", 1)[-1], (_StubBase,), {"__qualname__": name, "__module__": "stub"})


def _stub_attribute(name: str) -> Any:
    if name in _NO_GPU:
        raise RuntimeError(f"{name}: no GPU driver here")
    return _stub_type(name)


class _StubModule(types.ModuleType):
    """A stand-in module: a package (so submodules import) whose every attribute is a stand-in."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = _stub_attribute(f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = _StubModule(spec.name)
        module.__path__ = []
        module.__dict__["__version__"] = "0.0.0"
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


def _importer_is_sglang() -> bool:
    """Whether the import being resolved is an ``import`` statement in an SGLang module."""
    frame = sys._getframe(2)
    while frame is not None:
        filename = frame.f_code.co_filename
        if frame.f_code.co_name == "find_spec" and filename.endswith(os.path.join("importlib", "util.py")):
            return False  # an availability check: it must see the package missing
        if filename.startswith("<frozen importlib") or filename.endswith(
            os.path.join("importlib", "__init__.py")
        ):
            frame = frame.f_back  # type: ignore[assignment]
            continue
        importer = str(frame.f_globals.get("__name__", ""))
        return importer.split(".")[0] == "sglang" and importer not in _REAL_ONLY
    return False


class _StubFinder(importlib.abc.MetaPathFinder):
    """Last on ``sys.meta_path``: a stand-in for a third-party module nothing else found."""

    def __init__(self) -> None:
        self.stubbed: set[str] = set()

    def find_spec(
        self, fullname: str, path: Any = None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        top = fullname.split(".")[0]
        if top == "sglang" or top in sys.stdlib_module_names or not _importer_is_sglang():
            return None
        self.stubbed.add(fullname)
        return importlib.machinery.ModuleSpec(fullname, _StubLoader(), is_package=True)


def _check_entry_point(root: Path, server_args: Any) -> None:
    """Fail unless the release builds the launch_server parser the way the probe does."""
    launch = (root / "sglang" / "launch_server.py").read_text()
    if "prepare_server_args(sys.argv[1:])" not in launch:
        raise SystemExit("launch_server.py no longer calls prepare_server_args(sys.argv[1:])")
    import inspect

    source = inspect.getsource(server_args.prepare_server_args)
    if "ServerArgs.add_cli_args(parser)" not in source or ".add_argument(" in source:
        raise SystemExit("prepare_server_args builds its parser differently: update the probe")
    if not re.search(r"parser = argparse\.ArgumentParser\((prog=\"[^\"]*\")?\)", source):
        raise SystemExit("prepare_server_args makes its parser differently: update the probe")


def _refusal(action: argparse.Action, parser: argparse.ArgumentParser) -> str | None:
    """What a deprecated flag says when it stops the server, or None when it does not."""
    if "Deprecated" not in type(action).__name__ or action.nargs != 0:
        return None
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            action(parser, argparse.Namespace(), [], action.option_strings[0])
    except BaseException as error:  # parser.error exits; older releases raise ValueError
        lines = stderr.getvalue().strip().splitlines()
        return (lines[-1] if lines else "") or str(error) or type(error).__name__
    return None


def probe(root: Path, out: Path) -> None:
    """Build the release's launch_server parser and write every action of it to ``out``."""
    finder = _StubFinder()
    sys.path.insert(0, str(root))
    sys.meta_path.append(finder)
    server_args = importlib.import_module("sglang.srt.server_args")
    if not str(server_args.__file__).startswith(str(root)):
        raise SystemExit(f"imported {server_args.__file__}, not the release under {root}")
    _check_entry_point(root, server_args)
    parser = argparse.ArgumentParser()
    server_args.ServerArgs.add_cli_args(parser)
    actions = []
    for action in parser._actions:
        new_flag = getattr(action, "new_flag", None)
        actions.append(
            {
                "strings": list(action.option_strings),
                "nargs": action.nargs,
                "class": type(action).__name__,
                "help": action.help if action.help != argparse.SUPPRESS else None,
                "new_flag": new_flag if isinstance(new_flag, str) else None,
                "refuses": _refusal(action, parser),
            }
        )
    reading = {"probe": PROBE_VERSION, "actions": actions, "stubbed": sorted(finder.stubbed)}
    out.write_text(json.dumps(reading, indent=1) + "\n")


# ---------------------------------------------------------------------------------------
# The driver: downloads, unpacks, runs the probe per release and writes the table.
# ---------------------------------------------------------------------------------------


def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, check=True, text=True, capture_output=True, **kwargs)


def make_venv(work: Path, python: str) -> Path:
    """The work environment's interpreter, made (or brought up to ``VENV_PACKAGES``) first."""
    venv = work / "venv"
    interpreter = venv / "bin" / "python"
    marker = venv / "enginekit-packages.txt"
    wanted = "\n".join(VENV_PACKAGES) + "\n"
    if marker.exists() and marker.read_text() == wanted:
        return interpreter
    if not interpreter.exists():
        run([python, "-m", "venv", str(venv)])
    version = run([str(interpreter), "-c", "import sys; print(sys.version_info[:2])"]).stdout.strip()
    if version != str(PYTHON_VERSION):
        raise SystemExit(f"{venv} runs Python {version}; the wheels need {PYTHON_VERSION}: pass --python")
    print(f"installing {len(VENV_PACKAGES)} packages into {venv}", file=sys.stderr)
    run([str(interpreter), "-m", "pip", "install", "--quiet", *VENV_PACKAGES])
    marker.write_text(wanted)
    return interpreter


def published_wheel(interpreter: Path, release: str) -> tuple[str, str]:
    """The file name and sha256 PyPI publishes for the wheel pip picks for ``release``."""
    report = run(
        [str(interpreter), "-m", "pip", "install", "--quiet", "--dry-run", "--no-deps", "--ignore-installed",
         "--only-binary=:all:", "--report", "-", f"sglang=={release}"]
    )  # fmt: skip
    info = json.loads(report.stdout)["install"][0]["download_info"]
    digest = info.get("archive_info", {}).get("hashes", {}).get("sha256", "")
    if not digest:
        raise SystemExit(f"sglang {release}: the index publishes no sha256 for {info['url']}")
    return info["url"].rsplit("/", 1)[-1].split("#")[0], digest


def fetch(work: Path, interpreter: Path, release: str, pinned: str) -> tuple[Path, str]:
    """The release's wheel, downloaded once, checked against PyPI's and the pinned digest."""
    name, published = published_wheel(interpreter, release)
    wheel = work / "wheels" / name
    if not wheel.exists():
        run([str(interpreter), "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
             "-d", str(wheel.parent), f"sglang=={release}"])  # fmt: skip
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != published:
        raise SystemExit(f"{wheel}: sha256 {digest}, PyPI publishes {published}")
    if not pinned:
        print(f"sglang {release}: pin sha256 {digest} in RELEASES", file=sys.stderr)
    elif digest != pinned:
        raise SystemExit(f"{wheel}: sha256 {digest}, RELEASES pins {pinned}")
    return wheel, digest


def read_release(work: Path, interpreter: Path, release: str, pinned: str, fresh: bool) -> dict[str, Any]:
    """One release's parser reading, from the kept one unless it is stale or ``fresh``."""
    kept = work / "results" / f"{release}.json"
    wheel, digest = fetch(work, interpreter, release, pinned)
    if kept.exists() and not fresh:
        reading: dict[str, Any] = json.loads(kept.read_text())
        if reading.get("probe") == PROBE_VERSION and reading.get("sha256") == digest:
            return reading
    tree = work / "src" / release
    shutil.rmtree(tree, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tree)
    env = dict(os.environ, PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1", CUDA_VISIBLE_DEVICES="")
    out = work / "results" / f"{release}.partial"
    try:
        run(
            [str(interpreter), str(Path(__file__).resolve()), "--probe", str(tree), str(out)],
            env=env,
            cwd=work,
        )
    except subprocess.CalledProcessError as error:
        raise SystemExit(f"sglang {release}: the probe failed:\n{error.stderr[-4000:]}") from None
    reading = json.loads(out.read_text())
    reading.update(release=release, wheel=wheel.name, sha256=digest)
    kept.write_text(json.dumps(reading, indent=1) + "\n")
    out.unlink()
    return reading


def takes(nargs: Any, where: str) -> int | str:
    """An action's ``nargs`` as the table's ``takes``."""
    if nargs is None:
        return 1
    if isinstance(nargs, int) or nargs in ("?", "*", "+"):
        return nargs  # type: ignore[no-any-return]
    raise SystemExit(f"{where}: nargs {nargs!r} has no place in the table")


def spellings(reading: dict[str, Any], refusing: bool = False) -> dict[str, dict[str, Any]]:
    """Every spelling the release accepts (or, ``refusing``, refuses), with its action."""
    found: dict[str, dict[str, Any]] = {}
    for action in reading["actions"]:
        if (action["refuses"] is not None) == refusing:
            for spelling in action["strings"]:
                found[spelling] = action
    return found


#: How a notice names what replaced a spelling: "use --x instead", "alias for --x".
_REPLACEMENT = re.compile(
    r"\b(?:use|set|alias for|replaced by|renamed to|in favou?r of)\s+`?(--[a-z0-9][a-z0-9-]*)", re.I
)
#: A help or message that retires the spelling it belongs to.
_RETIRED = re.compile(r"deprecat|removed|no longer supported|renamed|alias for", re.I)


def named_replacement(action: dict[str, Any]) -> tuple[str, str] | None:
    """The spelling a deprecated action names as its replacement, with where it says so."""
    if action["new_flag"]:
        return re.split(r"[=\s{]", action["new_flag"], maxsplit=1)[0], "its deprecated action names it"
    for text, where in ((action["refuses"], "its refusal names it"), (action["help"], "its help names it")):
        if text and _RETIRED.search(text):
            found = _REPLACEMENT.search(text)
            if found:
                return found.group(1), where
    return None


def find_renames(
    releases: list[str], accepted: list[dict[str, dict[str, Any]]], refused: list[dict[str, dict[str, Any]]]
) -> dict[str, dict[str, str]]:
    """Renames between consecutive releases, each with the reason printed for the record.

    The deprecation notice read for a spelling that goes away is the one of the release
    that refuses it, where there is one, else that of the last release that accepted it.
    """
    renames: dict[str, dict[str, str]] = {}
    for index in range(1, len(releases)):
        before, now = accepted[index - 1], accepted[index]
        gone = sorted(s for s in before if s.startswith("--") and s not in now)
        arrived = [s for s in now if s.startswith("--") and s not in before]
        for old in gone:
            if any(old in later for later in accepted[index:]):
                continue
            action = before[old]
            to, why = None, ""
            named = named_replacement(refused[index].get(old, action))
            if named and named[0] in now and named[0] != old:
                to, why = named
            elif old.replace("_", "-") in arrived:
                to, why = old.replace("_", "-"), "'_' became '-'"
            elif action["help"]:
                same = [
                    new
                    for new in arrived
                    if now[new]["help"] == action["help"] and now[new]["nargs"] == action["nargs"]
                ]
                if len(same) == 1:
                    to, why = same[0], "it arrived with the same help text"
            if to:
                renames[old] = {"to": to, "since": releases[index]}
                print(f"rename {old} -> {to} since {releases[index]}: {why}", file=sys.stderr)
    return dict(sorted(renames.items()))


def _where(present: list[bool]) -> list[int]:
    return [index for index, here in enumerate(present) if here]


def build(readings: list[dict[str, Any]]) -> dict[str, Any]:
    """The option document of the readings, oldest release first."""
    # The sibling module; imported here, since the probe half of this file runs in the
    # work environment with -I, where this folder is not on the path.
    from common import spans

    releases = [reading["release"] for reading in readings]
    accepted = [spellings(reading) for reading in readings]
    options: dict[str, dict[str, Any]] = {}
    aliases: dict[str, dict[str, Any]] = {}
    for spelling in sorted({s for release in accepted for s in release}):
        where = [release.get(spelling) for release in accepted]
        present = [action is not None for action in where]
        last = [action for action in where if action is not None][-1]
        if spelling.startswith("--"):
            counts = {str(takes(a["nargs"], spelling)) for a in where if a is not None}
            if len(counts) > 1:
                print(f"{spelling}: takes changed ({sorted(counts)}), newest kept", file=sys.stderr)
            options[spelling] = {
                "takes": takes(last["nargs"], spelling),
                "in": spans(_where(present), releases),
            }
        else:
            targets = {next(s for s in a["strings"] if s.startswith("--")) for a in where if a is not None}
            if len(targets) > 1:
                raise SystemExit(f"{spelling} stands for different options: {sorted(targets)}")
            aliases[spelling] = {"option": targets.pop(), "in": spans(_where(present), releases)}
    return {
        "format": 1,
        "engine": ENGINE,
        "program": PROGRAM,
        "generator": GENERATOR,
        "releases": [
            {
                "release": reading["release"],
                "source": f"{reading['wheel']} (PyPI, sha256 {reading['sha256']}): "
                "sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), "
                "as prepare_server_args builds it",
            }
            for reading in readings
        ],
        "options": options,
        "aliases": aliases,
        "renames": find_renames(
            releases, accepted, [spellings(reading, refusing=True) for reading in readings]
        ),
    }


def default_python() -> str:
    if sys.version_info[:2] == PYTHON_VERSION:
        return sys.executable
    return shutil.which("python{}.{}".format(*PYTHON_VERSION)) or sys.executable


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=TABLE_MODULE, help="the options_table.py to write")
    parser.add_argument("--work", type=Path, default=Path("/tmp/optiontables/sglang"))
    parser.add_argument("--release", action="append", default=[], help="read only this release")
    parser.add_argument("--fresh", action="store_true", help="read again releases already read")
    parser.add_argument("--jobs", type=int, default=2, help="releases probed at once")
    parser.add_argument("--python", default=default_python(), help="the Python 3.11 to make the venv with")
    parser.add_argument("--probe", nargs=2, metavar=("TREE", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.probe:
        probe(Path(args.probe[0]).resolve(), Path(args.probe[1]))
        return 0
    wanted = [
        (release, pinned) for release, pinned in RELEASES if not args.release or release in args.release
    ]
    if args.release and len(wanted) != len(args.release):
        parser.error(f"not in RELEASES: {sorted(set(args.release) - {r for r, _ in wanted})}")
    started = time.monotonic()
    work: Path = args.work.resolve()
    for folder in ("wheels", "src", "results"):
        (work / folder).mkdir(parents=True, exist_ok=True)
    interpreter = make_venv(work, args.python)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        readings = list(
            pool.map(lambda item: read_release(work, interpreter, item[0], item[1], args.fresh), wanted)
        )
    for reading in readings:
        longs = [s for a in reading["actions"] if a["refuses"] is None for s in a["strings"] if s[:2] == "--"]
        refused = [a["strings"][0] for a in reading["actions"] if a["refuses"] is not None]
        print(
            f"{reading['release']}: {len(longs)} options"
            + (f", {len(refused)} refused ({' '.join(refused)})" if refused else "")
            + f"; stand-ins: {' '.join(m for m in reading['stubbed'] if '.' not in m)}",
            file=sys.stderr,
        )
    document = build(readings)
    # The sibling module, found from this file's folder (the probe, run in the work
    # environment, never gets here).
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from enginekit.plugin import write_table_module as write_table

    write_table(document, args.out)
    print(f"wrote {args.out} in {time.monotonic() - started:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
