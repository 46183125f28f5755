"""Final placings (the `placings` view, placings.csv) and the knockout roles: the event's order
comes from the bracket, not from a table (TEAM-FMT-1, TEAM-KO-1, ARM-1; ACWC-C-1, ACWC-SF-1,
ACWC-F-1).

The rule, as docs/rules.md states it: the final's winner 1st, its loser 2nd, the bronze (third-place)
match's winner 3rd, its loser 4th; the losers of each earlier knockout round share the next places
in the order of the table before the knockout (the Swiss rank); then those who did not go on,
stage by stage backwards, in their stage's order (a round robin: pool place, then match points,
then points scored, then pool number). Every expectation below is worked out by hand from that.
"""

from __future__ import annotations

import csv
from pathlib import Path

import duckdb
import pytest

from pipeline.domain import bracket
from pipeline.domain.bracket import Match, StageResult, TableRow
from pipeline.domain.scoring import TeamMatch
from pipeline.domain.standings import Standing
from pipeline.inputs.config import load_config
from pipeline.report import posts
from pipeline.stages import export, placings
from pipeline.store import gateway

TEAMS = [f"T{i:02d}" for i in range(1, 17)]


def swiss_table(ranks: dict[str, int] | None = None) -> tuple[TableRow, ...]:
    ranks = ranks or {}
    return tuple(TableRow(t, ranks.get(t, i), 14 - i) for i, t in enumerate(TEAMS, 1))


def m(stage: str, rnd: int, a: str, b: str, ap: float, bp: float, winner: str | None, decided_by: str = "") -> Match:
    return Match(stage, rnd, a, b, ap, bp, winner, decided_by)


# 16 teams, Swiss ranks 1..16 by name (T11 and T12 level: both rank 11). TEAM-FMT-1: 8 qualify.
# Quarterfinals 1v8, 2v7, 3v6, 4v5: T01, T07 (upset), T03, T05 (upset) win. Semifinals (bracket:
# match i's winner v match k-1-i's): T01 v T05 → T05; T07 v T03 → T07. Final T05 v T07 level
# 480-480, T07 wins the armageddon; bronze T01 v T03: T03 500-460.
QUARTERS = (
    m("knockout", 1, "T01", "T08", 400, 368, "T01"),
    m("knockout", 1, "T02", "T07", 300, 468, "T07"),
    m("knockout", 1, "T03", "T06", 420, 348, "T03"),
    m("knockout", 1, "T04", "T05", 380, 388, "T05"),
)
SEMIS = (m("knockout", 2, "T01", "T05", 370, 398, "T05"), m("knockout", 2, "T07", "T03", 390, 378, "T07"))
FINALS = (
    m("final", 1, "T05", "T07", 480, 480, "T07", "armageddon (ARM-1)"),
    m("final", 1, "T01", "T03", 460, 500, "T03"),
)


def team_event(quarters=QUARTERS, semis=SEMIS, finals=FINALS, swiss_complete: bool = True) -> list[StageResult]:
    ranks = {"T12": 11}
    return [
        StageResult("swiss", "swiss", swiss_complete, swiss_table(ranks)),
        StageResult("knockout", "knockout", matches=quarters + semis),
        StageResult("final", "knockout", matches=finals),
    ]


def test_team_fmt_1_placings_from_the_bracket_and_the_swiss() -> None:
    """TEAM-FMT-1 / ARM-1: the final's armageddon winner is 1st; quarterfinal losers T08, T02,
    T06, T04 share places 5-8 by Swiss rank (T02 2nd, T04 4th, T06 6th, T08 8th in the Swiss); the
    eight who did not qualify follow by Swiss rank, T11 and T12 (level, rank 11) sharing 11th."""
    got = [(p.place, p.entrant, p.stage) for p in bracket.placings(team_event())]
    assert got == [
        (1, "T07", "final"),
        (2, "T05", "final"),
        (3, "T03", "final"),
        (4, "T01", "final"),
        (5, "T02", "knockout"),
        (6, "T04", "knockout"),
        (7, "T06", "knockout"),
        (8, "T08", "knockout"),
        (9, "T09", "swiss"),
        (10, "T10", "swiss"),
        (11, "T11", "swiss"),
        (11, "T12", "swiss"),
        (13, "T13", "swiss"),
        (14, "T14", "swiss"),
        (15, "T15", "swiss"),
        (16, "T16", "swiss"),
    ]


