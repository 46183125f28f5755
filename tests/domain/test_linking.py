"""Linking: which games between paired players count, and why the others do not.

Rules: TEAM-FMT-3 (round window Tuesday 00:00 to Monday 23:59:59 UTC, games outside flagged,
not counted), TEAM-SCORE-1 (a part is N games at one clock; the first N count), ACWC-FMT-1
(rated games only where the stage says so), and what every rule assumes (aborted games do not
count; a draw is a game without a winner).
"""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from pipeline.domain.linking import GAME_COLUMNS, BoardPairing, link_board
from pipeline.domain.timecontrol import parse_time_control
from pipeline.model import MatchPoints, Part, Stage

START = dt.datetime(2026, 3, 3, tzinfo=dt.UTC)  # a Tuesday
END = START + dt.timedelta(days=7)


def stage(rated_only: bool = False) -> Stage:
    return Stage(
        name="swiss",
        kind="swiss",
        rounds=7,
        parts=(Part(parse_time_control("0+2"), 2, 6, 3), Part(parse_time_control("2+5"), 1, 12, 6)),
        primary="match_points",
        tiebreaks=("points_difference",),
        match_points=MatchPoints(2, 1, 0),
        rated_only=rated_only,
        first_round_start=START,
        round_days=7,
        window_margin_days=3,
    )


BP = BoardPairing("swiss", 1, 1, "Alphas", "Betas", "alice", "bob", START, END)


def game(
    gid: str,
    at: dt.datetime,
    clock: tuple[int, int] | None = (0, 2),
    white: str = "alice",
    black: str = "bob",
    winner: str | None = "white",
    status: str = "resign",
    variant: str = "antichess",
    rated: bool = True,
) -> dict:
    row = dict(
        zip(
            GAME_COLUMNS,
            (
                gid,
                at,
                at + dt.timedelta(minutes=3),
                white,
                black,
                rated,
                variant,
                clock[0] if clock else None,
                clock[1] if clock else None,
                status,
                winner,
            ),
            strict=False,
        )
    )
    return row


def by_id(rows):
    return {r.game_id: r for r in rows}


def test_first_n_games_of_a_part_count_and_the_rest_are_extra() -> None:
    """TEAM-SCORE-1: the first N games per part by creation time count; a third 0+2 game is extra."""
    t = START + dt.timedelta(days=1)
    rows = by_id(
        link_board(
            BP,
            stage(),
            [
                game("g3", t + dt.timedelta(minutes=10)),
                game("g1", t),
                game("g2", t + dt.timedelta(minutes=5)),
            ],
        )
    )
    assert [rows[g].reason for g in ("g1", "g2", "g3")] == ["counted", "counted", "extra_game"]
    assert rows["g3"].a_points == rows["g3"].b_points == 0


def test_window_is_tuesday_to_monday_inclusive_of_23_59_59() -> None:
    """TEAM-FMT-3: a game created Monday 23:59:59 counts; one created Tuesday 00:00:00 is outside."""
    rows = by_id(
        link_board(
            BP,
            stage(),
            [
                game("last", END - dt.timedelta(seconds=1)),
                game("late", END),
                game("early", START - dt.timedelta(seconds=1)),
                game("first", START),
                game("far", START - dt.timedelta(days=4)),  # beyond the 3-day margin: not listed at all
            ],
        )
    )
    assert rows["last"].reason == "counted" and rows["first"].reason == "counted"
    assert rows["late"].reason == "outside_window" and rows["early"].reason == "outside_window"
    assert "far" not in rows


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"clock": (180, 0)}, "wrong_time_control"),
        ({"clock": None}, "wrong_time_control"),
        ({"variant": "standard"}, "not_antichess"),
        ({"status": "aborted", "winner": None}, "aborted"),
        ({"status": "noStart"}, "no_start"),
    ],
)
def test_games_that_do_not_count_keep_their_reason(kwargs: dict, reason: str) -> None:
    """TEAM-SCORE-1: each excluded game is listed with why, never dropped."""
    rows = link_board(BP, stage(), [game("x", START + dt.timedelta(days=2), **kwargs)])
    assert [(r.game_id, r.counted, r.reason) for r in rows] == [("x", False, reason)]


