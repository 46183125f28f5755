"""Glicko-2 as Lichess rates antichess (pipeline.domain.glicko).

Expectations come from published sources or are worked out by hand, never from the module:
* Glickman, "Example of the Glicko-2 system" (2012), section "Example calculation";
* scalachess ``test-kit/src/test/scala/rating/glicko/GlickoCalculatorTest.scala``: single games
  rated with ``computeGame(..., skipDeviationIncrease = true)``, tau 0.75;
* lila ``modules/rating/src/main/Glicko.scala``, whose comment on the rating periods per day says a
  typical player's RD goes from 60 to 110 in a year of not playing;
* lila ``Glicko.scala`` / ``PerfExt.scala`` / ``RatingRegulator.scala`` for the clamps, the ±700
  cap, the sanity reset and the antichess gain factor 1.02.
"""

from __future__ import annotations

import datetime as dt
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.domain import glicko
from pipeline.domain.glicko import (
    DEFAULT,
    MAX_DEVIATION,
    MAX_VOLATILITY,
    MIN_DEVIATION,
    PROVISIONAL_DEVIATION,
    RATING_PERIODS_PER_DAY,
    SCALE,
    TAU,
    Rating,
    live_deviation,
    rate_game,
    rate_period,
)

UTC = dt.UTC
T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def established(rating: float, rd: float = 60.0, vol: float = 0.06, at: dt.datetime = T0) -> Rating:
    return Rating(rating, rd, vol, at)


# --- constants -------------------------------------------------------------------------------


def test_constants_match_lichess() -> None:
    """The constants as lila ``Glicko.scala`` and scalachess ``glicko/model.scala`` write them."""
    assert (glicko.SCALE, glicko.TAU, glicko.RATING_PERIODS_PER_DAY) == (173.7178, 0.75, 0.21436)
    assert (MIN_DEVIATION, MAX_DEVIATION, PROVISIONAL_DEVIATION, MAX_VOLATILITY) == (45, 500, 110, 0.1)
    assert (glicko.MIN_RATING, glicko.MAX_RATING, glicko.MAX_RATING_DELTA) == (400, 4000, 700)
    assert DEFAULT == Rating(1500.0, 500.0, 0.09, None)
    assert DEFAULT.provisional and DEFAULT.int_rating == 1500


def test_int_rating_truncates_and_provisional_threshold() -> None:
    """scalachess Glicko.intRating = rating.toInt (truncation); provisional iff RD >= 110."""
    assert Rating(1499.999, 60, 0.06, None).int_rating == 1499
    assert Rating(1500.5, 60, 0.06, None).int_rating == 1500
    assert Rating(1500, 110.0, 0.06, None).provisional
    assert not Rating(1500, 109.99, 0.06, None).provisional


def test_rating_requires_aware_latest() -> None:
    with pytest.raises(ValueError):
        Rating(1500, 60, 0.06, dt.datetime(2026, 1, 1))


# --- 1. Glickman's worked example --------------------------------------------------------------


def test_glickman_worked_example() -> None:
    """Player 1500/200/0.06, tau 0.5; beats 1400/30, loses to 1550/100 and 1700/300.

    The paper gives mu' = -0.2069, phi' = 0.8722, sigma' = 0.05999, i.e. r' = 1464.06 and
    RD' = 151.52. (It converts the rounded mu'; unrounded, r' = 1464.0507, still within 0.01.)
    """
    r, rd, vol = rate_period(
        Rating(1500.0, 200.0, 0.06, None), [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)], tau=0.5
    )
    assert abs(r - 1464.06) < 0.01
    assert round((r - 1500) / SCALE, 4) == -0.2069
    assert round(rd, 2) == 151.52
    assert round(rd / SCALE, 4) == 0.8722
    assert abs(vol - 0.05999) < 1e-5


