"""The planted facts checked against the generated data: each check raises if the generator broke
a fact, and states the numbers the data holds in its PLANTED.csv (or TRAPS.csv) row."""

from __future__ import annotations

import datetime as dt

from pipeline.sim.games import ms
from pipeline.sim.season.calendar import ACWC_SEEDING, TEAM_REGISTRATION, months_before
from pipeline.sim.season.state import Season
from pipeline.sim.season.steering import Crossing
from pipeline.sim.season.team_cases import TeamPlan
from pipeline.sim.season.world import Player, rating_before

PlantedRow = tuple[str, str, str]  # (rule_id, subject, note)


def check_planted_facts(s: Season, plan: TeamPlan, games_range: tuple[int, int]) -> list[PlantedRow]:
    """State the planted crossings, counts and board order as generated (raising where a fact
    does not hold), and check that no TEAM player falls short by accident (with 1000 history
    games or more). Returns the traps."""
    traps = classify_crossings(s, plan)
    plant_counts(s, plan)
    check_board_order(s, plan)
    if games_range[0] >= 1000:
        check_clean_eligibility(s, plan)
        check_clean_acwc_counts(s)
    return traps


RD_MARGIN = 5.0  # how far above TEAM-CAP-5's RD 80 the RD trap's first crossing must be


def classify_crossings(s: Season, plan: TeamPlan) -> list[PlantedRow]:
    """TEAM-CAP-3/4/5: classify the planted crossings by what was actually generated (the RD at each
    crossing comes from the simulation; a crossing at RD > 80 does not count). Plants the
    violations; returns the traps."""
    crossings: dict[str, list[Crossing]] = {}
    for c in s.crossings:
        if c.crossed_at is None:
            raise RuntimeError(f"planted crossing for {c.p.name} did not cross the cap")
        crossings.setdefault(c.p.name, []).append(c)
    traps = []
    for key, p in plan.cap_players.items():
        cs = crossings[p.name]
        counted = [c for c in cs if (c.rd_at_crossing or 0) <= 80]
        # the trap's first crossing, after months without a game, is the one planted above RD 80
        close = [c for c in cs[:1] if (c.rd_at_crossing or 0) <= 80 + RD_MARGIN] if key == "rd" else []
        if close:
            # the audit estimates the RD from the games (TEAM-CAP-5; its interval is a few points
            # wide): the trap's crossing this near the limit could be read on either side of it
            c = close[0]
            raise RuntimeError(
                f"planted TEAM-CAP-5 trap for {c.p.name}: its first crossing, on {c.crossed_at:%Y-%m-%d}, is at "
                f"RD {c.rd_at_crossing or 0:.1f}; it must be above {80 + RD_MARGIN:g} for the audit's estimate to "
                "read it above 80"
            )
        days = ", ".join(f"{c.crossed_at:%Y-%m-%d} (RD {c.rd_at_crossing or 0:.0f})" for c in cs)
        if key == "hold":
            s.plant("TEAM-CAP-4", p.name, f"board 4: above the 2200 cap for about 30 hours after crossing on {days}")
        elif len(counted) >= 3:
            s.plant("TEAM-CAP-3", p.name, f"board 4: above the 2200 cap after a game on {len(counted)} days: {days}")
        else:
            rule = "TEAM-CAP-5" if len(counted) < len(cs) else "TEAM-CAP-3"
            note = f"board 4: above the 2200 cap on {days}; only {len(counted)} count (RD above 80 does not): "
            traps.append((rule, p.name, note + "not a violation"))
    return traps


def rated_games(s: Season, p: Player, since: dt.datetime | None, until: dt.datetime) -> int:
    """`p`'s rated games created in [since, until)."""
    n = 0
    for g in s.world.games:
        for color in ("white", "black"):
            side = g["players"][color]
            if (
                side["user"]["id"] == p.id
                and "ratingDiff" in side
                and g["createdAt"] < ms(until)
                and (since is None or g["createdAt"] >= ms(since))
            ):
                n += 1
    return n


def rated_created(s: Season) -> dict[str, list[int]]:
    """Every player's rated games' createdAt (ms), by player id: one pass over the games."""
    created: dict[str, list[int]] = {}
    for g in s.world.games:
        for color in ("white", "black"):
            side = g["players"][color]
            if "ratingDiff" in side:
                created.setdefault(side["user"]["id"], []).append(g["createdAt"])
    return created


def _short(rule: str, p: Player, n: int, required: int) -> int:
    """`n`, checked to be short of `required` (a planted count)."""
    if n >= required:
        raise RuntimeError(
            f"demo generator: {rule} planted for {p.name}, who has {n} rated games ({required} required)"
        )
    return n


