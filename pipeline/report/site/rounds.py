"""The round and match pages, and each game's table row."""

from __future__ import annotations

from collections import defaultdict
from typing import Any
from urllib.parse import quote

from markupsafe import Markup, escape

from pipeline.model import Stage
from pipeline.report.site.pages import Pages
from pipeline.report.site.words import num, utc


def round_pages(pages: Pages) -> None:
    """Each round's page (its matches and byes) and each match's page (boards by part, games)."""
    boards: dict[tuple[str, int, str], list[dict[str, Any]]] = defaultdict(list)
    for b in pages.snap.boards:
        boards[b["stage"], b["round"], b["team_a_id"]].append(b)
    games: dict[tuple[str, int, str], list[dict[str, Any]]] = defaultdict(list)
    for g in pages.snap.games:
        games[g["stage"], g["round"], g["entrant_a_id"]].append(g)
    for stage in pages.config.stages:
        part_names = [str(p.time_control) for p in stage.parts]
        rounds = pages.stage_rounds[stage.name]
        for rnd in rounds:
            matches = []
            for m in (m for m in pages.snap.matches if m["stage"] == stage.name and m["round"] == rnd):
                key = (stage.name, rnd, m["team_a_id"])
                match = match_context(pages, stage, m, part_names, boards[key])
                matches.append(match)
                pages.render(
                    match["href"],
                    "match.html",
                    title=f"{m['team_a']} v {m['team_b']}: {stage.name}, round {rnd}",
                    stage=stage,
                    round=rnd,
                    match=match,
                    round_href=pages.round_href(stage.name, rnd),
                    games=len(games[key]),
                    rows=Markup("".join(g["match_row"] for g in games[key])),
                )
            round_byes = [
                {**b, "link": pages.entrant(b["entrant_id"])}
                for b in pages.snap.byes
                if b["stage"] == stage.name and b["round"] == rnd
            ]
            pages.render(
                pages.round_href(stage.name, rnd),
                "round.html",
                title=f"{stage.name}: round {rnd}",
                stage=stage,
                round=rnd,
                round_links=pages.pager(pages.round_href, stage.name, rounds, rnd),
                matches=matches,
                byes=round_byes,
                part_names=part_names,
            )


def match_context(
    pages: Pages, stage: Stage, m: dict[str, Any], part_names: list[str], boards: list[dict[str, Any]]
) -> dict[str, Any]:
    """A match as its round and match pages show it: both sides, status, each board by part."""
    by_board: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
    for b in boards:
        by_board[b["board"]][b["part"]] = b
    rows = []
    for board in sorted(by_board):
        parts = by_board[board]
        total = parts.get("total") or next(iter(parts.values()))
        rows.append(
            {
                "board": board,
                "a": pages.player(total["player_a_id"], total["player_a"]),
                "b": pages.player(total["player_b_id"], total["player_b"]),
                "parts": [parts.get(p) for p in part_names],
                "total": parts.get("total"),
                "override": total["override"],
                "is_unplayed": total["is_unplayed"],
            }
        )
    outcome = m["outcome"]
    status = {
        None: "pending",
        "pending": "pending",
        "unplayed": "unplayed: waits for a TD ruling",
        "draw": "drawn",
    }.get(outcome, "decided")
    return {
        **m,
        "a": pages.entrant(m["team_a_id"]),
        "b": pages.entrant(m["team_b_id"]),
        "winner_link": pages.entrant(m["winner_id"]) if m["winner_id"] else None,
        "status": status,
        "is_pending": outcome in (None, "pending"),
        "href": pages.match_href(stage.name, m["round"], m["team_a_id"]),
        "boards": rows,
    }


def game_rows(pages: Pages) -> None:
    """Each game's table row, rendered once (a match page and its two players' pages show it;
    all three are one folder deep), every value escaped with markupsafe.escape as the templates
    escape it. Plain string formatting, since rendering 25,000 games through Jinja or
    Markup.format costs most of a build."""
    deciders = {m["decided_by_game_id"] for m in pages.snap.matches if m["decided_by_game_id"]}
    links: dict[str, str] = {}

    def player_link(uid: str | None, name: str | None) -> str:
        if uid is None:
            return ""
        if uid not in links:
            p = pages.player(uid, name)
            assert p is not None
            links[uid] = f'<a href="../{escape(p["href"])}">{escape(p["name"])}</a>'
        return links[uid]

    for g in pages.snap.games:
        a = player_link(g["player_a_id"], g["player_a"])
        b = player_link(g["player_b_id"], g["player_b"])
        gid = escape(g["game_id"])
        link = f'<th scope="row"><a href="https://lichess.org/{escape(quote(g["game_id"], safe=""))}">{gid}</a></th>'
        played = utc(g["created_at"])
        result = f"{num(g['a_points'])}–{num(g['b_points'])}" if g["a_points"] is not None else ""
        counted = "yes" if g["counted"] else f"no: {escape(g['reason'])}"
        flagged = f" (verification: {escape(g['verdict'])})" if g["verdict"] in ("mismatch", "unreadable") else ""
        tc = escape(g["time_control"] or "")
        decider = ' class="decider"' if g["game_id"] in deciders else ""
        g["match_row"] = Markup(
            f'<tr{decider}>{link}<td class="n">{g["board"]}</td><td>{played}</td><td>{a}</td><td>{b}</td>'
            f'<td>{tc}</td><td>{escape(g["part"] or "—")}</td><td class="n">{result}</td><td>{counted}{flagged}</td></tr>\n'
        )
        g["player_row"] = Markup(
            f'<tr>{link}<td>{escape(g["stage"])}</td><td class="n">{g["round"]}</td><td>{played}</td>'
            f'<td>{a} v {b}</td><td>{tc}</td><td class="n">{result}</td><td>{counted}</td></tr>\n'
        )