def test_glickman_intermediate_values() -> None:
    """Paper steps 3-5: g = 0.9955, 0.9531, 0.7242; E = 0.639, 0.432, 0.303; v = 1.7785,
    Delta = -0.4834; sigma' = 0.05999 from (phi 1.1513, v 1.7785, Delta -0.4834, tau 0.5)."""
    # step 2: mu = 0, phi = 200 / 173.7178 = 1.1513; opponents (1400, 30), (1550, 100), (1700, 300)
    mu, scores = 0.0, [1, 0, 0]
    opponents = [((r - 1500) / 173.7178, rd / 173.7178) for r, rd in ((1400, 30), (1550, 100), (1700, 300))]
    assert [(round(m, 4), round(p, 4)) for m, p in opponents] == [(-0.5756, 0.1727), (0.2878, 0.5756), (1.1513, 1.7269)]
    gs = [glicko._g(phi_j) for _, phi_j in opponents]
    es = [glicko._expected(mu, mu_j, phi_j) for mu_j, phi_j in opponents]
    # the paper's inputs and outputs are rounded to 4 (g) and 3 (E) places
    assert gs == pytest.approx([0.9955, 0.9531, 0.7242], abs=1e-4)
    assert es == pytest.approx([0.639, 0.432, 0.303], abs=1e-3)
    v = 1 / sum(g * g * e * (1 - e) for g, e in zip(gs, es, strict=False))
    delta = v * sum(g * (s - e) for g, e, s in zip(gs, es, scores, strict=False))
    # The paper works with rounded E values (0.639, 0.432, 0.303): v = 1.7785, Delta = -0.4834.
    # Unrounded they are 1.77898 and -0.48393, so agreement is to about 1e-3.
    assert abs(v - 1.7785) < 1e-3 and abs(delta - (-0.4834)) < 1e-3
    assert abs(glicko._new_volatility(0.06, 1.1513, 1.7785, -0.4834, 0.5) - 0.05999) < 1e-5


def test_rate_period_without_games_only_inflates_rd() -> None:
    """Glickman step 6 for a player who did not compete: phi' = sqrt(phi^2 + sigma^2)."""
    r, rd, vol = rate_period(Rating(1500, 200, 0.06, None), [], tau=0.5)
    assert (r, vol) == (1500, 0.06)
    assert rd == pytest.approx(SCALE * math.sqrt((200 / SCALE) ** 2 + 0.06**2))
    skipped = rate_period(Rating(1500, 200, 0.06, None), [], skip_deviation_increase=True)
    assert skipped[1] == pytest.approx(200)


# scalachess GlickoCalculatorTest: (white, black, outcome) -> published (rating, RD, volatility)
SCALACHESS_CASES = [
    # default deviation 1500/350/0.06 each
    ((1500, 350, 0.06), (1500, 350, 0.06), "white", (1662.21, 290.2305, 0.0599993), (1337.79, 290.2305, 0.0599993)),
    ((1500, 350, 0.06), (1500, 350, 0.06), None, (1500.00, 290.2305, 0.0599977), (1500.00, 290.2305, 0.0599977)),
    ((1400, 79, 0.06), (1550, 110, 0.065), "white", (1422.63, 77.4956, 0.06), (1506.32, 105.8706, 0.065)),
    ((1400, 79, 0.06), (1550, 110, 0.065), "black", (1389.99, 77.4956, 0.06), (1568.90, 105.8706, 0.065)),
    ((1400, 79, 0.06), (1550, 110, 0.065), None, (1406.31, 77.4956, 0.06), (1537.61, 105.8706, 0.065)),
    ((1200, 60, 0.053), (1850, 200, 0.062), "white", (1216.73, 59.9006, 0.053013), (1635.99, 196.9873, 0.062028)),
    ((1200, 60, 0.053), (1850, 200, 0.062), "black", (1199.29, 59.9006, 0.052999), (1855.42, 196.9873, 0.061999)),
    ((1200, 60, 0.053), (1850, 200, 0.062), None, (1208.01, 59.9006, 0.053002), (1745.71, 196.9873, 0.062006)),
]
SCORE = {"white": (1.0, 0.0), "black": (0.0, 1.0), None: (0.5, 0.5)}


@pytest.mark.parametrize(("w", "b", "winner", "w_exp", "b_exp"), SCALACHESS_CASES)
def test_rate_period_matches_scalachess_published_games(w, b, winner, w_exp, b_exp) -> None:
    s_w, s_b = SCORE[winner]
    for me, opp, score, exp in ((w, b, s_w, w_exp), (b, w, s_b, b_exp)):
        r, rd, vol = rate_period(Rating(*me, None), [(opp[0], opp[1], score)], tau=TAU, skip_deviation_increase=True)
        assert abs(r - exp[0]) <= 0.005
        assert abs(rd - exp[1]) <= 0.00005
        assert abs(vol - exp[2]) <= (1e-5 if exp[2] in (0.06, 0.065) else 1e-6)


