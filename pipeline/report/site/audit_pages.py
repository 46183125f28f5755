"""The audits section and the TDs' attention page."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pipeline.report.site import svg
from pipeline.report.site.links import slug
from pipeline.report.site.pages import Pages


def audits(pages: Pages, public: bool) -> dict[str, bytes]:
    """The audits section's files (audits/index.html when public; index.html of the private folder)."""
    assert pages.snap.findings is not None
    points: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for p in pages.snap.cap_points:
        points[p["user_id"]].append(p)
    charts = [
        {**p, "anchor": f"cap-{slug(p['user_id'])}", "chart": svg.cap_chart(p, points.get(p["user_id"], []))}
        for p in pages.snap.last_board
    ]
    charted = {c["username"]: c["anchor"] for c in charts}
    findings = [
        {**f, "chart": charted.get(f["subject"]) if f["rule_id"].startswith("TEAM-CAP") else None}
        for f in pages.snap.findings
    ]
    counts = {s: sum(f["severity"] == s for f in findings) for s in ("error", "warning", "info")}
    html = pages.env.get_template("audits.html").render(
        root="../" if public else "",
        tournament=pages.config.name,
        nav=pages.nav() if public else [],
        entrant_label="Team" if pages.team_event else "Player",
        title="Audits",
        public=public,
        findings=findings,
        counts=counts,
        charts=charts,
        last_run=pages.snap.last_run,
        attention_link="attention.html" if not public and pages.snap.attention is not None else None,
    )
    return {"audits/index.html" if public else "index.html": html.encode("utf-8")}


def attention_page(pages: Pages, index: bool) -> dict[str, bytes]:
    """The private folder's attention.html (what needs the TDs, from the snapshot's attention
    view), also its index.html when `index` (the audits are public: nothing else is private)."""
    from pipeline.report.attention_text import HEADINGS

    items = pages.snap.attention or []
    groups: dict[str, list[dict[str, Any]]] = {}
    for i in items:
        groups.setdefault(i["kind"], []).append({**i, "lines": i["action"].split("\n")})
    html = (
        pages.env.get_template("attention.html")
        .render(
            root="",
            tournament=pages.config.name,
            nav=[],
            title="What needs you",
            groups=[(HEADINGS.get(k, k), k, g) for k, g in groups.items()],
            count=len(items),
            new=sum(i["status"] == "new" for i in items),
            last_run=pages.snap.last_run,
            audits_link=None if index else "index.html",
        )
        .encode("utf-8")
    )
    return {"attention.html": html, **({"index.html": html} if index else {})}
