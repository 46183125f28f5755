"""The demo's players and their background games: usernames, the outsiders they play, and each
registered player's years of rated games (outside the quiet periods the planted facts need)."""

from __future__ import annotations

import bisect
import datetime as dt
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pipeline.domain import glicko
from pipeline.domain.timecontrol import parse_time_control
from pipeline.sim.season.calendar import BACKGROUND_CLOCKS, DAY, FORCED_CLOCK, SPAN
from pipeline.sim.season.world import Player, SeasonWorld

Span = tuple[dt.datetime, dt.datetime]

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
class HistoryPlan:
    """Where a player's background games differ from the default, by player id: a later `start`,
    a planted number of games, quiet periods, no recent top-up, a registration time (the TEAM
    season); and planted `sessions` (a count in a row) and `cheats` (a game with status cheat).
    `counted_before`: the date an individual event counts rated games before (ACWC-ELIG-2), for
    players without a registration time."""

    start: dict[str, dt.datetime] = field(default_factory=dict)
    n_games: dict[str, int] = field(default_factory=dict)
    quiet: dict[str, list[Span]] = field(default_factory=dict)
    no_topup: set[str] = field(default_factory=set)
    registered: dict[str, dt.datetime] = field(default_factory=dict)
    sessions: list[tuple[Player, dt.datetime, int]] = field(default_factory=list)
    cheats: list[tuple[Player, dt.datetime]] = field(default_factory=list)
    counted_before: dt.datetime | None = None

    def add_quiet(self, p: Player, start: dt.datetime, end: dt.datetime) -> None:
        self.quiet.setdefault(p.id, []).append((start, end))


def username(rng: random.Random, taken: set[str]) -> str:
    """A fresh Lichess-like username (recorded lower-cased in `taken`)."""
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


def outsiders_for(world: SeasonWorld, at: dt.datetime, n: int = 240) -> list[Player]:
    """`n` unregistered opponents rated 1350-2600, established at `at`."""
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


def nearest(outsiders: list[Player], strength: float) -> Player:
    """The outsider closest to `strength` (the first of two as close), found by bisection: the
    list is in ascending strength, as `outsiders_for` makes it."""
    i = bisect.bisect_left(outsiders, strength, key=lambda o: o.strength)
    if i == len(outsiders) or (i > 0 and strength - outsiders[i - 1].strength <= outsiders[i].strength - strength):
        i -= 1
    return outsiders[i]


def _allowed(start: dt.datetime, end: dt.datetime, quiet: Sequence[Span]) -> list[Span]:
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


def _locate(offset: float, spans: list[Span]) -> Span | None:
    """The time `offset` seconds into the allowed spans, and the end of its span."""
    for a, b in spans:
        length = (b - a).total_seconds()
        if offset < length:
            return a + dt.timedelta(seconds=offset), b
        offset -= length
    return None


