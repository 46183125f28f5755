"""The DuckDB adapter: the only module that opens DuckDB connections.

SQL lives under ``sql/`` (``schema/`` one CREATE per table in its final form, ``migrations/`` the
upgrades of a database written by an earlier release, ``views/`` the contract views, ``queries/``
what the pipeline reads, ``audits/`` one SELECT of offending rows per audit); this module loads it by
name, binds every value as a parameter, and moves rows in and out as polars frames (through
Arrow). Table names are never taken from input: :data:`WRITABLE` is the closed set of tables
the pipeline writes. The ``audit_findings`` view is generated from the files of ``sql/audits/``
(:func:`audit_findings_sql`), so adding an audit is adding a file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import logging
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from pipeline.errors import DatabaseDamaged
from pipeline.resources import SQL_DIR

WRITABLE = frozenset(
    {
        "raw_users",
        "raw_rating_histories",
        "raw_games",
        "rejected_records",
        "refetch_games",
        "ingest_cursors",
        "lichess_users",
        "lichess_rating_points",
        "lichess_games",
        "td_members",
        "td_pairings",
        "td_byes",
        "scored_match_games",
        "scored_board_results",
        "scored_team_matches",
        "scored_standings",
        "game_verdicts",
        "game_flags",
        "td_overrides",
        "rating_estimates",
        "rating_estimate_tracks",
        "rating_estimate_cursor",
        "scored_rounds",
        "scored_placings",
        "pipeline_runs",
        "attention_items",
        "audit_params",
        "audit_strongest_players",
        "audit_allowed_swaps",
        "audit_directors",
        "audit_stages",
        "audit_captains",
        "schema_migrations",
        "sent_messages",
    }
)
_FLAT = frozenset({str, int, float, bool, type(None), dt.datetime, dt.date})  # values asdict would only copy

FINDING_COLUMNS = ("rule_id", "severity", "subject", "team", "detail", "evidence_url")

# The published snapshot's storage format: readable by every DuckDB since 1.0 (the `duckdb-cli`
# package on PyPI is 1.5; a DuckDB 2.0 file is not readable before 2.0).
SNAPSHOT_STORAGE_VERSION = "v1.0.0"
# Every read-write open of a working database: a new file is created in the snapshot's storage
# format, so that publishing can copy its bytes. DuckDB reads the option only when it creates a
# file: an existing one (a working database an older install created in a newer format) keeps its
# own, and publishing rewrites that one (`copy_database`).
WRITE_CONFIG: dict[str, Any] = {"storage_compatibility_version": SNAPSHOT_STORAGE_VERSION}

log = logging.getLogger(__name__)


@cache
def sql(name: str) -> str:
    """The text of ``sql/<name>.sql`` (e.g. ``queries/candidate_games``)."""
    path = SQL_DIR / f"{name}.sql"
    return path.read_text(encoding="utf-8")


def migrate(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Bring the database up to date, then (re)create every view (sql/views) and the audit_findings
    view over sql/audits. Returns the migrations run on it (none for a new or up-to-date database).

    A database last brought up to date by the same SQL files is left as it is: their fingerprint
    (`sql_fingerprint`) is kept as the comment of the audit_findings view, which is created last,
    so a migration stopped half-way leaves no fingerprint and the next connect runs it all again.
    (Every read-write connect used to re-run the CREATEs and re-create every view: about a third
    of a second each, several times a run.)

    In one transaction (an upgrade stopped half-way leaves the database as it was): the CREATE of
    every table it lacks (sql/schema, one per table in its final form, in file order), then each
    migration (sql/migrations, in file order) not yet in ``schema_migrations``, recorded there as it
    runs. A database with no tables yet is created final and records every migration as 'created'
    without running it. A migration runs after the CREATEs, so it must leave a table the final CREATE
    made unchanged (``ADD COLUMN IF NOT EXISTS``)."""
    fingerprint = sql_fingerprint()
    if con.execute(sql("queries/schema_fingerprint"), ["audit_findings"]).fetchall() == [(fingerprint,)]:
        return []
    with transaction(con):
        is_new = not con.execute(sql("queries/table_columns")).fetchall()
        for path in sorted((SQL_DIR / "schema").glob("*.sql")):
            con.execute(path.read_text(encoding="utf-8"))
        recorded = {m for (m,) in con.execute(sql("queries/schema_migrations")).fetchall()}
        pending = [p for p in migration_files() if p.stem not in recorded]
        if not is_new:
            for path in pending:
                con.execute(path.read_text(encoding="utf-8"))
                log.info("database upgraded: sql/migrations/%s applied", path.name)
        at = dt.datetime.now(dt.UTC)
        how = "created" if is_new else "applied"
        rows = [{"migration": p.stem, "how": how, "applied_at": at} for p in pending]
        _insert(con, f"INSERT INTO {_check('schema_migrations')}", rows)
    _create_views(con, sorted((SQL_DIR / "views").glob("*.sql")))
    con.execute(audit_findings_sql())
    con.execute(f"COMMENT ON VIEW audit_findings IS '{fingerprint}'")  # hex digits: DDL takes no bound value
    return [] if is_new else [p.stem for p in pending]


