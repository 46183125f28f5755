"""The nightly flow against its published snapshot: TD readers during a run, kill -9
mid-run, failed runs in the runs view, the served deployment's schedule. Real DuckDB files, the
real replay server over HTTP, real reader and nightly processes; Prefect under the session's one
test harness."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from pipeline.inputs.config import load_config
from pipeline.sim import replay

ROOT = Path(__file__).resolve().parents[2]
SKELETON_DATA = Path(__file__).resolve().parents[1] / "data" / "skeleton" / "lichess"
ROUND_1_NIGHT = "2026-03-08T03:00:00Z"  # the skeleton's round 1 runs 2026-03-03 to 03-10, round 2 to 03-17

READER = r"""
import json, sys, time, pathlib
import duckdb
path, mode, stop = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
LATEST = ("SELECT run_id, (counts->>'$.score.standings_rows')::INTEGER FROM runs "
          "WHERE status = 'ok' ORDER BY run_id DESC LIMIT 1")
def state(con):
    run_id, rows = con.execute(LATEST).fetchall()[0]
    return [run_id, rows, con.execute("SELECT count(*) FROM standings").fetchall()[0][0]]
held = duckdb.connect(path, read_only=True) if mode == "hold" else None
seen, errors = [], []
print("ready", flush=True)
while not stop.exists():
    try:
        if held is not None:
            seen.append(state(held))
        else:
            con = duckdb.connect(path, read_only=True)
            try:
                seen.append(state(con))
            finally:
                con.close()
    except Exception as e:
        errors.append(f"{type(e).__name__}: {e}")
    time.sleep(0.02)
if held is not None:
    held.close()
    con = duckdb.connect(path, read_only=True)  # the TD reopens: the new snapshot
    seen.append(state(con))
    con.close()
