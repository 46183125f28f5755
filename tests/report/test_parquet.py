"""games.parquet (docs/td-guide.md, Games as Parquet): the tournament's games in the Lichess open
database's Parquet schema plus the tournament's keys, one row per `match_games` row.

On the hand-made skeleton (tests/data/skeleton: 4 teams of 2 boards, 2 Swiss rounds, 37 games of
which 35 are between paired players in or near a window), ingested, scored and exported once. The
schema is spelled out here from the card of Lichess's own Parquet of rated antichess games
(huggingface.co/datasets/Lichess/antichess-chess-games: Event … movetext as string, the ratings
and rating changes int16, UTCDate date32, UTCTime time32[s]), not read from the code; the values
from the skeleton's games.ndjson and make_dataset.py's table.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kits.skeleton_kit import ROOT, SKELETON, copy_skeleton, run_skeleton
from pipeline.domain import open_database
from pipeline.lichess.client import parse_game
from pipeline.stages import export

LICHESS = [
    ("Event", pa.string()),
    ("Site", pa.string()),
    ("White", pa.string()),
    ("Black", pa.string()),
    ("Result", pa.string()),
    ("WhiteTitle", pa.string()),
    ("BlackTitle", pa.string()),
    ("WhiteElo", pa.int16()),
    ("BlackElo", pa.int16()),
    ("WhiteRatingDiff", pa.int16()),
    ("BlackRatingDiff", pa.int16()),
    ("UTCDate", pa.date32()),
    ("UTCTime", pa.time32("s")),
    ("Termination", pa.string()),
    ("TimeControl", pa.string()),
    ("movetext", pa.string()),
]
KEYS = [
    ("stage", pa.string()),
    ("round", pa.int32()),
    ("match", pa.string()),
    ("board", pa.int32()),
    ("part", pa.string()),
    ("counted", pa.bool_()),
    ("reason", pa.string()),
]
# as DuckDB and polars name the same types
DUCKDB_TYPES = {
    pa.string(): "VARCHAR",
    pa.int16(): "SMALLINT",
    pa.int32(): "INTEGER",
    pa.date32(): "DATE",
    pa.time32("s"): "TIME",
    pa.bool_(): "BOOLEAN",
}
POLARS_TYPES = {
    pa.string(): pl.String,
    pa.int16(): pl.Int16,
    pa.int32(): pl.Int32,
    pa.date32(): pl.Date,
    pa.time32("s"): pl.Time,
    pa.bool_(): pl.Boolean,
}


# Parquet has no time unit of seconds: a time32[s] column is stored as TIME(MILLIS), in Lichess's
# files as in ours, and pyarrow reads it back as time32[ms]
READ_BACK = {pa.time32("s"): pa.time32("ms")}


def schema_problems(path: Path) -> list[str]:
    """What differs between the file's columns and the contract's (names, order, types), as read
    by pyarrow, DuckDB and polars; empty when it holds."""
    want = LICHESS + KEYS
    problems = []
    got_arrow = [(f.name, f.type) for f in pq.read_schema(path)]
    if got_arrow != [(n, READ_BACK.get(t, t)) for n, t in want]:
        problems.append(f"arrow: {got_arrow}")
    got_duckdb = duckdb.sql("DESCRIBE SELECT * FROM read_parquet($p)", params={"p": str(path)}).fetchall()
    if [(r[0], r[1]) for r in got_duckdb] != [(n, DUCKDB_TYPES[t]) for n, t in want]:
        problems.append(f"duckdb: {[(r[0], r[1]) for r in got_duckdb]}")
    got_polars = list(pl.read_parquet_schema(path).items())
    if got_polars != [(n, POLARS_TYPES[t]) for n, t in want]:
        problems.append(f"polars: {got_polars}")
    return problems


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, list[Path]]:
    return run_skeleton(copy_skeleton(tmp_path_factory.mktemp("parquet")))


@pytest.fixture(scope="module")
def games(exported: tuple[Any, list[Path]]) -> Path:
    cfg, written = exported
    path = cfg.paths.exports / "games.parquet"
    assert path in written
    return path


def test_the_columns_are_lichess_open_database_s_then_the_keys(games: Path) -> None:
    """Parquet contract: Event … movetext with the types of Lichess's own Parquet, then stage,
    round, match, board, part, counted, reason; the same in pyarrow, DuckDB and polars. UTCTime
    is a Parquet TIME in milliseconds, not adjusted to UTC (a wall-clock time of the UTC day)."""
    assert schema_problems(games) == []
    column = pq.ParquetFile(games).schema.column(12)
    assert (column.name, str(column.logical_type)) == (
        "UTCTime",
        "Time(isAdjustedToUTC=false, timeUnit=milliseconds)",
    )


def test_a_missing_or_mistyped_column_is_caught(games: Path, tmp_path: Path) -> None:
    """The schema check fails a file without WhiteTitle, and one with WhiteElo as int64."""
    table = pq.read_table(games)
    pq.write_table(table.drop_columns(["WhiteTitle"]), tmp_path / "missing.parquet")
    i = table.schema.get_field_index("WhiteElo")
    pq.write_table(table.set_column(i, "WhiteElo", table["WhiteElo"].cast(pa.int64())), tmp_path / "wide.parquet")
    assert len(schema_problems(tmp_path / "missing.parquet")) == 3
    assert len(schema_problems(tmp_path / "wide.parquet")) == 3


def test_one_row_per_match_games_row_with_its_keys(exported: tuple[Any, list[Path]], games: Path) -> None:
    """Parquet contract: the rows are match_games' (every game between paired players in or near a
    window, counted or not, with the reason), match as "<entrant a> - <entrant b>"; read in DuckDB
    beside the published snapshot, and in polars."""
    cfg, _ = exported
    con = duckdb.connect()
    con.execute(f"ATTACH '{cfg.paths.database}' AS snap (READ_ONLY)")
    ours = con.execute(
        "SELECT stage, round, match, board, part, counted, reason, replace(Site, 'https://lichess.org/', '') "
        "FROM read_parquet($p)",
        {"p": str(games)},
    ).fetchall()
    view = con.execute(
        "SELECT stage, round, entrant_a || ' - ' || entrant_b, board, part, counted, reason, game_id FROM snap.match_games"
    ).fetchall()
    assert len(ours) == len(view) == 35
    assert Counter(ours) == Counter(view)
    assert pl.read_parquet(games).height == 35
    assert {r[2] for r in ours} == {"Alphas - Betas", "Gammas - Deltas", "Alphas - Gammas", "Betas - Deltas"}
    assert {r[6] for r in ours if not r[5]} == {"wrong_time_control", "not_antichess", "extra_game", "outside_window"}


def skeleton_game(game_id: str) -> dict[str, Any]:
    for line in (SKELETON / "lichess" / "games.ndjson").read_text(encoding="utf-8").splitlines():
        g = json.loads(line)
        if g["id"] == game_id:
            return dict(g)
    raise AssertionError(game_id)


def test_values_as_lichess_writes_them(games: Path) -> None:
    """By hand from make_dataset.py's table: R1ab1g01 Alice (white) beat Bob on 2026-03-04 at
    18:00 in a 0+2 game by resignation; R1ab1g02 Bob (white) lost on time to Alice at 18:05;
    R1ab2g02 Bea-Amir a draw; R1ab1x05 a 3+0 game that does not count (wrong_time_control)."""
    rows = {r["Site"].rsplit("/", 1)[1]: r for r in pl.read_parquet(games).to_dicts()}
    g1 = rows["R1ab1g01"]
    assert {k: g1[k] for k in ("Event", "Site", "White", "Black", "Result", "Termination", "TimeControl")} == {
        "Event": "Rated Antichess game",
        "Site": "https://lichess.org/R1ab1g01",
        "White": "Alice",
        "Black": "Bob",
        "Result": "1-0",
        "Termination": "Normal",
        "TimeControl": "0+2",
    }
    assert (g1["UTCDate"], g1["UTCTime"]) == (dt.date(2026, 3, 4), dt.time(18, 0, 0))
    assert (g1["WhiteElo"], g1["BlackElo"], g1["WhiteRatingDiff"], g1["WhiteTitle"]) == (2100, 2080, 9, None)
    assert (g1["stage"], g1["round"], g1["match"], g1["board"], g1["part"], g1["counted"], g1["reason"]) == (
        "swiss",
        1,
        "Alphas - Betas",
        1,
        "0+2",
        True,
        "counted",
    )
    flag = rows["R1ab1g02"]
    assert (flag["White"], flag["Result"], flag["Termination"], flag["UTCTime"]) == (
        "Bob",
        "0-1",
        "Time forfeit",
        dt.time(18, 5, 0),
    )
    assert (rows["R1ab2g02"]["Result"], rows["R1ab2g02"]["Termination"]) == ("1/2-1/2", "Normal")
    extra = rows["R1ab1x05"]
    assert (extra["TimeControl"], extra["part"], extra["counted"], extra["reason"]) == (
        "180+0",
        None,
        False,
        "wrong_time_control",
    )
    # the movetext on one line: the JSON's moves numbered, then the result
    for gid, row in rows.items():
        words = row["movetext"].split()
        assert "\n" not in row["movetext"] and words[-1] == row["Result"]
        assert [w for w in words[:-1] if not w.endswith(".")] == skeleton_game(gid)["moves"].split()


def test_the_same_data_gives_the_same_bytes(exported: tuple[Any, list[Path]], games: Path) -> None:
    """Determinism: an export again writes the same bytes; the metadata holds the Arrow schema and
    pyarrow's version string, no time stamp."""
    cfg, _ = exported
    before = games.read_bytes()
    export.export_stage(cfg)
    assert games.read_bytes() == before
    meta = pq.read_metadata(games)
    assert set(meta.metadata) == {b"ARROW:schema"}
    assert meta.created_by.startswith("parquet-cpp-arrow version ")


