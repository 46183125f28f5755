"""The soak: a whole demo season replayed night by night through failing Lichess and kill -9.

Shared by tests/sim/test_soak.py (a shortened season) and benchmarks/soak.py (the full one).
:func:`soak` takes a demo's TEAM tournament and

* lists its nights (:func:`season_nights`): every time the config's schedule fires (by default
  03:00 UTC) from the first round's start to the first firing at or after the last round's end
  (the final's), so the last night sees the final decided;
* runs ``python -m pipeline nightly --now <night>`` for each night in turn, on one tournament
  folder, against a replay server serving the world as of that night (the in-process replay
  server of ``replay_data`` is started with the run's ``--now``; an outside one is started here,
  one per night on the same port, so the config text never changes) that answers a seeded 30 %
  of requests with an error: 15 % HTTP 429 (Retry-After 0), 15 % HTTP 502 (the server draws the
  429 first, then the 502 at 0.15 / 0.85 of the rest);
* kills every fifth night's run with SIGKILL at a seeded moment (in the first 60 % of the last
  undisturbed night's measured run, as faultkit.kill_nightly_scenario does) and reruns that
  night to completion;
* runs the same nights undisturbed (no failing request, no kill) on a fresh copy of the demo,
  in the same folder (the TD's file paths are stored), same config text: the clean run;
* judges the soaked published snapshot against the clean one table by table (faultkit.judge:
  lost game ids, duplicated rows, every table's row count and row-hash sum; the ``vs:`` search
  cursors a rerun after a kill may add are not game data and are left out, as for the nightly
  kills).

The clean run is the same nights, not one nightly at the last night: a season replayed night by
night keeps what a single run cannot know, so even undisturbed the two differ in three tables by
design (:func:`soak` with ``single=True`` reports them): ``audit_captains.seen_from`` (the night
a captain was first seen), and ``lichess_rating_points`` / ``raw_rating_histories`` (a rating
history is fetched again only when the profile shows new rated games, and the replay server
serves a day's history point — the day's last rating — from that day's first minute).

The client's waits are scaled (faultkit.scaled_policy's numbers, written into the config:
``rate_limit_wait_s``, ``backoff_s``), since the production policy waits at least 60 s after a 429.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import shutil
import socket
import sys
import time
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
from croniter import croniter

from kits import faultkit
from pipeline.inputs.config import load_config
from pipeline.model import Config
from pipeline.sim import replay

FAIL_429 = 0.15
FAIL_5XX = 0.15 / (1 - FAIL_429)  # of the requests the 429 draw let through: 30 % fail in all
KILL_EVERY = 5
SCALE = 0.001  # production waits × SCALE (faultkit.scaled_policy)


@dataclass
class Night:
    """One night of the soak: what was served and how the run went."""

    at: dt.datetime
    runs: int = 0
    killed: bool = False
    requests: int = 0
    injected: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0  # the night's runs, killed ones included, with its server's start
    run_s: float = 0.0  # the completing run alone (an undisturbed night: the night's run)


@dataclass
class SoakResult:
    nights: list[Night]
    clean: list[Night]  # the same nights undisturbed: the reference
    lost: int
    duplicated: int
    differing_tables: list[str]
    retries: int  # the client's retries, as the completed runs recorded them (runs.counts.ingest)
    rate_limited: int
    waited_429_s: float
    tables: int  # tables compared
    single_differing: list[str] | None  # against one undisturbed nightly at the last night, if run
    single_s: float

    @property
    def kills(self) -> int:
        return sum(n.killed for n in self.nights)

    @property
    def requests(self) -> int:
        return sum(n.requests for n in self.nights)

    @property
    def injected(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for n in self.nights:
            for k, v in n.injected.items():
                out[k] = out.get(k, 0) + v
        return out

    @property
    def last_line(self) -> str:
        return (
            f"nights={len(self.nights)} kills={self.kills} lost={self.lost} duplicated={self.duplicated} "
            f"differing_tables={len(self.differing_tables)}"
        )


def season_nights(config: Config) -> list[dt.datetime]:
    """Every firing of the config's schedule from the first round's start to the first firing at
    or after the last round's end (UTC)."""
    windows = [w for s in config.stages for r in range(1, s.rounds + 1) if (w := s.round_window(r)) is not None]
    if not windows:
        raise ValueError("no stage has a first_round_start: the season has no dates")
    first, last = min(w[0] for w in windows), max(w[1] for w in windows)
    tz = zoneinfo.ZoneInfo(config.schedule.timezone)
    it = croniter(config.schedule.cron, first.astimezone(tz) - dt.timedelta(seconds=1))
    nights: list[dt.datetime] = []
    while True:
        t = it.get_next(dt.datetime).astimezone(dt.UTC)
        nights.append(t)
        if t >= last:
            return nights


