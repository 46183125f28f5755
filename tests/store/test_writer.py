"""pipeline/store/writer.py: the ingest's writes on a background thread, in order, stopping at the
first failure and raising it where the work was submitted; on real DuckDB files."""

from __future__ import annotations

import threading
from pathlib import Path

import duckdb
import pytest

from pipeline.store.writer import BackgroundWriter


def insert(n: int):
    def unit(con: duckdb.DuckDBPyConnection) -> None:
        con.execute("INSERT INTO t VALUES (?, ?)", [n, threading.current_thread().name])

    return unit


def rows(db: Path) -> list[tuple[int, str]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT n, thread FROM t ORDER BY rowid").fetchall()
    finally:
        con.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t (n INTEGER, thread VARCHAR)")
    con.close()
    return path


def test_units_run_in_submission_order_on_the_writers_thread(db: Path) -> None:
    con = duckdb.connect(str(db))
    with BackgroundWriter(con, depth=2, name="w") as writer:
        for n in range(50):
            writer.submit(insert(n))
    con.close()
    assert rows(db) == [(n, "w") for n in range(50)]


def test_a_failed_unit_stops_the_later_ones_and_is_raised_where_work_is_submitted(db: Path) -> None:
    con = duckdb.connect(str(db))
    writer = BackgroundWriter(con)
    writer.submit(insert(1))
    writer.submit(lambda c: c.execute("INSERT INTO missing VALUES (1)"))
    writer.submit(insert(3))  # queued behind the failure: must not run
    with pytest.raises(duckdb.CatalogException):
        writer.drain()
    with pytest.raises(RuntimeError, match="stopped after a failed write"):
        writer.submit(insert(4))
    writer.close()
    con.close()
    assert [n for n, _ in rows(db)] == [1]


def test_leaving_the_block_on_an_error_still_stores_what_was_submitted(db: Path) -> None:
    con = duckdb.connect(str(db))
    gate = threading.Event()
    with pytest.raises(KeyError), BackgroundWriter(con) as writer:
        writer.submit(lambda c: gate.wait(10))
        writer.submit(insert(1))
        writer.submit(insert(2))
        gate.set()
        raise KeyError("the download failed")
    con.close()
    assert [n for n, _ in rows(db)] == [1, 2]


def test_the_block_raises_a_failure_it_did_not_see_yet(db: Path) -> None:
    con = duckdb.connect(str(db))
    with pytest.raises(ZeroDivisionError), BackgroundWriter(con) as writer:
        writer.submit(lambda c: 1 / 0)
    con.close()
    assert rows(db) == []


def test_units_queued_behind_a_failure_never_run_once_it_was_raised(db: Path) -> None:
    """The error rule holds whichever thread is first: when the submitter has already been given
    the failure while units were still queued behind it (its submit waited for room in the queue
    while the failing unit ran), those units must still not run. The interleaving is the
    scheduler's, so this runs 50 times with the interpreter switching threads as often as it can.
    A unit run there would fail again or write after the failure, and the ingest would print 'a
    background write failed too' before the run's error line."""
    import sys

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for attempt in range(50):
            con = duckdb.connect(str(db))
            writer = BackgroundWriter(con, depth=1)
            writer.submit(lambda c: c.execute("INSERT INTO missing VALUES (1)"))
            with pytest.raises(duckdb.CatalogException):
                for n in range(1000):  # each submit waits for room, then the next one raises the failure
                    writer.submit(insert(attempt * 1000 + n))
            writer.close()
            con.close()
            assert rows(db) == [], f"attempt {attempt}"
    finally:
        sys.setswitchinterval(interval)
