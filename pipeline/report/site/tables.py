"""The standings pages (each table with how its tiebreaks arise) and the Swiss crosstable."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pipeline.domain import standings, tiebreak
from pipeline.model import Bye, Stage
from pipeline.report.site.links import slug
from pipeline.report.site.pages import Pages
from pipeline.report.site.words import KIND_WORDS, TIEBREAK_NAMES, match_result, num

TIEBREAK_COLUMNS = {  # a stage's tiebreak -> the standings view's column (None: no column of its own)
    "points_difference": "points_difference",
    "points_scored": "points_scored",
    "median_buchholz": "median_buchholz",
    "cumulative": "cumulative",
    "seed": "seed_rating",
    "kashdan": "kashdan",
    "mutual_match": None,
    "mutual_game": None,
    "td_order": None,
}
HEADINGS = {
    "matches_played": "Played",
    "match_points": "Match points",
    "points_scored": "Points scored",
    "points_conceded": "Points conceded",
    "points_difference": "Points difference",
    "median_buchholz": "Median-Buchholz",
    "cumulative": "Cumulative",
    "seed_rating": "Seed rating",
    "kashdan": "Kashdan",
    "byes": "Byes",
}
POLICY_WORDS = {
    "plain": "plain (an unplayed round adds nothing)",
    "fide-2024": "fide-2024 (an unplayed round counts as a game against a dummy opponent with the entrant's own score)",
    "fide-2026": "fide-2026 (an unplayed round counts as a game against a dummy opponent with the entrant's own "
    "score, at most a draw a round)",
}
CROSSTABLE_MARKS = {"pending": "…", "unplayed": "–", "draw": "=", "won": "+", "lost": "−"}


def standings_pages(pages: Pages) -> None:
    """Each standings page of a table stage (after every round), per pool, with the tiebreaks explained."""
    by_key: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for r in pages.snap.standings:
        by_key[r["stage"], r["after_round"]].append(r)
    byes = [Bye(b["stage"], b["round"], b["entrant_id"], b["kind"], 0) for b in pages.snap.byes]
    for stage in pages.config.stages:
        if stage.kind == "knockout":
            continue  # a knockout's order is the bracket (placings), not a table
        rounds = pages.standing_rounds[stage.name]
        columns = standings_columns(pages, stage, any(b.stage == stage.name for b in byes))
        for rnd in rounds:
            table = by_key[stage.name, rnd]
            pools: dict[int | None, list[dict[str, Any]]] = defaultdict(list)
            for r in table:
                pools[r["pool"]].append(r)
            groups = []
            for pool, entries in sorted(pools.items(), key=lambda p: (p[0] is not None, p[0] or 0)):
                explained = tiebreak_explanations(pages, stage, rnd, entries, byes)
                groups.append(
                    {
                        "pool": pool,
                        "rows": [
                            {
                                **r,
                                "link": pages.entrant(r["entrant_id"]),
                                "anchor": f"x-{slug(r['entrant_id'])}",
                                "cells": [(c, r[c]) for c, _ in columns],
                            }
                            for r in entries
                        ],
                        "explained": explained,
                    }
                )
            pages.render(
                pages.standings_href(stage.name, rnd),
                "standings.html",
                title=f"Standings: {stage.name}, after round {rnd}",
                stage=stage,
                after_round=rnd,
                round_links=pages.pager(pages.standings_href, stage.name, rounds, rnd),
                columns=columns,
                groups=groups,
                order=", ".join(TIEBREAK_NAMES.get(t, t) for t in stage.tiebreaks),
                policy=POLICY_WORDS.get(stage.buchholz_policy, stage.buchholz_policy),
                primary="match points" if stage.primary == "match_points" else "game points",
            )


def standings_columns(pages: Pages, stage: Stage, has_byes: bool) -> list[tuple[str, str]]:
    """(column, heading) of a stage's standings table: the counts, then its tiebreaks' columns."""
    cols = ["matches_played", "match_points", "points_scored", "points_conceded"]
    for t in stage.tiebreaks:
        c = TIEBREAK_COLUMNS.get(t)
        if c is not None and c not in cols:
            cols.append(c)
    if has_byes:
        cols.append("byes")
    heads = dict(HEADINGS)
    if stage.primary == "game_points":
        heads["points_scored"] = "Points"
    return [(c, heads[c]) for c in cols]


def tiebreak_explanations(
    pages: Pages, stage: Stage, rnd: int, entries: list[dict[str, Any]], byes: list[Bye]
) -> list[dict[str, Any]]:
    """Per entrant, how its tiebreak numbers arise, from the same table the standings ranked
    with (pipeline.domain.standings.buchholz_table, tiebreak.explain_buchholz)."""
    entrants = tuple(r["entrant_id"] for r in entries)
    matches = pages.snap.team_matches[stage.name]
    table = standings.buchholz_table(
        stage, entrants, matches, rnd, tuple(byes), pages.config.boards if pages.team_event else 1
    )
    draw = standings.drawn_round(stage)
    out = []
    for r in entries:
        e = r["entrant_id"]
        parts = tiebreak.explain_buchholz(e, table, stage.buchholz_policy, draw, cut_low=1, cut_high=1)
        by_round = {c.entry.round: c for c in parts}
        lines = []
        for entry in table[e]:
            c = by_round.get(entry.round)
            lines.append(
                {
                    "round": entry.round,
                    "opponent": pages.entrant(entry.opponent),
                    "what": "match" if entry.opponent is not None else KIND_WORDS.get(entry.kind, entry.kind),
                    "own": entry.score,
                    "value": None if c is None else c.value,
                    "cut": None if c is None else c.cut,
                }
            )
        counted = [c.value for c in parts if c.cut is None]
        running = total = 0.0
        cumulative = []
        per_round = {x.round: x.score for x in table[e]}
        for k in range(1, rnd + 1):
            running += per_round.get(k, 0.0)
            total += running
            cumulative.append(running)
        out.append(
            {
                "entrant": r["entrant"],
                "anchor": f"x-{slug(e)}",
                "row": r,
                "lines": lines,
                "counted": counted,
                "median_buchholz": sum(counted),
                "cumulative": cumulative,
                "cumulative_total": total,
            }
        )
    return out


def crosstable(pages: Pages) -> None:
    """The crosstable of every Swiss stage: each entrant's result against each opponent, by round."""
    tables = []
    for stage in (s for s in pages.config.stages if s.kind == "swiss" and pages.stage_rounds[s.name]):
        rounds = pages.stage_rounds[stage.name]
        last = pages.standing_rounds[stage.name][-1] if pages.standing_rounds[stage.name] else None
        order = [r for r in pages.snap.standings if r["stage"] == stage.name and r["after_round"] == last]
        number = {r["entrant_id"]: i for i, r in enumerate(order, 1)}
        cells: dict[tuple[str, int], dict[str, Any]] = {}
        for m in (m for m in pages.snap.matches if m["stage"] == stage.name):
            for me, opp, mine, theirs in (
                (m["team_a_id"], m["team_b_id"], m["a_points"], m["b_points"]),
                (m["team_b_id"], m["team_a_id"], m["b_points"], m["a_points"]),
            ):
                outcome = m["outcome"]
                result = CROSSTABLE_MARKS[match_result(m, me)]
                cells[me, m["round"]] = {
                    "opponent": number.get(opp, "?"),
                    "opponent_name": pages.entrant_names.get(opp, opp),
                    "result": result,
                    "score": None if outcome in (None, "pending") else f"{num(mine)}–{num(theirs)}",
                    "href": pages.match_href(stage.name, m["round"], m["team_a_id"]),
                }
        for b in (b for b in pages.snap.byes if b["stage"] == stage.name):
            cells[b["entrant_id"], b["round"]] = {"bye": b["kind"]}
        tables.append(
            {
                "stage": stage,
                "rounds": rounds,
                "rows": [
                    {
                        "number": number[r["entrant_id"]],
                        "rank": r["rank"],
                        "link": pages.entrant(r["entrant_id"]),
                        "primary": r["match_points"] if stage.primary == "match_points" else r["points_scored"],
                        "cells": [cells.get((r["entrant_id"], k)) for k in rounds],
                    }
                    for r in order
                ],
            }
        )
    if tables:
        pages.render("crosstable.html", "crosstable.html", title="Crosstable", tables=tables)
