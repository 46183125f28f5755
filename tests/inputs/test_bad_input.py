"""The bad TD input corpus: each case is one mistake a TD makes in tournament.toml, teams.csv,
pairings.csv or overrides.csv (or on the command line), applied to a copy of the hand-made
skeleton tournament. `antichess-td nightly` must stop with exit code 2 and exactly one message
naming the file, the line (or key) and what was expected — before anything is written: no
database file appears.

Two cases are not mistakes: a UTF-8 byte-order mark and CRLF line ends are what spreadsheet
programs write, so they are accepted and read exactly as the clean file.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

SKELETON = Path(__file__).resolve().parents[1] / "data" / "skeleton"
TEAMS = (SKELETON / "teams.csv").read_text(encoding="utf-8")
PAIRINGS = (SKELETON / "pairings.csv").read_text(encoding="utf-8")
TOML = (SKELETON / "tournament.toml").read_text(encoding="utf-8")
PARTS = """parts = [
  { time_control = "0+2", games = 2, win = 6, draw = 3 },
  { time_control = "2+5", games = 1, win = 12, draw = 6 },
  { time_control = "1+2", games = 1, win = 8, draw = 4 },
]"""


@dataclass(frozen=True)
class Case:
    name: str
    file: str  # the file the case rewrites (relative to the tournament folder)
    edit: Callable[[str], str]  # the original text → the bad text
    message: str  # the exact line after "error: "
    extra_args: tuple[str, ...] = ()
    binary: bytes | None = None  # written instead of edit(text), for encoding cases

    def apply(self, folder: Path) -> None:
        path = folder / self.file
        if self.binary is not None:
            path.write_bytes(self.binary)
            return
        original = path.read_text(encoding="utf-8") if path.exists() else ""
        path.write_text(self.edit(original), encoding="utf-8")

    def args(self, folder: Path) -> list[str]:
        return ["nightly", "--config", str(folder / "tournament.toml"), *self.extra_args]


def replace(old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)

    return edit


def text(content: str) -> Callable[[str], str]:
    return lambda _: content


WITH_OVERRIDES = replace(
    'database = "out/skeleton.duckdb"', 'database = "out/skeleton.duckdb"\noverrides = "overrides.csv"'
)
OVR = "stage,round,subject,action,value,reason\n"

CASES = [
    # teams.csv
    Case(
        "teams_missing_column",
        "teams.csv",
        replace("team,player,board,title,captain", "team,player,title,captain"),
        "teams.csv line 1: missing column 'board': expected columns team, player, board, title, captain",
    ),
    Case(
        "teams_misspelled_column",
        "teams.csv",
        replace("team,player,board,title,captain", "team,player,board,titel,captain"),
        "teams.csv line 1: unknown column 'titel': expected columns team, player, board, title, captain",
    ),
    Case(
        "teams_duplicate_header",
        "teams.csv",
        replace("team,player,board,title,captain", "team,player,board,title,board"),
        "teams.csv line 1: column 'board' appears twice in the header",
    ),
    Case(
        "teams_empty_file",
        "teams.csv",
        text(""),
        "teams.csv line 1: empty file: expected a header row with team, player, board",
    ),
    Case(
        "teams_board_0",
        "teams.csv",
        replace("Alphas,Amir,2,,", "Alphas,Amir,0,,"),
        "teams.csv line 3: board '0' for player 'Amir': expected 1-3",
    ),
    Case(
        "teams_board_7",
        "teams.csv",
        replace("Alphas,Amir,2,,", "Alphas,Amir,7,,"),
        "teams.csv line 3: board '7' for player 'Amir': expected 1-3",
    ),
    Case(
        "teams_title_gm",
        "teams.csv",
        replace("Alphas,ALICE,1,AGM,yes", "Alphas,ALICE,1,GM,yes"),
        "teams.csv line 2: title 'GM' for player 'ALICE': expected AGM, ASGM or empty",
    ),
    Case(
        "teams_player_on_two_teams",
        "teams.csv",
        replace("Betas,Bea,2,,", "Betas,amir,2,,"),
        "teams.csv line 5: player 'amir' is already listed on line 3 (team 'Alphas'): expected each player once (TEAM-ELIG-8)",
    ),
    Case(
        "teams_field_count",
        "teams.csv",
        replace("Gammas,Gia,2,,", "Gammas,Gia,2,"),
        "teams.csv line 7: 4 fields: expected 5 (team, player, board, title, captain)",
    ),
    Case(
        "teams_bad_username",
        "teams.csv",
        replace("Gammas,Gia,2,,", "Gammas,Gia Li,2,,"),
        "teams.csv line 7: player 'Gia Li': expected a Lichess username (2-30 letters, digits, _ or -, "
        "starting and ending with a letter or digit)",
    ),
    Case(
        "teams_not_utf8",
        "teams.csv",
        text(""),
        "teams.csv: not UTF-8 text (invalid continuation byte at byte 43)",
        binary=TEAMS.replace("Alphas,ALICE", "Alphas,ALIC\xe9").encode("latin-1"),
    ),
    # pairings.csv
    Case(
        "pairings_unknown_team",
        "pairings.csv",
        replace("swiss,2,Betas,Deltas", "swiss,2,Betas,Epsilons"),
        "pairings.csv line 5: b 'Epsilons': expected a registered team",
    ),
    Case(
        "pairings_unknown_stage",
        "pairings.csv",
        replace("swiss,2,Betas,Deltas", "swis,2,Betas,Deltas"),
        "pairings.csv line 5: stage 'swis': expected one of swiss, knockout, final",
    ),
    Case(
        "pairings_round_out_of_range",
        "pairings.csv",
        replace("swiss,2,Betas,Deltas", "swiss,3,Betas,Deltas"),
        "pairings.csv line 5: round '3': expected 1-2 for stage 'swiss'",
    ),
    Case(
        "pairings_date_does_not_parse",
        "pairings.csv",
        text("stage,round,a,b,window_start,window_end\nswiss,1,Alphas,Betas,2026-03-03T00:00:00Z,03/10/2026\n"),
        "pairings.csv line 2: window_end '03/10/2026': expected a UTC time such as 2026-01-06T00:00:00Z",
    ),
    Case(
        "pairings_window_end_before_start",
        "pairings.csv",
        text(
            "stage,round,a,b,window_start,window_end\nswiss,1,Alphas,Betas,2026-03-10T00:00:00Z,2026-03-03T00:00:00Z\n"
        ),
        "pairings.csv line 2: window_end 2026-03-03T00:00:00+00:00 is not after window_start 2026-03-10T00:00:00+00:00",
    ),
    Case(
        "pairings_overlapping_round_windows",
        "pairings.csv",
        text(
            "stage,round,a,b,window_start,window_end\nswiss,1,Alphas,Betas,,2026-03-12T00:00:00Z\n"
            "swiss,2,Betas,Alphas,,\n"
        ),
        "pairings.csv line 3: 'Betas' v 'Alphas' in swiss round 2 [2026-03-10T00:00:00Z, 2026-03-17T00:00:00Z) overlaps "
        "their swiss round 1 [2026-03-03T00:00:00Z, 2026-03-12T00:00:00Z) on line 2: expected the windows of a rematch "
        "not to overlap (a game in both could count twice)",
    ),
    Case(
        "pairings_team_twice_in_a_round",
        "pairings.csv",
        replace("swiss,1,Gammas,Deltas", "swiss,1,Gammas,Betas"),
        "pairings.csv line 3: 'Betas' is already paired in swiss round 1 on line 2: expected one pairing per round",
    ),
    Case(
        "pairings_paired_with_itself",
        "pairings.csv",
        replace("swiss,1,Gammas,Deltas", "swiss,1,Gammas,gammas"),
        "pairings.csv line 3: 'Gammas' is paired with itself: expected two different entrants",
    ),
    # tournament.toml
    Case(
        "toml_type_error",
        "tournament.toml",
        replace("boards = 2", 'boards = "two"'),
        "tournament.toml key 'tournament.boards': expected a whole number from 1 to 8, got 'two'",
    ),
    Case(
        "toml_syntax_error",
        "tournament.toml",
        replace('name = "Skeleton Cup"', 'name = "Skeleton Cup'),
        "tournament.toml: not valid TOML: Illegal character '\\n' (at line 7, column 21)",
    ),
    Case(
        "toml_unknown_preset",
        "tournament.toml",
        replace('preset = "team-swiss"', 'preset = "team-swis"'),
        "tournament.toml key 'preset': unknown preset 'team-swis': expected one of acwc-2021, team-swiss",
    ),
    Case(
        "toml_unknown_key",
        "tournament.toml",
        replace("rounds = 2", "rounds = 2\nround = 2"),
        "tournament.toml key 'stages.swiss.round': unknown key: expected one of advance, buchholz_policy, first_round_start, "
        "forbidden_pairs, kashdan, kind, late_entrants, match_points, pab_points_scored, parts, play_all, primary, rated_only, "
        "round_days, rounds, tiebreaks, window_margin_days",
    ),
    Case(
        "toml_negative_points",
        "tournament.toml",
        replace("games = 2, win = 6, draw = 3", "games = 2, win = -6, draw = 3"),
        "tournament.toml key 'stages.swiss.parts[0].win': expected a number of at least 0, got -6",
    ),
    Case(
        "toml_part_with_0_games",
        "tournament.toml",
        replace("games = 1, win = 12", "games = 0, win = 12"),
        "tournament.toml key 'stages.swiss.parts[1].games': expected a whole number of at least 1, got 0",
    ),
    Case(
        "toml_bad_time_control",
        "tournament.toml",
        replace('time_control = "1+2"', 'time_control = "1+two"'),
        "tournament.toml key 'stages.swiss.parts[2].time_control': time control '1+two': expected minutes+seconds such as "
        "'2+5' or '0.5+1'",
    ),
    Case(
        "toml_cron_out_of_range",
        "tournament.toml",
        replace('exports = "out/exports"', 'exports = "out/exports"\n\n[schedule]\ncron = "99 99 * * *"'),
        "tournament.toml key 'schedule.cron': minute '99' is not valid: expected a cron line such as '0 3 * * *' "
        "(minute 0-59, hour 0-23, day 1-31, month 1-12, weekday 0-6), got '99 99 * * *'",
    ),
    Case(
        "toml_missing_teams_file",
        "tournament.toml",
        replace('teams = "teams.csv"', 'teams = "team.csv"'),
        "team.csv: file not found",
    ),
    # overrides.csv
    Case(
        "overrides_unknown_action",
        "overrides.csv",
        text(OVR + "swiss,1,Amir,forfiet,,no show\n"),
        "overrides.csv line 2: action 'forfiet': expected one of forfeit, zero_draw, exclude_game, include_game, armageddon, "
        "disqualify, substitute, replace",
    ),
    Case(
        "overrides_missing_reason",
        "overrides.csv",
        text(OVR + "swiss,1,Amir,forfeit,,\n"),
        "overrides.csv line 2: forfeit without a reason: expected the TD's reason (it is shown with the result)",
    ),
    # a spreadsheet whose locale writes ';' (or a tab-separated export): the separator and the fix
    Case(
        "teams_semicolons",
        "teams.csv",
        lambda t: t.replace(",", ";"),
        "teams.csv line 1: the columns are separated by ';': save the file as CSV with commas between the columns "
        "(expected columns team, player, board, title, captain)",
    ),
    Case(
        "teams_semicolons_with_bom",
        "teams.csv",
        text(""),
        "teams.csv line 1: the columns are separated by ';': save the file as CSV with commas between the columns "
        "(expected columns team, player, board, title, captain)",
        binary=b"\xef\xbb\xbf" + TEAMS.replace(",", ";").replace("\n", "\r\n").encode("utf-8"),
    ),
    Case(
        "teams_tabs",
        "teams.csv",
        lambda t: t.replace(",", "\t"),
        "teams.csv line 1: the columns are separated by tabs: save the file as CSV with commas between the columns "
        "(expected columns team, player, board, title, captain)",
    ),
    Case(
        "pairings_semicolons",
        "pairings.csv",
        lambda t: t.replace(",", ";"),
        "pairings.csv line 1: the columns are separated by ';': save the file as CSV with commas between the columns "
        "(expected columns stage, round, a, b, window_start, window_end, bye)",
    ),
    Case(
        "overrides_semicolons",
        "overrides.csv",
        text(OVR.replace(",", ";") + "swiss;1;Amir;forfeit;;no show\n"),
        "overrides.csv line 1: the columns are separated by ';': save the file as CSV with commas between the columns "
        "(expected columns stage, round, subject, action, value, reason)",
    ),
    # the command line
    Case(
        "now_does_not_parse",
        "pairings.csv",
        lambda t: t,
        "--now: 'yesterday': expected a UTC time such as 2026-10-06T03:00:00Z",
        extra_args=("--now", "yesterday"),
    ),
]


def run_nightly(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", "nightly", "--config", str(folder / "tournament.toml"), *extra],
        capture_output=True,
        text=True,
        timeout=120,
    )


def tournament(tmp_path: Path) -> Path:
    folder = tmp_path / "t"
    shutil.copytree(SKELETON, folder, ignore=shutil.ignore_patterns("out", "make_dataset.py"))
    return folder


def test_the_corpus_covers_every_kind_of_bad_input() -> None:
    """At least 20 cases, over every TD input file and the config."""
    assert len(CASES) >= 20 and len({c.name for c in CASES}) == len(CASES)
    assert {c.file for c in CASES} >= {"teams.csv", "pairings.csv", "tournament.toml", "overrides.csv"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_bad_input_exits_2_with_one_exact_message_and_writes_nothing(tmp_path: Path, case: Case) -> None:
    folder = tournament(tmp_path)
    if case.file == "overrides.csv":
        (folder / "tournament.toml").write_text(WITH_OVERRIDES(TOML), encoding="utf-8")
    case.apply(folder)
    proc = run_nightly(folder, *case.extra_args)
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert errors == [f"error: {case.message}"]
    assert not (folder / "out").exists()  # nothing written: no database, no exports, no Prefect state


@pytest.mark.parametrize("encoding", ["bom", "crlf", "bom+crlf"])
def test_bom_and_crlf_are_read_as_the_clean_file(tmp_path: Path, encoding: str) -> None:
    """What spreadsheet programs write (a UTF-8 BOM, CRLF line ends) is not a mistake."""
    from pipeline.inputs.config import load_config
    from pipeline.stages import context

    clean = context.read_inputs(load_config(SKELETON / "tournament.toml"))
    folder = tournament(tmp_path)
    for name in ("teams.csv", "pairings.csv"):
        content = (SKELETON / name).read_text(encoding="utf-8")
        if "crlf" in encoding:
            content = content.replace("\n", "\r\n")
        (folder / name).write_bytes(("\ufeff" if "bom" in encoding else "").encode() + content.encode("utf-8"))
    got = context.read_inputs(load_config(folder / "tournament.toml"))
    assert got.roster == clean.roster
    assert [(p.stage, p.round, p.a, p.b, p.window_start, p.window_end) for p in got.pairings] == [
        (p.stage, p.round, p.a, p.b, p.window_start, p.window_end) for p in clean.pairings
    ]
