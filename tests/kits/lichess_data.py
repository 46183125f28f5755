"""Writing small Lichess datasets (the dataset format of docs/ingestion.md) for tests, and reading
back what an ingest stored (:func:`stored_rows`)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import duckdb


def write_dataset(
    folder: Path, users: list[dict[str, Any]], games: list[dict[str, Any]], histories: dict[str, Any]
) -> Path:
    """users.ndjson, games.ndjson and rating-history/<id>.json under `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "users.ndjson").write_text("".join(json.dumps(u) + "\n" for u in users), encoding="utf-8")
    (folder / "games.ndjson").write_text("".join(json.dumps(g) + "\n" for g in games), encoding="utf-8")
    (folder / "rating-history").mkdir(exist_ok=True)
    for uid, hist in histories.items():
        (folder / "rating-history" / f"{uid}.json").write_text(json.dumps(hist), encoding="utf-8")
    return folder


def stored_rows(db: Path, tables: Iterable[str]) -> dict[str, list[tuple]]:
    """Every row of each of `tables` in the database at `db`, sorted: two databases that stored
    the same data compare equal row for row."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {t: con.sql(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in tables}
    finally:
        con.close()
