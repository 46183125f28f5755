"""The flow ingests in player batches: batch by batch, then the casual-game
searches, must store exactly what one ingest of everyone stores, night after night, at the cost
of one more profile request per extra batch (POST /api/users takes up to 300 ids; a batch of
one id still costs one request) and nothing else."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import duckdb

from kits.lichess_data import stored_rows
from pipeline.inputs.config import load_config
from pipeline.lichess import ingest_report
from pipeline.stages import context
from pipeline.stages.ingest import ingest_batch, ingest_stage, ingest_watched, lichess_base_url, player_batches

NIGHTS = (
    dt.datetime(2026, 3, 8, 3, tzinfo=dt.UTC),  # round 1 under way
    dt.datetime(2026, 3, 12, 3, tzinfo=dt.UTC),  # round 2 under way
    dt.datetime(2026, 3, 12, 4, tzinfo=dt.UTC),
)  # nothing new: only round 2's casual-game searches
TABLES = (
    "raw_users",
    "raw_games",
    "lichess_users",
    "lichess_games",
    "lichess_rating_points",
    "rejected_records",
    "ingest_cursors",
)


def content(db: Path) -> dict[str, list[tuple]]:
    return stored_rows(db, TABLES)


def test_batches_store_what_one_ingest_stores(skeleton: Path) -> None:
    cfg = load_config(skeleton)  # the skeleton's replay server is unthrottled
    inputs = context.read_inputs(cfg)
    single = dataclasses.replace(cfg, paths=dataclasses.replace(cfg.paths, database=skeleton.parent / "single.duckdb"))
    batched = dataclasses.replace(
        cfg, paths=dataclasses.replace(cfg.paths, database=skeleton.parent / "batched.duckdb")
    )
    batches = player_batches(inputs, size=2)
    assert len(batches) == 4
    assert not any(
        {"alice", "bob"} <= {p.lower() for p in b} for b in batches
    )  # their standard game is kept all the same
    vs_searches = []
    for night in NIGHTS:
        with lichess_base_url(cfg, now=night) as base_url:
            one = ingest_stage(single, inputs, base_url, night)
            parts = [ingest_batch(batched, inputs, base_url, night, players) for players in batches]
            parts.append(ingest_watched(batched, inputs, base_url, night, parts))
        merged = ingest_report.merge_reports(parts)
        assert content(batched.paths.database) == content(single.paths.database), night
        a, b = one.summary(), merged.summary()
        assert b["requests"] == a["requests"] + len(batches) - 1, night
        for key in (
            "games_fetched",
            "games_new",
            "games_distinct",
            "games_skipped_other_variant",
            "histories_loaded",
            "users_loaded",
            "rejected",
        ):
            assert b[key] == a[key], (night, key)
        assert {p["user_id"]: p["vs_requests"] for p in b["players"]} == {
            p["user_id"]: p["vs_requests"] for p in a["players"]
        }
        vs_searches.append(sum(p["vs_requests"] for p in a["players"]))
    con = duckdb.connect(str(batched.paths.database), read_only=True)
    try:
        assert con.sql("SELECT variant FROM lichess_games WHERE game_id = 'R1ab1s06'").fetchall() == [("standard",)]
    finally:
        con.close()
    assert vs_searches[-1] > 0  # the last night exercised the casual-game searches after the batches
