"""Ingest: Lichess (through the adapter) → raw tables → typed tables, incrementally and resumably.

The request plan for N registered players (docs/ingestion.md):

* profiles: ``POST /api/users`` in chunks of 300 — ``ceil(N/300)`` requests;
* rating history: one request per player whose profile's antichess (games, rating) changed since
  the history was last stored (a new rated game or a rating refund changes one of them);
* games: one ``GET /api/games/user/{id}?since=<cursor>&sort=dateAsc&ongoing=true&pgnInJson=true``
  per player whose profile's rated antichess game count changed since the last complete stream;
  no perfType/rated filters (search-index bugs) — variants are filtered here, ids deduplicated.
* casual games cannot be seen in the profile: for each board of a round window still open since
  the last sync where *both* players were skipped, one ``vs`` request looks for them.

Cursors (``ingest_cursors``): the games cursor is the next request's ``since`` (createdAt,
inclusive). Games arrive oldest first; a batch is committed only where createdAt changes, with
the cursor set to the first createdAt not yet committed, in the same transaction as the games.
A game still being played holds the cursor at its createdAt (the export lists only finished
games by default, so a cursor past it would miss the game for ever). Only games with a clock do:
a correspondence game can run for months and would make every night download them again; no
tournament part is played by correspondence, so such a game is stored only if it has finished
when its player's stream passes it. A stream cut mid-way is
resumed from the committed cursor; a run killed anywhere resumes the same way.

Raw first: each game line is stored exactly as it arrived, with ``fetched_at``; a line that is
not JSON or cannot be typed goes to ``rejected_records`` with the reason, in the same
transaction. Per player and in total: fetched = loaded + skipped (other variants against
outsiders) + ongoing + rejected, and loaded = new + already stored.

Games queued by a backfill (``refetch_games``: a dump record that did not read, or a game still being
played when the dump was cut, in a month the cursors have moved past) are fetched by id first
(:func:`refetch_queued`, ``POST /api/games/export/_ids``, 300 ids a request) and stored as the
streams store games; one still being played stays queued, one Lichess does not return leaves the
queue with its dump record kept in ``rejected_records`` and the reason.

A game whose PGN ``[White]``/``[Black]`` tags name other players than its JSON is stored as the
JSON says (it may be a real game with a real result) and flagged in ``game_flags`` with the
reason, in the same transaction (``verify.pgn_players_problem``: headers only, no replay); it is
counted as loaded and, among those, as flagged. The ``rejected`` view lists it for the TD.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import json
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import berserk
import duckdb

from pipeline.domain import verify
from pipeline.errors import LichessError
from pipeline.lichess import ndjson
from pipeline.lichess.client import (
    STREAM_ERRORS,
    GameRow,
    UserRow,
    fetch_games_by_id,
    fetch_rating_history,
    fetch_users,
    open_game_stream,
    parse_game,
    parse_rating_history,
    parse_user,
    stats_of,
    to_ms,
)
from pipeline.lichess.dump import QUEUE_NOTE
from pipeline.lichess.verifier import Verdicts, Verifier, in_process
from pipeline.store import gateway
from pipeline.store import writer as background
from pipeline.store.writer import BackgroundWriter

log = logging.getLogger(__name__)

GAME_BATCH = 500
UNFINISHED = frozenset({"created", "started"})


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
    """What the console shows while ingesting (``pipeline.cli.console.IngestProgress``); called from
    the stream threads too."""

    def planned(self, streams: int) -> None:
        """``streams`` game streams will run."""

    def game(self, stream: str, done: float | None) -> None:
        """One more game line arrived in ``stream``, which has covered the share ``done`` of its time
        span (games arrive oldest first, from the cursor to now)."""

    def player_done(self, player: PlayerReport) -> None:
        """A player's games are in (streamed, or unchanged since the last run)."""


@dataclass
class PlayerReport:
    user_id: str
    history: str = "-"  # fetched | unchanged | empty | closed | missing
    games: str = "-"  # streamed | unchanged | closed | missing
    requests: int = 0
    games_fetched: int = 0
    games_new: int = 0
    games_already_stored: int = 0
    games_rejected: int = 0
    games_skipped_other_variant: int = 0
    games_ongoing: int = 0
    games_flagged: int = 0  # of the loaded: the PGN names other players than the JSON (game_flags)
    vs_requests: int = 0

    @property
    def games_loaded(self) -> int:
        return self.games_new + self.games_already_stored


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


