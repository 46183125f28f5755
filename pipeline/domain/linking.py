"""Match linking: which Lichess games belong to which board of which pairing, and which count.

For each pairing (stage, round, entrant a, entrant b) and each board i, the board's players are
a's and b's board-i players. Every game between those two players (either colour) created within
``window_margin_days`` of the round window is listed; a game counts when it is antichess, was
played (not aborted / no start), was created inside the window ``[start, end)`` (TEAM-FMT-3), has
the clock of one of the stage's parts, is rated when the stage requires it (ACWC-FMT-1), and is
among the first N of its part by creation time (TEAM-SCORE-1). Every other game keeps its reason.

Pure: takes the pairings, roster, stage and a frame of games; returns frozen rows.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from pipeline.errors import InputError
from pipeline.model import Member, Override, Pairing, Part, Roster, Stage, TimeControl

Reason = Literal[
    "counted",
    "included_by_td",
    "not_antichess",
    "aborted",
    "no_start",
    "outside_window",
    "wrong_time_control",
    "casual",
    "extra_game",
    "excluded_by_td",
    "counted_in_other_round",
    "captains_tiebreak",
]
CAPTAINS_CLOCK = TimeControl(180, 0)  # TEAM-KO-1: the captains play 4 games of 3+0
CAPTAINS_GAMES = 4
NOT_PLAYED: dict[str, Reason] = {
    "aborted": "aborted",
    "created": "aborted",
    "started": "aborted",
    "noStart": "no_start",
}

GAME_COLUMNS = (
    "game_id",
    "created_at",
    "last_move_at",
    "white_id",
    "black_id",
    "rated",
    "variant",
    "clock_initial_s",
    "clock_increment_s",
    "status",
    "winner",
)


@dataclass(frozen=True)
class PairedBoard:
    """One board of a pairing: who plays whom. A board pairing (with its window) and each game
    linked to it begin with these fields."""

    stage: str
    round: int
    board: int
    entrant_a: str
    entrant_b: str
    player_a: str
    player_b: str

    def board_fields(self) -> tuple[str, int, int, str, str, str, str]:
        """The fields above, in order: the first columns of a MatchGame and of a BoardResult."""
        return (self.stage, self.round, self.board, self.entrant_a, self.entrant_b, self.player_a, self.player_b)


@dataclass(frozen=True)
class BoardPairing(PairedBoard):
    window_start: dt.datetime
    window_end: dt.datetime


@dataclass(frozen=True)
class MatchGame(PairedBoard):
    game_id: str
    created_at: dt.datetime
    last_move_at: dt.datetime
    time_control: str | None
    part: str | None
    counted: bool
    reason: Reason
    a_points: float
    b_points: float


@dataclass(frozen=True)
class Lineup:
    """Who plays board i for an entrant in a round: teams.csv, then the TD's `replace` (from its
    round on, in its stage and the stages after it) and `substitute` (that round only) rulings."""

    roster: Roster
    overrides: tuple[Override, ...] = ()
    stage_order: tuple[str, ...] = ()

    def _after(self, o: Override, stage: str, rnd: int) -> bool:
        order = self._order
        if o.stage == stage:
            return rnd >= o.round
        return order.get(stage, 0) > order.get(o.stage, 0)

    @functools.cached_property
    def _order(self) -> dict[str, int]:
        return {s: i for i, s in enumerate(self.stage_order)}

    @functools.cached_property
    def _replacements(self) -> tuple[Override, ...]:
        """The `replace` rulings in the order they apply: by stage, then round (a stable sort: a
        tie keeps the file's order). Sorted once, not once a board."""
        ordered = sorted(
            self.overrides,
            key=lambda o: (self.stage_order.index(o.stage) if o.stage in self.stage_order else 0, o.round),
        )
        return tuple(o for o in ordered if o.action == "replace")

    @functools.cached_property
    def _substitutions(self) -> tuple[Override, ...]:
        """The `substitute` rulings in the file's order."""
        return tuple(o for o in self.overrides if o.action == "substitute")

    @functools.cached_property
    def _seats(self) -> dict[tuple[str, int], Member]:
        """(entrant, board) → member, as Roster.on_board finds them (the first listed)."""
        seats: dict[tuple[str, int], Member] = {}
        for m in self.roster.members:
            seats.setdefault((m.entrant, m.board), m)
        return seats

    def player(self, stage: str, rnd: int, entrant: str, board: int) -> str:
        member = self._seats.get((entrant, board))
        if member is None:  # inputs.read_teams guarantees boards 1..N
            raise ValueError(f"{entrant!r}: no player on board {board}")
        pid = member.player_id
        for o in self._replacements:
            if o.subject == pid and self._after(o, stage, rnd):
                pid = o.value
        for o in self._substitutions:
            if o.subject == pid and (o.stage, o.round) == (stage, rnd):
                pid = o.value
        return pid


def board_pairings(
    pairings: tuple[Pairing, ...], roster: Roster, boards: int, lineup: Lineup | None = None
) -> list[BoardPairing]:
    """Board i of a against board i of b, for every pairing (TEAM-SCORE-3: a match is its boards)."""
    lineup = lineup or Lineup(roster)
    out = []
    for p in pairings:
        for board in range(1, boards + 1):
            pa, pb = lineup.player(p.stage, p.round, p.a, board), lineup.player(p.stage, p.round, p.b, board)
            out.append(BoardPairing(p.stage, p.round, board, p.a, p.b, pa, pb, p.window_start, p.window_end))
    return out


def _points(part: Part, winner: str | None, a_is_white: bool) -> tuple[float, float]:
    if winner is None:
        return part.draw, part.draw
    a_won = (winner == "white") == a_is_white
    return (part.win, 0.0) if a_won else (0.0, part.win)


GameRow = dict[str, Any]  # a games row with the GAME_COLUMNS


def link_board(
    bp: BoardPairing,
    stage: Stage,
    games: list[GameRow],
    excluded: frozenset[str] = frozenset(),
    included: frozenset[str] = frozenset(),
    elsewhere: frozenset[str] = frozenset(),
) -> list[MatchGame]:
    """Classify every game between the board's two players near the window (games: dict rows).
    A TD can exclude a game (excluded_by_td) or include one from outside the window (included_by_td)."""
    margin = dt.timedelta(days=stage.window_margin_days)
    parts = {p.time_control: p for p in stage.parts}
    used: dict[TimeControl, int] = defaultdict(int)
    out = []
    near = [g for g in games if bp.window_start - margin <= g["created_at"] < bp.window_end + margin]
    for g in sorted(near, key=lambda g: (g["created_at"], g["game_id"])):
        tc = _time_control(g)
        part = parts.get(tc) if tc else None
        reason = _reason(g, bp, stage, part, used, excluded, included, elsewhere)
        if reason in ("counted", "included_by_td"):
            assert part is not None
            used[part.time_control] += 1
        a_pts, b_pts = (0.0, 0.0)
        if reason in ("counted", "included_by_td"):
            assert part is not None
            a_pts, b_pts = _points(part, g["winner"], g["white_id"] == bp.player_a)
        out.append(
            MatchGame(
                *bp.board_fields(),
                g["game_id"],
                g["created_at"],
                g["last_move_at"],
                str(tc) if tc else None,
                str(part.time_control) if part else None,
                reason in ("counted", "included_by_td"),
                reason,
                a_pts,
                b_pts,
            )
        )
    return out


def _time_control(g: GameRow) -> TimeControl | None:
    """The game's clock as a time control (None for a correspondence or unlimited game)."""
    if g["clock_initial_s"] is not None and g["clock_increment_s"] is not None:
        return TimeControl(g["clock_initial_s"], g["clock_increment_s"])
    return None


def _reason(
    g: GameRow,
    bp: BoardPairing,
    stage: Stage,
    part: Part | None,
    used: dict[TimeControl, int],
    excluded: frozenset[str],
    included: frozenset[str],
    elsewhere: frozenset[str],
) -> Reason:
    """Why the game counts for the board or not, the first reason that applies in this order;
    `used`: the games already counted per part (a part counts at most its games)."""
    if g["game_id"] in excluded:
        return "excluded_by_td"
    if g["game_id"] in elsewhere:
        return "counted_in_other_round"  # a TD included it in another round's match
    if g["variant"] != "antichess":
        return "not_antichess"
    if g["status"] in NOT_PLAYED:
        return NOT_PLAYED[g["status"]]
    if not bp.window_start <= g["created_at"] < bp.window_end and g["game_id"] not in included:
        return "outside_window"
    if part is None:
        return "wrong_time_control"
    if stage.rated_only and not g["rated"]:
        return "casual"
    if used[part.time_control] >= part.games:
        return "extra_game"
    return "included_by_td" if g["game_id"] in included else "counted"


def link_captains(
    stage: Stage, pairings: tuple[Pairing, ...], captains: dict[str, str], by_pair: dict[frozenset[str], list[GameRow]]
) -> list[MatchGame]:
    """TEAM-KO-1: the captains' 3+0 games of a knockout match, listed as board 0 with reason
    captains_tiebreak (the first 4 in or near the window, win 1, draw 1/2). They never enter the
    board totals; scoring uses them only when the match is tied."""
    out = []
    for p in pairings:
        ca, cb = captains.get(p.a), captains.get(p.b)
        if not ca or not cb:
            continue
        margin = dt.timedelta(days=stage.window_margin_days)
        games = sorted(
            (
                g
                for g in by_pair.get(frozenset((ca, cb)), [])
                if p.window_start <= g["created_at"] < p.window_end + margin
                and g["variant"] == "antichess"
                and g["status"] not in NOT_PLAYED
                and (g["clock_initial_s"], g["clock_increment_s"])
                == (CAPTAINS_CLOCK.initial_s, CAPTAINS_CLOCK.increment_s)
            ),
            key=lambda g: (g["created_at"], g["game_id"]),
        )[:CAPTAINS_GAMES]
        for g in games:
            a_white = g["white_id"] == ca
            if g["winner"] is None:
                a_pts, b_pts = 0.5, 0.5
            else:
                a_pts, b_pts = (1.0, 0.0) if (g["winner"] == "white") == a_white else (0.0, 1.0)
            out.append(
                MatchGame(
                    stage.name,
                    p.round,
                    0,
                    p.a,
                    p.b,
                    ca,
                    cb,
                    g["game_id"],
                    g["created_at"],
                    g["last_move_at"],
                    str(CAPTAINS_CLOCK),
                    str(CAPTAINS_CLOCK),
                    False,
                    "captains_tiebreak",
                    a_pts,
                    b_pts,
                )
            )
    return out


def link_stage(
    stage: Stage,
    pairings: tuple[Pairing, ...],
    roster: Roster,
    boards: int,
    games: pl.DataFrame,
    lineup: Lineup | None = None,
    overrides: tuple[Override, ...] = (),
    captains: dict[str, str] | None = None,
    rounds: Collection[int] | None = None,
) -> list[MatchGame]:
    """Link every board of every pairing of one stage (of its `rounds` only, when given: the rows
    are those a whole-stage link gives for them). An exclude_game/include_game ruling that
    names no game between paired players near that round's window is an InputError."""
    by_pair: dict[frozenset[str], list[GameRow]] = defaultdict(list)
    for g in games.select(GAME_COLUMNS).iter_rows(named=True):
        if g["white_id"] and g["black_id"]:
            by_pair[frozenset((g["white_id"], g["black_id"]))].append(g)
    rulings = [o for o in overrides if o.stage == stage.name and o.action in ("exclude_game", "include_game")]
    if rounds is not None:
        pairings = tuple(p for p in pairings if p.round in rounds)
    out: list[MatchGame] = []
    for bp in board_pairings(tuple(p for p in pairings if p.stage == stage.name), roster, boards, lineup):
        mine = [o for o in rulings if o.round == bp.round]
        out.extend(
            link_board(
                bp,
                stage,
                by_pair.get(frozenset((bp.player_a, bp.player_b)), []),
                excluded=frozenset(o.value for o in mine if o.action == "exclude_game"),
                included=frozenset(o.value for o in mine if o.action == "include_game"),
                elsewhere=frozenset(o.value for o in rulings if o.action == "include_game" and o.round != bp.round),
            )
        )
    if stage.kind == "knockout" and captains:
        tiebreak = link_captains(stage, tuple(p for p in pairings if p.stage == stage.name), captains, by_pair)
        # captains who also meet on a board have their 3+0 games among that board's games too
        # (wrong_time_control there): a captains' tiebreak game is listed once, as board 0
        taken = {(m.round, m.entrant_a, m.game_id) for m in tiebreak}
        out = [m for m in out if (m.round, m.entrant_a, m.game_id) not in taken] + tiebreak
    for o in rulings:
        if rounds is not None and o.round not in rounds:
            continue
        if not any(m.game_id == o.value and m.round == o.round for m in out):
            raise InputError(
                o.path,
                f"line {o.line}",
                f"{o.action} {o.value!r}: expected a game between paired players "
                f"near the window of {o.stage} round {o.round}",
            )
    return out
