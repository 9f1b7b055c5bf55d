"""The package's layout: the render plugin loads nothing of the server, and no module imports in a circle."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import enginekit_sim

PACKAGE = Path(enginekit_sim.__file__).parent
#: The repository's examples: this test file is plugins/sim/tests/ in it.
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
#: What the render plugin may import of its own distribution: itself and the shared table.
SHARED = {"enginekit_sim", "enginekit_sim.commandline", "enginekit_sim.faults", "enginekit_sim.limits"}
#: Third-party modules only the server runs on.
SERVER_ONLY = ("httptools", "zmq", "msgpack")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _imports(path: Path, known: set[str]) -> set[str]:
    """Every module of the package that ``path`` imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # ``from enginekit_sim.server import cli`` imports a submodule, not a name.
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            continue
        found |= {name for name in names if name in known}
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(path, known) - {name} for name, path in modules.items()}


def test_the_modules_of_the_package_import_in_no_circle() -> None:
    graph = _graph()
    # A parent package is imported before its submodule anyway: that edge is no circle.
    edges = {name: {dep for dep in deps if not name.startswith(dep + ".")} for name, deps in graph.items()}
    visiting: list[str] = []
    done: set[str] = set()

    def visit(name: str) -> None:
        assert name not in visiting, (
            f"import circle: {' -> '.join([*visiting[visiting.index(name) :], name])}"
        )
        if name in done:
            return
        visiting.append(name)
        for dep in sorted(edges[name]):
            visit(dep)
        visiting.pop()
        done.add(name)

    for name in sorted(edges):
        visit(name)
    assert len(done) == len(graph) > 20


def test_the_render_plugin_imports_nothing_of_the_server_even_lazily() -> None:
    graph = _graph()
    plugin = {name for name in graph if name.startswith("enginekit_sim.plugin")}
    assert plugin == {
        "enginekit_sim.plugin",
        "enginekit_sim.plugin.hooks",
        "enginekit_sim.plugin.config",
        "enginekit_sim.plugin.flags",
    }
    for name in sorted(plugin):
        outside = {dep for dep in graph[name] if not dep.startswith("enginekit_sim.plugin")}
        assert outside <= SHARED, f"{name} imports {sorted(outside - SHARED)}"
    for name in SHARED - {"enginekit_sim"}:
        assert graph[name] <= SHARED, f"the shared {name} imports {sorted(graph[name] - SHARED)}"


def test_the_server_imports_neither_the_render_plugin_nor_the_core() -> None:
    # The server runs on an engine's interpreter, which needs nothing of enginekit's.
    for name, deps in _graph().items():
        if name.startswith("enginekit_sim.server"):
            assert not {dep for dep in deps if dep.startswith("enginekit_sim.plugin")}, name
            tree = ast.parse(_modules()[name].read_text(encoding="utf-8"))
            roots = {
                alias.name.split(".")[0]
                for node in ast.walk(tree)
                if isinstance(node, ast.Import)
                for alias in node.names
            }
            roots |= {
                node.module.split(".")[0]
                for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module
            }
            assert "enginekit" not in roots, name


_RENDER_EVERYTHING = """
import json, sys
from pathlib import Path
import enginekit

registry = enginekit.registry_for(None, {{}})
plans = []
for path in sys.argv[1:]:
    spec = enginekit.load_spec(Path(path)).spec
    plans.append(list(registry.engine("sim").plan(spec).commands[-1].args[:4]))
loaded = sorted(m for m in sys.modules if m.startswith("enginekit_sim") or m.split(".")[0] in {modules})
print(json.dumps({{"loaded": loaded, "plans": plans}}))
"""


def test_rendering_every_sim_example_loads_no_server_module() -> None:
    examples = sorted(str(path) for path in EXAMPLES.glob("sim-*.toml"))
    assert len(examples) >= 3
    program = _RENDER_EVERYTHING.format(modules=set(SERVER_ONLY))
    done = subprocess.run(
        [sys.executable, "-c", program, *examples], capture_output=True, text=True, timeout=60, check=True
    )
    report = json.loads(done.stdout)
    assert [args[:3] for args in report["plans"]] == [["-I", "-m", "enginekit_sim"]] * len(examples)
    assert "enginekit_sim.plugin.hooks" in report["loaded"]
    assert [m for m in report["loaded"] if m.startswith("enginekit_sim.server")] == []
    assert [m for m in report["loaded"] if m.split(".")[0] in SERVER_ONLY] == []


def test_the_server_s_engine_core_does_not_share_the_core_s_engine_name() -> None:
    from enginekit_sim.server import core

    assert not hasattr(core, "Engine")
    assert core.EngineCore.__module__ == "enginekit_sim.server.core"
