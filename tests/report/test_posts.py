"""What TDs publish (the views and the exports): round posts with the rulings, boards, windows and a
legend; display names in the views and the exports; `score` and `audit` rewriting the exports.

All on the hand-made skeleton (tests/data/skeleton: 4 teams of 2 boards, 2 Swiss rounds; the
scores by hand in tests/test_end_to_end.py): round 1 Alphas 45-19 Betas (boards 16-16 and 29-3),
Gammas 20-44 Deltas; round 2 Alphas 26-38 Gammas (18-14, 8-24), Betas 38-18 Deltas (20-12, 18-6).
Its teams.csv spells ALICE in capitals; Lichess spells her Alice.
"""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

from kits.skeleton_kit import AFTER_ROUND_2, SKELETON, copy_skeleton, run_skeleton
from pipeline.inputs.config import load_config
from pipeline.stages import audit, context, export, score
from pipeline.store import gateway

NOW = "2026-03-20T00:00:00Z"  # AFTER_ROUND_2
OVR = "stage,round,subject,action,value,reason\n"


def with_overrides(folder: Path, text: str) -> None:
    toml = folder / "tournament.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8").replace(
            'database = "out/skeleton.duckdb"', 'database = "out/skeleton.duckdb"\noverrides = "overrides.csv"'
        ),
        encoding="utf-8",
    )
    (folder / "overrides.csv").write_text(text, encoding="utf-8")


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def cli(folder: Path, command: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline", command, "--config", str(folder / "tournament.toml"), "--now", NOW],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


# --------------------------------------------------------------------------- round posts


def test_round_post_shows_window_rulings_boards_with_parts_and_links_and_a_legend(tmp_path: Path) -> None:
    """TEAM-SCORE-1, TEAM-SCORE-3, TEAM-DQ-1: Amir forfeits round 1's 1+2 part (8-0 for him on the
    board → 0-8): board 2 becomes 9-3, 12-0, 0-8 = 21-11, the match 16+21 = 37 – 16+11 = 27. The
    post shows the window (TEAM-FMT-3: 7 days from first_round_start), the ruling with its reason
    (TD text neutralised: a pipe escaped), each board's parts with games played/due, its total and
    its games, names as Lichess spells them, and the legend."""
    dest = copy_skeleton(tmp_path)
    with_overrides(dest, OVR + "swiss,1,amir,forfeit,1+2,arrived late | again\n")
    cfg, _ = run_skeleton(dest)
    post = (cfg.paths.exports / "round_1.md").read_text(encoding="utf-8")

    def links(board: int) -> str:
        return " ".join(f"[{i}](https://lichess.org/R1ab{board}g0{i})" for i in (1, 2, 3, 4))

    expected = "\n".join(
        [
            "## Skeleton Cup — swiss, round 1",
            "",
            "Window: 2026-03-03 00:00 – 2026-03-10 00:00 UTC",
            "",
            "### Alphas 37 – 27 Betas: Alphas wins",
            "",
            "- TD ruling: Amir forfeits the 1+2 part: arrived late \\| again (overrides.csv line 2)",
            "",
            "| board | A | B | 0+2 | 2+5 | 1+2 | total | games |",
            "|---|---|---|---|---|---|---|---|",
            f"| 1 | Alice | Bob | 12–0 (2/2) | 0–12 (1/1) | 4–4 (1/1) | 16–16 | {links(1)} |",
            f"| 2 | Amir | Bea | 9–3 (2/2) | 12–0 (1/1) | 0–8 (1/1) | 21–11 | {links(2)} |",
            "",
            "### Gammas 20 – 44 Deltas: Deltas wins",
            "",
        ]
    )
    assert post.startswith(expected + "\n")
    assert "\n| 1 | Deltas | 2 | 44 | 20 | 24 | 0 |\n| 2 | Alphas | 2 | 37 | 27 | 10 | 0 |\n" in post
    assert post.endswith(
        "*Scores* are points A–B. *Parts* are time controls, minutes+seconds of increment: 0+2 (2 games, win 6, draw 3), "
        "2+5 (1 game, win 12, draw 6), 1+2 (1 game, win 8, draw 4); (played/due) after a part's score: its games played "
        "and due. *games*: links to the board's counted games on lichess.org. *Window*: the round's games count from its "
        "start (included) to its end (excluded), UTC. *TD ruling*: a decision of the tournament directors (overrides.csv), "
        "with its reason.\n\n"
        "*MP* match points (win 2, draw 1, loss 0); *scored* / *conceded* points scored / conceded; *diff* points "
        "difference (scored − conceded); *MB* Median-Buchholz (the opponents' scores without the highest and the lowest).\n"
    )
    # round 2 carries no ruling: the forfeit was for round 1 only
    assert "TD ruling" not in (cfg.paths.exports / "round_2.md").read_text(encoding="utf-8").split("---")[0]


def test_round_post_rulings_for_games_lineups_and_disqualification(tmp_path: Path) -> None:
    """Each ruling shows under the match it shapes, and only there: an excluded game of round 2's
    Alphas v Gammas (TEAM-FMT-3; the TD's reason, a formula, neutralised), Bob's disqualification
    from round 2 (TEAM-DQ-1) under Betas v Deltas; round 1's matches carry neither."""
    dest = copy_skeleton(tmp_path)
    with_overrides(
        dest, OVR + "swiss,2,R2ag1g04,exclude_game,R2ag1g04,=wrong game\nswiss,2,BOB,disqualify,,left the tournament\n"
    )
    cfg, _ = run_skeleton(dest)
    post = (cfg.paths.exports / "round_2.md").read_text(encoding="utf-8")
    ag, bd = post.split("### Alphas")[1].split("### Betas")
    assert (
        "- TD ruling: game [R2ag1g04](https://lichess.org/R2ag1g04) does not count: '=wrong game (overrides.csv line 2)\n"
        in ag
    )
    assert "disqualified" not in ag
    assert "- TD ruling: Bob disqualified from swiss round 2: left the tournament (overrides.csv line 3)\n" in bd
    assert "TD ruling" not in (cfg.paths.exports / "round_1.md").read_text(encoding="utf-8").split("---")[0]


# --------------------------------------------------------------------------- display names


def individual_event(tmp_path: Path) -> Path:
    """The skeleton's players as an individual event (ACWC preset, the skeleton's parts): the TD
    types ALICE, bob, amir, BEA; Lichess spells them Alice, Bob, Amir, Bea."""
    folder = tmp_path / "names"
    folder.mkdir()
    (folder / "lichess").symlink_to(SKELETON / "lichess")
    (folder / "tournament.toml").write_text(
        'preset = "acwc-2021"\n[tournament]\nid = "names"\nname = "Names Open"\n'
        '[lichess]\nreplay_data = "lichess"\nhistory_since = "2026-01-01T00:00:00Z"\n'
        '[paths]\nplayers = "players.csv"\npairings = "pairings.csv"\ndatabase = "out/names.duckdb"\nexports = "out/ex"\n'
        '[stages.qualification]\nrounds = 1\nfirst_round_start = "2026-03-03T00:00:00Z"\nparts = [\n'
        '  { time_control = "0+2", games = 2, win = 6, draw = 3 },\n'
        '  { time_control = "2+5", games = 1, win = 12, draw = 6 },\n'
        '  { time_control = "1+2", games = 1, win = 8, draw = 4 },\n]\n',
        encoding="utf-8",
    )
    (folder / "players.csv").write_text("player\nALICE\nbob\namir\nBEA\n", encoding="utf-8")
    (folder / "pairings.csv").write_text(
        "stage,round,a,b\nqualification,1,alice,BOB\nqualification,1,AMIR,bea\n", encoding="utf-8"
    )
    return folder


def views(db: Path) -> dict[str, list[tuple]]:
    con = gateway.connect(db, read_only=True)
    try:
        return {
            "team_matches": con.sql(
                "SELECT team_a, team_b, winner, team_a_id, team_b_id, winner_id FROM team_matches ORDER BY team_a_id"
            ).fetchall(),
            "standings": con.sql(
                "SELECT rank, entrant, entrant_id FROM standings ORDER BY rank, entrant_id"
            ).fetchall(),
            "board_results": con.sql(
                "SELECT team_a, player_a, player_b, player_a_id, player_b_id FROM board_results "
                "WHERE part = 'total' ORDER BY team_a_id"
            ).fetchall(),
            "match_games": con.sql(
                "SELECT DISTINCT entrant_a, player_a, player_b, entrant_a_id, player_b_id FROM match_games "
                "ORDER BY entrant_a_id"
            ).fetchall(),
        }
    finally:
        con.close()


def test_individual_event_shows_display_names_the_td_spelling_until_lichess_spells_them(tmp_path: Path) -> None:
    """Display names (ACWC-Q-2 match points 2/1/0 here, the skeleton's parts): team_matches of an
    individual event, standings, board_results, match_games and the exports show names, never the
    lower-cased ids, which stay in the *_id columns. Before any profile is fetched the TD's spelling
    (players.csv: ALICE, bob, amir, BEA); once fetched, Lichess's (Alice, Bob, Amir, Bea).
    Round 1 by hand: Alice 16-16 Bob (a draw), Amir 29-3 Bea."""
    folder = individual_event(tmp_path)
    cfg = load_config(folder / "tournament.toml")
    inputs = context.read_inputs(cfg)
    score.score_stage(cfg, inputs, AFTER_ROUND_2)  # nothing fetched yet: every match pending, names as typed
    before = views(cfg.paths.database)
    assert before["team_matches"] == [
        ("ALICE", "bob", None, "alice", "bob", None),
        ("amir", "BEA", None, "amir", "bea", None),
    ]
    assert [e for _, e, _ in before["standings"]] == ["ALICE", "amir", "BEA", "bob"]

    cfg, _ = run_skeleton(folder)
    after = views(cfg.paths.database)
    assert after["team_matches"] == [
        ("Alice", "Bob", None, "alice", "bob", None),
        ("Amir", "Bea", "Amir", "amir", "bea", "amir"),
    ]
    assert after["standings"] == [(1, "Amir", "amir"), (2, "Alice", "alice"), (2, "Bob", "bob"), (4, "Bea", "bea")]
    assert after["board_results"] == [("Alice", "Alice", "Bob", "alice", "bob"), ("Amir", "Amir", "Bea", "amir", "bea")]
    assert after["match_games"] == [("Alice", "Alice", "Bob", "alice", "bob"), ("Amir", "Amir", "Bea", "amir", "bea")]

    standings = rows(cfg.paths.exports / "standings_qualification.csv")
    assert [(r["entrant"], r["entrant_id"]) for r in standings] == [
        ("Amir", "amir"),
        ("Alice", "alice"),
        ("Bob", "bob"),
        ("Bea", "bea"),
    ]
    results = rows(cfg.paths.exports / "results_qualification.csv")
    assert [(r["team_a"], r["player_a"], r["player_b"], r["player_a_id"], r["player_b_id"]) for r in results] == [
        ("Alice", "Alice", "Bob", "alice", "bob"),
        ("Amir", "Amir", "Bea", "amir", "bea"),
    ]
    post = (cfg.paths.exports / "round_1.md").read_text(encoding="utf-8")
    assert "### Alice 16 – 16 Bob: draw\n" in post and "### Amir 29 – 3 Bea: Amir wins\n" in post
    assert "| 1 | Amir | 2 | 29 | 3 | 26 | 0 |" in post
    assert not any(name in post for name in ("alice", "amir", "bea", "bob"))


def audited_individual_event(tmp_path: Path, pairings: str) -> Path:
    """individual_event with two qualification rounds, round 1 paired by `pairings`, ingested,
    scored, audited and exported as of AFTER_ROUND_2 (round 2 is left for the nightly proposal)."""
    folder = individual_event(tmp_path)
    toml = folder / "tournament.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("rounds = 1", "rounds = 2"), encoding="utf-8")
    (folder / "pairings.csv").write_text("stage,round,a,b\n" + pairings, encoding="utf-8")
    cfg, _ = run_skeleton(folder)
    audit.audit_stage(cfg, context.read_inputs(cfg), AFTER_ROUND_2)
    export.export_stage(cfg)
    return folder


def test_individual_event_rosters_evidence_and_proposals_show_display_names(tmp_path: Path) -> None:
    """In an individual event the entrant is the player: the roster views (players, audited_players,
    seeding, elig_game_counts) show it in `team` as the display name (Lichess's Alice, not the id
    alice nor the TD's ALICE), the id in team_id; the break evidence of ACWC-CONDUCT-1 (match_gaps,
    match_breaks) shows names with ids in *_id columns; and the nightly proposal of round 2
    (next_pairings.csv) names players as `antichess-td pair` does. Round 1 as in the test above:
    Alice 16-16 Bob, Amir 29-3 Bea; board Alice v Bob's first gap: 202 s (R1ab1g01 to R1ab1g02)."""
    folder = audited_individual_event(tmp_path, "qualification,1,alice,BOB\nqualification,1,AMIR,bea\n")
    cfg = load_config(folder / "tournament.toml")
    expected = [("alice", "Alice", "alice"), ("amir", "Amir", "amir"), ("bea", "Bea", "bea"), ("bob", "Bob", "bob")]
    con = gateway.connect(cfg.paths.database, read_only=True)
    try:
        for view in ("players", "audited_players", "seeding", "elig_game_counts"):
            assert con.sql(f"SELECT user_id, team, team_id FROM {view} ORDER BY user_id").fetchall() == expected, view
        gaps = con.sql(
            "SELECT entrant_a, entrant_b, player_a, player_b, entrant_a_id, entrant_b_id, player_a_id, player_b_id, "
            "prev_game_id, next_game_id, gap_s FROM match_gaps ORDER BY next_created_at LIMIT 1"
        ).fetchall()
        assert gaps == [("Alice", "Bob", "Alice", "Bob", "alice", "bob", "alice", "bob", "R1ab1g01", "R1ab1g02", 202.0)]
        breaks = con.sql(
            "SELECT who, who_team, opponent, who_id, who_team_id, opponent_id FROM match_breaks ORDER BY who_id"
        ).fetchall()
        assert breaks == [
            ("Alice", "Alice", "Bob", "alice", "alice", "bob"),
            ("Amir", "Amir", "Bea", "amir", "amir", "bea"),
            ("Bea", "Bea", "Amir", "bea", "bea", "amir"),
            ("Bob", "Bob", "Alice", "bob", "bob", "alice"),
        ]
        subjects = con.sql(
            "SELECT subject, detail FROM audit_findings WHERE rule_id = 'ACWC-CONDUCT-1' ORDER BY subject"
        ).fetchall()
    finally:
        con.close()
    assert [(s, d.split(":")[0]) for s, d in subjects] == [
        ("Alice", "qualification round 1 against Bob"),
        ("Amir", "qualification round 1 against Bea"),
        ("Bea", "qualification round 1 against Amir"),
        ("Bob", "qualification round 1 against Alice"),
    ]
    proposal = rows(cfg.paths.exports / "next_pairings.csv")
    assert [(r["stage"], r["round"], r["a"], r["b"]) for r in proposal] == [
        ("qualification", "2", "Bob", "Amir"),
        ("qualification", "2", "Bea", "Alice"),
    ]


def test_individual_event_unplayed_matches_show_display_names(tmp_path: Path) -> None:
    """ACWC-CONDUCT-1 (acwc_unplayed): Alice and Bea, Amir and Bob never played each other in round
    1's window, so both matches are unplayed once it and its margin have passed. unplayed_matches
    and the finding's subject show Lichess's spelling (Alice v Bea, not the TD's ALICE v BEA nor
    the ids), the ids in team_a_id / team_b_id."""
    folder = audited_individual_event(tmp_path, "qualification,1,alice,BEA\nqualification,1,AMIR,bob\n")
    cfg = load_config(folder / "tournament.toml")
    con = gateway.connect(cfg.paths.database, read_only=True)
    try:
        unplayed = con.sql(
            "SELECT team_a, team_b, name_a, name_b, boards, team_a_id, team_b_id FROM unplayed_matches ORDER BY team_a_id"
        ).fetchall()
    finally:
        con.close()
    assert unplayed == [
        ("Alice", "Bea", "Alice", "Bea", "board 1 (Alice v Bea)", "alice", "bea"),
        ("Amir", "Bob", "Amir", "Bob", "board 1 (Amir v Bob)", "amir", "bob"),
    ]
    findings = rows(cfg.paths.exports / "audit_findings.csv")
    assert sorted(r["subject"] for r in findings if r["audit"] == "acwc_unplayed") == ["Alice v Bea", "Amir v Bob"]


def test_individual_event_rulings_name_players_by_display_name(tmp_path: Path) -> None:
    """The ruling notes of board_results (and results_<stage>.csv) and team_matches name the
    player as shown, not by id: round 1 as above, Alice 16-16 Bob is a tie the TD decides by
    armageddon (ARM-1, typed `ALICE ... bob`), and Bea forfeits the 2+5 part of her board
    (TEAM-DQ-1's part forfeit, typed `bea`)."""
    folder = individual_event(tmp_path)
    toml = folder / "tournament.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8").replace(
            'exports = "out/ex"', 'exports = "out/ex"\noverrides = "overrides.csv"'
        ),
        encoding="utf-8",
    )
    (folder / "overrides.csv").write_text(
        OVR
        + "qualification,1,ALICE,armageddon,bob,Black won on draw odds\nqualification,1,bea,forfeit,2+5,left early\n",
        encoding="utf-8",
    )
    cfg, _ = run_skeleton(folder)
    con = gateway.connect(cfg.paths.database, read_only=True)
    try:
        matches = con.sql("SELECT team_a, winner, override FROM team_matches ORDER BY team_a_id").fetchall()
        boards = con.sql(
            "SELECT player_a, override FROM board_results WHERE part = 'total' ORDER BY player_a_id"
        ).fetchall()
    finally:
        con.close()
    assert matches == [("Alice", "Bob", "armageddon won by Bob: Black won on draw odds"), ("Amir", "Amir", "")]
    assert boards == [("Alice", ""), ("Amir", "forfeit 2+5 (Bea): left early")]
    results = rows(cfg.paths.exports / "results_qualification.csv")
    assert [(r["player_a"], r["override"]) for r in results] == [
        ("Alice", ""),
        ("Amir", "forfeit 2+5 (Bea): left early"),
    ]


