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

Each check returns its violations as ``path:line: what`` lines, so a failure says where to look;
``test_the_checks_catch_planted_violations`` plants one of each kind and asserts the lines verbatim.
"""

from __future__ import annotations

import ast
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


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


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


@pytest.mark.parametrize("module", ["os", "time", "socket", "subprocess", "pathlib", "random", "logging"])
def test_each_impure_standard_module_is_refused(module: str) -> None:
    assert pure_violations("d.py", f"import {module}\n", DOMAIN_MAY_IMPORT) == [
        f"d.py:1: imports {module!r}: files, clock, environment, processes or network"
    ]
