"""The SQL files under ``sql/``, by kind and by name: ``schema/`` one CREATE per table in its final
form, ``migrations/`` the upgrades of a database written by an earlier release, ``views/`` the
contract views (one ``CREATE OR REPLACE VIEW <file name>`` each), ``queries/`` what the pipeline
reads, ``audits/`` one SELECT of offending rows per audit. Also :data:`WRITABLE`, the closed set of
tables the pipeline writes (a table name is never taken from input), and :func:`sql_fingerprint`,
the digest that says whether a database is up to date with these files.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from pipeline.resources import SQL_DIR

WRITABLE = frozenset(
    {
        "raw_users",
        "raw_rating_histories",
        "raw_games",
        "rejected_records",
        "refetch_games",
        "ingest_cursors",
        "lichess_users",
        "lichess_rating_points",
        "lichess_games",
        "td_members",
        "td_pairings",
        "td_byes",
        "scored_match_games",
        "scored_board_results",
        "scored_team_matches",
        "scored_standings",
        "game_verdicts",
        "game_flags",
        "td_overrides",
        "rating_estimates",
        "rating_estimate_tracks",
        "rating_estimate_cursor",
        "scored_rounds",
        "scored_placings",
        "pipeline_runs",
        "attention_items",
        "audit_params",
        "audit_strongest_players",
        "audit_allowed_swaps",
        "audit_directors",
        "audit_stages",
        "audit_captains",
        "schema_migrations",
        "sent_messages",
        "league_profiles",
        "league_histories",
        "league_game_lines",
        "league_streams",
    }
)


@cache
def sql(name: str) -> str:
    """The text of ``sql/<name>.sql`` (e.g. ``queries/candidate_games``)."""
    path = SQL_DIR / f"{name}.sql"
    return path.read_text(encoding="utf-8")


def schema_files() -> list[Path]:
    """The CREATE of every table, in the order they run (file order)."""
    return sorted((SQL_DIR / "schema").glob("*.sql"))


def league_schema_files() -> list[Path]:
    """The CREATE of every table of a league's shared Lichess store (sql/league), in file order."""
    return sorted((SQL_DIR / "league").glob("*.sql"))


def migration_files() -> list[Path]:
    """The upgrades of a database written by an earlier release, in the order they run: each
    ``sql/migrations/<nnn>_<what>.sql`` is one statement."""
    return sorted((SQL_DIR / "migrations").glob("*.sql"))


def view_files() -> list[Path]:
    """The contract views, in name order: ``sql/views/<name>.sql`` creates view ``<name>``."""
    return sorted((SQL_DIR / "views").glob("*.sql"))


def audit_files() -> list[Path]:
    """The audits, in file-name order: each ``sql/audits/<name>.sql`` is one SELECT of offending rows."""
    return sorted((SQL_DIR / "audits").glob("*.sql"))


def audit_sql(path: Path) -> str:
    """An audit file's SELECT, as a TD would paste it into the duckdb CLI (no trailing semicolon)."""
    return path.read_text(encoding="utf-8").strip().rstrip(";").rstrip()


@cache
def sql_fingerprint() -> str:
    """A digest of every SQL file a migration runs (schema, migrations, views, audits), by name and
    text: it changes when any of them does."""
    digest = hashlib.sha256()
    for folder in ("schema", "migrations", "views", "audits"):
        for path in sorted((SQL_DIR / folder).glob("*.sql")):
            digest.update(f"{folder}/{path.name}\0{path.read_text(encoding='utf-8')}\0".encode())
    return digest.hexdigest()
