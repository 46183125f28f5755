"""TD input files (docs/td-guide.md): teams.csv, players.csv, pairings.csv.

Each test writes a small tournament.toml (``preset = "team-swiss"``: 4 boards, Swiss of 7
rounds, knockout of 2, final of 1) and its CSVs into tmp_path. Expected values come from
the rules (docs/rules.md) and the files' format; error messages are asserted verbatim: file, line, what was expected.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from pipeline.errors import InputError
from pipeline.inputs.config import load_config
from pipeline.inputs.td_files import read_pairings, read_players, read_roster, read_teams
from pipeline.model import Config, Member

UTC = dt.UTC

HEADER = "team,player,board,title,captain\n"
TEAM_A = (
    "Forced Captures,Quillrook77,1,AGM,yes\n"
    "Forced Captures,Pinlux_31,2,,\n"
    "Forced Captures,Forkanti63,3,,\n"
    "Forced Captures,Matefrost82,4,,\n"
)
TEAM_B = (
    "Zugzwang Zebras,AntiZug84,1,ASGM,\n"
    "Zugzwang Zebras,kingsac8,2,,yes\n"
    "Zugzwang Zebras,Luxpawn_41,3,,\n"
    "Zugzwang Zebras,novaDusk4,4,,\n"
)
TEAM_C = "Empty Board,Givaway24,1,,yes\nEmpty Board,Lossac44,2,,\nEmpty Board,Lospin87,3,,\nEmpty Board,Capfork42,4,,\n"
TEAMS = HEADER + TEAM_A + TEAM_B + TEAM_C


def make_config(tmp_path: Path, stage_extra: str = "", boards: int | None = None) -> Config:
    text = 'preset = "team-swiss"\n\n[tournament]\nid = "t"\n'
    if boards is not None:
        text += f"boards = {boards}\n"
    text += (
        '\n[paths]\nteams = "teams.csv"\npairings = "pairings.csv"\n'
        'database = "out/t.duckdb"\nexports = "out/exports"\n'
    )
    if stage_extra:
        text += "\n[stages.swiss]\n" + stage_extra + "\n"
    path = tmp_path / "tournament.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def teams_file(tmp_path: Path, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / "teams.csv"
    path.write_bytes(text.encode(encoding))
    return path


def teams_error(tmp_path: Path, text: str) -> str:
    cfg = make_config(tmp_path)
    teams_file(tmp_path, text)
    with pytest.raises(InputError) as exc:
        read_teams(cfg.paths.teams, cfg.boards)
    return str(exc.value)


def roster(tmp_path: Path, stage_extra: str = "") -> tuple[Config, object]:
    cfg = make_config(tmp_path, stage_extra)
    teams_file(tmp_path, TEAMS)
    return cfg, read_roster(cfg)


def pairings(tmp_path: Path, text: str, stage_extra: str = 'first_round_start = "2026-09-01T00:00:00Z"'):
    cfg, r = roster(tmp_path, stage_extra)
    (tmp_path / "pairings.csv").write_text(text, encoding="utf-8")
    return read_pairings(cfg.paths.pairings, cfg, r)


def pairings_error(tmp_path: Path, text: str, stage_extra: str = 'first_round_start = "2026-09-01T00:00:00Z"') -> str:
    with pytest.raises(InputError) as exc:
        pairings(tmp_path, text, stage_extra)
    return str(exc.value)


# --------------------------------------------------------------------------- teams.csv: happy path


def test_read_teams_happy_path(tmp_path: Path) -> None:
    """Ids are lower-cased names, names kept as written, boards 1-4, captain, titles."""
    cfg, r = roster(tmp_path)
    assert r.entrants == ("Forced Captures", "Zugzwang Zebras", "Empty Board")
    assert len(r.members) == 12
    assert r.members[0] == Member("Forced Captures", "quillrook77", "Quillrook77", 1, "AGM", True)
    assert r.members[1] == Member("Forced Captures", "pinlux_31", "Pinlux_31", 2, "", False)
    assert r.members[4] == Member("Zugzwang Zebras", "antizug84", "AntiZug84", 1, "ASGM", False)
    assert r.members[5] == Member("Zugzwang Zebras", "kingsac8", "kingsac8", 2, "", True)
    assert r.members[7] == Member("Zugzwang Zebras", "novadusk4", "novaDusk4", 4, "", False)
    assert r.player_ids()[:4] == ("quillrook77", "pinlux_31", "forkanti63", "matefrost82")
    assert r.on_board("Empty Board", 3).player_name == "Lospin87"
    assert r.on_board("Empty Board", 5) is None
    assert [m.entrant for m in r.members if m.is_captain] == ["Forced Captures", "Zugzwang Zebras", "Empty Board"]
    assert all(m.seed_rating is None for m in r.members)


def test_read_teams_substitute_on_board_five(tmp_path: Path) -> None:
    """TEAM-COMP-5: an optional 5th member is listed on board 5 (boards + 1)."""
    cfg = make_config(tmp_path)
    teams_file(tmp_path, HEADER + TEAM_A + "Forced Captures,Rookdusk_65,5,,\n")
    r = read_teams(cfg.paths.teams, cfg.boards)
    sub = r.on_board("Forced Captures", 5)
    assert sub == Member("Forced Captures", "rookdusk_65", "Rookdusk_65", 5, "", False)
    assert r.entrants == ("Forced Captures",)
    assert len(r.player_ids()) == 5


def test_read_teams_three_boards_substitute_on_four(tmp_path: Path) -> None:
    """TEAM-COMP-1 (3 boards configured) and TEAM-COMP-5: the substitute is on board 4; board 5 is refused."""
    cfg = make_config(tmp_path, boards=3)
    teams_file(tmp_path, HEADER + "A,a1,1,,yes\nA,a2,2,,\nA,a3,3,,\nA,a4,4,,\n")
    r = read_teams(cfg.paths.teams, cfg.boards)
    assert r.on_board("A", 4).player_id == "a4"
    teams_file(tmp_path, HEADER + "A,a1,1,,yes\nA,a2,2,,\nA,a3,3,,\nA,a5,5,,\n")
    with pytest.raises(InputError) as exc:
        read_teams(cfg.paths.teams, cfg.boards)
    assert str(exc.value) == "teams.csv line 5: board '5' for player 'a5': expected 1-4"


def test_read_teams_bom_crlf_and_loose_spacing(tmp_path: Path) -> None:
    """UTF-8 with a byte-order mark and CRLF line ends (as spreadsheets save them) are accepted."""
    text = (
        "Team , Player,BOARD,Title,Captain\r\n"
        " Forced Captures , Quillrook77 , 1 , agm , Yes \r\n"
        "Forced Captures,Pinlux_31,2,,\r\n"
        "\r\n"
        "Forced Captures,Forkanti63,3,asgm,\r\n"
        "Forced Captures,Matefrost82,4,,\r\n"
    )
    cfg = make_config(tmp_path)
    teams_file(tmp_path, "\ufeff" + text)
    r = read_teams(cfg.paths.teams, cfg.boards)
    assert r.members[0] == Member("Forced Captures", "quillrook77", "Quillrook77", 1, "AGM", True)
    assert r.members[2] == Member("Forced Captures", "forkanti63", "Forkanti63", 3, "ASGM", False)
    assert [m.board for m in r.members] == [1, 2, 3, 4]


def test_read_teams_without_optional_columns(tmp_path: Path) -> None:
    """Title and captain may be left out; columns in any order."""
    cfg = make_config(tmp_path)
    teams_file(tmp_path, "board,player,team\n1,A1,A\n2,A2,A\n3,A3,A\n4,A4,A\n")
    r = read_teams(cfg.paths.teams, cfg.boards)
    assert r.members[3] == Member("A", "a4", "A4", 4, "", False)


def test_read_teams_unicode_team_name(tmp_path: Path) -> None:
    cfg = make_config(tmp_path)
    teams_file(
        tmp_path, HEADER + "Équipe Zürich,a1,1,,yes\nÉquipe Zürich,a2,2,,\nÉquipe Zürich,a3,3,,\nÉquipe Zürich,a4,4,,\n"
    )
    assert read_teams(cfg.paths.teams, cfg.boards).entrants == ("Équipe Zürich",)


# --------------------------------------------------------------------------- teams.csv: errors


def test_teams_missing_column(tmp_path: Path) -> None:
    msg = teams_error(tmp_path, "team,player,title,captain\nA,a1,,yes\n")
    assert msg == "teams.csv line 1: missing column 'board': expected columns team, player, board, title, captain"


def test_teams_unknown_column(tmp_path: Path) -> None:
    msg = teams_error(tmp_path, "team,player,board,title,captain,rating\nA,a1,1,,yes,2100\n")
    assert msg == "teams.csv line 1: unknown column 'rating': expected columns team, player, board, title, captain"


def test_teams_duplicate_header_column(tmp_path: Path) -> None:
    msg = teams_error(tmp_path, "team,player,board,Board\nA,a1,1,2\n")
    assert msg == "teams.csv line 1: column 'board' appears twice in the header"


def test_teams_empty_file(tmp_path: Path) -> None:
    msg = teams_error(tmp_path, "")
    assert msg == "teams.csv line 1: empty file: expected a header row with team, player, board"


def test_teams_blank_lines_only(tmp_path: Path) -> None:
    msg = teams_error(tmp_path, "\ufeff\r\n  \r\n")
    assert msg == "teams.csv line 1: empty file: expected a header row with team, player, board"


def test_teams_header_only(tmp_path: Path) -> None:
    msg = teams_error(tmp_path, HEADER)
    assert msg == "teams.csv line 2: no teams: expected at least one row"


def test_teams_file_missing(tmp_path: Path) -> None:
    with pytest.raises(InputError) as exc:
        read_teams(tmp_path / "teams.csv", 4)
    assert str(exc.value) == "teams.csv: file not found"


def test_teams_not_utf8(tmp_path: Path) -> None:
    """UTF-8 only; a Latin-1 file is refused with the byte offset."""
    cfg = make_config(tmp_path)
    teams_file(tmp_path, HEADER + "Équipe,a1,1,,yes\n", encoding="latin-1")
    with pytest.raises(InputError) as exc:
        read_teams(cfg.paths.teams, cfg.boards)
    # "team,player,board,title,captain\n" is 32 bytes; É (0xC9) is byte 32
    assert str(exc.value) == "teams.csv: not UTF-8 text (invalid continuation byte at byte 32)"


def test_teams_wrong_number_of_fields(tmp_path: Path) -> None:
    msg = teams_error(tmp_path, HEADER + "A,a1,1,,yes\nA,a2,2\n")
    assert msg == "teams.csv line 3: 3 fields: expected 5 (team, player, board, title, captain)"


@pytest.mark.parametrize("board", ["0", "6", "-1", "x"])
def test_teams_board_out_of_range(tmp_path: Path, board: str) -> None:
    """TEAM-COMP-5: board 1-4, 5 for the substitute; 0 and 6 are refused."""
    msg = teams_error(tmp_path, HEADER + "A,a1,1,,yes\n" + f"A,Bad_Board,{board},,\n")
    assert msg == f"teams.csv line 3: board '{board}' for player 'Bad_Board': expected 1-5"


def test_teams_bad_title(tmp_path: Path) -> None:
    """TEAM-COMP-2: title is empty, AGM or ASGM."""
    msg = teams_error(tmp_path, HEADER + "A,a1,1,GM,yes\n")
    assert msg == "teams.csv line 2: title 'GM' for player 'a1': expected AGM, ASGM or empty"


def test_teams_bad_captain(tmp_path: Path) -> None:
    """Captain is yes or empty."""
    msg = teams_error(tmp_path, HEADER + "A,a1,1,,yes\nA,a2,2,,no\n")
    assert msg == "teams.csv line 3: captain 'no' for player 'a2': expected yes or empty"


def test_teams_player_on_two_teams(tmp_path: Path) -> None:
    """TEAM-ELIG-8: a player registered on two teams is an error (names are case-insensitive)."""
    msg = teams_error(tmp_path, HEADER + TEAM_A + "Zugzwang Zebras,AntiZug84,1,,yes\nZugzwang Zebras,PINLUX_31,2,,\n")
    assert msg == (
        "teams.csv line 7: player 'PINLUX_31' is already listed on line 3 (team 'Forced Captures'): "
        "expected each player once (TEAM-ELIG-8)"
    )


def test_teams_player_twice_on_one_team(tmp_path: Path) -> None:
    """TEAM-ELIG-8: a player registered twice on one team is an error, even as its substitute."""
    msg = teams_error(tmp_path, HEADER + TEAM_A + "Forced Captures,quillrook77,5,,\n")
    assert msg == (
        "teams.csv line 6: player 'quillrook77' is already listed on line 2 (team 'Forced Captures'): "
        "expected each player once (TEAM-ELIG-8)"
    )


def test_teams_two_players_on_one_board(tmp_path: Path) -> None:
    msg = teams_error(tmp_path, HEADER + "A,a1,1,,yes\nA,a2,2,,\nA,a3,2,,\n")
    assert msg == "teams.csv line 4: team 'A' board 2 is already taken on line 3: expected one player per board"


def test_teams_two_substitutes(tmp_path: Path) -> None:
    """TEAM-COMP-5: one optional 5th member."""
    msg = teams_error(tmp_path, HEADER + TEAM_A + "Forced Captures,sub1,5,,\nForced Captures,sub2,5,,\n")
    assert (
        msg
        == "teams.csv line 7: team 'Forced Captures' board 5 is already taken on line 6: expected one player per board"
    )


def test_teams_missing_board(tmp_path: Path) -> None:
    """TEAM-COMP-1: every team fills boards 1-4 (the substitute is optional).

    The message names the team's first row.
    """
    msg = teams_error(tmp_path, HEADER + TEAM_A + "B,b1,1,,yes\nB,b2,2,,\nB,b4,4,,\nB,b5,5,,\n")
    assert msg == "teams.csv line 6: team 'B' has no player on board 3: expected boards 1-4"


@pytest.mark.parametrize("name", ["bad name", "_leading", "émile", "a" * 31, "a.b"])
def test_teams_bad_username(tmp_path: Path, name: str) -> None:
    """Lichess usernames: letters, digits, _ or -, starting with a letter or digit, at most 30 characters."""
    msg = teams_error(tmp_path, HEADER + f"A,{name},1,,yes\n")
    assert msg == (
        f"teams.csv line 2: player {name!r}: expected a Lichess username "
        "(2-30 letters, digits, _ or -, starting and ending with a letter or digit)"
    )


def test_teams_empty_team_name(tmp_path: Path) -> None:
    msg = teams_error(tmp_path, HEADER + "A,a1,1,,yes\n ,a2,2,,\n")
    assert msg == "teams.csv line 3: empty team: expected a team name"


def test_teams_one_spelling_per_team(tmp_path: Path) -> None:
    """Team names are case-insensitive, so 'alphas' on a later line is the team 'Alphas' misspelt."""
    msg = teams_error(tmp_path, HEADER + "Alphas,a1,1,,yes\nalphas,a2,2,,\n")
    assert msg == (
        "teams.csv line 3: team 'alphas' is written 'Alphas' on line 2: "
        "expected one spelling per team (names are case-insensitive)"
    )


def test_teams_line_numbers_count_blank_lines(tmp_path: Path) -> None:
    """The line in a message is the line in the file, blank lines included."""
    msg = teams_error(tmp_path, HEADER + "A,a1,1,,yes\n\n\nA,a2,9,,\n")
    assert msg == "teams.csv line 5: board '9' for player 'a2': expected 1-5"


# --------------------------------------------------------------------------- players.csv


def test_read_players(tmp_path: Path) -> None:
    """players.csv(player, seed_rating optional); the entrant is the player id (ACWC-SEED-1 seeds)."""
    path = tmp_path / "players.csv"
    path.write_text("player,seed_rating\nAntiLux99,2301\nkingRook30,\n", encoding="utf-8")
    r = read_players(path)
    assert r.members == (
        Member("antilux99", "antilux99", "AntiLux99", 1, "", False, 2301),
        Member("kingrook30", "kingrook30", "kingRook30", 1, "", False, None),
    )
    assert r.entrants == ("antilux99", "kingrook30")


def test_players_twice(tmp_path: Path) -> None:
    path = tmp_path / "players.csv"
    path.write_text("player\nAntiLux99\nANTILUX99\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        read_players(path)
    assert (
        str(exc.value)
        == "players.csv line 3: player 'ANTILUX99' is already listed on line 2: expected each player once"
    )


def test_players_bad_seed(tmp_path: Path) -> None:
    path = tmp_path / "players.csv"
    path.write_text("player,seed_rating\nAntiLux99,2301.5\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        read_players(path)
    assert (
        str(exc.value)
        == "players.csv line 2: seed_rating '2301.5' for player 'AntiLux99': expected a whole number or empty"
    )


def test_players_header_only(tmp_path: Path) -> None:
    path = tmp_path / "players.csv"
    path.write_text("player,seed_rating\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        read_players(path)
    assert str(exc.value) == "players.csv line 2: no players: expected at least one row"


def test_players_semicolon_separated_names_the_separator_and_the_fix(tmp_path: Path) -> None:
    """What a spreadsheet in a ';' locale writes (here with its BOM) is refused with the fix."""
    path = tmp_path / "players.csv"
    path.write_bytes("\ufeffplayer;seed_rating\r\nAntiLux99;2301\r\n".encode("utf-8"))
    with pytest.raises(InputError) as exc:
        read_players(path)
    assert str(exc.value) == (
        "players.csv line 1: the columns are separated by ';': save the file as CSV with commas "
        "between the columns (expected columns player, seed_rating)"
    )


def test_players_one_column_file_is_not_taken_for_another_separator(tmp_path: Path) -> None:
    """A players.csv with only its required column is comma-separated as it stands."""
    path = tmp_path / "players.csv"
    path.write_text("player\nAntiLux99\n", encoding="utf-8")
    assert read_players(path).entrants == ("antilux99",)


# --------------------------------------------------------------------------- pairings.csv


def test_pairings_default_window_from_first_round_start(tmp_path: Path) -> None:
    """TEAM-FMT-3: round r runs [start + 7(r-1) days, start + 7r days) from stages.swiss.first_round_start."""
    ps = pairings(
        tmp_path, "stage,round,a,b\nswiss,1,Forced Captures,Zugzwang Zebras\nswiss,3,Empty Board,Forced Captures\n"
    )
    assert len(ps) == 2
    p1, p3 = ps
    assert (p1.stage, p1.round, p1.a, p1.b, p1.line) == ("swiss", 1, "Forced Captures", "Zugzwang Zebras", 2)
    assert (p1.window_start, p1.window_end) == (
        dt.datetime(2026, 9, 1, tzinfo=UTC),
        dt.datetime(2026, 9, 8, tzinfo=UTC),
    )
    # round 3: 2026-09-01 + 14 days = 09-15, + 21 days = 09-22
    assert (p3.round, p3.a, p3.b, p3.line) == (3, "Empty Board", "Forced Captures", 3)
    assert (p3.window_start, p3.window_end) == (
        dt.datetime(2026, 9, 15, tzinfo=UTC),
        dt.datetime(2026, 9, 22, tzinfo=UTC),
    )


def test_pairings_row_window_overrides_default(tmp_path: Path) -> None:
    """TEAM-FMT-3 windows can be set per pairing (a TD's extension); times are converted to UTC."""
    ps = pairings(
        tmp_path,
        (
            "stage,round,a,b,window_start,window_end\n"
            "swiss,1,Forced Captures,Zugzwang Zebras,2026-09-02T00:00:00Z,2026-09-10T12:00:00+02:00\n"
            "swiss,2,Empty Board,Zugzwang Zebras,,2026-09-16T00:00:00Z\n"
        ),
    )
    assert (ps[0].window_start, ps[0].window_end) == (
        dt.datetime(2026, 9, 2, tzinfo=UTC),
        dt.datetime(2026, 9, 10, 10, tzinfo=UTC),
    )
    assert ps[0].window_end.utcoffset() == dt.timedelta(0)
    # only the end given: the start stays round 2's default, 2026-09-08
    assert (ps[1].window_start, ps[1].window_end) == (
        dt.datetime(2026, 9, 8, tzinfo=UTC),
        dt.datetime(2026, 9, 16, tzinfo=UTC),
    )


def test_pairings_window_without_first_round_start(tmp_path: Path) -> None:
    """A stage without first_round_start needs both window columns in each row."""
    ps = pairings(
        tmp_path,
        "stage,round,a,b,window_start,window_end\nknockout,1,Forced Captures,Empty Board,2026-11-03T00:00:00Z,2026-11-10T00:00:00Z\n",
        stage_extra="",
    )
    assert (ps[0].stage, ps[0].round) == ("knockout", 1)
    assert (ps[0].window_start, ps[0].window_end) == (
        dt.datetime(2026, 11, 3, tzinfo=UTC),
        dt.datetime(2026, 11, 10, tzinfo=UTC),
    )


def test_pairings_team_names_case_insensitive(tmp_path: Path) -> None:
    """Names are matched case-insensitively; the pairing holds the team name as teams.csv writes it."""
    ps = pairings(tmp_path, "stage,round,a,b\nswiss,1,forced captures,ZUGZWANG ZEBRAS\n")
    assert (ps[0].a, ps[0].b) == ("Forced Captures", "Zugzwang Zebras")


def test_pairings_same_team_in_different_rounds_and_stages(tmp_path: Path) -> None:
    ps = pairings(
        tmp_path,
        (
            "stage,round,a,b,window_start,window_end\n"
            "swiss,1,Forced Captures,Zugzwang Zebras,,\n"
            "swiss,2,Forced Captures,Empty Board,,\n"
            "knockout,1,Forced Captures,Zugzwang Zebras,2026-10-20T00:00:00Z,2026-10-27T00:00:00Z\n"
        ),
    )
    assert [(p.stage, p.round, p.b) for p in ps] == [
        ("swiss", 1, "Zugzwang Zebras"),
        ("swiss", 2, "Empty Board"),
        ("knockout", 1, "Zugzwang Zebras"),
    ]


def test_pairings_unknown_stage(tmp_path: Path) -> None:
    msg = pairings_error(
        tmp_path, "stage,round,a,b\nswiss,1,Forced Captures,Zugzwang Zebras\nsemifinal,1,Forced Captures,Empty Board\n"
    )
    assert msg == "pairings.csv line 3: stage 'semifinal': expected one of swiss, knockout, final"


@pytest.mark.parametrize(
    ("stage", "rnd", "expected"),
    [
        ("swiss", "8", "1-7"),
        ("swiss", "0", "1-7"),
        ("knockout", "2", "1-1"),
        ("final", "2", "1-1"),
        ("swiss", "one", "1-7"),
    ],
)
def test_pairings_round_out_of_range(tmp_path: Path, stage: str, rnd: str, expected: str) -> None:
    """TEAM-FMT-1: the preset's Swiss has 7 rounds, the final 1; its knockout's rounds follow the
    teams (1, the semifinals, for 10-15; here 3 teams, too few to size it: the smallest bracket)."""
    msg = pairings_error(tmp_path, f"stage,round,a,b\n{stage},{rnd},Forced Captures,Zugzwang Zebras\n")
    assert msg == f"pairings.csv line 2: round '{rnd}': expected {expected} for stage '{stage}'"


def test_pairings_unknown_team(tmp_path: Path) -> None:
    msg = pairings_error(tmp_path, "stage,round,a,b\nswiss,1,Forced Captures,Capture Cartel\n")
    assert msg == "pairings.csv line 2: b 'Capture Cartel': expected a registered team"


def test_pairings_team_paired_with_itself(tmp_path: Path) -> None:
    msg = pairings_error(tmp_path, "stage,round,a,b\nswiss,1,Empty Board,EMPTY BOARD\n")
    assert msg == "pairings.csv line 2: 'Empty Board' is paired with itself: expected two different entrants"


def test_pairings_team_paired_twice_in_a_round(tmp_path: Path) -> None:
    msg = pairings_error(
        tmp_path,
        (
            "stage,round,a,b\n"
            "swiss,1,Forced Captures,Zugzwang Zebras\n"
            "swiss,2,Forced Captures,Empty Board\n"
            "swiss,1,Empty Board,zugzwang zebras\n"
        ),
    )
    assert msg == (
        "pairings.csv line 4: 'Zugzwang Zebras' is already paired in swiss round 1 on line 2: "
        "expected one pairing per round"
    )


def test_pairings_unparseable_window_start(tmp_path: Path) -> None:
    msg = pairings_error(
        tmp_path, "stage,round,a,b,window_start,window_end\nswiss,1,Forced Captures,Zugzwang Zebras,Tuesday,\n"
    )
    assert msg == "pairings.csv line 2: window_start 'Tuesday': expected a UTC time such as 2026-01-06T00:00:00Z"


def test_pairings_window_without_offset(tmp_path: Path) -> None:
    """All times are UTC: a time without an offset is refused."""
    msg = pairings_error(
        tmp_path,
        "stage,round,a,b,window_start,window_end\nswiss,1,Forced Captures,Zugzwang Zebras,,2026-09-09T00:00:00\n",
    )
    assert (
        msg == "pairings.csv line 2: window_end '2026-09-09T00:00:00': expected a UTC time such as 2026-01-06T00:00:00Z"
    )


def test_pairings_window_end_before_start(tmp_path: Path) -> None:
    msg = pairings_error(
        tmp_path,
        (
            "stage,round,a,b,window_start,window_end\n"
            "swiss,1,Forced Captures,Zugzwang Zebras,2026-09-08T00:00:00Z,2026-09-01T00:00:00Z\n"
        ),
    )
    assert (
        msg
        == "pairings.csv line 2: window_end 2026-09-01T00:00:00+00:00 is not after window_start 2026-09-08T00:00:00+00:00"
    )


def test_pairings_window_start_after_default_end(tmp_path: Path) -> None:
    """Only window_start given, after round 1's default end 2026-09-08: the window would be empty."""
    msg = pairings_error(
        tmp_path, ("stage,round,a,b,window_start\nswiss,1,Forced Captures,Zugzwang Zebras,2026-09-08T00:00:00Z\n")
    )
    assert (
        msg
        == "pairings.csv line 2: window_end 2026-09-08T00:00:00+00:00 is not after window_start 2026-09-08T00:00:00+00:00"
    )


def test_pairings_no_window_and_no_first_round_start(tmp_path: Path) -> None:
    """TEAM-FMT-3: every round has a window; without first_round_start the row must give one."""
    msg = pairings_error(tmp_path, "stage,round,a,b\nswiss,1,Forced Captures,Zugzwang Zebras\n", stage_extra="")
    assert msg == (
        "pairings.csv line 2: no round window: expected window_start and window_end, "
        "or stages.swiss.first_round_start in the config"
    )


def test_pairings_half_window_and_no_first_round_start(tmp_path: Path) -> None:
    msg = pairings_error(
        tmp_path,
        "stage,round,a,b,window_start,window_end\nknockout,1,Forced Captures,Zugzwang Zebras,2026-11-03T00:00:00Z,\n",
        stage_extra="",
    )
    assert msg == (
        "pairings.csv line 2: no round window: expected window_start and window_end, "
        "or stages.knockout.first_round_start in the config"
    )


def test_pairings_missing_column(tmp_path: Path) -> None:
    msg = pairings_error(tmp_path, "stage,round,a\nswiss,1,Forced Captures\n")
    assert (
        msg
        == "pairings.csv line 1: missing column 'b': expected columns stage, round, a, b, window_start, window_end, bye"
    )


def test_pairings_bom_and_crlf(tmp_path: Path) -> None:
    cfg, r = roster(tmp_path, 'first_round_start = "2026-09-01T00:00:00Z"')
    (tmp_path / "pairings.csv").write_bytes(
        "\ufeffstage,round,a,b\r\nswiss,2,Empty Board,Forced Captures\r\n".encode("utf-8")
    )
    ps = read_pairings(cfg.paths.pairings, cfg, r)
    assert (ps[0].stage, ps[0].round, ps[0].a, ps[0].b) == ("swiss", 2, "Empty Board", "Forced Captures")
    assert ps[0].window_start == dt.datetime(2026, 9, 8, tzinfo=UTC)


def test_pairings_individual_event_players_case_insensitive(tmp_path: Path) -> None:
    """ACWC: entrants are players, matched by Lichess id; an unknown name is 'a registered player'."""
    (tmp_path / "tournament.toml").write_text(
        'preset = "acwc-2021"\n[tournament]\nid = "a"\n[paths]\nplayers = "players.csv"\n'
        'pairings = "pairings.csv"\ndatabase = "db"\nexports = "ex"\n'
        '[stages.qualification]\nfirst_round_start = "2021-09-07T00:00:00Z"\n',
        encoding="utf-8",
    )
    cfg = load_config(tmp_path / "tournament.toml")
    (tmp_path / "players.csv").write_text("player\nAntiLux99\nKingRook30\n", encoding="utf-8")
    r = read_roster(cfg)
    (tmp_path / "pairings.csv").write_text("stage,round,a,b\nqualification,1,ANTILUX99,kingrook30\n", encoding="utf-8")
    ps = read_pairings(cfg.paths.pairings, cfg, r)
    assert (ps[0].a, ps[0].b) == ("antilux99", "kingrook30")
    assert (ps[0].window_start, ps[0].window_end) == (
        dt.datetime(2021, 9, 7, tzinfo=UTC),
        dt.datetime(2021, 9, 14, tzinfo=UTC),
    )
    (tmp_path / "pairings.csv").write_text("stage,round,a,b\nqualification,1,nobody,kingrook30\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        read_pairings(cfg.paths.pairings, cfg, r)
    assert str(exc.value) == "pairings.csv line 2: a 'nobody': expected a registered player"


# --------------------------------------------------------------------------- names, boards and captains in teams.csv


def test_team_names_differing_only_in_case_are_not_confused(tmp_path: Path) -> None:
    """Pairings match team names case-insensitively, so 'Alpha' and 'ALPHA' cannot be two teams.

    Either teams.csv is refused (naming a line), or a pairing that writes 'Alpha' exactly as
    teams.csv does must resolve to 'Alpha', never silently to 'ALPHA'.
    """
    cfg = make_config(tmp_path, 'first_round_start = "2026-09-01T00:00:00Z"')
    teams_file(
        tmp_path,
        HEADER
        + "Alpha,a1,1,,yes\nAlpha,a2,2,,\nAlpha,a3,3,,\nAlpha,a4,4,,\n"
        + "ALPHA,b1,1,,yes\nALPHA,b2,2,,\nALPHA,b3,3,,\nALPHA,b4,4,,\n"
        + "Beta,c1,1,,yes\nBeta,c2,2,,\nBeta,c3,3,,\nBeta,c4,4,,\n",
    )
    try:
        r = read_teams(cfg.paths.teams, cfg.boards)
    except InputError as exc:
        assert str(exc).startswith("teams.csv line 6: ")
        return
    (tmp_path / "pairings.csv").write_text("stage,round,a,b\nswiss,1,Alpha,Beta\n", encoding="utf-8")
    ps = read_pairings(cfg.paths.pairings, cfg, r)
    assert ps[0].a == "Alpha"


def test_teams_missing_board_error_names_a_line(tmp_path: Path) -> None:
    """TEAM-COMP-1: a team missing board 3; the message must say where in teams.csv the team is (its first row, line 6)."""
    msg = teams_error(tmp_path, HEADER + TEAM_A + "B,b1,1,,yes\nB,b2,2,,\nB,b4,4,,\n")
    assert msg.startswith("teams.csv line 6: ")


@pytest.mark.parametrize("name", ["a", "Pinlux_", "rook-"])
def test_teams_username_rules_match_lichess(tmp_path: Path, name: str) -> None:
    """Lichess usernames are 2-30 characters and end in a letter or digit; such a typo should be caught at input."""
    msg = teams_error(tmp_path, HEADER + f"A,{name},1,,yes\n")
    assert msg == (
        f"teams.csv line 2: player {name!r}: expected a Lichess username "
        "(2-30 letters, digits, _ or -, starting and ending with a letter or digit)"
    )


def test_teams_second_captain_is_refused(tmp_path: Path) -> None:
    """TEAM-COMP-8: one captain per team (the captain may change once, through an override, not by listing two)."""
    msg = teams_error(tmp_path, HEADER + "A,Quillrook77,1,,yes\nA,Pinlux_31,2,,yes\n")
    assert msg == (
        "teams.csv line 3: 'Pinlux_31' is a second captain of team 'A' ('Quillrook77' on line 2): "
        "expected one captain per team (TEAM-COMP-8)"
    )
