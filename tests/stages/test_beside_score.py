"""The audits that read nothing the score stage decides, run beside it (pipeline/stages/audit.py
beside_score, as the nightly flow runs them): the same findings, estimates, standings and
audit_findings.csv as the score stage followed by the whole audit stage, and nothing else written.

The small demo (seed 11, 12 teams; conftest) ingested the night after Swiss round 3; one copy is
scored and audited in sequence, the other with the audits beside the score stage. Then the next
night's run on that database (what it evaluates again) against a full evaluation (the second part)."""

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


# --------------------------------------------------------------------------- a night after a scored one
# A nightly run on a database scored and audited the night before (the rescore plan's rounds, the
# RD estimates resumed from their cursor, the audits beside the score stage) gives exactly the
# tables, findings and audit_findings.csv of a full evaluation of the same database: every scored
# table and every RD estimate emptied, then the score stage and the whole audit stage in sequence.
#
# The small demo (seed 11, 12 teams; conftest) ingested the night after Swiss round 3 and run once
# as the nightly flow runs it; then the next run with nothing changed, with a TD ruling on an old
# round (TEAM-SCORE-1: an exclude_game on a counted round-2 game), and with a game of round 1
# arriving late (a rated game between a round-1 board's players inside its window, stored after
# that round was scored: the round is linked again, TEAM-SCORE-3, and the RD estimates, which
# rate games in time order, TEAM-CAP-5, start over).

EMPTIED = (
    "scored_match_games",
    "scored_board_results",
    "scored_team_matches",
    "scored_standings",
    "scored_rounds",
    "scored_placings",
    "rating_estimates",
    "rating_estimate_tracks",
    "rating_estimate_cursor",
)


