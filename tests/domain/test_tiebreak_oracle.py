"""Differential test: our Buchholz, Buchholz cut-1 and Median-Buchholz against tiebreak-core
(PyPI, MIT; a test-only dependency) under the FIDE 2024 and 2026 rules (TEAM-TB-1), on random
individual Swiss tournaments with pairing-allocated byes, requested half/zero byes and absences,
and on random team Swiss tournaments (match points from match scores, byes, absences) through the
standings code against tiebreak-core's team Buchholz."""

from __future__ import annotations

import random

import pytest
import tiebreak_core  # the test extra installs it: a missing oracle must fail, not skip
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.domain.tiebreak import Entry, buchholz

UNPLAYED = {"pab": 1.0, "half_bye": 0.5, "zero_bye": 0.0, "absent": 0.0}


def tournament(seed: int) -> tuple[dict[str, list[Entry]], int]:
    rng = random.Random(seed)
    ids = [str(i) for i in range(1, rng.randint(4, 10) + 1)]
    rounds = rng.randint(3, 8)
    table: dict[str, list[Entry]] = {i: [] for i in ids}
    for _ in range(rounds):
        players = ids[:]
        rng.shuffle(players)
        while len(players) >= 2 and rng.random() < 0.9:
            a, b = players.pop(), players.pop()
            result = rng.choice([1.0, 0.5, 0.0])
            table[a].append(Entry(b, result))
            table[b].append(Entry(a, 1.0 - result))
        for p in players:
            kind = rng.choice(sorted(UNPLAYED))
            table[p].append(Entry(None, UNPLAYED[kind], kind))  # type: ignore[arg-type]
    return table, rounds


def oracle(table: dict[str, list[Entry]], rounds: int, ruleset: str) -> dict[int, dict[str, float]]:
    t = tiebreak_core
    kinds = {"pab": t.PAIRING_BYE, "half_bye": t.REQUESTED_BYE, "zero_bye": t.REQUESTED_BYE, "absent": t.ABSENT}
    players = {}
    for pid, entries in table.items():
        games = [
            t.GameRecord(int(e.opponent), 2000, e.score, "white", r)
            if e.opponent
            else t.GameRecord(-1, 0, e.score, "white", r, kind=kinds[e.kind])
            for r, e in enumerate(entries, 1)
        ]
        players[int(pid)] = t.PlayerTiebreakData(int(pid), 2000, sum(e.score for e in entries), games)
    criteria = ["buchholz", "buchholz_cut1", "median_buchholz"]
    return {
        pid: t.calculate_all_strict(p, players, criteria, total_rounds=rounds, ruleset=ruleset)
        for pid, p in players.items()
    }


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.sampled_from(["fide-2024", "fide-2026"]))
def test_buchholz_family_matches_tiebreak_core(seed: int, policy: str) -> None:
    table, rounds = tournament(seed)
    want = oracle(table, rounds, policy)
    for pid in table:
        got = {
            "buchholz": buchholz(pid, table, policy, 0.5),  # type: ignore[arg-type]
            "buchholz_cut1": buchholz(pid, table, policy, 0.5, cut_low=1),  # type: ignore[arg-type]
            "median_buchholz": buchholz(pid, table, policy, 0.5, cut_low=1, cut_high=1),
        }  # type: ignore[arg-type]
        assert got == pytest.approx(want[int(pid)]), (policy, pid)


