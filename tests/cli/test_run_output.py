"""What a run says to the TD, and how it stops: progress while ingesting without a terminal, a
quiet stderr (Prefect's lines only in the log file, -v shows the logs), a second run refused
before Prefect starts, Ctrl-C and SIGTERM closing the run with its usual line, and the small
things of the CLI (--version, serve's help, a first run's summary, a refused run recorded).

Real processes (`python -m pipeline`, the `antichess-td` program), the real replay server over
HTTP (the config's `replay_data`), real DuckDB files; Prefect either under the session's test
harness or, where the terminal of a TD is the point, its own temporary server."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from kits.skeleton_kit import AFTER_ALL, children, cli, copy_skeleton, read_until_ingest_in_flow, td_env
from pipeline import progress
from pipeline.cli.app import app
from pipeline.inputs.config import load_config
from pipeline.store import snapshot

ROOT = Path(__file__).resolve().parents[2]
SKELETON_GAMES = 37  # lines of tests/data/skeleton/lichess/games.ndjson, all between registered players
BEFORE_ROUND_1 = "2026-03-02T03:00:00Z"
PROGRESS = re.compile(
    r"^ingest: (\d+) games so far, \d+\.\d games/s; (\d)/8 players; (.*); the replay server sends "
    r"(\d+) games/s per stream \(lichess\.replay_games_per_s = 0 turns that off\)$"
)


def skeleton_at(tmp_path: Path, games_per_s: float) -> Path:
    """A copy of the skeleton tournament whose in-process replay server sends `games_per_s`."""
    toml = copy_skeleton(tmp_path) / "tournament.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(
        re.sub(r"replay_games_per_s = \S+", f"replay_games_per_s = {games_per_s}", text, count=1),
        encoding="utf-8",
    )
    return toml


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def runs_rows(path: Path) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.sql("SELECT run_id, command, status, stage, error FROM runs ORDER BY run_id").fetchall()
    finally:
        con.close()


def finished_at(path: Path, run_id: int) -> dt.datetime:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return (
            con.execute("SELECT finished_at FROM runs WHERE run_id = ?", [run_id]).fetchall()[0][0].astimezone(dt.UTC)
        )
    finally:
        con.close()


# --------------------------------------------------------------------------- progress


@pytest.mark.scenario
def test_a_throttled_replay_ingest_prints_progress_lines_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    """A run that looks hung: with stderr not a terminal, ingest prints a line every interval with
    the games so far, games/s, the players done and what remains, and names the replay server's
    throttle and the key that turns it off. 74 game lines (37 games, each in both players'
    streams) at 8 games/s per stream take over 4 s: at a 0.3 s interval, several lines."""
    toml = skeleton_at(tmp_path, 8)
    proc = cli(
        "ingest", "--config", str(toml), "--now", AFTER_ALL, env=td_env(**{progress.PROGRESS_INTERVAL_ENV: "0.3"})
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [line for line in proc.stderr.splitlines() if "games so far" in line]
    assert len(lines) >= 5, proc.stderr
    matches = [PROGRESS.match(line) for line in lines]
    assert all(matches), [line for line, m in zip(lines, matches, strict=False) if not m]
    games = [int(m.group(1)) for m in matches if m]
    assert games == sorted(games) and 0 < games[-1] <= 2 * SKELETON_GAMES
    assert {m.group(4) for m in matches if m} == {"8"}
    estimates = [
        m.group(3) for m in matches if m and re.fullmatch(r"about \d+ games? and \d+ (s|min \d\d s) left", m.group(3))
    ]
    assert estimates, [m.group(3) for m in matches if m]
    assert f"games: {2 * SKELETON_GAMES} fetched" in proc.stdout


def test_verification_progress_counts_games_against_the_total() -> None:
    """Verification (replaying each new match game) shows the same kind of line: done of total,
    games/s and what remains at that pace."""
    import io

    out = io.StringIO()
    with progress.CountProgress("verify", 40, interval_s=0.05, stream=out, tty=False) as shown:
        for _ in range(20):
            shown.step()
        time.sleep(0.3)
    lines = out.getvalue().splitlines()
    assert lines, "no progress line"
    m = re.fullmatch(r"verify: 20 of 40 games, (\d+\.\d) games/s; about 20 games and (\d+) s left", lines[-1])
    assert m, lines[-1]


def test_progress_lines_come_every_10_s_by_default() -> None:
    os.environ.pop(progress.PROGRESS_INTERVAL_ENV, None)
    assert progress.progress_interval_s() == 10.0


# --------------------------------------------------------------------------- quiet by default


@pytest.mark.scenario
@pytest.mark.slow
def test_a_nightly_run_keeps_prefect_off_the_terminal_and_logs_it_to_a_file(tmp_path: Path) -> None:
    """Quiet by default: a TD's nightly run (Prefect's own temporary server, as without
    PREFECT_API_URL) prints the summary on stdout; stderr holds only our warnings in one line each
    and progress lines: no Prefect line, no server URL hint, no traceback. The full log, Prefect's
    lines included, is in <database folder>/logs/."""
    toml = skeleton_at(tmp_path, 0)
    proc = cli(
        "nightly",
        "--config",
        str(toml),
        "--now",
        AFTER_ALL,
        env=td_env(**{progress.PROGRESS_INTERVAL_ENV: "0.5"}),
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines()[-1].startswith("run 1 ok in ")
    for line in proc.stderr.splitlines():
        assert line.startswith(("warning: ", "ingest: ")), line
    assert "prefect" not in proc.stderr.lower() and "Traceback" not in proc.stderr and "http://" not in proc.stderr
    [log] = (toml.parent / "out" / "logs").glob("*-nightly-*.log")
    text = log.read_text(encoding="utf-8")
    assert "Starting temporary server on http://127.0.0.1:" in text and "Beginning flow run" in text
    assert proc.stdout.splitlines()[-1] in text  # the summary too
    # the temporary server's database: the flow run and its tasks' events, and no heartbeat (that
    # server lives only as long as the run, so no one can miss one; the flow's end waited for them)
    prefect_db = load_config(toml).paths.prefect_home / "prefect.db"  # type: ignore[operator]
    con = sqlite3.connect(prefect_db)
    try:
        assert con.execute("SELECT state_type FROM flow_run").fetchall() == [("COMPLETED",)]
        events = dict(con.execute("SELECT event, count(*) FROM events GROUP BY event").fetchall())
    finally:
        con.close()
    assert events.get("prefect.task-run.Completed", 0) >= 7, events
    assert "prefect.flow-run.heartbeat" not in events, events


def test_v_shows_the_log_lines_on_stderr(tmp_path: Path) -> None:
    """-v (a global option, before the command) shows every log line, with time and logger."""
    toml = skeleton_at(tmp_path, 0)
    quiet = cli("score", "--config", str(toml), "--now", AFTER_ALL)
    loud = cli("-v", "score", "--config", str(toml), "--now", AFTER_ALL)
    assert quiet.returncode == loud.returncode == 0, (quiet.stderr, loud.stderr)
    published = f"INFO pipeline.stages.record: published {load_config(toml).paths.database} (run 2)"
    assert published in loud.stderr
    assert "INFO" not in quiet.stderr and "pipeline.stages.record" not in quiet.stderr


def test_a_second_run_stops_at_once_with_exit_3_before_prefect_starts(tmp_path: Path) -> None:
    """Exit 3 (an outside failure): while another run holds the tournament's lock, `nightly` stops with its
    one line before Prefect (or even DuckDB) is imported: no Prefect home is created. The time is
    bounded generously (the line comes in about 1.5 s on two busy cores)."""
    toml = skeleton_at(tmp_path, 0)
    cfg = load_config(toml)
    assert cfg.paths.prefect_home is not None
    with snapshot.writer_lock(cfg.paths.work_database):
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "pipeline", "nightly", "--config", str(toml)],
            capture_output=True,
            text=True,
            timeout=60,
            env=td_env(),
        )
        elapsed = time.monotonic() - started
    said = [line for line in proc.stderr.splitlines() if not line.startswith("import time:")]
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert proc.returncode == 3
    assert said == [
        (
            f"error: another antichess-td run (pid {os.getpid()}) is writing {cfg.paths.work_database}: "
            "wait for it to finish (the published database stays readable meanwhile)"
        )
    ]
    assert "prefect" not in imported and "duckdb" not in imported
    assert not cfg.paths.prefect_home.exists()
    assert elapsed < 5, elapsed


# --------------------------------------------------------------------------- Ctrl-C and SIGTERM


def interrupt_mid_ingest(
    toml: Path, signum: int, env: dict[str, str], group: bool
) -> tuple[subprocess.Popen[str], float, str]:
    """Start `antichess-td nightly`, wait for a progress line with games printed after the flow run
    began (the downloads begin before Prefect has started: the ingest's head start), send
    `signum` (to the whole process group, as a terminal's Ctrl-C does, or to the process); returns
    the process, the seconds it took to end and its stderr."""
    proc = subprocess.Popen(
        ["antichess-td", "nightly", "--config", str(toml)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    seen = read_until_ingest_in_flow(proc, toml)
    sent = time.monotonic()
    (os.killpg if group else os.kill)(proc.pid, signum)
    try:
        _, rest = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the run and whatever it started
        _, rest = proc.communicate()
        raise AssertionError(f"still running 60 s after the signal: {rest[-2000:]}") from None
    return proc, time.monotonic() - sent, "".join(seen) + rest


def check_interrupted(
    toml: Path, proc: subprocess.Popen[str], took: float, stderr: str, good: str, reason: str, code: int
) -> None:
    cfg = load_config(toml)
    db = cfg.paths.database
    assert took < 5, took
    assert proc.returncode == code, stderr[-2000:]
    assert stderr.splitlines()[-1] == (
        f"run 2 interrupted in ingest; the published {db} is unchanged: it holds run 1 "
        f"(ingest, finished {finished_at(db, 1):%Y-%m-%d %H:%M:%S} UTC)"
    )
    assert "Traceback" not in stderr and "prefect" not in stderr.lower()
    assert sha256(db) == good
    assert runs_rows(cfg.paths.work_database)[-1] == (2, "nightly", "failed", "ingest", reason)


@pytest.mark.prefect
def test_sigterm_mid_ingest_closes_the_run_within_5_s_and_leaves_the_published_file(
    tmp_path: Path, prefect_api_url: str
) -> None:
    """SIGTERM (systemd, kill): the run ends within 5 s with exit 143 (128 + 15), its closing line,
    'failed' in ingest in `runs` with why; the published file is byte for byte the one before."""
    toml = skeleton_at(tmp_path, 4)
    first = cli("ingest", "--config", str(toml), "--now", BEFORE_ROUND_1)
    assert first.returncode == 0, first.stderr
    good = sha256(load_config(toml).paths.database)
    env = td_env(PREFECT_API_URL=prefect_api_url, **{progress.PROGRESS_INTERVAL_ENV: "0.3"})
    proc, took, stderr = interrupt_mid_ingest(toml, signal.SIGTERM, env, group=False)
    check_interrupted(toml, proc, took, stderr, good, "stopped by SIGTERM", 143)


@pytest.mark.scenario
@pytest.mark.slow
def test_ctrl_c_mid_ingest_closes_the_run_within_5_s_and_stops_prefects_server(tmp_path: Path) -> None:
    """Ctrl-C on a terminal (SIGINT to the whole process group, Prefect's temporary server
    included): exit 130 (128 + 2) within 5 s, the closing line, the run recorded, the published
    file unchanged, and no process of the run left behind."""
    toml = skeleton_at(tmp_path, 4)
    first = cli("ingest", "--config", str(toml), "--now", BEFORE_ROUND_1)
    assert first.returncode == 0, first.stderr
    good = sha256(load_config(toml).paths.database)
    proc, took, stderr = interrupt_mid_ingest(
        toml, signal.SIGINT, td_env(**{progress.PROGRESS_INTERVAL_ENV: "0.3"}), group=True
    )
    check_interrupted(toml, proc, took, stderr, good, "interrupted by the user (Ctrl-C)", 130)
    deadline = time.monotonic() + 10
    while True:  # the group (the run and Prefect's server) is gone
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "a process of the interrupted run is still running"
        time.sleep(0.2)


def _running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie no one has reaped yet is not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


@pytest.mark.scenario
@pytest.mark.slow
def test_sigterm_while_prefects_server_starts_stops_that_server(tmp_path: Path) -> None:
    """SIGTERM to the nightly's process alone (as `kill PID` sends it) while Prefect's temporary
    server is still starting: the run ends with exit 143 and takes the server with it. The server
    starts as soon as the run holds its lock, seconds before it answers; a process that exits
    with os._exit runs no atexit handler, so an unstopped server would outlive the run."""
    toml = skeleton_at(tmp_path, 0)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "nightly", "--config", str(toml), "--now", AFTER_ALL],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=td_env(),
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    servers: list[int] = []
    while not servers:  # the server's process: a child running uvicorn
        servers = [c for c in children(proc.pid) if b"uvicorn" in Path(f"/proc/{c}/cmdline").read_bytes()]
        assert proc.poll() is None and time.monotonic() < deadline, "no temporary server was started"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGTERM)
    try:
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    try:
        assert proc.returncode == 143, stderr[-2000:]
        deadline = time.monotonic() + 10
        while _running(servers[0]):
            assert time.monotonic() < deadline, "Prefect's temporary server outlived the run"
            time.sleep(0.1)
    finally:
        if _running(servers[0]):  # a failed check leaves no server behind
            os.kill(servers[0], signal.SIGKILL)


# --------------------------------------------------------------------------- small things


def test_version_prints_the_package_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == f"antichess-td {version('antichess-td')}\n"


def test_serve_help_names_the_default_schedule() -> None:
    """The help names the default schedule in words and shows no `(, default ...)` fragment: rich
    reads square brackets in a help text as markup, and would swallow `[schedule]`."""
    result = CliRunner().invoke(app, ["serve", "--help"])
    text = " ".join(result.output.replace("│", " ").split())
    assert "on the cron line of the config's schedule table (by default every day at 03:00 UTC)" in text
    assert "(," not in text


def test_a_first_run_does_not_say_games_were_already_stored_or_rounds_scored_again(tmp_path: Path) -> None:
    """On an empty database every game is new: the second copy of a game (it comes in both its
    players' streams) is 'again', not 'already stored'; the rounds are scored for the first time.
    A second score finds nothing changed."""
    toml = skeleton_at(tmp_path, 0)
    ingest = cli("ingest", "--config", str(toml), "--now", AFTER_ALL)
    score = cli("score", "--config", str(toml), "--now", AFTER_ALL)
    again = cli("score", "--config", str(toml), "--now", AFTER_ALL)
    assert ingest.returncode == score.returncode == again.returncode == 0, (ingest.stderr, score.stderr)
    assert (
        f"games: {2 * SKELETON_GAMES} fetched = {2 * SKELETON_GAMES} loaded ({SKELETON_GAMES} new, {SKELETON_GAMES} "
        "again) + 0 other-variant skipped + 0 still being played + 0 rejected; "
        f"{SKELETON_GAMES} distinct: {SKELETON_GAMES} new, 0 stored by an earlier run ('again': a game between "
        "two registered players comes in both their streams)"
    ) in ingest.stdout.splitlines()
    assert "already stored" not in ingest.stdout
    assert "(2 rounds scored for the first time); " in score.stdout and "scored again" not in score.stdout
    assert "(0 rounds scored again: the others' inputs had not changed); " in again.stdout


def test_a_run_refused_at_validation_is_recorded_in_runs(tmp_path: Path) -> None:
    """Exit 2 with the one-line message, and a row in the working database's `runs`: 'failed' in
    stage 'validate' with the message. The published snapshot is untouched. (A tournament that
    never ran writes nothing at all: tests/inputs/test_bad_input.py.)"""
    toml = skeleton_at(tmp_path, 0)
    cfg = load_config(toml)
    first = cli("score", "--config", str(toml))
    assert first.returncode == 0, first.stderr
    good = sha256(cfg.paths.database)
    teams = toml.parent / "teams.csv"
    teams.write_text(teams.read_text(encoding="utf-8").replace("Alphas,Amir,2,,", "Alphas,Amir,7,,"), encoding="utf-8")
    proc = cli("score", "--config", str(toml))
    message = "teams.csv line 3: board '7' for player 'Amir': expected 1-3"  # 2 boards and a substitute
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [f"error: {message}"]
    assert runs_rows(cfg.paths.work_database) == [
        (1, "score", "ok", "publish", None),
        (2, "score", "failed", "validate", message),
    ]
    assert sha256(cfg.paths.database) == good


@pytest.mark.prefect
def test_the_test_server_registers_no_block_types(prefect_api_url: str) -> None:
    """pipeline/cli/prefect_env: PREFECT_API_BLOCKS_REGISTER_ON_START=false reaches the server the
    runs use (here the suite's test server, started with isolate's environment): no block type is
    registered, which Prefect otherwise does at every fresh server's start."""
    import httpx

    response = httpx.post(f"{prefect_api_url}/block_types/filter", json={}, timeout=30)
    assert response.status_code == 200 and response.json() == []
    assert os.environ["PREFECT_API_BLOCKS_REGISTER_ON_START"] == "false"
