"""The ingest: Lichess (through the adapter) → raw tables → typed tables, incrementally and resumably.

The request plan for N registered players (docs/ingestion.md):

* profiles: ``POST /api/users`` in chunks of 300 — ``ceil(N/300)`` requests;
* rating history: one request per player whose profile's antichess (games, rating) changed since
  the history was last stored (a new rated game or a rating refund changes one of them);
* games: one ``GET /api/games/user/{id}?since=<cursor>&sort=dateAsc&ongoing=true&pgnInJson=true``
  per player whose profile's rated antichess game count changed since the last complete stream;
  no perfType/rated filters (search-index bugs) — variants are filtered here, ids deduplicated.
* casual games cannot be seen in the profile: for each board of a round window still open since
  the last sync where *both* players were skipped, one ``vs`` request looks for them.

:func:`ingest` runs the plan: the profiles, the games a backfill queued
(pipeline/lichess/refetch_queue.py), the histories (pipeline/lichess/profiles_and_histories.py),
the game streams (pipeline/lichess/game_streams.py) and the casual-game searches
(pipeline/lichess/watched_boards.py), all around one :class:`~pipeline.lichess.ingest_run.IngestRun`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from collections.abc import Iterable

import berserk
import duckdb

from pipeline.lichess.client import UserRow, fetch_users, stats_of
from pipeline.lichess.game_streams import stream_games
from pipeline.lichess.ingest_report import IngestReport, PlayerReport
from pipeline.lichess.ingest_run import (
    Ahead,
    AheadRun,
    IngestRun,
    MatchWindows,
    Progress,
    Scope,
    WatchedBoard,
    count_requests,
    read_cursors,
)
from pipeline.lichess.profiles_and_histories import load_users, sync_histories
from pipeline.lichess.refetch_queue import refetch_queued
from pipeline.lichess.verifier import Verifier
from pipeline.lichess.watched_boards import sync_watched_boards
from pipeline.store.writer import BackgroundWriter

log = logging.getLogger(__name__)


def ingest(
    con: duckdb.DuckDBPyConnection,
    client: berserk.Client,
    player_ids: Iterable[str],
    since: dt.datetime | None,
    now: dt.datetime,
    watch: Iterable[WatchedBoard] = (),
    concurrency: int = 1,
    progress: Progress | None = None,
    registered: Iterable[str] | None = None,
    windows: MatchWindows | None = None,
    ahead: Ahead | None = None,
    histories_fresh_since: dt.datetime | None = None,
) -> IngestReport:
    """Profiles, antichess rating histories and games of the registered players.

    ``registered`` is everyone registered when ``player_ids`` is one batch of them (games of other
    variants are kept only between two registered players); by default the players themselves.
    ``windows``: where match games may be (:class:`~pipeline.lichess.ingest_run.Scope`); those are
    verified as they arrive. ``ahead``: work to do beside the download once some players' games are
    stored (:class:`~pipeline.lichess.ingest_run.Ahead`). ``histories_fresh_since`` (a refresh run:
    the start of its UTC day): a history stored since then is not fetched again, though the profile
    moved (kept for the next night's run)."""
    stats = stats_of(client)
    start_stats = dict(stats.__dict__)
    ids = list(dict.fromkeys(p.lower() for p in player_ids))
    scope = Scope(frozenset(p.lower() for p in registered) if registered is not None else frozenset(ids), windows or {})
    run = IngestRun(con, client, scope, now, IngestReport(), progress=progress)
    known = {u.user_id: u for u in load_users(run, fetch_users(client, ids))}
    cursors = read_cursors(con)
    refetch_queued(run)
    _note_missing(run.report, ids, known)
    # from here every write is a unit on the background writer, while the next request downloads;
    # the writer's block ends first (its units wait on the verifier's worker), then the verifier's
    early = AheadRun(ahead, con) if ahead is not None else None
    try:
        with Verifier() as verifier, BackgroundWriter(con) as writer:
            busy = dataclasses.replace(run, writer=writer, verifier=verifier)
            streams = sync_histories(busy, ids, known, cursors, since, histories_fresh_since)
            if early is not None:
                first = early.ahead.players
                streams = sorted(streams, key=lambda s: s[0].user_id not in first)  # theirs first
                early.expect(s[0].user_id for s in streams)
                early.ready(writer)
            if progress is not None:
                progress.planned(len(streams))
            stream_games(busy, streams, concurrency, early)
            sync_watched_boards(busy, watch, cursors)
    finally:
        if early is not None:
            early.join()
    if progress is not None:
        for uid in ids:
            p = run.report.players.get(uid)
            if p is not None and p.games == "unchanged":
                progress.player_done(p)
    count_requests(run.report, stats, start_stats)
    log.info("ingest: %s", {k: v for k, v in run.report.summary().items() if k != "players"})
    return run.report


def _note_missing(report: IngestReport, ids: list[str], known: dict[str, UserRow]) -> None:
    """The players Lichess has no profile for: warned about, and reported as missing."""
    report.users_missing = [i for i in ids if i not in known]
    for uid in report.users_missing:
        report.warnings.append(f"player {uid!r} was not found on Lichess (misspelt, or the account does not exist)")
        report.players[uid] = PlayerReport(uid, history="missing", games="missing")
