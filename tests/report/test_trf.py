"""TRF-16 (pipeline/report/trf.py): a stage written and read back gives the same standings and
pairings; a tournament paired round by round through our interface and written as TRF is accepted
by the engine's own Free Pairings Checker (every round re-paired identically from the file)."""

from __future__ import annotations

import random

import pytest
from caissify_pairings.fpc import check_trf

from pipeline.domain import dutch
from pipeline.domain.dutch import Entrant, Result
from pipeline.report import trf

ENTRANTS = [Entrant("Pawn Stormers", 2150.5), Entrant("Knight Riders", 2100), Entrant("Rook Crooks", 2050)]
HISTORY = [
    Result(1, "Pawn Stormers", "Rook Crooks", 1.0, 0.0),
    Result(1, "Knight Riders", None, 1.0, 0.0, "pab"),
    Result(2, "Knight Riders", "Pawn Stormers", 0.5, 0.5),
    Result(2, "Rook Crooks", None, 0.5, 0.0, "half"),
    Result(3, "Rook Crooks", "Knight Riders", 1.0, 0.0, "forfeit"),
    Result(3, "Pawn Stormers", None, 0.0, 0.0, "zero"),
]


def test_written_text_is_trf16_columns() -> None:
    text = trf.write_trf("Demo Cup", ENTRANTS, HISTORY, 3)
    assert text.splitlines() == [
        "012 Demo Cup",
        "001    1      Pawn Stormers                     2150                             1.5    1     3 w 1     2 b =  0000 - Z",
        "001    2      Knight Riders                     2100                             1.5    2  0000 - U     1 w =     3 b -",
        "001    3      Rook Crooks                       2050                             1.5    3     1 b 0  0000 - H     2 w +",
        "XXR 3",
    ]


def test_round_trip_gives_the_same_standings_and_pairings() -> None:
    """export -> import: every pairing, bye and score back; points and ranks as written."""
    text = trf.write_trf("Demo Cup", ENTRANTS, HISTORY, 3)
    read = trf.read_trf(text)
    name = {line.number: line.name for line in read.lines}
    entrants, history, next_round, absent, initial = trf.to_history(read)
    assert [name[int(e.id)] for e in entrants] == [e.id for e in ENTRANTS]
    back = {
        (r.round, name[int(r.a)], name[int(r.b)] if r.b else None, r.a_score, r.b_score, r.outcome) for r in history
    }
    assert back == {(r.round, r.a, r.b, r.a_score, r.b_score, r.outcome) for r in HISTORY}
    assert (next_round, absent, initial, read.total_rounds) == (4, frozenset(), "white", 3)
    # all on 1.5 points: ranked by starting rank (the seeding order)
    assert sorted((line.rank, line.name) for line in read.lines) == [
        (1, "Pawn Stormers"),
        (2, "Knight Riders"),
        (3, "Rook Crooks"),
    ]
    scores: dict[str, float] = {}
    for r in HISTORY:
        scores[r.a] = scores.get(r.a, 0) + r.a_score
        if r.b:
            scores[r.b] = scores.get(r.b, 0) + r.b_score
    assert {line.name: line.points for line in read.lines} == scores


def test_a_tournament_we_paired_passes_the_reference_checker() -> None:
    """7 entrants (an odd field: a pairing-allocated bye each round), 5 rounds paired through our
    interface with seeded random results, written as TRF-16: the engine's Free Pairings Checker
    re-pairs every round from the file and finds no discrepancy."""
    rng = random.Random(16)
    entrants = dutch.seed_order(Entrant(f"Player {i}", 2400 - 37 * i) for i in range(7))
    history: list[Result] = []
    for rnd in range(1, 6):
        got = dutch.pair_round(entrants, history, rnd, 5)
        for a, b in got.pairs:
            s = rng.choice([1.0, 0.5, 0.0])
            history.append(Result(rnd, a, b, s, 1.0 - s))
        assert got.bye is not None
        history.append(Result(rnd, got.bye, None, 1.0, 0.0, "pab"))
    report = check_trf(trf.write_trf("Checked", entrants, history, 5))
    assert report["summary"] == {
        "rounds_checked": 5,
        "rounds_matched": 5,
        "rounds_mismatched": 0,
        "total_discrepancies": 0,
    }


def test_any_line_end_reads() -> None:
    """bbpPairings writes bare CR line ends: the same tournament with CR, LF and CRLF reads the same
    (three entrants, every round)."""
    text = trf.write_trf("Demo Cup", ENTRANTS, HISTORY, 3)
    lf = trf.read_trf(text)
    assert len(lf.lines) == 3 and lf.total_rounds == 3
    assert trf.read_trf(text.replace("\n", "\r")) == lf
    assert trf.read_trf(text.replace("\n", "\r\n")) == lf


def test_initial_colour_from_xxc() -> None:
    """No round played yet: bbpPairings' ``XXC black1`` gives round 1's initial colour."""
    text = trf.write_trf("Demo Cup", ENTRANTS, [], 3) + "XXC black1\n"
    assert trf.to_history(trf.read_trf(text))[4] == "black"


def test_no_player_line_is_an_error_naming_the_file() -> None:
    """A text with no 001 record (say, a file cut short) is not an empty tournament."""
    with pytest.raises(trf.TrfError) as e:
        trf.read_trf("012 Demo Cup\r\nXXR 3\r\n", "cup.trf")
    assert str(e.value) == "cup.trf: no 001 line: expected one 001 record per player or team (TRF-16)"
