"""The closing day's refresh runs (pipeline/stages/refresh.py), on the skeleton
tournament with round 2's window closing Saturday 2026-03-14 23:59:59 UTC (TEAM-FMT-3's window,
moved so that the skeleton's Betas-Deltas games, played that morning from 09:00, fall on its last
day). Its Lichess data is served by the replay server on one port of 127.0.0.1 throughout, a new
server for each run with the world as of that run (``now``), and every request is counted there.
The run body is the nightly flow's own, with its tasks called as plain functions (no Prefect)."""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from flows.nightly import as_functions, run_nightly
from kits.skeleton_kit import SKELETON, copy_skeleton
from pipeline.inputs.config import load_config
from pipeline.sim import replay

NIGHT = "2026-03-14T03:00:00Z"  # Alphas-Gammas (round 2) played on 03-11; Betas-Deltas not yet
MORNING = "2026-03-14T08:00:00Z"  # nothing played since the night
NOON = "2026-03-14T10:00:00Z"  # Betas-Deltas played 09:00-09:34: 7 games on boards 1 and 2
THURSDAY = "2026-03-12T08:00:00Z"  # round 2's window closes in 2 days 16 hours

PAIRINGS = """stage,round,a,b,window_start,window_end
swiss,1,Alphas,Betas,2026-03-03T00:00:00Z,2026-03-09T23:59:59Z
swiss,1,Gammas,Deltas,2026-03-03T00:00:00Z,2026-03-09T23:59:59Z
swiss,2,Alphas,Gammas,2026-03-10T00:00:00Z,2026-03-14T23:59:59Z
swiss,2,Betas,Deltas,2026-03-10T00:00:00Z,2026-03-14T23:59:59Z
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Lichess:
    """The skeleton's dataset on a fixed port; :meth:`at` serves it as of a time and counts."""

    def __init__(self) -> None:
        self.port = free_port()
        self.dataset = replay.Dataset.load(SKELETON / "lichess")

    @contextlib.contextmanager
    def at(self, now: str) -> Iterator[replay.ReplayServer]:
        at = dt.datetime.fromisoformat(now.replace("Z", "+00:00"))
        options = replay.ReplayOptions(games_per_s=0, history_needs_token=False)  # as the skeleton has it
        with replay.running(self.dataset, port=self.port, now=at, options=options) as server:
            yield server


@pytest.fixture
def closing(tmp_path: Path) -> tuple[Path, Lichess]:
    folder = copy_skeleton(tmp_path)
    lichess = Lichess()
    toml = folder / "tournament.toml"
    text = toml.read_text(encoding="utf-8").replace(
        'replay_data = "lichess"', f'base_url = "http://127.0.0.1:{lichess.port}"'
    )
    toml.write_text(text, encoding="utf-8")
    (folder / "pairings.csv").write_text(PAIRINGS, encoding="utf-8")
    return toml, lichess


def run(toml: Path, lichess: Lichess, now: str, refresh: bool) -> tuple[dict[str, Any], dict[str, int]]:
    """One run as of `now`; returns its result and the requests the server received, by kind."""
    with lichess.at(now) as server:
        result = run_nightly(str(toml), now, as_functions, None, refresh=refresh)
    return result, dict(server.requests_by_kind)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def runs(db: Path) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.sql("SELECT run_id, command, status, stage, requests, counts FROM runs ORDER BY run_id").fetchall()
    finally:
        con.close()


def board_results(db: Path, rnd: int) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT * FROM board_results WHERE round = ? ORDER BY ALL", [rnd]).fetchall()
    finally:
        con.close()


def test_a_refresh_with_nothing_new_sends_the_floor_and_publishes_nothing(closing: tuple[Path, Lichess]) -> None:
    """After the night's run, a refresh with no game played since: one profiles request for the 8
    players (POST /api/users takes 300), no history or game stream (no profile moved), and one
    `vs` search for casual games per board of a window still open whose players were both
    skipped: round 2's 4 boards (round 1's window and 3-day margin ended 03-12 23:59:59, before the
    night's sync). The published snapshot keeps its bytes, the site its files; the run is
    recorded 'ok', "nothing new" since run 1."""
    toml, lichess = closing
    cfg = load_config(toml)
    _, night = run(toml, lichess, NIGHT, refresh=False)
    assert night == {"users": 1, "rating_history": 8, "games": 8}  # the first night: everything
    published, page = sha256(cfg.paths.database), cfg.paths.site / "index.html"
    site_mtime = page.stat().st_mtime_ns

    result, requests = run(toml, lichess, MORNING, refresh=True)

    assert requests == {"users": 1, "games": 4}
    assert result["refresh"] == (
        f"run 2 ok: nothing new since run 1: nothing rescored; the published {cfg.paths.database} "
        "and the site are unchanged"
    )
    assert sha256(cfg.paths.database) == published
    assert page.stat().st_mtime_ns == site_mtime
    assert [r[:5] for r in runs(cfg.paths.database)] == [(1, "nightly", "ok", "publish", 17)]
    [_, (run_id, command, status, stage, sent, counts)] = runs(cfg.paths.work_database)
    assert (run_id, command, status, stage, sent) == (2, "refresh", "ok", "refresh", 5)
    assert json.loads(counts)["refresh"] == {"result": "nothing new", "since_run": 1}
    assert "audit" not in json.loads(counts)


