"""The published snapshot and the runs record, as plain functions: real DuckDB
files, real processes for the lock and for kill -9; no Prefect."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from pipeline.errors import InputError
from pipeline.inputs.config import load_config
from pipeline.resources import SQL_DIR
from pipeline.stages import record
from pipeline.store import gateway, snapshot

AT = dt.datetime(2026, 3, 20, 3, 0, tzinfo=dt.UTC)
ROOT = Path(__file__).resolve().parents[2]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_work(path: Path) -> None:
    """A working database with the pipeline's schema plus objects no pipeline module knows about
    (as a later stage would add them): publish must carry them all."""
    con = gateway.connect(path)
    try:
        con.execute("CREATE TABLE later_stage_params (rule_id VARCHAR PRIMARY KEY, name VARCHAR, value DOUBLE)")
        con.execute("INSERT INTO later_stage_params VALUES ('TEAM-ELIG-2', 'min_rated_games', 1000)")
        con.execute("CREATE VIEW later_stage_summary AS SELECT rule_id, value FROM later_stage_params")
        con.execute(
            "INSERT INTO td_pairings VALUES ('swiss', 1, 'Alphas', 'Betas', '2026-03-03T00:00:00Z', '2026-03-10T00:00:00Z')"
        )
    finally:
        con.close()


def test_snapshot_is_self_contained_with_every_table_and_view(tmp_path: Path) -> None:
    """Every table and view of the working database, whatever they are, in a file that needs
    nothing else: each view runs in it alone, and it is not the working file."""
    work, published = tmp_path / "t.work.duckdb", tmp_path / "t.duckdb"
    make_work(work)
    in_work = catalog(work)
    counts = snapshot.replace_published(work, published)
    assert counts["later_stage_summary"] == 1 and counts["standings"] == 0 and counts["runs"] == 0
    work.unlink()  # self-contained: nothing refers back to the working file
    con = duckdb.connect(str(published), read_only=True)
    try:
        assert con.sql("SELECT rule_id, value FROM later_stage_summary").fetchall() == [("TEAM-ELIG-2", 1000.0)]
        assert con.sql("SELECT entrant_a, entrant_b FROM td_pairings").fetchall() == [("Alphas", "Betas")]
    finally:
        con.close()
    assert catalog(published) == in_work
    assert {"later_stage_params", "pipeline_runs", "raw_games"} <= in_work["tables"]
    assert in_work["views"] == (
        {p.stem for p in (SQL_DIR / "views").glob("*.sql")} | {"audit_findings", "later_stage_summary"}
    )  # audit_findings: generated from sql/audits
    assert not list(tmp_path.glob("t.duckdb.tmp-*"))


def catalog(path: Path) -> dict[str, set]:
    """Tables (with their columns and types) and views (with what they return) of a database file."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        views = {v for (v,) in con.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
        return {
            "tables": {t for (t,) in con.sql("SELECT table_name FROM duckdb_tables()").fetchall()},
            "columns": set(con.sql("SELECT table_name, column_name, data_type FROM duckdb_columns()").fetchall()),
            "views": views,
            "view_rows": {v: con.sql(f'SELECT * FROM "{v}" ORDER BY ALL').fetchall() for v in views},
        }
    finally:
        con.close()


def storage_version(path: Path) -> str:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.sql(gateway.sql("queries/storage_version")).fetchall()[0][0]
    finally:
        con.close()


