"""Three tournaments served together (docs/td-guide.md, Running a league): the small demo's league
(the team season, its pairs event and its board-1 event: every player of the two derived events
plays in the season too) served by `antichess-td serve --league --pool` to two real workers, all
three runs started at the same moment, against one replay server in a process of its own (as
lichess.org is) that records every request. Then:

- no two requests with the one token were ever in flight at once (the lane);
- each player's rating history and games were downloaded once, and every profile in one
  `POST /api/users` (the league's shared store);
- each tournament's published tables equal those of the same tournament run alone (its own
  nightly, its own in-process replay server of the same dataset and night): 0 games lost, 0
  duplicated.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from kits.leaguekit import free_port, serve_on_pool, start_runs, stop, tables, wait_completed, worker
from pipeline.inputs.config import load_config
from pipeline.inputs.league import load_league
from pipeline.sim.request_record import find_overlaps, read_records
from pipeline.sim.season.league_demo import write_league

NIGHT = "2026-09-08T03:00:00Z"  # the small demo's Swiss round 1 closed, round 2 under way
GAMES_PER_S = 300  # the replay server's throttle: the streams take seconds, so runs could overlap


def _replay_server(data: Path, port: int, record: Path, log: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "replay-server", "--data", str(data), "--port", str(port)]
        + ["--now", NIGHT, "--games-per-s", str(GAMES_PER_S), "--record", str(record)],
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/_replay/requests", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.3)


def _point_at(toml: Path, base_url: str) -> None:
    """The tournament fetches from `base_url` (the league's replay server) instead of its own."""
    text = toml.read_text(encoding="utf-8")
    text = re.sub(r"^replay_data = .*$", f'base_url = "{base_url}"', text, flags=re.M)
    toml.write_text(text, encoding="utf-8")


@pytest.mark.scenario
def test_three_tournaments_served_together_share_one_lane_and_fetch_each_player_once(
    small_demo_source: Path, tmp_path: Path, prefect_server: tuple[str, dict[str, str]]
) -> None:
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    api, env = prefect_server
    source = shutil.copytree(small_demo_source, tmp_path / "source")
    write_league(source)
    reference = shutil.copytree(source, tmp_path / "reference")  # each tournament alone, as the demo runs it
    demo = shutil.copytree(source, tmp_path / "league")
    league = load_league(demo / "league.toml")
    assert len(league.configs) == 3
    port = free_port()
    record = tmp_path / "requests.ndjson"
    lichess = _replay_server(demo / "lichess", port, record, tmp_path / "replay.log")
    workers: list[subprocess.Popen[bytes]] = []
    try:
        for toml in league.configs:
            _point_at(toml, f"http://127.0.0.1:{port}")
        serve_on_pool(env, "--league", str(demo / "league.toml"))
        workers = [worker(env, tmp_path / f"worker-{i}.log") for i in (1, 2)]
        with temporary_settings(updates={PREFECT_API_URL: api}), get_client(sync_client=True) as client:
            runs = start_runs(client, league.configs, NIGHT)  # the three at the same moment
            alone = [
                subprocess.run(
                    [sys.executable, "-m", "pipeline", "nightly", "--now", NIGHT, "--config", str(toml)],
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
                for toml in load_league(reference / "league.toml").configs
            ]
            wait_completed(client, runs, timeout_s=300)
            spans = sorted((r.start_time, r.end_time) for r in (client.read_flow_run(i) for i in runs.values()))
    finally:
        stop(workers)
        os.killpg(lichess.pid, signal.SIGTERM)
        lichess.wait(timeout=30)
    for proc in alone:
        assert proc.returncode == 0, proc.stderr[-2000:]

    # the two workers ran two of the runs at the same time: what kept their requests apart is the lane
    assert any(later[0] < earlier[1] for earlier, later in zip(spans, spans[1:], strict=False)), spans
    requests = read_records(record)
    assert requests and len({r.lane for r in requests}) == 1  # one token: one lane
    assert find_overlaps(requests) == []
    asked = Counter((r.method, re.sub(r"^/api/(user|games/user)/[^/]+", r"/api/\1/<id>", r.path)) for r in requests)
    per_player = Counter((r.method, r.path) for r in requests if r.path != "/api/users")
    assert asked[("POST", "/api/users")] == 1  # 60 players: one request of up to 300 ids
    assert max(per_player.values()) == 1, [k for k, n in per_player.items() if n > 1]
    assert asked[("GET", "/api/user/<id>/rating-history")] > 0 and asked[("GET", "/api/games/user/<id>")] > 0

    for toml, ref in zip(league.configs, load_league(reference / "league.toml").configs, strict=True):
        want_games, _, want = tables(load_config(ref).paths.database)
        games, duplicated, got = tables(load_config(toml).paths.database)
        assert (len(want_games - games), duplicated) == (0, 0), toml  # 0 lost, 0 duplicated
        assert sorted(t for t in want.keys() | got.keys() if want.get(t) != got.get(t)) == [], toml
