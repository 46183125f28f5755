"""The backfill from Lichess open-database dumps (pipeline/lichess/dump_reader.py, pipeline/lichess/dump_backfill.py,
`antichess-td backfill`).

The demo's dumps are written from the small demo's own Lichess data (``write_dumps_of`` over its
games.ndjson: every month from its first game to 2026-10, ten games of unregistered players per
game of the demo's world); small hand-written dumps test one quirk each. Real DuckDB files, the
real replay server on 127.0.0.1, the real CLI process.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import chess.variant
import duckdb
import pytest
import zstandard

from kits.demo_audit import audit_demo
from kits.lichess_data import write_dataset
from kits.skeleton_kit import cli
from pipeline.cli import console
from pipeline.inputs.config import load_config
from pipeline.lichess import (
    dump_backfill,
    dump_reader,
    dump_scan,
    dump_typing,
    game_streams,
    ingest_report,
    ingest_run,
    request_plan,
)
from pipeline.lichess.client import make_client, parse_game, to_ms
from pipeline.sim import replay
from pipeline.sim.season.dumps import write_dumps_of
from pipeline.store import gateway

UTC = dt.UTC
NOW = dt.datetime(2026, 11, 29, tzinfo=UTC)  # demo_audit's night
DUMPS_END = dt.datetime(2026, 11, 1, tzinfo=UTC)  # the demo's dumps: every complete month before its "now"
SEASON = "lichess_db_antichess_rated_2026-09.pgn.zst"  # the first month of the TEAM season's rounds


def _demo_games(demo: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (demo / "lichess" / "games.ndjson").open(encoding="utf-8")]


def _registered(demo: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (demo / "lichess" / "users.ndjson").open(encoding="utf-8")]


@pytest.fixture(scope="module")
def dumped(small_demo_source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the small demo with its dumps in lichess/dumps/ (read-only: tests copy it again)."""
    demo = tmp_path_factory.mktemp("dumped") / "demo"
    shutil.copytree(small_demo_source, demo, ignore=shutil.ignore_patterns("out"))
    users = _registered(demo)
    write_dumps_of(
        _demo_games(demo),
        [(u["id"], u["username"], u.get("title")) for u in users],
        DUMPS_END,
        demo / "lichess" / "dumps",
        seed=11,
    )
    return demo


def _dumps(demo: Path, before: str | None = None) -> list[Path]:
    paths = sorted((demo / "lichess" / "dumps").glob("*.pgn.zst"))
    return [p for p in paths if before is None or p.name < before]


def write_dump(folder: Path, month: str, text: str) -> Path:
    """A hand-written dump of ``month`` (YYYY-MM): the PGN text, zstd-compressed, named as Lichess names it."""
    path = folder / f"lichess_db_antichess_rated_{month}.pgn.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(text.encode()))
    return path


def dump_record(
    gid: str | None,
    white: str,
    black: str,
    *,
    when: str = "2026.07.10 12:00:00",
    result: str = "1-0",
    termination: str = "Normal",
    movetext: str = "1. e3 { [%clk 0:03:00] } 1... b5 { [%clk 0:03:00] } 2. Bxb5 { [%clk 0:02:58] }",
    event: str = "Rated Antichess game",
    titles: str = "",
) -> str:
    """One record as Lichess's dumps write it: tags in their order (Event, Site, Date, Round, White,
    Black, Result, UTCDate, UTCTime, WhiteElo, BlackElo, WhiteRatingDiff, BlackRatingDiff, [titles],
    TimeControl, Termination, Variant), no ECO (a variant has none), the movetext on one line
    ending with the result; ``movetext=""`` gives a game without moves (`` 0-1``, a leading space)."""
    date, time = when.split()
    site = f'[Site "https://lichess.org/{gid}"]\n' if gid else ""
    return (
        f'[Event "{event}"]\n{site}[Date "{date}"]\n[Round "-"]\n[White "{white}"]\n[Black "{black}"]\n'
        f'[Result "{result}"]\n[UTCDate "{date}"]\n[UTCTime "{time}"]\n[WhiteElo "1500"]\n[BlackElo "1600"]\n'
        f'[WhiteRatingDiff "+9"]\n[BlackRatingDiff "-9"]\n{titles}[TimeControl "180+0"]\n'
        f'[Termination "{termination}"]\n[Variant "Antichess"]\n\n{movetext} {result}\n\n'
    )


def _backfill(db: Path, paths: list[Path], players: list[str], since: dt.datetime | None) -> dump_backfill.DumpReport:
    con = gateway.connect(db)
    try:
        return dump_backfill.backfill(con, dump_reader.dump_files(paths), players, since, NOW)
    finally:
        con.close()


# --------------------------------------------------------------------------- the dump's rows


