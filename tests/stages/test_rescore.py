"""Incremental nights (pipeline/stages/rescore.py rescore_plan): a night links and scores again only the
rounds whose inputs changed, and its scored tables are exactly those of a from-scratch run on
the same stored data (reruns are idempotent). The cases: a new round's games arrive, a TD
ruling is added and withdrawn (TEAM-DQ-1 / TEAM-SCORE-1 rulings), a stored game's result changes,
a round window closes with a match unfinished (TEAM-FMT-3: the score then stands as played,
TEAM-SCORE-3), rounds disappear from pairings.csv, and the scoring version is bumped."""

from __future__ import annotations

import dataclasses
import datetime as dt
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from kits.skeleton_kit import AFTER_ROUND_2, copy_skeleton
from pipeline.domain import scoring
from pipeline.inputs.config import load_config
from pipeline.model import Config
from pipeline.sim.season import TEAM_START
from pipeline.stages import context, score
from pipeline.stages.ingest import ingest_stage, lichess_base_url

SCORED = ("scored_match_games", "scored_board_results", "scored_team_matches", "scored_standings")


def night(rnd: int) -> dt.datetime:
    """03:00 UTC on the Tuesday after swiss round `rnd` (TEAM-FMT-3 windows run Tuesday to Monday)."""
    return TEAM_START + dt.timedelta(days=7 * rnd, hours=3)