# --- 2. live deviation -------------------------------------------------------------------------


@pytest.mark.parametrize(("sigma", "expected"), [(0.06, 110.0), (0.09, 150.7)])
def test_live_deviation_reference_check(sigma: float, expected: float) -> None:
    """lila's "RD 60 -> 110 in a year": Glickman step 6 over 365 x 0.21436 periods from RD 60 gives
    173.7178 * sqrt((60/173.7178)^2 + 78.24 * sigma^2) = 110.0 (sigma 0.06), 150.7 (sigma 0.09)."""
    r = Rating(1500, 60, sigma, T0)
    assert abs(live_deviation(r, T0 + dt.timedelta(days=365)) - expected) < 0.1


def test_live_deviation_by_hand() -> None:
    """Step 6 over t = 100 days x 0.21436 periods: 173.7178 * sqrt((80/173.7178)^2 + 21.436 * 0.07^2)."""
    r = Rating(1500, 80, 0.07, T0)
    t = 100 * 0.21436
    expected = 173.7178 * math.sqrt((80 / 173.7178) ** 2 + t * 0.07**2)
    assert live_deviation(r, T0 + dt.timedelta(days=100)) == pytest.approx(expected, abs=1e-9)
    assert live_deviation(r, T0) == pytest.approx(80)  # no time elapsed: stored RD


def test_live_deviation_clamps() -> None:
    # 10 years idle at sigma 0.09: sqrt((60/173.7)^2 + 782 * 0.0081) * 173.7 = 445; 20 years: > 500
    r = Rating(1500, 60, 0.09, T0)
    assert 440 < live_deviation(r, T0 + dt.timedelta(days=3650)) < 450
    assert live_deviation(r, T0 + dt.timedelta(days=7300)) == MAX_DEVIATION
    # RD below the floor (never stored by Lichess, but clamped anyway) and no decay
    assert live_deviation(Rating(1500, 30, 0.06, T0), T0) == MIN_DEVIATION
    assert live_deviation(Rating(1500, 30, 0.06, None), T0 + dt.timedelta(days=999)) == MIN_DEVIATION
    # never played: no decay at all
    assert live_deviation(DEFAULT, T0) == 500
    assert live_deviation(Rating(1500, 200, 0.09, None), T0) == 200


def test_live_deviation_rejects_bad_times() -> None:
    r = Rating(1500, 60, 0.06, T0)
    with pytest.raises(ValueError):
        live_deviation(r, dt.datetime(2026, 4, 1))  # naive
    with pytest.raises(ValueError):
        live_deviation(r, T0 - dt.timedelta(seconds=1))  # before the last rated game


def test_live_deviation_counts_whole_milliseconds() -> None:
    """scalachess previewDeviation uses Duration.toMillis: sub-millisecond time does not count."""
    r = Rating(1500, 45, 0.06, T0)
    assert live_deviation(r, T0 + dt.timedelta(microseconds=999)) == live_deviation(r, T0)
    one_day = glicko.rating_periods_between(T0, T0 + dt.timedelta(days=1))
    assert one_day == pytest.approx(RATING_PERIODS_PER_DAY)


# --- 3. rate_game --------------------------------------------------------------------------------


def test_winner_gains_loser_loses() -> None:
    a, b = established(1600), established(1550)
    for winner in ("white", "black"):
        w, bl = rate_game(a, b, winner, T0 + dt.timedelta(hours=1))
        if winner == "white":
            assert w.rating > a.rating and bl.rating < b.rating
        else:
            assert w.rating < a.rating and bl.rating > b.rating


@pytest.mark.parametrize(("w", "b", "winner", "w_exp", "b_exp"), SCALACHESS_CASES)
def test_rate_game_is_scalachess_plus_antichess_regulator(w, b, winner, w_exp, b_exp) -> None:
    """No time elapsed (latest == at), so no decay: scalachess's published result, then lila's
    RatingRegulator multiplies antichess gains by 1.02 (losses unchanged)."""
    after_w, after_b = rate_game(Rating(*w, T0), Rating(*b, T0), winner, T0)
    for before, after, exp in ((w, after_w, w_exp), (b, after_b, b_exp)):
        gain = exp[0] - before[0]
        expected = before[0] + gain * 1.02 if gain > 0 else exp[0]
        assert abs(after.rating - expected) <= 0.0052
        assert abs(after.deviation - exp[1]) <= 0.00005
    plain_w, plain_b = rate_game(Rating(*w, T0), Rating(*b, T0), winner, T0, regulator_factor=1.0)
    assert abs(plain_w.rating - w_exp[0]) <= 0.005 and abs(plain_b.rating - b_exp[0]) <= 0.005


