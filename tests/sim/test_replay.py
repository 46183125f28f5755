"""The replay server against the real Lichess API semantics (docs/ingestion.md, What Lichess's API does).

Real HTTP on 127.0.0.1, the real berserk client (pipeline.lichess.client.make_client) and plain
``requests`` where berserk has no method or hides the raw body. Every dataset is written here,
by hand, into pytest's tmp dirs; every expectation is worked out from that data and the rules.

Timeline of the main dataset (UTC; each game's lastMoveAt is createdAt + 60 s unless noted)::

    g1 2026-03-05 20:00  alice-bob    resign        g4 23:00      carol-alice  outoftime
    g2 21:00             bob-alice    variantEnd    g6 23:00:30   alice-bob    timeout (lastMoveAt 23:02)
    g3 22:00             alice-carol  draw (std)    g5 03-06 04:00 bob-alice   draw
    gc 2026-03-06 00:00  created      gs 01:00 started      ga 02:00 aborted   (never exported)
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import berserk
import pytest
import requests

from kits.lichess_data import write_dataset
from pipeline.errors import InputError
from pipeline.lichess.client import fetch_games_by_id, make_client
from pipeline.sim import replay

UTC = dt.UTC
H = 3_600_000  # one hour in ms
T0 = 1_772_740_800_000  # 2026-03-05T20:00:00Z
CREATED_2020 = 1_577_836_800_000  # 2020-01-01T00:00:00Z
NOW = dt.datetime(2026, 3, 5, 23, 1, tzinfo=UTC)  # == g4's lastMoveAt
NOW_MS = 1_772_751_660_000  # 2026-03-05T23:01:00Z
NEWBIE_CREATED = 1_773_100_800_000  # 2026-03-10T00:00:00Z, after NOW


# --------------------------------------------------------------------------- dataset


def _user(uid: str, username: str, created: int = CREATED_2020, **extra: Any) -> dict[str, Any]:
    return {
        "id": uid,
        "username": username,
        "createdAt": created,
        "perfs": {"antichess": {"games": 10, "rating": 1500, "rd": 80, "prog": 0}},
        **extra,
    }


def _game(
    gid: str,
    white: str,
    black: str,
    created: int,
    status: str,
    *,
    variant: str = "antichess",
    last_move: int | None = None,
    winner: str | None = None,
) -> dict[str, Any]:
    g: dict[str, Any] = {
        "id": gid,
        "rated": True,
        "variant": variant,
        "speed": "blitz",
        "perf": "antichess" if variant == "antichess" else "blitz",
        "createdAt": created,
        "lastMoveAt": created + 60_000 if last_move is None else last_move,
        "status": status,
        "source": "friend",
        "players": {
            "white": {"user": {"name": white.title(), "id": white}, "rating": 1500},
            "black": {"user": {"name": black.title(), "id": black}, "rating": 1500},
        },
        "moves": "e3 b5 Bxb5",
        "clock": {"initial": 180, "increment": 0, "totalTime": 180},
        "opening": {"eco": "A00", "name": "Van't Kruijs Opening", "ply": 1},
        "pgn": f'[Event "Rated antichess game"]\n[Site "https://lichess.org/{gid}"]\n\n1. e3 b5 2. Bxb5 *\n',
    }
    if winner:
        g["winner"] = winner
    return g


GAMES = [  # deliberately not in createdAt order: the server must sort
    _game("g3", "alice", "carol", T0 + 2 * H, "draw", variant="standard"),
    _game("g1", "alice", "bob", T0, "resign", winner="white"),
    _game("g5", "bob", "alice", T0 + 8 * H, "draw"),
    _game("gc", "alice", "bob", T0 + 4 * H, "created"),
    _game("g2", "bob", "alice", T0 + 1 * H, "variantEnd", winner="black"),
    _game("ga", "alice", "carol", T0 + 6 * H, "aborted"),
    _game("g6", "alice", "bob", T0 + 3 * H + 30_000, "timeout", last_move=T0 + 3 * H + 120_000, winner="white"),
    _game("g4", "carol", "alice", T0 + 3 * H, "outoftime", winner="black"),
    _game("gs", "alice", "bob", T0 + 5 * H, "started"),
]
GAME = {g["id"]: g for g in GAMES}

ALICE_HISTORY = [
    {"name": "Bullet", "points": [[2026, 1, 1, 1400], [2026, 2, 7, 1410]]},
    {"name": "Antichess", "points": [[2026, 1, 28, 1500], [2026, 2, 5, 1510], [2026, 2, 6, 1520], [2026, 2, 7, 1530]]},
    {"name": "Atomic", "points": []},
]

MANY = [f"u{i:03d}" for i in range(305)]  # u000 … u304


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    users = [
        _user("alice", "Alice", title="FM"),
        _user("bob", "Bob"),
        _user("carol", "Carol"),
        # closed: the file still carries the old profile; the server must hide it
        _user("zed", "Zed", disabled=True),
        _user("newbie", "Newbie", created=NEWBIE_CREATED),
        _user("fresh", "Fresh", created=NOW_MS),  # created exactly at NOW
        *(_user(u, u.upper()) for u in MANY),
    ]
    histories = {"alice": ALICE_HISTORY, "zed": ALICE_HISTORY, "bob": [{"name": "Antichess", "points": []}]}
    return write_dataset(tmp_path_factory.mktemp("lichess"), users, GAMES, histories)


@pytest.fixture(scope="module")
def server(dataset_dir: Path) -> Iterator[replay.ReplayServer]:
    with replay.running(dataset_dir) as s:
        yield s


@pytest.fixture(scope="module")
def server_now(dataset_dir: Path) -> Iterator[replay.ReplayServer]:
    with replay.running(dataset_dir, now=NOW) as s:
        yield s


AUTH = {"Authorization": "Bearer test-token"}


def client_for(server: replay.ReplayServer) -> berserk.Client:
    return make_client(server.base_url, "test-token", 5.0)


@pytest.fixture(scope="module")
def client(server: replay.ReplayServer) -> berserk.Client:
    return client_for(server)


def ids(games: Any) -> list[str]:
    return [g["id"] for g in games]


# --------------------------------------------------------------------------- binding, loading


def test_server_binds_loopback_only(server: replay.ReplayServer) -> None:
    """replay.py contract: the server binds 127.0.0.1 only, on the port it reports in base_url."""
    assert server.server_address[0] == "127.0.0.1"
    assert server.base_url == f"http://127.0.0.1:{server.server_address[1]}"
    assert server.server_address[1] > 0


def test_malformed_games_line_names_file_and_line(tmp_path: Path) -> None:
    """The dataset format (docs/ingestion.md) / errors.InputError: a bad NDJSON line is reported as 'games.ndjson line N: …'.

    Line 1 is good, line 2 blank (skipped but still counted), line 3 is truncated JSON → line 3.
    """
    folder = write_dataset(tmp_path / "bad", [_user("alice", "Alice")], [], {})
    good = json.dumps(GAME["g1"])
    (folder / "games.ndjson").write_text(good + "\n\n" + '{"id": "g2", "createdAt": \n' + good + "\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        replay.Dataset.load(folder)
    msg = str(exc.value)
    assert msg.startswith("games.ndjson line 3: not valid JSON (")
    assert msg.endswith("): expected one JSON object per line")
    assert exc.value.where == "line 3"


def test_a_game_exported_unchanged_is_served_as_its_line_was_written(tmp_path: Path) -> None:
    """GET /api/games/user sends a finished game with every field the query keeps as the line
    the dataset holds, byte for byte (here compact JSON, as Lichess writes it, one line ending in
    CRLF); a field the query drops (opening by default, pgn without pgnInJson) or a game shown as
    still started (finished after the server's now) is written again without it."""
    games = [GAME["g1"], GAME["g2"]]
    lines = [json.dumps(g, separators=(",", ":")) for g in games]
    folder = write_dataset(tmp_path / "data", [_user("alice", "Alice"), _user("bob", "Bob")], [], {})
    (folder / "games.ndjson").write_bytes(f"{lines[0]}\r\n{lines[1]}\n".encode())

    def export(server: replay.ReplayServer, **params: str) -> list[bytes]:
        r = requests.get(f"{server.base_url}/api/games/user/alice", params={"sort": "dateAsc", **params}, timeout=5)
        assert r.status_code == 200
        return r.content.splitlines()

    with replay.running(folder) as server:
        assert export(server, opening="true", pgnInJson="true") == [line.encode() for line in lines]
        default = export(server)  # no opening, no pgn: written again without them
        assert [json.loads(x) for x in default] == [
            {k: v for k, v in g.items() if k not in ("opening", "pgn")} for g in games
        ]
    with replay.running(folder, now=dt.datetime.fromtimestamp((T0 + H + 30_000) / 1000, dt.UTC)) as server:
        got = [json.loads(x) for x in export(server, opening="true", pgnInJson="true", ongoing="true")]
        assert got[0] == GAME["g1"]  # finished before now: as stored
        assert got[1]["status"] == "started" and "winner" not in got[1]  # finished after now


# --------------------------------------------------------------------------- GET /api/user/{name}


def test_get_user_is_case_insensitive(client: berserk.Client, dataset_dir: Path) -> None:
    """Lichess: the user JSON (id lowercase, username in display case) plus url."""
    u = client.users.get_public_data("ALICE")
    assert u["id"] == "alice"
    assert u["username"] == "Alice"
    assert u["title"] == "FM"
    assert u["perfs"]["antichess"] == {"games": 10, "rating": 1500, "rd": 80, "prog": 0}
    assert u["createdAt"] == dt.datetime(2020, 1, 1, tzinfo=UTC)  # berserk converts the ms
    assert u["url"] == "https://lichess.org/@/Alice"
    assert client.users.get_public_data("aLiCe")["id"] == "alice"


def test_get_unknown_user_is_404_with_json_error(client: berserk.Client, server: replay.ReplayServer) -> None:
    """Lichess: unknown user → HTTP 404 JSON (an "error" key)."""
    with pytest.raises(berserk.exceptions.ResponseError) as exc:
        client.users.get_public_data("nobody")
    assert exc.value.status_code == 404
    assert isinstance(exc.value.cause, dict) and "error" in exc.value.cause
    r = requests.get(f"{server.base_url}/api/user/nobody", timeout=5)
    assert r.status_code == 404
    assert r.headers["Content-Type"].startswith("application/json")
    assert isinstance(r.json().get("error"), str)


def test_get_closed_user_shows_only_id_username_disabled(server: replay.ReplayServer) -> None:
    """Lichess: for a closed account the whole body is only {"id","username","disabled":true}."""
    r = requests.get(f"{server.base_url}/api/user/Zed", timeout=5)
    assert r.status_code == 200
    assert r.json() == {"id": "zed", "username": "Zed", "disabled": True}


# --------------------------------------------------------------------------- POST /api/users


def test_users_by_id_in_order_asked_unknown_skipped(client: berserk.Client) -> None:
    """Lichess: answered in the order of the ids asked; unknown ids are not returned;
    closed accounts appear as {id, username, disabled}."""
    got = client.users.get_by_id("carol", "ghost", "ALICE", "zed", "bob")
    assert ids(got) == ["carol", "alice", "zed", "bob"]
    assert got[2] == {"id": "zed", "username": "Zed", "disabled": True}
    assert "url" not in got[1]  # POST /api/users gives User, not UserExtended


def test_users_by_id_keeps_first_300_ids_only(client: berserk.Client) -> None:
    """Lichess reads the first 300 ids of the body (split(',').take(300)); extra ids silently dropped.

    306 ids asked: u304, ghost (unknown, still one of the 300), then u303 … u000. The first 300
    are u304, ghost, u303 … u006 (298 ids) → 299 users: u304, u303, …, u006.
    """
    asked = ["u304", "ghost", *(f"u{i:03d}" for i in range(303, -1, -1))]
    assert len(asked) == 306
    got = client.users.get_by_id(*asked)
    expected = ["u304", *(f"u{i:03d}" for i in range(303, 5, -1))]
    assert len(expected) == 299
    assert ids(got) == expected


# --------------------------------------------------------------------------- rating history


def test_rating_history_is_the_file_content(server: replay.ReplayServer, client: berserk.Client) -> None:
    """Lichess: the per-perf array as recorded, month still 0-based."""
    r = requests.get(f"{server.base_url}/api/user/ALICE/rating-history", headers=AUTH, timeout=5)
    assert r.status_code == 200
    assert r.json() == ALICE_HISTORY
    perfs = client.users.get_rating_history("alice")
    assert [p["name"] for p in perfs] == ["Bullet", "Antichess", "Atomic"]
    assert [tuple(pt) for pt in perfs[1]["points"]] == [
        (2026, 1, 28, 1500),
        (2026, 2, 5, 1510),
        (2026, 2, 6, 1520),
        (2026, 2, 7, 1530),
    ]


@pytest.mark.parametrize("name", ["zed", "nobody"])
def test_rating_history_404_for_closed_or_unknown(
    server: replay.ReplayServer, client: berserk.Client, name: str
) -> None:
    """Lichess: closed account → 404 "No such player, or account closed" (zed has a
    history file: it must not be served); unknown → 404."""
    with pytest.raises(berserk.exceptions.ResponseError) as exc:
        client.users.get_rating_history(name)
    assert exc.value.status_code == 404
    r = requests.get(f"{server.base_url}/api/user/{name}/rating-history", timeout=5)
    assert r.status_code == 404
    assert "error" in r.json()


# --------------------------------------------------------------------------- games export


def test_export_newest_first_by_default_finished_only(client: berserk.Client) -> None:
    """Lichess: sorted newest first by default; created/started/aborted never exported."""
    assert ids(client.games.export_by_player("alice")) == ["g5", "g6", "g4", "g3", "g2", "g1"]
    assert ids(client.games.export_by_player("Bob")) == ["g5", "g6", "g2", "g1"]


def test_export_sort_date_asc(client: berserk.Client) -> None:
    """Lichess: sort=dateAsc → oldest first by createdAt (g6 created 23:00:30 after g4 23:00)."""
    assert ids(client.games.export_by_player("alice", sort="dateAsc")) == ["g1", "g2", "g3", "g4", "g6", "g5"]


def test_export_since_inclusive_until_exclusive(client: berserk.Client) -> None:
    """Lichess: since → createdAt >= since (inclusive), until → createdAt < until (exclusive).

    since = g2's createdAt exactly, until = g4's createdAt exactly → g2, g3 only.
    """
    got = client.games.export_by_player("alice", since=T0 + 1 * H, until=T0 + 3 * H, sort="dateAsc")
    assert ids(got) == ["g2", "g3"]
    # one ms either side moves the boundary games in/out
    got = client.games.export_by_player("alice", since=T0 + 1 * H + 1, until=T0 + 3 * H + 1, sort="dateAsc")
    assert ids(got) == ["g3", "g4"]


def test_export_vs_opponent(client: berserk.Client, server: replay.ReplayServer) -> None:
    """Lichess: vs → only games against that opponent; unknown → 404 "No such opponent: {name}"."""
    assert ids(client.games.export_by_player("alice", vs="carol")) == ["g4", "g3"]  # ga (aborted) never
    assert ids(client.games.export_by_player("alice", vs="CAROL", sort="dateAsc")) == ["g3", "g4"]
    with pytest.raises(berserk.exceptions.ResponseError) as exc:
        list(client.games.export_by_player("alice", vs="nobody"))
    assert exc.value.status_code == 404
    r = requests.get(f"{server.base_url}/api/games/user/alice", params={"vs": "nobody"}, timeout=5)
    assert r.status_code == 404
    assert r.json() == {"error": "No such opponent: nobody"}


def test_export_max(client: berserk.Client) -> None:
    """Lichess: max limits the count, applied after the sort."""
    assert ids(client.games.export_by_player("alice", max=2)) == ["g5", "g6"]
    assert ids(client.games.export_by_player("alice", max=2, sort="dateAsc")) == ["g1", "g2"]


def test_export_pgn_only_with_pgn_in_json(client: berserk.Client) -> None:
    """Lichess: pgnInJson (default false) adds the pgn string to the JSON."""
    plain = list(client.games.export_by_player("alice", max=1))
    assert [g["id"] for g in plain] == ["g5"] and "pgn" not in plain[0]
    with_pgn = list(client.games.export_by_player("alice", max=1, pgn_in_json=True))
    assert with_pgn[0]["pgn"] == GAME["g5"]["pgn"]
    assert all("pgn" not in g for g in client.games.export_by_player("alice", pgn_in_json=False))


def test_export_moves_false_drops_moves(client: berserk.Client) -> None:
    """Lichess: moves default true (SAN string); moves=false drops it."""
    assert all(g["moves"] == "e3 b5 Bxb5" for g in client.games.export_by_player("alice"))
    got = list(client.games.export_by_player("alice", moves=False))
    assert len(got) == 6 and all("moves" not in g for g in got)
    assert all("opening" not in g for g in got)  # opening only with opening=true


def test_export_wire_form_is_the_recorded_game(server: replay.ReplayServer) -> None:
    """Lichess: NDJSON, one game JSON per line, fields as recorded (ms timestamps)."""
    r = requests.get(
        f"{server.base_url}/api/games/user/alice",
        params={"pgnInJson": "true", "opening": "true", "max": "1"},
        timeout=5,
    )
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in r.text.splitlines() if line.strip()]
    assert lines == [GAME["g5"]]


