"""A recorded run holds its working database open (pipeline/store/gateway.py `held`): the stages'
and the run record's connects reuse the open database instead of opening the file again each
time, a read-only connect gets a cursor of the holder (DuckDB opens a file with one
configuration per process), and the file is closed when the run ends, however it ends."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import pytest

from kits.skeleton_kit import copy_skeleton
from pipeline.inputs.config import load_config
from pipeline.stages import record
from pipeline.store import gateway

NOW = dt.datetime(2026, 3, 20, tzinfo=dt.UTC)


def closed_in_this_process(path: Path) -> bool:
    """A plain read-only open succeeds only when no read-write connection of this process is open."""
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.ConnectionException:
        return False
    con.close()
    return True


def test_connects_inside_held_share_the_open_database(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    with gateway.held(db):
        assert not closed_in_this_process(db)
        con = gateway.connect(db)
        con.execute("INSERT INTO td_byes VALUES ('swiss', 1, 'Alphas', 'requested', 2)")
        con.close()  # not the last connection: the database stays open
        ro = gateway.connect(db, read_only=True)
        assert ro.execute("SELECT entrant FROM td_byes").fetchall() == [("Alphas",)]
        ro.close()
        assert not closed_in_this_process(db)
    assert closed_in_this_process(db)
    con = gateway.connect(db, read_only=True)  # a real read-only connection again
    try:
        with pytest.raises(duckdb.InvalidInputException, match="read-only"):
            con.execute("DELETE FROM td_byes")
    finally:
        con.close()


def test_release_closes_the_file_before_the_block_ends(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    with gateway.held(db):
        gateway.release(db)
        assert closed_in_this_process(db)
        gateway.release(db)  # nothing held: nothing to do
    assert closed_in_this_process(db)


def test_a_run_closes_its_working_database_when_it_publishes_and_when_it_fails(tmp_path: Path) -> None:
    cfg = load_config(copy_skeleton(tmp_path) / "tournament.toml")
    work = cfg.paths.work_database
    assert work is not None
    with record.recorded(cfg, "score", NOW) as run:
        run.stage("score")
        assert not closed_in_this_process(work)
    assert closed_in_this_process(work) and cfg.paths.database.exists()  # published
    with pytest.raises(RuntimeError, match="a stage failed"):
        with record.recorded(cfg, "score", NOW) as run:
            run.stage("score")
            raise RuntimeError("a stage failed")
    assert closed_in_this_process(work)
    con = duckdb.connect(str(work), read_only=True)
    try:
        assert con.sql("SELECT status FROM pipeline_runs ORDER BY run_id").fetchall() == [("ok",), ("failed",)]
    finally:
        con.close()
