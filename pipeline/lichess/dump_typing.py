"""A dump record typed the short way when it is in Lichess's usual form: what a backfill spends
most of its typing on (pipeline/lichess/dump_scan.py).

:func:`usual_row` gives the values of the :class:`GameRow` that ``dump_reader.parse_dump_game``
gives, in ``GameRow``'s field order, for a record written as Lichess writes nearly all of them:
header lines without escapes, then every move with its clock (``1. e3 { [%clk 0:03:00] } 1... b5
{ [%clk 0:03:00] } ... 1-0``), moves without glyphs, every move in SAN, a Site, Variant, Result,
UTCDate/UTCTime and TimeControl that read. For any other record it gives None, and the full reader
decides (its errors, its rejections): the short way never says why a record is refused, so the
rejected records and their reasons are the full reader's. It skips the full reader's general
paths and its intermediate objects (a DumpGame, a GameRow): about a fifth of the typing's time.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pipeline.lichess import dump_reader
from pipeline.lichess.dump_reader import (
    _CLOCKED_MOVE,
    _HEADER,
    _KNOWN_SANS,
    _RESULTS,
    _SANS,
    _SITE,
    _TIME_CONTROL,
    _created,
    _int_tag,
    _speed,
    last_clocks,
)


def usual_row(text: str) -> tuple[Any, ...] | None:
    """The row values ``dump_scan.row_values(parse_dump_game(text))`` gives, when ``text`` is in the
    usual form (the module's docstring); None otherwise, and also when the full reader would refuse
    the record."""
    head, sep, movetext = text.strip().partition("\n\n")
    if not sep or "\\" in head or "?" in movetext or "!" in movetext:
        return None
    tags = _HEADER.findall(head)
    sans = _CLOCKED_MOVE.findall(movetext)
    result = movetext[movetext.rfind("}") + 1 :].strip()
    if len(tags) != head.count("\n") + 1 or not sans or movetext.count(" ") != 6 * len(sans):
        return None
    h = dict(tags)
    if not _KNOWN_SANS.issuperset(sans):  # checked here once, then known (a few thousand distinct moves)
        new = set(sans) - _KNOWN_SANS
        if any(_SANS.fullmatch(san) is None for san in new):
            return None
        _KNOWN_SANS.update(new)
    site = _SITE.fullmatch(h.get("Site", ""))
    if (
        site is None
        or h.get("Result") != result
        or result not in _RESULTS
        or h.get("Variant") != "Antichess"
        or h.get("Termination") == "Unterminated"
    ):
        return None
    try:
        return _values(text, h, site[1], sans, movetext)
    except ValueError:
        return None


def _values(text: str, h: dict[str, str], gid: str, sans: list[str], movetext: str) -> tuple[Any, ...]:
    """The row of a usual record whose moves, Site, Result and Variant read; ValueError where the
    full reader raises one."""
    winner = _RESULTS[h["Result"]]
    created = _created(h)
    tc = h.get("TimeControl", "-")
    initial: int | None = None
    increment: int | None = None
    if tc != "-":
        found = _TIME_CONTROL.fullmatch(tc)
        if found is None:
            raise ValueError(tc)
        initial, increment = int(found[1]), int(found[2])
    termination = h.get("Termination", "")
    if termination == "Normal" and winner is not None:
        # captures by the loser, each SAN holding at most one "x" (the SAN grammar)
        status = "variantEnd" if " ".join(sans[winner == "white" :: 2]).count("x") >= 16 else "resign"
    else:
        status = dump_reader.dump_status(termination, winner, sans)
    white, black = h.get("White") or None, h.get("Black") or None
    played = 0
    if initial is not None and increment is not None:
        played = _played_s(movetext, len(sans), initial, increment, termination == "Time forfeit" and winner)
    return (
        gid,
        created,
        created + dt.timedelta(seconds=played),
        white.lower() if white else None,
        black.lower() if black else None,
        white,
        black,
        h.get("Event", "").startswith("Rated "),
        "antichess",
        _speed(initial, increment),
        initial,
        increment,
        status,
        winner,
        _int_of(h, "WhiteElo"),
        _int_of(h, "BlackElo"),
        _int_of(h, "WhiteRatingDiff"),
        _int_of(h, "BlackRatingDiff"),
        " ".join(sans),
        text,
        f"https://lichess.org/{gid}",
    )


def _int_of(h: dict[str, str], name: str) -> int | None:
    """``dump_reader._int_tag``: ASCII digits after at most one sign read here (as int() reads
    them there), any other value there (None, or a ValueError where it raises one)."""
    value = h.get(name)
    if value is not None:
        digits = value[1:] if value[:1] in ("+", "-") else value
        if digits.isdigit() and digits.isascii():
            return int(value)
    return _int_tag(h, name)


def _played_s(movetext: str, plies: int, initial: int, increment: int, winner: str | None | bool) -> int:
    """``dump_reader._played_s`` for a movetext whose every move shows its clock: each side's clocked
    moves are its moves, its last clock the one after its last move (the last two clocks); a side
    that lost on time (``winner`` names the other: a Time forfeit with a winner) also spent its
    last clock."""
    total = 0
    for color, moves_made, last in last_clocks(movetext, plies):
        total += initial + increment * (moves_made - 1) - last
        if winner and (winner == "white") != (color == 0):  # this side lost on time
            total += last
    return max(total, 0)
