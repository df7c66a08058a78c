"""The shape of the package: one direction of imports, no cycles, every module importable on its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pbem"

#: The layers, lowest first: a module may import its own layer and the layers below, never one above.
#: A module is placed by the longest prefix that names it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("pbem", "pbem.config"),
    ("pbem.engine",),
    ("pbem.variants",),
    ("pbem.pictures",),
    ("pbem.clock",),
    ("pbem.store", "pbem.migrations"),
    ("pbem.mail",),
    ("pbem.app",),
    ("pbem.events",),
    ("pbem.commands",),
    ("pbem.worker", "pbem.worker_process", "pbem.picture_process", "pbem.children", "pbem.notices", "pbem.sweep",
     "pbem.computer_player", "pbem.scheduler",
     "pbem.startup", "pbem.web"),
    ("pbem.server", "pbem.cli", "pbem.__main__"),
)

#: What the engines and variants (pure rules, no I/O) may never import.
IMPURE = ("pbem.mail", "pbem.store", "pbem.app", "pbem.events", "pbem.commands", "pbem.worker", "pbem.notices",
          "pbem.sweep", "pbem.server", "pbem.cli", "jinja2", "sqlmodel", "sqlalchemy", "aiosmtpd", "aiosmtplib",
          "smtplib", "socket", "apscheduler", "random")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    best, rank = "", -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > len(best):
                best, rank = prefix, index
    return rank


def _module_level_imports(path: Path, module: str) -> set[str]:
    """Every module named by an import that runs when ``module`` is imported (not inside functions,
    not under ``if TYPE_CHECKING``), including ``from X import name`` where ``X.name`` is a module."""
    names: set[str] = set()
    is_package = path.name == "__init__.py"

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = module.split(".") if is_package else module.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    target = node.module or ""
                names.add(target)
                names.update(f"{target}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.If):
                if "TYPE_CHECKING" not in ast.unparse(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)

    visit(ast.parse(path.read_text()).body)
    return names


def _runs(name: str) -> list[str]:
    """The pbem modules an import of ``name`` runs: each package ``__init__`` on the dotted path, then the module."""
    parts = name.split(".")
    return [m for m in (".".join(parts[: i + 1]) for i in range(len(parts))) if m in MODULES]


def import_graph() -> nx.DiGraph:
    graph = nx.DiGraph()
    for module, path in MODULES.items():
        graph.add_node(module)
        for parent in _runs(module)[:-1]:  # importing a submodule first runs its packages
            graph.add_edge(module, parent)
        for name in _module_level_imports(path, module):
            for target in _runs(name):
                if target != module:
                    graph.add_edge(module, target)
    return graph


def test_the_graph_sees_the_package() -> None:
    graph = import_graph()
    assert len(MODULES) > 100
    assert graph.has_edge("pbem.worker", "pbem.app.games")
    assert graph.has_edge("pbem.app.games", "pbem.app")  # the package __init__ a dotted import runs


def test_no_module_level_import_cycle() -> None:
    cycles = [sorted(c) for c in nx.strongly_connected_components(import_graph()) if len(c) > 1]
    assert not cycles, f"import cycles: {cycles}"


def test_every_module_has_a_layer() -> None:
    assert [m for m in MODULES if layer_of(m) < 0] == []


def test_imports_point_down_the_layers() -> None:
    graph = import_graph()
    upward = sorted(f"{a} -> {b}" for a, b in graph.edges if layer_of(b) > layer_of(a))
    assert not upward, "imports against the layer table:\n" + "\n".join(upward)


def test_a_wrong_import_would_be_caught() -> None:
    """The checks above can fail: an engine importing the store, and a cycle, are both seen."""
    assert layer_of("pbem.store.models") > layer_of("pbem.engine.base")
    graph = import_graph()
    graph.add_edge("pbem.store.models", "pbem.worker")
    assert any(len(c) > 1 for c in nx.strongly_connected_components(graph))


@pytest.mark.parametrize("path", sorted(p for p in MODULES.values() if p.parts[-3:-1] != ("migrations", "versions")
                                        and ("engine" in p.parts or "variants" in p.parts)),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_engine_modules_do_no_io(path: Path) -> None:
    imported = _module_level_imports(path, module_name(path))
    bad = {n for n in imported if any(n == f or n.startswith(f + ".") for f in IMPURE)}
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_every_module_imports_first_in_a_fresh_interpreter() -> None:
    """Each module imported first, alone, in its own interpreter: no hidden dependency on import order."""
    modules = [m for m in MODULES if ".migrations." not in m and m != "pbem.__main__"]

    def try_import(module: str) -> str:
        done = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT, capture_output=True, text=True,
                              timeout=120)
        return "" if done.returncode == 0 else f"{module}: {(done.stderr.strip().splitlines() or ['?'])[-1]}"

    with ThreadPoolExecutor(max_workers=4) as pool:
        failures = [f for f in pool.map(try_import, modules) if f]
    assert not failures, "\n".join(failures)


#: Libraries a running server never needs, which would stay in each of its processes' memory: Alembic only
#: when the schema is behind (pbem.store.db.Database.migrate), networkx only for a Swiss round's pairing.
ONLY_ON_DEMAND = ("alembic", "mako", "networkx")


def test_the_servers_processes_import_no_library_they_only_need_on_demand() -> None:
    entry_points = "pbem.server, pbem.worker_process, pbem.picture_process, pbem.cli"
    probe = (f"import sys, {entry_points}; "
             f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set(sys.argv[1:])))")
    done = subprocess.run([sys.executable, "-c", probe, *ONLY_ON_DEMAND], cwd=ROOT, capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stdout