def _clock_budget(g: dict[str, Any]) -> int:
    """The most seconds both clocks can show between the first and the last move (each side's first
    move is not timed)."""
    plies = len(g["moves"].split()) if g.get("moves") else 0
    clock = g["clock"]
    return sum(clock["initial"] + clock["increment"] * max((plies + 1 - c) // 2 - 1, 0) for c in (0, 1))


def _won_by_stalemate(g: dict[str, Any]) -> bool:
    board = chess.variant.AntichessBoard()
    for san in g["moves"].split():
        board.push_san(san)
    return board.is_stalemate() and bool(board.occupied_co[board.turn])


def test_every_demo_game_in_the_dumps_types_as_the_api_types_it(dumped: Path) -> None:
    """Each game of the demo's world in its dumps gives the lichess_games row its JSON gives, column
    by column, but for what the dump cannot say: created_at and last_move_at have whole seconds;
    last_move_at comes from the clocks, so it is earlier where the demo's game lasted longer than
    its clocks could run (the demo's durations are not bound by the clock), and equal to the second
    elsewhere, except for a time forfeit whose duration is shorter than the flagged side's whole
    clock and games of fewer than three plies; a win by stalemate reads `resign` (the dump's
    Termination is Normal for both); the pgn column holds the dump's text. The dumps hold every
    finished rated antichess game of the world created before 2026-11 and no casual one."""
    api = {g["id"]: g for g in _demo_games(dumped)}
    wanted = frozenset(u["id"] for u in _registered(dumped))
    rows = {}
    counts = dump_reader.ScanCounts()
    for path in _dumps(dumped):
        for record in dump_reader.scan_dump(path, wanted, counts):
            row = dump_reader.parse_dump_game(record.decode())
            rows[row.game_id] = row
    expected = {
        gid
        for gid, g in api.items()
        if g["rated"] and g["variant"] == "antichess" and g["createdAt"] < to_ms(DUMPS_END)
    }
    assert set(rows) == expected and counts.matched == len(rows)
    assert counts.scanned == 11 * len(rows)  # ten games of unregistered players per game of the world
    later, stalemates = 0, 0
    for gid, row in rows.items():
        g = api[gid]
        want = parse_game(g)
        got = dataclasses.asdict(row)
        for column, value in dataclasses.asdict(want).items():
            if column in ("pgn", "last_move_at", "status"):
                continue
            if column == "created_at":
                value = value.replace(microsecond=0)
            assert got[column] == value, (gid, column)
        end = want.last_move_at.replace(microsecond=0)
        duration = (g["lastMoveAt"] - g["createdAt"]) // 1000
        plies = len(g["moves"].split())
        flagged_early = g["status"] == "outoftime" and row.last_move_at > end
        if duration > _clock_budget(g) or plies < 3:
            assert row.last_move_at < end, gid
            later += 1
        elif not flagged_early:
            assert row.last_move_at == end, gid
        if row.status != want.status:
            assert (row.status, want.status) == ("resign", "variantEnd") and _won_by_stalemate(g), gid
            stalemates += 1
        assert row.pgn is not None and row.pgn.startswith('[Event "Rated Antichess game"]\n[Site ')
    assert 0 < later < len(rows) and 0 < stalemates < len(rows)


def test_names_are_matched_as_lichess_ids_case_insensitively_and_whole(tmp_path: Path) -> None:
    """A registered id matches its username in any case; a name that only begins with it does not."""
    path = write_dump(
        tmp_path,
        "2026-07",
        dump_record("aaaaaaa1", "ALICE", "olga")
        + dump_record("aaaaaaa2", "olga", "aLiCe")
        + dump_record("aaaaaaa3", "Alice_2", "olga")
        + dump_record("aaaaaaa4", "olga", "Bob"),
    )
    counts = dump_reader.ScanCounts()
    ids = [
        dump_reader.parse_dump_game(r.decode()).game_id
        for r in dump_reader.scan_dump(path, frozenset({"alice"}), counts)
    ]
    assert ids == ["aaaaaaa1", "aaaaaaa2"]
    assert (counts.scanned, counts.matched) == (4, 2)


def test_the_header_filter_picks_whole_records_by_their_white_and_black_lines() -> None:
    """players_games: a record is picked when the line after its Event's starting ``[White "`` line
    (or the ``[Black "`` line right after it) names a key in any case, whole; the record comes back
    byte for byte, from its ``[Event`` line to the next one. A name a key only begins (or that only
    begins a key) does not match; ``[White "alice"]`` inside a comment is no header; a record
    whose White line is not closed names nobody; an earlier game with the same White but another
    Black is not taken for the later one, nor a rematch (the same names) for the first game; the
    last record may end the body without a newline."""
    keys = frozenset({b"alice", b"bob_2"})
    upper = dump_record("ccccccc1", "ALICE", "olga")
    prefixes = dump_record("ccccccc2", "Alic", "alice2") + dump_record("ccccccc3", "bob", "Bob_22")
    in_comment = dump_record(
        "ccccccc4", "olga", "ivan", movetext='1. e3 { [White "alice"] } 1... b5 { [%clk 0:03:00] }'
    )
    unclosed = dump_record("ccccccc5", "olga", "ivan").replace('[White "olga"]', '[White "alice]')
    same_white = dump_record("ccccccc6", "olga", "ivan")
    by_black = dump_record("ccccccc7", "olga", "bOb_2")
    rematch = dump_record("ccccccc8", "ALICE", "olga")
    last = dump_record("ccccccc9", "Alice", "ivan").rstrip("\n")
    body = upper + prefixes + in_comment + unclosed + same_white + by_black + rematch + last
    got = list(dump_reader.players_games(body.encode(), keys))
    assert got == [upper.encode(), by_black.encode(), rematch.encode(), last.encode()]
    # the same body between bounds: only the records inside them
    lo, hi = len(upper), len(body) - len(last)
    assert list(dump_reader.players_games(body.encode(), keys, lo, hi)) == [by_black.encode(), rematch.encode()]


@pytest.mark.parametrize("chunk", [7, 64, 300, 1021, 1 << 22])
def test_records_cut_between_reads_are_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    """scan_dump reads the stream in reads of CHUNK bytes: whatever the read size (smaller than a
    header line, than a record, or the whole file), every record comes back whole, once, and
    every game is counted once."""
    monkeypatch.setattr(dump_reader, "CHUNK", chunk)
    records = [
        dump_record(f"ddddddd{i}", white, black)
        for i, (white, black) in enumerate(
            [("Alice", "olga"), ("olga", "ivan"), ("ivan", "ALICE"), ("olga", "ivan"), ("alice", "ivan")]
        )
    ]
    path = write_dump(tmp_path, "2026-07", "".join(records))
    counts = dump_reader.ScanCounts()
    got = list(dump_reader.scan_dump(path, frozenset({"alice"}), counts))
    assert got == [records[0].encode(), records[2].encode(), records[4].encode()]
    assert (counts.scanned, counts.matched, counts.bytes) == (5, 3, len("".join(records).encode()))


@pytest.mark.parametrize(
    ("files", "load", "cores", "expected"),
    [
        (87, 0.3, 2, 2),  # nothing else runs: a worker a core
        (87, 1.4, 2, 2),  # this process (1) and a little more
        (87, 1.6, 2, 1),  # another job takes most of a core: read here
        (87, 4.0, 2, 1),
        (1, 0.0, 2, 1),  # one file: read here
        (3, 0.0, 8, 3),  # at most a worker a file
        (87, 3.0, 8, 6),
    ],
)
def test_the_workers_are_the_cores_other_work_leaves_free(files: int, load: float, cores: int, expected: int) -> None:
    """workers: the cores less the load average beyond this process's own 1, rounded, at most one a
    file; fewer than two is no pool (1)."""
    assert dump_scan.workers(files, load, cores) == expected


def test_files_read_by_worker_processes_give_what_each_file_gives_read_here(tmp_path: Path) -> None:
    """scan_files (one file per worker process) gives, in the files' order, what scan_file gives
    for each file read in this process: the counts, the typed games, the reason a game does not
    type, and a file whose zstd data stops decompressing."""
    good = write_dump(
        tmp_path, "2026-06", dump_record("eeeeeee1", "Alice", "olga") + dump_record("eeeeeee2", "ivan", "olga")
    )
    bad_move = dump_record("eeeeeee3", "olga", "alice", movetext="1. e3 { [%clk 0:03:00] } 1... Zz9 { [%clk 0:03:00] }")
    refused = write_dump(tmp_path, "2026-07", bad_move)
    damaged = write_dump(tmp_path, "2026-08", dump_record("eeeeeee4", "Alice", "olga") * 50)
    damaged.write_bytes(damaged.read_bytes()[:-12] + bytes(12))  # the frame's end overwritten
    paths = [good, refused, damaged]
    wanted = frozenset({"alice"})
    here = [dump_scan.scan_file(p, wanted) for p in paths]
    assert list(dump_scan.scan_files(paths, wanted, count=2)) == here
    assert [(s.name, s.scanned, s.matched) for s in here[:2]] == [(good.name, 2, 1), (refused.name, 1, 1)]
    first = dump_record("eeeeeee1", "Alice", "olga")
    assert here[0].games == [(first, dump_scan.row_values(dump_reader.parse_dump_game(first)))]
    assert here[1].games == [(bad_move, "PGN: move 2 'Zz9': not a move in SAN")]
    assert here[2].damaged is not None and here[:2] == [dataclasses.replace(s, damaged=None) for s in here[:2]]


# --------------------------------------------------------------------------- storing


def test_a_pgn_error_game_is_kept_in_rejected_records_with_its_reason(tmp_path: Path) -> None:
    """Of alice's three games, one has a move that is not SAN and one an unknown Termination: both
    are kept whole in rejected_records with the reason and queued in refetch_games (the cursor
    moves past July: only a fetch by id brings them in); matched = loaded + rejected."""
    bad_move = dump_record("bbbbbbb2", "Alice", "olga", movetext="1. e3 { [%clk 0:03:00] } 1... Zz9 { [%clk 0:03:00] }")
    bad_end = dump_record("bbbbbbb3", "olga", "Alice", termination="Exploded")
    path = write_dump(tmp_path, "2026-07", dump_record("bbbbbbb1", "Alice", "olga") + bad_move + bad_end)
    db = tmp_path / "t.duckdb"
    report = _backfill(db, [path], ["alice"], None)
    assert (report.scanned, report.matched, report.loaded, report.rejected, report.queued) == (3, 3, 1, 2, 2)
    name = "lichess_db_antichess_rated_2026-07.pgn.zst"
    queued = ": queued to be fetched by id from the API at the next ingest"
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.sql("SELECT source, record_key, reason, payload FROM rejected_records ORDER BY 2").fetchall() == [
            ("game", "bbbbbbb2", f"{name}: PGN: move 2 'Zz9': not a move in SAN{queued}", bad_move),
            (
                "game",
                "bbbbbbb3",
                f"{name}: Termination 'Exploded': expected Normal, Time forfeit, Abandoned, Rules infraction, "
                f"Unknown, Insufficient material or Unterminated{queued}",
                bad_end,
            ),
        ]
        assert con.sql("SELECT game_id, dump_file FROM refetch_games ORDER BY 1").fetchall() == [
            ("bbbbbbb2", name),
            ("bbbbbbb3", name),
        ]
        assert con.sql("SELECT game_id, source FROM raw_games").fetchall() == [("bbbbbbb1", "dump")]
        assert con.sql("SELECT game_id, status, winner, moves FROM lichess_games").fetchall() == [
            ("bbbbbbb1", "resign", "white", "e3 b5 Bxb5")
        ]
    finally:
        con.close()


def test_a_rerun_changes_nothing(dumped: Path, tmp_path: Path) -> None:
    """Backfilling the same months again stores the same rows (every table's checksum, fetch times
    left out) and counts every game as stored again."""
    db = tmp_path / "t.duckdb"
    paths = _dumps(dumped)[-4:-2]  # 2026-07, 2026-08
    players = [u["id"] for u in _registered(dumped)]
    first = _backfill(db, paths, players, None)
    con = gateway.connect(db)
    sums = gateway.table_checksums(con)
    con.close()
    again = _backfill(db, paths, players, None)
    con = gateway.connect(db)
    try:
        assert gateway.table_checksums(con) == sums
    finally:
        con.close()
    assert first.new == again.already_stored > 0
    assert (again.new, again.rejected, first.rejected) == (0, 0, 0)


def test_the_stored_rows_are_the_typed_rows_and_the_text_as_a_json_string(tmp_path: Path) -> None:
    """Each stored dump game's lichess_games row holds, column by column, the GameRow its record
    types into (times as UTC instants, NULL where it has no value), and its raw_games row the
    record's text as a JSON string (json.dumps: non-ASCII as \\u escapes), source 'dump'."""
    records = [
        dump_record("aaaaaaa1", "Alice", "Bob"),
        dump_record("aaaaaaa2", "bob", "Zoë", result="1/2-1/2", movetext="", termination="Abandoned"),
        dump_record("aaaaaaa3", "ALICE", "carl", result="0-1", termination="Time forfeit"),
    ]
    path = write_dump(tmp_path, "2026-07", "".join(records))
    db = tmp_path / "t.duckdb"
    report = _backfill(db, [path], ["alice", "bob"], None)
    assert (report.new, report.rejected) == (3, 0)
    con = gateway.connect(db)
    try:
        games = con.execute("SELECT * FROM lichess_games ORDER BY game_id").fetchall()
        raw = con.execute("SELECT game_id, payload, fetched_at, source FROM raw_games ORDER BY game_id").fetchall()
    finally:
        con.close()
    typed = [dump_reader.parse_dump_game(r) for r in records]
    assert games == [dataclasses.astuple(row) for row in typed]
    assert raw == [(row.game_id, json.dumps(r), NOW, "dump") for row, r in zip(typed, records, strict=True)]
    assert "\\u00eb" in raw[1][1] and typed[1].clock_initial_s == 180 and typed[1].winner is None


def test_the_api_row_replaces_the_dump_row_and_never_the_other_way_round(dumped: Path, tmp_path: Path) -> None:
    """A player's games of 2026-08 backfilled, then streamed from the API: the API's rows replace
    the dump's (source 'api', the JSON's row); backfilling the month again keeps them."""
    db = tmp_path / "t.duckdb"
    path = [p for p in _dumps(dumped) if p.name.endswith("2026-08.pgn.zst")]
    players = [u["id"] for u in _registered(dumped)]
    _backfill(db, path, players, None)
    con = gateway.connect(db)
    player = con.sql(
        "SELECT white_id FROM lichess_games WHERE white_id IN (SELECT unnest(?)) GROUP BY 1 ORDER BY count(*) DESC, 1",
        params=[players],
    ).fetchall()[0][0]
    august = [dt.datetime(2026, 8, 1, tzinfo=UTC), dt.datetime(2026, 9, 1, tzinfo=UTC)]
    mine = "(white_id = $1 OR black_id = $1) AND created_at >= $2 AND created_at < $3"
    ids = [
        r[0] for r in con.sql(f"SELECT game_id FROM lichess_games WHERE {mine}", params=[player, *august]).fetchall()
    ]
    assert ids
    with replay.running(dumped / "lichess", now=NOW, options=replay.ReplayOptions(games_per_s=0)) as server:
        client = make_client(server.base_url, None, 30)
        report = ingest_report.IngestReport()
        run = ingest_run.IngestRun(con, client, ingest_run.Scope(frozenset(players)), NOW, report)
        game_streams.sync_games(run, player, to_ms(august[0]), ingest_report.PlayerReport(player), None, None)
    api = {g["id"]: parse_game(g) for g in _demo_games(dumped) if g["id"] in ids}
    stored = con.sql(
        "SELECT g.*, r.source FROM lichess_games g JOIN raw_games r USING (game_id) WHERE game_id IN (SELECT unnest(?))",
        params=[ids],
    ).pl()
    con.close()
    assert set(stored["source"]) == {"api"}
    for row in stored.iter_rows(named=True):
        assert {k: row[k] for k in dataclasses.asdict(api[row["game_id"]])} == dataclasses.asdict(api[row["game_id"]])
    again = _backfill(db, path, players, None)
    assert again.kept_api == len(ids) and again.new == 0
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.sql(
            "SELECT DISTINCT source FROM raw_games WHERE game_id IN (SELECT unnest(?))", params=[ids]
        ).fetchall() == [("api",)]
    finally:
        con.close()


def test_cursors_start_after_the_last_month_only_when_that_moves_them_forward(tmp_path: Path) -> None:
    """Dumps of 2026-06 and 2026-07, history_since 2026-06-15: alice (no cursor) and bob (cursor in
    June) start at 2026-08-01 00:00 UTC, keeping bob's synced count; carol's cursor (September)
    stays; dave's (May: the dumps do not cover May) stays, with a warning."""
    june = write_dump(tmp_path, "2026-06", dump_record("ccccccc1", "Alice", "olga", when="2026.06.20 10:00:00"))
    july = write_dump(tmp_path, "2026-07", dump_record("ccccccc2", "olga", "Bob"))
    db = tmp_path / "t.duckdb"
    con = gateway.connect(db)
    old = dt.datetime(2026, 1, 1, tzinfo=UTC)
    cursors = [("bob", "2026-06-20", 7), ("carol", "2026-09-02", 9), ("dave", "2026-05-02", 3)]
    gateway.upsert(
        con,
        "ingest_cursors",
        [
            {
                "user_id": uid,
                "endpoint": "games",
                "since_ms": to_ms(dt.datetime.fromisoformat(day).replace(tzinfo=UTC)),
                "synced_games": n,
                "synced_rating": None,
                "updated_at": old,
            }
            for uid, day, n in cursors
        ],
    )
    con.close()
    report = _backfill(db, [july, june], ["Alice", "bob", "carol", "dave"], dt.datetime(2026, 6, 15, tzinfo=UTC))
    assert report.cursors_moved == 2
    assert report.warnings == [
        "player 'dave': games are synced from 2026-05-02 00:00 UTC but the dumps start at 2026-06-01: "
        "the games cursor stays (backfill the months before too)"
    ]
    con = duckdb.connect(str(db), read_only=True)
    try:
        got = con.sql("SELECT user_id, since_ms, synced_games FROM ingest_cursors ORDER BY 1").fetchall()
    finally:
        con.close()
    august = to_ms(dt.datetime(2026, 8, 1, tzinfo=UTC))
    assert got == [
        ("alice", august, None),
        ("bob", august, 7),
        ("carol", to_ms(dt.datetime(2026, 9, 2, tzinfo=UTC)), 9),
        ("dave", to_ms(dt.datetime(2026, 5, 2, tzinfo=UTC)), 3),
    ]


# --------------------------------------------------------------------------- the command


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "games-2026-07.pgn.zst",
            b"\x28\xb5\x2f\xfd",
            "error: games-2026-07.pgn.zst: expected a Lichess antichess dump named "
            "lichess_db_antichess_rated_YYYY-MM.pgn.zst",
        ),
        (
            "lichess_db_antichess_rated_2026-07.pgn.zst",
            b'[Event "Rated Antichess game"]\n',
            "error: lichess_db_antichess_rated_2026-07.pgn.zst: not zstd-compressed: "
            "expected the .pgn.zst file as Lichess publishes it",
        ),
        (
            "lichess_db_antichess_rated_2026-13.pgn.zst",
            b"\x28\xb5\x2f\xfd",
            "error: lichess_db_antichess_rated_2026-13.pgn.zst: month '13': expected 01-12",
        ),
    ],
)
def test_a_bad_dump_file_is_exit_2_with_one_line_and_writes_nothing(
    skeleton: Path, name: str, content: bytes, message: str
) -> None:
    path = skeleton.parent / name
    path.write_bytes(content)
    proc = cli("backfill", "--config", str(skeleton), "--dump", str(path))
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", message + "\n")
    assert not (skeleton.parent / "out").exists()