def _iso(t: dt.datetime) -> str:
    return t.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((replay.HOST, 0))
        return int(s.getsockname()[1])


def tournament_copy(demo: Path, dest: Path, base_url: str, scale: float = SCALE) -> Path:
    """The demo's TEAM tournament (its TD files, not its Lichess data) in `dest`, fetching from
    `base_url` with the retry policy's waits × `scale`; returns its tournament.toml."""
    shutil.copytree(
        demo, dest, ignore=shutil.ignore_patterns("out", "lichess", "acwc", "truth", "PLANTED.csv", "TRAPS.csv")
    )
    policy = faultkit.scaled_policy(scale)
    cfg = dest / "tournament.toml"
    text = cfg.read_text(encoding="utf-8")
    if 'replay_data = "lichess"' not in text:
        raise ValueError(f'{cfg}: expected a demo config with replay_data = "lichess"')
    cfg.write_text(
        text.replace(
            'replay_data = "lichess"',
            f'base_url = "{base_url}"\nrate_limit_wait_s = {policy.rate_limit_wait_s}\n'
            f"backoff_s = {policy.backoff_s}\nmax_retries = {policy.max_retries}",
        ),
        encoding="utf-8",
    )
    return cfg


def _nightly(cfg: Path, night: dt.datetime) -> list[str]:
    return [sys.executable, "-m", "pipeline", "nightly", "--now", _iso(night), "--config", str(cfg)]


