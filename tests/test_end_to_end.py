"""End to end: replay server → berserk → DuckDB → link, score, rank → standings_swiss.csv.

Every expected number is computed by hand from tests/data/skeleton/make_dataset.py's table and
the rules: parts 0+2 ×2 (win 6, draw 3), 2+5 ×1 (12/6), 1+2 ×1 (8/4) (TEAM-SCORE-1 values, fewer
games), 2 boards → a match is worth 64 and 33 wins (TEAM-SCORE-3), match points 2/1/0
(TEAM-SCORE-5), ranked by match points, points difference, points scored (TEAM-TB-1).
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

# Board totals (a-side first), game by game from the table:
BOARDS = {
    # round 1 Alphas v Betas: alice v bob: 0+2 a, a (6+6); 2+5 b (12 to b); 1+2 draw (4+4) → 16-16
    (1, "Alphas", 1): (6 + 6 + 0 + 4, 0 + 0 + 12 + 4),
    # amir v bea: 0+2 a, draw (6+3 / 0+3); 2+5 a (12); 1+2 a (8) → 29-3
    (1, "Alphas", 2): (6 + 3 + 12 + 8, 0 + 3 + 0 + 0),
    # round 1 Gammas v Deltas: gus v dan: 0+2 b, b; 2+5 b; 1+2 a → 8-24
    (1, "Gammas", 1): (8, 6 + 6 + 12),
    # gia v dee: 0+2 a, b (the third 0+2 game is an extra game, TEAM-SCORE-1: first N count); 2+5 draw; 1+2 b → 12-20
    (1, "Gammas", 2): (6 + 6, 6 + 6 + 8),
    # round 2 Alphas v Gammas: alice v gus: 0+2 b, a; 2+5 a; 1+2 b → 18-14
    (2, "Alphas", 1): (6 + 12, 6 + 8),
    # amir v gia: 0+2 b, b; 2+5 b; 1+2 a → 8-24
    (2, "Alphas", 2): (8, 6 + 6 + 12),
    # round 2 Betas v Deltas: bob v dan: 0+2 a, a; 2+5 b; 1+2 a → 20-12
    (2, "Betas", 1): (6 + 6 + 8, 12),
    # bea v dee: 0+2 draw, draw; 2+5 a; the 1+2 game began after Monday 23:59:59 (TEAM-FMT-3) → 18-6
    (2, "Betas", 2): (3 + 3 + 12, 3 + 3),
}
PAIRINGS = {(1, "Alphas"): "Betas", (1, "Gammas"): "Deltas", (2, "Alphas"): "Gammas", (2, "Betas"): "Deltas"}


def hand_standings() -> list[dict[str, float | str]]:
    """TEAM-SCORE-3 sums, TEAM-SCORE-5 match points, TEAM-TB-1 order, all from BOARDS."""
    table: dict[str, dict[str, float]] = {
        t: {"mp": 0, "for": 0, "against": 0} for t in ("Alphas", "Betas", "Gammas", "Deltas")
    }
    for (rnd, a), b in PAIRINGS.items():
        pa = sum(BOARDS[rnd, a, board][0] for board in (1, 2))
        pb = sum(BOARDS[rnd, a, board][1] for board in (1, 2))
        table[a]["for"] += pa
        table[a]["against"] += pb
        table[b]["for"] += pb
        table[b]["against"] += pa
        table[a]["mp"] += 2 if pa > pb else 1 if pa == pb else 0
        table[b]["mp"] += 2 if pb > pa else 1 if pa == pb else 0
    rows = [
        {
            "entrant": t,
            "match_points": v["mp"],
            "points_scored": v["for"],
            "points_conceded": v["against"],
            "points_difference": v["for"] - v["against"],
        }
        for t, v in table.items()
    ]
    rows.sort(key=lambda r: (-r["match_points"], -r["points_difference"], -r["points_scored"]))
    return rows


def test_hand_computation_is_what_we_think() -> None:
    """Guard for the hand arithmetic itself: everyone on 2 match points, so points difference decides."""
    rows = hand_standings()
    assert [r["entrant"] for r in rows] == ["Alphas", "Deltas", "Betas", "Gammas"]
    assert [r["points_difference"] for r in rows] == [14, 4, -6, -12]
    assert {r["match_points"] for r in rows} == {2}


@pytest.mark.prefect
def test_nightly_cli_writes_standings_csv_with_hand_computed_numbers(skeleton: Path, prefect_api_url: str) -> None:
    env = {**os.environ, "PREFECT_API_URL": prefect_api_url}
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline", "nightly", "--config", str(skeleton)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "35 match games (31 counted), 4 matches" in proc.stdout

    with (skeleton.parent / "out" / "exports" / "standings_swiss.csv").open(newline="", encoding="utf-8") as f:
        got = list(csv.DictReader(f))
    want = hand_standings()
    assert [r["entrant"] for r in got] == [r["entrant"] for r in want]
    for g, w in zip(got, want, strict=False):
        assert g["stage"] == "swiss" and g["after_round"] == "2" and g["matches_played"] == "2"
        for col in ("match_points", "points_scored", "points_conceded", "points_difference"):
            assert float(g[col]) == w[col], (g["entrant"], col)
    assert [g["rank"] for g in got] == ["1", "2", "3", "4"]

    # results_swiss.csv: one row per board match with its parts (TEAM-SCORE-1), by hand from the table
    with (skeleton.parent / "out" / "exports" / "results_swiss.csv").open(newline="", encoding="utf-8") as f:
        results = {(r["round"], r["team_a"], r["board"]): r for r in csv.DictReader(f)}
    r = results["1", "Alphas", "1"]  # alice v bob: 0+2 a, a; 2+5 b; 1+2 draw
    assert [r[c] for c in ("0+2 a", "0+2 b", "2+5 a", "2+5 b", "1+2 a", "1+2 b", "total a", "total b")] == [
        "12",
        "0",
        "0",
        "12",
        "4",
        "4",
        "16",
        "16",
    ]
    assert r["game_links"].split() == [f"https://lichess.org/R1ab1g0{i}" for i in (1, 2, 3, 4)]
    post = (skeleton.parent / "out" / "exports" / "round_2.md").read_text(encoding="utf-8")
    assert "### Alphas 26 – 38 Gammas: Gammas wins\n" in post and "| 1 | Alphas | 2 | 71 | 57 | 14 | 0 |" in post

    con = duckdb.connect(str(skeleton.parent / "out" / "skeleton.duckdb"), read_only=True)
    try:
        boards = con.sql(
            "SELECT round, team_a, board, a_points, b_points FROM board_results WHERE part = 'total'"
        ).fetchall()
        assert {(r, a, b): (pa, pb) for r, a, b, pa, pb in boards} == {
            k: (float(x), float(y)) for k, (x, y) in BOARDS.items()
        }
        # TEAM-SCORE-3: the game that took a side to 33 of 64, by hand from the table's times
        decided = dict(con.sql("SELECT team_a || '/' || round, decided_by_game_id FROM team_matches").fetchall())
        assert decided == {
            "Alphas/1": "R1ab2g03",
            "Gammas/1": "R1gd2g04",
            "Alphas/2": "R2ag1g04",
            "Betas/2": "R2bd1g04",
        }
        reasons = dict(con.sql("SELECT game_id, reason FROM match_games WHERE NOT counted").fetchall())
        assert reasons == {
            "R1ab1x05": "wrong_time_control",
            "R1ab1s06": "not_antichess",
            "R1gd2x03": "extra_game",
            "R2bd2x04": "outside_window",
        }
    finally:
        con.close()


@pytest.mark.prefect
def test_nightly_flow_rerun_is_idempotent(skeleton: Path, prefect_api_url: str) -> None:
    from flows.nightly import nightly

    def snapshot() -> dict[str, list[tuple]]:
        con = duckdb.connect(str(skeleton.parent / "out" / "skeleton.duckdb"), read_only=True)
        try:
            return {
                t: con.sql(f"SELECT * EXCLUDE (fetched_at) FROM {t} ORDER BY ALL").fetchall()
                if t in ("raw_games", "lichess_users")
                else con.sql(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
                for t in (
                    "raw_games",
                    "lichess_users",
                    "lichess_games",
                    "lichess_rating_points",
                    "scored_match_games",
                    "scored_board_results",
                    "scored_team_matches",
                    "scored_standings",
                )
            }
        finally:
            con.close()

    first = nightly(config_path=str(skeleton))
    once = snapshot()
    second = nightly(config_path=str(skeleton))
    assert snapshot() == once
    assert len(once["lichess_games"]) == 37 and first["ingest"]["games_distinct"] == 37
    # the second night: profiles unchanged and every round window closed before the first night →
    # one profile request, nothing downloaded again (pipeline/lichess/request_plan.py)
    assert (second["ingest"]["requests"], second["ingest"]["games_fetched"]) == (1, 0)
    # each listed game is verified once, as it arrives (ingest's Scope.windows): all 35 the first
    # night, none left for the score step, none the second night
    verified = [(n["ingest"]["verified"], n["score"]["verified"], n["ingest"]["mismatches"]) for n in (first, second)]
    assert verified == [(35, 0, 0), (0, 0, 0)]


def test_bad_input_exits_2_before_anything_is_written(skeleton: Path) -> None:
    (skeleton.parent / "teams.csv").write_text("team,player,board\nAlphas,Alice,7\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline", "nightly", "--config", str(skeleton)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == "error: teams.csv line 2: board '7' for player 'Alice': expected 1-3"
    assert not (skeleton.parent / "out").exists()


@pytest.mark.prefect
def test_every_docs_query_runs_on_a_nightly_database(skeleton: Path, prefect_api_url: str) -> None:
    """The SQL how-tos of the README and docs/ (the TD guide's query recipes, the RD example) are
    real: each runs against the views a nightly run publishes."""
    import re

    from flows.nightly import nightly

    nightly(config_path=str(skeleton))
    root = Path(__file__).resolve().parent.parent
    docs = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    blocks = [b for doc in docs for b in re.findall(r"```sql\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)]
    # comments first (a note may hold a ';'), then one statement per ';'
    statements = [s.strip() for block in blocks for s in re.sub(r"--[^\n]*", "", block).split(";") if s.strip()]
    assert len(statements) >= 15  # one per contract view at least, and the recipes for audits and seeding
    con = duckdb.connect(str(skeleton.parent / "out" / "skeleton.duckdb"), read_only=True)
    try:
        for statement in statements:
            con.sql(statement).fetchall()
    finally:
        con.close()