def test_export_closed_or_unknown_user_is_404(client: berserk.Client) -> None:
    """Lichess: closed account → nothing (lila exports only enabled accounts' games); unknown → 404."""
    for name in ("zed", "nobody"):
        with pytest.raises(berserk.exceptions.ResponseError) as exc:
            list(client.games.export_by_player(name))
        assert exc.value.status_code == 404


def test_export_since_survives_game_without_created_at(tmp_path: Path) -> None:
    """Lichess's since is a createdAt filter: here with a recorded game lacking createdAt.

    The server must still answer the request (HTTP 200, the well-formed games, in order) rather
    than drop the connection; whether the createdAt-less game itself is served is not asserted.
    """
    broken = _game("nocreat", "alice", "bob", T0, "resign")
    del broken["createdAt"]
    folder = write_dataset(
        tmp_path / "d", [_user("alice", "Alice"), _user("bob", "Bob")], [GAME["g1"], GAME["g2"], broken], {}
    )
    with replay.running(folder) as s:
        r = requests.get(f"{s.base_url}/api/games/user/alice", params={"since": str(T0), "sort": "dateAsc"}, timeout=5)
    assert r.status_code == 200
    got = [json.loads(line)["id"] for line in r.text.splitlines() if line.strip()]
    assert [i for i in got if i != "nocreat"] == ["g1", "g2"]


