"""The published snapshot's rows the pages show, read once (:func:`read_snapshot`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.domain import scoring
from pipeline.model import Config
from pipeline.store import gateway


@dataclass
class Snapshot:
    """Everything the pages show, read once from the published snapshot."""

    last_run: dict[str, Any] | None
    standings: list[dict[str, Any]]
    matches: list[dict[str, Any]]
    boards: list[dict[str, Any]]
    games: list[dict[str, Any]]
    members: list[dict[str, Any]]
    rating_points: list[dict[str, Any]]
    last_board: list[dict[str, Any]]
    cap_points: list[dict[str, Any]]
    rulings: list[dict[str, Any]]
    byes: list[dict[str, Any]]
    placings: list[dict[str, Any]]
    team_matches: dict[str, list[scoring.TeamMatch]]
    findings: list[dict[str, Any]] | None  # None: no audit has run, or not read yet (read_findings=False)
    audited: bool = False  # an audit has run: the snapshot has findings (perhaps none)
    attention: list[dict[str, Any]] | None = None  # the newest attention list; None: the snapshot has none


def read_snapshot(
    config: Config, con: Any, findings: Sequence[dict[str, Any]] | None = None, read_findings: bool = True
) -> Snapshot:
    """The snapshot's rows; `findings`: the audit findings of the run that wrote it, when the caller
    has them (the nightly's audit stage), so that the audits are not evaluated a second time;
    `read_findings` False leaves them unread (None) for the caller to read (:func:`build_site`
    reads them on a second cursor while the pages render)."""

    def rows(name: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        return gateway.query(con, name, params or []).to_dicts()

    audited = bool(gateway.query(con, "queries/audit_has_run").item())
    last = rows("queries/run_last_ok")
    return Snapshot(
        last_run=last[0] if last else None,
        standings=rows("queries/site_standings"),
        matches=rows("queries/site_matches"),
        boards=rows("queries/site_board_results"),
        games=rows("queries/site_match_games"),
        members=rows("queries/site_members"),
        rating_points=rows("queries/site_rating_points"),
        last_board=rows("queries/cap_chart_players") if audited else [],
        cap_points=rows("queries/cap_chart_points") if audited else [],
        rulings=rows("queries/site_rulings"),
        byes=rows("queries/site_byes"),
        placings=rows("queries/site_placings"),
        team_matches={
            s.name: [scoring.TeamMatch(**r) for r in rows("queries/team_matches_for_standings", [s.name])]
            for s in config.stages
        },
        findings=(
            list(findings)
            if findings is not None
            else rows("queries/audit_findings_ordered")
            if read_findings
            else None
        )
        if audited
        else None,
        audited=audited,
        attention=rows("queries/site_attention")
        if _has_view(con, "attention") and rows("queries/attention_list_runs")
        else None,  # no nightly run has computed a list yet
    )


def _has_view(con: Any, name: str) -> bool:
    return name in set(gateway.query(con, "queries/user_views")["view_name"])
