"""Game verification: does a game's PGN agree with its JSON, and does the board agree with the result?

Two checks per game, each done once (the verdict is kept by game id; replaying costs ~4 ms):

1. **PGN vs JSON** (python-chess reads the PGN Lichess sent with ``pgnInJson``): White, Black,
   Variant, TimeControl, Result and UTCDate/UTCTime must say what the JSON fields say, and the
   PGN's moves must be the JSON's ``moves``.
2. **Result vs board**: the moves are replayed on python-chess's ``AntichessBoard`` (not
   ``GiveawayBoard``, which allows castling). Where the game ended on the board — a side with
   no pieces or no legal moves wins (reported by Lichess as ``variantEnd`` with a winner), an
   automatic draw — the replayed outcome must be the recorded one; a game Lichess reports as
   ``variantEnd`` must end in a final position. Resignations, flag falls, agreed draws, cheat
   detection and the like end off the board and cannot be checked this way.

A disagreement is a finding for the TD; the Lichess result stands unless a TD overrides it.
Pure: takes the typed game fields, returns a frozen verdict.
"""

from __future__ import annotations

import datetime as dt
import io
from dataclasses import dataclass
from typing import Any, Literal

import chess
import chess.pgn
import chess.variant

from pipeline.timecontrol import parse_pgn_time_control

VerdictKind = Literal["agrees", "off_board", "mismatch", "unreadable"]
RESULTS = {"white": "1-0", "black": "0-1", None: "1/2-1/2"}


@dataclass(frozen=True)
class Verdict:
    game_id: str
    verdict: VerdictKind       # agrees: ended on the board as recorded; off_board: nothing on the board to check
    detail: str                # what disagrees, in a sentence ('' when nothing does)


def _strip(san: str) -> str:
    return san.rstrip("+#")


def verify_game(g: dict[str, Any]) -> Verdict:
    """`g`: game_id, white_name, black_name, variant, clock_initial_s, clock_increment_s, status,
    winner, created_at, moves, pgn (the typed lichess_games columns)."""
    gid = g["game_id"]
    if not g.get("pgn"):
        return Verdict(gid, "unreadable", "no PGN was sent with the game")
    game = chess.pgn.read_game(io.StringIO(g["pgn"]))
    if game is None:
        return Verdict(gid, "unreadable", "the PGN holds no game")
    if game.errors:
        return Verdict(gid, "unreadable", f"the PGN does not replay: {game.errors[0]}")
    h = game.headers
    problems = []

    def differ(what: str, pgn_value: object, json_value: object) -> None:
        problems.append(f"PGN {what} {pgn_value!r} but JSON {json_value!r}")

    for tag, key in (("White", "white_name"), ("Black", "black_name")):
        if (h.get(tag) or "").lower() != (g.get(key) or "").lower():
            differ(tag, h.get(tag), g.get(key))
    if (h.get("Variant", "Standard").lower() == "antichess") != (g.get("variant") == "antichess"):
        differ("Variant", h.get("Variant"), g.get("variant"))
    clock = None if g.get("clock_initial_s") is None else (g["clock_initial_s"], g["clock_increment_s"])
    try:
        tc = parse_pgn_time_control(h.get("TimeControl", "-"))
        pgn_clock: object = (tc.initial_s, tc.increment_s) if tc else None
    except ValueError:
        pgn_clock = "unreadable"
    if pgn_clock != clock:
        differ("TimeControl", h.get("TimeControl"), f"{clock[0]}+{clock[1]}" if clock else "no clock")
    if h.get("Result") != RESULTS.get(g.get("winner")):
        differ("Result", h.get("Result"), g.get("winner") or "draw")
    created = g.get("created_at")
    if isinstance(created, dt.datetime) and "UTCDate" in h and "UTCTime" in h:
        stamp = created.astimezone(dt.UTC).strftime("%Y.%m.%d %H:%M:%S")
        if f"{h['UTCDate']} {h['UTCTime']}" != stamp:
            differ("UTCDate/UTCTime", f"{h['UTCDate']} {h['UTCTime']}", stamp)

    board = game.board()
    sans = []
    for move in game.mainline_moves():
        sans.append(board.san(move))
        board.push(move)
    if g.get("moves") is not None and [_strip(s) for s in sans] != [_strip(s) for s in g["moves"].split()]:
        problems.append(f"the PGN has {len(sans)} plies but the JSON moves differ ({len(g['moves'].split())} plies)")

    if g.get("variant") == "antichess" and not isinstance(board, chess.variant.AntichessBoard):
        problems.append("the PGN does not declare [Variant \"Antichess\"]")
    outcome = board.outcome()
    status, winner = g.get("status"), g.get("winner")
    ended = outcome is not None
    if ended:
        board_winner = None if outcome.winner is None else ("white" if outcome.winner == chess.WHITE else "black")
        if board_winner != winner:
            said = f"{winner} wins" if winner else "a draw"
            shown = f"{board_winner} wins ({outcome.termination.name.lower()})" if board_winner else f"a draw ({outcome.termination.name.lower()})"
            problems.append(f"the final position gives {shown}, Lichess recorded {said} ({status})")
    elif status == "variantEnd":
        problems.append("Lichess recorded variantEnd, but the final position is not over")
    if problems:
        return Verdict(gid, "mismatch", "; ".join(problems))
    return Verdict(gid, "agrees" if ended else "off_board", "")
