"""Night by night: incremental ingest against the replay server's `--now` world.

Rules of the request plan (pipeline/lichess/request_plan.py, docs/ingestion.md): a game still being
played when a night runs is not exported yet, so the cursor must stop before it; a casual game
does not change the profile's rated-game count, so open round windows are searched with `vs`;
two concurrent downloads are allowed, never more.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import duckdb
import pytest

from kits.lichess_data import write_dataset
from pipeline.domain.timecontrol import parse_time_control
from pipeline.lichess import game_streams, ingest_report, ingest_run, request_plan
from pipeline.lichess.client import make_client
from pipeline.sim import replay
from pipeline.sim.games import DemoPlayer, EloWorld, history_json, user_json
from pipeline.store import gateway

SKELETON = Path(__file__).resolve().parents[1] / "data" / "skeleton" / "lichess"
UTC = dt.UTC


def night(
    dataset: replay.Dataset,
    db: Path,
    now: dt.datetime,
    ids: list[str],
    watch=(),
    concurrency: int = 1,
    options: replay.ReplayOptions | None = None,
) -> ingest_report.IngestReport:
    con = gateway.connect(db)
    try:
        with replay.running(dataset, now=now, options=options or replay.ReplayOptions(games_per_s=0)) as s:
            client = make_client(s.base_url, "test-token", 5.0)
            return request_plan.ingest(con, client, ids, None, now, watch=watch, concurrency=concurrency)
    finally:
        con.close()


def games(db: Path) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.sql(
            "SELECT g.*, r.payload::VARCHAR FROM lichess_games g JOIN raw_games r USING (game_id) ORDER BY ALL"
        ).fetchall()
    finally:
        con.close()


def test_a_game_in_progress_is_fetched_the_night_after_it_ends(tmp_path: Path) -> None:
    """Night 1 runs at 18:12 on 2026-03-04, while alice and bob's 2+5 game R1ab1g03 (started 18:10)
    is being played: it is not stored, and the cursor does not pass its start. Night 2 (03-20) fetches
    it; the two nights together hold exactly what one run on 03-20 holds."""
    ds = replay.Dataset.load(SKELETON)
    ids = list(ds.users)
    first = night(ds, tmp_path / "n.duckdb", dt.datetime(2026, 3, 4, 18, 12, tzinfo=UTC), ids)
    assert "R1ab1g03" not in {g[0] for g in games(tmp_path / "n.duckdb")}
    # being played at 18:12: alice-bob's 2+5 (18:10) and amir-bea's 2+5 (18:11), each in both players' streams
    assert first.games_ongoing == 4
    con = duckdb.connect(str(tmp_path / "n.duckdb"), read_only=True)
    created = {g["id"]: g["createdAt"] for g in ds.games_by_user["alice"]}
    # alice's last finished game then was R1ab1g02 (18:05): the next request starts 1 ms after it,
    # which is before R1ab1g03 (18:10), still being played
    [(cursor,)] = con.sql(
        "SELECT since_ms FROM ingest_cursors WHERE user_id = 'alice' AND endpoint = 'games'"
    ).fetchall()
    assert cursor == created["R1ab1g02"] + 1 and cursor <= created["R1ab1g03"]
    con.close()

    night(ds, tmp_path / "n.duckdb", dt.datetime(2026, 3, 20, tzinfo=UTC), ids)
    night(ds, tmp_path / "one.duckdb", dt.datetime(2026, 3, 20, tzinfo=UTC), ids)
    assert games(tmp_path / "n.duckdb") == games(tmp_path / "one.duckdb")
    assert "R1ab1g03" in {g[0] for g in games(tmp_path / "n.duckdb")}


@pytest.mark.scenario  # the suite keeps the nights below; tests/sim/test_replay_nights.py replays the demo night by night
def test_every_night_of_a_season_adds_up_to_one_run(tmp_path: Path) -> None:
    """Nightly runs at 03:00 UTC through the skeleton's two rounds end with the same games as one
    run afterwards, and no night downloads a game a previous night stored (no ongoing games at 03:00)."""
    ds = replay.Dataset.load(SKELETON)
    ids = list(ds.users)
    again = 0
    day = dt.datetime(2026, 3, 2, 3, tzinfo=UTC)
    while day < dt.datetime(2026, 3, 19, tzinfo=UTC):
        r = night(ds, tmp_path / "n.duckdb", day, ids)
        again += r.games_already_stored - (
            r.games_loaded - r.games_distinct
        )  # same-night duplicates are not re-downloads
        day += dt.timedelta(days=1)
    night(ds, tmp_path / "one.duckdb", day, ids)
    assert games(tmp_path / "n.duckdb") == games(tmp_path / "one.duckdb")
    assert again == 0


def casual_world(tmp_path: Path) -> tuple[replay.Dataset, dt.datetime]:
    """p1 and p2 are paired in a round starting Tuesday 2026-05-05; both play rated games before it;
    on 05-07 they play a casual game against each other (not counted in their profiles)."""
    world = EloWorld(seed=3)
    p1 = DemoPlayer("PlayerOne", 2000, dt.datetime(2021, 1, 1, tzinfo=UTC), 1500)
    p2 = DemoPlayer("PlayerTwo", 1990, dt.datetime(2021, 1, 1, tzinfo=UTC), 1500)
    start = dt.datetime(2026, 5, 5, tzinfo=UTC)
    world.play(p1, p2, parse_time_control("1+0"), start - dt.timedelta(days=10), game_id="Rated001")
    world.play(p2, p1, parse_time_control("1+0"), start - dt.timedelta(days=9), game_id="Rated002")
    world.play(p1, p2, parse_time_control("2+5"), start + dt.timedelta(days=2), rated=False, game_id="Casual01")
    folder = write_dataset(
        tmp_path / "casual",
        [user_json(p, start) for p in (p1, p2)],
        world.games,
        {p.id: history_json(p) for p in (p1, p2)},
    )
    return replay.Dataset.load(folder), start


def test_casual_game_in_an_open_window_is_found_with_vs(tmp_path: Path) -> None:
    ds, start = casual_world(tmp_path)
    watch = [
        ingest_run.WatchedBoard("playerone", "playertwo", start - dt.timedelta(days=3), start + dt.timedelta(days=10))
    ]
    ids = ["playerone", "playertwo"]
    db = tmp_path / "c.duckdb"
    night(ds, db, start + dt.timedelta(hours=3), ids, watch)
    assert {g[0] for g in games(db)} == {"Rated001", "Rated002"}
    second = night(ds, db, start + dt.timedelta(days=3), ids, watch)
    # profiles unchanged (a casual game), so no stream and no history; one vs request finds the game
    assert (second.streams_unchanged, second.histories_unchanged, second.requests) == (2, 2, 2)
    assert {g[0] for g in games(db)} == {"Rated001", "Rated002", "Casual01"}
    # the next night in the window searches again, from after the casual game: nothing downloaded twice
    third = night(ds, db, start + dt.timedelta(days=4), ids, watch)
    assert (third.requests, third.games_fetched) == (2, 0)
    # once the window has closed and a night has run after it, nothing more is asked
    night(ds, db, start + dt.timedelta(days=14), ids, watch)
    last = night(ds, db, start + dt.timedelta(days=15), ids, watch)
    assert last.requests == 1


def test_two_concurrent_downloads_give_the_same_data_and_no_429(tmp_path: Path) -> None:
    """Lichess allows at most 2 concurrent downloads per IP (the replay server answers 429 beyond)."""
    ds = replay.Dataset.load(Path(__file__).resolve().parents[1] / "data" / "season" / "lichess")
    ids = list(ds.users)
    now = dt.datetime(2026, 11, 29, tzinfo=UTC)
    opts = replay.ReplayOptions(games_per_s=0, max_downloads=2)
    one = night(ds, tmp_path / "one.duckdb", now, ids, options=opts)
    two = night(ds, tmp_path / "two.duckdb", now, ids, concurrency=2, options=opts)
    assert games(tmp_path / "one.duckdb") == games(tmp_path / "two.duckdb")
    assert (one.rate_limited, two.rate_limited) == (0, 0)


def test_malformed_line_is_rejected_alone(tmp_path: Path) -> None:
    """Raw first: a line that is not JSON is kept in rejected_records with the reason; the lines
    around it are stored (counts add up: fetched = loaded + rejected)."""
    con = gateway.connect(tmp_path / "m.duckdb")
    good = json.loads((SKELETON / "games.ndjson").read_text(encoding="utf-8").splitlines()[0])
    lines = iter([json.dumps(good), '{"id": "broken", "createdAt": 17', json.dumps({**good, "id": "Other001"})])
    player = ingest_report.PlayerReport("alice")
    report = ingest_report.IngestReport()
    run = ingest_run.IngestRun(
        con, None, ingest_run.Scope(frozenset({"alice", "bob"})), dt.datetime(2026, 3, 20, tzinfo=UTC), report
    )
    sink = game_streams._GameSink(run, "alice", None, player, endpoint="games", synced_games=None)
    sink.consume(lines)
    sink.finish()
    assert con.sql("SELECT source, reason FROM rejected_records").fetchall() == [
        ("game", "not valid JSON (Expecting ',' delimiter at column 33)")
    ]  # the line is 32 characters long
    assert sorted(r[0] for r in con.sql("SELECT game_id FROM lichess_games").fetchall()) == sorted(
        [good["id"], "Other001"]
    )
    assert (player.games_fetched, player.games_loaded, player.games_rejected) == (3, 2, 1)
    con.close()


def test_profiles_come_in_chunks_of_300(tmp_path: Path) -> None:
    """Lichess's POST /api/users keeps the first 300 ids and drops the rest silently,
    so 305 players take 2 profile requests and all 305 profiles arrive."""
    folder = tmp_path / "many"
    (folder / "rating-history").mkdir(parents=True)
    users = [{"id": f"p{i:03d}", "username": f"P{i:03d}", "createdAt": 1600000000000, "perfs": {}} for i in range(305)]
    (folder / "users.ndjson").write_text("".join(json.dumps(u) + "\n" for u in users), encoding="utf-8")
    ds = replay.Dataset.load(folder)
    con = gateway.connect(tmp_path / "m.duckdb")
    try:
        with replay.running(ds) as s:
            client = make_client(s.base_url, "t", 5.0)
            report = request_plan.ingest(
                con, client, [u["id"] for u in users], None, dt.datetime(2026, 1, 1, tzinfo=UTC)
            )
            profile_requests = s.requests_by_kind["users"]
        assert (profile_requests, report.users_loaded) == (2, 305)
        assert con.sql("SELECT count(*) FROM lichess_users").fetchall() == [(305,)]
    finally:
        con.close()
