"""The knockout drawn as a bracket, and each knockout match's role and label."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from pipeline.domain import bracket
from pipeline.model import Stage
from pipeline.report.site.pages import Pages

ROLE_LABELS = {  # a knockout match's role (bracket.knockout_roles) as the bracket page labels it
    "final": "Final",
    "bronze match": "Third place",
    "final or bronze match": "Final or third place",  # the semifinals are not decided yet
}
ROLE_ORDER = {"final": 0, "bronze match": 1}  # within a round: the final first, then the third-place match
NUMBERED_ROLES = ("semifinal", "quarterfinal")


def is_extra(box: dict[str, Any]) -> bool:
    """A knockout match drawn below the tree: the third-place match, a replay of a tie (ACWC-F-1)."""
    return box["role"] == "bronze match" or box["label"].endswith("(replay)")


def bracket_columns(columns: list[dict[str, Any]]) -> None:
    """Order each column's tree matches by the next column's (from the last column back): the
    match team a of the next match came from, then team b's, then any other; and mark where the
    columns join as a tree (``pairs``: this column's matches two by two, the pair ``2j, 2j+1``
    feeding the next column's match ``j``), where the page draws the connecting lines."""
    for c in range(len(columns) - 2, -1, -1):
        here, after = columns[c]["tree"], columns[c + 1]["tree"]
        if not after:
            continue
        ordered: list[dict[str, Any]] = []
        for nxt in after:
            for team in (nxt["team_a_id"], nxt["team_b_id"]):
                feeder = next((m for m in here if m not in ordered and team in (m["team_a_id"], m["team_b_id"])), None)
                if feeder is not None:
                    ordered.append(feeder)
        columns[c]["tree"] = ordered + [m for m in here if m not in ordered]
    for c, column in enumerate(columns):
        tree = column["tree"]
        after = columns[c + 1]["tree"] if c + 1 < len(columns) else []
        joined = bool(after) and len(tree) == 2 * len(after)
        joined = joined and all(
            {nxt["team_a_id"], nxt["team_b_id"]}
            <= {
                tree[2 * j]["team_a_id"],
                tree[2 * j]["team_b_id"],
                tree[2 * j + 1]["team_a_id"],
                tree[2 * j + 1]["team_b_id"],
            }
            for j, nxt in enumerate(after)
        )
        column["pairs"] = [tree[i : i + 2] for i in range(0, len(tree), 2)] if joined else None
        column["fed"] = c > 0 and columns[c - 1].get("pairs") is not None


def bracket_page(pages: Pages) -> None:
    """The knockout drawn as a bracket: every round of the knockout stages a column (stages in
    the config's order), every match a box with its label (the role the placings give it:
    "Final", "Third place", "Semifinal 1", ...), the two sides with their scores, and how a
    level match was decided. Each column's matches are ordered by the match their winners meet
    in next (:func:`bracket_columns`), so a match sits between the two that feed it; the
    third-place match and replays are drawn below the tree, in their round's column."""
    knockouts = [s for s in pages.config.stages if s.kind == "knockout"]
    labels = match_labels(pages, knockouts)
    columns = []
    for stage in knockouts:
        for rnd in pages.stage_rounds[stage.name]:
            ms = [m for m in pages.snap.matches if m["stage"] == stage.name and m["round"] == rnd]
            ms.sort(key=lambda m: ROLE_ORDER.get(labels[stage.name, rnd, m["team_a_id"]][0], len(ROLE_ORDER)))
            boxes = [
                {
                    **m,
                    "label": labels[stage.name, rnd, m["team_a_id"]][1],
                    "role": labels[stage.name, rnd, m["team_a_id"]][0],
                    "a": pages.entrant(m["team_a_id"]),
                    "b": pages.entrant(m["team_b_id"]),
                    "is_pending": m["outcome"] in (None, "pending"),
                    "href": pages.match_href(stage.name, rnd, m["team_a_id"]),
                }
                for m in ms
            ]
            columns.append(
                {
                    "stage": stage.name,
                    "round": rnd,
                    "heading": f"{stage.name}, round {rnd}",
                    "href": pages.round_href(stage.name, rnd),
                    "tree": [b for b in boxes if not is_extra(b)],
                    "extra": [b for b in boxes if is_extra(b)],
                }
            )
    bracket_columns(columns)
    placings = [{**p, "link": pages.entrant(p["entrant_id"])} for p in pages.snap.placings]
    if columns or placings:
        pages.render(
            "bracket.html",
            "bracket.html",
            title="Bracket and placings",
            columns=columns,
            placings=placings,
            has_extra=any(c["extra"] for c in columns),
        )


def match_labels(pages: Pages, knockouts: Sequence[Stage]) -> dict[tuple[str, int, str], tuple[str, str]]:
    """(stage, round, team a id) → (role, label) of each knockout match: the role as the placings
    read the bracket (bracket.knockout_roles: the final and the third-place match told apart by
    the semifinals), numbered where a round has several ("Semifinal 1", "Semifinal 2" in the
    order shown); a replay of a tie (ACWC-F-1) says so."""
    matches = [m for m in pages.snap.matches if m["stage"] in {s.name for s in knockouts}]
    roles = bracket.knockout_roles(
        [
            bracket.StageResult(
                s.name,
                s.kind,
                matches=tuple(
                    bracket.Match(
                        s.name,
                        m["round"],
                        m["team_a_id"],
                        m["team_b_id"],
                        m["a_points"] or 0.0,
                        m["b_points"] or 0.0,
                        m["winner_id"],
                    )
                    for m in matches
                    if m["stage"] == s.name
                ),
            )
            for s in knockouts
        ]
    )
    labels: dict[tuple[str, int, str], tuple[str, str]] = {}
    met: set[tuple[str, frozenset[str]]] = set()
    for stage in knockouts:
        for rnd in pages.stage_rounds[stage.name]:
            ms = [m for m in matches if m["stage"] == stage.name and m["round"] == rnd]
            role_of = {m["team_a_id"]: roles.get((stage.name, rnd, m["team_a_id"]), "") for m in ms}
            count = {r: list(role_of.values()).count(r) for r in role_of.values()}
            seen: dict[str, int] = defaultdict(int)
            for m in sorted(ms, key=lambda m: ROLE_ORDER.get(role_of[m["team_a_id"]], len(ROLE_ORDER))):
                role = role_of[m["team_a_id"]]
                label = ROLE_LABELS.get(role, role.capitalize()) or f"Round {rnd}"
                seen[role] += 1
                if count[role] > 1 and role in NUMBERED_ROLES:
                    label += f" {seen[role]}"
                elif count[role] > 1 and role.startswith("round of"):
                    label += f", match {seen[role]}"
                pair = (stage.name, frozenset((m["team_a_id"], m["team_b_id"])))
                if pair in met:
                    label += " (replay)"
                labels[stage.name, rnd, m["team_a_id"]] = (role, label)
            met |= {(stage.name, frozenset((m["team_a_id"], m["team_b_id"]))) for m in ms}
    return labels