# --------------------------------------------------------------------------- now: the world as it stood


def test_now_games_finished_by_now_only(server_now: replay.ReplayServer) -> None:
    """replay.py `now`: only games with lastMoveAt <= now (g4 finished exactly at NOW: in; g6 was
    created before NOW but finished after it: out; g5 later: out)."""
    c = client_for(server_now)
    assert ids(c.games.export_by_player("alice")) == ["g4", "g3", "g2", "g1"]
    assert ids(c.games.export_by_player("bob", sort="dateAsc")) == ["g1", "g2"]


def test_now_one_ms_earlier_excludes_the_boundary_game(dataset_dir: Path) -> None:
    """replay.py `now`: lastMoveAt <= now; 1 ms before g4's last move, g4 is not finished yet."""
    with replay.running(dataset_dir, now=NOW - dt.timedelta(milliseconds=1)) as s:
        assert ids(client_for(s).games.export_by_player("alice")) == ["g3", "g2", "g1"]


def test_now_rating_history_up_to_now_utc_day(server_now: replay.ReplayServer) -> None:
    """replay.py `now` + Lichess's rating history (points are UTC days, month 0-based): the days
    before NOW's UTC day 2026-03-05 as recorded (02-28 stays; 03-06 and 03-07 go), and 03-05 as
    Lichess has it at 23:01, not the day's end the file records (1510, which would tell the
    future): the rating after alice's last rated antichess game finished by then, g4 at 23:01,
    rated 1500 with no change. The Bullet point of 03-05 goes (no Bullet game to say it)."""
    r = requests.get(f"{server_now.base_url}/api/user/alice/rating-history", headers=AUTH, timeout=5)
    assert r.status_code == 200
    assert r.json() == [
        {"name": "Bullet", "points": [[2026, 1, 1, 1400]]},
        {"name": "Antichess", "points": [[2026, 1, 28, 1500], [2026, 2, 5, 1500]]},
        {"name": "Atomic", "points": []},
    ]


