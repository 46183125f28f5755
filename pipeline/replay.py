"""The replay server: a recorded Lichess dataset served on 127.0.0.1 with the real API's semantics.

Dataset layout (DESIGN.md contract 3)::

    DIR/users.ndjson                  Lichess user JSON, one per line (as GET /api/user/{name})
    DIR/rating-history/<user_id>.json as GET /api/user/{name}/rating-history returns it
    DIR/games.ndjson                  game JSON as the games export returns it with pgnInJson=true

Semantics copied from lichess.org (reference/lichess-api.md):

* ``GET /api/user/{name}``: the user; closed accounts as ``{id, username, disabled}``; unknown → 404.
* ``POST /api/users``: comma-separated ids in the body, the first 300 only, unknown ids skipped,
  answered in the order asked.
* ``GET /api/user/{name}/rating-history``: closed or unknown → 404.
* ``GET /api/games/user/{name}``: NDJSON, newest first (``sort=dateAsc`` for oldest first),
  ``since`` inclusive / ``until`` exclusive on ``createdAt`` (ms), ``vs``, ``max``, ``rated``,
  ``perfType``, ``color``; finished games only; ``pgn`` only with ``pgnInJson``, ``moves`` unless
  ``moves=false``, ``clocks`` only with ``clocks=true``, ``opening`` only with ``opening=true``.
  Booleans are read as lila does: ``1 true True on yes`` are true, anything else false.

``now`` serves the world as it stood then: only games finished by then, rating-history points
up to that UTC day, only accounts created by then. The server binds 127.0.0.1 only and never maps
a URL to a file: everything is loaded from the data folder at start.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from pipeline.errors import InputError

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
USERS_BY_ID_LIMIT = 300
UNFINISHED = frozenset({"created", "started", "aborted"})
TRUEISH = frozenset({"1", "true", "True", "on", "yes"})


def _read_ndjson(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8") as f:
        for line_no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(path, f"line {line_no}", f"not valid JSON ({e.msg}): expected one JSON object per line") from None
            if not isinstance(obj, dict):
                raise InputError(path, f"line {line_no}", "expected a JSON object")
            yield line_no, obj


@dataclass
class Dataset:
    """A recorded Lichess world, indexed for the endpoints above."""

    users: dict[str, dict[str, Any]]
    histories: dict[str, list[Any]]
    games: list[dict[str, Any]]
    games_by_user: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @classmethod
    def load(cls, folder: Path | str) -> Dataset:
        folder = Path(folder)
        if not folder.is_dir():
            raise InputError(folder, "", "not a folder: expected a Lichess dataset (users.ndjson, rating-history/, games.ndjson)")
        users: dict[str, dict[str, Any]] = {}
        users_path = folder / "users.ndjson"
        if not users_path.is_file():
            raise InputError(users_path, "", "file not found: a dataset needs users.ndjson")
        for line_no, u in _read_ndjson(users_path):
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
        games: list[dict[str, Any]] = []
        games_path = folder / "games.ndjson"
        if games_path.is_file():
            games = [g for _, g in _read_ndjson(games_path)]
        ds = cls(users, histories, games)
        ds.index()
        return ds

    def index(self) -> None:
        self.games.sort(key=lambda g: (g.get("createdAt", 0), g.get("id", "")))
        self.games_by_user = {}
        for g in self.games:
            for color in ("white", "black"):
                uid = ((g.get("players") or {}).get(color) or {}).get("user", {}).get("id")
                if uid:
                    self.games_by_user.setdefault(uid.lower(), []).append(g)


def _ms(t: dt.datetime) -> int:
    return (t - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(milliseconds=1)


class ReplayServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, dataset: Dataset, port: int = 0, now: dt.datetime | None = None) -> None:
        self.dataset = dataset
        self.now_ms = _ms(now) if now else None
        self.now_day = now.astimezone(dt.UTC).date() if now else None
        self.requests_served = 0
        super().__init__((HOST, port), _Handler)

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}"

    # -- the world as of `now`
    def user(self, name: str) -> dict[str, Any] | None:
        u = self.dataset.users.get(name.lower())
        if u is None:
            return None
        if self.now_ms is not None and u.get("createdAt", 0) > self.now_ms:
            return None
        return u

    def games_of(self, uid: str) -> list[dict[str, Any]]:
        games = self.dataset.games_by_user.get(uid, [])
        if self.now_ms is None:
            return games
        return [g for g in games if g.get("lastMoveAt", g.get("createdAt", 0)) <= self.now_ms]

    def history_of(self, uid: str) -> list[Any]:
        hist = self.dataset.histories.get(uid, [])
        if self.now_day is None:
            return hist
        out = []
        for perf in hist:
            pts = [p for p in perf.get("points", []) if dt.date(p[0], p[1] + 1, p[2]) <= self.now_day]
            out.append({**perf, "points": pts})
        return out


def _public(user: dict[str, Any]) -> dict[str, Any]:
    if user.get("disabled"):
        return {"id": user["id"], "username": user.get("username", user["id"]), "disabled": True}
    return user


class _Handler(BaseHTTPRequestHandler):
    server: ReplayServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
        log.debug("replay %s", format % args)

    # -- plumbing
    def _send_json(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _not_found(self, message: str = "Not found") -> None:
        self._send_json(HTTPStatus.NOT_FOUND, {"error": message})

    def _parts(self) -> tuple[list[str], dict[str, str]]:
        url = urlsplit(self.path)
        segments = [unquote(s) for s in url.path.split("/") if s]
        query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        return segments, query

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.server.requests_served += 1
        seg, q = self._parts()
        if len(seg) == 3 and seg[:2] == ["api", "user"]:
            user = self.server.user(seg[2])
            if user is None:
                return self._not_found()
            if user.get("disabled"):
                return self._send_json(HTTPStatus.OK, _public(user))
            return self._send_json(HTTPStatus.OK, {**user, "url": f"https://lichess.org/@/{user.get('username', user['id'])}"})
        if len(seg) == 4 and seg[:2] == ["api", "user"] and seg[3] == "rating-history":
            user = self.server.user(seg[2])
            if user is None or user.get("disabled"):
                return self._not_found("No such player, or account closed")
            return self._send_json(HTTPStatus.OK, self.server.history_of(user["id"].lower()))
        if len(seg) == 4 and seg[:3] == ["api", "games", "user"]:
            return self._export_games(seg[3], q)
        return self._not_found()

    def do_POST(self) -> None:  # noqa: N802
        self.server.requests_served += 1
        seg, _ = self._parts()
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        if seg == ["api", "users"]:
            ids = [i.strip() for i in body.split(",") if i.strip()][:USERS_BY_ID_LIMIT]
            found = [self.server.user(i) for i in ids]
            return self._send_json(HTTPStatus.OK, [_public(u) for u in found if u is not None])
        return self._not_found()

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

        def flag(key: str, default: bool) -> bool:
            return (q[key] in TRUEISH) if key in q else default

        games = [g for g in self.server.games_of(uid) if g.get("status") not in UNFINISHED]
        # like a Mongo range query, a game without createdAt matches no since/until bound
        if since is not None:
            games = [g for g in games if isinstance(g.get("createdAt"), int) and g["createdAt"] >= since]
        if until is not None:
            games = [g for g in games if isinstance(g.get("createdAt"), int) and g["createdAt"] < until]
        if vs is not None:
            games = [g for g in games if vs in _player_ids(g)]
        if "rated" in q:
            games = [g for g in games if bool(g.get("rated")) == flag("rated", False)]
        if q.get("perfType"):
            perfs = set(q["perfType"].split(","))
            games = [g for g in games if g.get("perf") in perfs]
        if q.get("color") in ("white", "black"):
            games = [g for g in games if ((g["players"].get(q["color"]) or {}).get("user") or {}).get("id") == uid]
        if q.get("sort", "dateDesc") != "dateAsc":
            games = list(reversed(games))
        if limit is not None:
            games = games[:limit]
        drop = {k for k, default in (("pgn", False), ("moves", True), ("clocks", False), ("opening", False))
                if not flag("pgnInJson" if k == "pgn" else k, default)}

        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for g in games:
            line = (json.dumps({k: v for k, v in g.items() if k not in drop}) + "\n").encode()
            self.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")


def _player_ids(g: dict[str, Any]) -> set[str]:
    out = set()
    for color in ("white", "black"):
        uid = ((g.get("players") or {}).get(color) or {}).get("user", {}).get("id")
        if uid:
            out.add(uid.lower())
    return out


@contextlib.contextmanager
def running(data: Path | str | Dataset, port: int = 0, now: dt.datetime | None = None) -> Iterator[ReplayServer]:
    """Serve a dataset in a background thread for the duration of the block."""
    dataset = data if isinstance(data, Dataset) else Dataset.load(data)
    server = ReplayServer(dataset, port=port, now=now)
    thread = threading.Thread(target=server.serve_forever, name="replay-server", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