def test_a_month_missing_between_dumps_is_exit_2(skeleton: Path) -> None:
    june = write_dump(skeleton.parent, "2026-06", "")
    august = write_dump(skeleton.parent, "2026-08", "")
    proc = cli("backfill", "--config", str(skeleton), "--dump", str(august), "--dump", str(june))
    assert (proc.returncode, proc.stderr) == (
        2,
        "error: lichess_db_antichess_rated_2026-08.pgn.zst: month 2026-07 is missing between 2026-06 and 2026-08: "
        "give every month from the first to the last\n",
    )


TABLES_BY_DESIGN = {
    "pipeline_runs": "the run record (a backfill is one more run)",
    "td_overrides": "path: the copy's folder",
    "scored_rounds": "fingerprint: hashes the copy's input paths",
}


def _compare(a: Path, b: Path, closed: set[str]) -> None:
    """Every table and view of the published databases ``a`` (API alone) and ``b`` (dumps, then the
    API), with the dump's documented limits (docs/backfill.md)."""
    con = duckdb.connect(str(b), read_only=True)
    con.execute("ATTACH ? AS a (READ_ONLY)", [str(a)])
    try:
        tables = [
            t
            for (t,) in con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()"
            ).fetchall()
        ]
        views = [v for (v,) in con.execute(gateway.sql("queries/user_views")).fetchall()]

        def diff(name: str, where: str = "TRUE", columns: str = "*") -> tuple[int, int]:
            q = f"SELECT {columns} FROM {{}}.{name} WHERE {where}"
            left = con.sql(f"SELECT count(*) FROM ({q.format('a')} EXCEPT ALL {q.format('main')})").fetchall()[0][0]
            right = con.sql(f"SELECT count(*) FROM ({q.format('main')} EXCEPT ALL {q.format('a')})").fetchall()[0][0]
            return left, right

        not_closed = "coalesce(user_id NOT IN (SELECT unnest($closed)), TRUE)".replace(
            "$closed", "['" + "','".join(closed) + "']"
        )
        games_not_closed = (
            f"coalesce(white_id NOT IN ({', '.join(repr(c) for c in closed)}), TRUE) "
            f"AND coalesce(black_id NOT IN ({', '.join(repr(c) for c in closed)}), TRUE)"
        )
        cursor_ms = to_ms(dt.datetime(2026, 9, 1, tzinfo=UTC))
        exact = {}
        for t in tables:
            if (
                t in TABLES_BY_DESIGN
                or t in ("lichess_games", "raw_games", "ingest_cursors")
                or t.startswith("rating_")
            ):
                continue
            cols = [c for (c, *_) in con.sql(f"DESCRIBE main.{t}").fetchall() if c not in gateway.TIME_COLUMNS]
            exact[t] = diff(t, columns=", ".join(cols))
        for v in ("standings", "team_matches", "board_results", "match_games", "placings", "byes"):
            if v in views:
                exact[v] = diff(v)
        # a closed account's TEAM-ELIG-2 warning (no profile count, resolution 2026-12-04) states the
        # stored games before the cut-off, and the dumps hold its games with outsiders: the same
        # finding, its detail's stored count aside
        closed_elig = "rule_id = 'TEAM-ELIG-2' AND lower(subject) IN ({})".format(
            ", ".join(repr(c) for c in closed) or "NULL"
        )
        exact["audit_findings"] = diff("audit_findings", f"NOT ({closed_elig})")
        exact["audit_findings (closed, TEAM-ELIG-2)"] = diff(
            "audit_findings", closed_elig, "rule_id, severity, subject, team, evidence_url, audit"
        )
        assert {k: v for k, v in exact.items() if v != (0, 0)} == {}
        # the games: the API alone also has the casual games before the cursor, the dumps also the
        # closed accounts' games with outsiders; the rest is the same row but for the dump's limits
        assert con.sql(
            "SELECT count(*) FROM a.lichess_games WHERE NOT rated AND created_at >= TIMESTAMPTZ '2026-09-01 00:00:00+00'"
            " AND game_id NOT IN (SELECT game_id FROM main.lichess_games)"
        ).fetchall() == [(0,)]
        missing = con.sql(
            "SELECT count(*) FILTER (WHERE rated) FROM a.lichess_games WHERE game_id NOT IN "
            "(SELECT game_id FROM main.lichess_games)"
        ).fetchall()
        assert missing == [(0,)]
        extra = con.sql(
            f"SELECT count(*) FILTER (WHERE {games_not_closed}) FROM main.lichess_games "
            f"WHERE game_id NOT IN (SELECT game_id FROM a.lichess_games)"
        ).fetchall()
        assert extra == [(0,)]
        same = "game_id, white_id, black_id, white_name, black_name, rated, variant, speed, clock_initial_s, "
        same += (
            "clock_increment_s, winner, white_rating, black_rating, white_rating_diff, black_rating_diff, moves, url"
        )
        both = "game_id IN (SELECT game_id FROM a.lichess_games INTERSECT SELECT game_id FROM main.lichess_games)"
        assert diff("lichess_games", both, same) == (0, 0)
        assert diff("lichess_games", f"{both} AND created_at >= TIMESTAMPTZ '2026-09-01 00:00:00+00'") == (0, 0)
        assert diff("raw_games", "source = 'api'", "game_id, payload::VARCHAR, source")[1] == 0  # the API's, as A's
        assert con.sql(
            "SELECT count(*) FROM main.raw_games WHERE source = 'dump' AND game_id IN "
            "(SELECT game_id FROM main.lichess_games WHERE created_at >= TIMESTAMPTZ '2026-09-01 00:00:00+00')"
        ).fetchall() == [(0,)]
        assert diff("ingest_cursors", not_closed, "user_id, endpoint, since_ms, synced_games, synced_rating") == (0, 0)
        assert con.sql(
            f"SELECT count(*) FROM main.ingest_cursors WHERE NOT ({not_closed}) AND since_ms <> {cursor_ms}"
        ).fetchall() == [(0,)]
        # the RD estimates read the games' times (the dump's whole seconds and clocks): same rows for
        # the same players and games, RD within 0.01
        assert diff("rating_estimates", not_closed, "user_id, game_id, rating_before, rating_after, rd_method") == (
            0,
            0,
        )
        worst = con.sql(  # none in the ACWC event: no audit there reads an RD (0 then)
            "SELECT coalesce(max(greatest(abs(x.rd_est - y.rd_est), abs(x.rd_low - y.rd_low), "
            "abs(x.rd_high - y.rd_high))), 0) "
            "FROM a.rating_estimates x JOIN main.rating_estimates y USING (user_id, game_id)"
        ).fetchall()[0][0]
        assert worst < 0.01
    finally:
        con.close()


