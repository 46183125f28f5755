"""RD estimates from ratingDiffs (TEAM-CAP-5: a crossing made while the RD is above 80 does not
count) and the rating_estimates table.

Expectations come from Glicko-2 as Lichess runs it, computed by hand here (Glickman's steps 3-8
with lila's live decay and 1.02 antichess gain factor) or from worlds rated by pipeline.domain.glicko,
whose true RDs are known: the estimator never sees them.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

from kits.rd_simulation import GAMES_SCHEMA, simulate
from pipeline.domain import glicko, rd, rd_game
from pipeline.lichess import client
from pipeline.stages import ratings
from pipeline.store import gateway

UTC = dt.UTC
S = 173.7178
AT = dt.datetime(2025, 3, 1, 12, tzinfo=UTC)


def _g(rd_: float) -> float:
    return 1 / math.sqrt(1 + 3 * (rd_ / S) ** 2 / math.pi**2)


def _e(gap: float, rd_opp: float) -> float:
    return 1 / (1 + math.exp(-_g(rd_opp) * gap / S))


def _frame(rows: list[dict[str, object]]) -> pl.DataFrame:
    return pl.DataFrame(
        rows,
        schema=GAMES_SCHEMA,
    )


def _game(
    gid: str,
    at: dt.datetime,
    white: tuple[str, glicko.Rating, glicko.Rating],
    black: tuple[str, glicko.Rating, glicko.Rating],
    winner: str | None,
) -> dict[str, object]:
    """A games row as Lichess writes it: pre-game int ratings, ratingDiff = int(after) - int(before)."""
    (wid, wb, wa), (bid, bb, ba) = white, black
    return {
        "game_id": gid,
        "created_at": at - dt.timedelta(minutes=3),
        "last_move_at": at,
        "white_id": wid,
        "black_id": bid,
        "white_rating": wb.int_rating,
        "black_rating": bb.int_rating,
        "white_rating_diff": wa.int_rating - wb.int_rating,
        "black_rating_diff": ba.int_rating - bb.int_rating,
        "winner": winner,
        "status": "resign" if winner else "draw",
    }


# --------------------------------------------------------------------------- (a) the inversion, by hand


def test_team_cap_5_inversion_recovers_lichess_post_game_rd_exactly() -> None:
    """One game rated by pipeline.domain.glicko; by hand: both RDs decayed (lila liveDeviation), then
    RD' = S / sqrt(S^2 / RD^2 + g^2 E (1 - E)) and change = 1.02 * S * (RD'/S)^2 * g * (1 - E) for the
    winner; inverting the unrounded change gives RD' back to 1e-9."""
    a = glicko.Rating(2140.0, 70.0, 0.06, AT - dt.timedelta(days=20))
    b = glicko.Rating(2205.0, 48.0, 0.07, AT - dt.timedelta(days=2))
    a_after, b_after = glicko.rate_game(a, b, "white", AT)
    rd_a = math.sqrt(70.0**2 + 20 * 0.21436 * 0.06**2 * S**2)
    rd_b = math.sqrt(48.0**2 + 2 * 0.21436 * 0.07**2 * S**2)
    e_a = _e(2140.0 - 2205.0, rd_b)
    rd_a_post = S / math.sqrt(S**2 / rd_a**2 + _g(rd_b) ** 2 * e_a * (1 - e_a))
    e_b = _e(2205.0 - 2140.0, rd_a)
    rd_b_post = S / math.sqrt(S**2 / rd_b**2 + _g(rd_a) ** 2 * e_b * (1 - e_b))
    assert a_after.deviation == pytest.approx(rd_a_post, rel=1e-12)
    assert b_after.deviation == pytest.approx(rd_b_post, rel=1e-12)
    gain = a_after.rating - a.rating
    assert gain == pytest.approx(1.02 * S * (rd_a_post / S) ** 2 * _g(rd_b) * (1 - e_a), rel=1e-12)
    loss = b_after.rating - b.rating  # losses are not regulated
    assert loss == pytest.approx(S * (rd_b_post / S) ** 2 * _g(rd_a) * (0 - e_b), rel=1e-12)
    assert rd.post_game_rd(gain, 1.0, 2140.0 - 2205.0, rd_b) == pytest.approx(a_after.deviation, rel=1e-9)
    assert rd.post_game_rd(loss, 0.0, 2205.0 - 2140.0, rd_a) == pytest.approx(b_after.deviation, rel=1e-9)


