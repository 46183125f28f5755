"""The SQL audits (sql/audits/*.sql), one file at a time on small real DuckDB databases.

For every audit file: a clean case with no finding and a planted violation that is found, with
the expected row computed by hand from the rule (docs/rules.md; the rule IDs are in the test names). Each file
is run verbatim on a fresh read-only connection whose session time zone is not UTC, as a TD
would paste it into the duckdb CLI (tests/kits/audit_world.py). TEAM registration is 2026-08-25
00:00 UTC, the initial pairings 2026-09-01 00:00 UTC; ACWC uses its own dates (ACWC-ELIG-1..3,
ACWC-SEED-1).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from pathlib import Path

import pytest

from kits.audit_world import NOW, REG, UTC, AuditWorld, run_file
from pipeline.store import findings_view, gateway, sql_files


def t(*args: int) -> dt.datetime:
    return dt.datetime(*args, tzinfo=UTC)


PROFILE = "https://lichess.org/@/"


# --------------------------------------------------------------------------- TEAM-ELIG-1


def test_team_elig_1_clean_six_months_to_the_minute(tmp_path: Path) -> None:
    """TEAM-ELIG-1: created 2026-02-25 00:00, exactly 6 months before registration: eligible."""
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Oldhand", 1, created_at=t(2026, 2, 25))
    w.member("Alpha", "Veteran", 2, created_at=t(2016, 1, 1))
    assert w.run("team_elig_account_age") == []


def test_team_elig_1_young_account(tmp_path: Path) -> None:
    """TEAM-ELIG-1: created 2026-04-27, 120 days (4 months) before the 2026-08-25 registration."""
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Newbie", 2, created_at=t(2026, 4, 27))
    assert w.run("team_elig_account_age") == [
        (
            "TEAM-ELIG-1",
            "error",
            "Newbie",
            "Alpha",
            "account created 2026-04-27 00:00 UTC, 120 days before registration at 2026-08-25 00:00 UTC: at least 6 months "
            "required (created by 2026-02-25 00:00 UTC)",
            PROFILE + "Newbie",
        )
    ]


# --------------------------------------------------------------------------- TEAM-ELIG-2, TEAM-ELIG-3


def recent_games(w: AuditWorld, name: str, n: int) -> None:
    """`n` rated games inside the 3 months before registration (2026-05-25 .. 2026-08-25)."""
    w.rated_games(name, n, t(2026, 5, 26), dt.timedelta(hours=18))


def test_team_elig_2_3_clean(tmp_path: Path) -> None:
    """TEAM-ELIG-2/3: 1500 rated games on the profile (none since registration), 120 stored in the 3 months before."""
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Steady", 1, games=1500)
    recent_games(w, "Steady", 120)
    assert w.run("team_elig_game_counts") == []


def since_registration(w: AuditWorld, name: str, n: int) -> None:
    """`n` rated games from an hour after registration on (counted as played since the cut-off)."""
    w.rated_games(name, n, REG + dt.timedelta(hours=1), dt.timedelta(hours=12))


def team_short_detail(count: int, profile: int, since: int) -> str:
    return (
        f"rated antichess games before 2026-08-25 00:00 UTC: {count} < 1000 (the Lichess profile count {profile} as of "
        f"2026-11-28 00:00 UTC minus {since} stored games created at or after 2026-08-25 00:00 UTC)"
    )


def test_team_elig_2_old_account_counted_from_the_profile_is_clean(tmp_path: Path) -> None:
    """TEAM-ELIG-2, resolution 2026-12-04: an account created 2019, its early games not stored
    (stored games begin 2024-08-25). Profile 1200 now, 150 stored games since registration:
    1200 - 150 = 1050 >= 1000 before registration, though only 120 are stored before it. A young
    account (created 2025-01-01, after the stored games begin) the same way: profile 1000, none
    since, 100 stored before: 1000, no finding."""
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Oldtimer", 1, games=1200)
    recent_games(w, "Oldtimer", 120)
    since_registration(w, "Oldtimer", 150)
    w.member("Alpha", "Fresh", 2, created_at=t(2025, 1, 1), games=1000)
    recent_games(w, "Fresh", 100)
    assert w.run("team_elig_game_counts") == []


def test_team_elig_2_short_account_is_an_error_with_both_numbers(tmp_path: Path) -> None:
    """TEAM-ELIG-2, resolution 2026-12-04: profile 1100 now, 150 stored games since registration:
    1100 - 150 = 950 < 1000 before registration (120 stored before it): an error naming 1100 and 150."""
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Short", 1, games=1100)
    recent_games(w, "Short", 120)
    since_registration(w, "Short", 150)
    assert w.run("team_elig_game_counts") == [
        ("TEAM-ELIG-2", "error", "Short", "Alpha", team_short_detail(950, 1100, 150), PROFILE + "Short")
    ]


def test_team_elig_2_without_a_profile_count_is_a_warning_naming_what_is_missing(tmp_path: Path) -> None:
    """TEAM-ELIG-2, resolution 2026-12-04: Gone's account is closed (its profile shows no game
    count; 5 games stored before registration); Unfetched has no profile stored at all. Neither
    can be counted: a warning each, saying which count is missing (TEAM-ELIG-3 skips the closed
    account, team_elig_marks reports it; Unfetched's 5 recent games are short of TEAM-ELIG-3)."""
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Gone", 1, closed=True)
    w.rated_games("Gone", 5, t(2026, 6, 1))
    w.member("Alpha", "Unfetched", 2, profile=False)
    w.rated_games("Unfetched", 5, t(2026, 6, 1))
    found = [r for r in w.run("team_elig_game_counts") if r[0] == "TEAM-ELIG-2"]
    assert found == [
        (
            "TEAM-ELIG-2",
            "warning",
            "Gone",
            "Alpha",
            "rated antichess games before 2026-08-25 00:00 UTC cannot be counted: the Lichess account is closed, so its "
            "profile (as of 2026-11-28 00:00 UTC) shows no rated antichess game count; only 5 stored before it (stored "
            "games begin 2024-08-25 00:00 UTC), 1000 required",
            PROFILE + "Gone",
        ),
        (
            "TEAM-ELIG-2",
            "warning",
            "Unfetched",
            "Alpha",
            "rated antichess games before 2026-08-25 00:00 UTC cannot be counted: no Lichess profile is stored for this "
            "player (not fetched yet, or no such account), so there is no rated antichess game count; only 5 stored "
            "before it (stored games begin 2024-08-25 00:00 UTC), 1000 required",
            PROFILE + "Unfetched",
        ),
    ]


def test_team_elig_2_stored_games_alone_reach_the_minimum(tmp_path: Path) -> None:
    """TEAM-ELIG-2, resolution 2026-12-04: stored games begin 2022-01-01; Unfetched has no profile
    count but 1000 stored games before registration (every 12 h from 2023-01-01, the last on
    2024-05-14): the stored count alone reaches 1000, no finding."""
    w = AuditWorld(tmp_path, history_since="2022-01-01T00:00:00Z")
    w.member("Alpha", "Unfetched", 1, profile=False)
    w.rated_games("Unfetched", 1000, t(2023, 1, 1), dt.timedelta(hours=12))
    recent_games(w, "Unfetched", 100)
    assert [r for r in w.run("team_elig_game_counts") if r[0] == "TEAM-ELIG-2"] == []


def test_team_elig_2_boundary_exactly_the_minimum(tmp_path: Path) -> None:
    """TEAM-ELIG-2, resolution 2026-12-04: 150 stored games since registration; Exact's profile
    1150 gives 1000 (eligible), Oneshort's 1149 gives 999 < 1000 (an error)."""
    w = AuditWorld(tmp_path)
    for board, (name, games) in enumerate([("Exact", 1150), ("Oneshort", 1149)], 1):
        w.member("Alpha", name, board, games=games)
        recent_games(w, name, 100)
        since_registration(w, name, 150)
    assert w.run("team_elig_game_counts") == [
        ("TEAM-ELIG-2", "error", "Oneshort", "Alpha", team_short_detail(999, 1149, 150), PROFILE + "Oneshort")
    ]


def test_team_elig_2_a_game_created_at_registration_counts_as_since(tmp_path: Path) -> None:
    """TEAM-ELIG-2, resolution 2026-12-04: "at or after the cut-off". Profile 1099; one stored game
    created at 2026-08-25 00:00 exactly and 99 later: 100 since, so 1099 - 100 = 999 < 1000. Were
    the game at registration counted as before it, 1099 - 99 = 1000 would pass."""
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Edge", 1, games=1099)
    recent_games(w, "Edge", 100)
    w.game("Edge", "Outsider1", REG)
    since_registration(w, "Edge", 99)
    assert w.run("team_elig_game_counts") == [
        ("TEAM-ELIG-2", "error", "Edge", "Alpha", team_short_detail(999, 1099, 100), PROFILE + "Edge")
    ]


def test_team_elig_3_too_few_recent_games(tmp_path: Path) -> None:
    """TEAM-ELIG-3: 99 rated games from 2026-05-25 00:00 (inclusive) to registration; one a minute earlier does not count."""
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Quiet", 1, games=1500)
    w.game("Quiet", "Outsider1", t(2026, 5, 25))  # counts: the window opens here
    w.game("Quiet", "Outsider1", t(2026, 5, 24, 23, 59))  # a minute too early
    recent_games(w, "Quiet", 98)
    assert w.run("team_elig_game_counts") == [
        (
            "TEAM-ELIG-3",
            "error",
            "Quiet",
            "Alpha",
            "rated antichess games from 2026-05-25 00:00 to 2026-08-25 00:00 UTC (3 months before registration): 99 < 100",
            PROFILE + "Quiet",
        )
    ]


def test_team_elig_3_cannot_be_decided_before_the_stored_games(tmp_path: Path) -> None:
    """TEAM-ELIG-3: stored games begin 2026-07-01, inside the window: a warning, not an error."""
    w = AuditWorld(tmp_path, history_since="2026-07-01T00:00:00Z")
    w.member("Alpha", "Unseen", 1, games=1500)
    w.rated_games("Unseen", 40, t(2026, 7, 2))
    assert w.run("team_elig_game_counts") == [
        (
            "TEAM-ELIG-3",
            "warning",
            "Unseen",
            "Alpha",
            "rated antichess games from 2026-05-25 00:00 to 2026-08-25 00:00 UTC (3 months before registration): 40 < 100 "
            "(stored games begin 2026-07-01 00:00 UTC, after the window opens: older games cannot be counted)",
            PROFILE + "Unseen",
        )
    ]


# --------------------------------------------------------------------------- TEAM-ELIG-4


def test_team_elig_4_clean(tmp_path: Path) -> None:
    """TEAM-ELIG-4: one cheat-detected game lost 12 months and a day before registration (only one in
    24 months), and one the opponent lost: eligible."""
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Honest", 1)
    w.game("Honest", "Outsider1", t(2025, 8, 24), "black", status="cheat")
    w.game("Honest", "Outsider2", t(2026, 1, 1), "white", status="cheat")
    assert w.run("team_elig_cheat") == []


def test_team_elig_4_one_in_12_months_two_in_24(tmp_path: Path) -> None:
    """TEAM-ELIG-4: a cheat-detected game lost 8 months before registration; two lost 14 and 20 months before."""
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Cheater", 1)
    w.member("Beta", "Twice", 1)
    one = w.game("Outsider1", "Cheater", t(2025, 12, 25), "white", status="cheat")
    a = w.game("Twice", "Outsider1", t(2024, 12, 25), "black", status="cheat")
    b = w.game("Outsider2", "Twice", t(2025, 6, 25), "white", status="cheat")
    assert w.run("team_elig_cheat") == [
        (
            "TEAM-ELIG-4",
            "error",
            "Cheater",
            "Alpha",
            f"1 cheat-detected game(s) lost since 2025-08-25 00:00 UTC (12 months before registration; none allowed): {one} on 2025-12-25",
            f"https://lichess.org/{one}",
        ),
        (
            "TEAM-ELIG-4",
            "error",
            "Twice",
            "Beta",
            f"2 cheat-detected games lost since 2024-08-25 00:00 UTC (24 months before registration; at most 1 allowed): "
            f"{a} on 2024-12-25, {b} on 2025-06-25",
            f"https://lichess.org/{a}",
        ),
    ]


def test_team_elig_4_warns_when_stored_games_begin_too_late(tmp_path: Path) -> None:
    """TEAM-ELIG-4 looks 24 months back; stored games beginning 2025-01-01 cannot show that far."""
    w = AuditWorld(tmp_path, history_since="2025-01-01T00:00:00Z")
    w.member("Alpha", "Honest", 1)
    assert w.run("team_elig_cheat") == [
        (
            "TEAM-ELIG-4",
            "warning",
            "stored games",
            None,
            "stored games begin 2025-01-01 00:00 UTC, after 2024-08-25 00:00 UTC (24 months before the earliest registration): "
            "cheat-detected games before then cannot be seen (lichess.history_since)",
            None,
        )
    ]


# --------------------------------------------------------------------------- TEAM-ELIG-5, TEAM-ELIG-6


def test_team_elig_5_6_clean(tmp_path: Path) -> None:
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Plain", 1)
    assert w.run("team_elig_marks") == []
    assert w.run("team_elig_bot") == []


def test_team_elig_5_closed_marked_and_unknown(tmp_path: Path) -> None:
    """TEAM-ELIG-5: a closed account (error), a tosViolation mark (warning: no date), no profile (warning)."""
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Gone", 1, closed=True)
    w.member("Alpha", "Marked", 2, tos=True)
    w.member("Alpha", "Ghost", 3, profile=False)
    assert w.run("team_elig_marks") == [
        (
            "TEAM-ELIG-5",
            "error",
            "Gone",
            "Alpha",
            "the account is closed on Lichess (disabled) as of 2026-11-28 00:00 UTC: "
            "it cannot play; Lichess does not say whether it was banned",
            PROFILE + "Gone",
        ),
        (
            "TEAM-ELIG-5",
            "warning",
            "Ghost",
            "Alpha",
            "no Lichess profile stored for this player (not fetched yet, or no such "
            "account): eligibility cannot be checked",
            PROFILE + "Ghost",
        ),
        (
            "TEAM-ELIG-5",
            "warning",
            "Marked",
            "Alpha",
            "the profile carries a tosViolation mark (engine or boost) as of "
            "2026-11-28 00:00 UTC; Lichess does not publish its date: banned in the past 12 months?",
            PROFILE + "Marked",
        ),
    ]


def test_team_elig_6_bot(tmp_path: Path) -> None:
    """TEAM-ELIG-6: Lichess title BOT."""
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Beepboop", 5, lichess_title="BOT")
    assert w.run("team_elig_bot") == [
        (
            "TEAM-ELIG-6",
            "error",
            "Beepboop",
            "Alpha",
            "a BOT account (Lichess title BOT): BOT accounts cannot play",
            PROFILE + "Beepboop",
        )
    ]


# --------------------------------------------------------------------------- TEAM-ELIG-7


def decayed(rd: float, days: float, volatility: float = 0.09) -> float:
    """Glicko-2 step 6 as Lichess decays an RD: 0.21436 rating periods a day, at most 500."""
    return min(500.0, 173.7178 * math.sqrt((rd / 173.7178) ** 2 + days * 0.21436 * volatility**2))


def test_team_elig_7_clean(tmp_path: Path) -> None:
    """TEAM-ELIG-7: last rated game 10 days before the pairings at RD 50 [46, 54] → about 55 then: established."""
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Active", 1)
    w.rating_path("Active", [(t(2026, 8, 22), 2000, 50.0)])
    assert decayed(54, 10) < 110
    assert w.run("team_elig_provisional") == []


def test_team_elig_7_provisional_at_the_pairings(tmp_path: Path) -> None:
    """TEAM-ELIG-7: last rated game 2025-07-17, 411 days before the 2026-09-01 pairings, RD 45 [41, 49]
    after it; decayed at volatility 0.09 that is RD 153 [152, 155] >= 110: provisional. A game
    without an RD estimate is a warning (RD unknown), never assumed."""
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Idle", 1)
    w.member("Alpha", "Unknown", 2)
    [idle] = w.rating_path("Idle", [(t(2025, 7, 17), 2000, None)])
    w.estimate(idle, "Idle", t(2025, 7, 17), 1997, 2000, 45.0, 41.0, 49.0)
    [unknown] = w.rating_path("Unknown", [(t(2026, 8, 30), 2000, None)])
    est, low, high = decayed(45, 411), decayed(41, 411), decayed(49, 411)
    assert (round(est), round(low), round(high)) == (153, 152, 155)
    assert w.run("team_elig_provisional") == [
        (
            "TEAM-ELIG-7",
            "error",
            "Idle",
            "Alpha",
            f"RD at the initial pairings 2026-09-01 00:00 UTC estimated 153 [152, 155] (RD 45 [41, 49] after the last rated game "
            f"before them, {idle} on 2025-07-17, decayed over 411 days at volatility 0.09): provisional (RD >= 110)",
            f"https://lichess.org/{idle}",
        ),
        (
            "TEAM-ELIG-7",
            "warning",
            "Unknown",
            "Alpha",
            f"RD unknown at the initial pairings 2026-09-01 00:00 UTC: no RD estimate for the last rated game before them "
            f"({unknown} on 2026-08-30, 2 days earlier)",
            f"https://lichess.org/{unknown}",
        ),
    ]


def test_team_elig_7_before_the_pairings_the_profile_says(tmp_path: Path) -> None:
    """TEAM-ELIG-7 checked on 2026-08-28, before the 2026-09-01 pairings: the profile's provisional flag now."""
    w = AuditWorld(tmp_path)
    w.member("Alpha", "Rusty", 1, provisional=True, rd=130)
    assert w.run("team_elig_provisional", now=t(2026, 8, 28)) == [
        (
            "TEAM-ELIG-7",
            "warning",
            "Rusty",
            "Alpha",
            "provisional now (RD 130 as of 2026-11-28 00:00 UTC); the initial pairings at 2026-09-01 00:00 UTC need an established "
            "rating (RD < 110)",
            PROFILE + "Rusty",
        )
    ]


# --------------------------------------------------------------------------- TEAM-ELIG-8


def replacement_world(tmp_path: Path) -> AuditWorld:
    w = AuditWorld(tmp_path)
    w.team("Alpha", ["Alpha1", "Alpha2", "Alpha3", "Alpha4", "Alpha5"])
    w.team("Beta", ["Beta1", "Beta2", "Beta3", "Beta4"])
    w.pairing("swiss", 7, "Alpha", "Beta", t(2026, 10, 13))
    return w


def test_team_elig_8_clean(tmp_path: Path) -> None:
    """TEAM-ELIG-8: a replacement who is on no team."""
    w = replacement_world(tmp_path)
    w.user("Newcomer")
    w.override("swiss", 7, "alpha3", "replace", "newcomer")
    assert w.run("team_elig_duplicates") == []


def test_team_elig_8_replacement_already_registered(tmp_path: Path) -> None:
    """TEAM-ELIG-8: the replacement plays for another team (error) / is the team's own 5th member
    (warning); one player named to replace two (error)."""
    w = replacement_world(tmp_path)
    w.user("Drifter")
    w.override("swiss", 7, "alpha3", "replace", "beta1")
    w.override("swiss", 7, "alpha2", "replace", "alpha5")
    w.override("swiss", 7, "beta2", "replace", "drifter")
    w.override("swiss", 7, "beta3", "replace", "drifter")
    assert w.run("team_elig_duplicates") == [
        (
            "TEAM-ELIG-8",
            "error",
            "Beta1",
            "Alpha",
            "overrides.csv line 2: named to replace Alpha3 (Alpha board 3) from swiss "
            "round 7, but already registered on team Beta board 1",
            PROFILE + "Beta1",
        ),
        (
            "TEAM-ELIG-8",
            "error",
            "Drifter",
            "Beta",
            "named as the replacement of 2 players: Beta2 (Beta, overrides.csv line 4); "
            "Beta3 (Beta, overrides.csv line 5)",
            PROFILE + "Drifter",
        ),
        (
            "TEAM-ELIG-8",
            "warning",
            "Alpha5",
            "Alpha",
            "overrides.csv line 3: named to replace Alpha2 (Alpha board 2) from swiss "
            "round 7, but already registered on the same team board 5",
            PROFILE + "Alpha5",
        ),
    ]


# --------------------------------------------------------------------------- TEAM-COMP-1, 2, 3


def test_team_comp_1_clean_ten_teams_four_boards(tmp_path: Path) -> None:
    w = AuditWorld(tmp_path)
    for i in range(10):
        w.team(f"Team{i}", [f"P{i}x{b}" for b in range(1, 5)])
    assert w.run("team_comp_boards") == []


def test_team_comp_1_nine_teams_play_three_boards(tmp_path: Path) -> None:
    """TEAM-COMP-1: with fewer than 10 teams, 3 boards."""
    w = AuditWorld(tmp_path)
    for i in range(9):
        w.team(f"Team{i}", [f"P{i}x{b}" for b in range(1, 5)])
    assert w.run("team_comp_boards") == [
        (
            "TEAM-COMP-1",
            "warning",
            "audit-test",
            None,
            "9 teams play 4 boards: TEAM-COMP-1 plays 3 boards with fewer than 10 teams (and TEAM-FMT-1 needs 10 teams)",
            None,
        )
    ]


def test_team_comp_2_clean_two_titled(tmp_path: Path) -> None:
    w = AuditWorld(tmp_path)
    w.team("Alpha", ["A1", "A2", "A3", "A4"], ["AGM", "ASGM", "", ""])
    assert w.run("team_comp_titles") == []


def test_team_comp_2_three_titled(tmp_path: Path) -> None:
    """TEAM-COMP-2: AGM, AGM, ASGM: three AGM-or-higher, 2 allowed."""
    w = AuditWorld(tmp_path)
    w.team("Alpha", ["A1", "A2", "A3", "A4"], ["AGM", "AGM", "ASGM", ""])
    assert w.run("team_comp_titles") == [
        (
            "TEAM-COMP-2",
            "error",
            "Alpha",
            "Alpha",
            "3 players titled AGM or higher (AGM A1 board 1, AGM A2 board 2, ASGM A3 board 3); at most 2 allowed",
            PROFILE + "A3",
        )
    ]


STRONGEST = '[composition]\nstrongest_players = ["Pinni", "Preslav", "TUGR"]\n'


def test_team_comp_3_clean(tmp_path: Path) -> None:
    w = AuditWorld(tmp_path, STRONGEST)
    w.team("Alpha", ["Pinni", "A2", "A3", "A4"])
    w.team("Beta", ["Preslav", "B2", "B3", "B4"])
    w.team("Gamma", ["G1", "G2", "G3", "TUGR"])
    assert w.run("team_comp_strongest") == []


def test_team_comp_3_two_strongest_on_one_team(tmp_path: Path) -> None:
    """TEAM-COMP-3: the listed strongest players all on different teams."""
    w = AuditWorld(tmp_path, STRONGEST)
    w.team("Alpha", ["Pinni", "Preslav", "A3", "A4"])
    w.team("Gamma", ["G1", "G2", "G3", "TUGR"])
    assert w.run("team_comp_strongest") == [
        (
            "TEAM-COMP-3",
            "error",
            "Alpha",
            "Alpha",
            "2 of the strongest-players list on one team: Pinni (board 1), Preslav (board 2); they must all be on different teams",
            PROFILE + "Preslav",
        )
    ]


# --------------------------------------------------------------------------- TEAM-COMP-4


def ordered_team(w: AuditWorld, ratings: list[int]) -> None:
    names = [f"B{i}" for i in range(1, len(ratings) + 1)]
    w.team("Alpha", names)
    for name, rating in zip(names, ratings, strict=False):
        w.rating_path(
            name, [(REG - dt.timedelta(days=3), rating, 50.0), (REG + dt.timedelta(days=3), rating + 300, 50.0)]
        )


def test_team_comp_4_clean(tmp_path: Path) -> None:
    """TEAM-COMP-4: 2300 > 2250 > 2200 > 2100 at registration (later ratings do not matter)."""
    w = AuditWorld(tmp_path)
    ordered_team(w, [2300, 2250, 2200, 2100])
    assert w.run("team_comp_board_order") == []


def test_team_comp_4_board_2_above_board_1(tmp_path: Path) -> None:
    """TEAM-COMP-4: board 2 rated 120 above board 1 at registration: more than the 50-point tolerance."""
    w = AuditWorld(tmp_path)
    ordered_team(w, [2300, 2420, 2200, 2100])
    assert w.run("team_comp_board_order") == [
        (
            "TEAM-COMP-4",
            "error",
            "Alpha",
            "Alpha",
            "boards not in descending order of the seeding rating at 2026-08-25 00:00 UTC: board 2 B2 (2420) is rated 120 above "
            "board 1 B1 (2300); no swap of these boards is allowed (composition.allowed_swaps)",
            PROFILE + "B2",
        )
    ]


def test_team_comp_4_allowed_swap_and_comparable_players(tmp_path: Path) -> None:
    """TEAM-COMP-4: the TDs allowed boards 1 and 2 to swap; boards 3 and 4 30 apart: a warning."""
    w = AuditWorld(tmp_path, '[composition]\nallowed_swaps = [{ team = "Alpha", boards = [2, 1] }]\n')
    ordered_team(w, [2300, 2420, 2100, 2130])
    assert w.run("team_comp_board_order") == [
        (
            "TEAM-COMP-4",
            "warning",
            "Alpha",
            "Alpha",
            "boards not in descending order of the seeding rating at 2026-08-25 00:00 UTC: board 4 B4 (2130) is rated 30 above "
            "board 3 B3 (2100); no swap of these boards is allowed (composition.allowed_swaps) (within 50 points: comparable "
            "players?)",
            PROFILE + "B4",
        )
    ]


# --------------------------------------------------------------------------- TEAM-COMP-5, 6


def substitute_world(tmp_path: Path, sub_rating: int) -> AuditWorld:
    w = AuditWorld(tmp_path)
    w.team("Alpha", ["A1", "A2", "A3", "A4", "Sub"])
    w.team("Beta", ["B1", "B2", "B3", "B4"])
    w.pairing("swiss", 3, "Alpha", "Beta", t(2026, 9, 15))
    w.rating_path("A2", [(t(2026, 9, 10), 2100, 50.0)])
    w.rating_path("A3", [(t(2026, 9, 10), 2080, 50.0)])
    w.rating_path("Sub", [(t(2026, 9, 12), sub_rating, 50.0)])
    return w


def test_team_comp_5_clean(tmp_path: Path) -> None:
    """TEAM-COMP-5: the 5th member (2050) sits in for A2 (2100): 50 apart, similar."""
    w = substitute_world(tmp_path, 2050)
    w.override("swiss", 3, "a2", "substitute", "sub")
    assert w.run("team_comp_substitutes") == []


def test_team_comp_5_dissimilar_and_two_boards(tmp_path: Path) -> None:
    """TEAM-COMP-5: a 5th member rated 2250 for A2 (2100): 150 apart; the same one named for two boards of a round."""
    w = substitute_world(tmp_path, 2250)
    w.override("swiss", 3, "a2", "substitute", "sub")
    w.override("swiss", 3, "a3", "substitute", "sub")
    assert w.run("team_comp_substitutes") == [
        (
            "TEAM-COMP-5",
            "error",
            "Sub",
            "Alpha",
            "swiss round 3: the 5th member substitutes for 2 boards (board 2 for A2, "
            "overrides.csv line 2; board 3 for A3, overrides.csv line 3); only 4 players play in a round",
            PROFILE + "Sub",
        ),
        (
            "TEAM-COMP-5",
            "warning",
            "Sub",
            "Alpha",
            "swiss round 3: substitutes for A2 on board 2 (overrides.csv line 2) rated "
            "2250 against 2100 at the round start 2026-09-15 00:00 UTC: 150 apart, more than 100 (similar rating?)",
            PROFILE + "Sub",
        ),
        (
            "TEAM-COMP-5",
            "warning",
            "Sub",
            "Alpha",
            "swiss round 3: substitutes for A3 on board 3 (overrides.csv line 3) rated "
            "2250 against 2080 at the round start 2026-09-15 00:00 UTC: 170 apart, more than 100 (similar rating?)",
            PROFILE + "Sub",
        ),
    ]


def test_team_comp_6_clean(tmp_path: Path) -> None:
    """TEAM-COMP-6: A3 (2000 at the round-7 start) replaced by a player rated 1850: 150 below."""
    w = replacement_world(tmp_path)
    w.user("Rep")
    w.rating_path("Alpha3", [(t(2026, 10, 10), 2000, 50.0)])
    w.rating_path("Rep", [(t(2026, 10, 11), 1850, 50.0)])
    w.override("swiss", 7, "alpha3", "replace", "rep")
    assert w.run("team_comp_replacement") == []


def test_team_comp_6_replacement_not_100_below(tmp_path: Path) -> None:
    """TEAM-COMP-6: the replacement is rated 1940 against 2000: only 60 below (100 required).
    Ratings after the round start (2026-10-13) do not count."""
    w = replacement_world(tmp_path)
    w.user("Rep")
    w.rating_path("Alpha3", [(t(2026, 10, 10), 2000, 50.0), (t(2026, 10, 14), 2300, 50.0)])
    w.rating_path("Rep", [(t(2026, 10, 11), 1940, 50.0)])
    w.override("swiss", 7, "alpha3", "replace", "rep")
    assert w.run("team_comp_replacement") == [
        (
            "TEAM-COMP-6",
            "error",
            "Rep",
            "Alpha",
            "replaces Alpha3 (board 3) from swiss round 7 (overrides.csv line 2): rated 1940 at 2026-10-13 00:00 UTC against 2000 "
            "for Alpha3: only 60 below (100 required)",
            PROFILE + "Rep",
        )
    ]


# --------------------------------------------------------------------------- TEAM-COMP-7, 8


def test_team_comp_7_clean_one_disqualified(tmp_path: Path) -> None:
    """TEAM-COMP-7: one disqualified player (not the captain) does not disqualify the team."""
    w = replacement_world(tmp_path)
    w.override("swiss", 6, "alpha3", "disqualify")
    assert w.run("team_comp_disqualified") == []


def test_team_comp_7_two_disqualified_or_the_captain(tmp_path: Path) -> None:
    """TEAM-COMP-7: Alpha: one disqualify ruling and one player with two forfeits (TEAM-CONDUCT-3);
    Beta: its captain disqualified."""
    w = replacement_world(tmp_path)
    w.override("swiss", 6, "alpha3", "disqualify")
    w.override("swiss", 5, "alpha2", "forfeit")
    w.override("swiss", 6, "alpha2", "forfeit")
    w.override("swiss", 6, "beta1", "disqualify")
    assert w.run("team_comp_disqualified") == [
        (
            "TEAM-COMP-7",
            "error",
            "Alpha",
            "Alpha",
            "2 players disqualified: the team is disqualified: Alpha2 (2 forfeit(s)); Alpha3 (disqualify ruling)",
            PROFILE + "Alpha2",
        ),
        (
            "TEAM-COMP-7",
            "error",
            "Beta",
            "Beta",
            "the captain disqualified: the team is disqualified: Beta1, the captain (disqualify ruling)",
            PROFILE + "Beta1",
        ),
    ]


def test_team_comp_8_clean_one_captain_change(tmp_path: Path) -> None:
    """TEAM-COMP-8: one change of captain is allowed."""
    w = replacement_world(tmp_path)
    w.captain_seen("Alpha", "Alpha1", t(2026, 8, 26))
    w.captain_seen("Alpha", "Alpha2", t(2026, 9, 20))
    assert w.run("team_comp_captain") == []


def test_team_comp_8_changes_knockout_and_directors(tmp_path: Path) -> None:
    """TEAM-COMP-8: two captain changes; the captain sitting out a knockout round; a TD as captain;
    two TDs on one team."""
    w = AuditWorld(tmp_path, '[composition]\ntournament_directors = ["Beta1", "Beta2"]\n')
    w.team("Alpha", ["Alpha1", "Alpha2", "Alpha3", "Alpha4", "Alpha5"])
    w.team("Beta", ["Beta1", "Beta2", "Beta3", "Beta4"])
    w.pairing("knockout", 1, "Alpha", "Beta", t(2026, 10, 20))
    for day, name in ((26, "Alpha1"), (27, "Alpha2"), (28, "Alpha1")):
        w.captain_seen("Alpha", name, t(2026, 8, day))
    w.override("knockout", 1, "alpha1", "substitute", "alpha5")
    assert w.run("team_comp_captain") == [
        (
            "TEAM-COMP-8",
            "error",
            "Alpha",
            "Alpha",
            "2 captain changes (Alpha1 from 2026-08-26 00:00 UTC, Alpha2 from 2026-08-27 "
            "00:00 UTC, Alpha1 from 2026-08-28 00:00 UTC); a team may change its captain once",
            None,
        ),
        (
            "TEAM-COMP-8",
            "error",
            "Alpha1",
            "Alpha",
            "the captain sits out knockout round 1 (a knockout stage) for alpha5 "
            "(overrides.csv line 2); the captain cannot sit out the knockout",
            PROFILE + "Alpha1",
        ),
        (
            "TEAM-COMP-8",
            "error",
            "Beta",
            "Beta",
            "2 tournament directors on one team (Beta1, Beta2); no two TDs may be on one team",
            None,
        ),
        (
            "TEAM-COMP-8",
            "error",
            "Beta1",
            "Beta",
            "a tournament director is the captain of the team; no TD may be a captain",
            PROFILE + "Beta1",
        ),
    ]


# --------------------------------------------------------------------------- TEAM-CAP-1..6


def cap_world(tmp_path: Path, titles: list[str] | None = None) -> AuditWorld:
    w = AuditWorld(tmp_path)
    w.team("Kings", ["K1", "K2", "K3", "Capper"], titles)
    w.rating_path("Capper", [(t(2024, 12, 1), 2150, 50.0)])
    return w


def cross(
    w: AuditWorld,
    day: dt.datetime,
    peak: int = 2201,
    rd: float | None = 50.0,
    back_after: dt.timedelta = dt.timedelta(hours=1),
    back: int = 2190,
) -> str:
    """A crossing on `day`: a game ending at `day` with the rating `peak`, another `back_after`
    later back to `back`."""
    up, _ = w.rating_path("Capper", [(day, peak, rd), (day + back_after, back, 50.0)])
    return up


HEAD = "board 4 of Kings, cap 2200 (no AGM or ASGM; TEAM-CAP-1), ratings since 2025-01-01"
CHART = "chart: charts/cap_capper.svg"


def test_team_cap_clean_at_the_cap_is_not_above(tmp_path: Path) -> None:
    """TEAM-CAP-1/2: cap 2200 with no AGM or ASGM; 2200 is not above it; 2250 before 2025-01-01 falls
    back under the cap before it and does not count."""
    w = cap_world(tmp_path)
    w.rating_path("Capper", [(t(2024, 12, 10), 2250, 50.0), (t(2024, 12, 20), 2180, 50.0), (t(2025, 3, 1), 2200, 50.0)])
    assert w.run("team_cap") == []


def test_team_cap_3_three_days(tmp_path: Path) -> None:
    """TEAM-CAP-3: above the cap after a game on 3 different days (RD 50 each): above; found on
    2025-09-01, after 2025-04-25, so no TEAM-CAP-6."""
    w = cap_world(tmp_path)
    g = [cross(w, t(2025, m, 1, 12)) for m in (3, 6, 9)]
    assert w.run("team_cap") == [
        (
            "TEAM-CAP-3",
            "error",
            "Capper",
            "Kings",
            f"{HEAD}: above 2200 after a rated game on 3 day(s) that count, 3 needed → above the cap: 2025-03-01 ({g[0]} 2201, RD 50 "
            f"[46, 54]); 2025-06-01 ({g[1]} 2201, RD 50 [46, 54]); 2025-09-01 ({g[2]} 2201, RD 50 [46, 54]); {CHART}",
            f"https://lichess.org/{g[0]}",
        )
    ]


def test_team_cap_6_found_above_before_replace_by(tmp_path: Path) -> None:
    """TEAM-CAP-6: the third crossing day is 2025-04-01, before 2025-04-25: the player must be replaced."""
    w = cap_world(tmp_path)
    g = [cross(w, t(2025, m, 1, 12)) for m in (2, 3, 4)]
    rows = w.run("team_cap")
    assert [r[:4] for r in rows] == [
        ("TEAM-CAP-3", "error", "Capper", "Kings"),
        ("TEAM-CAP-6", "error", "Capper", "Kings"),
    ]
    assert rows[1][4:] == (
        f"{HEAD}: above the cap from 2025-04-01 12:00 UTC, before 2025-04-25: the team must replace its "
        f"board-4 player; {CHART}",
        f"https://lichess.org/{g[0]}",
    )


def test_team_cap_5_high_rd_crossing_does_not_count(tmp_path: Path) -> None:
    """TEAM-CAP-5: of three crossing days, the first at RD 95 > 80: two count, not above (TEAM-CAP-3
    info); the uncounted crossing is listed as evidence."""
    w = cap_world(tmp_path)
    g = [cross(w, t(2025, 3, 1, 12), rd=95.0), cross(w, t(2025, 6, 1, 12)), cross(w, t(2025, 9, 1, 12))]
    assert w.run("team_cap") == [
        (
            "TEAM-CAP-3",
            "info",
            "Capper",
            "Kings",
            f"{HEAD}: above 2200 after a rated game on 2 day(s) that count, 3 needed → not above (crossing once or twice and falling "
            f"back does not count): 2025-06-01 ({g[1]} 2201, RD 50 [46, 54]); 2025-09-01 ({g[2]} 2201, RD 50 [46, 54]); {CHART}",
            f"https://lichess.org/{g[1]}",
        ),
        (
            "TEAM-CAP-5",
            "info",
            "Capper",
            "Kings",
            f"{HEAD}: crossings above 2200 made at an RD above 80 do not count: 2025-03-01 ({g[0]} 2201, RD 95 [91, 99]); {CHART}",
            f"https://lichess.org/{g[1]}",
        ),
    ]


def test_team_cap_5_unknown_rd_is_a_warning(tmp_path: Path) -> None:
    """TEAM-CAP-5: a crossing without an RD estimate is never assumed to count or not: a warning."""
    w = cap_world(tmp_path)
    g = [cross(w, t(2025, 3, 1, 12), rd=None), cross(w, t(2025, 6, 1, 12)), cross(w, t(2025, 9, 1, 12))]
    assert w.run("team_cap") == [
        (
            "TEAM-CAP-3",
            "warning",
            "Capper",
            "Kings",
            f"{HEAD}: above 2200 after a rated game on 2 day(s) that count and 1 more of unknown RD, 3 needed → above the cap if the "
            f"unknown RDs are at most 80: 2025-03-01 ({g[0]} 2201, RD unknown; not known to count); 2025-06-01 ({g[1]} 2201, RD 50 "
            f"[46, 54]); 2025-09-01 ({g[2]} 2201, RD 50 [46, 54]); {CHART}",
            f"https://lichess.org/{g[1]}",
        )
    ]


def test_team_cap_4_above_for_30_hours(tmp_path: Path) -> None:
    """TEAM-CAP-4: above the cap from 2025-05-01 11:00 until the next game 30 hours later: more than 24 hours."""
    w = cap_world(tmp_path)
    g = cross(w, t(2025, 5, 1, 11), peak=2204, back_after=dt.timedelta(hours=30))
    assert w.run("team_cap") == [
        (
            "TEAM-CAP-3",
            "info",
            "Capper",
            "Kings",
            f"{HEAD}: above 2200 after a rated game on 1 day(s) that count, 3 needed → not above (crossing once or twice and falling "
            f"back does not count): 2025-05-01 ({g} 2204, RD 50 [46, 54]); {CHART}",
            f"https://lichess.org/{g}",
        ),
        (
            "TEAM-CAP-4",
            "error",
            "Capper",
            "Kings",
            f"{HEAD}: above 2200 for 30.0 hours from 2025-05-01 11:00 UTC ({g} 2204, RD 50 [46, 54]) until 2025-05-02 17:00 UTC, "
            f"more than 24 hours → above the cap; {CHART}",
            f"https://lichess.org/{g}",
        ),
    ]


@pytest.mark.parametrize(
    ("titles", "cap", "why"),
    [
        (["AGM", "AGM", "", ""], 2000, "2 players AGM or higher"),
        (["ASGM", "", "", ""], 2100, "one ASGM, no AGM"),
        (["", "AGM", "", ""], 2150, "one AGM, no ASGM"),
    ],
)
def test_team_cap_1_cap_by_titles(tmp_path: Path, titles: list[str], cap: int, why: str) -> None:
    """TEAM-CAP-1: two AGM-or-higher → 2000; only one ASGM → 2100; only one AGM → 2150. One point
    above the cap on 3 days is above; at the cap is not."""
    w = AuditWorld(tmp_path)
    w.team("Kings", ["K1", "K2", "K3", "Capper"], titles)
    w.rating_path("Capper", [(t(2024, 12, 1), cap - 50, 50.0)])
    g = [
        w.rating_path("Capper", [(t(2025, m, 1, 12), cap + 1, 50.0), (t(2025, m, 1, 13), cap, 50.0)])[0]
        for m in (5, 6, 7)
    ]
    rows = w.run("team_cap")
    assert [r[:4] for r in rows] == [("TEAM-CAP-3", "error", "Capper", "Kings")]
    assert rows[0][4].startswith(
        f"board 4 of Kings, cap {cap} ({why}; TEAM-CAP-1), ratings since 2025-01-01: above {cap} "
        f"after a rated game on 3 day(s) that count"
    )
    assert f"2025-05-01 ({g[0]} {cap + 1}, RD 50 [46, 54])" in rows[0][4]


def test_team_cap_falls_back_to_the_daily_history(tmp_path: Path) -> None:
    """TEAM-CAP resolution: no games stored since 2025-01-01, only the daily rating history: three
    end-of-day ratings above the cap, RD unknown → a warning that says so."""
    w = AuditWorld(tmp_path)
    w.team("Kings", ["K1", "K2", "K3", "Capper"])
    for day, rating in (
        (dt.date(2025, 2, 1), 2210),
        (dt.date(2025, 2, 2), 2190),
        (dt.date(2025, 3, 1), 2205),
        (dt.date(2025, 3, 2), 2180),
        (dt.date(2025, 4, 1), 2201),
        (dt.date(2025, 4, 2), 2170),
    ):
        w.point("Capper", day, rating)
    rows = w.run("team_cap")
    assert [r[:4] for r in rows] == [("TEAM-CAP-3", "warning", "Capper", "Kings")]
    assert rows[0][4] == (
        "board 4 of Kings, cap 2200 (no AGM or ASGM; TEAM-CAP-1), ratings since 2025-01-01 (no games stored since then: from the "
        "daily rating history, RD unknown): above 2200 after a rated game on 0 day(s) that count and 3 more of unknown RD, 3 "
        "needed → above the cap if the unknown RDs are at most 80: 2025-02-01 (end-of-day rating 2210 from the daily rating "
        "history, RD unknown; not known to count); 2025-03-01 (end-of-day rating 2205 from the daily rating history, RD unknown; "
        f"not known to count); 2025-04-01 (end-of-day rating 2201 from the daily rating history, RD unknown; not known to count); "
        f"{CHART}"
    )
    assert rows[0][5] == PROFILE + "Capper"


def test_team_cap_rating_carried_in_at_cap_since(tmp_path: Path) -> None:
    """TEAM-CAP-2: rated 2230 from 2024-12-30 and no game since: above the cap from 2025-01-01 on
    (TEAM-CAP-4, held until the audit), found above on 2025-01-02 00:00, before 2025-04-25 (TEAM-CAP-6)."""
    w = AuditWorld(tmp_path)
    w.team("Kings", ["K1", "K2", "K3", "Capper"])
    [g] = w.rating_path("Capper", [(t(2024, 12, 30), 2230, 50.0)])
    rows = w.run("team_cap")
    assert [r[:2] for r in rows] == [("TEAM-CAP-3", "info"), ("TEAM-CAP-4", "error"), ("TEAM-CAP-6", "error")]
    hours = (NOW - t(2025, 1, 1)).total_seconds() / 3600
    assert rows[1][4] == (
        f"{HEAD}: above 2200 for {hours:.1f} hours from 2025-01-01 00:00 UTC ({g} 2230, RD 50 [46, 54], carried "
        f"in at 2025-01-01) and still above at the last stored rating, more than 24 hours → above the cap; {CHART}"
    )
    assert "above the cap from 2025-01-02 00:00 UTC, before 2025-04-25" in rows[2][4]


def test_team_cap_substitute_on_board_4_is_held_to_the_cap(tmp_path: Path) -> None:
    """TEAM-CAP-1: the 5th member playing board 4 (a substitute ruling) is a board-4 player."""
    w = AuditWorld(tmp_path)
    w.team("Kings", ["K1", "K2", "K3", "K4", "Sub"])
    w.pairing("swiss", 2, "Kings", "Kings2", t(2026, 9, 8))
    w.override("swiss", 2, "k4", "substitute", "sub")
    for m in (3, 6, 9):
        w.rating_path("Sub", [(t(2025, m, 1, 12), 2250, 50.0), (t(2025, m, 1, 13), 2150, 50.0)])
    rows = w.run("team_cap")
    assert [r[:4] for r in rows] == [("TEAM-CAP-3", "error", "Sub", "Kings")]
    assert rows[0][4].startswith("substitute on board 4 of Kings, cap 2200")


# --------------------------------------------------------------------------- TEAM-CONDUCT-1..3

SWISS = [("0+2", 8), ("2+5", 4), ("1+2", 6)]


def conduct_world(tmp_path: Path, gaps: list[float], kind: str = "team") -> tuple[AuditWorld, list[str]]:
    w = AuditWorld(tmp_path, kind=kind)
    if kind == "team":
        w.team("Alpha", ["A1", "Ann", "A3", "A4"])
        w.team("Beta", ["B1", "Bob", "B3", "B4"])
        ids = w.board_match("swiss", 3, 2, "Alpha", "Beta", "Ann", "Bob", t(2026, 9, 17, 14), SWISS, gaps)
    else:
        w.member("ann", "Ann", 1)
        w.member("bob", "Bob", 1)
        ids = w.board_match("qualification", 2, 1, "ann", "bob", "Ann", "Bob", t(2021, 9, 15, 14), [("2+5", 10)], gaps)
    return w, ids


def test_team_conduct_1_2_clean(tmp_path: Path) -> None:
    """TEAM-CONDUCT-1/2: 20 s between games, 50 s between parts."""
    gaps = [20.0] * 18
    gaps[7] = gaps[11] = 50.0
    w, _ = conduct_world(tmp_path, gaps)
    assert w.run("team_conduct_breaks") == []
    assert w.run("team_conduct_parts") == []


def test_team_conduct_1_a_15_minute_break(tmp_path: Path) -> None:
    """TEAM-CONDUCT-1: 15 minutes between games 11 and 12 of the board match (a break lasts at most
    10): evidence for both players, the data cannot say who called it. Games last 100 s with 20 s
    between them from 14:00, so game 11 ends at 14:00 + 10 x 120 s + 100 s = 14:21:40."""
    gaps = [20.0] * 18
    gaps[10] = 900.0
    w, ids = conduct_world(tmp_path, gaps)
    detail = (
        "swiss round 3 board 2 against {}: 1 break(s) over 2 minutes: 15.0 min between {} and {} (2026-09-17 14:21 UTC); "
        "one break a player, at most 10 minutes (evidence: who called each break is for the TD to find out)"
    )
    assert w.run("team_conduct_breaks") == [
        (
            "TEAM-CONDUCT-1",
            "warning",
            "Ann",
            "Alpha",
            detail.format("Bob", ids[10], ids[11]),
            f"https://lichess.org/{ids[11]}",
        ),
        (
            "TEAM-CONDUCT-1",
            "warning",
            "Bob",
            "Beta",
            detail.format("Ann", ids[10], ids[11]),
            f"https://lichess.org/{ids[11]}",
        ),
    ]


def test_team_conduct_1_more_than_one_break(tmp_path: Path) -> None:
    """TEAM-CONDUCT-1: two gaps of 3 minutes (each under 10) in one board match: one break a player,
    so the TD must find out whether each called one; one such gap alone is a break, not a finding."""
    gaps = [20.0] * 18
    gaps[2] = gaps[13] = 180.0
    w, ids = conduct_world(tmp_path, gaps)
    rows = w.run("team_conduct_breaks")
    assert [r[:4] for r in rows] == [
        ("TEAM-CONDUCT-1", "warning", "Ann", "Alpha"),
        ("TEAM-CONDUCT-1", "warning", "Bob", "Beta"),
    ]
    assert f"2 break(s) over 2 minutes: 3.0 min between {ids[2]} and {ids[3]} " in rows[0][4]
    w2, _ = conduct_world(tmp_path / "one", [20.0] * 2 + [180.0] + [20.0] * 15)
    assert w2.run("team_conduct_breaks") == []


def test_team_conduct_2_three_minutes_between_parts(tmp_path: Path) -> None:
    """TEAM-CONDUCT-2: 3 minutes between the last 0+2 game (the 8th, ending 14:00 + 7 x 120 s + 100 s =
    14:15:40) and the first 2+5 game (1 allowed)."""
    gaps = [20.0] * 18
    gaps[7] = 180.0
    w, ids = conduct_world(tmp_path, gaps)
    detail = (
        "swiss round 3 board 2 against {}: 3.0 min between the 0+2 part (last game {}) and the 2+5 part (first game {}) at "
        "2026-09-17 14:15 UTC; at most 1 minute(s), else it is the late player's break"
    )
    assert w.run("team_conduct_parts") == [
        (
            "TEAM-CONDUCT-2",
            "warning",
            "Ann",
            "Alpha",
            detail.format("Bob", ids[7], ids[8]),
            f"https://lichess.org/{ids[8]}",
        ),
        (
            "TEAM-CONDUCT-2",
            "warning",
            "Bob",
            "Beta",
            detail.format("Ann", ids[7], ids[8]),
            f"https://lichess.org/{ids[8]}",
        ),
    ]


def test_team_conduct_3_clean_one_forfeit(tmp_path: Path) -> None:
    w = replacement_world(tmp_path)
    w.override("swiss", 5, "alpha3", "forfeit")
    w.override("swiss", 5, "alpha3", "forfeit", "0+2")  # the same round again: still one forfeit
    assert w.run("team_conduct_forfeits") == []


def test_team_conduct_3_two_forfeits(tmp_path: Path) -> None:
    """TEAM-CONDUCT-3: two forfeits disqualify: an error without the TD's ruling, info with it."""
    w = replacement_world(tmp_path)
    for rnd in (5, 6):
        w.override("swiss", rnd, "alpha3", "forfeit")
        w.override("swiss", rnd, "beta2", "forfeit")
    w.override("swiss", 6, "beta2", "disqualify")
    assert w.run("team_conduct_forfeits") == [
        (
            "TEAM-CONDUCT-3",
            "error",
            "Alpha3",
            "Alpha",
            "2 forfeits (swiss round 5, swiss round 6): 2 forfeits disqualify; no "
            "disqualify ruling in overrides.csv yet",
            PROFILE + "Alpha3",
        ),
        (
            "TEAM-CONDUCT-3",
            "info",
            "Beta2",
            "Beta",
            "2 forfeits (swiss round 5, swiss round 6): 2 forfeits disqualify; disqualified by the TD in swiss round 6",
            PROFILE + "Beta2",
        ),
    ]


# --------------------------------------------------------------------------- ACWC-ELIG-1..3


def test_acwc_elig_1_clean(tmp_path: Path) -> None:
    w = AuditWorld(tmp_path, kind="individual")
    w.member("early", "Early", 1, created_at=t(2021, 2, 28, 23, 59))
    assert w.run("acwc_elig_account_age") == []


def test_acwc_elig_1_created_after_the_deadline(tmp_path: Path) -> None:
    """ACWC-ELIG-1: created before 2021-03-01 00:00 UTC; 2021-03-01 00:00 itself is too late."""
    w = AuditWorld(tmp_path, kind="individual")
    w.member("late", "Late", 1, created_at=t(2021, 3, 1))
    assert w.run("acwc_elig_account_age") == [
        (
            "ACWC-ELIG-1",
            "error",
            "Late",
            None,
            "account created 2021-03-01 00:00 UTC, not before 2021-03-01 00:00 UTC",
            PROFILE + "Late",
        )
    ]


def test_acwc_elig_2_clean(tmp_path: Path) -> None:
    w = AuditWorld(tmp_path, kind="individual")
    w.member("keen", "Keen", 1, games=3000, created_at=t(2017, 1, 1))
    assert w.run("acwc_elig_games") == []


ACWC_CUT = t(2021, 9, 1)  # ACWC-ELIG-2's cut-off (games_before)


def acwc_short_detail(count: int, profile: int, since: int) -> str:
    return (
        f"rated antichess games before 2021-09-01 00:00 UTC: {count} < 100 (the Lichess profile count {profile} as of "
        f"2026-11-28 00:00 UTC minus {since} stored games created at or after 2021-09-01 00:00 UTC)"
    )


def test_acwc_elig_2_counted_from_the_profile_is_clean(tmp_path: Path) -> None:
    """ACWC-ELIG-2, resolution 2026-12-04: Veteran (created 2015, before the stored games begin
    2018-09-01): profile 900, 760 stored since 2021-09-01: 140 >= 100, though 60 are stored before.
    Gappy (created 2020, every game of it should be stored): profile 200, 40 since: 160 >= 100,
    though only 60 are stored before; the profile decides, no finding (under 2026-12-01: a warning)."""
    w = AuditWorld(tmp_path, kind="individual")
    w.member("veteran", "Veteran", 1, games=900, created_at=t(2015, 1, 1))
    w.rated_games("Veteran", 60, t(2021, 5, 1))
    w.rated_games("Veteran", 760, ACWC_CUT + dt.timedelta(hours=1), dt.timedelta(hours=2))
    w.member("gappy", "Gappy", 1, games=200, created_at=t(2020, 1, 1))
    w.rated_games("Gappy", 60, t(2021, 5, 1))
    w.rated_games("Gappy", 40, t(2021, 9, 2))
    assert w.run("acwc_elig_games") == []


def test_acwc_elig_2_short_account_is_an_error_with_both_numbers(tmp_path: Path) -> None:
    """ACWC-ELIG-2, resolution 2026-12-04: Few (created 2017): profile 700, 650 stored since
    2021-09-01: 50 < 100. Short (created 2020): profile 130, 40 since: 90 < 100 (60 stored before).
    An error each, naming the profile count and the stored games since."""
    w = AuditWorld(tmp_path, kind="individual")
    w.member("few", "Few", 1, games=700, created_at=t(2017, 1, 1))
    w.rated_games("Few", 650, ACWC_CUT + dt.timedelta(hours=1), dt.timedelta(hours=2))
    w.member("short", "Short", 1, games=130, created_at=t(2020, 1, 1))
    w.rated_games("Short", 60, t(2021, 5, 1))
    w.rated_games("Short", 40, t(2021, 9, 2))
    assert w.run("acwc_elig_games") == [
        ("ACWC-ELIG-2", "error", "Few", None, acwc_short_detail(50, 700, 650), PROFILE + "Few"),
        ("ACWC-ELIG-2", "error", "Short", None, acwc_short_detail(90, 130, 40), PROFILE + "Short"),
    ]


def test_acwc_elig_2_closed_account_is_a_warning_naming_what_is_missing(tmp_path: Path) -> None:
    """ACWC-ELIG-2, resolution 2026-12-04: Gone's account is closed, its profile shows no game
    count, and 30 games are stored before 2021-09-01: it cannot be counted, a warning that says so."""
    w = AuditWorld(tmp_path, kind="individual")
    w.member("gone", "Gone", 1, closed=True)
    w.rated_games("Gone", 30, t(2021, 5, 1))
    assert w.run("acwc_elig_games") == [
        (
            "ACWC-ELIG-2",
            "warning",
            "Gone",
            None,
            "rated antichess games before 2021-09-01 00:00 UTC cannot be counted: the Lichess account is closed, so its "
            "profile (as of 2026-11-28 00:00 UTC) shows no rated antichess game count; only 30 stored before it (stored "
            "games begin 2018-09-01 00:00 UTC), 100 required",
            PROFILE + "Gone",
        )
    ]


def test_acwc_elig_2_stored_games_alone_reach_the_minimum(tmp_path: Path) -> None:
    """ACWC-ELIG-2, resolution 2026-12-04: the stored games before 2021-09-01 decide when they alone
    reach 100. Closed: no profile count, 100 stored. Unfetched: no profile stored, 100 stored.
    Lower: profile 120 minus 40 since = 80, but 100 are stored before: no finding for any."""
    w = AuditWorld(tmp_path, kind="individual")
    w.member("closed", "Closed", 1, closed=True)
    w.rated_games("Closed", 100, t(2021, 5, 1))
    w.member("unfetched", "Unfetched", 1, profile=False)
    w.rated_games("Unfetched", 100, t(2021, 5, 1))
    w.member("lower", "Lower", 1, games=120, created_at=t(2020, 1, 1))
    w.rated_games("Lower", 100, t(2021, 5, 1))
    w.rated_games("Lower", 40, t(2021, 9, 2))
    assert w.run("acwc_elig_games") == []


def test_acwc_elig_2_boundary_exactly_100(tmp_path: Path) -> None:
    """ACWC-ELIG-2, resolution 2026-12-04: 40 stored games since 2021-09-01 and 10 before; Exact's
    profile 140 gives 100 (eligible), Oneshort's 139 gives 99 < 100 (an error)."""
    w = AuditWorld(tmp_path, kind="individual")
    for name, games in [("Exact", 140), ("Oneshort", 139)]:
        w.member(name.lower(), name, 1, games=games, created_at=t(2017, 1, 1))
        w.rated_games(name, 10, t(2021, 5, 1))
        w.rated_games(name, 40, t(2021, 9, 2))
    assert w.run("acwc_elig_games") == [
        ("ACWC-ELIG-2", "error", "Oneshort", None, acwc_short_detail(99, 139, 40), PROFILE + "Oneshort")
    ]


def test_acwc_elig_2_a_game_created_at_the_cutoff_counts_as_since(tmp_path: Path) -> None:
    """ACWC-ELIG-2, resolution 2026-12-04: "at or after the cut-off". Profile 139; one stored game
    created at 2021-09-01 00:00 exactly and 39 later: 40 since, so 139 - 40 = 99 < 100. Were the
    game at the cut-off counted as before it, 139 - 39 = 100 would pass."""
    w = AuditWorld(tmp_path, kind="individual")
    w.member("edge", "Edge", 1, games=139, created_at=t(2017, 1, 1))
    w.game("Edge", "Outsider1", ACWC_CUT)
    w.rated_games("Edge", 39, t(2021, 9, 2))
    assert w.run("acwc_elig_games") == [
        ("ACWC-ELIG-2", "error", "Edge", None, acwc_short_detail(99, 139, 40), PROFILE + "Edge")
    ]


def test_acwc_elig_3_clean(tmp_path: Path) -> None:
    """ACWC-ELIG-3: a single cheat-detected game lost in 2019 (before 2020-09-01, only one since 2018-09-01)."""
    w = AuditWorld(tmp_path, kind="individual")
    w.member("once", "Once", 1)
    w.game("Once", "Outsider1", t(2019, 1, 1), "black", status="cheat")
    assert w.run("acwc_elig_disqualifying") == []


def test_acwc_elig_3_disqualifying(tmp_path: Path) -> None:
    """ACWC-ELIG-3: a cheat-detected game lost 2021-02-01 (since 2020-09-01); two lost since
    2018-09-01; a BOT (error); a tosViolation of unknown kind and date (warning)."""
    w = AuditWorld(tmp_path, kind="individual")
    w.member("recent", "Recent", 1)
    w.member("twice", "Twice", 1)
    w.member("robot", "Robot", 1, lichess_title="BOT")
    w.member("flagged", "Flagged", 1, tos=True)
    r = w.game("Outsider1", "Recent", t(2021, 2, 1, 18), "white", status="cheat")
    a = w.game("Twice", "Outsider1", t(2018, 10, 1), "black", status="cheat")
    b = w.game("Twice", "Outsider1", t(2019, 10, 1), "black", status="cheat")
    assert w.run("acwc_elig_disqualifying") == [
        (
            "ACWC-ELIG-3",
            "error",
            "Recent",
            None,
            f"1 cheat-detected game(s) lost since 2020-09-01 00:00 UTC (none allowed): {r} on 2021-02-01",
            f"https://lichess.org/{r}",
        ),
        (
            "ACWC-ELIG-3",
            "error",
            "Robot",
            None,
            "a BOT account (Lichess title BOT): BOT accounts cannot play",
            PROFILE + "Robot",
        ),
        (
            "ACWC-ELIG-3",
            "error",
            "Twice",
            None,
            f"2 cheat-detected games lost since 2018-09-01 00:00 UTC (at most 1 allowed): {a} "
            f"on 2018-10-01, {b} on 2019-10-01",
            f"https://lichess.org/{a}",
        ),
        (
            "ACWC-ELIG-3",
            "warning",
            "Flagged",
            None,
            "the profile carries a tosViolation mark as of 2026-11-28 00:00 UTC; Lichess "
            "does not publish its kind or date: an engine mark after 2018-09-01 or a booster mark after 2020-09-01 disqualifies",
            PROFILE + "Flagged",
        ),
    ]


# --------------------------------------------------------------------------- ACWC-SEED-1


def seed_world(tmp_path: Path, seed: int | None) -> tuple[AuditWorld, list[str]]:
    """Ratings: 2400 carried in at 2021-03-01 (a game in 2020), 2450 peak on 2021-05-01 (intraday:
    back to 2430 the same day), 2420 after the last game before 2021-09-01, 2600 after it."""
    w = AuditWorld(tmp_path, kind="individual")
    w.member("seedy", "Seedy", 1, seed_rating=seed)
    ids = w.rating_path(
        "Seedy",
        [
            (t(2020, 12, 1), 2400, 50.0),
            (t(2021, 5, 1, 10), 2450, 50.0),
            (t(2021, 5, 1, 11), 2430, 50.0),
            (t(2021, 8, 31, 23), 2420, 50.0),
            (t(2021, 9, 1, 1), 2600, 50.0),
        ],
    )
    return w, ids


def test_acwc_seed_1_clean(tmp_path: Path) -> None:
    """ACWC-SEED-1: (2420 + 2450) / 2 = 2435, as players.csv says."""
    w, _ = seed_world(tmp_path, 2435)
    assert w.run("acwc_seed") == []


def test_acwc_seed_1_seed_differs(tmp_path: Path) -> None:
    """ACWC-SEED-1: players.csv says 2425 (the end-of-day peak 2430 would give it); the intraday peak is 2450."""
    w, ids = seed_world(tmp_path, 2425)
    assert w.run("acwc_seed") == [
        (
            "ACWC-SEED-1",
            "warning",
            "Seedy",
            None,
            f"seeding rating 2435 = (2420 at 2021-09-01 00:00 UTC, from games game {ids[3]} + highest 2450 from 2021-03-01, games on "
            f"2021-05-01 10:00 game {ids[1]}) / 2; players.csv says 2425",
            f"https://lichess.org/{ids[1]}",
        )
    ]


def test_seeding_view_sources_and_the_carried_in_peak(tmp_path: Path) -> None:
    """ACWC-SEED-1: with no game in the window the peak is the rating carried in at 2021-03-01; with no
    stored games at all the daily history is the source, and the view says so."""
    import duckdb

    w = AuditWorld(tmp_path, kind="individual")
    w.member("carry", "Carry", 1)
    w.member("daily", "Daily", 1)
    w.rating_path("Carry", [(t(2021, 2, 1), 2500, 50.0), (t(2021, 8, 1), 2480, 50.0)])
    w.point("Daily", dt.date(2021, 2, 27), 2300)
    w.point("Daily", dt.date(2021, 6, 1), 2350)
    w.point("Daily", dt.date(2021, 8, 31), 2320)
    con = duckdb.connect(str(w.build()), read_only=True)
    try:
        rows = con.sql(
            "SELECT user_id, rating_at, rating_at_source, peak_rating, peak_source, seeding_rating FROM seeding "
            "ORDER BY user_id"
        ).fetchall()
    finally:
        con.close()
    assert rows == [
        ("carry", 2480, "games", 2500, "games", 2490.0),
        ("daily", 2320, "rating_history", 2350, "rating_history", 2335.0),
    ]


# --------------------------------------------------------------------------- ACWC-CONDUCT-1


def test_acwc_conduct_1_clean(tmp_path: Path) -> None:
    w, _ = conduct_world(tmp_path, [20.0] * 10, kind="individual")
    w.override("qualification", 2, "ann", "forfeit")
    assert w.run("acwc_conduct_breaks") == []
    assert w.run("acwc_conduct_forfeits") == []


def test_acwc_conduct_1_break_and_two_forfeits(tmp_path: Path) -> None:
    """ACWC-CONDUCT-1: TEAM-CONDUCT-1's break rule (12 minutes between games 4 and 5) and two forfeited matches."""
    gaps = [20.0] * 10
    gaps[3] = 720.0
    w, ids = conduct_world(tmp_path, gaps, kind="individual")
    w.override("qualification", 3, "bob", "forfeit")
    w.override("qualification", 4, "bob", "forfeit")
    detail = (
        "qualification round 2 against {}: 1 break(s) over 2 minutes: 12.0 min between {} and {} (2021-09-15 14:07 UTC); "
        "one break a player, at most 10 minutes (evidence: who called each break is for the TD to find out)"
    )
    assert w.run("acwc_conduct_breaks") == [
        (
            "ACWC-CONDUCT-1",
            "warning",
            "Ann",
            None,
            detail.format("Bob", ids[3], ids[4]),
            f"https://lichess.org/{ids[4]}",
        ),
        (
            "ACWC-CONDUCT-1",
            "warning",
            "Bob",
            None,
            detail.format("Ann", ids[3], ids[4]),
            f"https://lichess.org/{ids[4]}",
        ),
    ]
    assert w.run("acwc_conduct_forfeits") == [
        (
            "ACWC-CONDUCT-1",
            "error",
            "Bob",
            None,
            "2 forfeits (qualification round 3, qualification round 4): 2 forfeits "
            "disqualify; no disqualify ruling in overrides.csv yet",
            PROFILE + "Bob",
        )
    ]


# --------------------------------------------------------------------------- unplayed boards and matches


RULING_TEXT = "zero_draw (alpha2): both unavailable, no one at fault"


def test_team_score_4_unplayed_clean(tmp_path: Path) -> None:
    """TEAM-SCORE-4: a board the TD ruled a 0-0 draw (counted as played) and fully played boards: nothing to rule."""
    w = AuditWorld(tmp_path)
    w.scored_match(
        "swiss", 3, "Alpha", "Beta", [("Alpha1", "Beta1", "played"), ("Alpha2", "Beta2", RULING_TEXT)], "a", "Alpha"
    )
    assert w.run("team_score_unplayed") == []


def test_team_score_4_unplayed_boards_wait_for_a_ruling(tmp_path: Path) -> None:
    """TEAM-SCORE-4 / TEAM-FMT-3: round 3's window [2026-09-15, 2026-09-22) and its margin have passed.
    Alpha v Beta: boards 2 and 4 have no game and no ruling, no side reached the winning total → the
    match is unplayed. Gamma v Delta: board 3 has no game, but Gamma had won (TEAM-SCORE-3) → it
    stands, the board's points wait. One error a match, naming the rulings a TD can give."""
    w = AuditWorld(tmp_path)
    for name in ("Alpha2", "Beta2", "Alpha4", "Beta4", "Gamma3", "Delta3"):
        w.member(name[:-1], name, int(name[-1]))
    w.scored_match(
        "swiss",
        3,
        "Alpha",
        "Beta",
        [
            ("Alpha1", "Beta1", "played"),
            ("Alpha2", "Beta2", "unplayed"),
            ("Alpha3", "Beta3", "played"),
            ("Alpha4", "Beta4", "unplayed"),
        ],
        "unplayed",
    )
    w.scored_match(
        "swiss",
        3,
        "Gamma",
        "Delta",
        [
            ("Gamma1", "Delta1", "played"),
            ("Gamma2", "Delta2", "played"),
            ("Gamma3", "Delta3", "unplayed"),
            ("Gamma4", "Delta4", "played"),
        ],
        "a",
        "Gamma",
    )
    rulings = (
        "the TD rules in overrides.csv: forfeit (the player at fault), zero_draw (no one at fault: 0-0, counted as "
        "played) or a new window in pairings.csv"
    )
    assert w.run("team_score_unplayed") == [
        (
            "TEAM-SCORE-4",
            "error",
            "Alpha v Beta",
            None,
            "swiss round 3: no game and no ruling on board 2 (Alpha2 v Beta2), board 4 (Alpha4 v Beta4) by the end of the "
            "window (2026-09-22 00:00 UTC) and its margin: the match is unplayed (no points, no match points) until then; "
            + rulings,
            None,
        ),
        (
            "TEAM-SCORE-4",
            "error",
            "Gamma v Delta",
            None,
            "swiss round 3: no game and no ruling on board 3 (Gamma3 v Delta3) by the end of the window (2026-09-22 00:00 UTC) "
            "and its margin: Gamma had already won the match (it stands); the board's points wait; " + rulings,
            None,
        ),
    ]


def test_acwc_unplayed_clean(tmp_path: Path) -> None:
    """ACWC-CONDUCT-1: a played match and one the TD ruled a 0-0 draw."""
    w = AuditWorld(tmp_path, kind="individual")
    w.member("ann", "Ann", 1)
    w.member("bob", "Bob", 1)
    w.scored_match("qualification", 2, "ann", "bob", [("ann", "bob", "played")], "a", "ann", due=10)
    w.scored_match("qualification", 3, "bob", "ann", [("bob", "ann", RULING_TEXT)], "draw", due=10)
    assert w.run("acwc_unplayed") == []


def test_acwc_unplayed_match_waits_for_a_ruling(tmp_path: Path) -> None:
    """ACWC-CONDUCT-1 / ACWC-DQ-1: qualification round 2 ([2021-09-14, 2021-09-21)) with no game and no
    ruling after its margin: unplayed, with display names."""
    w = AuditWorld(tmp_path, kind="individual")
    w.member("ann", "Ann", 1)
    w.member("bob", "Bob", 1)
    w.scored_match("qualification", 2, "ann", "bob", [("ann", "bob", "unplayed")], "unplayed", due=10)
    assert w.run("acwc_unplayed") == [
        (
            "ACWC-CONDUCT-1",
            "error",
            "Ann v Bob",
            None,
            "qualification round 2: no game and no ruling by the end of the window (2021-09-21 00:00 UTC) and its margin: the "
            "match is unplayed (no points) until the TD rules in overrides.csv: forfeit (the player at fault), zero_draw (no one "
            "at fault: 0-0, counted as played) or a new window in pairings.csv",
            None,
        )
    ]


# --------------------------------------------------------------------------- every file, together


def violations_everywhere(tmp_path: Path, kind: str) -> AuditWorld:
    """A world with violations of many rules at once (young, BOT, closed, cheat, titles...)."""
    w = AuditWorld(tmp_path, STRONGEST, kind=kind)
    if kind == "team":
        w.team("Alpha", ["Pinni", "Preslav", "A3", "Capper", "Beepboop"], ["AGM", "AGM", "ASGM", "", ""])
    else:
        for name in ("Pinni", "Preslav", "A3", "Capper", "Beepboop"):
            w.member(name.lower(), name, 1, seed_rating=1)
    w.user("Beepboop", lichess_title="BOT")
    w.user("A3", created_at=t(2026, 7, 1), tos=True)
    w.game("Outsider1", "Preslav", t(2026, 1, 1), "white", status="cheat")
    for m in (2, 3, 4):
        w.rating_path("Capper", [(t(2025, m, 1, 12), 2300, 50.0), (t(2025, m, 1, 13), 1900, 50.0)])
    w.rating_path("Pinni", [(t(2021, 5, 1), 2500, 50.0)])
    w.override("swiss" if kind == "team" else "qualification", 2, "a3", "forfeit")
    w.override("swiss" if kind == "team" else "qualification", 3, "a3", "forfeit")
    return w


def test_audit_findings_is_the_union_of_the_files(tmp_path: Path) -> None:
    """audit_findings holds exactly each file's rows (run verbatim, any session time zone), with the file's name."""
    import duckdb

    for kind in ("team", "individual"):
        w = violations_everywhere(tmp_path / kind, kind)
        path = w.build()
        con = duckdb.connect(str(path), read_only=True)
        try:
            union = con.sql(
                "SELECT audit, rule_id, severity, subject, team, detail, evidence_url FROM audit_findings"
            ).fetchall()
        finally:
            con.close()
        assert union, kind
        for f in sql_files.audit_files():
            mine = sorted((r[1:] for r in union if r[0] == f.stem), key=str)
            assert mine == sorted(run_file(path, f.stem), key=str), f.stem


def test_team_audits_find_nothing_in_an_individual_event_and_back(tmp_path: Path) -> None:
    """Each file applies to one event kind: TEAM-* rows only in team events, ACWC-* only in individual ones."""
    for kind, prefix in (("team", "TEAM-"), ("individual", "ACWC-")):
        w = violations_everywhere(tmp_path / kind, kind)
        path = w.build()
        rules = {r[0] for f in sql_files.audit_files() for r in run_file(path, f.stem)}
        assert rules and all(r.startswith(prefix) for r in rules), (kind, rules)


def test_every_audit_has_the_audit_findings_columns(tmp_path: Path) -> None:
    """The audit_findings columns (docs/data-model.md): rule_id, severity, subject, team, detail,
    evidence_url, all text."""
    import duckdb

    path = violations_everywhere(tmp_path, "team").build()
    con = duckdb.connect(str(path), read_only=True)
    try:
        for f in sql_files.audit_files():
            described = [(r[0], r[1]) for r in con.sql(f"DESCRIBE {sql_files.audit_sql(f)}").fetchall()]
            assert described == [(c, "VARCHAR") for c in findings_view.FINDING_COLUMNS], f.stem
        severities = {r[0] for r in con.sql("SELECT DISTINCT severity FROM audit_findings").fetchall()}
    finally:
        con.close()
    assert severities <= {"error", "warning", "info"}


AUDITED_RULES = (
    [f"TEAM-ELIG-{i}" for i in range(1, 9)]
    + [f"TEAM-COMP-{i}" for i in range(1, 9)]
    + [f"TEAM-CAP-{i}" for i in range(1, 7)]
    + [f"TEAM-CONDUCT-{i}" for i in range(1, 4)]
    + [f"ACWC-ELIG-{i}" for i in range(1, 4)]
    + ["ACWC-SEED-1", "ACWC-CONDUCT-1"]
)


def header_rules(path: Path) -> list[str]:
    header = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("--"):
            break
        header.append(line)
    text = "\n".join(header)
    m = re.search(r"Rules: ((?:(?:TEAM|ACWC)-[A-Z]+-\d+(?:, )?)+)\.", text)
    assert m, path.name
    assert "Invariant" in text and "Grain" in text, path.name
    return m.group(1).split(", ")


def test_every_audit_file_names_its_rules_and_every_audited_rule_has_a_file() -> None:
    """Header: 'Audit <name>. Rules: ...', an invariant and a grain; together they cover every audited rule
    (AUDITED_RULES: eligibility, composition, the board-4 cap, conduct, ACWC eligibility and seeding)."""
    covered = set()
    for f in sql_files.audit_files():
        assert f.read_text(encoding="utf-8").startswith(f"-- Audit {f.stem}. Rules: "), f.name
        covered |= set(header_rules(f))
    assert [r for r in AUDITED_RULES if r not in covered] == []


def test_every_audit_file_has_a_clean_and_a_violating_test() -> None:
    """Each sql/audits file is run by at least two tests here (a clean case and a planted violation),
    one of them named ..._clean."""
    bodies = re.split(r"\ndef ", Path(__file__).read_text(encoding="utf-8"))
    for f in sql_files.audit_files():
        users = [b.split("(", 1)[0] for b in bodies if b.startswith("test_") and f'run("{f.stem}"' in b]
        assert len(users) >= 2 and any("_clean" in u for u in users), (f.stem, users)


def test_team_comp_8_captain_history_records_changes_only(tmp_path: Path) -> None:
    """TEAM-COMP-8's history: a rerun with the same captain adds nothing; a new captain in teams.csv
    adds one row, from the run that first sees it."""
    from pipeline.model import Member, Roster
    from pipeline.stages import audit

    path = AuditWorld(tmp_path).build()
    first = Roster((Member("Alpha", "a1", "A1", 1, "", True), Member("Alpha", "a2", "A2", 2, "", False)))
    second = Roster((Member("Alpha", "a1", "A1", 1, "", False), Member("Alpha", "a2", "A2", 2, "", True)))
    con = gateway.connect(path)
    try:
        assert audit.record_captains(con, first, t(2026, 8, 26)) == 1
        assert audit.record_captains(con, first, t(2026, 8, 27)) == 0
        assert audit.record_captains(con, second, t(2026, 9, 20)) == 1
        history = con.sql("SELECT team, player_id, seen_from FROM audit_captains ORDER BY seen_from").fetchall()
    finally:
        con.close()
    assert history == [("Alpha", "a1", t(2026, 8, 26)), ("Alpha", "a2", t(2026, 9, 20))]


def test_allowed_swaps_must_name_a_team_of_teams_csv(tmp_path: Path) -> None:
    """TEAM-COMP-4's allowed swaps are checked against teams.csv before anything runs (exit 2)."""
    from pipeline.errors import InputError
    from pipeline.model import Member, Roster
    from pipeline.stages.context import check_allowed_swaps

    w = AuditWorld(tmp_path, '[composition]\nallowed_swaps = [{ team = "Nobody", boards = [1, 2] }]\n')
    with pytest.raises(InputError) as exc:
        check_allowed_swaps(w.config, Roster((Member("Alpha", "a1", "A1", 1, "", True),)))
    assert (
        str(exc.value)
        == "tournament.toml key 'composition.allowed_swaps[0]': team 'Nobody': expected a team of teams.csv"
    )
