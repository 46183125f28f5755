"""The DuckDB views have the names and columns TDs and scripts rely on (docs/data-model.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.resources import SQL_DIR
from pipeline.store import gateway

CONTRACT = {
    "players": "user_id, username, team, board, title, created_at, is_bot, is_closed, tos_violation, antichess_games, "
    "antichess_rating, antichess_rd, is_provisional",
    "games": "game_id, created_at, last_move_at, white_id, black_id, rated, variant, clock_initial_s, clock_increment_s, "
    "status, winner, white_rating, black_rating, white_rating_diff, black_rating_diff, url",
    "rating_points": "user_id, day, rating",
    "match_games": "stage, round, board, player_a, player_b, game_id, part, counted, reason",
    "board_results": "stage, round, board, team_a, team_b, player_a, player_b, part, games_played, a_points, b_points",
    "team_matches": "stage, round, team_a, team_b, a_points, b_points, max_points, winning_points, decided_by_game_id, winner",
    "standings": "stage, after_round, rank, entrant, match_points, points_scored, points_conceded, points_difference, "
    "median_buchholz",
    "audit_findings": "rule_id, severity, subject, team, detail, evidence_url",
    "placings": "stage, place, entrant, how",
    "seeding": "user_id, username, team, board, seeding_at, rating_at, rating_at_source, rating_at_game_id, rating_at_time, "
    "peak_since, peak_rating, peak_source, peak_game_id, peak_time, seeding_rating, seed_rating",
}


@pytest.mark.parametrize("view", sorted(CONTRACT))
def test_view_has_its_documented_columns_first(tmp_path: Path, view: str) -> None:
    con = gateway.connect(tmp_path / "t.duckdb")
    try:
        columns = [row[0] for row in con.sql(f"DESCRIBE {view}").fetchall()]
        kind = con.execute("SELECT table_type FROM information_schema.tables WHERE table_name = ?", [view]).fetchall()
    finally:
        con.close()
    want = [c.strip() for c in CONTRACT[view].split(",")]
    assert columns[: len(want)] == want
    assert kind == [("VIEW",)]


def test_every_sql_file_states_its_grain_or_invariant() -> None:
    """A header comment on every SQL file: its grain or invariant."""
    for path in sorted(SQL_DIR.rglob("*.sql")):
        first = path.read_text(encoding="utf-8").lstrip().splitlines()[0]
        assert first.startswith("-- "), path


def test_migrate_is_idempotent(tmp_path: Path) -> None:
    con = gateway.connect(tmp_path / "t.duckdb")
    con.close()
    con = gateway.connect(tmp_path / "t.duckdb")  # second run: CREATE IF NOT EXISTS / OR REPLACE
    con.close()
