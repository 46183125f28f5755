"""The ``rating_estimates`` table: the per-game rating and estimated RD of the games the audits read
(a last-board player's every game, TEAM-CAP-5; another registered player's games before their
TEAM-ELIG-7 due time: ``queries/rd_tracked_players``, chosen by the audit stage).

Reads the players' rated antichess games from the database, reconstructs each game's post-game
RD with :mod:`pipeline.domain.rd` (TEAM-CAP-5; the method is in that module), and writes the table.
The rating-cap and provisional audits read it. A player with no stored games gets no rows: the
audit falls back to the daily rating history (where no RD can be reconstructed) and says so.

Incremental: the estimator rates games one after another in time order, so its state after the
last estimated game (``rating_estimate_tracks``) and what it covered (``rating_estimate_cursor``:
the settings, the number of games, the last one, a digest of their rows) let the next night rate
only the games that came after. The count and the digest are computed in the database, so a night
reads only the games after the cursor. It resumes only when the settings are the same and the games up
to the cursor are exactly the games it rated (count and digest); anything else — a game that
arrived late and sorts earlier, a changed row, another player list, a new estimator — rates
everything again. Either way the table holds what one run over all the games gives
(tests/domain/test_rd.py compares the two).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import duckdb

from pipeline.domain import rd
from pipeline.store import gateway


@dataclass
class EstimateStats:
    resumed: bool = False  # True when only the games after the cursor were rated
    games_rated: int = 0  # games given to the estimator this time


def _settings(ids: tuple[str, ...], until: Mapping[str, dt.datetime], default_opponent_rd: float) -> str:
    return json.dumps(
        {
            "players": sorted(ids),
            "until": {p: until[p].isoformat() for p in sorted(until)},
            "default_opponent_rd": default_opponent_rd,
            "estimator": rd.ESTIMATOR_VERSION,
        }
    )


Key = tuple[Any, Any, Any]  # (last_move_at, created_at, game_id): a game's place in rating order


def _digest(
    con: duckdb.DuckDBPyConnection, ids: tuple[str, ...], untils: list[dt.datetime | None], upto: Key | None
) -> tuple[int, str, int]:
    """How many of the players' rated antichess games that the estimator rates (each player's
    before their time in `untils`) sort at or before `upto` (all: None), a digest of their rows,
    and how many sort after it; computed in the database (queries/rated_antichess_digest)."""
    key = upto or (None, None, None)
    games, digest, later = gateway.query(con, "queries/rated_antichess_digest", [list(ids), *key, untils]).row(0)
    return int(games), str(digest), int(later)


def write_rating_estimates(
    con: duckdb.DuckDBPyConnection,
    player_ids: tuple[str, ...],
    default_opponent_rd: float = rd.DEFAULT_OPPONENT_RD,
    stats: EstimateStats | None = None,
    until: Mapping[str, dt.datetime] | None = None,
) -> int:
    """Bring ``rating_estimates`` up to date for `player_ids` (each named in `until` only for the
    games that end before its time); returns its row count."""
    stats = stats if stats is not None else EstimateStats()
    ids = tuple(dict.fromkeys(p.lower() for p in player_ids))
    until = {p.lower(): t for p, t in (until or {}).items()}
    settings = _settings(ids, until, default_opponent_rd)
    untils = [until.get(p) for p in ids]
    cursor = gateway.query(con, "queries/rating_estimate_cursor").to_dicts()
    after: Key | None = None
    if cursor and cursor[0]["settings"] == settings and cursor[0]["games"] > 0:
        c = cursor[0]
        key = (c["last_move_at"], c["created_at"], c["game_id"])
        games, digest, later = _digest(con, ids, untils, key)
        if (games, digest) == (c["games"], c["digest"]):  # the games it rated, unchanged
            if later == 0:  # and none after them: up to date (e.g. brought there ahead of the audit)
                stats.resumed, stats.games_rated = True, 0
                return _rows(con)
            after = key
    todo = gateway.query(con, "queries/rated_antichess_games_of", [list(ids), *(after or (None, None, None)), untils])
    state = gateway.query(con, "queries/rating_estimate_tracks").to_dicts() if after else []
    estimates, tracks = rd.resume_rd(todo, state, default_opponent_rd, players=ids, until=until)
    stats.resumed, stats.games_rated = after is not None, todo.height
    games, digest, _ = _digest(con, ids, untils, None)
    newest = todo.row(todo.height - 1, named=True) if todo.height else None
    last_move_at, created_at, game_id = (
        (newest["last_move_at"], newest["created_at"], newest["game_id"]) if newest else after or (None, None, None)
    )
    with gateway.transaction(con):
        if after is None:
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
                    "games": games,
                    "last_move_at": last_move_at,
                    "created_at": created_at,
                    "game_id": game_id,
                    "digest": digest,
                }
            ],
        )
    return _rows(con)


def _rows(con: duckdb.DuckDBPyConnection) -> int:
    return int(con.sql("SELECT count(*) AS n FROM rating_estimates").pl()["n"][0])
