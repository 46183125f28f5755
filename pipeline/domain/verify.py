"""Game verification: does a game's PGN agree with its JSON, and does the board agree with the result?

Two checks per game, each done once (the verdict is kept by game id; reading and replaying a
game of ~50 plies costs about 1 ms, see ``_Replay``):

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
import re
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import chess
import chess.pgn
import chess.variant

from pipeline.domain.timecontrol import parse_pgn_time_control

VerdictKind = Literal["agrees", "off_board", "mismatch", "unreadable"]
RESULTS = {"white": "1-0", "black": "0-1", None: "1/2-1/2"}


@dataclass(frozen=True)
class Verdict:
    game_id: str
    verdict: VerdictKind  # agrees: ended on the board as recorded; off_board: nothing on the board to check
    detail: str  # what disagrees, in a sentence ('' when nothing does)

    @property
    def disagrees(self) -> bool:
        """The PGN or the board disagrees with the JSON (a finding for the TD)."""
        return self.verdict in ("mismatch", "unreadable")


def _strip(san: str) -> str:
    return san.rstrip("+#")


class _Replay(chess.pgn.BaseVisitor["_Replay"]):
    """One pass over a PGN: its headers, parse errors, the mainline's moves as SAN without the
    check suffix (what ``_strip(board.san(move))`` gives) and the final position. The same
    result as ``chess.pgn.read_game`` followed by replaying its mainline and asking ``board.san``
    for each move (tests/domain/test_verify.py compares the two), at less than half the cost (2.3 →
    1.0 ms a game on the 64-team demo): no game tree, no second replay, no look-ahead for the
    +/# suffix that is stripped anyway (in antichess it costs a full move generation per ply),
    and captures found without generating every move (``_parse_san``)."""

    def begin_game(self) -> None:
        self.headers = chess.pgn.Headers()
        self.errors: list[Exception] = []
        self.sans: list[str] = []
        self.board: chess.Board | None = None  # the mainline board, pushed in place by read_game
        self.depth = 0  # inside a variation (Lichess sends none)
        self.token = ""

    def begin_headers(self) -> chess.pgn.Headers:
        return self.headers

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def visit_board(self, board: chess.Board) -> None:
        if self.board is None:
            self.board = board

    def begin_variation(self) -> None:
        self.depth += 1

    def end_variation(self) -> None:
        self.depth -= 1

    def visit_result(self, result: str) -> None:
        if self.headers.get("Result", "*") == "*":  # as chess.pgn.GameBuilder
            self.headers["Result"] = result

    def begin_parse_san(self, board: chess.Board, san: str) -> None:
        self.token = san

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        return _parse_san(board, san)

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        if self.depth == 0:
            self.sans.append(_san(board, move, self.token))

    def handle_error(self, error: Exception) -> None:
        chess.pgn.LOGGER.error("%s while parsing a game", error)
        self.errors.append(error)

    def result(self) -> _Replay:
        return self


def _parse_san(board: chess.Board, san: str) -> chess.Move:
    """``board.parse_san(san)`` for an antichess board, without generating every capture when
    the move is itself a capture. The candidates are the pseudo-legal moves from the pieces the
    SAN can mean to its square, as python-chess's parse_san chooses them. In antichess a capture
    is always legal, and a quiet move is legal only when the side to move has no capture at all
    (the rule AntichessBoard.generate_legal_moves applies). A single legal candidate is the move;
    anything else (no or several candidates, other SAN forms, other variants, castling rights)
    is left to python-chess, which raises the same error as before or returns its move."""
    m = chess.SAN_REGEX.match(san)
    if (
        m is None
        or m.group(3)
        or (m.group(1) and m.group(2))
        or type(board) is not chess.variant.AntichessBoard
        or board.castling_rights
        or board.is_variant_end()
    ):
        return board.parse_san(san)
    to_square = chess.SQUARE_NAMES.index(m.group(4))
    to_mask = chess.BB_SQUARES[to_square] & ~board.occupied_co[board.turn]
    p = m.group(5)
    promotion = chess.PIECE_SYMBOLS.index(p[-1].lower()) if p else None
    from_mask = chess.BB_ALL
    if m.group(2):
        from_mask &= chess.BB_FILES[chess.FILE_NAMES.index(m.group(2))]
    if m.group(1):
        from_mask &= board.pieces_mask(chess.PIECE_SYMBOLS.index(m.group(1).lower()), board.turn)
    else:
        from_mask &= board.pawns
        if not m.group(2):
            from_mask &= chess.BB_FILES[chess.square_file(to_square)]
    moves = [mv for mv in board.generate_pseudo_legal_moves(from_mask, to_mask) if mv.promotion == promotion]
    legal = [mv for mv in moves if board.is_capture(mv)]
    if not legal and moves and not any(board.generate_pseudo_legal_captures()):
        legal = moves
    if len(legal) == 1:
        return legal[0]
    return board.parse_san(san)


_PIECE_SAN = re.compile(r"^[NBRQK]x?[a-h][1-8][+#]?$")  # a piece move without a disambiguating file or rank


def _san(board: chess.Board, move: chess.Move, token: str) -> str:
    """``board.san(move)`` without its +/# suffix, for the move `token` parsed to. A piece move
    written without a disambiguating file or rank parsed only because no other piece of its kind
    could legally go there, so it needs none; pawn moves never need a search. Anything else
    (disambiguated, castling, null moves, castling rights on the board) asks python-chess."""
    piece = board.piece_type_at(move.from_square) if move else None
    if piece is None or board.castling_rights or (piece != chess.PAWN and not _PIECE_SAN.match(token)):
        return _strip(board.san(move))
    capture = board.is_capture(move)
    if piece == chess.PAWN:
        san = chess.FILE_NAMES[chess.square_file(move.from_square)] + "x" if capture else ""
    else:
        san = chess.piece_symbol(piece).upper() + ("x" if capture else "")
    san += chess.SQUARE_NAMES[move.to_square]
    if move.promotion:
        san += "=" + chess.piece_symbol(move.promotion).upper()
    return san


_PLAYER_TAGS = re.compile(r'^\[(White|Black)[^\S\n]+"([^\r\n]*)"\][^\S\n]*$', re.MULTILINE)
"""chess.pgn.TAG_REGEX for these two tags, over a block of header lines (a tag's line does not
run on into the next one)."""
_NOT_A_HEADER = re.compile(r"\n(?!\[)")  # a line that does not start with "[": the header lines end before it


def pgn_players(pgn: str) -> dict[str, str]:
    """The ``White``/``Black`` tags of a PGN's first game, as ``chess.pgn.read_headers`` reads them
    (the header lines, each ``[`` line up to the first other line; no unescaping; the last of a
    repeated tag wins; tests/lichess/test_bad_lichess_data.py compares the two on every game of the season
    fixture) at about an eighth of the cost (benchmarks/pgn_headers.py), since ingest reads every
    game's: the header lines are found and matched by two regular expressions, not line by line."""
    text = pgn.lstrip("\ufeff \t\r\n")
    if not text.startswith("["):
        return {}
    end = _NOT_A_HEADER.search(text)
    return dict(_PLAYER_TAGS.findall(text if end is None else text[: end.start()]))


def pgn_players_problem(pgn: str | None, white_name: str | None, black_name: str | None) -> str | None:
    """The ingest-time check (headers only, no replay): do the PGN's ``[White]``/``[Black]`` tags
    name the JSON's players? A sentence saying what differs, or None. A PGN without the tags,
    or no PGN, is left to :func:`verify_game` (match games only); a side the JSON names no account
    for (the AI, an anonymous player: the PGN says e.g. 'lichess AI level 3') is not compared."""
    if not pgn:
        return None
    tags = pgn_players(pgn)
    problems = [
        f"PGN {tag} {tags[tag]!r} but JSON {name!r}"
        for tag, name in (("White", white_name), ("Black", black_name))
        if name is not None and tag in tags and tags[tag].lower() != name.lower()
    ]
    return "; ".join(problems) or None


def verify_game(g: dict[str, Any]) -> Verdict:
    """`g`: game_id, white_name, black_name, variant, clock_initial_s, clock_increment_s, status,
    winner, created_at, moves, pgn (the typed lichess_games columns)."""
    if not g.get("pgn"):
        return Verdict(g["game_id"], "unreadable", "no PGN was sent with the game")
    return judge_replay(g, chess.pgn.read_game(io.StringIO(g["pgn"]), Visitor=_Replay))


def verify_rows(rows: list[dict[str, Any]]) -> list[Verdict]:
    """:func:`verify_game` of each row, in order: what the ingest's worker process runs on a batch
    (pipeline/lichess/verifier.py), a top-level function so that it pickles by name, and the worker
    imports no more than this module and python-chess to run it."""
    return [verify_game(g) for g in rows]


class Replayed(Protocol):
    """What a PGN read and replayed gives (``_Replay``): its headers, parse errors, the final
    position and the mainline's moves as SAN without the +/# suffix."""

    headers: chess.pgn.Headers
    errors: list[Exception]
    board: chess.Board | None
    sans: list[str]


def judge_replay(g: dict[str, Any], game: Replayed | None) -> Verdict:
    """The verdict on `g` (see :func:`verify_game`) from its PGN read and replayed (None: the PGN
    holds no game). tests/domain/test_verify.py gives it python-chess's own replay to check ``_Replay``."""
    gid = g["game_id"]
    if game is None:
        return Verdict(gid, "unreadable", "the PGN holds no game")
    if game.errors:
        return Verdict(gid, "unreadable", f"the PGN does not replay: {game.errors[0]}")
    problems = _header_problems(game.headers, g)
    board, sans = game.board, game.sans
    assert board is not None  # read_game visits the starting board of every game it returns
    if g.get("moves") is not None and sans != [_strip(s) for s in g["moves"].split()]:
        problems.append(f"the PGN has {len(sans)} plies but the JSON moves differ ({len(g['moves'].split())} plies)")
    if g.get("variant") == "antichess" and not isinstance(board, chess.variant.AntichessBoard):
        problems.append('the PGN does not declare [Variant "Antichess"]')
    ended, problem = _ending_problem(board, g.get("status"), g.get("winner"))
    if problem:
        problems.append(problem)
    if problems:
        return Verdict(gid, "mismatch", "; ".join(problems))
    return Verdict(gid, "agrees" if ended else "off_board", "")


def _header_problems(h: Any, g: dict[str, Any]) -> list[str]:
    """Where the PGN's tags (players, variant, time control, result, start time) disagree with the JSON."""
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
    return problems


def _ending_problem(board: chess.Board, status: str | None, winner: str | None) -> tuple[bool, str | None]:
    """Whether the final position is over, and where it disagrees with how Lichess recorded the end."""
    outcome = board.outcome()
    if outcome is not None:
        board_winner = None if outcome.winner is None else ("white" if outcome.winner == chess.WHITE else "black")
        if board_winner == winner:
            return True, None
        said = f"{winner} wins" if winner else "a draw"
        how = outcome.termination.name.lower()
        shown = f"{board_winner} wins ({how})" if board_winner else f"a draw ({how})"
        return True, f"the final position gives {shown}, Lichess recorded {said} ({status})"
    if status == "variantEnd":
        return False, "Lichess recorded variantEnd, but the final position is not over"
    return False, None
