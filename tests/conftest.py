"""Shared fixtures. Real DuckDB files, real HTTP on 127.0.0.1, the real berserk client; no mocks.

Prefect reads its settings when first imported, so its environment is set here, before any
test module imports it: a temporary PREFECT_HOME per pytest run (no cache records survive into
the next run), telemetry off, a generous ephemeral-server start-up timeout for two busy cores.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

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

from pipeline.sim import replay  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
SKELETON = DATA / "skeleton"


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


@pytest.fixture(scope="session")
def default_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default demo (seed 2026, the one the README measures), built once per run (~50 s) and
    shared: tests that score or audit it write only under its out/ folders."""
    from pipeline.sim.season import build_season

    out = tmp_path_factory.mktemp("default-demo") / "demo"
    build_season(out)
    return out


@pytest.fixture(scope="session")
def audited(default_demo: Path) -> dict[str, Path]:
    """Both events of the default demo ingested (from the in-process replay server), scored and
    audited as of 2026-11-29 in one recorded run each, once per pytest run; returns their published
    databases by name (team, acwc). The audit tests and the docs' SQL examples read them."""
    from demo_audit import audit_demo

    return audit_demo(default_demo)