def test_rating_diff_from_published_game() -> None:
    """1400/79 beats 1550/110: 1400 + 22.63 * 1.02 = 1423.08 -> +23; 1550 -> 1506.32 -> -44."""
    before_w, before_b = Rating(1400, 79, 0.06, T0), Rating(1550, 110, 0.065, T0)
    after_w, after_b = rate_game(before_w, before_b, "white", T0)
    assert after_w.int_rating - before_w.int_rating == 23
    assert after_b.int_rating - before_b.int_rating == -44


def test_draw_between_equals_changes_only_rd_and_volatility() -> None:
    a = established(1500, rd=80, vol=0.06)
    w, b = rate_game(a, a, None, T0)
    assert w.rating == b.rating == 1500
    assert w.deviation == b.deviation < 80
    assert abs(w.volatility - 0.06) < 1e-4


def test_symmetry_no_colour_advantage() -> None:
    a, b = established(1700, rd=70, vol=0.065), Rating(1450, 150, 0.08, T0 - dt.timedelta(days=30))
    at = T0 + dt.timedelta(days=3)
    for winner, mirrored in (("white", "black"), ("black", "white"), (None, None)):
        w1, b1 = rate_game(a, b, winner, at)
        w2, b2 = rate_game(b, a, mirrored, at)
        assert (w1, b1) == (b2, w2)


def test_new_player_moves_a_lot_established_player_little() -> None:
    """By hand: new 1500/500 (phi 2.878) vs 1500/50 (g 0.988): v = 4.10, phi' = 1.655, so a win is
    +1.353 in Glicko-2 units = +235, x 1.02 = +240. The established player (g(2.878) = 0.533,
    v = 14.1, phi' = 0.287) loses 0.022 units = -3.8."""
    old = established(1500, rd=50, vol=0.06)
    new, old_after = rate_game(DEFAULT, old, "white", T0 + dt.timedelta(hours=1))
    assert 235 < new.rating - 1500 < 245
    assert -4.5 < old_after.rating - 1500 < -3
    assert new.provisional and not old_after.provisional
    assert 280 < new.deviation < 295
    assert new.latest == old_after.latest == T0 + dt.timedelta(hours=1)


def test_rating_floor_400() -> None:
    """lila GlickoExt.cap: rating.atLeast(400). A 400 player who keeps losing stays at 400."""
    weak, strong = Rating(400.0, 80, 0.06, T0), established(1500)
    at = T0
    for _ in range(20):
        at += dt.timedelta(minutes=5)
        weak, strong = rate_game(weak, strong, "black", at)
        assert weak.rating == 400.0 and weak.int_rating == 400


def test_rating_delta_cap_700() -> None:
    """lila PerfExt.addOrReset: new rating within ±700 of the stored one. A new player beating a
    3000/45 player would gain far more (phi' ~ phi = 2.88, phi'^2 x g x (1 - E) ~ 8 units)."""
    top = established(3000, rd=45)
    assert rate_period(DEFAULT, [(3000, 45, 1.0)], skip_deviation_increase=True)[0] > 2200
    new, _ = rate_game(DEFAULT, top, "white", T0)
    assert new.rating == 2200.0
    assert rate_period(DEFAULT, [(400, 45, 0.0)], skip_deviation_increase=True)[0] < 800
    new, _ = rate_game(DEFAULT, Rating(400, 45, 0.06, T0), "black", T0)
    assert new.rating == 800.0


def test_volatility_capped_at_0_1() -> None:
    """lila GlickoExt.cap: volatility.atMost(0.1). A 2500/45 player losing to a 400 player at
    volatility 0.1 would get a higher volatility from plain Glicko-2."""
    star = Rating(2500, 45, 0.1, T0)
    assert rate_period(star, [(400, 45, 0.0)], skip_deviation_increase=True)[2] > 0.1
    after, _ = rate_game(star, Rating(400, 45, 0.06, T0), "black", T0)
    assert after.volatility == 0.1


