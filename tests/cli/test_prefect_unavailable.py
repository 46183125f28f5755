"""`antichess-td nightly` when Prefect's server is unavailable: the same run goes on without
Prefect (no flow run), says so in one warning line and in `runs` (warnings, counts.start), exits 0,
and publishes exactly what a run under Prefect publishes (every table's checksum, faultkit.judge).

Real processes (`python -m pipeline nightly` in a TD's environment), the skeleton tournament with
its replay dataset on 127.0.0.1, real DuckDB files; Prefect either the session's test server (the
reference run), a closed port, or a temporary server whose home is broken in a planted way."""

from __future__ import annotations

import json
import re
import socket
import sqlite3
from pathlib import Path

import duckdb
import pytest

from kits import faultkit
from kits.skeleton_kit import AFTER_ALL, SKELETON, children, cli, copy_skeleton, read_until_ingest_in_flow, td_env
from pipeline.errors import LichessError
from pipeline.inputs.config import load_config
from pipeline.sim import replay

WITHOUT_PREFECT = "; this run goes on without Prefect (no flow run is recorded)"


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, prefect_api_url: str) -> Path:
    """The skeleton's nightly as of AFTER_ALL under the test Prefect server: its published database."""
    folder = copy_skeleton(tmp_path_factory.mktemp("reference"))
    proc = cli(
        "nightly",
        "--config",
        str(folder / "tournament.toml"),
        "--now",
        AFTER_ALL,
        env=td_env(PREFECT_API_URL=prefect_api_url),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert WITHOUT_PREFECT not in proc.stderr
    db = load_config(folder / "tournament.toml").paths.database
    assert run_record(db)[2] is not None  # a flow run
    return db


def run_record(db: Path) -> tuple:
    """(status, stage, flow_run_id, warnings, counts.start) of the published snapshot's only run."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        [row] = con.sql("SELECT status, stage, flow_run_id, warnings, counts->'$.start' FROM runs").fetchall()
    finally:
        con.close()
    return (*row[:4], json.loads(row[4]) if row[4] is not None else None)


def closed_port() -> int:
    """A port of 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_ran_without_prefect(proc, toml: Path, reference: Path, reason: str | re.Pattern[str]) -> str:
    """Exit 0, one warning line (reason + WITHOUT_PREFECT), the normal summary, `runs` recording it,
    and every table equal to the reference run's. Returns the reason as printed."""
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if WITHOUT_PREFECT in line]
    assert len(lines) == 1, proc.stderr
    [line] = lines
    assert line.startswith("warning: ") and line.endswith(WITHOUT_PREFECT), line
    said = line.removeprefix("warning: ").removesuffix(WITHOUT_PREFECT)
    if isinstance(reason, str):
        assert said == reason
    else:
        assert reason.fullmatch(said), said
    assert "Traceback" not in proc.stderr
    db = load_config(toml).paths.database
    assert proc.stdout.splitlines()[-1].startswith("run 1 ok in ") and proc.stdout.splitlines()[-1].endswith(
        f"; published {db}"
    )
    assert run_record(db) == (
        "ok",
        "publish",
        None,
        [said + WITHOUT_PREFECT, "tournament.registration_at is not set: TEAM-ELIG-1..4 cannot be checked"],
        {"prefect": "unavailable", "reason": said},
    )
    assert faultkit.judge(reference, db) == (0, 0, [])
    return said


@pytest.mark.scenario
@pytest.mark.prefect
def test_a_dead_server_at_prefect_api_url_runs_the_same_nightly_without_prefect(
    tmp_path: Path, reference: Path
) -> None:
    """PREFECT_API_URL names a port nothing listens on: its /health is refused at once, the run
    goes on without Prefect and publishes what a run under Prefect publishes (the reason's tail is
    the operating system's text, matched by a pattern)."""
    toml = copy_skeleton(tmp_path) / "tournament.toml"
    api = f"http://127.0.0.1:{closed_port()}/api"
    proc = cli("nightly", "--config", str(toml), "--now", AFTER_ALL, env=td_env(PREFECT_API_URL=api))
    said = check_ran_without_prefect(
        proc,
        toml,
        reference,
        re.compile(re.escape(f"Prefect's server at {api} is unavailable (") + r"\[Errno \d+\] .+\)"),
    )
    assert "Connection refused" in said