def _recorded_retries(db: Path) -> tuple[int, int, float]:
    """(retries, 429s, seconds waited after 429s) summed over the runs the snapshot records as ok."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT counts FROM pipeline_runs WHERE status = 'ok'").fetchall()
    finally:
        con.close()
    retries = limited = 0
    waited = 0.0
    for (counts,) in rows:
        ingest = (json.loads(counts) if isinstance(counts, str) else counts or {}).get("ingest", {})
        retries += int(ingest.get("retries", 0))
        limited += int(ingest.get("rate_limited", 0))
        waited += float(ingest.get("waited_429_s", 0.0))
    return retries, limited, waited


def replay_nights(
    dataset: replay.Dataset,
    port: int,
    cfg: Path,
    nights: list[dt.datetime],
    env: dict[str, str],
    seed: int,
    disturbed: bool,
    kill_every: int = KILL_EVERY,
    timeout_s: float = 900,
    on_night: Callable[[int, Night], None] | None = None,
) -> list[Night]:
    """`nightly --now <night>` for each night in turn on `cfg`'s tournament, each against a
    replay server on `port` serving the world as of that night; `disturbed`: the server fails
    30 % of requests (seeded per night) and every `kill_every`-th night's run is killed with
    SIGKILL at a seeded moment in the first 60 % of the last undisturbed run's duration, then
    rerun to completion (a run that ends before its kill is that night's run)."""
    rng = random.Random(seed)
    done: list[Night] = []
    last_run_s = 0.0
    for i, at in enumerate(nights):
        night = Night(at)
        faults = replay.Faults()
        if disturbed:
            faults = replay.Faults(rate_429=FAIL_429, rate_5xx=FAIL_5XX, retry_after_s=0, seed=seed * 100_000 + i)
        start = time.perf_counter()
        with replay.running(
            dataset, port=port, now=at, options=replay.ReplayOptions(games_per_s=0, faults=faults)
        ) as server:
            if disturbed and kill_every and (i + 1) % kill_every == 0 and last_run_s > 0:
                delay = rng.uniform(0.05, 0.6) * last_run_s
                night.runs, kills = faultkit.kill_and_rerun(_nightly(cfg, at), env, [delay], timeout_s)
                night.killed = kills > 0
            else:
                night.run_s = faultkit.timed_run(_nightly(cfg, at), env, timeout_s)
                night.runs = 1
            night.requests = server.requests_served
            night.injected = dict(server.faults_injected)
        night.wall_s = time.perf_counter() - start
        if night.run_s:
            last_run_s = night.run_s
        done.append(night)
        if on_night is not None:
            on_night(i, night)
    return done


def soak(
    demo: Path,
    work: Path,
    prefect_api_url: str,
    seed: int,
    nights: list[dt.datetime] | None = None,
    kill_every: int = KILL_EVERY,
    scale: float = SCALE,
    timeout_s: float = 900,
    single: bool = True,
    on_night: Callable[[str, int, Night], None] | None = None,
) -> SoakResult:
    """Soak the demo at `demo` (a folder written by ``antichess-td demo``) in `work`: its nights
    (default: season_nights, the whole season) night by night with faults and kills, then the same
    nights undisturbed on a fresh copy, judged table by table; `single`: also one undisturbed
    nightly at the last night on a fresh copy, judged the same way (SoakResult.single_differing).
    Every run happens in the same folder, work/tournament (the soaked and clean folders are moved
    aside after their nights), since the TD's file paths are stored (td_overrides.path).
    `on_night(which, i, night)` is told of each night as it ends (a benchmark prints progress)."""
    dataset = replay.Dataset.load(demo / "lichess")
    port = _free_port()
    base_url = f"http://{replay.HOST}:{port}"
    env = faultkit._env(prefect_api_url)
    here = work / "tournament"

    def tell(which: str) -> Callable[[int, Night], None] | None:
        return None if on_night is None else (lambda i, n: on_night(which, i, n))

    cfg = tournament_copy(demo, here, base_url, scale)
    config = load_config(cfg)
    db = config.paths.database.relative_to(here.resolve())
    nights = nights if nights is not None else season_nights(config)
    soaked = replay_nights(dataset, port, cfg, nights, env, seed, True, kill_every, timeout_s, tell("soak"))
    here.rename(work / "soaked")
    cfg = tournament_copy(demo, here, base_url, scale)
    clean = replay_nights(dataset, port, cfg, nights, env, seed, False, kill_every, timeout_s, tell("clean"))
    here.rename(work / "clean")
    single_differing = None
    single_s = 0.0
    if single:
        cfg = tournament_copy(demo, here, base_url, scale)
        with replay.running(dataset, port=port, now=nights[-1], options=replay.ReplayOptions(games_per_s=0)):
            single_s = faultkit.timed_run(_nightly(cfg, nights[-1]), env, timeout_s)
        _, _, single_differing = faultkit.judge(here / db, work / "soaked" / db, second_night_ok=True)

    lost, dup, differ = faultkit.judge(work / "clean" / db, work / "soaked" / db, second_night_ok=True)
    con = duckdb.connect(str(work / "clean" / db), read_only=True)
    try:
        tables = len(faultkit.checksums(con, True))
    finally:
        con.close()
    retries, limited, waited = _recorded_retries(work / "soaked" / db)
    return SoakResult(soaked, clean, lost, dup, differ, retries, limited, waited, tables, single_differing, single_s)
