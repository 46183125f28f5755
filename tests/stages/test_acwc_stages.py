"""The ACWC's stages after the qualification: who advances (ACWC-Q-3), the candidates pools and
their round robins (ACWC-C-1), the semifinals (ACWC-SF-1), the final and third place (ACWC-F-1).

The pipeline proposes each next stage's pairings in next_pairings.csv once the stage before is
decided. Scored tables are written straight into a real DuckDB file here (the scoring itself is
tested elsewhere), so every expected pairing follows from the rule's places by hand.
"""

from __future__ import annotations

import csv
import itertools
from pathlib import Path

import pytest

from pipeline.domain import bracket
from pipeline.domain.scoring import TeamMatch
from pipeline.domain.standings import Standing
from pipeline.errors import InputError
from pipeline.inputs.config import load_config
from pipeline.stages import context, export
from pipeline.store import gateway

PLAYERS = [f"p{i:02d}" for i in range(1, 13)]


# --------------------------------------------------------------------------- round robins


@pytest.mark.parametrize("n, rounds", [(6, 5), (6, 10), (5, 5), (4, 3)])
def test_round_robin_pairs_every_two_players_once_a_cycle(n: int, rounds: int) -> None:
    """ACWC-C-1: each pool a round robin (the 2022+ books: double). Every pair meets once per
    cycle of n-1 rounds (n for an odd pool, one sitting out each round); nobody plays twice a round."""
    players = [f"x{i}" for i in range(n)]
    table = bracket.round_robin(players, rounds)
    assert len(table) == rounds
    for pairs in table:
        seated = [p for pair in pairs for p in pair]
        assert len(seated) == len(set(seated)) == n - n % 2
    met = [frozenset(p) for pairs in table for p in pairs]
    cycles = rounds // (n - 1 + n % 2)
    assert sorted(map(sorted, set(met))) == sorted(map(sorted, map(frozenset, itertools.combinations(players, 2))))
    assert all(met.count(pair) == cycles for pair in set(met))


def test_round_robin_refuses_a_round_count_that_is_no_cycle() -> None:
    with pytest.raises(bracket.BracketError) as exc:
        bracket.round_robin(PLAYERS[:6], 4)
    assert str(exc.value) == "6 players play a round robin in 5 rounds (double: 10), not 4"


def test_acwc_q_3_more_qualify_when_a_previous_finalist_is_absent() -> None:
    """ACWC-Q-3: top 10 with both finalists in the candidates; 11 with one; 12 with neither."""
    assert [bracket.acwc_qualifiers(10, k) for k in (2, 1, 0)] == [10, 11, 12]


# --------------------------------------------------------------------------- next_pairings.csv, stage by stage


def event(tmp_path: Path, finalists: str = "") -> Path:
    """An ACWC 2021 event (preset) with a one-round qualification of p01..p12 (+ the finalists)."""
    (tmp_path / "tournament.toml").write_text(
        'preset = "acwc-2021"\n[tournament]\nid = "acwc-test"\n'
        + finalists
        + '[paths]\nplayers = "players.csv"\npairings = "pairings.csv"\ndatabase = "out/acwc.duckdb"\nexports = "out/ex"\n'
        '[stages.qualification]\nrounds = 1\nfirst_round_start = "2021-09-07T00:00:00Z"\n',
        encoding="utf-8",
    )
    (tmp_path / "players.csv").write_text(
        "player\n" + "".join(f"{p}\n" for p in [*PLAYERS, "Champ", "Second"]), encoding="utf-8"
    )
    (tmp_path / "pairings.csv").write_text("stage,round,a,b\n", encoding="utf-8")
    return tmp_path / "tournament.toml"


def tm(stage: str, rnd: int, a: str, b: str, winner: str | None) -> TeamMatch:
    outcome = "a" if winner == a else "b" if winner == b else "pending"
    return TeamMatch(
        stage, rnd, a, b, 6 if winner == a else 4, 4 if winner == a else 6, 10, 5.5, 10, 10, None, outcome, winner
    )  # type: ignore[arg-type]


def write(cfg_path: Path, stage: str, matches: list[TeamMatch], table: list[Standing]) -> None:
    cfg = load_config(cfg_path)
    con = gateway.connect(cfg.paths.database)
    try:
        gateway.replace_where(con, "scored_team_matches", {"stage": stage}, matches)
        gateway.replace_where(con, "scored_standings", {"stage": stage}, table)
        rows = [
            {
                "stage": m.stage,
                "round": m.round,
                "entrant_a": m.team_a,
                "entrant_b": m.team_b,
                "window_start": "2021-09-07T00:00:00Z",
                "window_end": "2021-09-14T00:00:00Z",
            }
            for m in matches
        ]
        con.execute("DELETE FROM td_pairings WHERE stage = ?", [stage])
        if rows:
            gateway.upsert(con, "td_pairings", rows)
    finally:
        con.close()


def qualification_done(cfg_path: Path) -> None:
    """Round 1: p01 beats p02, p03 beats p04, ...; the table ranks p01..p12 in that order."""
    matches = [tm("qualification", 1, PLAYERS[i], PLAYERS[i + 1], PLAYERS[i]) for i in range(0, 12, 2)]
    table = [Standing("qualification", 1, rank, p, 1, 0, 0, 0, 0, 0) for rank, p in enumerate(PLAYERS, 1)]
    write(cfg_path, "qualification", matches, table)


