"""TD overrides (overrides.csv, docs/td-guide.md): every ruling is validated, applied and shown.

Rules: TEAM-SCORE-4 (0-0 draw), TEAM-DQ-1 / ACWC-DQ-1 (forfeits and disqualification go to the
opponent), ARM-1 (armageddon entered by the TD), TEAM-COMP-5 (substitute), TEAM-COMP-6
(replacement), and the TD's exclude/include of a game (TEAM-SCORE-1); a ruling that names nothing
is an error.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest

from pipeline.domain.linking import GAME_COLUMNS, BoardPairing, Lineup, board_pairings, link_stage
from pipeline.domain.scoring import score_boards, score_matches
from pipeline.errors import InputError
from pipeline.inputs.config import load_config
from pipeline.inputs.td_files import read_pairings, read_teams
from pipeline.inputs.td_overrides import read_overrides
from pipeline.model import Override, Pairing

START = dt.datetime(2026, 9, 1, tzinfo=dt.UTC)
TEAMS = (
    "team,player,board,title,captain\n"
    + "".join(f"{t},{t[0]}{b}xx,{b},,{'yes' if b == 1 else ''}\n" for t in ("Alpha", "Beta") for b in (1, 2, 3, 4))
    + "Alpha,Asubxx,5,,\n"
)


@pytest.fixture
def cfg(tmp_path: Path):
    (tmp_path / "teams.csv").write_text(TEAMS, encoding="utf-8")
    (tmp_path / "pairings.csv").write_text(
        "stage,round,a,b\nswiss,1,Alpha,Beta\nswiss,2,Beta,Alpha\n", encoding="utf-8"
    )
    (tmp_path / "tournament.toml").write_text(
        'preset = "team-swiss"\n[tournament]\nid = "o"\n[paths]\nteams = "teams.csv"\npairings = "pairings.csv"\n'
        'overrides = "overrides.csv"\ndatabase = "o.duckdb"\nexports = "e"\n[stages.swiss]\n'
        'first_round_start = "2026-09-01T00:00:00Z"\n',
        encoding="utf-8",
    )
    return load_config(tmp_path / "tournament.toml")


def rulings(cfg, text: str) -> tuple[Override, ...]:
    path = cfg.paths.overrides
    path.write_text("stage,round,subject,action,value,reason\n" + text, encoding="utf-8")
    roster = read_teams(cfg.paths.teams, 4)
    return read_overrides(path, cfg, roster, read_pairings(cfg.paths.pairings, cfg, roster))


def error(cfg, text: str) -> str:
    with pytest.raises(InputError) as exc:
        rulings(cfg, text)
    return str(exc.value)


def test_bad_rulings_name_file_line_and_expectation(cfg) -> None:
    assert error(cfg, "swiss,1,A1xx,resign,,x\n") == (
        "overrides.csv line 2: action 'resign': expected one of forfeit, "
        "zero_draw, exclude_game, include_game, armageddon, disqualify, substitute, replace"
    )
    assert error(cfg, "swiss,1,A1xx,forfeit,,\n") == (
        "overrides.csv line 2: forfeit without a reason: expected the TD's reason (it is shown with the result)"
    )
    assert (
        error(cfg, "swiss,1,Nobody1,forfeit,,late\n")
        == "overrides.csv line 2: subject 'Nobody1': expected a registered player"
    )
    assert error(cfg, "swiss,1,A1xx,forfeit,3+0,late\n") == (
        "overrides.csv line 2: value '3+0': expected empty (the whole board) or one of the swiss parts 0+2, 2+5, 1+2"
    )
    assert (
        error(cfg, "swiss,1,A1xx,substitute,B4xx,ill\n")
        == "overrides.csv line 2: value 'B4xx': expected a registered member of team 'Alpha'"
    )
    assert (
        error(cfg, "swiss,1,Alpha,armageddon,Gamma,tied\n")
        == "overrides.csv line 2: value 'Gamma': expected the winner, 'Alpha' or 'Beta'"
    )
    assert error(cfg, "swiss,1,,exclude_game,abc,bot game\n") == (
        "overrides.csv line 2: value 'abc': expected a Lichess game id (8 letters and digits)"
    )
    assert (
        error(cfg, "swiss,9,A1xx,forfeit,,late\n") == "overrides.csv line 2: round '9': expected 1-7 for stage 'swiss'"
    )


def test_bad_armageddon_and_disqualify_values(cfg) -> None:
    """ARM-1 names an entrant paired in the round; TEAM-DQ-1's value is empty or cheating."""
    assert error(cfg, "swiss,1,Gamma,armageddon,Alpha,tied\n") == (
        "overrides.csv line 2: subject 'Gamma': expected an entrant paired in swiss round 1"
    )
    assert error(cfg, "swiss,1,A1xx,disqualify,abuse,rude\n") == (
        "overrides.csv line 2: value 'abuse': expected empty or cheating"
    )


