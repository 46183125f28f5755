"""games.parquet: the tournament's games in the Lichess open database's Parquet schema, plus the
tournament's keys (docs/td-guide.md, Games as Parquet).

The first sixteen columns have the names, order and Arrow types of Lichess's own published
Parquet of rated antichess games (the Hugging Face dataset ``Lichess/antichess-chess-games``,
whose card lists them: strings, ``int16`` ratings and rating changes, ``date32`` UTCDate,
``time32[s]`` UTCTime), so one query reads both; the keys follow: ``stage, round, match, board,
part, counted, reason`` as the ``match_games`` view holds them. One row per ``match_games`` row.

Written with pyarrow (polars has no ``time32[s]``). Parquet has no time unit of seconds, so
UTCTime is stored as a TIME in milliseconds (not adjusted to UTC), as in Lichess's files; readers
see ``time32[ms]`` (pyarrow), ``TIME`` (DuckDB), ``Time`` (polars). The file's metadata holds
pyarrow's ``created_by`` string and the Arrow schema, no time stamp, so the same rows give the
same bytes.
Replaced whole (temp file + rename) like every export.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.domain.open_database import game_columns
from pipeline.report.exports import write_bytes

LICHESS_FIELDS = [
    pa.field("Event", pa.string()),
    pa.field("Site", pa.string()),
    pa.field("White", pa.string()),
    pa.field("Black", pa.string()),
    pa.field("Result", pa.string()),
    pa.field("WhiteTitle", pa.string()),
    pa.field("BlackTitle", pa.string()),
    pa.field("WhiteElo", pa.int16()),
    pa.field("BlackElo", pa.int16()),
    pa.field("WhiteRatingDiff", pa.int16()),
    pa.field("BlackRatingDiff", pa.int16()),
    pa.field("UTCDate", pa.date32()),
    pa.field("UTCTime", pa.time32("s")),
    pa.field("Termination", pa.string()),
    pa.field("TimeControl", pa.string()),
    pa.field("movetext", pa.string()),
]
KEY_FIELDS = [
    pa.field("stage", pa.string()),
    pa.field("round", pa.int32()),
    pa.field("match", pa.string()),
    pa.field("board", pa.int32()),
    pa.field("part", pa.string()),
    pa.field("counted", pa.bool_()),
    pa.field("reason", pa.string()),
]
SCHEMA = pa.schema(LICHESS_FIELDS + KEY_FIELDS)
KEYS = tuple(f.name for f in KEY_FIELDS)


def games_table(rows: Iterable[Mapping[str, Any]]) -> pa.Table:
    """The table of ``rows`` (sql/queries/games_parquet.sql's): each game's open-database columns,
    then its keys."""
    records = [{**game_columns(row), **{k: row[k] for k in KEYS}} for row in rows]
    return pa.Table.from_pylist(records, schema=SCHEMA)


def write_games_parquet(path: Path, rows: Iterable[Mapping[str, Any]]) -> int:
    """Write games.parquet atomically; returns the number of rows."""
    table = games_table(rows)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    write_bytes(path, sink.getvalue().to_pybytes())
    return table.num_rows
