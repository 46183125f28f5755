"""The replay server: a recorded Lichess dataset served on 127.0.0.1 with the real API's semantics.

Dataset layout (docs/ingestion.md, The dataset format)::

    DIR/users.ndjson                  Lichess user JSON, one per line (as GET /api/user/{name})
    DIR/rating-history/<user_id>.json as GET /api/user/{name}/rating-history returns it
    DIR/games.ndjson                  game JSON as the games export returns it with pgnInJson=true
    DIR/games-raw/<user_id>.ndjson    optional, for tests only: lines served verbatim (see below)

Semantics copied from lichess.org (docs/ingestion.md, What Lichess's API does):

* ``GET /api/user/{name}``: the user; closed accounts as ``{id, username, disabled}``; unknown → 404.
* ``POST /api/users``: comma-separated ids in the body, the first 300 only, unknown ids skipped,
  answered in the order asked.
* ``GET /api/user/{name}/rating-history``: closed or unknown → 404.
* ``POST /api/games/export/_ids``: comma-separated game ids in the body, the first 300 only (the
  rest dropped without a word, as lichess.org does for an account that is not verified), ids it
  does not know (or not yet created at ``now``) left out; NDJSON, newest first; any status (a game
  being played at ``now`` as ``started``, as with ``ongoing=true``); ``pgnInJson``, ``moves``,
  ``clocks``, ``opening`` as for the export below; two downloads at a time, as that export.
* ``GET /api/games/user/{name}``: NDJSON, newest first (``sort=dateAsc`` for oldest first),
  ``since`` inclusive / ``until`` exclusive on ``createdAt`` (ms), ``vs``, ``max``, ``rated``,
  ``perfType``, ``color``; finished games only; ``pgn`` only with ``pgnInJson``, ``moves`` unless
  ``moves=false``, ``clocks`` only with ``clocks=true``, ``opening`` only with ``opening=true``.
  Booleans are read as lila does: ``1 true True on yes`` are true, anything else false.

Messages (docs/td-guide.md, Your week), as lila answers them:

* ``POST /team/{teamId}/pm-all`` (form field ``message``; scope ``team:lead``) and
  ``POST /inbox/{username}`` (form field ``text``; scope ``msg:write``; the user must be in
  ``users.ndjson`` and not closed, else 404). No token: 401 ``{"error": "Missing authorization
  header"}``; a token the server does not know (when ``token_scopes`` is given): 401 ``{"error":
  "No such token"}``; a token without the scope: 403 ``{"error": "Missing scope: team:lead"}`` with
  lila's ``X-OAuth-Scopes`` / ``X-Accepted-OAuth-Scopes`` headers. Which scopes a token has:
  ``ReplayOptions.token_scopes`` (``replay-server --tokens FILE``, a JSON object token → list of
  scopes); unset, every token has every scope. Rate limits: ``pm_all_per_week`` messages per team
  in 7 days (lila: 8), the same message to the same team again within 10 minutes 400 ``{"error":
  "You already sent this message recently"}``; ``inbox_per_minute`` inbox messages a minute per
  token; beyond a limit 429 with ``Retry-After: 60`` (``limit_retry_after_s``). Every message accepted is kept in
  ``ReplayServer.messages`` and served by ``GET /_replay/messages`` (a JSON list of ``{endpoint,
  to, text, at}``; never the token), so tests read what Lichess would have received.

The request record (``pipeline.sim.request_record``): every request the server answers leaves a
``RequestRecord`` — its lane (``pipeline.lichess.lane.lane_name`` of the server's base URL and the
request's bearer token; no Authorization header: the anonymous lane; never the token), method,
path without the query, status, and its interval on the monotonic clock, from the request line
read to the last byte written (a game stream's end is when the throttled stream finished). Read
them with ``ReplayServer.requests()``, ``GET /_replay/requests`` (a JSON list), or as NDJSON lines
appended to ``ReplayOptions.record`` (``replay-server --record FILE``, one flushed line per
finished request), so a test can check that one token's requests never overlap
(``find_overlaps``). The server's own ``/_replay/...`` requests are not recorded.

``now`` serves the world as it stood then: games created by then (those that ended later are
still being played: exported only with ``ongoing=true``, as ``started`` without a result),
profiles counting only the rated games finished by then, rating-history points of the days
before, and today's antichess point as the rating after today's last rated game finished by then
(none before it: the file's point for today is the day's end, which has not come), only accounts
created by then. The server binds 127.0.0.1 only and never maps
a URL to a file: everything is loaded from the data folder at start.

Broken records (``games-raw/``): ``games.ndjson`` is loaded strictly (a malformed line is an
InputError naming the line), so a recording stays trustworthy. To test what ingestion does with
what a broken Lichess or a typo could send — a line that is not JSON, a game without ``id``,
``players`` or ``createdAt``, an unknown status, a PGN naming other players — a dataset may hold
``games-raw/<user_id>.ndjson``: each of its non-blank lines is sent byte for byte, in file
order, after the recorded games in every games export of that user (the user must be in
``users.ndjson``). The server does not read these lines, so no query filter (``since``,
``until``, ``vs``, ``max``, ``sort``, ``pgnInJson``…) and no ``now`` applies to them, and they
count in no profile.
"""

