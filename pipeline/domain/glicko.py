"""Glicko-2 as Lichess rates antichess games: pre-game ratings, ratingDiff and live RD.

Pure: frozen dataclasses, no I/O, no clock, no randomness. Written from these public sources,
read, not copied:

* Mark E. Glickman, "Example of the Glicko-2 system" (2012, http://www.glicko.net/glicko/glicko2.pdf),
  steps 1-8; its worked example is a test in tests/domain/test_glicko.py.
* scalachess (lichess-org/scalachess) ``rating/src/main/scala/glicko/impl/RatingCalculator.scala``:
  the calculator; ``glicko/GlickoCalculator.scala``: ``computeGame`` (one game = one rating
  period, both players rated against each other's pre-game values) and ``previewDeviation``;
  ``glicko/model.scala``: ``Glicko.intRating`` (``rating.toInt``), ``provisionalDeviation``,
  ``Tau.default``, ``ColorAdvantage.zero``; ``glicko/impl/results.scala``: win 1, draw 0.5, loss 0.
* lila (lichess-org/lila) ``modules/rating/src/main/Glicko.scala``: constants, ``GlickoExt.cap``,
  ``GlickoExt.sanityCheck``, ``liveDeviation``, the calculator built with ratingPeriodsPerDay
  0.21436 and no colour advantage; ``modules/rating/src/main/PerfExt.scala``: ``addOrReset``
  (the ±700 cap, the sanity check and reset, the clamps, ``latest``), ``toGlickoPlayer``
  (the stored values are clamped before rating) and the BSON reader that decays the RD when a
  perf is read; ``modules/round/src/main/PerfsUpdater.scala``: ``computeGame(...,
  skipDeviationIncrease = true)``, ``latest = game.movedAt``, ratingDiff =
  ``intRating(after) - intRating(before)``; ``modules/rating/src/main/RatingRegulator.scala``:
  rating *gains* in the antichess perf are multiplied by 1.02.

Constants (Glicko-1 scale unless noted)
--------------------------------------
SCALE = 173.7178                Glicko-2 <-> Glicko-1 factor (Glickman step 2; scalachess MULTIPLIER)
BASE_RATING = 1500.0            Glicko-2 origin (scalachess DEFAULT_RATING)
TAU = 0.75                      system constant (scalachess ``Tau.default``; lila passes no other)
RATING_PERIODS_PER_DAY = 0.21436  lila ``Glicko.calculator``: "a typical player's RD goes from
                                60 -> 110 in 1 year"
CONVERGENCE_TOLERANCE = 1e-6    volatility iteration stops when ``|B - A| <= 1e-6`` (scalachess;
                                Glickman's epsilon)
MAX_ITERATIONS = 1000           scalachess ``ITERATION_MAX``; reaching it throws "Convergence fail"
MIN_DEVIATION, MAX_DEVIATION = 45, 500   lila ``Glicko.minDeviation`` / ``maxDeviation``
PROVISIONAL_DEVIATION = 110     scalachess ``provisionalDeviation`` (provisional iff RD >= 110)
MAX_VOLATILITY = 0.1            lila ``Glicko.maxVolatility``
DEFAULT_VOLATILITY = 0.09       lila ``Glicko.defaultVolatility``; DEFAULT = 1500 / 500 / 0.09
MIN_RATING = 400                lila ``Glicko.minRating`` (a floor applied by ``cap``)
MAX_RATING = 4000               lila ``Glicko.maxRating``; ``sanityCheck`` requires rating < 4000
MAX_RATING_DELTA = 700          lila ``Glicko.maxRatingDelta``: at most ±700 per game
SANITY_MAX_DEVIATION = 1000     ``sanityCheck``: 0 < RD < 1000
SANITY_MAX_VOLATILITY = 0.2     ``sanityCheck``: 0 < volatility < 2 * maxVolatility
ANTICHESS_REGULATOR_FACTOR = 1.02  lila ``RatingRegulator.factors(PerfKey.antichess)``

How Lichess rates one antichess game (what :func:`rate_game` reproduces)
-----------------------------------------------------------------------
1. Each player's perf is read with its RD decayed to "now" (the game's end): lila's BSON reader
   replaces ``deviation`` by ``liveDeviation`` = Glickman step 6 over
   ``t = milliseconds since perf.latest * 0.21436 / 86 400 000`` rating periods,
   ``RD_now = 173.7178 * sqrt((RD / 173.7178)^2 + t * sigma^2)``, then clamped to [45, 500]
   (the stored values are clamped by ``cap`` before that, in ``toGlickoPlayer``). No ``latest``
   (never played): no decay.
2. ``computeGame(..., skipDeviationIncrease = true)``: a one-game rating period for each player
   against the other's pre-game (decayed) values; with skipDeviationIncrease the step-6
   pre-period inflation uses 0 elapsed periods, so ``phi* = phi`` (the decay already happened in
   step 1). Tau 0.75, no colour advantage (``ColorAdvantage.zero``), draw = 0.5. The volatility
   is found with the Illinois algorithm (regula falsi, Glickman step 5) as scalachess does it:
   ``A = ln(sigma^2)``; ``B = ln(Delta^2 - phi^2 - v)`` if ``Delta^2 > phi^2 + v``, else
   ``B = A - k*tau`` for the first k = 1, 2, ... with ``f(B) >= 0``; then
   ``C = A + (A - B) f(A) / (f(B) - f(A))``; if ``f(C) f(B) <= 0`` then ``A, f(A) = B, f(B)``
   else ``f(A) /= 2``; ``B, f(B) = C, f(C)``; until ``|B - A| <= 1e-6``; ``sigma' = exp(A / 2)``.
   If the calculation fails (scalachess throws after 1000 iterations) lila logs it and does not
   update either rating.
3. ``RatingRegulator``: for antichess, if the new rating is above the pre-game rating, the gain
   is multiplied by 1.02 (losses unchanged). (Its halving of changes against bots is not modelled:
   antichess arena games are human vs human.)
4. ``addOrReset``: the rating is held within ±700 of the stored pre-game rating; then
   ``sanityCheck`` (0 < rating < 4000, 0 < RD < 1000, 0 < volatility < 0.2) - if it fails, lila
   logs "Crazy Glicko2" and the perf is reset to the default 1500 / 500 / 0.09; then ``cap``:
   rating floored at 400 (no ceiling: 4000 is only the sanity limit), RD clamped to [45, 500],
   volatility capped at 0.1. ``latest`` = the game's ``movedAt`` (its last move, the API's
   ``lastMoveAt``); the deviation is stored as computed (lila's writer "un-decays" it from
   ``latest`` to the write time, which is ~0 elapsed).
5. The game keeps each player's pre-game ``intRating`` (``players.*.rating``) and
   ``ratingDiff = intRating(after) - intRating(before)``, where ``intRating`` truncates
   (``rating.toInt``).
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass

__all__ = [
    "ANTICHESS_REGULATOR_FACTOR",
    "BASE_RATING",
    "CONVERGENCE_TOLERANCE",
    "ConvergenceError",
    "DEFAULT",
    "DEFAULT_VOLATILITY",
    "MAX_DEVIATION",
    "MAX_ITERATIONS",
    "MAX_RATING",
    "MAX_RATING_DELTA",
    "MAX_VOLATILITY",
    "MIN_DEVIATION",
    "MIN_RATING",
    "PROVISIONAL_DEVIATION",
    "RATING_PERIODS_PER_DAY",
    "Rating",
    "SCALE",
    "TAU",
    "live_deviation",
    "rate_game",
    "rate_period",
    "rating_periods_between",
]

SCALE = 173.7178
BASE_RATING = 1500.0
TAU = 0.75
RATING_PERIODS_PER_DAY = 0.21436
CONVERGENCE_TOLERANCE = 0.000001
MAX_ITERATIONS = 1000
MIN_DEVIATION, MAX_DEVIATION = 45.0, 500.0
PROVISIONAL_DEVIATION = 110.0
MAX_VOLATILITY = 0.1
DEFAULT_VOLATILITY = 0.09
MIN_RATING, MAX_RATING = 400.0, 4000.0
MAX_RATING_DELTA = 700.0
SANITY_MAX_DEVIATION = 1000.0
SANITY_MAX_VOLATILITY = 2 * MAX_VOLATILITY
ANTICHESS_REGULATOR_FACTOR = 1.02

_MILLIS_PER_DAY = 86_400_000
_ONE_MILLI = datetime.timedelta(milliseconds=1)


class ConvergenceError(ArithmeticError):
    """The volatility iteration did not converge (scalachess throws "Convergence fail")."""


@dataclass(frozen=True)
class Rating:
    """One player's antichess perf as Lichess stores it (RD not decayed)."""

    rating: float  # Glicko-1 scale, e.g. 1500.0
    deviation: float  # RD, Glicko-1 scale, as stored (not decayed)
    volatility: float
    latest: datetime.datetime | None  # tz-aware UTC time of the last rated game; None: never played

    def __post_init__(self) -> None:
        if self.latest is not None and self.latest.utcoffset() is None:
            raise ValueError("Rating.latest must be timezone-aware (UTC)")

    @property
    def int_rating(self) -> int:
        """What Lichess shows: ``rating.toInt``, i.e. truncated toward zero."""
        return int(self.rating)

    @property
    def provisional(self) -> bool:
        """RD >= 110 on the stored RD; use :func:`live_deviation` for "as of" questions."""
        return self.deviation >= PROVISIONAL_DEVIATION


