"""Lichess-shaped test data: games played out on python-chess's board, in the API's wire format.

* ``play_out``: random legal antichess moves until the board ends the game (``variantEnd`` for the
  side with no pieces or no moves, or a draw) or the game is cut short (resignation, flag fall,
  agreed draw), optionally forced to a result.
* ``game_json`` / ``pgn_text`` / ``user_json`` / ``history_json``: the JSON and PGN Lichess
  exports for such games and players (headers and fields in Lichess's order).
* ``EloWorld`` / ``DemoPlayer``: a tiny simple-Elo world for hand-made test fixtures
  (tests/data/skeleton); the realistic demo with Glicko-2 histories is ``pipeline.sim.season``
  (its ``SeasonWorld``).
"""

from __future__ import annotations

import datetime as dt
import functools
import random
from dataclasses import dataclass, field
from typing import Any, Protocol

import chess
import chess.pgn
import chess.variant

from pipeline.model import TimeControl

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
ID_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def ms(t: dt.datetime) -> int:
    return (t - EPOCH) // dt.timedelta(milliseconds=1)


def new_game_id(rng: random.Random, taken: set[str]) -> str:
    """A fresh 8-character Lichess-style game id (recorded in `taken`)."""
    while True:
        gid = "".join(rng.choice(ID_ALPHABET) for _ in range(8))
        if gid not in taken:
            taken.add(gid)
            return gid


def speed_of(tc: TimeControl) -> str:
    total = tc.initial_s + 40 * tc.increment_s
    for limit, name in ((29, "ultraBullet"), (179, "bullet"), (479, "blitz"), (1499, "rapid"), (21599, "classical")):
        if total <= limit:
            return name
    return "correspondence"


@dataclass
class DemoPlayer:
    name: str
    rating: int
    created_at: dt.datetime
    prior_games: int
    rated_games: int = 0
    history: dict[dt.date, int] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.name.lower()


