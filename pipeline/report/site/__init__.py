"""The tournament's static website, built from the published snapshot only (read-only).

:func:`build_site` reads the snapshot through the store gateway (``sql/queries/site_*.sql`` and a
few shared queries), renders the pages with Jinja2 (autoescaping on: a team named
``<script>`` is text) and writes them into ``paths.site``; the audits section goes there too
when ``[site] audits = "public"``, else into ``paths.site_private`` for the TDs only. Each folder
is built beside its final place and swapped in whole (:func:`swap_in`), so a failed build leaves
the previous site as it was.

The pages are plain HTML and one CSS file: no script, no font or resource from elsewhere, links
relative (the folder works opened from disk and on any static host), and only lichess.org game
and profile links point out. The same snapshot gives the same bytes: every list is sorted, and
the only time shown is the snapshot's own (its last successful run). What each page shows:
docs/site.md.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import shutil
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from markupsafe import Markup, escape

from pipeline.domain import bracket, scoring, standings, tiebreak
from pipeline.errors import InputError
from pipeline.model import Bye, Config, Stage
from pipeline.report.site import calendar, svg
from pipeline.store import gateway

CALENDAR = "calendar.ics"  # the event's calendar; each entrant's is calendars/<entrant>.ics
MARKER = ".antichess-td-site"  # written into every folder a build owns: only such a folder is replaced
MARKER_TEXT = "Written by `antichess-td site`: each build replaces this folder whole.\n"
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
TIEBREAK_NAMES = {
    "points_difference": "points difference",
    "points_scored": "points scored",
    "median_buchholz": "Median-Buchholz",
    "cumulative": "cumulative score",
    "seed": "seeding rating",
    "kashdan": "Kashdan",
    "mutual_match": "mutual match score",
    "mutual_game": "mutual game score",
    "td_order": "the TD's order",
}
ROLE_LABELS = {  # a knockout match's role (bracket.knockout_roles) as the bracket page labels it
    "final": "Final",
    "bronze match": "Third place",
    "final or bronze match": "Final or third place",  # the semifinals are not decided yet
}
ROLE_ORDER = {"final": 0, "bronze match": 1}  # within a round: the final first, then the third-place match
NUMBERED_ROLES = ("semifinal", "quarterfinal")
KIND_WORDS = {
    "pab": "pairing-allocated bye",
    "full_bye": "full-point bye",
    "half_bye": "requested half-point bye",
    "zero_bye": "requested zero-point bye",
    "absent": "not played (absent or unplayed)",
}
TOP_ROWS = 5  # the front page's top of the standings (per pool): the full table is one click away
STATE_WORDS = {  # a match's state on the front page
    "decided": "decided",
    "in_progress": "in progress",
    "not_started": "not started",
    "ruling": "awaiting a ruling",
}
POLICY_WORDS = {
    "plain": "plain (an unplayed round adds nothing)",
    "fide-2024": "fide-2024 (an unplayed round counts as a game against a dummy opponent with the entrant's own score)",
    "fide-2026": "fide-2026 (an unplayed round counts as a game against a dummy opponent with the entrant's own "
    "score, at most a draw a round)",
}


@dataclass(frozen=True)
class SiteReport:
    """What a build wrote: the public folder and its pages, the largest page's bytes, and where
    the audits went (``None``: no audit has run yet)."""

    site: Path
    pages: int
    files: int
    largest_page_bytes: int
    audits: Path | None


def num(v: Any) -> str:
    """A number as the pages show it: whole numbers without a decimal point, else at most two decimals."""
    if v is None:
        return ""
    f = float(v)
    if f.is_integer():
        return str(int(f))
    return f"{f:.2f}".rstrip("0").rstrip(".")


def match_result(m: dict[str, Any], entrant_id: str) -> str:
    """A match as one of its entrants had it: pending, unplayed, draw, won or lost."""
    outcome = m["outcome"]
    if outcome in (None, "pending", "unplayed", "draw"):
        return outcome or "pending"
    return "won" if outcome == ("a" if m["team_a_id"] == entrant_id else "b") else "lost"


def match_state(m: dict[str, Any]) -> str:
    """A match's state on the front page: decided (a result stands), awaiting a ruling (unplayed
    after its window, TEAM-SCORE-4), in progress (games played, no result yet) or not started."""
    outcome = m["outcome"]
    if outcome in ("a", "b", "draw"):
        return "decided"
    if outcome == "unplayed":
        return "ruling"
    return "in_progress" if (m["games_played"] or 0) > 0 else "not_started"


def match_note(m: dict[str, Any]) -> str:
    """What a calendar event adds after the pairing: the score once a result stands or games are played."""
    state = match_state(m)
    if state == "not_started":
        return ""
    score = f"{num(m['a_points'])}-{num(m['b_points'])}"
    if state == "decided":
        return f" ({score})"
    return f" ({score} so far, {m['games_played']} of {m['games_due']} games played)"


def duration_words(d: dt.timedelta) -> str:
    """A duration as the front page says it: days and hours, or hours and minutes under a day."""
    minutes = int(d.total_seconds() // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h"
    return f"{hours} h {mins} min" if hours else f"{mins} min"


def window_words(start: dt.datetime | None, end: dt.datetime | None, as_of: dt.datetime | None) -> str:
    """The time left in a window, counted from the snapshot's time `as_of` (never the clock)."""
    if start is None or end is None:
        return ""
    if as_of is None:
        return f"{utc(start)} to {utc(end)}"
    if as_of < start:
        return f"opens in {duration_words(start - as_of)} ({utc(start)})"
    if as_of < end:
        return f"{duration_words(end - as_of)} left (closes {utc(end)})"
    return f"closed {utc(end)}"


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