DEFAULT = Rating(BASE_RATING, MAX_DEVIATION, DEFAULT_VOLATILITY, None)


def _clamp(x: float, lo: float, hi: float) -> float:
    return min(max(x, lo), hi)


def _require_aware(at: datetime.datetime) -> None:
    if not isinstance(at, datetime.datetime) or at.utcoffset() is None:
        raise ValueError(f"expected a timezone-aware datetime, got {at!r}")


def rating_periods_between(since: datetime.datetime | None, at: datetime.datetime) -> float:
    """Rating periods from ``since`` to ``at``: whole milliseconds × 0.21436 / day (scalachess
    ``previewDeviation`` uses ``Duration.toMillis``); 0 when ``since`` is None."""
    _require_aware(at)
    if since is None:
        return 0.0
    millis = (at - since) // _ONE_MILLI
    if millis < 0:
        raise ValueError(f"{at.isoformat()} is before the last rated game {since.isoformat()}")
    return millis * RATING_PERIODS_PER_DAY / _MILLIS_PER_DAY


def live_deviation(r: Rating, at: datetime.datetime) -> float:
    """RD decayed from r.latest to `at` (Glicko-2 step 6 over t rating periods), clamped [45, 500].

    As lila's ``Glicko.liveDeviation``: the stored RD and volatility are first clamped (``cap``),
    then ``RD_now = SCALE * sqrt((RD / SCALE)^2 + t * sigma^2)``, then clamped to [45, 500].
    Raises ValueError if `at` is naive or earlier than ``r.latest``.
    """
    t = rating_periods_between(r.latest, at)
    phi = _clamp(r.deviation, MIN_DEVIATION, MAX_DEVIATION) / SCALE
    sigma = min(r.volatility, MAX_VOLATILITY)
    decayed = SCALE * math.sqrt(phi * phi + t * sigma * sigma)
    return _clamp(decayed, MIN_DEVIATION, MAX_DEVIATION)