def test_arm_1_how_names_the_match_the_score_and_the_decider() -> None:
    how = {p.entrant: p.how for p in bracket.placings(team_event())}
    assert how["T07"] == "won the final v T05, 480–480, level on points, decided by armageddon (ARM-1)"
    assert how["T05"] == "lost the final v T07, 480–480, level on points, decided by armageddon (ARM-1)"
    assert how["T03"] == "won the bronze match v T01, 500–460"
    assert how["T01"] == "lost the bronze match v T03, 460–500"
    assert how["T02"] == "lost the quarterfinal v T07, 300–468; places 5–8 by swiss rank 2"
    assert how["T09"] == "swiss rank 9; not in the knockout"


def test_knockout_roles_tell_the_final_from_the_bronze_match() -> None:
    """The final is between the semifinal winners, the bronze match between their losers, whatever
    the order of the rows (here the bronze match is listed first)."""
    roles = bracket.knockout_roles(team_event(finals=FINALS[::-1]))
    assert roles[("final", 1, "T05")] == "final" and roles[("final", 1, "T01")] == "bronze match"
    assert {roles[("knockout", 2, a)] for a in ("T01", "T07")} == {"semifinal"}
    assert {roles[("knockout", 1, a)] for a in ("T01", "T02", "T03", "T04")} == {"quarterfinal"}


def test_undecided_places_stay_open_and_the_places_below_are_final() -> None:
    """The final waiting for its armageddon: T05 and T07 have no place yet (they hold 1st and
    2nd between them); the bronze match and everything below are decided."""
    waiting = (m("final", 1, "T05", "T07", 480, 480, None), FINALS[1])
    got = {p.entrant: p.place for p in bracket.placings(team_event(finals=waiting))}
    assert (got["T05"], got["T07"], got["T03"], got["T01"], got["T02"]) == (None, None, 3, 4, 5)
    # before the knockout is paired nobody has a place: a Swiss table is not the event's order
    swiss_only = bracket.placings(team_event(quarters=(), semis=(), finals=()))
    assert {p.place for p in swiss_only} == {None}
    assert swiss_only[0].how == "swiss rank 1; the knockout stage is not paired yet"


def test_quarterfinals_decided_semifinals_pending() -> None:
    """Once the quarterfinals are decided their losers' places 5-8 are final, while the four
    semifinalists' places are not."""
    pending = (m("knockout", 2, "T01", "T05", 0, 0, None), m("knockout", 2, "T07", "T03", 0, 0, None))
    got = {p.entrant: p.place for p in bracket.placings(team_event(semis=pending, finals=()))}
    assert [got[t] for t in ("T01", "T03", "T05", "T07")] == [None] * 4
    assert [got[t] for t in ("T02", "T04", "T06", "T08", "T09")] == [5, 6, 7, 8, 9]


def test_an_undecided_quarterfinal_leaves_the_bracket_places_open() -> None:
    """TEAM-FMT-1 with a quarterfinal still undecided (T02 v T07 unplayed, waiting for a ruling)
    while one semifinal is already paired: every knockout entrant stays in the bracket with no
    place (the open tie's loser shares 5-8 with the others, by Swiss rank), each listed once, and
    the non-qualifiers' places 9-16 are final."""
    quarters = QUARTERS[:1] + (m("knockout", 1, "T02", "T07", 0, 0, None),) + QUARTERS[2:]
    semi = (m("knockout", 2, "T01", "T05", 0, 0, None),)  # pending
    got = [(p.place, p.entrant) for p in bracket.placings(team_event(quarters, semi, ()))]
    assert sorted(e for _, e in got) == sorted(TEAMS)
    assert {e for p, e in got if p is None} == {f"T{i:02d}" for i in range(1, 9)}
    assert [(p, e) for p, e in got if p is not None] == [
        (9, "T09"),
        (10, "T10"),
        (11, "T11"),
        (11, "T12"),
        (13, "T13"),
        (14, "T14"),
        (15, "T15"),
        (16, "T16"),
    ]