def plant_counts(s: Season, plan: TeamPlan) -> None:
    """TEAM-ELIG-2/3 and ACWC-ELIG-2: state the counts the data really holds at registration."""
    reg = TEAM_REGISTRATION
    for rule, p in plan.count_before_registration:
        n = _short(rule, p, rated_games(s, p, None, reg), 1000)
        s.plant(rule, p.name, f"{n} rated antichess games before registration (1000 required)")
    few = s.acwc_few
    n = _short("ACWC-ELIG-2", few, rated_games(s, few, None, ACWC_SEEDING), 100)
    s.plant("ACWC-ELIG-2", few.name, f"first rated antichess game on 2021-08-27: {n} before 2021-09-01 (100 required)")
    for rule, p in plan.count_recent:
        n = _short(rule, p, rated_games(s, p, months_before(reg, 3), reg), 100)
        s.plant(rule, p.name, f"{n} rated antichess games in the 3 months before registration (100 required)")


def check_board_order(s: Season, plan: TeamPlan) -> None:
    """TEAM-COMP-4 as the audit reads it (ratings at registration): the planted team's board 2 is
    more than 50 above its board 1 (PLANTED.csv states both ratings); on every team board 4 is
    below boards 1-3, and every other team's boards 1-3 descend. Raises if the generator broke that."""

    def rating(p: Player) -> int:
        r = rating_before(p, TEAM_REGISTRATION)
        if r is None:
            raise RuntimeError(f"demo generator: {p.name} has no rated game before registration")
        return r

    if any(st.ended_at is None for st in s.steers):
        raise RuntimeError("demo generator: a steered rating did not reach its band")
    swapped, row = plan.board_order
    for team, members in s.roster.items():
        r = [rating(p) for p in members[:4]]
        if r[3] >= min(r[:3]) or (team != swapped and r[:3] != sorted(r[:3], reverse=True)):
            raise RuntimeError(f"demo generator: {team}'s boards 1-4 are rated {r} at registration (TEAM-COMP-4)")
    b1, b2 = s.roster[swapped][:2]
    r1, r2 = rating(b1), rating(b2)
    if r2 - r1 <= 50:
        raise RuntimeError(
            f"demo generator: TEAM-COMP-4 planted on {swapped}, but board 2 is only {r2 - r1} above board 1"
        )
    s.planted[row] = (
        "TEAM-COMP-4",
        swapped,
        f"board 2 ({b2.name}, rated {r2} at registration) is {r2 - r1} above board 1 "
        f"({b1.name}, {r1}); no swap allowed",
    )


def check_clean_eligibility(s: Season, plan: TeamPlan) -> None:
    """The demo is honest: every TEAM player not planted as a TEAM-ELIG-2/3 case has 1000 rated
    antichess games created before registration (its prior games, counted on its profile, included)
    and 100 in the 3 months before it (the replacement: before the round it plays from). Raises if
    the generator broke that."""
    planted = {(rule, subject) for rule, subject, _ in s.planted}
    planted |= {(rule, p.name) for rule, p in plan.count_before_registration + plan.count_recent}
    created = rated_created(s)
    for p in s.team_members() + [s.replacement]:
        if p.disabled:
            continue
        reg = plan.registered[p.id]
        times = created.get(p.id, [])
        total = p.prior + sum(t < ms(reg) for t in times)
        recent = sum(ms(months_before(reg, 3)) <= t < ms(reg) for t in times)
        if total < 1000 and ("TEAM-ELIG-2", p.name) not in planted:
            raise RuntimeError(
                f"demo generator: {p.name} has {total} rated games before registration (TEAM-ELIG-2: 1000)"
            )
        if recent < 100 and ("TEAM-ELIG-3", p.name) not in planted:
            raise RuntimeError(
                f"demo generator: {p.name} has {recent} rated games in the 3 months before registration "
                "(TEAM-ELIG-3: 100)"
            )


def check_clean_acwc_counts(s: Season) -> None:
    """The demo is honest about ACWC-ELIG-2: every ACWC player but the planted one (and the closed
    or late accounts other rules catch) has 100 rated antichess games stored in the 24 months
    before the seeding date, so that the stored games alone decide its count (what the data
    shows, whatever the profile says). Raises if not."""
    lo, hi = ms(months_before(ACWC_SEEDING, 24)), ms(ACWC_SEEDING)
    created = rated_created(s)
    for p in s.acwc:
        if p is s.acwc_few or p.disabled or ms(p.created_at) >= lo:
            continue
        if (n := sum(lo <= t < hi for t in created.get(p.id, []))) < 100:
            raise RuntimeError(
                f"demo generator: {p.name} has {n} rated games stored in the 24 months before "
                f"{ACWC_SEEDING:%Y-%m-%d} (ACWC-ELIG-2: 100)"
            )
