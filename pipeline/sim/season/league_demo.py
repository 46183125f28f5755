"""The league demo (``antichess-td demo --league``): two more events derived from the demo's TEAM
season, and ``league.toml`` listing the three (docs/demo.md, The league demo).

Both extra events are read off the season's own files (tournament.toml, teams.csv, pairings.csv),
so their match games are games the season's world already holds and the Lichess dataset
(``DIR/lichess``) serves all three; nothing is generated, and the season's files are left as they
are::

    DIR/league.toml                     id demo-league, store league.duckdb, the three tournaments
    DIR/pairs/tournament.toml, teams.csv, pairings.csv, overrides.csv (header only)
    DIR/board1/tournament.toml, players.csv, pairings.csv

* pairs: each season team split into two 2-board teams, "<team> A" (boards 1-2) and "<team> B"
  (boards 3-4, renumbered 1-2; titles kept; each pair's board 1 its captain; the season's 5th
  members left out), paired in every round of the season's Swiss stage where their teams met (A
  against A, B against B), in the same windows and with the same match format.
* board1: an individual event of the season teams' board-1 players, paired where their teams met
  in the Swiss stage, with the season's parts, match points and tiebreaks (kind ``individual``,
  one board); its eligibility keys (the individual rules' fixed dates) state the season's
  TEAM-ELIG-1/2/4 as of its registration.

Neither event carries the season's rulings (forfeits, a 0-0 draw, a replacement): a board the
season ruled on is one whose registered players did not meet, and the derived events show it
unplayed. Their knockout stages come from the preset, unpaired.
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

from pipeline.inputs.config import load_config
from pipeline.model import Config, Stage
from pipeline.sim.season.dataset import write_csv

LEAGUE_ID = "demo-league"
PAIRS = "pairs"
BOARD1 = "board1"

LEAGUE_TOML = """\
# The demo league: the TEAM season and two events derived from its games, sharing players and
# one Lichess dataset (lichess/). Written by `antichess-td demo --league`; a league file as
# docs/td-guide.md describes it (Running a league); each tournament.toml also runs on its own.
[league]
id = "{league_id}"
store = "league.duckdb"
tournaments = ["tournament.toml", "{pairs}/tournament.toml", "{board1}/tournament.toml"]
"""

PAIRS_TOML = """\
# The demo's pairs event: each team of the TEAM season ({season}) split into two 2-board teams,
# "<team> A" (its boards 1-2) and "<team> B" (its boards 3-4), paired in the season's {rounds}
# Swiss rounds where their teams met, A against A and B against B, in the same windows with the
# same match format: the season's games are its match games too. No rulings (overrides.csv is
# empty): a board the season ruled on is unplayed here. Written by `antichess-td demo --league`.
preset = "team-swiss"

[tournament]
id = "demo-team-pairs-2026"
name = "Antichess Team Pairs 2026 (demo)"
boards = 2
registration_at = "{registration_at}"

[lichess]
replay_data = "../lichess"
replay_games_per_s = 0

[paths]
teams = "teams.csv"
pairings = "pairings.csv"
database = "out/pairs.duckdb"
exports = "out/exports"
overrides = "overrides.csv"
site = "out/site"

[stages.{stage}]
rounds = {rounds}
first_round_start = "{first_round_start}"
"""

BOARD1_TOML = """\
# The demo's board-1 event: the board-1 players of the TEAM season ({season}), paired in its
# {rounds} Swiss rounds where their teams met, in the same windows with the season's match format
# (the parts, match points and tiebreaks of its Swiss stage): their board-1 games are its match
# games. Eligibility as the season's, written as the individual rules' fixed dates: an account 6
# months old, 1000 rated games and no cheat-detected game in 12 months (two in 24) at
# registration. Written by `antichess-td demo --league`.
preset = "team-swiss"

[tournament]
id = "demo-board1-2026"
name = "Antichess Board 1 Swiss 2026 (demo)"
kind = "individual"
boards = 1
registration_at = "{registration_at}"

[lichess]
replay_data = "../lichess"
replay_games_per_s = 0

[paths]
players = "players.csv"
pairings = "pairings.csv"
database = "out/board1.duckdb"
exports = "out/exports"
site = "out/site"

[stages.{stage}]
rounds = {rounds}
first_round_start = "{first_round_start}"
primary = "{primary}"
match_points = {{ win = {mp_win}, draw = {mp_draw}, loss = {mp_loss} }}
tiebreaks = [{tiebreaks}]
parts = [
{parts}
]

[eligibility]
min_rated_games = {min_rated_games}
created_before = "{created_before}"
games_before = "{registration_at}"
one_cheat_since = "{one_cheat_since}"
two_cheats_since = "{two_cheats_since}"
"""


def _utc(t: dt.datetime) -> str:
    return t.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _months_before(t: dt.datetime, months: int) -> dt.datetime:
    """The same day and time `months` calendar months earlier (the day clamped to 28)."""
    y, m = divmod(t.year * 12 + t.month - 1 - months, 12)
    return t.replace(year=y, month=m + 1, day=min(t.day, 28))


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _swiss_stage(season: Config) -> Stage:
    """The season's Swiss stage (the first of kind swiss): the rounds the derived events replay."""
    for stage in season.stages:
        if stage.kind == "swiss":
            return stage
    raise ValueError(f"{season.path}: the league demo derives its events from a Swiss stage; the season has none")