def test_a_working_file_in_the_snapshots_format_is_published_as_its_bytes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A working database the pipeline created is in the snapshot's storage format: the snapshot is
    its bytes, once the write-ahead log is folded in, so a row still only in the log is published."""
    work, published = tmp_path / "t.work.duckdb", tmp_path / "t.duckdb"
    make_work(work)
    con = gateway.connect(work)
    try:
        con.execute("INSERT INTO later_stage_params VALUES ('TEAM-ELIG-3', 'min_account_days', 30)")
        con.execute("PRAGMA disable_checkpoint_on_shutdown")  # the row stays in the log, as after a crash
    finally:
        con.close()
    wal = work.with_name(work.name + ".wal")
    assert wal.stat().st_size > 0
    with caplog.at_level(logging.INFO, logger=snapshot.__name__):
        counts = snapshot.replace_published(work, published)
    assert any("as a byte copy (storage format v1.0.0+)" in r.getMessage() for r in caplog.records)
    assert not wal.exists()
    assert sha256(published) == sha256(work)
    assert counts["later_stage_summary"] == 2
    con = duckdb.connect(str(published), read_only=True)
    try:
        assert con.sql("SELECT value FROM later_stage_summary WHERE rule_id = 'TEAM-ELIG-3'").fetchall() == [(30.0,)]
    finally:
        con.close()


def test_a_working_file_in_a_newer_format_is_rewritten_in_the_snapshots(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A working database an older install created in the newest storage format keeps it (the
    pipeline's connects only choose the format of a new file): publishing rewrites it into the
    snapshot's format, with every table and view, and then makes the working file a copy of that
    rewrite, so that only the first publish after the upgrade pays for rewriting."""
    work, published = tmp_path / "t.work.duckdb", tmp_path / "t.duckdb"
    duckdb.connect(str(work), config={"storage_compatibility_version": "latest"}).close()
    make_work(work)
    newest = gateway.checkpointed_storage_version(work)  # after the pipeline's read-write connect
    assert newest.rstrip("+") != gateway.SNAPSHOT_STORAGE_VERSION, newest
    in_work = catalog(work)
    with caplog.at_level(logging.INFO, logger=snapshot.__name__):
        counts = snapshot.replace_published(work, published)
    assert any("rewritten into storage format v1.0.0: the working" in r.getMessage() for r in caplog.records)
    assert counts["later_stage_summary"] == 1
    assert storage_version(published) == "v1.0.0+"
    assert catalog(published) == in_work
    # converted once: the working file is now the snapshot's bytes, so the next publish copies them
    assert sha256(work) == sha256(published)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger=snapshot.__name__):
        snapshot.replace_published(work, published)
    assert any("as a byte copy (storage format v1.0.0+)" in r.getMessage() for r in caplog.records)
    assert catalog(work) == in_work


def test_publishing_without_a_working_file_says_so(tmp_path: Path) -> None:
    work, published = tmp_path / "t.work.duckdb", tmp_path / "t.duckdb"
    with pytest.raises(FileNotFoundError, match=re.escape(f"no working database {work} to publish")):
        snapshot.replace_published(work, published)
    assert not work.exists() and not published.exists()


