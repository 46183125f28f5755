"""Ingest: replay server → berserk → raw and typed DuckDB tables (pipeline/lichess/request_plan.py).

Real HTTP on 127.0.0.1 (pipeline.sim.replay.running), the real berserk client, real DuckDB files in
tmp_path. The dataset below is written by hand; every count is worked out from it.

Registered: Alice (asked with a capital), bob, carol (closed), dave (no antichess perf), ghost
(not on Lichess). olga is an outsider. SINCE = 2026-03-01T10:00Z; games (createdAt)::

    k1    03-02 10:00 alice-bob   antichess resign     both registered: in both streams, stored once
    s2    03-02 11:00 alice-bob   standard  mate       both registered: other variant but kept
    k2    03-02 12:00 bob-olga    antichess variantEnd kept
    s1    03-02 13:00 alice-olga  standard  draw       other variant vs outsider: skipped
    x1    03-02 14:00 alice-olga  antichess "exploded" unknown status: rejected
    edge  = SINCE      alice-olga  antichess draw      since is inclusive: fetched, kept
    old   SINCE - 1ms alice-bob   antichess resign     before since: never fetched
    d1    03-02 15:00 dave-olga   atomic    resign     other variant vs outsider: skipped
    cz    03-02 16:00 carol-olga  antichess resign     closed account: never requested

Streams: alice k1 s2 s1 x1 edge (5), bob k1 s2 k2 (3), dave d1 (1) → fetched 9 = loaded 6
(k1 s2 edge | k1 s2 k2) + skipped 2 (s1 d1) + rejected 1 (x1); distinct games k1 s2 k2 edge (4).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from kits.lichess_data import write_dataset
from pipeline.lichess import ingest_report, ingest_run, profiles_and_histories, request_plan
from pipeline.lichess.client import make_client
from pipeline.sim import replay
from pipeline.store import gateway

UTC = dt.UTC
H = 3_600_000
T0 = 1_772_445_600_000  # 2026-03-02T10:00:00Z
SINCE = dt.datetime(2026, 3, 1, 10, tzinfo=UTC)
SINCE_MS = 1_772_359_200_000  # 2026-03-01T10:00:00Z
CREATED_2020 = 1_577_836_800_000  # 2020-01-01T00:00:00Z
NOW = dt.datetime(2026, 3, 7, 12, tzinfo=UTC)
NOW_MS = 1_772_884_800_000  # 2026-03-07T12:00:00Z
PLAYERS = ["Alice", "bob", "carol", "dave", "ghost"]

USERS = [
    {
        "id": "alice",
        "username": "Alice",
        "title": "FM",
        "createdAt": CREATED_2020,
        "seenAt": T0,
        "perfs": {
            "antichess": {"games": 120, "rating": 1812, "rd": 55, "prog": 4},
            "blitz": {"games": 3, "rating": 1400, "rd": 200, "prog": 0, "prov": True},
        },
    },
    {
        "id": "bob",
        "username": "Bob",
        "createdAt": CREATED_2020,
        "tosViolation": True,
        "perfs": {"antichess": {"games": 40, "rating": 1650, "rd": 120, "prog": -8, "prov": True}},
    },
    # closed: the recorded profile still has perfs and createdAt; Lichess shows only id/username/disabled
    {
        "id": "carol",
        "username": "Carol",
        "disabled": True,
        "createdAt": CREATED_2020,
        "perfs": {"antichess": {"games": 999, "rating": 2222, "rd": 45, "prog": 0}},
    },
    # no rated antichess game: Lichess omits the antichess perf
    {
        "id": "dave",
        "username": "Dave",
        "createdAt": CREATED_2020,
        "perfs": {"blitz": {"games": 50, "rating": 1700, "rd": 60, "prog": 0}},
    },
    {
        "id": "olga",
        "username": "Olga",
        "createdAt": CREATED_2020,
        "perfs": {"antichess": {"games": 7, "rating": 1550, "rd": 90, "prog": 0}},
    },
]

HISTORIES = {
    # Lichess counts months from 0: [2026, 0, 5] = 2026-01-05, [2026, 11, 31] = 2026-12-31
    "alice": [
        {"name": "Bullet", "points": [[2026, 0, 3, 1400]]},
        {"name": "Antichess", "points": [[2026, 0, 5, 1500], [2026, 1, 28, 1530], [2026, 11, 31, 1600]]},
        {"name": "Atomic", "points": []},
    ],
    "bob": [{"name": "Antichess", "points": [[2025, 5, 30, 1600]]}],
    "dave": [{"name": "Blitz", "points": [[2026, 0, 1, 1700]]}, {"name": "Antichess", "points": []}],
    "carol": [{"name": "Antichess", "points": [[2025, 0, 1, 2000]]}],
}


def _game(
    gid: str,
    white: str,
    black: str,
    created: int | None,
    status: str,
    *,
    variant: str = "antichess",
    winner: str | None = None,
) -> dict[str, Any]:
    g: dict[str, Any] = {
        "id": gid,
        "rated": True,
        "variant": variant,
        "speed": "blitz",
        "perf": "antichess" if variant == "antichess" else "blitz",
        "lastMoveAt": (created or T0) + 90_000,
        "status": status,
        "source": "friend",
        "players": {
            "white": {"user": {"name": white.title(), "id": white}, "rating": 1800, "ratingDiff": 6},
            "black": {"user": {"name": black.title(), "id": black}, "rating": 1660, "ratingDiff": -6},
        },
        "moves": "e3 b5 Bxb5",
        "clock": {"initial": 180, "increment": 2, "totalTime": 260},
        "pgn": f'[Event "Rated game"]\n[Site "https://lichess.org/{gid}"]\n\n1. e3 b5 2. Bxb5 *\n',
    }
    if created is not None:
        g["createdAt"] = created
    if winner:
        g["winner"] = winner
    return g


GAMES = [
    _game("k1", "alice", "bob", T0, "resign", winner="white"),
    _game("s2", "alice", "bob", T0 + 1 * H, "mate", variant="standard", winner="white"),
    _game("k2", "bob", "olga", T0 + 2 * H, "variantEnd", winner="black"),
    _game("s1", "alice", "olga", T0 + 3 * H, "draw", variant="standard"),
    _game("x1", "alice", "olga", T0 + 4 * H, "exploded"),
    _game("edge", "alice", "olga", SINCE_MS, "draw"),
    _game("old", "alice", "bob", SINCE_MS - 1, "resign", winner="black"),
    _game("d1", "dave", "olga", T0 + 5 * H, "resign", variant="atomic", winner="white"),
    _game("cz", "carol", "olga", T0 + 6 * H, "resign", winner="white"),
]
GAME = {g["id"]: g for g in GAMES}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[replay.ReplayServer]:
    folder = write_dataset(tmp_path_factory.mktemp("lichess"), USERS, GAMES, HISTORIES)
    with replay.running(folder) as s:
        yield s


@pytest.fixture
def con(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    c = gateway.connect(tmp_path / "t.duckdb")
    yield c
    c.close()


def run(
    con: duckdb.DuckDBPyConnection,
    server: replay.ReplayServer,
    now: dt.datetime = NOW,
    players: list[str] = PLAYERS,
    since: dt.datetime | None = SINCE,
) -> ingest_report.IngestReport:
    client = make_client(server.base_url, "test-token", 5.0)
    return request_plan.ingest(con, client, players, since, now)  # type: ignore[arg-type]


def rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[tuple[Any, ...]]:
    return con.execute(sql).fetchall()


# --------------------------------------------------------------------------- profiles


def test_profiles_land_typed_and_raw(con: duckdb.DuckDBPyConnection, server: replay.ReplayServer) -> None:
    """Lichess's user JSON: id lowercase, title, tosViolation, perfs.antichess.{games,rating,rd},
    prov present only when true; closed accounts only {id, username, disabled}. Raw rows keep the
    JSON as sent (createdAt in ms), both stamped fetched_at = now."""
    run(con, server)
    got = rows(
        con,
        """
        SELECT user_id, username, epoch_ms(created_at), title, is_bot, is_closed, tos_violation,
               antichess_games, antichess_rating, antichess_rd, is_provisional, epoch_ms(fetched_at)
        FROM lichess_users ORDER BY user_id""",
    )
    assert got == [
        ("alice", "Alice", CREATED_2020, "FM", False, False, False, 120, 1812, 55, False, NOW_MS),
        ("bob", "Bob", CREATED_2020, None, False, False, True, 40, 1650, 120, True, NOW_MS),
        ("carol", "Carol", None, None, False, True, False, 0, None, None, None, NOW_MS),
        ("dave", "Dave", CREATED_2020, None, False, False, False, 0, None, None, None, NOW_MS),
    ]
    raw = {
        uid: (json.loads(p), ts)
        for uid, p, ts in rows(con, "SELECT user_id, payload, epoch_ms(fetched_at) FROM raw_users")
    }
    assert sorted(raw) == ["alice", "bob", "carol", "dave"]
    assert raw["alice"] == (USERS[0], NOW_MS)  # exactly what the server sent, seenAt/createdAt back in ms
    assert raw["carol"] == ({"id": "carol", "username": "Carol", "disabled": True}, NOW_MS)


def test_missing_antichess_perf_gives_zero_games_and_null_rating(
    con: duckdb.DuckDBPyConnection, server: replay.ReplayServer
) -> None:
    """Lichess omits a variant's perf with 0 games → dave has 0 antichess games,
    no rating, no rd, no provisional flag (NULL, not 0 / false)."""
    run(con, server, players=["dave"])
    assert rows(con, "SELECT antichess_games, antichess_rating, antichess_rd, is_provisional FROM lichess_users") == [
        (0, None, None, None)
    ]


def test_unknown_player_reported_missing_with_warning(
    con: duckdb.DuckDBPyConnection, server: replay.ReplayServer
) -> None:
    """POST /api/users does not return unknown ids → ghost is in users_missing, with a warning
    naming it, and has no row anywhere."""
    report = run(con, server)
    assert report.users_missing == ["ghost"]
    assert report.users_fetched == 4 and report.users_loaded == 4
    assert any("'ghost'" in w and "not found" in w for w in report.warnings)
    assert rows(con, "SELECT count(*) FROM lichess_users WHERE user_id = 'ghost'") == [(0,)]
    assert rows(con, "SELECT count(*) FROM raw_users WHERE user_id = 'ghost'") == [(0,)]


def test_closed_account_stored_closed_and_games_not_requested(
    con: duckdb.DuckDBPyConnection, server: replay.ReplayServer
) -> None:
    """Lichess shows a closed account as "disabled": true (rating history 404, no games): carol is stored
    with is_closed, no history or games are asked for her (one POST and nothing else), cz not stored."""
    before = server.requests_served
    report = run(con, server, players=["carol"])
    assert server.requests_served - before == 1  # POST /api/users only
    assert rows(con, "SELECT user_id, is_closed FROM lichess_users") == [("carol", True)]
    assert rows(con, "SELECT count(*) FROM raw_rating_histories") == [(0,)]
    assert rows(con, "SELECT count(*) FROM lichess_rating_points") == [(0,)]
    assert rows(con, "SELECT count(*) FROM lichess_games") == [(0,)]
    assert report.games_fetched == 0 and report.histories_loaded == 0
    assert any("'carol'" in w and "closed" in w for w in report.warnings)


def test_request_count_for_full_roster(con: duckdb.DuckDBPyConnection, server: replay.ReplayServer) -> None:
    """One POST /api/users for the 5 ids, then history + games for each open account found
    (alice, bob, dave): 1 + 3 x 2 = 7 requests; none for carol (closed) or ghost (unknown)."""
    before = server.requests_served
    run(con, server)
    assert server.requests_served - before == 7


# --------------------------------------------------------------------------- rating points


def test_rating_points_month_is_zero_based(con: duckdb.DuckDBPyConnection, server: replay.ReplayServer) -> None:
    """Lichess's rating-history points are [year, month0, day, rating]; only the "Antichess" entry
    (matched by name, not position) lands in lichess_rating_points; raw history kept as sent."""
    report = run(con, server)
    assert rows(con, "SELECT user_id, day, rating FROM lichess_rating_points ORDER BY user_id, day") == [
        ("alice", dt.date(2026, 1, 5), 1500),
        ("alice", dt.date(2026, 2, 28), 1530),
        ("alice", dt.date(2026, 12, 31), 1600),
        ("bob", dt.date(2025, 6, 30), 1600),
    ]
    assert report.histories_loaded == 3 and report.rating_points_loaded == 4
    raw = {
        u: (json.loads(p), ts)
        for u, p, ts in rows(con, "SELECT user_id, payload, epoch_ms(fetched_at) FROM raw_rating_histories")
    }
    assert raw == {
        "alice": (HISTORIES["alice"], NOW_MS),
        "bob": (HISTORIES["bob"], NOW_MS),
        "dave": (HISTORIES["dave"], NOW_MS),
    }


@pytest.mark.parametrize("batch", [None, 1])
def test_histories_fetched_before_a_failure_are_stored_with_their_cursors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int | None
) -> None:
    """Histories are stored profiles_and_histories.HISTORY_BATCH to a transaction (a commit costs the same whatever
    it holds), so those fetched when Lichess fails may still be waiting for theirs (the default
    batch): they are stored, each with its cursor, before the error ends the ingest; with a batch
    of 1 each was stored as it came. Request 4 answers 502 (every_5xx=4: the POST, alice's and
    bob's histories, then dave's) and no retry is allowed: either way alice and bob are stored,
    dave is not, and the rerun fetches only dave's history."""
    from pipeline.errors import LichessError
    from pipeline.lichess.client import RetryPolicy

    if batch is None:
        assert profiles_and_histories.HISTORY_BATCH > 2  # alice's and bob's histories wait in one batch
    else:
        monkeypatch.setattr(profiles_and_histories, "HISTORY_BATCH", batch)
    folder = write_dataset(tmp_path / "lichess", USERS, GAMES, HISTORIES)
    failing = replay.ReplayOptions(games_per_s=0, faults=replay.Faults(every_5xx=4))
    con = gateway.connect(tmp_path / "t.duckdb")
    try:
        with replay.running(folder, options=failing) as server:
            client = make_client(server.base_url, "test-token", 5.0, RetryPolicy(max_retries=0))
            with pytest.raises(LichessError, match="rating history of 'dave'"):
                request_plan.ingest(con, client, PLAYERS, SINCE, NOW)  # type: ignore[arg-type]
        assert rows(con, "SELECT user_id FROM raw_rating_histories ORDER BY 1") == [("alice",), ("bob",)]
        assert rows(con, "SELECT user_id FROM ingest_cursors WHERE endpoint = 'rating_history' ORDER BY 1") == [
            ("alice",),
            ("bob",),
        ]
        with replay.running(folder, options=replay.ReplayOptions(games_per_s=0)) as server:
            report = run(con, server)
        assert (report.histories_loaded, report.histories_unchanged) == (1, 2)
        assert server.requests_by_kind.get("rating_history") == 1, server.requests_by_kind
    finally:
        con.close()


