"""Words and numbers as the pages write them: numbers, UTC times, a match's result and state, a
window's time left, the names of tiebreaks and bye kinds."""

from __future__ import annotations

import datetime as dt
from typing import Any

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


KIND_WORDS = {
    "pab": "pairing-allocated bye",
    "full_bye": "full-point bye",
    "half_bye": "requested half-point bye",
    "zero_bye": "requested zero-point bye",
    "absent": "not played (absent or unplayed)",
}


def num(v: Any) -> str:
    """A number as the pages show it: whole numbers without a decimal point, else at most two decimals."""
    if v is None:
        return ""
    f = float(v)
    if f.is_integer():
        return str(int(f))
    return f"{f:.2f}".rstrip("0").rstrip(".")


def utc(t: dt.datetime | None) -> str:
    return "" if t is None else t.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


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
