"""Shared fixtures. Real DuckDB files, real HTTP on 127.0.0.1, the real berserk client; no mocks.

Prefect reads its settings when first imported, so its environment is set here, before any
test module imports it: a temporary PREFECT_HOME per pytest run (no cache records survive into
the next run), telemetry off, a generous ephemeral-server start-up timeout for two busy cores.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.update(
    {
        "PREFECT_HOME": tempfile.mkdtemp(prefix="antichess-td-prefect-"),
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_LOGGING_LEVEL": "WARNING",
        "PREFECT_LOGGING_TO_API_ENABLED": "false",
        "PREFECT_SERVER_UI_ENABLED": "false",
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
        "PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW": "ignore",
    }
)
os.environ.pop("PREFECT_API_URL", None)

import pytest  # noqa: E402
from filelock import FileLock  # noqa: E402

from pipeline.sim import replay  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
SKELETON = DATA / "skeleton"


# The order in which pytest-xdist hands out work (pyproject runs `-n auto --dist loadgroup
# --no-loadscope-reorder`): the costliest groups first, so no worker is left alone with a long one at
# the end. A group is a test module (its module fixtures are built once, on one worker), except
# that every test reading the default demo is in one group "default-demo" (built once, on one
# worker, while the other worker runs everything else).
FIRST = ("default-demo",)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    groups = {}
    for item in items:
        fixtures = getattr(item, "_fixtureinfo", None)
        defs = fixtures.name2fixturedefs if fixtures else {}
        shared = any(
            defs.get(name) and defs[name][-1].func.__module__ == __name__ for name in ("default_demo", "audited")
        )
        groups[item.nodeid] = "default-demo" if shared else item.nodeid.split("::")[0]
        item.add_marker(pytest.mark.xdist_group(groups[item.nodeid]))
    rank = {g: i for i, g in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(groups[item.nodeid], len(rank)))


@pytest.fixture(scope="session")
def prefect_api_url() -> Iterator[str]:
    """One Prefect test server for the whole run (starting one costs ~20 s); yields its API URL."""
    from prefect.settings import PREFECT_API_URL, PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
            yield str(PREFECT_API_URL.value())


@pytest.fixture
def skeleton(tmp_path: Path) -> Path:
    """A writable copy of the hand-made skeleton tournament; returns its tournament.toml."""
    dest = tmp_path / "skeleton"
    shutil.copytree(SKELETON, dest, ignore=shutil.ignore_patterns("out", "make_dataset.py"))
    return dest / "tournament.toml"


@pytest.fixture(scope="session")
def skeleton_server() -> Iterator[replay.ReplayServer]:
    """The skeleton's Lichess dataset on a free port of 127.0.0.1."""
    with replay.running(SKELETON / "lichess") as server:
        yield server


def _built_once(
    tmp_path_factory: pytest.TempPathFactory, worker_id: str, name: str, build: Callable[[Path], object]
) -> Any:
    """`build(folder)`'s result (JSON: paths as strings), computed once per pytest run even under
    pytest-xdist: the first worker to ask builds it in a folder of the run's shared base temp
    directory, holding a file lock while it builds; the others wait on the lock and read the result
    it wrote (the recipe pytest-xdist documents for session fixtures). Without xdist it is built in
    this session's temp directory."""
    if worker_id == "master":
        return json.loads(json.dumps(build(tmp_path_factory.mktemp(name)), default=str))
    root = tmp_path_factory.getbasetemp().parent  # the run's folder, shared by its workers
    done = root / f"{name}.json"
    with FileLock(str(root / f"{name}.lock")):
        if not done.is_file():
            folder = root / name
            folder.mkdir()
            done.write_text(json.dumps(build(folder), default=str), encoding="utf-8")
        return json.loads(done.read_text(encoding="utf-8"))


def _default_demo(folder: Path) -> Path:
    from pipeline.sim.season import build_season

    build_season(folder / "demo")
    return folder / "demo"


@pytest.fixture(scope="session")
def default_demo(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The default demo (seed 2026, the one the README measures), built once per run (~100 s of
    CPU; once across pytest-xdist workers) and shared: tests only read it (the `audited` fixture
    writes its out/ folders, once)."""
    return Path(_built_once(tmp_path_factory, worker_id, "default-demo", _default_demo))


@pytest.fixture(scope="session")
def audited(default_demo: Path, tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> dict[str, Path]:
    """Both events of the default demo ingested (from the in-process replay server), scored and
    audited as of 2026-11-29 in one recorded run each, once per pytest run (once across workers);
    returns their published databases by name (team, acwc). The audit tests and the docs' SQL
    examples read them."""
    from demo_audit import audit_demo

    dbs = _built_once(tmp_path_factory, worker_id, "default-demo-audited", lambda _: audit_demo(default_demo))
    return {name: Path(db) for name, db in dbs.items()}


def _small_demo(folder: Path) -> Path:
    from pipeline.sim.season import build_season

    build_season(folder / "demo", **SMALL_DEMO)
    return folder / "demo"


SMALL_DEMO: dict[str, Any] = {"seed": 11, "teams": 12, "games": (30, 60), "acwc_players": 16}


@pytest.fixture(scope="session")
def small_demo_source(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """A small demo (SMALL_DEMO: seed 11, 12 teams, 30-60 rated games per player before
    registration, 16 ACWC players), built once per run (once across workers). Read-only: a test
    that scores it or edits its files works on a copy (`copy_demo`)."""
    return Path(_built_once(tmp_path_factory, worker_id, "small-demo", _small_demo))
