"""Fault injection: whatever the API does, no game is lost and none is duplicated.

Each scenario ingests the demo dataset through the real berserk client from a replay server
that injects one kind of failure Lichess produces (reference/lichess-api.md §1.10, §3.4) and
compares every stored table with an undisturbed run. Waits are shrunk for the tests (the
production policy waits at least 60 s after a 429).
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from pipeline import ingest, lichess, replay, store

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "tests" / "data" / "season" / "lichess"
NOW = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)
FAST = lichess.RetryPolicy(rate_limit_wait_s=0.01, backoff_s=0.01, max_retries=8)

pytestmark = pytest.mark.faults


@pytest.fixture(scope="module")
def dataset() -> replay.Dataset:
    return replay.Dataset.load(DEMO)


def content(path: Path) -> dict[str, list[tuple]]:
    """Every table that holds fetched data, without fetch times (they differ by design)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {
            "raw_games": con.sql("SELECT game_id, payload::VARCHAR FROM raw_games ORDER BY ALL").fetchall(),
            "lichess_games": con.sql("SELECT * FROM lichess_games ORDER BY ALL").fetchall(),
            "raw_users": con.sql("SELECT user_id, payload::VARCHAR FROM raw_users ORDER BY ALL").fetchall(),
            "lichess_users": con.sql("SELECT * EXCLUDE (fetched_at) FROM lichess_users ORDER BY ALL").fetchall(),
            "lichess_rating_points": con.sql("SELECT * FROM lichess_rating_points ORDER BY ALL").fetchall(),
            "rejected_records": con.sql("SELECT * EXCLUDE (fetched_at) FROM rejected_records ORDER BY ALL").fetchall(),
            "ingest_cursors": con.sql("SELECT * EXCLUDE (updated_at) FROM ingest_cursors ORDER BY ALL").fetchall(),
        }
    finally:
        con.close()


def run_ingest(dataset: replay.Dataset, path: Path, options: replay.ReplayOptions, timeout_s: float = 5.0):
    con = store.connect(path)
    try:
        with replay.running(dataset, options=options) as server:
            client = lichess.make_client(server.base_url, "test-token", timeout_s, FAST)
            report = ingest.ingest(con, client, list(dataset.users), None, NOW)
            injected = dict(server.faults_injected)
    finally:
        con.close()
    return report, injected


@pytest.fixture(scope="module")
def undisturbed(dataset: replay.Dataset, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple]]:
    path = tmp_path_factory.mktemp("clean") / "clean.duckdb"
    report, injected = run_ingest(dataset, path, replay.ReplayOptions(games_per_s=0))
    assert injected == {} and report.retries == 0
    got = content(path)
    assert len(got["lichess_games"]) == len(dataset.games)  # every recorded game, once
    return got


@pytest.mark.parametrize(("scenario", "faults", "expect"), [
    ("429 on 30% of requests", replay.Faults(rate_429=0.3, retry_after_s=0, seed=11), "429"),
    ("5xx on 30% of requests", replay.Faults(rate_5xx=0.3, seed=12), "5xx"),
    ("half the streams cut at a random byte", replay.Faults(rate_cut=0.5, seed=13), "cut"),
    ("a fifth of the streams stall past the client timeout", replay.Faults(rate_stall=0.2, stall_s=1.0, seed=14), "stall"),
])
def test_nothing_lost_nothing_duplicated(dataset: replay.Dataset, undisturbed: dict, tmp_path: Path,
                                         scenario: str, faults: replay.Faults, expect: str) -> None:
    report, injected = run_ingest(dataset, tmp_path / "f.duckdb", replay.ReplayOptions(games_per_s=0, faults=faults),
                                  timeout_s=0.5)
    assert injected.get(expect, 0) > 0, f"{scenario}: nothing was injected"
    assert content(tmp_path / "f.duckdb") == undisturbed, scenario
    # counts add up per run: every record that arrived is loaded, skipped, ongoing or rejected
    assert report.games_fetched == (report.games_loaded + report.games_skipped_other_variant
                                    + report.games_ongoing + report.games_rejected)
    if expect in ("429", "5xx"):
        assert report.retries == injected[expect]
    else:
        assert report.streams_resumed >= 1


def test_429_waits_at_least_the_configured_minute(dataset: replay.Dataset, tmp_path: Path) -> None:
    """lichess-api.md §1.10: on HTTP 429 wait at least a minute; the policy's wait is what is slept,
    doubling on repeats (measured with an injected sleep, not the clock)."""
    waits: list[float] = []
    con = store.connect(tmp_path / "w.duckdb")
    try:
        with replay.running(dataset, options=replay.ReplayOptions(games_per_s=0, faults=replay.Faults(every_429=2, retry_after_s=1))) as s:
            client = lichess.make_client(s.base_url, "t", 5.0, lichess.RetryPolicy(rate_limit_wait_s=60, max_retries=3),
                                         sleep=waits.append)
            ingest.ingest(con, client, list(dataset.users)[:2], None, NOW)
    finally:
        con.close()
    assert waits and min(waits) >= 60
    assert lichess.stats_of(client).waited_429_s == sum(waits)


def test_kill_9_anywhere_then_rerun_gives_the_undisturbed_data(dataset: replay.Dataset, undisturbed: dict,
                                                                tmp_path: Path) -> None:
    """A nightly ingest killed with SIGKILL at three different moments, then rerun to the end,
    holds exactly what an undisturbed run holds (cursors advance only with their data)."""
    (tmp_path / "players.csv").write_text("player\n" + "".join(f"{u}\n" for u in dataset.users), encoding="utf-8")
    db = tmp_path / "k.duckdb"
    with replay.running(dataset, options=replay.ReplayOptions(games_per_s=1500)) as server:
        cfg = tmp_path / "tournament.toml"
        cfg.write_text(f"""
[tournament]
id = "kill"
kind = "individual"
[lichess]
base_url = "{server.base_url}"
history_since = "2026-01-01T00:00:00Z"
[paths]
players = "players.csv"
pairings = "pairings.csv"
database = "k.duckdb"
exports = "out"
[stages.q]
kind = "swiss"
parts = [{{ time_control = "2+5", games = 10, win = 1, draw = 0.5 }}]
""", encoding="utf-8")
        (tmp_path / "pairings.csv").write_text("stage,round,a,b\n", encoding="utf-8")
        env = {**os.environ, "LICHESS_TOKEN": "test-token"}
        cmd = [sys.executable, "-m", "pipeline", "ingest", "--config", str(cfg), "--now", "2026-11-29T00:00:00Z"]
        kills = 0
        for delay in (1.2, 1.8, 2.4):
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(delay)
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
                kills += 1
            proc.wait()
        assert kills >= 2, "the runs ended before they could be killed: slow the server down"
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
    assert content(db) == undisturbed
