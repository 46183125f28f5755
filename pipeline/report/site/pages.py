"""The renderer of one snapshot's pages (:class:`Pages`): the Jinja2 environment, the links, the
navigation, and the round windows several page families read."""

from __future__ import annotations

import datetime as dt
from typing import Any

import jinja2

from pipeline.model import Config
from pipeline.report.site.links import Links
from pipeline.report.site.reading import Snapshot
from pipeline.report.site.words import num, utc


def environment() -> jinja2.Environment:
    """The Jinja2 environment of the templates: autoescaping HTML, undefined names an error, the ``num`` and ``utc`` filters."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("pipeline.report.site", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["num"] = num
    env.filters["utc"] = utc
    return env


class Pages(Links):
    """The pages of one snapshot being rendered: the config, the snapshot, the names and rounds
    every page family reads, and the files written so far (relative path -> bytes). The page
    families (front, tables, rounds, knockout, people, calendars, audit_pages) render into it."""

    def __init__(self, config: Config, snap: Snapshot) -> None:
        entrant_names: dict[str, str] = {}
        for m in snap.members:
            entrant_names.setdefault(m["entrant_id"], m["entrant"])
        for r in snap.standings:
            entrant_names.setdefault(r["entrant_id"], r["entrant"])
        for m in snap.matches:
            entrant_names.setdefault(m["team_a_id"], m["team_a"])
            entrant_names.setdefault(m["team_b_id"], m["team_b"])
        super().__init__(config.kind == "team", entrant_names, {m["user_id"]: m["username"] for m in snap.members})
        self.config = config
        self.snap = snap
        self.env = environment()
        self.files: dict[str, bytes] = {}
        self.stage_rounds: dict[str, list[int]] = {
            s.name: sorted({m["round"] for m in snap.matches if m["stage"] == s.name} | self._bye_rounds(s.name))
            for s in config.stages
        }
        self.standing_rounds: dict[str, list[int]] = {
            s.name: sorted({r["after_round"] for r in snap.standings if r["stage"] == s.name}) for s in config.stages
        }

    def _bye_rounds(self, stage: str) -> set[int]:
        return {b["round"] for b in self.snap.byes if b["stage"] == stage}

    def render(self, path: str, template: str, **context: Any) -> None:
        """Render `template` into the page `path` (relative to the site's root), with what every page shows."""
        depth = path.count("/")
        html = self.env.get_template(template).render(
            root="../" * depth,
            tournament=self.config.name,
            nav=self.nav(),
            entrant_label="Team" if self.team_event else "Player",
            last_run=self.snap.last_run,
            **context,
        )
        self.files[path] = html.encode("utf-8")

    def nav(self) -> list[dict[str, str]]:
        """The navigation every public page shows: only the pages this snapshot has."""
        out = [{"label": "Home", "href": "index.html"}]
        for s in self.config.stages:
            if self.standing_rounds[s.name] and s.kind != "knockout":
                last = self.standing_rounds[s.name][-1]
                label = "Candidates pools" if s.kind == "round_robin" else f"Standings: {s.name}"
                out.append({"label": label, "href": self.standings_href(s.name, last)})
        if any(s.kind == "swiss" and self.stage_rounds[s.name] for s in self.config.stages):
            out.append({"label": "Crosstable", "href": "crosstable.html"})
        if any(s.kind == "knockout" for s in self.config.stages) or self.snap.placings:
            out.append({"label": "Bracket", "href": "bracket.html"})
        out.append({"label": "Teams" if self.team_event else "Players", "href": "entrants.html"})
        out.append({"label": "Rulings", "href": "rulings.html"})
        out.append({"label": "Downloads", "href": "downloads.html"})
        if self.snap.audited and self.config.site.audits == "public":
            out.append({"label": "Audits", "href": "audits/index.html"})
        return out

    def as_of(self) -> dt.datetime | None:
        """The snapshot's time (its last successful run's `as of`): what "time left" counts from,
        so that the same snapshot gives the same pages whatever the clock says."""
        return None if self.snap.last_run is None else self.snap.last_run["as_of"]

    def round_windows(self) -> dict[tuple[str, int], tuple[dt.datetime, dt.datetime]]:
        """(stage, round) -> its window: the earliest start and the latest end of its pairings'
        windows (pairings.csv may give a match a window of its own)."""
        out: dict[tuple[str, int], tuple[dt.datetime, dt.datetime]] = {}
        for m in self.snap.matches:
            if m["window_start"] is None or m["window_end"] is None:
                continue
            key = (m["stage"], m["round"])
            start, end = out.get(key, (m["window_start"], m["window_end"]))
            out[key] = (min(start, m["window_start"]), max(end, m["window_end"]))
        return out