class _AheadRun:
    """One :class:`Ahead` during an ingest: started once its players' streams are stored."""

    def __init__(self, ahead: Ahead, con: duckdb.DuckDBPyConnection, streamed: Iterable[str]) -> None:
        self.ahead = ahead
        self._con = con
        self._waiting = set(ahead.players) & set(streamed)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

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
        background.run(writer, self._con, self.start)

    def ready(self, writer: BackgroundWriter | None) -> None:
        """No stream of its players is to come (none changed): start after the queued writes."""
        if not self._waiting:
            background.run(writer, self._con, self.start)

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()


@dataclass
class IngestReport:
    users_fetched: int = 0
    users_loaded: int = 0
    users_missing: list[str] = field(default_factory=list)
    histories_loaded: int = 0
    histories_unchanged: int = 0
    histories_kept: int = 0  # a refresh run's: moved, but stored earlier the same UTC day (not fetched)
    rating_points_loaded: int = 0
    streams_unchanged: int = 0
    rejected: int = 0
    requests: int = 0
    retries: int = 0
    rate_limited: int = 0
    waited_429_s: float = 0.0
    streams_resumed: int = 0
    refetched: int = 0  # games queued by a backfill (refetch_games), fetched by id and stored
    refetch_ongoing: int = 0  # of those asked for: still being played (they stay queued)
    refetch_missing: int = 0  # of those asked for: not returned by Lichess (kept in rejected_records)
    verified: int = 0  # match-game candidates verified as they arrived (Scope.windows)
    mismatches: int = 0  # of those: the PGN or the board disagrees with the JSON
    warnings: list[str] = field(default_factory=list)
    players: dict[str, PlayerReport] = field(default_factory=dict, repr=False)
    game_ids: set[str] = field(default_factory=set, repr=False)

    def _sum(self, name: str) -> int:
        return sum(getattr(p, name) for p in self.players.values())

    @property
    def games_fetched(self) -> int:
        return self._sum("games_fetched")

    @property
    def games_loaded(self) -> int:
        return self._sum("games_loaded")

    @property
    def games_new(self) -> int:
        return self._sum("games_new")

    @property
    def games_already_stored(self) -> int:
        return self._sum("games_already_stored")

    @property
    def games_rejected(self) -> int:
        return self._sum("games_rejected")

    @property
    def games_skipped_other_variant(self) -> int:
        return self._sum("games_skipped_other_variant")

    @property
    def games_ongoing(self) -> int:
        return self._sum("games_ongoing")

    @property
    def games_flagged(self) -> int:
        return self._sum("games_flagged")

    @property
    def games_distinct(self) -> int:
        """A game between two registered players arrives in both players' streams: count it once."""
        return len(self.game_ids)

    def summary(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("players", "game_ids")}
        for name in (
            "games_fetched",
            "games_loaded",
            "games_new",
            "games_already_stored",
            "games_rejected",
            "games_skipped_other_variant",
            "games_ongoing",
            "games_flagged",
            "games_distinct",
        ):
            out[name] = getattr(self, name)
        out["players"] = [p.__dict__ | {"games_loaded": p.games_loaded} for p in self.players.values()]
        return out


def _reject(source: str, text: str, key: str | None, reason: str, fetched_at: dt.datetime) -> dict[str, Any]:
    return {
        "source": source,
        "record_key": key or hashlib.md5(text.encode()).hexdigest(),
        "reason": reason,
        "payload": text,
        "fetched_at": fetched_at,
    }