# --------------------------------------------------------------------------- games


def test_games_typed_and_raw(con: duckdb.DuckDBPyConnection, server: replay.ReplayServer) -> None:
    """The games export: finished games of the registered players from since (inclusive,
    on createdAt: edge in, old out), typed; raw_games keeps the JSON as sent with pgnInJson."""
    run(con, server)
    assert [r[0] for r in rows(con, "SELECT game_id FROM lichess_games ORDER BY game_id")] == ["edge", "k1", "k2", "s2"]
    assert rows(
        con,
        """
        SELECT game_id, epoch_ms(created_at), epoch_ms(last_move_at), white_id, black_id, white_name, black_name,
               rated, variant, speed, clock_initial_s, clock_increment_s, status, winner,
               white_rating, black_rating, white_rating_diff, black_rating_diff, moves, pgn, url
        FROM lichess_games WHERE game_id = 'k1'""",
    ) == [
        (
            "k1",
            T0,
            T0 + 90_000,
            "alice",
            "bob",
            "Alice",
            "Bob",
            True,
            "antichess",
            "blitz",
            180,
            2,
            "resign",
            "white",
            1800,
            1660,
            6,
            -6,
            "e3 b5 Bxb5",
            GAME["k1"]["pgn"],
            "https://lichess.org/k1",
        ),
    ]
    assert rows(con, "SELECT winner FROM lichess_games WHERE game_id = 'edge'") == [(None,)]  # draw: no winner
    raw = {
        g: (json.loads(p), ts) for g, p, ts in rows(con, "SELECT game_id, payload, epoch_ms(fetched_at) FROM raw_games")
    }
    assert raw == {gid: (GAME[gid], NOW_MS) for gid in ("k1", "k2", "s2", "edge")}


