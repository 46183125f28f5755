"""The rule violations (and traps) planted in the demo's TEAM season: on the rosters and histories
before it is played (``plant_team_cases``), and in its Swiss rounds (``swiss_incidents``). Each
one becomes a PLANTED.csv row (or a TRAPS.csv row)."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pipeline.domain.timecontrol import parse_time_control
from pipeline.sim.season.calendar import DAY, TEAM_REGISTRATION, TEAM_START, from_ms, knockout_start, months_before
from pipeline.sim.season.matches import BoardMatch, extra_game, knockout_size
from pipeline.sim.season.players import HistoryPlan
from pipeline.sim.season.state import Season
from pipeline.sim.season.world import Player, Spec

UTC = dt.UTC
Incidents = Callable[[int, int, BoardMatch], dict[str, Any] | None]  # (match, board, its board match) → play_board kw


@dataclass
class TeamPlan(HistoryPlan):
    """The TEAM season's history plan, and what the self-checks need to state the planted facts."""

    crossings: list[tuple[Player, dt.datetime, dt.timedelta]] = field(default_factory=list)  # (player, day, hold)
    cap_players: dict[str, Player] = field(default_factory=dict)  # TEAM-CAP-3/4/5: three, two, hold, rd
    board_order: tuple[str, int] = ("", -1)  # TEAM-COMP-4: the team and its PLANTED row (noted once checked)
    count_before_registration: list[tuple[str, Player]] = field(default_factory=list)  # TEAM-ELIG-2
    count_recent: list[tuple[str, Player]] = field(default_factory=list)  # TEAM-ELIG-3


def plant_team_cases(s: Season) -> TeamPlan:
    """Rule violations (and traps) planted in the TEAM season; each one becomes a PLANTED row."""
    plan = TeamPlan()
    _plant_composition(s, plan)
    _plant_eligibility(s, plan)
    _plant_unregistrable(s)
    _plant_provisional(s, plan)
    _plant_cap_crossings(s, plan)
    teams = list(s.roster)
    forfeiter = s.roster[teams[-1]][2]
    s.replacement = s.player(forfeiter.strength - 50, dt.datetime(2019, 3, 3, tzinfo=UTC))
    # eligibility is as of registration; the replacement registers when it is named, for round 7
    plan.registered = {q.id: TEAM_REGISTRATION for q in s.team_members()}
    plan.registered[s.replacement.id] = TEAM_START + dt.timedelta(days=42)
    _keep_quiet(s, plan, forfeiter)
    return plan


def _plant_composition(s: Season, plan: TeamPlan) -> None:
    """TEAM-COMP-2 (three AGM-or-higher), TEAM-COMP-3 (two of the strongest on one team) and
    TEAM-COMP-4 (a board order not descending by rating)."""
    teams = list(s.roster)
    t = teams[2]
    s.titles[t] = ["AGM", "AGM", "ASGM", ""]
    s.plant("TEAM-COMP-2", t, "three AGM-or-higher players (AGM, AGM, ASGM) on one team; at most 2 allowed")
    board4 = s.roster[t][3]  # two or more AGM-or-higher: its board 4 stays under the 2000 cap (TEAM-CAP-1)
    board4.cap = s.cap_of(t)
    board4.strength = min(board4.strength, board4.cap - 40)
    s.strongest = [s.roster[teams[0]][0].name, s.roster[teams[0]][1].name] + [s.roster[x][0].name for x in teams[1:5]]
    s.plant(
        "TEAM-COMP-3",
        teams[0],
        f"two of the strongest-players list ({s.strongest[0]}, {s.strongest[1]}) on one team",
    )
    t = teams[5]
    m = s.roster[t]
    m[0].strength, m[1].strength = m[1].strength - 60, m[0].strength + 60
    plan.board_order = (t, len(s.planted))  # the note states the ratings at registration (check_board_order)
    s.plant("TEAM-COMP-4", t, "")


def _plant_eligibility(s: Season, plan: TeamPlan) -> None:
    """TEAM-ELIG-1 (a young account), TEAM-ELIG-2 (too few games), TEAM-ELIG-3 (too few recent
    games) and TEAM-ELIG-4 (cheat-detected games)."""
    teams = list(s.roster)
    reg = TEAM_REGISTRATION
    p = s.roster[teams[4]][2]
    p.created_at = reg - dt.timedelta(days=120)
    plan.start[p.id] = p.created_at + DAY
    s.plant("TEAM-ELIG-1", p.name, "account created 2026-04-27, 4 months before registration (6 required)")
    p = s.roster[teams[5]][2]
    plan.n_games[p.id] = 700  # with the recent games below: ~850 before registration, 100+ of them recent
    plan.count_before_registration = [("TEAM-ELIG-2", p)]
    # only 30-60 rated games in the 3 months before registration, all in one session 3 days before
    # it (so its RD stays low for TEAM-ELIG-7)
    p = s.roster[teams[1]][2]
    plan.add_quiet(p, months_before(reg, 3) - DAY, reg)
    plan.sessions = [(p, reg - 3 * DAY + dt.timedelta(hours=1), s.rng.randint(30, 60))]
    plan.no_topup.add(p.id)
    plan.count_recent = [("TEAM-ELIG-3", p)]
    p = s.roster[teams[6]][1]
    plan.cheats.append((p, reg - dt.timedelta(days=243)))
    s.plant(
        "TEAM-ELIG-4", p.name, "a cheat-detected game (status cheat, on the losing side) 8 months before registration"
    )
    p = s.roster[teams[10 % len(teams)]][1]
    plan.cheats += [(p, reg - dt.timedelta(days=420)), (p, reg - dt.timedelta(days=600))]
    s.plant("TEAM-ELIG-4", p.name, "two cheat-detected games 14 and 20 months before registration (none in 12 months)")