def test_duckdb_cli_reads_the_snapshot(tmp_path: Path) -> None:
    """A TD's `duckdb -readonly` (the duckdb-cli package, DuckDB 1.5) opens the published file:
    it is written in a storage format DuckDB 1.0 and later read (a 2.0 file it cannot)."""
    cli = Path(sys.executable).parent / "duckdb"
    assert cli.exists(), "pip install -e '.[test]' installs the duckdb-cli package"
    work, published = tmp_path / "t.work.duckdb", tmp_path / "t.duckdb"
    make_work(work)
    snapshot.replace_published(work, published)
    proc = subprocess.run(
        [
            str(cli),
            "-readonly",
            "-csv",
            str(published),
            "-c",
            "SELECT rule_id, value FROM later_stage_summary; SELECT count(*) AS n FROM standings",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["rule_id,value", "TEAM-ELIG-2,1000.0", "n", "0"]


def test_a_snapshot_whose_view_does_not_run_is_not_published(tmp_path: Path) -> None:
    """The check before the rename: a view that cannot run inside the snapshot stops the publish;
    the file TDs read stays byte for byte the last good one, and no temporary file is left."""
    work, published = tmp_path / "t.work.duckdb", tmp_path / "t.duckdb"
    make_work(work)
    snapshot.replace_published(work, published)
    before = sha256(published)
    con = gateway.connect(work)
    try:
        con.execute("CREATE TABLE scratch (i INTEGER)")
        con.execute("CREATE VIEW broken AS SELECT i FROM scratch")
        con.execute("DROP TABLE scratch")  # DuckDB keeps the view; it no longer binds
    finally:
        con.close()
    with pytest.raises(duckdb.CatalogException, match="scratch"):
        snapshot.replace_published(work, published)
    assert sha256(published) == before
    assert not list(tmp_path.glob("t.duckdb.tmp-*"))


def test_a_second_writer_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    """One writer per tournament: the lock is held by another process (a real one), so a second
    run stops at once and says who holds it; when the holder dies the lock is free again."""
    work = tmp_path / "t.work.duckdb"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import sys, time; from pathlib import Path; from pipeline.store import snapshot\n"
                f"with snapshot.writer_lock(Path({str(work)!r})):\n"
                "    print('held', flush=True); time.sleep(60)\n"
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(snapshot.WriterBusy) as e:
            with snapshot.writer_lock(work):
                pass
        assert str(e.value) == (
            f"another antichess-td run (pid {holder.pid}) is writing {work}: wait for it to "
            "finish (the published database stays readable meanwhile)"
        )
    finally:
        holder.kill()
        holder.wait()
    with snapshot.writer_lock(work):  # kill -9 released it
        pass


def test_a_lost_working_database_starts_from_the_published_one(tmp_path: Path) -> None:
    work, published = tmp_path / "t.work.duckdb", tmp_path / "t.duckdb"
    make_work(work)
    snapshot.replace_published(work, published)
    work.unlink()
    snapshot.ensure_work(work, published)
    assert sha256(work) == sha256(published)  # a byte copy, in the format a working database is kept in
    con = duckdb.connect(str(work), read_only=True)
    try:
        assert con.sql("SELECT entrant_a FROM td_pairings").fetchall() == [("Alphas",)]
        assert con.sql("SELECT count(*) FROM later_stage_summary").fetchall() == [(1,)]
    finally:
        con.close()


def runs_rows(path: Path) -> list[dict]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        rel = con.sql("SELECT run_id, command, status, stage, as_of, counts, requests, warnings, error FROM runs")
        cols = rel.columns
        return [dict(zip(cols, r, strict=False)) for r in rel.fetchall()]
    finally:
        con.close()


def test_runs_record_an_ok_and_a_failed_run(skeleton: Path) -> None:
    """The runs record: an ok run is published with its counts; a failed one leaves the published
    file as it was, is recorded with its stage and error, says what stays published, and the next
    publish carries it."""
    cfg = load_config(skeleton)
    with record.recorded(cfg, "score", AT) as run:
        assert run.work.paths.database == cfg.paths.work_database != cfg.paths.database
        run.stage("score")
        run.done("score", {"match_games": 35}, warnings=["a note"])
    assert run.run_id == 1
    published = sha256(cfg.paths.database)
    [ok] = runs_rows(cfg.paths.database)
    assert (ok["command"], ok["status"], ok["stage"], ok["error"], ok["warnings"]) == (
        "score",
        "ok",
        "publish",
        None,
        ["a note"],
    )
    assert json.loads(ok["counts"]) == {"score": {"match_games": 35}} and ok["as_of"] == AT

    with pytest.raises(InputError) as e:
        with record.recorded(cfg, "nightly", AT) as run:
            run.stage("ingest")
            run.done("ingest", {"requests": 3}, requests=3)
            run.stage("score")
            raise InputError("overrides.csv", "line 2", "exclude_game 'Nope1234': no such game")
    last = record.last_published_run(cfg.paths.database)
    assert last is not None
    assert e.value.__notes__ == [
        f"run 2 failed in score; the published {cfg.paths.database} is unchanged: it holds run 1 "
        f"(score, finished {last['finished_at']:%Y-%m-%d %H:%M:%S} UTC)"
    ]
    assert sha256(cfg.paths.database) == published
    [failed] = [r for r in runs_rows(cfg.paths.work_database) if r["run_id"] == 2]
    assert (failed["status"], failed["stage"], failed["requests"]) == ("failed", "score", 3)
    assert failed["error"] == "overrides.csv line 2: exclude_game 'Nope1234': no such game"
    assert json.loads(failed["counts"]) == {"ingest": {"requests": 3}}

    with record.recorded(cfg, "score", AT):
        pass  # a block that ends normally publishes on the way out
    assert [(r["run_id"], r["status"]) for r in runs_rows(cfg.paths.database)] == [(1, "ok"), (2, "failed"), (3, "ok")]


def test_a_run_killed_mid_way_is_found_by_the_next_and_marked_failed(skeleton: Path) -> None:
    """kill -9 inside a run (a real SIGKILL, nothing gets to clean up): the published file is
    untouched, the lock is free, and the next run marks the dead one failed in the stage it was in."""
    cfg = load_config(skeleton)
    with record.recorded(cfg, "score", AT):
        pass
    published = sha256(cfg.paths.database)
    script = (
        "import datetime as dt, os, signal\n"
        "from pipeline.stages import record\nfrom pipeline.inputs.config import load_config\n"
        f"cfg = load_config({str(skeleton)!r})\n"
        "with record.recorded(cfg, 'nightly', dt.datetime(2026, 3, 20, tzinfo=dt.UTC)) as run:\n"
        "    run.stage('ingest')\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert proc.returncode == -signal.SIGKILL
    assert sha256(cfg.paths.database) == published
    with record.recorded(cfg, "score", AT):
        pass
    rows = runs_rows(cfg.paths.database)
    assert [(r["run_id"], r["command"], r["status"], r["stage"]) for r in rows] == [
        (1, "score", "ok", "publish"),
        (2, "nightly", "failed", "ingest"),
        (3, "score", "ok", "publish"),
    ]
    assert rows[1]["error"] == (
        "interrupted: the run stopped before it finished (killed, or the machine stopped); found by run 3"
    )