@cache
def sql_fingerprint() -> str:
    """A digest of every SQL file `migrate` runs (schema, migrations, views, audits), by name and
    text: it changes when any of them does."""
    digest = hashlib.sha256()
    for folder in ("schema", "migrations", "views", "audits"):
        for path in sorted((SQL_DIR / folder).glob("*.sql")):
            digest.update(f"{folder}/{path.name}\0{path.read_text(encoding='utf-8')}\0".encode())
    return digest.hexdigest()


def migration_files() -> list[Path]:
    """The upgrades of a database written by an earlier release, in the order they run: each
    ``sql/migrations/<nnn>_<what>.sql`` is one statement."""
    return sorted((SQL_DIR / "migrations").glob("*.sql"))


def _create_views(con: duckdb.DuckDBPyConnection, paths: list[Path]) -> None:
    """(Re)create the views (file ``<name>.sql`` defines view ``<name>``): all are dropped first,
    so none binds to an older version of another; then created in name order, a view that reads
    one not created yet waiting for the next pass (files need no order prefixes). A pass that
    creates nothing re-raises."""
    for name in ["audit_findings", *(p.stem for p in paths)]:
        con.execute(f"DROP VIEW IF EXISTS {_column(name)}")
    pending = paths
    while pending:
        failed: list[tuple[Path, duckdb.CatalogException]] = []
        for path in pending:
            try:
                con.execute(path.read_text(encoding="utf-8"))
            except duckdb.CatalogException as e:  # a view it reads does not exist yet
                failed.append((path, e))
        if len(failed) == len(pending):
            path, error = failed[0]
            raise RuntimeError(f"sql/views/{path.name}: {error}") from error
        pending = [path for path, _ in failed]


def audit_files() -> list[Path]:
    """The audits, in file-name order: each ``sql/audits/<name>.sql`` is one SELECT of offending rows."""
    return sorted((SQL_DIR / "audits").glob("*.sql"))


def audit_sql(path: Path) -> str:
    """An audit file's SELECT, as a TD would paste it into the duckdb CLI (no trailing semicolon)."""
    return path.read_text(encoding="utf-8").strip().rstrip(";").rstrip()


def findings_sql(files: Sequence[Path]) -> str:
    """The UNION ALL of `files` (audit files), each with the contract's columns and ``audit`` (the
    file's name) after them; an empty relation of those columns when there are none."""
    parts = []
    for path in files:
        name = path.stem
        if not name.isidentifier():
            raise ValueError(f"audit file {path.name!r}: expected a name of letters, digits and _")
        cols = ", ".join(FINDING_COLUMNS)
        parts.append(f"SELECT {cols}, '{name}' AS audit FROM (\n{audit_sql(path)}\n) AS {name}")
    if not parts:
        parts.append(
            "SELECT " + ", ".join(f"CAST(NULL AS VARCHAR) AS {c}" for c in (*FINDING_COLUMNS, "audit")) + " WHERE FALSE"
        )
    return "\nUNION ALL\n".join(parts)


def audit_findings_sql() -> str:
    """``CREATE VIEW audit_findings``: the UNION ALL of every audit file, in file-name order, with
    the contract's columns and ``audit`` (the file's name) after them."""
    header = (
        "-- audit_findings: one row per finding of any audit, generated from sql/audits/*.sql (file-name order)\n"
        "CREATE OR REPLACE VIEW audit_findings AS\n"
    )
    return header + findings_sql(audit_files())


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@cache
def _view_words() -> dict[str, frozenset[str]]:
    """Each view of ``sql/views`` (by name) with every word of its file."""
    return {
        p.stem: frozenset(_WORD.findall(p.read_text(encoding="utf-8")))
        for p in sorted((SQL_DIR / "views").glob("*.sql"))
    }


def _named(text: str) -> frozenset[str]:
    """Every word of `text` and of the views it names, followed through the views they name."""
    views = _view_words()
    seen: set[str] = set()
    todo = set(_WORD.findall(text))
    while todo:
        word = todo.pop()
        if word not in seen:
            seen.add(word)
            todo |= views.get(word, frozenset())
    return frozenset(seen)