def next_pairings(cfg_path: Path) -> list[tuple[str, int, str, str]]:
    cfg = load_config(cfg_path)
    export.export_stage(cfg)
    path = cfg.paths.exports / "next_pairings.csv"
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as f:
        return [(r["stage"], int(r["round"]), r["a"], r["b"]) for r in csv.DictReader(f)]


def pools_of(rows: list[tuple[str, int, str, str]]) -> list[set[str]]:
    """The groups of players the candidates pairings make play each other."""
    groups: list[set[str]] = []
    for _, _, a, b in rows:
        hit = [g for g in groups if a in g or b in g]
        merged = set().union({a, b}, *hit)
        groups = [g for g in groups if g not in hit] + [merged]
    return groups


def places(*ps: int) -> set[str]:
    return {PLAYERS[p - 1] for p in ps}


@pytest.mark.parametrize(
    "finalists, upper, lower",
    [
        # ACWC-C-1 case 1, both previous finalists play: 10 qualify; upper 2, 4, 5, 8, 9 + the champion,
        # lower 1, 3, 6, 7, 10 + the runner-up
        (
            'champion = "Champ"\nrunner_up = "Second"\n',
            places(2, 4, 5, 8, 9) | {"champ"},
            places(1, 3, 6, 7, 10) | {"second"},
        ),
        # case 2, one plays: 11 qualify; upper 3, 5, 6, 9, 10 + that finalist, lower 1, 2, 4, 7, 8, 11
        ('champion = "Champ"\n', places(3, 5, 6, 9, 10) | {"champ"}, places(1, 2, 4, 7, 8, 11)),
        # case 3, neither: 12 qualify; upper 1, 4, 6, 7, 9, 12, lower 2, 3, 5, 8, 10, 11
        ("", places(1, 4, 6, 7, 9, 12), places(2, 3, 5, 8, 10, 11)),
    ],
)
def test_acwc_q_3_and_c_1_candidates_pairings_follow_the_qualification(
    tmp_path: Path, finalists: str, upper: set[str], lower: set[str]
) -> None:
    cfg_path = event(tmp_path, finalists)
    qualification_done(cfg_path)
    rows = next_pairings(cfg_path)
    assert {r[0] for r in rows} == {"candidates"} and {r[1] for r in rows} == {1, 2, 3, 4, 5}
    assert sorted(map(sorted, pools_of(rows))) == sorted([sorted(upper), sorted(lower)])
    assert len(rows) == 2 * 15  # two pools of 6: 15 pairings each, every pair once in 5 rounds
    assert len({frozenset(r[2:]) for r in rows}) == 30


def test_no_candidates_pairings_while_the_qualification_is_undecided(tmp_path: Path) -> None:
    cfg_path = event(tmp_path)
    matches = [
        tm("qualification", 1, PLAYERS[i], PLAYERS[i + 1], None if i == 0 else PLAYERS[i]) for i in range(0, 12, 2)
    ]
    write(cfg_path, "qualification", matches, [])
    assert next_pairings(cfg_path) == []


def test_a_finalist_not_in_players_csv_is_an_input_error(tmp_path: Path) -> None:
    cfg_path = event(tmp_path, 'champion = "Nobody"\n')
    with pytest.raises(InputError) as exc:
        context.read_inputs(load_config(cfg_path))
    assert str(exc.value) == "tournament.toml key 'tournament.champion': 'Nobody': expected a player of players.csv"


def test_acwc_sf_1_then_f_1_pairings_follow_the_pools_and_the_semifinals(tmp_path: Path) -> None:
    """Candidates done (pool 1 ranked u1..u6, pool 2 l1..l6) → semifinals u1 v l2 and l1 v u2
    (ACWC-SF-1); semifinals won by u1 and u2 → final u1 v u2, third place l2 v l1 (ACWC-F-1)."""
    cfg_path = event(tmp_path)
    qualification_done(cfg_path)
    pool1, pool2 = [f"p{i:02d}" for i in (1, 4, 6, 7, 9, 12)], [f"p{i:02d}" for i in (2, 3, 5, 8, 10, 11)]
    matches, table = [], []
    for pool_no, pool in ((1, pool1), (2, pool2)):
        for rnd, pairs in enumerate(bracket.round_robin(pool, 5), 1):
            matches += [tm("candidates", rnd, a, b, min(a, b, key=pool.index)) for a, b in pairs]
        table += [
            Standing("candidates", 5, rank, p, 5, 5 - rank, 0, 0, 0, 0, pool=pool_no) for rank, p in enumerate(pool, 1)
        ]
    write(cfg_path, "candidates", matches, table)
    assert next_pairings(cfg_path) == [("semifinals", 1, "p01", "p03"), ("semifinals", 1, "p02", "p04")]
    write(
        cfg_path, "semifinals", [tm("semifinals", 1, "p01", "p03", "p01"), tm("semifinals", 1, "p02", "p04", "p04")], []
    )
    assert next_pairings(cfg_path) == [("final", 1, "p01", "p04"), ("final", 1, "p03", "p02")]