def team_season(seed: int) -> tuple[list, tuple, int, tuple[str, ...]]:
    """A random team Swiss: matches scored out of 576 (TEAM-SCORE-3), pairing-allocated byes and
    teams left unpaired (absent) — as our TeamMatch/Bye rows and as tiebreak-core's team records."""
    from pipeline.domain.scoring import TeamMatch
    from pipeline.model import Bye

    rng = random.Random(seed)
    ids = [str(i) for i in range(1, rng.randint(4, 10) + 1)]
    rounds = rng.randint(3, 8)
    matches, byes = [], []
    for rnd in range(1, rounds + 1):
        teams = ids[:]
        rng.shuffle(teams)
        while len(teams) >= 2 and (len(teams) == len(ids) or rng.random() < 0.9):  # every round has a match
            a, b = teams.pop(), teams.pop()
            pa = rng.choice([300.0, 288.0, 250.0])
            outcome = "a" if pa > 288 else "draw" if pa == 288 else "b"
            winner = a if outcome == "a" else b if outcome == "b" else None
            matches.append(TeamMatch("swiss", rnd, a, b, pa, 576 - pa, 576, 289, 72, 72, None, outcome, winner))  # type: ignore[arg-type]
        byes += [Bye("swiss", rnd, t, "pab", 0) for t in teams if rng.random() < 0.5]  # the rest: absent
    return matches, tuple(byes), rounds, tuple(ids)


def team_oracle(matches: list, byes: tuple, rounds: int, ids: tuple[str, ...]) -> dict[str, float]:
    from tiebreak_core.team import PAIRING_BYE, UNPLAYED, TeamFormat, TeamMatch, TeamRecord

    legs: dict[str, list] = {i: [] for i in ids}
    for m in matches:
        mp_a = 2.0 if m.outcome == "a" else 1.0 if m.outcome == "draw" else 0.0
        legs[m.team_a].append(TeamMatch(int(m.team_b), m.round, mp_a, m.a_points))
        legs[m.team_b].append(TeamMatch(int(m.team_a), m.round, 2.0 - mp_a, m.b_points))
    for b in byes:
        legs[b.entrant].append(TeamMatch(-1, b.round, 2.0, 289.0, PAIRING_BYE))
    for i in ids:
        for rnd in set(range(1, rounds + 1)) - {leg.round_number for leg in legs[i]}:
            legs[i].append(TeamMatch(-1, rnd, 0.0, 0.0, UNPLAYED))
        legs[i].sort(key=lambda leg: leg.round_number)
    records = {int(i): TeamRecord(int(i), sum(x.mp for x in legs[i]), sum(x.gp for x in legs[i]), legs[i]) for i in ids}
    return {
        i: tiebreak_core.calculate_team_strict(records[int(i)], records, "BH:MP/M1", rounds, TeamFormat(), "MP")
        for i in ids
    }


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_team_median_buchholz_matches_tiebreak_core(seed: int) -> None:
    """TEAM-TB-1 under fide-2024, through the standings code (match points 2/1/0 from the match
    scores, byes, rounds a team was not paired): our median_buchholz equals tiebreak-core's team
    BH:MP/M1 (C.07 Art. 13 team Buchholz on match points, own-total dummy for unplayed rounds).
    tiebreak-core has no team form of FIDE 2026's capped dummy, so fide-2026 is checked on
    individual events above and on the Art. 16 vectors."""
    from pipeline.domain.standings import standings_after

    matches, byes, rounds, ids = team_season(seed)
    want = team_oracle(matches, byes, rounds, ids)
    got = {r.entrant: r.median_buchholz for r in standings_after(STAGE_2024, ids, matches, rounds, byes=byes, boards=4)}
    assert got == pytest.approx(want)


def _team_stage():
    import tempfile
    from pathlib import Path

    from pipeline.inputs.config import load_config

    d = Path(tempfile.mkdtemp(prefix="tb-oracle-"))
    (d / "tournament.toml").write_text(
        'preset = "team-swiss"\n[tournament]\nid = "t"\n[paths]\nteams = "t.csv"\npairings = "p.csv"\n'
        'database = "x.duckdb"\nexports = "e"\n[stages.swiss]\nrounds = 8\nbuchholz_policy = "fide-2024"\n',
        encoding="utf-8",
    )
    return load_config(d / "tournament.toml").stage("swiss")


STAGE_2024 = _team_stage()
