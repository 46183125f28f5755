"""One ingest run: what it keeps and verifies (:class:`Scope`), the boards it searches for casual
games (:class:`WatchedBoard`), what it shows (:class:`Progress`), the work it does beside the
download (:class:`Ahead`), and :class:`IngestRun`, what every part of the run works with.

Every stored record carries the run's time as its ``fetched_at``; a record that cannot be typed is
kept as it arrived in ``rejected_records`` with the reason (:func:`rejected_record`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import berserk
import duckdb

from pipeline.lichess.client import FetchStats, GameRow
from pipeline.lichess.ingest_report import IngestReport, PlayerReport
from pipeline.lichess.verifier import Verifier
from pipeline.store import gateway
from pipeline.store.writer import BackgroundWriter, Unit, run_unit

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WatchedBoard:
    """A board whose two players may play casual games the profiles cannot reveal."""

    player_a: str
    player_b: str
    start: dt.datetime  # window start minus margin
    end: dt.datetime  # window end plus margin


MatchWindows = Mapping[frozenset[str], tuple[tuple[dt.datetime, dt.datetime], ...]]
"""For a pair of players who may meet in a match: the windows (start, end) their games may count in."""


@dataclass(frozen=True)
class Scope:
    """Which games a run keeps and which it verifies as they arrive.

    ``registered``: games of other variants are kept only between two of these players.
    ``windows``: for each pair of players who may meet in a match (the members of two paired
    entrants), the round windows of their pairings, margins included. A game between such a pair
    created inside one of its windows is a match-game candidate: its PGN is read against its JSON
    and replayed (``verify.verify_game``) as it streams in, and the verdict is stored in the same
    transaction as the game, so the score step finds nothing left to verify."""

    registered: frozenset[str]
    windows: MatchWindows = field(default_factory=dict)

    def may_be_match_game(self, row: GameRow) -> bool:
        if row.white_id is None or row.black_id is None:
            return False  # an anonymous side: no registered pair
        windows = self.windows.get(frozenset((row.white_id, row.black_id)), ())
        return any(start <= row.created_at < end for start, end in windows)


class Progress(Protocol):
    """What the console shows while ingesting (``pipeline.progress.IngestProgress``); called from
    the stream threads too."""

    def planned(self, streams: int) -> None:
        """``streams`` game streams will run."""

    def game(self, stream: str, done: float | None) -> None:
        """One more game line arrived in ``stream``, which has covered the share ``done`` of its time
        span (games arrive oldest first, from the cursor to now)."""

    def player_done(self, player: PlayerReport) -> None:
        """A player's games are in (streamed, or unchanged since the last run)."""


@dataclass(frozen=True)
class Ahead:
    """Work that needs only some players' games, done while the other players' games download:
    ``work(con)`` runs on a thread of its own (with a cursor of the ingest's connection) once every
    game of ``players`` is stored, and :func:`ingest` waits for it before it returns. The ingest
    streams those players first. The work is an advance on what a later stage does anyway (that
    stage checks that its inputs are unchanged, and otherwise does it again), so an error in it is
    logged and the ingest goes on."""

    players: frozenset[str]
    work: Callable[[duckdb.DuckDBPyConnection], Any]
    name: str = "work ahead"


class AheadRun:
    """One :class:`Ahead` during an ingest: started once its players' streams are stored."""

    def __init__(self, ahead: Ahead, con: duckdb.DuckDBPyConnection) -> None:
        self.ahead = ahead
        self._con = con
        self._waiting: set[str] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def expect(self, streamed: Iterable[str]) -> None:
        """The streams to run: of these, its players' are awaited before it starts."""
        self._waiting = set(self.ahead.players) & set(streamed)

    def _run(self, cursor: duckdb.DuckDBPyConnection) -> None:
        try:
            self.ahead.work(cursor)
        except Exception as e:  # the stage it works for does it again
            log.warning("%s failed (its stage does it again): %s: %s", self.ahead.name, type(e).__name__, e)
        finally:
            cursor.close()

    def start(self, con: duckdb.DuckDBPyConnection) -> None:
        """Start the work (once) on a cursor of `con`; a writer unit, so that it starts after the
        writes queued before it."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, args=(con.cursor(),), name="ingest-ahead")
            self._thread.start()

    def streamed(self, player: str, writer: BackgroundWriter | None) -> None:
        """`player`'s stream has ended (its writes are queued): start once none is awaited."""
        with self._lock:
            if player not in self._waiting:
                return
            self._waiting.discard(player)
            if self._waiting:
                return
        run_unit(writer, self._con, self.start)

    def ready(self, writer: BackgroundWriter | None) -> None:
        """No stream of its players is to come (none changed): start after the queued writes."""
        if not self._waiting:
            run_unit(writer, self._con, self.start)

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()


@dataclass(frozen=True)
class IngestRun:
    """What every part of one ingest works with: the database and the Lichess client, the scope,
    the run's time (``now``: every record's ``fetched_at``) and its report. Writes hold ``lock``
    (streams may run two at a time); with ``writer``, each unit of writes runs on its thread
    (pipeline/store/writer.py); with ``verifier``, the match-game candidates are replayed in its
    worker; ``progress`` is told of each game line and each player done."""

    con: duckdb.DuckDBPyConnection
    client: berserk.Client
    scope: Scope
    now: dt.datetime
    report: IngestReport
    lock: threading.Lock = field(default_factory=threading.Lock)
    progress: Progress | None = None
    writer: BackgroundWriter | None = None
    verifier: Verifier | None = None

    def write(self, unit: Unit) -> None:
        """`unit` on the writer when the run has one, else here and now on the run's connection."""
        run_unit(self.writer, self.con, unit)

    def on(self, con: duckdb.DuckDBPyConnection) -> IngestRun:
        """The same run on another connection (a stream's own cursor)."""
        return dataclasses.replace(self, con=con)


def read_cursors(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, str], dict[str, Any]]:
    """The stored cursors, by (player, endpoint)."""
    return {
        (r["user_id"], r["endpoint"]): r for r in gateway.query(con, "queries/ingest_cursors").iter_rows(named=True)
    }


COUNTED = ("requests", "retries", "rate_limited", "waited_429_s", "streams_resumed", "league_answered")
"""The client's counters a report takes over: what the run added to them."""


def count_requests(report: IngestReport, stats: FetchStats, before: dict[str, Any]) -> None:
    """Set `report`'s request counters to what `stats` gained since `before` (its ``__dict__`` then)."""
    for key in COUNTED:
        setattr(report, key, getattr(stats, key) - before[key])


def rejected_record(source: str, text: str, key: str | None, reason: str, fetched_at: dt.datetime) -> dict[str, Any]:
    return {
        "source": source,
        "record_key": key or hashlib.md5(text.encode()).hexdigest(),
        "reason": reason,
        "payload": text,
        "fetched_at": fetched_at,
    }


def cursor_record(
    user_id: str,
    endpoint: str,
    since_ms: int | None,
    synced_games: int | None,
    synced_rating: int | None,
    at: dt.datetime,
) -> dict[str, Any]:
    return {
        "user_id": user_id,
        "endpoint": endpoint,
        "since_ms": since_ms,
        "synced_games": synced_games,
        "synced_rating": synced_rating,
        "updated_at": at,
    }
