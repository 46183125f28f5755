"""The demo tournament: a realistic TEAM season and an ACWC 2021 qualification, deterministically.

``build_season(out, seed, teams, swiss_rounds=7)`` writes (same seed → byte-identical files)::

    out/tournament.toml, teams.csv, pairings.csv, overrides.csv   the TEAM season (12 teams by default)
    out/acwc/tournament.toml, players.csv, pairings.csv           the ACWC 2021 qualification (40 players)
    out/lichess/users.ndjson, rating-history/<id>.json, games.ndjson   one Lichess dataset for both
    out/PLANTED.csv(rule_id, subject, note)                       every rule violation planted on purpose
    out/truth/deviations.csv(game_id, user_id, rd_before, rd_after)   the true RD per game (not Lichess data)

Every player has an account creation date and 1,000-5,000 rated antichess games (a TEAM player:
before registration, 120-160 of them in the 3 months before it, then more during the season; an
ACWC player: over about 2.5 years), rated game by game with Glicko-2 as Lichess runs it
(``pipeline.domain.glicko``): each game's ``rating`` is the pre-game integer rating and ``ratingDiff`` the change, and the rating history is
the rating after each UTC day's last rated game. Game moves come from a pool of legal antichess
games played out by python-chess (``play_out``): a game the board ended is ``variantEnd`` (the
side with no pieces or no moves wins) or a draw; a cut game is a resignation, a flag fall or an
agreed draw. Each game's PGN has the same players, clock, result and moves as its JSON.

Match games follow the round windows (TEAM-FMT-3), the parts in TEAM-SCORE-2's default order,
alternating colours; Swiss pairings for rounds 2-7 (or up to ``swiss_rounds``) pair teams by score
without rematches (the TD's job, simulated here); the top teams (TEAM-FMT-1) play semifinals, a
final and a bronze match. More Swiss rounds than 7 push the knockout, the final and the dataset's
"now" (``TEAM_END``) back by a week each.

Every planted fact holds whatever the seed: a planted count is a ``session`` of a set size, a
rating a fact compares is steered into a band by forced games (``Steer``) while the players it is
compared with sit still (quiet periods), and ``build_season`` checks each one (raising if the
generator broke it) before writing PLANTED.csv with the numbers the data holds.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import heapq
import io
import json
import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.domain import glicko
from pipeline.domain.timecontrol import parse_time_control
from pipeline.model import TimeControl
from pipeline.sim.games import PlayedGame, game_json, history_json, new_game_id, play_out

UTC = dt.UTC
DAY = dt.timedelta(days=1)

TEAM_REGISTRATION = dt.datetime(2026, 8, 25, tzinfo=UTC)
TEAM_START = dt.datetime(2026, 9, 1, tzinfo=UTC)  # a Tuesday (TEAM-FMT-3)
TEAM_END = dt.datetime(2026, 11, 20, tzinfo=UTC)  # the dataset's "now" for the TEAM players (7 Swiss rounds)
SWISS_ROUNDS = 7  # the team-swiss preset's rounds
ACWC_START = dt.datetime(2021, 9, 7, tzinfo=UTC)  # a Tuesday after the 2021-09-01 seeding date
ACWC_END = dt.datetime(2021, 11, 1, tzinfo=UTC)
SPAN = dt.timedelta(days=913)  # ~2.5 years of history before the end

SWISS_PARTS = ("0+2", 8), ("2+5", 4), ("1+2", 6)  # TEAM-SCORE-2 default order
KO_PARTS = ("0+2", 8), ("2+5", 4), ("5+0", 4), ("1+2", 6)
FINAL_PARTS = ("0+2", 8), ("2+5", 4), ("0.5+1", 8), ("5+0", 4), ("1+2", 6)
POINTS = {"0+2": (6, 3), "2+5": (12, 6), "1+2": (8, 4), "5+0": (12, 6), "0.5+1": (6, 3)}  # TEAM-SCORE-1
BACKGROUND_CLOCKS = [
    parse_time_control(t)
    for t in ("0+1", "0+2", "1+0", "1+1", "1+2", "2+0", "2+1", "2+5", "3+0", "3+2", "5+0", "0.5+1")
]
STRONGEST = ("Pinni", "Preslav", "TUGR", "Tetiksh", "Sude", "Valentino")  # TEAM-COMP-3's list, as demo names

TEAM_NAMES = [
    "Forced Captures",
    "Zugzwang Zebras",
    "Suicide Squad",
    "Giveaway Guild",
    "Stalemate Stars",
    "Pawn Stormers",
    "Kingless Knights",
    "Empty Board",
    "Last Piece Standing",
    "Capture Cartel",
    "Reverse Royals",
    "Losing Legion",
]
SYLLABLES = [
    "anti",
    "zug",
    "pawn",
    "rook",
    "giv",
    "away",
    "los",
    "er",
    "king",
    "cap",
    "ture",
    "blitz",
    "mate",
    "sac",
    "fork",
    "pin",
    "tempo",
    "nova",
    "lux",
    "vex",
    "quill",
    "dusk",
    "ember",
    "frost",
    "orb",
    "zen",
]


@dataclass
class Player:
    name: str
    created_at: dt.datetime
    strength: float  # true playing strength (drives results; ratings follow)
    rating: glicko.Rating
    registered: bool = True
    title: str | None = None  # a Lichess title (BOT)
    disabled: bool = False
    tos_violation: bool = False
    games: int = 0
    history: dict[dt.date, int] = field(default_factory=dict)
    rated: list[tuple[dt.datetime, int]] = field(default_factory=list)  # (last move, rating after) of each rated game
    cap: int | None = None  # keep the per-game rating at or below this, except in planted sessions

    @property
    def id(self) -> str:
        return self.name.lower()


@dataclass(order=True)
class Spec:
    """A game to play at `start` (ordered by start time, then a sequence number)."""

    start: dt.datetime
    seq: int
    white: Player = field(compare=False)
    black: Player = field(compare=False)
    tc: TimeControl = field(compare=False)
    rated: bool = field(default=True, compare=False)
    winner: str | None | bool | Callable[[dt.datetime], str | None] = field(
        default=False, compare=False
    )  # False: at random by strength; a callable: chosen at play time
    status: str | None = field(default=None, compare=False)  # forced status (cheat, noStart)
    game_id: str | None = field(default=None, compare=False)
    variant: str = field(default="antichess", compare=False)
    on_done: Callable[[dict[str, Any]], None] | None = field(default=None, compare=False)


class World:
    """All players, the clock-ordered queue of games, and what has been played."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.queue: list[Spec] = []
        self.seq = 0
        self.games: list[dict[str, Any]] = []
        self.truth: list[tuple[str, str, float, float]] = []
        self.ids: set[str] = set()
        self.pool: dict[str | None, list[PlayedGame]] = {"white": [], "black": [], None: []}
        pool_rng = random.Random(seed * 7919 + 1)
        while min(len(v) for v in self.pool.values()) < 60:
            g = play_out(pool_rng, 0.5)
            if len(self.pool[g.winner]) < 60:
                self.pool[g.winner].append(g)

    def new_id(self) -> str:
        return new_game_id(self.rng, self.ids)

    def add(self, start: dt.datetime, white: Player, black: Player, tc: TimeControl, **kw: Any) -> Spec:
        self.seq += 1
        spec = Spec(start, self.seq, white, black, tc, **kw)
        heapq.heappush(self.queue, spec)
        return spec

    def run_until(self, until: dt.datetime) -> None:
        while self.queue and self.queue[0].start < until:
            self.play(heapq.heappop(self.queue))

    def _winner(self, spec: Spec) -> str | None:
        w, b = spec.white, spec.black
        if callable(spec.winner):
            return spec.winner(_rating_time(spec.start, w, b))
        if spec.winner is not False:
            return spec.winner  # type: ignore[return-value]
        expected = 1 / (1 + 10 ** ((b.strength - w.strength) / 400))
        r = self.rng.random()
        if r < 0.05:
            winner = None
        else:
            winner = "white" if self.rng.random() < expected else "black"
        return keep_under_caps(w, b, winner, _rating_time(spec.start, w, b))

    def play(self, spec: Spec) -> None:
        winner = self._winner(spec)
        played = self.rng.choice(self.pool[winner])
        if spec.status and spec.status != "noStart" and played.status in ("variantEnd", "draw"):
            # a forced status (cheat) ends the game off the board: the moves of a game that was cut
            played = next((g for g in self.pool[winner] if g.status not in ("variantEnd", "draw")), played)
        status = spec.status or played.status
        if spec.status == "noStart":
            played = PlayedGame((), "noStart", winner)
        else:
            played = PlayedGame(played.sans, status, winner)
        w, b = spec.white, spec.black
        plies = max(len(played.sans), 2)
        per_move = spec.tc.initial_s / 40 + spec.tc.increment_s * 0.7 + 0.5
        end = spec.start + dt.timedelta(
            seconds=round(min(plies * per_move, 2 * spec.tc.initial_s + plies * spec.tc.increment_s + 5) + 3)
        )
        gid = spec.game_id or self.new_id()
        self.ids.add(gid)
        # a game changes ratings when rated, antichess, and at least two plies were played
        rated = spec.rated and spec.variant == "antichess" and len(played.sans) >= 2
        wd = bd = None
        w_before, b_before = w.rating, b.rating
        t_start = _rating_time(spec.start, w, b)
        w_prov = glicko.live_deviation(w_before, t_start) >= glicko.PROVISIONAL_DEVIATION
        b_prov = glicko.live_deviation(b_before, t_start) >= glicko.PROVISIONAL_DEVIATION
        if rated:
            # an outsider plays many players at once: rate at the latest of the end and both players' last games
            w_after, b_after = glicko.rate_game(w_before, b_before, winner, _rating_time(end, w, b))
            wd, bd = w_after.int_rating - w_before.int_rating, b_after.int_rating - b_before.int_rating
            for p, before, after in ((w, w_before, w_after), (b, b_before, b_after)):
                if p.registered:
                    self.truth.append((gid, p.id, glicko.live_deviation(before, t_start), after.deviation))
                p.rating = after
                p.games += 1
                p.history[end.date()] = after.int_rating
                if p.registered:
                    p.rated.append((end, after.int_rating))
        g = game_json(
            gid,
            _Shown(w, w_before),
            _Shown(b, b_before),
            spec.tc,
            spec.start,
            end,
            played,
            spec.rated,
            wd,
            bd,
            spec.variant,
        )
        if rated and w_prov:
            g["players"]["white"]["provisional"] = True
        if rated and b_prov:
            g["players"]["black"]["provisional"] = True
        self.games.append(g)
        if spec.on_done:
            spec.on_done(g)


