"""The Swiss pairing interface (pipeline/domain/dutch.py) against the reference engine's own cases,
and round after round on random tournaments.

Regression: bbpPairings' regression inputs and a generated 80-player tournament
(tests/data/pairing/PROVENANCE.md): each TRF read through our TRF import, the next round paired
through our interface; every expected pair reproduced (colours too where the case gives them).

Properties: >= 200 seeded random Swiss tournaments, individual (win 1, draw 0.5) and team (match
points 2/1/0 scaled to win units), with random results, requested byes and withdrawals, paired
round after round: no repeat pairing (FIDE C.04.1.b), at most one pairing-allocated bye per
entrant (C.04.1.d), every present entrant paired exactly once, and our checker
(``dutch.violations``) reports nothing.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from pipeline.domain import dutch
from pipeline.domain.dutch import Controls, Entrant, PairingError, Proposal, Result
from pipeline.report import trf

DATA = Path(__file__).resolve().parent.parent / "data" / "pairing"
ROOT = Path(__file__).resolve().parents[2]


def expected_pairs(path: Path) -> list[tuple[str, str | None]]:
    """bbpPairings' output format: the number of pairs on the first line (optional in the
    generated case), then one `white black` per line, 0 for the bye."""
    numbers = [int(x) for x in path.read_text().split()]
    if len(numbers) % 2:
        assert numbers[0] == len(numbers) // 2, path
        numbers = numbers[1:]
    return sorted((str(a), str(b) if b else None) for a, b in zip(numbers[::2], numbers[1::2], strict=True))


def next_round(path: Path) -> Proposal:
    tournament = trf.read_trf(path.read_text())
    entrants, history, round_no, absent, initial = trf.to_history(tournament)
    total = tournament.total_rounds or round_no
    return dutch.pair_round(entrants, history, round_no, total, Controls(absent=absent), initial)


def as_rows(p: Proposal) -> list[tuple[str, str | None]]:
    return sorted([*p.pairs, *([(p.bye, None)] if p.bye else [])])


@pytest.mark.parametrize("case", ["dutch_2025_C5", "dutch_2025_C9", "issue_7"])
def test_bbp_regression_case_reproduced(case: str) -> None:
    """bbpPairings' regression suite: the next round, White and Black of every pair and the bye."""
    got = next_round(DATA / f"{case}.trf")
    assert as_rows(got) == expected_pairs(DATA / f"{case}.expected_pairs.txt")


def test_bbp_regression_requested_zero_bye_is_left_out() -> None:
    """dutch_2025_C5: player 4's Z (a requested zero-point bye already entered for round 3) keeps it
    out of the pairing; of the other five, 6 gets the pairing-allocated bye."""
    got = next_round(DATA / "dutch_2025_C5.trf")
    assert got.round == 3
    assert got.bye == "6"
    assert "4" not in {x for pair in got.pairs for x in pair}


def test_bbp_burstein_checker_case_every_round_as_played_meets_the_absolute_criteria() -> None:
    """bbpPairings' issue_15, a checker case of its Burstein system (180 players, 11 rounds, 86
    forfeited pairings, player 1 Black in round 1): read whole through our TRF import, and each
    round as played, against the rounds before it, passes our checker with no violation (every
    player paired once, no repeat meeting, no second allocated bye), as bbpPairings' checker
    reports no discrepancy in any round (issue_15.expected_checker_output.txt). Re-pairing each
    round by the Burstein system is not ours to do (the Dutch engine pairs both presets; see
    PROVENANCE.md): this checks the import and the absolute criteria on a long real tournament."""
    tournament = trf.read_trf((DATA / "issue_15.trf").read_text())
    entrants, history, round_no, absent, initial = trf.to_history(tournament)
    output = (DATA / "issue_15.expected_checker_output.txt").read_text()
    assert output == "".join(f"issue_15: Round #{r}\n" for r in range(1, 12)) + "\n"  # no discrepancy listed
    assert (len(entrants), round_no, absent, initial) == (180, 12, frozenset(), "black")
    assert sum(r.outcome == "forfeit" for r in history) == 86 and len(history) == 11 * 90
    for rnd in range(1, round_no):
        played = [r for r in history if r.round == rnd]
        proposal = Proposal(rnd, tuple((r.a, r.b) for r in played if r.b is not None), None)
        present = [x for r in played for x in (r.a, r.b) if x is not None]
        assert len(present) == 180, rnd
        assert dutch.violations(present, [r for r in history if r.round < rnd], proposal, Controls()) == [], rnd


