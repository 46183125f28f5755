"""The site's front page (the current round's matches, each with its state and the time left in its
window; the top of the standings; when the data was updated) and its calendars (RFC 5545), on the
hand-made skeleton run as the nightly runs it at chosen moments of its round 2, and after a round 3
whose window closed with no game (docs/site.md)."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from typing import Any

import duckdb
import icalendar
import pytest

from kits.skeleton_kit import copy_skeleton
from pipeline.inputs.config import load_config
from pipeline.model import Config
from pipeline.report.site import build_site
from pipeline.report.site.ical import Event, calendar_bytes, escape_text, fold

IN_PROGRESS = "2026-03-11T20:10:00Z"  # Alphas v Gammas: 4 of its 8 games played; Betas v Deltas none
DECIDED = "2026-03-12T18:00:00Z"  # Alphas v Gammas over (8 of 8); Betas v Deltas not started
AFTER_ROUND_3 = "2026-04-10T03:00:00Z"  # a round 3 paired, its window closed with no game: both unplayed


def night(tmp_path: Path, now: str, round_3: bool = False) -> Config:
    """The skeleton run by the nightly (no Prefect server) as of `now`; with `round_3`, a third
    round paired (its window 2026-03-17 to 03-24 by the stage's schedule) and never played."""
    from flows.nightly import nightly_without_prefect

    folder = copy_skeleton(tmp_path)
    if round_3:
        toml = folder / "tournament.toml"
        toml.write_text(toml.read_text(encoding="utf-8").replace("rounds = 2\n", "rounds = 3\n"), encoding="utf-8")
        with (folder / "pairings.csv").open("a", encoding="utf-8") as f:
            f.write("swiss,3,Alphas,Deltas\nswiss,3,Betas,Gammas\n")
    nightly_without_prefect(str(folder / "tournament.toml"), now, "no Prefect in this test")
    return load_config(folder / "tournament.toml")


def rows(db: Path, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)


def expected_states(cfg: Config, rnd: int) -> list[list[str]]:
    """The current round's rows as the snapshot says them (team_matches), the words written out
    here: decided (a result stands), awaiting a ruling (unplayed after the window, TEAM-SCORE-4),
    in progress (games played, no result), not started."""
    (as_of,) = rows(cfg.paths.database, "SELECT as_of FROM runs WHERE status = 'ok' ORDER BY run_id DESC LIMIT 1")[0]
    out = []
    for a, b, pa, pb, outcome, played, due, end in rows(
        cfg.paths.database,
        "SELECT t.team_a, t.team_b, t.a_points, t.b_points, t.outcome, t.games_played, t.games_due, p.window_end "
        "FROM team_matches t JOIN td_pairings p ON p.stage = t.stage AND p.round = t.round AND p.entrant_a = t.team_a_id "
        "WHERE t.stage = 'swiss' AND t.round = ? ORDER BY t.team_a_id",
        [rnd],
    ):
        if outcome in ("a", "b", "draw"):
            state = "decided"
        elif outcome == "unplayed":
            state = "awaiting a ruling"
        else:
            state = "in progress" if played else "not started"
        left = end - as_of
        hours = left.seconds // 3600
        window = f"{left.days} d {hours} h left" if left.total_seconds() > 0 else "closed"
        out.append(
            [
                f"{a} v {b}",
                state,
                "—" if state == "not started" else f"{num(pa)}–{num(pb)}",
                f"{played} of {due}",
                f"{window}{' (closes' if left.total_seconds() > 0 else ''} {end:%Y-%m-%d %H:%M} UTC{')' if left.total_seconds() > 0 else ''}",
            ]
        )
    return out


@pytest.mark.browser
@pytest.mark.parametrize(
    ("now", "round_3", "rnd", "states"),
    [
        (IN_PROGRESS, False, 2, ["in progress", "not started"]),
        (DECIDED, False, 2, ["decided", "not started"]),
        (AFTER_ROUND_3, True, 3, ["awaiting a ruling", "awaiting a ruling"]),
    ],
)
def test_in_chromium_the_front_page_shows_the_current_rounds_matches_as_the_snapshot_has_them(
    tmp_path: Path, browser: Any, now: str, round_3: bool, rnd: int, states: list[str]
) -> None:
    """TEAM-FMT-3, TEAM-SCORE-3, TEAM-SCORE-4: the current round (the one whose window is open at
    the snapshot's time, else the last paired) and each match's state, score, games and time left
    as Chromium shows them, equal to team_matches; the top of the standings as the view ranks it."""
    from kits.browserkit import console_errors, load, serve_folder, table_rows

    cfg = night(tmp_path, now, round_3)
    with serve_folder(cfg.paths.site) as base:
        load(browser, base + "index.html")
        assert console_errors(browser) == []
        heading = browser.find_element("css selector", "#current-round h2").text
        shown = table_rows(browser, "Matches of swiss")
        top = table_rows(browser, "top of swiss")
    assert heading == f"swiss: round {rnd}" + (" window open" if not round_3 else "")
    assert shown[0] == ["Match", "State", "Score", "Games played", "Window"]
    assert shown[1:] == expected_states(cfg, rnd)
    assert [r[1] for r in shown[1:]] == states
    last = rows(cfg.paths.database, "SELECT max(after_round) FROM standings WHERE stage = 'swiss'")[0][0]
    assert [r[:2] for r in top[1:]] == [
        [str(rank), name]
        for rank, name in rows(
            cfg.paths.database,
            "SELECT rank, entrant FROM standings WHERE stage = 'swiss' AND after_round = ? AND rank <= 5 "
            "ORDER BY rank, entrant_id",
            [last],
        )
    ]


def test_the_time_left_counts_from_the_snapshots_time_not_the_clock(tmp_path: Path) -> None:
    """As of 2026-03-11 20:10 UTC the round-2 window (to 03-17 00:00) has 5 d 3 h 50 min left:
    written out by hand, whenever the test runs; the page says when the data is as of."""
    cfg = night(tmp_path, IN_PROGRESS)
    html = (cfg.paths.site / "index.html").read_text(encoding="utf-8")
    assert '<td class="wrap">5 d 3 h left (closes 2026-03-17 00:00 UTC)</td>' in html
    assert "with the games as of 2026-03-11 20:10 UTC." in html
    assert '<td class="state">in progress</td><td class="n">' in html


# --------------------------------------------------------------------------- calendars


def parse_ics(path: Path) -> icalendar.Calendar:
    data = path.read_bytes()
    assert data.endswith(b"\r\n") and b"\n" not in data.replace(b"\r\n", b"")  # CRLF line ends only
    assert all(len(line) <= 75 for line in data.split(b"\r\n"))  # folded at 75 octets
    return icalendar.Calendar.from_ical(data)


def events(cal: icalendar.Calendar) -> list[icalendar.Event]:
    return list(cal.walk("VEVENT"))


def test_the_calendars_hold_each_rounds_window_and_opponent_with_stable_uids(tmp_path: Path) -> None:
    """The event's calendar: one event per round, its window as td_pairings has it (TEAM-FMT-3);
    each team's: its opponent each round. UIDs the same in two different snapshots (a calendar
    app updates instead of adding), DTSTAMP the run's time, and two builds of one snapshot the
    same bytes."""
    early = night(tmp_path / "a", IN_PROGRESS)
    late = night(tmp_path / "b", DECIDED)
    site = early.paths.site
    windows = rows(
        early.paths.database, "SELECT DISTINCT round, window_start, window_end FROM td_pairings ORDER BY round"
    )
    (finished,) = rows(early.paths.database, "SELECT finished_at FROM runs WHERE status = 'ok'")[0]
    cal = parse_ics(site / "calendar.ics")
    assert str(cal["X-WR-CALNAME"]) == "Skeleton Cup"
    got = events(cal)
    assert [(str(e["UID"]), e.decoded("DTSTART"), e.decoded("DTEND")) for e in got] == [
        (f"skeleton-swiss-{r}@antichess-td", start, end) for r, start, end in windows
    ]
    assert str(got[1]["SUMMARY"]) == "Skeleton Cup: swiss, round 2"
    ((a, b),) = rows(
        early.paths.database, "SELECT a_points, b_points FROM team_matches WHERE round = 2 AND team_a = 'Alphas'"
    )
    assert str(got[1]["DESCRIPTION"]) == f"Alphas v Gammas ({a:g}-{b:g} so far, 4 of 8 games played)\nBetas v Deltas"
    assert all(e.decoded("DTSTAMP") == finished.replace(microsecond=0) for e in got)

    alphas = events(parse_ics(site / "calendars" / "alphas-3e56f632.ics"))
    assert [str(e["SUMMARY"]) for e in alphas] == [
        "Skeleton Cup, swiss round 1: Alphas v Betas",
        "Skeleton Cup, swiss round 2: Alphas v Gammas",
    ]
    assert [str(e["UID"]) for e in alphas] == [
        "skeleton-swiss-1-alphas-3e56f632@antichess-td",
        "skeleton-swiss-2-alphas-3e56f632@antichess-td",
    ]
    assert str(alphas[0]["DESCRIPTION"]) == "Alphas v Betas (45-19)\nBoard 1: Alice v Bob\nBoard 2: Amir v Bea"
    # the same team's events in the later snapshot: same UIDs, the result now stands
    later = events(parse_ics(late.paths.site / "calendars" / "alphas-3e56f632.ics"))
    assert [str(e["UID"]) for e in later] == [str(e["UID"]) for e in alphas]
    assert str(later[1]["DESCRIPTION"]).startswith("Alphas v Gammas (26-38)\n")
    # deterministic: a second build of the same snapshot writes the same bytes
    before = {p.name: p.read_bytes() for p in (site / "calendars").iterdir()} | {
        "calendar.ics": (site / "calendar.ics").read_bytes()
    }
    build_site(early)
    after = {p.name: p.read_bytes() for p in (site / "calendars").iterdir()} | {
        "calendar.ics": (site / "calendar.ics").read_bytes()
    }
    assert after == before and len(before) == 5
    # linked from the front page and the team's and its players' pages
    assert 'href="calendar.ics"' in (site / "index.html").read_text(encoding="utf-8")
    assert 'href="../calendars/alphas-3e56f632.ics"' in (site / "teams" / "alphas-3e56f632.html").read_text("utf-8")
    assert 'href="../calendars/alphas-3e56f632.ics"' in (site / "players" / "alice.html").read_text("utf-8")
    shutil.rmtree(tmp_path / "b")


def test_text_is_escaped_and_long_lines_fold_without_splitting_a_character() -> None:
    """RFC 5545 3.3.11 (TEXT) and 3.1 (folding at 75 octets, CRLF), read back by icalendar."""
    assert escape_text("a,b;c\\d\ne") == "a\\,b\\;c\\\\d\\ne"
    line = "SUMMARY:" + "é" * 40  # 8 + 80 octets: the first line breaks before an octet pair would split
    folded = fold(line).encode("utf-8")
    first, second = folded.split(b"\r\n")[:2]
    assert len(first) == 74 and first.decode("utf-8") == "SUMMARY:" + "é" * 33
    assert second.decode("utf-8") == " " + "é" * 7
    summary = "Team; with, odd \\ name\nand a second line " + "ж" * 50
    t = dt.datetime(2026, 3, 10, tzinfo=dt.UTC)
    data = calendar_bytes("Cup, 2026", "d", [Event("x-1@antichess-td", t, t + dt.timedelta(days=7), summary)], t)
    assert all(len(line) <= 75 for line in data.split(b"\r\n"))
    (event,) = icalendar.Calendar.from_ical(data).walk("VEVENT")
    assert str(event["SUMMARY"]) == summary
    assert event.decoded("DTEND") == dt.datetime(2026, 3, 17, tzinfo=dt.UTC)
