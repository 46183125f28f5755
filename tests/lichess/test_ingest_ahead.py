"""Work ahead during the ingest (pipeline/lichess/ingest.py, :class:`~pipeline.lichess.ingest.Ahead`):
it starts once every game of its players is stored, runs beside the other players' streams, and
the ingest returns only after it ended; its error is logged, not raised (the stage it works for
does the work again).

The dataset is tests/lichess/test_ingest.py's: bob's stream brings k1, s2 (both with alice) and
k2 (with olga); only alice's brings `edge` (alice-olga)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from lichess_data import write_dataset
from test_ingest import GAMES, HISTORIES, NOW, PLAYERS, SINCE, USERS

from pipeline.lichess import ingest
from pipeline.lichess.client import make_client
from pipeline.sim import replay
from pipeline.store import gateway


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[replay.ReplayServer]:
    folder = write_dataset(tmp_path_factory.mktemp("lichess"), USERS, GAMES, HISTORIES)
    with replay.running(folder) as s:
        yield s


@pytest.fixture
def con(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    c = gateway.connect(tmp_path / "t.duckdb")
    yield c
    c.close()


def run(con: duckdb.DuckDBPyConnection, server: replay.ReplayServer, ahead: ingest.Ahead) -> ingest.IngestReport:
    client = make_client(server.base_url, "test-token", 5.0)
    return ingest.ingest(con, client, PLAYERS, SINCE, NOW, ahead=ahead)  # type: ignore[arg-type]


def games_of(cur: duckdb.DuckDBPyConnection, player: str) -> list[str]:
    rows = cur.execute(
        "SELECT game_id FROM lichess_games WHERE ? IN (white_id, black_id) ORDER BY game_id", [player]
    ).fetchall()
    return [r[0] for r in rows]


def test_the_work_starts_once_its_players_games_are_stored_and_runs_beside_the_rest(
    con: duckdb.DuckDBPyConnection, server: replay.ReplayServer
) -> None:
    seen: dict[str, object] = {}

    def work(cur: duckdb.DuckDBPyConnection) -> None:
        seen["thread"] = threading.current_thread().name
        seen["bob"] = games_of(cur, "bob")
        # alice's stream (after bob's) goes on meanwhile: a work run before it, or in its way,
        # would wait here for ever
        deadline = time.monotonic() + 20
        while "edge" not in games_of(cur, "alice"):
            assert time.monotonic() < deadline, "alice's games never arrived while the work ran"
            time.sleep(0.02)
        time.sleep(0.2)
        seen["done"] = True

    report = run(con, server, ingest.Ahead(frozenset({"bob"}), work))
    assert seen["bob"] == ["k1", "k2", "s2"]  # every game of bob's stream, committed
    assert seen["thread"] != threading.current_thread().name
    assert seen.get("done") is True  # the ingest waited for the work
    assert report.games_new == 4  # nothing else changed: tests/lichess/test_ingest.py's counts


def test_an_error_in_the_work_is_logged_and_the_ingest_goes_on(
    con: duckdb.DuckDBPyConnection, server: replay.ReplayServer, caplog: pytest.LogCaptureFixture
) -> None:
    def work(cur: duckdb.DuckDBPyConnection) -> None:
        raise ValueError("the estimator broke")

    report = run(con, server, ingest.Ahead(frozenset({"bob"}), work, name="the test's work"))
    assert report.games_new == 4
    assert games_of(con, "alice") == ["edge", "k1", "s2"]
    warned = [r for r in caplog.records if r.levelno == logging.WARNING and "the test's work" in r.getMessage()]
    assert len(warned) == 1 and "ValueError: the estimator broke" in warned[0].getMessage()


def test_with_no_stream_of_its_players_the_work_starts_at_once(
    con: duckdb.DuckDBPyConnection, server: replay.ReplayServer
) -> None:
    """carol's account is closed (no stream) and ghost is not on Lichess: the work does not wait."""
    ran: list[list[str]] = []
    run(con, server, ingest.Ahead(frozenset({"carol", "ghost"}), lambda cur: ran.append(games_of(cur, "carol"))))
    assert ran == [[]]