def background(
    world: SeasonWorld,
    p: Player,
    n_games: int,
    start: dt.datetime,
    end: dt.datetime,
    outsiders: list[Player],
    quiet: Sequence[Span] = (),
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
    for si, off in enumerate(offsets):
        located = _locate(off, spans)
        if located is None:
            continue
        size = left if si == len(offsets) - 1 else max(1, min(left, rng.randint(5, 25)))
        left -= size
        _background_session(world, p, size, *located, outsiders)
        if left <= 0:
            break


def _background_session(
    world: SeasonWorld, p: Player, size: int, t: dt.datetime, limit: dt.datetime, outsiders: list[Player]
) -> None:
    """Up to `size` games in a row on one clock from `t`, stopping at `limit`."""
    rng = world.rng
    tc = rng.choice(BACKGROUND_CLOCKS)
    for _ in range(size):
        if t >= limit:
            break
        opp = nearest(outsiders, p.strength + rng.gauss(0, 120))  # an opponent's strength ~ N(p's, 120)
        white, black = (p, opp) if rng.random() < 0.5 else (opp, p)
        world.add(t, white, black, tc, rated=rng.random() > 0.04)
        t += dt.timedelta(seconds=tc.initial_s * 2 + tc.increment_s * 90 + rng.randint(20, 90))  # after the longest


def session(world: SeasonWorld, p: Player, n: int, start: dt.datetime, outsiders: list[Player]) -> None:
    """Exactly `n` rated 1+2 games of `p` in a row from `start` (a planted count: TEAM-ELIG-3, ACWC-ELIG-2)."""
    opp = nearest(outsiders, p.strength)
    tc = parse_time_control("1+2")
    for i in range(n):
        white, black = (p, opp) if i % 2 == 0 else (opp, p)
        world.add(start, white, black, tc)
        start += dt.timedelta(seconds=tc.initial_s * 2 + tc.increment_s * 90 + 30)  # after the longest game


def play_histories(
    world: SeasonWorld,
    players: list[Player],
    end: dt.datetime,
    outsiders: list[Player],
    plan: HistoryPlan,
    n_games: Callable[[], int],
    recent_topup: bool,
    stored: tuple[int, int] | None = None,
) -> None:
    """Each player's background games. A player with a registration time (the TEAM season) plays
    its `n` games before it (with a margin for casual games and sessions cut short by quiet
    periods, so that TEAM-ELIG-2's 1000 rated games hold unless planted), another 120-160 in
    the 3 months before it (TEAM-ELIG-3's 100, when `recent_topup` and unless planted:
    `no_topup`), and games at the same pace after it; the others (ACWC) play `n` games up to
    `end`. With fewer history games (below 1000, for quick tests) there is no recent top-up and
    players fall short of TEAM-ELIG-2/3 as they will. Then the planted sessions and cheats.

    `stored` (MIN, MAX): an account older than the stored years (`SPAN` before `end`) without a
    planted start or count, and with more than MAX games, played most of its `n` games before
    them: it starts the stored years established (its strength, RD 60) with `n` minus MIN-MAX
    games counted on its profile (:func:`_prior_games`), and plays the MIN-MAX in the stored years
    as above (plus the top-ups; an ACWC player also 120-160 in the 3 months before
    `plan.counted_before`, so that ACWC-ELIG-2 rests on stored games). None: every game is
    generated."""
    for p in players:
        start = max(p.created_at + DAY, end - SPAN)
        start = plan.start.get(p.id, start)
        planted_n = plan.n_games.get(p.id)
        n = planted_n or n_games()
        established = False
        if stored is not None and n > stored[1] and not planted_n and p.id not in plan.start and start == end - SPAN:
            n, established = _prior_games(world, p, n, start, stored), True
        quiet = plan.quiet.get(p.id, [])
        reg = plan.registered.get(p.id)
        if reg is None:
            background(world, p, n, start, end, outsiders, quiet)
            if established and plan.counted_before is not None:
                topup = world.rng.randint(120, 160)
                cut = plan.counted_before
                background(world, p, topup, cut - dt.timedelta(days=88), cut - DAY, outsiders, quiet)
            continue
        before = n if planted_n else int(n * 1.1) + 20 + 25 * len(quiet)
        background(world, p, before, start, reg, outsiders, quiet)
        if p.id not in plan.no_topup and recent_topup:
            topup = world.rng.randint(120, 160)
            background(world, p, topup, reg - dt.timedelta(days=88), reg - DAY, outsiders, quiet)
        after = max(30, round(n * (end - reg) / max(reg - start, DAY)))
        background(world, p, after, reg, end - dt.timedelta(hours=2), outsiders, quiet)  # all finished by `end`
    for p, day, n in plan.sessions:
        session(world, p, n, day, outsiders)
    for p, day in plan.cheats:
        opp = nearest(outsiders, p.strength)
        white = world.rng.random() < 0.5
        # the cheater loses (status cheat)
        if white:
            world.add(day, p, opp, FORCED_CLOCK, status="cheat", winner="black")
        else:
            world.add(day, opp, p, FORCED_CLOCK, status="cheat", winner="white")


def _prior_games(world: SeasonWorld, p: Player, n: int, start: dt.datetime, stored: tuple[int, int]) -> int:
    """Make `p` an account that played all but MIN-MAX (`stored`) of its `n` games before `start`:
    those are counted on its profile (``Player.prior``: the profile's ``perfs.antichess.games``
    includes them) and never generated, and it starts `start` established at its strength (RD 60,
    as years of play leave it). Returns the number of games left to generate."""
    keep = min(n, world.rng.randint(*stored))
    p.prior = p.games = n - keep
    p.rating = glicko.Rating(p.strength, 60.0, 0.06, start)
    return keep
