"""The replay server's request record (pipeline/sim/request_record.py; docs/td-guide.md, Running a league): every
request it answers is kept with its lane (``lane_name(server, bearer token)``, never the token)
and its interval from the request line read to the last byte written, so a test can check that
one token's requests never overlap.

Real HTTP on 127.0.0.1 and the real berserk client (pipeline.lichess.client.make_client). The
dataset is written here: alice and bob with GAMES games between them (alice's export streams all of
them), served at GAMES_PER_S games a second, so a stream of alice's games lasts at least
(GAMES - 1) / GAMES_PER_S = 0.45 s: two started together overlap whatever the machine's load.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from kits.lichess_data import write_dataset
from pipeline.lichess.client import fetch_rating_history, fetch_users, make_client, open_game_stream
from pipeline.lichess.lane import lane_name
from pipeline.sim import replay
from pipeline.sim.request_record import RequestRecord, find_overlaps, read_records

ROOT = Path(__file__).resolve().parents[2]
GAMES = 10
GAMES_PER_S = 20.0
STREAM_NS = int((GAMES - 1) / GAMES_PER_S * 1e9)  # the throttle's least time for alice's stream
T0 = 1_772_740_800_000  # 2026-03-05T20:00:00Z


def _user(uid: str) -> dict[str, Any]:
    return {"id": uid, "username": uid.title(), "createdAt": T0 - 10**11, "perfs": {}}


def _game(i: int) -> dict[str, Any]:
    white, black = ("alice", "bob") if i % 2 else ("bob", "alice")
    return {
        "id": f"g{i:07d}",
        "rated": True,
        "variant": "antichess",
        "speed": "blitz",
        "perf": "antichess",
        "createdAt": T0 + i * 600_000,
        "lastMoveAt": T0 + i * 600_000 + 60_000,
        "status": "resign",
        "winner": "white",
        "players": {
            "white": {"user": {"name": white.title(), "id": white}, "rating": 1500},
            "black": {"user": {"name": black.title(), "id": black}, "rating": 1500},
        },
        "moves": "e3 b5 Bxb5",
        "clock": {"initial": 180, "increment": 0, "totalTime": 180},
    }


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    history = [{"name": "Antichess", "points": [[2026, 1, 1, 1500]]}]
    return write_dataset(
        tmp_path_factory.mktemp("lichess"),
        [_user("alice"), _user("bob")],
        [_game(i) for i in range(GAMES)],
        {"alice": history, "bob": history},
    )


@pytest.fixture
def server(data: Path) -> Iterator[replay.ReplayServer]:
    with replay.running(data, options=replay.ReplayOptions(games_per_s=GAMES_PER_S)) as s:
        yield s


def _stream_alice(base_url: str, token: str | None) -> int:
    """Alice's games through the real client, to the end of the stream; returns how many."""
    return sum(1 for _ in open_game_stream(make_client(base_url, token, 10.0), "alice", None))


def _together(*calls: Callable[[], object]) -> None:
    """Run the calls in threads released at the same moment; fail on any thread's error."""
    barrier = threading.Barrier(len(calls))
    errors: list[BaseException] = []

    def run(call: Callable[[], object]) -> None:
        barrier.wait()
        try:
            call()
        except BaseException as e:  # re-raised in the test below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(c,)) for c in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors, errors


def _wait_for(server: replay.ReplayServer, n: int) -> list[RequestRecord]:
    """The server's records once it holds `n` (it records a request just after its last write,
    which a client may see before the record is kept)."""
    deadline = time.monotonic() + 5
    while len(records := server.requests()) < n and time.monotonic() < deadline:
        time.sleep(0.01)
    return records


def _same_lane(records: list[RequestRecord]) -> list[RequestRecord]:
    return [RequestRecord(**{**r.as_json(), "lane": "one"}) for r in records]


# --------------------------------------------------------------------------- the pure check


def _r(lane: str, start: int, end: int) -> RequestRecord:
    return RequestRecord(lane, "GET", "/api/user/x", 200, start, end, 0)


def test_find_overlaps_pairs_the_requests_of_one_lane_in_flight_together() -> None:
    """find_overlaps: two intervals of one lane overlap when one starts before the other ends;
    touching ends do not; other lanes never pair. Worked by hand: on lane a, [0,10) meets [5,7)
    and [9,12); [5,7) ends before 9; [12,20) starts as [9,12) ends. Lane b's [1,30) overlaps all
    of them in time but is alone on its lane."""
    a1, a2, a3, a4 = _r("a", 0, 10), _r("a", 5, 7), _r("a", 9, 12), _r("a", 12, 20)
    b1 = _r("b", 1, 30)
    assert find_overlaps([a4, b1, a3, a2, a1]) == [(a1, a2), (a1, a3)]
    assert find_overlaps([a1, a4, b1]) == []
    assert find_overlaps([]) == []


# --------------------------------------------------------------------------- the record over HTTP


def test_two_threads_with_one_token_overlap(server: replay.ReplayServer) -> None:
    """One lane per token: two game streams sent at once with one token are two requests in flight on
    one lane: find_overlaps returns that pair, on the lane of the server and that token."""
    _together(*[lambda: _stream_alice(server.base_url, "lip_same")] * 2)
    records = _wait_for(server, 2)
    assert [(r.lane, r.method, r.path, r.status) for r in records] == [
        (lane_name(server.base_url, "lip_same"), "GET", "/api/games/user/alice", 200)
    ] * 2
    assert find_overlaps(records) == [tuple(sorted(records, key=lambda r: r.start_ns))]


