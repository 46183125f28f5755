"""Time controls: one parser for the Lichess clock, the PGN tag and the way players write them.

Players write ``a+b`` with ``a`` in minutes and ``b`` in seconds (``2+5``, ``0.5+1``,
``0+2``); the Lichess JSON clock gives ``initial``/``increment`` in seconds; the PGN
``TimeControl`` tag gives ``120+5`` in seconds, or ``-`` for correspondence / none.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from pipeline.model import TimeControl

_PLAYER_FORM = re.compile(r"^\s*(\d+(?:\.\d+)?|\d+/\d+)\s*\+\s*(\d+)\s*$")
_PGN_FORM = re.compile(r"^\s*(\d+)\+(\d+)\s*$")


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


def time_control_from_clock(clock: dict[str, Any] | None) -> TimeControl | None:
    """The Lichess JSON ``clock`` object (seconds); None for correspondence games without one."""
    if not clock:
        return None
    return TimeControl(int(clock["initial"]), int(clock["increment"]))
