"""Game streams: each player's games since the cursor (``GET /api/games/user/{id}``), or the games
between two players (``vs``), stored as they arrive, resumed after a cut.

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

A game whose PGN ``[White]``/``[Black]`` tags name other players than its JSON is stored as the
JSON says (it may be a real game with a real result) and flagged in ``game_flags`` with the
reason, in the same transaction (``verify.pgn_players_problem``: headers only, no replay); it is
counted as loaded and, among those, as flagged. The ``rejected`` view lists it for the TD.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import duckdb

from pipeline.domain import verify
from pipeline.errors import LichessError
from pipeline.lichess import ndjson
from pipeline.lichess.client import STREAM_ERRORS, GameRow, open_game_stream, parse_game, stats_of, to_ms
from pipeline.lichess.ingest_report import PlayerReport
from pipeline.lichess.ingest_run import AheadRun, IngestRun, cursor_record, rejected_record
from pipeline.lichess.profiles_and_histories import Stream
from pipeline.lichess.verifier import Verdicts, in_process
from pipeline.store import gateway

log = logging.getLogger(__name__)

GAME_BATCH = 500
UNFINISHED = frozenset({"created", "started"})


def flag_reason(problem: str) -> str:
    """Why a game whose PGN names other players than its JSON is flagged (``game_flags``)."""
    return f"the PGN names other players than the JSON ({problem}): stored as the JSON says, check it"


class _GameSink:
    """Collects one stream's games and commits them at createdAt boundaries with the cursor."""

    def __init__(
        self,
        run: IngestRun,
        user_id: str,
        cursor_ms: int | None,
        player: PlayerReport,
        endpoint: str,
        synced_games: int | None,
    ) -> None:
        self.run = run  # its writer stores the commits, its verifier replays the match-game candidates
        self.user_id = user_id
        self.cursor_ms = cursor_ms  # committed: the next request's since
        self.player = player
        self.endpoint = endpoint  # 'games', or 'vs:<opponent>' for a casual-game search
        self.synced_games = synced_games  # the last complete stream's profile count (kept until this one completes)
        self.span_ms = (cursor_ms, to_ms(run.now))  # the stream's time span, for progress
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
            if self.run.progress is not None:
                self.run.progress.game(f"{self.user_id} {self.endpoint}", self._done(created))
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
                row.white_id in self.run.scope.registered and row.black_id in self.run.scope.registered
            ):
                # not a game any rule looks at, but nothing is dropped: kept as it arrived, with why
                self.player.games_skipped_other_variant += 1
                self.rejected.append(
                    rejected_record(
                        "game",
                        line,
                        row.game_id,
                        f"not antichess (variant {row.variant!r}) and not "
                        "between two registered players: kept here, not stored as a game",
                        self.run.now,
                    )
                )
                continue
            problem = verify.pgn_players_problem(row.pgn, row.white_name, row.black_name)
            if problem is not None:
                self.player.games_flagged += 1
                problem = flag_reason(problem)
            self.flags[row.game_id] = problem
            if self.run.scope.may_be_match_game(row):
                self.candidates.add(row.game_id)
            self.pending.append((line, row))

    def _reject(self, line: str, gid: str | None, reason: str) -> None:
        self.player.games_rejected += 1
        self.run.report.rejected += 1
        self.rejected.append(rejected_record("game", line, gid, reason, self.run.now))

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
        candidates = self.run.verifier.submit(rows) if self.run.verifier is not None else in_process(rows)
        flags = [
            {"game_id": gid, "reason": self.flags[gid], "flagged_at": self.run.now}
            for gid in batch
            if self.flags.get(gid) is not None
        ]
        rejected, arrived = self.rejected, len(self.pending)
        cursor = [cursor_record(self.user_id, self.endpoint, cursor_ms, self.synced_games, None, self.run.now)]
        fetched_at, player, report, lock = self.run.now, self.player, self.run.report, self.run.lock

        def write(con: duckdb.DuckDBPyConnection) -> None:
            with lock:
                stored = set()
                if batch:
                    stored = set(gateway.query(con, "queries/stored_game_ids", [list(batch)])["game_id"].to_list())
                verdicts = new_verdicts(con, candidates)
                with gateway.transaction(con):
                    store_api_games(con, batch, flags, rejected, verdicts, fetched_at)
                    gateway.upsert(con, "ingest_cursors", cursor)
                report.verified += len(verdicts)
                report.mismatches += sum(v.disagrees for v in verdicts)
                new = len(set(batch) - stored)
                player.games_new += new
                player.games_already_stored += arrived - new

        self.run.write(write)
        self.cursor_ms = cursor_ms
        self.run.report.game_ids.update(batch)
        self.pending = []
        self.flags = {}
        self.candidates = set()
        self.rejected = []
        self.last_created = None if complete else self.last_created


def new_verdicts(con: duckdb.DuckDBPyConnection, candidates: Verdicts) -> list[verify.Verdict]:
    """The verdicts of the match-game candidates that have none stored yet (each game is verified
    once: a game between two registered players arrives in both their streams)."""
    if not candidates.game_ids:
        return []
    have = set(gateway.query(con, "queries/verified_game_ids", [candidates.game_ids])["game_id"].to_list())
    return candidates.result(skip=have)


def sync_games(
    run: IngestRun,
    user_id: str,
    since_ms: int | None,
    player: PlayerReport,
    synced_games: int | None,
    final_count: int | None,
    vs: str | None = None,
    max_resumes: int = 10,
) -> None:
    """Stream a player's games from ``since_ms`` into the database, resuming after cuts (each
    commit on the run's writer when it has one, while the stream goes on; the match-game candidates
    replayed by its verifier when it has one, else here as each commit stores them)."""
    stats = stats_of(run.client)
    endpoint = "games" if vs is None else f"vs:{vs}"
    sink = _GameSink(run, user_id, since_ms, player, endpoint, synced_games)
    stalled = 0
    while True:
        before = stats.requests
        try:
            lines = open_game_stream(run.client, user_id, sink.cursor_ms, vs=vs)
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


def store_api_games(
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


def stream_games(run: IngestRun, streams: list[Stream], concurrency: int, early: AheadRun | None = None) -> None:
    """Run the game streams, two at a time at most when ``concurrency`` allows (each on its own
    cursor, writes holding the run's lock; with the run's writer, every write is on its
    connection); `early` is told of each stream that ended."""
    report, progress, writer = run.report, run.progress, run.writer

    def run_stream(item: Stream) -> None:
        user, since_ms, synced = item
        player = report.players[user.user_id]
        worker = run.con.cursor() if concurrency > 1 and writer is None else run.con
        try:
            sync_games(run.on(worker), user.user_id, since_ms, player, synced, final_count=user.antichess_games)
        finally:
            if worker is not run.con:
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
