"""Standings: TEAM-SCORE-5 (match points 2/1/0), TEAM-TB-1 (points difference, points scored,
Median-Buchholz over opponents' match points), ACWC-Q-2/Q-3 (game points, Median-Buchholz)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pipeline.domain.scoring import TeamMatch
from pipeline.domain.standings import stage_standings, standings_after
from pipeline.domain.tiebreak import Entry, buchholz
from pipeline.inputs.config import load_config


def median_buchholz(opponent_scores: list[float]) -> float:
    """The pipeline's Median-Buchholz (plain policy) of an entrant who met opponents with these scores."""
    table: dict[str, list[Entry]] = {"me": []}
    for i, score in enumerate(opponent_scores):
        table["me"].append(Entry(f"o{i}", 0.0))
        table[f"o{i}"] = [Entry("me", float(score))]
    return buchholz("me", table, "plain", 0.5, cut_low=1, cut_high=1)


CFG = "[tournament]\nid = 't'\n[paths]\nteams = 't.csv'\nplayers = 'p.csv'\npairings = 'p.csv'\ndatabase = 'x.duckdb'\nexports = 'e'\n"


def stage(tmp_path: Path, preset: str = "team-swiss", name: str = "swiss"):
    p = tmp_path / "tournament.toml"
    p.write_text(f'preset = "{preset}"\n' + CFG, encoding="utf-8")
    return load_config(p).stage(name)


def m(rnd: int, a: str, b: str, pa: float, pb: float, outcome: str | None = None, st: str = "swiss") -> TeamMatch:
    if outcome is None:
        outcome = "a" if pa > pb else "b" if pb > pa else "draw"
    winner = a if outcome == "a" else b if outcome == "b" else None
    return TeamMatch(st, rnd, a, b, pa, pb, 576, 289, 72, 72, None, outcome, winner)  # type: ignore[arg-type]


def test_median_buchholz_drops_one_highest_and_one_lowest() -> None:
    """TEAM-TB-1: sum of opponents' scores without the highest and the lowest."""
    assert median_buchholz([4, 2, 6, 0]) == 6  # 2 + 4
    assert median_buchholz([2, 2, 2]) == 2
    assert median_buchholz([5, 1]) == 0  # nothing left after both cuts
    assert median_buchholz([]) == 0


def test_match_points_then_points_difference_then_points_scored(tmp_path: Path) -> None:
    """TEAM-SCORE-5 2/1/0 then TEAM-TB-1. One round: A beats B 300-276, C beats D 320-256 (PD +64 > +24);
    E draws F 288-288 (1 point each)."""
    st = stage(tmp_path)
    rows = standings_after(
        st,
        ("A", "B", "C", "D", "E", "F"),
        [m(1, "A", "B", 300, 276), m(1, "C", "D", 320, 256), m(1, "E", "F", 288, 288)],
        1,
    )
    got = [(r.rank, r.entrant, r.match_points, r.points_difference) for r in rows]
    assert got == [(1, "C", 2, 64), (2, "A", 2, 24), (3, "E", 1, 0), (3, "F", 1, 0), (5, "B", 0, -24), (6, "D", 0, -64)]


def test_points_scored_breaks_equal_difference(tmp_path: Path) -> None:
    """TEAM-TB-1: equal match points and difference → more points scored ranks higher.
    Winners A (300) and C (310) both +24: C first. Losers B (276) and D (286) both -24: D first."""
    st = stage(tmp_path)
    rows = standings_after(st, ("A", "B", "C", "D"), [m(1, "A", "B", 300, 276), m(1, "C", "D", 310, 286)], 1)
    assert [r.entrant for r in rows] == ["C", "A", "D", "B"]


def test_median_buchholz_uses_opponents_match_points_after_the_round(tmp_path: Path) -> None:
    """TEAM-TB-1 resolution: Median-Buchholz over opponents' match points. Three rounds, six teams:
    A beats B, C, D; opponents' MP after round 3: B 4, C 2, D 0 → MB(A) = 2 (drop 4 and 0)."""
    st = stage(tmp_path)
    matches = [
        m(1, "A", "B", 300, 276),
        m(1, "C", "D", 300, 276),
        m(1, "E", "F", 300, 276),
        m(2, "A", "C", 300, 276),
        m(2, "B", "E", 300, 276),
        m(2, "D", "F", 300, 276),
        m(3, "A", "D", 300, 276),
        m(3, "B", "F", 300, 276),
        m(3, "C", "E", 300, 276),
    ]
    rows = {r.entrant: r for r in standings_after(st, tuple("ABCDEF"), matches, 3)}
    mp = {e: r.match_points for e, r in rows.items()}
    assert mp == {"A": 6, "B": 4, "C": 4, "D": 2, "E": 2, "F": 0}
    assert rows["A"].median_buchholz == 4  # opponents B 4, C 4, D 2 → drop 4 and 2 → 4
    assert rows["B"].median_buchholz == 2  # opponents A 6, E 2, F 0 → 2
    assert rows["F"].median_buchholz == 2  # opponents E 2, D 2, B 4 → 2


