"""The views of sql/views are created in an order derived from what each one reads (DuckDB's
parser names the relations of its SELECT), not by retrying until none fails: each view comes after
the views it reads, and a view reading a relation that does not exist, or views reading each other
in a cycle, stop the migration with one message naming them."""

from __future__ import annotations

import re

import duckdb
import pytest

from pipeline.store import sql_files, view_graph


@pytest.fixture(scope="module")
def read() -> dict[str, frozenset[str]]:
    con = duckdb.connect()
    try:
        return view_graph.reads(con)
    finally:
        con.close()


def test_each_view_is_created_after_the_views_it_reads(read: dict[str, frozenset[str]]) -> None:
    order = view_graph.creation_order(read, sql_files.WRITABLE)
    assert sorted(order) == sorted(p.stem for p in sql_files.view_files())
    for name in order:
        assert {v for v in read[name] if v in read} <= set(order[: order.index(name)]), name


def test_the_parser_names_what_a_view_reads_and_not_its_own_ctes(read: dict[str, frozenset[str]]) -> None:
    assert read["rating_events"] == {"post_game_ratings", "lichess_rating_points"}
    assert read["attention"] == {"pipeline_runs", "attention_items"}  # not its CTE `latest`
    assert read["cap_ratings"] >= {"last_board_players", "rating_events"}


def test_a_cycle_fails_with_one_message_naming_it() -> None:
    planted = {"a": frozenset({"b", "t"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset({"t"})}
    with pytest.raises(
        RuntimeError,
        match=r"^sql/views: (a -> b -> c -> a|b -> c -> a -> b|c -> a -> b -> c|a -> c -> b -> a|c -> b -> a -> c|b -> a -> c -> b) read each other in a cycle: none of them can be created$",
    ):
        view_graph.creation_order(planted, frozenset({"t"}))


def test_a_missing_relation_fails_with_one_message_naming_it() -> None:
    planted = {"a": frozenset({"t", "gone", "b"}), "b": frozenset({"t"})}
    message = "sql/views/a.sql reads gone: neither a table nor a view of sql/views"
    with pytest.raises(RuntimeError, match=f"^{re.escape(message)}$"):
        view_graph.creation_order(planted, frozenset({"t"}))
    assert view_graph.creation_order({"b": frozenset({"t"}), "a": frozenset({"b"})}, frozenset({"t"})) == ["b", "a"]
