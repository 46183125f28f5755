"""tiebreak.explain_buchholz: each round's contribution to a Median-Buchholz, marked with the cut
that removed it, adding up to what tiebreak.buchholz gives (TEAM-TB-1, ACWC-Q-3; FIDE C.07 Art. 16)."""

from __future__ import annotations

from pipeline.domain.tiebreak import Entry, buchholz, explain_buchholz


def test_a_requested_byes_dummy_is_cut_first_and_the_rest_add_up() -> None:
    """me: won v a (r1), a requested half-point bye (r2), lost v b (r3), won v c (r4): 2.5 of 4.
    fide-2026: the bye's dummy opponent scores min(2.5, 0.5 × 4) = 2; a scored 1, b 1, c 0.5 (its
    trailing requested bye counts as a draw: 0.5 either way). Median: the low cut takes the requested
    bye's dummy first (Art. 16.5), however high; the high cut the first 1; 1 + 0.5 = 1.5 counts."""
    table = {
        "me": [Entry("a", 1, round=1), Entry(None, 0.5, "half_bye", 2), Entry("b", 0, round=3), Entry("c", 1, round=4)],
        "a": [Entry("me", 0, round=1), Entry(None, 1, "pab", 2)],
        "b": [Entry("me", 1, round=3)],
        "c": [Entry("me", 0, round=4), Entry(None, 0.5, "half_bye", 5)],
    }
    explained = explain_buchholz("me", table, "fide-2026", 0.5, cut_low=1, cut_high=1)
    assert [(c.entry.round, c.value, c.voluntary, c.cut) for c in explained] == [
        (1, 1, False, "high"),
        (2, 2, True, "low"),
        (3, 1, False, None),
        (4, 0.5, False, None),
    ]
    assert buchholz("me", table, "fide-2026", 0.5, cut_low=1, cut_high=1) == 1.5
    # plain: an unplayed round adds nothing, so it has no contribution to cut
    plain = explain_buchholz("me", table, "plain", 0.5, cut_low=1, cut_high=1)
    assert [(c.entry.round, c.value, c.cut) for c in plain] == [(1, 1, "high"), (3, 1, None), (4, 0.5, "low")]
    assert buchholz("me", table, "plain", 0.5, cut_low=1, cut_high=1) == 1
