"""Season benchmark: what the score path (link + score + standings + audits + verification)
costs on an 11-round TEAM season, cold and as a nightly run, and how it grows with the teams.

    python benchmarks/season.py [--teams 32,64,256] [--history-games 200-400] [--acwc-players 16] [--repeats 5]

Each season is the demo (``antichess-td demo --teams N --swiss-rounds 11 --history-games 200-400
--acwc-players 16 --seed 2026``): N teams of 4 (+2 substitutes), 11 Swiss rounds, the TEAM-FMT-1
knockout and the final. The history is kept small (200-400 rated games a player instead of
1,000-5,000) so a build takes seconds: only games between paired players reach the score path,
and those are all there. The ACWC part of the demo is not used (16 players keep it small).
Builds, and the database ingested as of the first night, are cached under
``<tmp>/antichess-td-bench-season/`` by their parameters and the generator's and the ingest's
source, so reruns skip them. Measured side by side in one run (the machines are noisy: ratios
matter more than seconds):

(a) cold: the season ingested through the replay server as of the night after round 10
    (03:00 UTC on round 11's Tuesday); then, on a database with those games but no scored
    tables and no verdicts, ``pipeline.stages.score.score_stage`` (link, score, standings, and the
    verification of every listed game) and the audits. Verification is timed apart from the rest.
(b) nightly: round 11's games ingested as of the next Tuesday 03:00 (timed and shown apart);
    then the same steps, which rescore only the rounds whose inputs changed and verify only
    the new games. Run ``--repeats`` times from a copy of the same database, interleaved across
    the sizes; the median counts.

(c) floor: a whole nightly run (``antichess-td nightly --now`` in a subprocess, every stage from
    validation to the website, through Prefect) at 64 teams (the largest size if 64 is not
    measured: at 256 teams the throttled night alone lasts about 13 minutes), against the replay server
    throttled as Lichess throttles a token holder (30 games/s a stream, one stream at a time as
    the config asks), for the night after round 11, from a tournament folder whose nightly already
    ran the night after round 10 (unthrottled; cached). Its wall time is divided by that night's API
    floor: the games it downloaded at 30 games/s. Requests cost nothing more on 127.0.0.1 (the
    replay server adds no latency), so the floor is the games alone. Lichess's stand-in runs as
    lichess.org does: ``antichess-td replay-server`` in a process of its own, up before the run
    starts (not the in-process server of the demo's config, which would read its dataset inside
    the timed run and serve from a thread of the run's own interpreter). Prefect runs as a
    scheduled TD's does: a Prefect server already running (``PREFECT_API_URL``), not a temporary
    one per run.

Since match games are verified as they arrive (during ingest), the nightly's verification column
shows what was left for the score step (games stored before, none normally). (a) and (b) run the
score and audit steps as the nightly flow does (:func:`score_night`): the working database held
open, the audits that read no scores evaluated beside the score stage
(``pipeline.stages.audit.beside_score``), then ``audit_stage`` for the others; the audits column
is the time after the score stage. The last line is exactly
``teams=64 cold_s=C nightly_s=W64 growth=R floor_ratio=F teams_256_nightly_s=W256 growth_256=G``
with R = nightly(64) / (2 × nightly(32)) (1 = linear), F the floor ratio of (c) and
G = nightly(256) / nightly(64) (4 = linear in the field; the part from ``teams_256`` on only
when 256 is measured). Goals: W64 ≤ 0.5, R ≤ 1.2, F ≤ 1.10, G ≤ 4.5. The run's own wall time is
printed before it.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.cli import prefect_env  # noqa: E402
from pipeline.inputs.config import load_config  # noqa: E402
from pipeline.model import Config  # noqa: E402
from pipeline.sim.season import TEAM_START, build_season  # noqa: E402
from pipeline.stages import audit, context, score  # noqa: E402
from pipeline.stages.ingest import ingest_stage, lichess_base_url  # noqa: E402
from pipeline.store import gateway  # noqa: E402

THROTTLE = 30.0  # games/s a stream, as lichess.org serves a token holder
SWISS_ROUNDS = 11
NIGHT_10 = TEAM_START + dt.timedelta(days=7 * 10, hours=3)  # the night after round 10 (round 11's Tuesday)
NIGHT_11 = NIGHT_10 + dt.timedelta(days=7)  # the night after round 11
CACHE = Path(tempfile.gettempdir()) / "antichess-td-bench-season"
GENERATOR = ("pipeline/sim/season", "pipeline/sim/games.py", "pipeline/domain/glicko.py")
INGEST = (
    "pipeline/lichess/request_plan.py",
    "pipeline/lichess/ingest_run.py",
    "pipeline/lichess/profiles_and_histories.py",
    "pipeline/lichess/game_streams.py",
    "pipeline/lichess/watched_boards.py",
    "pipeline/lichess/refetch_queue.py",
    "pipeline/lichess/client.py",
    "pipeline/sim/replay.py",
    "pipeline/store/gateway.py",
    "pipeline/store/migrations.py",
    "pipeline/store/sql_files.py",
    "sql/schema",
    "sql/migrations",
)


def source_hash(paths: tuple[str, ...]) -> str:
    h = hashlib.sha256()
    for rel in paths:
        p = ROOT / rel
        files = sorted(f for f in p.rglob("*") if f.is_file() and f.suffix != ".pyc") if p.is_dir() else [p]
        for f in files:  # a package's sources, not its bytecode
            h.update(f.read_bytes())
    return h.hexdigest()[:12]


def demo(teams: int, games: tuple[int, int], acwc: int, seed: int) -> Path:
    """The demo season, built once per parameters and generator source."""
    key = f"demo-t{teams}-r{SWISS_ROUNDS}-h{games[0]}-{games[1]}-a{acwc}-s{seed}-{source_hash(GENERATOR)}"
    out = CACHE / key
    if not (out / "tournament.toml").exists():
        tmp = CACHE / f"{key}.building"
        shutil.rmtree(tmp, ignore_errors=True)
        t0 = time.perf_counter()
        summary = build_season(tmp, seed, teams, games, acwc, SWISS_ROUNDS)
        tmp.rename(out)
        print(f"  built {out.name}: {summary['games']:,} games in {time.perf_counter() - t0:.1f} s")
    return out


def with_database(cfg: Config, db: Path) -> Config:
    return dataclasses.replace(cfg, paths=dataclasses.replace(cfg.paths, database=db))


def ingest(cfg: Config, inputs: context.Inputs, now: dt.datetime) -> int:
    with lichess_base_url(cfg, now=now) as base_url:
        return ingest_stage(cfg, inputs, base_url, now).games_new


def first_night(folder: Path, cfg: Config, inputs: context.Inputs) -> Path:
    """The database as ingested on the night after round 10 (nothing scored), cached."""
    db = folder.parent / f"{folder.name}-night10-{source_hash(INGEST)}.duckdb"
    if not db.exists():
        tmp = db.with_suffix(".building")
        tmp.unlink(missing_ok=True)
        t0 = time.perf_counter()
        new = ingest(with_database(cfg, tmp), inputs, NIGHT_10)
        tmp.rename(db)
        print(f"  ingested {new:,} games as of {NIGHT_10:%Y-%m-%d %H:%M} UTC in {time.perf_counter() - t0:.1f} s")
    return db


@contextlib.contextmanager
def verification_timer() -> Iterator[dict[str, float]]:
    """Time pipeline.stages.score.verify_new_games (called by score_stage) apart from the rest."""
    spent = {"verify": 0.0}
    original = score.verify_new_games

    def timed(*args: Any) -> None:
        t0 = time.perf_counter()
        try:
            original(*args)
        finally:
            spent["verify"] += time.perf_counter() - t0

    score.verify_new_games = timed  # type: ignore[assignment]
    try:
        yield spent
    finally:
        score.verify_new_games = original  # type: ignore[assignment]


@dataclasses.dataclass
class Night:
    total: float  # link + score + standings + audits + verification
    verify: float
    audits: float  # after the score stage: the audits that read its results, and waiting for the others
    verified: int
    rescored_rounds: int

    @property
    def rest(self) -> float:
        return self.total - self.verify - self.audits


def score_night(cfg: Config, inputs: context.Inputs, now: dt.datetime) -> Night:
    """The score and audit stages as the nightly flow runs them (flows/nightly.py): on the working
    database held open, as a recorded run holds it (``gateway.held``; its closing checkpoint is
    the publish step's), with the audits that read no scores evaluated beside the score stage
    (``audit.beside_score``). ``audits`` is what is left after the score stage: from its end to
    the audit stage's."""
    with gateway.held(cfg.paths.database), verification_timer() as spent:
        t0 = time.perf_counter()
        with audit.beside_score(cfg, inputs, now) as early:
            report = score.score_stage(cfg, inputs, now, seeds=early.seeds)
            scored = time.perf_counter()
            audit.audit_stage(cfg, inputs, now, early)
        done = time.perf_counter()
    return Night(done - t0, spent["verify"], done - scored, report.verified, report.rescored_rounds)


@dataclasses.dataclass
class Size:
    teams: int
    cfg: Config
    inputs: context.Inputs
    games: int = 0
    match_games: int = 0
    cold: Night | None = None
    ingest_s: float = 0.0
    new_games: int = 0
    nightly_base: Path | None = None
    nights: list[Night] = dataclasses.field(default_factory=list)

    @property
    def nightly(self) -> Night:
        return sorted(self.nights, key=lambda n: n.total)[len(self.nights) // 2]


def prepare(teams: int, args: argparse.Namespace, work: Path) -> Size:
    folder = demo(teams, args.history_games, args.acwc_players, args.seed)
    cfg = load_config(folder / "tournament.toml")
    inputs = context.read_inputs(cfg)
    base = first_night(folder, cfg, inputs)
    db = work / f"t{teams}.duckdb"
    shutil.copy(base, db)
    size = Size(teams, with_database(cfg, db), inputs)
    con = gateway.connect(db, read_only=True)
    try:
        size.games = con.sql("SELECT count(*) FROM lichess_games").fetchall()[0][0]
    finally:
        con.close()
    return size


def cold_and_second_night(size: Size, work: Path) -> None:
    size.cold = score_night(size.cfg, size.inputs, NIGHT_10)
    t0 = time.perf_counter()
    size.new_games = ingest(size.cfg, size.inputs, NIGHT_11)
    size.ingest_s = time.perf_counter() - t0
    size.nightly_base = work / f"t{size.teams}-night11.duckdb"
    shutil.copy(size.cfg.paths.database, size.nightly_base)


def nightly_once(size: Size) -> None:
    assert size.nightly_base is not None
    shutil.copy(size.nightly_base, size.cfg.paths.database)
    size.nights.append(score_night(size.cfg, size.inputs, NIGHT_11))
    con = gateway.connect(size.cfg.paths.database, read_only=True)
    try:
        size.match_games = con.sql("SELECT count(*) FROM scored_match_games").fetchall()[0][0]
    finally:
        con.close()


FLOOR_RUN = CACHE / "floor-run"  # where (c) runs: one path, or the TD files' paths would differ between nights


def floor_folder(folder: Path) -> Path:
    """FLOOR_RUN: a copy of the demo's TEAM tournament (the Lichess data linked, not copied) whose
    nightly ran the night after round 10, unthrottled (cached by the demo and the pipeline's
    source), throttled from now on. Always at the same path: the TD files' paths are part of what
    a round's results are computed from (a tournament folder moved elsewhere is rescored whole)."""
    key = f"{folder.name}-floor-{source_hash(('pipeline', 'flows', 'sql'))}"
    cached = CACHE / key
    if not (cached / "out").exists():
        shutil.rmtree(FLOOR_RUN, ignore_errors=True)
        FLOOR_RUN.mkdir(parents=True)
        for f in folder.iterdir():
            if f.is_file():
                shutil.copy(f, FLOOR_RUN / f.name)
        (FLOOR_RUN / "lichess").symlink_to(folder / "lichess")
        t0 = time.perf_counter()
        nightly_cli(FLOOR_RUN, NIGHT_10, env=None)
        shutil.rmtree(CACHE / f"{key}.building", ignore_errors=True)
        shutil.copytree(FLOOR_RUN, CACHE / f"{key}.building", symlinks=True)
        (CACHE / f"{key}.building").rename(cached)
        print(
            f"  floor: the nightly of {NIGHT_10:%Y-%m-%d %H:%M} UTC ran (unthrottled) in {time.perf_counter() - t0:.1f} s"
        )
    shutil.rmtree(FLOOR_RUN, ignore_errors=True)
    shutil.copytree(cached, FLOOR_RUN, symlinks=True)
    toml = FLOOR_RUN / "tournament.toml"
    text = toml.read_text(encoding="utf-8")
    throttled = re.sub(r"(?m)^replay_games_per_s = 0\b.*$", f"replay_games_per_s = {THROTTLE:g}", text, count=1)
    assert throttled != text, "the demo's tournament.toml has no 'replay_games_per_s = 0' line"
    toml.write_text(throttled, encoding="utf-8")
    return FLOOR_RUN


def nightly_cli(folder: Path, now: dt.datetime, env: dict[str, str] | None) -> tuple[float, str]:
    """`antichess-td nightly` on `folder` as of `now`, in a subprocess; (wall seconds, its output)."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pipeline",
            "nightly",
            "--config",
            str(folder / "tournament.toml"),
            "--now",
            f"{now:%Y-%m-%dT%H:%M:%SZ}",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        check=False,
    )
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"nightly as of {now} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return wall, proc.stdout


@dataclasses.dataclass
class Floor:
    wall: float
    games: int

    @property
    def floor(self) -> float:
        return self.games / THROTTLE

    @property
    def ratio(self) -> float:
        return self.wall / self.floor


@contextlib.contextmanager
def lichess_stand_in(data: Path, now: dt.datetime) -> Iterator[str]:
    """Lichess for (c): ``antichess-td replay-server`` on `data` as of `now`, throttled to
    THROTTLE games/s a stream, in a process of its own and answering before the run starts, as
    lichess.org is up before a TD's nightly and serves it from another machine (the in-process
    replay server the demo's config starts would read its dataset inside the timed run and serve
    from a thread competing with the run for the interpreter). Yields its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "replay-server", "--data", str(data), "--port", "0"]
        + ["--now", f"{now:%Y-%m-%dT%H:%M:%SZ}", "--games-per-s", f"{THROTTLE:g}"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        served = re.search(r"on (http://127\.0\.0\.1:\d+)", line)
        if served is None:
            raise SystemExit(f"replay-server did not start: {line!r} (exit {proc.poll()})")
        yield served.group(1)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def against(toml: Path, base_url: str) -> None:
    """Point the tournament at `base_url` instead of its in-process replay dataset."""
    text = toml.read_text(encoding="utf-8")
    pointed = re.sub(r"(?m)^replay_data = .*$", f'base_url = "{base_url}"', text, count=1)
    assert pointed != text, "the demo's tournament.toml has no 'replay_data = ' line"
    toml.write_text(pointed, encoding="utf-8")


def floor_run(folder: Path) -> Floor:
    """(c): the whole nightly of the night after round 11, throttled, with a Prefect server running
    and Lichess's stand-in up (:func:`lichess_stand_in`); the token is a dummy (the replay server
    answers rating histories to any token, as lichess.org does to a valid one)."""
    from prefect.settings import PREFECT_API_URL, PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings
    from prefect.testing.utilities import prefect_test_harness

    dest = floor_folder(folder)
    with (
        prefect_test_harness(server_startup_timeout=120),
        temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}),
        lichess_stand_in(folder / "lichess", NIGHT_11) as base_url,
    ):
        against(dest / "tournament.toml", base_url)
        api = str(PREFECT_API_URL.value())
        wall, out = nightly_cli(dest, NIGHT_11, env={"PREFECT_API_URL": api, "LICHESS_TOKEN": "bench-token"})
    fetched = re.search(r"^games: (\d+) fetched", out, re.M)
    assert fetched, out
    print(out.rstrip())
    return Floor(wall, int(fetched.group(1)))


