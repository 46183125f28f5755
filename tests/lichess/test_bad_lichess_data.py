"""Bad Lichess data: whatever Lichess or a typo sends, no record is lost and no result is
silently wrong. Real HTTP: berserk against the replay server, which sends the broken lines of
``games-raw/<user>.ndjson`` verbatim (pipeline/sim/replay.py); real DuckDB files.

World: alice and bob registered, olga an outsider. ``games.ndjson`` holds one good game k1
(alice-bob, in both streams). ``games-raw/alice.ndjson`` adds, after it, in this order (each
line written by hand with its own spacing, so byte-for-byte keeping shows)::

    trunc     a line cut short: not JSON                         → rejected
    nopl0001  no ``players``                                     → rejected
    nocr0001  no ``createdAt``                                   → rejected
    (no id)   no ``id``: keyed by the md5 of the line            → rejected
    nova0001  no ``variant``                                     → rejected
    paus0001  status 'paused' (not a Lichess status)             → rejected
    std00001  standard chess against olga                        → skipped (kept in rejected_records)
    garb0001  PGN moves that do not parse (headers fine)         → loaded (the JSON is sound)
    imps0001  PGN [White "Impostor"], JSON white alice           → loaded and flagged (game_flags)
    live0001  status 'started' (still being played)              → ongoing

By hand: alice's stream sends 1 + 10 = 11 lines = loaded 3 (k1, garb0001, imps0001) + skipped 1 +
ongoing 1 + rejected 6; bob's sends k1: 1 = loaded 1. In total fetched 12 = 4 + 1 + 1 + 6.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess.pgn
import duckdb
import orjson
import pytest

from kits.lichess_data import write_dataset
from pipeline.cli import console
from pipeline.domain.verify import pgn_players, pgn_players_problem
from pipeline.inputs import config as config_mod
from pipeline.lichess import ingest_report, ndjson, request_plan
from pipeline.lichess.client import make_client, parse_game
from pipeline.sim import replay
from pipeline.stages import context
from pipeline.stages.ingest import ingest_stage, lichess_base_url
from pipeline.stages.score import score_stage
from pipeline.store import gateway

UTC = dt.UTC
T0 = 1_772_445_600_000  # 2026-03-02T10:00:00Z
NOW = dt.datetime(2026, 3, 7, 12, tzinfo=UTC)
CREATED_2020 = 1_577_836_800_000
SKELETON = Path(__file__).resolve().parents[1] / "data" / "skeleton"

USERS = [
    {
        "id": "alice",
        "username": "Alice",
        "createdAt": CREATED_2020,
        "perfs": {"antichess": {"games": 12, "rating": 1812, "rd": 55, "prog": 0}},
    },
    {
        "id": "bob",
        "username": "Bob",
        "createdAt": CREATED_2020,
        "perfs": {"antichess": {"games": 9, "rating": 1650, "rd": 60, "prog": 0}},
    },
    {
        "id": "olga",
        "username": "Olga",
        "createdAt": CREATED_2020,
        "perfs": {"antichess": {"games": 7, "rating": 1550, "rd": 90, "prog": 0}},
    },
]
HISTORIES = {u["id"]: [{"name": "Antichess", "points": [[2026, 1, 1, 1500]]}] for u in USERS}

K1 = {
    "id": "k1",
    "rated": True,
    "variant": "antichess",
    "speed": "blitz",
    "perf": "antichess",
    "createdAt": T0,
    "lastMoveAt": T0 + 90_000,
    "status": "resign",
    "winner": "white",
    "source": "friend",
    "players": {
        "white": {"user": {"name": "Alice", "id": "alice"}, "rating": 1800, "ratingDiff": 6},
        "black": {"user": {"name": "Bob", "id": "bob"}, "rating": 1660, "ratingDiff": -6},
    },
    "moves": "e3 b5 Bxb5",
    "clock": {"initial": 180, "increment": 2, "totalTime": 260},
    "pgn": '[White "Alice"]\n[Black "Bob"]\n[Variant "Antichess"]\n\n1. e3 b5 2. Bxb5 1-0\n',
}

ALICE_OLGA = (
    '"players":{"white":{"user":{"name":"Alice","id":"alice"},"rating":1800},'
    '"black":{"user":{"name":"Olga","id":"olga"},"rating":1550}}'
)
PGN_OK = r'"pgn":"[White \"Alice\"]\n[Black \"Olga\"]\n[Variant \"Antichess\"]\n\n1. e3 b5 2. Bxb5 1-0\n"'
CLOCK = '"clock":{"initial":180,"increment":2}'

# (kind, record_key or None for the md5 of the line, the line exactly as sent)
LINES = {
    "not_json": ("trunc", None, '{"id": "trunc001", "rated": true, "variant": "antichess"'),
    "no_players": (
        "nopl0001",
        "nopl0001",
        '{"id":"nopl0001","rated":true,"variant":"antichess","createdAt":1772449200000,'
        '"lastMoveAt":1772449290000,"status":"resign","winner":"white",' + CLOCK + "}",
    ),
    "no_created_at": (
        "nocr0001",
        "nocr0001",
        '{"id":"nocr0001", "rated":true, "variant":"antichess", "lastMoveAt":1772449290000,'
        ' "status":"resign", "winner":"white", ' + ALICE_OLGA + ", " + CLOCK + "}",
    ),
    "no_id": (
        "noid",
        None,
        '{"rated":true,"variant":"antichess","createdAt":1772452800000,"lastMoveAt":1772452890000,'
        '"status":"mate","winner":"black",' + ALICE_OLGA + "," + CLOCK + "}",
    ),
    "no_variant": (
        "nova0001",
        "nova0001",
        '{"id":"nova0001","rated":true,"createdAt":1772456400000,"lastMoveAt":1772456490000,'
        '"status":"draw",' + ALICE_OLGA + "," + CLOCK + "}",
    ),
    "unknown_status": (
        "paus0001",
        "paus0001",
        '{"id":"paus0001","rated":true,"variant":"antichess","createdAt":1772460000000,'
        '"lastMoveAt":1772460090000,"status":"paused",' + ALICE_OLGA + "," + CLOCK + "}",
    ),
    "other_variant": (
        "std00001",
        "std00001",
        '{"id":"std00001","rated":true,"variant":"standard","createdAt":1772463600000,'
        '"lastMoveAt":1772463690000,"status":"mate","winner":"white",' + ALICE_OLGA + "," + CLOCK + "}",
    ),
    "garbage_pgn": (
        "garb0001",
        "garb0001",
        '{"id":"garb0001","rated":true,"variant":"antichess","createdAt":1772467200000,'
        '"lastMoveAt":1772467290000,"status":"resign","winner":"white",' + ALICE_OLGA + "," + CLOCK + ","
        r'"moves":"e3 b5 Bxb5","pgn":"[White \"Alice\"]\n[Black \"Olga\"]\n[Variant \"Antichess\"]\n\n'
        r'1. Zz9 ?? 2. !!! 1-0\n"}',
    ),
    "pgn_players": (
        "imps0001",
        "imps0001",
        '{"id":"imps0001","rated":true,"variant":"antichess","createdAt":1772470800000,'
        '"lastMoveAt":1772470890000,"status":"resign","winner":"white",' + ALICE_OLGA + "," + CLOCK + ","
        r'"moves":"e3 b5 Bxb5","pgn":"[White \"Impostor\"]\n[Black \"Olga\"]\n[Variant \"Antichess\"]\n\n'
        r'1. e3 b5 2. Bxb5 1-0\n"}',
    ),
    "ongoing": (
        "live0001",
        "live0001",
        '{"id":"live0001","rated":true,"variant":"antichess","createdAt":1772474400000,'
        '"lastMoveAt":1772474490000,"status":"started",' + ALICE_OLGA + "," + CLOCK + "," + PGN_OK + "}",
    ),
}

# the reasons kept, worked out from lichess.parse_game and game_streams._GameSink
REJECTED = {
    # the line ends after its 56th character: the parser wanted a ',' or '}' at column 57
    "not_json": "not valid JSON (Expecting ',' delimiter at column 57)",
    "no_players": "missing players.white",
    "no_created_at": "missing 'createdAt' (expected epoch milliseconds)",
    "no_id": "missing 'id'",
    "no_variant": "missing 'variant'",
    "unknown_status": "unknown status 'paused' (not one of Lichess's game statuses)",
}
SKIPPED = "not antichess (variant 'standard') and not between two registered players: kept here, not stored as a game"
FLAGGED = (
    "the PGN names other players than the JSON (PGN White 'Impostor' but JSON 'Alice'): "
    "stored as the JSON says, check it"
)


def _key(kind: str) -> str:
    _, key, line = LINES[kind]
    return key if key is not None else hashlib.md5(line.encode()).hexdigest()


@pytest.fixture(scope="module")
def world(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[duckdb.DuckDBPyConnection, ingest_report.IngestReport]]:
    tmp = tmp_path_factory.mktemp("bad")
    folder = write_dataset(tmp / "lichess", USERS, [K1], HISTORIES)
    (folder / "games-raw").mkdir()
    (folder / "games-raw" / "alice.ndjson").write_text(
        "".join(line + "\n" for _, _, line in LINES.values()), encoding="utf-8"
    )
    con = gateway.connect(tmp / "t.duckdb")
    with replay.running(folder) as server:
        client = make_client(server.base_url, "test-token", 5.0)
        report = request_plan.ingest(con, client, ["alice", "bob"], None, NOW)
    yield con, report
    con.close()


def _assert_counts_add_up(report: ingest_report.IngestReport) -> None:
    """ingest_report.py: fetched = loaded + skipped (other variants v outsiders) + ongoing + rejected."""
    assert report.games_fetched == (
        report.games_loaded + report.games_skipped_other_variant + report.games_ongoing + report.games_rejected
    )
    assert (
        report.games_fetched,
        report.games_loaded,
        report.games_skipped_other_variant,
        report.games_ongoing,
        report.games_rejected,
        report.games_flagged,
    ) == (12, 4, 1, 1, 6, 1)
    a = report.players["alice"]
    assert (a.games_fetched, a.games_loaded, a.games_skipped_other_variant, a.games_ongoing, a.games_rejected) == (
        11,
        3,
        1,
        1,
        6,
    )


@pytest.mark.parametrize("kind", list(REJECTED))
def test_untypable_record_kept_with_its_reason_byte_for_byte(
    world: tuple[duckdb.DuckDBPyConnection, ingest_report.IngestReport], kind: str
) -> None:
    """Nothing is lost (docs/ingestion.md, Raw first): each untypable line is in rejected_records with the reason, as it
    arrived, and is not a game; counts add up."""
    con, report = world
    got = con.execute(
        "SELECT source, reason, payload, fetched_at FROM rejected_records WHERE record_key = ?", [_key(kind)]
    ).fetchall()
    assert got == [("game", REJECTED[kind], LINES[kind][2], NOW)]
    assert con.execute("SELECT count(*) FROM lichess_games WHERE game_id = ?", [_key(kind)]).fetchone() == (0,)
    _assert_counts_add_up(report)


def test_other_variant_against_an_outsider_is_skipped_and_kept(
    world: tuple[duckdb.DuckDBPyConnection, ingest_report.IngestReport],
) -> None:
    con, report = world
    got = con.execute("SELECT source, reason, payload FROM rejected_records WHERE record_key = 'std00001'").fetchall()
    assert got == [("game", SKIPPED, LINES["other_variant"][2])]
    assert con.execute("SELECT count(*) FROM lichess_games WHERE game_id = 'std00001'").fetchone() == (0,)
    _assert_counts_add_up(report)


def test_unparsable_pgn_is_stored_raw_as_it_arrived(
    world: tuple[duckdb.DuckDBPyConnection, ingest_report.IngestReport],
) -> None:
    """The JSON is sound, so the game is typed and stored (its result is Lichess's); the header
    check at ingest finds nothing wrong; the moves are verify's business (see the linking test)."""
    con, report = world
    assert con.execute("SELECT payload::VARCHAR FROM raw_games WHERE game_id = 'garb0001'").fetchall() == [
        (LINES["garbage_pgn"][2],)
    ]
    assert con.execute("SELECT winner, status FROM lichess_games WHERE game_id = 'garb0001'").fetchall() == [
        ("white", "resign")
    ]
    assert con.execute("SELECT count(*) FROM game_flags WHERE game_id = 'garb0001'").fetchone() == (0,)
    _assert_counts_add_up(report)


def test_pgn_naming_other_players_is_stored_and_flagged(
    world: tuple[duckdb.DuckDBPyConnection, ingest_report.IngestReport],
) -> None:
    con, report = world
    assert con.execute("SELECT payload::VARCHAR FROM raw_games WHERE game_id = 'imps0001'").fetchall() == [
        (LINES["pgn_players"][2],)
    ]
    assert con.execute("SELECT white_id, black_id FROM lichess_games WHERE game_id = 'imps0001'").fetchall() == [
        ("alice", "olga")
    ]
    assert con.execute("SELECT reason, flagged_at FROM game_flags").fetchall() == [(FLAGGED, NOW)]
    _assert_counts_add_up(report)


def test_ongoing_game_is_counted_not_stored(
    world: tuple[duckdb.DuckDBPyConnection, ingest_report.IngestReport],
) -> None:
    """A game still being played comes again once it ends: counted as ongoing, stored nowhere yet."""
    con, report = world
    for table, key in (("lichess_games", "game_id"), ("raw_games", "game_id"), ("rejected_records", "record_key")):
        assert con.execute(f"SELECT count(*) FROM {table} WHERE {key} = 'live0001'").fetchone() == (0,)
    _assert_counts_add_up(report)


def test_rejected_view_lists_every_record_set_aside(
    world: tuple[duckdb.DuckDBPyConnection, ingest_report.IngestReport],
) -> None:
    """sql/views/rejected.sql: one row per record set aside, with its kind, reason and link (none
    for a record that names no id of its own)."""
    con, _ = world
    got = set(con.execute("SELECT source, record_key, kind, reason, fetched_at, url FROM rejected").fetchall())
    want = {
        (
            "game",
            _key(k),
            "rejected",
            reason,
            NOW,
            None if k in ("not_json", "no_id") else f"https://lichess.org/{_key(k)}",
        )
        for k, reason in REJECTED.items()
    }
    want.add(("game", "std00001", "skipped", SKIPPED, NOW, "https://lichess.org/std00001"))
    want.add(("game", "imps0001", "flagged", FLAGGED, NOW, "https://lichess.org/imps0001"))
    assert got == want


# --------------------------------------------------------------------------- match games


def _edit_game(path: Path, gid: str, edit: Any) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for line in lines:
        g = json.loads(line)
        if g["id"] == gid:
            g = edit(g)
        out.append(json.dumps(g))
    path.write_text("".join(x + "\n" for x in out), encoding="utf-8")


def test_match_game_whose_pgn_names_other_players_is_not_silently_counted(tmp_path: Path) -> None:
    """TEAM-SCORE-1: R1ab1g01 (alice v bob, 0+2, Bob resigned) counts in round 1's
    board 1 as Lichess's JSON reports it, but not silently: flagged at ingest, verdict mismatch
    with the detail, and in the `rejected` view. R1ab2g01 (amir v bea) gets a move no pawn can
    make (1. e5): stored, verdict unreadable, in the view too."""
    dest = tmp_path / "skeleton"
    shutil.copytree(SKELETON, dest, ignore=shutil.ignore_patterns("out", "make_dataset.py"))
    games = dest / "lichess" / "games.ndjson"
    _edit_game(games, "R1ab1g01", lambda g: {**g, "pgn": g["pgn"].replace('[White "Alice"]', '[White "Impostor"]')})
    _edit_game(games, "R1ab2g01", lambda g: {**g, "pgn": g["pgn"].replace("\n1. ", "\n1. e5 ", 1)})
    config = config_mod.load_config(dest / "tournament.toml")
    inputs = context.read_inputs(config)
    now = dt.datetime(2026, 3, 20, tzinfo=UTC)
    with lichess_base_url(config) as url:
        report = ingest_stage(config, inputs, url, now)
    assert report.games_flagged == 2  # R1ab1g01 arrives in alice's and in bob's stream
    assert console.ingest_summary(report.summary(), per_player=False)[1].endswith(
        "; 2 loaded but flagged (the PGN names other players: see the rejected view)"
    )
    # both are match games: verified as they arrive, so the score step has none left to verify
    assert (report.verified, report.mismatches) == (35, 2)
    score = score_stage(config, inputs, now)
    assert (score.verified, score.mismatches) == (0, 0)
    con = gateway.connect(config.paths.database, read_only=True)
    try:
        got = con.execute(
            "SELECT game_id, counted, verdict, verdict_detail FROM match_games "
            "WHERE game_id IN ('R1ab1g01', 'R1ab2g01') ORDER BY game_id"
        ).fetchall()
        start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"  # antichess: no castling rights
        assert got == [
            ("R1ab1g01", True, "mismatch", "PGN White 'Impostor' but JSON 'Alice'"),
            ("R1ab2g01", True, "unreadable", f"the PGN does not replay: illegal san: 'e5' in {start}"),
        ]
        view = con.execute("SELECT record_key, kind, reason, url FROM rejected ORDER BY record_key").fetchall()
        flag = "the PGN names other players than the JSON (PGN White 'Impostor' but JSON 'Alice'): stored as the JSON says, check it"
        assert (
            "R1ab1g01",
            "flagged",
            f"{flag}; verification mismatch: PGN White 'Impostor' but JSON 'Alice'",
            "https://lichess.org/R1ab1g01",
        ) in view
        assert (
            "R1ab2g01",
            "flagged",
            f"verification unreadable: the PGN does not replay: illegal san: 'e5' in {start}",
            "https://lichess.org/R1ab2g01",
        ) in view
        assert [r for r in view if r[1] == "flagged"] == [r for r in view if r[0] in ("R1ab1g01", "R1ab2g01")]
    finally:
        con.close()


# --------------------------------------------------------------------------- the header check


def _read_players(pgn: str) -> dict[str, str]:
    h = chess.pgn.read_headers(io.StringIO(pgn))
    return {} if h is None else {t: h[t] for t in ("White", "Black") if t in h}


BENT_PGNS = [
    '[White "A"]\n[Black "B"]\n\n1. e3 *\n',
    '\n\n[White  "Spaced"]\n[White "Again"]\n[Black ""]\n\n1. e3 *\n',  # leading blank lines, repeated tag
    '[Event "x"]\n\n1. e3 *\n',  # no player tags
    '1. e3 b5 *\n[White "Late"]\n',  # a tag after the moves is not a header
    '[White "Esc \\"q\\""]\n[Black "B"]\n\n1. e3 *\n',  # escapes kept as read_headers keeps them
    '[White\t"Tab"]\r\n[WhiteElo "1"]\r\n[Black "B"] \r\n\r\n1. e3 *\r\n',  # CRLF, a tab, a tag that starts alike
    '[White "A"]\n[Black "B"]\n1. e3 *\n[Black "After the moves"]\n',  # no blank line before the moves
    "",
]


def test_header_check_reads_what_python_chess_reads() -> None:
    """verify.pgn_players is chess.pgn.read_headers for White/Black, on every game of the season
    fixture and on bent PGNs."""
    season = Path(__file__).resolve().parents[1] / "data" / "season" / "lichess" / "games.ndjson"
    pgns = [json.loads(line)["pgn"] for line in season.read_text(encoding="utf-8").splitlines()] + BENT_PGNS
    assert [pgn_players(p) for p in pgns] == [_read_players(p) for p in pgns]
    assert pgn_players(BENT_PGNS[1]) == {"White": "Again", "Black": ""}


def test_header_check_compares_only_the_accounts_the_json_names() -> None:
    """A game against the AI: the JSON has no account for that side, the PGN names the AI; only
    the other side is compared (names case-insensitively, as Lichess ids are)."""
    pgn = '[White "lichess AI level 3"]\n[Black "ALICE"]\n\n1. e3 *\n'
    assert pgn_players_problem(pgn, None, "Alice") is None
    assert pgn_players_problem(pgn, None, "Bob") == "PGN Black 'ALICE' but JSON 'Bob'"
    assert pgn_players_problem(None, "Alice", "Bob") is None


def test_a_line_orjson_refuses_is_read_as_the_standard_library_reads_it() -> None:
    """The stream parses each line with orjson, and with json.loads when orjson refuses it: such
    lines are accepted as before, and a bad line is rejected with the standard library's message
    (REJECTED['not_json']). orjson reads an integer beyond 64 bits as a float: a createdAt that
    large is then rejected as not epoch milliseconds (parse_game), where an int would have
    overflowed the datetime."""
    for line in ('{"id":"n","x":NaN}', '{"id":"i","x":-Infinity}', '{"id":"s","t":"\\ud800"}'):
        with pytest.raises(orjson.JSONDecodeError):
            orjson.loads(line)
        assert ndjson.loads(line) == json.loads(line)
    with pytest.raises(json.JSONDecodeError) as e:
        ndjson.loads('{"id":"cut"')
    assert (e.value.msg, e.value.colno) == ("Expecting ',' delimiter", 12)
    huge = ndjson.loads('{"id":"big","createdAt":123456789012345678901234567890,"lastMoveAt":1}')
    with pytest.raises(ValueError, match=r"createdAt 1\.2345678901234568e\+29: expected epoch milliseconds"):
        parse_game(huge)
