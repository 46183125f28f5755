"""The DuckDB adapter: the only module that opens DuckDB connections.

SQL lives under ``sql/`` (:mod:`pipeline.store.sql_files` reads it by name); this module binds every
value as a parameter and moves rows in and out as polars frames (through Arrow). Table names are
never taken from input: a write names one of :data:`~pipeline.store.sql_files.WRITABLE`. A
read-write connect brings the database up to date first (:func:`migrate`, its steps in
:mod:`pipeline.store.migrations`); the ``audit_findings`` view is assembled from ``sql/audits/``
(:mod:`pipeline.store.findings_view`), and :func:`findings_of` runs some of its audits alone.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TypeAlias

import duckdb
import polars as pl
import pyarrow as pa

from pipeline.errors import DatabaseDamaged
from pipeline.store import migrations
from pipeline.store.duckdb_limits import LIMITS
from pipeline.store.findings_view import findings_sql
from pipeline.store.sql_files import WRITABLE, league_schema_files, sql, sql_fingerprint

_FLAT = frozenset({str, int, float, bool, type(None), dt.datetime, dt.date})  # values asdict would only copy

# The published snapshot's storage format: readable by every DuckDB since 1.0 (the `duckdb-cli`
# package on PyPI is 1.5; a DuckDB 2.0 file is not readable before 2.0).
SNAPSHOT_STORAGE_VERSION = "v1.0.0"
# Every read-write open of a working database: a new file is created in the snapshot's storage
# format, so that publishing can copy its bytes. DuckDB reads the option only when it creates a
# file: an existing one (a working database an older install created in a newer format) keeps its
# own, and publishing rewrites that one (`copy_database`).
WRITE_CONFIG: dict[str, Any] = {"storage_compatibility_version": SNAPSHOT_STORAGE_VERSION} | LIMITS


def migrate(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Bring the database up to date, then (re)create every view (sql/views) and the audit_findings
    view over sql/audits. Returns the migrations run on it (none for a new or up-to-date database).

    A database last brought up to date by the same SQL files is left as it is
    (:func:`migrations.is_up_to_date`): re-running the CREATEs and re-creating every view costs
    about a third of a second, and a run connects read-write several times. The fingerprint is
    kept by the audit_findings view, which is created last, so a migration stopped half-way leaves
    no fingerprint and the next connect runs it all again.

    In one transaction (an upgrade stopped half-way leaves the database as it was): the CREATE of
    every table it lacks (sql/schema, one per table in its final form, in file order), then each
    migration (sql/migrations, in file order) not yet in ``schema_migrations``, recorded there as it
    runs. A database with no tables yet is created final and records every migration as 'created'
    without running it. A migration runs after the CREATEs, so it must leave a table the final CREATE
    made unchanged (``ADD COLUMN IF NOT EXISTS``)."""
    fingerprint = sql_fingerprint()
    if migrations.is_up_to_date(con, fingerprint):
        return []
    with transaction(con):
        is_new, pending = migrations.upgrade(con)
        _insert(con, f"INSERT INTO {_check('schema_migrations')}", migrations.records(pending, is_new))
    migrations.create_views(con, fingerprint)
    return [] if is_new else [p.stem for p in pending]


def connect_league_store(path: Path) -> duckdb.DuckDBPyConnection:
    """A read-write connection to a league's shared Lichess store (sql/league: its tables, created
    if missing). The caller holds the store's lock (``pipeline.lichess.league_cache``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(path), config=LIMITS)
    for file in league_schema_files():
        con.execute(file.read_text(encoding="utf-8"))
    return con


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
            return duckdb.connect(str(path), read_only=True, config=LIMITS)
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


Rows: TypeAlias = Sequence[Any] | pl.DataFrame | pa.Table
"""Rows to write: dataclass instances or dicts, a polars frame, or an Arrow table (registered as it
is: built by column from Python values, it skips polars' conversion to Arrow)."""


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
    if any(not _FLAT.issuperset(map(type, values)) for values in columns.values()):  # a set's check runs in C
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


def upsert(con: duckdb.DuckDBPyConnection, table: str, rows: Rows) -> int:
    """Insert rows, replacing those with the same primary key; columns matched by name."""
    return _insert(con, f"INSERT OR REPLACE INTO {_check(table)}", rows)


def insert(con: duckdb.DuckDBPyConnection, table: str, rows: Rows) -> int:
    """Insert rows none of whose primary keys is stored (one that is raises a constraint error):
    about half of :func:`upsert`'s time, which looks up every key to replace its row."""
    return _insert(con, f"INSERT INTO {_check(table)}", rows)


def _insert(con: duckdb.DuckDBPyConnection, verb: str, rows: Rows) -> int:
    """`verb` (INSERT [OR REPLACE] INTO a checked table) the rows, columns matched by name."""
    df = rows if isinstance(rows, pa.Table) else _frame(rows)
    height = df.num_rows if isinstance(df, pa.Table) else df.height
    if height == 0:
        return 0
    con.register("_batch", df)
    try:
        con.execute(f"{verb} BY NAME SELECT * FROM _batch")
    finally:
        con.unregister("_batch")
    return height


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
    con = duckdb.connect(config=LIMITS)
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