def tables_read(text: str) -> frozenset[str]:
    """The stored tables (:data:`WRITABLE`) a query may read: those it names, directly or through
    the views it names (``sql/views``, followed through the views they name). Every word counts,
    a comment's too, so a table the query reads is never missed; at worst one is listed that it
    does not read (tests/store/test_tables_read.py checks this against DuckDB's plans)."""
    return _named(text) & WRITABLE


def views_read(text: str) -> frozenset[str]:
    """The views of ``sql/views`` a query may read, directly or through other views (as :func:`tables_read`)."""
    return _named(text) & _view_words().keys()


@contextlib.contextmanager
def shadowed(con: duckdb.DuckDBPyConnection, views: Sequence[str]) -> Iterator[None]:
    """While the block runs, each view named in `views` (in an order where a view comes after
    those it reads) is computed once into a temporary table of the same name, which shadows the
    view on this connection: queries that read it, directly or through other views, read the same
    rows without computing them again. The tables are dropped after the block."""
    made: list[str] = []
    try:
        for view in views:
            con.execute(f"CREATE OR REPLACE TEMP TABLE {_column(view)} AS SELECT * FROM main.{_column(view)}")
            made.append(view)
        yield
    finally:
        for view in reversed(made):
            con.execute(f"DROP TABLE IF EXISTS temp.{_column(view)}")


def findings_of(con: duckdb.DuckDBPyConnection, files: Sequence[Path], shared: Sequence[str] = ()) -> pl.DataFrame:
    """``queries/audit_findings_ordered`` over the audits in `files` only: on this connection a
    temporary ``audit_findings`` view of those files shadows the stored one (which keeps every
    audit) while the query runs, then is dropped. The views named in `shared` are computed once
    meanwhile (:func:`shadowed`), instead of once per audit that reads them."""
    with shadowed(con, shared):
        con.execute(f"CREATE OR REPLACE TEMP VIEW audit_findings AS\n{findings_sql(files)}")
        try:
            return query(con, "queries/audit_findings_ordered")
        finally:
            con.execute("DROP VIEW IF EXISTS temp.audit_findings")


_held: dict[Path, duckdb.DuckDBPyConnection] = {}  # files a run keeps open (see `held`), by resolved path