CROSSTABLE_MARKS = {"pending": "…", "unplayed": "–", "draw": "=", "won": "+", "lost": "−"}


def utc(t: dt.datetime | None) -> str:
    return "" if t is None else t.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def slug(name: str) -> str:
    """A file name for `name`: lower-case letters, digits and dashes; a name that needed changing
    gets a short hash of itself, so two names never share a file."""
    s = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return s if s == name else f"{s or 'x'}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def environment() -> jinja2.Environment:
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


# --------------------------------------------------------------------------- reading the snapshot


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


# --------------------------------------------------------------------------- the pages


class Site:
    """The pages of one snapshot, as (relative path, bytes)."""

    def __init__(self, config: Config, snap: Snapshot) -> None:
        self.config = config
        self.snap = snap
        self.env = environment()
        self.files: dict[str, bytes] = {}
        self.team_event = config.kind == "team"
        self.entrant_names: dict[str, str] = {}
        for m in snap.members:
            self.entrant_names.setdefault(m["entrant_id"], m["entrant"])
        for r in snap.standings:
            self.entrant_names.setdefault(r["entrant_id"], r["entrant"])
        for m in snap.matches:
            self.entrant_names.setdefault(m["team_a_id"], m["team_a"])
            self.entrant_names.setdefault(m["team_b_id"], m["team_b"])
        self.player_names = {m["user_id"]: m["username"] for m in snap.members}
        self.stage_rounds: dict[str, list[int]] = {
            s.name: sorted({m["round"] for m in snap.matches if m["stage"] == s.name} | self._bye_rounds(s.name))
            for s in config.stages
        }
        self.standing_rounds: dict[str, list[int]] = {
            s.name: sorted({r["after_round"] for r in snap.standings if r["stage"] == s.name}) for s in config.stages
        }

    def _bye_rounds(self, stage: str) -> set[int]:
        return {b["round"] for b in self.snap.byes if b["stage"] == stage}

    # links, relative to the site's root (templates prefix them with `root`)
    def entrant_href(self, entrant_id: str) -> str:
        if self.team_event:
            return f"teams/{slug(entrant_id)}.html"
        return f"players/{slug(entrant_id)}.html"

    def player_href(self, user_id: str) -> str:
        return f"players/{slug(user_id)}.html"

    def entrant(self, entrant_id: str | None) -> dict[str, str] | None:
        if entrant_id is None:
            return None
        return {"name": self.entrant_names.get(entrant_id, entrant_id), "href": self.entrant_href(entrant_id)}

    def player(self, user_id: str | None, name: str | None = None) -> dict[str, str] | None:
        if user_id is None:
            return None
        return {"name": name or self.player_names.get(user_id, user_id), "href": self.player_href(user_id)}

    def round_href(self, stage: str, rnd: int) -> str:
        return f"rounds/{slug(stage)}-{rnd}.html"

    def match_href(self, stage: str, rnd: int, team_a_id: str) -> str:
        return f"matches/{slug(stage)}-{rnd}-{slug(team_a_id)}.html"

    def standings_href(self, stage: str, rnd: int) -> str:
        return f"standings/{slug(stage)}-{rnd}.html"

    def render(self, path: str, template: str, **context: Any) -> None:
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

    # ------------------------------------------------------------------ home
    def home(self, downloads: list[str]) -> None:
        stages = []
        for s in self.config.stages:
            rounds = self.stage_rounds[s.name]
            stages.append(
                {
                    "name": s.name,
                    "kind": s.kind.replace("_", " "),
                    "rounds": s.rounds,
                    "tiebreaks": (
                        "" if s.kind == "knockout" else ", ".join(TIEBREAK_NAMES.get(t, t) for t in s.tiebreaks)
                    ),
                    "policy": s.buchholz_policy,
                    "round_links": [{"label": str(r), "href": self.round_href(s.name, r)} for r in rounds],
                    "standings": (
                        self.standings_href(s.name, self.standing_rounds[s.name][-1])
                        if self.standing_rounds[s.name] and s.kind != "knockout"
                        else None
                    ),
                }
            )
        self.render(
            "index.html",
            "index.html",
            title=self.config.name,
            kind=self.config.kind,
            stages=stages,
            downloads=downloads,
            current=self.current_round(),
            top=self.top_standings(),
            calendar_href=CALENDAR,
        )

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

    def current_round(self) -> dict[str, Any] | None:
        """The front page's round: the latest round (stages in the config's order) whose window is
        open at the snapshot's time, else the last round paired; each match with its state and
        the time left in its window."""
        order = {s.name: i for i, s in enumerate(self.config.stages)}
        paired = sorted({(m["stage"], m["round"]) for m in self.snap.matches}, key=lambda k: (order[k[0]], k[1]))
        if not paired:
            return None
        as_of = self.as_of()
        windows = self.round_windows()
        open_now = [k for k in paired if as_of is not None and k in windows and windows[k][0] <= as_of < windows[k][1]]
        stage_name, rnd = (open_now or paired)[-1]
        stage = self.config.stage(stage_name)
        knockouts = [s for s in self.config.stages if s.kind == "knockout"]  # the roles read every knockout stage
        labels = self.knockout_labels(knockouts) if stage.kind == "knockout" else {}
        matches = []
        for m in (m for m in self.snap.matches if m["stage"] == stage_name and m["round"] == rnd):
            state = match_state(m)
            played, due = m["games_played"] or 0, m["games_due"]
            matches.append(
                {
                    "label": labels.get((stage_name, rnd, m["team_a_id"]), ("", ""))[1],
                    "a": self.entrant(m["team_a_id"]),
                    "b": self.entrant(m["team_b_id"]),
                    "winner_id": m["winner_id"],
                    "team_a_id": m["team_a_id"],
                    "team_b_id": m["team_b_id"],
                    "state": state,
                    "state_words": STATE_WORDS[state],
                    "score": None if state == "not_started" else f"{num(m['a_points'])}–{num(m['b_points'])}",
                    "games": "" if due is None else f"{played} of {due}",
                    "window": window_words(m["window_start"], m["window_end"], as_of),
                    "href": self.match_href(stage_name, rnd, m["team_a_id"]),
                }
            )
        counts = {s: sum(m["state"] == s for m in matches) for s in STATE_WORDS}
        return {
            "stage": stage_name,
            "round": rnd,
            "href": self.round_href(stage_name, rnd),
            "is_open": bool(open_now),
            "window": windows.get((stage_name, rnd)),
            "matches": matches,
            "counts": [(STATE_WORDS[s], n) for s, n in counts.items() if n],
        }

    def top_standings(self) -> dict[str, Any] | None:
        """The top of the latest standings of the current round's stage, else of the last stage
        (in the config's order) that has a table: TOP_ROWS rows (per pool), with the full table's link."""
        current = self.current_round()
        tables = [s for s in self.config.stages if s.kind != "knockout" and self.standing_rounds[s.name]]
        if not tables:
            return None
        stage = next((s for s in tables if current is not None and s.name == current["stage"]), tables[-1])
        after = self.standing_rounds[stage.name][-1]
        rows = [
            {**r, "link": self.entrant(r["entrant_id"])}
            for r in self.snap.standings
            if r["stage"] == stage.name and r["after_round"] == after and r["rank"] <= TOP_ROWS
        ]
        pools: dict[int | None, list[dict[str, Any]]] = defaultdict(list)
        for r in rows:
            pools[r["pool"]].append(r)
        return {
            "stage": stage.name,
            "after_round": after,
            "href": self.standings_href(stage.name, after),
            "primary": "Match points" if stage.primary == "match_points" else "Points",
            "primary_column": "match_points" if stage.primary == "match_points" else "points_scored",
            "groups": [
                {"pool": pool, "rows": entries}
                for pool, entries in sorted(pools.items(), key=lambda p: (p[0] is not None, p[0] or 0))
            ],
        }

    # ------------------------------------------------------------------ calendars
    def calendars(self) -> None:
        """The event's calendar (every round's window, with its pairings) and one per entrant (each
        of its rounds: the window, the opponent, the boards, the result once decided); RFC 5545,
        stable UIDs, DTSTAMP the snapshot's run time (pipeline/report/site/calendar.py)."""
        last = self.snap.last_run
        dtstamp = (last["finished_at"] or last["as_of"]) if last else dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
        tid = slug(self.config.tournament_id)
        windows = self.round_windows()
        knockouts = [s for s in self.config.stages if s.kind == "knockout"]
        labels = self.knockout_labels(knockouts)
        boards: dict[tuple[str, int, str], list[str]] = defaultdict(list)
        for b in self.snap.boards:
            if b["part"] == "total" and self.team_event:
                boards[b["stage"], b["round"], b["team_a_id"]].append(
                    f"Board {b['board']}: {b['player_a'] or '?'} v {b['player_b'] or '?'}"
                )
        events: list[calendar.Event] = []
        mine: dict[str, list[calendar.Event]] = defaultdict(list)
        order = {s.name: i for i, s in enumerate(self.config.stages)}
        for stage, rnd in sorted(windows, key=lambda k: (order[k[0]], k[1])):
            start, end = windows[stage, rnd]
            ms = [m for m in self.snap.matches if m["stage"] == stage and m["round"] == rnd]
            lines = []
            for m in ms:
                label = labels.get((stage, rnd, m["team_a_id"]), ("", ""))[1]
                lines.append(f"{label + ': ' if label else ''}{m['team_a']} v {m['team_b']}{match_note(m)}")
            byes = [b for b in self.snap.byes if b["stage"] == stage and b["round"] == rnd]
            lines += [f"{self.entrant_names.get(b['entrant_id'], b['entrant_id'])}: bye" for b in byes]
            events.append(
                calendar.Event(
                    f"{tid}-{slug(stage)}-{rnd}@antichess-td",
                    start,
                    end,
                    f"{self.config.name}: {stage}, round {rnd}",
                    "\n".join(lines),
                )
            )
            for m in ms:
                label = labels.get((stage, rnd, m["team_a_id"]), ("", ""))[1]
                for me, opp in ((m["team_a_id"], m["team_b"]), (m["team_b_id"], m["team_a"])):
                    detail = boards.get((stage, rnd, m["team_a_id"]), [])
                    mine[me].append(
                        calendar.Event(
                            f"{tid}-{slug(stage)}-{rnd}-{slug(me)}@antichess-td",
                            m["window_start"] or start,
                            m["window_end"] or end,
                            f"{self.config.name}, {stage} round {rnd}: {self.entrant_names.get(me, me)} v {opp}",
                            "\n".join(
                                [
                                    f"{label + ': ' if label else ''}{m['team_a']} v {m['team_b']}{match_note(m)}",
                                    *detail,
                                ]
                            ),
                        )
                    )
            for b in byes:
                me = b["entrant_id"]
                mine[me].append(
                    calendar.Event(
                        f"{tid}-{slug(stage)}-{rnd}-{slug(me)}@antichess-td",
                        start,
                        end,
                        f"{self.config.name}, {stage} round {rnd}: {self.entrant_names.get(me, me)}: bye",
                        KIND_WORDS.get(b["kind"], b["kind"]),
                    )
                )
        self.files[CALENDAR] = calendar.calendar_bytes(
            self.config.name, f"Round windows of {self.config.name}", events, dtstamp
        )
        for e in sorted(set(self.entrant_names) | set(mine)):
            name = self.entrant_names.get(e, e)
            self.files[self.calendar_href(e)] = calendar.calendar_bytes(
                f"{name}: {self.config.name}", f"The rounds of {name} in {self.config.name}", mine.get(e, []), dtstamp
            )

    def calendar_href(self, entrant_id: str) -> str:
        return f"calendars/{slug(entrant_id)}.ics"

    # ------------------------------------------------------------------ standings
    def standings_pages(self) -> None:
        by_key: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
        for r in self.snap.standings:
            by_key[r["stage"], r["after_round"]].append(r)
        byes = [Bye(b["stage"], b["round"], b["entrant_id"], b["kind"], 0) for b in self.snap.byes]
        for stage in self.config.stages:
            if stage.kind == "knockout":
                continue  # a knockout's order is the bracket (placings), not a table
            rounds = self.standing_rounds[stage.name]
            columns = self.standings_columns(stage, any(b.stage == stage.name for b in byes))
            for rnd in rounds:
                table = by_key[stage.name, rnd]
                pools: dict[int | None, list[dict[str, Any]]] = defaultdict(list)
                for r in table:
                    pools[r["pool"]].append(r)
                groups = []
                for pool, entries in sorted(pools.items(), key=lambda p: (p[0] is not None, p[0] or 0)):
                    explained = self.explain(stage, rnd, entries, byes)
                    groups.append(
                        {
                            "pool": pool,
                            "rows": [
                                {
                                    **r,
                                    "link": self.entrant(r["entrant_id"]),
                                    "anchor": f"x-{slug(r['entrant_id'])}",
                                    "cells": [(c, r[c]) for c, _ in columns],
                                }
                                for r in entries
                            ],
                            "explained": explained,
                        }
                    )
                self.render(
                    self.standings_href(stage.name, rnd),
                    "standings.html",
                    title=f"Standings: {stage.name}, after round {rnd}",
                    stage=stage,
                    after_round=rnd,
                    round_links=[
                        {"label": str(r), "href": self.standings_href(stage.name, r), "current": r == rnd}
                        for r in rounds
                    ],
                    columns=columns,
                    groups=groups,
                    order=", ".join(TIEBREAK_NAMES.get(t, t) for t in stage.tiebreaks),
                    policy=POLICY_WORDS.get(stage.buchholz_policy, stage.buchholz_policy),
                    primary="match points" if stage.primary == "match_points" else "game points",
                )

    def standings_columns(self, stage: Stage, has_byes: bool) -> list[tuple[str, str]]:
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

    def explain(self, stage: Stage, rnd: int, entries: list[dict[str, Any]], byes: list[Bye]) -> list[dict[str, Any]]:
        """Per entrant, how its tiebreak numbers arise, from the same table the standings ranked
        with (pipeline.domain.standings.buchholz_table, tiebreak.explain_buchholz)."""
        entrants = tuple(r["entrant_id"] for r in entries)
        matches = self.snap.team_matches[stage.name]
        table = standings.buchholz_table(
            stage, entrants, matches, rnd, tuple(byes), self.config.boards if self.team_event else 1
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
                        "opponent": self.entrant(entry.opponent),
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

    # ------------------------------------------------------------------ rounds and matches
    def round_pages(self) -> None:
        boards: dict[tuple[str, int, str], list[dict[str, Any]]] = defaultdict(list)
        for b in self.snap.boards:
            boards[b["stage"], b["round"], b["team_a_id"]].append(b)
        games: dict[tuple[str, int, str], list[dict[str, Any]]] = defaultdict(list)
        for g in self.snap.games:
            games[g["stage"], g["round"], g["entrant_a_id"]].append(g)
        for stage in self.config.stages:
            part_names = [str(p.time_control) for p in stage.parts]
            rounds = self.stage_rounds[stage.name]
            for rnd in rounds:
                matches = []
                for m in (m for m in self.snap.matches if m["stage"] == stage.name and m["round"] == rnd):
                    key = (stage.name, rnd, m["team_a_id"])
                    match = self.match_context(stage, m, part_names, boards[key])
                    matches.append(match)
                    self.render(
                        match["href"],
                        "match.html",
                        title=f"{m['team_a']} v {m['team_b']}: {stage.name}, round {rnd}",
                        stage=stage,
                        round=rnd,
                        match=match,
                        round_href=self.round_href(stage.name, rnd),
                        games=len(games[key]),
                        rows=Markup("".join(g["match_row"] for g in games[key])),
                    )
                round_byes = [
                    {**b, "link": self.entrant(b["entrant_id"])}
                    for b in self.snap.byes
                    if b["stage"] == stage.name and b["round"] == rnd
                ]
                self.render(
                    self.round_href(stage.name, rnd),
                    "round.html",
                    title=f"{stage.name}: round {rnd}",
                    stage=stage,
                    round=rnd,
                    round_links=[
                        {"label": str(r), "href": self.round_href(stage.name, r), "current": r == rnd} for r in rounds
                    ],
                    matches=matches,
                    byes=round_byes,
                    part_names=part_names,
                )

    def match_context(
        self, stage: Stage, m: dict[str, Any], part_names: list[str], boards: list[dict[str, Any]]
    ) -> dict[str, Any]:
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
                    "a": self.player(total["player_a_id"], total["player_a"]),
                    "b": self.player(total["player_b_id"], total["player_b"]),
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
            "a": self.entrant(m["team_a_id"]),
            "b": self.entrant(m["team_b_id"]),
            "winner_link": self.entrant(m["winner_id"]) if m["winner_id"] else None,
            "status": status,
            "is_pending": outcome in (None, "pending"),
            "href": self.match_href(stage.name, m["round"], m["team_a_id"]),
            "boards": rows,
        }

    def game_rows(self) -> None:
        """Each game's table row, rendered once (a match page and its two players' pages show it;
        all three are one folder deep), every value escaped as the templates escape it. Plain
        string formatting: 25,000 games through Jinja or Markup.format took most of a build."""
        deciders = {m["decided_by_game_id"] for m in self.snap.matches if m["decided_by_game_id"]}
        links: dict[str, str] = {}

        def player_link(uid: str | None, name: str | None) -> str:
            if uid is None:
                return ""
            if uid not in links:
                p = self.player(uid, name)
                assert p is not None
                links[uid] = f'<a href="../{escape(p["href"])}">{escape(p["name"])}</a>'
            return links[uid]

        for g in self.snap.games:
            a = player_link(g["player_a_id"], g["player_a"])
            b = player_link(g["player_b_id"], g["player_b"])
            gid = escape(g["game_id"])
            link = (
                f'<th scope="row"><a href="https://lichess.org/{escape(quote(g["game_id"], safe=""))}">{gid}</a></th>'
            )
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

    # ------------------------------------------------------------------ crosstable and bracket
    def crosstable(self) -> None:
        tables = []
        for stage in (s for s in self.config.stages if s.kind == "swiss" and self.stage_rounds[s.name]):
            rounds = self.stage_rounds[stage.name]
            last = self.standing_rounds[stage.name][-1] if self.standing_rounds[stage.name] else None
            order = [r for r in self.snap.standings if r["stage"] == stage.name and r["after_round"] == last]
            number = {r["entrant_id"]: i for i, r in enumerate(order, 1)}
            cells: dict[tuple[str, int], dict[str, Any]] = {}
            for m in (m for m in self.snap.matches if m["stage"] == stage.name):
                for me, opp, mine, theirs in (
                    (m["team_a_id"], m["team_b_id"], m["a_points"], m["b_points"]),
                    (m["team_b_id"], m["team_a_id"], m["b_points"], m["a_points"]),
                ):
                    outcome = m["outcome"]
                    result = CROSSTABLE_MARKS[match_result(m, me)]
                    cells[me, m["round"]] = {
                        "opponent": number.get(opp, "?"),
                        "opponent_name": self.entrant_names.get(opp, opp),
                        "result": result,
                        "score": None if outcome in (None, "pending") else f"{num(mine)}–{num(theirs)}",
                        "href": self.match_href(stage.name, m["round"], m["team_a_id"]),
                    }
            for b in (b for b in self.snap.byes if b["stage"] == stage.name):
                cells[b["entrant_id"], b["round"]] = {"bye": b["kind"]}
            tables.append(
                {
                    "stage": stage,
                    "rounds": rounds,
                    "rows": [
                        {
                            "number": number[r["entrant_id"]],
                            "rank": r["rank"],
                            "link": self.entrant(r["entrant_id"]),
                            "primary": r["match_points"] if stage.primary == "match_points" else r["points_scored"],
                            "cells": [cells.get((r["entrant_id"], k)) for k in rounds],
                        }
                        for r in order
                    ],
                }
            )
        if tables:
            self.render("crosstable.html", "crosstable.html", title="Crosstable", tables=tables)

    def bracket(self) -> None:
        """The knockout drawn as a bracket: every round of the knockout stages a column (stages in
        the config's order), every match a box with its label (the role the placings give it:
        "Final", "Third place", "Semifinal 1", ...), the two sides with their scores, and how a
        level match was decided. Each column's matches are ordered by the match their winners meet
        in next (:func:`bracket_columns`), so a match sits between the two that feed it; the
        third-place match and replays are drawn below the tree, in their round's column."""
        knockouts = [s for s in self.config.stages if s.kind == "knockout"]
        labels = self.knockout_labels(knockouts)
        columns = []
        for stage in knockouts:
            for rnd in self.stage_rounds[stage.name]:
                ms = [m for m in self.snap.matches if m["stage"] == stage.name and m["round"] == rnd]
                ms.sort(key=lambda m: ROLE_ORDER.get(labels[stage.name, rnd, m["team_a_id"]][0], len(ROLE_ORDER)))
                boxes = [
                    {
                        **m,
                        "label": labels[stage.name, rnd, m["team_a_id"]][1],
                        "role": labels[stage.name, rnd, m["team_a_id"]][0],
                        "a": self.entrant(m["team_a_id"]),
                        "b": self.entrant(m["team_b_id"]),
                        "is_pending": m["outcome"] in (None, "pending"),
                        "href": self.match_href(stage.name, rnd, m["team_a_id"]),
                    }
                    for m in ms
                ]
                columns.append(
                    {
                        "stage": stage.name,
                        "round": rnd,
                        "heading": f"{stage.name}, round {rnd}",
                        "href": self.round_href(stage.name, rnd),
                        "tree": [b for b in boxes if not is_extra(b)],
                        "extra": [b for b in boxes if is_extra(b)],
                    }
                )
        bracket_columns(columns)
        placings = [{**p, "link": self.entrant(p["entrant_id"])} for p in self.snap.placings]
        if columns or placings:
            self.render(
                "bracket.html",
                "bracket.html",
                title="Bracket and placings",
                columns=columns,
                placings=placings,
                has_extra=any(c["extra"] for c in columns),
            )

    def knockout_labels(self, knockouts: Sequence[Stage]) -> dict[tuple[str, int, str], tuple[str, str]]:
        """(stage, round, team a id) → (role, label) of each knockout match: the role as the placings
        read the bracket (bracket.knockout_roles: the final and the third-place match told apart by
        the semifinals), numbered where a round has several ("Semifinal 1", "Semifinal 2" in the
        order shown); a replay of a tie (ACWC-F-1) says so."""
        matches = [m for m in self.snap.matches if m["stage"] in {s.name for s in knockouts}]
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
            for rnd in self.stage_rounds[stage.name]:
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

    # ------------------------------------------------------------------ entrants and players
    def people(self) -> None:
        members: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for m in self.snap.members:
            members[m["entrant_id"]].append(m)
        results: dict[str, list[dict[str, Any]]] = defaultdict(list)  # user id -> board rows (all parts)
        per_match: dict[tuple[str, int, str, int], dict[str, dict[str, Any]]] = defaultdict(dict)
        for b in self.snap.boards:
            per_match[b["stage"], b["round"], b["team_a_id"], b["board"]][b["part"]] = b
        parts_of = {s.name: [str(p.time_control) for p in s.parts] for s in self.config.stages}
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
                        "opponent": self.player(opp, opp_name),
                        "parts": [
                            None if parts.get(p) is None else (parts[p][mine], parts[p][theirs])
                            for p in parts_of[stage]
                        ],
                        "total": None if parts.get("total") is None else (total[mine], total[theirs]),
                        "override": total["override"],
                        "href": self.match_href(stage, rnd, team_a_id),
                    }
                )
        games: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for g in self.snap.games:
            for me in (g["player_a_id"], g["player_b_id"]):
                games[me].append(g)
        ratings: dict[str, list[tuple[dt.date, float]]] = defaultdict(list)
        for p in self.snap.rating_points:
            ratings[p["user_id"]].append((p["day"], float(p["rating"])))
        caps = {p["user_id"]: p for p in self.snap.last_board}
        stage_parts = [{"stage": s.name, "parts": parts_of[s.name]} for s in self.config.stages]

        entrants = []
        for e in sorted(members, key=lambda e: (str(self.entrant_names.get(e) or e).lower(), e)):
            roster = [{**m, "link": self.player(m["user_id"], m["username"])} for m in members[e]]
            entrants.append({"link": self.entrant(e), "roster": roster})
            if self.team_event:
                self.render(
                    self.entrant_href(e),
                    "team.html",
                    title=self.entrant_names.get(e, e),
                    roster=roster,
                    stage_parts=stage_parts,
                    results={m["user_id"]: self.by_stage(results[m["user_id"]]) for m in members[e]},
                    matches=self.entrant_matches(e),
                    calendar=self.calendar_href(e),
                )
        self.render(
            "entrants.html", "entrants.html", title="Teams" if self.team_event else "Players", entrants=entrants
        )
        everyone = {m["user_id"]: m for m in self.snap.members}
        for b in self.snap.boards:  # a player who played without a registration row (a TD's replacement)
            for uid, name, entrant in (
                (b["player_a_id"], b["player_a"], b["team_a_id"]),
                (b["player_b_id"], b["player_b"], b["team_b_id"]),
            ):
                if uid is not None and uid not in everyone:
                    everyone[uid] = {
                        "user_id": uid,
                        "username": name,
                        "entrant_id": entrant,
                        "entrant": self.entrant_names.get(entrant, entrant),
                        "board": None,
                        "title": None,
                        "antichess_rating": None,
                        "antichess_rd": None,
                        "is_provisional": None,
                        "is_captain": False,
                        "seed_rating": None,
                    }
        for uid in sorted(everyone):
            m = everyone[uid]
            cap = caps.get(uid)
            chart = svg.rating_chart(
                f"Antichess rating of {m['username']}", ratings[uid], None if cap is None else float(cap["cap"])
            )
            self.render(
                self.player_href(uid),
                "player.html",
                title=m["username"],
                member=m,
                team=self.entrant(m["entrant_id"]) if self.team_event else None,
                cap=cap,
                chart=chart,
                stage_parts=stage_parts,
                results=self.by_stage(results[uid]),
                games=len(games[uid]),
                rows=Markup("".join(g["player_row"] for g in games[uid])),
                matches=[] if self.team_event else self.entrant_matches(uid),
                calendar=self.calendar_href(m["entrant_id"] if m["entrant_id"] is not None else uid),
            )

    def by_stage(self, rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in rows:
            out[r["stage"]].append(r)
        return out

    def entrant_matches(self, entrant_id: str) -> list[dict[str, Any]]:
        out = []
        for m in self.snap.matches:
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
                    "opponent": self.entrant(opp),
                    "score": None if outcome in (None, "pending") else f"{num(mine)}–{num(theirs)}",
                    "result": result,
                    "href": self.match_href(m["stage"], m["round"], m["team_a_id"]),
                }
            )
        return out

    # ------------------------------------------------------------------ rulings, downloads, audits
    def rulings(self) -> None:
        self.render("rulings.html", "rulings.html", title="TD rulings", rulings=self.snap.rulings)

    def downloads(self, names: list[str], audits_csv: str | None) -> None:
        self.render("downloads.html", "downloads.html", title="Downloads", names=names, audits_csv=audits_csv)

    def audits(self, public: bool) -> dict[str, bytes]:
        """The audits section's files (audits/index.html when public; index.html of the private folder)."""
        assert self.snap.findings is not None
        points: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for p in self.snap.cap_points:
            points[p["user_id"]].append(p)
        charts = [
            {**p, "anchor": f"cap-{slug(p['user_id'])}", "chart": svg.cap_chart(p, points.get(p["user_id"], []))}
            for p in self.snap.last_board
        ]
        charted = {c["username"]: c["anchor"] for c in charts}
        findings = [
            {**f, "chart": charted.get(f["subject"]) if f["rule_id"].startswith("TEAM-CAP") else None}
            for f in self.snap.findings
        ]
        counts = {s: sum(f["severity"] == s for f in findings) for s in ("error", "warning", "info")}
        html = self.env.get_template("audits.html").render(
            root="../" if public else "",
            tournament=self.config.name,
            nav=self.nav() if public else [],
            entrant_label="Team" if self.team_event else "Player",
            title="Audits",
            public=public,
            findings=findings,
            counts=counts,
            charts=charts,
            last_run=self.snap.last_run,
            attention_link="attention.html" if not public and self.snap.attention is not None else None,
        )
        return {"audits/index.html" if public else "index.html": html.encode("utf-8")}

    def attention(self, index: bool) -> dict[str, bytes]:
        """The private folder's attention.html (what needs the TDs, from the snapshot's attention
        view), also its index.html when `index` (the audits are public: nothing else is private)."""
        from pipeline.report.attention_text import HEADINGS

        items = self.snap.attention or []
        groups: dict[str, list[dict[str, Any]]] = {}
        for i in items:
            groups.setdefault(i["kind"], []).append({**i, "lines": i["action"].split("\n")})
        html = (
            self.env.get_template("attention.html")
            .render(
                root="",
                tournament=self.config.name,
                nav=[],
                title="What needs you",
                groups=[(HEADINGS.get(k, k), k, g) for k, g in groups.items()],
                count=len(items),
                new=sum(i["status"] == "new" for i in items),
                last_run=self.snap.last_run,
                audits_link=None if index else "index.html",
            )
            .encode("utf-8")
        )
        return {"attention.html": html, **({"index.html": html} if index else {})}