def test_acwc_placings_final_third_place_candidates_qualification() -> None:
    """ACWC-F-1 / ACWC-SF-1 / ACWC-C-1: the final tied in round 1 and replayed in round 2 (the
    replay decides); the third-place match; then the candidates not in the semifinals by pool
    place (3rd places before 4th places ...), level pool places by match points, then points
    scored, then pool number; then the qualification players not in the candidates by rank."""
    pool1 = [
        TableRow(p, r, mp, ps, 1)
        for p, r, mp, ps in (
            ("a1", 1, 4, 30),
            ("a2", 2, 3.5, 28),
            ("a3", 3, 3, 26),
            ("a4", 4, 2, 24),
            ("a5", 5, 1, 20),
            ("a6", 6, 0, 10),
        )
    ]
    pool2 = [
        TableRow(p, r, mp, ps, 2)
        for p, r, mp, ps in (
            ("b1", 1, 4, 31),
            ("b2", 2, 3.5, 27),
            ("b3", 3, 3, 27),
            ("b4", 4, 2, 24),
            ("b5", 5, 1.5, 21),
            ("b6", 6, 0, 9),
        )
    ]
    quali = [TableRow(p, r, 0, 7 - r / 2) for r, p in enumerate(["a1", "b2", "a3", "b1", "q1", "q2"], 1)]
    stages = [
        StageResult("qualification", "swiss", True, tuple(quali)),
        StageResult("candidates", "round_robin", True, tuple(pool1 + pool2)),
        StageResult(
            "semifinals",
            "knockout",
            matches=(m("semifinals", 1, "a1", "b2", 6, 4, "a1"), m("semifinals", 1, "b1", "a2", 4.5, 5.5, "a2")),
        ),
        StageResult(
            "final",
            "knockout",
            matches=(
                m("final", 1, "a1", "a2", 6, 6, None),
                m("final", 1, "b2", "b1", 7, 5, "b2"),
                m("final", 2, "a1", "a2", 5, 7, "a2"),
            ),
        ),
    ]
    got = [(p.place, p.entrant) for p in bracket.placings(stages)]
    assert got == [
        (1, "a2"),
        (2, "a1"),
        (3, "b2"),
        (4, "b1"),
        (5, "b3"),
        (6, "a3"),  # pool place 3: b3 and a3 level on 3 match points; b3 27 points > 26
        (7, "a4"),
        (8, "b4"),  # pool place 4: level on 2 and 24: pool 1 first
        (9, "b5"),
        (10, "a5"),  # pool place 5: b5 1.5 match points > 1
        (11, "a6"),
        (12, "b6"),
        (13, "q1"),
        (14, "q2"),
    ]
    roles = bracket.knockout_roles(stages)
    assert (
        roles[("final", 2, "a1")] == roles[("final", 1, "a1")] == "final"
        and roles[("final", 1, "b2")] == "bronze match"
    )
    how = {p.entrant: p.how for p in bracket.placings(stages)}
    assert how["a2"] == "won the final v a1, 7–5"
    assert how["b3"] == "candidates pool 2 place 3, 3 match points, 27 points; not in the semifinals"
    assert how["q1"] == "qualification rank 5; not in the candidates"
    # the texts name opponents by display name (the Lichess username) where one is known
    named = {p.entrant: p.how for p in bracket.placings(stages, {"a1": "AlphaOne"})}
    assert named["a2"] == "won the final v AlphaOne, 7–5"


# --------------------------------------------------------------------------- a hand-built world in DuckDB


