"""Scoring: board results per part, team totals, winning thresholds and the deciding game.

Rules: TEAM-SCORE-1 (parts), TEAM-SCORE-3 (576 → 289, 768 → 385, 960 → 481; the match is won when
a side reaches the winning total), ACWC-Q-2 (10 games, win 1, draw 0.5: 5.5 wins).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import pytest

from pipeline.domain.linking import BoardPairing, MatchGame
from pipeline.domain.scoring import score_boards, score_matches, winning_points
from pipeline.inputs.config import load_config
from pipeline.model import Pairing

PRESET_ONLY = "[tournament]\nid = 't'\n[paths]\nteams = 't.csv'\nplayers = 'p.csv'\npairings = 'p.csv'\ndatabase = 'x.duckdb'\nexports = 'e'\n"


def config(tmp_path: Path, preset: str):
    p = tmp_path / "tournament.toml"
    p.write_text(f'preset = "{preset}"\n' + PRESET_ONLY, encoding="utf-8")
    return load_config(p)


def test_team_winning_totals(tmp_path: Path) -> None:
    """TEAM-SCORE-3: Swiss 4 x 144 = 576, 289 wins; knockout 768, 385; final 960, 481."""
    cfg = config(tmp_path, "team-swiss")
    assert [(s.name, s.board_max_points * 4, winning_points(s, 4)) for s in cfg.stages] == [
        ("swiss", 576, 289),
        ("knockout", 768, 385),
        ("final", 960, 481),
    ]
    # TEAM-COMP-1's 3-board path: 3 × 144 = 432, floor(432 / 2) + 1 = 217
    assert winning_points(cfg.stage("swiss"), 3) == 217


def test_acwc_match_is_won_at_five_and_a_half(tmp_path: Path) -> None:
    """ACWC-Q-2: 10 games, win 1, draw 0.5 → either player reaching 5.5 has won."""
    cfg = config(tmp_path, "acwc-2021")
    assert winning_points(cfg.stage("qualification"), 1) == 5.5
    assert winning_points(cfg.stage("final"), 1) == 6.5  # ACWC-F-1: 12 games


START = dt.datetime(2026, 3, 3, tzinfo=dt.UTC)


def mg(gid: str, board: int, part: str, a: float, b: float, minute: int, counted: bool = True) -> MatchGame:
    t = START + dt.timedelta(days=1, minutes=minute)
    return MatchGame(
        "swiss",
        1,
        board,
        "A",
        "B",
        f"a{board}",
        f"b{board}",
        gid,
        t,
        t + dt.timedelta(minutes=2),
        part,
        part,
        counted,
        "counted" if counted else "extra_game",
        a,
        b,
    )


def test_boards_parts_totals_and_deciding_game(tmp_path: Path) -> None:
    """TEAM-SCORE-1/3 on a one-part stage of 2 games (win 6 / draw 3), 2 boards: max 24, 13 wins."""
    import dataclasses

    base = config(tmp_path, "team-swiss").stage("swiss")
    stage = dataclasses.replace(base, parts=(base.parts[0].__class__(base.parts[0].time_control, 2, 6, 3),))
    assert winning_points(stage, 2) == 13
    linked = [
        mg("g1", 1, "0+2", 6, 0, 0),  # A 6
        mg("g2", 2, "0+2", 6, 0, 1),  # A 12
        mg("g3", 1, "0+2", 3, 3, 5),  # A 15 → reaches 13 here
        mg("g4", 2, "0+2", 0, 6, 6),
        mg("g5", 2, "0+2", 6, 0, 9, counted=False),  # an extra game scores nothing
    ]
    boards = [
        BoardPairing("swiss", 1, b, "A", "B", f"a{b}", f"b{b}", START, START + dt.timedelta(days=7)) for b in (1, 2)
    ]
    results = score_boards(stage, linked, boards)
    totals = {r.board: (r.a_points, r.b_points, r.games_played, r.games_due) for r in results if r.part == "total"}
    assert totals == {1: (9, 3, 2, 2), 2: (6, 6, 2, 2)}
    pairing = Pairing("swiss", 1, "A", "B", START, START + dt.timedelta(days=7), 2)
    [match] = score_matches(stage, linked, results, (pairing,), 2, now=START + dt.timedelta(days=2))
    assert (match.a_points, match.b_points, match.max_points) == (15, 9, 24)
    assert (match.decided_by_game_id, match.outcome, match.winner) == ("g3", "a", "A")


def test_unfinished_match_is_pending_until_the_window_closes(tmp_path: Path) -> None:
    """TEAM-SCORE-3 / TEAM-FMT-3: no winner yet and games remain → pending; after Monday 23:59:59 the
    score stands as played when every board has games (the missing games score nothing)."""
    stage = config(tmp_path, "team-swiss").stage("swiss")
    linked = [mg(f"g{b}", b, "0+2", 6 if b == 1 else 3, 0 if b == 1 else 3, b) for b in (1, 2, 3, 4)]
    boards = [
        BoardPairing("swiss", 1, b, "A", "B", f"a{b}", f"b{b}", START, START + dt.timedelta(days=7))
        for b in (1, 2, 3, 4)
    ]
    results = score_boards(stage, linked, boards, now=START + dt.timedelta(days=7))
    pairing = Pairing("swiss", 1, "A", "B", START, START + dt.timedelta(days=7), 2)
    [open_] = score_matches(stage, linked, results, (pairing,), 4, now=START + dt.timedelta(days=3))
    [closed] = score_matches(stage, linked, results, (pairing,), 4, now=START + dt.timedelta(days=7))
    assert (open_.outcome, open_.winner, open_.games_played, open_.games_due) == ("pending", None, 4, 72)
    assert (closed.outcome, closed.winner, closed.a_points, closed.b_points) == ("a", "A", 15, 9)
    assert not any(r.is_unplayed for r in results)


def test_a_board_with_no_game_is_unplayed_not_a_draw(tmp_path: Path) -> None:
    """TEAM-SCORE-4: a 0-0 draw is a TD ruling, never a default. Round window [Tue 3 Mar, Tue 10 Mar),
    margin 3 days (window_margin_days). With one game on board 1 (6-0) and nothing on boards 2-4:
    at the window's end the match waits (pending) for the margin; after it, boards 2-4 are unplayed
    and so is the match (6 < 289: the boards' rulings could still decide it): no winner. With no game
    at all, the same: unplayed, not a 0-0 draw."""
    stage = config(tmp_path, "team-swiss").stage("swiss")
    end = START + dt.timedelta(days=7)
    boards = [BoardPairing("swiss", 1, b, "A", "B", f"a{b}", f"b{b}", START, end) for b in (1, 2, 3, 4)]
    pairing = (Pairing("swiss", 1, "A", "B", START, end, 2),)
    for linked in ([mg("g1", 1, "0+2", 6, 0, 0)], []):
        at_end = score_boards(stage, linked, boards, now=end)
        [m] = score_matches(stage, linked, at_end, pairing, 4, now=end)
        assert (m.outcome, m.winner) == ("pending", None)
        assert not any(r.is_unplayed for r in at_end)
        later = end + dt.timedelta(days=3)
        after = score_boards(stage, linked, boards, now=later)
        [m] = score_matches(stage, linked, after, pairing, 4, now=later)
        assert (m.outcome, m.winner, m.a_points, m.b_points) == ("unplayed", None, 6 if linked else 0, 0)
        assert sorted({r.board for r in after if r.is_unplayed}) == ([2, 3, 4] if linked else [1, 2, 3, 4])


def test_a_match_won_before_a_board_went_unplayed_stands(tmp_path: Path) -> None:
    """TEAM-SCORE-3: a side that reached the winning total has won, whatever the other boards do. Three
    boards of one 2-game part (win 6, draw 3: max 36, 19 wins), board 3 without a game after the
    margin. A leads 18-0 (board 1 12-0, board 2 one game 6-0): not won yet, so the match is unplayed.
    With board 2's second game drawn, A has 21 ≥ 19: A won (decided by that game), board 3 stays
    unplayed (its points wait for a ruling)."""
    base = config(tmp_path, "team-swiss").stage("swiss")
    stage = dataclasses.replace(base, parts=(base.parts[0].__class__(base.parts[0].time_control, 2, 6, 3),))
    end = START + dt.timedelta(days=7)
    linked = [mg("g1", 1, "0+2", 6, 0, 0), mg("g2", 1, "0+2", 6, 0, 1), mg("g3", 2, "0+2", 6, 0, 2)]
    boards = [BoardPairing("swiss", 1, b, "A", "B", f"a{b}", f"b{b}", START, end) for b in (1, 2, 3)]
    later = end + dt.timedelta(days=4)
    results = score_boards(stage, linked, boards, now=later)
    assert winning_points(stage, 3) == 19
    [m] = score_matches(stage, linked, results, (Pairing("swiss", 1, "A", "B", START, end, 2),), 3, now=later)
    assert (m.outcome, m.winner, m.a_points) == ("unplayed", None, 18)  # 18 < 19: not yet won
    linked.append(mg("g4", 2, "0+2", 3, 3, 3))
    results = score_boards(stage, linked, boards, now=later)
    [m] = score_matches(stage, linked, results, (Pairing("swiss", 1, "A", "B", START, end, 2),), 3, now=later)
    assert (m.outcome, m.winner, m.a_points, m.decided_by_game_id) == ("a", "A", 21, "g4")
    assert [r.board for r in results if r.part == "total" and r.is_unplayed] == [3]


@pytest.mark.parametrize(("a", "b", "outcome"), [(24, 24, "draw"), (23, 25, "b")])
def test_closed_match_below_threshold_compares_totals(tmp_path: Path, a: float, b: float, outcome: str) -> None:
    stage = config(tmp_path, "team-swiss").stage("swiss")
    linked = [mg("g1", 1, "0+2", a, b, 0)]
    boards = [BoardPairing("swiss", 1, 1, "A", "B", "a1", "b1", START, START + dt.timedelta(days=7))]
    results = score_boards(stage, linked, boards)
    pairing = Pairing("swiss", 1, "A", "B", START, START + dt.timedelta(days=7), 2)
    [m] = score_matches(stage, linked, results, (pairing,), 1, now=START + dt.timedelta(days=8))
    assert m.outcome == outcome


def test_odd_maximum_threshold_is_the_first_score_above_half(tmp_path: Path) -> None:
    """TEAM-SCORE-3 'more than half': a 3-board match of one 7-point game each (max 21) is won at 11."""
    import dataclasses

    base = config(tmp_path, "team-swiss").stage("swiss")
    stage = dataclasses.replace(base, parts=(base.parts[0].__class__(base.parts[0].time_control, 1, 7, 3.5),))
    assert winning_points(stage, 3) == 11  # half is 10.5; scores move by 0.5 → 11.0
    stage = dataclasses.replace(base, parts=(base.parts[0].__class__(base.parts[0].time_control, 1, 7, 3),))
    assert winning_points(stage, 3) == 11  # whole points: 11 is the first above 10.5


def test_acwc_candidates_play_all_ten(tmp_path: Path) -> None:
    """ACWC-Q-2: a qualification match is decided at 5.5 and the rest is optional; ACWC-C-1: a
    candidates match stands only when all 10 games are played (or the window has closed)."""
    cfg = config(tmp_path, "acwc-2021")
    q, c = cfg.stage("qualification"), cfg.stage("candidates")
    assert (q.play_all, c.play_all) == (False, True)
    linked = [
        MatchGame(
            st,
            1,
            1,
            "x",
            "y",
            "x",
            "y",
            f"g{i}",
            START + dt.timedelta(hours=i),
            START + dt.timedelta(hours=i, minutes=9),
            "2+5",
            "2+5",
            True,
            "counted",
            1.0,
            0.0,
        )
        for i in range(6)
        for st in ("qualification",)
    ]
    for st in (q, c):
        rows = [dataclasses.replace(m, stage=st.name) for m in linked]
        bps = [BoardPairing(st.name, 1, 1, "x", "y", "x", "y", START, START + dt.timedelta(days=7))]
        results = score_boards(st, rows, bps)
        pairing = (Pairing(st.name, 1, "x", "y", START, START + dt.timedelta(days=7), 2),)
        [m] = score_matches(st, rows, results, pairing, 1, now=START + dt.timedelta(days=1))
        assert (m.a_points, m.games_played, m.games_due) == (6, 6, 10)
        assert m.outcome == ("a" if st is q else "pending"), st.name
        assert m.decided_by_game_id == "g5"  # 5.5 reached with the sixth win either way


def test_acwc_match_with_no_game_is_unplayed_and_scores_nothing(tmp_path: Path) -> None:
    """ACWC-Q-2 / ACWC-DQ-1: a qualification match (10 games, game points) whose window [3 Mar, 10 Mar)
    and margin (3 days) passed with no game and no ruling is unplayed: no winner, and in the table
    neither player has points or a match played (x beat z 6-4 in round 1: x 6, z 4, y 0)."""
    from pipeline.domain.standings import standings_after

    stage = config(tmp_path, "acwc-2021").stage("qualification")
    end = START + dt.timedelta(days=7)
    bps = [BoardPairing("qualification", 2, 1, "x", "y", "x", "y", START, end)]
    later = end + dt.timedelta(days=3)
    results = score_boards(stage, [], bps, now=later)
    [m] = score_matches(stage, [], results, (Pairing("qualification", 2, "x", "y", START, end, 2),), 1, now=later)
    assert (m.outcome, m.winner, m.a_points, m.b_points) == ("unplayed", None, 0, 0)
    assert all(r.is_unplayed for r in results)
    first = dataclasses.replace(
        m, round=1, team_b="z", a_points=6, b_points=4, games_played=10, outcome="a", winner="x"
    )
    rows = {r.entrant: r for r in standings_after(stage, ("x", "y", "z"), [first, m], 2)}
    assert {e: (r.points_scored, r.matches_played) for e, r in rows.items()} == {"x": (6, 1), "y": (0, 0), "z": (4, 1)}
