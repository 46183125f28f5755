"""Weighted scoring: board results per part, board totals, and team match results.

TEAM-SCORE-1: a part is N games at one clock, ``win`` points per won game and ``draw`` per drawn
game (loss 0); the order of parts does not matter (TEAM-SCORE-2). TEAM-SCORE-3: a team match
score is the sum of its boards; the side that reaches more than half of the maximum has won
(576 → 289, 768 → 385, 960 → 481; ACWC 10 games → 5.5), even if games remain to be played.

Pure: takes linked games and the stage; returns frozen rows.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from pipeline.config import Stage
from pipeline.inputs import Pairing
from pipeline.linking import BoardPairing, MatchGame

Outcome = Literal["a", "b", "draw", "pending"]


@dataclass(frozen=True)
class BoardResult:
    stage: str
    round: int
    board: int
    team_a: str
    team_b: str
    player_a: str
    player_b: str
    part: str  # a part's time control, or 'total'
    games_played: int
    games_due: int
    a_points: float
    b_points: float


@dataclass(frozen=True)
class TeamMatch:
    stage: str
    round: int
    team_a: str
    team_b: str
    a_points: float
    b_points: float
    max_points: float
    winning_points: float
    games_played: int
    games_due: int
    decided_by_game_id: str | None
    outcome: Outcome
    winner: str | None


def winning_points(stage: Stage, boards: int) -> float:
    """The first score above half the maximum (TEAM-SCORE-3: 576 → 289; ACWC-Q-2: 10 → 5.5).

    Scores move in units of 1 when every win/draw value is whole, else in the finest fraction
    they use (0.5 for half points); reaching this total is having more than half the maximum."""
    values = [Fraction(v).limit_denominator(1000) for p in stage.parts for v in (p.win, p.draw)]
    step = Fraction(1, math.lcm(*(v.denominator for v in values)))
    maximum = Fraction(stage.board_max_points).limit_denominator(1000) * boards
    return float((math.floor(maximum / 2 / step) + 1) * step)  # the first score above half


def score_boards(stage: Stage, linked: list[MatchGame], board_pairings: list[BoardPairing]) -> list[BoardResult]:
    """One row per (pairing, board, part) plus the board's total; unplayed parts show 0 of N."""
    counted: dict[tuple[int, str, int, str], list[MatchGame]] = defaultdict(list)
    for g in linked:
        if g.counted and g.part is not None:
            counted[g.round, g.entrant_a, g.board, g.part].append(g)
    out = []
    for bp in board_pairings:
        if bp.stage != stage.name:
            continue
        rows = []
        for part in stage.parts:
            games = counted.get((bp.round, bp.entrant_a, bp.board, str(part.time_control)), [])
            rows.append(BoardResult(stage.name, bp.round, bp.board, bp.entrant_a, bp.entrant_b, bp.player_a, bp.player_b,
                                    str(part.time_control), len(games), part.games,
                                    sum(g.a_points for g in games), sum(g.b_points for g in games)))
        out.extend(rows)
        out.append(BoardResult(stage.name, bp.round, bp.board, bp.entrant_a, bp.entrant_b, bp.player_a, bp.player_b, "total",
                               sum(r.games_played for r in rows), sum(r.games_due for r in rows),
                               sum(r.a_points for r in rows), sum(r.b_points for r in rows)))
    return out


def score_matches(stage: Stage, linked: list[MatchGame], results: list[BoardResult], pairings: tuple[Pairing, ...],
                  boards: int, now: dt.datetime) -> list[TeamMatch]:
    """Team match totals and outcome. A match is decided when a side reaches the winning points,
    or when every game is played, or when its round window has closed (then the score stands)."""
    win_at = winning_points(stage, boards)
    max_points = stage.board_max_points * boards
    out = []
    for p in pairings:
        if p.stage != stage.name:
            continue
        rows = [r for r in results if r.part == "total" and r.round == p.round and r.team_a == p.a]
        a = sum(r.a_points for r in rows)
        b = sum(r.b_points for r in rows)
        played = sum(r.games_played for r in rows)
        due = sum(r.games_due for r in rows)
        decided_by = None
        ra = rb = 0.0
        games = sorted((g for g in linked if g.counted and g.round == p.round and g.entrant_a == p.a),
                       key=lambda g: (g.last_move_at, g.game_id))
        for g in games:
            ra += g.a_points
            rb += g.b_points
            if ra >= win_at or rb >= win_at:
                decided_by = g.game_id
                break
        outcome: Outcome
        if a >= win_at:
            outcome = "a"
        elif b >= win_at:
            outcome = "b"
        elif played >= due or now >= p.window_end:
            outcome = "a" if a > b else "b" if b > a else "draw"
        else:
            outcome = "pending"
        winner = p.a if outcome == "a" else p.b if outcome == "b" else None
        out.append(TeamMatch(stage.name, p.round, p.a, p.b, a, b, max_points, win_at, played, due, decided_by, outcome, winner))
    return out
