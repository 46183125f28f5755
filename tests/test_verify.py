"""Game verification (pipeline/verify.py): PGN vs JSON, final position vs recorded result.

Rules: RULES.md shared definitions (in antichess a stalemated side, or one with no pieces, wins;
Lichess reports `variantEnd` with a winner; no winner is a draw); issue 5 item 3 (a mismatch is
a finding, the Lichess result stands).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import chess.pgn

from pipeline.lichess import parse_game
from pipeline.verify import verify_game

SEASON = Path(__file__).resolve().parent / "data" / "season" / "lichess" / "games.ndjson"
GAMES = {g["id"]: g for g in map(json.loads, SEASON.read_text(encoding="utf-8").splitlines())}


def typed(gid: str, **changes) -> dict:
    return {**parse_game(GAMES[gid]).__dict__, **changes}


def test_stalemated_side_wins_and_the_record_agrees() -> None:
    """Ee6OMiNs ends with Black to move and no legal move (pawn b4 blocked by b3): Black is
    stalemated and wins — Lichess's variantEnd, winner black."""
    board = chess.pgn.read_game(io.StringIO(GAMES["Ee6OMiNs"]["pgn"])).end().board()
    assert board.is_stalemate() and board.turn == chess.BLACK
    assert (GAMES["Ee6OMiNs"]["status"], GAMES["Ee6OMiNs"]["winner"]) == ("variantEnd", "black")
    assert verify_game(typed("Ee6OMiNs")).verdict == "agrees"


def test_a_result_the_board_contradicts_is_a_mismatch() -> None:
    v = verify_game(typed("Ee6OMiNs", winner="white"))
    assert v.verdict == "mismatch"
    assert v.detail == ("PGN Result '0-1' but JSON 'white'; the final position gives black wins (variant_win), "
                        "Lichess recorded white wins (variantEnd)")


def test_variant_end_claimed_on_an_unfinished_position() -> None:
    gid = next(i for i, g in GAMES.items() if g["status"] == "resign")
    v = verify_game(typed(gid, status="variantEnd"))
    assert (v.verdict, v.detail) == ("mismatch", "Lichess recorded variantEnd, but the final position is not over")


def test_resignations_cannot_be_checked_on_the_board() -> None:
    gid = next(i for i, g in GAMES.items() if g["status"] == "resign")
    assert verify_game(typed(gid)).verdict == "off_board"


def test_pgn_headers_must_match_the_json() -> None:
    gid = "Ee6OMiNs"
    v = verify_game(typed(gid, white_name="Someone", clock_initial_s=999))
    tc = GAMES[gid]["clock"]
    assert v.verdict == "mismatch"
    assert v.detail.startswith(f"PGN White '{GAMES[gid]['players']['white']['user']['name']}' but JSON 'Someone'; "
                               f"PGN TimeControl '{tc['initial']}+{tc['increment']}' but JSON '999+{tc['increment']}'")


def test_an_illegal_move_makes_the_pgn_unreadable() -> None:
    gid = "Ee6OMiNs"
    pgn = GAMES[gid]["pgn"].replace("1. ", "1. e5 ", 1)  # a pawn cannot jump to e5
    v = verify_game(typed(gid, pgn=pgn))
    assert v.verdict == "unreadable" and v.detail.startswith("the PGN does not replay: illegal san: 'e5'")


def test_every_game_of_the_season_fixture_verifies() -> None:
    """The fixture's games were played out by python-chess: none may disagree."""
    verdicts = {verify_game(typed(gid)).verdict for gid in list(GAMES)[:300]}
    assert verdicts <= {"agrees", "off_board"}
