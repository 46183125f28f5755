"""Property tests (hypothesis) of linking + scoring on random games between one board's players.

TEAM-SCORE-1: part points never exceed the part total; TEAM-SCORE-3: team totals never exceed
max_points; TEAM-SCORE-2: the order parts are played in, the colours, and the listing order of
a pairing never change a score (only mirror it); TEAM-FMT-3: a game outside the window never
changes a score.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.domain.linking import GAME_COLUMNS, BoardPairing, link_board
from pipeline.domain.scoring import score_boards, score_matches
from pipeline.inputs.config import load_config
from pipeline.model import Pairing

START = dt.datetime(2026, 9, 1, tzinfo=dt.UTC)
END = START + dt.timedelta(days=7)
CLOCKS = [(0, 2), (120, 5), (60, 2), (180, 0)]  # the three Swiss parts and one that is none of them

_cfg_dir = Path(__file__).resolve().parents[1] / "data" / "skeleton"
STAGE = load_config(_cfg_dir / "tournament.toml").stage("swiss")  # parts 0+2 ×2, 2+5 ×1, 1+2 ×1 (a small board)

games_strategy = st.lists(
    st.tuples(
        st.integers(0, 7 * 24 * 60 - 1),  # minute of the window it starts in
        st.sampled_from(CLOCKS),
        st.booleans(),  # alice has white
        st.sampled_from(["alice", "bob", None]),
    ),  # winner (None: draw)
    max_size=14,
)


def rows(
    spec: list[tuple[int, tuple[int, int], bool, str | None]], offset: dt.timedelta = dt.timedelta(0)
) -> list[dict]:
    out = []
    for i, (minute, clock, alice_white, winner) in enumerate(spec):
        at = START + offset + dt.timedelta(minutes=minute, seconds=i)
        white, black = ("alice", "bob") if alice_white else ("bob", "alice")
        color = None if winner is None else ("white" if winner == white else "black")
        out.append(
            dict(
                zip(
                    GAME_COLUMNS,
                    (
                        f"g{i:07d}",
                        at,
                        at + dt.timedelta(minutes=1),
                        white,
                        black,
                        True,
                        "antichess",
                        clock[0],
                        clock[1],
                        "resign" if color else "draw",
                        color,
                    ),
                    strict=False,
                )
            )
        )
    return out


def score(games: list[dict], swap: bool = False):
    a, b = ("bob", "alice") if swap else ("alice", "bob")
    ea, eb = ("B", "A") if swap else ("A", "B")
    bp = BoardPairing("swiss", 1, 1, ea, eb, a, b, START, END)
    linked = link_board(bp, STAGE, games)
    results = score_boards(STAGE, linked, [bp])
    [m] = score_matches(STAGE, linked, results, (Pairing("swiss", 1, ea, eb, START, END, 2),), 1, END)
    return results, m


@settings(max_examples=150, deadline=None)
@given(games_strategy)
def test_part_and_team_totals_stay_within_their_maxima(spec) -> None:
    results, m = score(rows(spec))
    for r in results:
        cap = (
            STAGE.board_max_points
            if r.part == "total"
            else next(p.max_points for p in STAGE.parts if str(p.time_control) == r.part)
        )
        assert 0 <= r.a_points <= cap and 0 <= r.b_points <= cap and r.a_points + r.b_points <= cap
    assert m.a_points + m.b_points <= m.max_points == STAGE.board_max_points


@settings(max_examples=150, deadline=None)
@given(games_strategy)
def test_listing_order_and_colours_only_mirror_the_score(spec) -> None:
    _, m = score(rows(spec))
    _, swapped = score(rows(spec), swap=True)
    assert (m.a_points, m.b_points) == (swapped.b_points, swapped.a_points)
    flipped = [(minute, clock, not white, winner) for minute, clock, white, winner in spec]
    _, colours = score(rows(flipped))
    assert (m.a_points, m.b_points) == (colours.a_points, colours.b_points)


@settings(max_examples=150, deadline=None)
@given(games_strategy, games_strategy)
def test_games_outside_the_window_change_nothing(spec, outside) -> None:
    _, m = score(rows(spec))
    late = [(g["game_id"].replace("g", "x"), g) for g in rows(outside, offset=dt.timedelta(days=7))]
    extra = [{**g, "game_id": gid} for gid, g in late]
    _, with_late = score(rows(spec) + extra)
    assert (m.a_points, m.b_points) == (with_late.a_points, with_late.b_points)
