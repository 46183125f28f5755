"""Swiss standings after every round.

Primary score (TEAM-SCORE-5): match points, 2/1/0 by default (configurable), or game points for
individual events (ACWC-Q-2). Tiebreaks in the stage's order (TEAM-TB-1): points difference
(scored − conceded), points scored, Median-Buchholz.

Median-Buchholz here is the *plain* policy (as Challonge computes it): the sum of the opponents'
primary scores after the round, without the single highest and the single lowest; fewer than
three opponents give 0. Unplayed rounds and byes get no adjustment. (The FIDE 2024 / 2026
policies for unplayed rounds are a later, configurable addition.)

A pending match (neither side has won and the round is still open) does not count yet.
Entrants with equal scores on every criterion share a rank (1, 2, 2, 4).

Pure: takes team matches and entrants; returns frozen rows.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from pipeline.config import Stage
from pipeline.scoring import TeamMatch


@dataclass(frozen=True)
class Standing:
    stage: str
    after_round: int
    rank: int
    entrant: str
    matches_played: int
    match_points: float
    points_scored: float
    points_conceded: float
    points_difference: float
    median_buchholz: float


def median_buchholz(opponent_scores: list[float]) -> float:
    """Sum without the highest and the lowest score (TEAM-TB-1)."""
    ordered = sorted(opponent_scores)
    return float(sum(ordered[1:-1]))


def standings_after(stage: Stage, entrants: tuple[str, ...], matches: list[TeamMatch], after_round: int) -> list[Standing]:
    mp: dict[str, float] = defaultdict(float)
    scored: dict[str, float] = defaultdict(float)
    conceded: dict[str, float] = defaultdict(float)
    played: dict[str, int] = defaultdict(int)
    opponents: dict[str, list[str]] = defaultdict(list)
    m = stage.match_points
    for tm in matches:
        if tm.stage != stage.name or tm.round > after_round or tm.outcome == "pending":
            continue
        for me, opp, mine, theirs, side in ((tm.team_a, tm.team_b, tm.a_points, tm.b_points, "a"),
                                            (tm.team_b, tm.team_a, tm.b_points, tm.a_points, "b")):
            mp[me] += m.draw if tm.outcome == "draw" else m.win if tm.outcome == side else m.loss
            scored[me] += mine
            conceded[me] += theirs
            played[me] += 1
            opponents[me].append(opp)
    primary = mp if stage.primary == "match_points" else scored
    values: dict[str, dict[str, float]] = {}
    for e in entrants:
        values[e] = {
            "points_difference": scored[e] - conceded[e],
            "points_scored": scored[e],
            "median_buchholz": median_buchholz([primary[o] for o in opponents[e]]),
        }

    def key(e: str) -> tuple[float, ...]:
        return (primary[e], *(values[e][tb] for tb in stage.tiebreaks))

    ordered = sorted(entrants, key=lambda e: (tuple(-k for k in key(e)), e.lower()))
    out = []
    for e in ordered:
        rank = 1 + sum(1 for other in entrants if key(other) > key(e))
        out.append(Standing(stage.name, after_round, rank, e, played[e], mp[e], scored[e], conceded[e],
                            values[e]["points_difference"], values[e]["median_buchholz"]))
    return out


def stage_standings(stage: Stage, entrants: tuple[str, ...], matches: list[TeamMatch]) -> list[Standing]:
    """Standings after each round that has a pairing in this stage."""
    rounds = sorted({tm.round for tm in matches if tm.stage == stage.name})
    return [row for r in rounds for row in standings_after(stage, entrants, matches, r)]
