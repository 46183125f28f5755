"""The ``rating_estimates`` table: every registered player's per-game rating and estimated RD.

Reads the players' rated antichess games from the database, reconstructs each game's post-game
RD with :mod:`pipeline.domain.rd` (TEAM-CAP-5; the method is in that module), and writes the table.
The rating-cap and provisional audits read it. A player with no stored games gets no rows: the
audit falls back to the daily rating history (where no RD can be reconstructed) and says so.

Incremental: the estimator rates games one after another in time order, so its state after the
last estimated game (``rating_estimate_tracks``) and what it covered (``rating_estimate_cursor``:
the settings, the number of games, the last one, a digest of their rows) let the next night rate
only the games that came after. It resumes only when the settings are the same and the games up
to the cursor are exactly the games it rated (count and digest); anything else — a game that
arrived late and sorts earlier, a changed row, another player list, a new estimator — rates
everything again. Either way the table holds what one run over all the games gives
(tests/domain/test_rd.py compares the two).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import duckdb
import polars as pl

from pipeline.domain import rd
from pipeline.store import gateway


@dataclass
class EstimateStats:
    resumed: bool = False  # True when only the games after the cursor were rated
    games_rated: int = 0  # games given to the estimator this time


def _settings(ids: tuple[str, ...], default_opponent_rd: float) -> str:
    return json.dumps(
        {"players": sorted(ids), "default_opponent_rd": default_opponent_rd, "estimator": rd.ESTIMATOR_VERSION}
    )


def _digests(games: pl.DataFrame, n: int) -> tuple[str, str]:
    """Digests of the first `n` rows and of all rows (every input column, in rating order)."""
    cols = games.select(list(rd.INPUT_COLUMNS)).cast({c: pl.Utf8 for c in rd.INPUT_COLUMNS})
    h = hashlib.sha256()
    prefix = h.hexdigest()
    for i, row in enumerate(cols.iter_rows()):
        if i == n:
            prefix = h.hexdigest()
        h.update("\x1f".join("" if v is None else v for v in row).encode())
        h.update(b"\x1e")
    full = h.hexdigest()
    return (full if n >= games.height else prefix), full


def write_rating_estimates(
    con: duckdb.DuckDBPyConnection,
    player_ids: tuple[str, ...],
    default_opponent_rd: float = rd.DEFAULT_OPPONENT_RD,
    stats: EstimateStats | None = None,
) -> int:
    """Bring ``rating_estimates`` up to date for `player_ids`; returns its row count."""
    stats = stats if stats is not None else EstimateStats()
    ids = tuple(dict.fromkeys(p.lower() for p in player_ids))
    games = gateway.query(con, "queries/rated_antichess_games_of", [list(ids)]).sort(list(rd.ORDER))
    settings = _settings(ids, default_opponent_rd)
    cursor = gateway.query(con, "queries/rating_estimate_cursor").to_dicts()
    n = cursor[0]["games"] if cursor else 0
    prefix, full = _digests(games, n)
    start = 0
    if cursor and cursor[0]["settings"] == settings and 0 < n <= games.height:
        last = games.row(n - 1, named=True)
        if (last["last_move_at"], last["created_at"], last["game_id"]) == (
            cursor[0]["last_move_at"],
            cursor[0]["created_at"],
            cursor[0]["game_id"],
        ) and prefix == cursor[0]["digest"]:
            start = n
    state = gateway.query(con, "queries/rating_estimate_tracks").to_dicts() if start else []
    todo = games.slice(start)
    estimates, tracks = rd.resume_rd(todo, state, default_opponent_rd, players=ids)
    stats.resumed, stats.games_rated = start > 0, todo.height
    newest = games.row(games.height - 1, named=True) if games.height else None
    with gateway.transaction(con):
        if not start:
            gateway.replace_where(con, "rating_estimates", {}, [])
        if estimates.height:
            gateway.upsert(con, "rating_estimates", estimates)
        gateway.replace_where(con, "rating_estimate_tracks", {}, tracks)
        gateway.replace_where(
            con,
            "rating_estimate_cursor",
            {},
            [
                {
                    "id": 1,
                    "settings": settings,
                    "games": games.height,
                    "last_move_at": newest["last_move_at"] if newest else None,
                    "created_at": newest["created_at"] if newest else None,
                    "game_id": newest["game_id"] if newest else None,
                    "digest": full,
                }
            ],
        )
    return int(con.sql("SELECT count(*) AS n FROM rating_estimates").pl()["n"][0])
