"""Backfill benchmark: a season's history from Lichess open-database dumps against the API's floor.

    python benchmarks/backfill.py [--seed 11] [--teams 12] [--history-games 30-60] [--acwc-players 16]

Builds a demo with its dumps (``antichess-td demo --dumps``: every month of its world, the rated
games plus ten times as many games of unregistered players; cached under the temp folder, so a
second run starts at once), then backfills every dump into a new database for the TEAM season's
registered players (``pipeline.lichess.dump_backfill.backfill``, the stage ``antichess-td backfill``
runs; lichess.history_since not applied, so every game of theirs in the dumps is stored), and times it.
The same backfill through the CLI (process start, run record, publish) is timed too.

The scan limit is measured in the same run on the same files, once before the backfill and once
after it: each dump stream-decompressed with zstandard (``read_size`` 1 MiB, 4 MiB reads) and its
games counted (the lines starting with ``[Event ``), nothing else: what one core does at the least
to see every game. The faster of the two runs is kept (the higher limit, the harder goal).

* D = games in the dumps (all of them are scanned) / backfill wall time;
* L = the games counted / the scan limit's wall time (the goal: D >= 0.5 x L);
* S = the API's floor for the same players' games / backfill wall time, where the floor is the
  stored games at 30 games/s (one stream, as Lichess serves a token holder; benchmarks/ingest.py)
  and the requests, ceil(N/300) + N histories + N streams, counted at 0 s each (so S is a lower
  bound).

The last line is exactly ``dump_games_per_s=D scan_limit_games_per_s=L speedup_vs_api=S``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import zstandard

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.inputs.config import load_config  # noqa: E402
from pipeline.lichess import dump_backfill, dump_reader  # noqa: E402
from pipeline.stages import context  # noqa: E402
from pipeline.store import gateway  # noqa: E402

CACHE = Path(tempfile.gettempdir()) / "antichess-td-bench-backfill"
NOW = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)
API_GAMES_PER_S = 30.0
EVENT_LINE = b"\n[Event "


def scan_limit(paths: list[Path]) -> tuple[int, float]:
    """The games in ``paths`` (lines starting with ``[Event ``) and the seconds it takes to
    stream-decompress them and count those lines, nothing else. Each read is searched with the
    last bytes of the one before, so a line cut between two reads counts once."""
    started = time.perf_counter()
    games = 0
    for path in paths:
        with path.open("rb") as fh, zstandard.ZstdDecompressor().stream_reader(fh, read_size=1 << 20) as reader:
            edge = b"\n"  # the stream's first line starts a line too
            while chunk := reader.read(1 << 22):
                games += (edge + chunk[: len(EVENT_LINE) - 1]).count(EVENT_LINE) + chunk.count(EVENT_LINE)
                edge = chunk[-(len(EVENT_LINE) - 1) :]
    return games, time.perf_counter() - started


def demo(seed: int, teams: int, history: str, acwc: int) -> Path:
    """The demo with its dumps, built once per size under CACHE."""
    folder = CACHE / f"seed{seed}-teams{teams}-games{history}-acwc{acwc}"
    if not (folder / "demo" / "lichess" / "dumps").is_dir():
        from pipeline.sim.season import build_season

        lo, hi = (int(x) for x in history.split("-"))
        started = time.perf_counter()
        build_season(folder / "building", seed, teams, (lo, hi), acwc, dumps=True)
        (folder / "building").rename(folder / "demo")
        print(f"demo with dumps built in {time.perf_counter() - started:.1f} s: {folder / 'demo'}")
    return folder / "demo"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--teams", type=int, default=12)
    ap.add_argument("--history-games", default="30-60")
    ap.add_argument("--acwc-players", type=int, default=16)
    args = ap.parse_args()
    folder = demo(args.seed, args.teams, args.history_games, args.acwc_players)
    paths = sorted((folder / "lichess" / "dumps").glob("*.pgn.zst"))
    dumps = dump_reader.dump_files(paths)
    cfg = load_config(folder / "tournament.toml")
    players = context.read_inputs(cfg).player_ids()
    megabytes = sum(p.stat().st_size for p in paths) / 1e6
    print(f"{len(paths)} dump files, {megabytes:.1f} MB compressed; {len(players)} registered players")

    limit_games, limit_s = scan_limit(paths)
    with tempfile.TemporaryDirectory(prefix="bench-backfill-") as tmp:
        db = Path(tmp) / "backfill.duckdb"
        con = gateway.connect(db)
        try:
            started = time.perf_counter()
            report = dump_backfill.backfill(con, dumps, players, None, NOW)
            wall = time.perf_counter() - started
        finally:
            con.close()
        print(
            f"backfill: {report.scanned:,} games scanned, {report.matched:,} of registered players, "
            f"{report.loaded:,} stored, {report.rejected} rejected in {wall:.2f} s"
        )
        again = scan_limit(paths)
        limit_s = min(limit_s, again[1])
        print(
            f"scan limit (zstandard stream-decompressed, lines starting with [Event counted): "
            f"{limit_games:,} games in {limit_s:.2f} s (the faster of 2 runs, one before and one after the backfill)"
        )
        if limit_games != report.scanned:
            raise SystemExit(f"the scan limit counted {limit_games:,} games, the backfill {report.scanned:,}")
        # the same through the CLI: a copy of the TD's files, so the cached demo stays as built
        td = Path(tmp) / "td"
        td.mkdir()
        for name in ("tournament.toml", "teams.csv", "pairings.csv", "overrides.csv"):
            (td / name).write_bytes((folder / name).read_bytes())
        (td / "lichess").symlink_to(folder / "lichess")
        started = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "pipeline", "backfill", "--config", str(td / "tournament.toml")]
            + [a for p in paths for a in ("--dump", str(p))],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        cli_wall = time.perf_counter() - started
        if proc.returncode != 0:
            raise SystemExit(proc.stderr)
        print(
            f"the same through `antichess-td backfill` (history_since applied, run record, publish): {cli_wall:.2f} s"
        )
        print("  " + proc.stdout.strip().splitlines()[-3])

    requests = math.ceil(len(players) / 300) + 2 * len(players)
    floor = report.loaded / API_GAMES_PER_S
    print(
        f"API floor: {report.loaded:,} games / {API_GAMES_PER_S:g} games/s = {floor:,.0f} s "
        f"(+ {requests} requests, counted at 0 s); dumps: {wall:.2f} s; load {os.getloadavg()[0]:.2f}"
    )
    d, lim = report.scanned / wall, limit_games / limit_s
    print(f"D / L = {d / lim:.2f} (goal >= 0.5); load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"dump_games_per_s={d:.0f} scan_limit_games_per_s={lim:.0f} speedup_vs_api={floor / wall:.1f}")


if __name__ == "__main__":
    main()
