"""The site's calendars: iCalendar (RFC 5545) files of the round windows, written by our own small
code so that the same snapshot gives the same bytes.

One VEVENT per round window (its DTSTART and DTEND the window's start and end, in UTC), with a
UID that stays the same from run to run for the same round and entrant, so that a calendar app
that subscribed updates the event (a new opponent, a moved window) instead of adding a second
one. DTSTAMP is the snapshot's run time, never the clock. Lines end in CRLF and are folded at 75
octets (never inside a UTF-8 character); TEXT values escape backslashes, semicolons, commas and
newlines (RFC 5545 3.3.11). Pure: no clock, no files.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

PRODID = "-//antichess-td//site calendar//EN"
LINE_OCTETS = 75  # RFC 5545 3.1: lines SHOULD NOT be longer than 75 octets, excluding the CRLF
REFRESH = "PT6H"  # how often a subscribed app should look again (RFC 7986 REFRESH-INTERVAL)


@dataclass(frozen=True)
class Event:
    """One round window in a calendar: ``uid`` stable across runs, ``start``/``end`` UTC."""

    uid: str
    start: dt.datetime
    end: dt.datetime
    summary: str
    description: str = ""


def escape_text(value: str) -> str:
    """A TEXT value as RFC 5545 3.3.11 writes it: backslash, semicolon and comma escaped, newlines as ``\\n``."""
    return (
        value.replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\r\n", "\\n")
        .replace("\r", "\\n")
        .replace("\n", "\\n")
    )


def fold(line: str) -> str:
    """A content line folded at 75 octets (each continuation starts with one space, which counts),
    never splitting a UTF-8 character; lines end in CRLF."""
    out: list[str] = []
    chunk: list[str] = []
    size = 0
    limit = LINE_OCTETS
    for ch in line:
        n = len(ch.encode("utf-8"))
        if size + n > limit:
            out.append("".join(chunk))
            chunk, size, limit = [], 0, LINE_OCTETS - 1  # the leading space of a continuation line
        chunk.append(ch)
        size += n
    out.append("".join(chunk))
    return "\r\n ".join(out) + "\r\n"


def stamp(t: dt.datetime) -> str:
    """A UTC DATE-TIME (form 2, ``Z``)."""
    return t.astimezone(dt.UTC).strftime("%Y%m%dT%H%M%SZ")


def calendar_bytes(name: str, description: str, events: Sequence[Event], dtstamp: dt.datetime) -> bytes:
    """A VCALENDAR of `events` (in the order given), named `name` for the apps that show a
    subscribed calendar's name (RFC 7986 NAME, and X-WR-CALNAME that older apps read)."""
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        f"PRODID:{PRODID}",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"NAME:{escape_text(name)}",
        f"X-WR-CALNAME:{escape_text(name)}",
        f"DESCRIPTION:{escape_text(description)}",
        f"REFRESH-INTERVAL;VALUE=DURATION:{REFRESH}",
        f"X-PUBLISHED-TTL:{REFRESH}",
    ]
    for e in events:
        lines += [
            "BEGIN:VEVENT",
            f"UID:{escape_text(e.uid)}",
            f"DTSTAMP:{stamp(dtstamp)}",
            f"DTSTART:{stamp(e.start)}",
            f"DTEND:{stamp(e.end)}",
            f"SUMMARY:{escape_text(e.summary)}",
        ]
        if e.description:
            lines.append(f"DESCRIPTION:{escape_text(e.description)}")
        lines += ["TRANSP:TRANSPARENT", "END:VEVENT"]  # a week-long window does not make the player busy
    lines.append("END:VCALENDAR")
    return "".join(fold(line) for line in lines).encode("utf-8")
