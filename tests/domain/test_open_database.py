"""A stored game in the Lichess open database's columns (pipeline/domain/open_database.py): the
values Lichess writes in its dumps, checked against dump records written by hand (their own tags
are the expectation), and lila's status → Termination table against the reader of the dumps
(pipeline/lichess/dump_reader.py, which maps the other way)."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from pipeline.domain import open_database
from pipeline.lichess import dump_reader
from pipeline.lichess.client import GAME_STATUSES

CLOCKED = (
    "1. e3 { [%clk 0:03:00] } 1... b5 { [%clk 0:03:00] } 2. Bxb5 { [%eval #-3] [%clk 0:02:58] } "
    "2... Bb7 { [%clk 0:02:40] }"
)


def record(result: str, termination: str, titles: str = "", movetext: str = CLOCKED) -> str:
    """A game as the dumps write it: tags in their order, the movetext on one line ending with the result."""
    return (
        '[Event "Rated Antichess game"]\n[Site "https://lichess.org/abcdEF12"]\n[Date "2026.07.10"]\n'
        f'[Round "-"]\n[White "Alice"]\n[Black "olga"]\n[Result "{result}"]\n[UTCDate "2026.07.10"]\n'
        '[UTCTime "21:05:09"]\n[WhiteElo "1500"]\n[BlackElo "1612"]\n[WhiteRatingDiff "+9"]\n'
        f'[BlackRatingDiff "-9"]\n{titles}[TimeControl "180+2"]\n[Termination "{termination}"]\n'
        f'[Variant "Antichess"]\n\n{movetext} {result}\n\n'
    )


@pytest.mark.parametrize(
    ("result", "termination"),
    [
        ("1-0", "Normal"),
        ("0-1", "Time forfeit"),
        ("1/2-1/2", "Normal"),
        ("1-0", "Abandoned"),
        ("0-1", "Rules infraction"),
        ("1/2-1/2", "Unknown"),
        ("1/2-1/2", "Insufficient material"),
    ],
)
def test_a_dump_game_stored_gives_back_the_dumps_own_tags(result: str, termination: str) -> None:
    """Parquet contract: a game read from a dump (typed as the store keeps it) gives the columns its
    record's tags and movetext say, clock and eval comments kept, ratings as whole numbers."""
    text = record(result, termination, titles='[WhiteTitle "FM"]\n[BlackTitle "BOT"]\n')
    row = dataclasses.asdict(dump_reader.parse_dump_game(text))
    assert open_database.game_columns(row) == {
        "Event": "Rated Antichess game",
        "Site": "https://lichess.org/abcdEF12",
        "White": "Alice",
        "Black": "olga",
        "Result": result,
        "WhiteTitle": "FM",
        "BlackTitle": "BOT",
        "WhiteElo": 1500,
        "BlackElo": 1612,
        "WhiteRatingDiff": 9,
        "BlackRatingDiff": -9,
        "UTCDate": dt.date(2026, 7, 10),
        "UTCTime": dt.time(21, 5, 9),
        "Termination": termination,
        "TimeControl": "180+2",
        "movetext": f"{CLOCKED} {result}",
    }


def test_every_status_has_the_termination_the_dump_reader_reads_back() -> None:
    """lila's PgnDump table, both ways: every status the API reports has a Termination; the dump
    reader reads each finished one back to a status with the same Termination (a Normal game's
    status comes from the board, a Time forfeit is outoftime), and created/started are
    Unterminated, which the reader refuses as a game still being played."""
    assert set(open_database.TERMINATION_OF_STATUS) == GAME_STATUSES
    for status in sorted(GAME_STATUSES):
        tag = open_database.termination(status)
        if status in ("created", "started"):
            assert tag == "Unterminated"
            continue
        winner = None if status in ("aborted", "draw", "unknownFinish", "insufficientMaterialClaim") else "white"
        back = dump_reader.dump_status(tag, winner, ["e3", "b5"])
        assert open_database.termination(back) == tag, (status, tag, back)
    with pytest.raises(ValueError, match="status 'finished': expected one of Lichess's game statuses"):
        open_database.termination("finished")


@pytest.mark.parametrize(
    ("winner", "status", "tag"),
    [
        ("white", "resign", "1-0"),
        ("black", "outoftime", "0-1"),
        (None, "draw", "1/2-1/2"),
        (None, "stalemate", "1/2-1/2"),  # antichess: a game without a winner is a draw
        (None, "started", "*"),
        (None, "aborted", "*"),
        ("white", "noStart", "1-0"),
    ],
)
def test_result_is_the_winners_a_draw_or_star_when_unfinished(winner: str | None, status: str, tag: str) -> None:
    assert open_database.result(winner, status) == tag


def test_a_game_without_a_stored_pgn_numbers_the_json_moves() -> None:
    """Without a PGN: Event from rated and variant, no titles, movetext numbered from the JSON's
    moves and ended with the result; no clock gives TimeControl '-'; the time in UTC."""
    game = {
        "game_id": "noPgn001",
        "created_at": dt.datetime(2026, 3, 4, 20, 0, 1, 250_000, tzinfo=dt.timezone(dt.timedelta(hours=2))),
        "white_name": None,
        "black_name": "Bob",
        "white_id": "alice",
        "black_id": "bob",
        "rated": False,
        "variant": "antichess",
        "clock_initial_s": None,
        "clock_increment_s": None,
        "status": "variantEnd",
        "winner": "black",
        "white_rating": 2100,
        "black_rating": 2080,
        "white_rating_diff": None,
        "black_rating_diff": None,
        "moves": "e3 b5 Bxb5",
        "pgn": None,
    }
    cols = open_database.game_columns(game)
    assert (cols["Event"], cols["White"], cols["Result"], cols["WhiteTitle"]) == (
        "Casual Antichess game",
        "alice",
        "0-1",
        None,
    )
    assert cols["movetext"] == "1. e3 b5 2. Bxb5 0-1"
    assert (cols["TimeControl"], cols["Termination"], cols["WhiteRatingDiff"]) == ("-", "Normal", None)
    assert (cols["UTCDate"], cols["UTCTime"]) == (dt.date(2026, 3, 4), dt.time(18, 0, 1))