def crosses_a_cap(w: Player, b: Player, winner: str | None, at: dt.datetime) -> bool:
    """Would this result take a capped player's rating above its cap?"""
    if w.cap is None and b.cap is None:
        return False
    w_after, b_after = glicko.rate_game(w.rating, b.rating, winner, at)
    return (w.cap is not None and w_after.int_rating > w.cap) or (b.cap is not None and b_after.int_rating > b.cap)


def keep_under_caps(w: Player, b: Player, winner: str | None, at: dt.datetime) -> str | None:
    """The result, or the nearest one (a loss for the capped player, then a draw) that keeps every
    capped player at or below the cap: outside the planted crossings, board 4 stays under it,
    after draws too."""
    for option in (winner, "black" if winner == "white" else "white", None, "white", "black"):
        if not crosses_a_cap(w, b, option, at):
            return option
    return winner


def _rating_time(at: dt.datetime, *players: Player) -> dt.datetime:
    return max([at] + [p.rating.latest for p in players if p.rating.latest is not None])


class _Shown:
    """What game_json needs of a player: name, id and the pre-game integer rating."""

    def __init__(self, p: Player, before: glicko.Rating) -> None:
        self.name, self.id, self.rating = p.name, p.id, before.int_rating


# --------------------------------------------------------------------------- players and their histories


def _username(rng: random.Random, taken: set[str]) -> str:
    while True:
        name = (
            rng.choice(SYLLABLES).capitalize()
            + rng.choice(SYLLABLES)
            + rng.choice(["", "_", "", "-"])
            + str(rng.randint(1, 99))
        )
        if name.lower() not in taken and name[-1].isalnum():
            taken.add(name.lower())
            return name


def _allowed(
    start: dt.datetime, end: dt.datetime, quiet: list[tuple[dt.datetime, dt.datetime]]
) -> list[tuple[dt.datetime, dt.datetime]]:
    """[start, end) without the quiet periods."""
    spans = [(start, end)]
    for qa, qb in sorted(quiet):
        out = []
        for a, b in spans:
            if qb <= a or qa >= b:
                out.append((a, b))
                continue
            if a < qa:
                out.append((a, qa))
            if qb < b:
                out.append((qb, b))
        spans = out
    return spans


def background(
    world: World,
    p: Player,
    n_games: int,
    start: dt.datetime,
    end: dt.datetime,
    outsiders: list[Player],
    quiet: list[tuple[dt.datetime, dt.datetime]] = (),
) -> None:
    """Schedule `n_games` games of `p` against outsiders near its strength, in sessions of 5-25
    games spread over [start, end) outside the `quiet` periods (a session that would run into
    one stops short; the games it would have played are not made up)."""
    rng = world.rng
    spans = _allowed(start, end, list(quiet))
    total = sum((b - a).total_seconds() for a, b in spans)
    if total <= 0:
        return
    sessions = max(1, n_games // 14)
    offsets = sorted(rng.random() * total for _ in range(sessions))
    left = n_games
    i = 0
    for si, off in enumerate(offsets):
        for a, b in spans:  # map the offset into the allowed spans
            length = (b - a).total_seconds()
            if off < length:
                t, limit = a + dt.timedelta(seconds=off), b
                break
            off -= length
        else:
            continue
        size = left if si == len(offsets) - 1 else max(1, min(left, rng.randint(5, 25)))
        left -= size
        tc = rng.choice(BACKGROUND_CLOCKS)
        for _ in range(size):
            if t >= limit:
                break
            opp = min(outsiders, key=lambda o: abs(o.strength - p.strength - rng.gauss(0, 120)))
            white, black = (p, opp) if rng.random() < 0.5 else (opp, p)
            world.add(t, white, black, tc, rated=rng.random() > 0.04)
            i += 1
            t += dt.timedelta(
                seconds=tc.initial_s * 2 + tc.increment_s * 90 + rng.randint(20, 90)
            )  # after the longest game
        if left <= 0:
            break


def outsiders_for(world: World, at: dt.datetime, n: int = 240) -> list[Player]:
    rng = world.rng
    out = []
    for i in range(n):
        s = 1350 + 1250 * i / n
        out.append(
            Player(
                f"Opp{i:03d}{rng.choice(SYLLABLES)}",
                at - dt.timedelta(days=2000),
                s,
                glicko.Rating(s, 60.0, 0.06, at),
                registered=False,
            )
        )
    return out


class Crossing:
    """A planted rating-cap crossing (TEAM-CAP-3/4/5): on `day`, forced wins until the rating is
    above the cap, then (after `hold`) forced losses until it is 15 below; the cap guard is off
    meanwhile. Records the RD before the crossing game."""

    def __init__(self, world: World, p: Player, cap: int, day: dt.datetime, hold: dt.timedelta, opp: Player) -> None:
        self.world, self.p, self.cap, self.hold, self.opp = world, p, cap, hold, opp
        self.crossed_at: dt.datetime | None = None
        self.rd_at_crossing: float | None = None
        self.guard = p.cap
        world.add(day, p, opp, parse_time_control("1+0"), winner="white", on_done=self._after_win)

    def _after_win(self, g: dict[str, Any]) -> None:
        self.p.cap = None
        end = _t(g["lastMoveAt"])
        if self.p.rating.int_rating > self.cap:
            if self.crossed_at is None:
                self.crossed_at = end
                self.rd_at_crossing = next(rd for _, pid, rd, _ in reversed(self.world.truth) if pid == self.p.id)
            self.world.add(
                end + self.hold + dt.timedelta(seconds=40),
                self.opp,
                self.p,
                parse_time_control("1+0"),
                winner="white",
                on_done=self._after_loss,
            )
        else:
            white = len(self.world.games) % 2 == 0
            self.world.add(
                end + dt.timedelta(seconds=30),
                *(self.p, self.opp) if white else (self.opp, self.p),
                parse_time_control("1+0"),
                winner="white" if white else "black",
                on_done=self._after_win,
            )

    def _after_loss(self, g: dict[str, Any]) -> None:
        end = _t(g["lastMoveAt"])
        if self.p.rating.int_rating >= self.cap - 15:
            self.world.add(
                end + dt.timedelta(seconds=30),
                self.opp,
                self.p,
                parse_time_control("1+0"),
                winner="white",
                on_done=self._after_loss,
            )
        else:
            self.p.cap = self.guard


class Steer:
    """A rating the demo needs at a moment (TEAM-COMP-4's board order, TEAM-COMP-6's replacement):
    from `start`, forced 1+0 games against `opp` (a win while the rating is below `lo()`, a loss
    while above `hi()`) until it is inside [lo(), hi()]; none if it already is. The bounds are read
    as each game ends, from players kept quiet meanwhile. A game moves a rating by far less than
    the band is wide, so the chain cannot jump over it; `ended_at` stays None if `limit` games
    were not enough (the generator's self-check raises)."""

    def __init__(
        self,
        world: World,
        p: Player,
        start: dt.datetime,
        opp: Player,
        lo: Callable[[], float],
        hi: Callable[[], float],
        limit: int = 400,
    ) -> None:
        self.world, self.p, self.opp, self.lo, self.hi, self.left = world, p, opp, lo, hi, limit
        self.ended_at: dt.datetime | None = None
        self._next(start)

    def _next(self, at: dt.datetime) -> None:
        rating = self.p.rating.int_rating
        if self.lo() <= rating <= self.hi():
            self.ended_at = at
            return
        if self.left == 0:
            return
        self.left -= 1
        p_white = self.left % 2 == 0
        winner = "white" if (rating < self.lo()) == p_white else "black"
        self.world.add(
            at,
            *(self.p, self.opp) if p_white else (self.opp, self.p),
            parse_time_control("1+0"),
            winner=winner,
            on_done=lambda g: self._next(_t(g["lastMoveAt"]) + dt.timedelta(seconds=30)),
        )


def session(world: World, p: Player, n: int, start: dt.datetime, outsiders: list[Player]) -> None:
    """Exactly `n` rated 1+2 games of `p` in a row from `start` (a planted count: TEAM-ELIG-3, ACWC-ELIG-2)."""
    opp = min(outsiders, key=lambda o: abs(o.strength - p.strength))
    tc = parse_time_control("1+2")
    for i in range(n):
        world.add(start, *(p, opp) if i % 2 == 0 else (opp, p), tc)
        start += dt.timedelta(seconds=tc.initial_s * 2 + tc.increment_s * 90 + 30)  # after the longest game


def rating_before(p: Player, at: dt.datetime) -> int | None:
    """The post-game rating of `p`'s last rated game ended before `at` (rating_events, as the audits read it)."""
    before = [r for t, r in p.rated if t < at]
    return before[-1] if before else None


def _t(ms_: int) -> dt.datetime:
    return dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(milliseconds=ms_)


# --------------------------------------------------------------------------- matches


@dataclass
class BoardMatch:
    """One board of a team match (or an individual match): its games, played one after another."""

    stage: str
    round: int
    team_a: str
    team_b: str
    board: int
    a: Player
    b: Player
    parts: tuple[tuple[str, int], ...]
    points: dict[str, float] = field(default_factory=lambda: {"a": 0.0, "b": 0.0})
    game_ids: list[str] = field(default_factory=list)
    stop_at: float | None = None  # ACWC-Q-2: stop once either player reaches this
    rated: bool = True
    scoring: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(POINTS))  # clock → (win, draw)
    counts_until: dt.datetime | None = (
        None  # TEAM-FMT-3: games created from here on are outside the window, not counted
    )


