"""Each view's grain is unique on the demo, as dbt's `unique` tests check a model: the header of
every sql/views file states its grain ("one row per ...") and declares the columns that tell its
rows apart (``-- key: a, b``, read by ``view_graph.keys``); on both published databases of the
suite's demo (team and ACWC, the `audited` fixture, built once per run) no two rows share a key."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from pipeline.store import sql_files, view_graph

VIEWS = [p.stem for p in sql_files.view_files()]


def duplicate_keys(con: duckdb.DuckDBPyConnection, relation: str, key: tuple[str, ...]) -> list[tuple[object, ...]]:
    """Up to five keys that more than one row of `relation` (a view's name or a parenthesised
    SELECT) holds, with their row count; NULLs count as equal, as GROUP BY groups them."""
    cols = ", ".join(key)
    return con.sql(
        f"SELECT {cols}, count(*) AS n FROM {relation} AS r GROUP BY ALL HAVING count(*) > 1 ORDER BY n DESC LIMIT 5"
    ).fetchall()


@pytest.mark.parametrize("view", VIEWS)
def test_each_view_states_its_grain_and_declares_its_key(view: str) -> None:
    text = view_graph.view_texts()[view]
    assert re.match(rf"-- {view}: one row per ", text), (
        f"sql/views/{view}.sql: the header's first line states the grain"
    )
    assert view_graph.keys().get(view), f"sql/views/{view}.sql: no `-- key: <columns>` line in its header"


@pytest.mark.parametrize("view", VIEWS)
def test_each_view_grain_is_unique_on_the_demo(view: str, audited: dict[str, Path]) -> None:
    key = view_graph.keys()[view]
    for event, db in sorted(audited.items()):
        con = duckdb.connect(str(db), read_only=True)
        try:
            assert duplicate_keys(con, view, key) == [], f"{event}: {view} has more than one row per ({', '.join(key)})"
        finally:
            con.close()


def test_a_planted_duplicate_is_found() -> None:
    """The check finds a key two rows share, NULL keys included, and nothing in unique rows."""
    con = duckdb.connect()
    try:
        con.execute("CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a', 10), (1, 'b', 11), (2, NULL, 12)) v(k1, k2, x)")
        assert duplicate_keys(con, "t", ("k1", "k2")) == []
        con.execute("INSERT INTO t VALUES (1, 'a', 13), (2, NULL, 14)")
        assert sorted(duplicate_keys(con, "t", ("k1", "k2")), key=str) == [(1, "a", 2), (2, None, 2)]
        assert duplicate_keys(con, "(SELECT k1 FROM t)", ("k1",)) == [(1, 3), (2, 2)]
    finally:
        con.close()
