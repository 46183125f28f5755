"""Forced games that put a rating where a planted fact needs it: a cap crossing (``Crossing``)
and a rating steered into a band (``Steer``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from pipeline.sim.season.calendar import FORCED_CLOCK, from_ms
from pipeline.sim.season.world import Player, SeasonWorld

Bound = Callable[[], float]


def fixed(value: float) -> Bound:
    """A bound that does not move."""
    return lambda: value


class Crossing:
    """A planted rating-cap crossing (TEAM-CAP-3/4/5): on `day`, forced wins until the rating is
    above the cap, then (after `hold`) forced losses until it is 15 below; the cap guard is off
    meanwhile. Records the RD before the crossing game."""

    def __init__(
        self, world: SeasonWorld, p: Player, cap: int, day: dt.datetime, hold: dt.timedelta, opp: Player
    ) -> None:
        self.world, self.p, self.cap, self.hold, self.opp = world, p, cap, hold, opp
        self.crossed_at: dt.datetime | None = None
        self.rd_at_crossing: float | None = None
        self.guard = p.cap
        world.add(day, p, opp, FORCED_CLOCK, winner="white", on_done=self._after_win)

    def _after_win(self, g: dict[str, Any]) -> None:
        self.p.cap = None
        end = from_ms(g["lastMoveAt"])
        if self.p.rating.int_rating > self.cap:
            if self.crossed_at is None:
                self.crossed_at = end
                self.rd_at_crossing = next(rd for _, pid, rd, _ in reversed(self.world.truth) if pid == self.p.id)
            at = end + self.hold + dt.timedelta(seconds=40)
            self.world.add(at, self.opp, self.p, FORCED_CLOCK, winner="white", on_done=self._after_loss)
        else:
            at = end + dt.timedelta(seconds=30)
            if len(self.world.games) % 2 == 0:
                self.world.add(at, self.p, self.opp, FORCED_CLOCK, winner="white", on_done=self._after_win)
            else:
                self.world.add(at, self.opp, self.p, FORCED_CLOCK, winner="black", on_done=self._after_win)

    def _after_loss(self, g: dict[str, Any]) -> None:
        end = from_ms(g["lastMoveAt"])
        if self.p.rating.int_rating >= self.cap - 15:
            at = end + dt.timedelta(seconds=30)
            self.world.add(at, self.opp, self.p, FORCED_CLOCK, winner="white", on_done=self._after_loss)
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
        world: SeasonWorld,
        p: Player,
        start: dt.datetime,
        opp: Player,
        lo: Bound,
        hi: Bound,
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
        white, black = (self.p, self.opp) if p_white else (self.opp, self.p)
        self.world.add(at, white, black, FORCED_CLOCK, winner=winner, on_done=self._after)

    def _after(self, g: dict[str, Any]) -> None:
        self._next(from_ms(g["lastMoveAt"]) + dt.timedelta(seconds=30))