print(json.dumps({"seen": seen, "errors": errors}))
"""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def runs_view(path: Path) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.sql("SELECT run_id, command, status, stage, error FROM runs ORDER BY run_id").fetchall()
    finally:
        con.close()


def standings(path: Path) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.sql(
            "SELECT stage, after_round, rank, entrant, match_points, points_scored, points_conceded, "
            "median_buchholz FROM standings ORDER BY ALL"
        ).fetchall()
    finally:
        con.close()


@pytest.mark.prefect
def test_td_readers_hold_the_published_file_while_the_next_run_publishes(
    skeleton: Path, prefect_api_url: str, tmp_path: Path
) -> None:
    """Done-when 1: a second nightly run while TD readers hold the published file succeeds, with no
    lock error on either side. A reader that keeps its connection sees the old snapshot whole; one
    that reopens sees the old, then the new, never a mix (each snapshot's standings agree with its
    own runs row)."""
    from flows.nightly import nightly

    cfg = load_config(skeleton)
    first = nightly(config_path=str(skeleton), now=ROUND_1_NIGHT)
    stop = tmp_path / "stop"
    readers = {
        mode: subprocess.Popen(
            [sys.executable, "-c", READER, str(cfg.paths.database), mode, str(stop)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for mode in ("hold", "reopen")
    }
    try:
        for proc in readers.values():
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        second = nightly(config_path=str(skeleton))
        time.sleep(0.5)  # the reopening reader reads the new snapshot a few times
    finally:
        stop.touch()
        out = {mode: proc.communicate(timeout=60) for mode, proc in readers.items()}
    results = {mode: json.loads(stdout) for mode, (stdout, _) in out.items()}
    assert (first["run_id"], second["run_id"]) == (1, 2)
    for mode, r in results.items():
        assert r["errors"] == [], (mode, r["errors"][:3])
        assert all(rows == n for _, rows, n in r["seen"]), mode  # a snapshot is whole: data = its run record
    held, reopened = results["hold"]["seen"], results["reopen"]["seen"]
    assert {run for run, _, _ in held[:-1]} == {1} and held[-1][0] == 2
    runs_seen = [run for run, _, _ in reopened]
    assert runs_seen == sorted(runs_seen) and runs_seen[0] == 1 and runs_seen[-1] == 2
    assert len(held) > 10 and len(reopened) > 10  # they were reading all along


@pytest.mark.prefect
@pytest.mark.slow
@pytest.mark.scenario
def test_kill_9_mid_run_leaves_the_published_file_and_the_next_run_completes(
    skeleton: Path, prefect_api_url: str
) -> None:
    """Done-when 2: `antichess-td nightly` killed with SIGKILL at seeded random moments (Prefect
    start, ingest, scoring, publishing): the published file is byte for byte the previous good
    one each time, and the next run completes with the standings of an undisturbed run."""
    from flows.nightly import nightly

    toml = skeleton.read_text(encoding="utf-8")
    throttled = re.sub(r"replay_games_per_s = \S+", "replay_games_per_s = 6", toml, count=1)
    skeleton.write_text(throttled, encoding="utf-8")  # 74 game lines at 6 a second: slow enough to be caught
    cfg = load_config(skeleton)
    nightly(config_path=str(skeleton), now="2026-03-02T03:00:00Z")  # before round 1: the killed runs fetch it all
    good, inode = sha256(cfg.paths.database), cfg.paths.database.stat().st_ino
    env = {**os.environ, "PREFECT_API_URL": prefect_api_url, "PYTHONPATH": str(ROOT)}
    rng = random.Random(8)
    kills = 0
    for _ in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-m", "pipeline", "nightly", "--config", str(skeleton)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(2.0, 6.0))
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            kills += 1
            proc.wait()
            assert sha256(cfg.paths.database) == good and cfg.paths.database.stat().st_ino == inode
        else:  # it finished first: its snapshot is the good one now
            assert proc.returncode == 0
            good, inode = sha256(cfg.paths.database), cfg.paths.database.stat().st_ino
    assert kills >= 2, "the runs ended before they could be killed: slow the replay down"
    skeleton.write_text(toml, encoding="utf-8")  # unthrottled from here on
    final = nightly(config_path=str(skeleton))
    undisturbed = skeleton.parent / "undisturbed.toml"
    undisturbed.write_text(
        toml.replace('database = "out/skeleton.duckdb"', 'database = "undisturbed/skeleton.duckdb"'), encoding="utf-8"
    )
    nightly(config_path=str(undisturbed))
    assert standings(cfg.paths.database) == standings(load_config(undisturbed).paths.database)
    assert len(standings(cfg.paths.database)) == 8  # 4 teams after each of 2 rounds
    rows = runs_view(cfg.paths.database)
    assert rows[0][:3] == (1, "nightly", "ok") and rows[-1] == (final["run_id"], "nightly", "ok", "publish", None)
    interrupted = [r for r in rows[1:-1] if r[2] == "failed"]
    assert len(interrupted) <= kills and all(r[4].startswith("interrupted: ") for r in interrupted)
    assert all(r[2] in ("ok", "failed") for r in rows)


@pytest.mark.prefect
def test_a_bad_ruling_fails_the_run_in_score_and_the_runs_view_says_why(skeleton: Path, prefect_api_url: str) -> None:
    """A failed run leaves the last good file in place and says why; the runs view
    of the next good publish shows it with its stage and error."""
    from flows.nightly import nightly
    from pipeline.errors import InputError

    cfg = load_config(skeleton)
    nightly(config_path=str(skeleton))
    good = sha256(cfg.paths.database)
    toml = skeleton.read_text(encoding="utf-8")
    skeleton.write_text(
        toml.replace('exports = "out/exports"', 'exports = "out/exports"\noverrides = "overrides.csv"'),
        encoding="utf-8",
    )
    overrides = skeleton.parent / "overrides.csv"
    overrides.write_text(
        "stage,round,subject,action,value,reason\nswiss,1,,exclude_game,Nope1234,typo\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as e:
        nightly(config_path=str(skeleton))
    assert sha256(cfg.paths.database) == good
    assert e.value.__notes__[0].startswith(
        f"run 2 failed in score; the published {cfg.paths.database} is unchanged: it holds run 1 (nightly, finished "
    )
    overrides.write_text("stage,round,subject,action,value,reason\n", encoding="utf-8")
    nightly(config_path=str(skeleton))
    assert runs_view(cfg.paths.database) == [
        (1, "nightly", "ok", "publish", None),
        (2, "nightly", "failed", "score", str(e.value)),
        (3, "nightly", "ok", "publish", None),
    ]
    assert "Nope1234" in str(e.value)


@pytest.mark.prefect
def test_lichess_down_exits_3_after_retrying_only_the_fetch(skeleton: Path, prefect_api_url: str) -> None:
    """An outside failure exits 3 (docs/td-guide.md, Run it) and says which run failed and what stays published.
    Only fetching is retried: with no per-request retries configured, every 502 costs exactly one
    profile request per task attempt, 1 + 2 retries = 3 (flows.nightly.INGEST_RETRIES)."""
    from flows.nightly import INGEST_RETRIES, nightly

    toml = skeleton.read_text(encoding="utf-8")
    with replay.running(SKELETON_DATA, options=replay.ReplayOptions(games_per_s=0, history_needs_token=False)) as up:
        skeleton.write_text(
            toml.replace('replay_data = "lichess"', f'base_url = "{up.base_url}"\nmax_retries = 0\nbackoff_s = 0.05'),
            encoding="utf-8",
        )
        nightly(config_path=str(skeleton))
    cfg = load_config(skeleton)
    good = sha256(cfg.paths.database)
    down = replay.ReplayOptions(games_per_s=0, faults=replay.Faults(rate_5xx=1.0))
    with replay.running(SKELETON_DATA, options=down) as server:
        skeleton.write_text(
            toml.replace(
                'replay_data = "lichess"', f'base_url = "{server.base_url}"\nmax_retries = 0\nbackoff_s = 0.05'
            ),
            encoding="utf-8",
        )
        proc = subprocess.run(
            [sys.executable, "-m", "pipeline", "nightly", "--config", str(skeleton)],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PREFECT_API_URL": prefect_api_url, "PYTHONPATH": str(ROOT)},
        )
        served = dict(server.requests_by_kind)
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert sum(served.values()) == 1 + INGEST_RETRIES, served
    lines = proc.stderr.strip().splitlines()
    assert lines[-2].startswith("error: Lichess: ") and "502" in lines[-2]
    assert lines[-1].startswith(
        f"run 2 failed in ingest; the published {cfg.paths.database} is unchanged: it holds run 1 (nightly, finished "
    )
    assert sha256(cfg.paths.database) == good
    [(_, _, status, stage, error)] = [r for r in runs_view(cfg.paths.work_database) if r[0] == 2]
    assert (status, stage) == ("failed", "ingest") and error == lines[-2].removeprefix("error: Lichess: ")


@pytest.mark.prefect
def test_serve_deploys_the_config_schedule(skeleton: Path, prefect_api_url: str) -> None:
    """Item 2: `antichess-td serve` serves one deployment per tournament on the config's cron line,
    03:00 UTC by default, or the [schedule] the TD wrote."""
    from flows.nightly import deployment_options, nightly

    deployment = nightly.to_deployment(**deployment_options(load_config(skeleton), skeleton))
    [schedule] = deployment.schedules
    assert (deployment.name, schedule.schedule.cron, schedule.schedule.timezone) == ("skeleton", "0 3 * * *", "UTC")
    assert deployment.parameters == {"config_path": str(skeleton.resolve())}
    skeleton.write_text(
        skeleton.read_text(encoding="utf-8") + '\n[schedule]\ncron = "30 2 * * 2"\ntimezone = "Europe/Berlin"\n',
        encoding="utf-8",
    )
    [schedule] = nightly.to_deployment(**deployment_options(load_config(skeleton), skeleton)).schedules
    assert (schedule.schedule.cron, schedule.schedule.timezone) == ("30 2 * * 2", "Europe/Berlin")
    assert schedule.parameters == {}


@pytest.mark.prefect
def test_serve_adds_the_closing_day_schedule_of_refresh_runs(skeleton: Path, prefect_api_url: str) -> None:
    """`[schedule] closing_day_cron` adds a second schedule to the deployment, in
    the same time zone, whose runs are refresh runs (the flow's `refresh` parameter)."""
    from flows.nightly import deployment_options, nightly

    skeleton.write_text(
        skeleton.read_text(encoding="utf-8")
        + '\n[schedule]\ntimezone = "Europe/Berlin"\nclosing_day_cron = "0 12-23 * * 1"\n',
        encoding="utf-8",
    )
    deployment = nightly.to_deployment(**deployment_options(load_config(skeleton), skeleton))
    assert [(s.schedule.cron, s.schedule.timezone, s.parameters, s.slug) for s in deployment.schedules] == [
        ("0 3 * * *", "Europe/Berlin", {}, "nightly"),
        ("0 12-23 * * 1", "Europe/Berlin", {"refresh": True}, "closing-day"),
    ]
    assert deployment.parameters == {"config_path": str(skeleton.resolve())}
