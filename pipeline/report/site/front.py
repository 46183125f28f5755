"""The front page (the current round, the top of the standings), the rulings and the downloads."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pipeline.report.site import knockout
from pipeline.report.site.links import CALENDAR
from pipeline.report.site.pages import Pages
from pipeline.report.site.words import TIEBREAK_NAMES, match_state, num, window_words

TOP_ROWS = 5  # the front page's top of the standings (per pool): the full table is one click away
STATE_WORDS = {  # a match's state on the front page
    "decided": "decided",
    "in_progress": "in progress",
    "not_started": "not started",
    "ruling": "awaiting a ruling",
}


def home(pages: Pages, downloads: list[str]) -> None:
    """The front page: the stages, the current round's matches, the top of the standings, the downloads."""
    stages = []
    for s in pages.config.stages:
        rounds = pages.stage_rounds[s.name]
        stages.append(
            {
                "name": s.name,
                "kind": s.kind.replace("_", " "),
                "rounds": s.rounds,
                "tiebreaks": ("" if s.kind == "knockout" else ", ".join(TIEBREAK_NAMES.get(t, t) for t in s.tiebreaks)),
                "policy": s.buchholz_policy,
                "round_links": [{"label": str(r), "href": pages.round_href(s.name, r)} for r in rounds],
                "standings": (
                    pages.standings_href(s.name, pages.standing_rounds[s.name][-1])
                    if pages.standing_rounds[s.name] and s.kind != "knockout"
                    else None
                ),
            }
        )
    pages.render(
        "index.html",
        "index.html",
        title=pages.config.name,
        kind=pages.config.kind,
        stages=stages,
        downloads=downloads,
        current=current_round(pages),
        top=top_standings(pages),
        calendar_href=CALENDAR,
    )


def current_round(pages: Pages) -> dict[str, Any] | None:
    """The front page's round: the latest round (stages in the config's order) whose window is
    open at the snapshot's time, else the last round paired; each match with its state and
    the time left in its window."""
    order = {s.name: i for i, s in enumerate(pages.config.stages)}
    paired = sorted({(m["stage"], m["round"]) for m in pages.snap.matches}, key=lambda k: (order[k[0]], k[1]))
    if not paired:
        return None
    as_of = pages.as_of()
    windows = pages.round_windows()
    open_now = [k for k in paired if as_of is not None and k in windows and windows[k][0] <= as_of < windows[k][1]]
    stage_name, rnd = (open_now or paired)[-1]
    stage = pages.config.stage(stage_name)
    knockouts = [s for s in pages.config.stages if s.kind == "knockout"]  # the roles read every knockout stage
    labels = knockout.match_labels(pages, knockouts) if stage.kind == "knockout" else {}
    matches = []
    for m in (m for m in pages.snap.matches if m["stage"] == stage_name and m["round"] == rnd):
        state = match_state(m)
        played, due = m["games_played"] or 0, m["games_due"]
        matches.append(
            {
                "label": labels.get((stage_name, rnd, m["team_a_id"]), ("", ""))[1],
                "a": pages.entrant(m["team_a_id"]),
                "b": pages.entrant(m["team_b_id"]),
                "winner_id": m["winner_id"],
                "team_a_id": m["team_a_id"],
                "team_b_id": m["team_b_id"],
                "state": state,
                "state_words": STATE_WORDS[state],
                "score": None if state == "not_started" else f"{num(m['a_points'])}–{num(m['b_points'])}",
                "games": "" if due is None else f"{played} of {due}",
                "window": window_words(m["window_start"], m["window_end"], as_of),
                "href": pages.match_href(stage_name, rnd, m["team_a_id"]),
            }
        )
    counts = {s: sum(m["state"] == s for m in matches) for s in STATE_WORDS}
    return {
        "stage": stage_name,
        "round": rnd,
        "href": pages.round_href(stage_name, rnd),
        "is_open": bool(open_now),
        "window": windows.get((stage_name, rnd)),
        "matches": matches,
        "counts": [(STATE_WORDS[s], n) for s, n in counts.items() if n],
    }


def top_standings(pages: Pages) -> dict[str, Any] | None:
    """The top of the latest standings of the current round's stage, else of the last stage
    (in the config's order) that has a table: TOP_ROWS rows (per pool), with the full table's link."""
    current = current_round(pages)
    tables = [s for s in pages.config.stages if s.kind != "knockout" and pages.standing_rounds[s.name]]
    if not tables:
        return None
    stage = next((s for s in tables if current is not None and s.name == current["stage"]), tables[-1])
    after = pages.standing_rounds[stage.name][-1]
    rows = [
        {**r, "link": pages.entrant(r["entrant_id"])}
        for r in pages.snap.standings
        if r["stage"] == stage.name and r["after_round"] == after and r["rank"] <= TOP_ROWS
    ]
    pools: dict[int | None, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        pools[r["pool"]].append(r)
    return {
        "stage": stage.name,
        "after_round": after,
        "href": pages.standings_href(stage.name, after),
        "primary": "Match points" if stage.primary == "match_points" else "Points",
        "primary_column": "match_points" if stage.primary == "match_points" else "points_scored",
        "groups": [
            {"pool": pool, "rows": entries}
            for pool, entries in sorted(pools.items(), key=lambda p: (p[0] is not None, p[0] or 0))
        ],
    }


def rulings(pages: Pages) -> None:
    """The TD rulings page."""
    pages.render("rulings.html", "rulings.html", title="TD rulings", rulings=pages.snap.rulings)


def downloads(pages: Pages, names: list[str], audits_csv: str | None) -> None:
    """The downloads page: the public exports (render_site copies them into ``downloads/``), and the audits' CSV when public."""
    pages.render("downloads.html", "downloads.html", title="Downloads", names=names, audits_csv=audits_csv)