@pytest.fixture(scope="module")
def demo(small_demo_source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the small demo (seed 11, 12 teams; conftest builds it once per run)."""
    return shutil.copytree(small_demo_source, tmp_path_factory.mktemp("rescore") / "demo")


@pytest.fixture(scope="module")
def scored_at(demo: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[int, Path], score.ScoreReport]:
    """`scored_at(rnd, db)` writes to `db` the database of one night after swiss round `rnd`:
    ingested and scored once on an empty database (built once per module and night, then copied,
    since ingesting and verifying the small demo costs about 8 s). Returns that first score's
    report."""
    built: dict[int, tuple[Path, score.ScoreReport]] = {}
    folder = tmp_path_factory.mktemp("nights")

    def write(rnd: int, db: Path) -> score.ScoreReport:
        if rnd not in built:
            cfg = config(demo, folder / f"night-{rnd}.duckdb")
            ingest(cfg, night(rnd))
            built[rnd] = cfg.paths.database, score.score_stage(cfg, context.read_inputs(cfg), night(rnd))
        source, report = built[rnd]
        shutil.copy(source, db)
        return report

    return write


def config(demo: Path, db: Path, **paths: Path) -> Config:
    cfg = load_config(demo / "tournament.toml")
    return dataclasses.replace(cfg, paths=dataclasses.replace(cfg.paths, database=db, **paths))


def ingest(cfg: Config, now: dt.datetime) -> None:
    with lichess_base_url(cfg, now=now) as base_url:
        ingest_stage(cfg, context.read_inputs(cfg), base_url, now)


def tables(db: Path) -> dict[str, list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {t: sorted(con.sql(f"SELECT * FROM {t}").fetchall(), key=repr) for t in SCORED}
    finally:
        con.close()


def from_scratch(cfg: Config, now: dt.datetime, tmp: Path) -> dict[str, list[tuple]]:
    """The same stored games and verdicts, every scored table emptied, scored once."""
    db = tmp / f"scratch-{now:%m%d%H%M}.duckdb"
    shutil.copy(cfg.paths.database, db)
    con = duckdb.connect(str(db))
    for t in (*SCORED, "scored_rounds"):
        con.execute(f"DELETE FROM {t}")
    con.close()
    scratch = dataclasses.replace(cfg, paths=dataclasses.replace(cfg.paths, database=db))
    report = score.score_stage(scratch, context.read_inputs(scratch), now)
    assert report.verified == 0  # verdicts are kept by game id: nothing to verify again
    return tables(db)


def rounds_paired(cfg: Config) -> int:
    return len({(p.stage, p.round) for p in context.read_inputs(cfg).pairings})


def test_a_new_round_rescores_only_the_rounds_it_touches(demo: Path, scored_at: Any, tmp_path: Path) -> None:
    """After round 3's night, round 4 and 5 arrive: the next night rescores those (and rounds
    whose margin reaches their games), not rounds 1-3, and equals a from-scratch run."""
    cfg = config(demo, tmp_path / "inc.duckdb")
    first = scored_at(3, cfg.paths.database)
    assert first.rescored_rounds == rounds_paired(cfg)  # nothing stored: every round is scored
    again = score.score_stage(cfg, context.read_inputs(cfg), night(3))
    assert again.rescored_rounds == 0 and again.verified == 0
    ingest(cfg, night(5))
    report = score.score_stage(cfg, context.read_inputs(cfg), night(5))
    assert 2 <= report.rescored_rounds < rounds_paired(cfg)
    con = duckdb.connect(str(cfg.paths.database), read_only=True)
    r4 = con.sql(
        "SELECT count(*) FROM scored_match_games WHERE stage = 'swiss' AND round IN (4, 5) AND counted"
    ).fetchall()[0]
    con.close()
    assert r4 is not None and r4[0] > 0
    assert tables(cfg.paths.database) == from_scratch(cfg, night(5), tmp_path)


@pytest.mark.scenario  # the suite keeps a ruling on an old round (tests/stages/test_beside_score.py)
def test_a_ruling_added_then_withdrawn_rescores_and_matches_scratch(demo: Path, scored_at: Any, tmp_path: Path) -> None:
    """An exclude_game ruling on a counted round-2 game (TEAM-SCORE-1: it stops counting), then the
    ruling removed again: each night equals a from-scratch run with the same files."""
    cfg = config(demo, tmp_path / "inc.duckdb")
    scored_at(4, cfg.paths.database)
    con = duckdb.connect(str(cfg.paths.database), read_only=True)
    (gid,) = con.sql(
        "SELECT game_id FROM scored_match_games WHERE stage = 'swiss' AND round = 2 AND counted "
        "ORDER BY game_id LIMIT 1"
    ).fetchall()[0]  # type: ignore[misc]
    con.close()
    overrides = tmp_path / "overrides.csv"
    text = (demo / "overrides.csv").read_text(encoding="utf-8")
    overrides.write_text(text + f"swiss,2,,exclude_game,{gid},played before the pairing was agreed\n", encoding="utf-8")
    ruled = config(demo, cfg.paths.database, overrides=overrides)
    score.score_stage(ruled, context.read_inputs(ruled), night(4))
    after = tables(cfg.paths.database)
    assert [r for r in after["scored_match_games"] if r[7] == gid][0][13] == "excluded_by_td"
    assert after == from_scratch(ruled, night(4), tmp_path)
    score.score_stage(cfg, context.read_inputs(cfg), night(4))  # the ruling withdrawn
    assert tables(cfg.paths.database) == from_scratch(cfg, night(4), tmp_path)


def test_a_changed_game_rescores_its_round(demo: Path, scored_at: Any, tmp_path: Path) -> None:
    """A stored game's result changes (a re-fetch): its round is scored again and equals scratch."""
    cfg = config(demo, tmp_path / "inc.duckdb")
    scored_at(3, cfg.paths.database)
    con = duckdb.connect(str(cfg.paths.database))
    (gid,) = con.sql(
        "SELECT game_id FROM scored_match_games WHERE stage = 'swiss' AND round = 1 AND counted "
        "AND a_points <> b_points ORDER BY game_id LIMIT 1"
    ).fetchall()[0]  # type: ignore[misc]
    con.execute("UPDATE lichess_games SET winner = NULL WHERE game_id = ?", [gid])
    con.close()
    report = score.score_stage(cfg, context.read_inputs(cfg), night(3))
    assert report.rescored_rounds == 1
    assert tables(cfg.paths.database) == from_scratch(cfg, night(3), tmp_path)