def test_now_rating_history_has_no_point_for_today_before_todays_first_game(dataset_dir: Path) -> None:
    """At 2026-03-05 19:00, before alice's first game of the day (g1 ends 20:01), Lichess's history
    has no 03-05 point yet: the file's end-of-day 1510 is not served."""
    with replay.running(dataset_dir, now=dt.datetime(2026, 3, 5, 19, tzinfo=UTC)) as s:
        r = requests.get(f"{s.base_url}/api/user/alice/rating-history", headers=AUTH, timeout=5)
    antichess = [p for p in r.json() if p["name"] == "Antichess"][0]
    assert antichess["points"] == [[2026, 1, 28, 1500]]


def test_now_rating_history_uses_utc_day_whatever_the_offset(dataset_dir: Path) -> None:
    """replay.py `now` (rating-history days are UTC days): the same instant NOW written as
    2026-03-06T04:01+05:00 is still UTC day 2026-03-05, so the 03-06 point must not appear, and
    03-05's is the rating as of NOW (see the test above)."""
    now_plus5 = NOW.astimezone(dt.timezone(dt.timedelta(hours=5)))
    assert now_plus5 == NOW and now_plus5.date() == dt.date(2026, 3, 6)
    with replay.running(dataset_dir, now=now_plus5) as s:
        r = requests.get(f"{s.base_url}/api/user/alice/rating-history", headers=AUTH, timeout=5)
    antichess = [p for p in r.json() if p["name"] == "Antichess"][0]
    assert antichess["points"] == [[2026, 1, 28, 1500], [2026, 2, 5, 1500]]