@pytest.fixture(scope="module")
def scored_night(ingested: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the demo's folder, its database of the night after round 3 scored and audited as the
    nightly flow does)."""
    cfg, inputs = copy(ingested, tmp_path_factory.mktemp("incremental") / "night3")
    nightly(cfg, inputs)
    return ingested[0], cfg.paths.database


def nightly(cfg: Config, inputs: context.Inputs) -> tuple[score.ScoreReport, audit.AuditReport]:
    """The score and audit stages as flows/nightly.py runs them: the audits that read no scores beside."""
    with gateway.held(cfg.paths.database), audit.beside_score(cfg, inputs, NIGHT_3) as early:
        scored = score.score_stage(cfg, inputs, NIGHT_3, seeds=early.seeds)
        return scored, audit.audit_stage(cfg, inputs, NIGHT_3, early)


def full(cfg: Config, inputs: context.Inputs, folder: Path) -> tuple[Config, audit.AuditReport]:
    """The same database with every scored table and RD estimate emptied, scored and audited whole."""
    folder.mkdir()
    db = Path(shutil.copy(cfg.paths.database, folder / "t.duckdb"))
    con = duckdb.connect(str(db))
    for table in EMPTIED:
        con.execute(f"DELETE FROM {table}")
    con.close()
    whole = dataclasses.replace(cfg, paths=dataclasses.replace(cfg.paths, database=db, exports=folder / "exports"))
    report = score.score_stage(whole, inputs, NIGHT_3)
    assert report.rescored_rounds == len({(p.stage, p.round) for p in inputs.pairings})  # every round
    return whole, audit.audit_stage(whole, inputs, NIGHT_3)


def assert_as_full(cfg: Config, inputs: context.Inputs, report: audit.AuditReport, folder: Path) -> None:
    whole, expected = full(cfg, inputs, folder)
    assert report.findings == expected.findings and report.findings
    assert report.estimates == expected.estimates > 0
    assert report.csv_path is not None and expected.csv_path is not None
    assert report.csv_path.read_bytes() == expected.csv_path.read_bytes()
    assert checksums(cfg.paths.database) == checksums(whole.paths.database)


def counted_game(db: Path, rnd: int) -> dict[str, object]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.sql(
            "SELECT m.game_id, m.player_a, m.player_b, g.* EXCLUDE (game_id) FROM scored_match_games m "
            "JOIN lichess_games g USING (game_id) WHERE m.stage = 'swiss' AND m.round = ? AND m.counted AND g.rated "
            "ORDER BY m.board DESC, m.game_id LIMIT 1",
            params=[rnd],
        )
        return dict(zip(rows.columns, rows.fetchall()[0], strict=True))
    finally:
        con.close()


@pytest.mark.scenario  # the suite keeps the ruling and the late game below
def test_a_night_with_nothing_new_rescores_nothing_and_equals_a_full_evaluation(
    scored_night: tuple[Path, Path], tmp_path: Path
) -> None:
    demo, db = scored_night
    cfg = config(demo, Path(shutil.copy(db, tmp_path / "t.duckdb")))
    inputs = context.read_inputs(cfg)
    scored, report = nightly(cfg, inputs)
    assert scored.rescored_rounds == 0
    assert_as_full(cfg, inputs, report, tmp_path / "full")


def test_a_ruling_on_an_old_round_rescores_and_equals_a_full_evaluation(
    scored_night: tuple[Path, Path], tmp_path: Path
) -> None:
    """TEAM-SCORE-1: a TD excludes a counted round-2 game the night after round 3."""
    demo, db = scored_night
    gid = counted_game(db, 2)["game_id"]
    overrides = tmp_path / "overrides.csv"
    text = (demo / "overrides.csv").read_text(encoding="utf-8")
    overrides.write_text(text + f"swiss,2,,exclude_game,{gid},played before the pairing was agreed\n", encoding="utf-8")
    cfg = config(demo, Path(shutil.copy(db, tmp_path / "t.duckdb")))
    cfg = dataclasses.replace(cfg, paths=dataclasses.replace(cfg.paths, overrides=overrides))
    inputs = context.read_inputs(cfg)
    scored, report = nightly(cfg, inputs)
    # every TD ruling is in every round's fingerprint (pipeline/stages/rescore.py): all rounds again
    assert scored.rescored_rounds == len({(p.stage, p.round) for p in inputs.pairings})
    con = duckdb.connect(str(cfg.paths.database), read_only=True)
    (reason,) = con.sql("SELECT reason FROM scored_match_games WHERE game_id = ?", params=[gid]).fetchall()[0]
    con.close()
    assert reason == "excluded_by_td"
    assert_as_full(cfg, inputs, report, tmp_path / "full")


def test_a_late_game_of_an_old_round_rescores_it_and_equals_a_full_evaluation(
    scored_night: tuple[Path, Path], tmp_path: Path
) -> None:
    """A rated game between a round-1 board's players, a minute after a counted one, stored after
    round 1 was scored: round 1 is linked again (TEAM-SCORE-3) and the RD estimates start over
    (TEAM-CAP-5: the game sorts before their cursor)."""
    demo, db = scored_night
    cfg = config(demo, Path(shutil.copy(db, tmp_path / "t.duckdb")))
    game = counted_game(cfg.paths.database, 1)
    late = {k: v for k, v in game.items() if k not in ("player_a", "player_b")}
    late["game_id"] = "late0001"
    for column in ("created_at", "last_move_at"):
        late[column] = late[column] + dt.timedelta(minutes=1)
    con = gateway.connect(cfg.paths.database)
    try:
        with gateway.transaction(con):
            gateway.insert(con, "lichess_games", [late])
    finally:
        con.close()
    inputs = context.read_inputs(cfg)
    scored, report = nightly(cfg, inputs)
    assert scored.rescored_rounds == 1  # round 1 alone
    con = duckdb.connect(str(cfg.paths.database), read_only=True)
    linked = con.sql("SELECT round FROM scored_match_games WHERE game_id = 'late0001'").fetchall()
    estimated = con.sql("SELECT count(*) FROM rating_estimates WHERE game_id = 'late0001'").fetchall()[0][0]
    con.close()
    assert linked == [(1,)]
    assert estimated >= 1  # a last-board game: its players' RDs are estimated (TEAM-CAP-5)
    assert_as_full(cfg, inputs, report, tmp_path / "full")
