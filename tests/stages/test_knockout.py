"""TEAM-KO-1: a knockout match tied on points is decided by the captains.

An advantage point goes to the winner of the captains' board match if the captains played each
other on one board; then the captains play 4 games of 3+0 (the point counts as 1-0 before them);
still level (2-2, or 2.5-2.5 with the point) → an armageddon, entered by the TD (ARM-1).
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from pipeline.domain.linking import MatchGame
from pipeline.domain.scoring import BoardResult, knockout_tiebreak
from pipeline.model import Pairing

T = dt.datetime(2026, 10, 20, tzinfo=dt.UTC)
P = Pairing("knockout", 1, "Alpha", "Beta", T, T + dt.timedelta(days=7), 2)
CAPTAINS = {"Alpha": "ca", "Beta": "cb"}


def board(n: int, pa: str, pb: str, a: float, b: float) -> BoardResult:
    return BoardResult("knockout", 1, n, "Alpha", "Beta", pa, pb, "total", 22, 22, a, b)


def captains_games(*results: str) -> list[MatchGame]:
    pts = {"a": (1.0, 0.0), "b": (0.0, 1.0), "d": (0.5, 0.5)}
    return [
        MatchGame(
            "knockout",
            1,
            0,
            "Alpha",
            "Beta",
            "ca",
            "cb",
            f"cap{i}",
            T + dt.timedelta(days=5, minutes=5 * i),
            T + dt.timedelta(days=5, minutes=5 * i + 4),
            "3+0",
            "3+0",
            False,
            "captains_tiebreak",
            *pts[r],
        )
        for i, r in enumerate(results)
    ]


# Two boards, 192 - 192 in all (a tie on points): board 1 is the captains' board.
CAPTAINS_WON = [board(1, "ca", "cb", 100, 92), board(2, "x", "y", 92, 100)]
CAPTAINS_TIED = [board(1, "ca", "cb", 96, 96), board(2, "x", "y", 96, 96)]
APART = [board(1, "ca", "y", 100, 92), board(2, "x", "cb", 92, 100)]


@pytest.mark.parametrize(
    ("results", "games", "outcome", "end"),
    [
        # point to Alpha (100-92 on the captains' board), games 2-2 → 3-2: Alpha
        (CAPTAINS_WON, "abab", "a", "3-2 → Alpha"),
        # no point (board tied), games 2.5-1.5 → Alpha
        (CAPTAINS_TIED, "adab", "a", "2.5-1.5 → Alpha"),
        # point to Alpha, games 1.5-2.5 → 2.5-2.5: still level → armageddon
        (CAPTAINS_WON, "bdab", "draw", "still level 2.5-2.5 → armageddon (ARM-1, a TD ruling)"),
        # the captains played on different boards: no point; 2-2 → armageddon
        (APART, "abba", "draw", "still level 2-2 → armageddon (ARM-1, a TD ruling)"),
    ],
)
def test_team_ko_1_captains_decide_a_tie(results, games, outcome, end) -> None:
    got, text = knockout_tiebreak(P, captains_games(*games), results, CAPTAINS)
    assert got == outcome
    assert text.endswith(end), text


def test_team_ko_1_waits_for_all_four_games() -> None:
    got, text = knockout_tiebreak(P, captains_games("a", "a"), CAPTAINS_TIED, CAPTAINS)
    assert got == "draw" and text.endswith("captains' 3+0 games 2-0 (2 of 4): waiting for the captains' games")


def test_team_ko_1_advantage_point_wording() -> None:
    _, text = knockout_tiebreak(P, captains_games("a", "b", "a", "b"), CAPTAINS_WON, CAPTAINS)
    assert text.startswith("TEAM-KO-1: advantage point to Alpha (captains' board 1); captains' 3+0 games 2-2 (4 of 4)")


def test_acwc_sf_1_and_f_1_ties_wait_for_the_td(tmp_path) -> None:
    """ACWC-SF-1 / ACWC-F-1: an individual knockout match tied 5-5 (or 6-6) is settled by an
    armageddon or a replay week, both entered by the TD; until then it stays a draw with a note,
    and the TD's armageddon ruling decides it (ARM-1)."""
    from pipeline.domain.scoring import score_matches
    from pipeline.inputs.config import load_config
    from pipeline.model import Override

    cfg = tmp_path / "tournament.toml"
    cfg.write_text(
        'preset = "acwc-2021"\n[tournament]\nid = "t"\n[paths]\nplayers = "p.csv"\npairings = "p.csv"\n'
        'database = "d.duckdb"\nexports = "e"\n',
        encoding="utf-8",
    )
    stage = load_config(cfg).stage("semifinals")
    p = Pairing("semifinals", 1, "x", "y", T, T + dt.timedelta(days=7), 2)
    results = [BoardResult("semifinals", 1, 1, "x", "y", "x", "y", "total", 10, 10, 5.0, 5.0)]
    [m] = score_matches(stage, [], results, (p,), 1, T + dt.timedelta(days=8))
    assert (m.outcome, m.winner, m.tiebreak) == (
        "draw",
        None,
        "tied: armageddon (ACWC-SF-1) or a replay (ACWC-F-1), entered by the TD",
    )
    ruling = Override("semifinals", 1, "x", "armageddon", "y", "y won the armageddon", 2)
    [m] = score_matches(stage, [], results, (p,), 1, T + dt.timedelta(days=8), (ruling,))
    assert (m.outcome, m.winner) == ("b", "y")