def _cursor_row(
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


# --------------------------------------------------------------------------- profiles and histories


def load_users(
    con: duckdb.DuckDBPyConnection, payloads: list[dict[str, Any]], fetched_at: dt.datetime, report: IngestReport
) -> list[UserRow]:
    raw, typed, rows, rejected = [], [], [], []
    for u in payloads:
        report.users_fetched += 1
        uid = u.get("id") if isinstance(u.get("id"), str) else None
        try:
            row = parse_user(u)
        except ValueError as e:
            rejected.append(_reject("user", json.dumps(u, sort_keys=True), uid, str(e), fetched_at))
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


def load_rating_history(
    con: duckdb.DuckDBPyConnection,
    user: UserRow,
    perfs: list[dict[str, Any]],
    fetched_at: dt.datetime,
    report: IngestReport,
    batch: list[HistoryRows],
    writer: BackgroundWriter | None = None,
) -> str:
    """Add a history and its cursor to `batch` (stored with others in one transaction:
    :func:`_histories_stored`); a history that cannot be parsed is kept as a rejected record, on
    `writer` when given. Returns the player's history status."""
    uid = user.user_id
    try:
        points = parse_rating_history(uid, perfs)
    except ValueError as e:
        bad = [_reject("rating_history", json.dumps(perfs), uid, str(e), fetched_at)]

        def write_rejected(con: duckdb.DuckDBPyConnection) -> None:
            with gateway.transaction(con):
                gateway.upsert(con, "rejected_records", bad)

        background.run(writer, con, write_rejected)
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
        _cursor_row(uid, "rating_history", None, user.antichess_games, user.antichess_rating, fetched_at),
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
holds, which made the histories, not Lichess, the bound on a night's first ten seconds at 64
teams: 259 histories took 5.3 s in 259 transactions and 0.1 s in one (docs/ingestion.md)."""


def _store_histories(con: duckdb.DuckDBPyConnection, writer: BackgroundWriter | None, batch: list[HistoryRows]) -> None:
    """Store the histories of `batch`, each with its cursor, in one transaction (on `writer` when
    given)."""
    raw = [h.raw for h in batch]
    points = [p for h in batch for p in h.points]
    cursors = [h.cursor for h in batch]

    def write(con: duckdb.DuckDBPyConnection) -> None:
        with gateway.transaction(con):
            gateway.upsert(con, "raw_rating_histories", raw)
            gateway.upsert(con, "lichess_rating_points", points)
            gateway.upsert(con, "ingest_cursors", cursors)

    background.run(writer, con, write)


# --------------------------------------------------------------------------- game streams


class _GameSink:
    """Collects one stream's games and commits them at createdAt boundaries with the cursor."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        lock: threading.Lock,
        user_id: str,
        cursor_ms: int | None,
        scope: Scope,
        fetched_at: dt.datetime,
        player: PlayerReport,
        report: IngestReport,
        endpoint: str,
        synced_games: int | None,
        progress: Progress | None = None,
        writer: BackgroundWriter | None = None,
        verifier: Verifier | None = None,
    ) -> None:
        self.con = con
        self.writer = writer  # commits run there when given (pipeline/store/writer.py)
        self.verifier = verifier  # replays the match-game candidates in a worker when given (verifier.py)
        self.lock = lock
        self.user_id = user_id
        self.cursor_ms = cursor_ms  # committed: the next request's since
        self.scope = scope
        self.fetched_at = fetched_at
        self.player = player
        self.report = report
        self.endpoint = endpoint  # 'games', or 'vs:<opponent>' for a casual-game search
        self.synced_games = synced_games  # the last complete stream's profile count (kept until this one completes)
        self.progress = progress
        self.span_ms = (cursor_ms, to_ms(fetched_at))  # the stream's time span, for progress
        self.pending: list[tuple[str, GameRow]] = []
        self.flags: dict[str, str | None] = {}  # game id → why its PGN is suspect (the last copy's)
        self.candidates: set[str] = set()  # pending game ids that may be match games: verified at commit
        self.rejected: list[dict[str, Any]] = []
        self.last_created: int | None = None
        self.min_ongoing: int | None = None

    def _done(self, created: Any) -> float | None:
        if not isinstance(created, int):
            return None
        start, end = self.span_ms
        if start is None:  # no cursor: the stream starts at its first game
            start = created
            self.span_ms = (start, end)
        return min(max((created - start) / (end - start), 0.0), 1.0) if end > start else 1.0

    def _cap(self, ms: int) -> int:
        return ms if self.min_ongoing is None else min(ms, self.min_ongoing)

    def consume(self, lines: Iterator[str]) -> None:
        for line in lines:
            self.player.games_fetched += 1
            try:
                g = ndjson.loads(line)
            except json.JSONDecodeError as e:
                self._reject(line, None, f"not valid JSON ({e.msg} at column {e.colno})")
                continue
            if not isinstance(g, dict):
                self._reject(line, None, "expected a JSON object")
                continue
            created = g.get("createdAt")
            gid = g.get("id") if isinstance(g.get("id"), str) else None
            if self.progress is not None:
                self.progress.game(f"{self.user_id} {self.endpoint}", self._done(created))
            if g.get("status") in UNFINISHED:
                self.player.games_ongoing += 1
                if isinstance(created, int) and g.get("clock"):  # see the module docstring on correspondence
                    self.min_ongoing = created if self.min_ongoing is None else min(self.min_ongoing, created)
                continue
            if (
                isinstance(created, int)
                and self.last_created is not None
                and created > self.last_created
                and len(self.pending) + len(self.rejected) >= GAME_BATCH
            ):
                self.commit(self._cap(created), complete=False)
            if isinstance(created, int):
                self.last_created = created if self.last_created is None else max(self.last_created, created)
            try:
                row = parse_game(g)
            except ValueError as e:
                self._reject(line, gid, str(e))
                continue
            if row.variant != "antichess" and not (
                row.white_id in self.scope.registered and row.black_id in self.scope.registered
            ):
                # not a game any rule looks at, but nothing is dropped: kept as it arrived, with why
                self.player.games_skipped_other_variant += 1
                self.rejected.append(
                    _reject(
                        "game",
                        line,
                        row.game_id,
                        f"not antichess (variant {row.variant!r}) and not "
                        "between two registered players: kept here, not stored as a game",
                        self.fetched_at,
                    )
                )
                continue
            problem = verify.pgn_players_problem(row.pgn, row.white_name, row.black_name)
            if problem is not None:
                self.player.games_flagged += 1
                problem = f"the PGN names other players than the JSON ({problem}): stored as the JSON says, check it"
            self.flags[row.game_id] = problem
            if self.scope.may_be_match_game(row):
                self.candidates.add(row.game_id)
            self.pending.append((line, row))

    def _reject(self, line: str, gid: str | None, reason: str) -> None:
        self.player.games_rejected += 1
        self.report.rejected += 1
        self.rejected.append(_reject("game", line, gid, reason, self.fetched_at))

    def finish(self) -> None:
        """The stream ended normally: everything up to its last game is synced."""
        end = self.cursor_ms if self.last_created is None else self.last_created + 1
        if self.min_ongoing is not None:
            end = min(end, self.min_ongoing) if end is not None else self.min_ongoing
        self.commit(end, complete=True)

    def cut(self) -> None:
        """The stream broke: keep everything that arrived, and resume from the last createdAt seen
        (inclusive), since same-millisecond siblings of that game may not have arrived yet. The
        games at that millisecond come again and count as already stored."""
        self.commit(self.cursor_ms if self.last_created is None else self._cap(self.last_created), complete=False)

    def commit(self, cursor_ms: int | None, complete: bool) -> None:
        """Store the pending games, flags, rejects and match-game verdicts with the cursor in one
        transaction: here, or queued on the writer (the stream goes on meanwhile)."""
        batch = {row.game_id: (line, row) for line, row in self.pending}  # last copy of a repeated id wins
        rows = {gid: row.__dict__ for gid, (_, row) in batch.items() if gid in self.candidates}
        # the worker starts replaying them now, while the writer stores earlier units
        candidates = self.verifier.submit(rows) if self.verifier is not None else in_process(rows)
        flags = [
            {"game_id": gid, "reason": self.flags[gid], "flagged_at": self.fetched_at}
            for gid in batch
            if self.flags.get(gid) is not None
        ]
        rejected, arrived = self.rejected, len(self.pending)
        cursor = [_cursor_row(self.user_id, self.endpoint, cursor_ms, self.synced_games, None, self.fetched_at)]
        fetched_at, player, report, lock = self.fetched_at, self.player, self.report, self.lock

        def write(con: duckdb.DuckDBPyConnection) -> None:
            with lock:
                stored = set()
                if batch:
                    stored = set(gateway.query(con, "queries/stored_game_ids", [list(batch)])["game_id"].to_list())
                verdicts = _verify(con, candidates)
                with gateway.transaction(con):
                    _store_api_games(con, batch, flags, rejected, verdicts, fetched_at)
                    gateway.upsert(con, "ingest_cursors", cursor)
                report.verified += len(verdicts)
                report.mismatches += sum(v.disagrees for v in verdicts)
                new = len(set(batch) - stored)
                player.games_new += new
                player.games_already_stored += arrived - new

        background.run(self.writer, self.con, write)
        self.cursor_ms = cursor_ms
        self.report.game_ids.update(batch)
        self.pending = []
        self.flags = {}
        self.candidates = set()
        self.rejected = []
        self.last_created = None if complete else self.last_created


