"""Upgrading a database written by an earlier release (sql/migrations, gateway.migrate): opened
through the gateway, it ends with exactly the tables and columns (names, types, defaults, order)
and constraints of a database this release creates, keeps every row it had, and records each
migration once; a second open runs nothing. The databases under tests/data/releases/ were
written by those releases' own code (see the PROVENANCE.md beside each)."""

from __future__ import annotations

import gzip
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from kits.skeleton_kit import copy_skeleton, run_skeleton
from pipeline.store import gateway, sql_files

RELEASES = Path(__file__).resolve().parents[1] / "data" / "releases"
# c638f8a: the last release before any ALTER, 15 tables (no td_overrides, td_byes, audit or RD
# tables, no run record). 5fe0665: the release before the package moved, every column already
# there but no schema_migrations.
WRITTEN_BY = {"c638f8a": "skeleton.duckdb.gz", "5fe0665": "skeleton.work.duckdb.gz"}

Catalog = dict[str, tuple[list[tuple], list[tuple]]]


def unpack(release: str, tmp_path: Path) -> Path:
    """A writable copy of the release's database, as that release wrote it."""
    packed = RELEASES / release / WRITTEN_BY[release]
    db = tmp_path / packed.name.removesuffix(".gz")
    with gzip.open(packed) as src, db.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return db


def catalog(con: duckdb.DuckDBPyConnection) -> Catalog:
    """Per base table: DESCRIBE (column name, type, null, key, default, extra, in column order) and
    its constraints."""
    tables = [t for (t, _) in con.execute(gateway.sql("queries/table_columns")).fetchall()]
    out = {}
    for table in sorted(set(tables)):
        columns = con.sql(f"DESCRIBE {table}").fetchall()
        constraints = con.execute(
            "SELECT constraint_type, constraint_text FROM duckdb_constraints() WHERE table_name = ? ORDER BY ALL",
            [table],
        ).fetchall()
        out[table] = (columns, constraints)
    return out