def test_generated_80_players_round_5_reproduced() -> None:
    """The generated 80-player, 5-round tournament (seed 7) after round 4: bbpPairings' 40 round-5
    pairs, listed without colours (lower number first), all reproduced."""
    got = next_round(DATA / "bbp_generated_80p5r_seed7_after_r4.trf")
    assert got.round == 5 and got.bye is None
    assert sorted(tuple(sorted(p, key=int)) for p in got.pairs) == expected_pairs(
        DATA / "bbp_generated_80p5r_seed7_round5_pairs.txt"
    )


def test_only_the_interface_imports_the_engine() -> None:
    """The library is called behind one interface: no other module imports caissify_pairings."""
    importers = []
    for path in sorted((ROOT / "pipeline").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n.split(".")[0] == "caissify_pairings" for n in names):
                importers.append(path.relative_to(ROOT).as_posix())
    assert sorted(set(importers)) == ["pipeline/domain/dutch.py"]


# --- TD controls ---------------------------------------------------------------------------------

FOUR = [Entrant("ann", 2400), Entrant("bob", 2300), Entrant("cat", 2200), Entrant("dan", 2100)]


def test_round_one_pairs_top_half_against_bottom_half_by_seed() -> None:
    """ACWC-SEED-1 orders the entrants; FIDE Dutch round 1: 1 v 3, 4 v 2 (seed 1 White)."""
    got = dutch.pair_round(dutch.seed_order(reversed(FOUR)), [], 1, 3)
    assert got.pairs == (("ann", "cat"), ("dan", "bob")) and got.bye is None


def test_forbidden_pair_is_never_paired() -> None:
    """A forbidden pair from the config (e.g. one club) is kept apart: ann v cat would be round 1's."""
    got = dutch.pair_round(FOUR, [], 1, 3, Controls(forbidden=frozenset({frozenset({"ann", "cat"})})))
    assert frozenset(("ann", "cat")) not in {frozenset(p) for p in got.pairs}
    assert len(got.pairs) == 2


def test_absent_entrant_left_out_and_odd_field_gets_a_bye() -> None:
    """A withdrawn entrant is not paired; of the three left, the lowest seed gets the bye."""
    got = dutch.pair_round(FOUR, [], 1, 3, Controls(absent=frozenset({"bob"})))
    assert got.bye == "dan" and got.pairs == (("ann", "cat"),)


def test_late_entrant_joins_with_the_score_given() -> None:
    """After round 1 (ann and bob won), eve joins for round 2 with the score the TD gives her. With
    2 points she tops the field alone and floats down to the 1-point group's first seed, ann; with
    0 she is in the bottom group (ann v bob, the leaders, meet)."""
    history = [Result(1, "ann", "cat", 1.0, 0.0), Result(1, "dan", "bob", 0.0, 1.0)]
    entrants = [*FOUR[:2], Entrant("eve", 2250), *FOUR[2:]]
    given = dutch.pair_round(entrants, history, 2, 3, Controls(start_scores={"eve": 2.0}))
    assert given == Proposal(2, (("eve", "ann"), ("bob", "cat")), "dan")
    zero = dutch.pair_round(entrants, history, 2, 3)
    assert zero == Proposal(2, (("bob", "ann"), ("cat", "eve")), "dan")


def test_impossible_constraint_names_it() -> None:
    """Two entrants left who may not meet: the message says which constraint fails."""
    with pytest.raises(PairingError) as e:
        dutch.pair_round(FOUR[:2], [], 1, 3, Controls(forbidden=frozenset({frozenset({"ann", "bob"})})))
    assert (
        str(e.value) == "round 1: forbidden pair ann v bob cannot be kept apart: no pairing leaves ann, bob an opponent"
    )