@pytest.mark.scenario
@pytest.mark.slow
def test_a_season_backfilled_from_dumps_then_a_nightly_equals_the_api_alone(dumped: Path, tmp_path: Path) -> None:
    """The small demo ingested from the API alone, and from its dumps up to 2026-08 (the months
    before the TEAM season; 2021-08 before the ACWC qualification) then the API, each as of the
    same night: the same table by table (scored tables, standings, audit findings, users,
    histories, verdicts, ...), except by design (TABLES_BY_DESIGN, fetch times) and for what the
    dumps cannot say: casual games before the cursor are not stored; the closed account's games
    with outsiders are (the API serves none of them); the dump's rows keep their whole-second
    times, clock-estimated last moves and PGN text, so the RD estimates differ by under 0.01."""
    api, dumps = tmp_path / "api", tmp_path / "dumps"
    for folder in (api, dumps):
        shutil.copytree(dumped, folder, ignore=shutil.ignore_patterns("dumps"))
    for config, before in (("tournament.toml", SEASON), ("acwc/tournament.toml", "lichess_db_antichess_rated_2021-09")):
        args = [a for p in _dumps(dumped, before) for a in ("--dump", str(p))]
        proc = cli("backfill", "--config", str(dumps / config), "--now", "2026-11-29T00:00:00Z", *args)
        assert proc.returncode == 0, proc.stderr
    closed = {u["id"] for u in _registered(dumped) if u.get("disabled")}
    a, b = audit_demo(api), audit_demo(dumps)
    for name in ("team", "acwc"):
        _compare(a[name], b[name], closed)
    assert load_config(dumps / "tournament.toml").paths.database == b["team"]