def write_world(tmp_path: Path) -> Path:
    """A 16-team TEAM event (team-swiss preset, 2 boards) whose scored tables are written straight
    into a real DuckDB file: the Swiss (7 rounds) ranks T01..T16, then the bracket above."""
    players = "".join(f"{t},{t}p1,1,,yes\n{t},{t}p2,2,,\n" for t in TEAMS)
    (tmp_path / "teams.csv").write_text("team,player,board,title,captain\n" + players, encoding="utf-8")
    (tmp_path / "pairings.csv").write_text("stage,round,a,b\n", encoding="utf-8")
    (tmp_path / "tournament.toml").write_text(
        'preset = "team-swiss"\n[tournament]\nid = "ko-test"\nname = "KO Cup"\nboards = 2\n'
        '[paths]\nteams = "teams.csv"\npairings = "pairings.csv"\ndatabase = "out/ko.duckdb"\nexports = "out/ex"\n'
        '[stages.swiss]\nfirst_round_start = "2026-09-01T00:00:00Z"\n',
        encoding="utf-8",
    )
    cfg = load_config(tmp_path / "tournament.toml")
    table = [Standing("swiss", 7, 11 if t == "T12" else i, t, 7, 14 - i, 0, 0, 0, 0) for i, t in enumerate(TEAMS, 1)]
    swiss = [
        TeamMatch("swiss", r, TEAMS[i], TEAMS[i + 1], 200, 88, 288, 145, 4, 4, None, "a", TEAMS[i])  # type: ignore[arg-type]
        for r in range(1, 8)
        for i in range(0, 16, 2)
    ]

    def tm(x: Match) -> TeamMatch:
        outcome = "a" if x.winner == x.a else "b" if x.winner == x.b else "draw"
        override = f"armageddon won by {x.winner}: TD ruling" if x.decided_by else ""
        return TeamMatch(
            x.stage,
            x.round,
            x.a,
            x.b,
            x.a_points,
            x.b_points,
            768,
            385,
            4,
            4,
            None,
            outcome,  # type: ignore[arg-type]
            x.winner,
            override=override,
        )

    con = gateway.connect(cfg.paths.database)
    try:
        gateway.replace_where(con, "scored_standings", {}, table)
        gateway.replace_where(con, "scored_team_matches", {}, swiss + [tm(x) for x in QUARTERS + SEMIS + FINALS])
        gateway.replace_where(con, "scored_placings", {}, placings.placings_rows(con, cfg))
    finally:
        con.close()
    return tmp_path / "tournament.toml"