# --------------------------------------------------------------------------- building and swapping


def build_site(config: Config, findings: Sequence[dict[str, Any]] | None = None) -> SiteReport:
    """Build the site of `config`'s published snapshot (``paths.database``, opened read-only) into
    ``paths.site`` (and the audits into ``paths.site_private`` unless ``[site] audits = "public"``).

    Raises :class:`~pipeline.errors.InputError` when there is no snapshot yet, or when a target
    folder holds files a site build did not write (it is replaced whole). `findings`: the rows of
    audit_findings (in its order) as the audit that ran just before computed them, or None to read
    them from the snapshot."""
    paths = config.paths
    assert paths.site is not None and paths.site_private is not None
    if not paths.database.exists():
        raise InputError(
            config.path,
            "key 'paths.database'",
            f"{paths.database} does not exist yet: run `antichess-td nightly` (or score) first",
        )
    for key, folder in (("paths.site", paths.site), ("paths.site_private", paths.site_private)):
        check_owned(config, key, folder)
    con = gateway.connect(paths.database, read_only=True)
    try:
        with ThreadPoolExecutor(1) as pool:
            # the audit_findings view (every audit evaluated) on a second cursor while the pages
            # render: DuckDB lets go of the GIL while it runs a query
            later = None if findings is not None else pool.submit(_findings, con.cursor())
            snap = read_snapshot(config, con, findings, read_findings=False)
            files, private = render_site(config, snap, None if later is None else later.result)
    finally:
        con.close()
    swap_in(paths.site, files)
    audits_at: Path | None = None
    if snap.audited:
        if config.site.audits == "public":
            audits_at = paths.site / "audits" / "index.html"
            if not private and paths.site_private.is_dir() and (paths.site_private / MARKER).is_file():
                shutil.rmtree(paths.site_private)  # the audits moved into the public site
        else:
            audits_at = paths.site_private / "index.html"
    if private:  # the audits (when private) and the attention page
        swap_in(paths.site_private, private)
    pages = {k: v for k, v in files.items() if k.endswith(".html")}
    return SiteReport(
        paths.site,
        len(pages),
        len(files),
        max((len(v) for v in pages.values()), default=0),
        audits_at,
    )


