"""Unplayed matches end to end on the skeleton (tests/kits/skeleton_kit.py): a round whose window and
margin have passed with no game is `unplayed` — never a silent 0-0 draw (TEAM-SCORE-4's 0-0 draw
is a TD ruling) — gives no points and no match points, is no match played, raises an audit error
naming the rulings the TD can give, and the run says how many matches wait for one; the TD's
zero_draw ruling turns it into the 0-0 draw that counts as played.

The skeleton (2 boards, 64 a match; tests/test_end_to_end.py computes rounds 1-2 by hand) gets a
round 3, window [2026-03-17, 2026-03-24), margin 3 days, in which nobody plays.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import duckdb

from kits.skeleton_kit import copy_skeleton, run_skeleton
from pipeline.stages import audit, context, export, score

IN_MARGIN = dt.datetime(2026, 3, 25, tzinfo=dt.UTC)  # the window has closed, the margin not yet
AFTER_MARGIN = dt.datetime(2026, 3, 28, tzinfo=dt.UTC)  # 2026-03-24 + 3 days has passed
ROUND_3 = "swiss,3,Alphas,Deltas\nswiss,3,Betas,Gammas\n"


def three_rounds(tmp_path: Path, overrides: str = "") -> Path:
    dest = copy_skeleton(tmp_path)
    toml = (dest / "tournament.toml").read_text(encoding="utf-8").replace("rounds = 2", "rounds = 3")
    if overrides:
        toml = toml.replace('exports = "out/exports"', 'exports = "out/exports"\noverrides = "overrides.csv"')
        (dest / "overrides.csv").write_text("stage,round,subject,action,value,reason\n" + overrides, encoding="utf-8")
    (dest / "tournament.toml").write_text(toml, encoding="utf-8")
    with (dest / "pairings.csv").open("a", encoding="utf-8") as f:
        f.write(ROUND_3)
    return dest


def q(cfg, sql: str) -> list[tuple]:
    con = duckdb.connect(str(cfg.paths.database), read_only=True)
    try:
        return con.sql(sql).fetchall()
    finally:
        con.close()


def test_team_score_4_a_round_nobody_played_is_unplayed_not_a_draw(tmp_path: Path) -> None:
    """Within the margin round 3 is pending; after it both matches are unplayed: 0-0, no winner, boards
    is_unplayed. Standings after round 3 are those after round 2 (rounds 1-2 by hand: Deltas 4 MP,
    Alphas 2, Gammas 2, Betas 0), with 2 matches played each, not 3; before this, both matches were
    draws giving every team one more match point."""
    folder = three_rounds(tmp_path)
    cfg, _ = run_skeleton(folder, IN_MARGIN)
    assert q(cfg, "SELECT outcome FROM team_matches WHERE round = 3") == [("pending",), ("pending",)]
    inputs = context.read_inputs(cfg)
    report = score.score_stage(cfg, inputs, AFTER_MARGIN)
    assert q(
        cfg, "SELECT team_a, outcome, winner, a_points, b_points FROM team_matches WHERE round = 3 ORDER BY team_a"
    ) == [("Alphas", "unplayed", None, 0, 0), ("Betas", "unplayed", None, 0, 0)]
    assert q(cfg, "SELECT count(*), bool_and(is_unplayed) FROM board_results WHERE round = 3") == [(2 * 2 * 4, True)]
    after_2 = q(
        cfg, "SELECT entrant, match_points, matches_played FROM standings WHERE after_round = 2 ORDER BY entrant"
    )
    after_3 = q(
        cfg, "SELECT entrant, match_points, matches_played FROM standings WHERE after_round = 3 ORDER BY entrant"
    )
    assert after_3 == after_2
    assert [r[2] for r in after_3] == [2, 2, 2, 2]
    assert q(
        cfg, "SELECT stage, round, name_a, name_b, outcome, unplayed_boards FROM unplayed_matches ORDER BY name_a"
    ) == [("swiss", 3, "Alphas", "Deltas", "unplayed", 2), ("swiss", 3, "Betas", "Gammas", "unplayed", 2)]
    assert report.unplayed_matches == 2
    assert report.notes == [
        "2 matches wait for a TD ruling: a board with no game and no ruling once its window and margin had passed is "
        "unplayed, not a 0-0 draw (the unplayed_matches view, audit errors TEAM-SCORE-4 / ACWC-CONDUCT-1): forfeit, "
        "zero_draw or a new window"
    ]
    export.export_stage(cfg)
    post = (cfg.paths.exports / "round_3.md").read_text(encoding="utf-8")
    assert [line for line in post.splitlines() if "Alphas" in line and "Deltas" in line and "unplayed" in line]
    # no match of the round reads as a draw (the legend explains what a draw scores; no heading is one)
    assert "None wins" not in post and not [
        line for line in post.splitlines() if line.startswith("###") and "draw" in line
    ]
    audited = audit.audit_stage(cfg, inputs, AFTER_MARGIN)
    found = [(f.rule_id, f.severity, f.subject) for f in audited.findings if f.audit == "team_score_unplayed"]
    assert found == [("TEAM-SCORE-4", "error", "Alphas v Deltas"), ("TEAM-SCORE-4", "error", "Betas v Gammas")]


def test_the_score_command_says_how_many_matches_wait_for_a_ruling(tmp_path: Path) -> None:
    """The CLI's score run prints the count as a note line, before its closing line."""
    folder = three_rounds(tmp_path)
    run_skeleton(folder, IN_MARGIN)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pipeline",
            "score",
            "--config",
            str(folder / "tournament.toml"),
            "--now",
            "2026-03-28T00:00:00Z",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert (
        "note: 2 matches wait for a TD ruling: a board with no game and no ruling once its window and margin had "
        "passed is unplayed, not a 0-0 draw (the unplayed_matches view, audit errors TEAM-SCORE-4 / ACWC-CONDUCT-1): "
        "forfeit, zero_draw or a new window"
    ) in lines


def test_team_score_4_the_td_ruling_makes_the_0_0_draw(tmp_path: Path) -> None:
    """TEAM-SCORE-4: with zero_draw rulings on both boards of Alphas v Deltas it is a 0-0 draw counted
    as played (1 MP each, a third match played); Betas v Gammas still waits."""
    folder = three_rounds(tmp_path, "swiss,3,ALICE,zero_draw,,both ill\nswiss,3,Amir,zero_draw,,both ill\n")
    cfg, _ = run_skeleton(folder, AFTER_MARGIN)
    assert q(cfg, "SELECT team_a, outcome FROM team_matches WHERE round = 3 ORDER BY team_a") == [
        ("Alphas", "draw"),
        ("Betas", "unplayed"),
    ]
    got = dict(q(cfg, "SELECT entrant, matches_played FROM standings WHERE after_round = 3"))
    assert got == {"Alphas": 3, "Deltas": 3, "Betas": 2, "Gammas": 2}
