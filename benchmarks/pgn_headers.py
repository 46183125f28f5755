"""The ingest-time PGN player check: ``verify.pgn_players`` against ``chess.pgn.read_headers``.

    python benchmarks/pgn_headers.py [--repeats 5]

Both read the White/Black tags of every game of the season fixture (tests/data/season, 1,206
games), side by side in one run, best of ``--repeats``; ingest runs the check on every game it
stores. The last line is exactly ``games=N read_headers_us=A pgn_players_us=B ratio=R``.
"""

from __future__ import annotations

import argparse
import io
import json
import time
from pathlib import Path

import chess.pgn

from pipeline.domain.verify import pgn_players

SEASON = Path(__file__).resolve().parent.parent / "tests" / "data" / "season" / "lichess" / "games.ndjson"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    pgns = [json.loads(line)["pgn"] for line in SEASON.read_text(encoding="utf-8").splitlines()]
    best = {"read_headers": float("inf"), "pgn_players": float("inf")}
    for _ in range(args.repeats):
        t = time.perf_counter()
        for pgn in pgns:
            chess.pgn.read_headers(io.StringIO(pgn))
        best["read_headers"] = min(best["read_headers"], time.perf_counter() - t)
        t = time.perf_counter()
        for pgn in pgns:
            pgn_players(pgn)
        best["pgn_players"] = min(best["pgn_players"], time.perf_counter() - t)
    a, b = (best[k] / len(pgns) * 1e6 for k in ("read_headers", "pgn_players"))
    print(f"games={len(pgns)} read_headers_us={a:.1f} pgn_players_us={b:.1f} ratio={a / b:.1f}")


if __name__ == "__main__":
    main()
