"""The demo's TEAM season: the rosters, then the Swiss rounds, the knockout and the final/bronze
played week by week with the planted incidents, rulings and steered ratings."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable

from pipeline.sim.season.calendar import (
    DAY,
    FINAL_PARTS,
    KO_PARTS,
    SPAN,
    SWISS_PARTS,
    TEAM_REGISTRATION,
    TEAM_START,
    UTC,
    knockout_start,
)
from pipeline.sim.season.matches import BoardMatch, Parts, engine_pairs, knockout_size, play_board, tie_results
from pipeline.sim.season.players import nearest, outsiders_for
from pipeline.sim.season.state import Season
from pipeline.sim.season.steering import Crossing, Steer, fixed
from pipeline.sim.season.team_cases import Incidents, TeamPlan, swiss_incidents
from pipeline.sim.season.world import Player, rating_before

TEAM_NAMES = [
    "Forced Captures",
    "Zugzwang Zebras",
    "Suicide Squad",
    "Giveaway Guild",
    "Stalemate Stars",
    "Pawn Stormers",
    "Kingless Knights",
    "Empty Board",
    "Last Piece Standing",
    "Capture Cartel",
    "Reverse Royals",
    "Losing Legion",
]
MatchBoards = list[BoardMatch]  # the four boards of one team match


TOP_BOARD_1 = 2330  # the strongest team's board 1
LOWEST_BOARD_1 = 1400  # the weakest team's board 1 in any field: board 4 (150 below) near the weakest outsider
TEAM_STEP = 30  # between two teams' boards 1, while the field fits above LOWEST_BOARD_1 (up to 32 teams)


def team_step(n_teams: int) -> float:
    """The strength between two consecutive teams: 30, or less in a field of more than 32 teams, so
    that every team stays within the outsiders' range (1350-2600, players' only opponents, in
    background and forced games alike). Below it, a rating sits far above the strength and a
    forced loss against a 1000-points-stronger outsider moves it by a fraction of a point, so a
    steered rating (TEAM-COMP-4's board 4, TEAM-COMP-6's replacement) could never be brought down
    into its band."""
    return min(TEAM_STEP, (TOP_BOARD_1 - LOWEST_BOARD_1) / max(n_teams - 1, 1))


def build_team_roster(s: Season) -> None:
    """The teams, four players each by board, stronger to weaker by `team_step`; TEAM-CAP-1 caps
    by the team's titles, and board 4 stays under it unless planted."""
    rng = s.rng
    names = (TEAM_NAMES + [f"Team {i}" for i in range(len(TEAM_NAMES), s.n_teams)])[: s.n_teams]
    step = team_step(s.n_teams)
    for t, team in enumerate(names):
        top = TOP_BOARD_1 - step * t if t not in (6, 7, 8, 9) else TOP_BOARD_1
        strengths = [top, top - 45, top - 90, top - 150] if t not in (6, 7, 8, 9) else [2330, 2290, 2250, 2172]
        members = []
        for _board, strength in enumerate(strengths, 1):
            created = dt.datetime(
                2016 + rng.randint(0, 6), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), tzinfo=UTC
            )
            members.append(s.player(strength + rng.uniform(-10, 10), created))
        s.roster[team] = members
        s.titles[team] = ["AGM", "", "", ""] if t < 4 else ["", "", "", ""]
        s.captains[team] = 1
    for team, members in s.roster.items():
        members[3].cap = s.cap_of(team)
        if team not in names[6:10]:
            members[3].strength = min(members[3].strength, s.cap_of(team) - 40)


def order_boards(s: Season, skip: str) -> None:
    """TEAM-COMP-4: the TDs order boards 1-3 by the rating at registration (board 4 stays: it is
    the capped board); the planted team `skip` keeps its wrong order."""

    def at_registration(p: Player) -> int:
        before = [r for t, r in p.rated if t < TEAM_REGISTRATION]
        return before[-1] if before else 0

    for team, members in s.roster.items():
        if team != skip:
            top = sorted(members[:3], key=at_registration, reverse=True)
            titles = dict(zip(map(id, members[:3]), s.titles[team][:3], strict=False))
            members[:3] = top
            s.titles[team][:3] = [titles[id(m)] for m in top]


