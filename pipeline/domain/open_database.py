"""A stored game in the columns of the Lichess open database's Parquet (docs/td-guide.md, Games as Parquet).

Lichess publishes its rated antichess games as Parquet on Hugging Face (the dataset
``Lichess/antichess-chess-games``, files ``data/year=YYYY/month=MM/train-*.parquet``), one row per
game with the PGN's tags as columns and the movetext: ``Event, Site, White, Black, Result,
WhiteTitle, BlackTitle, WhiteElo, BlackElo, WhiteRatingDiff, BlackRatingDiff, UTCDate, UTCTime,
Termination, TimeControl, movetext``. :func:`game_columns` gives those values for one of our stored
games, written as Lichess writes them in its PGN dumps (pipeline/lichess/dump_reader.py reads
them back):

* ``Site`` ``https://lichess.org/<id>``; ``White``/``Black`` the display names;
* ``Result`` ``1-0``, ``0-1``, ``1/2-1/2`` (antichess has no other way to end without a winner)
  or ``*`` for a game not finished (``created``, ``started``, ``aborted``: lila writes a result
  only from ``mate`` on);
* ``Termination`` from the status by lila's own table (:data:`TERMINATION_OF_STATUS`, the inverse
  of :func:`pipeline.lichess.dump_reader.dump_status`);
* ``UTCDate``/``UTCTime`` the game's creation in UTC (whole seconds), as lila writes them;
* ``TimeControl`` ``<initial s>+<increment s>``, ``-`` without a clock;
* ``Event``, ``WhiteTitle``, ``BlackTitle`` and ``movetext`` from the PGN Lichess sent (the API's
  ``pgnInJson`` or the dump's record): its tags, and its movetext on one line, result token and
  ``[%clk]`` comments as the PGN has them. Without a stored PGN: ``Rated|Casual <Variant> game``,
  no titles, and the movetext numbered from the JSON's ``moves``.

Pure: plain values in, plain values out.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

# lila's PgnDump: the Termination tag of each game status (every status Lichess's API reports)
TERMINATION_OF_STATUS: dict[str, str] = {
    "created": "Unterminated",
    "started": "Unterminated",
    "aborted": "Abandoned",
    "noStart": "Abandoned",
    "timeout": "Time forfeit",
    "outoftime": "Time forfeit",
    "mate": "Normal",
    "resign": "Normal",
    "stalemate": "Normal",
    "draw": "Normal",
    "variantEnd": "Normal",
    "cheat": "Rules infraction",
    "unknownFinish": "Unknown",
    "insufficientMaterialClaim": "Insufficient material",
}
UNFINISHED = frozenset({"created", "started", "aborted"})  # lila writes "*" for these

COLUMNS = (
    "Event",
    "Site",
    "White",
    "Black",
    "Result",
    "WhiteTitle",
    "BlackTitle",
    "WhiteElo",
    "BlackElo",
    "WhiteRatingDiff",
    "BlackRatingDiff",
    "UTCDate",
    "UTCTime",
    "Termination",
    "TimeControl",
    "movetext",
)

_TAG = re.compile(r'^\[([A-Za-z0-9_]+) "((?:[^"\\]|\\.)*)"\]\s*$')


def termination(status: str) -> str:
    """The Termination tag Lichess writes for a game of this status; ValueError for a status
    Lichess does not report."""
    try:
        return TERMINATION_OF_STATUS[status]
    except KeyError:
        raise ValueError(f"status {status!r}: expected one of Lichess's game statuses") from None


def result(winner: str | None, status: str) -> str:
    """The Result tag: the winner's, ``*`` for an unfinished game, else a draw."""
    if winner == "white":
        return "1-0"
    if winner == "black":
        return "0-1"
    return "*" if status in UNFINISHED else "1/2-1/2"


def time_control(initial_s: int | None, increment_s: int | None) -> str:
    """The TimeControl tag: ``180+2`` (seconds), ``-`` for a game without a clock."""
    if initial_s is None or increment_s is None:
        return "-"
    return f"{initial_s}+{increment_s}"


def pgn_parts(pgn: str) -> tuple[dict[str, str], str]:
    """The tags of a PGN record and its movetext on one line (the line breaks a PGN writer wraps
    it with become spaces, as the dumps write it)."""
    head, _, body = pgn.strip().partition("\n\n")
    tags: dict[str, str] = {}
    for line in head.splitlines():
        found = _TAG.match(line.strip())
        if found:
            tags[found[1]] = found[2].replace('\\"', '"').replace("\\\\", "\\")
    return tags, " ".join(body.split())


def numbered_movetext(sans: str, result_tag: str) -> str:
    """Movetext from a space-separated list of SAN moves: ``1. e3 b5 2. Bxb5 ... 1-0``."""
    words = []
    for i, san in enumerate(sans.split()):
        if i % 2 == 0:
            words.append(f"{i // 2 + 1}.")
        words.append(san)
    return " ".join([*words, result_tag])


def _event(rated: bool, variant: str) -> str:
    name = "Antichess" if variant == "antichess" else variant[:1].upper() + variant[1:]
    return f"{'Rated' if rated else 'Casual'} {name} game"


def game_columns(game: Mapping[str, Any]) -> dict[str, Any]:
    """The open-database columns (:data:`COLUMNS`) of one stored game, given the ``lichess_games``
    fields ``game_id, created_at`` (timezone-aware), ``white_name, black_name, white_id, black_id,
    rated, variant, clock_initial_s, clock_increment_s, status, winner, white_rating,
    black_rating, white_rating_diff, black_rating_diff, moves, pgn``."""
    created: dt.datetime = game["created_at"]
    if created.tzinfo is None:
        raise ValueError(f"game {game['game_id']}: created_at {created!r} has no time zone")
    created = created.astimezone(dt.UTC)
    res = result(game["winner"], game["status"])
    tags, movetext = pgn_parts(game["pgn"]) if game["pgn"] else ({}, "")
    if not movetext:
        movetext = numbered_movetext(game["moves"] or "", res)
    return {
        "Event": tags.get("Event") or _event(game["rated"], game["variant"]),
        "Site": f"https://lichess.org/{game['game_id']}",
        "White": game["white_name"] or game["white_id"],
        "Black": game["black_name"] or game["black_id"],
        "Result": res,
        "WhiteTitle": tags.get("WhiteTitle"),
        "BlackTitle": tags.get("BlackTitle"),
        "WhiteElo": game["white_rating"],
        "BlackElo": game["black_rating"],
        "WhiteRatingDiff": game["white_rating_diff"],
        "BlackRatingDiff": game["black_rating_diff"],
        "UTCDate": created.date(),
        "UTCTime": created.timetz().replace(tzinfo=None, microsecond=0),
        "Termination": termination(game["status"]),
        "TimeControl": time_control(game["clock_initial_s"], game["clock_increment_s"]),
        "movetext": movetext,
    }
