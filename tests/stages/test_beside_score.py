"""The audits that read nothing the score stage decides, run beside it (pipeline/stages/audit.py
beside_score, as the nightly flow runs them): the same findings, estimates, standings and
audit_findings.csv as the score stage followed by the whole audit stage, and nothing else written.

The small demo (seed 11, 12 teams; conftest) ingested the night after Swiss round 3; one copy is
scored and audited in sequence, the other with the audits beside the score stage."""

from __future__ import annotations

import dataclasses
import datetime as dt
import shutil
import sys
import threading
from pathlib import Path

import duckdb
import pytest

from pipeline.inputs.config import load_config
from pipeline.model import Config
from pipeline.sim.season import TEAM_START
from pipeline.stages import audit, context, score
from pipeline.stages.ingest import ingest_stage, lichess_base_url
from pipeline.store import gateway, sql_files

NIGHT_3 = TEAM_START + dt.timedelta(days=7 * 3, hours=3)  # 03:00 UTC on the Tuesday after Swiss round 3


def config(demo: Path, db: Path) -> Config:
    cfg = load_config(demo / "tournament.toml")
    return dataclasses.replace(cfg, paths=dataclasses.replace(cfg.paths, database=db, exports=db.parent / "exports"))


@pytest.fixture(scope="module")
def ingested(small_demo_source: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the demo's folder, a database ingested as of the night after round 3, nothing scored)."""
    demo = shutil.copytree(small_demo_source, tmp_path_factory.mktemp("beside") / "demo")
    db = tmp_path_factory.mktemp("night3") / "t.duckdb"
    cfg = config(demo, db)
    with lichess_base_url(cfg, now=NIGHT_3) as base_url:
        ingest_stage(cfg, context.read_inputs(cfg), base_url, NIGHT_3)
    return demo, db


def copy(ingested: tuple[Path, Path], folder: Path) -> tuple[Config, context.Inputs]:
    demo, db = ingested
    folder.mkdir()
    cfg = config(demo, Path(shutil.copy(db, folder / "t.duckdb")))
    return cfg, context.read_inputs(cfg)


def checksums(db: Path) -> dict[str, tuple[int, int]]:
    con = gateway.connect(db, read_only=True)
    try:
        return gateway.table_checksums(con)
    finally:
        con.close()


@pytest.fixture(scope="module")
def both(
    ingested: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[tuple[Config, audit.AuditReport], tuple[Config, audit.AuditReport]]:
    """(in sequence, beside): each night's config and audit report."""
    root = tmp_path_factory.mktemp("nights")
    seq, inputs = copy(ingested, root / "sequence")
    score.score_stage(seq, inputs, NIGHT_3)
    in_sequence = audit.audit_stage(seq, inputs, NIGHT_3)

    bes, inputs = copy(ingested, root / "beside")
    with gateway.held(bes.paths.database), audit.beside_score(bes, inputs, NIGHT_3) as early:
        score.score_stage(bes, inputs, NIGHT_3, seeds=early.seeds)
        beside = audit.audit_stage(bes, inputs, NIGHT_3, early)
    return (seq, in_sequence), (bes, beside)


def test_the_findings_are_those_of_the_whole_audit_in_the_same_order(
    both: tuple[tuple[Config, audit.AuditReport], tuple[Config, audit.AuditReport]],
) -> None:
    (seq, in_sequence), (bes, beside) = both
    assert beside.findings == in_sequence.findings
    assert beside.estimates == in_sequence.estimates > 0
    assert beside.csv_path is not None and in_sequence.csv_path is not None
    assert beside.csv_path.read_bytes() == in_sequence.csv_path.read_bytes()
    # both halves found something, so the merge is exercised: an audit that reads the score stage's
    # results (TEAM-COMP-5's board order reads none; TEAM-SCORE-4 / TEAM-CONDUCT-* do) and one that does not
    by_file = {f.stem: audit.reads_scores(f) for f in sql_files.audit_files()}
    assert {by_file[f.audit] for f in beside.findings} == {True, False}


def test_every_table_is_as_in_sequence(
    both: tuple[tuple[Config, audit.AuditReport], tuple[Config, audit.AuditReport]],
) -> None:
    """Standings ranked with the seeds read beside (ACWC-SEED-1, the ``seed`` tiebreak), RD
    estimates (TEAM-CAP-5), captains (TEAM-COMP-8): every table equal."""
    (seq, _), (bes, _) = both
    assert checksums(bes.paths.database) == checksums(seq.paths.database)


def test_the_score_stage_decides_only_the_tables_it_lists(ingested: tuple[Path, Path], tmp_path: Path) -> None:
    """score.RESULTS is what the audits beside the score stage must not read: after the audits'
    inputs are written (audit.prepare), the score stage changes no other table."""
    cfg, inputs = copy(ingested, tmp_path / "n")
    con = gateway.connect(cfg.paths.database)
    try:
        audit.prepare(con, cfg, inputs, NIGHT_3)
    finally:
        con.close()
    before = checksums(cfg.paths.database)
    score.score_stage(cfg, inputs, NIGHT_3)
    after = checksums(cfg.paths.database)
    changed = {t for t in after if after[t] != before.get(t)}
    assert changed, "the score stage changed nothing: the check would pass for any list"
    assert changed <= score.RESULTS


def test_a_failure_beside_is_the_audit_stages_and_nothing_waits_forever(
    tmp_path: Path, ingested: tuple[Path, Path]
) -> None:
    """The thread's error is raised where the seeds and the findings are collected; the block
    ends only once the thread has."""
    cfg, inputs = copy(ingested, tmp_path / "n")
    early = audit.BesideScore(
        dataclasses.replace(cfg, paths=dataclasses.replace(cfg.paths, database=tmp_path)), inputs, NIGHT_3
    )
    early.thread.start()  # the database is a folder: connecting fails
    with pytest.raises(duckdb.Error):
        early.seeds()
    with pytest.raises(duckdb.Error):
        early.result(early.config, inputs, NIGHT_3)
    with pytest.raises(ValueError, match="another run"):
        early.result(early.config, inputs, NIGHT_3 + dt.timedelta(days=1))

    seen: list[threading.Thread] = []
    before = sys.getswitchinterval()
    with pytest.raises(RuntimeError, match="score stage failed"), audit.beside_score(cfg, inputs, NIGHT_3) as early:
        seen.append(early.thread)
        assert sys.getswitchinterval() == pytest.approx(audit.BESIDE_SWITCH_S)
        raise RuntimeError("score stage failed")
    assert not seen[0].is_alive()
    assert sys.getswitchinterval() == before  # the interpreter's own, whatever happened in the block
