"""The Lichess adapter: the only module that imports berserk, and where Lichess payloads get types.

Facts it relies on (Lichess's API and berserk 0.14; docs/ingestion.md):

* ``base_url`` must be a server root (berserk drops a path prefix).
* berserk sets no timeout: the session below adds one to every request.
* ``berserk.TokenSession`` turns gzip off; a plain ``requests.Session`` with an Authorization
  header keeps it. The token is only ever put in that header: never logged or stored.
* ``since``/``until`` must be int milliseconds (a datetime is silently ignored by Lichess).
* berserk turns ``createdAt``/``lastMoveAt`` into datetimes in place; :func:`wire_form` turns
  them back so the raw tables keep what Lichess sent.
* ``POST /api/users`` and ``POST /api/games/export/_ids`` keep the first 300 ids only: we send
  chunks of 300. berserk's ``games.export_multi`` sends the ids but cannot ask for ``pgnInJson``
  and parses the lines: :func:`fetch_games_by_id` posts through the same requestor instead.
* the games export's ``perfType``/``rated`` filters go through a search index with duplicates
  and gaps: we never send them, and filter ``variant == "antichess"`` ourselves.
* berserk has no retries, backoff or 429 handling: the session below adds them (one lane,
  at least 60 s after a 429), and counts what the run cost.
* Messages (``POST /team/{id}/pm-all``, scope ``team:lead``; ``POST /inbox/{name}``, scope
  ``msg:write``) are form posts through the same session. Lichess answers a token without the
  scope with 403 ``{"error": "Missing scope: ..."}``; it answers 429 before doing anything, so a
  429 is waited out and retried, but a message is never sent again after a 5xx or a lost answer
  (it may have arrived): :func:`send_message` says which of these happened.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

import berserk
import berserk.formats
import requests

from pipeline.errors import LichessError

if TYPE_CHECKING:
    from pipeline.lichess.league_cache import LeagueCache

log = logging.getLogger(__name__)

USERS_PER_REQUEST = 300
GAMES_PER_REQUEST = 300  # POST /api/games/export/_ids (600 for verified accounts; the rest is dropped)
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
GAME_STATUSES = frozenset(
    {
        "created",
        "started",
        "aborted",
        "mate",
        "resign",
        "stalemate",
        "timeout",
        "draw",
        "outoftime",
        "cheat",
        "noStart",
        "unknownFinish",
        "insufficientMaterialClaim",
        "variantEnd",
    }
)
Winner = Literal["white", "black"]


@dataclass
class FetchStats:
    """What a run cost Lichess: requests sent, retries, seconds waited after HTTP 429."""

    requests: int = 0
    retries: int = 0
    rate_limited: int = 0
    waited_429_s: float = 0.0
    server_errors: int = 0
    connection_errors: int = 0
    streams_resumed: int = 0
    league_answered: int = 0  # profiles, histories and streams a league's shared store answered


@dataclass(frozen=True)
class RetryPolicy:
    """How the one lane to Lichess behaves when Lichess pushes back (docs/ingestion.md, Failures).

    Lichess asks for one request at a time and, after an HTTP 429, a wait of a minute or more.

    HTTP 429 → wait at least ``rate_limit_wait_s`` (60 s, as Lichess asks; Retry-After if longer),
    doubling on each further 429; 5xx and connection errors/timeouts → ``max_retries`` retries with
    ``backoff_s`` doubling. Tests shrink the waits; production keeps the defaults.
    """

    rate_limit_wait_s: float = 60.0
    backoff_s: float = 2.0
    max_retries: int = 5
    max_wait_s: float = 600.0
    retry_errors: bool = True  # False for a message: a 5xx or a lost answer may hide one that was sent


class _Session(requests.Session):
    """requests.Session with a timeout on every request, bounded retries, and a bearer token.

    gzip stays on (berserk's TokenSession would turn it off). The token only ever goes into
    the Authorization header; nothing here logs headers or URLs with it.
    """

    def __init__(
        self,
        token: str | None,
        timeout_s: float,
        policy: RetryPolicy,
        stats: FetchStats,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__()
        self.timeout_s = timeout_s
        self.cache: LeagueCache | None = None  # a league's shared store, read through (make_client)
        self.policy = policy
        self.stats = stats
        self.sleep = sleep
        self.headers["User-Agent"] = "antichess-td (tournament directors' pipeline)"
        if token:
            self.headers["Authorization"] = f"Bearer {token}"

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", self.timeout_s)
        attempt = 0
        wait_429 = self.policy.rate_limit_wait_s
        while True:
            self.stats.requests += 1
            try:
                response = super().request(method, url, *args, **kwargs)
            except (requests.ConnectionError, requests.Timeout):
                self.stats.connection_errors += 1
                if attempt >= self.policy.max_retries or not self.policy.retry_errors:
                    raise
                delay = self._backoff(attempt)
            else:
                if response.status_code == 429:
                    self.stats.rate_limited += 1
                    if attempt >= self.policy.max_retries:
                        return response
                    delay = max(wait_429, _retry_after(response))
                    wait_429 = min(wait_429 * 2, self.policy.max_wait_s)
                    self.stats.waited_429_s += delay
                elif response.status_code >= 500:
                    self.stats.server_errors += 1
                    if attempt >= self.policy.max_retries or not self.policy.retry_errors:
                        return response
                    delay = self._backoff(attempt)
                else:
                    return response
                response.close()
            attempt += 1
            self.stats.retries += 1
            log.info("retrying %s %s in %.1f s (attempt %d)", method, urlsplit(url).path, delay, attempt + 1)
            self.sleep(delay)

    def _backoff(self, attempt: int) -> float:
        return min(self.policy.backoff_s * 2**attempt, self.policy.max_wait_s)


def _retry_after(response: requests.Response) -> float:
    try:
        return float(response.headers.get("Retry-After", 0))
    except ValueError:
        return 0.0


class _RawNdjson(berserk.formats.FormatHandler[str]):
    """NDJSON as raw lines: each record is kept exactly as it arrived (raw first), and one
    malformed line becomes a rejected record instead of killing the stream. Blank keep-alive
    lines are skipped."""

    def __init__(self) -> None:
        super().__init__(mime_type="application/x-ndjson")

    def parse_stream(self, response: requests.Response) -> Iterator[str]:
        for line in response.iter_lines(chunk_size=65536):
            if line.strip():
                yield line.decode("utf-8", errors="replace")


RAW_NDJSON = _RawNdjson()


def make_client(
    base_url: str,
    token: str | None,
    timeout_s: float,
    policy: RetryPolicy | None = None,
    stats: FetchStats | None = None,
    sleep: Callable[[float], None] = time.sleep,
    cache: LeagueCache | None = None,
) -> berserk.Client:
    """A berserk client on our session (timeouts, retries, the token); with `cache`, profiles,
    histories and game streams read through a league's shared store (pipeline/lichess/league_cache.py)."""
    session = _Session(token, timeout_s, policy or RetryPolicy(), stats if stats is not None else FetchStats(), sleep)
    session.cache = cache
    return berserk.Client(session=session, base_url=base_url.rstrip("/"))


def cache_of(client: berserk.Client) -> LeagueCache | None:
    """The league store the client reads through, if any."""
    session = client.games._r.session
    return session.cache if isinstance(session, _Session) else None


def stats_of(client: berserk.Client) -> FetchStats:
    session = client.games._r.session
    assert isinstance(session, _Session), "a client made by make_client"
    return session.stats


def to_ms(t: dt.datetime) -> int:
    """Exact epoch milliseconds of an aware datetime."""
    return (t - EPOCH) // dt.timedelta(milliseconds=1)


def from_ms(ms: int) -> dt.datetime:
    return EPOCH + dt.timedelta(milliseconds=ms)


def wire_form(obj: dict[str, Any]) -> dict[str, Any]:
    """Undo berserk's in-place datetime conversion, giving back the JSON Lichess sent."""
    return {k: (to_ms(v) if isinstance(v, dt.datetime) else v) for k, v in obj.items()}


STREAM_ERRORS = (requests.exceptions.ChunkedEncodingError, requests.ConnectionError, requests.Timeout)


def _wrap(what: str, e: Exception) -> LichessError:
    if isinstance(e, berserk.exceptions.ResponseError):
        return LichessError(f"{what}: HTTP {e.status_code}")
    return LichessError(f"{what}: {type(e).__name__}")


# --------------------------------------------------------------------------- fetching


def fetch_users(client: berserk.Client, user_ids: Iterable[str]) -> list[dict[str, Any]]:
    """Profiles of the given ids through POST /api/users, in chunks of 300 (Lichess drops the rest)."""
    ids = list(dict.fromkeys(u.lower() for u in user_ids))
    cache = cache_of(client)
    if cache is not None:
        return cache.users(ids, lambda asked: _fetch_users(client, asked))
    return _fetch_users(client, ids)


def _fetch_users(client: berserk.Client, ids: list[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(0, len(ids), USERS_PER_REQUEST):
        chunk = ids[i : i + USERS_PER_REQUEST]
        try:
            out.extend(wire_form(u) for u in client.users.get_by_id(*chunk))
        except (berserk.exceptions.BerserkError, requests.RequestException) as e:
            raise _wrap(f"POST /api/users ({len(chunk)} ids)", e) from e
    return out


def fetch_rating_history(client: berserk.Client, user_id: str) -> list[dict[str, Any]]:
    """GET /api/user/{id}/rating-history, in wire form (points as [year, month0, day, rating])."""
    cache = cache_of(client)
    if cache is not None:
        return cache.history(user_id, lambda: _fetch_rating_history(client, user_id))
    return _fetch_rating_history(client, user_id)


def _fetch_rating_history(client: berserk.Client, user_id: str) -> list[dict[str, Any]]:
    try:
        perfs = client.users.get_rating_history(user_id)
    except (berserk.exceptions.BerserkError, requests.RequestException) as e:
        raise _wrap(f"rating history of {user_id!r}", e) from e
    return [{"name": p["name"], "points": [list(pt) for pt in p.get("points", [])]} for p in perfs]


def open_game_stream(
    client: berserk.Client, user_id: str, since_ms: int | None, vs: str | None = None
) -> Iterator[str]:
    """A player's games (all variants, finished and ongoing) from ``since_ms`` on, oldest first,
    with PGN, as raw NDJSON lines. No perfType/rated filters: they go through Lichess's search
    index, which duplicates and drops games (lichess-org/api#366); we filter ourselves.

    Errors at request time raise LichessError; a cut mid-stream raises one of STREAM_ERRORS from
    the iterator, and the caller resumes from its cursor."""
    cache = cache_of(client)
    if cache is not None:
        return cache.stream(user_id, since_ms, vs, lambda: _open_game_stream(client, user_id, since_ms, vs))
    return _open_game_stream(client, user_id, since_ms, vs)


def _open_game_stream(client: berserk.Client, user_id: str, since_ms: int | None, vs: str | None) -> Iterator[str]:
    params: dict[str, Any] = {
        "since": since_ms,
        "vs": vs,
        "moves": True,
        "pgnInJson": True,
        "sort": "dateAsc",
        "ongoing": True,
    }
    try:
        return iter(client.games._r.get(f"/api/games/user/{user_id}", params=params, fmt=RAW_NDJSON, stream=True))
    except (berserk.exceptions.BerserkError, requests.RequestException) as e:
        raise _wrap(f"games of {user_id!r}", e) from e


def fetch_games_by_id(client: berserk.Client, game_ids: Iterable[str]) -> Iterator[str]:
    """The games of ``game_ids`` through ``POST /api/games/export/_ids`` (the body the ids
    comma-separated, 300 a request, one request after another), with the query the games export
    sends (moves, pgnInJson), as raw NDJSON lines. Lichess answers with the games it has, finished
    or still being played, and leaves out ids it does not know (a deleted game).

    Errors at request time raise LichessError; a cut mid-stream raises one of STREAM_ERRORS."""
    ids = list(dict.fromkeys(game_ids))
    params = {"moves": True, "pgnInJson": True}
    for i in range(0, len(ids), GAMES_PER_REQUEST):
        chunk = ids[i : i + GAMES_PER_REQUEST]
        try:
            lines = client.games._r.post(
                "/api/games/export/_ids", params=params, data=",".join(chunk), fmt=RAW_NDJSON, stream=True
            )
        except (berserk.exceptions.BerserkError, requests.RequestException) as e:
            raise _wrap(f"POST /api/games/export/_ids ({len(chunk)} ids)", e) from e
        yield from lines


# --------------------------------------------------------------------------- typing


@dataclass(frozen=True)
class UserRow:
    user_id: str
    username: str
    created_at: dt.datetime | None
    title: str | None
    is_bot: bool
    is_closed: bool
    tos_violation: bool
    antichess_games: int
    antichess_rating: int | None
    antichess_rd: int | None
    is_provisional: bool | None


@dataclass(frozen=True)
class GameRow:
    game_id: str
    created_at: dt.datetime
    last_move_at: dt.datetime
    white_id: str | None
    black_id: str | None
    white_name: str | None
    black_name: str | None
    rated: bool
    variant: str
    speed: str | None
    clock_initial_s: int | None
    clock_increment_s: int | None
    status: str
    winner: Winner | None
    white_rating: int | None
    black_rating: int | None
    white_rating_diff: int | None
    black_rating_diff: int | None
    moves: str | None
    pgn: str | None
    url: str


@dataclass(frozen=True)
class RatingPoint:
    user_id: str
    day: dt.date
    rating: int


def parse_user(u: dict[str, Any]) -> UserRow:
    """Type a user payload; ValueError names what is wrong."""
    uid = u.get("id")
    if not isinstance(uid, str) or not uid:
        raise ValueError("missing 'id'")
    closed = bool(u.get("disabled"))
    created = u.get("createdAt")
    if created is not None and not isinstance(created, int):
        raise ValueError(f"createdAt {created!r}: expected epoch milliseconds")
    if not closed and created is None:
        raise ValueError("missing 'createdAt'")
    perf = (u.get("perfs") or {}).get("antichess")  # absent when the player has no rated antichess game
    return UserRow(
        user_id=uid.lower(),
        username=u.get("username") or uid,
        created_at=from_ms(created) if created is not None else None,
        title=u.get("title"),
        is_bot=u.get("title") == "BOT",
        is_closed=closed,
        tos_violation=bool(u.get("tosViolation")),
        antichess_games=int(perf["games"]) if perf else 0,
        antichess_rating=int(perf["rating"]) if perf else None,
        antichess_rd=int(perf["rd"]) if perf else None,
        is_provisional=bool(perf.get("prov", False)) if perf else None,
    )


def parse_rating_history(user_id: str, perfs: list[dict[str, Any]]) -> list[RatingPoint]:
    """The ``Antichess`` entry of a rating history (matched by name, not position; month is 0-based)."""
    out = []
    for perf in perfs:
        if perf.get("name") != "Antichess":
            continue
        for pt in perf.get("points", []):
            if not (isinstance(pt, list) and len(pt) == 4 and all(isinstance(x, int) for x in pt)):
                raise ValueError(f"rating point {pt!r}: expected [year, month0, day, rating]")
            y, m0, d, rating = pt
            out.append(RatingPoint(user_id, dt.date(y, m0 + 1, d), rating))
    return out


def _player(g: dict[str, Any], color: str) -> dict[str, Any]:
    p = (g.get("players") or {}).get(color)
    if not isinstance(p, dict):
        raise ValueError(f"missing players.{color}")
    return p


def parse_game(g: dict[str, Any]) -> GameRow:
    """Type a game payload; ValueError names what is wrong."""
    gid = g.get("id")
    if not isinstance(gid, str) or not gid:
        raise ValueError("missing 'id'")
    for key in ("createdAt", "lastMoveAt"):
        if key not in g:
            raise ValueError(f"missing {key!r} (expected epoch milliseconds)")
        if not isinstance(g.get(key), int):
            raise ValueError(f"{key} {g.get(key)!r}: expected epoch milliseconds")
    status = g.get("status")
    if status not in GAME_STATUSES:
        raise ValueError(f"unknown status {status!r} (not one of Lichess's game statuses)")
    winner = g.get("winner")
    if winner not in (None, "white", "black"):
        raise ValueError(f"winner {winner!r}: expected white, black or absent")
    variant = g.get("variant")
    if not isinstance(variant, str):
        raise ValueError("missing 'variant'")
    white, black = _player(g, "white"), _player(g, "black")
    clock = g.get("clock")
    if clock is not None and not (isinstance(clock.get("initial"), int) and isinstance(clock.get("increment"), int)):
        raise ValueError(f"clock {clock!r}: expected initial and increment in seconds")
    wu, bu = white.get("user") or {}, black.get("user") or {}
    return GameRow(
        game_id=gid,
        created_at=from_ms(g["createdAt"]),
        last_move_at=from_ms(g["lastMoveAt"]),
        white_id=(wu.get("id") or "").lower() or None,
        black_id=(bu.get("id") or "").lower() or None,
        white_name=wu.get("name"),
        black_name=bu.get("name"),
        rated=bool(g.get("rated")),
        variant=variant,
        speed=g.get("speed"),
        clock_initial_s=clock["initial"] if clock else None,
        clock_increment_s=clock["increment"] if clock else None,
        status=status,
        winner=winner,
        white_rating=white.get("rating"),
        black_rating=black.get("rating"),
        white_rating_diff=white.get("ratingDiff"),
        black_rating_diff=black.get("ratingDiff"),
        moves=g.get("moves"),
        pgn=g.get("pgn"),
        url=f"https://lichess.org/{gid}",
    )