# --------------------------------------------------------------------------- score and audit refresh the files


def test_score_and_audit_rewrite_every_export_they_change(tmp_path: Path) -> None:
    """`audit` writes the findings and the cap charts (TEAM-CAP-1..5: one per last-board player,
    board 2 here); then a TD ruling and `score` alone rewrite results, standings, round posts and
    the findings: Amir forfeits round 1's 1+2 part (Alphas 37-27 Betas, see above) and his whole
    round 2 board (0-2 games of 6, 0-12, 0-8: 0-32, so Alphas 18-46 Gammas). By hand, after round 2
    (all on 2 match points): Betas 65-55 (+10), Gammas 66-62 (+4), Deltas 62-58 (+4; fewer
    scored, TEAM-TB-1), Alphas 55-73 (-18). Two forfeits: TEAM-CONDUCT-3 asks for a disqualification."""
    dest = copy_skeleton(tmp_path)
    with_overrides(dest, OVR)
    cfg, _ = run_skeleton(dest)
    ex = cfg.paths.exports
    assert not (ex / "audit_findings.csv").exists() and not (ex / "charts").exists()

    audited = cli(dest, "audit")
    # standings, results, the two round posts, swiss.trf, the findings, four cap charts, placings.csv
    # and games.parquet
    assert f"exports: 12 files refreshed in {ex}" in audited.stdout.splitlines()
    assert sorted(p.name for p in (ex / "charts").iterdir()) == [
        "cap_amir.svg",
        "cap_bea.svg",
        "cap_dee.svg",
        "cap_gia.svg",
    ]
    assert "TEAM-CONDUCT-3" not in {r["rule_id"] for r in rows(ex / "audit_findings.csv")}

    (dest / "overrides.csv").write_text(
        OVR + "swiss,1,Amir,forfeit,1+2,arrived late\nswiss,2,Amir,forfeit,,no show\n", encoding="utf-8"
    )
    scored = cli(dest, "score")
    assert f"exports: 12 files refreshed in {ex}" in scored.stdout.splitlines()  # the same twelve
    table = rows(ex / "standings_swiss.csv")
    assert [(r["entrant"], r["points_scored"], r["points_conceded"], r["points_difference"]) for r in table] == [
        ("Betas", "65", "55", "10"),
        ("Gammas", "66", "62", "4"),
        ("Deltas", "62", "58", "4"),
        ("Alphas", "55", "73", "-18"),
    ]
    results = {(r["round"], r["board"], r["team_a"]): r for r in rows(ex / "results_swiss.csv")}
    amir_r2 = results["2", "2", "Alphas"]
    assert [amir_r2[c] for c in ("0+2 a", "0+2 b", "2+5 a", "2+5 b", "1+2 a", "1+2 b", "total a", "total b")] == [
        "0",
        "12",
        "0",
        "12",
        "0",
        "8",
        "0",
        "32",
    ]
    assert amir_r2["override"] == "forfeit (Amir): no show"  # the player as shown, not the id
    assert results["1", "2", "Alphas"]["override"] == "forfeit 1+2 (Amir): arrived late"
    assert (
        "### Alphas 18 – 46 Gammas: Gammas wins\n\n- TD ruling: Amir forfeits the board: no show (overrides.csv line 3)\n"
        in (ex / "round_2.md").read_text(encoding="utf-8")
    )
    assert (
        "### Alphas 37 – 27 Betas: Alphas wins\n\n- TD ruling: Amir forfeits the 1+2 part: arrived late (overrides.csv line 2)\n"
        in (ex / "round_1.md").read_text(encoding="utf-8")
    )
    conduct = [
        (r["severity"], r["subject"], r["team"])
        for r in rows(ex / "audit_findings.csv")
        if r["rule_id"] == "TEAM-CONDUCT-3"
    ]
    assert conduct == [("error", "Amir", "Alphas")]


def test_export_writes_the_findings_an_audit_just_read_else_reads_them(tmp_path: Path) -> None:
    """nightly and `audit` hand the audit stage's findings to the export (the audits are not
    evaluated twice); given none, the export reads them. Both ways give the same file, and the
    findings handed over are the ones written."""
    from pipeline.stages import audit, export

    cfg, _ = run_skeleton(copy_skeleton(tmp_path))
    report = audit.audit_stage(cfg, context.read_inputs(cfg), AFTER_ROUND_2)
    path = cfg.paths.exports / "audit_findings.csv"
    by_audit = path.read_bytes()
    assert len(report.findings) >= 2 and len(rows(path)) == len(report.findings)
    export.export_stage(cfg)
    assert path.read_bytes() == by_audit
    export.export_stage(cfg, report.findings[1:])
    assert [r["rule_id"] for r in rows(path)] == [f.rule_id for f in report.findings[1:]]
    export.export_stage(cfg, report.findings)
    assert path.read_bytes() == by_audit
