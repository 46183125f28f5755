"""Replaying a season night by night: `nightly --now T` against the replay
server's world as of T, on one database, night after night, must give each night the standings
a single run at T gives on an empty database — incremental ingest (cursors, casual-game
searches of open windows), verdicts kept across runs and per-stage rewrites add up to the same
thing as starting afresh. The single run writes its exports over the night's: every file comes
out byte for byte the same. Both cases are in the scenario tier (`-m scenario`): two nights
(round 1 under way, then closed) and four; the suite's representative is
tests/lichess/test_ingest_nights.py (every night of a season adds up to one run)."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from pipeline.inputs.config import load_config

# The small demo's Swiss starts Tuesday 2026-09-01; a round's window is a week (TEAM-FMT-3).
NIGHTS = (
    "2026-09-03T03:00:00Z",  # round 1 under way: matches pending
    "2026-09-08T03:00:00Z",  # round 1 closed overnight, round 2 a few hours old
    "2026-09-12T03:00:00Z",  # round 2 under way
    "2026-09-16T03:00:00Z",  # round 2 closed
)
TABLES = {
    "standings": "SELECT stage, after_round, rank, entrant, match_points, points_scored, points_conceded, "
    "points_difference, median_buchholz FROM standings ORDER BY ALL",
    "team_matches": "SELECT stage, round, team_a, team_b, a_points, b_points, outcome, decided_by_game_id FROM team_matches "
    "ORDER BY ALL",
    "counted": "SELECT stage, round, board, game_id, part FROM match_games WHERE counted ORDER BY ALL",
    # what needs the TD: the same items (a resolved finding is listed only in the run after the one
    # that had it, so a single run has none; each item's status, new or open, depends on the runs
    # before it by design)
    "attention": "SELECT key, kind, rule_id, severity, subject, sentence FROM attention "
    "WHERE kind <> 'finding_resolved' ORDER BY ALL",
}
# attention.md names the run, the config's path in its actions and each item's status: compared
# through the attention view above instead
HISTORY_DEPENDENT = {"attention.md"}


@pytest.fixture
def demo(ten_team_demo_source: Path, tmp_path: Path) -> Path:
    """A copy of the 10-team demo (seed 5; conftest has `antichess-td demo` write it once per run)."""
    out = shutil.copytree(ten_team_demo_source, tmp_path / "demo")
    return out / "tournament.toml"


def files(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` by relative path: its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def read(db: Path) -> dict[str, list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {name: con.sql(sql).fetchall() for name, sql in TABLES.items()}
    finally:
        con.close()


@pytest.mark.prefect
@pytest.mark.slow
@pytest.mark.parametrize(
    "nights",
    [
        pytest.param(NIGHTS[:2], id="round-1", marks=pytest.mark.scenario),  # one round closing between two nights
        pytest.param(NIGHTS, id="rounds-1-2", marks=pytest.mark.scenario),
    ],
)
def test_night_by_night_replay_equals_a_single_run_each_night(
    demo: Path, prefect_api_url: str, nights: tuple[str, ...]
) -> None:
    from flows.nightly import nightly

    toml = demo.read_text(encoding="utf-8")
    published, exports = load_config(demo).paths.database, load_config(demo).paths.exports
    decided = []
    for i, night in enumerate(nights):
        result = nightly(config_path=str(demo), now=night)
        assert result["run_id"] == i + 1
        replayed = read(published)
        exported = files(exports)

        fresh = demo.with_name(f"fresh-{i}.toml")
        fresh.write_text(
            toml.replace('database = "out/team.duckdb"', f'database = "fresh-{i}/team.duckdb"'), encoding="utf-8"
        )
        nightly(config_path=str(fresh), now=night)
        single = read(load_config(fresh).paths.database)
        rewritten = files(exports)
        assert {n: b for n, b in rewritten.items() if n not in HISTORY_DEPENDENT} == {
            n: b for n, b in exported.items() if n not in HISTORY_DEPENDENT
        }, night
        assert any(n.startswith("charts/") for n in exported), night  # the cap charts, compared above byte for byte

        for name in TABLES:
            assert replayed[name] == single[name], (night, name)
        decided.append(
            [(stage, rnd) for stage, rnd, *_, outcome, _ in replayed["team_matches"] if outcome != "pending"]
        )
    # the nights cover a season in motion: round 1 under way, ..., the last night's rounds decided (5 matches each)
    assert [len(d) for d in decided] == sorted(len(d) for d in decided) and len(decided[0]) < len(decided[-1])
    closed = {"2026-09-08T03:00:00Z": (1,), "2026-09-16T03:00:00Z": (1, 2)}[nights[-1]]
    assert ("swiss", 2) not in decided[0] and len([d for d in decided[-1] if d[1] in closed]) == 5 * len(closed)
    con = duckdb.connect(str(published), read_only=True)
    try:
        as_of = [
            str(t)
            for (t,) in con.sql(
                "SELECT strftime(as_of AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') FROM runs ORDER BY run_id"
            ).fetchall()
        ]
    finally:
        con.close()
    assert as_of == list(nights)