@pytest.mark.prefect
@pytest.mark.scenario
def test_a_dead_server_named_by_prefects_profile_stops_the_temporary_server_started_early(
    tmp_path: Path, reference: Path
) -> None:
    """The dead server is named by the active profile in Prefect's home, not the environment: the
    nightly starts Prefect's temporary server before Prefect is imported (prefect_env.spawn_early:
    nothing in the environment names a server), then Prefect's settings name one, so that early
    server is stopped and the run goes on without Prefect, as with PREFECT_API_URL set. The port
    the early server had is free again once the run has ended, and it was stopped before the
    run went on."""
    toml = copy_skeleton(tmp_path) / "tournament.toml"
    home = load_config(toml).paths.prefect_home
    assert home is not None
    home.mkdir(parents=True, exist_ok=True)
    api = f"http://127.0.0.1:{closed_port()}/api"
    (home / "profiles.toml").write_text(
        f'active = "td"\n\n[profiles.td]\nPREFECT_API_URL = "{api}"\n', encoding="utf-8"
    )
    proc = cli("nightly", "--config", str(toml), "--now", AFTER_ALL)
    check_ran_without_prefect(
        proc,
        toml,
        reference,
        re.compile(re.escape(f"Prefect's server at {api} is unavailable (") + r"\[Errno \d+\] .+\)"),
    )
    [log] = (load_config(toml).paths.database.parent / "logs").glob("*-nightly-*.log")
    text = log.read_text(encoding="utf-8")
    [port] = re.findall(r"Starting temporary server on http://127\.0\.0\.1:(\d+)", text)
    stopped = text.index(f"Stopping temporary server on http://127.0.0.1:{port}")
    assert stopped < text.index(f"Prefect's server at {api} is unavailable")  # at once, not at exit
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", int(port)))  # nothing is left listening there


@pytest.mark.prefect
@pytest.mark.scenario
def test_a_server_whose_api_fails_after_health_answers_runs_the_same_nightly_without_prefect(
    tmp_path: Path, reference: Path
) -> None:
    """PREFECT_API_URL names a server whose /health answers 200 but whose API answers 500 (its
    database failed after it started): the flow fails before its body starts, and the same run
    goes on without Prefect (the reason is Prefect's own error, matched by a pattern)."""
    toml = copy_skeleton(tmp_path) / "tournament.toml"
    with faultkit.DownPrefectServer("broken") as api:
        proc = cli("nightly", "--config", str(toml), "--now", AFTER_ALL, env=td_env(PREFECT_API_URL=api))
    check_ran_without_prefect(proc, toml, reference, re.compile(r"Prefect could not start the flow \(\w+: .+\)"))


def plant_garbage_database(home: Path) -> str:
    home.mkdir(parents=True)
    (home / "prefect.db").write_bytes(b"not a database, a bad copy\n" * 1000)
    return f"Prefect's temporary server cannot start (its database {home / 'prefect.db'} cannot be read: file is not a database)"


def plant_home_under_a_file(home: Path) -> str:
    home.parent.parent.mkdir(parents=True)
    home.parent.write_text("a file where a folder should be\n", encoding="utf-8")
    return f"Prefect's home {home} cannot be created (Not a directory)"


def plant_unknown_migration(home: Path) -> str:
    """A healthy SQLite file (PRAGMA quick_check says ok) whose schema Prefect cannot migrate: the
    temporary server itself fails at start-up (uvicorn's exit code 3)."""
    home.mkdir(parents=True)
    con = sqlite3.connect(home / "prefect.db")
    con.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY)")
    con.execute("INSERT INTO alembic_version VALUES ('deadbeef0000')")
    con.commit()
    con.close()
    return (
        "Prefect's temporary server cannot start (it stopped while starting, exit code 3: "
        "alembic.util.exc.CommandError: Can't locate revision identified by 'deadbeef0000')"
    )


@pytest.mark.prefect
@pytest.mark.parametrize(
    "plant",
    [
        plant_garbage_database,
        pytest.param(plant_home_under_a_file, marks=pytest.mark.scenario),
        # a server start: 20-35 s on two busy cores
        pytest.param(plant_unknown_migration, marks=[pytest.mark.slow, pytest.mark.scenario]),
    ],
    ids=lambda f: f.__name__,
)
def test_a_temporary_server_that_cannot_start_runs_the_same_nightly_without_prefect(
    tmp_path: Path, reference: Path, plant
) -> None:
    """No PREFECT_API_URL (Prefect's temporary server, in the config's prefect_home): a prefect.db
    that is not a SQLite file or a home that cannot be created is seen before any server starts;
    a server that stops while starting (a schema it cannot migrate) is seen at its first exit,
    not after Prefect's 120 s start-up timeout. Either way the run goes on without Prefect."""
    folder = copy_skeleton(tmp_path)
    toml = folder / "tournament.toml"
    home = folder / "out" / ".prefect"
    if plant is plant_home_under_a_file:
        home = folder / "out" / "a-file" / ".prefect"
        text = toml.read_text(encoding="utf-8")
        toml.write_text(
            text.replace(
                'database = "out/skeleton.duckdb"',
                'database = "out/skeleton.duckdb"\nprefect_home = "out/a-file/.prefect"',
            ),
            encoding="utf-8",
        )
    reason = plant(home)
    proc = cli("nightly", "--config", str(toml), "--now", AFTER_ALL, env=td_env())
    check_ran_without_prefect(proc, toml, reference, reason)
    [log] = (folder / "out" / "logs").glob("*-nightly-*.log")
    started = "Starting temporary server on http://127.0.0.1:" in log.read_text(encoding="utf-8")
    assert started == (plant is plant_unknown_migration)  # the planted files are found without starting one


