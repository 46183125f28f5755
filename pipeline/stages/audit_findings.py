"""Reading the audits' findings from the store: which audit files apply to each kind of event
(:data:`AUDITS_OF_KIND`), the views several of them read (:data:`SHARED_VIEWS`), and
:func:`read_findings`, which evaluates them into :class:`~pipeline.domain.findings.Finding` values
in the CLI's order. The audit stage evaluates them; the export stage reads them when no audit was
run just before it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb

from pipeline.domain.findings import Finding, finding_order
from pipeline.store import gateway, sql_files, view_graph

AUDITS_OF_KIND = {"team": "team_", "individual": "acwc_"}
"""The audit files that apply to each kind of event, by name prefix: the others' findings are
empty there by their own WHERE clause (audit_params.tournament_kind), so they are not evaluated
(tests/stages/test_audits_demo.py checks both)."""


SHARED_VIEWS = (
    "players",
    "audited_players",
    "post_game_ratings",
    "rating_events",
    "last_board_players",
    "elig_game_counts",
)
"""The views several audits read (the heaviest: every rated game's two sides and the rating events
built on them), computed once per audit run instead of once per audit that reads them: about a
third of the audits' time at 64 teams (docs/benchmarks.md)."""


def read_findings(
    con: duckdb.DuckDBPyConnection,
    kind: str | None = None,
    which: Callable[[Path], bool] | None = None,
    shadow: bool = True,
) -> list[Finding]:
    """Every finding (audit_findings), in the CLI's order (:func:`finding_order`); with `kind`, only
    the audits of that kind of event are evaluated, and with `which` too, only the audit files it
    accepts. The SHARED_VIEWS they read are computed once for them (the same rows), unless `shadow`
    is False: the caller has (``gateway.shadowed``)."""
    if kind is None:
        rows = gateway.query(con, "queries/audit_findings_ordered")
    else:
        own = [
            f
            for f in sql_files.audit_files()
            if f.stem.startswith(AUDITS_OF_KIND[kind]) and (which is None or which(f))
        ]
        read = frozenset().union(*(view_graph.views_read(sql_files.audit_sql(f)) for f in own))
        rows = gateway.findings_of(con, own, [v for v in SHARED_VIEWS if v in read] if shadow else ())
    return sorted((Finding(**r) for r in rows.iter_rows(named=True)), key=finding_order)
