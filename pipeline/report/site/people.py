"""The entrants page, each team's page and each player's page."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import Any

from markupsafe import Markup

from pipeline.report.site import svg
from pipeline.report.site.pages import Pages
from pipeline.report.site.words import match_result, num


def people(pages: Pages) -> None:
    """The entrants page, each team's page (a team event) and each player's page."""
    parts_of = {s.name: [str(p.time_control) for p in s.parts] for s in pages.config.stages}
    results = board_results(pages, parts_of)
    stage_parts = [{"stage": s.name, "parts": parts_of[s.name]} for s in pages.config.stages]
    entrant_pages(pages, results, stage_parts)
    player_pages(pages, results, stage_parts)


def board_results(pages: Pages, parts_of: dict[str, list[str]]) -> dict[str, list[dict[str, Any]]]:
    """User id -> the player's board results, each with the points of every part of its stage."""
    results: dict[str, list[dict[str, Any]]] = defaultdict(list)
    per_match: dict[tuple[str, int, str, int], dict[str, dict[str, Any]]] = defaultdict(dict)
    for b in pages.snap.boards:
        per_match[b["stage"], b["round"], b["team_a_id"], b["board"]][b["part"]] = b
    for (stage, rnd, team_a_id, board), parts in sorted(per_match.items()):
        total = parts.get("total") or next(iter(parts.values()))
        for me, opp, opp_name, side in (
            (total["player_a_id"], total["player_b_id"], total["player_b"], "a"),
            (total["player_b_id"], total["player_a_id"], total["player_a"], "b"),
        ):
            if me is None:
                continue
            mine, theirs = ("a_points", "b_points") if side == "a" else ("b_points", "a_points")
            results[me].append(
                {
                    "stage": stage,
                    "round": rnd,
                    "board": board,
                    "opponent": pages.player(opp, opp_name),
                    "parts": [
                        None if parts.get(p) is None else (parts[p][mine], parts[p][theirs]) for p in parts_of[stage]
                    ],
                    "total": None if parts.get("total") is None else (total[mine], total[theirs]),
                    "override": total["override"],
                    "href": pages.match_href(stage, rnd, team_a_id),
                }
            )
    return results


def entrant_pages(pages: Pages, results: dict[str, list[dict[str, Any]]], stage_parts: list[dict[str, Any]]) -> None:
    """The entrants page (every entrant with its roster) and, in a team event, each team's page."""
    members: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for m in pages.snap.members:
        members[m["entrant_id"]].append(m)
    entrants = []
    for e in sorted(members, key=lambda e: (str(pages.entrant_names.get(e) or e).lower(), e)):
        roster = [{**m, "link": pages.player(m["user_id"], m["username"])} for m in members[e]]
        entrants.append({"link": pages.entrant(e), "roster": roster})
        if pages.team_event:
            pages.render(
                pages.entrant_href(e),
                "team.html",
                title=pages.entrant_names.get(e, e),
                roster=roster,
                stage_parts=stage_parts,
                results={m["user_id"]: by_stage(results[m["user_id"]]) for m in members[e]},
                matches=entrant_matches(pages, e),
                calendar=pages.calendar_href(e),
            )
    pages.render("entrants.html", "entrants.html", title="Teams" if pages.team_event else "Players", entrants=entrants)


def everyone(pages: Pages) -> dict[str, dict[str, Any]]:
    """User id -> member row of every player: the registered ones, and those who played without a
    registration row (a TD's replacement)."""
    out = {m["user_id"]: m for m in pages.snap.members}
    for b in pages.snap.boards:
        for uid, name, entrant in (
            (b["player_a_id"], b["player_a"], b["team_a_id"]),
            (b["player_b_id"], b["player_b"], b["team_b_id"]),
        ):
            if uid is not None and uid not in out:
                out[uid] = {
                    "user_id": uid,
                    "username": name,
                    "entrant_id": entrant,
                    "entrant": pages.entrant_names.get(entrant, entrant),
                    "board": None,
                    "title": None,
                    "antichess_rating": None,
                    "antichess_rd": None,
                    "is_provisional": None,
                    "is_captain": False,
                    "seed_rating": None,
                }
    return out


def player_pages(pages: Pages, results: dict[str, list[dict[str, Any]]], stage_parts: list[dict[str, Any]]) -> None:
    """Each player's page: board, title and rating, the rating chart (the cap drawn for a
    last-board player), board results, every game, and their matches in an individual event."""
    games: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for g in pages.snap.games:
        for me in (g["player_a_id"], g["player_b_id"]):
            games[me].append(g)
    ratings: dict[str, list[tuple[dt.date, float]]] = defaultdict(list)
    for p in pages.snap.rating_points:
        ratings[p["user_id"]].append((p["day"], float(p["rating"])))
    caps = {p["user_id"]: p for p in pages.snap.last_board}
    players = everyone(pages)
    for uid in sorted(players):
        m = players[uid]
        cap = caps.get(uid)
        chart = svg.rating_chart(
            f"Antichess rating of {m['username']}", ratings[uid], None if cap is None else float(cap["cap"])
        )
        pages.render(
            pages.player_href(uid),
            "player.html",
            title=m["username"],
            member=m,
            team=pages.entrant(m["entrant_id"]) if pages.team_event else None,
            cap=cap,
            chart=chart,
            stage_parts=stage_parts,
            results=by_stage(results[uid]),
            games=len(games[uid]),
            rows=Markup("".join(g["player_row"] for g in games[uid])),
            matches=[] if pages.team_event else entrant_matches(pages, uid),
            calendar=pages.calendar_href(m["entrant_id"] if m["entrant_id"] is not None else uid),
        )


def by_stage(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Board result rows by stage."""
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        out[r["stage"]].append(r)
    return out


def entrant_matches(pages: Pages, entrant_id: str) -> list[dict[str, Any]]:
    """The matches of an entrant, each from its side: opponent, score, result, link."""
    out = []
    for m in pages.snap.matches:
        if entrant_id not in (m["team_a_id"], m["team_b_id"]):
            continue
        a_side = m["team_a_id"] == entrant_id
        opp = m["team_b_id"] if a_side else m["team_a_id"]
        mine, theirs = (m["a_points"], m["b_points"]) if a_side else (m["b_points"], m["a_points"])
        outcome = m["outcome"]
        result = match_result(m, entrant_id)
        out.append(
            {
                "stage": m["stage"],
                "round": m["round"],
                "opponent": pages.entrant(opp),
                "score": None if outcome in (None, "pending") else f"{num(mine)}–{num(theirs)}",
                "result": result,
                "href": pages.match_href(m["stage"], m["round"], m["team_a_id"]),
            }
        )
    return out
