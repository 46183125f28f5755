"""Each view's grain is unique on the demo, as dbt's `unique` tests check a model: the header of
every sql/views file states its grain ("one row per ...") and declares the columns that tell its
rows apart (``-- key: a, b``, read by ``view_graph.keys``), and no two rows share a key: in the
suite on the small demo's team event (seed 11, 12 teams) ingested, scored and audited the night
after Swiss round 3; in the scenario tier also on both published databases of the suite's demo
(team and ACWC, the `audited` fixture, rules-size)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from pipeline.inputs.config import load_config
from pipeline.sim.season import TEAM_START
from pipeline.stages import audit, context, score
from pipeline.stages.ingest import ingest_stage, lichess_base_url
from pipeline.store import sql_files, view_graph

VIEWS = [p.stem for p in sql_files.view_files()]


def duplicate_keys(con: duckdb.DuckDBPyConnection, relation: str, key: tuple[str, ...]) -> list[tuple[object, ...]]:
    """Up to five keys that more than one row of `relation` (a view's name or a parenthesised
    SELECT) holds, with their row count; NULLs count as equal, as GROUP BY groups them."""
    cols = ", ".join(key)
    return con.sql(
        f"SELECT {cols}, count(*) AS n FROM {relation} AS r GROUP BY ALL HAVING count(*) > 1 ORDER BY n DESC LIMIT 5"
    ).fetchall()


@pytest.mark.parametrize("view", VIEWS)
def test_each_view_states_its_grain_and_declares_its_key(view: str) -> None:
    text = view_graph.view_texts()[view]
    assert re.match(rf"-- {view}: one row per ", text), (
        f"sql/views/{view}.sql: the header's first line states the grain"
    )
    assert view_graph.keys().get(view), f"sql/views/{view}.sql: no `-- key: <columns>` line in its header"


@pytest.fixture(scope="module")
def small_night_3(small_demo_source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small demo's team database, ingested, scored and audited the night after Swiss round 3."""
    demo = shutil.copytree(small_demo_source, tmp_path_factory.mktemp("grain") / "demo")
    cfg = load_config(demo / "tournament.toml")
    db = demo / "grain.duckdb"
    cfg = dataclasses.replace(cfg, paths=dataclasses.replace(cfg.paths, database=db, exports=demo / "grain-exports"))
    now = TEAM_START + dt.timedelta(days=21, hours=3)
    inputs = context.read_inputs(cfg)
    with lichess_base_url(cfg, now=now) as base_url:
        ingest_stage(cfg, inputs, base_url, now)
    score.score_stage(cfg, inputs, now)
    audit.audit_stage(cfg, inputs, now)
    return db


@pytest.mark.parametrize("view", VIEWS)
def test_each_view_grain_is_unique_on_the_small_demo(view: str, small_night_3: Path) -> None:
    con = duckdb.connect(str(small_night_3), read_only=True)
    try:
        key = view_graph.keys()[view]
        assert duplicate_keys(con, view, key) == [], f"{view} has more than one row per ({', '.join(key)})"
    finally:
        con.close()


@pytest.mark.scenario
@pytest.mark.parametrize("view", VIEWS)
def test_each_view_grain_is_unique_on_the_demo(view: str, audited: dict[str, Path]) -> None:
    key = view_graph.keys()[view]
    for event, db in sorted(audited.items()):
        con = duckdb.connect(str(db), read_only=True)
        try:
            assert duplicate_keys(con, view, key) == [], f"{event}: {view} has more than one row per ({', '.join(key)})"
        finally:
            con.close()


def test_a_planted_duplicate_is_found() -> None:
    """The check finds a key two rows share, NULL keys included, and nothing in unique rows."""
    con = duckdb.connect()
    try:
        con.execute("CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a', 10), (1, 'b', 11), (2, NULL, 12)) v(k1, k2, x)")
        assert duplicate_keys(con, "t", ("k1", "k2")) == []
        con.execute("INSERT INTO t VALUES (1, 'a', 13), (2, NULL, 14)")
        assert sorted(duplicate_keys(con, "t", ("k1", "k2")), key=str) == [(1, "a", 2), (2, None, 2)]
        assert duplicate_keys(con, "(SELECT k1 FROM t)", ("k1",)) == [(1, 3), (2, 2)]
    finally:
        con.close()