def test_game_between_registered_players_stored_once(
    con: duckdb.DuckDBPyConnection, server: replay.ReplayServer
) -> None:
    """raw_games schema: "A game between two registered players arrives in both players' streams;
    it is kept once." k1 and s2 come through alice and bob: fetched twice, one row, counted once."""
    report = run(con, server)
    assert rows(con, "SELECT count(*) FROM lichess_games WHERE game_id IN ('k1', 's2')") == [(2,)]
    assert rows(con, "SELECT count(*) FROM raw_games WHERE game_id IN ('k1', 's2')") == [(2,)]
    assert report.games_fetched == 9
    assert report.games_loaded == 6
    assert report.games_distinct == 4
    assert report.game_ids == {"k1", "s2", "k2", "edge"}


def test_other_variant_kept_only_between_registered_players(
    con: duckdb.DuckDBPyConnection, server: replay.ReplayServer
) -> None:
    """game_streams.py: other variants between a registered player and an outsider are counted as
    skipped_other_variant and not stored as games (s1 standard vs olga, d1 atomic vs olga), but
    kept in rejected_records as they arrived, with the reason (nothing is lost); s2 (standard,
    alice-bob, both registered) is stored for linking to report as not_antichess."""
    report = run(con, server)
    assert report.games_skipped_other_variant == 2
    assert rows(con, "SELECT game_id, variant FROM lichess_games WHERE variant <> 'antichess'") == [("s2", "standard")]
    assert rows(con, "SELECT count(*) FROM raw_games WHERE game_id IN ('s1', 'd1')") == [(0,)]
    kept = rows(
        con,
        "SELECT record_key, reason, payload::JSON->>'variant' FROM rejected_records "
        "WHERE record_key IN ('s1', 'd1') ORDER BY record_key",
    )
    assert kept == [
        (
            "d1",
            "not antichess (variant 'atomic') and not between two registered players: kept here, not stored as a game",
            "atomic",
        ),
        (
            "s1",
            "not antichess (variant 'standard') and not between two registered players: kept here, not stored as a game",
            "standard",
        ),
    ]