def test_two_threads_with_different_tokens_do_not_overlap(server: replay.ReplayServer) -> None:
    """One lane per token: the same two streams at once with two tokens overlap in time (the
    check finds them when put on one lane) but not on a lane, so find_overlaps returns none."""
    _together(lambda: _stream_alice(server.base_url, "lip_one"), lambda: _stream_alice(server.base_url, "lip_two"))
    records = _wait_for(server, 2)
    assert {r.lane for r in records} == {lane_name(server.base_url, "lip_one"), lane_name(server.base_url, "lip_two")}
    assert len(find_overlaps(_same_lane(records))) == 1
    assert find_overlaps(records) == []


def test_sequential_requests_with_one_token_do_not_overlap(server: replay.ReplayServer) -> None:
    """One client asking one thing after another (profiles, a rating history, a game stream, and
    twice more without a token) leaves one record each, in order, each starting after the previous
    ended: no overlap. The anonymous requests are on the anonymous lane of lane_name(server, None)."""
    client = make_client(server.base_url, "lip_td", 10.0)
    fetch_users(client, ["alice", "bob"])
    fetch_rating_history(client, "alice")
    assert sum(1 for _ in open_game_stream(client, "alice", None)) == GAMES
    anonymous = make_client(server.base_url, None, 10.0)
    fetch_rating_history(anonymous, "bob")
    fetch_users(anonymous, ["bob"])
    records = _wait_for(server, 5)
    td, anon = lane_name(server.base_url, "lip_td"), lane_name(server.base_url, None)
    assert [(r.lane, r.method, r.path, r.status) for r in records] == [
        (td, "POST", "/api/users", 200),
        (td, "GET", "/api/user/alice/rating-history", 200),
        (td, "GET", "/api/games/user/alice", 200),
        (anon, "GET", "/api/user/bob/rating-history", 200),
        (anon, "POST", "/api/users", 200),
    ]
    assert all(a.end_ns <= b.start_ns for a, b in zip(records, records[1:], strict=False))
    assert find_overlaps(records) == []
    assert find_overlaps(_same_lane(records)) == []


def test_a_throttled_stream_is_recorded_when_its_body_ends(server: replay.ReplayServer) -> None:
    """A game stream's interval covers its whole body: at GAMES_PER_S the server cannot write the
    last of GAMES games before (GAMES - 1) / GAMES_PER_S after it began, so the record spans at
    least that; and while the client is still reading (its first game in hand) there is no record
    yet, because a request is recorded once its last byte is written."""
    stream = open_game_stream(make_client(server.base_url, "lip_td", 10.0), "alice", None)
    first = next(stream)
    assert json.loads(first)["id"] == "g0000000"
    assert server.requests() == []
    assert 1 + sum(1 for _ in stream) == GAMES
    (record,) = _wait_for(server, 1)
    assert record.end_ns - record.start_ns >= STREAM_NS
    assert record.started_at_ms == pytest.approx(time.time() * 1000, abs=60_000)


def test_the_record_is_served_at_replay_requests_and_not_recorded_itself(server: replay.ReplayServer) -> None:
    """GET /_replay/requests (a path Lichess does not have) lists the records as JSON, the same as
    server.requests(); asking for it adds no record, and no record holds the token."""
    client = make_client(server.base_url, "lip_secret_token", 10.0)
    fetch_users(client, ["alice"])
    _wait_for(server, 1)
    for _ in range(2):
        answer = requests.get(f"{server.base_url}/_replay/requests", timeout=5)
        assert answer.status_code == 200
        assert [RequestRecord.from_json(d) for d in answer.json()] == server.requests()
    assert len(server.requests()) == 1
    assert "lip_secret_token" not in answer.text


def test_replay_server_record_appends_one_flushed_line_per_request(data: Path, tmp_path: Path) -> None:
    """`antichess-td replay-server --record FILE`: each finished request is appended to FILE as one
    NDJSON line while the server runs (flushed: read before it stops), lines already there kept;
    /_replay/ requests are not recorded."""
    record = tmp_path / "requests.ndjson"
    record.write_text(json.dumps(_r("earlier", 1, 2).as_json()) + "\n", encoding="utf-8")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pipeline",
            "replay-server",
            "--data",
            str(data),
            "--port",
            "0",
            "--record",
            str(record),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split(" on ")[1].split(" ")[0]
        with requests.Session() as http:
            assert http.get(f"{url}/api/user/alice", headers={"Authorization": "Bearer lip_td"}).status_code == 200
            assert http.get(f"{url}/api/user/nobody").status_code == 404
            assert http.get(f"{url}/_replay/requests").status_code == 200
        deadline = time.monotonic() + 5
        while len(lines := record.read_text(encoding="utf-8").splitlines()) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        records = read_records(record)
        assert [(r.lane, r.method, r.path, r.status) for r in records] == [
            ("earlier", "GET", "/api/user/x", 200),
            (lane_name(url, "lip_td"), "GET", "/api/user/alice", 200),
            (lane_name(url, None), "GET", "/api/user/nobody", 404),
        ]
        assert len(lines) == 3
        assert "lip_td" not in record.read_text(encoding="utf-8")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