def test_now_users_created_after_now_are_404(server_now: replay.ReplayServer) -> None:
    """replay.py `now`: only accounts created by then (createdAt <= now); a later one is unknown (GET /api/user: 404),
    skipped by POST /api/users and has no history or games."""
    c = client_for(server_now)
    with pytest.raises(berserk.exceptions.ResponseError) as exc:
        c.users.get_public_data("newbie")
    assert exc.value.status_code == 404
    assert c.users.get_public_data("fresh")["id"] == "fresh"  # created exactly at NOW
    assert ids(c.users.get_by_id("newbie", "alice", "fresh")) == ["alice", "fresh"]
    for path in ("/api/user/newbie/rating-history", "/api/games/user/newbie"):
        assert requests.get(server_now.base_url + path, timeout=5).status_code == 404


def test_without_now_later_accounts_exist(client: berserk.Client) -> None:
    """Control for the `now` tests: without `now` the whole recorded world is served."""
    assert client.users.get_public_data("newbie")["id"] == "newbie"


def test_rating_history_without_token_is_empty(server: replay.ReplayServer) -> None:
    """Lichess (since 2026-08): unauthenticated rating-history requests may get [] — always send a token."""
    r = requests.get(f"{server.base_url}/api/user/alice/rating-history", timeout=5)
    assert (r.status_code, r.json()) == (200, [])