def test_the_demos_dumps_are_the_same_bytes_for_the_same_seed(dumped: Path, tmp_path: Path) -> None:
    """write_dumps_of twice over the same games and seed: byte-identical files (the demo's promise)."""
    games = [g for g in _demo_games(dumped) if g["createdAt"] >= to_ms(dt.datetime(2026, 7, 1, tzinfo=UTC))]
    users = [(u["id"], u["username"], u.get("title")) for u in _registered(dumped)]
    for name in ("one", "two"):
        write_dumps_of(games, users, DUMPS_END, tmp_path / name, seed=11)
    one = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert one == [f"lichess_db_antichess_rated_2026-{m:02d}.pgn.zst" for m in (7, 8, 9, 10)]
    assert all((tmp_path / "one" / n).read_bytes() == (tmp_path / "two" / n).read_bytes() for n in one)


# --------------------------------------------------------------------------- every Termination, every quirk


@pytest.mark.parametrize(
    ("termination", "result", "status", "winner"),
    [
        # lila's PgnDump: status → Termination; read back as the API's status name, winner from Result
        ("Normal", "1-0", "resign", "white"),  # a win without all 16 captures: resign (docs/backfill.md)
        ("Normal", "1/2-1/2", "draw", None),
        ("Time forfeit", "0-1", "outoftime", "black"),
        ("Abandoned", "1-0", "noStart", "white"),
        ("Abandoned", "1/2-1/2", "aborted", None),
        ("Rules infraction", "0-1", "cheat", "black"),  # TEAM-ELIG-4 counts status cheat
        ("Unknown", "1/2-1/2", "unknownFinish", None),
        ("Insufficient material", "1/2-1/2", "insufficientMaterialClaim", None),  # a claimed draw
    ],
)
def test_every_termination_lichess_writes_reads_as_the_apis_status(
    termination: str, result: str, status: str, winner: str | None
) -> None:
    """Each Termination value lila writes for a finished game gives the API's status and the
    Result's winner (the results TEAM-SCORE-1 scores)."""
    row = dump_reader.parse_dump_game(dump_record("ttttttt1", "Alice", "olga", result=result, termination=termination))
    assert (row.status, row.winner) == (status, winner)


def test_an_unterminated_record_is_not_a_finished_game() -> None:
    """``Unterminated`` (lila: a game created or started when the dump was cut) with Result ``*``:
    refused as such, never typed as a finished game."""
    record = dump_record("ttttttt2", "Alice", "olga", result="*", termination="Unterminated")
    with pytest.raises(dump_reader.UnterminatedGame, match="still being played when the dump was cut"):
        dump_reader.parse_dump_game(record)


def test_insufficient_material_with_a_winner_is_refused() -> None:
    with pytest.raises(ValueError, match="expected 1/2-1/2"):
        dump_reader.parse_dump_game(dump_record("ttttttt3", "Alice", "olga", termination="Insufficient material"))