def test_team_cap_5_rounded_game_keeps_the_true_rd_inside_a_tight_interval() -> None:
    """The same game as Lichess shows it (integer ratings, truncated ratingDiff): the true RD lies
    in [rd_low, rd_high]; ratingDiff d moves by less than 1 and RD' ~ sqrt(change), so the
    interval is about RD' * (sqrt((d+1)/(d-1)) - 1) wide, and the estimate is within it."""
    a = glicko.Rating(2140.3, 70.0, 0.06, AT - dt.timedelta(days=20))
    b = glicko.Rating(2205.8, 48.0, 0.07, AT - dt.timedelta(days=2))
    a_after, b_after = glicko.rate_game(a, b, "white", AT)
    est = rd.estimate_rd(_frame([_game("g1", AT, ("a", a, a_after), ("b", b, b_after), "white")]))
    assert est["user_id"].to_list() == ["a", "b"]
    for row, after in zip(est.iter_rows(named=True), (a_after, b_after), strict=True):
        d = abs(row["rating_after"] - row["rating_before"])
        assert row["rd_method"] == "estimated"
        assert row["rd_low"] <= after.deviation <= row["rd_high"]
        assert row["rd_high"] - row["rd_low"] <= after.deviation * (math.sqrt((d + 1) / (d - 1)) - 1) * 1.2
        assert abs(row["rd_est"] - after.deviation) <= row["rd_high"] - row["rd_low"]
    assert est["rating_after"].to_list() == [a_after.int_rating, b_after.int_rating]


def test_team_cap_5_first_game_of_a_new_account_reads_rd_500_to_about_one_percent() -> None:
    """A new account plays its first game at 1500 / RD 500 (no decay: never played); the change is
    large, so the post-game RD comes out within 1 % with no prior at all."""
    new = glicko.DEFAULT
    opp = glicko.Rating(1620.0, 45.0, 0.06, AT - dt.timedelta(hours=1))
    n_after, o_after = glicko.rate_game(new, opp, "white", AT)
    est = rd.estimate_rd(
        _frame([_game("g1", AT, ("new", new, n_after), ("opp", opp, o_after), "white")]), players=("new",)
    )
    (row,) = est.iter_rows(named=True)
    assert row["rd_method"] == "estimated"
    assert row["rd_est"] == pytest.approx(n_after.deviation, rel=0.01)
    assert row["rd_low"] <= n_after.deviation <= row["rd_high"]


def test_team_cap_5_draw_between_equals_is_unknown_then_carried_by_the_decay_formula() -> None:
    """s - E = 0 says nothing: a first game drawn between equals is 'unknown' (rd_est NULL,
    interval 45-500 narrowed only by the update); after an estimated game, such a draw 30 days
    later is 'carried': the previous estimate decayed (volatility 0.075, the prior) and updated
    against an outsider at the default RD 60: RD' = 1 / sqrt(1 / (RD^2 + t s^2 S^2) + g(60)^2 / 4 / S^2)."""
    eq = glicko.Rating(2000.0, 60.0, 0.06, AT - dt.timedelta(days=1))
    x = glicko.Rating(2000.0, 60.0, 0.06, AT - dt.timedelta(days=1))
    eq_after, x_after = glicko.rate_game(eq, x, None, AT)
    first = rd.estimate_rd(_frame([_game("d1", AT, ("p", eq, eq_after), ("x", x, x_after), None)]), players=("p",))
    (row,) = first.iter_rows(named=True)
    assert (row["rd_method"], row["rd_est"]) == ("unknown", None)
    assert row["rd_low"] == 45.0 and row["rd_high"] < 500.0 and row["rd_low"] <= eq_after.deviation <= row["rd_high"]

    p = glicko.Rating(1980.0, 80.0, 0.075, AT - dt.timedelta(days=3))
    o1 = glicko.Rating(2100.0, 45.0, 0.06, AT - dt.timedelta(hours=2))
    p1, o1_after = glicko.rate_game(p, o1, "white", AT)
    later = AT + dt.timedelta(days=30)
    p_shown = glicko.Rating(float(p1.int_rating), p1.deviation, p1.volatility, p1.latest)
    o2 = glicko.Rating(float(p1.int_rating), 45.0, 0.06, later - dt.timedelta(hours=1))
    p2, o2_after = glicko.rate_game(p_shown, o2, None, later)
    est = rd.estimate_rd(
        _frame(
            [
                _game("w1", AT, ("p", p, p1), ("o1", o1, o1_after), "white"),
                _game("d2", later, ("o2", o2, o2_after), ("p", p_shown, p2), None),
            ]
        ),
        players=("p",),
    )
    first_row, second = est.iter_rows(named=True)
    assert second["rd_method"] == "carried"
    t = 30 * 0.21436
    pre = math.sqrt(first_row["rd_est"] ** 2 + t * 0.075**2 * S**2)
    expected = 1 / math.sqrt(1 / pre**2 + _g(60.0) ** 2 * 0.25 / S**2)
    assert second["rd_est"] == pytest.approx(expected, rel=1e-9)
    assert second["rd_low"] <= p2.deviation <= second["rd_high"]


