"""The backfill from the Lichess open database's dumps: what pipeline/lichess/dump_reader.py reads,
stored.

* :func:`store_dump_games` writes the players' games as the API path does (``raw_games`` with the
  PGN text as the raw record and ``source = 'dump'``, ``lichess_games``, ``rejected_records``) in
  one transaction, never over a game the API already stored (its JSON says more than the dump); a
  record it cannot store as a finished game (unreadable, or ``Unterminated``) is kept in
  ``rejected_records`` under its ``Site`` game id and queued in ``refetch_games``: the next ingest
  fetches it by id (pipeline/lichess/refetch_queue.py), since the cursors below move past its month;
* :func:`place_cursors` moves each player's games cursor to the first millisecond after the
  dumps' last month, so the next API fetch asks only for what the dumps do not hold.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import typing
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.errors import InputError
from pipeline.lichess.client import GameRow, to_ms
from pipeline.lichess.dump_reader import DumpFile, refused_before, site_id
from pipeline.lichess.dump_scan import CREATED_AT, GAME_ID, scan_files
from pipeline.store import gateway

# games per transaction: the backfill of the benchmark's 10,132 games (docs/benchmarks.md#backfill)
# runs 10-25 % faster in transactions of 2,500 than of 10,000, read here or by the workers
BATCH = 2_500
SOURCE = "dump"
FILE_COUNTS = ("scanned", "matched", "new", "already_stored", "kept_api", "rejected", "queued", "before_horizon")
QUEUE_NOTE = "queued to be fetched by id from the API at the next ingest"


@dataclass
class DumpReport:
    """One backfill, per dump file and in total: scanned = games of others + matched; matched =
    loaded + rejected + before_horizon (created before lichess.history_since: not stored, as the
    API never fetches them); queued = the rejected ones queued in refetch_games; loaded = new + already_stored (the dump's copy, stored before by a
    rerun: replaced by the same row) + kept_api (the API's copy is stored: it stays)."""

    per_file: dict[str, dict[str, int]] = field(default_factory=dict)
    cursors_moved: int = 0
    warnings: list[str] = field(default_factory=list)

    def _sum(self, name: str) -> int:
        return sum(c[name] for c in self.per_file.values())

    @property
    def files(self) -> list[dict[str, Any]]:
        return [{"file": name, **counts} for name, counts in self.per_file.items()]

    @property
    def scanned(self) -> int:
        return self._sum("scanned")

    @property
    def matched(self) -> int:
        return self._sum("matched")

    @property
    def new(self) -> int:
        return self._sum("new")

    @property
    def already_stored(self) -> int:
        return self._sum("already_stored")

    @property
    def kept_api(self) -> int:
        return self._sum("kept_api")

    @property
    def rejected(self) -> int:
        return self._sum("rejected")

    @property
    def queued(self) -> int:
        return self._sum("queued")

    @property
    def before_horizon(self) -> int:
        return self._sum("before_horizon")

    @property
    def loaded(self) -> int:
        return self.new + self.already_stored + self.kept_api

    def summary(self) -> dict[str, Any]:
        """The counts kept in the run record."""
        totals = {name: self._sum(name) for name in FILE_COUNTS}
        return totals | {"loaded": self.loaded, "cursors_moved": self.cursors_moved, "files": self.files}


def _reject(text: str, key: str | None, reason: str, fetched_at: dt.datetime) -> dict[str, Any]:
    """A refused record, kept whole: under its Site game id, or (none readable) under the md5 of its
    text, 32 hex digits, which no 8-character game id equals and only the same bytes share."""
    return {
        "source": "game",
        "record_key": key or hashlib.md5(text.encode()).hexdigest(),
        "reason": reason,
        "payload": text,
        "fetched_at": fetched_at,
    }


Record = tuple[str, str, tuple[Any, ...] | str]
"""A kept dump record: its file's name, its PGN text, and its GameRow's values (``dump_scan.FIELDS``)
or why it does not type (pipeline/lichess/dump_scan.py types it)."""


def store_dump_games(
    con: duckdb.DuckDBPyConnection,
    records: list[Record],
    fetched_at: dt.datetime,
    report: DumpReport,
    since: dt.datetime | None = None,
) -> None:
    """Store a batch of typed dump records in one transaction. A game
    the API stored stays as the API stored it; a game the dump stored before is replaced by the
    same row (a rerun); a game created before ``since`` (lichess.history_since) is counted, not
    stored. A record that is refused (it does not read, or is ``Unterminated``) is kept in
    rejected_records with the reason and, when its Site tag names a game the API has not stored
    and it was not created before ``since``, queued in refetch_games: the cursors move past its
    month, so only a fetch by id brings it in. Counts go to ``report`` in total and per file."""
    rows, rejected, refused = _typed(records, fetched_at, report, since)
    stored = {}
    if rows or refused:
        stored = dict(gateway.query(con, "queries/stored_game_sources", [list(rows) + list(refused)]).iter_rows())
    keep = {gid: v for gid, v in rows.items() if stored.get(gid) != "api"}
    for gid, (name, _, _) in rows.items():
        kind = "kept_api" if gid not in keep else "already_stored" if gid in stored else "new"
        report.per_file[name][kind] += 1
    queued = []
    for gid, name in refused.items():
        if stored.get(gid) == "api":  # the API's copy is stored: nothing to fetch
            rejected[gid]["reason"] = rejected[gid]["reason"].removesuffix(f": {QUEUE_NOTE}")
            continue
        report.per_file[name]["queued"] += 1
        queued.append({"game_id": gid, "dump_file": name, "queued_at": fetched_at})
    if not keep and not rejected:
        return
    with gateway.transaction(con):
        _put(con, "raw_games", _raw_table(keep, fetched_at), set(stored))
        if keep:
            typed = set(gateway.query(con, "queries/typed_game_ids", [list(keep)])["game_id"].to_list())
            _put(con, "lichess_games", _typed_table(keep), typed)
        gateway.upsert(con, "rejected_records", list(rejected.values()))
        gateway.upsert(con, "refetch_games", queued)


def _raw_table(keep: dict[str, Record], fetched_at: dt.datetime) -> pa.Table:
    """The raw_games rows of the kept games, as an Arrow table built by column (a dict a row, or a
    polars frame converted to Arrow, costs more)."""
    n = len(keep)
    return pa.table(
        {
            "game_id": pa.array(list(keep), pa.string()),
            "payload": pa.array([json.dumps(text) for _, text, _ in keep.values()], pa.string()),
            "fetched_at": pa.array([fetched_at] * n, _TIMESTAMP),
            "source": pa.array([SOURCE] * n, pa.string()),
        }
    )


_TIMESTAMP = pa.timestamp("us", tz="UTC")
_ARROW_TYPES = {str: pa.string(), dt.datetime: _TIMESTAMP, bool: pa.bool_(), int: pa.int64()}


def _arrow_type(kind: Any) -> pa.DataType:
    """A GameRow field's Arrow type, from its annotation (``int | None`` → int64, a Literal of
    strings → string)."""
    if typing.get_origin(kind) is typing.Literal:
        return pa.string()
    args = [a for a in typing.get_args(kind) if a is not type(None)]
    return _arrow_type(args[0]) if args else _ARROW_TYPES[kind]


_ROW_SCHEMA = pa.schema((name, _arrow_type(kind)) for name, kind in typing.get_type_hints(GameRow).items())


def _typed_table(keep: dict[str, Record]) -> pa.Table:
    """The lichess_games rows of the kept games, by column from their values, as gateway.upsert
    builds a dataclass's rows (without its per-value checks)."""
    columns = zip(*(row for _, _, row in keep.values()), strict=True)
    return pa.Table.from_arrays(
        [pa.array(list(c), t) for c, t in zip(columns, _ROW_SCHEMA.types, strict=True)], schema=_ROW_SCHEMA
    )


def _put(con: duckdb.DuckDBPyConnection, table: str, rows: pa.Table, present: set[str]) -> None:
    """Rows keyed by game_id: those whose id is in ``present`` (stored in ``table``) replace
    theirs, the others are inserted (an insert takes half an upsert's time)."""
    if rows.num_rows == 0:
        return
    if not present:
        gateway.insert(con, table, rows)
        return
    stored = pa.array([gid in present for gid in rows.column("game_id").to_pylist()])
    gateway.insert(con, table, rows.filter(pc.invert(stored)))
    gateway.upsert(con, table, rows.filter(stored))


def _typed(
    records: list[Record], fetched_at: dt.datetime, report: DumpReport, since: dt.datetime | None
) -> tuple[dict[str, Record], dict[str, dict[str, Any]], dict[str, str]]:
    """The records sorted: the games to store by id (file name, PGN text, row), the refused records
    by key, and the file of each refused record to queue by game id; counted per file in `report`."""
    rows: dict[str, Record] = {}
    rejected: dict[str, dict[str, Any]] = {}
    refused: dict[str, str] = {}  # game id → the file of its refused record
    for name, text, row in records:
        counts = report.per_file.setdefault(name, dict.fromkeys(FILE_COUNTS, 0))
        if isinstance(row, str):  # why it does not type
            gid = site_id(text)
            queue = gid is not None and not refused_before(text, since)
            reason = f"{name}: {row}" + (f": {QUEUE_NOTE}" if queue else "")
            record = _reject(text, gid, reason, fetched_at)
            rejected[record["record_key"]] = record
            counts["rejected"] += 1
            if queue and gid is not None:
                refused[gid] = name
            continue
        if since is not None and row[CREATED_AT] < since:
            counts["before_horizon"] += 1
            continue
        rows[row[GAME_ID]] = (name, text, row)
    return rows, rejected, refused


def backfill(
    con: duckdb.DuckDBPyConnection,
    dumps: list[DumpFile],
    player_ids: Iterable[str],
    history_since: dt.datetime | None,
    fetched_at: dt.datetime,
) -> DumpReport:
    """Scan every dump for the players' games (pipeline/lichess/dump_scan.py: one file per worker
    process, typed there), store those created from ``history_since`` on (the API path's horizon)
    in transactions of up to BATCH games, in the files' order, as the files arrive, then place the
    players' cursors."""
    wanted = frozenset(p.lower() for p in player_ids)
    report = DumpReport()
    batch: list[Record] = []
    for dump, scan in zip(dumps, scan_files([d.path for d in dumps], wanted), strict=True):
        report.per_file[scan.name] = dict.fromkeys(FILE_COUNTS, 0)
        if scan.damaged is not None:
            raise InputError(dump.path, "", f"the zstd data does not decompress ({scan.damaged}): download it again")
        for text, row in scan.games:
            batch.append((scan.name, text, row))
            if len(batch) >= BATCH:
                store_dump_games(con, batch, fetched_at, report, history_since)
                batch = []
        report.per_file[scan.name] |= {"scanned": scan.scanned, "matched": scan.matched}
    store_dump_games(con, batch, fetched_at, report, history_since)
    if dumps:
        place_cursors(con, dumps, sorted(wanted), history_since, fetched_at, report)
    return report


def place_cursors(
    con: duckdb.DuckDBPyConnection,
    dumps: list[DumpFile],
    player_ids: list[str],
    history_since: dt.datetime | None,
    at: dt.datetime,
    report: DumpReport,
) -> None:
    """Each player's games cursor (the next API request's ``since``) moves to the first millisecond
    after the last dump month, when that moves it forward and the dumps cover every month from where
    it stood (its cursor, or else ``history_since``): the API then fetches only what the dumps do not
    hold. Its synced game count is kept (the next run still streams from the new cursor)."""
    first = dt.datetime.combine(dumps[0].month, dt.time(), tzinfo=dt.UTC)
    end_ms = to_ms(dumps[-1].end)
    cursors = {
        r["user_id"]: r
        for r in gateway.query(con, "queries/ingest_cursors").iter_rows(named=True)
        if r["endpoint"] == "games"
    }
    rows = []
    for uid in player_ids:
        old = cursors.get(uid)
        since = old["since_ms"] if old is not None and old["since_ms"] is not None else None
        if since is None and history_since is not None:
            since = to_ms(history_since)
        if since is not None and since >= end_ms:
            continue  # already past the dumps
        if since is not None and since < to_ms(first):
            report.warnings.append(
                f"player {uid!r}: games are synced from {_utc(since)} but the dumps start at "
                f"{first:%Y-%m-%d}: the games cursor stays (backfill the months before too)"
            )
            continue
        rows.append(
            {
                "user_id": uid,
                "endpoint": "games",
                "since_ms": end_ms,
                "synced_games": old["synced_games"] if old is not None else None,
                "synced_rating": old["synced_rating"] if old is not None else None,
                "updated_at": at,
            }
        )
    with gateway.transaction(con):
        gateway.upsert(con, "ingest_cursors", rows)
    report.cursors_moved += len(rows)


def _utc(ms: int) -> str:
    return (dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(milliseconds=ms)).strftime("%Y-%m-%d %H:%M UTC")