def test_placings_view_and_csv_on_a_hand_built_world(tmp_path: Path) -> None:
    """The placings view and placings.csv hold the order of the first test; no Swiss-style
    standings file is written for the knockout stages; the final stage's round post names the
    final and the bronze match."""
    cfg = load_config(write_world(tmp_path))
    (cfg.paths.exports).mkdir(parents=True)
    (cfg.paths.exports / "standings_final.csv").write_text("stale\n", encoding="utf-8")  # from an older version
    written = export.export_stage(cfg)
    con = duckdb.connect(str(cfg.paths.database), read_only=True)
    try:
        view = con.sql("SELECT place, entrant, stage FROM placings").fetchall()
    finally:
        con.close()
    assert view[:5] == [
        (1, "T07", "final"),
        (2, "T05", "final"),
        (3, "T03", "final"),
        (4, "T01", "final"),
        (5, "T02", "knockout"),
    ]
    with (cfg.paths.exports / "placings.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["stage", "place", "entrant", "how"]
    assert rows[1] == [
        "final",
        "1",
        "T07",
        "won the final v T05, 480–480, level on points, decided by armageddon (ARM-1)",
    ]
    assert [(int(r[1]), r[2]) for r in rows[1:]] == [(p, e) for p, e, _ in view]
    assert cfg.paths.exports / "placings.csv" in written
    assert not (cfg.paths.exports / "standings_final.csv").exists()
    assert not (cfg.paths.exports / "standings_knockout.csv").exists()
    assert (cfg.paths.exports / "standings_swiss.csv").exists()
    # the round post (written with the board results; the hand-built world has none, so asked for directly)
    con = gateway.connect(cfg.paths.database, read_only=True)
    try:
        final = cfg.stage("final")
        post = posts.round_post(
            con,
            cfg,
            final,
            1,
            gateway.query(con, "queries/board_results_of_stage", ["final"]),
            placings.knockout_labels(con, cfg, final),
        )
    finally:
        con.close()
    assert labelled(post, "Final", "T05", "T07") and labelled(post, "Bronze match", "T01", "T03")


# --------------------------------------------------------------------------- the suite's demo


@pytest.mark.scenario
def test_the_demo_placings_follow_its_bracket(suite_demo: Path, audited: dict[str, Path]) -> None:
    """TEAM-FMT-1 / TEAM-KO-1 / ARM-1 on the suite's demo (12 teams: 4 qualify; the knockout stage
    is the semifinals, the final stage the final and the bronze match). The order is worked out
    here from the demo's own matches by the rule: the final is the final stage's match between the
    two semifinal winners (the bronze match between their losers, decided on armageddon); its
    winner 1st ... bronze loser 4th; the eight others by Swiss rank. placings.csv holds it, no
    standings_final.csv is published, and the final's round post names the final and the bronze."""
    con = duckdb.connect(str(audited["team"]), read_only=True)
    try:
        semis = con.sql("SELECT team_a, team_b, winner FROM team_matches WHERE stage = 'knockout'").fetchall()
        finals = con.sql(
            "SELECT team_a, team_b, winner, a_points, b_points, override FROM team_matches WHERE stage = 'final'"
        ).fetchall()
        swiss = con.sql(
            "SELECT entrant, rank FROM standings WHERE stage = 'swiss' "
            "AND after_round = (SELECT max(after_round) FROM standings WHERE stage = 'swiss') ORDER BY rank"
        ).fetchall()
        got = con.sql("SELECT place, entrant, stage FROM placings").fetchall()
    finally:
        con.close()
    winners = {w for _, _, w in semis}
    losers = {b if w == a else a for a, b, w in semis}
    assert len(semis) == 2 and len(winners) == 2 and all(winners)
    [final] = [f for f in finals if {f[0], f[1]} == winners]
    [bronze] = [f for f in finals if {f[0], f[1]} == losers]
    assert bronze[3] == bronze[4] and bronze[5].startswith(f"armageddon won by {bronze[2]}")  # the planted tie (ARM-1)
    top = []
    for a, b, w, *_ in (final, bronze):
        top += [w, b if w == a else a]
    rest = [e for e, _ in swiss if e not in winners | losers]
    assert got == [(i, e, "final") for i, e in enumerate(top, 1)] + [(i, e, "swiss") for i, e in enumerate(rest, 5)]

    cfg = load_config(suite_demo / "tournament.toml")
    export.export_stage(cfg)
    with (cfg.paths.exports / "placings.csv").open(newline="", encoding="utf-8") as f:
        assert [(int(r["place"]), r["entrant"]) for r in csv.DictReader(f)] == [(p, e) for p, e, _ in got]
    assert not (cfg.paths.exports / "standings_final.csv").exists()
    assert not (cfg.paths.exports / "standings_knockout.csv").exists()
    post = (cfg.paths.exports / "round_final_1.md").read_text(encoding="utf-8")
    assert labelled(post, "Final", final[0], final[1]) and labelled(post, "Bronze match", bronze[0], bronze[1])
    semis_post = (cfg.paths.exports / "round_knockout_1.md").read_text(encoding="utf-8")
    assert all(labelled(semis_post, "Semifinal", a, b) for a, b, _ in semis)


def labelled(post: str, label: str, a: str, b: str) -> bool:
    """The round post's heading of the match a v b carries `label` (report.match_line:
    ``### Final: A 45 – 19 B: A wins``)."""
    return any(line.startswith(f"### {label}: {a} ") and f" {b}: " in line for line in post.splitlines())