def audits_text(n: Night) -> str:
    return f"audits_s={n.audits:.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--teams", default="32,64,256", help="season sizes, comma-separated (even, 12 or more)")
    ap.add_argument("--history-games", default="200-400", help="rated games per player, MIN-MAX")
    ap.add_argument("--acwc-players", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=5, help="nightly runs per size (the median counts)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--no-floor", action="store_true", help="skip (c), the throttled whole nightly")
    args = ap.parse_args()
    started = time.perf_counter()
    prefect_env.isolate("bench-season-prefect-")
    args.history_games = tuple(int(x) for x in args.history_games.split("-", 1))
    sizes_wanted = [int(t) for t in args.teams.split(",")]
    CACHE.mkdir(parents=True, exist_ok=True)
    print(
        f"seasons: {', '.join(map(str, sizes_wanted))} teams, {SWISS_ROUNDS} Swiss rounds, history "
        f"{args.history_games[0]}-{args.history_games[1]} games a player, {args.acwc_players} ACWC players, "
        f"seed {args.seed}; cache {CACHE}"
    )

    with tempfile.TemporaryDirectory(prefix="bench-season-") as tmp:
        work = Path(tmp)
        sizes = []
        for teams in sizes_wanted:
            print(f"{teams} teams: preparing")
            sizes.append(prepare(teams, args, work))
        for size in sizes:
            cold_and_second_night(size, work)
            c = size.cold
            assert c is not None
            print(
                f"{size.teams} teams: cold {c.total:.2f} s (verification {c.verify:.2f} s of {c.verified:,} games, "
                f"the rest {c.rest:.2f} s, {audits_text(c)}); round 11 ingested: {size.new_games:,} new games "
                f"in {size.ingest_s:.1f} s"
            )
        for _ in range(args.repeats):  # interleaved, so drift on a busy machine hits every size alike
            for size in sizes:
                nightly_once(size)
        floor = None
        if not args.no_floor:
            biggest = 64 if 64 in sizes_wanted else max(sizes_wanted)
            print(f"{biggest} teams: a whole nightly against the throttled replay server ({THROTTLE:g} games/s)")
            floor = floor_run(demo(biggest, args.history_games, args.acwc_players, args.seed))
            print(
                f"floor: {floor.games:,} games / {THROTTLE:g} games/s = {floor.floor:.1f} s; the whole nightly took "
                f"{floor.wall:.1f} s: x{floor.ratio:.3f}"
            )

    print()
    print(
        f"{'teams':>5} {'games':>7} {'match games':>11} | {'cold s':>7} {'verify':>7} {'rest':>6} | "
        f"{'new games':>9} {'nightly s':>9} {'verify':>7} {'rest':>6} {'rounds':>6}  (median of {args.repeats})"
    )
    for s in sizes:
        c, n = s.cold, s.nightly
        assert c is not None
        print(
            f"{s.teams:>5} {s.games:>7,} {s.match_games:>11,} | {c.total:>7.2f} {c.verify:>7.2f} {c.rest:>6.2f} | "
            f"{n.verified:>9,} {n.total:>9.2f} {n.verify:>7.2f} {n.rest:>6.2f} {n.rescored_rounds:>6}"
        )
    print(f"audits: {audits_text(sizes[-1].nightly)}")
    by = {s.teams: s for s in sizes}
    for a, b in zip(sizes, sizes[1:], strict=False):
        ca, cb = a.cold, b.cold
        assert ca is not None and cb is not None
        print(
            f"growth {a.teams} -> {b.teams} teams (x{b.teams / a.teams:g}): cold x{cb.total / ca.total:.2f} "
            f"(verification x{cb.verify / ca.verify:.2f}, the rest x{cb.rest / ca.rest:.2f}), nightly "
            f"x{b.nightly.total / a.nightly.total:.2f} (verification x{b.nightly.verify / a.nightly.verify:.2f}, "
            f"the rest x{b.nightly.rest / a.nightly.rest:.2f})"
        )
    print(f"the run took {time.perf_counter() - started:.0f} s")
    if 64 in by and 32 in by:
        print(goals_line(by, floor))


def met(value: float, goal: float) -> str:
    ok = value <= goal
    return f"{value:.3f} {'<=' if ok else '>'} {goal:g}: {'met' if ok else 'NOT met'}"


def goals_line(by: dict[int, Size], floor: Floor | None) -> str:
    """The goals, then the last line (teams=64 ... with teams_256_... when 256 was measured)."""
    w = by[64].nightly.total
    r = w / (2 * by[32].nightly.total)
    c64 = by[64].cold
    assert c64 is not None
    f = floor.ratio if floor is not None else float("nan")
    goals = [f"nightly(64) {met(w, 0.5)}", f"growth {met(r, 1.2)}", f"floor ratio {met(f, 1.1)}"]
    last = f"teams=64 cold_s={c64.total:.1f} nightly_s={w:.2f} growth={r:.3f} floor_ratio={f:.3f}"
    if 256 in by:
        w256 = by[256].nightly.total
        goals.append(f"growth_256 {met(w256 / w, 4.5)}")
        last += f" teams_256_nightly_s={w256:.2f} growth_256={w256 / w:.3f}"
    return "goals: " + "; ".join(goals) + "\n" + last


if __name__ == "__main__":
    main()
