"""Our Swiss pairing against the reference engine, bbpPairings (FIDE Dutch, the engine Lichess
Swiss runs), on 220 tournaments the engine generated and paired itself
(tests/data/pairing/bbp_random/, PROVENANCE.md; made by tests/data/pairing/generate.py).

For every tournament and every round r: the tournament cut before r (tests/kits/bbp_kit.py: every
round before r, and of round r the byes the entrants asked for) is read through our TRF import and
paired through our interface; the pairs, the pairing-allocated bye, each pair's colours (FIDE
C.04.3 E.1-E.5) and the table order equal the engine's answer for the same cut.
"""

from __future__ import annotations

import pytest

from kits.bbp_kit import BBP_RANDOM, cut, read_answers, rounds_of
from pipeline.domain import dutch
from pipeline.domain.dutch import Controls, Proposal
from pipeline.report import trf

TOURNAMENTS = sorted(p.stem for p in BBP_RANDOM.glob("t*.trf"))
# The suite's run pairs every tournament of up to QUICK_PLAYERS entrants (131 of the 220, about a
# tenth of the CPU time: the library's time grows fast with the field); the larger ones are
# `scenario` tests, which .ci/run runs as a step of its own (docs/testing.md).
QUICK_PLAYERS = 20


def players_of(name: str) -> int:
    with open(BBP_RANDOM / f"{name}.trf", newline="") as f:
        return sum(ln.startswith("001") for ln in f.read().split("\r"))


def tiered(name: str) -> object:
    return name if players_of(name) <= QUICK_PLAYERS else pytest.param(name, marks=pytest.mark.scenario)


def ours(text: str, rnd: int, name: str) -> Proposal:
    tournament = trf.read_trf(cut(text, rnd), f"{name} cut before round {rnd}")
    entrants, history, round_no, absent, initial = trf.to_history(tournament)
    assert round_no == rnd
    total = tournament.total_rounds or round_no
    return dutch.pair_round(entrants, history, round_no, total, Controls(absent=absent), initial)


def compare(name: str) -> dict[str, int]:
    """Rounds of one tournament whose pairs (as sets), bye, colours and table order equal the engine's."""
    with open(BBP_RANDOM / f"{name}.trf", newline="") as f:
        text = f.read()
    answers = read_answers(BBP_RANDOM / f"{name}.answers.txt")
    assert sorted(answers) == list(range(1, rounds_of(text) + 1))
    counts = {"rounds": 0, "pairs": 0, "bye": 0, "colours": 0, "order": 0}
    for rnd, rows in answers.items():
        got = ours(text, rnd, name)
        want_pairs = [(str(w), str(b)) for w, b in rows if b]
        want_bye = next((str(w) for w, b in rows if not b), None)
        counts["rounds"] += 1
        counts["pairs"] += {frozenset(p) for p in got.pairs} == {frozenset(p) for p in want_pairs}
        counts["bye"] += got.bye == want_bye
        counts["colours"] += set(got.pairs) == set(want_pairs)
        counts["order"] += list(got.pairs) == want_pairs
    return counts


def test_fixture_set() -> None:
    """220 tournaments, 6-80 players (odd and even), 3-11 rounds; answers for every round."""
    assert len(TOURNAMENTS) == 220
    sizes = []
    for name in TOURNAMENTS:
        with open(BBP_RANDOM / f"{name}.trf", newline="") as f:
            text = f.read()
        assert "\r" in text and "\n" not in text  # as generated: bare CR line ends
        sizes.append(sum(ln.startswith("001") for ln in text.split("\r")))
    assert min(sizes) == 6 and max(sizes) >= 75
    assert {s % 2 for s in sizes} == {0, 1}


@pytest.mark.parametrize("name", [tiered(name) for name in TOURNAMENTS])
def test_same_round_as_the_reference_engine(name: str) -> None:
    counts = compare(name)
    assert counts == {k: counts["rounds"] for k in counts}, counts
