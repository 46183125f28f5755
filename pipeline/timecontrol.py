"""Time controls: one parser for the Lichess clock, the PGN tag and the way players write them.

Players write ``a+b`` with ``a`` in minutes and ``b`` in seconds (``2+5``, ``0.5+1``,
``0+2``); the Lichess JSON clock gives ``initial``/``increment`` in seconds; the PGN
``TimeControl`` tag gives ``120+5`` in seconds, or ``-`` for correspondence / none.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from fractions import Fraction

_PLAYER_FORM = re.compile(r"^\s*(\d+(?:\.\d+)?|\d+/\d+)\s*\+\s*(\d+)\s*$")
_PGN_FORM = re.compile(r"^\s*(\d+)\+(\d+)\s*$")


@dataclass(frozen=True, order=True)
class TimeControl:
    """A clock: initial time and increment, both in whole seconds."""

    initial_s: int
    increment_s: int

    def __post_init__(self) -> None:
        if self.initial_s < 0 or self.increment_s < 0:
            raise ValueError(f"time control cannot be negative: {self.initial_s}+{self.increment_s}")

    def __str__(self) -> str:
        return _player_form(self.initial_s, self.increment_s)

    @property
    def pgn_tag(self) -> str:
        return f"{self.initial_s}+{self.increment_s}"


@functools.cache
def _player_form(initial_s: int, increment_s: int) -> str:
    """``2+5``, ``0.5+1``: minutes+seconds as players write them (a handful of clocks, asked for
    once per linked game: cached)."""
    minutes = Fraction(initial_s, 60)
    if minutes.denominator == 1:
        shown = str(minutes.numerator)
    else:
        shown = f"{float(minutes):g}"
    return f"{shown}+{increment_s}"


def parse_time_control(text: str) -> TimeControl:
    """Parse a time control as players write it: ``2+5``, ``0.5+1``, ``0+2`` (minutes+seconds)."""
    m = _PLAYER_FORM.match(text)
    if not m:
        raise ValueError(f"time control {text!r}: expected minutes+seconds such as '2+5' or '0.5+1'")
    minutes = Fraction(m.group(1))
    seconds = minutes * 60
    if seconds.denominator != 1:
        raise ValueError(f"time control {text!r}: the initial time is not a whole number of seconds")
    return TimeControl(int(seconds), int(m.group(2)))


def parse_pgn_time_control(tag: str) -> TimeControl | None:
    """Parse the PGN ``TimeControl`` tag (``120+5``); ``-`` or ``?`` mean no clock and give None."""
    if tag.strip() in ("-", "?", ""):
        return None
    m = _PGN_FORM.match(tag)
    if not m:
        raise ValueError(f"PGN TimeControl {tag!r}: expected seconds+seconds such as '120+5' or '-'")
    return TimeControl(int(m.group(1)), int(m.group(2)))


def time_control_from_clock(clock: dict | None) -> TimeControl | None:
    """The Lichess JSON ``clock`` object (seconds); None for correspondence games without one."""
    if not clock:
        return None
    return TimeControl(int(clock["initial"]), int(clock["increment"]))
