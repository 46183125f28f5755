"""Ingest benchmark: what a nightly run costs Lichess and how close it gets to the physical floor.

    python benchmarks/ingest.py [--players 60] [--games 20000] [--backfill-games 900] [--streams 1]

Everything goes through the real path: the replay server on 127.0.0.1 → berserk → DuckDB file.
Measured side by side in one run (the machines are noisy; ratios, not absolute times, matter):

(a) requests made by a first nightly run over N players against the floor
    ceil(N/300) + N histories + N game streams, and the games downloaded again by a second run
    when nothing new was played;
(b) wall time of a backfill from a server throttled as Lichess throttles a token holder
    (30 games/s per stream) against the floor games / (30 × streams);
(c) games/s through the whole local path with throttling off.

The last line is exactly
``requests_ratio=X redownloaded=N backfill_ratio=B local_games_per_s=G``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.domain.timecontrol import parse_time_control  # noqa: E402
from pipeline.lichess import request_plan  # noqa: E402
from pipeline.lichess.client import make_client  # noqa: E402
from pipeline.sim import replay  # noqa: E402
from pipeline.sim.games import DemoPlayer, game_json, play_out, user_json  # noqa: E402
from pipeline.store import gateway  # noqa: E402

NOW = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)
CLOCKS = [parse_time_control(t) for t in ("0+2", "1+2", "2+5", "1+0", "3+0", "0.5+1")]


def build(folder: Path, players: int, games: int, outsiders_share: float, seed: int) -> list[str]:
    """A synthetic season: `games` antichess games of `players` registered players, a share of
    them against unregistered opponents. Moves come from a pool of legal antichess games played out
    by python-chess (generating every game move by move would take minutes)."""
    rng = random.Random(seed)
    pool = [play_out(rng, 0.5) for _ in range(60)]
    reg = [
        DemoPlayer(f"Bench{i:03d}", 1500 + rng.randint(0, 800), dt.datetime(2020, 1, 1, tzinfo=dt.UTC), 2000)
        for i in range(players)
    ]
    outsiders = [DemoPlayer(f"Other{i:03d}", 1700, dt.datetime(2020, 1, 1, tzinfo=dt.UTC), 2000) for i in range(200)]
    lines = []
    t = dt.datetime(2025, 6, 1, tzinfo=dt.UTC)
    step = (NOW - dt.timedelta(days=2) - t) / max(games, 1)
    for i in range(games):
        a = rng.choice(reg)
        b = (
            rng.choice(outsiders)
            if rng.random() < outsiders_share
            else rng.choice([p for p in reg if p is not a] or reg)
        )
        white, black = (a, b) if rng.random() < 0.5 else (b, a)
        played = pool[i % len(pool)]
        start = t + step * i
        g = game_json(
            f"b{i:07d}", white, black, rng.choice(CLOCKS), start, start + dt.timedelta(minutes=3), played, True, 0, 0
        )
        lines.append(json.dumps(g))
        for p in (white, black):
            p.rated_games += 1
    (folder / "rating-history").mkdir(parents=True, exist_ok=True)
    (folder / "games.ndjson").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with (folder / "users.ndjson").open("w", encoding="utf-8") as f:
        for p in reg + outsiders:
            f.write(json.dumps(user_json(p, NOW)) + "\n")
    for p in reg:
        hist = [{"name": "Antichess", "points": [[2025, 5, 1, p.rating], [2026, 10, 1, p.rating + 10]]}]
        (folder / "rating-history" / f"{p.id}.json").write_text(json.dumps(hist), encoding="utf-8")
    return [p.id for p in reg]


def run(folder: Path, db: Path, ids: list[str], options: replay.ReplayOptions, streams: int = 1):
    con = gateway.connect(db)
    try:
        with replay.running(folder, options=options) as server:
            client = make_client(server.base_url, "bench-token", 30.0)
            start = time.perf_counter()
            report = request_plan.ingest(con, client, ids, None, NOW, concurrency=streams)
            elapsed = time.perf_counter() - start
            sent = server.games_sent
    finally:
        con.close()
    return report, elapsed, sent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=60)
    ap.add_argument("--games", type=int, default=20000, help="games in the local-throughput dataset")
    ap.add_argument("--backfill-players", type=int, default=12)
    ap.add_argument("--backfill-games", type=int, default=900, help="games in the throttled backfill")
    ap.add_argument("--streams", type=int, default=1, choices=(1, 2))
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-ingest-") as tmp:
        tmp_path = Path(tmp)
        t0 = time.perf_counter()
        big = tmp_path / "big"
        ids = build(big, args.players, args.games, outsiders_share=0.7, seed=args.seed)
        small = tmp_path / "small"
        small_ids = build(small, args.backfill_players, args.backfill_games, outsiders_share=1.0, seed=args.seed + 1)
        print(f"datasets built in {time.perf_counter() - t0:.1f} s")

        # (c) + (a): the whole local path, unthrottled; then a second night with nothing new
        first, elapsed, sent = run(big, tmp_path / "a.duckdb", ids, replay.ReplayOptions(games_per_s=0))
        floor = math.ceil(len(ids) / 300) + 2 * len(ids)
        local = first.games_fetched / elapsed
        print(
            f"(c) local path: {first.games_fetched} game records ({first.games_distinct} distinct) in {elapsed:.2f} s "
            f"= {local:,.0f} games/s"
        )
        print(f"(a) first run: {first.requests} requests, floor ceil(N/300) + N + N = {floor}")
        second, elapsed2, _ = run(big, tmp_path / "a.duckdb", ids, replay.ReplayOptions(games_per_s=0))
        redownloaded = second.games_already_stored
        print(
            f"(a) second run, nothing new: {second.requests} requests, {second.games_fetched} games fetched, "
            f"{redownloaded} downloaded again, {elapsed2:.2f} s"
        )

        # (b) backfill from a server throttled like lichess.org for a token holder
        throttle = 30.0
        back, elapsed_b, sent_b = run(
            small, tmp_path / "b.duckdb", small_ids, replay.ReplayOptions(games_per_s=throttle), streams=args.streams
        )
        floor_b = back.games_fetched / (throttle * args.streams)
        print(
            f"(b) backfill: {back.games_fetched} games in {elapsed_b:.2f} s; floor {back.games_fetched} / "
            f"({throttle:g} x {args.streams}) = {floor_b:.2f} s"
        )

    print(
        f"requests_ratio={first.requests / floor:.3f} redownloaded={redownloaded} "
        f"backfill_ratio={elapsed_b / floor_b:.3f} local_games_per_s={local:.0f}"
    )


if __name__ == "__main__":
    main()