def bps(cfg, overs: tuple[Override, ...], rnd: int = 1) -> list[BoardPairing]:
    roster = read_teams(cfg.paths.teams, 4)
    pairings = tuple(p for p in read_pairings(cfg.paths.pairings, cfg, roster) if p.round == rnd)
    return board_pairings(pairings, roster, 4, Lineup(roster, overs, ("swiss", "knockout", "final")))


def board(results, b: int, part: str = "total"):
    [r] = [r for r in results if r.board == b and r.part == part]
    return r


def test_forfeits_zero_draws_and_disqualification(cfg) -> None:
    """TEAM-DQ-1: a forfeited board is the opponent's 144 (3 parts × 48, TEAM-SCORE-1); a forfeited
    2+5 part is 4 × 12 = 48 to the opponent; TEAM-SCORE-4: a 0-0 draw scores nothing but counts as
    played (18 of 18); a disqualified player's unplayed board goes to the opponent."""
    stage = cfg.stage("swiss")
    overs = rulings(
        cfg,
        "swiss,1,A1xx,forfeit,,no show\nswiss,1,B2xx,forfeit,2+5,left\n"
        "swiss,1,A3xx,zero_draw,,no fault\nswiss,1,B4xx,disqualify,,two forfeits\n",
    )
    results = score_boards(stage, [], bps(cfg, overs), overs)
    assert (board(results, 1).a_points, board(results, 1).b_points, board(results, 1).games_played) == (0, 144, 18)
    assert (board(results, 2, "2+5").a_points, board(results, 2, "2+5").b_points) == (48, 0)
    assert (board(results, 2).a_points, board(results, 2).games_played) == (48, 4)  # the other parts unplayed
    assert (board(results, 3).a_points, board(results, 3).b_points, board(results, 3).games_played) == (0, 0, 18)
    assert (board(results, 4).a_points, board(results, 4).b_points) == (144, 0)
    assert board(results, 1).override == "forfeit (a1xx): no show"
    assert board(results, 3).override == "zero_draw (a3xx): no fault"


def test_armageddon_decides_a_tied_match_only(cfg) -> None:
    """ARM-1: the TD enters the armageddon winner; it decides a tied match, never a won one."""
    stage = cfg.stage("swiss")
    overs = rulings(cfg, "swiss,1,Alpha,armageddon,Beta,Black won on draw odds\n")
    pairing = (Pairing("swiss", 1, "Alpha", "Beta", START, START + dt.timedelta(days=7), 2),)
    tied = score_boards(
        stage,
        [],
        bps(cfg, ()),
        rulings(
            cfg,
            "swiss,1,A1xx,zero_draw,,x\nswiss,1,A2xx,zero_draw,,x\n"
            "swiss,1,A3xx,zero_draw,,x\nswiss,1,A4xx,zero_draw,,x\n",
        ),
    )
    [m] = score_matches(stage, [], tied, pairing, 4, START + dt.timedelta(days=8), overs)
    assert (m.a_points, m.b_points, m.outcome, m.winner) == (0, 0, "b", "Beta")
    assert m.override == "armageddon won by Beta: Black won on draw odds"
    # three boards forfeited to Alpha: 432, past the winning 289 (TEAM-SCORE-3), the fourth unplayed
    won = score_boards(
        stage,
        [],
        bps(cfg, ()),
        rulings(cfg, "swiss,1,B1xx,forfeit,,x\nswiss,1,B2xx,forfeit,,x\nswiss,1,B3xx,forfeit,,x\n"),
    )
    [m] = score_matches(stage, [], won, pairing, 4, START + dt.timedelta(days=8), overs)
    assert (m.outcome, m.winner) == ("a", "Alpha")


