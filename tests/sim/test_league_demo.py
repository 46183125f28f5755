"""The league demo (``antichess-td demo --league``, pipeline/sim/season/league_demo.py; docs/demo.md,
The league demo): the TEAM season, a pairs event and a board-1 event derived from its games, and
league.toml listing the three.

The derived files are checked against independent sources: the season's own files (teams.csv,
pairings.csv, overrides.csv, its tournament.toml) and the games of the Lichess dataset
(lichess/games.ndjson), read here with the standard library. Built on a copy of the suite's small
demo (built once per run); the whole nightly of each derived event is scenario-tier.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from pipeline.inputs.config import load_config
from pipeline.inputs.league import load_league
from pipeline.sim.season.league_demo import write_league

ROOT = Path(__file__).resolve().parents[2]
RULED = {"forfeit", "zero_draw", "replace"}  # the season's rulings on a board its registered players did not play


@pytest.fixture(scope="module")
def league(small_demo_source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = shutil.copytree(small_demo_source, tmp_path_factory.mktemp("league") / "demo")
    write_league(out)
    return out


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
MS = dt.timedelta(milliseconds=1)


def _meetings(out: Path) -> dict[tuple[str, str], list[int]]:
    """(player id, player id) → the createdAt (ms) of their games in the dataset, both orders."""
    met: dict[tuple[str, str], list[int]] = {}
    with (out / "lichess" / "games.ndjson").open(encoding="utf-8") as f:
        for line in f:
            g = json.loads(line)
            w, b = (g["players"][c]["user"]["id"] for c in ("white", "black"))
            met.setdefault((w, b), []).append(g["createdAt"])
            met.setdefault((b, w), []).append(g["createdAt"])
    return met


def _window_ms(out: Path, rnd: int) -> tuple[int, int]:
    """Swiss round `rnd`'s window of the season (TEAM-FMT-3: first_round_start, round_days a round), ms."""
    stage = next(s for s in load_config(out / "tournament.toml").stages if s.name == "swiss")
    assert stage.first_round_start is not None
    start = stage.first_round_start + dt.timedelta(days=stage.round_days * (rnd - 1))
    return (start - EPOCH) // MS, (start + dt.timedelta(days=stage.round_days) - EPOCH) // MS


def _unmet_boards(out: Path, pairings: Path, boards: dict[str, list[str]]) -> set[tuple[int, str, str]]:
    """(round, a, b) of each board pair of `pairings` (`boards`: entrant → its players by board)
    with no game between them in the round's window."""
    met = _meetings(out)
    unmet = set()
    for p in _rows(pairings):
        rnd = int(p["round"])
        lo, hi = _window_ms(out, rnd)
        for a, b in zip(boards[p["a"]], boards[p["b"]], strict=True):
            if not any(lo <= t < hi for t in met.get((a.lower(), b.lower()), [])):
                unmet.add((rnd, a, b))
    return unmet


def _ruled(out: Path) -> dict[int, set[str]]:
    """Per Swiss round, the players the season's rulings name for a board they did not play."""
    ruled: dict[int, set[str]] = {}
    for o in _rows(out / "overrides.csv"):
        if o["stage"] == "swiss" and o["action"] in RULED:
            ruled.setdefault(int(o["round"]), set()).add(o["subject"])
    return ruled


def test_league_toml_lists_the_three_tournaments_and_loads(league: Path) -> None:
    """league.toml (pipeline/inputs/league.py): id demo-league, store league.duckdb beside it,
    the season, the pairs event and the board-1 event; load_league loads it and every config."""
    loaded = load_league(league / "league.toml")
    assert loaded.league_id == "demo-league"
    assert loaded.store == (league / "league.duckdb").resolve()
    assert loaded.configs == tuple(
        (league / p).resolve() for p in ("tournament.toml", "pairs/tournament.toml", "board1/tournament.toml")
    )
    ids = [load_config(c).tournament_id for c in loaded.configs]
    assert ids == ["demo-team-swiss-2026", "demo-team-pairs-2026", "demo-board1-2026"]
    for c in loaded.configs[1:]:
        config = load_config(c)
        assert config.lichess.replay_data is not None
        assert config.lichess.replay_data.resolve() == (league / "lichess").resolve()
        assert config.paths.database.resolve().is_relative_to(c.parent / "out")
        assert config.paths.exports.resolve().is_relative_to(c.parent / "out")


def test_pairs_teams_are_the_season_teams_split_in_two(league: Path) -> None:
    """pairs/teams.csv: each season team's boards 1-2 as "<team> A", boards 3-4 renumbered 1-2 as
    "<team> B", titles kept, board 1 the captain; pairings: every Swiss pairing of the season
    twice (A vs A, B vs B); overrides.csv only its header."""
    season = _rows(league / "teams.csv")
    want = []
    for team in dict.fromkeys(r["team"] for r in season):
        by_board = {int(r["board"]): r for r in season if r["team"] == team}
        for half, first in (("A", 1), ("B", 3)):
            for board in (1, 2):
                r = by_board[first + board - 1]
                want.append((f"{team} {half}", r["player"], str(board), r["title"], "yes" if board == 1 else ""))
    got = [
        (r["team"], r["player"], r["board"], r["title"], r["captain"]) for r in _rows(league / "pairs" / "teams.csv")
    ]
    assert got == want
    swiss = [r for r in _rows(league / "pairings.csv") if r["stage"] == "swiss"]
    assert [(r["round"], r["a"], r["b"]) for r in _rows(league / "pairs" / "pairings.csv")] == [
        (r["round"], f"{r['a']} {h}", f"{r['b']} {h}") for r in swiss for h in "AB"
    ]
    assert (league / "pairs" / "overrides.csv").read_text(encoding="utf-8") == (
        "stage,round,subject,action,value,reason\n"
    )


