"""A league's shared store of Lichess data, read through by every tournament of the league.

The league's tournaments ingest exactly as a tournament alone does (same requests decided by the
same cursors, same checks, same rows in their own databases), but their client reads through this
store (docs/td-guide.md, Running a league):

* **profiles** (``POST /api/users``): a profile the store fetched less than ``fresh`` ago is
  answered from it; the others are asked for, and each request is filled up to its 300 ids with
  other league players whose profile is not fresh, so the league's other tournaments find theirs;
* **rating histories**: a history fetched less than ``fresh`` ago is answered from the store (an
  empty answer, which Lichess gives a request without a token, is not kept);
* **game streams** (``GET /api/games/user/{id}``, also ``vs``): answered from the store when a
  complete stream of the player (or of the pair) fetched less than ``fresh`` ago covers the
  request's ``since``; otherwise the request goes to Lichess and every line is kept in the store
  as it passes (a *tee*), and the stream counts as a cover once it ended normally.

A stream answered from the store sends the same lines, in the same order (createdAt ascending,
arrival order within a millisecond), that Lichess sent the league, so a tournament's own tables
are those it would have written alone. The store is one DuckDB file; one run of the league holds
it at a time (:func:`store_lock`, an flock on ``<store>.lock``; across machines the Prefect limit
``pipeline.lichess.lane.store_limit_name`` does the same).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.store import gateway

if TYPE_CHECKING:
    from pipeline.lichess.client import FetchStats

log = logging.getLogger(__name__)

USERS_PER_REQUEST = 300
FLUSH_LINES = 500  # game lines kept per store transaction while a stream passes

_locks: dict[Path, list[Any]] = {}  # store lock path -> [fd, holders] for this process
_locks_guard = threading.Lock()


@contextlib.contextmanager
def store_lock(store: Path) -> Iterator[None]:
    """Hold the league store's lock for the block, waiting for another process's run to let go of
    it; re-entrant within a process (the kernel drops it when the process ends, however it ends)."""
    path = Path(f"{store}.lock").absolute()
    with _locks_guard:
        held = _locks.get(path)
        if held is not None:
            held[1] += 1
    if held is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)  # blocks: another tournament of the league is fetching
        with _locks_guard:
            _locks[path] = held = [fd, 1]
    try:
        yield
    finally:
        with _locks_guard:
            held[1] -= 1
            last = held[1] == 0
            if last:
                del _locks[path]
        if last:
            fcntl.flock(held[0], fcntl.LOCK_UN)
            os.close(held[0])


def _ms(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _player_id(g: dict[str, Any], color: str) -> str | None:
    side = (g.get("players") or {}).get(color)
    user = side.get("user") if isinstance(side, dict) else None
    uid = user.get("id") if isinstance(user, dict) else None
    return uid.lower() if isinstance(uid, str) else None


class LeagueCache:
    """The store as the client reads through it for one run of one tournament: ``now`` the run's
    time (what it fetches is stored as fetched then), ``fresh`` how old a stored answer may be,
    ``players`` the league's players (whose stale profiles fill a profile request)."""

    def __init__(
        self,
        store: Path,
        now: dt.datetime,
        fresh: dt.timedelta,
        players: Iterable[str] = (),
        stats: FetchStats | None = None,
    ) -> None:
        self.stats = stats  # the client's: told of each answer the store gave (``league_answered``)
        self.store = store
        self.now = now
        self.fresh_since = now - fresh
        self.players = sorted({p.lower() for p in players})
        self._stack = contextlib.ExitStack()
        self._stack.enter_context(store_lock(store))
        self._con = gateway.connect_league_store(store)
        self._lock = threading.Lock()
        self._seq = int(gateway.query(self._con, "queries/league_next_seq")["seq"][0])
        self.answered = {"profiles": 0, "histories": 0, "streams": 0}  # what the store answered, not Lichess

    def _answered(self, what: str, n: int) -> None:
        self.answered[what] += n
        if self.stats is not None:
            self.stats.league_answered += n

    def close(self) -> None:
        with self._lock:
            self._con.close()
        self._stack.close()

    # ------------------------------------------------------------------ profiles

    def users(self, ids: list[str], fetch: Callable[[list[str]], list[dict[str, Any]]]) -> list[dict[str, Any]]:
        """The profiles of `ids` (lower-case): fresh ones from the store, the rest through `fetch`
        (one POST per 300 ids, filled with other league players' stale profiles)."""
        with self._lock:
            fresh = gateway.query(self._con, "queries/league_profiles", [ids, self.fresh_since])
            stale = gateway.query(self._con, "queries/league_stale_players", [self.players, self.fresh_since])
        known = dict(zip(fresh["user_id"].to_list(), fresh["payload"].to_list(), strict=True))
        missing = [i for i in ids if i not in known]
        if missing:
            room = -len(missing) % USERS_PER_REQUEST
            fill = [p for p in stale["user_id"].to_list() if p not in set(ids)][:room]
            got = {str(u.get("id", "")).lower(): u for u in fetch(missing + fill)}
            rows = [
                {
                    "user_id": uid,
                    "payload": json.dumps(got[uid]) if uid in got else None,
                    "fetched_at": self.now,
                }
                for uid in missing + fill
            ]
            with self._lock, gateway.transaction(self._con):
                gateway.upsert(self._con, "league_profiles", rows)
            known.update({uid: json.dumps(got[uid]) if uid in got else None for uid in missing})
        self._answered("profiles", len(ids) - len(missing))
        return [json.loads(known[i]) for i in ids if known.get(i) is not None]

    # ------------------------------------------------------------------ histories

    def history(self, user_id: str, fetch: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
        """A player's rating history: from the store when fresh, else through `fetch` (and kept)."""
        with self._lock:
            stored = gateway.query(self._con, "queries/league_history", [user_id, self.fresh_since])
        if stored.height:
            self._answered("histories", 1)
            return json.loads(stored["payload"][0])
        perfs = fetch()
        if not perfs:  # Lichess answers [] to a request without a token: another tournament's may do better
            return perfs
        row = {"user_id": user_id, "payload": json.dumps(perfs), "fetched_at": self.now}
        with self._lock, gateway.transaction(self._con):
            gateway.upsert(self._con, "league_histories", [row])
        return perfs

    # ------------------------------------------------------------------ game streams

    def stream(
        self, user_id: str, since_ms: int | None, vs: str | None, fetch: Callable[[], Iterator[str]]
    ) -> Iterator[str]:
        """A player's games from `since_ms` (against `vs`): from the store when a fresh complete
        stream covers them, else from `fetch` (Lichess), each line kept as it passes."""
        other = (vs or "").lower()
        with self._lock:
            covered = gateway.query(
                self._con, "queries/league_stream_covered", [user_id, other, since_ms, self.fresh_since]
            )["covered"][0]
            if covered:
                lines = gateway.query(self._con, "queries/league_stream_lines", [user_id, other, since_ms])
        if covered:
            self._answered("streams", 1)
            return iter(lines["line"].to_list())
        return self._tee(user_id, since_ms, other, fetch())

    def _tee(self, user_id: str, since_ms: int | None, vs: str, lines: Iterator[str]) -> Iterator[str]:
        pending: list[dict[str, Any]] = []
        last_created = since_ms
        try:
            for line in lines:
                pending.append(self._line_row(user_id, line, last_created))
                last_created = pending[-1]["created_ms"]
                if len(pending) >= FLUSH_LINES:
                    self._keep(pending)
                    pending = []
                yield line
        finally:  # a cut stream keeps what arrived, but is no cover: the next request goes to Lichess
            self._keep(pending)
        cover = {"user_id": user_id, "vs": vs, "from_ms": since_ms, "fetched_at": self.now}
        with self._lock, gateway.transaction(self._con):
            gateway.upsert(self._con, "league_streams", [cover])

    def _line_row(self, user_id: str, line: str, last_created: int | None) -> dict[str, Any]:
        try:
            g = json.loads(line)
        except ValueError:
            g = None
        g = g if isinstance(g, dict) else {}
        gid = g.get("id") if isinstance(g.get("id"), str) else None
        with self._lock:
            self._seq += 1
            seq = self._seq
        return {
            "line_key": gid or "line:" + hashlib.md5(line.encode()).hexdigest(),
            "stream_user": user_id,
            "white_id": _player_id(g, "white"),
            "black_id": _player_id(g, "black"),
            "created_ms": _ms(g.get("createdAt")) if _ms(g.get("createdAt")) is not None else last_created,
            "seq": seq,
            "line": line,
            "fetched_at": self.now,
        }

    def _keep(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        with self._lock, gateway.transaction(self._con):
            gateway.upsert(self._con, "league_game_lines", list({r["line_key"]: r for r in rows}.values()))
