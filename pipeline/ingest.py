"""Ingest: Lichess (through the adapter) → raw tables → typed tables, idempotently.

Raw first: what arrived is stored with ``fetched_at`` before it is typed; a record that cannot
be typed goes to ``rejected_records`` with the reason, in the same transaction. Per run,
fetched = loaded + rejected (+ games of other variants between a registered player and an
outsider, which are counted as ``skipped_other_variant`` and not kept: they can never be
tournament games).

Reruns are idempotent: every write is an upsert keyed by user id, (user id, day) or game id.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import duckdb

from pipeline import lichess, store

log = logging.getLogger(__name__)

GAME_BATCH = 500


@dataclass
class IngestReport:
    users_fetched: int = 0
    users_loaded: int = 0
    users_missing: list[str] = field(default_factory=list)
    histories_loaded: int = 0
    rating_points_loaded: int = 0
    games_fetched: int = 0
    games_loaded: int = 0
    games_skipped_other_variant: int = 0
    games_rejected: int = 0
    rejected: int = 0
    game_ids: set[str] = field(default_factory=set, repr=False)

    @property
    def games_distinct(self) -> int:
        """A game between two registered players arrives in both players' streams: count it once."""
        return len(self.game_ids)

    def summary(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "game_ids"}
        out["games_distinct"] = self.games_distinct
        return out
    warnings: list[str] = field(default_factory=list)


def _reject(source: str, payload: dict[str, Any] | list[Any], key: str | None, reason: str, fetched_at: dt.datetime) -> dict[str, Any]:
    text = json.dumps(payload, sort_keys=True, default=str)
    return {
        "source": source,
        "record_key": key or hashlib.md5(text.encode()).hexdigest(),
        "reason": reason,
        "payload": text,
        "fetched_at": fetched_at,
    }


def load_users(con: duckdb.DuckDBPyConnection, payloads: list[dict[str, Any]], fetched_at: dt.datetime,
               report: IngestReport) -> list[lichess.UserRow]:
    raw, typed, rows, rejected = [], [], [], []
    for u in payloads:
        report.users_fetched += 1
        uid = u.get("id") if isinstance(u.get("id"), str) else None
        try:
            row = lichess.parse_user(u)
        except ValueError as e:
            rejected.append(_reject("user", u, uid, str(e), fetched_at))
            continue
        raw.append({"user_id": row.user_id, "payload": json.dumps(u), "fetched_at": fetched_at})
        typed.append({**row.__dict__, "fetched_at": fetched_at})
        rows.append(row)
    with store.transaction(con):
        store.upsert(con, "raw_users", raw)
        store.upsert(con, "lichess_users", typed)
        store.upsert(con, "rejected_records", rejected)
    report.users_loaded += len(typed)
    report.rejected += len(rejected)
    return rows


def load_rating_history(con: duckdb.DuckDBPyConnection, user_id: str, perfs: list[dict[str, Any]],
                        fetched_at: dt.datetime, report: IngestReport) -> None:
    try:
        points = lichess.parse_rating_history(user_id, perfs)
    except ValueError as e:
        with store.transaction(con):
            store.upsert(con, "rejected_records", [_reject("rating_history", perfs, user_id, str(e), fetched_at)])
        report.rejected += 1
        return
    with store.transaction(con):
        store.upsert(con, "raw_rating_histories", [{"user_id": user_id, "payload": json.dumps(perfs), "fetched_at": fetched_at}])
        store.upsert(con, "lichess_rating_points", points)
    report.histories_loaded += 1
    report.rating_points_loaded += len(points)


def load_games(con: duckdb.DuckDBPyConnection, payloads: Iterable[dict[str, Any]], registered: frozenset[str],
               fetched_at: dt.datetime, report: IngestReport) -> None:
    """Store a stream of game payloads in batches, each batch (raw, typed, rejected) in one transaction."""
    batch: dict[str, tuple[dict[str, Any], lichess.GameRow]] = {}
    rejected: list[dict[str, Any]] = []

    def flush() -> None:
        with store.transaction(con):
            store.upsert(con, "raw_games", [
                {"game_id": gid, "payload": json.dumps(p), "fetched_at": fetched_at} for gid, (p, _) in batch.items()
            ])
            store.upsert(con, "lichess_games", [row for _, row in batch.values()])
            store.upsert(con, "rejected_records", rejected)
        batch.clear()
        rejected.clear()

    for g in payloads:
        report.games_fetched += 1
        gid = g.get("id") if isinstance(g.get("id"), str) else None
        try:
            row = lichess.parse_game(g)
        except ValueError as e:
            rejected.append(_reject("game", g, gid, str(e), fetched_at))
            report.games_rejected += 1
            report.rejected += 1
            continue
        if row.variant != "antichess" and not (row.white_id in registered and row.black_id in registered):
            report.games_skipped_other_variant += 1
            continue
        batch[row.game_id] = (g, row)  # a repeated id inside a batch: the last copy wins
        report.games_loaded += 1
        report.game_ids.add(row.game_id)
        if len(batch) >= GAME_BATCH:
            flush()
    flush()


def ingest(con: duckdb.DuckDBPyConnection, client: Any, player_ids: Iterable[str], since: dt.datetime,
           now: dt.datetime) -> IngestReport:
    """Profiles, antichess rating histories and games of the registered players."""
    report = IngestReport()
    ids = list(dict.fromkeys(p.lower() for p in player_ids))
    registered = frozenset(ids)
    payloads = lichess.fetch_users(client, ids)
    users = load_users(con, payloads, now, report)
    known = {u.user_id: u for u in users}
    report.users_missing = [i for i in ids if i not in known]
    for uid in report.users_missing:
        report.warnings.append(f"player {uid!r} was not found on Lichess (misspelt, or the account does not exist)")
    for uid in ids:
        user = known.get(uid)
        if user is None:
            continue
        if user.is_closed:
            report.warnings.append(f"player {uid!r}: the Lichess account is closed; its games and history cannot be fetched")
            continue
        load_rating_history(con, uid, lichess.fetch_rating_history(client, uid), now, report)
        load_games(con, lichess.fetch_games(client, uid, since=since), registered, now, report)
    log.info("ingest: %s", report)
    return report
