"""Matches as the demo plays them: one board's chain of games (``play_board``), Swiss pairings
without rematches (FIDE Dutch, or a fold of each score group in a field over 64), and the
knockout's size (TEAM-FMT-1)."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pipeline.domain.timecontrol import parse_time_control
from pipeline.sim.season.calendar import POINTS, from_ms
from pipeline.sim.season.world import Player, SeasonWorld, Spec, Winner, WinnerRule, crosses_a_cap

Parts = tuple[tuple[str, int], ...]  # (clock, games) in the order they are played
Extra = Callable[[dt.datetime], dt.datetime]  # planted games after a game's end; returns when they end


def extra_game(world: SeasonWorld, after_s: int, white: Player, black: Player, clock: str, rated: bool = True) -> Extra:
    """One planted game of `clock`, `after_s` seconds after a game's end (an Extra for play_board)."""

    def play(end: dt.datetime) -> dt.datetime:
        spec = Spec(end + dt.timedelta(seconds=after_s), 0, white, black, parse_time_control(clock), rated=rated)
        return from_ms(world.play(spec)["lastMoveAt"])

    return play


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
    parts: Parts
    points: dict[str, float] = field(default_factory=lambda: {"a": 0.0, "b": 0.0})
    game_ids: list[str] = field(default_factory=list)
    stop_at: float | None = None  # ACWC-Q-2: stop once either player reaches this
    rated: bool = True
    scoring: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(POINTS))  # clock → (win, draw)
    counts_until: dt.datetime | None = (
        None  # TEAM-FMT-3: games created from here on are outside the window, not counted
    )

    def count(self, g: dict[str, Any], a_white: bool, tc_text: str) -> None:
        """Add a played game to the board's points (not one outside the window)."""
        self.game_ids.append(g["id"])
        win, draw = self.scoring[tc_text]
        w = g.get("winner")
        if self.counts_until is not None and from_ms(g["createdAt"]) >= self.counts_until:
            pass  # outside the window: the pipeline does not count it, nor do the demo's standings
        elif w is None:
            self.points["a"] += draw
            self.points["b"] += draw
        else:
            self.points["a" if (w == "white") == a_white else "b"] += win