def test_unknown_status_rejected_and_counts_add_up(con: duckdb.DuckDBPyConnection, server: replay.ReplayServer) -> None:
    """Lichess's game status names + game_streams.py: a game that cannot be typed goes to
    rejected_records with the reason; fetched 9 == loaded 6 + skipped 2 + rejected 1."""
    report = run(con, server)
    got = rows(
        con,
        "SELECT source, record_key, reason, payload, epoch_ms(fetched_at) FROM rejected_records "
        "WHERE reason NOT LIKE 'not antichess%'",
    )  # the two other-variant games: see the test above
    assert len(got) == 1
    source, key, reason, payload, fetched = got[0]
    assert (source, key, fetched) == ("game", "x1", NOW_MS)
    assert "status" in reason and "exploded" in reason
    assert json.loads(payload) == GAME["x1"]
    assert rows(con, "SELECT count(*) FROM lichess_games WHERE game_id = 'x1'") == [(0,)]
    assert report.games_rejected == 1 and report.rejected == 1
    assert report.games_fetched == report.games_loaded + report.games_skipped_other_variant + report.games_rejected
    assert (report.games_fetched, report.games_loaded, report.games_skipped_other_variant) == (9, 6, 2)


def test_game_missing_created_at_rejected(tmp_path: Path) -> None:
    """game_streams.py: a game without createdAt cannot be typed → rejected_records, reason naming createdAt;
    counts add up (2 fetched = 1 loaded + 0 skipped + 1 rejected).

    since=None (fetch_games then sends no since): the replay server's since filter fails on such a
    game (see test_replay.py::test_export_since_survives_game_without_created_at), which would
    otherwise hide what ingest does with it.
    """
    nocreat = _game("m1", "alice", "olga", None, "resign", winner="white")
    ok = _game("ok1", "olga", "alice", T0, "resign", winner="black")
    folder = write_dataset(tmp_path / "d", USERS, [nocreat, ok], {"alice": HISTORIES["alice"]})
    con = gateway.connect(tmp_path / "t.duckdb")
    try:
        with replay.running(folder) as s:
            report = run(con, s, players=["alice"], since=None)
        got = rows(con, "SELECT source, record_key, reason, payload FROM rejected_records")
        assert len(got) == 1
        assert got[0][:2] == ("game", "m1")
        assert "createdAt" in got[0][2]
        assert json.loads(got[0][3]) == nocreat
        assert rows(con, "SELECT game_id FROM lichess_games") == [("ok1",)]
        assert (
            report.games_fetched,
            report.games_loaded,
            report.games_skipped_other_variant,
            report.games_rejected,
        ) == (2, 1, 0, 1)
    finally:
        con.close()