def _findings(cursor: Any) -> list[dict[str, Any]]:
    try:
        return gateway.query(cursor, "queries/audit_findings_ordered").to_dicts()
    finally:
        cursor.close()


def render_site(
    config: Config, snap: Snapshot, read_findings: Callable[[], list[dict[str, Any]]] | None = None
) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """(public files, private files) by relative path: pure apart from reading the exports to copy
    (and calling `read_findings` for the audits, last, when the snapshot's are not read yet)."""
    site = Site(config, snap)
    exports = config.paths.exports
    wanted = ("standings_*.csv", "results_*.csv", "placings.csv", "*.trf")
    downloads = (
        sorted({p.name for pattern in wanted for p in exports.glob(pattern) if p.is_file()}) if exports.is_dir() else []
    )
    files: dict[str, bytes] = {f"downloads/{n}": (exports / n).read_bytes() for n in downloads}
    private: dict[str, bytes] = {}
    public_audits = config.site.audits == "public"
    audits_csv = exports / "audit_findings.csv"
    has_audits_csv = snap.audited and audits_csv.is_file()
    site.home(downloads)
    site.game_rows()
    site.standings_pages()
    site.round_pages()
    site.crosstable()
    site.bracket()
    site.people()
    site.rulings()
    site.calendars()
    site.downloads(downloads, "audits/audit_findings.csv" if public_audits and has_audits_csv else None)
    if snap.audited:
        if snap.findings is None:
            assert read_findings is not None
            snap.findings = read_findings()
        section = site.audits(public_audits)
        if public_audits:
            files.update(section)
            if has_audits_csv:
                files["audits/audit_findings.csv"] = audits_csv.read_bytes()
        else:
            private.update(section)
            private["style.css"] = STYLESHEET.read_bytes()
            private["favicon.svg"] = ICON.read_bytes()
            if has_audits_csv:
                private["audit_findings.csv"] = audits_csv.read_bytes()
    if snap.attention is not None:  # the TDs' own page, whatever the audits' switch
        private.update(site.attention(index="index.html" not in private))
        private["style.css"] = STYLESHEET.read_bytes()
        private["favicon.svg"] = ICON.read_bytes()
    files.update(site.files)
    files["style.css"] = STYLESHEET.read_bytes()
    files["favicon.svg"] = ICON.read_bytes()  # declared by every page: no browser asks for a missing /favicon.ico
    return dict(sorted(files.items())), dict(sorted(private.items()))