# --------------------------------------------------------------------------- the knockout's size and its proposals

TEN = [f"T{i:02d}" for i in range(1, 11)]


FULL_HEADER = "stage,round,a,b,window_start,window_end,bye"


def ten_team_world(tmp_path, knockout: str = "", header: str = FULL_HEADER, extra: str = ""):  # type: ignore[no-untyped-def]
    """A 10-team TEAM event (team-swiss preset, 2 boards): its 7 Swiss rounds paired in
    pairings.csv (the first 7 rounds of a round robin; `header` its columns) and scored straight
    into a real DuckDB file, T01..T10 ranked in that order. `knockout`: lines for [stages.knockout];
    `extra`: more config."""
    from pipeline.domain import bracket
    from pipeline.domain.scoring import TeamMatch
    from pipeline.domain.standings import Standing
    from pipeline.inputs.config import load_config
    from pipeline.stages import context
    from pipeline.store import gateway

    (tmp_path / "teams.csv").write_text(
        "team,player,board,title,captain\n" + "".join(f"{t},{t}a,1,,yes\n{t},{t}b,2,,\n" for t in TEN), encoding="utf-8"
    )
    rounds = bracket.round_robin(TEN, 9)[:7]
    empty = "," * (header.count(",") - 3)
    (tmp_path / "pairings.csv").write_text(
        header + "\n" + "".join(f"swiss,{r},{a},{b}{empty}\n" for r, pairs in enumerate(rounds, 1) for a, b in pairs),
        encoding="utf-8",
    )
    (tmp_path / "tournament.toml").write_text(
        'preset = "team-swiss"\n[tournament]\nid = "ten"\nboards = 2\n'
        '[paths]\nteams = "teams.csv"\npairings = "pairings.csv"\ndatabase = "out/ten.duckdb"\nexports = "out/ex"\n'
        '[stages.swiss]\nfirst_round_start = "2026-09-01T00:00:00Z"\n'
        + (f"[stages.knockout]\n{knockout}" if knockout else "")
        + extra,
        encoding="utf-8",
    )
    cfg = load_config(tmp_path / "tournament.toml")
    matches = [
        TeamMatch("swiss", r, a, b, 200, 88, 288, 145, 4, 4, None, "a" if a < b else "b", min(a, b))  # type: ignore[arg-type]
        for r, pairs in enumerate(rounds, 1)
        for a, b in pairs
    ]
    table = [Standing("swiss", 7, i, t, 7, 14 - i, 0, 0, 0, 0) for i, t in enumerate(TEN, 1)]
    con = gateway.connect(cfg.paths.database)
    try:
        context.write_td_inputs(con, context.read_inputs(cfg))
        gateway.replace_where(con, "scored_team_matches", {}, matches)
        gateway.replace_where(con, "scored_standings", {}, table)
    finally:
        con.close()
    return cfg


def proposal(cfg):  # type: ignore[no-untyped-def]
    """next_pairings.csv after an export, as bytes (None when it is not written)."""
    from pipeline.stages import export

    export.export_stage(cfg)
    path = cfg.paths.exports / "next_pairings.csv"
    return path.read_bytes() if path.exists() else None


