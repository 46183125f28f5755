"""The DuckDB adapter: the only module that opens DuckDB connections.

SQL lives under ``sql/`` (``schema/`` tables, ``views/`` the contract views, ``queries/`` what the
pipeline reads); this module loads it by name, binds every value as a parameter, and moves
rows in and out as polars frames (through Arrow). Table names are never taken from input:
:data:`WRITABLE` is the closed set of tables the pipeline writes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

SQL_DIR = Path(__file__).resolve().parent.parent / "sql"

WRITABLE = frozenset({
    "raw_users", "raw_rating_histories", "raw_games", "rejected_records", "ingest_cursors",
    "lichess_users", "lichess_rating_points", "lichess_games",
    "td_members", "td_pairings", "td_byes",
    "scored_match_games", "scored_board_results", "scored_team_matches", "scored_standings",
    "game_verdicts", "td_overrides", "rating_estimates", "scored_rounds",
    "pipeline_runs",
})
_FLAT = frozenset({str, int, float, bool, type(None), dt.datetime, dt.date})   # values asdict would only copy

# The published snapshot's storage format: readable by every DuckDB since 1.0 (the `duckdb-cli`
# package on PyPI is 1.5; a DuckDB 2.0 file is not readable before 2.0).
SNAPSHOT_STORAGE_VERSION = "v1.0.0"


@cache
def sql(name: str) -> str:
    """The text of ``sql/<name>.sql`` (e.g. ``queries/candidate_games``)."""
    path = SQL_DIR / f"{name}.sql"
    return path.read_text(encoding="utf-8")


def migrate(con: duckdb.DuckDBPyConnection) -> None:
    """Create every table (sql/schema, in file order) and every view (sql/views)."""
    for folder in ("schema", "views"):
        for path in sorted((SQL_DIR / folder).glob("*.sql")):
            con.execute(path.read_text(encoding="utf-8"))


def connect(path: Path | str, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    path = Path(path)
    if read_only:
        return duckdb.connect(str(path), read_only=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(path))
    migrate(con)
    return con


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


def _frame(rows: Sequence[Any] | pl.DataFrame) -> pl.DataFrame:
    if isinstance(rows, pl.DataFrame):
        return rows
    dicts = [_row(r) for r in rows]
    return pl.DataFrame(dicts, infer_schema_length=None)


def _row(r: Any) -> dict[str, Any]:
    """A row as a dict: dataclasses.asdict for dataclasses, without its deep copy when every
    field holds a plain value (the pipeline's rows; asdict costs ~10 µs a row)."""
    if not dataclasses.is_dataclass(r):
        return dict(r)
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
    df = _frame(rows)
    if df.height == 0:
        return 0
    con.register("_batch", df)
    try:
        con.execute(f"INSERT OR REPLACE INTO {_check(table)} BY NAME SELECT * FROM _batch")
    finally:
        con.unregister("_batch")
    return df.height


def replace_where(con: duckdb.DuckDBPyConnection, table: str, where: dict[str, Any],
                  rows: Sequence[Any] | pl.DataFrame) -> int:
    """Delete the rows matching ``where`` (column = value, bound) and insert ``rows`` instead."""
    cond = " AND ".join(f"{_column(c)} = ?" for c in where) or "TRUE"
    con.execute(f"DELETE FROM {_check(table)} WHERE {cond}", list(where.values()))
    df = _frame(rows)
    if df.height == 0:
        return 0
    con.register("_batch", df)
    try:
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _batch")
    finally:
        con.unregister("_batch")
    return df.height


def replace_rounds(con: duckdb.DuckDBPyConnection, table: str, stage: str, rounds: Sequence[int],
                   rows: Sequence[Any] | pl.DataFrame) -> int:
    """Delete the rows of `stage` whose round is in `rounds` and insert ``rows`` instead."""
    con.execute(f"DELETE FROM {_check(table)} WHERE stage = ? AND round IN (SELECT unnest(?::INTEGER[]))",
                [stage, list(rounds)])
    df = _frame(rows)
    if df.height == 0:
        return 0
    con.register("_batch", df)
    try:
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _batch")
    finally:
        con.unregister("_batch")
    return df.height


def query_with(con: duckdb.DuckDBPyConnection, name: str, frames: dict[str, pl.DataFrame],
               params: Sequence[Any] | dict[str, Any] = ()) -> pl.DataFrame:
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


def copy_database(src: Path, dst: Path, storage_version: str | None = SNAPSHOT_STORAGE_VERSION) -> None:
    """Write a complete, self-contained copy of the database ``src`` to the new file ``dst``: every
    schema, table (with its constraints), view, macro and sequence, whatever they are
    (``COPY FROM DATABASE``). Views keep their unqualified SQL, so they resolve inside ``dst``.
    ``src`` is attached read-only; no other connection of this process may hold it read-write."""
    if dst.exists():
        raise FileExistsError(f"{dst}: expected a new file")
    con = duckdb.connect()
    try:
        con.execute("ATTACH ? AS copy_src (READ_ONLY)", [str(src)])
        if storage_version is None:
            con.execute("ATTACH ? AS copy_dst", [str(dst)])
        else:
            con.execute("ATTACH ? AS copy_dst (STORAGE_VERSION ?)", [str(dst), storage_version])
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


def _quoted(name: str) -> str:
    """A catalog name (read from duckdb_views(), never from input) as a quoted identifier."""
    return '"' + name.replace('"', '""') + '"'