def docs_query() -> str:
    """The SQL of the TD guide's Games as Parquet example (its Python block reading games.parquet
    beside Lichess's files on Hugging Face)."""
    text = (ROOT / "docs" / "td-guide.md").read_text(encoding="utf-8")
    [block] = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "games.parquet" in b and "hf://" in b]
    found = re.search(r'duckdb\.sql\("""(.*?)"""\)', block, re.S)
    assert found is not None
    return found.group(1)


def test_the_docs_query_joins_ours_with_a_month_of_lichess_s(games: Path, tmp_path: Path) -> None:
    """The TD guide's join, run on a local stand-in for a month of Lichess's files (the skeleton's
    rated antichess games of March 2026, in the 16 columns): Swiss round 1's eight players and each
    of their games that month not in round 1 (by hand: every game but Early001, of February, the
    casual R1ab1s06 and the round-1 games R1*), once per player of it."""
    lichess = [
        parse_game(g)
        for g in map(json.loads, (SKELETON / "lichess" / "games.ndjson").read_text(encoding="utf-8").splitlines())
    ]
    month = [
        open_database.game_columns(dataclasses.asdict(g))
        for g in lichess
        if g.rated and g.variant == "antichess" and g.created_at.month == 3
    ]
    local = tmp_path / "train-00000-of-00001.parquet"
    pq.write_table(pa.Table.from_pylist(month, schema=pa.schema(LICHESS)), local)
    sql = docs_query()
    hf = re.search(r"'hf://[^']*'", sql)
    assert hf is not None and "'out/exports/games.parquet'" in sql
    sql = sql.replace(hf.group(0), f"'{local}'").replace("'out/exports/games.parquet'", f"'{games}'")
    rows = duckdb.sql(sql).fetchall()
    others = {g.game_id for g in lichess if g.rated and g.created_at.month == 3 and not g.game_id.startswith("R1")}
    assert len(others) == 17
    assert Counter(r[1].rsplit("/", 1)[1] for r in rows) == dict.fromkeys(others, 2)
    assert all(player in (white, black) for player, _, white, black, *_ in rows)
    assert {r[0] for r in rows} == {"Alice", "Amir", "Bob", "Bea", "Gus", "Gia", "Dan", "Dee"}


def test_before_any_game_the_file_has_the_columns_and_no_rows(tmp_path: Path) -> None:
    """Written always: before the first scored game it holds the schema and no rows, so a script
    reading it every night never meets a missing file."""
    from pipeline.report.parquet import write_games_parquet

    path = tmp_path / "games.parquet"
    assert write_games_parquet(path, []) == 0
    assert schema_problems(path) == []
    assert duckdb.sql("SELECT count(*) FROM read_parquet($p)", params={"p": str(path)}).fetchall() == [(0,)]