def connect(path: Path | str, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A connection to the database at `path`, brought up to date unless `read_only`. On a file
    this process holds (`held`), DuckDB reuses the open database; a read-only connect there gets
    a cursor of the holding connection (DuckDB opens a file with one configuration per process),
    which the caller only reads from and closes like any connection."""
    path = Path(path)
    holder = _held.get(path.resolve())
    if read_only:
        if holder is not None:
            return holder.cursor()
        try:
            return duckdb.connect(str(path), read_only=True)
        except duckdb.Error as e:
            from pipeline.store import health

            damaged = health.explain(e)
            if isinstance(damaged, DatabaseDamaged):
                raise damaged from e
            raise
    path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(path), config=WRITE_CONFIG)
    migrate(con)
    return con


@contextlib.contextmanager
def held(path: Path) -> Iterator[None]:
    """Keep the database at `path` open read-write while the block runs (a recorded run holds its
    working database), so that the stages' and the run record's connects reuse the open database
    instead of opening the file again: each open costs 35-80 ms and each last close a checkpoint,
    and a nightly run connects about 18 times. `release` ends it early (before the file is
    copied for publishing, which needs it closed)."""
    key = path.resolve()
    _held[key] = connect(path)
    try:
        yield
    finally:
        release(path)


def release(path: Path) -> None:
    """Close the holding connection of `held` on `path`, if it is still open."""
    con = _held.pop(path.resolve(), None)
    if con is not None:
        con.close()


@contextlib.contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """All or nothing: the block's writes commit together or roll back together."""
    con.begin()
    try:
        yield con
    except BaseException:
        con.rollback()
        raise
    con.commit()


@contextlib.contextmanager
def rolled_back(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """A what-if: the block's writes are seen inside it and undone after it, whatever happens."""
    con.begin()
    try:
        yield con
    finally:
        con.rollback()


def _frame(rows: Sequence[Any] | pl.DataFrame) -> pl.DataFrame:
    if isinstance(rows, pl.DataFrame):
        return rows
    columns = _columns(rows)
    if columns is not None:
        return pl.DataFrame(columns, strict=False)  # the types one row at a time would infer
    dicts = [_row(r) for r in rows]
    return pl.DataFrame(dicts, infer_schema_length=None)


def _columns(rows: Sequence[Any]) -> dict[str, list[Any]] | None:
    """Rows that are instances of one dataclass whose fields all hold plain values, as columns
    (read field by field: a third of the per-row conversion's cost); None for any other rows."""
    if not rows:
        return None
    kind = type(rows[0])
    if not dataclasses.is_dataclass(kind) or any(type(r) is not kind for r in rows):
        return None
    columns = {f.name: [getattr(r, f.name) for r in rows] for f in dataclasses.fields(kind)}
    if any(type(v) not in _FLAT for values in columns.values() for v in values):
        return None
    return columns


def _row(r: Any) -> dict[str, Any]:
    """A row as a dict: dataclasses.asdict for dataclasses, without its deep copy when every
    field holds a plain value (the pipeline's rows; asdict costs ~10 µs a row)."""
    if not dataclasses.is_dataclass(r):
        return dict(r)
    assert not isinstance(r, type), "a row is a dataclass instance, not the class"
    d = {f.name: getattr(r, f.name) for f in dataclasses.fields(r)}
    if all(type(v) in _FLAT for v in d.values()):
        return d
    return dataclasses.asdict(r)


def _check(table: str) -> str:
    if table not in WRITABLE:
        raise ValueError(f"table {table!r} is not writable: expected one of {sorted(WRITABLE)}")
    return table


def upsert(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Any] | pl.DataFrame) -> int:
    """Insert rows, replacing those with the same primary key; columns matched by name."""
    return _insert(con, f"INSERT OR REPLACE INTO {_check(table)}", rows)


def _insert(con: duckdb.DuckDBPyConnection, verb: str, rows: Sequence[Any] | pl.DataFrame) -> int:
    """`verb` (INSERT [OR REPLACE] INTO a checked table) the rows, columns matched by name."""
    df = _frame(rows)
    if df.height == 0:
        return 0
    con.register("_batch", df)
    try:
        con.execute(f"{verb} BY NAME SELECT * FROM _batch")
    finally:
        con.unregister("_batch")
    return df.height


def replace_where(
    con: duckdb.DuckDBPyConnection, table: str, where: dict[str, Any], rows: Sequence[Any] | pl.DataFrame
) -> int:
    """Delete the rows matching ``where`` (column = value, bound) and insert ``rows`` instead."""
    cond = " AND ".join(f"{_column(c)} = ?" for c in where) or "TRUE"
    con.execute(f"DELETE FROM {_check(table)} WHERE {cond}", list(where.values()))
    return _insert(con, f"INSERT INTO {table}", rows)


def delete_keys(con: duckdb.DuckDBPyConnection, table: str, column: str, keys: Sequence[str]) -> None:
    """Delete the rows whose ``column`` is one of ``keys`` (bound as a list)."""
    if keys:
        con.execute(
            f"DELETE FROM {_check(table)} WHERE {_column(column)} IN (SELECT unnest(?::VARCHAR[]))", [list(keys)]
        )


def replace_all(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Any] | pl.DataFrame) -> bool:
    """Make the table hold exactly ``rows`` (in any order); when it already does, write nothing
    (a write costs a delete, an insert and the write-ahead log, each night, for files that rarely
    change). Returns whether it wrote. Call inside a transaction, so the comparison and the write
    see the same rows."""
    new = _frame(rows)
    stored = con.sql(f"SELECT * FROM {_check(table)}").pl()
    if set(new.columns) == set(stored.columns) or (new.height == 0 and stored.height == 0):
        cols = stored.columns
        if Counter(stored.rows()) == Counter(new.select(cols).rows() if new.height else []):
            return False
    replace_where(con, table, {}, new)
    return True


def replace_rounds(
    con: duckdb.DuckDBPyConnection, table: str, stage: str, rounds: Sequence[int], rows: Sequence[Any] | pl.DataFrame
) -> int:
    """Delete the rows of `stage` whose round is in `rounds` and insert ``rows`` instead."""
    con.execute(
        f"DELETE FROM {_check(table)} WHERE stage = ? AND round IN (SELECT unnest(?::INTEGER[]))", [stage, list(rounds)]
    )
    return _insert(con, f"INSERT INTO {table}", rows)


def query_with(
    con: duckdb.DuckDBPyConnection,
    name: str,
    frames: dict[str, pl.DataFrame],
    params: Sequence[Any] | dict[str, Any] = (),
) -> pl.DataFrame:
    """Run ``sql/<name>.sql`` with the given frames visible under their names (rows the query
    joins against, e.g. the night's board pairings) and bound parameters."""
    for key in frames:
        if not key.startswith("_") or not key[1:].isidentifier():
            raise ValueError(f"frame name {key!r}: expected _ and an identifier")
    for key, df in frames.items():
        con.register(key, df)
    try:
        return con.sql(sql(name), params=params or None).pl()
    finally:
        for key in frames:
            con.unregister(key)