def standings(teams: list[str], results: list[MatchBoards]) -> dict[str, tuple[float, float]]:
    """Match points (2 a win, 1 a draw) and the game-point difference of each team."""
    table: dict[str, list[float]] = {t: [0.0, 0.0] for t in teams}
    for boards in results:
        a = sum(b.points["a"] for b in boards)
        bp = sum(b.points["b"] for b in boards)
        ta, tb = boards[0].team_a, boards[0].team_b
        table[ta][0] += 2 if a > bp else 1 if a == bp else 0
        table[tb][0] += 2 if bp > a else 1 if a == bp else 0
        table[ta][1] += a - bp
        table[tb][1] += bp - a
    return {t: (v[0], v[1]) for t, v in table.items()}


def _team_seed(members: list[Player]) -> float:
    """A team's seeding rating: the mean of its boards 1-4's ratings at registration (0 unrated)."""
    return sum(rating_before(p, TEAM_REGISTRATION) or 0 for p in members[:4]) / 4


def _match_scores(results: list[MatchBoards]) -> list[tuple[int, str, str, float, float]]:
    """Each match as the pairing engine reads it: (round, a, b, a's score, b's score), a win 1, a draw 0.5."""
    out = []
    for boards in results:
        a, b = sum(x.points["a"] for x in boards), sum(x.points["b"] for x in boards)
        win = 1.0 if a > b else 0.5 if a == b else 0.0
        out.append((boards[0].round, boards[0].team_a, boards[0].team_b, win, 1.0 - win))
    return out


def _ranked(teams: list[str], results: list[MatchBoards]) -> list[str]:
    """The teams by match points, then game points, then registration order."""
    table = standings(teams, results)
    return sorted(teams, key=lambda t: (-table[t][0], -table[t][1], teams.index(t)))


def team_round(
    s: Season,
    stage: str,
    rnd: int,
    window: dt.datetime,
    pairs: list[tuple[str, str]],
    parts: Parts,
    planted: Incidents,
) -> list[MatchBoards]:
    """Schedule one round's matches, each on a day of its week; `planted` adds a board's incidents."""
    rng = s.rng
    out = []
    for m_i, (ta, tb) in enumerate(pairs):
        s.pairings.append((stage, rnd, ta, tb))
        day = window + dt.timedelta(days=1 + rng.randint(0, 4), hours=rng.randint(13, 19), minutes=rng.randint(0, 59))
        boards = []
        for board in range(1, 5):
            bm = BoardMatch(stage, rnd, ta, tb, board, s.roster[ta][board - 1], s.roster[tb][board - 1], parts)
            kw = planted(m_i, board, bm) or {}
            if not kw.get("skip"):
                start = kw.pop("start", day + dt.timedelta(minutes=2 * board))
                play_board(s.world, bm, start, **kw)
            boards.append(bm)
        out.append(boards)
    return out


def captains_games(s: Season, ta: str, tb: str, window: dt.datetime, results: list[str], stage: str, rnd: int) -> str:
    """TEAM-KO-1: the captains play 4 games of 3+0 after a tie; returns the winning team."""
    ca, cb = s.roster[ta][s.captains[ta] - 1], s.roster[tb][s.captains[tb] - 1]
    bm = BoardMatch(stage, rnd, ta, tb, 0, ca, cb, (("3+0", 4),), scoring={"3+0": (1, 0.5)})
    play_board(s.world, bm, window + dt.timedelta(days=6, hours=12), results=results)
    s.world.run_until(window + dt.timedelta(days=6, hours=20))
    return ta if bm.points["a"] > bm.points["b"] else tb


