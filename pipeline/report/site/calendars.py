"""The calendars: the event's (every round's window with its pairings) and one per entrant;
ical.py writes them as RFC 5545."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from pipeline.report.site import ical, knockout
from pipeline.report.site.links import CALENDAR, slug
from pipeline.report.site.pages import Pages
from pipeline.report.site.words import KIND_WORDS, match_note


def calendars(pages: Pages) -> None:
    """The event's calendar (every round's window, with its pairings) and one per entrant (each
    of its rounds: the window, the opponent, the boards, the result once decided); RFC 5545,
    stable UIDs, DTSTAMP the snapshot's run time (pipeline/report/site/ical.py)."""
    last = pages.snap.last_run
    dtstamp = (last["finished_at"] or last["as_of"]) if last else dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    tid = slug(pages.config.tournament_id)
    windows = pages.round_windows()
    knockouts = [s for s in pages.config.stages if s.kind == "knockout"]
    labels = knockout.match_labels(pages, knockouts)
    boards: dict[tuple[str, int, str], list[str]] = defaultdict(list)  # a team match's board pairings
    for b in pages.snap.boards:
        if b["part"] == "total" and pages.team_event:
            boards[b["stage"], b["round"], b["team_a_id"]].append(
                f"Board {b['board']}: {b['player_a'] or '?'} v {b['player_b'] or '?'}"
            )
    events: list[ical.Event] = []
    mine: dict[str, list[ical.Event]] = defaultdict(list)
    order = {s.name: i for i, s in enumerate(pages.config.stages)}
    for stage, rnd in sorted(windows, key=lambda k: (order[k[0]], k[1])):
        start, end = windows[stage, rnd]
        ms = [m for m in pages.snap.matches if m["stage"] == stage and m["round"] == rnd]
        lines = []
        for m in ms:
            label = labels.get((stage, rnd, m["team_a_id"]), ("", ""))[1]
            lines.append(f"{label + ': ' if label else ''}{m['team_a']} v {m['team_b']}{match_note(m)}")
        byes = [b for b in pages.snap.byes if b["stage"] == stage and b["round"] == rnd]
        lines += [f"{pages.entrant_names.get(b['entrant_id'], b['entrant_id'])}: bye" for b in byes]
        events.append(
            ical.Event(
                f"{tid}-{slug(stage)}-{rnd}@antichess-td",
                start,
                end,
                f"{pages.config.name}: {stage}, round {rnd}",
                "\n".join(lines),
            )
        )
        for me, event in entrant_events(pages, (stage, rnd), (start, end), labels, boards):
            mine[me].append(event)
    pages.files[CALENDAR] = ical.calendar_bytes(
        pages.config.name, f"Round windows of {pages.config.name}", events, dtstamp
    )
    for e in sorted(set(pages.entrant_names) | set(mine)):
        name = pages.entrant_names.get(e, e)
        pages.files[pages.calendar_href(e)] = ical.calendar_bytes(
            f"{name}: {pages.config.name}", f"The rounds of {name} in {pages.config.name}", mine.get(e, []), dtstamp
        )


def entrant_events(
    pages: Pages,
    key: tuple[str, int],
    window: tuple[dt.datetime, dt.datetime],
    labels: dict[tuple[str, int, str], tuple[str, str]],
    boards: dict[tuple[str, int, str], list[str]],
) -> list[tuple[str, ical.Event]]:
    """(entrant id, its event) of the round `key` (stage, round) for each side of each match
    (the match's own window, else the round's `window`) and each bye, in the pages' order."""
    stage, rnd = key
    start, end = window
    tid = slug(pages.config.tournament_id)
    out = []
    for m in (m for m in pages.snap.matches if m["stage"] == stage and m["round"] == rnd):
        label = labels.get((stage, rnd, m["team_a_id"]), ("", ""))[1]
        for me, opp in ((m["team_a_id"], m["team_b"]), (m["team_b_id"], m["team_a"])):
            detail = boards.get((stage, rnd, m["team_a_id"]), [])
            event = ical.Event(
                f"{tid}-{slug(stage)}-{rnd}-{slug(me)}@antichess-td",
                m["window_start"] or start,
                m["window_end"] or end,
                f"{pages.config.name}, {stage} round {rnd}: {pages.entrant_names.get(me, me)} v {opp}",
                "\n".join([f"{label + ': ' if label else ''}{m['team_a']} v {m['team_b']}{match_note(m)}", *detail]),
            )
            out.append((me, event))
    for b in (b for b in pages.snap.byes if b["stage"] == stage and b["round"] == rnd):
        me = b["entrant_id"]
        event = ical.Event(
            f"{tid}-{slug(stage)}-{rnd}-{slug(me)}@antichess-td",
            start,
            end,
            f"{pages.config.name}, {stage} round {rnd}: {pages.entrant_names.get(me, me)}: bye",
            KIND_WORDS.get(b["kind"], b["kind"]),
        )
        out.append((me, event))
    return out