def test_a_refresh_with_one_new_match_fetches_and_rescores_only_that(closing: tuple[Path, Lichess]) -> None:
    """By 10:00 Betas-Deltas has played 7 games (board 1 bob-dan 4, board 2 bea-dee 3). The
    refresh asks for the profiles (1), the games of the 4 players whose profiles moved (4 streams),
    no history (each was stored at the night's run, the same UTC day: kept until the next night),
    and one `vs` search per round 2 board whose players did not move (Alphas-Gammas: 2). It
    rescores round 2 only, leaves round 1's results as they were and publishes."""
    toml, lichess = closing
    cfg = load_config(toml)
    run(toml, lichess, NIGHT, refresh=False)
    round_1 = board_results(cfg.paths.database, 1)
    published = sha256(cfg.paths.database)

    result, requests = run(toml, lichess, NOON, refresh=True)

    assert requests == {"users": 1, "games": 6}
    ingested, scored = result["ingest"], result["score"]
    assert (ingested["games_new"], ingested["histories_kept"], ingested["histories_loaded"]) == (7, 4, 0)
    assert (scored["rescored_rounds"], scored["first_scored_rounds"]) == (1, 0)
    assert sha256(cfg.paths.database) != published
    assert board_results(cfg.paths.database, 1) == round_1
    con = duckdb.connect(str(cfg.paths.database), read_only=True)
    try:
        played = con.sql(
            "SELECT board, games_played FROM board_results WHERE round = 2 AND team_a = 'Betas' AND part = 'total' "
            "ORDER BY board"
        ).fetchall()
    finally:
        con.close()
    assert played == [(1, 4), (2, 3)]
    assert [r[:5] for r in runs(cfg.paths.database)][-1] == (2, "refresh", "ok", "publish", 7)


def test_a_refresh_on_a_day_no_window_closes_sends_nothing(closing: tuple[Path, Lichess]) -> None:
    """Thursday 08:00: round 2's window closes in more than 24 hours. No request, no publish; the
    run is recorded with why."""
    toml, lichess = closing
    cfg = load_config(toml)
    run(toml, lichess, NIGHT, refresh=False)
    published = sha256(cfg.paths.database)

    result, requests = run(toml, lichess, THURSDAY, refresh=True)

    assert requests == {}
    assert result["refresh"] == (
        "run 2 ok: refresh as of 2026-03-12 08:00 UTC: no round window closes within 24 hours: nothing "
        f"fetched; the published {cfg.paths.database} is unchanged"
    )
    assert sha256(cfg.paths.database) == published
    [_, (_, command, status, stage, sent, counts)] = runs(cfg.paths.work_database)
    assert (command, status, stage, sent) == ("refresh", "ok", "refresh", 0)
    assert json.loads(counts)["refresh"] == {"result": "no round window closes within 24 hours"}


def test_an_edited_td_file_is_news_to_a_refresh(closing: tuple[Path, Lichess]) -> None:
    """The tournament.toml edited since the night (a comment added): no game is new, but the run publishes
    (the refresh compares the files' digest with the night's)."""
    toml, lichess = closing
    cfg = load_config(toml)
    run(toml, lichess, NIGHT, refresh=False)
    toml.write_text(toml.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")

    result, requests = run(toml, lichess, MORNING, refresh=True)

    assert requests == {"users": 1, "games": 4}
    assert "refresh" not in result and result["published"]["path"] == str(cfg.paths.database)


def test_a_refresh_searches_casual_games_only_on_the_boards_whose_window_closes(closing: tuple[Path, Lichess]) -> None:
    """A refresh run's `vs` searches cover the rounds the closing day is about. The nightly
    watches all 8 boards (2 rounds of 2 matches of 2 boards); a refresh on Monday 03-09 at 08:00
    only round 1's 4 (its window ends 03-09 23:59:59, within 24 hours), although round 2's window
    is "open" by then through the 3-day margin (from 03-07); on 03-14 at 08:00 only round 2's."""
    from pipeline.stages import context
    from pipeline.stages.ingest import watched_boards

    toml, _ = closing
    cfg = load_config(toml)
    inputs = context.read_inputs(cfg)
    every = watched_boards(cfg, inputs)
    assert len(every) == 8
    margin = dt.timedelta(days=3)
    for day, last in (
        (9, dt.datetime(2026, 3, 9, 23, 59, 59, tzinfo=dt.UTC)),
        (14, dt.datetime(2026, 3, 14, 23, 59, 59, tzinfo=dt.UTC)),
    ):
        at = dt.datetime(2026, 3, day, 8, tzinfo=dt.UTC)
        closing_only = watched_boards(cfg, inputs, (at, at + dt.timedelta(hours=24)))
        assert closing_only == [b for b in every if b.end == last + margin] and len(closing_only) == 4, day
