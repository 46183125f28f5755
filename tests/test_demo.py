"""The bundled demo: reproducible byte for byte, and every planted quirk found by linking."""

from __future__ import annotations

import dataclasses
import datetime as dt
import filecmp
import io
import json
from pathlib import Path

import chess.pgn

from pipeline import run, store
from pipeline.config import load_config
from pipeline.demo import build_demo

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "data" / "demo"


def test_committed_demo_is_what_the_generator_writes(tmp_path: Path) -> None:
    """`antichess-td demo --out DIR` with the default seed rewrites data/demo exactly."""
    build_demo(tmp_path, seed=2026)
    for path in sorted(p for p in tmp_path.rglob("*") if p.is_file()):
        rel = path.relative_to(tmp_path)
        assert filecmp.cmp(path, DEMO / rel, shallow=False), rel


def test_demo_games_are_legal_and_pgn_agrees_with_json() -> None:
    """Each demo game's PGN replays on python-chess's antichess board; headers match the JSON;
    a game the board ended is reported as variantEnd with the winner outcome() names."""
    with (DEMO / "lichess" / "games.ndjson").open(encoding="utf-8") as f:
        games = [json.loads(line) for line in f]
    assert len(games) > 1000
    for g in games[:200]:
        pgn = chess.pgn.read_game(io.StringIO(g["pgn"]))
        assert pgn is not None and pgn.errors == []
        h = pgn.headers
        assert (h["White"], h["Black"]) == (g["players"]["white"]["user"]["name"], g["players"]["black"]["user"]["name"])
        assert h["TimeControl"] == f"{g['clock']['initial']}+{g['clock']['increment']}"
        assert h["Result"] == {"white": "1-0", "black": "0-1", None: "1/2-1/2"}[g.get("winner")]
        outcome = pgn.end().board().outcome()
        if g["status"] == "variantEnd":
            assert outcome is not None and outcome.winner == (g["winner"] == "white")
        elif g["status"] in ("resign", "outoftime"):
            assert outcome is None


def test_demo_planted_linking_quirks_are_found(tmp_path: Path) -> None:
    config = load_config(DEMO / "tournament.toml")
    config = dataclasses.replace(config, paths=dataclasses.replace(config.paths, database=tmp_path / "demo.duckdb",
                                                                   exports=tmp_path / "exports"))
    inputs = run.read_inputs(config)
    now = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)
    with run.lichess_base_url(config) as base_url:
        run.ingest_stage(config, inputs, base_url, now)
    report = run.score_stage(config, inputs, now)
    # 10 teams → 5 matches a round × 3 rounds × 4 boards × 18 games (TEAM-SCORE-1)
    assert report.counted_games == 5 * 3 * 4 * 18
    con = store.connect(config.paths.database)
    try:
        reasons = sorted(con.sql("SELECT round, reason FROM match_games WHERE NOT counted").fetchall())
    finally:
        con.close()
    assert reasons == [(1, "extra_game"), (2, "outside_window"), (2, "wrong_time_control")]
