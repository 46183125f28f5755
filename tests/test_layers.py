"""The import direction of the package, read from the source with ``ast`` (nothing is imported).

- ``pipeline/domain/`` is pure: it imports only the standard library (less the modules that reach
  the files, the clock, the environment, processes or the network), ``pipeline.model``,
  ``pipeline.errors``, ``pipeline.domain.*`` and the pure libraries chess, polars and caissify_pairings (the
  Swiss pairing engine, behind pipeline/domain/dutch.py), and it calls no
  file I/O (``open``, ``Path.read_*`` / ``write_*``) and no clock (``datetime.now``, ``time.time``).
  Imports inside functions count: a rule that fetches its own clock is as impure at call time.
- ``pipeline/model.py`` (the frozen types) is held to the same rules, and imports from ``pipeline``
  only ``pipeline.errors`` and ``pipeline.domain.timecontrol``. It may name ``pathlib.Path`` (a
  config holds paths as values) but never reads one.
- The production path (``pipeline/`` but ``sim/``, and ``flows/``) never imports ``pipeline.sim`` at
  module level: the replay server and the demo generator are imported inside the few functions
  that start them (``antichess-td demo``, ``antichess-td replay-server``, and the ingest stage when
  the config sets ``lichess.replay_data``).

- Imports run one way, top to bottom, through the layers (:data:`LAYERS`), each named by its
  packages::

      pipeline.cli (and pipeline.__main__, the entry point)
      flows
      pipeline.stages
      pipeline.report, pipeline.lichess, pipeline.notify, pipeline.sim
      pipeline.inputs, pipeline.store
      pipeline.domain
      pipeline.model, pipeline.errors, pipeline.resources, pipeline.docgen, pipeline.progress

  A module imports from its own layer or the layers below; every module of ``pipeline/`` and
  ``flows/`` is in a layer (the root package's ``__init__``, a docstring, aside). ``pipeline.sim``
  (the replay server and the demo's world) stands beside the adapters it imitates;
  ``pipeline.progress`` (the progress display) imports nothing of ours, so every layer may use it.
- No import cycle among our modules (``pipeline/``, ``flows/``, ``pipeline/sim`` included).
- An edge of both checks is an import statement that runs: at module level and inside a function
  alike (an import deferred into a function, for speed or to dodge a cycle, is a dependency all
  the same), but not one under ``if TYPE_CHECKING:`` (a name for the type checker only).
  ``from a.b import c`` is an edge to the module ``a.b.c`` when there is one, else to ``a.b``.
- Rooms of a readable size: no production module (``pipeline/`` but ``sim/``, and ``flows/``) over
  500 lines, no function or method over 60 (from its ``def`` to the end of its body, decorators
  not counted).

Each check returns its violations as ``path:line: what`` lines, so a failure says where to look;
the ``test_the_..._planted_...`` tests plant violations of each kind and assert the lines verbatim.
"""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PIPELINE = ROOT / "pipeline"

# the standard library less what reaches outside a function's arguments: files, the clock, the
# environment, processes, threads, the network, randomness and logging
IMPURE_STDLIB = frozenset(
    {
        "asyncio",
        "glob",
        "http",
        "logging",
        "multiprocessing",
        "os",
        "pathlib",
        "random",
        "secrets",
        "shutil",
        "signal",
        "socket",
        "sqlite3",
        "subprocess",
        "sys",
        "tempfile",
        "threading",
        "time",
        "urllib",
    }
)
PURE_THIRD_PARTY = frozenset({"chess", "polars", "caissify_pairings"})  # the Swiss pairing engine is pure too
DOMAIN_MAY_IMPORT = ("pipeline.model", "pipeline.errors", "pipeline.domain")
MODEL_MAY_IMPORT = ("pipeline.errors", "pipeline.domain.timecontrol")
# calls that read a file or the clock, by the name they are called with (the last attribute)
IO_CALLS = frozenset({"open", "read_text", "read_bytes", "write_text", "write_bytes"})
CLOCK_CALLS = frozenset({"now", "utcnow", "today", "time", "time_ns", "monotonic", "perf_counter"})
PRODUCTION = [p for p in (PIPELINE, ROOT / "flows") for p in p.rglob("*.py") if "sim" not in p.relative_to(ROOT).parts]
OUR_MODULES = sorted(p for p in (PIPELINE, ROOT / "flows") for p in p.rglob("*.py"))


def imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    """Every name an ``import`` or ``from ... import`` brings in, as a dotted path (``from a.b
    import c`` gives ``a.b.c``: a module or a name in one), anywhere in the tree."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out += [(node.lineno, "." * node.level + node.module + "." + a.name) for a in node.names]
    return out


def _is_under(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def pure_violations(
    name: str, source: str, may_import: tuple[str, ...], stdlib_also: frozenset[str] = frozenset()
) -> list[str]:
    """What makes a module impure: an import outside the allowed set, a file or clock call."""
    tree = ast.parse(source)
    out = []
    for line, module in imported_modules(tree):
        top = module.split(".")[0]
        if module.startswith("."):
            out.append(f"{name}:{line}: relative import {module!r}: name the module")
        elif top == "pipeline":
            if not _is_under(module, may_import):
                out.append(f"{name}:{line}: imports {module!r}: expected only {', '.join(may_import)}")
        elif top in sys.stdlib_module_names:
            if top in IMPURE_STDLIB - stdlib_also:
                out.append(f"{name}:{line}: imports {module!r}: files, clock, environment, processes or network")
        elif top not in PURE_THIRD_PARTY:
            out.append(
                f"{name}:{line}: imports {module!r}: expected the standard library, chess, polars or caissify_pairings"
            )
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if called in IO_CALLS:
            out.append(f"{name}:{node.lineno}: calls {called}(): file I/O belongs to the callers")
        elif called in CLOCK_CALLS and isinstance(node.func, ast.Attribute):
            out.append(f"{name}:{node.lineno}: calls .{called}(): the clock is an argument (now)")
    return out


def sim_at_module_level(name: str, source: str) -> list[str]:
    """Imports of ``pipeline.sim`` outside a function body (the module loads the simulator)."""
    out = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            for line, module in imported_modules(child) if isinstance(child, (ast.Import, ast.ImportFrom)) else []:
                if _is_under(module, ("pipeline.sim",)):
                    out.append(f"{name}:{line}: imports {module!r} at module level")
            visit(child)

    visit(ast.parse(source))
    return out


LAYERS: tuple[tuple[str, ...], ...] = (
    ("pipeline.cli", "pipeline.__main__"),
    ("flows",),
    ("pipeline.stages",),
    ("pipeline.report", "pipeline.lichess", "pipeline.notify", "pipeline.sim"),
    ("pipeline.inputs", "pipeline.store"),
    ("pipeline.domain",),
    ("pipeline.model", "pipeline.errors", "pipeline.resources", "pipeline.docgen", "pipeline.progress"),
)
"""The layers, top to bottom: a module imports only from its own layer or the layers below it."""
ROOT_PACKAGE = "pipeline"  # its __init__ holds only the docstring: in no layer


@functools.cache
def _tree(source: str) -> ast.Module:
    """The parsed source (the real tree's modules are parsed once for the three checks)."""
    return ast.parse(source)


def module_name(rel: str) -> str:
    """``pipeline/stages/score.py`` -> ``pipeline.stages.score``; a package's ``__init__.py`` is the package."""
    parts = rel.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(tree: ast.AST) -> list[tuple[int, ast.Import | ast.ImportFrom]]:
    """The import statements that run: at module level and inside functions alike, less those under
    ``if TYPE_CHECKING:`` (names for the type checker only)."""
    out: list[tuple[int, ast.Import | ast.ImportFrom]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit_one(other)
                continue
            visit_one(child)

    def visit_one(child: ast.AST) -> None:
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            out.append((child.lineno, child))
        visit(child)

    visit(tree)
    return out


def import_edges(sources: dict[str, str]) -> list[tuple[str, int, str, str]]:
    """Every import of one of our modules by another, as ``(path, line, importer, imported)``:
    ``sources`` maps each module's path (``pipeline/stages/score.py``) to its text. ``from a.b
    import c`` imports the module ``a.b.c`` when there is one, else ``a.b``; a relative import is
    resolved against the importer's package."""
    modules = {module_name(path) for path in sources}
    edges = []
    for path, text in sources.items():
        importer = module_name(path)
        package = importer if path.endswith("__init__.py") else importer.rpartition(".")[0]
        for line, node in _runtime_imports(_tree(text)):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for target in dict.fromkeys(targets):
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != importer:
                    edges.append((path, line, importer, target))
    return edges


def import_cycles(sources: dict[str, str]) -> list[str]:
    """One line per import cycle (a strongly connected set of modules), at the import that starts
    the shortest loop through its first module by name: that loop, and every module in the cycle."""
    graph: dict[str, dict[str, tuple[str, int]]] = {}
    for path, line, importer, imported in import_edges(sources):
        graph.setdefault(importer, {}).setdefault(imported, (path, line))
    out = []
    for component in _strongly_connected(graph):
        if len(component) < 2:
            continue
        start = min(component)
        loop = _shortest_loop(graph, start, component)
        path, line = graph[start][loop[1]]
        out.append(f"{path}:{line}: import cycle {' -> '.join(loop)} (in the cycle: {', '.join(sorted(component))})")
    return sorted(out)


def _strongly_connected(graph: dict[str, dict[str, tuple[str, int]]]) -> list[set[str]]:
    """Tarjan's strongly connected components of the import graph."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, {})):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            components.append(component)

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return components


def _shortest_loop(graph: dict[str, dict[str, tuple[str, int]]], start: str, within: set[str]) -> list[str]:
    """The shortest import path from ``start`` back to itself inside ``within`` (breadth first, by name)."""
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph.get(node, {})):
                if nxt not in within or nxt in came_from:
                    continue
                came_from[nxt] = node
                if nxt == start:
                    loop = [start]
                    while loop[-1] != start or len(loop) == 1:
                        loop.append(came_from[loop[-1]])
                    return loop[::-1]
                following.append(nxt)
        frontier = following
    raise AssertionError(f"{start} is in no loop")


def layer_of(module: str) -> tuple[int, str] | None:
    """The module's layer (its index in :data:`LAYERS`, 0 the top) and the package of that layer
    that holds it; None when no layer does."""
    for depth, packages in enumerate(LAYERS):
        for package in packages:
            if _is_under(module, (package,)):
                return depth, package
    return None


def upward_imports(sources: dict[str, str]) -> list[str]:
    """Imports of a module in a layer above the importer's, and modules in no layer (the root
    package ``pipeline``, which holds only its docstring, aside)."""
    out = []
    for path in sources:
        module = module_name(path)
        if module != ROOT_PACKAGE and layer_of(module) is None:
            out.append(f"{path}:1: {module} is in no layer: place it in LAYERS")
    for path, line, importer, imported in import_edges(sources):
        below, above = layer_of(importer), layer_of(imported)
        if below is not None and above is not None and above[0] < below[0]:
            out.append(f"{path}:{line}: imports {imported!r}: {below[1]} sits below {above[1]}")
    return out


MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60


def oversized(path: str, source: str) -> list[str]:
    """A module over MAX_MODULE_LINES lines, and every function or method over MAX_FUNCTION_LINES
    (from its ``def`` to the end of its body, decorators not counted)."""
    out = []
    lines = len(source.splitlines())
    if lines > MAX_MODULE_LINES:
        out.append(f"{path}:1: {lines} lines: split it along its seams (at most {MAX_MODULE_LINES})")
    for node in ast.walk(_tree(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                out.append(f"{path}:{node.lineno}: {node.name}() is {length} lines (at most {MAX_FUNCTION_LINES})")
    return sorted(out, key=lambda v: int(v.split(":")[1]))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _sources(paths: list[Path]) -> dict[str, str]:
    return {_rel(p): p.read_text(encoding="utf-8") for p in paths}


def test_domain_modules_are_pure() -> None:
    modules = sorted((PIPELINE / "domain").rglob("*.py"))
    assert len(modules) >= 10, modules  # the walk finds the package
    problems = [v for p in modules for v in pure_violations(_rel(p), p.read_text(encoding="utf-8"), DOMAIN_MAY_IMPORT)]
    assert problems == []


def test_model_imports_only_errors_and_time_controls() -> None:
    path = PIPELINE / "model.py"
    source = path.read_text(encoding="utf-8")
    assert pure_violations(_rel(path), source, MODEL_MAY_IMPORT, stdlib_also=frozenset({"pathlib"})) == []


def test_production_never_imports_the_simulators_at_module_level() -> None:
    assert len(PRODUCTION) >= 30, PRODUCTION
    problems = [v for p in sorted(PRODUCTION) for v in sim_at_module_level(_rel(p), p.read_text(encoding="utf-8"))]
    assert problems == []


def test_loading_the_stages_does_not_load_the_simulators() -> None:
    """What the static check promises, observed: a fresh interpreter that imports the CLI and
    every stage has no ``pipeline.sim`` module loaded (the flow, whose Prefect import takes
    seconds, is left to the static check)."""
    import subprocess

    code = (
        "import sys, pipeline.cli.app, pipeline.stages.ingest, pipeline.stages.score, "
        "pipeline.stages.audit, pipeline.stages.export; "
        "print(sorted(m for m in sys.modules if m.startswith('pipeline.sim')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_no_import_cycles() -> None:
    assert len(OUR_MODULES) >= 60, OUR_MODULES
    assert import_cycles(_sources(OUR_MODULES)) == []


def test_nothing_imports_upward() -> None:
    assert upward_imports(_sources(OUR_MODULES)) == []


def test_no_module_or_function_too_big_to_read() -> None:
    assert [v for path, text in _sources(sorted(PRODUCTION)).items() for v in oversized(path, text)] == []


PLANTED = """\
import os
import datetime as dt
from pathlib import Path
import duckdb
from pipeline.store import gateway
from pipeline.domain import linking


def rate(games):
    import berserk
    from pipeline.sim import replay
    now = dt.datetime.now(dt.UTC)
    rows = Path("x.csv").read_text()
    with open("y") as f:
        pass
    return now, rows
"""


def test_the_checks_catch_planted_violations() -> None:
    assert pure_violations("pipeline/domain/planted.py", PLANTED, DOMAIN_MAY_IMPORT) == [
        "pipeline/domain/planted.py:1: imports 'os': files, clock, environment, processes or network",
        "pipeline/domain/planted.py:3: imports 'pathlib.Path': files, clock, environment, processes or network",
        "pipeline/domain/planted.py:4: imports 'duckdb': expected the standard library, chess, polars or caissify_pairings",
        "pipeline/domain/planted.py:5: imports 'pipeline.store.gateway': expected only pipeline.model, pipeline.errors, "
        "pipeline.domain",
        "pipeline/domain/planted.py:10: imports 'berserk': expected the standard library, chess, polars or caissify_pairings",
        "pipeline/domain/planted.py:11: imports 'pipeline.sim.replay': expected only pipeline.model, pipeline.errors, "
        "pipeline.domain",
        "pipeline/domain/planted.py:12: calls .now(): the clock is an argument (now)",
        "pipeline/domain/planted.py:13: calls read_text(): file I/O belongs to the callers",
        "pipeline/domain/planted.py:14: calls open(): file I/O belongs to the callers",
    ]
    # the same imports at module level are what the production check refuses; inside a function they pass
    top = "from pipeline.sim import replay\nfrom pipeline import sim\n" + PLANTED
    assert sim_at_module_level("pipeline/stages/planted.py", top) == [
        "pipeline/stages/planted.py:1: imports 'pipeline.sim.replay' at module level",
        "pipeline/stages/planted.py:2: imports 'pipeline.sim' at module level",
    ]
    # model.py may name pathlib, and the time-control parser, but no other pipeline module
    assert pure_violations(
        "pipeline/model.py",
        "from pathlib import Path\nfrom pipeline.domain.timecontrol import parse_time_control\nfrom pipeline.domain import rd\n",
        MODEL_MAY_IMPORT,
        stdlib_also=frozenset({"pathlib"}),
    ) == [
        "pipeline/model.py:3: imports 'pipeline.domain.rd': expected only pipeline.errors, pipeline.domain.timecontrol"
    ]


def test_the_import_checks_catch_planted_cycles_and_upward_imports() -> None:
    planted = {
        "pipeline/stages/a.py": "from pipeline.stages import b\n",
        "pipeline/stages/b.py": "def late():\n    import pipeline.stages.c\n",  # inside a function: an edge too
        "pipeline/stages/c.py": "from pipeline.stages.a import run\n",
        "pipeline/stages/d.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from pipeline.stages import e\n",
        "pipeline/stages/e.py": "from pipeline.stages import d\n",  # d -> e is for the type checker: no cycle
        "pipeline/store/rows.py": "from pipeline.model import Config\nfrom pipeline.stages import a\n",
        "flows/nightly.py": "def run():\n    from pipeline.cli.console import IngestProgress\n",
        "pipeline/cli/console.py": "from .. import progress\n",  # relative: pipeline.progress, below
        "pipeline/progress.py": "",
        "pipeline/model.py": "",
        "pipeline/helpers.py": "import os\n",
    }
    assert import_cycles(planted) == [
        "pipeline/stages/a.py:1: import cycle pipeline.stages.a -> pipeline.stages.b -> pipeline.stages.c -> "
        "pipeline.stages.a (in the cycle: pipeline.stages.a, pipeline.stages.b, pipeline.stages.c)"
    ]
    assert upward_imports(planted) == [
        "pipeline/helpers.py:1: pipeline.helpers is in no layer: place it in LAYERS",
        "pipeline/store/rows.py:2: imports 'pipeline.stages.a': pipeline.store sits below pipeline.stages",
        "flows/nightly.py:2: imports 'pipeline.cli.console': flows sits below pipeline.cli",
    ]


def test_the_size_check_catches_a_planted_long_module_and_function() -> None:
    body = "    x = 1\n"
    source = (
        "@decorated\ndef sixty():\n"
        + body * 59  # 60 lines from def to the end: fine
        + "\n\nclass Room:\n    def sixty_one(self):\n"
        + ("    " + body) * 60  # 61: too long, a method too
    )
    source += "y = 0\n" * (501 - len(source.splitlines()))
    assert oversized("pipeline/stages/planted.py", source) == [
        "pipeline/stages/planted.py:1: 501 lines: split it along its seams (at most 500)",
        "pipeline/stages/planted.py:65: sixty_one() is 61 lines (at most 60)",
    ]
    assert oversized("pipeline/stages/planted.py", "def short():\n    pass\n") == []


@pytest.mark.parametrize("module", ["os", "time", "socket", "subprocess", "pathlib", "random", "logging"])
def test_each_impure_standard_module_is_refused(module: str) -> None:
    assert pure_violations("d.py", f"import {module}\n", DOMAIN_MAY_IMPORT) == [
        f"d.py:1: imports {module!r}: files, clock, environment, processes or network"
    ]
