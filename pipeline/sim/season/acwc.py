"""The demo's ACWC 2021 qualification: its players and planted eligibility cases, the Swiss
rounds of 10-game 2+5 matches (ACWC-Q-1, ACWC-Q-2, ACWC-FMT-1), and the seeding (ACWC-SEED-1)."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from pipeline.sim.season.calendar import ACWC_END, ACWC_PEAK_SINCE, ACWC_SEEDING, ACWC_START, DAY, SPAN, UTC
from pipeline.sim.season.matches import BoardMatch, engine_pairs, extra_game, play_board
from pipeline.sim.season.players import HistoryPlan, outsiders_for
from pipeline.sim.season.state import Season
from pipeline.sim.season.world import Player


def acwc_rounds(n_players: int) -> int:
    """ACWC-Q-1: floor(log2 n) + 2 rounds."""
    return int(math.log2(n_players)) + 2


def play_acwc(s: Season, n_players: int = 40) -> None:
    """ACWC 2021 qualification: floor(log2 n) + 2 rounds of 10-game 2+5 rated matches, stopped
    once a player reaches 5.5 (ACWC-Q-1, ACWC-Q-2, ACWC-FMT-1)."""
    outsiders = outsiders_for(s.world, ACWC_END - SPAN, 200)
    players = _acwc_players(s, n_players)
    s.play_histories(players, ACWC_END, outsiders, _plant_acwc_cases(s, players))
    s.acwc = players
    rounds = acwc_rounds(n_players)
    seeds: dict[str, float] = {}
    played: list[tuple[int, str, str, float, float]] = []
    stopped = 0
    for rnd in range(1, rounds + 1):
        window = ACWC_START + dt.timedelta(days=7 * (rnd - 1))
        s.world.run_until(window)
        if rnd == 1:  # the world has now played every game before the seeding date
            seeds = {p.id: acwc_seeding_rating(p) for p in players}
        pairs = engine_pairs(seeds, played, rnd, rounds)  # FIDE Dutch on game points (ACWC-Q-2)
        matches = _acwc_round(s, rnd, window, pairs)
        s.world.run_until(window + dt.timedelta(days=7))
        for bm in matches:
            # the engine's units, as the pipeline's pairing reads game points: a share of the 10 games' most
            played.append((rnd, bm.team_a, bm.team_b, bm.points["a"] / 10, bm.points["b"] / 10))
            stopped += len(bm.game_ids) < 10
    s.plant(
        "ACWC-Q-2",
        "qualification",
        f"{stopped} of {rounds * n_players // 2} matches stopped once a player reached 5.5 (info)",
    )
    s.world.run_until(ACWC_END + DAY)


def _acwc_players(s: Season, n_players: int) -> list[Player]:
    """The field, strongest first, with accounts created 2012-2019."""
    rng = s.rng
    players = []
    for i in range(n_players):
        created = dt.datetime(2012 + rng.randint(0, 7), rng.randint(1, 12), rng.randint(1, 28), tzinfo=UTC)
        players.append(s.player(2450 - 12 * i + rng.uniform(-8, 8), created))
    return players


def _plant_acwc_cases(s: Season, players: list[Player]) -> HistoryPlan:
    """ACWC-ELIG-1 (a late account), ACWC-ELIG-2 (one session of 40-80 rated games on 2021-08-27,
    the rest from 2021-09-01; stated once counted) and ACWC-ELIG-3 (a cheat-detected game)."""
    plan = HistoryPlan(counted_before=ACWC_SEEDING)
    late = players[-1]
    late.created_at = dt.datetime(2021, 4, 2, tzinfo=UTC)
    s.plant("ACWC-ELIG-1", late.name, "account created 2021-04-02, after the 2021-03-01 deadline")
    few = players[-2]
    plan.start[few.id] = ACWC_SEEDING
    plan.n_games[few.id] = 800
    plan.sessions = [(few, dt.datetime(2021, 8, 27, 15, tzinfo=UTC), s.rng.randint(40, 80))]
    s.acwc_few = few
    cheat = players[-3]
    plan.cheats.append((cheat, dt.datetime(2021, 2, 1, 18, tzinfo=UTC)))
    s.plant("ACWC-ELIG-3", cheat.name, "a cheat-detected game on 2021-02-01 (since 2020-09-01)")
    return plan


def _acwc_round(s: Season, rnd: int, window: dt.datetime, pairs: list[tuple[str, str]]) -> list[BoardMatch]:
    """Schedule one round's matches, each on a day of its week; round 2's first match has a
    casual game (ACWC-FMT-1)."""
    by_id = {p.id: p for p in s.acwc}
    matches = []
    for m_i, (a, b) in enumerate(pairs):
        s.acwc_pairings.append(("qualification", rnd, by_id[a].name, by_id[b].name))
        scoring = {"2+5": (1.0, 0.5)}
        bm = BoardMatch("qualification", rnd, a, b, 1, by_id[a], by_id[b], (("2+5", 10),), stop_at=5.5, scoring=scoring)
        kw: dict[str, Any] = {}
        if (rnd, m_i) == (2, 0):
            kw["extras"] = {3: extra_game(s.world, 30, bm.b, bm.a, "2+5", rated=False)}  # after game 3
            s.plant(
                "ACWC-FMT-1",
                bm.a.name,
                f"qualification round 2: a casual 2+5 game against {bm.b.name} (casual, not counted)",
            )
        start = window + dt.timedelta(days=1 + s.rng.randint(0, 4), hours=s.rng.randint(12, 20))
        play_board(s.world, bm, start, **kw)
        matches.append(bm)
    return matches


def acwc_seeding_rating(p: Player) -> float:
    """ACWC-SEED-1: the average of the rating at 2021-09-01 00:00 UTC (the last post-game rating
    before it) and the highest rating held from 2021-03-01 to then (the rating carried in at
    2021-03-01 and every post-game rating in between: intraday, as the seeding view computes it)."""
    before = [r for t, r in p.rated if t < ACWC_SEEDING]
    if not before:
        return 0.0
    carried = [r for t, r in p.rated if t < ACWC_PEAK_SINCE][-1:]
    window = [r for t, r in p.rated if ACWC_PEAK_SINCE <= t < ACWC_SEEDING]
    return (before[-1] + max(carried + window)) / 2


def acwc_seed(p: Player) -> int:
    """players.csv's seed: the seeding rating rounded to a whole number (the file's format)."""
    return round(acwc_seeding_rating(p))