def tie_results(parts: Parts) -> list[str]:
    """Forced results giving each part an even split: the board (and so the match) ends level."""
    results = []
    for _, n in parts:
        results += ["a", "b"] * (n // 2) + ["d"] * (n % 2)
    return results


def _forced_winner(pool: list[str], white: Player, black: Player, a_white: bool) -> Callable[[dt.datetime], Winner]:
    """A result chosen when the game is played: the part's first remaining result that keeps capped
    players under their cap (the part's total is the same in any order)."""

    def as_winner(r: str) -> Winner:
        return None if r == "d" else ("white" if (r == "a") == a_white else "black")

    def forced(t: dt.datetime) -> Winner:
        pick = next((j for j, r in enumerate(pool) if not crosses_a_cap(white, black, as_winner(r), t)), 0)
        return as_winner(pool.pop(pick))

    return forced


def _next_start(
    rng: random.Random,
    parts_of: list[int],
    i: int,
    end: dt.datetime,
    gap_before_part: dict[int, dt.timedelta] | None,
    break_after: dict[int, dt.timedelta] | None,
) -> dt.datetime:
    """When game i + 1 starts after game i ended at `end`: 10-40 s later, 20-50 s between parts
    (TEAM-CONDUCT-2), unless a planted gap or break says otherwise (the random draws happen anyway)."""
    nxt = end + dt.timedelta(seconds=rng.randint(10, 40))
    if i + 1 < len(parts_of) and parts_of[i + 1] != parts_of[i]:
        between = dt.timedelta(seconds=rng.randint(20, 50))
        nxt = end + (gap_before_part or {}).get(parts_of[i + 1], between)
    if break_after and i in break_after:
        nxt = end + break_after[i]
    return nxt


def play_board(
    world: SeasonWorld,
    bm: BoardMatch,
    start: dt.datetime,
    results: list[str] | None = None,
    extras: dict[int, Extra] | None = None,
    gap_before_part: dict[int, dt.timedelta] | None = None,
    break_after: dict[int, dt.timedelta] | None = None,
) -> None:
    """Schedule the board's games as a chain: each starts 10-40 s after the previous one ended
    (20-50 s between parts, TEAM-CONDUCT-2). `results` forces outcomes ('a', 'b', 'd') game by game;
    `extras[i]` plays planted games after game i; gaps and breaks are planted delays."""
    plan = [(tc, pi) for pi, (tc, n) in enumerate(bm.parts) for _ in range(n)]
    parts_of = [part for _, part in plan]
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
        winner: WinnerRule = _forced_winner(pools[part], white, black, a_white) if pools.get(part) else False

        def done(g: dict[str, Any]) -> None:
            bm.count(g, a_white, tc_text)
            end = from_ms(g["lastMoveAt"])
            if extras and i in extras:
                end = extras[i](end)
            schedule(i + 1, _next_start(world.rng, parts_of, i, end, gap_before_part, break_after))

        world.add(at, white, black, parse_time_control(tc_text), rated=bm.rated, winner=winner, on_done=done)

    schedule(0, start)


DUTCH_MAX = 64
"""The largest field the demo pairs with the FIDE Dutch engine (:func:`engine_pairs`). The engine
pairs each score bracket by a maximum-weight matching whose cost grows with about the cube of the
field: a round of 64 teams takes a second or two, a round of 256 several minutes, so a 256-team
season would take most of an hour to pair. A larger field is paired by :func:`fold_pairs`."""


def engine_pairs(
    seeds: dict[str, float], played: list[tuple[int, str, str, float, float]], rnd: int, rounds: int
) -> list[tuple[str, str]]:
    """Swiss round `rnd` as a TD running `antichess-td pair` gets it: the FIDE Dutch system
    (pipeline.domain.dutch, the pinned engine) from each entrant's seeding rating and the
    rounds so far as (round, white, black, white's score, black's score) in win units. The demo's
    fields are even, so no bye. Pairs are (White, Black): `a` has White (a team: on board 1).
    A field of more than :data:`DUTCH_MAX` entrants is paired by :func:`fold_pairs` instead (so
    ``antichess-td pair`` on such a demo may propose other pairings than the demo's)."""
    if len(seeds) > DUTCH_MAX:
        return fold_pairs(seeds, played)
    from pipeline.domain import dutch

    entrants = dutch.seed_order(dutch.Entrant(e, r) for e, r in seeds.items())
    history = [dutch.Result(r, a, b, sa, sb) for r, a, b, sa, sb in played]
    proposal = dutch.pair_round(entrants, history, rnd, rounds)
    if proposal.bye is not None:
        raise ValueError(f"the demo's Swiss fields are even; round {rnd} gave {proposal.bye} a bye")
    return list(proposal.pairs)


def fold_pairs(seeds: dict[str, float], played: list[tuple[int, str, str, float, float]]) -> list[tuple[str, str]]:
    """A Swiss round for a large field, in time linear in it (but for backtracking over rematches):
    the entrants in standings order (score, then seeding rating, then name), each score group
    folded (its top half against its bottom half, as FIDE Dutch pairs a homogeneous bracket) with
    an odd one out floated down into the next group; a pair that has met is skipped for the next
    candidate down the standings. White goes to the entrant with fewer Whites so far (the higher
    ranked on a tie)."""
    score: dict[str, float] = dict.fromkeys(seeds, 0.0)
    whites: dict[str, int] = dict.fromkeys(seeds, 0)
    met: set[frozenset[str]] = set()
    for _, a, b, sa, sb in played:
        score[a] += sa
        score[b] += sb
        whites[a] += 1
        met.add(frozenset((a, b)))
    order = sorted(seeds, key=lambda e: (-score[e], -seeds[e], e))
    folded: list[str] = []
    group: list[str] = []
    for i, e in enumerate(order):
        group.append(e)
        if i + 1 == len(order) or score[order[i + 1]] != score[e]:
            half = len(group) // 2
            folded += [x for pair in zip(group[:half], group[half : 2 * half], strict=True) for x in pair]
            group = group[2 * half :]  # the odd one out floats down
    pairs = _pair_down(folded, met)
    rank = {e: i for i, e in enumerate(order)}
    return [(a, b) if (whites[a], rank[a]) <= (whites[b], rank[b]) else (b, a) for a, b in pairs]


def _pair_down(order: list[str], met: set[frozenset[str]]) -> list[tuple[str, str]]:
    """`order` paired two by two, each entrant with the next one down it has not met (backtracking)."""
    pairs: list[tuple[str, str]] = []
    left = list(order)
    stack: list[tuple[list[str], int]] = []  # (the entrants left, the next candidate to try) at each choice
    j = 1
    while left:
        while j < len(left) and frozenset((left[0], left[j])) in met:
            j += 1
        if j < len(left):
            stack.append((left, j + 1))
            pairs.append((left[0], left[j]))
            left, j = left[1:j] + left[j + 1 :], 1
            continue
        if not stack:
            raise ValueError("no Swiss pairing without a rematch")
        left, j = stack.pop()
        pairs.pop()
    return pairs


def knockout_size(teams: int) -> int:
    """TEAM-FMT-1: 10-15 teams → 4, 16-31 → 8, 32-63 → 16; more than 63 → a candidates stage the TD
    configures (the demo stands in a 16-team knockout for it)."""
    if teams < 10:
        raise ValueError(f"{teams} teams: TEAM-FMT-1 needs at least 10")
    return 4 if teams <= 15 else 8 if teams <= 31 else 16