def test_every_derived_board_pair_met_in_its_window_unless_the_season_ruled_on_it(league: Path) -> None:
    """The derived events' match games are the season's: every board pair of a pairs or board-1
    pairing played a game in that round's window (games.ndjson), except exactly the boards the
    season's rulings cover (a forfeit, a 0-0 draw, a replacement: its registered players did not
    meet), which the derived events, without rulings, show unplayed. Board 1 has no ruling in
    the demo: every board-1 pairing met."""
    pairs = {}
    for r in _rows(league / "pairs" / "teams.csv"):
        pairs.setdefault(r["team"], []).append(r["player"])
    unmet = _unmet_boards(league, league / "pairs" / "pairings.csv", pairs)
    ruled = _ruled(league)
    want = set()
    for p in _rows(league / "pairs" / "pairings.csv"):
        for a, b in zip(pairs[p["a"]], pairs[p["b"]], strict=True):
            if {a, b} & ruled.get(int(p["round"]), set()):
                want.add((int(p["round"]), a, b))
    assert want, "the demo plants forfeits, a 0-0 draw and a replacement in its Swiss rounds"
    assert unmet == want
    players = {r["player"]: [r["player"]] for r in _rows(league / "board1" / "players.csv")}
    assert _unmet_boards(league, league / "board1" / "pairings.csv", players) == set()


def test_board1_is_the_season_board1_players_with_its_format(league: Path) -> None:
    """board1: the season's board-1 players, each Swiss pairing of their teams as theirs, an
    individual event with the season's Swiss stage: rounds, windows, parts, match points,
    tiebreaks."""
    first = {r["team"]: r["player"] for r in _rows(league / "teams.csv") if r["board"] == "1"}
    assert [r["player"] for r in _rows(league / "board1" / "players.csv")] == list(first.values())
    swiss = [r for r in _rows(league / "pairings.csv") if r["stage"] == "swiss"]
    assert [(r["round"], r["a"], r["b"]) for r in _rows(league / "board1" / "pairings.csv")] == [
        (r["round"], first[r["a"]], first[r["b"]]) for r in swiss
    ]
    season, board1 = load_config(league / "tournament.toml"), load_config(league / "board1" / "tournament.toml")
    assert (board1.kind, board1.boards) == ("individual", 1)
    s, b = season.stages[0], board1.stages[0]
    assert (b.name, b.kind) == (s.name, s.kind) == ("swiss", "swiss")
    same = ("rounds", "first_round_start", "round_days", "parts", "primary", "match_points", "tiebreaks")
    assert [getattr(b, k) for k in same] == [getattr(s, k) for k in same]
    pairs = load_config(league / "pairs" / "tournament.toml")
    assert (pairs.kind, pairs.boards) == ("team", 2)
    assert [getattr(pairs.stages[0], k) for k in same] == [getattr(s, k) for k in same]


def test_check_passes_on_each_tournament(league: Path) -> None:
    """`antichess-td check --config` on each of the three: exit 0 and its one OK line, counted by
    hand from the season (12 teams of 4 + two 5th members; 7 Swiss rounds of 6 pairings)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LICHESS_TOKEN": "lip_x"}
    want = {
        "tournament.toml": "ok: 12 teams, 50 players, 46 pairings, 6 rulings",
        "pairs/tournament.toml": "ok: 24 teams, 48 players, 84 pairings, 0 rulings",
        "board1/tournament.toml": "ok: 12 players, 42 pairings, 0 rulings",
    }
    for config, line in want.items():
        proc = subprocess.run(
            [sys.executable, "-m", "pipeline", "check", "--config", str(league / config)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert (proc.returncode, proc.stdout.strip()) == (0, line), proc.stderr


@pytest.mark.scenario
@pytest.mark.parametrize("event", ["pairs", "board1"])
def test_nightly_runs_each_derived_event_offline(league: Path, tmp_path: Path, event: str) -> None:
    """`antichess-td nightly --config <event>/tournament.toml` runs offline on the season's dataset
    (replay_data = "../lichess") and publishes its snapshot under <event>/out: every Swiss round
    scored, and every pairing the season's games fill has counted games."""
    out = shutil.copytree(league, tmp_path / "demo")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")} | {"PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline", "nightly", "--config", str(out / event / "tournament.toml")],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    db = load_config(out / event / "tournament.toml").paths.database
    with duckdb.connect(str(db), read_only=True) as con:
        rounds = con.execute("SELECT count(DISTINCT round) FROM team_matches WHERE stage = 'swiss'").fetchone()
        counted = con.execute("SELECT count(*) FROM match_games WHERE counted").fetchone()
    assert rounds == (7,)
    assert counted is not None and counted[0] > 0


@pytest.mark.scenario
def test_demo_league_writes_the_league_beside_the_unchanged_demo(
    small_demo_source: Path, league: Path, tmp_path: Path
) -> None:
    """`antichess-td demo --league` with the small demo's options: every file of the demo without
    --league (build_season's, the suite's small demo) byte for byte, plus league.toml, pairs/ and
    board1/ exactly as write_league derives them from that demo, and nothing else."""
    out = tmp_path / "demo"
    options = ["--seed", "11", "--teams", "12", "--history-games", "30-60", "--acwc-players", "16"]  # SMALL_DEMO's
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline", "demo", "--out", str(out), *options, "--league"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "league: " in proc.stdout

    def files(folder: Path) -> dict[str, bytes]:
        return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}

    written, demo, derived = files(out), files(small_demo_source), files(league)
    extra = {k for k in derived if k == "league.toml" or k.startswith(("pairs/", "board1/"))}
    assert {k: v for k, v in written.items() if k not in extra} == demo
    assert {k: written.get(k) for k in extra} == {k: derived[k] for k in extra}