def test_estimate_rd_names_missing_columns() -> None:
    with pytest.raises(ValueError) as e:
        rd.estimate_rd(pl.DataFrame({"game_id": ["x"]}))
    assert str(e.value) == (
        "estimate_rd: games lack column(s) created_at, last_move_at, white_id, black_id, "
        "white_rating, black_rating, white_rating_diff, black_rating_diff, winner, status: "
        "expected game_id, created_at, last_move_at, white_id, black_id, white_rating, "
        "black_rating, white_rating_diff, black_rating_diff, winner, status"
    )


# --------------------------------------------------------------------------- (b) error bounds


def _accuracy(est: pl.DataFrame, true: pl.DataFrame) -> dict[str, float]:
    j = est.join(true, on=["game_id", "user_id"], how="inner")
    k = j.filter(pl.col("rd_est").is_not_null()).with_columns(err=(pl.col("rd_est") - pl.col("true_after")).abs())
    wrong = k.filter((pl.col("rd_est") > 80) != (pl.col("true_after") > 80))
    return {
        "joined": j.height,
        "rows": est.height,
        "median": k["err"].median(),
        "p99": k["err"].quantile(0.99),
        "max": k["err"].max(),
        "inside": j.filter(
            (pl.col("true_after") >= pl.col("rd_low") - 1e-9) & (pl.col("true_after") <= pl.col("rd_high") + 1e-9)
        ).height
        / j.height,
        "disagree_share": wrong.height / k.height,
        "disagree_farthest": float((wrong["true_after"] - 80).abs().max() or 0.0),
        "above_80": k.filter(pl.col("true_after") > 80).height,
    }


@pytest.mark.parametrize("volatility", [0.04, 0.06, 0.1])
def test_team_cap_5_error_bounds_on_simulated_worlds(volatility: float) -> None:
    """Worlds rated by pipeline.domain.glicko at volatilities the demo does not use (new and established
    players, breaks of up to 250 days, outsiders not tracked). Measured over 20 seeds per
    volatility (1,200 rows each): median |error| <= 0.26, p99 <= 1.83, max 7.45, the true RD always
    inside [rd_low, rd_high], rd_est > 80 disagreeing with true > 80 in at most 5 rows, each
    within 1.8 of 80. Asserted with margin on seeds 1-3: median < 0.4, p99 < 2.5, max < 10,
    inside >= 99.9 %, disagreements < 1 % and only within 2.5 of 80."""
    for seed in (1, 2, 3):
        games, true, ids = simulate(seed, volatility)
        a = _accuracy(rd.estimate_rd(games, players=ids), true)
        assert a["joined"] == a["rows"] == true.height
        assert a["median"] < 0.4 and a["p99"] < 2.5 and a["max"] < 10, a
        assert a["inside"] >= 0.999, a
        assert a["disagree_share"] < 0.01 and a["disagree_farthest"] < 2.5, a
        assert a["above_80"] > 0  # the threshold is exercised


def _settle_every_round(
    priors: list[Any], sides: list[Any], default: Any, wanted: list[bool]
) -> tuple[list[Any], list[str], list[Any]]:
    """The fixed-point rounds as the module docstring states them, computed in full: in each of
    rd.ROUNDS rounds both sides are combined against the other side's pre-game belief from the
    round before (its prior in the first); a wanted side's last round gives its row."""
    pres = list(priors)
    last: list[Any] = [None, None]
    for _ in range(rd.ROUNDS):
        last = [rd_game._combine(priors[i], sides[i], sides[1 - i].rating, pres[1 - i], default.rd) for i in (0, 1)]
        pres = [last[0][1], last[1][1]]
    return (
        [last[i][0] if wanted[i] else None for i in (0, 1)],
        [last[i][2] if wanted[i] else "unknown" for i in (0, 1)],
        [last[i][3] if wanted[i] else None for i in (0, 1)],
    )


