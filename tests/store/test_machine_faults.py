"""What the machine does to a run: a damaged working or published database, a full disk, a folder
the run may not write, SIGTERM, a bug. Each failure gives one line and its exit code (0 ok, 1 only
``audit --fail-on-findings``, 2 bad input, 3 an outside failure, 4 an internal error), leaves the
published snapshot as it was, and the next run ends equal to an undisturbed one, table by table
(tests/kits/machinekit.py, tests/kits/faultkit.py's judge)."""

from __future__ import annotations

import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from kits import faultkit, machinekit
from pipeline.cli.readers import REBUILT
from pipeline.store import gateway, health
from pipeline.store.health import HEADROOM_MB, MB

ROOT = Path(__file__).resolve().parents[2]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cli(*args: str, env: dict[str, str], prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*prefix, sys.executable, "-m", "pipeline", *args], env=env, capture_output=True, text=True, timeout=300
    )


def last_run(db: Path) -> tuple:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(
            "SELECT run_id, status, stage, error, warnings FROM pipeline_runs ORDER BY run_id DESC LIMIT 1"
        ).fetchall()[0]
    finally:
        con.close()


# -- the damage check itself: real DuckDB files with the project's schema


@pytest.fixture(scope="module")
def a_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with every table of the schema and some rows in one, closed and checkpointed."""
    path = tmp_path_factory.mktemp("health") / "whole.duckdb"
    con = gateway.connect(path)
    con.execute("CREATE TABLE filler AS SELECT range AS i, md5(range::VARCHAR) AS s FROM range(300000)")
    con.close()
    return path


def test_damage_finds_a_database_cut_short_at_any_byte(a_database: Path, tmp_path: Path) -> None:
    assert health.damage(a_database) is None
    size = a_database.stat().st_size
    rng = random.Random(5)
    cuts = [0, 1, 4096, 3 * 4096, size // 2, size - 1, *(rng.randrange(1, size) for _ in range(6))]
    for cut in cuts:
        copy = tmp_path / f"cut-{cut}.duckdb"
        shutil.copyfile(a_database, copy)
        with copy.open("r+b") as f:
            f.truncate(cut)
        assert health.damage(copy) is not None, f"a file cut at byte {cut} of {size} was taken as whole"
    garbage = tmp_path / "garbage.duckdb"
    garbage.write_bytes(b"not a database " * 1000)
    assert (
        health.damage(garbage) == f'IO Error: The file "{garbage}" exists, but it is not a valid DuckDB database file!'
    )


def test_a_whole_file_that_ends_before_its_free_blocks_is_not_damage(tmp_path: Path) -> None:
    """A checkpoint writes the header (its block count) before it truncates the free blocks at the
    end of the file, so a healthy database can be shorter than its header counts. A seeded
    workload of writes, deletes, updates and drops, one checkpoint and close per step, reaches that
    state within a few steps. A check that compares the file's size with the header's count alone
    calls it cut short, and a run would move a healthy working database aside."""
    path = tmp_path / "short.duckdb"
    rng = random.Random(7)
    for step in range(40):
        con = duckdb.connect(str(path), config={"threads": 1})  # one thread: the same blocks every run
        table = f"t{rng.randrange(3)}"
        con.execute(f"CREATE TABLE IF NOT EXISTS {table} (i BIGINT, s VARCHAR)")
        con.execute(f"INSERT INTO {table} SELECT range, md5(range::VARCHAR) FROM range({rng.randrange(1000, 50000)})")
        con.execute(f"DELETE FROM {table} WHERE hash(i + {step}) % 10 < {rng.randrange(1, 9)}")
        con.execute(f"UPDATE {table} SET s = s || 'y' WHERE hash(i * {step + 1}) % 10 < {rng.randrange(0, 5)}")
        if rng.random() < 0.3:
            con.execute(f"DROP TABLE IF EXISTS t{rng.randrange(3)}")
        con.execute("CHECKPOINT")
        con.close()
        con = duckdb.connect(str(path), read_only=True)  # the header's count, as a later open reads it
        block_size, blocks, free = con.execute(
            "SELECT block_size, total_blocks, free_blocks FROM pragma_database_size()"
        ).fetchall()[0]
        con.close()
        size, expected = path.stat().st_size, health.HEADER_BYTES + block_size * blocks
        if size < expected:
            break
    else:
        pytest.fail("40 steps of writes never left a file shorter than its header counts: the test proves nothing")
    missing = (expected - size) // block_size
    assert 0 < missing <= free  # shorter than the header counts, by free blocks only
    assert health.damage(path) is None
    # the same file cut off a block boundary, or by more blocks than are free, is still damaged
    for cut in (size - 1, expected - (free + 1) * block_size):
        copy = tmp_path / f"cut-{cut}.duckdb"
        shutil.copyfile(path, copy)
        with copy.open("r+b") as f:
            f.truncate(cut)
        assert health.damage(copy) is not None, f"a file cut at byte {cut} of {size} was taken as whole"


def test_a_database_another_process_writes_is_not_called_damaged(a_database: Path, tmp_path: Path) -> None:
    busy = tmp_path / "busy.duckdb"
    shutil.copyfile(a_database, busy)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb, time; c = duckdb.connect({str(busy)!r}); print('open', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(duckdb.IOException, match="lock"):
            health.damage(busy)
        assert busy.exists()
    finally:
        holder.kill()
        holder.wait()


def test_move_aside_keeps_the_bytes_and_the_wal(tmp_path: Path) -> None:
    import datetime as dt

    db = tmp_path / "t.work.duckdb"
    db.write_bytes(b"abc")
    db.with_name(db.name + ".wal").write_bytes(b"wal")
    aside = health.move_aside(db, dt.datetime(2026, 12, 2, 1, 2, 3, tzinfo=dt.UTC))
    assert aside.name == "t.work.duckdb.corrupt-20261202T010203Z"
    assert aside.read_bytes() == b"abc" and aside.with_name(aside.name + ".wal").read_bytes() == b"wal"
    assert not db.exists() and not db.with_name(db.name + ".wal").exists()


# -- whole runs


@pytest.mark.prefect
@pytest.mark.faults
@pytest.mark.scenario
def test_a_working_database_cut_short_is_moved_aside_and_the_next_night_equals_an_undisturbed_one(
    skeleton: Path, prefect_api_url: str, tmp_path: Path
) -> None:
    got = machinekit.damaged_work_scenario(skeleton.parent, tmp_path, prefect_api_url, seed=3, how="truncate")
    assert (got.outcome.lost, got.outcome.duplicated, got.outcome.differing_tables) == (0, 0, [])
    assert got.aside is not None and got.aside.stat().st_size == got.cut  # kept as it was found, never deleted
    work = got.aside.with_name(got.aside.name.split(".corrupt-")[0])
    reason = str(health.damage(got.aside)).replace(str(got.aside), str(work))  # DuckDB names the file it read
    line = (
        f"warning: the working database {work} is damaged ({reason}); moved it aside to "
        f"{got.aside.name}; this run starts from a copy of the published snapshot"
    )
    assert got.recovery.stderr.splitlines()[0] == line
    assert [x for x in got.recovery.stderr.splitlines() if "damaged" in x] == [line]
    published = work.with_name(work.name.replace(".work.duckdb", ".duckdb"))
    _, status, _, _, warnings = last_run(published)
    assert status == "ok" and line.removeprefix("warning: ") in warnings


@pytest.mark.prefect
@pytest.mark.faults
@pytest.mark.scenario
def test_a_working_database_deleted_mid_season_restarts_from_the_snapshot(
    skeleton: Path, prefect_api_url: str, tmp_path: Path
) -> None:
    got = machinekit.damaged_work_scenario(skeleton.parent, tmp_path, prefect_api_url, seed=3, how="delete")
    assert (got.outcome.lost, got.outcome.duplicated, got.outcome.differing_tables) == (0, 0, [])
    assert "damaged" not in got.recovery.stderr  # a missing file is expected after an upgrade: no warning


@pytest.mark.prefect
@pytest.mark.faults
@pytest.mark.scenario
def test_a_damaged_published_file_exits_3_and_the_next_run_replaces_it(skeleton: Path, prefect_api_url: str) -> None:
    env = faultkit._env(prefect_api_url)
    machinekit.must(machinekit.nightly(skeleton, machinekit.NIGHT_1, env))
    published = machinekit.published(skeleton)
    with published.open("r+b") as f:
        f.truncate(published.stat().st_size // 2)
    reason = health.damage(published)
    assert reason is not None

    exported = cli("export", "--config", str(skeleton), env=env)
    assert exported.returncode == 3
    assert exported.stderr == f"error: the database {published} is damaged ({reason}); {REBUILT}\n"

    night = machinekit.must(machinekit.nightly(skeleton, machinekit.NIGHT_2, env))
    assert [x for x in night.stderr.splitlines() if "damaged" in x] == [
        f"warning: the published database {published} is damaged ({reason}); this run replaces it when it publishes"
    ]
    assert health.damage(published) is None
    assert last_run(published)[1] == "ok"


def _fill_leaving(volume: Path, mb: int) -> Path:
    filler = machinekit.fill(volume)
    with filler.open("r+b") as f:
        f.truncate(max(0, filler.stat().st_size - mb * MB))
    return filler


@pytest.mark.prefect
@pytest.mark.faults
@pytest.mark.scenario
def test_no_room_for_a_run_exits_3_at_once_and_the_run_after_the_space_is_freed_completes(
    skeleton: Path, prefect_api_url: str, tmp_path: Path
) -> None:
    env = faultkit._env(prefect_api_url)
    clean = machinekit.copies(skeleton.parent, tmp_path, ("clean",))[0]
    for night in (machinekit.NIGHT_1, machinekit.NIGHT_2):
        machinekit.must(machinekit.nightly(clean, night, env))
    with machinekit.small_volume(tmp_path / "volume", 160) as volume:
        if isinstance(volume, str):
            pytest.skip(volume)
        (hurt,) = machinekit.copies(skeleton.parent, volume, ("hurt",))
        machinekit.must(machinekit.nightly(hurt, machinekit.NIGHT_1, env))
        published, work = machinekit.published(hurt), machinekit.work(hurt)
        before = sha256(published)
        filler = _fill_leaving(volume, 8)
        free = shutil.disk_usage(volume).free // MB
        need = -(-published.stat().st_size // MB) + HEADROOM_MB
        assert free < need

        start = time.perf_counter()
        refused = machinekit.nightly(hurt, machinekit.NIGHT_2, env)
        took = time.perf_counter() - start
        assert refused.returncode == 3
        # the run's own log file and run record take a little of what was free before it started
        said = re.fullmatch(
            rf"error: no space left on {re.escape(str(work.parent))} \((\d+) MB free, the run needs about {need} MB\)",
            refused.stderr.splitlines()[0],
        )
        assert said is not None, refused.stderr
        assert free - 2 <= int(said.group(1)) <= free
        assert took < 30, f"the refusal took {took:.1f} s: it must come before anything slow starts"
        assert sha256(published) == before
        assert health.damage(work) is None
        run_id, status, _, error, _ = last_run(work)
        assert (status, error) == ("failed", refused.stderr.splitlines()[0].removeprefix("error: "))

        filler.unlink()
        machinekit.must(machinekit.nightly(hurt, machinekit.NIGHT_2, env))
        lost, dup, differ = faultkit.judge(machinekit.published(clean), published)
        assert (lost, dup, differ) == (0, 0, [])
        assert last_run(published)[0] == run_id + 1


@pytest.mark.prefect
@pytest.mark.faults
@pytest.mark.scenario
@pytest.mark.slow
def test_a_disk_that_fills_mid_run_exits_3_and_the_rerun_equals_an_undisturbed_night(
    skeleton: Path, prefect_api_url: str, tmp_path: Path
) -> None:
    got = machinekit.disk_full_scenario(skeleton.parent, tmp_path, prefect_api_url, seed=2)
    if isinstance(got, str):
        pytest.skip(got)
    assert got.failed is not None, f"the volume filled at {got.fill_at_s:.1f} s, after the run had ended"
    assert got.failed.returncode == 3
    # warnings come as they happen (work that failed on the full disk first says so), then the one
    # error line, then the run's summary
    lines = got.failed.stderr.splitlines()
    errors = [i for i, line in enumerate(lines) if line.startswith("error: ")]
    assert len(errors) == 1 and lines[errors[0]].startswith("error: no space left on "), got.failed.stderr
    assert all(line.startswith("warning: ") for line in lines[: errors[0]]), got.failed.stderr
    assert "Traceback" not in got.failed.stderr
    assert (got.outcome.lost, got.outcome.duplicated, got.outcome.differing_tables) == (0, 0, [])


@pytest.mark.scenario
@pytest.mark.prefect
@pytest.mark.faults
def test_an_exports_folder_the_run_may_not_write_exits_3_before_anything_changes(
    skeleton: Path, prefect_api_url: str
) -> None:
    prefix: tuple[str, ...] = ()
    if os.geteuid() == 0:  # root writes anywhere: run without the capabilities that allow it
        if shutil.which("setpriv") is None:
            pytest.skip("running as root and setpriv (util-linux) is missing: cannot take away root's write access")
        prefix = ("setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--inh-caps=-all")
    env = faultkit._env(prefect_api_url)
    machinekit.must(machinekit.nightly(skeleton, machinekit.NIGHT_1, env))
    published = machinekit.published(skeleton)
    exports = published.parent / "exports"
    before = sha256(published)
    exports.chmod(0o555)
    try:
        refused = cli("nightly", "--now", machinekit.NIGHT_2, "--config", str(skeleton), env=env, prefix=prefix)
    finally:
        exports.chmod(0o755)
    assert refused.returncode == 3, refused.stderr
    assert refused.stderr.splitlines()[0] == f"error: no permission to write {exports} (the run writes there)"
    assert sha256(published) == before


@pytest.mark.scenario
@pytest.mark.prefect
@pytest.mark.faults
def test_sigterm_at_random_moments_ends_each_run_within_5_s_and_the_rerun_equals_an_undisturbed_one(
    skeleton: Path, prefect_api_url: str
) -> None:
    out, stops = machinekit.term_nightly_scenario(skeleton.parent, prefect_api_url, seed=4, terms=2)
    assert stops, "no SIGTERM landed: every run ended before its signal"
    assert max(stops) <= 5, stops
    assert (out.lost, out.duplicated, out.differing_tables) == (0, 0, [])


@pytest.mark.prefect
@pytest.mark.faults
def test_a_bug_exits_4_with_one_line_naming_the_log_file_that_holds_the_traceback(
    skeleton: Path, prefect_api_url: str
) -> None:
    env = faultkit._env(prefect_api_url)
    machinekit.must(machinekit.nightly(skeleton, machinekit.NIGHT_1, env))
    work = machinekit.work(skeleton)
    con = duckdb.connect(str(work))  # a schema no release wrote: the ingest's insert cannot bind
    con.execute("ALTER TABLE lichess_games RENAME COLUMN speed TO speed_renamed")
    con.close()
    failed = machinekit.nightly(skeleton, machinekit.NIGHT_2, env)
    assert failed.returncode == 4
    first = failed.stderr.splitlines()[0]
    assert first.startswith("error: internal error: ") and " (the traceback is in " in first, failed.stderr
    log = Path(first.rsplit(" (the traceback is in ", 1)[1].removesuffix(")"))
    assert "Traceback (most recent call last)" in log.read_text(encoding="utf-8")
    assert "Traceback" not in failed.stderr
    _, status, _, error, _ = last_run(work)
    assert status == "failed" and error