def play_board(
    world: World,
    bm: BoardMatch,
    start: dt.datetime,
    results: list[str] | None = None,
    extras: dict[int, Callable[[dt.datetime], dt.datetime]] | None = None,
    gap_before_part: dict[int, dt.timedelta] | None = None,
    break_after: dict[int, dt.timedelta] | None = None,
) -> None:
    """Schedule the board's games as a chain: each starts 10-40 s after the previous one ended
    (20-50 s between parts, TEAM-CONDUCT-2). `results` forces outcomes ('a', 'b', 'd') game by game;
    `extras[i]` plays planted games after game i; gaps and breaks are planted delays."""
    plan = [(tc, pi) for pi, (tc, n) in enumerate(bm.parts) for _ in range(n)]
    rng = world.rng
    pools: dict[int, list[str]] = {}  # forced results per part, played in an order that keeps caps
    for i, (_, part) in enumerate(plan):
        if results is not None and i < len(results):
            pools.setdefault(part, []).append(results[i])

    def schedule(i: int, at: dt.datetime) -> None:
        if i >= len(plan):
            return
        if bm.stop_at is not None and max(bm.points.values()) >= bm.stop_at:
            return  # ACWC-Q-2: the players may stop once either reaches 5.5
        tc_text, part = plan[i]
        a_white = i % 2 == 0
        white, black = (bm.a, bm.b) if a_white else (bm.b, bm.a)
        winner: str | None | bool | Callable[[dt.datetime], str | None] = False
        if pools.get(part):

            def forced(t: dt.datetime, pool: list[str] = pools[part], a_white: bool = a_white) -> str | None:
                """Chosen when the game is played: the part's first remaining result that keeps
                capped players under their cap (the part's total is the same in any order)."""

                def as_winner(r: str) -> str | None:
                    return None if r == "d" else ("white" if (r == "a") == a_white else "black")

                pick = next((j for j, r in enumerate(pool) if not crosses_a_cap(white, black, as_winner(r), t)), 0)
                return as_winner(pool.pop(pick))

            winner = forced

        def done(g: dict[str, Any], i: int = i, a_white: bool = a_white, tc_text: str = tc_text) -> None:
            bm.game_ids.append(g["id"])
            win, draw = bm.scoring[tc_text]
            w = g.get("winner")
            if bm.counts_until is not None and _t(g["createdAt"]) >= bm.counts_until:
                pass  # outside the window: the pipeline does not count it, nor do the demo's standings
            elif w is None:
                bm.points["a"] += draw
                bm.points["b"] += draw
            else:
                bm.points["a" if (w == "white") == a_white else "b"] += win
            end = _t(g["lastMoveAt"])
            if extras and i in extras:
                end = extras[i](end)
            nxt = end + dt.timedelta(seconds=rng.randint(10, 40))
            if i + 1 < len(plan) and plan[i + 1][1] != plan[i][1]:
                nxt = end + (gap_before_part or {}).get(plan[i + 1][1], dt.timedelta(seconds=rng.randint(20, 50)))
            if break_after and i in break_after:
                nxt = end + break_after[i]
            schedule(i + 1, nxt)

        world.add(at, white, black, parse_time_control(tc_text), rated=bm.rated, winner=winner, on_done=done)

    schedule(0, start)


def swiss_pairs(order: list[str], played: set[frozenset[str]]) -> list[tuple[str, str]]:
    """Pair down the standings, skipping rematches (backtracking), as a TD would."""

    def solve(left: list[str]) -> list[tuple[str, str]] | None:
        if not left:
            return []
        first = left[0]
        for j in range(1, len(left)):
            if frozenset((first, left[j])) in played:
                continue
            rest = solve(left[1:j] + left[j + 1 :])
            if rest is not None:
                return [(first, left[j]), *rest]
        return None

    pairs = solve(order)
    if pairs is None:
        raise ValueError("no Swiss pairing without a rematch")
    return pairs


# --------------------------------------------------------------------------- the season


def knockout_size(teams: int) -> int:
    """TEAM-FMT-1: 10-15 teams → 4, 16-31 → 8, 32-63 → 16; more than 63 → a candidates stage the TD
    configures (the demo stands in a 16-team knockout for it)."""
    if teams < 10:
        raise ValueError(f"{teams} teams: TEAM-FMT-1 needs at least 10")
    return 4 if teams <= 15 else 8 if teams <= 31 else 16


