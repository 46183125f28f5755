"""Fault injection: whatever the API does, no game is lost and none is duplicated.

Each scenario ingests the demo dataset through the real berserk client from a replay server
that injects one kind of failure Lichess produces (HTTP 429, 5xx, a stream cut or stalled; berserk
itself retries none of them: docs/ingestion.md) and compares every stored table with an
undisturbed run. Waits are shrunk for the tests (the production policy waits at least 60 s
after a 429).
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
import requests

from kits import faultkit
from pipeline.lichess import request_plan
from pipeline.lichess.client import RetryPolicy, make_client, stats_of
from pipeline.sim import replay
from pipeline.store import gateway

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "tests" / "data" / "season" / "lichess"
NOW = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)
FAST = RetryPolicy(rate_limit_wait_s=0.01, backoff_s=0.01, max_retries=8)

pytestmark = pytest.mark.faults
SCENARIO = pytest.mark.scenario


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
    con = gateway.connect(path)
    try:
        with replay.running(dataset, options=options) as server:
            client = make_client(server.base_url, "test-token", timeout_s, FAST)
            report = request_plan.ingest(con, client, list(dataset.users), None, NOW)
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


@pytest.fixture(scope="module")
def reference(dataset: replay.Dataset, tmp_path_factory: pytest.TempPathFactory) -> faultkit.Reference:
    return faultkit.reference_ingest(dataset, tmp_path_factory.mktemp("ref") / "ref.duckdb")


@pytest.mark.parametrize(
    ("scenario", "faults", "expect"),
    [
        ("429 on 30% of requests", replay.Faults(rate_429=0.3, retry_after_s=0, seed=11), "429"),
        # the suite's run: a refusal (429) and a cut stream (resumed); the others in the scenario tier
        pytest.param("5xx on 30% of requests", replay.Faults(rate_5xx=0.3, seed=12), "5xx", marks=SCENARIO),
        pytest.param(
            "5xx bursts of 4 requests in a row",
            replay.Faults(burst_5xx=4, rate_5xx_burst=0.05, seed=15),
            "5xx_burst",
            marks=SCENARIO,
        ),
        ("half the streams cut at a random byte", replay.Faults(rate_cut=0.5, seed=13), "cut"),
        pytest.param(
            "a fifth of the streams stall past the client timeout",
            replay.Faults(rate_stall=0.2, stall_s=1.0, seed=14),
            "stall",
            marks=SCENARIO,
        ),
    ],
)
def test_nothing_lost_nothing_duplicated(
    dataset: replay.Dataset,
    undisturbed: dict,
    reference: faultkit.Reference,
    tmp_path: Path,
    scenario: str,
    faults: replay.Faults,
    expect: str,
) -> None:
    path = tmp_path / "f.duckdb"
    out, report = faultkit.ingest_once(dataset, path, faults, FAST, timeout_s=0.5)
    assert out.injected.get(expect, 0) > 0, f"{scenario}: nothing was injected"
    assert out.runs == 1  # the client's own retries were enough
    lost, duplicated, differing = faultkit.judge(reference.path, path)
    assert (lost, duplicated, differing) == (0, 0, []), scenario
    assert content(path) == undisturbed, scenario  # row for row, not only the checksums
    assert out.extra_requests > reference.requests  # every fault cost a request more
    # counts add up per run: every record that arrived is loaded, skipped, ongoing or rejected
    assert report.games_fetched == (
        report.games_loaded + report.games_skipped_other_variant + report.games_ongoing + report.games_rejected
    )
    if expect in ("429", "5xx", "5xx_burst"):
        assert report.retries == out.injected[expect]
    else:
        assert report.streams_resumed >= 1


def test_5xx_bursts_answer_n_requests_in_a_row_reproducibly(dataset: replay.Dataset) -> None:
    """A burst of N: the request that starts it and the next N - 1 answer 502 and 503 in turn,
    whatever they ask; the same seed gives the same bursts."""

    def statuses(faults: replay.Faults, n: int) -> list[int]:
        with replay.running(dataset, options=replay.ReplayOptions(games_per_s=0, faults=faults)) as server:
            with requests.Session() as http:
                return [http.get(f"{server.base_url}/api/user/{u}").status_code for u in (list(dataset.users) * 10)[:n]]

    assert statuses(replay.Faults(burst_5xx=3, rate_5xx_burst=1.0), 6) == [502, 503, 502, 502, 503, 502]
    seen = statuses(replay.Faults(burst_5xx=3, rate_5xx_burst=0.1, seed=4), 120)
    assert seen == statuses(replay.Faults(burst_5xx=3, rate_5xx_burst=0.1, seed=4), 120)
    runs = [len(list(group)) for failed, group in itertools.groupby(seen, key=lambda s: s != 200) if failed]
    assert runs and all(n % 3 == 0 for n in runs)  # bursts are whole (back-to-back ones join up)
    assert set(seen) == {200, 502, 503}


def test_429_waits_at_least_the_configured_minute(dataset: replay.Dataset, tmp_path: Path) -> None:
    """Lichess asks for a wait of at least a minute after HTTP 429; the policy's wait is what is slept,
    doubling on repeats (measured with an injected sleep, not the clock)."""
    waits: list[float] = []
    con = gateway.connect(tmp_path / "w.duckdb")
    try:
        with replay.running(
            dataset, options=replay.ReplayOptions(games_per_s=0, faults=replay.Faults(every_429=2, retry_after_s=1))
        ) as s:
            client = make_client(
                s.base_url, "t", 5.0, RetryPolicy(rate_limit_wait_s=60, max_retries=3), sleep=waits.append
            )
            request_plan.ingest(con, client, list(dataset.users)[:2], None, NOW)
    finally:
        con.close()
    assert waits and min(waits) >= 60
    assert stats_of(client).waited_429_s == sum(waits)


@pytest.mark.scenario
def test_kill_9_of_ingest_at_random_moments_then_rerun_gives_the_undisturbed_data(
    dataset: replay.Dataset, tmp_path: Path
) -> None:
    """`antichess-td ingest` killed with SIGKILL at three seeded moments within an undisturbed
    run's measured duration, then rerun to the end, holds exactly what the undisturbed run holds
    (cursors advance only with their data)."""
    out, kills = faultkit.kill_ingest_scenario(dataset, tmp_path, seed=9)
    assert kills >= 2, "the runs ended before they could be killed: slow the server down"
    assert (out.lost, out.duplicated, out.differing_tables) == (0, 0, [])


@pytest.mark.scenario
@pytest.mark.prefect
def test_kill_9_of_nightly_at_random_moments_then_rerun_publishes_the_undisturbed_data(
    skeleton: Path, prefect_api_url: str
) -> None:
    """`antichess-td nightly` killed with SIGKILL at three seeded moments in the first 60 % of an
    undisturbed nightly's measured duration (start-up, ingest, scoring), then rerun: the
    published snapshot has every table of the undisturbed one's, row for row (checksums; the run
    record and fetch/verify/audit times excluded by design), no game lost or duplicated."""
    out, kills = faultkit.kill_nightly_scenario(skeleton.parent, prefect_api_url, seed=21)
    assert kills >= 2, "the runs ended before they could be killed: slow the server down"
    assert (out.lost, out.duplicated, out.differing_tables) == (0, 0, [])


def test_replay_server_cli_serves_5xx_bursts(tmp_path: Path) -> None:
    """`antichess-td replay-server --fault-5xx-burst 2 --fault-5xx-burst-rate 1`: every request
    is in a burst, answered 502 then 503 in turn."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pipeline",
            "replay-server",
            "--data",
            str(DEMO),
            "--port",
            "0",
            "--fault-5xx-burst",
            "2",
            "--fault-5xx-burst-rate",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split(" on ")[1].split(" ")[0]
        with requests.Session() as http:
            assert [http.get(f"{url}/api/user/x").status_code for _ in range(4)] == [502, 503, 502, 503]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.scenario
@pytest.mark.prefect
def test_prefect_server_down_nightly_goes_on_without_prefect_and_publishes_the_undisturbed_data(
    skeleton: Path, prefect_api_url: str
) -> None:
    """`antichess-td nightly` with PREFECT_API_URL at a server that accepts connections and never
    answers (seed 1 draws "silent"; tests/cli/test_prefect_unavailable.py has a refused port and a
    server whose API fails): its /health times out, the run goes on without Prefect (no flow run;
    the record says so) and publishes every table of an undisturbed nightly under Prefect, row for
    row."""
    out = faultkit.prefect_down_scenario(skeleton.parent, prefect_api_url, seed=1)
    assert out.injected == {"prefect silent": 1}
    assert (out.runs, out.lost, out.duplicated, out.differing_tables) == (1, 0, 0, [])
