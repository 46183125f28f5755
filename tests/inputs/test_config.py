"""tournament.toml (docs/config.md) and time controls.

Every expected number is computed by hand from the rules (docs/rules.md), never from running the code:
TEAM-SCORE-1 Swiss parts 2+5 ×4 at 12/6, 1+2 ×6 at 8/4, 0+2 ×8 at 6/3, each part worth
48 (4×12, 6×8, 8×6), a board 3×48 = 144; the knockout adds 5+0 ×4 at 12/6 → 192; the
final adds 0.5+1 ×8 at 6/3 → 240. Error messages are asserted verbatim: each names the
file, the dotted key (or the line, for TOML syntax) and what was expected.
"""

from __future__ import annotations

import datetime as dt
import textwrap
from pathlib import Path

import pytest

from pipeline.domain.timecontrol import parse_pgn_time_control, parse_time_control, time_control_from_clock
from pipeline.errors import InputError
from pipeline.inputs.config import load_config
from pipeline.model import Config, TimeControl

UTC = dt.UTC

TEAM_HEADER = """\
preset = "team-swiss"

[tournament]
id = "t1"

[paths]
teams = "teams.csv"
pairings = "pairings.csv"
database = "out/t1.duckdb"
exports = "out/exports"
"""

ACWC_HEADER = """\
preset = "acwc-2021"

[tournament]
id = "acwc"

[paths]
players = "players.csv"
pairings = "pairings.csv"
database = "out/acwc.duckdb"
exports = "out/exports"
"""


def write(tmp_path: Path, text: str, name: str = "tournament.toml") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def load(tmp_path: Path, extra: str = "", header: str = TEAM_HEADER) -> Config:
    return load_config(write(tmp_path, header + textwrap.dedent(extra)))


