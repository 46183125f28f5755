"""Byes in pairings.csv (a row with an empty b): reading, scoring and Median-Buchholz.

The rule books are silent on byes (a Swiss with an odd number of entrants needs them); the
choices, documented in the TD guide (docs/td-guide.md) and pipeline/domain/standings.py: a pairing-allocated bye (``pab``)
or a full-point bye scores as the narrowest win (the win's match points, the winning total
scored, the rest conceded: TEAM-SCORE-3's 289 of 576, ACWC-Q-2's 5.5 of 10); a requested half
bye a draw (half the maximum each way); a zero bye nothing. Median-Buchholz treats byes as
unplayed rounds of their kind under the stage's policy (TEAM-TB-1, FIDE Art. 16).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kits.skeleton_kit import copy_skeleton, run_skeleton
from pipeline.domain.scoring import TeamMatch
from pipeline.domain.standings import bye_score, standings_after
from pipeline.errors import InputError
from pipeline.inputs.config import load_config
from pipeline.inputs.td_files import read_schedule, read_teams
from pipeline.model import Bye
from pipeline.store import gateway

CFG = "[tournament]\nid = 't'\n[paths]\nteams = 't.csv'\nplayers = 'p.csv'\npairings = 'p.csv'\ndatabase = 'x.duckdb'\nexports = 'e'\n"


def config(tmp_path: Path, preset: str = "team-swiss", extra: str = ""):
    p = tmp_path / "tournament.toml"
    p.write_text(
        f'preset = "{preset}"\n' + CFG + '[stages.swiss]\nfirst_round_start = "2026-09-01T00:00:00Z"\n' + extra
        if preset == "team-swiss"
        else f'preset = "{preset}"\n' + CFG + extra,
        encoding="utf-8",
    )
    return load_config(p)


def m(rnd: int, a: str, b: str, pa: float, pb: float) -> TeamMatch:
    outcome = "a" if pa > pb else "b" if pb > pa else "draw"
    winner = a if outcome == "a" else b if outcome == "b" else None
    return TeamMatch("swiss", rnd, a, b, pa, pb, 576, 289, 72, 72, None, outcome, winner)  # type: ignore[arg-type]


def bye(rnd: int, entrant: str, kind: str = "pab") -> Bye:
    return Bye("swiss", rnd, entrant, kind, 0)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- reading pairings.csv

TEAMS = "team,player,board,title,captain\n" + "".join(
    f"{t},{t.lower()}{i},{i},,{'yes' if i == 1 else ''}\n"
    for t in ("Alpha", "Beta", "Gamma", "Delta", "Epsilon")
    for i in range(1, 5)
)


def schedule(tmp_path: Path, text: str):
    cfg = config(tmp_path)
    (tmp_path / "t.csv").write_text(TEAMS, encoding="utf-8")
    (tmp_path / "p.csv").write_text(text, encoding="utf-8")
    return read_schedule(cfg.paths.pairings, cfg, read_teams(cfg.paths.teams, cfg.boards))


def schedule_error(tmp_path: Path, text: str) -> str:
    with pytest.raises(InputError) as exc:
        schedule(tmp_path, text)
    return str(exc.value)


def test_an_empty_b_is_a_pairing_allocated_bye(tmp_path: Path) -> None:
    pairings, byes = schedule(tmp_path, "stage,round,a,b\nswiss,1,Alpha,Beta\nswiss,1,gamma,\n")
    assert [(p.a, p.b) for p in pairings] == [("Alpha", "Beta")]
    assert byes == (Bye("swiss", 1, "Gamma", "pab", 3),)


def test_the_bye_column_names_requested_byes(tmp_path: Path) -> None:
    _, byes = schedule(tmp_path, "stage,round,a,b,bye\nswiss,1,Alpha,,half\nswiss,1,Beta,,ZERO\nswiss,1,Gamma,,full\n")
    assert [(b.entrant, b.kind) for b in byes] == [("Alpha", "half"), ("Beta", "zero"), ("Gamma", "full")]


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "stage,round,a,b,bye\nswiss,1,Alpha,Beta,half\n",
            "p.csv line 2: bye 'half' on a paired row: expected an empty b for a bye, or an empty bye column",
        ),
        (
            "stage,round,a,b,bye\nswiss,1,Alpha,,double\n",
            "p.csv line 2: bye 'double': expected one of pab, half, zero, full (or empty: pab)",
        ),
        (
            "stage,round,a,b\nswiss,1,Alpha,Beta\nswiss,1,Beta,\n",
            "p.csv line 3: 'Beta' is already paired in swiss round 1 on line 2: expected one pairing per round",
        ),
        ("stage,round,a,b\nswiss,1,Omega,\n", "p.csv line 2: a 'Omega': expected a registered team"),
        (
            "stage,round,a,b\nknockout,1,Alpha,\n",
            "p.csv line 2: an empty b in knockout stage 'knockout': expected the opponent (byes are for swiss and round-robin stages)",
        ),
        (
            "stage,round,a,b,window_start,window_end\nswiss,1,Alpha,,2026-09-01T00:00:00Z,\n",
            "p.csv line 2: a bye has no games: expected empty window_start and window_end",
        ),
    ],
)
def test_bad_bye_rows_name_the_line_and_the_expectation(tmp_path: Path, text: str, message: str) -> None:
    assert schedule_error(tmp_path, text) == message


@pytest.mark.parametrize(
    "text, message",
    [
        # a bye, then a pairing of the same entrant in that round (the other order is refused above)
        (
            "stage,round,a,b,bye\nswiss,1,Beta,,half\nswiss,1,Alpha,Beta,\n",
            "p.csv line 3: 'Beta' has a bye in swiss round 1 on line 2: expected a bye or a pairing in a round, not both",
        ),
        # two pabs in one round: with Alpha v Beta the field is 4, even, and needs no bye
        (
            "stage,round,a,b\nswiss,1,Alpha,Beta\nswiss,1,Gamma,\nswiss,1,Delta,\n",
            "p.csv line 4: 'Delta' has a second pairing-allocated bye in swiss round 1 ('Gamma' on line 3): expected at most one "
            "a round, for the odd entrant out (4 entrants with a pairing or a pab make an even field, which needs none; a "
            "requested bye goes in the bye column: half, zero or full)",
        ),
        # two pabs for one entrant in a stage
        (
            "stage,round,a,b\nswiss,1,Alpha,Beta\nswiss,1,Gamma,\nswiss,2,Alpha,Gamma\nswiss,2,Beta,\nswiss,3,Beta,Alpha\n"
            "swiss,3,gamma,\n",
            "p.csv line 7: 'Gamma' has a second pairing-allocated bye in swiss (round 1 on line 3): expected at most one per "
            "entrant in a stage (a requested bye goes in the bye column: half, zero or full)",
        ),
    ],
)
def test_byes_that_contradict_the_pairing_are_refused(tmp_path: Path, text: str, message: str) -> None:
    """Byes (the books are silent; FIDE C.04.1): only an odd field needs a pairing-allocated bye,
    and one; an entrant gets at most one in a Swiss stage; a bye and a pairing in one round exclude
    each other."""
    assert schedule_error(tmp_path, text) == message


def test_requested_byes_and_absences_are_outside_the_field(tmp_path: Path) -> None:
    """Requested byes (half, zero, full) are not pairing-allocated: a round may have several next
    to one pab, an entrant may take them in any number of rounds, and an entrant not listed in a
    round (withdrawn, absent) is outside the field: 5 teams, Epsilon absent in round 1, Delta on a
    half bye, Alpha v Beta paired, Gamma the odd one out (a field of 3)."""
    pairings, byes = schedule(
        tmp_path,
        "stage,round,a,b,bye\nswiss,1,Alpha,Beta,\nswiss,1,Gamma,,\nswiss,1,Delta,,half\n"
        "swiss,2,Alpha,Gamma,\nswiss,2,Delta,,zero\nswiss,2,Beta,,full\nswiss,2,Epsilon,,\n",
    )
    assert len(pairings) == 2
    assert [(b.round, b.entrant, b.kind) for b in byes] == [
        (1, "Gamma", "pab"),
        (1, "Delta", "half"),
        (2, "Delta", "zero"),
        (2, "Beta", "full"),
        (2, "Epsilon", "pab"),
    ]


ACWC_TOML = (
    'preset = "acwc-2021"\n[tournament]\nid = "t"\n[paths]\nplayers = "players.csv"\npairings = "pairings.csv"\n'
    'database = "x.duckdb"\nexports = "e"\n[stages.candidates]\nfirst_round_start = "2021-10-05T00:00:00Z"\n'
)


def test_a_round_robin_pool_is_its_own_field(tmp_path: Path) -> None:
    """ACWC-C-1's pools are separate fields: two pools of 3 each have their odd player out in the
    same round (a bye a pool, and a pool's bye rotates, so a player may have more than one); two
    byes in one pool's round are refused."""
    from pipeline.inputs.td_files import read_players

    (tmp_path / "tournament.toml").write_text(ACWC_TOML, encoding="utf-8")
    cfg = load_config(tmp_path / "tournament.toml")
    (tmp_path / "players.csv").write_text(
        "player\n" + "".join(f"{n}\n" for n in ("p1", "p2", "p3", "q1", "q2", "q3")), encoding="utf-8"
    )
    pools = (
        "stage,round,a,b\ncandidates,1,p1,p2\ncandidates,1,p3,\ncandidates,1,q1,q2\ncandidates,1,q3,\n"
        "candidates,2,p1,p3\ncandidates,2,p2,\ncandidates,2,q1,q3\ncandidates,2,q2,\n"
        "candidates,3,p2,p3\ncandidates,3,p1,\ncandidates,3,q2,q3\ncandidates,3,q1,\n"
        "candidates,4,p1,p2\ncandidates,4,p3,\n"
    )
    (tmp_path / "pairings.csv").write_text(pools, encoding="utf-8")
    _, byes = read_schedule(cfg.paths.pairings, cfg, read_players(cfg.paths.players))
    assert len(byes) == 7
    (tmp_path / "pairings.csv").write_text(pools + "candidates,4,q1,\ncandidates,4,q2,\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        read_schedule(cfg.paths.pairings, cfg, read_players(cfg.paths.players))
    assert str(exc.value) == (
        "pairings.csv line 17: 'q2' has a second pairing-allocated bye in candidates round 4 ('q1' on line 16): expected at "
        "most one a round, for the odd entrant out (2 entrants with a pairing or a pab make an even field, which needs none; "
        "a requested bye goes in the bye column: half, zero or full)"
    )


# --------------------------------------------------------------------------- scores of a bye


def test_bye_scores_by_kind(tmp_path: Path) -> None:
    """TEAM (576 a match, 289 wins, match points 2/1/0): pab and full 2 MP, 289-287; half 1 MP,
    288-288; zero nothing. ACWC qualification (10 games, 5.5 wins, game points): pab 5.5-4.5."""
    st = config(tmp_path).stage("swiss")
    assert bye_score(st, 4, "pab") == (2, 289, 287)
    assert bye_score(st, 4, "full") == (2, 289, 287)
    assert bye_score(st, 4, "half") == (1, 288, 288)
    assert bye_score(st, 4, "zero") == (0, 0, 0)
    (tmp_path / "acwc").mkdir()
    acwc = config(tmp_path / "acwc", "acwc-2021").stage("qualification")
    assert bye_score(acwc, 1, "pab") == (2, 5.5, 4.5)  # match points unused there: the primary is game points


def test_pab_points_scored_is_configurable(tmp_path: Path) -> None:
    st = config(tmp_path, extra="pab_points_scored = 288\n").stage("swiss")
    assert bye_score(st, 4, "pab") == (2, 288, 288)


# --------------------------------------------------------------------------- standings with byes

# Five teams, three rounds, one bye a round (hand-computed below):
#   r1: A beats B 300-276, C beats D 300-276, E bye   r2: A beats C 300-276, B draws E 288-288, D bye
#   r3: A beats E 300-276, B beats D 300-276, C bye
MATCHES = [
    m(1, "A", "B", 300, 276),
    m(1, "C", "D", 300, 276),
    m(2, "A", "C", 300, 276),
    m(2, "B", "E", 288, 288),
    m(3, "A", "E", 300, 276),
    m(3, "B", "D", 300, 276),
]
BYES = (bye(1, "E"), bye(2, "D"), bye(3, "C"))


def test_standings_count_byes_as_narrow_wins(tmp_path: Path) -> None:
    """TEAM-SCORE-5 + TEAM-TB-1 with byes. MP: A 6, C 2+0+2 = 4, B 0+1+2 = 3, E 2+1+0 = 3, D 0+2+0 = 2.
    Scored/conceded: C 300+276+289 / 276+300+287 (+2); B 864/864 (0); E 289+288+276 / 287+288+300 (-22);
    D 276+289+276 / 300+287+300 (-46). B and E level on 3 MP: B's difference 0 beats E's -22."""
    st = config(tmp_path).stage("swiss")
    rows = {r.entrant: r for r in standings_after(st, tuple("ABCDE"), MATCHES, 3, byes=BYES, boards=4)}
    assert [(e, r.rank) for e, r in sorted(rows.items(), key=lambda x: x[1].rank)] == [
        ("A", 1),
        ("C", 2),
        ("B", 3),
        ("E", 4),
        ("D", 5),
    ]
    assert {e: r.match_points for e, r in rows.items()} == {"A": 6, "B": 3, "C": 4, "D": 2, "E": 3}
    assert (rows["C"].points_scored, rows["C"].points_conceded, rows["C"].points_difference) == (865, 863, 2)
    assert (rows["E"].points_scored, rows["E"].points_conceded) == (853, 875)
    assert (rows["D"].points_scored, rows["D"].points_conceded) == (841, 887)
    assert {e: (r.matches_played, r.byes) for e, r in rows.items()} == {
        "A": (3, 0),
        "B": (3, 0),
        "C": (2, 1),
        "D": (2, 1),
        "E": (2, 1),
    }


@pytest.mark.parametrize(
    "policy, expected_c",
    [
        ("fide-2026", 3.0),  # C's bye: a dummy scoring C's 4 MP capped at a draw a round (1 × 3) → [2, 6, 3] → 3
        ("fide-2024", 4.0),  # the dummy scores C's own 4 → [2, 6, 4] → 4
        ("plain", 0.0),  # no dummy: [2, 6] → both cut → 0
    ],
)
def test_median_buchholz_of_an_entrant_with_a_bye_follows_the_policy(
    tmp_path: Path, policy: str, expected_c: float
) -> None:
    """TEAM-TB-1's named policies: C met D (2 MP) and A (6 MP) and had a pairing-allocated bye."""
    st = config(tmp_path, extra=f'buchholz_policy = "{policy}"\n').stage("swiss")
    rows = {r.entrant: r for r in standings_after(st, tuple("ABCDE"), MATCHES, 3, byes=BYES, boards=4)}
    assert rows["C"].median_buchholz == expected_c
    assert rows["A"].median_buchholz == 3.0  # opponents B 3, C 4, E 3 → drop 4 and a 3 → 3, whatever the policy


def test_kashdan_scores_matches_and_gives_byes_nothing(tmp_path: Path) -> None:
    """Kashdan (4 win, 2 draw, 1 loss, 0 unplayed): A WWW 12; B LDW 7; C W-L-bye 5; D L-bye-L 2; E bye-D-L 3."""
    st = config(tmp_path, extra='tiebreaks = ["kashdan"]\n').stage("swiss")
    rows = {r.entrant: r for r in standings_after(st, tuple("ABCDE"), MATCHES, 3, byes=BYES, boards=4)}
    assert {e: r.kashdan for e, r in rows.items()} == {"A": 12, "B": 7, "C": 5, "D": 2, "E": 3}
    # B and E are level on 3 MP; with Kashdan as the only tiebreak B (7) ranks above E (3)
    assert rows["B"].rank == 3 and rows["E"].rank == 4


def test_kashdan_weights_are_configurable(tmp_path: Path) -> None:
    st = config(tmp_path, extra='tiebreaks = ["kashdan"]\nkashdan = { win = 3, draw = 1, loss = 0 }\n').stage("swiss")
    rows = {r.entrant: r for r in standings_after(st, tuple("ABCDE"), MATCHES, 3, byes=BYES, boards=4)}
    assert rows["B"].kashdan == 0 + 1 + 3


def test_an_unplayed_match_gives_nothing_and_is_an_unplayed_round(tmp_path: Path) -> None:
    """TEAM-SCORE-4 (a 0-0 draw only as a TD ruling) + TEAM-TB-1: round 3's B v D is unplayed (no game,
    no ruling, window and margin passed). MP: A 6, C 4, E 3, D 0+2 = 2, B 0+1 = 1; B played 2 matches,
    D 1 (and a bye); points are those of the matches played: B 276+288 = 564 scored, 300+288 = 588
    conceded. Median-Buchholz (fide-2026): B met A (6) and E (3), round 3 is an
    unplayed round → a dummy scoring B's own 1 (at most a draw a round, 3) → [6, 3, 1] → 3; A met
    B (1), C (4), E (3) → 3."""
    st = config(tmp_path).stage("swiss")
    unplayed = TeamMatch("swiss", 3, "B", "D", 0, 0, 576, 289, 0, 72, None, "unplayed", None)
    matches = MATCHES[:-1] + [unplayed]
    rows = {r.entrant: r for r in standings_after(st, tuple("ABCDE"), matches, 3, byes=BYES, boards=4)}
    assert [e for e, _ in sorted(rows.items(), key=lambda x: x[1].rank)] == ["A", "C", "E", "D", "B"]
    assert {e: r.match_points for e, r in rows.items()} == {"A": 6, "B": 1, "C": 4, "D": 2, "E": 3}
    assert (rows["B"].matches_played, rows["B"].points_scored, rows["B"].points_conceded) == (2, 564, 588)
    assert (rows["D"].matches_played, rows["D"].byes) == (1, 1)
    assert (rows["B"].median_buchholz, rows["A"].median_buchholz) == (3.0, 3.0)
    assert (rows["B"].kashdan, rows["D"].kashdan) == (1 + 2 + 0, 1 + 0 + 0)  # Kashdan: an unplayed round scores 0


# --------------------------------------------------------------------------- end to end on the skeleton


def test_skeleton_round_with_byes_scores_and_posts_them(tmp_path: Path) -> None:
    """The skeleton (2 boards: 64 a match, 33 wins) with round 2's Betas v Deltas replaced by a
    pairing-allocated bye for Betas and a half bye for Deltas. Round 1 by hand (tests/test_end_to_end.py):
    Alphas 45-19 Betas, Gammas 20-44 Deltas. Round 2: Alphas 26-38 Gammas (18-14, 8-24); Betas +2 MP
    33-31; Deltas +1 MP 32-32. After round 2: Deltas 3 MP (76/52), Alphas 2 (71/57, +14),
    Gammas 2 (58/70, -12), Betas 2 (52/76, -24)."""
    dest = copy_skeleton(tmp_path)
    (dest / "pairings.csv").write_text(
        "stage,round,a,b,bye\nswiss,1,Alphas,Betas,\nswiss,1,Gammas,Deltas,\n"
        "swiss,2,Alphas,Gammas,\nswiss,2,Betas,,\nswiss,2,Deltas,,half\n",
        encoding="utf-8",
    )
    cfg, _ = run_skeleton(dest)
    con = gateway.connect(cfg.paths.database, read_only=True)
    try:
        got = con.sql(
            "SELECT rank, entrant, match_points, points_scored, points_conceded, byes FROM standings "
            "WHERE after_round = 2 ORDER BY rank"
        ).fetchall()
        kinds = con.sql("SELECT round, entrant, kind FROM byes ORDER BY entrant").fetchall()
    finally:
        con.close()
    assert got == [
        (1, "Deltas", 3, 76, 52, 1),
        (2, "Alphas", 2, 71, 57, 0),
        (3, "Gammas", 2, 58, 70, 0),
        (4, "Betas", 2, 52, 76, 1),
    ]
    assert kinds == [(2, "Betas", "pab"), (2, "Deltas", "half")]
    post = (cfg.paths.exports / "round_2.md").read_text(encoding="utf-8")
    assert "Bye: Betas (pairing-allocated bye)" in post and "Bye: Deltas (half-point bye)" in post
