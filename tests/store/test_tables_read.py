"""view_graph.tables_read / views_read: the stored tables and views a query may read, found in its
text and the view files it names. The audits that read no table the score stage decides run beside
it (pipeline/stages/audit.py beside_score), so the list must never miss a table a query reads:
checked against the tables DuckDB's own plan scans, for every view and every audit file. The plans
are DuckDB's before optimisation, which keep every scan the query asks for (the optimiser drops
scans of tables it knows to be empty, as the schema's are here)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from pipeline.resources import SQL_DIR
from pipeline.store import gateway, sql_files, view_graph

QUERIES = sorted((SQL_DIR / "views").glob("*.sql")) + sql_files.audit_files()


def scanned(con: duckdb.DuckDBPyConnection, text: str) -> frozenset[str]:
    """The base tables DuckDB's physical plan for `text` scans (views expanded by DuckDB)."""
    (_, plan), *_ = con.execute(f"EXPLAIN (FORMAT json) {text}").fetchall()
    out: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, list):
            for child in node:
                walk(child)
        elif isinstance(node, dict):
            extra = node.get("extra_info")
            if isinstance(extra, dict) and "Table" in extra:
                out.add(str(extra["Table"]).rsplit(".", 1)[-1])
            walk(node.get("children", []))

    walk(json.loads(plan))
    return frozenset(out)


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    con = gateway.connect(tmp_path_factory.mktemp("tables") / "t.duckdb")
    con.execute("PRAGMA disable_optimizer")
    return con


def select_of(path: Path) -> str:
    """The SELECT a view file defines, or an audit file's SELECT."""
    text = sql_files.audit_sql(path)
    if path.parent.name == "views":
        return f"SELECT * FROM {path.stem}"
    return text


@pytest.mark.parametrize("path", QUERIES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_table_the_plan_scans_is_listed(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    plan = scanned(con, select_of(path))
    assert plan, f"{path.name}: the plan scans no table (the test would check nothing)"
    assert plan <= view_graph.tables_read(text), (
        f"{path.name}: not listed: {sorted(plan - view_graph.tables_read(text))}"
    )


def test_a_table_read_only_through_views_is_listed() -> None:
    # rating_events reads lichess_games only through post_game_ratings
    assert "lichess_games" not in sql_files.audit_sql(SQL_DIR / "views" / "rating_events.sql")
    assert {"lichess_games", "lichess_rating_points"} <= view_graph.tables_read("SELECT * FROM rating_events")
    assert {"rating_events", "post_game_ratings"} <= view_graph.views_read("SELECT * FROM rating_events")
    assert view_graph.tables_read("SELECT 1 AS lichess_game, 2 AS td_members_x") == frozenset()  # whole words only


def test_the_score_dependent_audits_are_those_whose_plans_read_scores(con: duckdb.DuckDBPyConnection) -> None:
    """audit.reads_scores agrees with the plans: an audit whose plan scans a table the score stage
    decides is one; the others (the plans read no score) are run beside the score stage."""
    from pipeline.stages import audit, score

    by_plan = {p.stem for p in sql_files.audit_files() if scanned(con, sql_files.audit_sql(p)) & score.RESULTS}
    by_text = {p.stem for p in sql_files.audit_files() if audit.reads_scores(p)}
    assert by_plan, "no audit reads the score stage's results: the split would check nothing"
    assert by_plan == by_text
    assert len(by_text) < len(sql_files.audit_files()) / 2  # most audits run beside the score stage