def load_error(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as exc:
        load_config(path)
    return str(exc.value)


def parts_of(stage) -> list[tuple[str, int, float, float]]:
    return [(str(p.time_control), p.games, p.win, p.draw) for p in stage.parts]


# --------------------------------------------------------------------------- presets


def test_team_swiss_preset_swiss_parts(tmp_path: Path) -> None:
    """TEAM-SCORE-1: Swiss parts 0+2 ×8 6/3, 2+5 ×4 12/6, 1+2 ×6 8/4 (TEAM-SCORE-2 order), 48 each, board 144."""
    cfg = load(tmp_path)
    swiss = cfg.stage("swiss")
    assert swiss.kind == "swiss"
    assert swiss.rounds == 7
    assert parts_of(swiss) == [("0+2", 8, 6, 3), ("2+5", 4, 12, 6), ("1+2", 6, 8, 4)]
    assert [p.time_control for p in swiss.parts] == [
        parse_time_control("0+2"),
        parse_time_control("2+5"),
        parse_time_control("1+2"),
    ]
    assert [p.time_control for p in swiss.parts] == [TimeControl(0, 2), TimeControl(120, 5), TimeControl(60, 2)]
    assert [p.max_points for p in swiss.parts] == [48, 48, 48]
    assert swiss.board_max_points == 144


def test_team_swiss_preset_team_match_total(tmp_path: Path) -> None:
    """TEAM-SCORE-3 / TEAM-COMP-1: 4 boards × 144 = 576 in the Swiss."""
    cfg = load(tmp_path)
    assert cfg.kind == "team"
    assert cfg.boards == 4
    assert cfg.boards * cfg.stage("swiss").board_max_points == 576


def test_team_swiss_preset_knockout_adds_5_0(tmp_path: Path) -> None:
    """TEAM-SCORE-1: the knockout adds 5+0 ×4 at 12/6 → board 192 (team 768, TEAM-SCORE-3)."""
    cfg = load(tmp_path)
    ko = cfg.stage("knockout")
    assert ko.kind == "knockout"
    assert parts_of(ko) == [("0+2", 8, 6, 3), ("2+5", 4, 12, 6), ("5+0", 4, 12, 6), ("1+2", 6, 8, 4)]
    assert ko.parts[2].time_control == parse_time_control("5+0") == TimeControl(300, 0)
    assert ko.board_max_points == 192
    assert cfg.boards * ko.board_max_points == 768


def test_team_swiss_preset_final_adds_half_plus_one(tmp_path: Path) -> None:
    """TEAM-SCORE-1: the final adds 0.5+1 ×8 at 6/3 → board 240 (team 960, TEAM-SCORE-3)."""
    cfg = load(tmp_path)
    final = cfg.stage("final")
    assert final.kind == "knockout"
    assert final.rounds == 1
    assert parts_of(final) == [
        ("0+2", 8, 6, 3),
        ("2+5", 4, 12, 6),
        ("0.5+1", 8, 6, 3),
        ("5+0", 4, 12, 6),
        ("1+2", 6, 8, 4),
    ]
    assert final.parts[2].time_control == parse_time_control("0.5+1") == TimeControl(30, 1)
    assert final.board_max_points == 240
    assert cfg.boards * final.board_max_points == 960


def test_team_swiss_preset_match_points_and_tiebreaks(tmp_path: Path) -> None:
    """TEAM-SCORE-5: match points 2/1/0 ranked first; TEAM-TB-1: points difference, points scored, Median-Buchholz."""
    swiss = load(tmp_path).stage("swiss")
    assert swiss.primary == "match_points"
    assert (swiss.match_points.win, swiss.match_points.draw, swiss.match_points.loss) == (2, 1, 0)
    assert swiss.tiebreaks == ("points_difference", "points_scored", "median_buchholz")


def test_team_swiss_preset_windows_and_other_values(tmp_path: Path) -> None:
    """TEAM-FMT-3: 7-day rounds; TEAM-ELIG-1..3 and TEAM-CAP-1..6 numbers from the preset."""
    cfg = load(tmp_path)
    swiss = cfg.stage("swiss")
    assert swiss.round_days == 7
    assert swiss.rated_only is False
    assert swiss.first_round_start is None
    assert swiss.round_window(1) is None
    assert [s.name for s in cfg.stages] == ["swiss", "knockout", "final"]
    assert cfg.tournament_id == "t1"
    assert cfg.name == "t1"  # the name defaults to the id
    assert cfg.preset == "team-swiss"
    e = cfg.eligibility
    assert (e.min_account_age_months, e.min_rated_games, e.min_recent_games, e.recent_months) == (6, 1000, 100, 3)
    c = cfg.rating_cap
    assert (c.cap_two_agm, c.cap_one_asgm, c.cap_one_agm, c.cap_no_title) == (2000, 2100, 2150, 2200)
    assert (c.cap_since, c.replace_by) == (dt.date(2025, 1, 1), dt.date(2025, 4, 25))
    assert (c.min_cross_days, c.max_rd) == (3, 80)
    assert cfg.lichess.base_url == "https://lichess.org"
    assert cfg.lichess.token_env == "LICHESS_TOKEN"


def test_acwc_preset(tmp_path: Path) -> None:
    """ACWC-Q-2: 10 games of 2+5, win 1, draw 0.5, game points primary; ACWC-FMT-1: rated only; ACWC-F-1: final 12 games."""
    cfg = load(tmp_path, header=ACWC_HEADER)
    assert cfg.kind == "individual"
    assert cfg.boards == 1
    assert cfg.paths.teams is None
    assert cfg.paths.players == tmp_path / "players.csv"
    assert [s.name for s in cfg.stages] == ["qualification", "candidates", "semifinals", "final"]
    q = cfg.stage("qualification")
    assert q.kind == "swiss"
    assert parts_of(q) == [("2+5", 10, 1, 0.5)]
    assert q.parts[0].time_control == parse_time_control("2+5")
    assert q.board_max_points == 10
    assert q.primary == "game_points"
    assert q.tiebreaks == ("median_buchholz", "cumulative", "seed")  # ACWC-Q-3, in its order
    for stage in cfg.stages:
        assert stage.rated_only is True, stage.name
        # ACWC-C-2 ranks candidates by match score first; every other stage by game points
        assert stage.primary == ("match_points" if stage.name == "candidates" else "game_points"), stage.name
        assert [str(p.time_control) for p in stage.parts] == ["2+5"], stage.name
    assert cfg.stage("candidates").kind == "round_robin"
    assert cfg.stage("candidates").rounds == 5  # ACWC-C-1: pools of 6
    assert parts_of(cfg.stage("semifinals")) == [("2+5", 10, 1, 0.5)]  # ACWC-SF-1
    assert parts_of(cfg.stage("final")) == [("2+5", 12, 1, 0.5)]  # ACWC-F-1
    assert cfg.lichess.history_since == dt.datetime(2018, 9, 1, tzinfo=UTC)  # ACWC-ELIG-3
    assert cfg.eligibility.min_rated_games == 100  # ACWC-ELIG-2


def test_unknown_stage_name_raises_keyerror(tmp_path: Path) -> None:
    cfg = load(tmp_path)
    with pytest.raises(KeyError):
        cfg.stage("semifinal")


# --------------------------------------------------------------------------- overrides


def test_override_nested_value_keeps_the_rest(tmp_path: Path) -> None:
    """A tournament file overrides stages.swiss.rounds; the preset's other values stay (TEAM-SCORE-1, TEAM-TB-1)."""
    cfg = load(
        tmp_path,
        """
        [stages.swiss]
        rounds = 9
    """,
    )
    swiss = cfg.stage("swiss")
    assert swiss.rounds == 9
    assert parts_of(swiss) == [("0+2", 8, 6, 3), ("2+5", 4, 12, 6), ("1+2", 6, 8, 4)]
    assert swiss.tiebreaks == ("points_difference", "points_scored", "median_buchholz")
    assert swiss.primary == "match_points"
    assert swiss.round_days == 7
    assert swiss.window_margin_days == 3
    assert not cfg.stage("knockout").rounds_given  # TEAM-FMT-1: the knockout's rounds follow the teams
    assert cfg.stage("knockout").board_max_points == 192
    assert cfg.boards == 4
    assert [s.name for s in cfg.stages] == ["swiss", "knockout", "final"]


def test_override_replaces_parts_whole(tmp_path: Path) -> None:
    """Arrays are replaced, not merged element by element: one part left, board worth 2×12 = 24."""
    cfg = load(
        tmp_path,
        """
        [stages.swiss]
        parts = [ { time_control = "3+2", games = 2, win = 12, draw = 6 } ]
    """,
    )
    swiss = cfg.stage("swiss")
    assert parts_of(swiss) == [("3+2", 2, 12, 6)]
    assert swiss.parts[0].time_control == TimeControl(180, 2)
    assert swiss.board_max_points == 24
    assert swiss.rounds == 7
    # other stages keep their own parts
    assert cfg.stage("final").board_max_points == 240


def test_override_match_points_merges_key_by_key(tmp_path: Path) -> None:
    """TEAM-SCORE-5 is configurable: an inline table merges with the preset's, win 3 keeps draw 1, loss 0."""
    cfg = load(
        tmp_path,
        """
        [stages.swiss]
        match_points = { win = 3 }
    """,
    )
    mp = cfg.stage("swiss").match_points
    assert (mp.win, mp.draw, mp.loss) == (3, 1, 0)


def test_override_boards_to_three(tmp_path: Path) -> None:
    """TEAM-COMP-1: 3 boards is a config value; the tournament keeps kind = team from the preset."""
    cfg = load_config(write(tmp_path, TEAM_HEADER.replace('id = "t1"', 'id = "t1"\nboards = 3\nname = "Team Cup"')))
    assert cfg.boards == 3
    assert cfg.kind == "team"
    assert cfg.name == "Team Cup"
    assert cfg.boards * cfg.stage("swiss").board_max_points == 432


def test_tournament_without_preset(tmp_path: Path) -> None:
    """A file without a preset stands alone; unset stage values take their documented defaults (TEAM-SCORE-5, TEAM-TB-1)."""
    cfg = load_config(
        write(
            tmp_path,
            """
        [tournament]
        id = "solo"
        kind = "team"

        [paths]
        teams = "teams.csv"
        pairings = "pairings.csv"
        database = "db.duckdb"
        exports = "exports"

        [stages.swiss]
        kind = "swiss"
        parts = [ { time_control = "2+5", games = 4, win = 12, draw = 6 } ]
    """,
        )
    )
    assert cfg.preset == ""
    assert cfg.boards == 4
    swiss = cfg.stage("swiss")
    assert swiss.rounds == 1
    assert swiss.primary == "match_points"
    assert (swiss.match_points.win, swiss.match_points.draw, swiss.match_points.loss) == (2, 1, 0)
    assert swiss.tiebreaks == ("points_difference", "points_scored", "median_buchholz")
    assert swiss.round_days == 7
    assert swiss.board_max_points == 48


# --------------------------------------------------------------------------- round windows


def test_round_windows_from_first_round_start(tmp_path: Path) -> None:
    """TEAM-FMT-3: round r runs [start + 7(r-1) days, start + 7r days), Tuesday 00:00 to Monday 23:59:59 UTC."""
    cfg = load(
        tmp_path,
        """
        [stages.swiss]
        first_round_start = "2026-09-01T00:00:00Z"
    """,
    )
    swiss = cfg.stage("swiss")
    assert swiss.first_round_start == dt.datetime(2026, 9, 1, tzinfo=UTC)
    assert swiss.round_window(1) == (dt.datetime(2026, 9, 1, tzinfo=UTC), dt.datetime(2026, 9, 8, tzinfo=UTC))
    assert swiss.round_window(2) == (dt.datetime(2026, 9, 8, tzinfo=UTC), dt.datetime(2026, 9, 15, tzinfo=UTC))
    # round 7: start + 42 days = 2026-10-13, end + 49 days = 2026-10-20
    assert swiss.round_window(7) == (dt.datetime(2026, 10, 13, tzinfo=UTC), dt.datetime(2026, 10, 20, tzinfo=UTC))
    assert dt.datetime(2026, 9, 1, tzinfo=UTC).weekday() == 1  # a Tuesday
    assert swiss.round_window(7)[1].weekday() == 1  # ends when the next Tuesday begins
    # the other stages have no start of their own
    assert cfg.stage("knockout").round_window(1) is None


def test_round_window_offset_is_converted_to_utc(tmp_path: Path) -> None:
    """TEAM-FMT-3, all times UTC: 2026-09-01T02:00+02:00 is 2026-09-01T00:00Z; 14-day rounds give round 2 [09-15, 09-29)."""
    cfg = load(
        tmp_path,
        """
        [stages.swiss]
        first_round_start = "2026-09-01T02:00:00+02:00"
        round_days = 14
    """,
    )
    swiss = cfg.stage("swiss")
    assert swiss.first_round_start == dt.datetime(2026, 9, 1, tzinfo=UTC)
    assert swiss.first_round_start.utcoffset() == dt.timedelta(0)
    assert swiss.round_window(2) == (dt.datetime(2026, 9, 15, tzinfo=UTC), dt.datetime(2026, 9, 29, tzinfo=UTC))


def test_registration_at_toml_datetime(tmp_path: Path) -> None:
    """A native TOML offset datetime is accepted and stored in UTC."""
    cfg = load_config(
        write(tmp_path, TEAM_HEADER.replace('id = "t1"', 'id = "t1"\nregistration_at = 2026-08-25T01:30:00+01:30'))
    )
    assert cfg.registration_at == dt.datetime(2026, 8, 25, 0, 0, tzinfo=UTC)


# --------------------------------------------------------------------------- paths


def test_paths_resolve_relative_to_config_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CSV paths in the config are relative to the config file's folder, not the working directory."""
    folder = tmp_path / "season" / "2026"
    path = write(folder, TEAM_HEADER + '\n[lichess]\nreplay_data = "../lichess"\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    cfg = load_config(Path("..") / "season" / "2026" / "tournament.toml")
    assert cfg.paths.teams == folder / "teams.csv"
    assert cfg.paths.pairings == folder / "pairings.csv"
    assert cfg.paths.database == folder / "out" / "t1.duckdb"
    assert cfg.paths.exports == folder / "out" / "exports"
    assert cfg.paths.players is None
    assert cfg.lichess.replay_data is not None
    assert cfg.lichess.replay_data.resolve() == (tmp_path / "season" / "lichess")
    assert cfg.paths.teams.is_absolute()
    assert path.exists()


def test_absolute_paths_are_kept(tmp_path: Path) -> None:
    elsewhere = tmp_path / "data" / "teams.csv"
    cfg = load_config(
        write(tmp_path / "cfg", TEAM_HEADER.replace('teams = "teams.csv"', f'teams = "{elsewhere.as_posix()}"'))
    )
    assert cfg.paths.teams == elsewhere
    assert cfg.paths.pairings == tmp_path / "cfg" / "pairings.csv"


# --------------------------------------------------------------------------- errors


def test_error_unknown_preset(tmp_path: Path) -> None:
    msg = load_error(tmp_path, TEAM_HEADER.replace('preset = "team-swiss"', 'preset = "team-swis"'))
    assert msg == "tournament.toml key 'preset': unknown preset 'team-swis': expected one of acwc-2021, team-swiss"


def test_error_toml_syntax(tmp_path: Path) -> None:
    # line 4 is `id "t1"`: after the key `id` and a space, column 4 holds '"' where '=' belongs
    msg = load_error(tmp_path, TEAM_HEADER.replace('id = "t1"', 'id "t1"'))
    assert msg == "tournament.toml: not valid TOML: Expected '=' after a key in a key/value pair (at line 4, column 4)"


def test_error_string_where_integer_expected(tmp_path: Path) -> None:
    msg = load_error(tmp_path, TEAM_HEADER + '\n[stages.swiss]\nrounds = "seven"\n')
    assert msg == "tournament.toml key 'stages.swiss.rounds': expected a whole number from 1 to 99, got 'seven'"


def test_error_boolean_is_not_an_integer(tmp_path: Path) -> None:
    msg = load_error(tmp_path, TEAM_HEADER + "\n[stages.swiss]\nround_days = true\n")
    assert msg == "tournament.toml key 'stages.swiss.round_days': expected a whole number of at least 1, got True"


def test_error_zero_games_in_a_part(tmp_path: Path) -> None:
    """TEAM-SCORE-1: a part is a number of games, at least one."""
    msg = load_error(
        tmp_path,
        TEAM_HEADER
        + """
[stages.swiss]
parts = [ { time_control = "2+5", games = 4, win = 12, draw = 6 }, { time_control = "1+2", games = 0, win = 8, draw = 4 } ]
""",
    )
    assert msg == "tournament.toml key 'stages.swiss.parts[1].games': expected a whole number of at least 1, got 0"


def test_error_unknown_key_typo(tmp_path: Path) -> None:
    msg = load_error(tmp_path, TEAM_HEADER + "\n[stages.swiss]\nroundz = 9\n")
    assert msg == (
        "tournament.toml key 'stages.swiss.roundz': unknown key: expected one of advance, buchholz_policy, first_round_start, forbidden_pairs, kashdan, kind, "
        "late_entrants, match_points, pab_points_scored, parts, play_all, primary, rated_only, round_days, rounds, tiebreaks, window_margin_days"
    )


def test_error_two_unknown_keys_names_the_first_in_order(tmp_path: Path) -> None:
    """Of several unknown keys in one table, the message names the first in alphabetical order."""
    msg = load_error(tmp_path, TEAM_HEADER + "\n[stages.swiss]\nzz = 1\nroundz = 9\n")
    assert msg.startswith("tournament.toml key 'stages.swiss.roundz': unknown key: expected one of advance, ")


def test_error_unknown_key_in_tournament(tmp_path: Path) -> None:
    msg = load_error(tmp_path, TEAM_HEADER.replace('id = "t1"', 'id = "t1"\nnmae = "Cup"'))
    assert (
        msg
        == "tournament.toml key 'tournament.nmae': unknown key: expected one of boards, champion, id, kind, name, registration_at, runner_up"
    )


def test_error_unknown_top_level_table(tmp_path: Path) -> None:
    msg = load_error(tmp_path, TEAM_HEADER + "\n[eligibilty]\nmin_rated_games = 500\n")
    assert msg == (
        "tournament.toml key 'eligibilty': unknown key: expected one of attention, composition, conduct, eligibility, "
        "lichess, notify, paths, rating_cap, schedule, seeding, site, stages, tournament"
    )


def test_error_unknown_key_in_a_part(tmp_path: Path) -> None:
    msg = load_error(
        tmp_path,
        TEAM_HEADER
        + """
[stages.swiss]
parts = [ { time_control = "2+5", games = 4, win = 12, draw = 6, loss = 0 } ]
""",
    )
    assert (
        msg
        == "tournament.toml key 'stages.swiss.parts[0].loss': unknown key: expected one of draw, games, time_control, win"
    )


def test_error_bad_time_control(tmp_path: Path) -> None:
    msg = load_error(
        tmp_path,
        TEAM_HEADER
        + """
[stages.swiss]
parts = [ { time_control = "2:5", games = 4, win = 12, draw = 6 } ]
""",
    )
    assert msg == (
        "tournament.toml key 'stages.swiss.parts[0].time_control': "
        "time control '2:5': expected minutes+seconds such as '2+5' or '0.5+1'"
    )


def test_error_draw_worth_more_than_win(tmp_path: Path) -> None:
    """TEAM-SCORE-1: a draw is worth half a win; more than a win is refused."""
    msg = load_error(
        tmp_path,
        TEAM_HEADER
        + """
[stages.swiss]
parts = [ { time_control = "0.5+1", games = 8, win = 6, draw = 6.5 } ]
""",
    )
    assert msg == "tournament.toml key 'stages.swiss.parts[0].draw': expected at most the win value 6, got 6.5"


def test_draw_equal_to_win_is_allowed(tmp_path: Path) -> None:
    cfg = load(
        tmp_path,
        """
        [stages.swiss]
        parts = [ { time_control = "0.5+1", games = 8, win = 6, draw = 6 } ]
    """,
    )
    assert parts_of(cfg.stage("swiss")) == [("0.5+1", 8, 6, 6)]


def test_error_time_without_utc_offset(tmp_path: Path) -> None:
    """All times are UTC: a local time is ambiguous and refused."""
    msg = load_error(tmp_path, TEAM_HEADER + '\n[stages.swiss]\nfirst_round_start = "2026-09-01T00:00:00"\n')
    assert msg == (
        "tournament.toml key 'stages.swiss.first_round_start': expected a time with a UTC offset "
        "(e.g. 2026-01-06T00:00:00Z), got '2026-09-01T00:00:00'"
    )


def test_error_toml_local_datetime_without_offset(tmp_path: Path) -> None:
    msg = load_error(tmp_path, TEAM_HEADER.replace('id = "t1"', 'id = "t1"\nregistration_at = 2026-08-25T00:00:00'))
    assert msg == (
        "tournament.toml key 'tournament.registration_at': expected a time with a UTC offset "
        "(e.g. 2026-01-06T00:00:00Z), got '2026-08-25T00:00:00'"
    )


def test_error_unparseable_time(tmp_path: Path) -> None:
    msg = load_error(tmp_path, TEAM_HEADER + '\n[stages.swiss]\nfirst_round_start = "next Tuesday"\n')
    assert msg == (
        "tournament.toml key 'stages.swiss.first_round_start': expected a UTC time such as "
        "2026-01-06T00:00:00Z, got 'next Tuesday'"
    )


def test_error_same_time_control_in_two_parts(tmp_path: Path) -> None:
    """TEAM-SCORE-1: a part is the games at one time control, so a time control appears once."""
    msg = load_error(
        tmp_path,
        TEAM_HEADER
        + """
[stages.swiss]
parts = [
  { time_control = "2+5", games = 4, win = 12, draw = 6 },
  { time_control = "1+2", games = 6, win = 8, draw = 4 },
  { time_control = "2.0+5", games = 2, win = 12, draw = 6 },
]
""",
    )
    assert msg == (
        "tournament.toml key 'stages.swiss.parts[2].time_control': "
        "2+5 appears in two parts: expected one part per time control"
    )


def test_error_missing_tournament_id(tmp_path: Path) -> None:
    msg = load_error(tmp_path, TEAM_HEADER.replace('id = "t1"', 'name = "No id"'))
    assert msg == "tournament.toml key 'tournament.id': missing: expected a value"


def test_error_team_event_without_teams_path(tmp_path: Path) -> None:
    msg = load_error(tmp_path, TEAM_HEADER.replace('teams = "teams.csv"\n', ""))
    assert msg == "tournament.toml key 'paths.teams': missing: a team event needs a teams.csv path"


def test_error_individual_event_without_players_path(tmp_path: Path) -> None:
    msg = load_error(tmp_path, ACWC_HEADER.replace('players = "players.csv"\n', ""))
    assert msg == "tournament.toml key 'paths.players': missing: an individual event needs a players.csv path"


def test_error_file_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(InputError) as exc:
        load_config(tmp_path / "nosuch.toml")
    assert str(exc.value) == "nosuch.toml: file not found"


def test_error_unknown_stage_kind(tmp_path: Path) -> None:
    msg = load_error(tmp_path, TEAM_HEADER + '\n[stages.swiss]\nkind = "arena"\n')
    assert msg == "tournament.toml key 'stages.swiss.kind': expected one of swiss, round_robin, knockout, got 'arena'"


def test_error_unknown_tiebreak(tmp_path: Path) -> None:
    msg = load_error(tmp_path, TEAM_HEADER + '\n[stages.swiss]\ntiebreaks = ["buchholz"]\n')
    assert msg == (
        "tournament.toml key 'stages.swiss.tiebreaks': expected a list drawn from "
        "points_difference, points_scored, median_buchholz, cumulative, seed, mutual_match, mutual_game, td_order, "
        "kashdan, got ['buchholz']"
    )


def test_error_empty_parts(tmp_path: Path) -> None:
    msg = load_error(tmp_path, TEAM_HEADER + "\n[stages.swiss]\nparts = []\n")
    assert msg == (
        "tournament.toml key 'stages.swiss.parts': expected a list of parts such as "
        '{ time_control = "2+5", games = 4, win = 12, draw = 6 }, got []'
    )


def test_error_too_many_boards(tmp_path: Path) -> None:
    msg = load_error(tmp_path, TEAM_HEADER.replace('id = "t1"', 'id = "t1"\nboards = 9'))
    assert msg == "tournament.toml key 'tournament.boards': expected a whole number from 1 to 8, got 9"


# --------------------------------------------------------------------------- time controls


@pytest.mark.parametrize(
    ("text", "initial_s", "increment_s"),
    [
        ("2+5", 120, 5),
        ("0.5+1", 30, 1),
        ("0+2", 0, 2),
        ("1+2", 60, 2),
        ("5+0", 300, 0),
        ("3+2", 180, 2),
        ("0.25+0", 15, 0),
        ("1/2+1", 30, 1),
        (" 2 + 5 ", 120, 5),
    ],
)
def test_parse_time_control(text: str, initial_s: int, increment_s: int) -> None:
    """A time control a+b is a minutes initial, b seconds increment; 0.5+1 → initial 30."""
    tc = parse_time_control(text)
    assert (tc.initial_s, tc.increment_s) == (initial_s, increment_s)
    assert tc == TimeControl(initial_s, increment_s)


@pytest.mark.parametrize(
    ("initial_s", "increment_s", "shown"),
    [
        (120, 5, "2+5"),
        (30, 1, "0.5+1"),
        (0, 2, "0+2"),
        (60, 2, "1+2"),
        (300, 0, "5+0"),
        (45, 0, "0.75+0"),
        (90, 1, "1.5+1"),
    ],
)
def test_time_control_str_is_the_players_form(initial_s: int, increment_s: int, shown: str) -> None:
    tc = TimeControl(initial_s, increment_s)
    assert str(tc) == shown
    assert parse_time_control(str(tc)) == tc


@pytest.mark.parametrize(("text", "pgn"), [("2+5", "120+5"), ("0.5+1", "30+1"), ("0+2", "0+2"), ("5+0", "300+0")])
def test_pgn_tag_roundtrip(text: str, pgn: str) -> None:
    """The PGN TimeControl tag is seconds+seconds."""
    tc = parse_time_control(text)
    assert tc.pgn_tag == pgn
    assert parse_pgn_time_control(pgn) == tc


@pytest.mark.parametrize("tag", ["-", "?", ""])
def test_pgn_no_clock(tag: str) -> None:
    assert parse_pgn_time_control(tag) is None


def test_clock_from_lichess_json() -> None:
    """Lichess JSON clock is in seconds: 0.5+1 → initial 30; a correspondence game has no clock."""
    assert time_control_from_clock({"initial": 30, "increment": 1, "totalTime": 70}) == parse_time_control("0.5+1")
    assert time_control_from_clock({"initial": 120, "increment": 5}) == parse_time_control("2+5")
    assert time_control_from_clock(None) is None


@pytest.mark.parametrize("text", ["2:5", "2+", "+5", "", "two+five", "2+5+1", "-1+2", "2+0.5", "2+5s"])
def test_parse_time_control_rejects(text: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_time_control(text)
    assert str(exc.value) == f"time control {text!r}: expected minutes+seconds such as '2+5' or '0.5+1'"


def test_parse_time_control_rejects_fractional_seconds() -> None:
    with pytest.raises(ValueError) as exc:
        parse_time_control("0.33+1")
    assert str(exc.value) == "time control '0.33+1': the initial time is not a whole number of seconds"


@pytest.mark.parametrize("tag", ["2:5", "120+", "0.5+1", "120 + 5", "abc"])
def test_parse_pgn_time_control_rejects(tag: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_pgn_time_control(tag)
    assert str(exc.value) == f"PGN TimeControl {tag!r}: expected seconds+seconds such as '120+5' or '-'"


def test_time_control_cannot_be_negative() -> None:
    with pytest.raises(ValueError) as exc:
        TimeControl(-30, 1)
    assert str(exc.value) == "time control cannot be negative: -30+1"


def test_composition_strongest_players(tmp_path: Path) -> None:
    """TEAM-COMP-3: the strongest-players list is a config value (default empty); TEAM-COMP-2: 2 titled."""
    p = tmp_path / "tournament.toml"
    (tmp_path / "teams.csv").write_text("team,player,board\n", encoding="utf-8")
    p.write_text(
        'preset = "team-swiss"\n[tournament]\nid = "x"\n[paths]\nteams = "teams.csv"\npairings = "p.csv"\n'
        'database = "d.duckdb"\nexports = "e"\n[composition]\nstrongest_players = ["Pinni", "Preslav"]\n',
        encoding="utf-8",
    )
    cfg = load_config(p)
    assert cfg.composition.strongest_players == ("Pinni", "Preslav") and cfg.composition.max_titled == 2
    p.write_text(p.read_text(encoding="utf-8").replace('["Pinni", "Preslav"]', '"Pinni"'), encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_config(p)
    assert (
        str(exc.value)
        == "tournament.toml key 'composition.strongest_players': expected a list of Lichess names, got 'Pinni'"
    )


# --------------------------------------------------------------------------- the working database and the schedule


def test_working_database_and_prefect_home_default_beside_the_published_database(tmp_path: Path) -> None:
    cfg = load(
        tmp_path, '[stages.swiss]\nrounds = 7\nparts = [{ time_control = "2+5", games = 4, win = 12, draw = 6 }]\n'
    )
    assert cfg.paths.database == tmp_path / "out" / "t1.duckdb"
    assert cfg.paths.work_database == tmp_path / "out" / "t1.work.duckdb"
    assert cfg.paths.prefect_home == tmp_path / "out" / ".prefect"
    assert (cfg.schedule.cron, cfg.schedule.timezone) == ("0 3 * * *", "UTC")


def test_error_working_database_on_the_published_path(tmp_path: Path) -> None:
    msg = load_error(
        tmp_path,
        TEAM_HEADER.replace('exports = "out/exports"', 'exports = "out/exports"\nwork_database = "out/t1.duckdb"'),
    )
    assert msg == (
        f"tournament.toml key 'paths.work_database': {tmp_path / 'out' / 't1.duckdb'}: expected a file other than "
        "paths.database (runs write the working copy and publish it onto paths.database)"
    )


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            'cron = "0 3 * *"',
            "key 'schedule.cron': expected a cron line of 5 fields (minute hour day month weekday) such as "
            "'0 3 * * *', got '0 3 * *'",
        ),
        (
            'timezone = "Mars/Olympus"',
            "key 'schedule.timezone': expected an IANA time zone such as UTC or Europe/Berlin, got 'Mars/Olympus'",
        ),
        ('when = "3am"', "key 'schedule.when': unknown key: expected one of closing_day_cron, cron, timezone"),
        (
            'closing_day_cron = "0 12-23 * *"',
            "key 'schedule.closing_day_cron': expected a cron line of 5 fields (minute hour day month weekday) "
            "such as '0 3 * * *', got '0 12-23 * *'",
        ),
        (
            'closing_day_cron = "0 12-24 * * 1"',
            "key 'schedule.closing_day_cron': hour '12-24' is not valid: expected a cron line such as '0 3 * * *' "
            "(minute 0-59, hour 0-23, day 1-31, month 1-12, weekday 0-6), got '0 12-24 * * 1'",
        ),
    ],
)
def test_error_schedule(tmp_path: Path, line: str, expected: str) -> None:
    assert load_error(tmp_path, TEAM_HEADER + f"\n[schedule]\n{line}\n") == f"tournament.toml {expected}"


@pytest.mark.parametrize(
    ("cron", "wrong"),
    [
        ("99 99 * * *", "minute '99'"),
        ("0 24 * * *", "hour '24'"),
        ("0 3 0 * *", "day '0'"),
        ("0 3 * 13 *", "month '13'"),
    ],
)
def test_error_cron_field_out_of_range(tmp_path: Path, cron: str, wrong: str) -> None:
    """Five fields are not enough: each must be in its range (checked with croniter, as Prefect reads the line)."""
    assert load_error(tmp_path, TEAM_HEADER + f'\n[schedule]\ncron = "{cron}"\n') == (
        f"tournament.toml key 'schedule.cron': {wrong} is not valid: expected a cron line such as '0 3 * * *' "
        f"(minute 0-59, hour 0-23, day 1-31, month 1-12, weekday 0-6), got '{cron}'"
    )


@pytest.mark.parametrize("cron", ["0 3 * * *", "*/15 2-4 * * mon-fri", "30 1 1,15 * 0", "0 0 1 jan *"])
def test_cron_lines_prefect_reads_are_accepted(tmp_path: Path, cron: str) -> None:
    cfg = load(tmp_path, f'[schedule]\ncron = "{cron}"\ntimezone = "Europe/Berlin"\n')
    assert (cfg.schedule.cron, cfg.schedule.timezone) == (cron, "Europe/Berlin")


def test_closing_day_cron_is_unset_by_default_and_read_as_written(tmp_path: Path) -> None:
    assert load(tmp_path, "").schedule.closing_day_cron is None
    cfg = load(tmp_path, '[schedule]\nclosing_day_cron = "0 12-23 * * 1"\n')
    assert (cfg.schedule.cron, cfg.schedule.closing_day_cron) == ("0 3 * * *", "0 12-23 * * 1")


def test_audit_defaults_from_rules_md(tmp_path: Path) -> None:
    """The audits' defaults: TEAM-ELIG-4 12/24 months, TEAM-ELIG-7 RD 110 at the first round start,
    TEAM-CAP-4 24 hours, TEAM-COMP-6 100 below, TEAM-CONDUCT-1/2 10 and 1 minutes, 2 forfeits."""
    cfg = load(tmp_path, '[stages.swiss]\nfirst_round_start = "2026-09-01T00:00:00Z"\n')
    e, c = cfg.eligibility, cfg.conduct
    assert (e.cheat_months_one, e.cheat_months_two, e.provisional_rd) == (12, 24, 110.0)
    assert cfg.pairings_announced_at == dt.datetime(2026, 9, 1, tzinfo=UTC)
    assert cfg.rating_cap.hold_hours == 24 and cfg.composition.replacement_min_below == 100
    assert (c.break_max_minutes, c.part_gap_max_minutes, c.forfeits_to_disqualify) == (10, 1, 2)
    assert cfg.seeding.rating_at is None and cfg.composition.allowed_swaps == ()


def test_acwc_preset_has_its_own_dates(tmp_path: Path) -> None:
    """ACWC-ELIG-1: created before 2021-03-01; ACWC-ELIG-2: 100 games before 2021-09-01; ACWC-ELIG-3:
    2020-09-01 / 2018-09-01; ACWC-SEED-1: the rating at 2021-09-01 and the peak from 2021-03-01."""
    cfg = load(tmp_path, header=ACWC_HEADER)
    e = cfg.eligibility
    assert (e.created_before, e.games_before, e.one_cheat_since, e.two_cheats_since) == (
        dt.datetime(2021, 3, 1, tzinfo=UTC),
        dt.datetime(2021, 9, 1, tzinfo=UTC),
        dt.datetime(2020, 9, 1, tzinfo=UTC),
        dt.datetime(2018, 9, 1, tzinfo=UTC),
    )
    assert e.min_rated_games == 100
    assert (cfg.seeding.rating_at, cfg.seeding.peak_since) == (
        dt.datetime(2021, 9, 1, tzinfo=UTC),
        dt.datetime(2021, 3, 1, tzinfo=UTC),
    )


def test_allowed_swaps(tmp_path: Path) -> None:
    """TEAM-COMP-4: swaps the TDs allow, as two different boards of a team."""
    cfg = load(tmp_path, '[composition]\nallowed_swaps = [{ team = "Pawn Stormers", boards = [2, 1] }]\n')
    [swap] = cfg.composition.allowed_swaps
    assert (swap.team, swap.board_a, swap.board_b) == ("Pawn Stormers", 1, 2)
    msg = load_error(tmp_path, TEAM_HEADER + '[composition]\nallowed_swaps = [{ team = "X", boards = [3, 3] }]\n')
    assert (
        msg
        == "tournament.toml key 'composition.allowed_swaps[0].boards': expected two different board numbers such as [1, 2], got [3, 3]"
    )
    msg = load_error(tmp_path, TEAM_HEADER + "[conduct]\nbreak_max_minute = 10\n")
    assert msg == (
        "tournament.toml key 'conduct.break_max_minute': unknown key: expected one of break_max_minutes, "
        "break_min_minutes, forfeits_to_disqualify, part_gap_max_minutes"
    )
