"""Closing-day benchmark: what a refresh run costs next to a nightly, on the default demo.

    python benchmarks/closing_day.py [--keep]

Builds the default demo (``antichess-td demo``) in a temporary folder and serves its Lichess
dataset from a replay server in this process (real HTTP on 127.0.0.1, one port throughout, a new
server for each run with the world as of that run's ``--now``), which counts every request it
receives. The server is unthrottled, as the demo's own config has it (lichess.org sends a token
holder about 30 games/s: a nightly's download there takes longer; a refresh's few games do not). One board match of the Swiss's round 2 (window 2026-09-08 to Monday 2026-09-14 23:59:59
UTC) is moved to that Monday 12:00 UTC, its games keeping their order and gaps (the demo plays
its matches earlier in the week; a closing day is when most are played): no other game of a
registered player is created or ends between 03:00 and the moved match's end, so

1. a cold nightly at Sunday 2026-09-13 03:00 (not compared: it fills the working database);
2. (a) the nightly at Monday 03:00;
3. (b) a refresh (``nightly --refresh``) at 11:00: no game since the nightly;
4. (c) a refresh one minute after the moved match's last game: that board match's games only.

Each run is a subprocess of ``antichess-td`` (``python -m pipeline``, this checkout), Prefect's
temporary server included (under ``antichess-td serve`` the server is already running: the run's
own time, from the ``runs`` table, is printed beside the process's). Prints the machine's load
before and after, one line per run, and last ``nightly_s=A refresh_none_s=B refresh_one_s=C
requests_nightly=… requests_none=… requests_one=…`` (process wall seconds; requests the server
received).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import datetime as dt
import json
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
from quickstart import load_average  # benchmarks/quickstart.py: a script's folder is on sys.path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.sim import replay  # noqa: E402

ROUND, STAGE = 2, "swiss"
CLOSING_DAY = dt.datetime(2026, 9, 14, tzinfo=dt.UTC)  # Monday: round 2's window closes at 23:59:59
COLD = "2026-09-13T03:00:00Z"
NIGHT = CLOSING_DAY + dt.timedelta(hours=3)
QUIET = CLOSING_DAY + dt.timedelta(hours=11)
MOVED_TO = CLOSING_DAY + dt.timedelta(hours=12)


def iso(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def ms(t: dt.datetime) -> int:
    return int(t.timestamp() * 1000)


def player_ids(g: dict[str, Any]) -> tuple[str, str]:
    a, b = (g["players"][c].get("user", {}).get("id", "") for c in ("white", "black"))
    return a, b


def move_one_board_match(demo: Path) -> tuple[str, str, int, dt.datetime]:
    """Move round 2's board match whose games end last before the closing day to MOVED_TO; returns
    its players, its number of games and when its last game ends (after the move)."""
    teams = list(csv.DictReader((demo / "teams.csv").open(encoding="utf-8")))
    registered = {r["player"].lower() for r in teams}
    board = {(r["team"], int(r["board"])): r["player"].lower() for r in teams}
    pairs = [
        frozenset((board[p["a"], n], board[p["b"], n]))
        for p in csv.DictReader((demo / "pairings.csv").open(encoding="utf-8"))
        if p["stage"] == STAGE and int(p["round"]) == ROUND
        for n in range(1, 5)
        if (p["a"], n) in board and (p["b"], n) in board
    ]
    path = demo / "lichess" / "games.ndjson"
    lines = path.read_text(encoding="utf-8").splitlines()
    games = [json.loads(line) for line in lines]
    start, end = ms(CLOSING_DAY - dt.timedelta(days=6)), ms(CLOSING_DAY)
    matches: dict[frozenset[str], list[int]] = {}
    for i, g in enumerate(games):
        pair = frozenset(player_ids(g))
        if pair in pairs and start <= g["createdAt"] < end:
            matches.setdefault(pair, []).append(i)
    pair, chosen = max(matches.items(), key=lambda kv: max(games[i]["lastMoveAt"] for i in kv[1]))
    shift = ms(MOVED_TO) - min(games[i]["createdAt"] for i in chosen)
    for i in chosen:
        g = games[i]
        g["createdAt"] += shift
        g["lastMoveAt"] += shift
        if "pgn" in g:
            t = dt.datetime.fromtimestamp(g["createdAt"] / 1000, dt.UTC)
            g["pgn"] = re.sub(r'\[UTCDate "[^"]*"\]', f'[UTCDate "{t:%Y.%m.%d}"]', g["pgn"])
            g["pgn"] = re.sub(r'\[UTCTime "[^"]*"\]', f'[UTCTime "{t:%H:%M:%S}"]', g["pgn"])
        lines[i] = json.dumps(g)
    last_end = max(games[i]["lastMoveAt"] for i in chosen)
    others = [
        g
        for j, g in enumerate(games)
        if j not in chosen
        and registered & set(player_ids(g))
        and (ms(NIGHT) < g["createdAt"] <= last_end or ms(NIGHT) < g["lastMoveAt"] <= last_end)
    ]
    if others:
        sys.exit(f"{len(others)} other games of registered players between the nightly and the moved match's end")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    a, b = sorted(pair)
    return a, b, len(chosen), dt.datetime.fromtimestamp(last_end / 1000, dt.UTC)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def lichess_at(dataset: replay.Dataset, port: int, now: str) -> Iterator[replay.ReplayServer]:
    at = dt.datetime.fromisoformat(now.replace("Z", "+00:00"))
    options = replay.ReplayOptions(games_per_s=0, history_needs_token=False)  # unthrottled, as the demo's config
    with replay.running(dataset, port=port, now=at, options=options) as server:
        yield server


def run(toml: Path, dataset: replay.Dataset, port: int, now: str, refresh: bool) -> tuple[float, int, float, str]:
    """One run as a subprocess; returns its wall seconds, the requests the server received, the
    run's own seconds (runs table) and its last line."""
    args = [sys.executable, "-m", "pipeline", "nightly", "--config", str(toml), "--now", now]
    with lichess_at(dataset, port, now) as server:
        started = time.perf_counter()
        proc = subprocess.run(args + (["--refresh"] if refresh else []), capture_output=True, text=True)
        took = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"{' '.join(args)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    work = toml.parent / "out" / "team.work.duckdb"
    con = duckdb.connect(str(work), read_only=True)
    try:
        [(run_s,)] = con.sql(
            "SELECT epoch(finished_at - started_at) FROM pipeline_runs ORDER BY run_id DESC LIMIT 1"
        ).fetchall()
    finally:
        con.close()
    return took, server.requests_served, float(run_s), proc.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="antichess-td-closing-day-"))
    print(f"load average before: {load_average()}  (folder {tmp})")
    try:
        demo = tmp / "demo"
        subprocess.run([sys.executable, "-m", "pipeline", "demo", "--out", str(demo)], check=True, capture_output=True)
        a, b, n, last_end = move_one_board_match(demo)
        port = free_port()
        toml = demo / "tournament.toml"
        text = toml.read_text(encoding="utf-8")
        toml.write_text(text.replace('replay_data = "lichess"', f'base_url = "http://127.0.0.1:{port}"'), "utf-8")
        dataset = replay.Dataset.load(demo / "lichess")
        one = iso(last_end + dt.timedelta(minutes=1))
        print(f"moved round {ROUND}'s board match {a} - {b} ({n} games) to {iso(MOVED_TO)}; it ends {iso(last_end)}")
        runs = [
            ("cold nightly (fills the database; not compared)", COLD, False),
            ("(a) nightly", iso(NIGHT), False),
            ("(b) refresh, no new game", iso(QUIET), True),
            ("(c) refresh, one new board match", one, True),
        ]
        measured = []
        for name, now, refresh in runs:
            took, requests, run_s, last = run(toml, dataset, port, now, refresh)
            measured.append((took, requests))
            print(f"{name:<50} --now {now}  wall_s={took:6.1f}  run_s={run_s:6.1f}  requests={requests:4d}  | {last}")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"load average after: {load_average()}")
    (_, _), (na, ra), (nb, rb), (nc, rc) = measured
    print(
        f"nightly_s={na:.1f} refresh_none_s={nb:.1f} refresh_one_s={nc:.1f} "
        f"requests_nightly={ra} requests_none={rb} requests_one={rc}"
    )


if __name__ == "__main__":
    main()