# --------------------------------------------------------------------------- POST /api/games/export/_ids


def _by_ids(server: replay.ReplayServer, body: str, **params: str) -> list[dict[str, Any]]:
    r = requests.post(f"{server.base_url}/api/games/export/_ids", data=body, params=params, timeout=5)
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/x-ndjson"
    return [json.loads(x) for x in r.text.splitlines() if x.strip()]


def test_games_by_ids_newest_first_unknown_left_out_any_status(server: replay.ReplayServer) -> None:
    """Lichess: the games of the ids asked, newest first (createdAt desc), ids it does not know left
    out without an error; not the user export's filters: a game being played (gs, gc) and an aborted
    one (ga) come too; pgn only with pgnInJson, as the export."""
    got = _by_ids(server, "g1,ghost123,ga,g4,gs,g1,gc")
    assert ids(got) == ["ga", "gs", "gc", "g4", "g1"]  # T0+6h, +5h, +4h, +3h, T0
    assert "pgn" not in got[0] and "pgn" in _by_ids(server, "g1", pgnInJson="true")[0]


def test_games_by_ids_as_they_stood_at_now(server_now: replay.ReplayServer) -> None:
    """With now = 23:01 (T0 + 3 h 01): g5 (created T0+8h) does not exist yet; g6 (ended T0+3h02) is
    still being played: started, without winner; g4 (ended 23:01) is finished."""
    got = {g["id"]: g for g in _by_ids(server_now, "g5,g6,g4")}
    assert sorted(got) == ["g4", "g6"]
    assert (got["g6"]["status"], "winner" in got["g6"], got["g4"]["status"]) == ("started", False, "outoftime")


def test_games_by_ids_reads_the_first_300_ids_only(tmp_path: Path) -> None:
    """Lichess takes the first 300 ids of the body (take(300): the rest dropped without a word);
    fetch_games_by_id sends 300 a request, so 301 queued ids cost two requests and all come."""
    users = [_user("alice", "Alice"), _user("bob", "Bob")]
    games = [_game(f"m{i:07d}", "alice", "bob", T0 + i * 60_000, "resign", winner="white") for i in range(301)]
    folder = write_dataset(tmp_path, users, games, {})
    with replay.running(folder, options=replay.ReplayOptions(games_per_s=0)) as s:
        asked = [g["id"] for g in games]
        assert sorted(ids(_by_ids(s, ",".join(asked)))) == asked[:300]  # the 301st, m0000300, dropped
        before = s.requests_by_kind["games_by_id"]
        lines = list(fetch_games_by_id(make_client(s.base_url, None, 5), asked))
        assert (sorted(json.loads(x)["id"] for x in lines), s.requests_by_kind["games_by_id"] - before) == (asked, 2)
