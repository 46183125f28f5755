"""Watched boards: casual games cannot be seen in the profiles, so for each board of a round window
still open since the last sync where *both* players were skipped, one ``vs`` request looks for
games between them (:func:`sync_watched_boards`; :func:`search_watched` for a run ingested in
batches).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
from collections.abc import Iterable
from typing import Any

import berserk
import duckdb

from pipeline.lichess.client import stats_of, to_ms
from pipeline.lichess.game_streams import sync_games
from pipeline.lichess.ingest_report import IngestReport, PlayerReport
from pipeline.lichess.ingest_run import IngestRun, MatchWindows, Scope, WatchedBoard, count_requests, read_cursors


def sync_watched_boards(
    run: IngestRun, watch: Iterable[WatchedBoard], cursors: dict[tuple[str, str], dict[str, Any]]
) -> None:
    """Casual games between paired players do not change the profiles' rated-game counts: one
    ``vs`` request per board of an open window whose two players were both skipped."""
    search = dataclasses.replace(run, progress=None)  # the console counts the players' own streams
    stats = stats_of(run.client)
    for board in watch:
        a, b = run.report.players.get(board.player_a), run.report.players.get(board.player_b)
        if a is None or b is None or a.games != "unchanged" or b.games != "unchanged":
            continue  # a full stream of either player already saw every game between them
        gc = cursors.get((board.player_a, "games"))
        vc = cursors.get((board.player_a, f"vs:{board.player_b}"))
        synced_at = max((c["updated_at"] for c in (gc, vc) if c is not None), default=None)
        if board.start > run.now or (synced_at is not None and synced_at >= board.end):
            continue  # the window has not opened, or was already over when the pair was last searched
        # games older than either cursor were already seen by a full stream or an earlier search
        since_ms = max([to_ms(board.start)] + [c["since_ms"] for c in (gc, vc) if c and c["since_ms"] is not None])
        before = stats.requests
        sync_games(search, board.player_a, since_ms, a, None, final_count=None, vs=board.player_b)
        a.vs_requests += stats.requests - before


def search_watched(
    con: duckdb.DuckDBPyConnection,
    client: berserk.Client,
    games_status: dict[str, str],
    watch: Iterable[WatchedBoard],
    registered: Iterable[str],
    now: dt.datetime,
    windows: MatchWindows | None = None,
) -> IngestReport:
    """The ``vs`` searches of :func:`~pipeline.lichess.request_plan.ingest` for players ingested in
    batches: ``games_status`` is each player's games status from the batches (``unchanged`` when the
    profile showed nothing new). Read the cursors after the batches: a skipped player's cursors are
    as they were before them."""
    stats = stats_of(client)
    start_stats = dict(stats.__dict__)
    report = IngestReport()
    report.players = {uid: PlayerReport(uid, games=status) for uid, status in games_status.items()}
    scope = Scope(frozenset(p.lower() for p in registered), windows or {})
    run = IngestRun(con, client, scope, now, report, threading.Lock())
    sync_watched_boards(run, watch, read_cursors(con))
    count_requests(report, stats, start_stats)
    return report