STYLESHEET = Path(__file__).resolve().parent / "templates" / "style.css"
ICON = STYLESHEET.with_name("favicon.svg")


def check_owned(config: Config, key: str, folder: Path) -> None:
    """A folder a build may replace: missing, empty, or written by a build (it holds MARKER)."""
    if folder.exists() and (not folder.is_dir() or (any(folder.iterdir()) and not (folder / MARKER).is_file())):
        raise InputError(
            config.path,
            f"key '{key}'",
            f"{folder} holds files `antichess-td site` did not write: expected a folder of its own "
            "(each build replaces it whole); choose another folder or empty it",
        )


def swap_in(target: Path, files: dict[str, bytes]) -> None:
    """Write `files` into a new folder beside `target`, then put it in `target`'s place: the old
    folder is renamed aside, the new one renamed in, the old one removed. A failure while writing
    leaves `target` as it was (and removes the half-written folder)."""
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    fresh = parent / f".{target.name}.new-{os.getpid()}"
    old = parent / f".{target.name}.old-{os.getpid()}"
    for leftover in (fresh, old):
        if leftover.exists():
            shutil.rmtree(leftover)
    try:
        fresh.mkdir()
        for rel, data in {**files, MARKER: MARKER_TEXT.encode("utf-8")}.items():
            path = fresh / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        if target.exists():
            target.rename(old)
        try:
            fresh.rename(target)
        except BaseException:
            if old.exists() and not target.exists():
                old.rename(target)
            raise
    finally:
        if fresh.exists():
            shutil.rmtree(fresh, ignore_errors=True)
    if old.exists():
        shutil.rmtree(old)