# --------------------------------------------------------------------------- reruns

TABLES = {
    "raw_users": "user_id",
    "raw_rating_histories": "user_id",
    "raw_games": "game_id",
    "rejected_records": "source, record_key",
    "lichess_users": "user_id",
    "lichess_rating_points": "user_id, day",
    "lichess_games": "game_id",
}


def snapshot(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[Any, ...]]]:
    out = {}
    for table, key in TABLES.items():
        cols = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall() if r[0] != "fetched_at"]
        select = ", ".join(f"CAST({c} AS VARCHAR)" for c in cols)
        out[table] = con.execute(f"SELECT {select} FROM {table} ORDER BY {key}").fetchall()
    return out


def test_rerun_is_idempotent(con: duckdb.DuckDBPyConnection, server: replay.ReplayServer) -> None:
    """request_plan.py: "Reruns are idempotent: every write is an upsert keyed by user id, (user id, day)
    or game id" → a second run (a day later) leaves every table's rows unchanged but fetched_at."""
    first = run(con, server)
    snap1 = snapshot(con)
    assert {t: len(r) for t, r in snap1.items()} == {
        "raw_users": 4,
        "raw_rating_histories": 3,
        "raw_games": 4,
        "rejected_records": 3,  # x1 (unknown status) + s1, d1 (other variants)
        "lichess_users": 4,
        "lichess_rating_points": 4,
        "lichess_games": 4,
    }
    later = NOW + dt.timedelta(days=1)
    second = run(con, server, now=later)
    assert snapshot(con) == snap1
    # nothing changed in the profiles → only the profile request is made (request_plan.py)
    assert first.requests == 1 + 3 + 3
    assert (second.requests, second.games_fetched, second.streams_unchanged, second.histories_unchanged) == (1, 0, 3, 3)
    # the profiles were fetched again; no game was downloaded again, so raw_games keeps the first fetch time
    assert rows(con, "SELECT DISTINCT epoch_ms(fetched_at) FROM raw_users") == [(NOW_MS + 86_400_000,)]
    assert rows(con, "SELECT DISTINCT epoch_ms(fetched_at) FROM raw_games") == [(NOW_MS,)]


