"""How well pipeline.domain.rd estimates each game's post-game RD, against the demo's true RD (TEAM-CAP-5).

The demo rates every game with pipeline.domain.glicko exactly as Lichess does and writes the true RD
before and after every rated game of a registered player to ``truth/deviations.csv`` (data
Lichess never publishes). This script runs the estimator on the demo's stored games and prints
the error distribution of ``rd_est`` against the true post-game RD, the share of true values
inside ``[rd_low, rd_high]``, and how often ``rd_est > 80`` disagrees with ``true > 80`` (the
TEAM-CAP-5 threshold), overall and at the planted cap crossings.

    python benchmarks/rd_accuracy.py                       # the quick start's demo, data/demo (read-only)
    python benchmarks/rd_accuracy.py --demo DIR            # another built and ingested demo
    python benchmarks/rd_accuracy.py --build [--seed N]    # build a demo into a temp dir and read its files

The games come from the demo's ``out/team.duckdb`` (opened read-only; the TEAM players'
``lichess_games``) or, with ``--build`` or when no database is there, straight from its
``lichess/games.ndjson`` typed by pipeline.lichess.client.parse_game (every registered player, TEAM and
ACWC). Prints only measurements; no timing.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import re
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

from pipeline.domain import rd
from pipeline.lichess import client
from pipeline.store import gateway

DEFAULT_DEMO = Path(__file__).resolve().parent.parent / "data" / "demo"  # where the README's quick start builds it
THRESHOLD = 80.0


def games_from_db(db: Path) -> tuple[pl.DataFrame, tuple[str, ...]]:
    con = gateway.connect(db, read_only=True)
    try:
        players = tuple(gateway.query(con, "queries/registered_player_ids")["user_id"].to_list())
        games = gateway.query(
            con, "queries/rated_antichess_games_of", [list(players), None, None, None, [None] * len(players)]
        )
    finally:
        con.close()
    return games, players


def games_from_ndjson(demo: Path) -> tuple[pl.DataFrame, tuple[str, ...]]:
    users = [json.loads(line) for line in (demo / "lichess" / "users.ndjson").read_text(encoding="utf-8").splitlines()]
    players = tuple(u["id"] for u in users)
    rows = []
    with (demo / "lichess" / "games.ndjson").open(encoding="utf-8") as f:
        for line in f:
            row = client.parse_game(json.loads(line))
            if row.rated and row.variant == "antichess":
                rows.append({c: getattr(row, c) for c in rd.INPUT_COLUMNS})
    return pl.DataFrame(rows, infer_schema_length=None), players


def truth(demo: Path) -> pl.DataFrame:
    with (demo / "truth" / "deviations.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return pl.DataFrame(
        {
            "game_id": [r["game_id"] for r in rows],
            "user_id": [r["user_id"] for r in rows],
            "true_before": [float(r["rd_before"]) for r in rows],
            "true_after": [float(r["rd_after"]) for r in rows],
        }
    )


def summarize(est: pl.DataFrame, true: pl.DataFrame) -> dict[str, float]:
    """The numbers the README quotes (also used by tests/domain/test_rd.py)."""
    j = est.join(true, on=["game_id", "user_id"], how="inner")
    n = j.height
    out: dict[str, float] = {"rows": est.height, "joined": n}
    for m in rd.METHODS:
        out[f"count_{m}"] = j.filter(pl.col("rd_method") == m).height
        out[f"share_{m}"] = out[f"count_{m}"] / n if n else 0.0
    known = j.filter(pl.col("rd_est").is_not_null()).with_columns(err=(pl.col("rd_est") - pl.col("true_after")).abs())
    e = known["err"]
    out.update(
        mean_abs=e.mean(), median_abs=e.median(), p90_abs=e.quantile(0.9), p99_abs=e.quantile(0.99), max_abs=e.max()
    )
    out["inside"] = (
        j.filter(
            (pl.col("true_after") >= pl.col("rd_low") - 1e-9) & (pl.col("true_after") <= pl.col("rd_high") + 1e-9)
        ).height
        / n
    )
    out["median_width"] = (j["rd_high"] - j["rd_low"]).median()
    wrong = known.filter((pl.col("rd_est") > THRESHOLD) != (pl.col("true_after") > THRESHOLD))
    out["threshold_disagree"] = wrong.height
    out["threshold_disagree_share"] = wrong.height / known.height
    out["true_above_80"] = known.filter(pl.col("true_after") > THRESHOLD).height
    near = known.filter((pl.col("true_after") - THRESHOLD).abs() <= 10)
    out["near_80"] = near.height
    out["near_80_disagree"] = near.filter((pl.col("rd_est") > THRESHOLD) != (pl.col("true_after") > THRESHOLD)).height
    out["unknown_true_above_80"] = j.filter(
        (pl.col("rd_method") == "unknown") & (pl.col("true_after") > THRESHOLD)
    ).height
    out["unknown_interval_above_80"] = j.filter(
        (pl.col("rd_method") == "unknown") & (pl.col("rd_low") > THRESHOLD)
    ).height
    for m in ("estimated", "carried"):
        part = known.filter(pl.col("rd_method") == m)["err"]
        out[f"median_abs_{m}"] = part.median() if part.len() else float("nan")
        out[f"p99_abs_{m}"] = part.quantile(0.99) if part.len() else float("nan")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--demo", type=Path, default=DEFAULT_DEMO)
    ap.add_argument("--build", action="store_true", help="build a fresh demo into a temp dir first")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rd-accuracy-") as tmp:
        demo = args.demo
        if not args.build and not demo.is_dir():
            ap.error(f"no demo at {demo}: build one (antichess-td demo --out {demo}), or pass --demo DIR or --build")
        if args.build:
            from pipeline.sim.season import build_season

            demo = Path(tmp) / "demo"
            build_season(demo, seed=args.seed)
        db = demo / "out" / "team.duckdb"
        if db.exists() and not args.build:
            games, players = games_from_db(db)
            source = f"{db} (lichess_games of the {len(players)} registered TEAM players)"
        else:
            games, players = games_from_ndjson(demo)
            source = f"{demo / 'lichess' / 'games.ndjson'} (every registered player: {len(players)})"
        started = time.perf_counter()
        est = rd.estimate_rd(games, players=players)
        took = time.perf_counter() - started
        s = summarize(est, truth(demo))
        planted = planted_crossings(demo, est)
    print(f"source: {source}")
    print(
        f"games: {games.height}  sides estimated: {int(s['rows'])}  joined to truth: {int(s['joined'])}  ({took:.1f} s)"
    )
    print("methods: " + "  ".join(f"{m} {int(s[f'count_{m}'])} ({s[f'share_{m}']:.2%})" for m in rd.METHODS))
    print(
        f"|rd_est - true RD after|: mean {s['mean_abs']:.2f}  median {s['median_abs']:.2f}  p90 {s['p90_abs']:.2f}  "
        f"p99 {s['p99_abs']:.2f}  max {s['max_abs']:.2f}"
    )
    print(
        f"  estimated rows: median {s['median_abs_estimated']:.2f} p99 {s['p99_abs_estimated']:.2f}; "
        f"carried rows: median {s['median_abs_carried']:.2f} p99 {s['p99_abs_carried']:.2f}"
    )
    print(f"true RD inside [rd_low, rd_high]: {s['inside']:.3%}  (median width {s['median_width']:.1f})")
    print(
        f"threshold 80: rd_est > 80 disagrees with true > 80 in {int(s['threshold_disagree'])} rows "
        f"({s['threshold_disagree_share']:.3%}; {int(s['true_above_80'])} rows truly above 80); within 10 of 80: "
        f"{int(s['near_80_disagree'])} of {int(s['near_80'])}"
    )
    print(
        f"unknown rows: {int(s['unknown_true_above_80'])} truly above 80, {int(s['unknown_interval_above_80'])} "
        "with rd_low above 80"
    )
    print("planted cap crossings (PLANTED.csv / TRAPS.csv; the notes give the true RD before the crossing game):")
    for subject, day, true_rd, row in planted:
        if row is None:
            print(f"  {subject:<14} {day}  true RD {true_rd:>3}  (no crossing game stored)")
            continue
        shown = "unknown" if row["rd_est"] is None else f"{row['rd_est']:6.1f}"
        print(
            f"  {subject:<14} {day}  true RD {true_rd:>3}  estimate after the game {shown} "
            f"[{row['rd_low']:.1f}, {row['rd_high']:.1f}] {row['rd_method']}"
        )
    return 0


def planted_crossings(demo: Path, est: pl.DataFrame) -> list[tuple[str, str, int, dict[str, object] | None]]:
    """Each planted TEAM-CAP crossing day with the estimate at that day's first game above 2200."""
    out = []
    for name in ("PLANTED.csv", "TRAPS.csv"):
        with (demo / name).open(encoding="utf-8") as f:
            for r in csv.DictReader(f):
                if not r["rule_id"].startswith("TEAM-CAP-"):
                    continue
                for day, true_rd in re.findall(r"(\d{4}-\d{2}-\d{2}) \(RD (\d+)\)", r["note"]):
                    rows = est.filter(
                        (pl.col("user_id") == r["subject"].lower())
                        & (pl.col("played_at").dt.date() == dt.date.fromisoformat(day))
                        & (pl.col("rating_after") > 2200)
                    ).sort("played_at")
                    out.append((r["subject"], day, int(true_rd), rows.row(0, named=True) if rows.height else None))
    return out


if __name__ == "__main__":
    sys.exit(main())