def _below_boards(members: list[Player], margin: int) -> Callable[[], float]:
    """`margin` below the lowest current rating of boards 1-3."""
    return lambda: min(q.rating.int_rating for q in members[:3]) - margin


def _relative_to(p: Player, offset: int) -> Callable[[], float]:
    """`p`'s current rating plus `offset`."""
    return lambda: p.rating.int_rating + offset


def play_team(s: Season, plan: TeamPlan) -> None:
    """Play the TEAM season: the histories and planted crossings, the Swiss rounds (with the
    disqualification and the replacement), the knockout and the final/bronze."""
    teams = list(s.roster)
    if len(teams) % 2:
        raise ValueError("the demo pairs every team every round: give an even number of teams")
    outsiders = outsiders_for(s.world, s.team_end - SPAN)
    s.play_histories(s.team_members() + [s.replacement], s.team_end, outsiders, plan)
    s.crossings = [Crossing(s.world, p, 2200, day, hold, nearest(outsiders, 2200)) for p, day, hold in plan.crossings]
    _steer_board_order(s, plan, outsiders)
    s.world.run_until(TEAM_START)
    order_boards(s, skip=teams[5])
    # board 3 once the boards are ordered: never the captain (board 1), whose disqualification
    # would disqualify the team too (TEAM-COMP-7), which is not what this case plants
    forfeiter = s.roster[teams[-1]][2]
    swiss = _play_swiss(s, outsiders, forfeiter)
    _plant_replacement(s, forfeiter)
    s.world.run_until(knockout_start(s.swiss_rounds))
    finalists, bronze = _play_knockout(s, outsiders, forfeiter, swiss)
    _play_final(s, outsiders, forfeiter, finalists, bronze)
    s.world.run_until(s.team_end + DAY)


def _steer_board_order(s: Season, plan: TeamPlan, outsiders: list[Player]) -> None:
    """TEAM-COMP-4 at registration (every member quiet from 3 days before it): the planted team's
    board 2 ends 90-150 above its board 1; on every team board 4 ends at least 10 below boards
    1-3 (the TDs order those three in round 1; board 4 is the capped board and stays)."""
    w, reg = s.world, TEAM_REGISTRATION
    w.run_until(reg - 2 * DAY)
    swapped = s.roster[plan.board_order[0]]
    board1, board2 = swapped[0], swapped[1]
    lo, hi = _relative_to(board1, 90), _relative_to(board1, 150)
    s.steers.append(Steer(w, board2, reg - 2 * DAY, nearest(outsiders, board2.strength), lo, hi))
    w.run_until(reg - DAY)
    for members in s.roster.values():
        board4 = members[3]
        hi = _below_boards(members, 10)
        s.steers.append(Steer(w, board4, reg - DAY, nearest(outsiders, board4.strength), fixed(0), hi))


def _play_swiss(s: Season, outsiders: list[Player], forfeiter: Player) -> list[MatchBoards]:
    """The Swiss rounds, each paired by the engine `antichess-td pair` runs (FIDE Dutch), seeded
    by the teams' ratings (the mean of boards 1-4 at registration, as the seeding view has them)
    and scored by match points; the forfeits of rounds 5 and 6 disqualify `forfeiter`, replaced
    from round 7 (TEAM-COMP-6). Returns every match's boards."""
    w, teams = s.world, list(s.roster)
    results: list[MatchBoards] = []
    seeds: dict[str, float] = {}
    for rnd in range(1, s.swiss_rounds + 1):
        window = TEAM_START + dt.timedelta(days=7 * (rnd - 1))
        if rnd == 7:
            _steer_replacement(s, outsiders, forfeiter, window)
        w.run_until(window)
        if rnd == 1:
            seeds = {t: _team_seed(s.roster[t]) for t in teams}
        pairs = engine_pairs(seeds, _match_scores(results), rnd, s.swiss_rounds)
        incidents = swiss_incidents(s, rnd, forfeiter)
        if rnd >= 7:  # the replacement plays the disqualified player's board from round 7 on
            with s.replaced(teams[-1], forfeiter):
                results += team_round(s, "swiss", rnd, window, pairs, SWISS_PARTS, incidents)
        else:
            results += team_round(s, "swiss", rnd, window, pairs, SWISS_PARTS, incidents)
        if rnd == 6:
            s.overrides.append(("swiss", 6, forfeiter.name, "disqualify", "", "two forfeits (TEAM-CONDUCT-3)"))
            why = "replacement for the disqualified player"
            s.overrides.append(("swiss", 7, forfeiter.name, "replace", s.replacement.name, why))
    return results


