"""League benchmark: what a league's tournaments cost Lichess together, against the league's floor.

    python benchmarks/league.py [--league PATH] [--nights 2026-10-06T03:00:00Z,2026-10-13T03:00:00Z]

By default the league is the demo's (``antichess-td demo --league``: the team season, the "pairs"
event and the board-1 individual event, built from the same season's games, so every player of the
two derived events plays in the team season too). One replay server serves the dataset for each
night (unthrottled: requests are counted, not timed), and three ingests run side by side, each from
empty databases and then night after night:

(a) alone: each tournament's ingest on its own (its own databases, no league), as today;
(b) league: the same three ingests, one after another as the league's lane runs them, reading
    through the league's shared store (``config.league``; pipeline/lichess/league_cache.py);
(c) floor: one ingest of every distinct player of the league (and every board any of the three
    watches for casual games) into one database, from the earliest ``history_since`` of the three:
    the requests needed to fetch each player's data once a night, and no fewer.

Per night, and in total, it prints the requests of each, and the last line is exactly
``league_requests=L floor_requests=F alone_requests=A requests_ratio=R`` with R = L / F (goal
R <= 1.02: each shared player fetched once a night) and A / L what the league saves.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.inputs.config import load_config  # noqa: E402
from pipeline.inputs.league import load_league  # noqa: E402
from pipeline.lichess import client  # noqa: E402
from pipeline.lichess.request_plan import ingest  # noqa: E402
from pipeline.model import Config  # noqa: E402
from pipeline.sim import replay  # noqa: E402
from pipeline.stages import context  # noqa: E402
from pipeline.stages.ingest import ingest_stage, watched_boards  # noqa: E402
from pipeline.store import gateway  # noqa: E402

NIGHTS = "2026-10-06T03:00:00Z,2026-10-13T03:00:00Z"
TOKEN = "bench-league-token"  # any token: the replay server takes it, as it would a TD's


def at(cfg: Config, folder: Path, base_url: str, league: object | None) -> Config:
    """`cfg` with its working database in `folder`, fetching from `base_url`, in `league` or alone."""
    lichess = dataclasses.replace(cfg.lichess, base_url=base_url, replay_data=None)
    paths = dataclasses.replace(cfg.paths, database=folder / f"{cfg.tournament_id}.duckdb")
    return dataclasses.replace(cfg, lichess=lichess, paths=paths, league=league)  # type: ignore[arg-type]


def floor_night(configs: list[Config], folder: Path, base_url: str, night: dt.datetime) -> int:
    """Requests of one ingest of every distinct player (and every watched board) of the league."""
    players: list[str] = []
    watch = []
    for cfg in configs:
        inputs = context.read_inputs(cfg)
        players.extend(inputs.player_ids())
        watch.extend(watched_boards(cfg, inputs))
    since = min(cfg.lichess.history_since for cfg in configs)
    con = gateway.connect(folder / "floor.duckdb")
    try:
        http = client.make_client(base_url, TOKEN, 30.0)
        report = ingest(con, http, list(dict.fromkeys(players)), since, night, watch=sorted(set(watch), key=repr))
    finally:
        con.close()
    return report.requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--league", type=Path, help="a league.toml (default: the demo's league, built in a temp dir)")
    parser.add_argument("--nights", default=NIGHTS, help="UTC times of the nights, comma-separated")
    args = parser.parse_args()
    os.environ["LICHESS_TOKEN"] = TOKEN  # the demo's configs name this variable
    with tempfile.TemporaryDirectory(prefix="antichess-td-bench-league-") as tmp:
        work = Path(tmp)
        league_path = args.league
        if league_path is None:
            demo = work / "demo"
            subprocess.run(
                [sys.executable, "-m", "pipeline", "demo", "--league", "--out", str(demo)], check=True, cwd=ROOT
            )
            league_path = demo / "league.toml"
        league = load_league(league_path)
        league = dataclasses.replace(league, store=work / "league" / "league.duckdb")
        configs = [load_config(p) for p in league.configs]
        data = configs[0].lichess.replay_data
        assert data is not None, "the benchmark serves the league's recorded dataset (lichess.replay_data)"
        dataset = replay.Dataset.load(data)
        totals = {"league": 0, "floor": 0, "alone": 0}
        for text in args.nights.split(","):
            night = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
            options = replay.ReplayOptions(games_per_s=0, history_needs_token=False)
            with replay.running(dataset, now=night, options=options) as server:
                counts = {"league": 0, "floor": floor_night(configs, work, server.base_url, night), "alone": 0}
                for cfg in configs:
                    inputs = context.read_inputs(cfg)
                    alone = at(cfg, work / "alone", server.base_url, None)
                    counts["alone"] += ingest_stage(alone, inputs, server.base_url, night).requests
                    shared = at(cfg, work / "league", server.base_url, league)
                    counts["league"] += ingest_stage(shared, inputs, server.base_url, night).requests
            print(
                f"night {text}: league {counts['league']} requests, floor {counts['floor']}, "
                f"alone {counts['alone']} (sum of the {len(configs)} tournaments)",
                flush=True,
            )
            for k in totals:
                totals[k] += counts[k]
        ratio = totals["league"] / totals["floor"]
        print(
            f"league_requests={totals['league']} floor_requests={totals['floor']} "
            f"alone_requests={totals['alone']} requests_ratio={ratio:.3f}"
        )


if __name__ == "__main__":
    main()