def test_deviation_floor_45_and_ceiling_500() -> None:
    a, b = established(1800, rd=45), established(1800, rd=45)
    at = T0
    for i in range(30):
        at += dt.timedelta(minutes=3)
        a, b = rate_game(a, b, ("white", "black", None)[i % 3], at)
        assert a.deviation >= 45 and b.deviation >= 45
    assert a.deviation == 45.0  # a 1-game period from 45 computes below 45, then clamped
    # after 30 idle years the RD used (and stored after the game) cannot exceed 500
    idle = Rating(1800, 45, 0.1, T0)
    later = T0 + dt.timedelta(days=30 * 365)
    assert live_deviation(idle, later) == 500.0
    after, _ = rate_game(idle, established(1800, at=later), None, later)
    assert after.deviation <= 500


def test_sanity_reset_at_4000() -> None:
    """lila GlickoExt.sanityCheck needs rating < 4000; a failing result is reset to the default
    1500/500/0.09 ("Crazy Glicko2"), not clamped. 3990/300 beating 3990/45 would pass 4000."""
    unclamped = rate_period(Rating(3990, 300, 0.06, None), [(3990, 45, 1.0)], skip_deviation_increase=True)
    assert unclamped[0] > 4000
    after, other = rate_game(Rating(3990, 300, 0.06, T0), established(3990, rd=45), "white", T0)
    assert (after.rating, after.deviation, after.volatility) == (1500.0, 500.0, 0.09)
    assert after.latest == T0 and other.rating < 3990


def test_decay_applies_before_rating() -> None:
    """An idle player's decayed RD makes his own result move more, and (via a smaller g) the
    opponent's result move less, than the same game played without the idle time."""
    opp_fresh = established(1500, rd=60)
    idle = Rating(1500, 60, 0.06, T0 - dt.timedelta(days=365))
    fresh = Rating(1500, 60, 0.06, T0)
    me_idle, opp_idle = rate_game(idle, opp_fresh, "white", T0)
    me_fresh, opp_after_fresh = rate_game(fresh, opp_fresh, "white", T0)
    assert me_idle.rating - 1500 > me_fresh.rating - 1500 > 0
    assert 0 > opp_idle.rating - 1500 > opp_after_fresh.rating - 1500


def test_latest_becomes_game_time_in_utc() -> None:
    cet = dt.timezone(dt.timedelta(hours=1))
    at = dt.datetime(2026, 3, 2, 10, 0, tzinfo=cet)
    w, b = rate_game(established(1500), established(1500), "white", at)
    assert w.latest == b.latest == at
    assert w.latest.utcoffset() == dt.timedelta(0)


def test_rate_game_rejects_bad_input() -> None:
    a = established(1500)
    with pytest.raises(ValueError):
        rate_game(a, a, "draw", T0)
    with pytest.raises(ValueError):
        rate_game(a, a, None, dt.datetime(2026, 3, 2))
    with pytest.raises(ValueError):
        rate_game(a, a, None, T0 - dt.timedelta(days=1))


# --- 4. property test ------------------------------------------------------------------------


ratings = st.builds(
    Rating,
    rating=st.floats(400, 3000),
    deviation=st.floats(45, 500),
    volatility=st.floats(0.03, 0.1),
    latest=st.none() | st.just(T0),
)
games = st.lists(
    st.tuples(
        st.integers(0, 3), st.integers(0, 3), st.sampled_from(["white", "black", None]), st.floats(0, 400)
    ),  # gap in days before the game
    min_size=1,
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(players=st.lists(ratings, min_size=4, max_size=4), schedule=games)
def test_random_game_sequences_stay_within_clamps(players: list[Rating], schedule) -> None:
    pool = list(players)
    at = T0
    for i, j, winner, gap_days in schedule:
        if i == j:
            continue
        at += dt.timedelta(days=gap_days)
        w, b = rate_game(pool[i], pool[j], winner, at)
        for r in (w, b):
            assert all(math.isfinite(x) for x in (r.rating, r.deviation, r.volatility))
            assert 400 <= r.rating < 4000
            assert 45 <= r.deviation <= 500
            assert 0 < r.volatility <= 0.1
            assert r.latest == at
            assert r.provisional == (r.deviation >= 110)
        pool[i], pool[j] = w, b
