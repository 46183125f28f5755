"""Weighted scoring: board results per part, board totals, and team match results.

TEAM-SCORE-1: a part is N games at one clock, ``win`` points per won game and ``draw`` per drawn
game (loss 0); the order of parts does not matter (TEAM-SCORE-2). TEAM-SCORE-3: a team match
score is the sum of its boards; the side that reaches more than half of the maximum has won
(576 → 289, 768 → 385, 960 → 481; ACWC 10 games → 5.5), even if games remain to be played.

Unplayed (the books are silent; TEAM-SCORE-4's 0-0 draw is a TD ruling, never a default): a board
with no game played and no TD ruling once its window and the stage's ``window_margin_days`` have
passed is ``is_unplayed``. A match with such a board is ``unplayed`` (no winner, no match points,
not a match played in the standings) until the TD rules — unless a side already reached the
winning total with the games played (TEAM-SCORE-3: then the result stands). A board with some
games played is scored with what was played once the window has closed (TEAM-FMT-3: later games
do not count); the missing games score nothing for either side. Between the window's end and
the margin's a board with no game keeps its match ``pending`` (a late game the TD includes, or
a ruling, may still come).

Pure: takes linked games and the stage; returns frozen rows.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from pipeline.domain.linking import BoardPairing, MatchGame
from pipeline.model import Override, Pairing, Stage

Outcome = Literal["a", "b", "draw", "pending", "unplayed"]

# The version of the rules that turn games into scored rows (linking, scoring, the TD's rulings).
# Bump it in the same commit as any change that would score a stored round differently: a
# round's fingerprint includes it, and a round whose stored fingerprint differs is rescored, so
# the next night rescores every round scored under another version (tests/stages/test_rescore.py).
SCORING_VERSION = 1


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
    override: str = ""  # the TD ruling that set this result, with its reason
    is_unplayed: bool = False  # no game, no ruling, window and margin passed: waits for a TD ruling


def board_unplayed(games_played: int, override: str, window_end: dt.datetime, stage: Stage, now: dt.datetime) -> bool:
    """A board with no game played and no TD ruling once its window plus the stage's margin has passed."""
    return games_played == 0 and not override and now >= window_end + dt.timedelta(days=stage.window_margin_days)


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
    override: str = ""
    tiebreak: str = ""  # how a tied knockout match was decided (TEAM-KO-1), or what it still needs


def winning_points(stage: Stage, boards: int) -> float:
    """The first score above half the maximum (TEAM-SCORE-3: 576 → 289; ACWC-Q-2: 10 → 5.5).

    Scores move in units of 1 when every win/draw value is whole, else in the finest fraction
    they use (0.5 for half points); reaching this total is having more than half the maximum."""
    values = [Fraction(v).limit_denominator(1000) for p in stage.parts for v in (p.win, p.draw)]
    step = Fraction(1, math.lcm(*(v.denominator for v in values)))
    maximum = Fraction(stage.board_max_points).limit_denominator(1000) * boards
    return float((math.floor(maximum / 2 / step) + 1) * step)  # the first score above half


def _rulings(bp: BoardPairing, overrides: tuple[Override, ...]) -> list[Override]:
    """The TD rulings that set this board's result (forfeit, zero_draw, disqualify)."""
    out = []
    for o in overrides:
        if o.stage != bp.stage or o.subject not in (bp.player_a, bp.player_b):
            continue
        if o.action in ("zero_draw", "forfeit") and o.round == bp.round:
            out.append(o)
        elif o.action == "disqualify" and (bp.round >= o.round or o.value == "cheating"):
            out.append(o)
    return out


def score_boards(
    stage: Stage,
    linked: list[MatchGame],
    board_pairings: list[BoardPairing],
    overrides: tuple[Override, ...] = (),
    now: dt.datetime | None = None,
) -> list[BoardResult]:
    """One row per (pairing, board, part) plus the board's total; unplayed parts show 0 of N.

    TD rulings: a 0-0 draw counts as played and scores nothing (TEAM-SCORE-4); a forfeited board
    or part is scored as won by the opponent in every game (TEAM-DQ-1); a disqualified player's
    unfinished boards from the ruling's round on go to the opponent, and with `cheating` every
    board the player played in the stage (TEAM-DQ-1, ACWC-DQ-1). With `now`, a board with no game
    and no ruling once its window and margin have passed is marked ``is_unplayed`` (module doc)."""
    counted: dict[tuple[int, str, int, str], list[MatchGame]] = defaultdict(list)
    for g in linked:
        if g.counted and g.part is not None:
            counted[g.round, g.entrant_a, g.board, g.part].append(g)
    out = []
    for bp in board_pairings:
        if bp.stage != stage.name:
            continue
        parts, note = _apply_rulings(stage, bp, _played_parts(stage, bp, counted), overrides)
        played = sum(v[0] for v in parts.values())
        unplayed = now is not None and board_unplayed(played, note, bp.window_end, stage, now)
        out.extend(_board_rows(bp, parts, note, unplayed))  # bp.stage is stage.name
    return out