def test_without_prefect_a_fetch_that_lichess_failed_is_retried_as_under_prefect(skeleton: Path) -> None:
    """The plain run keeps the flow's retries (flows.nightly.as_functions): with Lichess answering
    502 to everything and no per-request retries configured, the first profile request fails the
    batch, which runs again INGEST_RETRIES times: 1 + 2 = 3 requests, then the Lichess error
    fails the run in ingest, recorded with the reason Prefect was not used."""
    from flows.nightly import INGEST_RETRIES, nightly_without_prefect

    toml = skeleton.read_text(encoding="utf-8")
    down = replay.ReplayOptions(games_per_s=0, faults=replay.Faults(rate_5xx=1.0))
    with replay.running(SKELETON / "lichess", options=down) as server:
        skeleton.write_text(
            toml.replace(
                'replay_data = "lichess"', f'base_url = "{server.base_url}"\nmax_retries = 0\nbackoff_s = 0.05'
            ),
            encoding="utf-8",
        )
        with pytest.raises(LichessError) as e:
            nightly_without_prefect(
                str(skeleton), None, "Prefect's server at http://127.0.0.1:9/api is unavailable (test)"
            )
        served = dict(server.requests_by_kind)
    assert sum(served.values()) == 1 + INGEST_RETRIES == 3, served
    con = duckdb.connect(str(load_config(skeleton).paths.work_database), read_only=True)
    try:
        rows = con.sql(
            "SELECT status, stage, error, flow_run_id, warnings, counts->>'$.start.prefect' FROM runs"
        ).fetchall()
    finally:
        con.close()
    assert rows == [
        (
            "failed",
            "ingest",
            str(e.value),
            None,
            ["Prefect's server at http://127.0.0.1:9/api is unavailable (test)" + WITHOUT_PREFECT],
            "unavailable",
        )
    ]


@pytest.mark.scenario
@pytest.mark.slow
def test_a_temporary_server_killed_mid_run_leaves_the_run_published_and_ok(tmp_path: Path) -> None:
    """Prefect's temporary server killed while the run ingests (an OOM killer, a crash). The tasks
    go on (their states reach the server as events, which Prefect drops with a log line); only
    the flow's final state cannot be told. The run published, so it is a success: exit 0, one
    warning line naming the server, the run 'ok' in the working database and in the published
    snapshot alike, never exit 4 with the published run 'failed in publish'."""
    import os
    import signal
    import subprocess
    import sys

    from pipeline import progress

    toml = copy_skeleton(tmp_path) / "tournament.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(re.sub(r"replay_games_per_s = \S+", "replay_games_per_s = 3", text, count=1), encoding="utf-8")
    env = td_env(**{progress.PROGRESS_INTERVAL_ENV: "0.3"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "nightly", "--config", str(toml), "--now", AFTER_ALL],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    seen = read_until_ingest_in_flow(proc, toml)
    servers = children(proc.pid)
    assert servers, "Prefect's temporary server is not a child of the run"
    for pid in servers:
        os.kill(pid, signal.SIGKILL)
    try:
        _, rest = proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, rest = proc.communicate()
        raise AssertionError(f"still running 300 s after Prefect's server died: {rest[-3000:]}") from None
    stderr = "".join(seen) + rest
    assert proc.returncode == 0, stderr[-3000:]
    said = [x for x in stderr.splitlines() if "Prefect" in x]
    assert len(said) == 1 and re.fullmatch(
        r"warning: Prefect's server at http://127\.0\.0\.1:\d+/api stopped answering during the run "
        r"\(ConnectError: .+\); the run finished and published, but Prefect's record of its flow run is incomplete",
        said[0],
    ), stderr[-3000:]
    assert "Traceback" not in stderr
    cfg = load_config(toml)
    for db in (cfg.paths.work_database, cfg.paths.database):
        con = duckdb.connect(str(db), read_only=True)
        try:
            assert con.sql("SELECT run_id, status, stage, error FROM pipeline_runs").fetchall() == [
                (1, "ok", "publish", None)
            ]
        finally:
            con.close()