def _plant_unregistrable(s: Season) -> None:
    """TEAM-ELIG-5 (a tosViolation mark; a closed account as a 5th member, whose games TEAM-ELIG-2
    cannot count) and TEAM-ELIG-6 (a BOT)."""
    teams = list(s.roster)
    p = s.roster[teams[11 % len(teams)]][0]
    p.tos_violation = True
    s.plant("TEAM-ELIG-5", p.name, "the profile carries tosViolation (an engine or boost mark; its date is not public)")
    closed = s.player(1900, dt.datetime(2018, 5, 2, tzinfo=UTC))
    closed.disabled = True
    s.roster[teams[3]].append(closed)
    s.plant("TEAM-ELIG-5", closed.name, "the account is closed (Lichess: disabled); registered as the 5th member")
    s.plant(  # a closed profile shows no game count and none of its games are stored: TEAM-ELIG-2 cannot be counted
        "TEAM-ELIG-2", closed.name, "the account is closed: its profile shows no rated antichess game count (a warning)"
    )
    bot = s.player(2000, dt.datetime(2020, 2, 2, tzinfo=UTC))
    bot.title = "BOT"
    s.roster[teams[9]].append(bot)
    s.plant("TEAM-ELIG-6", bot.name, "a BOT account (Lichess title BOT) registered as the 5th member")


def _plant_provisional(s: Season, plan: TeamPlan) -> None:
    """TEAM-ELIG-7: provisional when the initial pairings are announced (13 months without a rated
    game), which also plants TEAM-ELIG-3."""
    p = s.roster[list(s.roster)[7]][2]
    plan.add_quiet(p, TEAM_REGISTRATION - dt.timedelta(days=400), TEAM_START + dt.timedelta(days=2))
    plan.no_topup.add(p.id)
    s.plant(
        "TEAM-ELIG-7", p.name, "no rated antichess game for 13 months before the pairings: RD above 110 (provisional)"
    )
    s.plant("TEAM-ELIG-3", p.name, "no rated antichess game in the 3 months before registration")


def _plant_cap_crossings(s: Season, plan: TeamPlan) -> None:
    """TEAM-CAP-3 / 4 / 5 on the board-4 players of the untitled teams 7-10 (cap 2200): crossings on
    three days, on two, one held for 30 hours, and the RD trap (three crossing days, the first
    after 11 months without a game: RD well above 80, TEAM-CAP-5)."""
    teams = list(s.roster)
    since = dt.datetime(2025, 1, 1, tzinfo=UTC)
    cap4 = {n: s.roster[teams[i]][3] for n, i in (("three", 6), ("two", 7), ("hold", 8), ("rd", 9))}
    for key, days in (("three", [40, 150, 300]), ("two", [60, 200]), ("hold", [120])):
        hold = dt.timedelta(hours=30) if key == "hold" else dt.timedelta(0)
        plan.crossings += [(cap4[key], since + dt.timedelta(days=d, hours=11), hold) for d in days]
    plan.add_quiet(cap4["rd"], since - dt.timedelta(days=300), since + dt.timedelta(days=30, hours=11))
    for d in (30, 180, 330):
        plan.crossings.append((cap4["rd"], since + dt.timedelta(days=d, hours=11), dt.timedelta(0)))
    plan.cap_players = cap4


def _keep_quiet(s: Season, plan: TeamPlan, forfeiter: Player) -> None:
    """Ratings the demo steers (Steer) stay still around it: every member's in the 3 days before
    registration (TEAM-COMP-4), the replaced player's and the replacement's before round 7
    (TEAM-COMP-6); board 4 plays only its matches from the knockout on (its rating is steered
    well under the cap at each round's start, so a planted tie's forced wins cannot take it
    above); and no background game around a planted crossing."""
    reg = TEAM_REGISTRATION
    for q in s.team_members():
        plan.add_quiet(q, reg - 3 * DAY, reg)
    for q in (forfeiter, s.replacement):
        plan.add_quiet(q, TEAM_START + dt.timedelta(days=39), TEAM_START + dt.timedelta(days=42))
    ko_start = knockout_start(s.swiss_rounds)
    ko_end = ko_start + dt.timedelta(days=7 * int(math.log2(knockout_size(s.n_teams))))  # knockout rounds + final
    for members in s.roster.values():
        plan.add_quiet(members[3], ko_start, ko_end)
    for p, day, hold in plan.crossings:
        plan.add_quiet(p, day - dt.timedelta(hours=12), day + hold + dt.timedelta(hours=14))


