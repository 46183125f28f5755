"""How the gateway turns the pipeline's rows into a frame before writing them
(pipeline/store/gateway.py ``_frame``): dataclass rows of one kind holding plain values are read
column by column, and give exactly the frame (values and types) that reading them one dict at a
time gives; any other rows (mixed kinds, nested values, dicts) take the per-row path. And
``replace_all``, which writes a table only when its rows differ from those given."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import duckdb
import polars as pl
import pytest

from pipeline.store import gateway

UTC = dt.UTC


@dataclasses.dataclass
class Row:
    name: str | None
    n: int | None
    x: float | int | None  # an int in one row and a float in another: the column is Float64
    ok: bool | None
    at: dt.datetime | None
    day: dt.date | None


@dataclasses.dataclass
class Other:
    name: str


@dataclasses.dataclass
class Nested:
    name: str
    inner: Other


ROWS = [
    Row("a", 1, 2, True, dt.datetime(2026, 3, 1, 10, tzinfo=UTC), dt.date(2026, 3, 1)),
    Row(None, None, 2.5, None, None, None),
    Row("c", 3, None, False, dt.datetime(2026, 3, 2, 11, 30, tzinfo=UTC), None),
]


def by_rows(rows: list[object]) -> pl.DataFrame:
    return pl.DataFrame([dataclasses.asdict(r) for r in rows], infer_schema_length=None)  # type: ignore[call-overload]


def test_rows_of_one_dataclass_are_read_by_column_into_the_same_frame() -> None:
    assert gateway._columns(ROWS) is not None  # the column path is the one taken
    got = gateway._frame(ROWS)
    assert got.schema == by_rows(ROWS).schema
    assert got.equals(by_rows(ROWS))
    assert got.schema["x"] == pl.Float64 and got["x"].to_list() == [2.0, 2.5, None]


def test_other_rows_take_the_per_row_path() -> None:
    mixed = [Row("a", 1, 1.0, True, None, None), Other("b")]
    nested = [Nested("a", Other("b"))]
    assert gateway._columns(mixed) is None
    assert gateway._columns(nested) is None
    assert gateway._columns([{"name": "a"}]) is None
    assert gateway._columns([]) is None
    assert gateway._frame(nested).to_dicts() == [{"name": "a", "inner": {"name": "b"}}]
    assert gateway._frame([{"name": "a"}, {"name": None}])["name"].to_list() == ["a", None]


# --------------------------------------------------------------------------- replace_all


def td_pairing(rnd: int, a: str, start: dt.datetime) -> dict[str, object]:
    return {
        "stage": "swiss",
        "round": rnd,
        "entrant_a": a,
        "entrant_b": "z",
        "window_start": start,
        "window_end": start + dt.timedelta(days=7),
    }


def test_replace_all_writes_only_what_differs(tmp_path: Path) -> None:
    """Each stage of a run writes the TD's files into the td_* tables; a table that already holds
    exactly those rows (in any order) is left alone, and any difference (a value, a row more or
    less) is written."""
    con = gateway.connect(tmp_path / "t.duckdb")
    start = dt.datetime(2026, 11, 3, tzinfo=UTC)
    rows = [td_pairing(1, "a", start), td_pairing(2, "b", start + dt.timedelta(days=7))]

    def stored() -> list[tuple[object, ...]]:
        return con.sql("SELECT round, entrant_a, window_start FROM td_pairings ORDER BY ALL").fetchall()

    with gateway.transaction(con):
        assert gateway.replace_all(con, "td_pairings", []) is False  # empty and empty
        assert gateway.replace_all(con, "td_pairings", rows) is True
    with gateway.transaction(con):
        assert gateway.replace_all(con, "td_pairings", rows[::-1]) is False
    changed = [rows[0], {**rows[1], "window_start": start + dt.timedelta(days=8)}]
    for other in (changed, rows[:1], [*rows, td_pairing(3, "c", start)], []):
        with gateway.transaction(con):
            assert gateway.replace_all(con, "td_pairings", other) is True
        assert stored() == sorted((r["round"], r["entrant_a"], r["window_start"]) for r in other)
        with gateway.transaction(con):
            assert gateway.replace_all(con, "td_pairings", rows) is True
        assert stored() == sorted((r["round"], r["entrant_a"], r["window_start"]) for r in rows)


def test_insert_adds_new_keys_and_refuses_a_stored_one(tmp_path: Path) -> None:
    """``insert`` (the backfill's path for games no table holds) adds rows whose keys are new and
    raises on a stored key, where ``upsert`` replaces that row; nothing of a refused insert stays."""
    con = gateway.connect(tmp_path / "t.duckdb")
    at = dt.datetime(2026, 11, 3, tzinfo=UTC)

    def raw(gid: str, payload: str) -> dict[str, object]:
        return {"game_id": gid, "payload": payload, "fetched_at": at, "source": "dump"}

    assert gateway.insert(con, "raw_games", [raw("g1", '"a"'), raw("g2", '"b"')]) == 2
    with pytest.raises(duckdb.Error):  # the duplicate key (DuckDB then reports the aborted transaction)
        with gateway.transaction(con):
            gateway.insert(con, "raw_games", [raw("g3", '"c"'), raw("g1", '"new"')])
    gateway.upsert(con, "raw_games", [raw("g1", '"new"')])
    assert con.sql("SELECT game_id, payload FROM raw_games ORDER BY 1").fetchall() == [("g1", '"new"'), ("g2", '"b"')]