def test_no_unmet_opponent_left_names_the_repeat_rule() -> None:
    """Two entrants who have met: no second meeting (FIDE C.04.1.b)."""
    history = [Result(1, "ann", "bob", 1.0, 0.0)]
    with pytest.raises(PairingError) as e:
        dutch.pair_round(FOUR[:2], history, 2, 3)
    assert str(e.value) == (
        "round 2: ann, bob cannot be paired without a repeat meeting or a second pairing-allocated bye "
        "(FIDE C.04.1.b, C.04.1.d)"
    )


def test_too_few_entrants() -> None:
    with pytest.raises(PairingError) as e:
        dutch.pair_round(FOUR, [], 2, 3, Controls(absent=frozenset({"ann", "bob", "cat"})))
    assert str(e.value) == "round 2: 1 entrant(s) to pair: a round needs at least 2"


def test_checker_catches_each_violation() -> None:
    """Our checker on planted bad rounds: a repeat, a second allocated bye, someone twice."""
    history = [Result(1, "ann", "bob", 1.0, 0.0), Result(1, "cat", None, 1.0, 0.0, "pab")]
    present = ["ann", "bob", "cat"]
    repeat = Proposal(2, (("ann", "bob"),), "cat")
    assert dutch.violations(present, history, repeat, Controls()) == [
        "round 2: ann v bob have met before in the stage: no repeat pairing",
        "round 2: cat already had a pairing-allocated bye: at most one per entrant",
    ]
    twice = Proposal(2, (("ann", "cat"), ("cat", "bob")), None)
    assert dutch.violations(present, history, twice, Controls()) == [
        "round 2: cat is paired 2 times: every present entrant plays once",
        "round 2: 3 present entrants need 1 bye(s)",
    ]


# --- property: random tournaments round after round ----------------------------------------------


def random_tournament(seed: int) -> tuple[int, int, int]:
    """One tournament: 5-14 entrants, 3-6 rounds, individual or team; returns (rounds paired,
    pairs, byes). Asserts the properties after every round."""
    rng = random.Random(seed)
    team = seed % 2 == 1
    n = rng.randint(5, 14)
    rounds = rng.randint(3, min(6, n - 2))
    entrants = dutch.seed_order(Entrant(f"e{i}", rng.randint(1400, 2600)) for i in range(n))
    history: list[Result] = []
    withdrawn: set[str] = set()
    pairs = byes = 0
    failures: list[str] = []
    for rnd in range(1, rounds + 1):
        if rnd > 1 and rng.random() < 0.2 and len(withdrawn) < n - 5:
            withdrawn.add(rng.choice([e.id for e in entrants if e.id not in withdrawn]))
        requested = set()
        if rng.random() < 0.25:
            who = rng.choice([e.id for e in entrants if e.id not in withdrawn])
            requested.add(who)
            history.append(Result(rnd, who, None, 0.5, 0.0, "half"))
        controls = Controls(absent=frozenset(withdrawn | requested))
        before = [r for r in history if r.round < rnd]
        try:
            got = dutch.pair_round(entrants, before, rnd, rounds, controls)
        except PairingError as e:
            failures.append(str(e))  # a small field can run out of unmet opponents; the error names why
            continue
        present = [e.id for e in entrants if e.id not in controls.absent]
        assert dutch.violations(present, before, got, controls) == []
        met = dutch.met(before)
        assert all(frozenset(p) not in met for p in got.pairs)
        assert sorted([x for p in got.pairs for x in p] + ([got.bye] if got.bye else [])) == sorted(present)
        for a, b in got.pairs:
            if team:  # match points 2/1/0 in win units
                ma = rng.choice([2, 1, 0])
                history.append(Result(rnd, a, b, ma / 2, (2 - ma) / 2))
            else:
                sa = rng.choice([1.0, 0.5, 0.0])
                history.append(Result(rnd, a, b, sa, 1.0 - sa))
        if got.bye:
            history.append(Result(rnd, got.bye, None, 1.0, 0.0, "pab"))
            byes += 1
        pairs += len(got.pairs)
    allocated = [r.a for r in history if r.outcome == "pab"]
    assert len(allocated) == len(set(allocated)), "a second pairing-allocated bye"
    FAILURES.extend(failures)
    return rounds, pairs, byes


FAILURES: list[str] = []


