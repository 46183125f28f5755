"""Fault-injection scenarios, shared by tests/lichess/test_faults.py and benchmarks/faults.py.

A scenario runs the real path (replay server on 127.0.0.1 with injected faults → berserk →
DuckDB file, or the real ``python -m pipeline`` CLI killed with SIGKILL and rerun) and is judged
against an undisturbed run of the same data by :func:`judge`:

* lost: game ids of the undisturbed ``lichess_games`` missing from the disturbed database;
* duplicated: rows beyond the first per game id in ``raw_games``, ``lichess_games`` and
  ``scored_match_games`` (per scoring key), counted from the data, not trusted to the keys;
* equal: every base table's (row count, row-hash sum) equals the undisturbed one's
  (store.table_checksums: the run record ``pipeline_runs`` and fetch/verify/audit times are left
  out by design, they differ between any two runs);
* extra requests: requests the replay server served beyond the undisturbed run's count;
* waited: seconds the client's retry policy slept (429 waits and 5xx/connection backoff).
"""

from __future__ import annotations

import datetime as dt
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from pipeline.errors import LichessError
from pipeline.lichess import ingest_report, request_plan
from pipeline.lichess.client import RetryPolicy, make_client
from pipeline.sim import replay
from pipeline.store import gateway

ROOT = Path(__file__).resolve().parents[2]
SEASON = ROOT / "tests" / "data" / "season" / "lichess"
NOW = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)
TASK_RETRIES = 2  # as flows.nightly.INGEST_RETRIES: a nightly run reruns a failed fetch twice

DUPLICATES = {  # table: the key a row may appear under only once
    "raw_games": "game_id",
    "lichess_games": "game_id",
    "scored_match_games": "stage, round, board, entrant_a, game_id",
}


def scaled_policy(scale: float, max_retries: int = 5) -> RetryPolicy:
    """The production retry policy (≥60 s after a 429, 2 s backoff, 600 s cap) with every wait × scale."""
    return RetryPolicy(
        rate_limit_wait_s=60 * scale, backoff_s=2 * scale, max_retries=max_retries, max_wait_s=600 * scale
    )


@dataclass
class Outcome:
    scenario: str
    runs: int = 0
    lost: int = 0
    duplicated: int = 0
    extra_requests: int = 0
    waited_s: float = 0.0
    wall_s: float = 0.0
    reference_wall_s: float = 0.0  # the undisturbed run(s) of the same scenario
    differing_tables: list[str] = field(default_factory=list)
    injected: dict[str, int] = field(default_factory=dict)
    requests_counted: bool = True  # False: the replay server ran inside the CLI, nobody counted its requests

    def add(self, other: Outcome) -> None:
        self.runs += other.runs
        self.lost += other.lost
        self.duplicated += other.duplicated
        self.extra_requests += other.extra_requests
        self.waited_s += other.waited_s
        self.wall_s += other.wall_s
        self.reference_wall_s += other.reference_wall_s
        self.requests_counted = self.requests_counted and other.requests_counted
        self.differing_tables = sorted(set(self.differing_tables) | set(other.differing_tables))
        for k, v in other.injected.items():
            self.injected[k] = self.injected.get(k, 0) + v


@dataclass(frozen=True)
class Reference:
    """What an undisturbed run left: its database and the requests it cost."""

    path: Path
    requests: int
    wall_s: float


