"""Game verification (pipeline/domain/verify.py): PGN vs JSON, final position vs recorded result.

Rules: in antichess a stalemated side, or one with no pieces, wins (Lichess reports `variantEnd`
with a winner; no winner is a draw); a mismatch is a finding, the Lichess result stands
(docs/rules.md, Verification).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import chess.pgn

from pipeline.domain.verify import verify_game
from pipeline.lichess.client import parse_game

SEASON = Path(__file__).resolve().parents[1] / "data" / "season" / "lichess" / "games.ndjson"
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
    assert v.detail == (
        "PGN Result '0-1' but JSON 'white'; the final position gives black wins (variant_win), "
        "Lichess recorded white wins (variantEnd)"
    )


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
    assert v.detail.startswith(
        f"PGN White '{GAMES[gid]['players']['white']['user']['name']}' but JSON 'Someone'; "
        f"PGN TimeControl '{tc['initial']}+{tc['increment']}' but JSON '999+{tc['increment']}'"
    )


def test_an_illegal_move_makes_the_pgn_unreadable() -> None:
    gid = "Ee6OMiNs"
    pgn = GAMES[gid]["pgn"].replace("1. ", "1. e5 ", 1)  # a pawn cannot jump to e5
    v = verify_game(typed(gid, pgn=pgn))
    assert v.verdict == "unreadable" and v.detail.startswith("the PGN does not replay: illegal san: 'e5'")


def test_every_game_of_the_season_fixture_verifies() -> None:
    """The fixture's games were played out by python-chess: none may disagree."""
    verdicts = {verify_game(typed(gid)).verdict for gid in list(GAMES)[:300]}
    assert verdicts <= {"agrees", "off_board"}


# --------------------------------------------------------------------------- the one-pass replay
# verify_game reads each PGN in one pass (no game tree, SAN without the suffix look-ahead, captures
# found without generating every move). `reference` is the plain python-chess way it replaced:
# read_game, replay the mainline, take board.san() of each move; both replays are judged by the same
# judge_replay (the checks above test the judging). Both must give the same verdict and detail on
# real games and on PGNs bent every way python-chess's SAN reader allows.

import random  # noqa: E402
from types import SimpleNamespace  # noqa: E402

import chess  # noqa: E402

from pipeline.domain.verify import Verdict, _strip, judge_replay  # noqa: E402


def reference(g: dict) -> Verdict:
    if not g.get("pgn"):
        return verify_game(g)
    game = chess.pgn.read_game(io.StringIO(g["pgn"]))
    if game is None or game.errors:
        return judge_replay(g, game and SimpleNamespace(headers=game.headers, errors=game.errors))
    board = game.board()
    sans = []
    for move in game.mainline_moves():
        sans.append(_strip(board.san(move)))
        board.push(move)
    return judge_replay(g, SimpleNamespace(headers=game.headers, errors=game.errors, board=board, sans=sans))


def _variants(board: chess.Board, move: chess.Move) -> list[str]:
    """Ways of writing `move` that python-chess's parse_san accepts, canonical or not."""
    san = _strip(board.san(move))
    sq = chess.SQUARE_NAMES
    frm, to = sq[move.from_square], sq[move.to_square]
    piece = board.piece_type_at(move.from_square)
    letter = "" if piece == chess.PAWN else chess.piece_symbol(piece).upper()  # type: ignore[arg-type]
    promo = chess.piece_symbol(move.promotion) if move.promotion else ""
    out = [
        san,
        san + "+",
        san.replace("x", ""),
        f"{letter}{frm[0]}{to}{promo.upper() and '=' + promo.upper()}",
        f"{letter}{frm}{to}",
        f"{letter}{frm}x{to}",
        f"{letter}{frm[1]}{to}",
    ]
    if promo:
        out += [
            san.replace("=", ""),
            san[:-1] + promo,
            f"{frm[0]}x{to}{promo.upper()}" if board.is_capture(move) else san,
        ]
    return out


def _bend(g: dict, rng: random.Random) -> dict:
    """One mutation of a game's PGN movetext (or JSON moves) at a random ply."""
    head, _, text = g["pgn"].partition("\n\n")
    tokens = text.split()
    plies = [i for i, t in enumerate(tokens) if not t[0].isdigit() or t[0] in "abcdefgh"]
    plies = [i for i in plies if tokens[i] not in ("1-0", "0-1", "1/2-1/2", "*")]
    if not plies:
        return g
    k = rng.randrange(len(plies))
    board = chess.variant.AntichessBoard()
    for i in plies[:k]:
        board.push_san(tokens[i])
    moves = list(board.legal_moves)
    pseudo = [m for m in board.generate_pseudo_legal_moves() if m not in moves]
    kind = rng.randrange(7)
    if kind == 0:  # the same move written another accepted way
        played = board.parse_san(tokens[plies[k]])
        tokens[plies[k]] = rng.choice(_variants(board, played))
    elif kind == 1 and pseudo:  # a quiet move while a capture is due (illegal in antichess), as SAN or UCI
        m = rng.choice(pseudo)
        piece = board.piece_type_at(m.from_square)
        letter = "" if piece == chess.PAWN else chess.piece_symbol(piece).upper()  # type: ignore[arg-type]
        tokens[plies[k]] = rng.choice([letter + chess.SQUARE_NAMES[m.to_square], m.uci()])
    elif kind == 2:  # another legal move: the rest may no longer replay
        tokens[plies[k]] = _strip(board.san(rng.choice(moves))) if moves else "e4"
    elif kind == 3:  # nonsense and null moves
        tokens[plies[k]] = rng.choice(["Zz9", "--", "O-O", "Ke9", "e8=X", "N", "Qxh9", "0000", "Nbd7", "R1a3"])
    elif kind == 4:  # a comment, a variation and a NAG
        tokens.insert(plies[k], "{ a comment } $1 ( 12. e3 e6 ) ")
    elif kind == 5:  # the game cut short, the result kept
        tokens = [t for i, t in enumerate(tokens) if i < plies[k] or i not in plies]
    else:  # the JSON moves differ instead
        ms = g["moves"].split()
        j = rng.randrange(len(ms))
        g = {**g, "moves": " ".join(ms[:j] + ms[j + 1 :])}
    return {**g, "pgn": head + "\n\n" + " ".join(tokens) + "\n"}


def test_one_pass_replay_agrees_with_python_chess_on_every_game() -> None:
    for gid in GAMES:
        g = typed(gid)
        assert verify_game(g) == reference(g), gid


def test_one_pass_replay_agrees_with_python_chess_on_bent_pgns() -> None:
    """Over-disambiguated, long-algebraic, x-less and =-less SAN, illegal quiet moves while a
    capture is due, other legal moves, nonsense tokens, comments and variations, cut games,
    altered JSON moves and a PGN without its Variant tag: the same verdict and detail."""
    rng = random.Random(5)
    ids = sorted(GAMES)
    kinds = set()
    for n in range(1500):
        g = _bend(typed(ids[n % len(ids)]), rng)
        if n % 50 == 0:
            g = {**g, "pgn": g["pgn"].replace('[Variant "Antichess"]\n', "")}
        v = verify_game(g)
        assert v == reference(g), (g["game_id"], g["pgn"])
        kinds.add(v.verdict)
    assert kinds >= {"agrees", "off_board", "mismatch", "unreadable"}
