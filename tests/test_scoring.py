"""Scoring: board results per part, team totals, winning thresholds and the deciding game.

Rules: TEAM-SCORE-1 (parts), TEAM-SCORE-3 (576 → 289, 768 → 385, 960 → 481; the match is won when
a side reaches the winning total), ACWC-Q-2 (10 games, win 1, draw 0.5: 5.5 wins).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import pytest

from pipeline.config import load_config
from pipeline.inputs import Pairing
from pipeline.linking import BoardPairing, MatchGame
from pipeline.scoring import score_boards, score_matches, winning_points

PRESET_ONLY = "[tournament]\nid = 't'\n[paths]\nteams = 't.csv'\nplayers = 'p.csv'\npairings = 'p.csv'\ndatabase = 'x.duckdb'\nexports = 'e'\n"


def config(tmp_path: Path, preset: str):
    p = tmp_path / "tournament.toml"
    p.write_text(f'preset = "{preset}"\n' + PRESET_ONLY, encoding="utf-8")
    return load_config(p)


def test_team_winning_totals(tmp_path: Path) -> None:
    """TEAM-SCORE-3: Swiss 4 x 144 = 576, 289 wins; knockout 768, 385; final 960, 481."""
    cfg = config(tmp_path, "team-swiss")
    assert [(s.name, s.board_max_points * 4, winning_points(s, 4)) for s in cfg.stages] == [
        ("swiss", 576, 289), ("knockout", 768, 385), ("final", 960, 481)]
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
    return MatchGame("swiss", 1, board, "A", "B", f"a{board}", f"b{board}", gid, t, t + dt.timedelta(minutes=2),
                     part, part, counted, "counted" if counted else "extra_game", a, b)


def test_boards_parts_totals_and_deciding_game(tmp_path: Path) -> None:
    """TEAM-SCORE-1/3 on a one-part stage of 2 games (win 6 / draw 3), 2 boards: max 24, 13 wins."""
    import dataclasses

    base = config(tmp_path, "team-swiss").stage("swiss")
    stage = dataclasses.replace(base, parts=(base.parts[0].__class__(base.parts[0].time_control, 2, 6, 3),))
    assert winning_points(stage, 2) == 13
    linked = [
        mg("g1", 1, "0+2", 6, 0, 0),      # A 6
        mg("g2", 2, "0+2", 6, 0, 1),      # A 12
        mg("g3", 1, "0+2", 3, 3, 5),      # A 15 → reaches 13 here
        mg("g4", 2, "0+2", 0, 6, 6),
        mg("g5", 2, "0+2", 6, 0, 9, counted=False),  # an extra game scores nothing
    ]
    boards = [BoardPairing("swiss", 1, b, "A", "B", f"a{b}", f"b{b}", START, START + dt.timedelta(days=7)) for b in (1, 2)]
    results = score_boards(stage, linked, boards)
    totals = {r.board: (r.a_points, r.b_points, r.games_played, r.games_due) for r in results if r.part == "total"}
    assert totals == {1: (9, 3, 2, 2), 2: (6, 6, 2, 2)}
    pairing = Pairing("swiss", 1, "A", "B", START, START + dt.timedelta(days=7), 2)
    [match] = score_matches(stage, linked, results, (pairing,), 2, now=START + dt.timedelta(days=2))
    assert (match.a_points, match.b_points, match.max_points) == (15, 9, 24)
    assert (match.decided_by_game_id, match.outcome, match.winner) == ("g3", "a", "A")


def test_unfinished_match_is_pending_until_the_window_closes(tmp_path: Path) -> None:
    """TEAM-SCORE-3 / TEAM-FMT-3: no winner yet and games remain → pending; after Monday 23:59:59 the score stands."""
    stage = config(tmp_path, "team-swiss").stage("swiss")
    linked = [mg("g1", 1, "0+2", 6, 0, 0)]
    boards = [BoardPairing("swiss", 1, b, "A", "B", f"a{b}", f"b{b}", START, START + dt.timedelta(days=7)) for b in (1, 2, 3, 4)]
    results = score_boards(stage, linked, boards)
    pairing = Pairing("swiss", 1, "A", "B", START, START + dt.timedelta(days=7), 2)
    [open_] = score_matches(stage, linked, results, (pairing,), 4, now=START + dt.timedelta(days=3))
    [closed] = score_matches(stage, linked, results, (pairing,), 4, now=START + dt.timedelta(days=7))
    assert (open_.outcome, open_.winner, open_.games_played, open_.games_due) == ("pending", None, 1, 72)
    assert (closed.outcome, closed.winner) == ("a", "A")


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
    linked = [MatchGame(st, 1, 1, "x", "y", "x", "y", f"g{i}", START + dt.timedelta(hours=i), START + dt.timedelta(hours=i, minutes=9),
                        "2+5", "2+5", True, "counted", 1.0, 0.0) for i in range(6) for st in ("qualification",)]
    for st in (q, c):
        rows = [dataclasses.replace(m, stage=st.name) for m in linked]
        bps = [BoardPairing(st.name, 1, 1, "x", "y", "x", "y", START, START + dt.timedelta(days=7))]
        results = score_boards(st, rows, bps)
        pairing = (Pairing(st.name, 1, "x", "y", START, START + dt.timedelta(days=7), 2),)
        [m] = score_matches(st, rows, results, pairing, 1, now=START + dt.timedelta(days=1))
        assert (m.a_points, m.games_played, m.games_due) == (6, 6, 10)
        assert m.outcome == ("a" if st is q else "pending"), st.name
        assert m.decided_by_game_id == "g5"  # 5.5 reached with the sixth win either way