def test_the_dumps_quirks_read() -> None:
    """Records as the dumps write them: their tag order without ECO, titles, a game without moves
    (movetext `` 0-1``), ``[%eval]`` and ``[%clk]`` in one comment, a black move number after a
    comment; expected by hand from each record."""
    no_moves = dump_record("qqqqqqq1", "Alice", "olga", result="0-1", termination="Abandoned", movetext="")
    assert "\n\n 0-1\n" in no_moves
    row = dump_reader.parse_dump_game(no_moves)
    assert (row.status, row.winner, row.moves, row.last_move_at) == ("noStart", "black", "", row.created_at)
    evals = (
        "1. e3 { [%eval 0.12] [%clk 0:03:00] } 1... b5 { [%eval -0.4] [%clk 0:03:00] } "
        "2. Bxb5 { [%eval #-3] [%clk 0:02:50] } 2... Bb7 { [%eval #-2] [%clk 0:02:40] }"
    )
    row = dump_reader.parse_dump_game(
        dump_record(
            "qqqqqqq2",
            "Alice",
            "olga",
            result="0-1",
            movetext=evals,
            titles='[WhiteTitle "FM"]\n[BlackTitle "BOT"]\n',
        )
    )
    # white spent 3:00 - 2:50 = 10 s on move 2, black 3:00 - 2:40 = 20 s: last move 30 s after creation
    assert (row.status, row.winner, row.moves) == ("resign", "black", "e3 b5 Bxb5 Bb7")
    assert row.last_move_at - row.created_at == dt.timedelta(seconds=30)
    assert (row.white_rating, row.black_rating, row.clock_initial_s, row.speed) == (1500, 1600, 180, "blitz")


def test_an_analysed_games_move_glyphs_read_as_its_moves() -> None:
    """A game with Lichess's computer analysis carries move glyphs (``?!`` inaccuracy, ``?``
    mistake, ``??`` blunder; ``!``, ``!?`` in hand-annotated PGN) after the SAN and ``[%eval]`` in
    its comments: the moves read without the glyphs, as the API's ``moves`` gives them; the usual
    fast path (every comment a bare clock) too."""
    analysed = (
        "1. e3 { [%eval 0.12] [%clk 0:03:00] } 1... b5?! { [%eval 1.4] [%clk 0:03:00] } "
        "2. Bxb5?? { [%eval #-3] [%clk 0:02:50] } 2... Bb7! { [%eval #-2] [%clk 0:02:40] }"
    )
    clocks_only = (
        "1. e3 { [%clk 0:03:00] } 1... b5? { [%clk 0:03:00] } 2. Bxb5!? { [%clk 0:02:50] } 2... Bb7 { [%clk 0:02:40] }"
    )
    for gid, movetext in (("qqqqqqq3", analysed), ("qqqqqqq4", clocks_only)):
        row = dump_reader.parse_dump_game(dump_record(gid, "Alice", "olga", result="0-1", movetext=movetext))
        assert row.moves == "e3 b5 Bxb5 Bb7", gid
        assert row.last_move_at - row.created_at == dt.timedelta(seconds=30), gid


def test_every_refused_arena_record_is_kept_under_its_own_game_id(tmp_path: Path) -> None:
    """Eight arena games whose moves do not read (their Event, first, holds the tournament's URL):
    eight rows in rejected_records keyed by their Site ids, eight queued; a record without a Site
    tag is kept under the md5 of its text (it cannot be fetched: not queued)."""
    arena = "Rated Antichess tournament https://lichess.org/tournament/tourname"
    bad = "1. e3 { [%clk 0:03:00] } 1... Zz9 { [%clk 0:03:00] }"
    ids = [f"arena00{i}" for i in range(1, 9)]
    records = [dump_record(gid, "Alice", "olga", event=arena, movetext=bad) for gid in ids]
    nameless = dump_record(None, "Alice", "olga", movetext=bad)
    path = write_dump(tmp_path, "2026-07", "".join(records) + nameless)
    db = tmp_path / "t.duckdb"
    report = _backfill(db, [path], ["alice"], None)
    assert (report.matched, report.rejected, report.queued) == (9, 9, 8)
    con = duckdb.connect(str(db), read_only=True)
    try:
        got = dict(con.sql("SELECT record_key, payload FROM rejected_records").fetchall())
        queued = [r[0] for r in con.sql("SELECT game_id FROM refetch_games ORDER BY 1").fetchall()]
    finally:
        con.close()
    assert got == {**dict(zip(ids, records, strict=True)), hashlib.md5(nameless.encode()).hexdigest(): nameless}
    assert queued == ids


# --------------------------------------------------------------------------- nothing lost: the re-fetch by id

CUT = dt.datetime(2026, 8, 1, tzinfo=UTC)  # the July dump's end: Lichess cut it at midnight
BAD_MOVES = "1. e3 { [%clk 0:03:00] } 1... Zz9 { [%clk 0:03:00] }"
ARENA = "Rated Antichess tournament https://lichess.org/tournament/tourname"


def _api_game(
    gid: str, white: str, black: str, created: dt.datetime, ended: dt.datetime, status: str, winner: str | None
) -> dict[str, Any]:
    """A finished game as the API's export shows it (what the replay server serves)."""
    g: dict[str, Any] = {
        "id": gid,
        "rated": True,
        "variant": "antichess",
        "speed": "blitz",
        "perf": "antichess",
        "createdAt": to_ms(created),
        "lastMoveAt": to_ms(ended),
        "status": status,
        "source": "lobby",
        "players": {
            "white": {"user": {"name": white.title(), "id": white}, "rating": 1500, "ratingDiff": 9},
            "black": {"user": {"name": black.title(), "id": black}, "rating": 1600, "ratingDiff": -9},
        },
        "moves": "e3 b5 Bxb5",
        "clock": {"initial": 180, "increment": 0, "totalTime": 180},
        "pgn": f'[Event "Rated Antichess game"]\n[Site "https://lichess.org/{gid}"]\n'
        f'[White "{white.title()}"]\n[Black "{black.title()}"]\n\n1. e3 b5 2. Bxb5 *\n',
    }
    if winner:
        g["winner"] = winner
    return g


def _at(day: int, hms: str = "12:00:00", month: int = 7) -> dt.datetime:
    h, m, s = map(int, hms.split(":"))
    return dt.datetime(2026, month, day, h, m, s, tzinfo=UTC)


# (id, white, black, created, ended, API status, winner, dump record's Termination / Result / movetext / Event)
LOST = [
    ("norm0001", "alice", "olga", _at(10), _at(10, "12:05:00"), "resign", "white", ("Normal", "1-0", None, None)),
    (
        "time0001",
        "bob",
        "olga",
        _at(11),
        _at(11, "12:05:00"),
        "outoftime",
        "black",
        ("Time forfeit", "0-1", None, None),
    ),
    ("aban0001", "alice", "bob", _at(12), _at(12, "12:00:30"), "noStart", "white", ("Abandoned", "1-0", "", None)),
    (
        "rule0001",
        "olga",
        "alice",
        _at(13),
        _at(13, "12:05:00"),
        "cheat",
        "white",
        ("Rules infraction", "1-0", None, None),
    ),
    (
        "unkn0001",
        "alice",
        "olga",
        _at(14),
        _at(14, "12:05:00"),
        "unknownFinish",
        None,
        ("Unknown", "1/2-1/2", None, None),
    ),
    (
        "insu0001",
        "bob",
        "olga",
        _at(15),
        _at(15, "12:05:00"),
        "insufficientMaterialClaim",
        None,
        ("Insufficient material", "1/2-1/2", None, None),
    ),
    ("read0001", "alice", "bob", _at(16), _at(16, "12:05:00"), "resign", "white", ("Normal", "1-0", BAD_MOVES, None)),
    ("read0002", "bob", "olga", _at(17), _at(17, "12:05:00"), "resign", "black", ("Normal", "0-1", BAD_MOVES, ARENA)),
    ("gone0001", "alice", "olga", _at(20), _at(20, "12:05:00"), None, None, ("Normal", "1-0", BAD_MOVES, None)),
    # still being played at midnight: one ends a minute after, one five
    (
        "term0001",
        "alice",
        "olga",
        _at(31, "23:55:00"),
        _at(1, "00:01:00", 8),
        "resign",
        "black",
        ("Unterminated", "*", None, None),
    ),
    (
        "term0002",
        "bob",
        "alice",
        _at(31, "23:58:00"),
        _at(1, "00:05:00", 8),
        "resign",
        "white",
        ("Unterminated", "*", None, None),
    ),
]
AFTER_CUT = ("augu0001", "alice", "bob", _at(1, "00:00:30", 8), _at(1, "00:01:30", 8), "resign", "white")