def test_random_tournaments_round_after_round() -> None:
    """240 seeded tournaments (120 individual, 120 team): every round sound, no violation."""
    totals = [random_tournament(seed) for seed in range(240)]
    assert len(totals) == 240
    assert sum(p for _, p, _ in totals) > 2000 and sum(b for _, _, b in totals) > 100
    assert len(FAILURES) < 24, FAILURES[:5]  # rounds refused (no sound pairing exists): rare


# --- colours: FIDE C.04.3 section E, as bbpPairings applies it -----------------------------------

W, B = "white", "black"


def standing(colours: str, score: float = 0.0, rank: int = 0) -> dutch.Standing:
    """A standing from a colour string ('WB': White in the first played game, Black in the second)."""
    return dutch.Standing(tuple(W if c == "W" else B for c in colours), score, rank)


def test_e1_both_preferences_granted() -> None:
    """FIDE C.04.3 E.1: a (W B, due White) v b (B W, due Black): both get their colour, whoever is
    ranked higher; one with no preference (no game yet) takes the colour the other does not want."""
    assert dutch.allocate_colours(standing("WB", 0.0, 5), standing("BW", 2.0, 0)) == W
    assert dutch.allocate_colours(standing("", 1.0, 0), standing("W", 0.0, 1)) == W  # b wants Black


def test_e2_the_stronger_preference_is_granted() -> None:
    """FIDE C.04.3 E.2, both due White: absolute (B B, two Blacks in a row) beats mild (W B); strong
    (B: one game, difference 1) beats mild; both absolute: the wider colour difference (B B: 2)
    beats the narrower (W B B: 1). The weaker side is ranked higher each time, so E.4 would say
    the opposite."""
    assert dutch.allocate_colours(standing("BB", 0.0, 3), standing("WB", 2.0, 0)) == W
    assert dutch.allocate_colours(standing("B", 0.0, 3), standing("WB", 2.0, 0)) == W
    assert dutch.allocate_colours(standing("BB", 0.0, 3), standing("WBB", 2.0, 0)) == W
    assert dutch.allocate_colours(standing("WBB", 2.0, 0), standing("BB", 0.0, 3)) == B


def test_e3_colours_alternate_to_the_last_round_they_differed() -> None:
    """FIDE C.04.3 E.3: a (W B W B) and b (B W W B) are both due White (mild). Going back from the
    last game: game 4 both Black, game 3 both White, game 2 a Black and b White: a gets the other
    colour from that game's, White, although b is ranked higher (E.4 would give b White)."""
    assert dutch.allocate_colours(standing("WBWB", 1.0, 0), standing("BWWB", 2.0, 4)) == W
    assert dutch.allocate_colours(standing("BWWB", 2.0, 4), standing("WBWB", 1.0, 0)) == B


def test_e3_skips_unplayed_rounds_in_each_history() -> None:
    """FIDE C.04.3 E.3 with C.04.2.D.5: a forfeit has no colour. ann: W, B, then a forfeit won in
    round 3 (played colours W B); bob: W in round 1, a forfeit lost in round 2, B in round 3
    (played colours W B). Both due White; their played colours agree game for game (W B), so
    E.3 finds no difference and E.4 decides: ann, with more points, gets White."""
    history = [
        Result(1, "ann", "cat", 1.0, 0.0),
        Result(1, "bob", "dan", 0.0, 1.0),
        Result(2, "cat", "ann", 0.0, 1.0),
        Result(2, "bob", "eve", 0.0, 1.0, "forfeit"),
        Result(3, "ann", "dan", 1.0, 0.0, "forfeit"),
        Result(3, "eve", "bob", 0.0, 1.0),
    ]
    names = ["ann", "bob", "cat", "dan", "eve"]
    st = dutch.standings([Entrant(n, 2000 - i) for i, n in enumerate(names)], history, 4, Controls())
    assert (st["ann"].colours, st["bob"].colours) == ((W, B), (W, B))
    assert (st["ann"].score, st["bob"].score) == (3.0, 1.0)
    assert dutch.allocate_colours(st["bob"], st["ann"]) == B
    assert dutch.allocate_colours(st["ann"], st["bob"]) == W