def _game_ids(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {g for (g,) in con.execute("SELECT game_id FROM lichess_games").fetchall()}


def duplicates(con: duckdb.DuckDBPyConnection) -> int:
    """Rows beyond the first per key, summed over DUPLICATES (tables the database has)."""
    have = {t for (t,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    n = 0
    for table, key in DUPLICATES.items():
        if table in have:
            n += con.execute(f"SELECT count(*) - count(DISTINCT ({key})) FROM {table}").fetchall()[0][0]
    return n


# A rerun after a run killed once its ingest had committed is, for the working database, a second
# night: the players' profiles show nothing new, so it searches each open board's pair for casual
# games (one `vs` request each, since the full stream's cursor) and records that search in a
# 'vs:<opponent>' cursor row, which the single undisturbed night never needed. Those rows are
# search bookkeeping (no game data); every other cursor row is compared.
SEARCH_CURSORS = (
    "SELECT count(*), coalesce(sum(hash(user_id, endpoint, since_ms, synced_games, synced_rating)::HUGEINT), 0) "
    "FROM ingest_cursors WHERE NOT starts_with(endpoint, 'vs:')"
)


def checksums(con: duckdb.DuckDBPyConnection, second_night_ok: bool) -> dict[str, tuple[int, int]]:
    out = gateway.table_checksums(con)
    if second_night_ok and "ingest_cursors" in out:
        n, total = con.execute(SEARCH_CURSORS).fetchall()[0]
        out["ingest_cursors"] = (n, int(total))
    return out


def judge(reference: Path, disturbed: Path, second_night_ok: bool = False) -> tuple[int, int, list[str]]:
    """(lost, duplicated, tables whose checksum differs) of `disturbed` against `reference`;
    `second_night_ok`: leave out the casual-game search cursors a rerun adds (SEARCH_CURSORS)."""
    ref = gateway.connect(reference, read_only=True)
    got = gateway.connect(disturbed, read_only=True)
    try:
        lost = len(_game_ids(ref) - _game_ids(got))
        dup = duplicates(got)
        a, b = checksums(ref, second_night_ok), checksums(got, second_night_ok)
        differ = sorted(t for t in a.keys() | b.keys() if a.get(t) != b.get(t))
    finally:
        ref.close()
        got.close()
    return lost, dup, differ


# -- ingest-level scenarios (in-process, the replay server's fault options)


def ingest_once(
    dataset: replay.Dataset,
    path: Path,
    faults: replay.Faults,
    policy: RetryPolicy,
    timeout_s: float = 5.0,
    attempts: int = 1 + TASK_RETRIES,
) -> tuple[Outcome, ingest_report.IngestReport]:
    """Ingest every player of `dataset` into `path` from a server injecting `faults`. A fetch that
    still fails after the client's retries is rerun from its cursors, as the nightly flow's task
    retries do (at most `attempts` runs); each rerun counts as a run."""
    waits: list[float] = []

    def sleep(s: float) -> None:
        waits.append(s)
        time.sleep(s)

    out = Outcome("")
    start = time.perf_counter()
    with replay.running(dataset, options=replay.ReplayOptions(games_per_s=0, faults=faults)) as server:
        client = make_client(server.base_url, "test-token", timeout_s, policy, sleep=sleep)
        for attempt in range(1, attempts + 1):
            out.runs = attempt
            con = gateway.connect(path)
            try:
                report = request_plan.ingest(con, client, list(dataset.users), None, NOW)
                break
            except LichessError:
                if attempt == attempts:
                    raise
            finally:
                con.close()
        out.extra_requests = server.requests_served
        out.injected = dict(server.faults_injected)
    out.wall_s = time.perf_counter() - start
    out.waited_s = sum(waits)
    return out, report


def reference_ingest(dataset: replay.Dataset, path: Path) -> Reference:
    out, _ = ingest_once(dataset, path, replay.Faults(), scaled_policy(0.001))
    assert out.injected == {} and out.runs == 1
    return Reference(path, out.extra_requests, out.wall_s)


def ingest_scenario(
    name: str,
    dataset: replay.Dataset,
    ref: Reference,
    path: Path,
    faults: replay.Faults,
    policy: RetryPolicy,
    timeout_s: float = 5.0,
) -> Outcome:
    out, report = ingest_once(dataset, path, faults, policy, timeout_s)
    out.scenario = name
    out.extra_requests -= ref.requests
    out.reference_wall_s = ref.wall_s
    out.lost, out.duplicated, out.differing_tables = judge(ref.path, path)
    return out


# -- kill -9 scenarios (the real CLI in a subprocess)


def ingest_config(folder: Path, base_url: str, users: list[str]) -> Path:
    """An individual tournament of `users` whose Lichess is `base_url`; database k.duckdb."""
    (folder / "players.csv").write_text("player\n" + "".join(f"{u}\n" for u in users), encoding="utf-8")
    (folder / "pairings.csv").write_text("stage,round,a,b\n", encoding="utf-8")
    cfg = folder / "tournament.toml"
    cfg.write_text(
        f"""
[tournament]
id = "kill"
kind = "individual"
[lichess]
base_url = "{base_url}"
history_since = "2026-01-01T00:00:00Z"
[paths]
players = "players.csv"
pairings = "pairings.csv"
database = "k.duckdb"
exports = "out"
[stages.q]
kind = "swiss"
parts = [{{ time_control = "2+5", games = 10, win = 1, draw = 0.5 }}]
""",
        encoding="utf-8",
    )
    return cfg


def _env(prefect_api_url: str | None = None) -> dict[str, str]:
    env = {**os.environ, "LICHESS_TOKEN": "test-token", "PYTHONPATH": str(ROOT)}
    if prefect_api_url:
        env["PREFECT_API_URL"] = prefect_api_url
    return env


def kill_and_rerun(cmd: list[str], env: dict[str, str], delays: list[float], timeout_s: float = 300) -> tuple[int, int]:
    """Start `cmd` and SIGKILL it after each delay in turn, then run it to completion. A run that
    ends before its kill is that completion: no further run (a second complete run would be a
    second night, which does more than the first by design: casual-game searches). Returns
    (runs, kills)."""
    kills = 0
    for delay in delays:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            _, err = proc.communicate(timeout=delay)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            kills += 1
            proc.communicate()
            continue
        if proc.returncode != 0:
            raise AssertionError(f"a run that was not killed failed ({proc.returncode}): {err[-2000:]}")
        return kills + 1, kills
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout_s)
    if done.returncode != 0:
        raise AssertionError(f"the rerun failed ({done.returncode}): {done.stderr[-2000:]}")
    return kills + 1, kills


def timed_run(cmd: list[str], env: dict[str, str], timeout_s: float = 300) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout_s)
    if done.returncode != 0:
        raise AssertionError(f"the undisturbed run failed ({done.returncode}): {done.stderr[-2000:]}")
    return time.perf_counter() - start


def kill_ingest_scenario(
    dataset: replay.Dataset, folder: Path, seed: int, kills: int = 3, games_per_s: float = 1500
) -> tuple[Outcome, int]:
    """`antichess-td ingest` killed with SIGKILL at `kills` seeded moments within an undisturbed
    run's measured duration (same server, its own database), then rerun; judged against that
    undisturbed run's database."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "clean").mkdir(exist_ok=True)
    (folder / "killed").mkdir(exist_ok=True)
    rng = random.Random(seed)
    with replay.running(dataset, options=replay.ReplayOptions(games_per_s=games_per_s)) as server:
        cmd = [sys.executable, "-m", "pipeline", "ingest", "--now", "2026-11-29T00:00:00Z", "--config"]
        clean_cfg = ingest_config(folder / "clean", server.base_url, list(dataset.users))
        duration = timed_run([*cmd, str(clean_cfg)], _env())
        before = server.requests_served
        cfg = ingest_config(folder / "killed", server.base_url, list(dataset.users))
        start = time.perf_counter()
        runs, killed = kill_and_rerun(
            [*cmd, str(cfg)], _env(), sorted(rng.uniform(0.1, 0.95) * duration for _ in range(kills))
        )
        wall = time.perf_counter() - start
        served = server.requests_served - before
    out = Outcome(
        "kill -9 of ingest, then rerun",
        runs=runs,
        extra_requests=served - before,
        wall_s=wall,
        reference_wall_s=duration,
    )
    out.injected = {"kill": killed}
    out.lost, out.duplicated, out.differing_tables = judge(
        folder / "clean" / "k.duckdb", folder / "killed" / "k.duckdb"
    )
    return out, killed


def nightly_configs(skeleton_dir: Path, base_url: str) -> tuple[Path, Path]:
    """Two copies of a skeleton tournament fetching from `base_url` (same config text, so the same
    scoring fingerprints): one for the undisturbed nightly, one for the killed ones."""
    import shutil

    out = []
    for name in ("clean", "killed"):
        dest = skeleton_dir.parent / f"nightly-{name}"
        shutil.copytree(skeleton_dir, dest, ignore=shutil.ignore_patterns("out", "make_dataset.py", "lichess"))
        cfg = dest / "tournament.toml"
        cfg.write_text(
            cfg.read_text(encoding="utf-8").replace('replay_data = "lichess"', f'base_url = "{base_url}"'),
            encoding="utf-8",
        )
        out.append(cfg)
    return out[0], out[1]


def kill_nightly_scenario(
    skeleton_dir: Path,
    prefect_api_url: str,
    seed: int,
    kills: int = 3,
    now: str = "2026-03-18T03:00:00Z",
    games_per_s: float = 15,
) -> tuple[Outcome, int]:
    """`antichess-td nightly` (Prefect on `prefect_api_url`) killed with SIGKILL at `kills` seeded
    moments in the first 60 % of an undisturbed nightly's measured duration (a later run on a
    machine whose load dropped can be twice as fast: a kill at 95 % would often come too late),
    then rerun to completion; the published snapshot is judged against the undisturbed nightly's."""
    from pipeline.inputs.config import load_config

    dataset = replay.Dataset.load(skeleton_dir / "lichess")
    at = dt.datetime.fromisoformat(now.replace("Z", "+00:00"))
    rng = random.Random(seed)
    with replay.running(dataset, now=at, options=replay.ReplayOptions(games_per_s=games_per_s)) as server:
        clean, killed = nightly_configs(skeleton_dir, server.base_url)
        cmd = [sys.executable, "-m", "pipeline", "nightly", "--now", now, "--config"]
        env = _env(prefect_api_url)
        duration = timed_run([*cmd, str(clean)], env)
        reference = server.requests_served
        start = time.perf_counter()
        runs, n_killed = kill_and_rerun(
            [*cmd, str(killed)], env, [rng.uniform(0.05, 0.6) * duration for _ in range(kills)]
        )
        wall = time.perf_counter() - start
        served = server.requests_served - reference
    out = Outcome(
        "kill -9 of nightly, then rerun",
        runs=runs,
        extra_requests=served - reference,
        wall_s=wall,
        reference_wall_s=duration,
    )
    out.injected = {"kill": n_killed}
    out.lost, out.duplicated, out.differing_tables = judge(
        load_config(clean).paths.database, load_config(killed).paths.database, second_night_ok=True
    )
    return out, n_killed


