"""A league on a real Prefect server: `prefect server start` on a free port of 127.0.0.1 with its
own home (the `prefect_server` fixture), `prefect worker start` processes on a process pool
(:func:`worker`), and what two tournaments' published databases are compared by (:func:`tables`).
For the league's scenario tests (tests/cli/test_league_workers.py, test_league_served.py)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kits import faultkit
from kits.skeleton_kit import td_env
from pipeline.inputs.config import load_config
from pipeline.store import gateway

POOL = "league-pool"
# columns that name the tournament's folder (the TD files' paths, and the digest of the inputs a
# round was scored from, which includes them): the league's copy and the reference's differ there
PATH_COLUMNS = frozenset({"path", "fingerprint"})


def tables(db: Path) -> tuple[set[str], int, dict[str, tuple[int, int]]]:
    """(game ids, duplicated rows, per-table checksums) of a published database, as
    kits.faultkit.judge reads them, with PATH_COLUMNS left out too."""
    con = gateway.connect(db, read_only=True)
    try:
        games = {g for (g,) in con.execute("SELECT game_id FROM lichess_games").fetchall()}
        sums = gateway.table_checksums(con, exclude_columns=gateway.TIME_COLUMNS | PATH_COLUMNS)
        n, total = con.execute(faultkit.SEARCH_CURSORS).fetchall()[0]  # a rerun's casual-game searches
        sums["ingest_cursors"] = (n, int(total))
        return games, faultkit.duplicates(con), sums
    finally:
        con.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def prefect_server(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """A real `prefect server start` on a free port of 127.0.0.1 with its own home; yields its API
    URL and the environment of a process that talks to it (a TD's shell, this tree)."""
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = td_env(
        PREFECT_HOME=str(tmp_path / "prefect-home"),
        DO_NOT_TRACK="1",
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        PREFECT_API_URL=api,
        LICHESS_TOKEN="league-test-token",
    )
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        env={k: v for k, v in env.items() if k != "PREFECT_API_URL"},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{api}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "server.log").read_text()
            time.sleep(0.5)
        yield api, env
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        log.close()


def worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """`prefect worker start --pool POOL` in a process group of its own (its flow-run processes in it)."""
    return subprocess.Popen(
        [sys.executable, "-m", "prefect", "worker", "start", "--pool", POOL, "--name", log.stem],
        env={**env, "PREFECT_WORKER_QUERY_SECONDS": "1", "PREFECT_WORKER_PREFETCH_SECONDS": "1"},
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def serve_on_pool(env: dict[str, str], *args: str) -> str:
    """`antichess-td serve --pool POOL` with `args` (the tournaments: --config … or --league …);
    asserts it registered them and exited 0; returns what it printed."""
    served = subprocess.run(
        [sys.executable, "-m", "pipeline", "serve", "--pool", POOL, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert served.returncode == 0, served.stderr[-3000:]
    assert f"prefect worker start --pool {POOL}" in served.stdout
    return served.stdout


def start_runs(client: Any, tomls: Iterable[Path], now: str) -> dict[Path, Any]:
    """A run of each tournament's deployment, as of `now`, created one right after the other (as at
    their scheduled minute); their flow run ids by tournament.toml."""
    runs = {}
    for toml in tomls:
        deployment = client.read_deployment_by_name(f"antichess-nightly/{load_config(toml).tournament_id}")
        runs[toml] = client.create_flow_run_from_deployment(deployment.id, parameters={"now": now}).id
    return runs


def wait_completed(client: Any, runs: dict[Path, Any], timeout_s: float) -> None:
    """Wait until every run of `runs` is Completed; past `timeout_s`, fail with each run's states."""
    deadline = time.monotonic() + timeout_s
    while {client.read_flow_run(i).state_name for i in runs.values()} != {"Completed"}:
        assert time.monotonic() < deadline, {
            str(t): [(x.name, x.message) for x in client.read_flow_run_states(i)] for t, i in runs.items()
        }
        time.sleep(2)


def stop(workers: Iterable[subprocess.Popen[bytes]]) -> None:
    """SIGTERM each worker still running (its process group), and wait for it."""
    for w in workers:
        if w.poll() is None:
            os.killpg(w.pid, signal.SIGTERM)
            w.wait(timeout=30)