def test_e4_the_higher_ranked_entrant_gets_its_preference() -> None:
    """FIDE C.04.3 E.4: entrant 17 (1 point, W B) v entrant 4 (0 points, W B),
    both due White with the same history: 17 is ranked higher (score first, A.2), so 17 gets
    White, not 4 with the lower pairing number. On equal scores the lower pairing number wins."""
    seventeen, four = standing("WB", 1.0, 16), standing("WB", 0.0, 3)
    assert dutch.allocate_colours(seventeen, four) == W
    assert dutch.allocate_colours(four, seventeen) == B
    assert dutch.allocate_colours(standing("WB", 1.0, 16), standing("WB", 1.0, 3)) == B


def test_e5_no_preference_on_either_side_goes_by_the_higher_ranked_number() -> None:
    """FIDE C.04.3 E.5: neither has played. The higher-ranked takes the initial colour if its rank
    is odd (1st, 3rd: rank index 0, 2), the other colour if even (2nd: index 1)."""
    assert dutch.allocate_colours(standing("", 0.0, 0), standing("", 0.0, 5)) == W
    assert dutch.allocate_colours(standing("", 0.0, 1), standing("", 0.0, 5)) == B
    assert dutch.allocate_colours(standing("", 0.0, 5), standing("", 0.0, 1)) == W
    assert dutch.allocate_colours(standing("", 0.0, 2), standing("", 0.0, 5), initial=B) == B
    # score first: the 0-point entrant with rank index 0 is below the 1-point one with index 1
    assert dutch.allocate_colours(standing("", 0.0, 0), standing("", 1.0, 1)) == W


def test_team_swiss_colours_follow_the_same_rule() -> None:
    """A team Swiss pairs teams as units, White meaning White on board 1; match points 2/1/0 in win
    units (TEAM-SCORE-5). Round 1: Alpha beat Delta, Echo beat Bravo, Charlie beat Foxtrot; round
    2: Charlie and Alpha drew, Delta beat Echo, Foxtrot beat Bravo. In round 3 Bravo (0, colours
    B W) meets Delta (1 win unit, B W): both due Black with the same history, so by FIDE C.04.3 E.4
    Delta, ranked higher on points, gets Black and Bravo White on board 1."""
    teams = [
        Entrant(n, 2400 - 100 * i) for i, n in enumerate(["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"])
    ]
    history = [
        Result(1, "Alpha", "Delta", 1.0, 0.0),
        Result(1, "Echo", "Bravo", 1.0, 0.0),
        Result(1, "Charlie", "Foxtrot", 1.0, 0.0),
        Result(2, "Charlie", "Alpha", 0.5, 0.5),
        Result(2, "Delta", "Echo", 1.0, 0.0),
        Result(2, "Bravo", "Foxtrot", 0.0, 1.0),
    ]
    got = dutch.pair_round(teams, history, 3, 4)
    assert ("Bravo", "Delta") in got.pairs


def test_a_bracket_keeps_its_pairs_before_its_scores() -> None:
    """FIDE C.04.3 C.5 (maximise the pairs in the bracket) comes before C.6 (minimise their score
    differences). bbpPairings' tournament t109 (tests/data/pairing/bbp_random/), round 11 of 11,
    13 players: 1 (9 points) takes the bye; 4 (8 points) and 7 (7) have met and drop into the
    6-point bracket {3, 5, 6}. 4 has met 3 and 6; 7 has met 5 and 6. Two pairs in that bracket
    exist only without 4: 7 v 3 and 5 v 6 (topscorers in the last round, both may have White
    twice). Keeping 4 there (4 v 5, 7 v 3) leaves one pair fewer, so 4 floats on to 8 (4 points),
    as bbpPairings pairs it; the library alone scored 4 v 5's higher score above the second pair."""
    from kits.bbp_kit import BBP_RANDOM, cut

    with open(BBP_RANDOM / "t109.trf", newline="") as f:
        text = f.read()
    tournament = trf.read_trf(cut(text, 11), "t109 cut before round 11")
    entrants, history, round_no, absent, initial = trf.to_history(tournament)
    got = dutch.pair_round(entrants, history, round_no, 11, Controls(absent=absent), initial)
    pairs = {frozenset(p) for p in got.pairs}
    assert got.bye == "1"
    assert {frozenset(("4", "8")), frozenset(("7", "3")), frozenset(("5", "6"))} <= pairs