Parts = dict[str, list[Any]]  # time control -> [games played, games due, a's points, b's points]


def _played_parts(stage: Stage, bp: BoardPairing, counted: dict[tuple[int, str, int, str], list[MatchGame]]) -> Parts:
    """Each part of the board as played: its counted games, the games due and each side's points."""
    parts = {}
    for part in stage.parts:
        games = counted.get((bp.round, bp.entrant_a, bp.board, str(part.time_control)), [])
        parts[str(part.time_control)] = [
            len(games),
            part.games,
            sum(g.a_points for g in games),
            sum(g.b_points for g in games),
        ]
    return parts


def _apply_rulings(stage: Stage, bp: BoardPairing, parts: Parts, overrides: tuple[Override, ...]) -> tuple[Parts, str]:
    """The parts as the TD's rulings on the board leave them (score_boards' doc), and the note
    naming the last ruling applied ("" when none)."""
    note = ""
    for o in _rulings(bp, overrides):
        loser_is_a = o.subject == bp.player_a
        played = sum(v[0] for v in parts.values())
        due = sum(v[1] for v in parts.values())
        if o.action == "zero_draw":
            parts = {k: [v[1], v[1], 0.0, 0.0] for k, v in parts.items()}
        elif o.action == "disqualify" and o.value != "cheating" and played >= due:
            continue  # a finished board stands (TEAM-DQ-1: only an incomplete pairing goes to the opponent)
        else:
            forfeited = [o.value] if o.action == "forfeit" and o.value else list(parts)
            for part in stage.parts:
                k = str(part.time_control)
                if k in forfeited:
                    full = part.max_points
                    parts[k] = [part.games, part.games, 0.0 if loser_is_a else full, full if loser_is_a else 0.0]
        note = f"{o.action}{' ' + o.value if o.value else ''} ({o.subject}): {o.reason}"
    return parts, note


def _board_rows(bp: BoardPairing, parts: Parts, note: str, unplayed: bool) -> list[BoardResult]:
    """One row per part, then the board's total."""

    def row(part: str, played: int, due: int, a_points: float, b_points: float) -> BoardResult:
        return BoardResult(
            *bp.board_fields(),
            part,
            played,
            due,
            a_points,
            b_points,
            note,
            unplayed,
        )

    rows = [row(k, v[0], v[1], v[2], v[3]) for k, v in parts.items()]
    total = row(
        "total",
        sum(v[0] for v in parts.values()),
        sum(r.games_due for r in rows),
        sum(r.a_points for r in rows),
        sum(r.b_points for r in rows),
    )
    return [*rows, total]


def knockout_tiebreak(
    p: Pairing, linked: list[MatchGame], results: list[BoardResult], captains: dict[str, str]
) -> tuple[Outcome, str]:
    """TEAM-KO-1 for a match tied on points: an advantage point to the winner of the captains' board
    match if the captains met on one board; then the captains' 4 games of 3+0 (the point counts as
    1-0 before them). Still level (2-2, 2.5-2.5 with the point) → an armageddon, entered by the TD."""
    ca, cb = captains.get(p.a), captains.get(p.b)
    if not ca or not cb:
        return "draw", "tied: the captains are not known, a TD ruling decides (TEAM-KO-1)"
    adv_a = adv_b = 0.0
    met = [
        r
        for r in results
        if r.part == "total" and r.round == p.round and r.team_a == p.a and (r.player_a, r.player_b) == (ca, cb)
    ]
    note = "the captains did not meet on one board: no advantage point"
    if met:
        board = met[0]
        if board.a_points != board.b_points:
            adv_a, adv_b = (1.0, 0.0) if board.a_points > board.b_points else (0.0, 1.0)
            note = f"advantage point to {p.a if adv_a else p.b} (captains' board {board.board})"
        else:
            note = f"the captains' board {board.board} was tied: no advantage point"
    games = [g for g in linked if g.reason == "captains_tiebreak" and g.round == p.round and g.entrant_a == p.a]
    ga, gb = sum(g.a_points for g in games), sum(g.b_points for g in games)
    score = f"{note}; captains' 3+0 games {ga:g}-{gb:g} ({len(games)} of 4)"
    ta, tb = adv_a + ga, adv_b + gb
    if len(games) == 4 and ta != tb:
        return ("a" if ta > tb else "b"), f"TEAM-KO-1: {score}; {ta:g}-{tb:g} → {p.a if ta > tb else p.b}"
    if len(games) == 4:
        return "draw", f"TEAM-KO-1: {score}; still level {ta:g}-{tb:g} → armageddon (ARM-1, a TD ruling)"
    return "draw", f"TEAM-KO-1: {score}: waiting for the captains' games"