def write_league(out: Path) -> dict[str, int]:
    """Write the league demo beside the TEAM season of `out` (``out/tournament.toml`` and its
    files, as ``build_season`` wrote them); returns the derived events' sizes."""
    season = load_config(out / "tournament.toml")
    stage = _swiss_stage(season)
    rosters: dict[str, list[dict[str, str]]] = {}
    for row in _read_rows(out / "teams.csv"):
        rosters.setdefault(row["team"], []).append(row)
    for members in rosters.values():
        members.sort(key=lambda r: int(r["board"]))
    pairings = [r for r in _read_rows(out / "pairings.csv") if r["stage"] == stage.name]
    n_pairs = _write_pairs(season, stage, rosters, pairings, out / PAIRS)
    n_board1 = _write_board1(season, stage, rosters, pairings, out / BOARD1)
    (out / "league.toml").write_text(
        LEAGUE_TOML.format(league_id=LEAGUE_ID, pairs=PAIRS, board1=BOARD1), encoding="utf-8"
    )
    return {"pairs_teams": n_pairs, "board1_players": n_board1, "swiss_rounds": stage.rounds or 0}


def _common(season: Config, stage: Stage) -> dict[str, str]:
    """The keys both derived configs take from the season: its name, registration and Swiss rounds."""
    if season.registration_at is None or stage.first_round_start is None:
        raise ValueError(
            f"{season.path}: the league demo needs registration_at and the Swiss stage's first_round_start"
        )
    return {
        "season": season.tournament_id,
        "registration_at": _utc(season.registration_at),
        "stage": stage.name,
        "rounds": str(stage.rounds),
        "first_round_start": _utc(stage.first_round_start),
    }


WINDOW = ("window_start", "window_end")  # pairings.csv's optional columns, kept as the season wrote them


def _pairings_header(pairings: list[dict[str, str]]) -> tuple[str, ...]:
    return ("stage", "round", "a", "b") + (WINDOW if pairings and WINDOW[0] in pairings[0] else ())


def _window(row: dict[str, str]) -> tuple[str, ...]:
    """A pairings row's window columns, when the file has them."""
    return tuple(row.get(k) or "" for k in WINDOW) if WINDOW[0] in row else ()


def _write_pairs(
    season: Config, stage: Stage, rosters: dict[str, list[dict[str, str]]], pairings: list[dict[str, str]], folder: Path
) -> int:
    """pairs/: the 2-board teams, their pairings, an empty overrides.csv and tournament.toml."""
    halves = {"A": (1, 2), "B": (3, 4)}
    teams = []
    for team, members in rosters.items():
        by_board = {int(r["board"]): r for r in members}
        for half, boards in halves.items():
            for new_board, board in enumerate(boards, 1):
                r = by_board[board]
                teams.append((f"{team} {half}", r["player"], new_board, r["title"], "yes" if new_board == 1 else ""))
    rows = []
    for p in pairings:
        for half in halves:
            b = f"{p['b']} {half}" if p["b"] else ""
            rows.append((p["stage"], p["round"], f"{p['a']} {half}", b, *_window(p)))
    write_csv(folder / "teams.csv", ("team", "player", "board", "title", "captain"), teams)
    write_csv(folder / "pairings.csv", _pairings_header(pairings), rows)
    write_csv(folder / "overrides.csv", ("stage", "round", "subject", "action", "value", "reason"), [])
    (folder / "tournament.toml").write_text(PAIRS_TOML.format(**_common(season, stage)), encoding="utf-8")
    return len(rosters) * len(halves)


def _write_board1(
    season: Config, stage: Stage, rosters: dict[str, list[dict[str, str]]], pairings: list[dict[str, str]], folder: Path
) -> int:
    """board1/: the board-1 players (no seed rating: the event seeds as its config says), their
    pairings and tournament.toml with the season's match format."""
    first = {team: next(r["player"] for r in members if r["board"] == "1") for team, members in rosters.items()}
    rows = [(p["stage"], p["round"], first[p["a"]], first[p["b"]] if p["b"] else "", *_window(p)) for p in pairings]
    write_csv(folder / "players.csv", ("player", "seed_rating"), [(name, "") for name in first.values()])
    write_csv(folder / "pairings.csv", _pairings_header(pairings), rows)
    reg = season.registration_at
    assert reg is not None  # _common checks it
    e = season.eligibility
    mp = stage.match_points
    parts = ",\n".join(
        f'  {{ time_control = "{p.time_control}", games = {p.games}, win = {_number(p.win)}, '
        f"draw = {_number(p.draw)} }}"
        for p in stage.parts
    )
    (folder / "tournament.toml").write_text(
        BOARD1_TOML.format(
            **_common(season, stage),
            primary=stage.primary,
            mp_win=_number(mp.win),
            mp_draw=_number(mp.draw),
            mp_loss=_number(mp.loss),
            tiebreaks=", ".join(f'"{t}"' for t in stage.tiebreaks),
            parts=parts,
            min_rated_games=e.min_rated_games,
            created_before=_utc(_months_before(reg, e.min_account_age_months)),
            one_cheat_since=_utc(_months_before(reg, e.cheat_months_one)),
            two_cheats_since=_utc(_months_before(reg, e.cheat_months_two)),
        ),
        encoding="utf-8",
    )
    return len(first)
