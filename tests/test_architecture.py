"""The core's rooms and the plugins' modules: imports only downwards, no circles, the docs agree.

Every import counts, wherever it is written: at the top of a module, inside a function
(a deferred import is still a dependency) or under ``TYPE_CHECKING`` (the types still
tie the modules together).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "core" / "src" / "enginekit"
PLUGIN_SOURCES = [
    *sorted((ROOT / "plugins").glob("*/src/enginekit_*")),
    ROOT / "templates" / "engine-plugin" / "src" / "enginekit_myengine",
]
ARCHITECTURE = ROOT / "docs" / "architecture.md"

#: The top-level modules outside the rooms: the two public faces above every room, the
#: entry point above those, and the version at the bottom with ``base``.
TOP = {"enginekit": 11, "enginekit.plugin": 11, "enginekit.__main__": 12, "enginekit._version": 0}


def module_name(path: Path, package_root: Path) -> str:
    parts = [package_root.name, *path.relative_to(package_root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(package_root: Path) -> dict[str, Path]:
    return {module_name(p, package_root): p for p in sorted(package_root.rglob("*.py"))}


def imports(path: Path, name: str, known: set[str]) -> Iterator[str]:
    """Every module of ``known`` that ``path`` imports, anywhere in it."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            # ``from package import module`` imports the module; ``from module import name`` the module.
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in known else module for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def graph(package_root: Path) -> dict[str, set[str]]:
    found = modules(package_root)
    return {name: set(imports(path, name, set(found))) for name, path in found.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def documented_rooms() -> dict[str, tuple[int, set[str]]]:
    """``room: (layer, modules)`` from the table in docs/architecture.md."""
    rows = re.findall(
        r"^\| `(\w+)/` \| (\d+) \| [^|]+ \| ([^|]+) \|$", ARCHITECTURE.read_text(), re.MULTILINE
    )
    return {room: (int(layer), set(re.findall(r"`(\w+)`", names))) for room, layer, names in rows}


def layer_of(module: str, rooms: dict[str, tuple[int, set[str]]]) -> int:
    if module in TOP:
        return TOP[module]
    room = module.split(".")[1]
    return rooms[room][0]


def test_the_folder_list_is_the_documented_rooms() -> None:
    rooms = documented_rooms()
    folders = {p.name for p in CORE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(rooms), "docs/architecture.md's table and core/src/enginekit/ disagree"
    loose = {p.stem for p in CORE.glob("*.py")}
    assert {f"enginekit.{m}" if m != "__init__" else "enginekit" for m in loose} == set(TOP)
    assert sorted(layer for layer, _ in rooms.values()) == list(range(len(rooms)))


@pytest.mark.parametrize("room", sorted(documented_rooms()))
def test_each_room_row_names_its_modules(room: str) -> None:
    on_disk = {p.stem for p in (CORE / room).rglob("*.py") if p.stem != "__init__"}
    assert documented_rooms()[room][1] == on_disk


def test_no_room_imports_a_room_above_it() -> None:
    rooms = documented_rooms()
    upward = [
        f"{module} (layer {layer_of(module, rooms)}) imports {target} (layer {layer_of(target, rooms)})"
        for module, targets in graph(CORE).items()
        for target in sorted(targets)
        if layer_of(target, rooms) > layer_of(module, rooms)
    ]
    assert upward == []


@pytest.mark.parametrize("package_root", [CORE, *PLUGIN_SOURCES], ids=lambda p: p.name)
def test_no_import_circles(package_root: Path) -> None:
    assert circles(graph(package_root)) == []


@pytest.mark.parametrize("package_root", PLUGIN_SOURCES, ids=lambda p: p.name)
def test_plugins_import_only_the_public_faces(package_root: Path) -> None:
    allowed = {"enginekit", "enginekit.plugin", "enginekit.testing"}
    private = []
    for path in sorted(package_root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            private += [
                f"{path.name}: {n}" for n in names if n.split(".")[0] == "enginekit" and n not in allowed
            ]
    assert private == []


@pytest.mark.parametrize("package_root", [CORE, *PLUGIN_SOURCES], ids=lambda p: p.name)
def test_every_module_says_what_it_is_for(package_root: Path) -> None:
    undocumented = [
        str(path.relative_to(ROOT))
        for path in sorted(package_root.rglob("*.py"))
        if path.name != "options_table.py"
        and not ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert undocumented == []


def test_the_checker_sees_a_circle_and_an_upward_import(tmp_path: Path) -> None:
    """The checks above are only as good as the graph: a deferred circle is found."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text('"""p."""\n')
    (package / "a.py").write_text('"""a."""\nfrom pkg.b import x\n')
    (package / "b.py").write_text(
        '"""b."""\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n'
    )
    (package / "c.py").write_text('"""c."""\ndef f():\n    from . import a\n')
    edges = graph(package)
    assert edges["pkg.c"] == {"pkg.a"}
    assert circles(edges) == [["pkg.a", "pkg.b"]]