from __future__ import annotations

import bisect
import contextlib
import datetime as dt
import json
import logging
import random
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from pipeline.errors import InputError
from pipeline.lichess import ndjson
from pipeline.lichess.lane import lane_name
from pipeline.sim.request_record import RequestRecord
from pipeline.sim.stored_games import GamesFile, StoredGame, side

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
USERS_BY_ID_LIMIT = 300
GAMES_BY_ID_LIMIT = 300
ONGOING = frozenset({"created", "started"})  # exported only with ongoing=true
NEVER_EXPORTED = frozenset({"aborted"})  # status < 30 and not ongoing: never exported
UNFINISHED = ONGOING | NEVER_EXPORTED
TRUEISH = frozenset({"1", "true", "True", "on", "yes"})


def _read_ndjson(path: Path) -> Iterator[tuple[int, dict[str, Any], str]]:
    """Each JSON object of an NDJSON file: its line number, the object and the line as read."""
    with path.open(encoding="utf-8") as f:
        for line_no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = ndjson.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(
                    path, f"line {line_no}", f"not valid JSON ({e.msg}): expected one JSON object per line"
                ) from None
            if not isinstance(obj, dict):
                raise InputError(path, f"line {line_no}", "expected a JSON object")
            yield line_no, obj, line


@dataclass
class Dataset:
    """A recorded Lichess world, indexed for the endpoints above."""

    users: dict[str, dict[str, Any]]
    histories: dict[str, list[Any]]
    games: list[dict[str, Any]]
    games_by_user: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    games_by_id: dict[str, dict[str, Any]] = field(default_factory=dict)
    raw_lines_by_user: dict[str, list[bytes]] = field(default_factory=dict)  # games-raw/, served verbatim

    @classmethod
    def load(cls, folder: Path | str) -> Dataset:
        folder = Path(folder)
        if not folder.is_dir():
            raise InputError(
                folder, "", "not a folder: expected a Lichess dataset (users.ndjson, rating-history/, games.ndjson)"
            )
        users: dict[str, dict[str, Any]] = {}
        users_path = folder / "users.ndjson"
        if not users_path.is_file():
            raise InputError(users_path, "", "file not found: a dataset needs users.ndjson")
        for line_no, u, _ in _read_ndjson(users_path):
            if not isinstance(u.get("id"), str):
                raise InputError(users_path, f"line {line_no}", "expected a user object with an 'id'")
            users[u["id"].lower()] = u
        histories: dict[str, list[Any]] = {}
        hist_dir = folder / "rating-history"
        if hist_dir.is_dir():
            for p in sorted(hist_dir.glob("*.json")):
                try:
                    histories[p.stem.lower()] = json.loads(p.read_text(encoding="utf-8"))
                except json.JSONDecodeError as e:
                    raise InputError(p, f"line {e.lineno}", f"not valid JSON ({e.msg})") from None
        games_path = folder / "games.ndjson"
        games = _stored_games(games_path) if games_path.is_file() else []
        ds = cls(users, histories, games, raw_lines_by_user=_read_raw_lines(folder / "games-raw"))
        ds.index()
        return ds

    def index(self) -> None:
        self.games.sort(key=lambda g: (g.get("createdAt", 0), g.get("id", "")))
        self.games_by_user = {}
        self.games_by_id = {g["id"]: g for g in self.games if isinstance(g.get("id"), str)}
        for g in self.games:
            for color in ("white", "black"):
                uid = side(g, color)[0]
                if uid:
                    self.games_by_user.setdefault(uid.lower(), []).append(g)