def test_pending_matches_do_not_count_and_every_round_has_a_table(tmp_path: Path) -> None:
    st = stage(tmp_path)
    matches = [m(1, "A", "B", 300, 276), m(2, "A", "B", 10, 0, outcome="pending")]
    rows = stage_standings(st, ("A", "B"), matches)
    assert {(r.after_round, r.entrant): (r.matches_played, r.match_points) for r in rows} == {
        (1, "A"): (1, 2),
        (1, "B"): (1, 0),
        (2, "A"): (1, 2),
        (2, "B"): (1, 0),
    }


def test_game_points_primary_for_acwc(tmp_path: Path) -> None:
    """ACWC-Q-2/Q-3: the score is game points; x wins 5.5-4.5 but y scored 9.5 against z."""
    st = stage(tmp_path, "acwc-2021", "qualification")
    matches = [
        dataclasses.replace(m(1, "x", "w", 5.5, 4.5, st="qualification"), max_points=10, winning_points=5.5),
        dataclasses.replace(m(1, "y", "z", 9.5, 0.5, st="qualification"), max_points=10, winning_points=5.5),
    ]
    rows = standings_after(st, ("w", "x", "y", "z"), matches, 1)
    assert [(r.entrant, r.points_scored) for r in rows] == [("y", 9.5), ("x", 5.5), ("w", 4.5), ("z", 0.5)]


def test_acwc_q_3_cumulative_then_seed(tmp_path: Path) -> None:
    """ACWC-Q-3: game points, then Median-Buchholz, cumulative score, seed. x and y both end on 9
    game points with equal Median-Buchholz (fewer than three opponents give 0); x scored 6 in
    round 1 and 3 in round 2 (cumulative 6 + 9 = 15), y 3 then 6 (3 + 9 = 12): x first. z and w
    are level on everything but the seed (w 2400 > z 2300)."""
    st = stage(tmp_path, "acwc-2021", "qualification")

    def g(rnd: int, a: str, b: str, pa: float, pb: float) -> TeamMatch:
        return dataclasses.replace(m(rnd, a, b, pa, pb, st="qualification"), max_points=10, winning_points=5.5)

    matches = [g(1, "x", "z", 6, 4), g(1, "y", "w", 3, 7), g(2, "x", "w", 3, 7), g(2, "y", "z", 6, 4)]
    rows = standings_after(st, ("w", "x", "y", "z"), matches, 2, seeds={"w": 2400, "z": 2300, "x": 2000, "y": 2100})
    got = [(r.entrant, r.points_scored, r.cumulative, r.rank) for r in rows]
    # w: 7 + 7 = 14 game points; x 9 (cum 15); y 9 (cum 12); z: 4 + 4 = 8
    assert got == [("w", 14, 21, 1), ("x", 9, 15, 2), ("y", 9, 12, 3), ("z", 8, 12, 4)]
    tie = [g(1, "z", "x", 5, 5), g(1, "w", "y", 5, 5)]
    rows = standings_after(st, ("w", "x", "y", "z"), tie, 1, seeds={"w": 2400, "z": 2300, "x": 2000, "y": 2100})
    assert [r.entrant for r in rows] == ["w", "z", "y", "x"]


def test_acwc_q_1_rounds() -> None:
    """ACWC-Q-1: rounds = floor(log2(n)) + 2; 32-63 players → 7."""
    from pipeline.domain.standings import swiss_rounds

    assert [swiss_rounds(n) for n in (16, 31, 32, 40, 63, 64)] == [6, 6, 7, 7, 7, 8]