def _g(phi: float) -> float:
    """Glickman step 3: g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    """Glickman step 3: E(mu, mu_j, phi_j) = 1 / (1 + exp(-g(phi_j) (mu - mu_j)))."""
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Glickman step 5: the Illinois algorithm, with scalachess's tolerance and iteration limit."""
    a = math.log(sigma * sigma)
    delta2, phi2 = delta * delta, phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        big_b = a - k * abs(tau)
        while f(big_b) < 0:
            k += 1
            big_b = a - k * abs(tau)
    f_a, f_b = f(big_a), f(big_b)
    iterations = 0
    while abs(big_b - big_a) > CONVERGENCE_TOLERANCE and iterations < MAX_ITERATIONS:
        iterations += 1
        if f_b == f_a:
            raise ConvergenceError("volatility iteration: f(A) == f(B)")
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    if iterations == MAX_ITERATIONS:
        raise ConvergenceError(f"volatility iteration did not converge in {MAX_ITERATIONS} steps")
    return math.exp(big_a / 2.0)


def rate_period(
    player: Rating, results: list[tuple[float, float, float]], tau: float = TAU, skip_deviation_increase: bool = False
) -> tuple[float, float, float]:
    """Pure Glicko-2 (Glickman, 'Example of the Glicko-2 system', 2012): one rating period.
    results: (opponent rating, opponent RD, score 1/0.5/0) in Glicko-1 scale.
    Returns (rating, deviation, volatility) in Glicko-1 scale, without Lichess's clamps.

    ``player.latest`` is ignored: the player's deviation is used as given. With
    ``skip_deviation_increase`` the step-6 inflation uses 0 elapsed periods (``phi* = phi``),
    as scalachess's ``updateRatings(skipDeviationIncrease = true)``; otherwise 1 period. A
    period without games only applies step 6. Raises ConvergenceError as scalachess does.
    """
    if not tau > 0:
        raise ValueError(f"tau must be positive, got {tau}")
    if not (player.deviation > 0 and player.volatility > 0):
        raise ValueError(f"deviation and volatility must be positive: {player}")
    elapsed = 0.0 if skip_deviation_increase else 1.0
    mu = (player.rating - BASE_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        return player.rating, SCALE * math.sqrt(phi * phi + elapsed * sigma * sigma), sigma

    v_inv = 0.0
    outcome = 0.0  # sum of g(phi_j) (s_j - E_j)
    for opp_rating, opp_deviation, score in results:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"score must be within [0, 1], got {score}")
        if not opp_deviation > 0:
            raise ValueError(f"opponent deviation must be positive, got {opp_deviation}")
        mu_j = (opp_rating - BASE_RATING) / SCALE
        phi_j = opp_deviation / SCALE
        g_j = _g(phi_j)
        e_j = _expected(mu, mu_j, phi_j)
        v_inv += g_j * g_j * e_j * (1.0 - e_j)
        outcome += g_j * (score - e_j)
    v = 1.0 / v_inv  # step 3
    delta = v * outcome  # step 4
    new_sigma = _new_volatility(sigma, phi, v, delta, tau)  # step 5
    phi_star = math.sqrt(phi * phi + elapsed * new_sigma * new_sigma)  # step 6
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)  # step 7
    new_mu = mu + new_phi * new_phi * outcome
    return BASE_RATING + SCALE * new_mu, SCALE * new_phi, new_sigma  # step 8


