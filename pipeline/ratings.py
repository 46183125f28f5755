"""The ``rating_estimates`` table: every registered player's per-game rating and estimated RD.

Reads the players' rated antichess games from the database, reconstructs each game's post-game
RD with :func:`pipeline.rd.estimate_rd` (TEAM-CAP-5; the method is in that module), and rewrites
the table whole in one transaction, so a rerun gives the same rows. The rating-cap audit reads
it. A player with no stored games gets no rows: the audit falls back to the daily rating history
(where no RD can be reconstructed) and says so.
"""

from __future__ import annotations

import duckdb

from pipeline import rd, store


def write_rating_estimates(con: duckdb.DuckDBPyConnection, player_ids: tuple[str, ...],
                           default_opponent_rd: float = rd.DEFAULT_OPPONENT_RD) -> int:
    """Replace ``rating_estimates`` with the estimates for `player_ids`; returns the row count."""
    ids = tuple(dict.fromkeys(p.lower() for p in player_ids))
    games = store.query(con, "queries/rated_antichess_games_of", [list(ids)])
    estimates = rd.estimate_rd(games, default_opponent_rd, players=ids)
    with store.transaction(con):
        return store.replace_where(con, "rating_estimates", {}, estimates)
