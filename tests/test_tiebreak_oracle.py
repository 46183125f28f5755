"""Differential test: our Buchholz, Buchholz cut-1 and Median-Buchholz against tiebreak-core
(PyPI, MIT; a test-only dependency) under the FIDE 2024 and 2026 rules (TEAM-TB-1), on random
individual Swiss tournaments with pairing-allocated byes, requested half/zero byes and absences."""

from __future__ import annotations

import random

import pytest
import tiebreak_core  # the test extra installs it: a missing oracle must fail, not skip
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.tiebreak import Entry, buchholz

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
        games = [t.GameRecord(int(e.opponent), 2000, e.score, "white", r) if e.opponent else
                 t.GameRecord(-1, 0, e.score, "white", r, kind=kinds[e.kind]) for r, e in enumerate(entries, 1)]
        players[int(pid)] = t.PlayerTiebreakData(int(pid), 2000, sum(e.score for e in entries), games)
    criteria = ["buchholz", "buchholz_cut1", "median_buchholz"]
    return {pid: t.calculate_all_strict(p, players, criteria, total_rounds=rounds, ruleset=ruleset) for pid, p in players.items()}


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.sampled_from(["fide-2024", "fide-2026"]))
def test_buchholz_family_matches_tiebreak_core(seed: int, policy: str) -> None:
    table, rounds = tournament(seed)
    want = oracle(table, rounds, policy)
    for pid in table:
        got = {"buchholz": buchholz(pid, table, policy, 0.5),  # type: ignore[arg-type]
               "buchholz_cut1": buchholz(pid, table, policy, 0.5, cut_low=1),  # type: ignore[arg-type]
               "median_buchholz": buchholz(pid, table, policy, 0.5, cut_low=1, cut_high=1)}  # type: ignore[arg-type]
        assert got == pytest.approx(want[int(pid)]), (policy, pid)
