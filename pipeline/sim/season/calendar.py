"""The demo's dates and stage formats (TEAM-FMT-3, TEAM-SCORE-1/2, ACWC 2021), and time arithmetic."""

from __future__ import annotations

import datetime as dt

from pipeline.domain.timecontrol import parse_time_control
from pipeline.sim.games import EPOCH

UTC = dt.UTC
DAY = dt.timedelta(days=1)

TEAM_REGISTRATION = dt.datetime(2026, 8, 25, tzinfo=UTC)
TEAM_START = dt.datetime(2026, 9, 1, tzinfo=UTC)  # a Tuesday (TEAM-FMT-3)
TEAM_END = dt.datetime(2026, 11, 20, tzinfo=UTC)  # the dataset's "now" for the TEAM players (7 Swiss rounds)
SWISS_ROUNDS = 7  # the team-swiss preset's rounds
ACWC_START = dt.datetime(2021, 9, 7, tzinfo=UTC)  # a Tuesday after the 2021-09-01 seeding date
ACWC_END = dt.datetime(2021, 11, 1, tzinfo=UTC)
ACWC_SEEDING = dt.datetime(2021, 9, 1, tzinfo=UTC)  # ACWC-SEED-1's rating date (and ACWC-ELIG-2's)
ACWC_PEAK_SINCE = dt.datetime(2021, 3, 1, tzinfo=UTC)  # ACWC-SEED-1's highest rating is held from here
SPAN = dt.timedelta(days=913)  # ~2.5 years of history before the end

SWISS_PARTS = ("0+2", 8), ("2+5", 4), ("1+2", 6)  # TEAM-SCORE-2 default order
KO_PARTS = ("0+2", 8), ("2+5", 4), ("5+0", 4), ("1+2", 6)
FINAL_PARTS = ("0+2", 8), ("2+5", 4), ("0.5+1", 8), ("5+0", 4), ("1+2", 6)
POINTS = {"0+2": (6, 3), "2+5": (12, 6), "1+2": (8, 4), "5+0": (12, 6), "0.5+1": (6, 3)}  # TEAM-SCORE-1
BACKGROUND_CLOCKS = [
    parse_time_control(t)
    for t in ("0+1", "0+2", "1+0", "1+1", "1+2", "2+0", "2+1", "2+5", "3+0", "3+2", "5+0", "0.5+1")
]
FORCED_CLOCK = parse_time_control("1+0")  # the clock of the games that steer a rating (Steer, Crossing)


def from_ms(ms: int) -> dt.datetime:
    """The UTC time of a Lichess millisecond timestamp."""
    return EPOCH + dt.timedelta(milliseconds=ms)


def months_before(t: dt.datetime, months: int) -> dt.datetime:
    """The same day and time `months` calendar months earlier (the last day of a shorter month)."""
    y, m = divmod(t.year * 12 + t.month - 1 - months, 12)
    last = (dt.date(y + (m == 11), (m + 1) % 12 + 1, 1) - dt.timedelta(days=1)).day
    return t.replace(year=y, month=m + 1, day=min(t.day, last))


def knockout_start(swiss_rounds: int) -> dt.datetime:
    """The knockout's first round: the week after the last Swiss round."""
    return TEAM_START + dt.timedelta(days=7 * swiss_rounds)