def test_acwc_c_1_pools_by_the_three_cases() -> None:
    """ACWC-C-1: pools from the qualification places, by who of the previous finalists plays."""
    from pipeline.domain.standings import candidates_pools

    q = [f"q{i}" for i in range(1, 13)]
    upper, lower = candidates_pools(q, "champ", "second")
    assert (upper, lower) == (["q2", "q4", "q5", "q8", "q9", "champ"], ["q1", "q3", "q6", "q7", "q10", "second"])
    upper, lower = candidates_pools(q, None, "second")  # only the runner-up: starts in the upper pool
    assert (upper, lower) == (["q3", "q5", "q6", "q9", "q10", "second"], ["q1", "q2", "q4", "q7", "q8", "q11"])
    upper, lower = candidates_pools(q, None, None)
    assert (upper, lower) == (["q1", "q4", "q6", "q7", "q9", "q12"], ["q2", "q3", "q5", "q8", "q10", "q11"])


def test_acwc_c_2_mutual_scores_then_overall_game_score(tmp_path: Path) -> None:
    """ACWC-C-2 in a 4-player pool (match points 1/0.5/0): a, b and c each beat one of the others
    (a>b 6-4, b>c 7-3, c>a 5.5-4.5) and beat d 6-4: all three on 2 match points. Mutual match score
    1 each; mutual game score a 10.5, b 11, c 8.5 → b, a, c; d last with 0."""
    st = stage(tmp_path, "acwc-2021", "candidates")

    def g(rnd: int, x: str, y: str, px: float, py: float) -> TeamMatch:
        return dataclasses.replace(m(rnd, x, y, px, py, st="candidates"), max_points=10, winning_points=5.5)

    matches = [
        g(1, "a", "b", 6, 4),
        g(1, "c", "d", 6, 4),
        g(2, "b", "c", 7, 3),
        g(2, "a", "d", 6, 4),
        g(3, "c", "a", 5.5, 4.5),
        g(3, "b", "d", 6, 4),
    ]
    rows = standings_after(st, ("a", "b", "c", "d"), matches, 3)
    assert [(r.entrant, r.match_points, r.rank) for r in rows] == [("b", 2, 1), ("a", 2, 2), ("c", 2, 3), ("d", 0, 4)]


def candidates_match(rnd: int, x: str, y: str, px: float, py: float) -> TeamMatch:
    """A 10-game candidates match (ACWC-C-1), x - y."""
    return dataclasses.replace(m(rnd, x, y, px, py, st="candidates"), max_points=10, winning_points=5.5)


def test_acwc_c_2_three_way_tie_reapplies_the_mutual_criteria_to_the_pair_still_tied(tmp_path: Path) -> None:
    """ACWC-C-2 (resolution 2026-12-01). Pool a, b, c, d (match points 1/0.5/0): a>b 6-4, b>c 6.5-3.5,
    c>a 5.5-4.5 (a cycle), and each beats d: a 5.5-4.5, b 8-2, c 6-4. a, b, c are level on 2.
    First pass among {a, b, c}: mutual match 1 each; mutual game a 6+4.5 = 10.5, b 4+6.5 = 10.5,
    c 3.5+5.5 = 9 → c third, {a, b} still tied. Again among {a, b} only: a beat b → a 1 - b 0 →
    a first, b second. (Without the second pass the overall game score would put b, 18.5, above a, 16.)"""
    st = stage(tmp_path, "acwc-2021", "candidates")
    g = candidates_match
    matches = [
        g(1, "a", "b", 6, 4),
        g(1, "c", "d", 6, 4),
        g(2, "b", "c", 6.5, 3.5),
        g(2, "a", "d", 5.5, 4.5),
        g(3, "c", "a", 5.5, 4.5),
        g(3, "b", "d", 8, 2),
    ]
    rows = standings_after(st, ("a", "b", "c", "d"), matches, 3)
    assert [(r.entrant, r.match_points, r.points_scored, r.rank) for r in rows] == [
        ("a", 2, 16, 1),
        ("b", 2, 18.5, 2),
        ("c", 2, 15, 3),
        ("d", 0, 10.5, 4),
    ]