class GameSide(Protocol):
    """What a game's JSON shows of a player: name, id and the pre-game integer rating."""

    @property
    def name(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def rating(self) -> int: ...


class RatingHistory(Protocol):
    """A player's rating after each day's last rated game."""

    @property
    def history(self) -> dict[dt.date, int]: ...


@dataclass(frozen=True)
class PlayedGame:
    """Moves of a finished antichess game and how it ended."""

    sans: tuple[str, ...]
    status: str
    winner: str | None  # 'white' | 'black' | None


ANY = "any"


def play_out(rng: random.Random, white_expected: float, max_plies: int = 90, want: str | None = ANY) -> PlayedGame:
    """Random legal antichess moves until the board ends the game or the game is cut short.

    A game the board ends keeps the board's verdict (``outcome()``: stalemated or piece-less side
    wins, insufficient material draws). A cut game is resigned or flagged by the side the
    ratings make more likely to lose, or agreed drawn. ``want`` ('white', 'black' or None for a
    draw) asks for a given result: games the board ends otherwise are replayed.
    """
    while True:
        game = _play_once(rng, white_expected, max_plies, want)
        if want == ANY or game.winner == want:
            return game


def _play_once(rng: random.Random, white_expected: float, max_plies: int, want: str | None) -> PlayedGame:
    board = chess.variant.AntichessBoard()
    cut = rng.randint(30, max_plies)
    sans: list[str] = []
    while len(sans) < cut:
        outcome = board.outcome()
        if outcome is not None:
            if outcome.winner is None:
                return PlayedGame(tuple(sans), "draw", None)
            return PlayedGame(tuple(sans), "variantEnd", "white" if outcome.winner == chess.WHITE else "black")
        move = rng.choice(list(board.legal_moves))
        sans.append(board.san(move))
        board.push(move)
    outcome = board.outcome()
    if outcome is not None:
        winner = None if outcome.winner is None else ("white" if outcome.winner == chess.WHITE else "black")
        return PlayedGame(tuple(sans), "variantEnd" if winner else "draw", winner)
    r = rng.random()
    if want is None or (want == ANY and r < 0.06):
        return PlayedGame(tuple(sans), "draw", None)
    winner = want if want != ANY else ("white" if rng.random() < white_expected else "black")
    return PlayedGame(tuple(sans), "outoftime" if r < 0.25 else "resign", winner)


def _result(winner: str | None) -> str:
    return {"white": "1-0", "black": "0-1", None: "1/2-1/2"}[winner]


@functools.lru_cache(maxsize=4096)
def movetext(sans: tuple[str, ...], result: str, variant: str = "Antichess") -> str:
    """The PGN movetext of a move list (python-chess checks every move on the variant's board).
    Cached: the demo's 49,614 games reuse a pool of about 180 move lists. The moves are pushed on
    one board and the game is built from its move stack: asking each node of a game tree for its
    board replays the game from the start, and cost a seventh of a demo build."""
    board = chess.variant.AntichessBoard() if variant == "Antichess" else chess.Board()
    for san in sans:
        board.push(board.parse_san(san))
    game = chess.pgn.Game.from_board(board)
    game.headers["Result"] = result
    return game.accept(chess.pgn.StringExporter(headers=False, variations=False, comments=False))


def pgn_text(
    game_id: str,
    white: str,
    black: str,
    tc: TimeControl | None,
    created_at: dt.datetime,
    played: PlayedGame,
    rated: bool,
    white_elo: int,
    black_elo: int,
    white_diff: int | None,
    black_diff: int | None,
    variant: str = "Antichess",
) -> str:
    """The PGN Lichess exports for such a game, headers in the order of Lichess's real exports."""
    result = _result(played.winner)
    # one template, dates formatted by hand: strftime and a join over (tag, value) pairs were most
    # of this function's cost, which the demo pays for each of its games (49,614 by default)
    day = f"{created_at.year:04d}.{created_at.month:02d}.{created_at.day:02d}"
    diffs = (
        f'[WhiteRatingDiff "{white_diff:+d}"]\n[BlackRatingDiff "{black_diff:+d}"]\n'
        if white_diff is not None and black_diff is not None
        else ""
    )
    head = (
        f'[Event "{"Rated" if rated else "Casual"} {variant} game"]\n'
        f'[Site "https://lichess.org/{game_id}"]\n'
        f'[Date "{day}"]\n'
        '[Round "-"]\n'
        f'[White "{white}"]\n'
        f'[Black "{black}"]\n'
        f'[Result "{result}"]\n'
        f'[GameId "{game_id}"]\n'
        f'[UTCDate "{day}"]\n'
        f'[UTCTime "{created_at.hour:02d}:{created_at.minute:02d}:{created_at.second:02d}"]\n'
        f'[WhiteElo "{white_elo}"]\n'
        f'[BlackElo "{black_elo}"]\n'
        f"{diffs}"
        f'[Variant "{variant}"]\n'
        f'[TimeControl "{tc.pgn_tag if tc else "-"}"]\n'
        '[ECO "?"]\n'
        f'[Termination "{"Time forfeit" if played.status == "outoftime" else "Normal"}"]\n'
    )
    return f"{head}\n{movetext(played.sans, result, variant)}\n\n\n"


def game_json(
    game_id: str,
    white: GameSide,
    black: GameSide,
    tc: TimeControl | None,
    created_at: dt.datetime,
    last_move_at: dt.datetime,
    played: PlayedGame,
    rated: bool,
    white_diff: int | None,
    black_diff: int | None,
    variant: str = "antichess",
) -> dict[str, Any]:
    """A game as GET /api/games/user/{name}?pgnInJson=true returns it (fields in Lichess's order)."""

    def side(p: GameSide, diff: int | None) -> dict[str, Any]:
        d: dict[str, Any] = {"user": {"name": p.name, "id": p.id}, "rating": p.rating}
        if diff is not None:
            d["ratingDiff"] = diff
        return d

    g: dict[str, Any] = {
        "id": game_id,
        "rated": rated,
        "variant": variant,
        "speed": speed_of(tc) if tc else "correspondence",
        "perf": variant if variant == "antichess" else speed_of(tc) if tc else "correspondence",
        "createdAt": ms(created_at),
        "lastMoveAt": ms(last_move_at),
        "status": played.status,
        "source": "friend",
        "players": {"white": side(white, white_diff), "black": side(black, black_diff)},
    }
    if played.winner:
        g["winner"] = played.winner
    g["moves"] = " ".join(played.sans)
    if tc:
        g["clock"] = {
            "initial": tc.initial_s,
            "increment": tc.increment_s,
            "totalTime": tc.initial_s + 40 * tc.increment_s,
        }
    g["pgn"] = pgn_text(
        game_id,
        white.name,
        black.name,
        tc,
        created_at,
        played,
        rated,
        white.rating,
        black.rating,
        white_diff,
        black_diff,
        "Antichess" if variant == "antichess" else "Standard",
    )
    return g


def user_json(p: DemoPlayer, seen_at: dt.datetime) -> dict[str, Any]:
    games = p.prior_games + p.rated_games
    return {
        "id": p.id,
        "username": p.name,
        "perfs": {"antichess": {"games": games, "rating": p.rating, "rd": 60, "prog": 0}},
        "createdAt": ms(p.created_at),
        "seenAt": ms(seen_at),
        "playTime": {"total": games * 300, "tv": 0},
    }


def history_json(p: RatingHistory) -> list[dict[str, Any]]:
    points = [[d.year, d.month - 1, d.day, r] for d, r in sorted(p.history.items())]
    names = [
        "UltraBullet",
        "Bullet",
        "Blitz",
        "Rapid",
        "Classical",
        "Correspondence",
        "Crazyhouse",
        "Chess960",
        "King of the Hill",
        "Three-check",
        "Antichess",
        "Atomic",
        "Horde",
        "Racing Kings",
        "Puzzles",
    ]
    return [{"name": n, "points": points if n == "Antichess" else []} for n in names]


class EloWorld:
    """Players, games and the clock of a hand-made fixture: each rated game moves the ratings by
    simple Elo (K = 20), not Glicko-2."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.games: list[dict[str, Any]] = []
        self.ids: set[str] = set()

    def new_id(self) -> str:
        return new_game_id(self.rng, self.ids)

    def play(
        self,
        white: DemoPlayer,
        black: DemoPlayer,
        tc: TimeControl,
        start: dt.datetime,
        rated: bool = True,
        variant: str = "antichess",
        want: str | None = ANY,
        game_id: str | None = None,
        played: PlayedGame | None = None,
    ) -> dt.datetime:
        """Play one game starting at ``start``; update ratings and history; return its end time."""
        expected = 1 / (1 + 10 ** ((black.rating - white.rating) / 400))
        if played is None:
            played = play_out(self.rng, expected, want=want)
        plies = max(len(played.sans), 2)
        per_move = tc.initial_s / 40 + tc.increment_s * 0.7 + 0.5
        duration = dt.timedelta(seconds=round(min(plies * per_move, 2 * tc.initial_s + plies * tc.increment_s + 5) + 3))
        end = start + duration
        wd = bd = None
        if rated and variant == "antichess":
            score = {"white": 1.0, "black": 0.0, None: 0.5}[played.winner]
            wd = round(20 * (score - expected))
            bd = -wd
        gid = game_id or self.new_id()
        self.ids.add(gid)
        self.games.append(game_json(gid, white, black, tc, start, end, played, rated, wd, bd, variant))
        if wd is not None and bd is not None:
            for p, d in ((white, wd), (black, bd)):
                p.rating += d
                p.rated_games += 1
                p.history[end.date()] = p.rating
        return end