def _steer_replacement(s: Season, outsiders: list[Player], forfeiter: Player, window: dt.datetime) -> None:
    """TEAM-COMP-6: the replacement ends 30-70 below the player it replaces (both quiet from 3 days
    before round 7), so it is short of the 100 required."""
    s.world.run_until(window - 2 * DAY)
    repl = s.replacement
    lo, hi = _relative_to(forfeiter, -70), _relative_to(forfeiter, -30)
    s.steers.append(Steer(s.world, repl, window - 2 * DAY, nearest(outsiders, repl.strength), lo, hi))


def _plant_replacement(s: Season, forfeiter: Player) -> None:
    """TEAM-CONDUCT-3's disqualification and TEAM-COMP-6's replacement, as the data holds them."""
    s.plant(
        "TEAM-CONDUCT-3",
        forfeiter.name,
        "forfeited swiss rounds 5 and 6: disqualified after two forfeits (overrides)",
    )
    r7 = TEAM_START + dt.timedelta(days=42)
    repl_rating, replaced_rating = rating_before(s.replacement, r7), rating_before(forfeiter, r7)
    if repl_rating is None or replaced_rating is None or not 0 < replaced_rating - repl_rating < 100:
        raise RuntimeError(
            f"demo generator: TEAM-COMP-6 replacement {s.replacement.name} rated {repl_rating} "
            f"against {replaced_rating} for {forfeiter.name} at round 7: not planted"
        )
    s.plant(
        "TEAM-COMP-6",
        s.replacement.name,
        f"replaces the disqualified {forfeiter.name} from round 7 but is "
        f"rated {repl_rating} against {replaced_rating}, only "
        f"{replaced_rating - repl_rating} below (100 required)",
    )


def _under_caps(s: Season, outsiders: list[Player], at: dt.datetime) -> None:
    """Every board 4 at least 100 under its team's cap (TEAM-CAP-1) from `at` (a knockout or final
    round's start; board 4 plays nothing else then): the planted ties force wins and losses
    in equal numbers, part by part, which cannot climb 100 points."""
    for team, members in s.roster.items():
        board4 = members[3]
        hi = fixed(s.cap_of(team) - 100)
        s.steers.append(Steer(s.world, board4, at, nearest(outsiders, board4.strength), fixed(0), hi))