# --------------------------------------------------------------------------- work ahead (Ahead)
# It starts once every game of its players is stored, runs beside the other players' streams, and
# the ingest returns only after it ended; its error is logged, not raised (the stage it works for
# does the work again). bob's stream brings k1, s2 (both with alice) and k2 (with olga); only
# alice's brings `edge` (alice-olga).


def run_ahead(
    con: duckdb.DuckDBPyConnection, server: replay.ReplayServer, ahead: ingest_run.Ahead
) -> ingest_report.IngestReport:
    client = make_client(server.base_url, "test-token", 5.0)
    return request_plan.ingest(con, client, PLAYERS, SINCE, NOW, ahead=ahead)  # type: ignore[arg-type]


def games_of(cur: duckdb.DuckDBPyConnection, player: str) -> list[str]:
    rows = cur.execute(
        "SELECT game_id FROM lichess_games WHERE ? IN (white_id, black_id) ORDER BY game_id", [player]
    ).fetchall()
    return [r[0] for r in rows]


def test_the_work_starts_once_its_players_games_are_stored_and_runs_beside_the_rest(
    con: duckdb.DuckDBPyConnection, server: replay.ReplayServer
) -> None:
    seen: dict[str, object] = {}

    def work(cur: duckdb.DuckDBPyConnection) -> None:
        seen["thread"] = threading.current_thread().name
        seen["bob"] = games_of(cur, "bob")
        # alice's stream (after bob's) goes on meanwhile: a work run before it, or in its way,
        # would wait here for ever
        deadline = time.monotonic() + 20
        while "edge" not in games_of(cur, "alice"):
            assert time.monotonic() < deadline, "alice's games never arrived while the work ran"
            time.sleep(0.02)
        time.sleep(0.2)
        seen["done"] = True

    report = run_ahead(con, server, ingest_run.Ahead(frozenset({"bob"}), work))
    assert seen["bob"] == ["k1", "k2", "s2"]  # every game of bob's stream, committed
    assert seen["thread"] != threading.current_thread().name
    assert seen.get("done") is True  # the ingest waited for the work
    assert report.games_new == 4  # nothing else changed: tests/lichess/test_ingest.py's counts


def test_an_error_in_the_work_is_logged_and_the_ingest_goes_on(
    con: duckdb.DuckDBPyConnection, server: replay.ReplayServer, caplog: pytest.LogCaptureFixture
) -> None:
    def work(cur: duckdb.DuckDBPyConnection) -> None:
        raise ValueError("the estimator broke")

    report = run_ahead(con, server, ingest_run.Ahead(frozenset({"bob"}), work, name="the test's work"))
    assert report.games_new == 4
    assert games_of(con, "alice") == ["edge", "k1", "s2"]
    warned = [r for r in caplog.records if r.levelno == logging.WARNING and "the test's work" in r.getMessage()]
    assert len(warned) == 1 and "ValueError: the estimator broke" in warned[0].getMessage()


def test_with_no_stream_of_its_players_the_work_starts_at_once(
    con: duckdb.DuckDBPyConnection, server: replay.ReplayServer
) -> None:
    """carol's account is closed (no stream) and ghost is not on Lichess: the work does not wait."""
    ran: list[list[str]] = []
    run_ahead(
        con, server, ingest_run.Ahead(frozenset({"carol", "ghost"}), lambda cur: ran.append(games_of(cur, "carol")))
    )
    assert ran == [[]]
