"""A small Glicko-2 world rated exactly as Lichess rates antichess (pipeline.domain.glicko), with the true
post-game RD of every game of the tracked players: the estimator's test bench (TEAM-CAP-5).

Unlike the demo (new accounts at volatility 0.09), the players here start established at a
chosen volatility, take breaks of weeks to months, and meet each other as well as outsiders, so
the estimator's bounds are checked on a world it was not tuned on.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

import polars as pl

from pipeline.domain import glicko

T0 = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)


@dataclass
class _P:
    id: str
    strength: float
    rating: glicko.Rating


GAMES_SCHEMA = {
    "game_id": pl.Utf8,
    "created_at": pl.Datetime("us", "UTC"),
    "last_move_at": pl.Datetime("us", "UTC"),
    "white_id": pl.Utf8,
    "black_id": pl.Utf8,
    "white_rating": pl.Int32,
    "black_rating": pl.Int32,
    "white_rating_diff": pl.Int32,
    "black_rating_diff": pl.Int32,
    "winner": pl.Utf8,
    "status": pl.Utf8,
}
"""The columns of the rated games the RD estimator reads (sql/queries of rated games), typed."""


def simulate(
    seed: int, volatility: float, players: int = 3, games_each: int = 400
) -> tuple[pl.DataFrame, pl.DataFrame, tuple[str, ...]]:
    """(games as lichess_games columns, truth(game_id, user_id, true_after), tracked ids).

    Player 0 is a new account (1500 / RD 500 / the volatility given); the others are established
    (RD 45). Sessions of 3-15 games; between sessions 1-20 days, and one break in five of 60-250
    days; one game in eight is against another tracked player, the rest against 30 outsiders.
    """
    rng = random.Random(seed)
    tracked = [
        _P(
            f"p{i}",
            1900 + 120 * i,
            glicko.Rating(1500.0, 500.0, volatility, None)
            if i == 0
            else glicko.Rating(1900.0 + 120 * i, 45.0, volatility, T0),
        )
        for i in range(players)
    ]
    outsiders = [_P(f"o{i}", 1700 + 25 * i, glicko.Rating(1700.0 + 25 * i, 50.0, 0.06, T0)) for i in range(30)]
    clock = {p.id: T0 + dt.timedelta(hours=rng.randint(1, 48)) for p in tracked}
    left = {p.id: games_each for p in tracked}
    games: list[dict[str, object]] = []
    truth: list[tuple[str, str, float]] = []
    while any(left.values()):
        p = min((q for q in tracked if left[q.id]), key=lambda q: clock[q.id])
        t = clock[p.id]
        for _ in range(min(rng.randint(3, 15), left[p.id])):
            others = [q for q in tracked if q is not p and left[q.id]]
            opp = (
                rng.choice(others)
                if others and rng.random() < 1 / 8
                else min(outsiders, key=lambda o: abs(o.strength - p.strength - rng.gauss(0, 150)))
            )
            white, black = (p, opp) if rng.random() < 0.5 else (opp, p)
            t += dt.timedelta(seconds=rng.randint(90, 400))
            at = max([t] + [x.rating.latest for x in (white, black) if x.rating.latest is not None])
            expected = 1 / (1 + 10 ** ((black.strength - white.strength) / 400))
            winner = None if rng.random() < 0.06 else ("white" if rng.random() < expected else "black")
            w_after, b_after = glicko.rate_game(white.rating, black.rating, winner, at)
            gid = f"g{len(games):05d}"
            games.append(
                {
                    "game_id": gid,
                    "created_at": at - dt.timedelta(seconds=60),
                    "last_move_at": at,
                    "white_id": white.id,
                    "black_id": black.id,
                    "white_rating": white.rating.int_rating,
                    "black_rating": black.rating.int_rating,
                    "white_rating_diff": w_after.int_rating - white.rating.int_rating,
                    "black_rating_diff": b_after.int_rating - black.rating.int_rating,
                    "winner": winner,
                    "status": "resign" if winner else "draw",
                }
            )
            for x, after in ((white, w_after), (black, b_after)):
                if x in tracked:
                    truth.append((gid, x.id, after.deviation))
                    left[x.id] -= 1
                    clock[x.id] = max(clock[x.id], at)
                x.rating = after
        gap = rng.uniform(60, 250) if rng.random() < 0.2 else rng.uniform(1, 20)
        clock[p.id] = max(clock[p.id], t) + dt.timedelta(days=gap)
    frame = pl.DataFrame(
        games,
        schema=GAMES_SCHEMA,
    )
    true = pl.DataFrame(truth, schema={"game_id": pl.Utf8, "user_id": pl.Utf8, "true_after": pl.Float64}, orient="row")
    return frame, true, tuple(p.id for p in tracked)