@pytest.mark.parametrize("tracked", ["registered", "everyone"])
def test_the_rounds_computed_for_the_tracked_sides_only_give_the_rows_of_every_round(
    tracked: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TEAM-CAP-5's estimates combine the two sides of a game over rd.ROUNDS rounds. The estimator
    computes only what a tracked side's last round reads (a chain of rounds alternating between
    the sides against an outsider); its rows and final state must be exactly, float for float,
    those of every round of both sides computed in full. Worlds with outsiders (tracked:
    registered players) and a closed world (everyone tracked, both sides of every game)."""
    for seed in (1, 2):
        games, _, ids = simulate(seed, 0.06)
        players = ids if tracked == "registered" else None
        fast = rd.resume_rd(games, [], players=players)
        with monkeypatch.context() as m:
            m.setattr(rd, "_settle", _settle_every_round)
            full = rd.resume_rd(games, [], players=players)
        assert fast[0].height > 100
        assert fast[0].equals(full[0], null_equal=True) and fast[1].equals(full[1], null_equal=True)


# --------------------------------------------------------------------------- the suite's demo: (b) and (c)


@pytest.fixture(scope="module")
def demo(suite_demo: Path) -> dict[str, object]:
    """The suite's demo (seed 2026 as docs/benchmarks.md's default demo, 1000 history games per
    player; conftest builds it once), its rated antichess games typed by lichess.parse_game, the
    TEAM players and the true RDs."""
    out = suite_demo
    rows = []
    with (out / "lichess" / "games.ndjson").open(encoding="utf-8") as f:
        for line in f:
            g = client.parse_game(json.loads(line))
            if g.rated and g.variant == "antichess":
                rows.append(g)
    with (out / "teams.csv").open(encoding="utf-8") as f:
        team = [r["player"].lower() for r in csv.DictReader(f)]
    with (out / "overrides.csv").open(encoding="utf-8") as f:
        team += [r["value"].lower() for r in csv.DictReader(f) if r["action"] == "replace"]
    with (out / "truth" / "deviations.csv").open(encoding="utf-8") as f:
        truth = [(r["game_id"], r["user_id"], float(r["rd_after"])) for r in csv.DictReader(f)]
    return {
        "out": out,
        "rows": rows,
        "team": tuple(dict.fromkeys(team)),
        "truth": pl.DataFrame(truth, schema=["game_id", "user_id", "true_after"], orient="row"),
    }


@pytest.mark.scenario
def test_team_cap_5_error_bounds_on_the_suite_demo(demo: dict[str, object], audited: dict[str, Path]) -> None:
    """The estimates the suite demo's audit wrote (the rating_estimates table of its published TEAM
    database: the registered players' sides of the stored rated games an audit reads, from
    history_since 2024-08-25 on, each player's first stored game without a prior) against the
    simulator's true RDs. Measured: 58,824 rows of 50 players, median |error| 0.05, p99 0.75, max
    4.5, the true RD inside [rd_low, rd_high] in 99.976 %, no disagreement at 80. (Measured before
    on every side of every stored game: 67,526 rows, median 0.04, p99 0.75, max 6.3, inside
    99.991 %, none at 80; and before that on every rated game of games.ndjson, history_since not
    applied: 75,616 rows, median 0.05, p99 0.67, max 5.4, inside 99.985 %, 5 disagreements at 80,
    the farthest 0.51 from 80.) Asserted with margin: > 50,000 rows, each joined to its true RD,
    median < 0.1, p99 < 1.5, max < 10, inside >= 99.9 %, disagreements at 80 at most 0.05 % and
    only within 2 of 80."""
    con = duckdb.connect(str(audited["team"]), read_only=True)
    try:
        est = con.sql("SELECT game_id, user_id, rd_est, rd_low, rd_high FROM rating_estimates").pl()
    finally:
        con.close()
    a = _accuracy(est, demo["truth"])  # type: ignore[arg-type]
    assert a["joined"] == a["rows"] > 50_000, a
    assert set(est["user_id"]) <= set(demo["team"])  # type: ignore[arg-type]
    assert a["median"] < 0.1 and a["p99"] < 1.5 and a["max"] < 10, a
    assert a["inside"] >= 0.999, a
    assert a["disagree_share"] <= 0.0005 and a["disagree_farthest"] < 2, a


@pytest.mark.scenario
def test_the_audit_rates_only_the_games_an_audit_reads_and_finds_what_rating_every_game_finds(
    demo: dict[str, object], audited: dict[str, Path], tmp_path: Path
) -> None:
    """TEAM-CAP-5 reads a last-board player's every game, TEAM-ELIG-7 another player's games
    before their due time (queries/rd_tracked_players): the audit's table holds those rows and no
    other, and rating every registered player's every game instead changes no finding of any
    audit (the suite demo's TEAM event)."""
    db = tmp_path / "team.duckdb"
    shutil.copy(audited["team"], db)
    con = gateway.connect(db)
    try:
        tracked = dict(gateway.query(con, "queries/rd_tracked_players").iter_rows())
        last_board = {r[0] for r in con.sql("SELECT user_id FROM last_board_players").fetchall()}
        assert last_board and {u for u, until in tracked.items() if until is None} == last_board
        rows = con.sql("SELECT user_id, played_at FROM rating_estimates").fetchall()
        assert {u for u, _ in rows} <= set(tracked)
        assert all(tracked[u] is None or at < tracked[u] for u, at in rows)
        # every last-board player's stored game, and every other player's before the due time, has its row
        want = con.execute(
            "SELECT count(*) FROM post_game_ratings g JOIN (SELECT unnest(?::VARCHAR[]) AS user_id, "
            "unnest(?::TIMESTAMPTZ[]) AS until) t USING (user_id) "
            "WHERE t.until IS NULL OR g.played_at < t.until",
            [list(tracked), list(tracked.values())],
        ).fetchall()[0][0]
        assert len(rows) == want > 10_000
        findings = con.sql("SELECT * FROM audit_findings ORDER BY ALL").fetchall()
        ratings.write_rating_estimates(con, demo["team"])  # type: ignore[arg-type]
        assert con.sql("SELECT count(*) FROM rating_estimates").fetchall()[0][0] > len(rows)
        assert con.sql("SELECT * FROM audit_findings ORDER BY ALL").fetchall() == findings
    finally:
        con.close()


def _crossing_days(note: str) -> list[tuple[dt.date, int]]:
    return [(dt.date.fromisoformat(d), int(r)) for d, r in re.findall(r"(\d{4}-\d{2}-\d{2}) \(RD (\d+)\)", note)]


def _cap_cases(out: Path) -> dict[str, tuple[str, str, str]]:
    """subject → (file, rule, note) of every TEAM-CAP row of PLANTED.csv and TRAPS.csv."""
    cases = {}
    for name in ("PLANTED.csv", "TRAPS.csv"):
        with (out / name).open(encoding="utf-8") as f:
            for r in csv.DictReader(f):
                if r["rule_id"].startswith("TEAM-CAP-"):
                    cases[r["subject"]] = (name, r["rule_id"], r["note"])
    return cases


@pytest.mark.scenario
def test_team_cap_5_planted_rd_trap_through_the_rating_estimates_table(demo: dict[str, object], tmp_path: Path) -> None:
    """TRAPS.csv's TEAM-CAP-5 row: a board-4 player crossed the 2200 cap on 2025-01-31 at a true RD
    above 80, its first stored antichess game after ten idle months (the first since history_since,
    so no prior): the estimate at that game must be above 80. PLANTED.csv's TEAM-CAP-3 row: three
    crossings from 2025-02-10 at RD 45-49 must be at most 80. Every other planted cap crossing's
    estimate is on the same side of 80 as its true RD. Read from the rating_estimates table
    write_rating_estimates fills (a real DuckDB file), which a rerun leaves identical."""
    out: Path = demo["out"]  # type: ignore[assignment]
    cases = _cap_cases(out)
    [trap] = [s for s, (f, rule, _) in cases.items() if (f, rule) == ("TRAPS.csv", "TEAM-CAP-5")]
    [three] = [s for s, (f, rule, _) in cases.items() if (f, rule) == ("PLANTED.csv", "TEAM-CAP-3")]
    trap_day, trap_rd = _crossing_days(cases[trap][2])[0]
    assert trap_day == dt.date(2025, 1, 31) and trap_rd > 80
    assert _crossing_days(cases[three][2])[0][0] == dt.date(2025, 2, 10)
    ids = tuple(s.lower() for s in cases)
    con = gateway.connect(tmp_path / "t.duckdb")
    try:
        keep = set(ids)
        gateway.upsert(
            con,
            "lichess_games",
            [
                g.__dict__
                for g in demo["rows"]  # type: ignore[attr-defined]
                if g.white_id in keep or g.black_id in keep
            ],
        )
        n = ratings.write_rating_estimates(con, ids)
        first = con.sql("SELECT * FROM rating_estimates ORDER BY game_id, user_id").pl()
        assert ratings.write_rating_estimates(con, ids) == n == first.height
        assert con.sql("SELECT * FROM rating_estimates ORDER BY game_id, user_id").pl().equals(first)
        sides = con.sql(
            """SELECT count(*) FROM lichess_games g, unnest($1::VARCHAR[]) p(id)
                           WHERE p.id IN (g.white_id, g.black_id) AND g.rated AND g.variant = 'antichess'
                             AND (CASE WHEN p.id = g.white_id THEN g.white_rating_diff ELSE g.black_rating_diff END) IS NOT NULL""",
            params=[list(ids)],
        ).fetchall()[0][0]
        assert n == sides
        checked = {}
        for subject, (_, _, note) in cases.items():
            for day, true_rd in _crossing_days(note):
                ((game_id, rd_est, rating_after),) = con.sql(
                    """SELECT game_id, rd_est, rating_after FROM rating_estimates
                       WHERE user_id = $1 AND played_at >= $2 AND played_at < $3 AND rating_after > 2200
                       ORDER BY played_at LIMIT 1""",
                    params=[
                        subject.lower(),
                        dt.datetime.combine(day, dt.time(), UTC),
                        dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), UTC),
                    ],
                ).fetchall()
                assert rd_est is not None and (rd_est > 80) == (true_rd > 80), (subject, day, true_rd, rd_est)
                checked[(subject, day)] = rd_est
    finally:
        con.close()
    assert checked[(trap, dt.date(2025, 1, 31))] > 80
    assert all(checked[(three, d)] <= 80 for d, _ in _crossing_days(cases[three][2]))