def _verify(con: duckdb.DuckDBPyConnection, candidates: Verdicts) -> list[verify.Verdict]:
    """The verdicts of the match-game candidates that have none stored yet (each game is verified
    once: a game between two registered players arrives in both their streams)."""
    if not candidates.game_ids:
        return []
    have = set(gateway.query(con, "queries/verified_game_ids", [candidates.game_ids])["game_id"].to_list())
    return candidates.result(skip=have)


def sync_games(
    con: duckdb.DuckDBPyConnection,
    lock: threading.Lock,
    client: berserk.Client,
    user_id: str,
    since_ms: int | None,
    scope: Scope,
    fetched_at: dt.datetime,
    player: PlayerReport,
    report: IngestReport,
    synced_games: int | None,
    final_count: int | None,
    vs: str | None = None,
    max_resumes: int = 10,
    sleep: Callable[[float], None] | None = None,
    progress: Progress | None = None,
    writer: BackgroundWriter | None = None,
    verifier: Verifier | None = None,
) -> None:
    """Stream a player's games from ``since_ms`` into the database, resuming after cuts (each
    commit on `writer` when given, while the stream goes on; the match-game candidates replayed by
    `verifier` when given, else here as each commit stores them)."""
    stats = stats_of(client)
    sink = _GameSink(
        con,
        lock,
        user_id,
        since_ms,
        scope,
        fetched_at,
        player,
        report,
        endpoint="games" if vs is None else f"vs:{vs}",
        synced_games=synced_games,
        progress=progress,
        writer=writer,
        verifier=verifier,
    )
    stalled = 0
    while True:
        before = stats.requests
        try:
            lines = open_game_stream(client, user_id, sink.cursor_ms, vs=vs)
            sink.consume(lines)
        except STREAM_ERRORS as e:
            player.requests += stats.requests - before
            progress_from = sink.cursor_ms
            sink.cut()
            stats.streams_resumed += 1
            stalled = stalled + 1 if sink.cursor_ms == progress_from else 0
            if stalled > max_resumes:
                raise LichessError(f"games of {user_id!r}: the stream broke {stalled} times without progress") from e
            log.info("stream of %s cut (%s); resuming from %s", user_id, type(e).__name__, sink.cursor_ms)
            continue
        player.requests += stats.requests - before
        break
    sink.synced_games = final_count
    sink.finish()