def test_substitute_plays_one_round_and_replacement_stays(cfg) -> None:
    """TEAM-COMP-5: the 5th member plays the board of the player sitting out, that round only;
    TEAM-COMP-6: a replacement takes the place from its round on."""
    overs = rulings(cfg, "swiss,1,A2xx,substitute,Asubxx,rest\nswiss,1,A3xx,replace,Newguy9,replaced\n")
    r1 = {bp.board: bp.player_a for bp in bps(cfg, overs, 1)}
    r2 = {bp.board: bp.player_b for bp in bps(cfg, overs, 2)}  # Alpha is b in round 2
    assert (r1[2], r1[3], r2[2], r2[3]) == ("asubxx", "newguy9", "a2xx", "newguy9")


def game(gid: str, at: dt.datetime, white: str = "a1xx", black: str = "b1xx") -> dict:
    return dict(
        zip(
            GAME_COLUMNS,
            (gid, at, at + dt.timedelta(minutes=2), white, black, True, "antichess", 0, 2, "resign", "white"),
            strict=False,
        )
    )


def test_exclude_and_include_games(cfg) -> None:
    """An excluded game does not count (excluded_by_td); an included game outside the window
    counts in its part (included_by_td); a ruling naming no such game is an error with its line."""
    stage = cfg.stage("swiss")
    roster = read_teams(cfg.paths.teams, 4)
    pairings = read_pairings(cfg.paths.pairings, cfg, roster)
    frame = pl.DataFrame(
        [game("InWindow", START + dt.timedelta(days=2)), game("LateGame", START + dt.timedelta(days=7, hours=1))]
    )
    overs = rulings(
        cfg, "swiss,1,,exclude_game,InWindow,played for fun\nswiss,1,,include_game,LateGame,server outage\n"
    )
    linked = {(m.round, m.game_id): m for m in link_stage(stage, pairings, roster, 4, frame, overrides=overs)}
    assert (linked[1, "InWindow"].counted, linked[1, "InWindow"].reason) == (False, "excluded_by_td")
    late = linked[1, "LateGame"]
    assert (late.counted, late.reason, late.a_points) == (True, "included_by_td", 6)  # a1xx won a 0+2 game: 6
    # the same two players meet again in round 2, whose window the game falls in: it counts once only
    assert (linked[2, "LateGame"].counted, linked[2, "LateGame"].reason) == (False, "counted_in_other_round")
    overs = rulings(cfg, "swiss,1,,exclude_game,Missing1,typo\n")
    with pytest.raises(InputError) as exc:
        link_stage(stage, pairings, roster, 4, frame, overrides=overs)
    assert str(exc.value) == (
        "overrides.csv line 2: exclude_game 'Missing1': expected a game between paired players "
        "near the window of swiss round 1"
    )


def test_disqualified_for_cheating_loses_finished_boards_too(cfg) -> None:
    """TEAM-DQ-1 / ACWC-DQ-1: a player banned for cheating has completed matches adjudicated to
    the opponents; a plain disqualification leaves a finished board as played."""
    from pipeline.domain.linking import MatchGame

    stage = cfg.stage("swiss")
    t = START + dt.timedelta(days=1)
    played = [
        MatchGame("swiss", 1, 1, "Alpha", "Beta", "a1xx", "b1xx", f"g{i:07d}", t, t, tc, tc, True, "counted", a, b)
        for i, (tc, a, b) in enumerate([("0+2", 6, 0)] * 8 + [("2+5", 12, 0)] * 4 + [("1+2", 8, 0)] * 6)
    ]
    plain = score_boards(stage, played, bps(cfg, ()), rulings(cfg, "swiss,1,A1xx,disqualify,,two forfeits\n"))
    cheat = score_boards(stage, played, bps(cfg, ()), rulings(cfg, "swiss,1,A1xx,disqualify,cheating,engine mark\n"))
    assert (board(plain, 1).a_points, board(plain, 1).b_points) == (144, 0)  # all 18 games won by a1xx, and they stand
    assert (board(cheat, 1).a_points, board(cheat, 1).b_points) == (0, 144)  # adjudicated to the opponent
    assert board(cheat, 1).override == "disqualify cheating (a1xx): engine mark"