# -- Prefect's server down (the real CLI in a subprocess)

PREFECT_DOWN = (
    "refused",  # nothing listens on the port
    "silent",  # a listener that accepts connections and never answers
    "503",  # every request, /health too, answered 503
    "broken",  # /health answers 200, the API 500 (its database failed after it started): seen when the flow starts
)


class DownPrefectServer:
    """``with DownPrefectServer(kind) as api_url``: a Prefect API URL on 127.0.0.1 whose server is
    down in the way `kind` says (PREFECT_DOWN), for the block."""

    def __init__(self, kind: str) -> None:
        if kind not in PREFECT_DOWN:
            raise ValueError(f"{kind!r}: expected one of {', '.join(PREFECT_DOWN)}")
        self.kind = kind
        self._closers: list = []

    def __enter__(self) -> str:
        import http.server
        import socket
        import threading

        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        if self.kind == "refused":  # the port was free a moment ago; nothing listens on it now
            listener.close()
        elif self.kind == "silent":  # connections complete in the backlog; nothing is read or answered
            listener.listen(16)
            self._closers.append(listener.close)
        else:
            listener.close()
            kind = self.kind

            class Unavailable(http.server.BaseHTTPRequestHandler):
                def do_GET(self) -> None:
                    if kind == "broken" and self.path.rstrip("/").endswith("/health"):
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", "4")
                        self.end_headers()
                        self.wfile.write(b"true")
                    else:
                        self.send_error(503 if kind == "503" else 500, "database unavailable")

                do_POST = do_PATCH = do_PUT = do_DELETE = do_GET

                def log_message(self, format: str, *args: object) -> None:
                    pass

            server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Unavailable)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            self._closers += [server.shutdown, server.server_close]
        return f"http://127.0.0.1:{port}/api"

    def __exit__(self, *exc: object) -> None:
        for close in self._closers:
            close()


