"""The event's final order and the knockout roles: every stage read as the bracket reads it
(:func:`stage_results`), the rows of ``scored_placings`` (:func:`placings_rows`) and the labels the round posts
give knockout matches.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pipeline.domain import bracket
from pipeline.model import Config, Stage
from pipeline.store import gateway


def stage_results(con: Any, config: Config) -> list[bracket.StageResult]:
    """Every stage as the placings and the knockout roles read it: a swiss or round-robin stage's
    latest table and whether every round is decided; a knockout stage's matches."""
    out = []
    for stage in config.stages:
        if stage.kind == "knockout":
            ms = gateway.query(con, "queries/team_matches_of_stage", [stage.name]).to_dicts()
            out.append(
                bracket.StageResult(
                    stage.name,
                    stage.kind,
                    matches=tuple(
                        bracket.Match(
                            stage.name,
                            m["round"],
                            m["team_a"],
                            m["team_b"],
                            m["a_points"],
                            m["b_points"],
                            m["winner"],
                            _decided_by(m),
                        )
                        for m in ms
                    ),
                )
            )
            continue
        table = gateway.query(con, "queries/standings_latest", [stage.name]).to_dicts()
        out.append(
            bracket.StageResult(
                stage.name,
                stage.kind,
                complete=decided_stage_matches(con, stage) is not None,
                table=tuple(
                    bracket.TableRow(r["entrant_id"], r["rank"], r["match_points"], r["points_scored"], r["pool"])
                    for r in table
                ),
            )
        )
    return out


def knockout_labels(con: Any, config: Config, stage: Stage) -> dict[tuple[str, str], str]:
    """Each knockout match's role as its round post names it ("Final", "Bronze match",
    "Semifinal", ...), by (team_a id, team_b id): the same roles the placings read (bracket.knockout_roles)."""
    results = stage_results(con, config)
    roles = bracket.knockout_roles(results)
    return {
        (m.a, m.b): roles[stage.name, m.round, m.a].capitalize()
        for r in results
        if r.name == stage.name
        for m in r.matches
        if (stage.name, m.round, m.a) in roles
    }


def _decided_by(match: dict[str, Any]) -> str:
    """How a knockout match level on points was decided: the TD's armageddon ruling (ARM-1), the
    captains' tiebreak (TEAM-KO-1), or another ruling."""
    if match["override"] and "armageddon" in match["override"].lower():
        return "armageddon (ARM-1)"
    if (match["tiebreak"] or "").startswith("TEAM-KO-1") and match["winner"]:
        return "the captains' tiebreak (TEAM-KO-1)"
    return match["override"] or ""


def placings_rows(con: Any, config: Config) -> list[dict[str, Any]]:
    """scored_placings' rows: the event's final order from the bracket (bracket.placings), as the
    stored stages stand (inside the score stage's transaction: as it has written them)."""
    names = dict(gateway.query(con, "queries/entrant_names").iter_rows())
    return [
        {"position": i, **dataclasses.asdict(p)}
        for i, p in enumerate(bracket.placings(stage_results(con, config), names), 1)
    ]


def decided_stage_matches(con: Any, stage: Any) -> list[dict[str, Any]] | None:
    """The stage's matches once every round is paired and decided (no match pending, unplayed or
    waiting for a tiebreak), else None."""
    ms = gateway.query(con, "queries/team_matches_of_stage", [stage.name]).to_dicts()
    if {m["round"] for m in ms} != set(range(1, stage.rounds + 1)) or any(
        m["outcome"] in ("pending", "unplayed") for m in ms
    ):
        return None
    return ms
