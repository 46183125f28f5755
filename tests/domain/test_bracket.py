"""The knockout bracket (TEAM-FMT-1, ACWC-SF-1) and the next-pairings fragment for the TD."""

from __future__ import annotations

import pytest

from pipeline.domain.bracket import BracketError, acwc_semifinals, final_and_bronze, first_round, next_round, qualifiers


def test_team_fmt_1_qualifiers_by_team_count() -> None:
    """10-15 teams → 4, 16-31 → 8, 32-63 → 16 (more than 63: the TD's candidates stage, 16 here)."""
    assert [qualifiers(n) for n in (10, 15, 16, 31, 32, 63, 64)] == [4, 4, 8, 8, 16, 16, 16]
    with pytest.raises(BracketError) as exc:
        qualifiers(9)
    assert str(exc.value) == "9 teams: the tournament cannot run with fewer than 10 teams (TEAM-FMT-1)"


def test_team_fmt_1_bracket_keeps_the_top_seeds_apart() -> None:
    """1 v 8, 2 v 7, 3 v 6, 4 v 5; then (1/8 winner) v (4/5 winner) and (2/7) v (3/6): 1 and 2 meet in the final."""
    seeds = [f"S{i}" for i in range(1, 9)]
    r1 = first_round(seeds)
    assert r1 == [("S1", "S8"), ("S2", "S7"), ("S3", "S6"), ("S4", "S5")]
    r2 = next_round(["S1", "S2", "S3", "S4"])  # the favourites win
    assert r2 == [("S1", "S4"), ("S2", "S3")]
    assert final_and_bronze([("S1", "S4", "S1"), ("S2", "S3", "S3")]) == [("S1", "S3"), ("S4", "S2")]
    with pytest.raises(BracketError):
        first_round(seeds[:6])


def test_acwc_sf_1_pool_winner_plays_the_other_runner_up() -> None:
    assert acwc_semifinals(["A1", "A2", "A3"], ["B1", "B2", "B3"]) == [("A1", "B2"), ("B1", "A2")]
