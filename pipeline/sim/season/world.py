"""The demo's simulated Lichess: players rated game by game with Glicko-2 as Lichess runs it
(``pipeline.domain.glicko``), a clock-ordered queue of games, and the games played so far."""

from __future__ import annotations

import datetime as dt
import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pipeline.domain import glicko
from pipeline.model import TimeControl
from pipeline.sim.games import ANY, PlayedGame, game_json, new_game_id, play_out

Winner = str | None  # 'white', 'black' or None for a draw
WinnerRule = Winner | bool | Callable[[dt.datetime], Winner]  # False: at random by strength; a callable: at play time


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
    games: int = 0  # rated antichess games played: `prior` ones plus those in `games` (the profile's count)
    prior: int = 0  # rated games played before the stored years: counted on the profile, never generated
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
    winner: WinnerRule = field(default=False, compare=False)
    status: str | None = field(default=None, compare=False)  # forced status (cheat, noStart)
    game_id: str | None = field(default=None, compare=False)
    variant: str = field(default="antichess", compare=False)
    on_done: Callable[[dict[str, Any]], None] | None = field(default=None, compare=False)


class SeasonWorld:
    """All players, the clock-ordered queue of games, what has been played, and the true RD of
    each registered player's rated games (``truth``)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        # (start, seq, spec): the heap compares the tuples' first two items in C (comparing Specs
        # through their dataclass __lt__ was a twentieth of a demo build); the same order
        self.queue: list[tuple[dt.datetime, int, Spec]] = []
        self.seq = 0
        self.games: list[dict[str, Any]] = []
        self.truth: list[tuple[str, str, float, float]] = []
        self.ids: set[str] = set()
        self.pool: dict[str | None, list[PlayedGame]] = {"white": [], "black": [], None: []}
        pool_rng = random.Random(seed * 7919 + 1)
        while short := [result for result, games in self.pool.items() if len(games) < 60]:
            # any result while two pools are short; then only the one still short (draws are rare)
            g = play_out(pool_rng, 0.5, want=ANY if len(short) > 1 else short[0])
            if g.winner in short:
                self.pool[g.winner].append(g)

    def new_id(self) -> str:
        return new_game_id(self.rng, self.ids)

    def add(self, start: dt.datetime, white: Player, black: Player, tc: TimeControl, **kw: Any) -> Spec:
        self.seq += 1
        spec = Spec(start, self.seq, white, black, tc, **kw)
        heapq.heappush(self.queue, (spec.start, spec.seq, spec))
        return spec

    def run_until(self, until: dt.datetime) -> None:
        while self.queue and self.queue[0][0] < until:
            self.play(heapq.heappop(self.queue)[2])

    def _winner(self, spec: Spec) -> Winner:
        w, b = spec.white, spec.black
        if callable(spec.winner):
            return spec.winner(rating_time(spec.start, w, b))
        if not isinstance(spec.winner, bool):
            return spec.winner
        if spec.winner:
            raise ValueError("Spec.winner True: expected False, 'white', 'black', None or a callable")
        expected = 1 / (1 + 10 ** ((b.strength - w.strength) / 400))
        r = self.rng.random()
        if r < 0.05:
            winner = None
        else:
            winner = "white" if self.rng.random() < expected else "black"
        return keep_under_caps(w, b, winner, rating_time(spec.start, w, b))

    def _moves(self, spec: Spec, winner: Winner) -> PlayedGame:
        """A game from the pool with that result, ended as `spec` forces it (cheat, noStart)."""
        played = self.rng.choice(self.pool[winner])
        if spec.status and spec.status != "noStart" and played.status in ("variantEnd", "draw"):
            # a forced status (cheat) ends the game off the board: the moves of a game that was cut
            played = next((g for g in self.pool[winner] if g.status not in ("variantEnd", "draw")), played)
        if spec.status == "noStart":
            return PlayedGame((), "noStart", winner)
        return PlayedGame(played.sans, spec.status or played.status, winner)

    def play(self, spec: Spec) -> dict[str, Any]:
        """Play `spec` now: rate it, record it, call its `on_done`; returns the game's JSON."""
        winner = self._winner(spec)
        played = self._moves(spec, winner)
        w, b = spec.white, spec.black
        end = spec.start + _duration(spec.tc, len(played.sans))
        gid = spec.game_id or self.new_id()
        self.ids.add(gid)
        # a game changes ratings when rated, antichess, and at least two plies were played
        rated = spec.rated and spec.variant == "antichess" and len(played.sans) >= 2
        w_before, b_before = w.rating, b.rating
        t_start = rating_time(spec.start, w, b)
        w_prov = glicko.live_deviation(w_before, t_start) >= glicko.PROVISIONAL_DEVIATION
        b_prov = glicko.live_deviation(b_before, t_start) >= glicko.PROVISIONAL_DEVIATION
        wd = bd = None
        if rated:
            wd, bd = self._rate(gid, w, b, winner, t_start, end)
        shown = _Shown(w, w_before), _Shown(b, b_before)
        g = game_json(gid, *shown, spec.tc, spec.start, end, played, spec.rated, wd, bd, spec.variant)
        if rated and w_prov:
            g["players"]["white"]["provisional"] = True
        if rated and b_prov:
            g["players"]["black"]["provisional"] = True
        self.games.append(g)
        if spec.on_done:
            spec.on_done(g)
        return g

    def _rate(
        self, gid: str, w: Player, b: Player, winner: Winner, t_start: dt.datetime, end: dt.datetime
    ) -> tuple[int, int]:
        """Rate a game that ended at `end`; returns both rating changes."""
        w_before, b_before = w.rating, b.rating
        # an outsider plays many players at once: rate at the latest of the end and both players' last games
        w_after, b_after = glicko.rate_game(w_before, b_before, winner, rating_time(end, w, b))
        for p, before, after in ((w, w_before, w_after), (b, b_before, b_after)):
            if p.registered:
                self.truth.append((gid, p.id, glicko.live_deviation(before, t_start), after.deviation))
            p.rating = after
            p.games += 1
            p.history[end.date()] = after.int_rating
            if p.registered:
                p.rated.append((end, after.int_rating))
        return w_after.int_rating - w_before.int_rating, b_after.int_rating - b_before.int_rating