def _play_knockout(
    s: Season, outsiders: list[Player], forfeiter: Player, swiss: list[MatchBoards]
) -> tuple[list[str], list[tuple[str, str]]]:
    """The knockout rounds from the Swiss standings (TEAM-FMT-1); the last one (the semifinals)
    has the planted tie decided by the captains (TEAM-KO-1). Returns the finalists and the
    losers of the last round (by the name of their match's first team)."""
    teams = list(s.roster)
    q = knockout_size(len(teams))
    alive = _ranked(teams, swiss)[:q]
    s.ko_rounds = int(math.log2(q)) - 1
    window = knockout_start(s.swiss_rounds)
    losers: list[tuple[str, str]] = []
    for rnd in range(1, s.ko_rounds + 1):
        _under_caps(s, outsiders, window)
        pairs = [(alive[i], alive[len(alive) - 1 - i]) for i in range(len(alive) // 2)]
        tie = rnd == s.ko_rounds  # the last knockout round (the semifinals) has the planted tie
        with s.replaced(teams[-1], forfeiter):  # and in the later stages (TEAM-COMP-6)
            boards_all = team_round(s, "knockout", rnd, window, pairs, KO_PARTS, _tied_first_match if tie else _none)
        s.world.run_until(window + dt.timedelta(days=7))
        winners, losers = [], []
        for m_i, boards in enumerate(boards_all):
            ta, tb = boards[0].team_a, boards[0].team_b
            win = _semifinal_tie(s, boards, window, rnd) if tie and m_i == 0 else _match_winner(boards)
            winners.append((ta, win))
            losers.append((ta, tb if win == ta else ta))
        # the next round pairs the winners as the pipeline reads the matches: by the name of
        # their first team (sql/queries/team_matches_of_stage.sql), so its proposal is this one
        alive = [t for _, t in sorted(winners)]
        losers = sorted(losers)
        window += dt.timedelta(days=7)
    return alive, losers


def _none(m_i: int, board: int, bm: BoardMatch) -> None:
    """No planted incident."""
    return None


def _tied_first_match(m_i: int, board: int, bm: BoardMatch) -> dict[str, list[str]] | None:
    """The round's first match ends level on every board."""
    return {"results": tie_results(bm.parts)} if m_i == 0 else None


def _tied_second_match(m_i: int, board: int, bm: BoardMatch) -> dict[str, list[str]] | None:
    """The round's second match (the bronze) ends level on every board."""
    return {"results": tie_results(bm.parts)} if m_i == 1 else None


def _match_winner(boards: MatchBoards) -> str:
    a = sum(b.points["a"] for b in boards)
    bp = sum(b.points["b"] for b in boards)
    return boards[0].team_a if a >= bp else boards[0].team_b


def _semifinal_tie(s: Season, boards: MatchBoards, window: dt.datetime, rnd: int) -> str:
    """TEAM-KO-1: the planted tie, decided by the captains' games 3-1; returns the winner."""
    a = sum(b.points["a"] for b in boards)
    bp = sum(b.points["b"] for b in boards)
    ta, tb = boards[0].team_a, boards[0].team_b
    win = captains_games(s, ta, tb, window, ["a", "a", "b", "a"], "knockout", rnd)
    s.plant(
        "TEAM-KO-1",
        f"{ta} v {tb}",
        f"knockout round {rnd}: tied {a:g}-{bp:g}; no captains' advantage point "
        "(their board was tied); the captains' four 3+0 games went 3-1",
    )
    return win


def _play_final(
    s: Season, outsiders: list[Player], forfeiter: Player, finalists: list[str], losers: list[tuple[str, str]]
) -> None:
    """The final and the bronze match (TEAM-SCORE-1: the 0.5+1 part added); the bronze is tied,
    the captains' games go 2-2 and the TD rules the armageddon (ARM-1, TEAM-KO-1)."""
    teams = list(s.roster)
    window = knockout_start(s.swiss_rounds) + dt.timedelta(days=7 * s.ko_rounds)
    _under_caps(s, outsiders, window)
    pairs = [(finalists[0], finalists[1]), (losers[0][1], losers[1][1])]
    with s.replaced(teams[-1], forfeiter):
        team_round(s, "final", 1, window, pairs, FINAL_PARTS, _tied_second_match)
    s.world.run_until(window + dt.timedelta(days=7))
    ta, tb = pairs[1]
    captains_games(s, ta, tb, window, ["a", "b", "a", "b"], "final", 1)
    s.overrides.append(
        ("final", 1, ta, "armageddon", tb, "bronze match tied, captains 2-2; armageddon won by Black on draw odds")
    )
    s.plant(
        "ARM-1",
        f"{ta} v {tb}",
        "bronze match tied and the captains' games 2-2: the armageddon result is a TD override",
    )
    s.plant("TEAM-KO-1", f"{ta} v {tb}", "bronze match tied on points, captains' 3+0 games 2-2 → armageddon")
