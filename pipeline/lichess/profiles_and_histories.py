"""Profiles and rating histories: the profiles of a run's players (``POST /api/users``), and the
antichess rating history of each player whose profile moved since the history was stored, stored
:data:`HISTORY_BATCH` histories to a transaction with their cursors; from the profiles, the game
streams the run needs (:func:`sync_histories`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Iterator
from typing import Any, NamedTuple

import duckdb

from pipeline.lichess.client import UserRow, fetch_rating_history, parse_rating_history, parse_user, stats_of, to_ms
from pipeline.lichess.ingest_report import PlayerReport
from pipeline.lichess.ingest_run import IngestRun, cursor_record, rejected_record
from pipeline.store import gateway


def load_users(run: IngestRun, payloads: list[dict[str, Any]]) -> list[UserRow]:
    """Store the profiles (raw and typed) in one transaction, here and now; returns the typed ones."""
    con, fetched_at, report = run.con, run.now, run.report
    raw, typed, rows, rejected = [], [], [], []
    for u in payloads:
        report.users_fetched += 1
        uid = u.get("id") if isinstance(u.get("id"), str) else None
        try:
            row = parse_user(u)
        except ValueError as e:
            rejected.append(rejected_record("user", json.dumps(u, sort_keys=True), uid, str(e), fetched_at))
            continue
        raw.append({"user_id": row.user_id, "payload": json.dumps(u), "fetched_at": fetched_at})
        typed.append({**row.__dict__, "fetched_at": fetched_at})
        rows.append(row)
    with gateway.transaction(con):
        gateway.upsert(con, "raw_users", raw)
        gateway.upsert(con, "lichess_users", typed)
        gateway.upsert(con, "rejected_records", rejected)
    report.users_loaded += len(typed)
    report.rejected += len(rejected)
    return rows


def load_rating_history(run: IngestRun, user: UserRow, perfs: list[dict[str, Any]], batch: list[HistoryRows]) -> str:
    """Add a history and its cursor to `batch` (stored with others in one transaction:
    :func:`_histories_stored`); a history that cannot be parsed is kept as a rejected record, on
    the run's writer when it has one. Returns the player's history status."""
    fetched_at, report = run.now, run.report
    uid = user.user_id
    try:
        points = parse_rating_history(uid, perfs)
    except ValueError as e:
        bad = [rejected_record("rating_history", json.dumps(perfs), uid, str(e), fetched_at)]

        def write_rejected(con: duckdb.DuckDBPyConnection) -> None:
            with gateway.transaction(con):
                gateway.upsert(con, "rejected_records", bad)

        run.write(write_rejected)
        report.rejected += 1
        return "rejected"
    if not points and user.antichess_games > 0:
        # Lichess may answer [] to history requests without a token: keep what we have, retry next run
        report.warnings.append(
            f"player {uid!r}: the rating history came back empty although the profile shows "
            f"{user.antichess_games} rated antichess games — is the Lichess token set?"
        )
        return "empty"
    rows = HistoryRows(
        {"user_id": uid, "payload": json.dumps(perfs), "fetched_at": fetched_at},
        points,
        cursor_record(uid, "rating_history", None, user.antichess_games, user.antichess_rating, fetched_at),
    )
    batch.append(rows)
    report.histories_loaded += 1
    report.rating_points_loaded += len(points)
    return "fetched"


class HistoryRows(NamedTuple):
    """One fetched rating history as stored: its raw record, its points and its cursor."""

    raw: dict[str, Any]
    points: list[Any]
    cursor: dict[str, Any]


HISTORY_BATCH = 50
"""Rating histories stored per transaction. A transaction's commit costs about 20 ms whatever it
holds: at 64 teams, 259 histories take 5.3 s in 259 transactions and 0.1 s in one
(docs/ingestion.md)."""


def _store_histories(run: IngestRun, batch: list[HistoryRows]) -> None:
    """Store the histories of `batch`, each with its cursor, in one transaction (on the run's writer
    when it has one)."""
    raw = [h.raw for h in batch]
    points = [p for h in batch for p in h.points]
    cursors = [h.cursor for h in batch]

    def write(con: duckdb.DuckDBPyConnection) -> None:
        with gateway.transaction(con):
            gateway.upsert(con, "raw_rating_histories", raw)
            gateway.upsert(con, "lichess_rating_points", points)
            gateway.upsert(con, "ingest_cursors", cursors)

    run.write(write)


Stream = tuple[UserRow, int | None, int | None]  # the player, since (ms), games synced before (None: never)


def sync_histories(
    run: IngestRun,
    ids: list[str],
    known: dict[str, UserRow],
    cursors: dict[tuple[str, str], dict[str, Any]],
    since: dt.datetime | None,
    fresh_since: dt.datetime | None = None,
) -> list[Stream]:
    """Each found player's rating history, fetched unless its cursor says the profile's antichess
    games and rating have not moved, or (`fresh_since`, a refresh run) it was stored since then,
    and stored HISTORY_BATCH at a time (:func:`_histories_stored`); returns the game streams to run
    (those whose game count moved)."""
    report = run.report
    with _histories_stored(run) as batch:
        stats = stats_of(run.client)
        streams: list[Stream] = []
        for uid in ids:
            user = known.get(uid)
            if user is None:
                continue
            player = report.players.setdefault(uid, PlayerReport(uid))
            if user.is_closed:
                report.warnings.append(
                    f"player {uid!r}: the Lichess account is closed; its games and history cannot be fetched"
                )
                player.history = player.games = "closed"
                continue
            hc = cursors.get((uid, "rating_history"))
            if hc is not None and (hc["synced_games"], hc["synced_rating"]) == (
                user.antichess_games,
                user.antichess_rating,
            ):
                player.history = "unchanged"
                report.histories_unchanged += 1
            elif hc is not None and fresh_since is not None and hc["updated_at"] >= fresh_since:
                player.history = "today's"  # its cursor keeps the old profile: the next night fetches it
                report.histories_kept += 1
            else:
                before = stats.requests
                perfs = fetch_rating_history(run.client, uid)
                player.history = load_rating_history(run, user, perfs, batch)
                player.requests += stats.requests - before
            gc = cursors.get((uid, "games"))
            if gc is not None and gc["synced_games"] == user.antichess_games:
                player.games = "unchanged"
                report.streams_unchanged += 1
            else:
                since_ms = (
                    gc["since_ms"]
                    if gc is not None and gc["since_ms"] is not None
                    else (to_ms(since) if since is not None else None)
                )
                streams.append((user, since_ms, gc["synced_games"] if gc is not None else None))
        return streams


@contextlib.contextmanager
def _histories_stored(run: IngestRun) -> Iterator[list[HistoryRows]]:
    """A batch the block adds fetched histories to, storing it each time it holds HISTORY_BATCH of
    them; what it holds when the block ends is stored then, also when the block raised (the
    histories fetched before a failed request are stored, and the error raised)."""
    batch = _HistoryBatch(run)
    try:
        yield batch
    except BaseException:
        with contextlib.suppress(Exception):  # the error that stopped the fetching matters more
            batch.flush()
        raise
    batch.flush()


class _HistoryBatch(list[HistoryRows]):
    """Fetched histories waiting for their transaction (:func:`_store_histories`)."""

    def __init__(self, run: IngestRun) -> None:
        super().__init__()
        self.run = run

    def append(self, rows: HistoryRows) -> None:
        super().append(rows)
        if len(self) >= HISTORY_BATCH:
            self.flush()

    def flush(self) -> None:
        if self:
            rows = self[:]
            self.clear()
            _store_histories(self.run, rows)