def _duration(tc: TimeControl, plies: int) -> dt.timedelta:
    """How long a game of `plies` moves lasts on `tc` (at least two plies' worth)."""
    plies = max(plies, 2)
    per_move = tc.initial_s / 40 + tc.increment_s * 0.7 + 0.5
    return dt.timedelta(seconds=round(min(plies * per_move, 2 * tc.initial_s + plies * tc.increment_s + 5) + 3))


def crosses_a_cap(w: Player, b: Player, winner: Winner, at: dt.datetime) -> bool:
    """Would this result take a capped player's rating above its cap?"""
    if w.cap is None and b.cap is None:
        return False
    w_after, b_after = glicko.rate_game(w.rating, b.rating, winner, at)
    return (w.cap is not None and w_after.int_rating > w.cap) or (b.cap is not None and b_after.int_rating > b.cap)


def keep_under_caps(w: Player, b: Player, winner: Winner, at: dt.datetime) -> Winner:
    """The result, or the nearest one (a loss for the capped player, then a draw) that keeps every
    capped player at or below the cap: outside the planted crossings, board 4 stays under it,
    after draws too."""
    for option in (winner, "black" if winner == "white" else "white", None, "white", "black"):
        if not crosses_a_cap(w, b, option, at):
            return option
    return winner


def rating_time(at: dt.datetime, *players: Player) -> dt.datetime:
    """When a game at `at` is rated: not before either player's last rated game."""
    return max([at] + [p.rating.latest for p in players if p.rating.latest is not None])


def rating_before(p: Player, at: dt.datetime) -> int | None:
    """The post-game rating of `p`'s last rated game ended before `at` (rating_events, as the audits read it)."""
    before = [r for t, r in p.rated if t < at]
    return before[-1] if before else None


class _Shown:
    """What game_json needs of a player: name, id and the pre-game integer rating."""

    def __init__(self, p: Player, before: glicko.Rating) -> None:
        self.name, self.id, self.rating = p.name, p.id, before.int_rating