def _column(name: str) -> str:
    if not name.isidentifier():
        raise ValueError(f"column {name!r}: expected an identifier")
    return name


def query(con: duckdb.DuckDBPyConnection, name: str, params: Sequence[Any] | dict[str, Any] = ()) -> pl.DataFrame:
    """Run ``sql/<name>.sql`` with bound parameters and return the rows as a polars frame."""
    return con.sql(sql(name), params=params or None).pl()


def checkpointed_storage_version(path: Path) -> str:
    """Fold the write-ahead log of the database at ``path`` into the file (``CHECKPOINT``; none is
    left once it is closed) and return the file's storage format, as DuckDB tags it (``v1.0.0+``
    for :data:`SNAPSHOT_STORAGE_VERSION`). Opens it read-write, without migrating it: no other
    connection of this process may hold it."""
    if not path.exists():
        raise FileNotFoundError(f"{path}: no database there (a read-write open would create an empty one)")
    con = duckdb.connect(str(path), config=WRITE_CONFIG)
    try:
        con.execute("CHECKPOINT")
        (version,) = con.execute(sql("queries/storage_version")).fetchall()[0]
    finally:
        con.close()
    return str(version)


def copy_database(src: Path, dst: Path) -> None:
    """Write a complete, self-contained copy of the database ``src`` to the new file ``dst``, in the
    snapshot's storage format (:data:`SNAPSHOT_STORAGE_VERSION`): every schema, table (with its
    constraints), view, macro and sequence, whatever they are (``COPY FROM DATABASE``). Views keep
    their unqualified SQL, so they resolve inside ``dst``. ``src`` is attached read-only; no other
    connection of this process may hold it read-write."""
    if dst.exists():
        raise FileExistsError(f"{dst}: expected a new file")
    con = duckdb.connect()
    try:
        con.execute("ATTACH ? AS copy_src (READ_ONLY)", [str(src)])
        con.execute("ATTACH ? AS copy_dst (STORAGE_VERSION ?)", [str(dst), SNAPSHOT_STORAGE_VERSION])
        con.execute("COPY FROM DATABASE copy_src TO copy_dst")
        con.execute("DETACH copy_dst")
        con.execute("DETACH copy_src")
    finally:
        con.close()


def view_counts(path: Path) -> dict[str, int]:
    """Open ``path`` read-only and count the rows of every view in it: each one must bind and run
    inside that file alone (the check before a snapshot is published)."""
    con = connect(path, read_only=True)
    try:
        names = [n for (n,) in con.execute(sql("queries/user_views")).fetchall()]
        return {n: con.execute(f"SELECT count(*) FROM {_quoted(n)}").fetchall()[0][0] for n in names}
    finally:
        con.close()


# When a row was fetched, verified or audited, or a migration recorded: two runs over the same data
# differ there by design.
TIME_COLUMNS = frozenset({"fetched_at", "updated_at", "verified_at", "audited_at", "applied_at"})


def table_checksums(
    con: duckdb.DuckDBPyConnection,
    exclude_tables: frozenset[str] = frozenset({"pipeline_runs", "attention_items"}),
    exclude_columns: frozenset[str] = TIME_COLUMNS,
) -> dict[str, tuple[int, int]]:
    """Per base table: (row count, order-independent checksum of its rows). The checksum is the
    sum of a hash of each row's remaining columns, so a row stored twice changes it (an XOR would
    cancel out) and row order does not. ``pipeline_runs`` (the run record: wall clocks, pids,
    flow ids), ``attention_items`` (each run's list, by run id) and the time-of-fetch columns are
    left out by default."""
    columns: dict[str, list[str]] = {}
    for table, column in con.execute(sql("queries/table_columns")).fetchall():
        if table not in exclude_tables and column not in exclude_columns:
            columns.setdefault(table, []).append(column)
    out = {}
    for table, cols in columns.items():
        row_hash = f"hash({', '.join(_quoted(c) for c in cols)})"
        n, total = con.execute(
            f"SELECT count(*), coalesce(sum({row_hash}::HUGEINT), 0) FROM {_quoted(table)}"
        ).fetchall()[0]
        out[table] = (n, int(total))
    return out


def _quoted(name: str) -> str:
    """A catalog name (read from duckdb_views(), never from input) as a quoted identifier."""
    return '"' + name.replace('"', '""') + '"'