def test_acwc_c_2_four_way_tie_the_pair_left_tied_is_split_by_its_own_match(tmp_path: Path) -> None:
    """ACWC-C-2 (resolution 2026-12-01). All four of a pool level on 1.5: a>b 6-4, a-c 5-5, d>a 6-4,
    c>d 6-4, b-d 5-5, b>c 7-3. First pass among all four (every match is mutual): mutual match 1.5
    each; mutual game a 6+5+4 = 15, b 4+5+7 = 16, c 5+6+3 = 14, d 6+4+5 = 15 → b first, c last,
    {a, d} still tied. Again among {a, d} only: d beat a → d second, a third. (Without it the
    overall game score is level too, 15 each, and the TD's order would put a, listed first, above d.)"""
    st = stage(tmp_path, "acwc-2021", "candidates")
    g = candidates_match
    matches = [
        g(1, "a", "b", 6, 4),
        g(1, "c", "d", 6, 4),
        g(2, "a", "c", 5, 5),
        g(2, "b", "d", 5, 5),
        g(3, "d", "a", 6, 4),
        g(3, "b", "c", 7, 3),
    ]
    rows = standings_after(st, ("a", "b", "c", "d"), matches, 3, td_order=("a", "b", "c", "d"))
    assert [(r.entrant, r.match_points, r.points_scored, r.rank) for r in rows] == [
        ("b", 1.5, 16, 1),
        ("d", 1.5, 15, 2),
        ("a", 1.5, 15, 3),
        ("c", 1.5, 14, 4),
    ]


def test_acwc_c_2_a_sub_group_the_mutual_criteria_cannot_split_goes_on_to_the_overall_score(tmp_path: Path) -> None:
    """ACWC-C-2: five players; a, b, c level on 3 (two draws among them, a-b 5-5, b-c 5-5, a-c 5-5, and
    wins over d and e): the mutual criteria separate nobody (1 and 10 each) → the overall game
    score: a 10+6+6 = 22, b 10+7+6 = 23, c 10+6.5+6 = 22.5 → b, c, a."""
    st = stage(tmp_path, "acwc-2021", "candidates")
    g = candidates_match
    matches = [
        g(1, "a", "b", 5, 5),
        g(1, "c", "d", 6.5, 3.5),
        g(2, "b", "c", 5, 5),
        g(2, "a", "d", 6, 4),
        g(3, "a", "c", 5, 5),
        g(3, "b", "d", 7, 3),
        g(4, "a", "e", 6, 4),
        g(4, "b", "e", 6, 4),
        g(4, "c", "e", 6, 4),
        g(5, "d", "e", 5, 5),
    ]
    rows = standings_after(st, ("a", "b", "c", "d", "e"), matches, 5)
    assert [(r.entrant, r.match_points, r.points_scored, r.rank) for r in rows][:3] == [
        ("b", 3, 23, 1),
        ("c", 3, 22.5, 2),
        ("a", 3, 22, 3),
    ]


def test_challonge_worked_example_under_the_plain_policy() -> None:
    """TEAM-TB-1 'plain' (Challonge, which the ACWC rules once linked): opponents' scores without the
    best and the worst — the published example (tests/data/reference/tiebreak_vectors)."""
    import json

    path = (
        Path(__file__).resolve().parents[1]
        / "data"
        / "reference"
        / "tiebreak_vectors"
        / "published_worked_examples.json"
    )
    example = json.loads(path.read_text(encoding="utf-8"))["challonge_median_buchholz"]
    assert median_buchholz(example["example_opponent_scores"]) == example["expected"] == 11


@pytest.mark.parametrize(("policy", "want_b"), [("plain", 0), ("fide-2024", 2), ("fide-2026", 2)])
def test_team_tb_1_unplayed_round_policies(tmp_path: Path, policy: str, want_b: float) -> None:
    """TEAM-TB-1's named policies for unplayed rounds. R1: A beats B, C beats D; R2: A beats C while
    B and D are not paired; R3: A beats D, B beats C. Match points: A 6, B 2, C 2, D 0.
    B's Median-Buchholz: plain → opponents A 6 and C 2, both cut → 0; FIDE → a dummy for R2
    scoring B's own 2 (under the 2026 cap of 1 × 3), so 6, 2, 2: the high 6 and the voluntary
    dummy are cut → 2."""
    st = dataclasses.replace(stage(tmp_path), buchholz_policy=policy)
    matches = [
        m(1, "A", "B", 300, 276),
        m(1, "C", "D", 300, 276),
        m(2, "A", "C", 300, 276),
        m(3, "A", "D", 300, 276),
        m(3, "B", "C", 300, 276),
    ]
    rows = {r.entrant: r for r in standings_after(st, ("A", "B", "C", "D"), matches, 3)}
    assert [rows[e].match_points for e in "ABCD"] == [6, 2, 2, 0]
    assert rows["B"].median_buchholz == want_b
    assert rows["A"].median_buchholz == 2  # A played every round: B 2, C 2, D 0 → 2 under every policy