def _lost_world(folder: Path) -> tuple[Path, Path]:
    """The July dump (one record per LOST game) and the API's world (every game but gone0001, which
    Lichess deleted, and the game of August), as the API shows them once finished."""
    records = []
    games = []
    for gid, white, black, created, ended, status, winner, (termination, result, movetext, event) in LOST:
        kw: dict[str, Any] = {
            "when": created.strftime("%Y.%m.%d %H:%M:%S"),
            "result": result,
            "termination": termination,
        }
        if movetext is not None:
            kw["movetext"] = movetext
        if event is not None:
            kw["event"] = event
        records.append(dump_record(gid, white.title(), black.title(), **kw))
        if status is not None:
            games.append(_api_game(gid, white, black, created, ended, status, winner))
    games.append(_api_game(*AFTER_CUT))
    users = [
        {
            "id": u,
            "username": u.title(),
            "createdAt": to_ms(dt.datetime(2020, 1, 1, tzinfo=UTC)),
            "perfs": {"antichess": {"games": 500, "rating": 1500, "rd": 60, "prog": 0}},
        }
        for u in ("alice", "bob", "olga")
    ]
    histories = {u: [{"name": "Antichess", "points": [[2026, 5, 1, 1500]]}] for u in ("alice", "bob")}
    world = write_dataset(folder / "lichess", users, games, histories)
    return write_dump(folder, "2026-07", "".join(records)), world


def _night(db: Path, world: Path, now: dt.datetime) -> tuple[ingest_report.IngestReport, dict[str, int]]:
    options = replay.ReplayOptions(games_per_s=0, history_needs_token=False)
    with replay.running(world, now=now, options=options) as server:
        con = gateway.connect(db)
        try:
            report = request_plan.ingest(con, make_client(server.base_url, None, 30), ["alice", "bob"], _at(1), now)
        finally:
            con.close()
        return report, dict(server.requests_by_kind)


def test_no_dump_game_of_a_registered_player_is_lost_after_a_backfill(tmp_path: Path) -> None:
    """A July dump whose records of alice and bob end in each Termination Lichess writes, two that
    do not read (one of an arena, whose Event names its tournament first), one of a game Lichess has
    since deleted and two Unterminated (being played at midnight); backfill (cursors to 08-01),
    then nightly ingests over real HTTP. Every game of theirs is stored once (TEAM-SCORE-1 scores
    what is stored, TEAM-ELIG-2/3 count it): the readable records from the dump with the status
    their Termination gives, the others fetched by id (POST /api/games/export/_ids): the night at
    00:02 stores term0001 (ended 00:01) and keeps term0002 queued (ended 00:05); the next night
    stores it. The deleted game leaves the queue and stays in rejected_records with why; the queue
    is empty after the second night, and a third night asks nothing by id."""
    path, world = _lost_world(tmp_path)
    db = tmp_path / "t.duckdb"
    report = _backfill(db, [path], ["alice", "bob"], _at(1))
    assert (report.matched, report.loaded, report.rejected, report.queued) == (11, 6, 5, 5)

    first, asked = _night(db, world, _at(1, "00:02:00", 8))
    assert (first.refetched, first.refetch_ongoing, first.refetch_missing, asked["games_by_id"]) == (3, 1, 1, 1)
    assert (
        "backfill queue: 3 games re-fetched by id and stored, 1 still being played (stay queued), "
        "1 not on Lichess (kept in rejected_records)"
    ) in console.ingest_summary(first.summary(), per_player=False)
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.sql("SELECT game_id FROM refetch_games").fetchall() == [("term0002",)]
    finally:
        con.close()

    second, asked = _night(db, world, _at(3, month=8))
    assert (second.refetched, second.refetch_ongoing, second.refetch_missing, asked["games_by_id"]) == (1, 0, 0, 1)
    third, asked = _night(db, world, _at(4, month=8))
    assert (third.refetched, "games_by_id" in asked) == (0, False)

    con = duckdb.connect(str(db), read_only=True)
    try:
        stored = dict(
            con.sql(
                "SELECT g.game_id, (g.status, g.winner, r.source) FROM lichess_games g JOIN raw_games r USING (game_id)"
            ).fetchall()
        )
        only_rejected = con.sql(
            "SELECT record_key, reason FROM rejected_records WHERE record_key NOT IN (SELECT game_id FROM lichess_games)"
        ).fetchall()
        assert con.sql("SELECT count(*) FROM refetch_games").fetchall() == [(0,)]
    finally:
        con.close()
    assert stored == {
        "norm0001": ("resign", "white", "dump"),  # Normal, a win without 16 captures
        "time0001": ("outoftime", "black", "dump"),
        "aban0001": ("noStart", "white", "dump"),
        "rule0001": ("cheat", "white", "dump"),
        "unkn0001": ("unknownFinish", None, "dump"),
        "insu0001": ("insufficientMaterialClaim", None, "dump"),
        "read0001": ("resign", "white", "api"),
        "read0002": ("resign", "black", "api"),
        "term0001": ("resign", "black", "api"),
        "term0002": ("resign", "white", "api"),
        "augu0001": ("resign", "white", "api"),  # the stream from the cursor
    }
    assert only_rejected == [
        (
            "gone0001",
            "lichess_db_antichess_rated_2026-07.pgn.zst: PGN: move 2 'Zz9': not a move in SAN; not returned by the "
            "API's export by id on 2026-08-01 (deleted from Lichess?): no longer queued",
        )
    ]


# --------------------------------------------------------------------------- the short way of typing


def _full_row(text: str) -> tuple[Any, ...] | str:
    """What the full reader gives for a record: its row's values, or why it is refused."""
    try:
        return dump_scan.row_values(dump_reader.parse_dump_game(text))
    except ValueError as e:
        return str(e)


def _short_way_agrees(texts: list[str]) -> int:
    """How many of ``texts`` dump_typing.usual_row takes, each checked against the full reader."""
    taken = 0
    for text in texts:
        row = dump_typing.usual_row(text)
        if row is not None:
            assert row == _full_row(text), text
            taken += 1
    return taken


def _every_record(dumped: Path) -> list[str]:
    """Every record of the demo's dumps (every player's) and every real game's PGN in tests/data."""
    texts = []
    for path in _dumps(dumped):
        with path.open("rb") as fh:
            whole = zstandard.ZstdDecompressor().stream_reader(fh).read().decode()
        first, *rest = whole.split("\n[Event ")
        texts += [first] + ["[Event " + r for r in rest]
    for data in (Path(__file__).parents[1] / "data").rglob("games.ndjson"):
        texts += [json.loads(line).get("pgn") or "" for line in data.open(encoding="utf-8")]
    return texts