class Season:
    def __init__(self, seed: int, teams: int, games_range: tuple[int, int], swiss_rounds: int = SWISS_ROUNDS) -> None:
        if not SWISS_ROUNDS <= swiss_rounds < teams:
            raise ValueError(
                f"{swiss_rounds} Swiss rounds for {teams} teams: expected {SWISS_ROUNDS} (the planted cases "
                f"use rounds 1-7) to {teams - 1} (no rematches)"
            )
        self.world = World(seed)
        self.swiss_rounds = swiss_rounds
        self.team_end = TEAM_END + dt.timedelta(days=7 * (swiss_rounds - SWISS_ROUNDS))
        self.rng = self.world.rng
        self.n_teams = teams
        self.games_range = games_range
        self.taken: set[str] = set()
        self.planted: list[tuple[str, str, str]] = []
        self.roster: dict[str, list[Player]] = {}
        self.titles: dict[str, list[str]] = {}
        self.captains: dict[str, int] = {}
        self.pairings: list[tuple[str, int, str, str]] = []
        self.overrides: list[tuple[str, int, str, str, str, str]] = []
        self.strongest: list[str] = []
        self.acwc: list[Player] = []
        self.acwc_pairings: list[tuple[str, int, str, str]] = []

    def plant(self, rule_id: str, subject: str, note: str) -> None:
        self.planted.append((rule_id, subject, note))

    def n_games(self) -> int:
        lo, hi = self.games_range
        return (
            self.rng.randint(lo, min(hi, lo + (hi - lo) // 4)) if self.rng.random() < 0.85 else self.rng.randint(lo, hi)
        )

    def player(self, strength: float, created: dt.datetime) -> Player:
        return Player(_username(self.rng, self.taken), created, strength, glicko.DEFAULT)

    # ---------------------------------------------------------------- TEAM
    def build_team_roster(self) -> None:
        rng = self.rng
        names = (TEAM_NAMES + [f"Team {i}" for i in range(len(TEAM_NAMES), self.n_teams)])[: self.n_teams]
        for t, team in enumerate(names):
            top = 2330 - 30 * t if t not in (6, 7, 8, 9) else 2330
            strengths = [top, top - 45, top - 90, top - 150] if t not in (6, 7, 8, 9) else [2330, 2290, 2250, 2172]
            members = []
            for _board, s in enumerate(strengths, 1):
                created = dt.datetime(
                    2016 + rng.randint(0, 6), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), tzinfo=UTC
                )
                members.append(self.player(s + rng.uniform(-10, 10), created))
            self.roster[team] = members
            self.titles[team] = ["AGM", "", "", ""] if t < 4 else ["", "", "", ""]
            self.captains[team] = 1
        # TEAM-CAP-1 caps by the team's titles; board 4 stays under it unless planted
        for team, members in self.roster.items():
            self.cap_of(team)
            members[3].cap = self.cap_of(team)
            members[3].strength = (
                min(members[3].strength, self.cap_of(team) - 40) if team not in names[6:10] else members[3].strength
            )

    def order_boards(self, skip: str) -> None:
        """TEAM-COMP-4: the TDs order boards 1-3 by the rating at registration (board 4 stays: it is
        the capped board); the planted team `skip` keeps its wrong order."""

        def at_registration(p: Player) -> int:
            before = [r for t, r in p.rated if t < TEAM_REGISTRATION]
            return before[-1] if before else 0

        for team, members in self.roster.items():
            if team != skip:
                top = sorted(members[:3], key=at_registration, reverse=True)
                titles = dict(zip(map(id, members[:3]), self.titles[team][:3], strict=False))
                members[:3] = top
                self.titles[team][:3] = [titles[id(m)] for m in top]

    def cap_of(self, team: str) -> int:
        titles = self.titles[team]
        agm_plus = sum(t in ("AGM", "ASGM") for t in titles)
        if agm_plus >= 2:
            return 2000
        if "ASGM" in titles:
            return 2100
        if "AGM" in titles:
            return 2150
        return 2200

    @contextlib.contextmanager
    def replaced(self, team: str, player: Player) -> Iterator[None]:
        """TEAM-COMP-6: the replacement plays `player`'s board of `team` (from the round the TD's
        `replace` ruling names, and in every later stage) while the block runs; the roster keeps
        the registered player for everything else (histories, registration, checks)."""
        seat = self.roster[team].index(player)
        self.roster[team][seat] = self.replacement
        try:
            yield
        finally:
            self.roster[team][seat] = player

    def team_members(self) -> list[Player]:
        return [p for ms_ in self.roster.values() for p in ms_]

    def plant_team_cases(self) -> dict[str, Any]:
        """Rule violations (and traps) planted in the TEAM season; each one becomes a PLANTED row."""
        rng = self.rng
        teams = list(self.roster)
        reg = TEAM_REGISTRATION
        plan: dict[str, Any] = {"quiet": {}, "n_games": {}, "cheats": [], "crossings": [], "start": {}}

        # TEAM-COMP-2: a team with three AGM-or-higher (ASGM counts as higher)
        t = teams[2]
        self.titles[t] = ["AGM", "AGM", "ASGM", ""]
        self.plant("TEAM-COMP-2", t, "three AGM-or-higher players (AGM, AGM, ASGM) on one team; at most 2 allowed")
        board4 = self.roster[t][3]  # two or more AGM-or-higher: its board 4 stays under the 2000 cap (TEAM-CAP-1)
        board4.cap = self.cap_of(t)
        board4.strength = min(board4.strength, board4.cap - 40)
        # TEAM-COMP-3: the configured strongest players, two of them on one team
        self.strongest = [self.roster[teams[0]][0].name, self.roster[teams[0]][1].name] + [
            self.roster[x][0].name for x in teams[1:5]
        ]
        self.plant(
            "TEAM-COMP-3",
            teams[0],
            f"two of the strongest-players list ({self.strongest[0]}, {self.strongest[1]}) on one team",
        )
        # TEAM-COMP-4: a board order that is not descending by rating
        t = teams[5]
        m = self.roster[t]
        m[0].strength, m[1].strength = m[1].strength - 60, m[0].strength + 60
        plan["board_order"] = (t, len(self.planted))  # the note states the ratings at registration (build_season)
        self.plant("TEAM-COMP-4", t, "")
        # TEAM-ELIG-1: an account younger than 6 months at registration
        p = self.roster[teams[4]][2]
        p.created_at = reg - dt.timedelta(days=120)
        plan["start"][p.id] = p.created_at + DAY
        self.plant("TEAM-ELIG-1", p.name, "account created 2026-04-27, 4 months before registration (6 required)")
        # TEAM-ELIG-2: fewer than 1000 rated antichess games before registration
        p = self.roster[teams[5]][2]
        plan["n_games"][p.id] = 700  # with the recent games below: ~850 before registration, 100+ of them recent
        plan["no_topup"] = set()
        plan["count_before_registration"] = [("TEAM-ELIG-2", p)]
        # TEAM-ELIG-3: only 30-60 rated games in the 3 months before registration, all in one session
        # 3 days before it (so its RD stays low for TEAM-ELIG-7)
        p = self.roster[teams[1]][2]
        plan["quiet"][p.id] = [(_months_before(reg, 3) - DAY, reg)]
        plan["sessions"] = [(p, reg - 3 * DAY + dt.timedelta(hours=1), rng.randint(30, 60))]
        plan["no_topup"].add(p.id)
        plan["count_recent"] = [("TEAM-ELIG-3", p)]
        # TEAM-ELIG-4: one cheat-detected game 8 months before registration; two within 24 months for another
        p = self.roster[teams[6]][1]
        plan["cheats"].append((p, reg - dt.timedelta(days=243)))
        self.plant(
            "TEAM-ELIG-4",
            p.name,
            "a cheat-detected game (status cheat, on the losing side) 8 months before registration",
        )
        p = self.roster[teams[10 % len(teams)]][1]
        plan["cheats"] += [(p, reg - dt.timedelta(days=420)), (p, reg - dt.timedelta(days=600))]
        self.plant(
            "TEAM-ELIG-4", p.name, "two cheat-detected games 14 and 20 months before registration (none in 12 months)"
        )
        # TEAM-ELIG-5: a tosViolation mark, and a closed account (a substitute who never plays)
        p = self.roster[teams[11 % len(teams)]][0]
        p.tos_violation = True
        self.plant(
            "TEAM-ELIG-5", p.name, "the profile carries tosViolation (an engine or boost mark; its date is not public)"
        )
        closed = self.player(1900, dt.datetime(2018, 5, 2, tzinfo=UTC))
        closed.disabled = True
        self.roster[teams[3]].append(closed)
        self.plant(
            "TEAM-ELIG-5", closed.name, "the account is closed (Lichess: disabled); registered as the 5th member"
        )
        # TEAM-ELIG-6: a BOT account (5th member of another team)
        bot = self.player(2000, dt.datetime(2020, 2, 2, tzinfo=UTC))
        bot.title = "BOT"
        self.roster[teams[9]].append(bot)
        self.plant("TEAM-ELIG-6", bot.name, "a BOT account (Lichess title BOT) registered as the 5th member")
        # TEAM-ELIG-7: provisional when the initial pairings are announced (13 months without a rated game)
        p = self.roster[teams[7]][2]
        plan["quiet"][p.id] = [(reg - dt.timedelta(days=400), TEAM_START + dt.timedelta(days=2))]
        plan["no_topup"].add(p.id)
        self.plant(
            "TEAM-ELIG-7",
            p.name,
            "no rated antichess game for 13 months before the pairings: RD above 110 (provisional)",
        )
        self.plant("TEAM-ELIG-3", p.name, "no rated antichess game in the 3 months before registration")
        # TEAM-CAP-3 / 4 / 5 on the board-4 players of the untitled teams 7-10 (cap 2200)
        since = dt.datetime(2025, 1, 1, tzinfo=UTC)
        cap4 = {n: self.roster[teams[i]][3] for n, i in (("three", 6), ("two", 7), ("hold", 8), ("rd", 9))}
        for key, days in (("three", [40, 150, 300]), ("two", [60, 200]), ("hold", [120])):
            for d in days:
                plan["crossings"].append(
                    (
                        cap4[key],
                        since + dt.timedelta(days=d, hours=11),
                        dt.timedelta(hours=30) if key == "hold" else dt.timedelta(0),
                    )
                )
        # the RD trap: 3 crossing days, the first after 10 months without a game (RD > 80, TEAM-CAP-5)
        plan["quiet"][cap4["rd"].id] = [(since - dt.timedelta(days=210), since + dt.timedelta(days=30, hours=11))]
        for d in (30, 180, 330):
            plan["crossings"].append((cap4["rd"], since + dt.timedelta(days=d, hours=11), dt.timedelta(0)))
        plan["cap_players"] = cap4
        forfeiter = self.roster[teams[-1]][2]
        self.replacement = self.player(forfeiter.strength - 50, dt.datetime(2019, 3, 3, tzinfo=UTC))
        # eligibility is as of registration; the replacement registers when it is named, for round 7
        plan["registered"] = {q.id: reg for q in self.team_members()}
        plan["registered"][self.replacement.id] = TEAM_START + dt.timedelta(days=42)
        # ratings the demo steers (Steer) stay still around it: every member's in the 3 days before
        # registration (TEAM-COMP-4), the replaced player's and the replacement's before round 7 (TEAM-COMP-6)
        for q in self.team_members():
            plan["quiet"].setdefault(q.id, []).append((reg - 3 * DAY, reg))
        for q in (forfeiter, self.replacement):
            plan["quiet"].setdefault(q.id, []).append(
                (TEAM_START + dt.timedelta(days=39), TEAM_START + dt.timedelta(days=42))
            )
        # board 4 plays only its matches from the knockout on: its rating is steered well under the
        # cap at each round's start, so a planted tie's forced wins cannot take it above (play_team)
        ko_start = TEAM_START + dt.timedelta(days=7 * self.swiss_rounds)
        ko_end = ko_start + dt.timedelta(
            days=7 * int(math.log2(knockout_size(self.n_teams)))
        )  # knockout rounds + final week
        for members in self.roster.values():
            plan["quiet"].setdefault(members[3].id, []).append((ko_start, ko_end))
        for p, day, hold in plan["crossings"]:
            plan["quiet"].setdefault(p.id, []).append(
                (day - dt.timedelta(hours=12), day + hold + dt.timedelta(hours=14))
            )
        return plan

    def play_histories(
        self, players: list[Player], end: dt.datetime, outsiders: list[Player], plan: dict[str, Any]
    ) -> None:
        """Each player's background games. A player with a registration time (the TEAM season) plays
        its `n` games before it (with a margin for casual games and sessions cut short by quiet
        periods, so that TEAM-ELIG-2's 1000 rated games hold unless planted), another 120-160 in
        the 3 months before it (TEAM-ELIG-3's 100, unless planted: `no_topup`), and games at the
        same pace after it; the others (ACWC) play `n` games up to `end`. With fewer history games
        (`games` below 1000, for quick tests) there are no recent games added and players fall
        short of TEAM-ELIG-2/3 as they will."""
        registered = plan.get("registered", {})
        for p in players:
            start = max(p.created_at + DAY, end - SPAN)
            start = plan.get("start", {}).get(p.id, start)
            planted_n = plan.get("n_games", {}).get(p.id)
            n = planted_n or self.n_games()
            quiet = plan.get("quiet", {}).get(p.id, [])
            reg = registered.get(p.id)
            if reg is None:
                background(self.world, p, n, start, end, outsiders, quiet)
                continue
            before = n if planted_n else int(n * 1.1) + 20 + 25 * len(quiet)
            background(self.world, p, before, start, reg, outsiders, quiet)
            if p.id not in plan.get("no_topup", set()) and self.games_range[0] >= 1000:
                background(
                    self.world, p, self.rng.randint(120, 160), reg - dt.timedelta(days=88), reg - DAY, outsiders, quiet
                )
            after = max(30, round(n * (end - reg) / max(reg - start, DAY)))
            background(
                self.world, p, after, reg, end - dt.timedelta(hours=2), outsiders, quiet
            )  # all finished by `end`
        for p, day, n in plan.get("sessions", []):
            session(self.world, p, n, day, outsiders)
        for p, day in plan.get("cheats", []):
            opp = min(outsiders, key=lambda o: abs(o.strength - p.strength))
            white = self.rng.random() < 0.5
            self.world.add(
                day,
                *(p, opp) if white else (opp, p),
                parse_time_control("1+0"),
                status="cheat",
                winner="black" if white else "white",
            )  # the cheater loses (status cheat)

    def team_round(
        self,
        stage: str,
        rnd: int,
        window: dt.datetime,
        pairs: list[tuple[str, str]],
        parts: tuple[tuple[str, int], ...],
        planted: Callable[[int, int, BoardMatch], dict[str, Any] | None],
    ) -> list[list[BoardMatch]]:
        rng = self.rng
        out = []
        for m_i, (ta, tb) in enumerate(pairs):
            self.pairings.append((stage, rnd, ta, tb))
            day = window + dt.timedelta(
                days=1 + rng.randint(0, 4), hours=rng.randint(13, 19), minutes=rng.randint(0, 59)
            )
            boards = []
            for board in range(1, 5):
                bm = BoardMatch(
                    stage, rnd, ta, tb, board, self.roster[ta][board - 1], self.roster[tb][board - 1], parts
                )
                kw = planted(m_i, board, bm) or {}
                if kw.get("skip"):
                    boards.append(bm)
                    continue
                start = kw.pop("start", day + dt.timedelta(minutes=2 * board))
                play_board(self.world, bm, start, **kw)
                boards.append(bm)
            out.append(boards)
        return out

    def standings(self, results: list[list[BoardMatch]]) -> dict[str, tuple[float, float]]:
        table: dict[str, list[float]] = {t: [0.0, 0.0] for t in self.roster}
        for boards in results:
            a = sum(b.points["a"] for b in boards)
            bp = sum(b.points["b"] for b in boards)
            ta, tb = boards[0].team_a, boards[0].team_b
            table[ta][0] += 2 if a > bp else 1 if a == bp else 0
            table[tb][0] += 2 if bp > a else 1 if a == bp else 0
            table[ta][1] += a - bp
            table[tb][1] += bp - a
        return {t: (v[0], v[1]) for t, v in table.items()}

    def play_team(self, plan: dict[str, Any]) -> None:
        w = self.world
        teams = list(self.roster)
        if len(teams) % 2:
            raise ValueError("the demo pairs every team every round: give an even number of teams")
        outsiders = outsiders_for(w, self.team_end - SPAN)
        self.play_histories(self.team_members() + [self.replacement], self.team_end, outsiders, plan)
        self.crossings = [
            Crossing(w, p, 2200, day, hold, min(outsiders, key=lambda o: abs(o.strength - 2200)))
            for p, day, hold in plan["crossings"]
        ]
        forfeiter = self.roster[teams[-1]][2]

        def planted(rnd: int) -> Callable[[int, int, BoardMatch], dict[str, Any] | None]:
            def at(m_i: int, board: int, bm: BoardMatch) -> dict[str, Any] | None:
                key = (rnd, m_i, board)

                def extra_02(end: dt.datetime) -> dt.datetime:
                    return w.play(Spec(end + dt.timedelta(seconds=25), 0, bm.a, bm.b, parse_time_control("0+2"))) or _t(
                        w.games[-1]["lastMoveAt"]
                    )

                if key == (1, 0, 2):
                    self.plant(
                        "TEAM-SCORE-1",
                        bm.a.name,
                        f"swiss round 1: a 9th 0+2 game against {bm.b.name} (extra_game, not counted)",
                    )
                    return {"extras": {7: extra_02}}
                if key == (2, 0, 1):

                    def wrong(end: dt.datetime) -> dt.datetime:
                        w.play(Spec(end + dt.timedelta(seconds=30), 0, bm.b, bm.a, parse_time_control("3+0")))
                        return _t(w.games[-1]["lastMoveAt"])

                    self.plant(
                        "TEAM-FMT-3", bm.a.name, f"swiss round 2: a 3+0 game against {bm.b.name} (wrong_time_control)"
                    )
                    return {"extras": {17: wrong}}
                if key == (2, 1, 3):
                    # 18 games with 10 s or more between them cannot all start within 5 minutes
                    window_end = TEAM_START + dt.timedelta(days=14)
                    bm.counts_until = window_end
                    self.plant(
                        "TEAM-FMT-3",
                        bm.a.name,
                        f"swiss round 2: the match against {bm.b.name} began Monday 23:55 "
                        "and ran past 23:59:59 UTC: the later games are outside_window",
                    )
                    return {"start": window_end - dt.timedelta(minutes=5)}
                if key == (3, 0, 4):

                    def nostart(end: dt.datetime) -> dt.datetime:
                        w.play(
                            Spec(
                                end + dt.timedelta(seconds=20),
                                0,
                                bm.a,
                                bm.b,
                                parse_time_control("0+2"),
                                status="noStart",
                                winner="black",
                            )
                        )
                        return _t(w.games[-1]["lastMoveAt"]) + dt.timedelta(seconds=30)

                    self.plant(
                        "TEAM-SCORE-1",
                        bm.a.name,
                        f"swiss round 3: a game against {bm.b.name} never started (noStart, "
                        "not counted; Lichess never exports aborted games)",
                    )
                    return {"extras": {2: nostart}}
                if key == (3, 1, 2):
                    self.plant(
                        "TEAM-CONDUCT-1",
                        bm.a.name,
                        f"swiss round 3: a 15-minute break in the match against {bm.b.name} (10 allowed)",
                    )
                    return {"break_after": {10: dt.timedelta(minutes=15)}}
                if key == (4, 0, 3):
                    self.plant(
                        "TEAM-CONDUCT-2",
                        bm.a.name,
                        f"swiss round 4: 3 minutes between two parts against {bm.b.name} (1 allowed; evidence)",
                    )
                    return {"gap_before_part": {1: dt.timedelta(minutes=3)}}
                if key == (5, 2, 4):
                    self.overrides.append(
                        ("swiss", 5, bm.a.name, "zero_draw", "", "no one at fault for the unplayed board")
                    )
                    self.plant(
                        "TEAM-SCORE-4",
                        bm.a.name,
                        f"swiss round 5: board 4 against {bm.b.name} unplayed, ruled a 0-0 draw (override)",
                    )
                    return {"skip": True}
                if rnd in (5, 6) and forfeiter in (bm.a, bm.b):
                    self.overrides.append(
                        ("swiss", rnd, forfeiter.name, "forfeit", "", "did not show up for the match")
                    )
                    winner = "b" if forfeiter is bm.a else "a"
                    bm.points[winner] += 144  # the opponent wins the board (TEAM-DQ-1)
                    return {"skip": True}
                return None

            return at

        def near(p: Player) -> Player:
            return min(outsiders, key=lambda o: abs(o.strength - p.strength))

        # TEAM-COMP-4 at registration (every member quiet from 3 days before it): the planted team's
        # board 2 ends 90-150 above its board 1; on every team board 4 ends at least 10 below boards
        # 1-3 (the TDs order those three in round 1; board 4 is the capped board and stays)
        reg = TEAM_REGISTRATION
        w.run_until(reg - 2 * DAY)
        swapped = self.roster[plan["board_order"][0]]
        self.steers = [
            Steer(
                w,
                swapped[1],
                reg - 2 * DAY,
                near(swapped[1]),
                lambda: swapped[0].rating.int_rating + 90,
                lambda: swapped[0].rating.int_rating + 150,
            )
        ]
        w.run_until(reg - DAY)
        for members in self.roster.values():
            self.steers.append(
                Steer(
                    w,
                    members[3],
                    reg - DAY,
                    near(members[3]),
                    lambda: 0,
                    lambda m=members: min(q.rating.int_rating for q in m[:3]) - 10,
                )
            )

        results: list[list[BoardMatch]] = []
        played: set[frozenset[str]] = set()
        for rnd in range(1, self.swiss_rounds + 1):
            window = TEAM_START + dt.timedelta(days=7 * (rnd - 1))
            if rnd == 7:
                # TEAM-COMP-6: the replacement ends 30-70 below the player it replaces (both quiet from
                # 3 days before round 7), so it is short of the 100 required
                w.run_until(window - 2 * DAY)
                repl = self.replacement
                self.steers.append(
                    Steer(
                        w,
                        repl,
                        window - 2 * DAY,
                        near(repl),
                        lambda: forfeiter.rating.int_rating - 70,
                        lambda: forfeiter.rating.int_rating - 30,
                    )
                )
            w.run_until(window)
            if rnd == 1:
                self.order_boards(skip=teams[5])
                half = len(teams) // 2
                pairs = [(teams[i], teams[i + half]) for i in range(half)]
            else:
                table = self.standings(results)
                order = sorted(teams, key=lambda t: (-table[t][0], -table[t][1], teams.index(t)))
                pairs = swiss_pairs(order, played)
            played |= {frozenset(p) for p in pairs}
            if rnd >= 7:  # the replacement plays the disqualified player's board from round 7 on
                with self.replaced(teams[-1], forfeiter):
                    results += self.team_round("swiss", rnd, window, pairs, SWISS_PARTS, planted(rnd))
            else:
                results += self.team_round("swiss", rnd, window, pairs, SWISS_PARTS, planted(rnd))
            if rnd == 6:
                self.overrides.append(("swiss", 6, forfeiter.name, "disqualify", "", "two forfeits (TEAM-CONDUCT-3)"))
                self.overrides.append(
                    (
                        "swiss",
                        7,
                        forfeiter.name,
                        "replace",
                        self.replacement.name,
                        "replacement for the disqualified player",
                    )
                )
        self.plant(
            "TEAM-CONDUCT-3",
            forfeiter.name,
            "forfeited swiss rounds 5 and 6: disqualified after two forfeits (overrides)",
        )
        r7 = TEAM_START + dt.timedelta(days=42)
        repl_rating, replaced_rating = rating_before(self.replacement, r7), rating_before(forfeiter, r7)
        if repl_rating is None or replaced_rating is None or not 0 < replaced_rating - repl_rating < 100:
            raise RuntimeError(
                f"demo generator: TEAM-COMP-6 replacement {self.replacement.name} rated {repl_rating} "
                f"against {replaced_rating} for {forfeiter.name} at round 7: not planted"
            )
        self.plant(
            "TEAM-COMP-6",
            self.replacement.name,
            f"replaces the disqualified {forfeiter.name} from round 7 but is "
            f"rated {repl_rating} against {replaced_rating}, only "
            f"{replaced_rating - repl_rating} below (100 required)",
        )

        w.run_until(TEAM_START + dt.timedelta(days=7 * self.swiss_rounds))
        table = self.standings(results)
        order = sorted(teams, key=lambda t: (-table[t][0], -table[t][1], teams.index(t)))
        q = knockout_size(len(teams))
        alive = order[:q]
        self.ko_rounds = int(math.log2(q)) - 1
        window = TEAM_START + dt.timedelta(days=7 * self.swiss_rounds)
        losers: list[tuple[str, str]] = []

        def under_caps(at: dt.datetime) -> None:
            """Every board 4 at least 100 under its team's cap (TEAM-CAP-1) from `at` (a knockout or final
            round's start; board 4 plays nothing else then): the planted ties force wins and losses
            in equal numbers, part by part, which cannot climb 100 points."""
            for team, members in self.roster.items():
                self.steers.append(
                    Steer(w, members[3], at, near(members[3]), lambda: 0, lambda cap=self.cap_of(team): cap - 100)  # noqa: B008 (binds this team's cap now)
                )

        for rnd in range(1, self.ko_rounds + 1):
            under_caps(window)
            pairs = [(alive[i], alive[len(alive) - 1 - i]) for i in range(len(alive) // 2)]
            tie = rnd == self.ko_rounds  # the last knockout round (the semifinals) has the planted tie
            with self.replaced(teams[-1], forfeiter):  # and in the later stages (TEAM-COMP-6)
                boards_all = self.team_round(
                    "knockout",
                    rnd,
                    window,
                    pairs,
                    KO_PARTS,
                    lambda m_i, board, bm, tie=tie: self._tie(bm) if tie and m_i == 0 else None,
                )
            w.run_until(window + dt.timedelta(days=7))
            winners, losers = [], []
            for m_i, boards in enumerate(boards_all):
                a = sum(b.points["a"] for b in boards)
                bp = sum(b.points["b"] for b in boards)
                ta, tb = boards[0].team_a, boards[0].team_b
                if tie and m_i == 0:
                    win = self._captains_games(ta, tb, window, ["a", "a", "b", "a"], "knockout", rnd)
                    self.plant(
                        "TEAM-KO-1",
                        f"{ta} v {tb}",
                        f"knockout round {rnd}: tied {a:g}-{bp:g}; no captains' advantage point "
                        "(their board was tied); the captains' four 3+0 games went 3-1",
                    )
                else:
                    win = ta if a >= bp else tb
                winners.append((ta, win))
                losers.append((ta, tb if win == ta else ta))
            # the next round pairs the winners as the pipeline reads the matches: by the name of
            # their first team (sql/queries/team_matches_of_stage.sql), so its proposal is this one
            alive = [t for _, t in sorted(winners)]
            losers = sorted(losers)
            window += dt.timedelta(days=7)
        # final and bronze (TEAM-SCORE-1: the 0.5+1 part added)
        under_caps(window)
        pairs = [(alive[0], alive[1]), (losers[0][1], losers[1][1])]
        with self.replaced(teams[-1], forfeiter):
            boards_all = self.team_round(
                "final", 1, window, pairs, FINAL_PARTS, lambda m_i, board, bm: self._tie(bm) if m_i == 1 else None
            )
        w.run_until(window + dt.timedelta(days=7))
        ta, tb = pairs[1]
        self._captains_games(ta, tb, window, ["a", "b", "a", "b"], "final", 1)
        self.overrides.append(
            ("final", 1, ta, "armageddon", tb, "bronze match tied, captains 2-2; armageddon won by Black on draw odds")
        )
        self.plant(
            "ARM-1",
            f"{ta} v {tb}",
            "bronze match tied and the captains' games 2-2: the armageddon result is a TD override",
        )
        self.plant("TEAM-KO-1", f"{ta} v {tb}", "bronze match tied on points, captains' 3+0 games 2-2 → armageddon")
        w.run_until(self.team_end + DAY)

    def _tie(self, bm: BoardMatch) -> dict[str, Any]:
        """Forced results giving each part an even split: the board (and so the match) ends level."""
        results = []
        for _, n in bm.parts:
            results += ["a", "b"] * (n // 2) + ["d"] * (n % 2)
        return {"results": results}

    def _captains_games(self, ta: str, tb: str, window: dt.datetime, results: list[str], stage: str, rnd: int) -> str:
        """TEAM-KO-1: the captains play 4 games of 3+0 after a tie; returns the winning team."""
        ca, cb = self.roster[ta][self.captains[ta] - 1], self.roster[tb][self.captains[tb] - 1]
        bm = BoardMatch(stage, rnd, ta, tb, 0, ca, cb, (("3+0", 4),), scoring={"3+0": (1, 0.5)})
        play_board(self.world, bm, window + dt.timedelta(days=6, hours=12), results=results)
        self.world.run_until(window + dt.timedelta(days=6, hours=20))
        return ta if bm.points["a"] > bm.points["b"] else tb

    # ---------------------------------------------------------------- ACWC 2021
    def play_acwc(self, n_players: int = 40) -> None:
        """ACWC 2021 qualification: floor(log2 n) + 2 rounds of 10-game 2+5 rated matches, stopped
        once a player reaches 5.5 (ACWC-Q-1, ACWC-Q-2, ACWC-FMT-1)."""
        w, rng = self.world, self.rng
        outsiders = outsiders_for(w, ACWC_END - SPAN, 200)
        players = []
        for i in range(n_players):
            created = dt.datetime(2012 + rng.randint(0, 7), rng.randint(1, 12), rng.randint(1, 28), tzinfo=UTC)
            players.append(self.player(2450 - 12 * i + rng.uniform(-8, 8), created))
        plan: dict[str, Any] = {"start": {}, "n_games": {}, "cheats": []}
        late = players[-1]
        late.created_at = dt.datetime(2021, 4, 2, tzinfo=UTC)
        self.plant("ACWC-ELIG-1", late.name, "account created 2021-04-02, after the 2021-03-01 deadline")
        few = players[-2]  # ACWC-ELIG-2: one session of 40-80 rated games on 2021-08-27, the rest from 2021-09-01
        plan["start"][few.id] = dt.datetime(2021, 9, 1, tzinfo=UTC)
        plan["n_games"][few.id] = 800
        plan["sessions"] = [(few, dt.datetime(2021, 8, 27, 15, tzinfo=UTC), rng.randint(40, 80))]
        self.acwc_few = few
        cheat = players[-3]
        plan["cheats"].append((cheat, dt.datetime(2021, 2, 1, 18, tzinfo=UTC)))
        self.plant("ACWC-ELIG-3", cheat.name, "a cheat-detected game on 2021-02-01 (since 2020-09-01)")
        self.play_histories(players, ACWC_END, outsiders, plan)
        self.acwc = players
        rounds = int(math.log2(n_players)) + 2
        ids = [p.id for p in players]
        by_id = {p.id: p for p in players}
        score = dict.fromkeys(ids, 0.0)
        played: set[frozenset[str]] = set()
        stopped = 0
        for rnd in range(1, rounds + 1):
            window = ACWC_START + dt.timedelta(days=7 * (rnd - 1))
            w.run_until(window)
            if rnd == 1:
                half = n_players // 2
                pairs = [(ids[i], ids[i + half]) for i in range(half)]
            else:
                order = sorted(ids, key=lambda i: (-score[i], ids.index(i)))
                pairs = swiss_pairs(order, played)
            played |= {frozenset(p) for p in pairs}
            matches = []
            for m_i, (a, b) in enumerate(pairs):
                self.acwc_pairings.append(("qualification", rnd, by_id[a].name, by_id[b].name))
                bm = BoardMatch(
                    "qualification",
                    rnd,
                    a,
                    b,
                    1,
                    by_id[a],
                    by_id[b],
                    (("2+5", 10),),
                    stop_at=5.5,
                    scoring={"2+5": (1.0, 0.5)},
                )
                kw: dict[str, Any] = {}
                if (rnd, m_i) == (2, 0):

                    def casual(end: dt.datetime, bm: BoardMatch = bm) -> dt.datetime:
                        w.play(
                            Spec(end + dt.timedelta(seconds=30), 0, bm.b, bm.a, parse_time_control("2+5"), rated=False)
                        )
                        return _t(w.games[-1]["lastMoveAt"])

                    kw["extras"] = {3: casual}
                    self.plant(
                        "ACWC-FMT-1",
                        bm.a.name,
                        f"qualification round 2: a casual 2+5 game against {bm.b.name} (casual, not counted)",
                    )
                start = window + dt.timedelta(days=1 + rng.randint(0, 4), hours=rng.randint(12, 20))
                play_board(w, bm, start, **kw)
                matches.append(bm)
            w.run_until(window + dt.timedelta(days=7))
            for bm in matches:
                score[bm.team_a] += bm.points["a"]
                score[bm.team_b] += bm.points["b"]
                stopped += len(bm.game_ids) < 10
        self.plant(
            "ACWC-Q-2",
            "qualification",
            f"{stopped} of {rounds * n_players // 2} matches stopped once a player reached 5.5 (info)",
        )
        w.run_until(ACWC_END + DAY)

    def acwc_seed(self, p: Player) -> int:
        """ACWC-SEED-1: the average of the rating at 2021-09-01 00:00 UTC (the last post-game rating
        before it) and the highest rating held from 2021-03-01 to then (the rating carried in at
        2021-03-01 and every post-game rating in between: intraday, as the seeding view computes it)."""
        seeding_at, peak_since = dt.datetime(2021, 9, 1, tzinfo=UTC), dt.datetime(2021, 3, 1, tzinfo=UTC)
        before = [r for t, r in p.rated if t < seeding_at]
        if not before:
            return 0
        carried = [r for t, r in p.rated if t < peak_since][-1:]
        window = [r for t, r in p.rated if peak_since <= t < seeding_at]
        return round((before[-1] + max(carried + window)) / 2)


def _check_board_order(s: Season, plan: dict[str, Any]) -> None:
    """TEAM-COMP-4 as the audit reads it (ratings at registration): the planted team's board 2 is
    more than 50 above its board 1 (PLANTED.csv states both ratings); on every team board 4 is
    below boards 1-3, and every other team's boards 1-3 descend. Raises if the generator broke that."""

    def rating(p: Player) -> int:
        r = rating_before(p, TEAM_REGISTRATION)
        if r is None:
            raise RuntimeError(f"demo generator: {p.name} has no rated game before registration")
        return r

    if any(st.ended_at is None for st in s.steers):
        raise RuntimeError("demo generator: a steered rating did not reach its band")
    swapped, row = plan["board_order"]
    for team, members in s.roster.items():
        r = [rating(p) for p in members[:4]]
        if r[3] >= min(r[:3]) or (team != swapped and r[:3] != sorted(r[:3], reverse=True)):
            raise RuntimeError(f"demo generator: {team}'s boards 1-4 are rated {r} at registration (TEAM-COMP-4)")
    b1, b2 = s.roster[swapped][:2]
    r1, r2 = rating(b1), rating(b2)
    if r2 - r1 <= 50:
        raise RuntimeError(
            f"demo generator: TEAM-COMP-4 planted on {swapped}, but board 2 is only {r2 - r1} above board 1"
        )
    s.planted[row] = (
        "TEAM-COMP-4",
        swapped,
        f"board 2 ({b2.name}, rated {r2} at registration) is {r2 - r1} above board 1 "
        f"({b1.name}, {r1}); no swap allowed",
    )


def _check_clean_eligibility(s: Season, plan: dict[str, Any]) -> None:
    """The demo is honest: every TEAM player not planted as a TEAM-ELIG-2/3 case has 1000 rated
    antichess games created before registration and 100 in the 3 months before it (the
    replacement: before the round it plays from). Raises if the generator broke that."""
    planted = {(rule, subject) for rule, subject, _ in s.planted}
    planted |= {(rule, p.name) for rule, p in plan["count_before_registration"] + plan["count_recent"]}
    created: dict[str, list[int]] = {}
    for g in s.world.games:
        for color in ("white", "black"):
            side = g["players"][color]
            if "ratingDiff" in side:
                created.setdefault(side["user"]["id"], []).append(g["createdAt"])
    for p in s.team_members() + [s.replacement]:
        if p.disabled:
            continue
        reg = plan["registered"][p.id]
        times = created.get(p.id, [])
        total = sum(t < _ms(reg) for t in times)
        recent = sum(_ms(_months_before(reg, 3)) <= t < _ms(reg) for t in times)
        if total < 1000 and ("TEAM-ELIG-2", p.name) not in planted:
            raise RuntimeError(
                f"demo generator: {p.name} has {total} rated games before registration (TEAM-ELIG-2: 1000)"
            )
        if recent < 100 and ("TEAM-ELIG-3", p.name) not in planted:
            raise RuntimeError(
                f"demo generator: {p.name} has {recent} rated games in the 3 months before registration "
                "(TEAM-ELIG-3: 100)"
            )


def _months_before(t: dt.datetime, months: int) -> dt.datetime:
    """The same day and time `months` calendar months earlier (the last day of a shorter month)."""
    y, m = divmod(t.year * 12 + t.month - 1 - months, 12)
    last = (dt.date(y + (m == 11), (m + 1) % 12 + 1, 1) - dt.timedelta(days=1)).day
    return t.replace(year=y, month=m + 1, day=min(t.day, last))


def _ms(t: dt.datetime) -> int:
    return (t - dt.datetime(1970, 1, 1, tzinfo=UTC)) // dt.timedelta(milliseconds=1)


def profile(p: Player, at: dt.datetime) -> dict[str, Any]:
    """The user JSON of GET /api/user/{id} / POST /api/users (reference §1.1) as of `at`."""
    if p.disabled:
        return {"id": p.id, "username": p.name, "disabled": True}
    d: dict[str, Any] = {"id": p.id, "username": p.name, "perfs": {}}
    if p.games:
        rd = glicko.live_deviation(p.rating, at)
        perf: dict[str, Any] = {"games": p.games, "rating": p.rating.int_rating, "rd": int(rd), "prog": 0}
        if rd >= glicko.PROVISIONAL_DEVIATION:
            perf["prov"] = True
        d["perfs"]["antichess"] = perf
    if p.title:
        d["title"] = p.title
    if p.tos_violation:
        d["tosViolation"] = True
    d["createdAt"] = _ms(p.created_at)
    d["seenAt"] = _ms(at)
    d["playTime"] = {"total": p.games * 240, "tv": 0}
    return d


def _csv(path: Path, header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")


TEAM_TOML = """\
# The demo TEAM season (seed {seed}): {teams} teams, {swiss_rounds} Swiss rounds, knockout and final/bronze.
# Written by `antichess-td demo`; the Lichess data in ../lichess is served by a replay server
# the nightly run starts in-process, so it runs offline. PLANTED.csv lists the rule violations
# planted on purpose, TRAPS.csv the look-alikes that are not violations.
preset = "team-swiss"

[tournament]
id = "demo-team-swiss-2026"
name = "Antichess Team Swiss 2026 (demo)"
registration_at = "2026-08-25T00:00:00Z"

[lichess]
replay_data = "lichess"
replay_games_per_s = 0          # unthrottled (lichess.org sends ~30 games/s to a token holder)

[paths]
teams = "teams.csv"
pairings = "pairings.csv"
database = "out/team.duckdb"
exports = "out/exports"
overrides = "overrides.csv"

[stages.swiss]
{swiss_rounds_line}first_round_start = "2026-09-01T00:00:00Z"   # a Tuesday; each round runs to Monday 23:59:59 UTC

[stages.knockout]
rounds = {ko_rounds}
first_round_start = "{knockout_start}"

[stages.final]
first_round_start = "{final_start}"

[composition]
strongest_players = [{strongest}]   # TEAM-COMP-3: the demo's six strongest players
"""

ACWC_TOML = """\
# The demo ACWC 2021 qualification (seed {seed}): {players} players, {rounds} rounds of 10-game
# 2+5 matches (ACWC-Q-1, ACWC-Q-2). Shares the Lichess data of the TEAM season (../lichess).
preset = "acwc-2021"

[tournament]
id = "demo-acwc-2021"
name = "Antichess World Cup 2021 qualification (demo)"
registration_at = "2021-09-01T00:00:00Z"

[lichess]
replay_data = "../lichess"
replay_games_per_s = 0

[paths]
players = "players.csv"
pairings = "pairings.csv"
database = "out/acwc.duckdb"
exports = "out/exports"

[stages.qualification]
rounds = {rounds}
first_round_start = "2021-09-07T00:00:00Z"
"""


def build_season(
    out: Path,
    seed: int = 2026,
    teams: int = 12,
    games: tuple[int, int] = (1000, 5000),
    acwc_players: int = 40,
    swiss_rounds: int = SWISS_ROUNDS,
) -> dict[str, int]:
    """Write the demo tournament under `out` (`swiss_rounds`: 7 as the preset, up to teams - 1);
    returns a size summary."""
    s = Season(seed, teams, games, swiss_rounds)
    s.play_acwc(acwc_players)
    s.build_team_roster()
    plan = s.plant_team_cases()
    s.play_team(plan)

    # TEAM-CAP-3/4/5: classify the planted crossings by what was actually generated (the RD at each
    # crossing comes from the simulation; a crossing at RD > 80 does not count)
    crossings: dict[str, list[Crossing]] = {}
    for c in s.crossings:
        if c.crossed_at is None:
            raise RuntimeError(f"planted crossing for {c.p.name} did not cross the cap")
        crossings.setdefault(c.p.name, []).append(c)
    traps = []
    for key, p in plan["cap_players"].items():
        cs = crossings[p.name]
        counted = [c for c in cs if (c.rd_at_crossing or 0) <= 80]
        days = ", ".join(f"{c.crossed_at:%Y-%m-%d} (RD {c.rd_at_crossing:.0f})" for c in cs)  # type: ignore[union-attr]
        if key == "hold":
            s.plant("TEAM-CAP-4", p.name, f"board 4: above the 2200 cap for about 30 hours after crossing on {days}")
        elif len(counted) >= 3:
            s.plant("TEAM-CAP-3", p.name, f"board 4: above the 2200 cap after a game on {len(counted)} days: {days}")
        else:
            rule = "TEAM-CAP-5" if len(counted) < len(cs) else "TEAM-CAP-3"
            traps.append(
                (
                    rule,
                    p.name,
                    f"board 4: above the 2200 cap on {days}; only {len(counted)} count "
                    "(RD above 80 does not): not a violation",
                )
            )

    # TEAM-ELIG-2/3: state the counts the data really holds at registration
    def rated_games(p: Player, since: dt.datetime | None, until: dt.datetime) -> int:
        n = 0
        for g in s.world.games:
            for color in ("white", "black"):
                side = g["players"][color]
                if (
                    side["user"]["id"] == p.id
                    and "ratingDiff" in side
                    and g["createdAt"] < _ms(until)
                    and (since is None or g["createdAt"] >= _ms(since))
                ):
                    n += 1
        return n

    def planted_count(rule: str, p: Player, n: int, required: int) -> int:
        if n >= required:
            raise RuntimeError(
                f"demo generator: {rule} planted for {p.name}, who has {n} rated games ({required} required)"
            )
        return n

    for rule, p in plan["count_before_registration"]:
        n = planted_count(rule, p, rated_games(p, None, TEAM_REGISTRATION), 1000)
        s.plant(rule, p.name, f"{n} rated antichess games before registration (1000 required)")
    few = s.acwc_few
    n = planted_count("ACWC-ELIG-2", few, rated_games(few, None, dt.datetime(2021, 9, 1, tzinfo=UTC)), 100)
    s.plant("ACWC-ELIG-2", few.name, f"first rated antichess game on 2021-08-27: {n} before 2021-09-01 (100 required)")
    for rule, p in plan["count_recent"]:
        n = planted_count(rule, p, rated_games(p, _months_before(TEAM_REGISTRATION, 3), TEAM_REGISTRATION), 100)
        s.plant(rule, p.name, f"{n} rated antichess games in the 3 months before registration (100 required)")
    _check_board_order(s, plan)

    if games[0] >= 1000:
        _check_clean_eligibility(s, plan)

    lichess_dir = out / "lichess"
    (lichess_dir / "rating-history").mkdir(parents=True, exist_ok=True)
    registered = s.team_members() + [s.replacement] + s.acwc
    with (lichess_dir / "users.ndjson").open("w", encoding="utf-8", newline="\n") as f:
        for p in registered:
            # a history game started just before the end may finish after it: the profile is read after it
            at = max(s.team_end, p.rating.latest) if p.rating.latest else s.team_end
            f.write(json.dumps(profile(p, at)) + "\n")
    for p in registered:
        if not p.disabled:
            (lichess_dir / "rating-history" / f"{p.id}.json").write_text(
                json.dumps(history_json(p)) + "\n", encoding="utf-8"
            )
    games_sorted = sorted(s.world.games, key=lambda g: (g["createdAt"], g["id"]))
    with (lichess_dir / "games.ndjson").open("w", encoding="utf-8", newline="\n") as f:
        for g in games_sorted:
            f.write(json.dumps(g) + "\n")
    _csv(
        out / "truth" / "deviations.csv",
        ("game_id", "user_id", "rd_before", "rd_after"),
        [(g, u, repr(a), repr(b)) for g, u, a, b in s.world.truth],
    )  # exact, round-trips

    team_rows = []
    for team, members in s.roster.items():
        for board, p in enumerate(members, 1):
            title = s.titles[team][board - 1] if board <= 4 else ""
            team_rows.append((team, p.name, board, title, "yes" if board == s.captains[team] else ""))
    _csv(out / "teams.csv", ("team", "player", "board", "title", "captain"), team_rows)
    _csv(out / "pairings.csv", ("stage", "round", "a", "b"), s.pairings)
    _csv(out / "overrides.csv", ("stage", "round", "subject", "action", "value", "reason"), s.overrides)
    _csv(out / "PLANTED.csv", ("rule_id", "subject", "note"), s.planted)
    _csv(out / "TRAPS.csv", ("rule_id", "subject", "note"), traps)
    knockout_start = TEAM_START + dt.timedelta(days=7 * swiss_rounds)
    final_start = knockout_start + dt.timedelta(days=7 * s.ko_rounds)
    rounds_line = "" if swiss_rounds == SWISS_ROUNDS else f"rounds = {swiss_rounds}\n"
    (out / "tournament.toml").write_text(
        TEAM_TOML.format(
            seed=seed,
            teams=teams,
            ko_rounds=s.ko_rounds,
            swiss_rounds=swiss_rounds,
            swiss_rounds_line=rounds_line,
            knockout_start=knockout_start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            final_start=final_start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            strongest=", ".join(f'"{n}"' for n in s.strongest),
        ),
        encoding="utf-8",
    )
    rounds = int(math.log2(acwc_players)) + 2
    _csv(out / "acwc" / "players.csv", ("player", "seed_rating"), [(p.name, s.acwc_seed(p)) for p in s.acwc])
    _csv(out / "acwc" / "pairings.csv", ("stage", "round", "a", "b"), s.acwc_pairings)
    (out / "acwc" / "tournament.toml").write_text(
        ACWC_TOML.format(seed=seed, players=acwc_players, rounds=rounds), encoding="utf-8"
    )
    return {
        "players": len(registered),
        "games": len(games_sorted),
        "planted": len(s.planted),
        "traps": len(traps),
        "teams": teams,
        "acwc_players": acwc_players,
        "swiss_rounds": swiss_rounds,
    }