# --------------------------------------------------------------------------- the plan


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
    ``windows``: where match games may be (:class:`Scope`); those are verified as they arrive.
    ``ahead``: work to do beside the download once some players' games are stored (:class:`Ahead`).
    ``histories_fresh_since`` (a refresh run: the start of its UTC day): a history stored since
    then is not fetched again, though the profile moved (kept for the next night's run)."""
    stats = stats_of(client)
    start_stats = dict(stats.__dict__)
    report = IngestReport()
    ids = list(dict.fromkeys(p.lower() for p in player_ids))
    scope = Scope(frozenset(p.lower() for p in registered) if registered is not None else frozenset(ids), windows or {})
    lock = threading.Lock()

    users = load_users(con, fetch_users(client, ids), now, report)
    known = {u.user_id: u for u in users}
    cursors = {
        (r["user_id"], r["endpoint"]): r for r in gateway.query(con, "queries/ingest_cursors").iter_rows(named=True)
    }
    refetch_queued(con, client, scope, now, report)
    report.users_missing = [i for i in ids if i not in known]
    for uid in report.users_missing:
        report.warnings.append(f"player {uid!r} was not found on Lichess (misspelt, or the account does not exist)")
        report.players[uid] = PlayerReport(uid, history="missing", games="missing")
    # from here every write is a unit on the background writer, while the next request downloads;
    # the writer's block ends first (its units wait on the verifier's worker), then the verifier's
    early: _AheadRun | None = None
    try:
        with Verifier() as verifier, BackgroundWriter(con) as writer:
            streams = _sync_histories(
                con, client, ids, known, cursors, since, now, report, writer, histories_fresh_since
            )
            if ahead is not None:
                streams = sorted(streams, key=lambda s: s[0].user_id not in ahead.players)  # theirs first
                early = _AheadRun(ahead, con, (s[0].user_id for s in streams))
                early.ready(writer)
            if progress is not None:
                progress.planned(len(streams))
            _stream_games(
                con, lock, client, streams, scope, now, report, concurrency, progress, writer, verifier, early
            )
            _sync_watched_boards(con, lock, client, report, watch, scope, now, cursors, writer, verifier)
    finally:
        if early is not None:
            early.join()

    for uid in ids:
        p = report.players.get(uid)
        if p is not None and p.games == "unchanged" and progress is not None:
            progress.player_done(p)
    for key in ("requests", "retries", "rate_limited", "waited_429_s", "streams_resumed"):
        setattr(report, key, getattr(stats, key) - start_stats[key])
    log.info("ingest: %s", {k: v for k, v in report.summary().items() if k != "players"})
    return report


def refetch_queued(
    con: duckdb.DuckDBPyConnection, client: berserk.Client, scope: Scope, fetched_at: dt.datetime, report: IngestReport
) -> None:
    """Fetch the games a backfill queued (``refetch_games``) by id and store them as the streams do
    (raw line, typed row, flag, match-game verdict), removing them from the queue in the same
    transaction. A game Lichess shows as still being played stays queued; a line that cannot be
    typed goes to rejected_records (and leaves the queue: asking again gives the same line); an
    id Lichess does not return (a deleted game) leaves the queue, its dump record kept in
    rejected_records with why. A stream cut keeps what arrived and leaves the rest queued."""
    queue = {r["game_id"]: r for r in gateway.query(con, "queries/refetch_queue").iter_rows(named=True)}
    if not queue:
        return
    arrived: dict[str, tuple[str, GameRow]] = {}
    rejected: dict[str, dict[str, Any]] = {}
    ongoing: set[str] = set()
    cut = False
    try:
        for line in fetch_games_by_id(client, queue):
            try:
                g = ndjson.loads(line)
            except json.JSONDecodeError as e:
                bad = _reject("game", line, None, f"re-fetched by id: not valid JSON ({e.msg})", fetched_at)
                rejected[bad["record_key"]] = bad
                continue
            gid = g.get("id") if isinstance(g, dict) and isinstance(g.get("id"), str) else None
            if gid is None or gid not in queue:
                bad = _reject("game", line, None, f"re-fetched by id: game id {gid!r} was not asked for", fetched_at)
                rejected[bad["record_key"]] = bad
                continue
            if g.get("status") in UNFINISHED:
                ongoing.add(gid)
                continue
            try:
                arrived[gid] = (line, parse_game(g))
            except ValueError as e:
                rejected[gid] = _reject("game", line, gid, f"re-fetched by id: {e}", fetched_at)
    except STREAM_ERRORS as e:
        cut = True
        report.warnings.append(
            f"the fetch by id of {len(queue)} queued games broke ({type(e).__name__}): "
            f"{len(arrived)} stored, the rest stay queued for the next run"
        )
    missing = [] if cut else [gid for gid in queue if gid not in arrived and gid not in ongoing and gid not in rejected]
    for gid in missing:
        q = queue[gid]
        before = (q["reason"] or f"{q['dump_file']}: refused").removesuffix(": " + QUEUE_NOTE)
        rejected[gid] = _reject(
            "game",
            q["payload"] if q["payload"] is not None else json.dumps(q, default=str),
            gid,
            f"{before}; not returned by the API's export by id on {fetched_at:%Y-%m-%d} "
            "(deleted from Lichess?): no longer queued",
            fetched_at,
        )
    flags = []
    for gid, (_, row) in arrived.items():
        problem = verify.pgn_players_problem(row.pgn, row.white_name, row.black_name)
        if problem is not None:
            reason = f"the PGN names other players than the JSON ({problem}): stored as the JSON says, check it"
            flags.append({"game_id": gid, "reason": reason, "flagged_at": fetched_at})
    verdicts = _verify(
        con, in_process({gid: row.__dict__ for gid, (_, row) in arrived.items() if scope.may_be_match_game(row)})
    )
    done = [gid for gid in queue if gid in arrived or gid in rejected]
    with gateway.transaction(con):
        _store_api_games(con, arrived, flags, list(rejected.values()), verdicts, fetched_at)
        gateway.delete_keys(con, "refetch_games", "game_id", done)
    report.refetched += len(arrived)
    report.refetch_ongoing += len(ongoing)
    report.refetch_missing += len(missing)
    report.rejected += len(rejected) - len(missing)
    report.verified += len(verdicts)
    report.mismatches += sum(v.disagrees for v in verdicts)


def _store_api_games(
    con: duckdb.DuckDBPyConnection,
    games: dict[str, tuple[str, Any]],
    flags: list[dict[str, Any]],
    rejected: list[dict[str, Any]],
    verdicts: list[Any],
    fetched_at: dt.datetime,
) -> None:
    """Games as the API sent them (id -> (NDJSON line, typed row)), inside the caller's
    transaction: the raw line, the typed row, their flags, the records set aside and the verdicts."""
    raw = [
        {"game_id": gid, "payload": line, "fetched_at": fetched_at, "source": "api"} for gid, (line, _) in games.items()
    ]
    gateway.upsert(con, "raw_games", raw)
    gateway.upsert(con, "lichess_games", [row.__dict__ for _, row in games.values()])
    gateway.upsert(con, "game_flags", flags)
    gateway.upsert(con, "rejected_records", rejected)
    gateway.upsert(con, "game_verdicts", [{**v.__dict__, "verified_at": fetched_at} for v in verdicts])


Stream = tuple[UserRow, int | None, int | None]  # the player, since (ms), games synced before (None: never)


def _sync_histories(
    con: duckdb.DuckDBPyConnection,
    client: berserk.Client,
    ids: list[str],
    known: dict[str, UserRow],
    cursors: dict[tuple[str, str], dict[str, Any]],
    since: dt.datetime | None,
    now: dt.datetime,
    report: IngestReport,
    writer: BackgroundWriter | None = None,
    fresh_since: dt.datetime | None = None,
) -> list[Stream]:
    """Each found player's rating history, fetched unless its cursor says the profile's antichess
    games and rating have not moved, or (`fresh_since`, a refresh run) it was stored since then,
    and stored HISTORY_BATCH at a time (:func:`_histories_stored`); returns the game streams to run
    (those whose game count moved)."""
    with _histories_stored(con, writer) as batch:
        stats = stats_of(client)
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
                perfs = fetch_rating_history(client, uid)
                player.history = load_rating_history(con, user, perfs, now, report, batch, writer)
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
def _histories_stored(con: duckdb.DuckDBPyConnection, writer: BackgroundWriter | None) -> Iterator[list[HistoryRows]]:
    """A batch the block adds fetched histories to, storing it each time it holds HISTORY_BATCH of
    them; what it holds when the block ends is stored then, also when the block raised (the
    histories fetched before a failed request are stored, and the error raised)."""
    batch = _HistoryBatch(con, writer)
    try:
        yield batch
    except BaseException:
        with contextlib.suppress(Exception):  # the error that stopped the fetching matters more
            batch.flush()
        raise
    batch.flush()


class _HistoryBatch(list[HistoryRows]):
    """Fetched histories waiting for their transaction (:func:`_store_histories`)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, writer: BackgroundWriter | None) -> None:
        super().__init__()
        self.con, self.writer = con, writer

    def append(self, rows: HistoryRows) -> None:
        super().append(rows)
        if len(self) >= HISTORY_BATCH:
            self.flush()

    def flush(self) -> None:
        if self:
            rows = self[:]
            self.clear()
            _store_histories(self.con, self.writer, rows)


def _stream_games(
    con: duckdb.DuckDBPyConnection,
    lock: threading.Lock,
    client: berserk.Client,
    streams: list[Stream],
    scope: Scope,
    now: dt.datetime,
    report: IngestReport,
    concurrency: int,
    progress: Progress | None,
    writer: BackgroundWriter | None = None,
    verifier: Verifier | None = None,
    early: _AheadRun | None = None,
) -> None:
    """Run the game streams, two at a time at most when ``concurrency`` allows (each on its own
    cursor, writes holding ``lock``; with `writer`, every write is on its connection); `early` is
    told of each stream that ended."""

    def run_stream(item: Stream) -> None:
        user, since_ms, synced = item
        player = report.players[user.user_id]
        worker = con.cursor() if concurrency > 1 and writer is None else con
        try:
            sync_games(
                worker,
                lock,
                client,
                user.user_id,
                since_ms,
                scope,
                now,
                player,
                report,
                synced,
                final_count=user.antichess_games,
                progress=progress,
                writer=writer,
                verifier=verifier,
            )
        finally:
            if worker is not con:
                worker.close()
        player.games = "streamed"
        if early is not None:
            early.streamed(user.user_id, writer)
        if progress is not None:
            progress.player_done(player)

    if concurrency > 1:
        with ThreadPoolExecutor(max_workers=min(concurrency, 2), thread_name_prefix="lichess-stream") as pool:
            list(pool.map(run_stream, streams))
    else:
        for item in streams:
            run_stream(item)


def _sync_watched_boards(
    con: duckdb.DuckDBPyConnection,
    lock: threading.Lock,
    client: berserk.Client,
    report: IngestReport,
    watch: Iterable[WatchedBoard],
    scope: Scope,
    now: dt.datetime,
    cursors: dict[tuple[str, str], dict[str, Any]],
    writer: BackgroundWriter | None = None,
    verifier: Verifier | None = None,
) -> None:
    """Casual games between paired players do not change the profiles' rated-game counts: one
    ``vs`` request per board of an open window whose two players were both skipped."""
    stats = stats_of(client)
    for board in watch:
        a, b = report.players.get(board.player_a), report.players.get(board.player_b)
        if a is None or b is None or a.games != "unchanged" or b.games != "unchanged":
            continue  # a full stream of either player already saw every game between them
        gc = cursors.get((board.player_a, "games"))
        vc = cursors.get((board.player_a, f"vs:{board.player_b}"))
        synced_at = max((c["updated_at"] for c in (gc, vc) if c is not None), default=None)
        if board.start > now or (synced_at is not None and synced_at >= board.end):
            continue  # the window has not opened, or was already over when the pair was last searched
        # games older than either cursor were already seen by a full stream or an earlier search
        since_ms = max([to_ms(board.start)] + [c["since_ms"] for c in (gc, vc) if c and c["since_ms"] is not None])
        before = stats.requests
        sync_games(
            con,
            lock,
            client,
            board.player_a,
            since_ms,
            scope,
            now,
            a,
            report,
            None,
            final_count=None,
            vs=board.player_b,
            writer=writer,
            verifier=verifier,
        )
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
    """The ``vs`` searches of :func:`ingest` for players ingested in batches: ``games_status`` is each
    player's games status from the batches (``unchanged`` when the profile showed nothing new).
    Read the cursors after the batches: a skipped player's cursors are as they were before them."""
    stats = stats_of(client)
    start_stats = dict(stats.__dict__)
    report = IngestReport()
    report.players = {uid: PlayerReport(uid, games=status) for uid, status in games_status.items()}
    cursors = {
        (r["user_id"], r["endpoint"]): r for r in gateway.query(con, "queries/ingest_cursors").iter_rows(named=True)
    }
    _sync_watched_boards(
        con,
        threading.Lock(),
        client,
        report,
        watch,
        Scope(frozenset(p.lower() for p in registered), windows or {}),
        now,
        cursors,
    )
    for key in ("requests", "retries", "rate_limited", "waited_429_s", "streams_resumed"):
        setattr(report, key, getattr(stats, key) - start_stats[key])
    return report


_COUNTERS = (
    "users_fetched",
    "users_loaded",
    "histories_loaded",
    "histories_unchanged",
    "histories_kept",
    "rating_points_loaded",
    "streams_unchanged",
    "rejected",
    "requests",
    "retries",
    "rate_limited",
    "waited_429_s",
    "streams_resumed",
    "refetched",
    "refetch_ongoing",
    "refetch_missing",
    "verified",
    "mismatches",
)


def merge_reports(reports: Iterable[IngestReport]) -> IngestReport:
    """One report for a run ingested in batches: counters and per-player counts added up, each
    player's statuses from the first report that has them set, distinct game ids united."""
    out = IngestReport()
    for r in reports:
        for name in _COUNTERS:
            setattr(out, name, getattr(out, name) + getattr(r, name))
        out.users_missing += r.users_missing
        out.warnings += r.warnings
        out.game_ids |= r.game_ids
        for uid, p in r.players.items():
            mine = out.players.get(uid)
            if mine is None:
                out.players[uid] = dataclasses.replace(p)
                continue
            for f in dataclasses.fields(PlayerReport):
                value = getattr(p, f.name)
                if isinstance(value, int):
                    setattr(mine, f.name, getattr(mine, f.name) + value)
                elif getattr(mine, f.name) == "-":
                    setattr(mine, f.name, value)
    return out
