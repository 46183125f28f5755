"""The demo tournament: a deterministic TEAM Swiss season written in the Lichess dataset layout.

``build_demo(out, seed)`` writes (same seed → byte-identical files)::

    out/tournament.toml     names the team-swiss preset; serves out/lichess in-process
    out/teams.csv           10 teams of 4, one with a substitute
    out/pairings.csv        Swiss rounds 1-3
    out/lichess/            users.ndjson, rating-history/<id>.json, games.ndjson (pgnInJson)

Every game is a legal antichess game played out on python-chess's ``AntichessBoard``: a game
that ends on the board gets ``variantEnd`` (the side with no pieces or no moves wins) or
``draw``; a game cut short gets ``resign``/``outoftime``/``draw`` by agreement with the side
chosen from the players' ratings. The PGN carries the same players, clock, result and moves as
the JSON. Ratings move game by game (``rating`` is pre-game, ``ratingDiff`` the change) and the
rating history holds the rating after each UTC day's last rated game.

This first demo is small on purpose; the realistic season (Glicko-2 histories over years,
ACWC qualification, planted rule violations) builds on these same helpers.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import chess.variant

from pipeline.timecontrol import TimeControl, parse_time_control

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
ID_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def ms(t: dt.datetime) -> int:
    return (t - EPOCH) // dt.timedelta(milliseconds=1)


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
    Cached: replaying costs ~4 ms a game, and benchmarks reuse a pool of games."""
    board = chess.variant.AntichessBoard() if variant == "Antichess" else chess.Board()
    game = chess.pgn.Game.from_board(board)
    node = game
    for san in sans:
        move = node.board().parse_san(san)
        node = node.add_variation(move)
    game.headers["Result"] = result
    return game.accept(chess.pgn.StringExporter(headers=False, variations=False, comments=False))


def pgn_text(game_id: str, white: str, black: str, tc: TimeControl | None, created_at: dt.datetime,
             played: PlayedGame, rated: bool, white_elo: int, black_elo: int,
             white_diff: int | None, black_diff: int | None, variant: str = "Antichess") -> str:
    """The PGN Lichess exports for such a game, headers in Lichess's order (reference/games)."""
    result = _result(played.winner)
    headers = [
        ("Event", f"{'Rated' if rated else 'Casual'} {variant} game"),
        ("Site", f"https://lichess.org/{game_id}"),
        ("Date", created_at.strftime("%Y.%m.%d")),
        ("Round", "-"),
        ("White", white),
        ("Black", black),
        ("Result", result),
        ("GameId", game_id),
        ("UTCDate", created_at.strftime("%Y.%m.%d")),
        ("UTCTime", created_at.strftime("%H:%M:%S")),
        ("WhiteElo", str(white_elo)),
        ("BlackElo", str(black_elo)),
    ]
    if white_diff is not None and black_diff is not None:
        headers += [("WhiteRatingDiff", f"{white_diff:+d}"), ("BlackRatingDiff", f"{black_diff:+d}")]
    headers += [
        ("Variant", variant),
        ("TimeControl", tc.pgn_tag if tc else "-"),
        ("ECO", "?"),
        ("Termination", "Time forfeit" if played.status == "outoftime" else "Normal"),
    ]
    head = "".join(f'[{k} "{v}"]\n' for k, v in headers)
    return f"{head}\n{movetext(played.sans, result, variant)}\n\n\n"


def game_json(game_id: str, white: DemoPlayer, black: DemoPlayer, tc: TimeControl | None,
              created_at: dt.datetime, last_move_at: dt.datetime, played: PlayedGame, rated: bool,
              white_diff: int | None, black_diff: int | None, variant: str = "antichess") -> dict[str, Any]:
    """A game as GET /api/games/user/{name}?pgnInJson=true returns it (fields in Lichess's order)."""
    def side(p: DemoPlayer, diff: int | None) -> dict[str, Any]:
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
        g["clock"] = {"initial": tc.initial_s, "increment": tc.increment_s, "totalTime": tc.initial_s + 40 * tc.increment_s}
    g["pgn"] = pgn_text(game_id, white.name, black.name, tc, created_at, played, rated, white.rating, black.rating,
                        white_diff, black_diff, "Antichess" if variant == "antichess" else "Standard")
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