def append_and_read_back(cfg, data: bytes):  # type: ignore[no-untyped-def]
    """Append a proposal's rows (without its header) to pairings.csv and read the file back with
    the project's own loader: the pairings of the proposal's rows, as (stage, round, a, b, start, end)."""
    from pipeline.stages import context
    from pipeline.store import gateway

    lines = data.decode("utf-8").split("\n")
    with cfg.paths.pairings.open("a", encoding="utf-8", newline="") as f:
        f.write("\n".join(lines[1:]))
    inputs = context.read_inputs(cfg)
    con = gateway.connect(cfg.paths.database)
    try:
        context.write_td_inputs(con, inputs)
    finally:
        con.close()
    keep = {(s, int(r)) for s, r, *_ in (ln.split(",") for ln in lines[1:] if ln)}
    return [
        (p.stage, p.round, p.a, p.b, p.window_start, p.window_end)
        for p in inputs.pairings
        if (p.stage, p.round) in keep
    ]


def test_team_fmt_1_ten_teams_knockout_is_the_semifinals_then_the_final(tmp_path) -> None:
    """TEAM-FMT-1 with the preset's knockout (no rounds set): 10 teams → 4 qualify → the knockout
    stage is one round, the semifinals 1 v 4 and 2 v 3, then the final stage's final (their
    winners) and bronze match (their losers). Each proposal has exactly pairings.csv's columns,
    LF line ends and its round's window (TEAM-FMT-3: the week after the latest window paired),
    and appended to pairings.csv it reads back as the same pairings."""

    from pipeline.domain.scoring import TeamMatch
    from pipeline.stages import context
    from pipeline.store import gateway

    cfg = ten_team_world(tmp_path)
    assert cfg.stage("knockout").rounds_given is False
    assert context.bracket_size(cfg, 10) == (1, None)
    assert context.sized(cfg, 10).stage("knockout").rounds == 1
    data = proposal(cfg)
    assert data is not None and b"\r" not in data
    # Swiss round 7: 2026-10-13 to 2026-10-20 (from first_round_start, weekly); the knockout the week after
    assert data.decode() == (
        "stage,round,a,b,window_start,window_end,bye\n"
        "knockout,1,T01,T04,2026-10-20T00:00:00Z,2026-10-27T00:00:00Z,\n"
        "knockout,1,T02,T03,2026-10-20T00:00:00Z,2026-10-27T00:00:00Z,\n"
    )
    week = (dt.datetime(2026, 10, 20, tzinfo=dt.UTC), dt.datetime(2026, 10, 27, tzinfo=dt.UTC))
    assert append_and_read_back(cfg, data) == [
        ("knockout", 1, "T01", "T04", *week),
        ("knockout", 1, "T02", "T03", *week),
    ]
    con = gateway.connect(cfg.paths.database)
    try:  # the semifinals: T01 and T03 win
        gateway.replace_where(
            con,
            "scored_team_matches",
            {"stage": "knockout"},
            [
                TeamMatch("knockout", 1, "T01", "T04", 200, 184, 384, 193, 4, 4, None, "a", "T01"),
                TeamMatch("knockout", 1, "T02", "T03", 150, 234, 384, 193, 4, 4, None, "b", "T03"),
            ],
        )
    finally:
        con.close()
    data = proposal(cfg)
    assert data is not None
    assert data.decode() == (
        "stage,round,a,b,window_start,window_end,bye\n"
        "final,1,T01,T03,2026-10-27T00:00:00Z,2026-11-03T00:00:00Z,\n"
        "final,1,T04,T02,2026-10-27T00:00:00Z,2026-11-03T00:00:00Z,\n"
    )
    week = (dt.datetime(2026, 10, 27, tzinfo=dt.UTC), dt.datetime(2026, 11, 3, tzinfo=dt.UTC))
    assert append_and_read_back(cfg, data) == [("final", 1, "T01", "T03", *week), ("final", 1, "T04", "T02", *week)]
    assert proposal(cfg) is None  # everything paired


def test_a_proposal_has_the_columns_of_the_tds_pairings_csv(tmp_path) -> None:
    """A pairings.csv of only stage,round,a,b (the demo's) with the knockout's first_round_start
    set: the proposal has those four columns (its window is the stage's default, TEAM-FMT-3),
    so it appends as it is and reads back with that window."""
    cfg = ten_team_world(tmp_path, 'first_round_start = "2026-10-20T00:00:00Z"\n', header="stage,round,a,b")
    data = proposal(cfg)
    assert data == b"stage,round,a,b\nknockout,1,T01,T04\nknockout,1,T02,T03\n"
    week = (dt.datetime(2026, 10, 20, tzinfo=dt.UTC), dt.datetime(2026, 10, 27, tzinfo=dt.UTC))
    assert append_and_read_back(cfg, data) == [
        ("knockout", 1, "T01", "T04", *week),
        ("knockout", 1, "T02", "T03", *week),
    ]


