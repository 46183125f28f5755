"""Writes tests/data/skeleton/lichess/ from the hand-made table below (run once; output is committed).

    python tests/data/skeleton/make_dataset.py

Four teams of two boards, two Swiss rounds (round 1: 2026-03-03..03-09, round 2: 03-10..03-16,
TEAM-FMT-3 windows), parts 0+2 x2 (6/3), 2+5 x1 (12/6), 1+2 x1 (8/4) as overridden in
tournament.toml. Each row is one game; the result is from the a-side's view ('a', 'b', 'd').
The expected standings in tests/test_end_to_end.py are computed by hand from this table.
Moves are legal antichess games played out by python-chess, forced to the row's result.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from pipeline.sim.games import DemoPlayer, EloWorld, PlayedGame, history_json, user_json  # noqa: E402
from pipeline.domain.timecontrol import parse_time_control  # noqa: E402

PLAYERS = {  # id: (display name, rating, account created)
    "alice": ("Alice", 2100), "amir": ("Amir", 1950),
    "bob": ("Bob", 2080), "bea": ("Bea", 1900),
    "gus": ("Gus", 2050), "gia": ("Gia", 1920),
    "dan": ("Dan", 2070), "dee": ("Dee", 1930),
}

# (game id, a, b, a plays white, clock, start UTC, result for a)
GAMES = [
    # round 1, Alphas v Betas, board 1 (alice v bob): a 16 - b 16
    ("R1ab1g01", "alice", "bob", True, "0+2", "2026-03-04T18:00", "a"),
    ("R1ab1g02", "alice", "bob", False, "0+2", "2026-03-04T18:05", "a"),
    ("R1ab1g03", "alice", "bob", True, "2+5", "2026-03-04T18:10", "b"),
    ("R1ab1g04", "alice", "bob", False, "1+2", "2026-03-04T18:30", "d"),
    ("R1ab1x05", "alice", "bob", True, "3+0", "2026-03-04T18:45", "a"),   # wrong_time_control
    # round 1, Alphas v Betas, board 2 (amir v bea): a 29 - b 3
    ("R1ab2g01", "amir", "bea", True, "0+2", "2026-03-04T18:01", "a"),
    ("R1ab2g02", "amir", "bea", False, "0+2", "2026-03-04T18:06", "d"),
    ("R1ab2g03", "amir", "bea", True, "2+5", "2026-03-04T18:11", "a"),
    ("R1ab2g04", "amir", "bea", False, "1+2", "2026-03-04T18:31", "a"),
    # round 1, Gammas v Deltas, board 1 (gus v dan): a 8 - b 24
    ("R1gd1g01", "gus", "dan", True, "0+2", "2026-03-07T12:00", "b"),
    ("R1gd1g02", "gus", "dan", False, "0+2", "2026-03-07T12:05", "b"),
    ("R1gd1g03", "gus", "dan", True, "2+5", "2026-03-07T12:10", "b"),
    ("R1gd1g04", "gus", "dan", False, "1+2", "2026-03-07T12:30", "a"),
    # round 1, Gammas v Deltas, board 2 (gia v dee): a 12 - b 20
    ("R1gd2g01", "gia", "dee", True, "0+2", "2026-03-07T12:01", "a"),
    ("R1gd2g02", "gia", "dee", False, "0+2", "2026-03-07T12:06", "b"),
    ("R1gd2x03", "gia", "dee", True, "0+2", "2026-03-07T12:09", "a"),     # a third 0+2 game: extra_game
    ("R1gd2g04", "gia", "dee", False, "2+5", "2026-03-07T12:25", "d"),
    ("R1gd2g05", "gia", "dee", True, "1+2", "2026-03-07T12:40", "b"),
    # round 2, Alphas v Gammas, board 1 (alice v gus): a 18 - b 14
    ("R2ag1g01", "alice", "gus", True, "0+2", "2026-03-11T20:00", "b"),
    ("R2ag1g02", "alice", "gus", False, "0+2", "2026-03-11T20:05", "a"),
    ("R2ag1g03", "alice", "gus", True, "2+5", "2026-03-11T20:10", "a"),
    ("R2ag1g04", "alice", "gus", False, "1+2", "2026-03-11T20:40", "b"),
    # round 2, Alphas v Gammas, board 2 (amir v gia): a 8 - b 24
    ("R2ag2g01", "amir", "gia", True, "0+2", "2026-03-11T20:01", "b"),
    ("R2ag2g02", "amir", "gia", False, "0+2", "2026-03-11T20:06", "b"),
    ("R2ag2g03", "amir", "gia", True, "2+5", "2026-03-11T20:11", "b"),
    ("R2ag2g04", "amir", "gia", False, "1+2", "2026-03-11T20:31", "a"),
    # round 2, Betas v Deltas, board 1 (bob v dan): a 20 - b 12
    ("R2bd1g01", "bob", "dan", True, "0+2", "2026-03-14T09:00", "a"),
    ("R2bd1g02", "bob", "dan", False, "0+2", "2026-03-14T09:05", "a"),
    ("R2bd1g03", "bob", "dan", True, "2+5", "2026-03-14T09:10", "b"),
    ("R2bd1g04", "bob", "dan", False, "1+2", "2026-03-14T09:30", "a"),
    # round 2, Betas v Deltas, board 2 (bea v dee): a 18 - b 6; the 1+2 game came after the window
    ("R2bd2g01", "bea", "dee", True, "0+2", "2026-03-14T09:01", "d"),
    ("R2bd2g02", "bea", "dee", False, "0+2", "2026-03-14T09:06", "d"),
    ("R2bd2g03", "bea", "dee", True, "2+5", "2026-03-14T09:11", "a"),
    ("R2bd2x04", "bea", "dee", False, "1+2", "2026-03-17T01:00", "b"),    # outside_window (round 2 ended 03-17 00:00)
    # not tournament games: other opponents, other times
    ("Casual01", "alice", "dan", True, "1+0", "2026-03-05T10:00", "a"),    # alice and dan are never paired
    ("Early001", "amir", "bea", True, "0+2", "2026-02-20T10:00", "b"),     # long before round 1: not listed
]

# A standard-chess game between two paired players in round 1's window: not_antichess.
STANDARD = ("R1ab1s06", "alice", "bob", True, "3+0", "2026-03-04T19:00", "a")
STANDARD_MOVES = ("e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7")


def main() -> None:
    world = EloWorld(seed=7)
    players = {pid: DemoPlayer(name, rating, dt.datetime(2020, 1, 15, tzinfo=dt.UTC), 1500) for pid, (name, rating) in PLAYERS.items()}
    for p in players.values():
        p.history[dt.date(2026, 2, 28)] = p.rating
    for gid, a, b, a_white, tc, start, result in GAMES:
        white, black = (players[a], players[b]) if a_white else (players[b], players[a])
        want = None if result == "d" else ("white" if (result == "a") == a_white else "black")
        t = dt.datetime.fromisoformat(start).replace(tzinfo=dt.UTC)
        world.play(white, black, parse_time_control(tc), t, want=want, game_id=gid)
    gid, a, b, a_white, tc, start, _ = STANDARD
    t = dt.datetime.fromisoformat(start).replace(tzinfo=dt.UTC)
    world.play(players[a], players[b], parse_time_control(tc), t, rated=False, variant="standard",
               played=PlayedGame(STANDARD_MOVES, "resign", "white"), game_id=gid)

    out = HERE / "lichess"
    (out / "rating-history").mkdir(parents=True, exist_ok=True)
    seen = dt.datetime(2026, 3, 20, tzinfo=dt.UTC)
    with (out / "users.ndjson").open("w", encoding="utf-8", newline="\n") as f:
        for p in players.values():
            f.write(json.dumps(user_json(p, seen)) + "\n")
    for p in players.values():
        (out / "rating-history" / f"{p.id}.json").write_text(json.dumps(history_json(p)) + "\n", encoding="utf-8")
    with (out / "games.ndjson").open("w", encoding="utf-8", newline="\n") as f:
        for g in sorted(world.games, key=lambda g: (g["createdAt"], g["id"])):
            f.write(json.dumps(g) + "\n")


if __name__ == "__main__":
    main()