def history_json(p: DemoPlayer) -> list[dict[str, Any]]:
    points = [[d.year, d.month - 1, d.day, r] for d, r in sorted(p.history.items())]
    names = ["UltraBullet", "Bullet", "Blitz", "Rapid", "Classical", "Correspondence", "Crazyhouse", "Chess960",
             "King of the Hill", "Three-check", "Antichess", "Atomic", "Horde", "Racing Kings", "Puzzles"]
    return [{"name": n, "points": points if n == "Antichess" else []} for n in names]


class World:
    """Players, games and the clock of a generated season."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.games: list[dict[str, Any]] = []
        self.ids: set[str] = set()

    def new_id(self) -> str:
        while True:
            gid = "".join(self.rng.choice(ID_ALPHABET) for _ in range(8))
            if gid not in self.ids:
                self.ids.add(gid)
                return gid

    def play(self, white: DemoPlayer, black: DemoPlayer, tc: TimeControl, start: dt.datetime, rated: bool = True,
             variant: str = "antichess", want: str | None = ANY, game_id: str | None = None,
             played: PlayedGame | None = None) -> dt.datetime:
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


SYLLABLES = ["anti", "zug", "pawn", "rook", "giv", "away", "los", "er", "king", "cap", "ture", "blitz", "mate",
             "sac", "fork", "pin", "tempo", "nova", "lux", "vex", "quill", "dusk", "ember", "frost"]
TEAM_NAMES = ["Forced Captures", "Zugzwang Zebras", "Suicide Squad", "Giveaway Guild", "Stalemate Stars",
              "Pawn Stormers", "Kingless Knights", "Empty Board", "Last Piece Standing", "Capture Cartel"]


def _username(rng: random.Random, taken: set[str]) -> str:
    while True:
        name = "".join(rng.choice(SYLLABLES).capitalize() if i == 0 else rng.choice(SYLLABLES) for i in range(2))
        name += rng.choice(["", "_", ""]) + str(rng.randint(1, 99))
        if name.lower() not in taken:
            taken.add(name.lower())
            return name


def _schedule(teams: list[str], rounds: int) -> list[list[tuple[str, str]]]:
    """Circle-method pairings: no rematch within len(teams) - 1 rounds."""
    n = len(teams)
    order = list(range(n))
    out = []
    for _ in range(rounds):
        out.append([(teams[order[i]], teams[order[n - 1 - i]]) for i in range(n // 2)])
        order = [order[0], order[-1], *order[1:-1]]
    return out


def build_demo(out: Path, seed: int = 2026) -> None:
    """Write the demo tournament under ``out`` (deterministic for a seed)."""
    world = World(seed)
    rng = world.rng
    taken: set[str] = set()
    start = dt.datetime(2026, 9, 1, tzinfo=dt.UTC)  # a Tuesday (TEAM-FMT-3)
    rounds_played = 3
    parts = [(parse_time_control(tc), n) for tc, n in (("0+2", 8), ("2+5", 4), ("1+2", 6))]  # TEAM-SCORE-2 order

    roster: dict[str, list[DemoPlayer]] = {}
    for t_i, team in enumerate(TEAM_NAMES):
        strength = 2250 - 25 * t_i
        members = []
        for board in range(1, 5 + (1 if t_i == 2 else 0)):
            created = dt.datetime(2019 + rng.randint(0, 4), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), tzinfo=dt.UTC)
            members.append(DemoPlayer(_username(rng, taken), strength - 60 * (board - 1) + rng.randint(-20, 20),
                                      created, rng.randint(1200, 4000)))
        members[:4] = sorted(members[:4], key=lambda p: -p.rating)
        roster[team] = members
    for members in roster.values():
        for p in members:
            p.history[dt.date(2026, 8, 31)] = p.rating

    everyone = [p for ms_ in roster.values() for p in ms_]
    # background rated antichess games in August, at the parts' and other clocks
    clocks = [parse_time_control(t) for t in ("0+2", "1+2", "2+5", "1+0", "3+0", "0.5+1")]
    clock = dt.datetime(2026, 8, 3, 9, tzinfo=dt.UTC)
    for _ in range(len(everyone) * 3):
        a, b = rng.sample(everyone, 2)
        clock = world.play(a, b, rng.choice(clocks), clock + dt.timedelta(minutes=rng.randint(20, 300)))

    pairings_rows = []
    schedule = _schedule(TEAM_NAMES, rounds_played)
    for r_i, matches in enumerate(schedule, 1):
        window = start + dt.timedelta(days=7 * (r_i - 1))
        for m_i, (ta, tb) in enumerate(matches):
            pairings_rows.append(("swiss", r_i, ta, tb))
            day = window + dt.timedelta(days=1 + (m_i % 5), hours=15 + m_i)
            for board in range(1, 5):
                pa, pb = roster[ta][board - 1], roster[tb][board - 1]
                t = day + dt.timedelta(minutes=3 * board)
                n_game = 0
                for tc, n in parts:
                    for _ in range(n):
                        white, black = (pa, pb) if n_game % 2 == 0 else (pb, pa)
                        t = world.play(white, black, tc, t) + dt.timedelta(seconds=rng.randint(5, 40))
                        n_game += 1
                # planted quirks, each a reason linking must give
                if (r_i, m_i, board) == (1, 0, 2):  # a 9th 0+2 game: extra_game
                    world.play(pa, pb, parts[0][0], t + dt.timedelta(minutes=2))
                if (r_i, m_i, board) == (2, 0, 1):  # a 3+0 game between the paired players: wrong_time_control
                    world.play(pb, pa, parse_time_control("3+0"), t + dt.timedelta(minutes=2))
                if (r_i, m_i, board) == (2, 1, 3):  # a game the day after the window closed: outside_window
                    world.play(pa, pb, parts[2][0], window + dt.timedelta(days=7, hours=12))

    lichess_dir = out / "lichess"
    (lichess_dir / "rating-history").mkdir(parents=True, exist_ok=True)
    seen = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    with (lichess_dir / "users.ndjson").open("w", encoding="utf-8", newline="\n") as f:
        for p in everyone:
            f.write(json.dumps(user_json(p, seen)) + "\n")
    for p in everyone:
        (lichess_dir / "rating-history" / f"{p.id}.json").write_text(json.dumps(history_json(p)) + "\n", encoding="utf-8")
    with (lichess_dir / "games.ndjson").open("w", encoding="utf-8", newline="\n") as f:
        for g in sorted(world.games, key=lambda g: (g["createdAt"], g["id"])):
            f.write(json.dumps(g) + "\n")

    with (out / "teams.csv").open("w", encoding="utf-8", newline="\n") as f:
        f.write("team,player,board,title,captain\n")
        for t_i, (team, members) in enumerate(roster.items()):
            for board, p in enumerate(members, 1):
                title = "AGM" if board == 1 and t_i < 4 else ""
                f.write(f"{team},{p.name},{board},{title},{'yes' if board == 1 else ''}\n")
    with (out / "pairings.csv").open("w", encoding="utf-8", newline="\n") as f:
        f.write("stage,round,a,b\n")
        for stage, r, a, b in pairings_rows:
            f.write(f"{stage},{r},{a},{b}\n")
    (out / "tournament.toml").write_text(DEMO_TOML, encoding="utf-8")


DEMO_TOML = """\
# The demo tournament: a TEAM Swiss season in progress (rounds 1-3 of 7 played).
# Built by `antichess-td demo --out data/demo`; the Lichess data is served from ./lichess
# by a replay server the nightly run starts in-process, so it runs offline.
preset = "team-swiss"

[tournament]
id = "demo-team-swiss-2026"
name = "Antichess Team Swiss 2026 (demo)"
registration_at = "2026-08-25T00:00:00Z"

[lichess]
replay_data = "lichess"
replay_games_per_s = 0          # serve the demo unthrottled (lichess.org sends ~30 games/s to a token holder)

[paths]
teams = "teams.csv"
pairings = "pairings.csv"
database = "out/demo.duckdb"
exports = "out/exports"

[stages.swiss]
first_round_start = "2026-09-01T00:00:00Z"   # a Tuesday; each round runs to Monday 23:59:59 UTC
"""