@pytest.mark.scenario  # the suite keeps a new round rescoring only what it touches, and a late game (test_beside_score.py)
def test_a_window_closing_without_new_games_rescores(demo: Path, scored_at: Any, tmp_path: Path) -> None:
    """Mid-round 4 some matches are pending; once the window has closed the scores stand as played
    (TEAM-FMT-3, TEAM-SCORE-3) although no game arrived, except where a board has no game at all:
    that match stays pending until the window's margin has passed too, and is unplayed after it
    (TEAM-SCORE-4: a 0-0 draw only by a TD ruling). Each of the two moments rescores the round
    and equals scratch. "Mid-round" is read from the data: a minute after the last round-4 match began."""
    probe = config(demo, tmp_path / "probe.duckdb")
    scored_at(4, probe.paths.database)
    con = duckdb.connect(str(probe.paths.database), read_only=True)
    [(last_start,)] = con.sql(
        "SELECT max(first) FROM (SELECT min(created_at) AS first FROM scored_match_games "
        "WHERE stage = 'swiss' AND round = 4 AND counted GROUP BY entrant_a)"
    ).fetchall()
    con.close()
    cfg = config(demo, tmp_path / "inc.duckdb")
    mid = last_start + dt.timedelta(minutes=1)  # that match under way
    ingest(cfg, mid)
    score.score_stage(cfg, context.read_inputs(cfg), mid)
    con = duckdb.connect(str(cfg.paths.database), read_only=True)
    pending = con.sql(
        "SELECT count(*) FROM scored_team_matches WHERE stage = 'swiss' AND round = 4 AND outcome = 'pending'"
    ).fetchall()[0]
    con.close()
    assert pending is not None and pending[0] > 0
    report = score.score_stage(cfg, context.read_inputs(cfg), night(4))
    assert report.rescored_rounds >= 1
    assert tables(cfg.paths.database) == from_scratch(cfg, night(4), tmp_path)
    margin_passed = night(4) + dt.timedelta(days=cfg.stage("swiss").window_margin_days)
    report = score.score_stage(cfg, context.read_inputs(cfg), margin_passed)
    assert report.rescored_rounds >= 1
    after = tables(cfg.paths.database)
    assert not [m for m in after["scored_team_matches"] if m[1] == 4 and m[0] == "swiss" and m[11] == "pending"]
    assert after == from_scratch(cfg, margin_passed, tmp_path)


@pytest.mark.scenario  # a rare edit; the suite keeps a new round and a closing window
def test_rounds_dropped_from_the_pairings_leave_no_rows(demo: Path, tmp_path: Path) -> None:
    """The TD withdraws swiss rounds 6-7 from pairings.csv: their rows go, as in a from-scratch run."""
    cfg = config(demo, tmp_path / "inc.duckdb")
    ingest(cfg, night(7))
    score.score_stage(cfg, context.read_inputs(cfg), night(7))
    pairings = tmp_path / "pairings.csv"
    lines = (demo / "pairings.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    pairings.write_text(
        "".join(line for line in lines if not line.startswith(("swiss,6,", "swiss,7,"))), encoding="utf-8"
    )
    overrides = tmp_path / "overrides.csv"  # the rulings of rounds 6-7 go with them
    rulings = (demo / "overrides.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    overrides.write_text(
        "".join(line for line in rulings if not line.startswith(("swiss,6,", "swiss,7,"))), encoding="utf-8"
    )
    fewer = config(demo, cfg.paths.database, pairings=pairings, overrides=overrides)
    score.score_stage(fewer, context.read_inputs(fewer), night(7))
    after = tables(cfg.paths.database)
    assert {r[1] for r in after["scored_team_matches"] if r[0] == "swiss"} == {1, 2, 3, 4, 5}
    assert after == from_scratch(fewer, night(7), tmp_path)


def test_a_bumped_scoring_version_rescores_every_round_and_an_unchanged_one_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pipeline/domain/scoring.py SCORING_VERSION is in every round's fingerprint: the skeleton's
    two swiss rounds are scored on the first night, none again on a night with the same version,
    both again once it is bumped (the rows an older version wrote are not kept), then none."""
    cfg = load_config(copy_skeleton(tmp_path) / "tournament.toml")
    inputs = context.read_inputs(cfg)
    with lichess_base_url(cfg) as base_url:
        ingest_stage(cfg, inputs, base_url, AFTER_ROUND_2)
    first = score.score_stage(cfg, inputs, AFTER_ROUND_2)
    assert (first.rescored_rounds, first.first_scored_rounds) == (2, 2)
    assert score.score_stage(cfg, inputs, AFTER_ROUND_2).rescored_rounds == 0
    monkeypatch.setattr(scoring, "SCORING_VERSION", scoring.SCORING_VERSION + 1)
    bumped = score.score_stage(cfg, inputs, AFTER_ROUND_2)
    assert (bumped.rescored_rounds, bumped.first_scored_rounds) == (2, 0)
    assert score.score_stage(cfg, inputs, AFTER_ROUND_2).rescored_rounds == 0