def test_team_fmt_3_an_extended_match_does_not_move_the_proposed_window(tmp_path) -> None:
    """TEAM-FMT-3: the TD extended one match of Swiss round 7 to 2026-10-23; the round still ends
    2026-10-20, so the knockout's proposed week is 2026-10-20 to 2026-10-27."""
    from pipeline.stages import context
    from pipeline.store import gateway

    cfg = ten_team_world(tmp_path)
    lines = cfg.paths.pairings.read_text(encoding="utf-8").splitlines()
    i = next(i for i, ln in enumerate(lines) if ln.startswith("swiss,7,"))
    lines[i] = lines[i].replace(",,,", ",2026-10-13T00:00:00Z,2026-10-23T00:00:00Z,")
    cfg.paths.pairings.write_text("\n".join(lines) + "\n", encoding="utf-8")
    con = gateway.connect(cfg.paths.database)
    try:
        context.write_td_inputs(con, context.read_inputs(cfg))
    finally:
        con.close()
    data = proposal(cfg)
    assert data is not None
    assert data.decode().splitlines()[1] == "knockout,1,T01,T04,2026-10-20T00:00:00Z,2026-10-27T00:00:00Z,"


def test_team_fmt_1_sixteen_to_sixty_three_teams_size_the_bracket() -> None:
    """TEAM-FMT-1: 10-15 teams → 1 knockout round before the final stage, 16-31 → 2, 32-63 → 3."""
    from pipeline.domain.bracket import knockout_rounds

    assert [knockout_rounds(n) for n in (10, 12, 15, 16, 31, 32, 63)] == [1, 1, 1, 2, 2, 3, 3]


def test_team_fmt_1_rounds_that_contradict_the_teams_are_a_run_error(tmp_path) -> None:
    """`rounds = 2` set by the TD with 10 teams (4 qualify: 1 round): no knockout proposal, and an
    error in the run summary (`score` prints it) and in the runs view's errors."""
    import subprocess
    import sys

    import duckdb

    from pipeline.stages import context

    cfg = ten_team_world(tmp_path, "rounds = 2\n")
    expected = (
        "10 teams: 4 qualify (TEAM-FMT-1), so stages.knockout.rounds should be 1, not 2 "
        "(or leave it out of the config: the rounds then follow the teams)"
    )
    assert context.bracket_size(cfg, 10) == (2, expected)
    assert proposal(cfg) is None
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline", "score", "--config", str(cfg.path), "--now", "2026-10-21T00:00:00Z"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"error: {expected}" in proc.stdout.splitlines()
    con = duckdb.connect(str(cfg.paths.database), read_only=True)
    try:
        assert con.sql("SELECT errors FROM runs ORDER BY run_id DESC LIMIT 1").fetchall() == [([expected],)]
    finally:
        con.close()


@pytest.mark.scenario
def test_team_fmt_1_the_demo_twelve_teams_need_no_rounds_in_the_config(suite_demo, tmp_path) -> None:
    """TEAM-FMT-1 on the demo's 12 teams: 4 qualify, so 1 knockout round; its tournament.toml sets
    `rounds = 1` (it agrees), and without the line the rounds follow the teams: the pairings.csv
    with its knockout round 1 validates and the bracket is the same."""
    from pipeline.inputs.config import load_config
    from pipeline.stages import context

    toml = (suite_demo / "tournament.toml").read_text(encoding="utf-8")
    cfg = load_config(suite_demo / "tournament.toml")
    teams = len(context.read_inputs(cfg).roster.entrants)
    assert teams == 12 and cfg.stage("knockout").rounds_given and context.bracket_size(cfg, teams) == (1, None)
    bare = tmp_path / "tournament.toml"  # the demo's config without the line, its paths made absolute
    toml = re.sub(
        r'^(replay_data|teams|pairings|database|exports|overrides) = "(.*)"',
        lambda mt: f'{mt[1]} = "{(suite_demo / mt[2]).as_posix()}"',
        toml,
        flags=re.M,
    )
    bare.write_text(
        "\n".join(ln for ln in toml.splitlines() if not ln.startswith("rounds = ")) + "\n", encoding="utf-8"
    )
    plain = load_config(bare)
    assert not plain.stage("knockout").rounds_given
    assert context.bracket_size(plain, teams) == (1, None)
    assert {p.round for p in context.read_inputs(plain).pairings if p.stage == "knockout"} == {1}
