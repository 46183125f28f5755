"""The demo generator at any field size (10 to 256 teams) and any seed: its plan plants every TEAM
case, every steered rating starts where forced games can move it, and a large field's Swiss
rounds are paired without rematches. The suite tests build only the plan (the rosters and the
planted cases, no season played); the scenario test plays and writes a whole 256-team season."""

from __future__ import annotations

import csv
import random
from collections import Counter
from pathlib import Path

import pytest

from pipeline.sim.season import build_season
from pipeline.sim.season.matches import DUTCH_MAX, engine_pairs, fold_pairs
from pipeline.sim.season.state import Season
from pipeline.sim.season.team import build_team_roster
from pipeline.sim.season.team_cases import TeamPlan, plant_team_cases

SIZES = [(10, 9), (64, 11), (256, 11)]  # (teams, Swiss rounds): 10 teams have 9 rounds without a rematch
SEEDS = [1, 2026]

# the TEAM cases planted on the rosters and histories before a ball is played, by rule (the
# others are planted as the season is played, or stated once checked against the data)
BEFORE_PLAY = Counter(
    {
        "TEAM-COMP-2": 1,  # three AGM-or-higher on one team
        "TEAM-COMP-3": 1,  # two of the strongest on one team
        "TEAM-COMP-4": 1,  # a board order not descending by rating
        "TEAM-ELIG-1": 1,  # a young account
        "TEAM-ELIG-2": 1,  # a closed account's count (the short count is stated once checked)
        "TEAM-ELIG-3": 1,  # the provisional player's (the short recent count is stated once checked)
        "TEAM-ELIG-4": 2,  # cheat-detected games, recent and old
        "TEAM-ELIG-5": 2,  # a tosViolation mark, a closed account
        "TEAM-ELIG-6": 1,  # a BOT
        "TEAM-ELIG-7": 1,  # provisional at the pairings
    }
)
# every TEAM case a whole season plants (PLANTED.csv), but the cap crossings (TEAM-CAP-3/4/5),
# whose rows depend on the RDs the simulation gives (PLANTED.csv or TRAPS.csv)
SEASON = BEFORE_PLAY + Counter(
    {
        "TEAM-ELIG-2": 1,  # too few games before registration
        "TEAM-ELIG-3": 1,  # too few recent games
        "TEAM-COMP-6": 1,  # a replacement rated too low
        "TEAM-CONDUCT-1": 1,  # a long break
        "TEAM-CONDUCT-2": 1,  # a gap between parts
        "TEAM-CONDUCT-3": 1,  # disqualified after two forfeits
        "TEAM-FMT-3": 2,  # a wrong clock, a match past its window
        "TEAM-SCORE-1": 2,  # a 9th game, a game never started
        "TEAM-SCORE-4": 1,  # an unplayed board ruled a 0-0 draw
        "TEAM-KO-1": 2,  # the captains' games after a tie
    }
)


def planned(seed: int, teams: int, rounds: int) -> tuple[Season, TeamPlan]:
    s = Season(seed, teams, (40, 80), rounds)
    build_team_roster(s)
    return s, plant_team_cases(s)


@pytest.mark.parametrize(
    ("seed", "teams", "rounds"),
    # every size with one seed in the suite; the other seeds' large fields in the scenario tier
    [(seed, teams, rounds) for seed in SEEDS[:1] for teams, rounds in SIZES]
    + [
        pytest.param(seed, teams, rounds, marks=() if teams <= 10 else pytest.mark.scenario)
        for seed in SEEDS[1:]
        for teams, rounds in SIZES
    ],
)
def test_the_plan_plants_every_team_case_at_any_size(seed: int, teams: int, rounds: int) -> None:
    """Every TEAM case planted before play is planted once per rule (twice for TEAM-ELIG-4/5), on a
    player or team of the field, whatever its size; and every steered rating (each team's board
    4, TEAM-COMP-4; the replacement, TEAM-COMP-6) belongs to a player whose strength is within
    reach of the outsiders (1350-2600) the forced games are played against: far below them a
    forced loss hardly moves a rating, and the steer never reaches its band."""
    s, plan = planned(seed, teams, rounds)
    assert Counter(rule for rule, _, _ in s.planted) == BEFORE_PLAY
    names = {p.name for p in s.team_members()} | set(s.roster)
    assert all(subject in names for _, subject, _ in s.planted)
    assert len(s.roster) == teams
    steered = [members[3] for members in s.roster.values()] + [s.roster[plan.board_order[0]][1], s.replacement]
    assert all(1200 <= p.strength <= 2600 for p in steered), sorted(p.strength for p in steered)[:3]


def test_a_large_field_is_folded_without_rematches() -> None:
    """Swiss rounds of a field over DUTCH_MAX (fold_pairs): each round pairs every entrant once,
    never two that have met (no rematch in a Swiss), round 1 folds the seeds (1 v 129, 2 v 130,
    ... at 256: top half against bottom half, as FIDE Dutch pairs round 1), and White goes to the
    entrant with fewer Whites so far."""
    rng = random.Random(5)
    teams = [f"T{i:03d}" for i in range(256)]
    seeds = {t: 2400.0 - i for i, t in enumerate(teams)}
    played: list[tuple[int, str, str, float, float]] = []
    for rnd in range(1, 12):
        pairs = engine_pairs(seeds, played, rnd, 11)
        assert sorted(x for p in pairs for x in p) == teams
        met = {frozenset(p[1:3]) for p in played}
        assert not [p for p in pairs if frozenset(p) in met]
        if rnd == 1:
            assert sorted(tuple(sorted(p)) for p in pairs) == [(teams[i], teams[i + 128]) for i in range(128)]
        whites = Counter(a for _, a, _, _, _ in played)
        assert all(whites[a] <= whites[b] for a, b in pairs)
        for a, b in pairs:
            w = rng.choice([1.0, 0.5, 0.0])
            played.append((rnd, a, b, w, 1.0 - w))
    assert len(seeds) > DUTCH_MAX
    assert fold_pairs(seeds, played) == fold_pairs(dict(reversed(list(seeds.items()))), played)  # no dict order


@pytest.mark.slow
@pytest.mark.scenario
def test_a_256_team_season_plants_every_case(tmp_path: Path) -> None:
    """The season benchmark's largest field (benchmarks/season.py --teams 256: 11 Swiss rounds,
    200-400 history games, 16 ACWC players, seed 2026), played and written: build_season's
    self-checks pass and PLANTED.csv holds every TEAM case (SEASON), and each of the four planted
    cap crossers (TEAM-CAP-3/4/5) has a row in PLANTED.csv or TRAPS.csv."""
    out = tmp_path / "demo256"
    summary = build_season(out, seed=2026, teams=256, games=(200, 400), acwc_players=16, swiss_rounds=11)
    assert (summary["teams"], summary["swiss_rounds"]) == (256, 11)
    with (out / "PLANTED.csv").open(newline="", encoding="utf-8") as f:
        planted = list(csv.DictReader(f))
    with (out / "TRAPS.csv").open(newline="", encoding="utf-8") as f:
        traps = list(csv.DictReader(f))
    team = Counter(r["rule_id"] for r in planted if r["rule_id"].startswith("TEAM-") and "-CAP-" not in r["rule_id"])
    assert team == SEASON
    cap_rows = {r["subject"] for r in planted + traps if r["rule_id"].startswith("TEAM-CAP-")}
    assert len(cap_rows) == 4, cap_rows
    assert "TEAM-CAP-4" in {r["rule_id"] for r in planted}