def _by_pairing(
    linked: list[MatchGame], results: list[BoardResult]
) -> tuple[dict[tuple[int, str], list[BoardResult]], dict[tuple[int, str], list[MatchGame]]]:
    """Board totals and counted games by (round, entrant a), in their order: one pass instead of
    one scan per pairing."""
    totals: dict[tuple[int, str], list[BoardResult]] = defaultdict(list)
    for r in results:
        if r.part == "total":
            totals[r.round, r.team_a].append(r)
    counted: dict[tuple[int, str], list[MatchGame]] = defaultdict(list)
    for g in linked:
        if g.counted:
            counted[g.round, g.entrant_a].append(g)
    return totals, counted


def score_matches(
    stage: Stage,
    linked: list[MatchGame],
    results: list[BoardResult],
    pairings: tuple[Pairing, ...],
    boards: int,
    now: dt.datetime,
    overrides: tuple[Override, ...] = (),
    captains: dict[str, str] | None = None,
) -> list[TeamMatch]:
    """Team match totals and outcome. A match is decided when a side reaches the winning points,
    or when every game is played, or when its round window has closed (then the score stands as
    played) — unless a board has no game and no ruling: then it is pending until the window's
    margin has passed too, and unplayed after (module doc)."""
    win_at = winning_points(stage, boards)
    max_points = stage.board_max_points * boards
    totals, counted = _by_pairing(linked, results)
    out = []
    for p in pairings:
        if p.stage != stage.name:
            continue
        rows = totals.get((p.round, p.a), [])
        a = sum(r.a_points for r in rows)
        b = sum(r.b_points for r in rows)
        played = sum(r.games_played for r in rows)
        due = sum(r.games_due for r in rows)
        games = sorted(counted.get((p.round, p.a), []), key=lambda g: (g.last_move_at, g.game_id))
        outcome = _match_outcome(stage, p, rows, a, b, win_at, now)
        tiebreak = ""
        if outcome == "draw" and stage.kind == "knockout":
            if captains:
                outcome, tiebreak = knockout_tiebreak(p, linked, results, captains)
            else:
                tiebreak = "tied: armageddon (ACWC-SF-1) or a replay (ACWC-F-1), entered by the TD"
        outcome, note = _armageddon(stage, p, outcome, overrides)
        winner = p.a if outcome == "a" else p.b if outcome == "b" else None
        out.append(
            TeamMatch(
                stage.name,
                p.round,
                p.a,
                p.b,
                a,
                b,
                max_points,
                win_at,
                played,
                due,
                _deciding_game(games, win_at),
                outcome,
                winner,
                note,
                tiebreak,
            )
        )
    return out


def _deciding_game(games: list[MatchGame], win_at: float) -> str | None:
    """The game (in the order played) after which a side had the winning points, if any."""
    ra = rb = 0.0
    for g in games:
        ra += g.a_points
        rb += g.b_points
        if ra >= win_at or rb >= win_at:
            return g.game_id
    return None


def _match_outcome(
    stage: Stage, p: Pairing, rows: list[BoardResult], a: float, b: float, win_at: float, now: dt.datetime
) -> Outcome:
    """The match's outcome from its board totals, before any tiebreak or armageddon (score_matches' doc)."""
    played = sum(r.games_played for r in rows)
    due = sum(r.games_due for r in rows)
    complete = played >= due or now >= p.window_end
    if stage.play_all and not complete:
        return "pending"  # ACWC-C-1: all games are played before a result stands
    if a >= win_at:
        return "a"
    if b >= win_at:
        return "b"
    if not complete:
        return "pending"
    if any(r.games_played == 0 and not r.override for r in rows):  # a board with no game and no ruling
        if any(board_unplayed(r.games_played, r.override, p.window_end, stage, now) for r in rows):
            return "unplayed"
        return "pending"
    return "a" if a > b else "b" if b > a else "draw"


def _armageddon(stage: Stage, p: Pairing, outcome: Outcome, overrides: tuple[Override, ...]) -> tuple[Outcome, str]:
    """ARM-1: a tied match decided by the armageddon game, entered by the TD; the note says so."""
    note = ""
    for o in overrides:
        if o.action == "armageddon" and (o.stage, o.round) == (stage.name, p.round) and o.subject in (p.a, p.b):
            if outcome == "draw":
                outcome = "a" if o.value == p.a else "b"
            note = f"armageddon won by {o.value}: {o.reason}"
    return outcome, note
