"""Bringing a database up to date with ``sql/``, in the steps :func:`pipeline.store.gateway.migrate`
runs: whether it already is (:func:`is_up_to_date`), the CREATE of every table it lacks and the
migrations it has not run (:func:`upgrade`, inside the caller's transaction), and every view
created again in the order their dependencies give (:func:`create_views`).
"""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path
from typing import Any

import duckdb

from pipeline.store import view_graph
from pipeline.store.findings_view import audit_findings_sql
from pipeline.store.sql_files import migration_files, schema_files, sql

log = logging.getLogger(__name__)


def is_up_to_date(con: duckdb.DuckDBPyConnection, fingerprint: str) -> bool:
    """Whether the database was last brought up to date by the SQL files of `fingerprint`: it is
    kept as the comment of the audit_findings view, which :func:`create_views` creates last."""
    return con.execute(sql("queries/schema_fingerprint"), ["audit_findings"]).fetchall() == [(fingerprint,)]


def upgrade(con: duckdb.DuckDBPyConnection) -> tuple[bool, list[Path]]:
    """The CREATE of every table the database lacks (sql/schema, in file order), then each
    migration (sql/migrations, in file order) not yet in ``schema_migrations``; a database with no
    tables yet is created final and runs none. Returns whether it was new and the migrations not
    yet recorded (the caller records them, in the same transaction)."""
    is_new = not con.execute(sql("queries/table_columns")).fetchall()
    for path in schema_files():
        con.execute(path.read_text(encoding="utf-8"))
    recorded = {m for (m,) in con.execute(sql("queries/schema_migrations")).fetchall()}
    pending = [p for p in migration_files() if p.stem not in recorded]
    if not is_new:
        for path in pending:
            con.execute(path.read_text(encoding="utf-8"))
            log.info("database upgraded: sql/migrations/%s applied", path.name)
    return is_new, pending


def records(pending: list[Path], is_new: bool) -> list[dict[str, Any]]:
    """The ``schema_migrations`` rows of `pending`: 'created' in a new database, else 'applied'."""
    at = dt.datetime.now(dt.UTC)
    how = "created" if is_new else "applied"
    return [{"migration": p.stem, "how": how, "applied_at": at} for p in pending]


def create_views(con: duckdb.DuckDBPyConnection, fingerprint: str) -> None:
    """(Re)create every view of sql/views, then audit_findings over sql/audits, whose comment
    becomes `fingerprint`. All are dropped first, so none binds to an older version of another;
    each is then created after the views it reads (:func:`view_graph.creation_order`)."""
    read = view_graph.reads(con)
    tables = frozenset(t for (t, _) in con.execute(sql("queries/table_columns")).fetchall())
    order = view_graph.creation_order(read, tables)
    for name in ["audit_findings", *sorted(read)]:
        con.execute(f"DROP VIEW IF EXISTS {name}")  # identifiers: view_graph checked the file names
    texts = view_graph.view_texts()
    for name in order:
        try:
            con.execute(texts[name])
        except duckdb.Error as e:
            raise RuntimeError(f"sql/views/{name}.sql: {e}") from e
    con.execute(audit_findings_sql())
    con.execute(f"COMMENT ON VIEW audit_findings IS '{fingerprint}'")  # hex digits: DDL takes no bound value