def _cap_games(demo: dict[str, object]) -> tuple[tuple[str, ...], list[Any]]:
    """The demo's cap-case players and every game of theirs, in rating order."""
    ids = tuple(s.lower() for s in _cap_cases(demo["out"]))  # type: ignore[arg-type]
    keep = set(ids)
    rows = sorted(
        (g for g in demo["rows"] if g.white_id in keep or g.black_id in keep),  # type: ignore[attr-defined]
        key=lambda g: (g.last_move_at, g.created_at, g.game_id),
    )
    return ids, rows


def _estimates(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    return con.sql("SELECT * FROM rating_estimates ORDER BY game_id, user_id").pl()


@pytest.mark.scenario
def test_nightly_estimates_resume_and_equal_one_run_over_all_games(
    demo: dict[str, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TEAM-CAP-5's estimates are rated game after game, so a night rates only the games after the
    last one it rated (rating_estimate_cursor) from the saved state (rating_estimate_tracks), and
    the table equals one run over all the games. A game that arrives late and sorts before the
    cursor, a changed list of players or a new ESTIMATOR_VERSION rates everything again — with the
    same result."""
    ids, rows = _cap_games(demo)
    cut = dt.datetime(2026, 6, 1, tzinfo=UTC)
    early, late = [g for g in rows if g.last_move_at < cut], [g for g in rows if g.last_move_at >= cut]
    assert early and late

    fresh = gateway.connect(tmp_path / "fresh.duckdb")
    nightly = gateway.connect(tmp_path / "nightly.duckdb")
    try:
        gateway.upsert(fresh, "lichess_games", [g.__dict__ for g in rows])
        ratings.write_rating_estimates(fresh, ids)
        want = _estimates(fresh)
        gateway.upsert(nightly, "lichess_games", [g.__dict__ for g in early])
        first = ratings.EstimateStats()
        ratings.write_rating_estimates(nightly, ids, stats=first)
        gateway.upsert(nightly, "lichess_games", [g.__dict__ for g in late])
        second = ratings.EstimateStats()
        ratings.write_rating_estimates(nightly, ids, stats=second)
        assert (first.resumed, second.resumed, second.games_rated) == (False, True, len(late))
        assert _estimates(nightly).equals(want)
        third = ratings.EstimateStats()  # nothing new: resumes with nothing to rate, same table
        ratings.write_rating_estimates(nightly, ids, stats=third)
        assert (third.resumed, third.games_rated) == (True, 0) and _estimates(nightly).equals(want)
        # a game deleted before the cursor (as if it had not arrived yet) and back: the prefix differs
        gone = early[len(early) // 2]
        nightly.execute("DELETE FROM lichess_games WHERE game_id = ?", [gone.game_id])
        ratings.write_rating_estimates(nightly, ids)
        gateway.upsert(nightly, "lichess_games", [gone.__dict__])
        fourth = ratings.EstimateStats()
        ratings.write_rating_estimates(nightly, ids, stats=fourth)
        assert (fourth.resumed, fourth.games_rated) == (False, len(rows)) and _estimates(nightly).equals(want)
        fifth = ratings.EstimateStats()  # another player list: afresh
        ratings.write_rating_estimates(nightly, ids[:-1], stats=fifth)
        assert not fifth.resumed
        ratings.write_rating_estimates(nightly, ids)
        sixth = ratings.EstimateStats()  # a new estimator version: afresh, same table
        monkeypatch.setattr(rd, "ESTIMATOR_VERSION", rd.ESTIMATOR_VERSION + 1)
        ratings.write_rating_estimates(nightly, ids, stats=sixth)
        assert (sixth.resumed, sixth.games_rated) == (False, len(rows)) and _estimates(nightly).equals(want)
    finally:
        fresh.close()
        nightly.close()


@pytest.mark.scenario
def test_a_late_game_the_estimator_does_not_rate_leaves_the_resume_intact(
    demo: dict[str, object], tmp_path: Path
) -> None:
    """TEAM-ELIG-7 reads a player's RD only up to their due time, so the estimator rates their
    games before it only (`until`). A game after it, against no other tracked player, arriving
    after the night's estimates and sorting before their cursor (another player's stream brings
    it later in the ingest: pipeline/stages/audit.py ahead_of_audit) changes nothing the
    estimator rated: the next call resumes with nothing to rate, and the table is one run's."""
    ids, rows = _cap_games(demo)
    keep = set(ids)
    cut = dt.datetime(2026, 6, 1, tzinfo=UTC)
    player = ids[0]
    until = {player: cut}
    alone = [  # the player's games after their time, against an untracked opponent
        g
        for g in rows
        if g.last_move_at >= cut
        and {g.white_id, g.black_id} & keep == {player}
        and g.last_move_at < rows[-1].last_move_at
    ]
    assert alone, "the demo gives the player no game after the cut against an untracked opponent"
    late = alone[0]

    fresh = gateway.connect(tmp_path / "fresh.duckdb")
    nightly = gateway.connect(tmp_path / "nightly.duckdb")
    try:
        gateway.upsert(fresh, "lichess_games", [g.__dict__ for g in rows])
        ratings.write_rating_estimates(fresh, ids, until=until)
        want = _estimates(fresh)
        gateway.upsert(nightly, "lichess_games", [g.__dict__ for g in rows if g is not late])
        ratings.write_rating_estimates(nightly, ids, until=until)
        gateway.upsert(nightly, "lichess_games", [late.__dict__])
        stats = ratings.EstimateStats()
        ratings.write_rating_estimates(nightly, ids, stats=stats, until=until)
        assert (stats.resumed, stats.games_rated) == (True, 0)
        assert _estimates(nightly).equals(want)
    finally:
        fresh.close()
        nightly.close()


def test_write_rating_estimates_with_no_games_empties_the_table(tmp_path: Path) -> None:
    """No stored games: no rows (the cap audit then falls back to the daily history)."""
    con = gateway.connect(tmp_path / "t.duckdb")
    try:
        assert ratings.write_rating_estimates(con, ("nobody",)) == 0
        assert con.sql("SELECT count(*) FROM rating_estimates").fetchall() == [(0,)]
    finally:
        con.close()