def _stored_games(path: Path) -> list[dict[str, Any]]:
    """Each game of games.ndjson, held lean (``pipeline.sim.stored_games``): its selected fields in
    memory, the rest read from the file when asked for. A line that is not a JSON object stops the
    load with its line number, as :func:`_read_ndjson` does."""
    source = GamesFile(path)
    games: list[dict[str, Any]] = []
    offset = 0
    with path.open("rb") as f:
        for line_no, line in enumerate(f, 1):
            start, offset = offset, offset + len(line)
            if not line.strip():
                continue
            try:
                obj = ndjson.loads(line.decode("utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                why = e.msg if isinstance(e, json.JSONDecodeError) else "not UTF-8"
                raise InputError(
                    path, f"line {line_no}", f"not valid JSON ({why}): expected one JSON object per line"
                ) from None
            if not isinstance(obj, dict):
                raise InputError(path, f"line {line_no}", "expected a JSON object")
            # read-only mappings where the endpoints read dicts: they only read them
            games.append(StoredGame(obj, source, start, len(line)))  # type: ignore[arg-type]
    return games


def _read_raw_lines(folder: Path) -> dict[str, list[bytes]]:
    """``games-raw/<user_id>.ndjson``: each non-blank line as bytes, without its newline, unread."""
    out: dict[str, list[bytes]] = {}
    if folder.is_dir():
        for p in sorted(folder.glob("*.ndjson")):
            out[p.stem.lower()] = [line for line in p.read_bytes().split(b"\n") if line.strip()]
    return out


def _ms(t: dt.datetime) -> int:
    return (t - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(milliseconds=1)


def _from_ms(ms: int) -> dt.datetime:
    return dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(milliseconds=ms)


def read_token_scopes(path: Path) -> dict[str, frozenset[str]]:
    """``--tokens FILE``: a JSON object mapping each test token to its list of scopes."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(path, "", "file not found: expected a JSON object of tokens and their scopes") from None
    except json.JSONDecodeError as e:
        raise InputError(path, f"line {e.lineno}", f"not valid JSON ({e.msg})") from None
    if not isinstance(doc, dict) or not all(
        isinstance(v, list) and all(isinstance(x, str) for x in v) for v in doc.values()
    ):
        raise InputError(path, "", 'expected a JSON object such as {"lip_td": ["team:lead", "msg:write"]}')
    return {str(k): frozenset(v) for k, v in doc.items()}


@dataclass(frozen=True)
class Faults:
    """Failures the real API produces, injected on purpose (tests, benchmarks). All off by default.

    ``every_*`` hits every Nth request (deterministic); ``rate_*`` a share of requests drawn from
    a generator seeded with ``seed`` (reproducible). Cuts and stalls hit game streams only, at a
    random byte / game of the body. ``burst_5xx`` = N: a request drawn at ``rate_5xx_burst`` (an
    overloaded or restarting node) starts a burst, it and the next N - 1 requests answer 502 and
    503 in turn, whatever they ask for."""

    every_429: int = 0
    rate_429: float = 0.0
    retry_after_s: int = 60
    every_5xx: int = 0
    rate_5xx: float = 0.0
    burst_5xx: int = 0
    rate_5xx_burst: float = 0.05
    rate_cut: float = 0.0
    rate_stall: float = 0.0
    stall_s: float = 5.0
    seed: int = 0


@dataclass(frozen=True)
class ReplayOptions:
    games_per_s: float = 30.0  # per stream, as lichess.org serves a token holder; 0 = unthrottled
    max_downloads: int = 2  # concurrent game streams per client (lila: 2 per IP); more → 429
    keepalive_every: int = 100  # a blank keep-alive line after every N games
    history_needs_token: bool = True  # lichess.org answers [] to rating-history requests without a token
    faults: Faults = field(default_factory=Faults)
    token_scopes: dict[str, frozenset[str]] | None = None  # token -> its scopes; None: any token, every scope
    pm_all_per_week: int = 8  # lila's TeamPm: 8 team messages per team in 7 days
    inbox_per_minute: int = 20  # inbox messages per token in a minute
    limit_retry_after_s: int = 60  # Retry-After of a message refused by a rate limit (Lichess: wait a minute)
    record: Path | None = None  # append each finished request's RequestRecord to this file as an NDJSON line


class ReplayServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self, dataset: Dataset, port: int = 0, now: dt.datetime | None = None, options: ReplayOptions | None = None
    ) -> None:
        self.dataset = dataset
        self.options = options or ReplayOptions()
        self.now_ms = _ms(now) if now else None
        self.now_day = now.astimezone(dt.UTC).date() if now else None
        self.lock = threading.Lock()
        self.requests_served = 0
        self.requests_by_kind: dict[str, int] = {}
        self.games_sent = 0
        self.faults_injected: dict[str, int] = {}
        self.active_downloads = 0
        self.burst_left = 0  # requests still to fail in the current 5xx burst
        self.rng = random.Random(self.options.faults.seed)
        self.messages: list[dict[str, Any]] = []  # every message accepted (GET /_replay/messages)
        self._sent_at: dict[str, list[float]] = {}  # rate-limit key -> monotonic times of accepted messages
        self._rated_ends = _rated_antichess_ends(dataset)
        self._records: list[RequestRecord] = []  # every request answered (GET /_replay/requests)
        super().__init__((HOST, port), _Handler)
        # opened once the port is bound, so a server that cannot start leaves no file open
        self._record_file = (
            None if self.options.record is None else Path(self.options.record).open("a", encoding="utf-8")
        )

    def server_close(self) -> None:
        super().server_close()
        with self.lock:
            if self._record_file is not None:
                self._record_file.close()
                self._record_file = None

    def record(self, r: RequestRecord) -> None:
        """Keep a finished request's record; with ``options.record``, append it to the file as one
        NDJSON line, flushed (one write per line, so several servers may append to one file)."""
        with self.lock:
            self._records.append(r)
            if self._record_file is not None:
                self._record_file.write(json.dumps(r.as_json()) + "\n")
                self._record_file.flush()

    def requests(self) -> list[RequestRecord]:
        """The records of the requests answered so far, in the order they finished."""
        with self.lock:
            return list(self._records)

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (after a stall, a cut, a kill) is normal here: log, don't print."""
        log.debug("replay: connection from %s ended abruptly", client_address, exc_info=True)

    def count(self, kind: str) -> int:
        with self.lock:
            self.requests_served += 1
            self.requests_by_kind[kind] = self.requests_by_kind.get(kind, 0) + 1
            return self.requests_served

    def injected(self, kind: str) -> None:
        with self.lock:
            self.faults_injected[kind] = self.faults_injected.get(kind, 0) + 1

    def draw(self, rate: float) -> bool:
        with self.lock:
            return rate > 0 and self.rng.random() < rate

    def in_burst(self) -> int:
        """The HTTP status of this request if a 5xx burst holds it (502, 503 in turn), else 0."""
        f = self.options.faults
        if f.burst_5xx <= 0:
            return 0
        with self.lock:
            if self.burst_left == 0 and f.rate_5xx_burst > 0 and self.rng.random() < f.rate_5xx_burst:
                self.burst_left = f.burst_5xx
            if self.burst_left == 0:
                return 0
            self.burst_left -= 1
            return HTTPStatus.BAD_GATEWAY if (f.burst_5xx - self.burst_left) % 2 else HTTPStatus.SERVICE_UNAVAILABLE

    # -- the world as of `now`
    def user(self, name: str) -> dict[str, Any] | None:
        u = self.dataset.users.get(name.lower())
        if u is None:
            return None
        if self.now_ms is not None and u.get("createdAt", 0) > self.now_ms:
            return None
        if self.now_ms is None or u.get("disabled"):
            return u
        return self._profile_as_of(u)

    def _profile_as_of(self, u: dict[str, Any]) -> dict[str, Any]:
        """The antichess perf as it stood at `now`: later rated games not yet counted, the rating
        after the last rated game finished by then."""
        perf = (u.get("perfs") or {}).get("antichess")
        ends = self._rated_ends.get(u["id"].lower(), [])
        if perf is None or not ends:
            return u
        later = len(ends) - bisect.bisect_right(ends, (self.now_ms, float("inf")))
        if later == 0:
            return u
        done = len(ends) - later
        rating = ends[done - 1][1] if done else ends[0][2]
        games = perf.get("games", 0) - later
        perfs = dict(u["perfs"])
        if games <= 0:
            perfs.pop("antichess")
        else:
            perfs["antichess"] = {**perf, "games": games, "rating": rating}
        return {**u, "perfs": perfs}

    def games_of(self, uid: str) -> list[dict[str, Any]]:
        """The player's games that exist at `now` (created by then), sorted by createdAt."""
        games = self.dataset.games_by_user.get(uid, [])
        if self.now_ms is None:
            return games
        return [g for g in games if g.get("createdAt", 0) <= self.now_ms]

    def game(self, gid: str) -> dict[str, Any] | None:
        """The game of that id if it exists at `now` (created by then)."""
        g = self.dataset.games_by_id.get(gid)
        if g is None or (self.now_ms is not None and g.get("createdAt", 0) > self.now_ms):
            return None
        return g

    def is_ongoing(self, g: dict[str, Any]) -> bool:
        if g.get("status") in ONGOING:
            return True
        return self.now_ms is not None and g.get("lastMoveAt", 0) > self.now_ms

    def history_of(self, uid: str) -> list[Any]:
        hist = self.dataset.histories.get(uid, [])
        if self.now_day is None:
            return hist
        today, now_ms = self.now_day, self.now_ms or 0
        start_ms = _ms(dt.datetime(today.year, today.month, today.day, tzinfo=dt.UTC))
        out = []
        for perf in hist:
            pts = [p for p in perf.get("points", []) if dt.date(p[0], p[1] + 1, p[2]) < today]
            if perf.get("name") == "Antichess":
                # today's point, as Lichess has it mid-day: the rating after today's last rated game
                # ended by now, none before the first (the file's point is the day's end, later)
                ends = [e for e in self._rated_ends.get(uid.lower(), []) if start_ms <= e[0] <= now_ms]
                if ends:
                    pts.append([today.year, today.month - 1, today.day, round(ends[-1][1])])
            out.append({**perf, "points": pts})
        return out


def _rated_antichess_ends(ds: Dataset) -> dict[str, list[tuple[int, float, float]]]:
    """Per player: (lastMoveAt, rating after, rating before) of each rated antichess game, by end time."""
    out: dict[str, list[tuple[int, float, float]]] = {}
    for g in ds.games:
        if not (g.get("rated") and g.get("variant") == "antichess") or g.get("status") in UNFINISHED:
            continue
        for color in ("white", "black"):
            uid, rating, diff = side(g, color)
            if uid and isinstance(rating, int):
                after = rating + (diff if diff is not None else 0)
                out.setdefault(uid.lower(), []).append((g.get("lastMoveAt", 0), after, rating))
    for ends in out.values():
        ends.sort()
    return out


def _public(user: dict[str, Any]) -> dict[str, Any]:
    if user.get("disabled"):
        return {"id": user["id"], "username": user.get("username", user["id"]), "disabled": True}
    return user


class _StampedWriter:
    """The handler's socket writer, stamping the moment each write begins: a request's record ends
    at its last write's start, which no client can see the end of the answer before (a stamp taken
    after the write could come after the client's next request had begun)."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw
        self.last_write_ns: int | None = None

    def write(self, data: bytes) -> int:
        self.last_write_ns = time.monotonic_ns()
        return int(self._raw.write(data))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class _Handler(BaseHTTPRequestHandler):
    server: ReplayServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # headers and body go out in separate writes: without this, Nagle's algorithm and the
        # client's delayed ACK add ~40 ms to every keep-alive request
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.wfile = self._stamped = _StampedWriter(self.wfile)  # type: ignore[assignment]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
        log.debug("replay %s", format % args)

    # -- the request record
    _began: tuple[int, int] | None = None  # (monotonic ns, wall ms) when the request line was read
    _status = 0

    def parse_request(self) -> bool:
        self._began = (time.monotonic_ns(), time.time_ns() // 1_000_000)
        self._status = 0
        return super().parse_request()

    def send_response(self, code: int, message: str | None = None) -> None:
        self._status = int(code)
        super().send_response(code, message)

    def handle_one_request(self) -> None:
        """One request, then its record: it ends when its last write began (http.server's writes
        are unbuffered; a stream's last write is its final chunk), :class:`_StampedWriter`."""
        self._began = None
        self._stamped.last_write_ns = None
        try:
            super().handle_one_request()
        finally:
            self._record_request()

    def _record_request(self) -> None:
        end_ns = self._stamped.last_write_ns or time.monotonic_ns()
        if self._began is None:  # the connection closed without another request
            return
        path = urlsplit(getattr(self, "path", "") or "").path
        if path.startswith("/_replay/"):  # the server's own pages: not Lichess requests
            return
        headers = getattr(self, "headers", None)
        auth = (headers.get("Authorization") if headers is not None else None) or ""
        token = auth.removeprefix("Bearer ").strip() if auth.startswith("Bearer ") else auth.strip()
        start_ns, started_at_ms = self._began
        self.server.record(
            RequestRecord(
                lane=lane_name(self.server.base_url, token or None),
                method=self.command or "",
                path=path,
                status=self._status,
                start_ns=start_ns,
                end_ns=end_ns,
                started_at_ms=started_at_ms,
            )
        )

    # -- plumbing
    def _send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _not_found(self, message: str = "Not found") -> None:
        self._send_json(HTTPStatus.NOT_FOUND, {"error": message})

    def _parts(self) -> tuple[list[str], dict[str, str]]:
        url = urlsplit(self.path)
        segments = [unquote(s) for s in url.path.split("/") if s]
        query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        return segments, query

    def _injected_failure(self, n: int) -> bool:
        """429 / 5xx faults, before any work (as lila's rate limiter and a failing node would)."""
        f = self.server.options.faults
        if (f.every_429 and n % f.every_429 == 0) or self.server.draw(f.rate_429):
            self.server.injected("429")
            self._send_json(
                HTTPStatus.TOO_MANY_REQUESTS,
                {"error": "Too many requests. Try again later."},
                {"Retry-After": str(f.retry_after_s)},
            )
            return True
        if (f.every_5xx and n % f.every_5xx == 0) or self.server.draw(f.rate_5xx):
            self.server.injected("5xx")
            self._send_json(HTTPStatus.BAD_GATEWAY, {"error": "Bad gateway"})
            return True
        status = self.server.in_burst()
        if status:
            self.server.injected("5xx_burst")
            self._send_json(status, {"error": HTTPStatus(status).phrase})
            return True
        return False

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        seg, q = self._parts()
        kind = (
            "games"
            if seg[:3] == ["api", "games", "user"]
            else "rating_history"
            if seg[-1:] == ["rating-history"]
            else "user"
        )
        if seg == ["_replay", "messages"]:  # the server's own: what it received (never counted, never faulted)
            with self.server.lock:
                received = [{k: v for k, v in m.items() if not k.startswith("_")} for m in self.server.messages]
            return self._send_json(HTTPStatus.OK, received)
        if seg == ["_replay", "requests"]:  # the request record (never counted, never faulted, not recorded)
            return self._send_json(HTTPStatus.OK, [r.as_json() for r in self.server.requests()])
        if self._injected_failure(self.server.count(kind)):
            return
        if len(seg) == 3 and seg[:2] == ["api", "user"]:
            user = self.server.user(seg[2])
            if user is None:
                return self._not_found()
            if user.get("disabled"):
                return self._send_json(HTTPStatus.OK, _public(user))
            return self._send_json(
                HTTPStatus.OK, {**user, "url": f"https://lichess.org/@/{user.get('username', user['id'])}"}
            )
        if len(seg) == 4 and seg[:2] == ["api", "user"] and seg[3] == "rating-history":
            user = self.server.user(seg[2])
            if user is None or user.get("disabled"):
                return self._not_found("No such player, or account closed")
            if self.server.options.history_needs_token and not self.headers.get("Authorization"):
                # since 2026-08 Lichess builds histories on demand for OAuth requests only
                return self._send_json(HTTPStatus.OK, [])
            return self._send_json(HTTPStatus.OK, self.server.history_of(user["id"].lower()))
        if len(seg) == 4 and seg[:3] == ["api", "games", "user"]:
            with self.server.lock:
                busy = self.server.active_downloads >= self.server.options.max_downloads
                if not busy:
                    self.server.active_downloads += 1
            if busy:  # lila: at most 2 concurrent downloads per IP
                self.server.injected("429_concurrency")
                return self._send_json(
                    HTTPStatus.TOO_MANY_REQUESTS, {"error": "Too many concurrent downloads"}, {"Retry-After": "60"}
                )
            try:
                return self._export_games(seg[3], q)
            finally:
                with self.server.lock:
                    self.server.active_downloads -= 1
        return self._not_found()

    def do_POST(self) -> None:  # noqa: N802
        seg, q = self._parts()
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        if len(seg) == 3 and seg[0] == "team" and seg[2] == "pm-all":
            if not self._injected_failure(self.server.count("pm_all")):
                self._message("pm-all", seg[1], body, "message", "team:lead")
            return
        if len(seg) == 2 and seg[0] == "inbox":
            if not self._injected_failure(self.server.count("inbox")):
                self._message("inbox", seg[1], body, "text", "msg:write")
            return
        by_ids = seg == ["api", "games", "export", "_ids"]
        if self._injected_failure(self.server.count("games_by_id" if by_ids else "users")):
            return
        if seg == ["api", "users"]:
            ids = [i.strip() for i in body.split(",") if i.strip()][:USERS_BY_ID_LIMIT]
            found = [self.server.user(i) for i in ids]
            return self._send_json(HTTPStatus.OK, [_public(u) for u in found if u is not None])
        if by_ids:
            with self.server.lock:
                busy = self.server.active_downloads >= self.server.options.max_downloads
                if not busy:
                    self.server.active_downloads += 1
            if busy:
                self.server.injected("429_concurrency")
                return self._send_json(
                    HTTPStatus.TOO_MANY_REQUESTS, {"error": "Too many concurrent downloads"}, {"Retry-After": "60"}
                )
            try:
                return self._export_by_ids(body, q)
            finally:
                with self.server.lock:
                    self.server.active_downloads -= 1
        return self._not_found()

    def _message(self, endpoint: str, to: str, body: str, field_name: str, scope: str) -> None:
        """A team message or an inbox message, with lila's token, scope and rate-limit answers."""
        server = self.server
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            return self._send_json(HTTPStatus.UNAUTHORIZED, {"error": "Missing authorization header"})
        token = auth.removeprefix("Bearer ").strip()
        known = server.options.token_scopes
        if known is not None and token not in known:
            return self._send_json(HTTPStatus.UNAUTHORIZED, {"error": "No such token"})
        scopes = known[token] if known is not None else frozenset({"team:lead", "msg:write"})
        if scope not in scopes:
            return self._send_json(
                HTTPStatus.FORBIDDEN,
                {"error": f"Missing scope: {scope}"},
                {"X-OAuth-Scopes": ",".join(sorted(scopes)), "X-Accepted-OAuth-Scopes": scope},
            )
        text = (parse_qs(body, keep_blank_values=True).get(field_name) or [""])[-1]
        if not text.strip():
            return self._send_json(HTTPStatus.BAD_REQUEST, {"error": {field_name: ["This field is required."]}})
        if endpoint == "inbox":
            user = server.user(to)
            if user is None or user.get("disabled"):
                return self._not_found()
            to = user.get("username", user["id"])
            limit_key, limit, span_s = f"inbox:{token}", server.options.inbox_per_minute, 60.0
        else:
            limit_key, limit, span_s = f"pm-all:{to.lower()}", server.options.pm_all_per_week, 7 * 86400.0
        with server.lock:
            clock = time.monotonic()
            if endpoint == "pm-all" and any(
                m["endpoint"] == "pm-all"
                and m["to"].lower() == to.lower()
                and m["text"] == text
                and clock - m["_t"] < 600
                for m in server.messages
            ):
                limited = "dedup"
            else:
                times = [t for t in server._sent_at.get(limit_key, []) if clock - t < span_s]
                limited = "rate" if len(times) >= limit else ""
                if not limited:
                    server._sent_at[limit_key] = [*times, clock]
                    at = dt.datetime.now(dt.UTC) if server.now_ms is None else _from_ms(server.now_ms)
                    server.messages.append(
                        {"endpoint": endpoint, "to": to, "text": text, "at": at.isoformat(), "_t": clock}
                    )
        if limited == "dedup":
            return self._send_json(HTTPStatus.BAD_REQUEST, {"error": "You already sent this message recently"})
        if limited:
            server.injected(f"429_{endpoint}")
            return self._send_json(
                HTTPStatus.TOO_MANY_REQUESTS,
                {"error": "Too many requests. Try again later."},
                {"Retry-After": str(server.options.limit_retry_after_s)},
            )
        return self._send_json(HTTPStatus.OK, {"ok": True})

    def _export_by_ids(self, body: str, q: dict[str, str]) -> None:
        """The games of the body's ids (the first GAMES_BY_ID_LIMIT), newest first, unknown ids left out."""
        server = self.server
        ids = [i.strip() for i in body.split(",") if i.strip()][:GAMES_BY_ID_LIMIT]
        games = [g for g in map(server.game, dict.fromkeys(ids)) if g is not None]
        games.sort(key=lambda g: (g.get("createdAt", 0), g.get("id", "")), reverse=True)
        drop = {
            k
            for k, default in (("pgn", False), ("moves", True), ("clocks", False), ("opening", False))
            if not _flag(q, "pgnInJson" if k == "pgn" else k, default)
        }
        self._stream([_exported_line(server.dataset, g, drop, server.is_ongoing(g)) for g in games])

    def _export_games(self, name: str, q: dict[str, str]) -> None:
        user = self.server.user(name)
        if user is None or user.get("disabled"):
            return self._not_found()
        uid = user["id"].lower()
        try:
            since = int(q["since"]) if q.get("since") else None
            until = int(q["until"]) if q.get("until") else None
            limit = int(q["max"]) if q.get("max") else None
        except ValueError:
            return self._send_json(HTTPStatus.BAD_REQUEST, {"error": "since, until and max must be integers"})
        vs = q.get("vs")
        if vs is not None:
            opp = self.server.user(vs)
            if opp is None:
                return self._not_found(f"No such opponent: {vs}")
            vs = opp["id"].lower()
        server = self.server
        games = _select_games(server, uid, q, since, until, vs)
        if limit is not None:
            games = games[:limit]
        drop = {
            k
            for k, default in (("pgn", False), ("moves", True), ("clocks", False), ("opening", False))
            if not _flag(q, "pgnInJson" if k == "pgn" else k, default)
        }
        lines = [_exported_line(server.dataset, g, drop, server.is_ongoing(g)) for g in games]
        lines += [line + b"\n" for line in server.dataset.raw_lines_by_user.get(uid, [])]
        self._stream(lines)

    def _stream(self, lines: list[bytes]) -> None:
        """Chunked NDJSON, throttled per stream, with keep-alive blank lines and injected cuts/stalls."""
        opts = self.server.options
        f = opts.faults
        cut_at = stall_at = None
        total = sum(len(x) for x in lines)
        if total > 1 and self.server.draw(f.rate_cut):
            cut_at = self.server.rng.randrange(1, total)
        if lines and self.server.draw(f.rate_stall):
            stall_at = self.server.rng.randrange(0, len(lines))
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        started = time.monotonic()
        sent = 0
        buffer: list[bytes] = []  # unthrottled, several games go out in one write
        try:
            for i, line in enumerate(lines):
                if opts.games_per_s > 0:
                    delay = started + i / opts.games_per_s - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                if stall_at == i:
                    self.server.injected("stall")
                    self.wfile.flush()
                    time.sleep(f.stall_s)
                if cut_at is not None and sent + len(line) > cut_at:
                    part = line[: cut_at - sent]
                    self.wfile.write(f"{len(line):x}\r\n".encode() + part)  # the chunk says more than comes
                    self.wfile.flush()
                    self.server.injected("cut")
                    self.close_connection = True
                    return
                if opts.keepalive_every and i and i % opts.keepalive_every == 0:
                    line = b"\n" + line
                buffer.append(f"{len(line):x}\r\n".encode() + line + b"\r\n")
                if opts.games_per_s > 0 or len(buffer) >= 64 or cut_at is not None or stall_at is not None:
                    self.wfile.write(b"".join(buffer))
                    buffer.clear()
                sent += len(line)
                with self.server.lock:
                    self.server.games_sent += 1
            self.wfile.write(b"".join(buffer) + b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (e.g. after a stall)
            self.close_connection = True


def _flag(q: dict[str, str], key: str, default: bool) -> bool:
    """A boolean query parameter as Lichess reads it (absent: the default)."""
    return (q[key] in TRUEISH) if key in q else default


def _select_games(
    server: ReplayServer, uid: str, q: dict[str, str], since: int | None, until: int | None, vs: str | None
) -> list[dict[str, Any]]:
    """`uid`'s exportable games that pass the export's filters, in the requested order."""
    games = [g for g in server.games_of(uid) if g.get("status") not in NEVER_EXPORTED]
    ongoing, finished = _flag(q, "ongoing", False), _flag(q, "finished", True)
    games = [g for g in games if (ongoing if server.is_ongoing(g) else finished)]
    # like a Mongo range query, a game without createdAt matches no since/until bound
    if since is not None:
        games = [g for g in games if isinstance(g.get("createdAt"), int) and g["createdAt"] >= since]
    if until is not None:
        games = [g for g in games if isinstance(g.get("createdAt"), int) and g["createdAt"] < until]
    if vs is not None:
        games = [g for g in games if vs in _player_ids(g)]
    if "rated" in q:
        games = [g for g in games if bool(g.get("rated")) == _flag(q, "rated", False)]
    if q.get("perfType"):
        perfs = set(q["perfType"].split(","))
        games = [g for g in games if g.get("perf") in perfs]
    if q.get("color") in ("white", "black"):
        games = [g for g in games if side(g, q["color"])[0] == uid]
    if q.get("sort", "dateDesc") != "dateAsc":
        games = list(reversed(games))
    return games


def _exported_line(dataset: Dataset, g: dict[str, Any], drop: set[str], ongoing: bool) -> bytes:
    """The game's NDJSON line as the export writes it (:func:`_as_exported`): its line as loaded
    when that holds the same object (no field of it dropped, not shown as still started; as
    Lichess sends the stored game), else the object written again."""
    if isinstance(g, StoredGame) and not ongoing and drop.isdisjoint(g):
        return g.line()
    return (json.dumps(_as_exported(g, drop, ongoing)) + "\n").encode()


def _as_exported(g: dict[str, Any], drop: set[str], ongoing: bool) -> dict[str, Any]:
    """The game as the export writes it: without the `drop`ped fields; a game that finishes later
    than the server's `now` as still started (no winner, end or rating changes)."""
    whole = g.whole() if isinstance(g, StoredGame) else g
    out = {k: v for k, v in whole.items() if k not in drop}
    if ongoing and g.get("status") not in ONGOING:  # finished later than `now`
        out["status"] = "started"
        for k in ("winner", "lastMoveAt"):
            out.pop(k, None)
        for color in ("white", "black"):
            if isinstance(out.get("players", {}).get(color), dict):
                out["players"] = {
                    **out["players"],
                    color: {k: v for k, v in out["players"][color].items() if k != "ratingDiff"},
                }
    return out


def _player_ids(g: dict[str, Any]) -> set[str]:
    out = set()
    for color in ("white", "black"):
        uid = side(g, color)[0]
        if uid:
            out.add(uid.lower())
    return out


@contextlib.contextmanager
def running(
    data: Path | str | Dataset, port: int = 0, now: dt.datetime | None = None, options: ReplayOptions | None = None
) -> Iterator[ReplayServer]:
    """Serve a dataset in a background thread for the duration of the block."""
    dataset = data if isinstance(data, Dataset) else Dataset.load(data)
    server = ReplayServer(dataset, port=port, now=now, options=options)
    thread = threading.Thread(target=server.serve_forever, name="replay-server", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
