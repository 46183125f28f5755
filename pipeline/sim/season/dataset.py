"""Writing the demo: the Lichess dataset (profiles, rating histories, games), the TD's files of
both tournaments (tournament.toml, rosters, pairings, rulings), PLANTED.csv, TRAPS.csv and the
true RD per game."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from pathlib import Path
from typing import Any

from pipeline.domain import glicko
from pipeline.sim.games import history_json, ms
from pipeline.sim.season.acwc import acwc_rounds, acwc_seed
from pipeline.sim.season.calendar import SWISS_ROUNDS, knockout_start
from pipeline.sim.season.state import Season
from pipeline.sim.season.world import Player

TEAM_DATABASE = "out/team.duckdb"  # the TEAM season's published database, relative to its tournament.toml

TEAM_TOML = """\
# The demo TEAM season (seed {seed}): {teams} teams, {swiss_rounds} Swiss rounds, knockout and final/bronze.
# Written by `antichess-td demo`; the Lichess data in ../lichess is served by a replay server
# the nightly run starts in-process, so it runs offline. PLANTED.csv lists the rule violations
# planted on purpose, TRAPS.csv the look-alikes that are not violations.
preset = "team-swiss"

[tournament]
id = "demo-team-swiss-2026"
name = "Antichess Team Swiss 2026 (demo)"
registration_at = "2026-08-25T00:00:00Z"

[lichess]
replay_data = "lichess"
replay_games_per_s = 0          # unthrottled (lichess.org sends ~30 games/s to a token holder)

[paths]
teams = "teams.csv"
pairings = "pairings.csv"
database = "{database}"
exports = "out/exports"
overrides = "overrides.csv"

[stages.swiss]
{swiss_rounds_line}first_round_start = "2026-09-01T00:00:00Z"   # a Tuesday; each round runs to Monday 23:59:59 UTC

[stages.knockout]
rounds = {ko_rounds}
first_round_start = "{knockout_start}"

[stages.final]
first_round_start = "{final_start}"

[composition]
strongest_players = [{strongest}]   # TEAM-COMP-3: the demo's six strongest players
"""

ACWC_TOML = """\
# The demo ACWC 2021 qualification (seed {seed}): {players} players, {rounds} rounds of 10-game
# 2+5 matches (ACWC-Q-1, ACWC-Q-2). Shares the Lichess data of the TEAM season (../lichess).
preset = "acwc-2021"

[tournament]
id = "demo-acwc-2021"
name = "Antichess World Cup 2021 qualification (demo)"
registration_at = "2021-09-01T00:00:00Z"

[lichess]
replay_data = "../lichess"
replay_games_per_s = 0

[paths]
players = "players.csv"
pairings = "pairings.csv"
database = "out/acwc.duckdb"
exports = "out/exports"

[stages.qualification]
rounds = {rounds}
first_round_start = "2021-09-07T00:00:00Z"
"""


def profile(p: Player, at: dt.datetime) -> dict[str, Any]:
    """The user JSON of GET /api/user/{id} / POST /api/users as of `at`."""
    if p.disabled:
        return {"id": p.id, "username": p.name, "disabled": True}
    d: dict[str, Any] = {"id": p.id, "username": p.name, "perfs": {}}
    if p.games:
        rd = glicko.live_deviation(p.rating, at)
        perf: dict[str, Any] = {"games": p.games, "rating": p.rating.int_rating, "rd": int(rd), "prog": 0}
        if rd >= glicko.PROVISIONAL_DEVIATION:
            perf["prov"] = True
        d["perfs"]["antichess"] = perf
    if p.title:
        d["title"] = p.title
    if p.tos_violation:
        d["tosViolation"] = True
    d["createdAt"] = ms(p.created_at)
    d["seenAt"] = ms(at)
    d["playTime"] = {"total": p.games * 240, "tv": 0}
    return d


def write_csv(path: Path, header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")


def write_lichess(s: Season, folder: Path) -> tuple[int, int]:
    """users.ndjson, rating-history/<id>.json and games.ndjson (by creation time) of every
    registered player; returns the numbers of players and games."""
    (folder / "rating-history").mkdir(parents=True, exist_ok=True)
    registered = s.team_members() + [s.replacement] + s.acwc
    with (folder / "users.ndjson").open("w", encoding="utf-8", newline="\n") as f:
        for p in registered:
            # a history game started just before the end may finish after it: the profile is read after it
            at = max(s.team_end, p.rating.latest) if p.rating.latest else s.team_end
            f.write(json.dumps(profile(p, at)) + "\n")
    for p in registered:
        if not p.disabled:
            (folder / "rating-history" / f"{p.id}.json").write_text(
                json.dumps(history_json(p)) + "\n", encoding="utf-8"
            )
    games_sorted = sorted(s.world.games, key=lambda g: (g["createdAt"], g["id"]))
    with (folder / "games.ndjson").open("w", encoding="utf-8", newline="\n") as f:
        for g in games_sorted:
            f.write(json.dumps(g) + "\n")
    return len(registered), len(games_sorted)


def write_team_files(s: Season, out: Path, seed: int, traps: list[tuple[str, str, str]]) -> None:
    """The TEAM season's TD files, PLANTED.csv, TRAPS.csv and truth/deviations.csv."""
    write_csv(
        out / "truth" / "deviations.csv",
        ("game_id", "user_id", "rd_before", "rd_after"),
        [(g, u, repr(a), repr(b)) for g, u, a, b in s.world.truth],
    )  # exact, round-trips
    team_rows = []
    for team, members in s.roster.items():
        for board, p in enumerate(members, 1):
            title = s.titles[team][board - 1] if board <= 4 else ""
            team_rows.append((team, p.name, board, title, "yes" if board == s.captains[team] else ""))
    write_csv(out / "teams.csv", ("team", "player", "board", "title", "captain"), team_rows)
    write_csv(out / "pairings.csv", ("stage", "round", "a", "b"), s.pairings)
    write_csv(out / "overrides.csv", ("stage", "round", "subject", "action", "value", "reason"), s.overrides)
    write_csv(out / "PLANTED.csv", ("rule_id", "subject", "note"), s.planted)
    write_csv(out / "TRAPS.csv", ("rule_id", "subject", "note"), traps)
    ko_start = knockout_start(s.swiss_rounds)
    final_start = ko_start + dt.timedelta(days=7 * s.ko_rounds)
    rounds_line = "" if s.swiss_rounds == SWISS_ROUNDS else f"rounds = {s.swiss_rounds}\n"
    (out / "tournament.toml").write_text(
        TEAM_TOML.format(
            seed=seed,
            teams=s.n_teams,
            ko_rounds=s.ko_rounds,
            swiss_rounds=s.swiss_rounds,
            swiss_rounds_line=rounds_line,
            knockout_start=ko_start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            final_start=final_start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            strongest=", ".join(f'"{n}"' for n in s.strongest),
            database=TEAM_DATABASE,
        ),
        encoding="utf-8",
    )


def write_acwc_files(s: Season, out: Path, seed: int) -> None:
    """The ACWC qualification's TD files (the seed ratings as ACWC-SEED-1 computes them)."""
    n_players = len(s.acwc)
    write_csv(out / "acwc" / "players.csv", ("player", "seed_rating"), [(p.name, acwc_seed(p)) for p in s.acwc])
    write_csv(out / "acwc" / "pairings.csv", ("stage", "round", "a", "b"), s.acwc_pairings)
    (out / "acwc" / "tournament.toml").write_text(
        ACWC_TOML.format(seed=seed, players=n_players, rounds=acwc_rounds(n_players)), encoding="utf-8"
    )