def test_casual_games_count_unless_the_stage_requires_rated() -> None:
    """ACWC-FMT-1: all games rated; the TEAM book sets no such requirement."""
    g = game("c", START + dt.timedelta(days=2), rated=False)
    assert link_board(BP, stage(rated_only=False), [g])[0].reason == "counted"
    assert link_board(BP, stage(rated_only=True), [g])[0].reason == "casual"


def test_points_follow_the_player_not_the_colour() -> None:
    """TEAM-SCORE-1: win 6 / draw 3 in the 0+2 part, 12 in 2+5; a is alice whichever colour she has."""
    t = START + dt.timedelta(days=1)
    rows = by_id(
        link_board(
            BP,
            stage(),
            [
                game("w", t, white="alice", black="bob", winner="white"),  # alice wins as white
                game("b", t + dt.timedelta(minutes=5), white="bob", black="alice", winner="white"),  # bob wins as white
                game("d", t + dt.timedelta(minutes=10), clock=(120, 5), winner=None, status="draw"),
            ],
        )
    )
    assert (rows["w"].a_points, rows["w"].b_points) == (6, 0)
    assert (rows["b"].a_points, rows["b"].b_points) == (0, 6)
    assert (rows["d"].a_points, rows["d"].b_points, rows["d"].part) == (6, 6, "2+5")


def test_link_stage_finds_games_in_either_colour_from_a_frame() -> None:
    from pipeline.domain.linking import link_stage
    from pipeline.model import Member, Pairing, Roster

    roster = Roster((Member("Alphas", "alice", "Alice", 1, "", True), Member("Betas", "bob", "Bob", 1, "", True)))
    pairing = Pairing("swiss", 1, "Alphas", "Betas", START, END, 2)
    t = START + dt.timedelta(days=1)
    frame = pl.DataFrame(
        [
            game("g1", t),
            game("g2", t + dt.timedelta(minutes=5), white="bob", black="alice"),
            game("other", t, white="alice", black="carol"),
        ]
    )
    rows = link_stage(stage(), (pairing,), roster, 1, frame)
    assert sorted(r.game_id for r in rows) == ["g1", "g2"]


def test_captains_tiebreak_games_are_listed_once() -> None:
    """TEAM-KO-1: the captains' 3+0 games of a knockout match are listed once, as board 0 with reason
    captains_tiebreak, even when the captains also meet on a board (not a second time there as
    wrong_time_control). A fifth 3+0 game is not a tiebreak game: it stays on the
    board as wrong_time_control; the board's own 0+2 game counts."""
    import dataclasses

    from pipeline.domain.linking import link_stage
    from pipeline.model import Member, Pairing, Roster

    roster = Roster((Member("Alphas", "alice", "Alice", 1, "", True), Member("Betas", "bob", "Bob", 1, "", True)))
    pairing = Pairing("knockout", 1, "Alphas", "Betas", START, END, 2)
    t = START + dt.timedelta(days=2)
    frame = pl.DataFrame(
        [game("board02", t)]
        + [game(f"cap{i}", t + dt.timedelta(hours=1, minutes=5 * i), clock=(180, 0)) for i in range(5)]
    )
    ko = dataclasses.replace(stage(), name="knockout", kind="knockout")
    rows = link_stage(ko, (pairing,), roster, 1, frame, captains={"Alphas": "alice", "Betas": "bob"})
    assert sorted((r.game_id, r.board, r.reason) for r in rows) == [
        ("board02", 1, "counted"),
        ("cap0", 0, "captains_tiebreak"),
        ("cap1", 0, "captains_tiebreak"),
        ("cap2", 0, "captains_tiebreak"),
        ("cap3", 0, "captains_tiebreak"),
        ("cap4", 1, "wrong_time_control"),
    ]
