"""The contract views of ``sql/views/`` as a graph, read from their files: the relations each one
reads (named by DuckDB's own parser), the order they are created in (each after the views it
reads), the key of each view's grain (its header's ``-- key:`` line), and the stored tables and
views any query may read.
"""

from __future__ import annotations

import graphlib
import json
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import duckdb

from pipeline.store.sql_files import WRITABLE, view_files

_CREATE = re.compile(r"^CREATE\s+OR\s+REPLACE\s+VIEW\s+(\w+)\s+AS\s", re.I | re.M)
_KEY = re.compile(r"^--\s*key:\s*(.*)$", re.M)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@cache
def view_texts() -> dict[str, str]:
    """Each view of ``sql/views`` (the file's name) with its file's text. A file must create the
    view it is named after, and the name must be an identifier (it is spelled into DDL)."""
    out = {}
    for path in view_files():
        text = path.read_text(encoding="utf-8")
        match = _CREATE.search(text)
        if not path.stem.isidentifier() or match is None or match.group(1) != path.stem:
            raise RuntimeError(f"sql/views/{path.name}: expected one CREATE OR REPLACE VIEW {path.stem} AS ...")
        out[path.stem] = text
    return out


def _relations(node: Any) -> Iterator[tuple[str, str]]:
    """In DuckDB's parse tree of a SELECT: ("table", name) for every relation read by name and
    ("cte", name) for every common table expression it defines."""
    if isinstance(node, dict):
        if node.get("type") == "BASE_TABLE":
            yield "table", node["table_name"]
        for entry in (node.get("cte_map") or {}).get("map", []):
            yield "cte", entry["key"]
        for value in node.values():
            yield from _relations(value)
    elif isinstance(node, list):
        for value in node:
            yield from _relations(value)


def reads(con: duckdb.DuckDBPyConnection) -> dict[str, frozenset[str]]:
    """Each view with the relations (tables or views) its SELECT reads by name, less its own common
    table expressions, as DuckDB's parser (``json_serialize_sql``, on `con`) finds them."""
    out = {}
    for name, text in view_texts().items():
        select = _CREATE.split(text, maxsplit=1)[-1]  # what follows CREATE ... AS (view_texts checked it)
        tree = json.loads(con.execute("SELECT json_serialize_sql(?)", [select]).fetchall()[0][0])
        if tree.get("error"):
            raise RuntimeError(f"sql/views/{name}.sql: {tree.get('error_message')}")
        found = list(_relations(tree))
        ctes = {n for kind, n in found if kind == "cte"}
        out[name] = frozenset(n for kind, n in found if kind == "table" and n not in ctes)
    return out


def creation_order(read: dict[str, frozenset[str]], tables: frozenset[str]) -> list[str]:
    """The views of `read` (each with the relations it reads) in an order where each comes after
    the views it reads (ties in name order). A view that reads a relation that is neither one of
    `tables` nor a view, or views that read each other in a cycle, fail here with one message
    naming them: no view would bind."""
    for name in sorted(read):
        missing = sorted(read[name] - tables - read.keys())
        if missing:
            raise RuntimeError(
                f"sql/views/{name}.sql reads {', '.join(missing)}: neither a table nor a view of sql/views"
            )
    sorter = graphlib.TopologicalSorter({n: sorted(read[n] & read.keys() - {n}) for n in sorted(read)})
    try:
        return list(sorter.static_order())
    except graphlib.CycleError as e:
        cycle = e.args[1]
        raise RuntimeError(
            f"sql/views: {' -> '.join(cycle)} read each other in a cycle: none of them can be created"
        ) from e


def keys() -> dict[str, tuple[str, ...]]:
    """Each view with the key of its grain, from its header's ``-- key: a, b`` line (the columns
    that tell its rows apart, as the header's "one row per ..." states); views without one are left
    out."""
    out = {}
    for name, text in view_texts().items():
        match = _KEY.search(text)
        if match is not None:
            out[name] = tuple(c.strip() for c in match.group(1).split(",") if c.strip())
    return out


@cache
def _view_words() -> dict[str, frozenset[str]]:
    """Each view of ``sql/views`` (by name) with every word of its file."""
    return {p.stem: frozenset(_WORD.findall(p.read_text(encoding="utf-8"))) for p in view_files()}


def _named(text: str) -> frozenset[str]:
    """Every word of `text` and of the views it names, followed through the views they name."""
    views = _view_words()
    seen: set[str] = set()
    todo = set(_WORD.findall(text))
    while todo:
        word = todo.pop()
        if word not in seen:
            seen.add(word)
            todo |= views.get(word, frozenset())
    return frozenset(seen)


def tables_read(text: str) -> frozenset[str]:
    """The stored tables (:data:`~pipeline.store.sql_files.WRITABLE`) a query may read: those it
    names, directly or through the views it names (``sql/views``, followed through the views they
    name). Every word counts, a comment's too, so a table the query reads is never missed; at worst
    one is listed that it does not read (tests/store/test_tables_read.py checks this against
    DuckDB's plans)."""
    return _named(text) & WRITABLE


def views_read(text: str) -> frozenset[str]:
    """The views of ``sql/views`` a query may read, directly or through other views (as :func:`tables_read`)."""
    return _named(text) & _view_words().keys()
