"""Backfill benchmark: a season's history from Lichess open-database dumps against the API's floor.

    python benchmarks/backfill.py [--seed 11] [--teams 12] [--history-games 30-60] [--acwc-players 16] [--phases]

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

With ``--phases`` it first times each phase of the backfill alone in this process (decompress,
count the games, cut the records and filter their headers, type the kept games, store them),
best of 3, and prints their seconds and shares: where the time goes, without the worker
processes' overlap.

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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import zstandard

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.inputs.config import load_config  # noqa: E402
from pipeline.lichess import dump_backfill, dump_reader, dump_scan, dump_typing  # noqa: E402
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


def _best(run: Callable[[], Any], times: int = 3) -> tuple[float, Any]:
    """The fastest of ``times`` runs (seconds) and what the last one returned."""
    best, out = math.inf, None
    for _ in range(times):
        started = time.perf_counter()
        out = run()
        best = min(best, time.perf_counter() - started)
    return best, out


def _decoded(kept: list[tuple[str, bytes]]) -> Iterator[tuple[str, str]]:
    for name, game in kept:
        yield name, game.decode("utf-8", errors="replace")


def phases(paths: list[Path], dumps: list[dump_reader.DumpFile], players: list[str]) -> None:
    """Where the backfill's time goes: each phase timed alone, in this process, best of 3, on data
    the phase before made (so the sum is the work one core does, without the workers)."""
    wanted = frozenset(p.lower() for p in players)
    took: dict[str, float] = {}
    took["decompress (zstandard, 4 MiB reads)"], chunks = _best(
        lambda: {p: list(dump_reader._chunks(p)) for p in paths}
    )
    took["count the games"], _ = _best(lambda: sum(c.count(b'[Event "') for cs in chunks.values() for c in cs))
    real = dump_reader._chunks
    dump_reader._chunks = lambda p: iter(chunks[p])  # the reads decompressed above
    try:
        scan, kept = _best(
            lambda: [(p.name, g) for p in paths for g in dump_reader.scan_dump(p, wanted, dump_reader.ScanCounts())]
        )
    finally:
        dump_reader._chunks = real
    took["cut the records + the header filter"] = scan - took["count the games"]
    took["type the kept games (decode, usual_row, else parse_dump_game)"], rows = _best(
        lambda: [
            (n, t, dump_typing.usual_row(t) or dump_scan.row_values(dump_reader.parse_dump_game(t)))
            for n, t in _decoded(kept)
        ]
    )

    def store() -> float:
        with tempfile.TemporaryDirectory(prefix="bench-backfill-") as tmp:
            con = gateway.connect(Path(tmp) / "phases.duckdb")
            report = dump_backfill.DumpReport()
            started = time.perf_counter()
            for i in range(0, len(rows), dump_backfill.BATCH):
                dump_backfill.store_dump_games(con, rows[i : i + dump_backfill.BATCH], NOW, report)
            dump_backfill.place_cursors(con, dumps, sorted(wanted), None, NOW, report)
            took = time.perf_counter() - started
            con.close()
        return took

    took["store (DuckDB: insert, commit, checkpoint; cursors)"] = min(store() for _ in range(3))
    total = sum(took.values())
    print("| phase | seconds | share |\n| --- | ---: | ---: |")
    for name, seconds in took.items():
        print(f"| {name} | {seconds:.3f} | {seconds / total:.0%} |")
    print(f"| all, one after the other | {total:.3f} | 100% |")


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
    ap.add_argument("--phases", action="store_true", help="first time each phase of the backfill alone")
    args = ap.parse_args()
    folder = demo(args.seed, args.teams, args.history_games, args.acwc_players)
    paths = sorted((folder / "lichess" / "dumps").glob("*.pgn.zst"))
    dumps = dump_reader.dump_files(paths)
    cfg = load_config(folder / "tournament.toml")
    players = context.read_inputs(cfg).player_ids()
    megabytes = sum(p.stat().st_size for p in paths) / 1e6
    print(f"{len(paths)} dump files, {megabytes:.1f} MB compressed; {len(players)} registered players")
    if args.phases:
        phases(paths, dumps, players)

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