def _sane(rating: float, deviation: float, volatility: float) -> bool:
    """lila ``GlickoExt.sanityCheck`` (False for NaN)."""
    return 0 < rating < MAX_RATING and 0 < deviation < SANITY_MAX_DEVIATION and 0 < volatility < SANITY_MAX_VOLATILITY


def _add_or_reset(stored: Rating, computed: tuple[float, float, float], at: datetime.datetime) -> Rating:
    """lila ``PerfExt.addOrReset``: ±700 of the stored rating, sanity check (else default), cap."""
    rating, deviation, volatility = computed
    rating = _clamp(rating, stored.rating - MAX_RATING_DELTA, stored.rating + MAX_RATING_DELTA)
    if not _sane(rating, deviation, volatility):
        rating, deviation, volatility = DEFAULT.rating, DEFAULT.deviation, DEFAULT.volatility
    return Rating(
        rating=max(rating, MIN_RATING),
        deviation=_clamp(deviation, MIN_DEVIATION, MAX_DEVIATION),
        volatility=min(volatility, MAX_VOLATILITY),
        latest=at,
    )


def rate_game(
    white: Rating,
    black: Rating,
    winner: str | None,
    at: datetime.datetime,
    *,
    regulator_factor: float = ANTICHESS_REGULATOR_FACTOR,
) -> tuple[Rating, Rating]:
    """One rated antichess game as Lichess rates it: both players' deviations decayed to `at`
    first, then each updated against the other's pre-game values as a one-game period with
    skipDeviationIncrease, tau 0.75, Lichess's clamps and ±700 cap; `latest` becomes `at`.
    winner: 'white', 'black' or None for a draw.

    `at` is the game's last move (``lastMoveAt``); it must be tz-aware and not before either
    player's ``latest`` (ValueError otherwise); ``latest`` is stored as `at` in UTC. Gains are
    multiplied by ``regulator_factor`` (lila ``RatingRegulator``: 1.02 for antichess; pass 1.0
    for plain Glicko-2). If the volatility iteration fails, Lichess leaves both perfs untouched,
    and so does this: the inputs are returned unchanged.
    """
    _require_aware(at)
    if winner not in ("white", "black", None):
        raise ValueError(f"winner must be 'white', 'black' or None, got {winner!r}")
    # lila: perf read with live RD, then toGlickoPlayer applies cap (rating >= 400, vol <= 0.1)
    pre_w = Rating(
        max(white.rating, MIN_RATING), live_deviation(white, at), min(white.volatility, MAX_VOLATILITY), white.latest
    )
    pre_b = Rating(
        max(black.rating, MIN_RATING), live_deviation(black, at), min(black.volatility, MAX_VOLATILITY), black.latest
    )
    score_w = {"white": 1.0, "black": 0.0, None: 0.5}[winner]
    try:
        new_w = rate_period(pre_w, [(pre_b.rating, pre_b.deviation, score_w)], TAU, True)
        new_b = rate_period(pre_b, [(pre_w.rating, pre_w.deviation, 1.0 - score_w)], TAU, True)
    except ConvergenceError:
        return white, black

    def regulate(pre: Rating, new: tuple[float, float, float]) -> tuple[float, float, float]:
        if new[0] > pre.rating:
            return pre.rating + (new[0] - pre.rating) * regulator_factor, new[1], new[2]
        return new

    when = at.astimezone(datetime.UTC)
    return (_add_or_reset(white, regulate(pre_w, new_w), when), _add_or_reset(black, regulate(pre_b, new_b), when))