def test_the_short_way_types_the_dumps_records_as_the_full_reader(dumped: Path) -> None:
    """dump_typing.usual_row gives, for every 16th record of the demo's dumps (every player's,
    nearly all in Lichess's usual form) and every real game's PGN in tests/data, the full
    reader's row, value by value; a record it does not take is left to the full reader. (Every
    record: the scenario below.)"""
    texts = _every_record(dumped)
    sample = texts[::16]
    assert _short_way_agrees(sample) > 0.9 * len(sample)


@pytest.mark.scenario
def test_the_short_way_types_every_record_of_the_dumps_as_the_full_reader(dumped: Path) -> None:
    texts = _every_record(dumped)
    assert _short_way_agrees(texts) > 0.9 * len(texts)


USUAL = "1. e3 { [%clk 0:03:00] } 1... b5 { [%clk 0:02:59] } 2. Bxb5 { [%clk 0:02:50] } 2... Bb7 { [%clk 0:02:40] }"


@pytest.mark.parametrize(
    ("case", "record", "taken"),
    [
        ("usual", dump_record("uuuuuuu1", "Alice", "olga", movetext=USUAL), True),
        ("a draw", dump_record("uuuuuuu1", "Alice", "olga", movetext=USUAL, result="1/2-1/2"), True),
        ("time forfeit", dump_record("uuuuuuu1", "Alice", "olga", movetext=USUAL, termination="Time forfeit"), True),
        (
            "lost on time",
            dump_record("uuuuuuu1", "Alice", "o", movetext=USUAL, result="0-1", termination="Time forfeit"),
            True,
        ),
        ("one move", dump_record("uuuuuuu1", "Alice", "olga", movetext="1. e3 { [%clk 0:03:00] }"), True),
        (
            "casual, no clock",
            dump_record("uuuuuuu1", "A", "b", movetext=USUAL, event="Casual Antichess game").replace('"180+0"', '"-"'),
            True,
        ),
        ("titles", dump_record("uuuuuuu1", "A", "b", movetext=USUAL, titles='[WhiteTitle "BOT"]\n'), True),
        ("escaped tag", dump_record("uuuuuuu1", 'Al\\"ice', "olga", movetext=USUAL), False),
        ("escaped backslash", dump_record("uuuuuuu1", "A", "b", movetext=USUAL, event="Rated \\\\ game"), False),
        ("missing Site", dump_record(None, "Alice", "olga", movetext=USUAL), False),
        ("missing Result", dump_record("uuuuuuu1", "A", "b", movetext=USUAL).replace('[Result "1-0"]\n', ""), False),
        (
            "missing TimeControl",
            dump_record("uuuuuuu1", "A", "b", movetext=USUAL).replace('[TimeControl "180+0"]\n', ""),
            True,
        ),
        (
            "missing UTCTime",
            dump_record("uuuuuuu1", "A", "b", movetext=USUAL).replace('[UTCTime "12:00:00"]\n', ""),
            False,
        ),
        (
            "missing Termination",
            dump_record("uuuuuuu1", "A", "b", movetext=USUAL).replace('[Termination "Normal"]\n', ""),
            False,
        ),
        ("bad Elo", dump_record("uuuuuuu1", "A", "b", movetext=USUAL).replace('"1500"', '"15x0"'), False),
        ("Elo with ?", dump_record("uuuuuuu1", "A", "b", movetext=USUAL).replace('"1500"', '"1500?"'), True),
        (
            "Elo in other digits",
            dump_record("uuuuuuu1", "A", "b", movetext=USUAL).replace('"1500"', '"\u0661\u0665"'),
            True,
        ),
        ("Elo with a space", dump_record("uuuuuuu1", "A", "b", movetext=USUAL).replace('"1500"', '" 1500"'), True),
        ("two signs", dump_record("uuuuuuu1", "A", "b", movetext=USUAL).replace('"+9"', '"+-9"'), False),
        (
            "a header line that is not one",
            dump_record("uuuuuuu1", "A", "b", movetext=USUAL).replace('[Round "-"]', "Round -"),
            False,
        ),
        (
            "unterminated",
            dump_record("uuuuuuu1", "A", "b", movetext=USUAL, result="*", termination="Unterminated"),
            False,
        ),
        ("result differs", dump_record("uuuuuuu1", "A", "b", movetext=USUAL).replace(" 1-0\n", " 0-1\n"), False),
        ("not a SAN", dump_record("uuuuuuu1", "A", "b", movetext=USUAL.replace("Bb7", "Zz9")), False),
        ("glyphs", dump_record("uuuuuuu1", "A", "b", movetext=USUAL.replace("Bb7", "Bb7?!")), False),
        (
            "eval comments",
            dump_record("uuuuuuu1", "A", "b", movetext=USUAL.replace("[%clk 0:02:50]", "[%eval 0.3] [%clk 0:02:50]")),
            False,
        ),
        (
            "a move without clock",
            dump_record("uuuuuuu1", "A", "b", movetext=USUAL.replace(" { [%clk 0:02:50] }", "")),
            False,
        ),
        ("a bad clock", dump_record("uuuuuuu1", "A", "b", movetext=USUAL.replace("0:02:50", "0:2:50")), False),
        ("no moves", dump_record("uuuuuuu1", "A", "b", movetext="", termination="Abandoned"), False),
        ("two spaces", dump_record("uuuuuuu1", "A", "b", movetext=USUAL.replace("1... b5", "1...  b5")), False),
        ("a tab", dump_record("uuuuuuu1", "A", "b", movetext=USUAL.replace("1... b5", "1...\tb5")), False),
        ("not antichess", dump_record("uuuuuuu1", "A", "b", movetext=USUAL).replace('"Antichess"', '"Atomic"'), False),
        (
            "insufficient material won",
            dump_record("uuuuuuu1", "A", "b", movetext=USUAL, termination="Insufficient material"),
            False,
        ),
    ],
)
def test_the_short_way_takes_the_usual_records_and_types_them_as_the_full_reader(
    case: str, record: str, taken: bool
) -> None:
    """A record in the usual form (every move with its clock, no escape, no glyph, every tag that
    matters reading) is typed the short way, into the full reader's row; any other is left to the
    full reader (None), which gives its row or its reason as before."""
    row = dump_typing.usual_row(record)
    assert (row is not None) == taken, case
    if row is not None:
        assert row == _full_row(record), case


def test_the_short_way_finds_a_win_by_capturing_everything() -> None:
    """Normal with a winner: ``variantEnd`` when the loser captured 16 times (the antichess goal),
    ``resign`` at 15 (counted by hand: each move of white, the loser, captures)."""
    moves = []
    for i in range(1, 17):
        moves.append(f"{i}. Bxb5 {{ [%clk 0:03:00] }} {i}... e6 {{ [%clk 0:03:00] }}")
    won = dump_record("uuuuuuu2", "A", "b", result="0-1", movetext=" ".join(moves))
    short = dump_record("uuuuuuu3", "A", "b", result="0-1", movetext=" ".join(moves[:15]))
    rows = [dump_typing.usual_row(r) for r in (won, short)]
    assert [r[dump_scan.FIELDS.index("status")] if r else None for r in rows] == ["variantEnd", "resign"]
    assert rows == [_full_row(won), _full_row(short)]