def prefect_down_scenario(
    skeleton_dir: Path,
    prefect_api_url: str,
    seed: int,
    down: str | None = None,
    now: str = "2026-03-18T03:00:00Z",
) -> Outcome:
    """`antichess-td nightly` with PREFECT_API_URL at a Prefect server that is down (`down`, else
    drawn from PREFECT_DOWN by `seed`): the run goes on without Prefect (exit 0; the run record
    says so, no flow run) and its published snapshot is judged against an undisturbed nightly's
    under the Prefect server at `prefect_api_url`."""
    from pipeline.inputs.config import load_config

    kind = down or random.Random(seed).choice(PREFECT_DOWN)
    dataset = replay.Dataset.load(skeleton_dir / "lichess")
    at = dt.datetime.fromisoformat(now.replace("Z", "+00:00"))
    with replay.running(dataset, now=at, options=replay.ReplayOptions(games_per_s=0)) as server:
        clean, disturbed = nightly_configs(skeleton_dir, server.base_url)
        cmd = [sys.executable, "-m", "pipeline", "nightly", "--now", now, "--config"]
        duration = timed_run([*cmd, str(clean)], _env(prefect_api_url))
        reference = server.requests_served
        with DownPrefectServer(kind) as dead:
            wall = timed_run([*cmd, str(disturbed)], _env(dead))
        served = server.requests_served - reference
    published = load_config(disturbed).paths.database
    con = gateway.connect(published, read_only=True)
    try:
        [(flow_run_id, prefect)] = con.execute("SELECT flow_run_id, counts->>'$.start.prefect' FROM runs").fetchall()
    finally:
        con.close()
    if (flow_run_id, prefect) != (None, "unavailable"):
        raise AssertionError(f"the run did not go on without Prefect: flow run {flow_run_id}, counts.start {prefect}")
    out = Outcome(
        "Prefect server down", runs=1, extra_requests=served - reference, wall_s=wall, reference_wall_s=duration
    )
    out.injected = {f"prefect {kind}": 1}
    out.lost, out.duplicated, out.differing_tables = judge(load_config(clean).paths.database, published)
    return out
