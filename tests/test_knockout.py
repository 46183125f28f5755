"""TEAM-KO-1: a knockout match tied on points is decided by the captains.

An advantage point goes to the winner of the captains' board match if the captains played each
other on one board; then the captains play 4 games of 3+0 (the point counts as 1-0 before them);
still level (2-2, or 2.5-2.5 with the point) → an armageddon, entered by the TD (ARM-1).
"""

from __future__ import annotations

import datetime as dt

import pytest

from pipeline.inputs import Pairing
from pipeline.linking import MatchGame
from pipeline.scoring import BoardResult, knockout_tiebreak

T = dt.datetime(2026, 10, 20, tzinfo=dt.UTC)
P = Pairing("knockout", 1, "Alpha", "Beta", T, T + dt.timedelta(days=7), 2)
CAPTAINS = {"Alpha": "ca", "Beta": "cb"}


def board(n: int, pa: str, pb: str, a: float, b: float) -> BoardResult:
    return BoardResult("knockout", 1, n, "Alpha", "Beta", pa, pb, "total", 22, 22, a, b)


def captains_games(*results: str) -> list[MatchGame]:
    pts = {"a": (1.0, 0.0), "b": (0.0, 1.0), "d": (0.5, 0.5)}
    return [MatchGame("knockout", 1, 0, "Alpha", "Beta", "ca", "cb", f"cap{i}", T + dt.timedelta(days=5, minutes=5 * i),
                      T + dt.timedelta(days=5, minutes=5 * i + 4), "3+0", "3+0", False, "captains_tiebreak", *pts[r])
            for i, r in enumerate(results)]


# Two boards, 192 - 192 in all (a tie on points): board 1 is the captains' board.
CAPTAINS_WON = [board(1, "ca", "cb", 100, 92), board(2, "x", "y", 92, 100)]
CAPTAINS_TIED = [board(1, "ca", "cb", 96, 96), board(2, "x", "y", 96, 96)]
APART = [board(1, "ca", "y", 100, 92), board(2, "x", "cb", 92, 100)]


@pytest.mark.parametrize(("results", "games", "outcome", "end"), [
    # point to Alpha (100-92 on the captains' board), games 2-2 → 3-2: Alpha
    (CAPTAINS_WON, "abab", "a", "3-2 → Alpha"),
    # no point (board tied), games 2.5-1.5 → Alpha
    (CAPTAINS_TIED, "adab", "a", "2.5-1.5 → Alpha"),
    # point to Alpha, games 1.5-2.5 → 2.5-2.5: still level → armageddon
    (CAPTAINS_WON, "bdab", "draw", "still level 2.5-2.5 → armageddon (ARM-1, a TD ruling)"),
    # the captains played on different boards: no point; 2-2 → armageddon
    (APART, "abba", "draw", "still level 2-2 → armageddon (ARM-1, a TD ruling)"),
])
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
    from pipeline.config import load_config
    from pipeline.inputs import Override
    from pipeline.scoring import score_matches

    cfg = tmp_path / "tournament.toml"
    cfg.write_text('preset = "acwc-2021"\n[tournament]\nid = "t"\n[paths]\nplayers = "p.csv"\npairings = "p.csv"\n'
                   'database = "d.duckdb"\nexports = "e"\n', encoding="utf-8")
    stage = load_config(cfg).stage("semifinals")
    p = Pairing("semifinals", 1, "x", "y", T, T + dt.timedelta(days=7), 2)
    results = [BoardResult("semifinals", 1, 1, "x", "y", "x", "y", "total", 10, 10, 5.0, 5.0)]
    [m] = score_matches(stage, [], results, (p,), 1, T + dt.timedelta(days=8))
    assert (m.outcome, m.winner, m.tiebreak) == ("draw", None, "tied: armageddon (ACWC-SF-1) or a replay (ACWC-F-1), entered by the TD")
    ruling = Override("semifinals", 1, "x", "armageddon", "y", "y won the armageddon", 2)
    [m] = score_matches(stage, [], results, (p,), 1, T + dt.timedelta(days=8), (ruling,))
    assert (m.outcome, m.winner) == ("b", "y")
