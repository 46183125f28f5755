"""Work done ahead of the audit (pipeline/stages/audit.py ahead_of_audit): while a night's ingest
still downloads, once the games of the players whose RDs can change are stored, the RD estimates
(TEAM-CAP-5, TEAM-ELIG-7) are brought up to date. The audit then finds them current and rates no
game. What the audit and the export write is exactly what a night without the work ahead writes.

The small demo (seed 11, 12 teams; conftest) as of the night after Swiss round 2, ingested, scored and
audited; then the night after round 3, with and without the work ahead."""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import shutil
from pathlib import Path

import duckdb
import pytest

from pipeline.inputs.config import load_config
from pipeline.model import Config
from pipeline.sim.season import TEAM_START
from pipeline.stages import audit, context, export, ratings, score
from pipeline.stages.ingest import ingest_stage, lichess_base_url


def night(rnd: int) -> dt.datetime:
    """03:00 UTC on the Tuesday after Swiss round `rnd`."""
    return TEAM_START + dt.timedelta(days=7 * rnd, hours=3)


def config(demo: Path, db: Path) -> Config:
    cfg = load_config(demo / "tournament.toml")
    return dataclasses.replace(cfg, paths=dataclasses.replace(cfg.paths, database=db, exports=db.parent / "exports"))


def ingest(cfg: Config, now: dt.datetime) -> None:
    with lichess_base_url(cfg, now=now) as base_url:
        ingest_stage(cfg, context.read_inputs(cfg), base_url, now)


@pytest.fixture(scope="module")
def audited(small_demo_source: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the demo's folder, a database ingested, scored and audited the night after round 2)."""
    demo = shutil.copytree(small_demo_source, tmp_path_factory.mktemp("ahead") / "demo")
    db = tmp_path_factory.mktemp("night2") / "t.duckdb"
    cfg = config(demo, db)
    inputs = context.read_inputs(cfg)
    ingest(cfg, night(2))
    score.score_stage(cfg, inputs, night(2))
    audit.audit_stage(cfg, inputs, night(2))
    return demo, db


def night_3(demo: Path, source: Path, folder: Path) -> tuple[Config, ratings.EstimateStats, audit.AuditReport]:
    """The night after round 3 on a copy of `source` in `folder`: ingest, score, then the audit
    with its rating step's stats, and the export."""
    folder.mkdir()
    db = Path(shutil.copy(source, folder / "t.duckdb"))
    cfg = config(demo, db)
    inputs = context.read_inputs(cfg)
    ingest(cfg, night(3))
    score.score_stage(cfg, inputs, night(3))
    stats = ratings.EstimateStats()
    original = audit.estimate_ratings

    def counted(con: duckdb.DuckDBPyConnection, _: ratings.EstimateStats | None = None) -> int:
        return original(con, stats)

    audit.estimate_ratings = counted  # type: ignore[assignment]
    try:
        report = audit.audit_stage(cfg, inputs, night(3))
    finally:
        audit.estimate_ratings = original  # type: ignore[assignment]
    export.export_stage(cfg, report.findings)
    return cfg, stats, report


def table(db: Path, name: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return sorted(con.sql(f"SELECT * FROM {name}").fetchall(), key=repr)
    finally:
        con.close()


def test_the_work_ahead_leaves_the_audit_nothing_to_rate_and_the_same_tables(
    audited: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    demo, source = audited
    caplog.set_level(logging.INFO, logger="pipeline.stages.audit")
    ahead_cfg, ahead_stats, ahead_report = night_3(demo, source, tmp_path / "ahead")
    done = [r.getMessage() for r in caplog.records if r.getMessage().startswith("ahead of the audit:")]
    assert len(done) == 1, caplog.text
    # the games of round 3 were rated during the ingest: the audit resumed with none left
    assert (ahead_stats.resumed, ahead_stats.games_rated) == (True, 0)

    monkeypatch.setattr(audit, "ahead_of_audit", lambda *args: None)
    plain_cfg, plain_stats, plain_report = night_3(demo, source, tmp_path / "plain")
    assert plain_stats.resumed and plain_stats.games_rated > 0  # the audit rated round 3's games itself

    for name in ("rating_estimates", "rating_estimate_tracks", "scored_match_games", "scored_standings"):
        assert table(ahead_cfg.paths.database, name) == table(plain_cfg.paths.database, name), name
    assert ahead_report.findings == plain_report.findings
    # the exported cap charts are those of the plain night, byte for byte
    exported = sorted((ahead_cfg.paths.exports / "charts").glob("cap_*.svg"))
    assert exported, "no cap chart was exported"
    for chart in exported:
        assert chart.read_bytes() == (plain_cfg.paths.exports / "charts" / chart.name).read_bytes()


def test_no_work_ahead_before_the_first_audit_or_for_an_individual_event(
    small_demo_source: Path, audited: tuple[Path, Path]
) -> None:
    """Nothing to resume before an audit ran (its parameters pick the players); an individual
    event's audits read no RD."""
    from pipeline.store import gateway

    demo, source = audited
    cfg = config(demo, source)
    inputs = context.read_inputs(cfg)
    con = gateway.connect(source, read_only=True)
    try:
        ahead = audit.ahead_of_audit(con, cfg, inputs, night(3))
        assert ahead is not None and ahead.players
        # the last-board players (TEAM-CAP-5 reads all their games) are among those awaited
        last_board = {r[0] for r in con.sql("SELECT user_id FROM last_board_players").fetchall()}
        assert last_board and last_board <= ahead.players
        assert audit.ahead_of_audit(con, dataclasses.replace(cfg, kind="individual"), inputs, night(3)) is None
    finally:
        con.close()
    fresh = gateway.connect(source.parent / "empty.duckdb")
    try:
        assert audit.ahead_of_audit(fresh, cfg, inputs, night(3)) is None
    finally:
        fresh.close()
