"""Match games are verified as they stream in (pipeline/lichess/ingest_run.py, ``Scope``): the verdict
is stored in the same transaction as the game, so after the last game of a night arrives the
score step has nothing left to verify. Verdicts are the ones the score step would give.

On the skeleton (tests/data/skeleton): 37 games, 35 of them between the members of two paired
teams inside a round window (margins included) — the 35 that linking lists; the other two are
``Casual01`` (alice–dan, Alphas and Deltas never meet) and ``Early001`` (amir–bea, paired in
round 1 but played two weeks before its window).

The skeleton's runs go both ways a run verifies (``pool_from``): every batch replayed in the
worker process (pipeline/lichess/verifier.py), and every batch in the ingest's own process."""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import shutil
from pathlib import Path

import duckdb
import polars as pl
import pytest

from kits.skeleton_kit import AFTER_ROUND_2, copy_skeleton
from pipeline.domain import verify
from pipeline.inputs.config import load_config
from pipeline.lichess import verifier
from pipeline.model import Config
from pipeline.stages import context, ingest, score

NOT_MATCH_GAMES = {"Casual01", "Early001"}
DEMO_END = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)  # after the small demo's final


IN_THE_WORKER = "verified 35 match games in a worker process"


@pytest.fixture(params=[0, 10**9], ids=["worker", "here"])
def pool_from(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """Batches of at least this many new candidates are replayed in the worker: all, or none."""
    monkeypatch.setattr(verifier, "POOL_FROM", request.param)
    return request.param


def ingested(folder: Path, pool_from: int, caplog: pytest.LogCaptureFixture) -> Config:
    cfg = load_config(folder / "tournament.toml")
    caplog.set_level(logging.INFO, logger=verifier.__name__)
    with ingest.lichess_base_url(cfg) as base_url:
        report = ingest.ingest_stage(cfg, context.read_inputs(cfg), base_url, AFTER_ROUND_2)
    assert (report.verified, report.mismatches) == (35, 0)
    # each game replayed once, though those between two registered players came in both streams
    said = [r.getMessage() for r in caplog.records if r.name == verifier.__name__]
    assert said == ([IN_THE_WORKER] if pool_from == 0 else [])
    return cfg


def frame(db: Path, sql: str) -> pl.DataFrame:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.sql(sql).pl()
    finally:
        con.close()


def rows(db: Path, sql: str) -> list[tuple]:
    return frame(db, sql).rows()


def test_match_games_are_verified_as_they_arrive_and_the_score_step_verifies_none(
    tmp_path: Path, pool_from: int, caplog: pytest.LogCaptureFixture
) -> None:
    cfg = ingested(copy_skeleton(tmp_path), pool_from, caplog)
    db = cfg.paths.database
    verified = {r[0] for r in rows(db, "SELECT game_id FROM game_verdicts")}
    every = {r[0] for r in rows(db, "SELECT game_id FROM lichess_games")}
    assert len(every) == 37 and verified == every - NOT_MATCH_GAMES

    report = score.score_stage(cfg, context.read_inputs(cfg), AFTER_ROUND_2)
    assert (report.verified, report.match_games) == (0, 35)
    # what was verified on arrival is exactly what linking lists
    assert {r[0] for r in rows(db, "SELECT game_id FROM scored_match_games")} == verified


def test_verdicts_on_arrival_equal_the_score_steps(
    tmp_path: Path, pool_from: int, caplog: pytest.LogCaptureFixture
) -> None:
    """The same verdict, detail and time as the score step gives the stored rows."""
    cfg = ingested(copy_skeleton(tmp_path), pool_from, caplog)
    on_arrival = rows(cfg.paths.database, "SELECT * FROM game_verdicts ORDER BY game_id")
    stored = frame(
        cfg.paths.database,
        "SELECT game_id, white_name, black_name, variant, clock_initial_s, clock_increment_s, status, winner, "
        "created_at, moves, pgn FROM lichess_games ORDER BY game_id",
    )
    by_score_step = [
        (v.game_id, v.verdict, v.detail)
        for v in (verify.verify_game(g) for g in stored.iter_rows(named=True))
        if v.game_id not in NOT_MATCH_GAMES
    ]
    assert [(g, v, d) for g, v, d, _ in on_arrival] == by_score_step
    assert {at for *_, at in on_arrival} == {AFTER_ROUND_2}

    # and the score step, given the same games with no verdicts (stored by an older version, or
    # by a backfill), verifies them and writes the same rows
    scratch = tmp_path / "scratch.duckdb"
    shutil.copy(cfg.paths.database, scratch)
    con = duckdb.connect(str(scratch))
    con.execute("DELETE FROM game_verdicts")
    con.close()
    cfg_scratch = dataclasses.replace(cfg, paths=dataclasses.replace(cfg.paths, database=scratch))
    assert score.score_stage(cfg_scratch, context.read_inputs(cfg_scratch), AFTER_ROUND_2).verified == 35
    assert rows(scratch, "SELECT * FROM game_verdicts ORDER BY game_id") == on_arrival


@pytest.mark.scenario
def test_every_game_the_small_demo_lists_is_verified_on_arrival_replacements_included(
    small_demo_source: Path, tmp_path: Path
) -> None:
    """The small demo's TEAM season, whole, as of its end: a replacement (a TD's `replace` ruling,
    TEAM-COMP-6) plays for its team though teams.csv does not list it, so its games are match
    games too; every game linking lists was verified as it arrived and the score step has none
    left."""
    demo = shutil.copytree(small_demo_source, tmp_path / "demo")
    assert "replace" in (demo / "overrides.csv").read_text(encoding="utf-8")
    cfg = load_config(demo / "tournament.toml")
    inputs = context.read_inputs(cfg)
    with ingest.lichess_base_url(cfg) as base_url:
        arrived = ingest.ingest_stage(cfg, inputs, base_url, DEMO_END)
    report = score.score_stage(cfg, inputs, DEMO_END)
    assert report.match_games > 1000 and report.verified == 0
    listed = {r[0] for r in rows(cfg.paths.database, "SELECT game_id FROM scored_match_games")}
    verdicts = {r[0] for r in rows(cfg.paths.database, "SELECT game_id FROM game_verdicts")}
    assert listed <= verdicts and arrived.verified == len(verdicts)