# --------------------------------------------------------------------------- in the Swiss rounds


def swiss_incidents(s: Season, rnd: int, forfeiter: Player) -> Incidents:
    """The incidents planted in Swiss round `rnd`, by (match index, board): extra games, a wrong
    clock, a match past its window, a game never started, a long break, a gap between parts, an
    unplayed board ruled a 0-0 draw, and `forfeiter`'s forfeits in rounds 5 and 6 (TEAM-DQ-1)."""

    def at(m_i: int, board: int, bm: BoardMatch) -> dict[str, Any] | None:
        incident = _INCIDENTS.get((rnd, m_i, board))
        if incident is not None:
            return incident(s, bm)
        if rnd in (5, 6) and forfeiter in (bm.a, bm.b):
            s.overrides.append(("swiss", rnd, forfeiter.name, "forfeit", "", "did not show up for the match"))
            winner = "b" if forfeiter is bm.a else "a"
            bm.points[winner] += 144  # the opponent wins the board (TEAM-DQ-1)
            return {"skip": True}
        return None

    return at


def _ninth_game(s: Season, bm: BoardMatch) -> dict[str, Any]:
    s.plant("TEAM-SCORE-1", bm.a.name, f"swiss round 1: a 9th 0+2 game against {bm.b.name} (extra_game, not counted)")
    return {"extras": {7: extra_game(s.world, 25, bm.a, bm.b, "0+2")}}


def _wrong_clock(s: Season, bm: BoardMatch) -> dict[str, Any]:
    s.plant("TEAM-FMT-3", bm.a.name, f"swiss round 2: a 3+0 game against {bm.b.name} (wrong_time_control)")
    return {"extras": {17: extra_game(s.world, 30, bm.b, bm.a, "3+0")}}


def _past_the_window(s: Season, bm: BoardMatch) -> dict[str, Any]:
    # 18 games with 10 s or more between them cannot all start within 5 minutes
    window_end = TEAM_START + dt.timedelta(days=14)
    bm.counts_until = window_end
    s.plant(
        "TEAM-FMT-3",
        bm.a.name,
        f"swiss round 2: the match against {bm.b.name} began Monday 23:55 "
        "and ran past 23:59:59 UTC: the later games are outside_window",
    )
    return {"start": window_end - dt.timedelta(minutes=5)}


def _never_started(s: Season, bm: BoardMatch) -> dict[str, Any]:
    def nostart(end: dt.datetime) -> dt.datetime:
        at = end + dt.timedelta(seconds=20)
        g = s.world.play(Spec(at, 0, bm.a, bm.b, parse_time_control("0+2"), status="noStart", winner="black"))
        return from_ms(g["lastMoveAt"]) + dt.timedelta(seconds=30)

    s.plant(
        "TEAM-SCORE-1",
        bm.a.name,
        f"swiss round 3: a game against {bm.b.name} never started (noStart, "
        "not counted; Lichess never exports aborted games)",
    )
    return {"extras": {2: nostart}}


def _long_break(s: Season, bm: BoardMatch) -> dict[str, Any]:
    s.plant(
        "TEAM-CONDUCT-1", bm.a.name, f"swiss round 3: a 15-minute break in the match against {bm.b.name} (10 allowed)"
    )
    return {"break_after": {10: dt.timedelta(minutes=15)}}


def _gap_between_parts(s: Season, bm: BoardMatch) -> dict[str, Any]:
    s.plant(
        "TEAM-CONDUCT-2",
        bm.a.name,
        f"swiss round 4: 3 minutes between two parts against {bm.b.name} (1 allowed; evidence)",
    )
    return {"gap_before_part": {1: dt.timedelta(minutes=3)}}


def _unplayed_board(s: Season, bm: BoardMatch) -> dict[str, Any]:
    s.overrides.append(("swiss", 5, bm.a.name, "zero_draw", "", "no one at fault for the unplayed board"))
    s.plant(
        "TEAM-SCORE-4",
        bm.a.name,
        f"swiss round 5: board 4 against {bm.b.name} unplayed, ruled a 0-0 draw (override)",
    )
    return {"skip": True}


_INCIDENTS: dict[tuple[int, int, int], Callable[[Season, BoardMatch], dict[str, Any]]] = {
    (1, 0, 2): _ninth_game,  # TEAM-SCORE-1
    (2, 0, 1): _wrong_clock,  # TEAM-FMT-3
    (2, 1, 3): _past_the_window,  # TEAM-FMT-3
    (3, 0, 4): _never_started,  # TEAM-SCORE-1
    (3, 1, 2): _long_break,  # TEAM-CONDUCT-1
    (4, 0, 3): _gap_between_parts,  # TEAM-CONDUCT-2
    (5, 2, 4): _unplayed_board,  # TEAM-SCORE-4
}