def contents(db: Path) -> dict[str, tuple[list[str], list[tuple]]]:
    """Every base table's columns and rows (sorted), read without the gateway."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        for table, column in con.execute(gateway.sql("queries/table_columns")).fetchall():
            out.setdefault(table, ([], []))[0].append(column)
        for table, (columns, rows) in out.items():
            rows.extend(sorted(con.sql(f"SELECT {', '.join(columns)} FROM {table}").fetchall(), key=repr))
        return out
    finally:
        con.close()


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    con = gateway.connect(tmp_path_factory.mktemp("fresh") / "fresh.duckdb")
    try:
        return catalog(con)
    finally:
        con.close()


def recorded(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    return con.sql("SELECT migration, how, applied_at FROM schema_migrations ORDER BY migration").fetchall()


@pytest.mark.parametrize("release", sorted(WRITTEN_BY))
def test_a_database_of_an_earlier_release_opens_as_a_new_one_would_be(
    release: str, tmp_path: Path, fresh: Catalog
) -> None:
    db = unpack(release, tmp_path)
    old = contents(db)
    assert "schema_migrations" not in old
    con = gateway.connect(db)
    try:
        assert catalog(con) == fresh
        runs = recorded(con)
        assert [(m, how) for m, how, _ in runs] == [(p.stem, "applied") for p in sql_files.migration_files()]
        assert gateway.migrate(con) == []  # nothing left to run
        assert recorded(con) == runs
    finally:
        con.close()
    con = gateway.connect(db)  # a second open: nothing applied, nothing recorded again
    try:
        assert recorded(con) == runs
    finally:
        con.close()
    kept = duckdb.connect(str(db), read_only=True)
    try:
        for table, (columns, rows) in old.items():  # the old rows survive, column for column, and no other
            assert sorted(kept.sql(f"SELECT {', '.join(columns)} FROM {table}").fetchall(), key=repr) == rows, table
    finally:
        kept.close()
    assert sum(len(rows) for _, rows in old.values()) > 200  # a real night's data, not empty tables
    assert all(n >= 0 for n in gateway.view_counts(db).values())  # every view runs on the upgraded file


def test_the_columns_a_migration_adds_hold_its_default_on_old_rows(tmp_path: Path) -> None:
    """c638f8a's 32 board results, 4 team matches and 8 standings rows predate the columns
    migrations 001-009 add: each gets that column's default ('' / false / 0, NULL without one);
    its raw games predate raw_games.source (011): 'api'."""
    db = unpack("c638f8a", tmp_path)
    gateway.connect(db).close()
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.sql("SELECT override, is_unplayed, count(*) FROM scored_board_results GROUP BY ALL").fetchall() == [
            ("", False, 32)
        ]
        assert con.sql("SELECT override, tiebreak, count(*) FROM scored_team_matches GROUP BY ALL").fetchall() == [
            ("", "", 4)
        ]
        assert con.sql(
            "SELECT cumulative, seed_rating, pool, kashdan, byes, count(*) FROM scored_standings GROUP BY ALL"
        ).fetchall() == [(0.0, None, None, 0.0, 0, 8)]
        # 011: every game stored before the backfill existed came from the API
        assert con.sql("SELECT source, count(*) > 0 FROM raw_games GROUP BY ALL").fetchall() == [("api", True)]
    finally:
        con.close()


def test_a_night_on_the_upgraded_database_writes_what_it_writes_on_a_new_one(tmp_path: Path) -> None:
    """c638f8a's database of the skeleton, upgraded, then ingested, scored and exported by this
    release as of the same night, holds exactly what a new database holds after that night:
    every table's rows (gateway.table_checksums: fetch and verify times left out) but the migration
    record, whose rows say 'applied' there and 'created' here."""
    upgraded, new = copy_skeleton(tmp_path / "upgraded"), copy_skeleton(tmp_path / "new")
    (upgraded / "out").mkdir()
    unpack("c638f8a", tmp_path).rename(upgraded / "out" / "skeleton.duckdb")  # the config's paths.database
    sums = []
    for folder in (upgraded, new):
        run_skeleton(folder)
        con = duckdb.connect(str(folder / "out" / "skeleton.duckdb"), read_only=True)
        try:
            sums.append(gateway.table_checksums(con))
        finally:
            con.close()
    assert sums[0].keys() == sums[1].keys()
    assert [t for t in sums[0] if sums[0][t] != sums[1][t]] == ["schema_migrations"]
    assert sums[0]["scored_standings"][0] == 8  # 4 teams after each of 2 rounds


def test_a_new_database_is_created_final_and_runs_no_migration(tmp_path: Path) -> None:
    """A new file gets the final CREATEs and every migration recorded as 'created' (none run)."""
    con = gateway.connect(tmp_path / "new.duckdb")
    try:
        runs = recorded(con)
        assert [(m, how) for m, how, _ in runs] == [(p.stem, "created") for p in sql_files.migration_files()]
        assert len(runs) == 11
        assert gateway.migrate(con) == []
        assert recorded(con) == runs
    finally:
        con.close()


def test_a_migration_not_yet_recorded_runs_once(tmp_path: Path) -> None:
    """A database up to date but for the last migration (its row, its column and the SQL
    fingerprint gone, as a database of the release before it would be): the next open runs that
    one and no other, and the rows stored before it say they came from the API."""
    db = tmp_path / "t.duckdb"
    last = sql_files.migration_files()[-1]  # 011: raw_games.source ('api' | 'dump')
    con = gateway.connect(db)
    con.execute("ALTER TABLE raw_games DROP COLUMN source")
    con.execute("INSERT INTO raw_games VALUES ('abcdefgh', '{}', TIMESTAMPTZ '2026-01-01 00:00:00+00')")
    con.execute("DELETE FROM schema_migrations WHERE migration = ?", [last.stem])
    con.execute("COMMENT ON VIEW audit_findings IS NULL")  # nor the fingerprint of this release's SQL
    before = recorded(con)
    con.close()
    con = gateway.connect(db)
    try:
        after = recorded(con)
        assert after[:-1] == before
        assert [(m, how) for m, how, _ in after[-1:]] == [(last.stem, "applied")]
        assert con.sql("SELECT game_id, source FROM raw_games").fetchall() == [("abcdefgh", "api")]
    finally:
        con.close()


def test_each_table_is_created_by_one_schema_file_and_altered_only_by_migrations() -> None:
    """sql/schema: one CREATE TABLE per file and per table, no ALTER; sql/migrations: numbered files
    of one statement each under a header saying what they add and which databases need it."""
    created: dict[str, str] = {}
    for path in sorted((sql_files.SQL_DIR / "schema").glob("*.sql")):
        code = "\n".join(line.split("--")[0] for line in path.read_text(encoding="utf-8").splitlines())
        tables = re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", code)
        assert len(tables) == 1 and code.count(";") == 1, path.name
        assert "ALTER" not in code.upper(), path.name
        assert tables[0] not in created, (path.name, created.get(tables[0]))
        created[tables[0]] = path.name
    numbers = []
    for path in sql_files.migration_files():
        text = path.read_text(encoding="utf-8")
        assert re.fullmatch(r"(\d{3})_\w+\.sql", path.name), path.name
        numbers.append(int(path.name[:3]))
        header = [line for line in text.splitlines() if line.startswith("--")]
        assert header[0].startswith(f"-- {path.name[:3]}: "), path.name
        assert any("Needed by databases written before commit" in line for line in header), path.name
        code = "\n".join(line.split("--")[0] for line in text.splitlines())
        assert code.count(";") == 1 and code.strip().endswith(";"), path.name
    assert numbers == list(range(1, len(numbers) + 1))


def view_names(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {n for (n,) in con.execute(gateway.sql("queries/user_views")).fetchall()}


def test_a_database_up_to_date_with_these_sql_files_is_not_migrated_again(tmp_path: Path) -> None:
    """gateway.migrate keeps the fingerprint of the SQL files it ran as the comment of the
    audit_findings view, created last. A later connect that finds the same fingerprint leaves the
    database as it is. A dropped view therefore stays dropped: that is how the test can see the
    skip. A different fingerprint, like the one an older release leaves, runs everything again
    and re-creates the views; and a database without the view (a migration stopped half-way)
    is migrated too."""
    db = tmp_path / "t.duckdb"
    con = gateway.connect(db)
    fingerprint = sql_files.sql_fingerprint()
    assert con.execute(gateway.sql("queries/schema_fingerprint"), ["audit_findings"]).fetchall() == [(fingerprint,)]
    every_view = view_names(con)
    assert {"audit_findings", "elig_game_counts"} <= every_view
    con.execute("DROP VIEW elig_game_counts")
    con.close()

    con = gateway.connect(db)  # same fingerprint: nothing runs
    assert view_names(con) == every_view - {"elig_game_counts"}
    con.execute("COMMENT ON VIEW audit_findings IS 'an older release'")
    con.close()

    con = gateway.connect(db)  # another fingerprint: the views are made again
    assert view_names(con) == every_view
    con.execute("DROP VIEW elig_game_counts")
    con.execute("DROP VIEW audit_findings")
    con.close()

    con = gateway.connect(db)  # no fingerprint at all
    try:
        assert view_names(con) == every_view
        assert con.execute(gateway.sql("queries/schema_fingerprint"), ["audit_findings"]).fetchall() == [(fingerprint,)]
    finally:
        con.close()


def test_the_fingerprint_changes_with_any_sql_file_migrate_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """sql_fingerprint reads sql/schema, sql/migrations, sql/views and sql/audits by name and text:
    one changed byte in a view gives another fingerprint, and so does a renamed audit file."""
    copy = tmp_path / "sql"
    shutil.copytree(sql_files.SQL_DIR, copy)
    monkeypatch.setattr(sql_files, "SQL_DIR", copy)
    sql_files.sql_fingerprint.cache_clear()
    try:
        base = sql_files.sql_fingerprint()
        view = copy / "views" / "elig_game_counts.sql"
        view.write_text(view.read_text(encoding="utf-8") + " ", encoding="utf-8")
        sql_files.sql_fingerprint.cache_clear()
        changed = sql_files.sql_fingerprint()
        audit = sorted((copy / "audits").glob("*.sql"))[0]
        audit.rename(audit.with_name("z_" + audit.name))
        sql_files.sql_fingerprint.cache_clear()
        renamed = sql_files.sql_fingerprint()
    finally:
        sql_files.sql_fingerprint.cache_clear()
    assert len({base, changed, renamed}) == 3
