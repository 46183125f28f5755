"""Each game's post-game rating deviation (RD), estimated from Lichess's ``rating``/``ratingDiff``.

Pure: polars in, polars out; no DuckDB, clock or environment. TEAM-CAP-5 ("a crossing made while
the RD is above 80 does not count") needs the RD at every game, and Lichess publishes no RD
history (its rating history holds one rating a day, no RD; profiles give only today's RD). The
rule is applied by reconstructing the RD as Lichess runs Glicko-2, or saying "RD unknown"
(docs/rd.md). This module reconstructs it.

The maths (Glicko-2 units: mu = (r - 1500) / S, phi = RD / S, S = 173.7178)
--------------------------------------------------------------------------
Lichess rates every antichess game as its own rating period with ``skipDeviationIncrease``
(:mod:`pipeline.domain.glicko`, steps 1-5). For a player with pre-game (decayed) ``phi`` against an
opponent with pre-game ``phi_o``::

    g  = 1 / sqrt(1 + 3 phi_o^2 / pi^2)                E = 1 / (1 + exp(-g (mu - mu_o)))
    q  = g^2 E (1 - E)                                  (the game's information, 1 / v)
    phi'^2 = 1 / (1 / phi^2 + q)                        (no volatility term: skipDeviationIncrease)
    change = S * phi'^2 * g * (s - E)                   (s = 1, 0.5, 0; Glicko-1 points)

then gains are multiplied by 1.02 (the antichess ``RatingRegulator``), the new rating is held
within 700 of the old and floored at 400, and the stored RD is ``S * phi'`` clamped to [45, 500].
The game keeps the pre-game ``rating = int(r)`` and ``ratingDiff = int(r') - int(r)`` (lila
truncates), so the true change ``d = r' - r`` lies in ``(ratingDiff - 1, ratingDiff + 1)``
(triangular around ratingDiff: the difference of two fractional parts). Inverting::

    c = d / 1.02 if d > 0 else d                        (undo the regulator)
    RD'^2 = S * c / (g (s - E))                         (the post-game RD, unclamped)

So each game *measures* the post-game RD: exactly up to the truncation of ``ratingDiff`` (and
of both ratings inside E) and the opponent's RD inside g and E. The relative error of RD' is
half that of c: a ratingDiff of 20 pins RD' to +-2.5 %, a ratingDiff of 2 only to about -30 %
/ +22 %; with ``s - E`` near 0 (a draw between equals) or ``|ratingDiff| < 2`` the game says next
to nothing and is not used for the point estimate.

Between games the RD follows Lichess's deterministic path (pipeline.domain.glicko step 1): decay on
read, ``RD_pre^2 = RD_post^2 + t * sigma^2 * S^2`` with ``t`` = days since the player's previous
game x 0.21436, then the update above. The volatility sigma is not published either; each
player's is learnt as they play: every usable game after idle time observes
``sigma^2 = (RD_pre^2 - RD_post_previous^2) / (t S^2)`` (RD_pre from the game's own measurement),
averaged with inverse-variance weights around a prior of 0.075 (between lila's "typical" 0.06 and
a new account's 0.09). Per player, in the order Lichess rates games (by last move: a game is
rated when it ends), each game's estimate combines this
*prediction* (the previous estimate carried forward) with the game's own *measurement*:

* ``rd_est``: inverse-variance mean of prediction and measurement (delta-method standard
  deviations: truncation of ratingDiff and of the two ratings, the opponent's RD, the volatility),
  then clipped into the interval below and clamped to [45, 500] as Lichess stores it.
* ``[rd_low, rd_high]``: a guaranteed interval under the model: the intersection of what the
  measurement allows (every truncation at its extremes, the opponent's RD anywhere in its own
  interval) and what the previous interval allows (volatility anywhere in [0, 0.1]). If the two
  do not intersect, the game contradicts the carried interval (a missing game, a rating refund):
  the measurement's interval alone is kept.
* ``rd_method``: ``estimated`` (this game's ratingDiff was used), ``carried`` (it was too weak:
  the previous estimate carried forward through the idle time's decay and this game's update),
  ``unknown`` (nothing to go on yet: no usable game since the player's first stored one;
  ``rd_est`` is NULL, the interval is what is known, at worst [45, 500]).

The opponent's pre-game RD (inside g and E): a tracked player's own running estimate (decayed to
the game); for anyone else (outsiders, whose games with others are not stored), the inversion of
*their own* ratingDiff in the same game, which pins it as well as ours pins ours; when that is
unusable too, ``default_opponent_rd`` (60: lila's "typical player" RD in
``Glicko.ratingPeriodsPerDay``'s comment, "60 -> 110 in 1 year") inside [45, 500]. Both sides of
a game depend on each other only through g and E, so the two are solved together by a few
fixed-point rounds.

A player's first stored game has no prior: its measurement alone decides. The data cannot tell
an account's first game ever from its first game since ``history_since``, but a first stored game
at exactly 1500 is most likely a new account's, which Lichess plays at RD 500: that is a loose
point prior (the interval stays 45-500). Such a game usually moves the rating by 100-250 points,
which the inversion reads to about +-1 % anyway; the prior matters only when it does not (a loss
to a much stronger player), so that the row is ``carried`` from 500 instead of ``unknown``.

Constants (each from :mod:`pipeline.domain.glicko`, which cites lila / scalachess):
SCALE 173.7178 (Glickman step 2), RATING_PERIODS_PER_DAY 0.21436 (lila), RD clamps 45 / 500
(lila min/maxDeviation), MAX_VOLATILITY 0.1 (lila, also applied on read), the antichess gain
factor 1.02 (lila RatingRegulator), MAX_RATING_DELTA 700 and MIN_RATING 400 (lila addOrReset /
cap). This module's own choices are below, each with its reason.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import polars as pl

from pipeline.domain import glicko

__all__ = ["ESTIMATOR_VERSION", "INPUT_COLUMNS", "METHODS", "OUTPUT_SCHEMA", "RdMethod", "estimate_rd", "post_game_rd"]

# The estimator's version. Bump it in the same commit as any change that would estimate a stored
# game differently: the saved estimator state (rating_estimate_tracks) is keyed by it, and state
# saved under another version is never resumed from, so the next night rates every game afresh.
ESTIMATOR_VERSION = 1

RdMethod = Literal["estimated", "carried", "unknown"]
METHODS: tuple[RdMethod, ...] = ("estimated", "carried", "unknown")

S = glicko.SCALE
RD_MIN, RD_MAX = glicko.MIN_DEVIATION, glicko.MAX_DEVIATION
GAIN_FACTOR = glicko.ANTICHESS_REGULATOR_FACTOR

# --- this module's choices ----------------------------------------------------------------------
DEFAULT_OPPONENT_RD = 60.0  # lila: "a typical player's RD goes from 60 -> 110 in 1 year"
DEFAULT_OPPONENT_SD = 40.0  # how far an unknown opponent's RD may plausibly be from that
SIGMA_MAX = glicko.MAX_VOLATILITY  # the hard bound: lila caps volatility at 0.1 on read
SIGMA_MIN = 0.0  # the hard bound the other way (no decay at all)
SIGMA_PRIOR = 0.075  # volatility prior for the point prediction: the middle of the
SIGMA2_PRIOR_SD = 0.0025  # plausible 0.04-0.1 (lila's 0.06 "typical", new accounts 0.09):
# sigma^2 in [0.0016, 0.01], sd ~ range / sqrt(12); each player's own
# sigma^2 is then learnt from how much their RD grew over idle time
NEW_PLAYER_SD = 25.0  # a first stored game at 1500: RD 500 (new account), loosely held
MIN_USABLE_DIFF = 2  # |ratingDiff| < 2: truncation leaves c anywhere in (-1, 1) or (0, 2)
MIN_SURPRISE = 0.01  # |s - E| below this (anywhere in its range): the game says nothing
TRUNCATION_SD = math.sqrt(1 / 6)  # sd of (fractional part before - after): triangular on (-1, 1)
ROUNDS = 3  # fixed-point rounds between the two sides of a game

INPUT_COLUMNS = (
    "game_id",
    "created_at",
    "last_move_at",
    "white_id",
    "black_id",
    "white_rating",
    "black_rating",
    "white_rating_diff",
    "black_rating_diff",
    "winner",
    "status",
)
OUTPUT_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "game_id": pl.Utf8,
    "user_id": pl.Utf8,
    "played_at": pl.Datetime("us", "UTC"),
    "rating_before": pl.Int32,
    "rating_after": pl.Int32,
    "rd_est": pl.Float64,
    "rd_low": pl.Float64,
    "rd_high": pl.Float64,
    "rd_method": pl.Utf8,
}
_MS_PER_DAY = 86_400_000


class _Belief(NamedTuple):
    """What is known of one RD: a guaranteed interval and, when there is one, a point with its sd.
    (A named tuple, not a frozen dataclass: the estimator makes several per game side, and a
    frozen dataclass's constructor cost a sixth of the audit stage on the demo.)"""

    lo: float
    hi: float
    rd: float | None = None
    sd: float = math.inf

    def point_or(self, default: float) -> float:
        return _clip(self.rd if self.rd is not None else default, self.lo, self.hi)


@dataclass
class _Track:
    """A tracked player's state after their latest game: the stored (clamped) post-game RD, when,
    and the running weighted estimate of their volatility squared (sum w y / sum w, the prior
    counted as one observation)."""

    belief: _Belief
    at: dt.datetime
    w_sum: float = 1.0 / SIGMA2_PRIOR_SD**2
    wy_sum: float = SIGMA_PRIOR**2 / SIGMA2_PRIOR_SD**2

    @property
    def sigma2(self) -> float:
        return _clip(self.wy_sum / self.w_sum, 0.0, SIGMA_MAX**2)

    @property
    def sigma2_sd(self) -> float:
        return 1.0 / math.sqrt(self.w_sum)

    def learn_sigma(self, pre: _Belief, periods: float) -> None:
        """One observation of sigma^2 = (pre^2 - previous post^2) / (t S^2), weighted by 1 / its
        variance (delta method); skipped when a clamp hides the growth or there is no point."""
        prev = self.belief
        if (
            pre.rd is None
            or prev.rd is None
            or periods <= 0
            or not math.isfinite(pre.sd)
            or pre.rd >= RD_MAX
            or prev.rd >= RD_MAX
        ):
            return
        y = (pre.rd**2 - prev.rd**2) / (periods * S * S)
        var = ((2 * pre.rd * pre.sd) ** 2 + (2 * prev.rd * prev.sd) ** 2) / (periods * S * S) ** 2
        if var > 0:
            self.w_sum += 1.0 / var
            self.wy_sum += y / var


UNKNOWN = _Belief(RD_MIN, RD_MAX)


def _clip(x: float, lo: float, hi: float) -> float:
    """min(max(x, lo), hi), written out (the same value for every input, NaN and -0.0 included:
    max returns its first argument unless the second is greater, min unless the second is less),
    since the estimator clips about thirty times a game."""
    y = lo if lo > x else x
    return hi if hi < y else y


def _g(rd: float) -> float:
    phi = rd / S
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(g: float, diff_points: float) -> float:
    return 1.0 / (1.0 + math.exp(-g * diff_points / S))


def _post(pre: float, q: float) -> float:
    """Post-game RD from the pre-game RD and the game's information q (Glicko-1 units)."""
    return 1.0 / math.sqrt(1.0 / (pre * pre) + q / (S * S))


def _pre(post: float, q: float) -> float:
    """The inverse of :func:`_post`; RD_MAX when no pre-game RD up to the maximum explains it."""
    if post <= 0:
        return 0.0
    inv = 1.0 / (post * post) - q / (S * S)
    return RD_MAX if inv <= 1.0 / (RD_MAX * RD_MAX) else 1.0 / math.sqrt(inv)


def _decay(rd: float, periods: float, sigma: float) -> float:
    """lila ``liveDeviation``: RD_now = S sqrt((RD/S)^2 + t sigma^2), clamped to [45, 500]."""
    return _clip(math.sqrt(rd * rd + periods * sigma * sigma * S * S), RD_MIN, RD_MAX)


def _periods(since: dt.datetime, at: dt.datetime) -> float:
    millis = max((at - since) // dt.timedelta(milliseconds=1), 0)
    return millis * glicko.RATING_PERIODS_PER_DAY / _MS_PER_DAY


def _predict_pre(track: _Track | None, at: dt.datetime, rating: int) -> _Belief:
    """A tracked player's pre-game RD: the previous post-game belief decayed to `at`. Before their
    first stored game nothing is known, except that a first game at exactly 1500 is most likely
    an account's first rated antichess game ever, which Lichess plays at RD 500 (a point prior
    only: the interval stays [45, 500], since the data cannot tell)."""
    if track is None:
        if rating == glicko.BASE_RATING:
            return _Belief(RD_MIN, RD_MAX, RD_MAX, NEW_PLAYER_SD)
        return UNKNOWN
    b, t = track.belief, _periods(track.at, at)
    lo, hi = _decay(b.lo, t, SIGMA_MIN), _decay(b.hi, t, SIGMA_MAX)
    if b.rd is None:
        return _Belief(lo, hi)
    rd = _decay(b.rd, t, math.sqrt(track.sigma2))
    # delta method: d pre / d post = post / pre; d pre / d sigma^2 = t S^2 / (2 pre)
    sd = math.hypot(b.sd * b.rd / rd, t * S * S / (2 * rd) * track.sigma2_sd)
    return _Belief(lo, hi, _clip(rd, lo, hi), sd)


class _Side(NamedTuple):
    rating: int  # pre-game integer rating
    diff: int | None  # ratingDiff
    score: float  # 1 win, 0.5 draw, 0 loss


def _info_range(opp: _Belief, rating_gap: float) -> tuple[float, float, float, float]:
    """(g_lo, g_hi, E_lo, E_hi) over the opponent's RD interval and the ratings' truncation
    (each true rating lies in [shown, shown + 1), so the true gap within +-1 of the shown gap)."""
    g_lo, g_hi = _g(opp.hi), _g(opp.lo)
    gx = [g * (rating_gap + e) for g in (g_lo, g_hi) for e in (-1.0, 1.0)]
    return g_lo, g_hi, _expected(1.0, min(gx)), _expected(1.0, max(gx))


def _q_range(info: tuple[float, float, float, float]) -> tuple[float, float]:
    """Bounds of q = g^2 E (1 - E) over the same uncertainty (`info`: :func:`_info_range`'s)."""
    g_lo, g_hi, e_lo, e_hi = info
    ee = [e * (1 - e) for e in (e_lo, e_hi)]
    ee_max = 0.25 if e_lo <= 0.5 <= e_hi else max(ee)
    return g_lo * g_lo * min(ee), g_hi * g_hi * ee_max


def _q_point(opp_rd: float, rating_gap: float) -> float:
    g = _g(opp_rd)
    e = _expected(g, rating_gap)
    return g * g * e * (1 - e)


def _change_range(side: _Side, sign: int) -> tuple[float, float] | None:
    """|c| (the unregulated Glicko change) allowed by the truncated ratingDiff, or None when a
    clamp may have cut the change (the +-700 cap, the 400 floor): then it measures nothing."""
    d = side.diff
    assert d is not None
    if abs(d) >= glicko.MAX_RATING_DELTA - 1 or (sign < 0 and side.rating + d <= glicko.MIN_RATING):
        return None
    if sign > 0:
        lo, hi = max(d - 1, 0) / GAIN_FACTOR, max(d + 1, 0) / GAIN_FACTOR
    else:
        lo, hi = max(-(d + 1), 0), max(-(d - 1), 0)
    return (lo, hi) if hi > 0 else None


def _rd_from_change(c: float, g: float, surprise: float) -> float:
    """RD' = sqrt(S c / (g (s - E))), with c and s - E of the same sign."""
    return math.sqrt(max(S * c / (g * surprise), 0.0))


def post_game_rd(change: float, score: float, rating_gap: float, opponent_rd: float) -> float:
    """The exact inversion for one game without rounding: the post-game RD (unclamped) of a player
    whose rating moved by `change` Glicko-1 points (after the 1.02 gain factor) with result
    `score` (1, 0.5, 0) against an opponent `rating_gap` points below them (pre-game ratings) with
    pre-game RD `opponent_rd`: ``sqrt(S c / (g (s - E)))``, ``c = change / 1.02`` for a gain."""
    c = change / GAIN_FACTOR if change > 0 else change
    g = _g(opponent_rd)
    surprise = score - _expected(g, rating_gap)
    if c == 0 or surprise == 0 or (c > 0) != (surprise > 0):
        raise ValueError(f"change {change!r} with s - E = {surprise!r}: expected both non-zero and of one sign")
    return _rd_from_change(abs(c), g, abs(surprise))


def _measure(
    side: _Side, gap: float, info: tuple[float, float, float, float], opp: _Belief, default_rd: float
) -> tuple[_Belief | None, bool]:
    """What this game's ratingDiff says of the post-game RD (unclamped): (belief or None, usable
    for the point estimate). None: it bounds nothing (s - E may be 0, or a clamp hit). `gap`: the
    side's rating less the opponent's; `info`: :func:`_info_range` of the opponent and `gap`."""
    if side.diff is None:
        return None, False
    g_lo, g_hi, e_lo, e_hi = info
    s_lo, s_hi = side.score - e_hi, side.score - e_lo
    if s_lo < MIN_SURPRISE and s_hi > -MIN_SURPRISE:
        return None, False  # s - E may be (near) 0: any RD explains the change
    sign = 1 if s_lo > 0 else -1
    surprise_lo, surprise_hi = (s_lo, s_hi) if sign > 0 else (-s_hi, -s_lo)
    c = _change_range(side, sign)
    if c is None:
        return None, False
    lo = _rd_from_change(c[0], g_hi, surprise_hi)
    hi = _rd_from_change(c[1], g_lo, surprise_lo)
    if abs(side.diff) < MIN_USABLE_DIFF or (sign > 0) != (side.diff > 0):
        return _Belief(lo, hi), False
    # the point and its sd (delta method, by finite differences over each uncertain input)
    c0 = abs(side.diff) / (GAIN_FACTOR if sign > 0 else 1.0)
    opp_rd, opp_sd = opp.point_or(default_rd), min(opp.sd, DEFAULT_OPPONENT_SD)

    def rd_at(gap_: float, g: float) -> float:
        surprise = abs(side.score - _expected(g, gap_))
        return _rd_from_change(c0, g, max(surprise, 1e-9))

    def g_of(orb: float) -> float:
        return _g(_clip(orb, opp.lo, opp.hi))

    g0 = g_of(opp_rd)  # shared by the point and the rating-gap differences
    rd0 = rd_at(gap, g0)
    sd_c = rd0 * (TRUNCATION_SD / (GAIN_FACTOR if sign > 0 else 1.0)) / (2 * c0)
    h = TRUNCATION_SD
    sd_gap = abs(rd_at(gap + h, g0) - rd_at(gap - h, g0)) / 2
    sd_opp = abs(rd_at(gap, g_of(opp_rd + opp_sd)) - rd_at(gap, g_of(opp_rd - opp_sd))) / 2
    sd = math.sqrt(sd_c * sd_c + sd_gap * sd_gap + sd_opp * sd_opp)
    return _Belief(lo, hi, _clip(rd0, lo, hi), sd), True


def _combine(
    prior_pre: _Belief, side: _Side, opp_rating: int, opp: _Belief, default_rd: float
) -> tuple[_Belief, _Belief, RdMethod, _Belief | None]:
    """One side's post-game RD (unclamped) and pre-game RD after seeing this game, the method, and
    the pre-game RD this game's ratingDiff alone implies (None when it is not usable)."""
    gap = float(side.rating - opp_rating)
    info = _info_range(opp, gap)  # read by both the q bounds and the measurement
    q_lo, q_hi = _q_range(info)
    q0 = _q_point(opp.point_or(default_rd), gap)
    pred_lo, pred_hi = _post(prior_pre.lo, q_hi), _post(prior_pre.hi, q_lo)
    pred_rd = pred_sd = None
    if prior_pre.rd is not None:
        pred_rd = _post(prior_pre.rd, q0)
        pred_sd = prior_pre.sd * (pred_rd / prior_pre.rd) ** 3  # d post / d pre = (post / pre)^3
    meas, usable = _measure(side, gap, info, opp, default_rd)
    lo, hi = pred_lo, pred_hi
    if meas is not None:
        lo, hi = max(lo, meas.lo), min(hi, meas.hi)
        if lo > hi:  # the game contradicts the carried interval
            lo, hi = meas.lo, meas.hi
    meas_pre = None
    if usable and meas is not None and meas.rd is not None:
        method: RdMethod = "estimated"
        m_pre = _pre(meas.rd, q0)
        meas_pre = _Belief(RD_MIN, RD_MAX, m_pre, meas.sd * (m_pre / meas.rd) ** 3)
        if pred_rd is not None and pred_sd is not None and pred_sd > 0 and meas.sd > 0:
            w_p, w_m = 1 / (pred_sd * pred_sd), 1 / (meas.sd * meas.sd)
            rd = (w_p * pred_rd + w_m * meas.rd) / (w_p + w_m)
            sd = 1 / math.sqrt(w_p + w_m)
        else:
            rd, sd = meas.rd, meas.sd
    elif pred_rd is not None:
        method, rd, sd = "carried", pred_rd, pred_sd or 0.0
    else:
        method, rd, sd = "unknown", None, math.inf
    post = _Belief(lo, hi, None if rd is None else _clip(rd, lo, hi), sd)
    pre_lo = max(prior_pre.lo, min(_pre(lo, q_lo), RD_MAX))
    pre_hi = min(prior_pre.hi, _pre(hi, q_hi))
    if pre_lo > pre_hi:
        pre_lo, pre_hi = prior_pre.lo, prior_pre.hi
    if post.rd is None:
        pre = _Belief(pre_lo, pre_hi, prior_pre.rd, prior_pre.sd)
    else:
        pre_rd = _pre(post.rd, q0)
        pre = _Belief(pre_lo, pre_hi, _clip(pre_rd, pre_lo, pre_hi), sd * (pre_rd / post.rd) ** 3)
    return post, pre, method, meas_pre


def _stored(b: _Belief) -> _Belief:
    """Lichess stores the post-game RD clamped to [45, 500]."""
    return _Belief(
        _clip(b.lo, RD_MIN, RD_MAX),
        _clip(b.hi, RD_MIN, RD_MAX),
        None if b.rd is None else _clip(b.rd, RD_MIN, RD_MAX),
        b.sd,
    )


_SCORE: dict[str | None, tuple[float, float]] = {"white": (1.0, 0.0), "black": (0.0, 1.0), None: (0.5, 0.5)}


def estimate_rd(
    games: pl.DataFrame, default_opponent_rd: float = DEFAULT_OPPONENT_RD, *, players: Collection[str] | None = None
) -> pl.DataFrame:
    """One row per (game_id, user_id) side with a rating and a ratingDiff: the post-game RD
    estimate, its interval and how it was obtained (TEAM-CAP-5; see the module docstring).

    `games`: rated antichess games, columns :data:`INPUT_COLUMNS` (``winner`` 'white', 'black' or
    None for a draw). `players`: the ids whose every rated antichess game is in `games` (the
    registered players); their RD is tracked game to game and only their rows are returned.
    None: everyone in `games` is tracked (a closed world, such as a simulation). Anyone else is
    an outsider whose RD is read afresh from each game (their other games are not stored).
    `default_opponent_rd`: an outsider's pre-game RD when their own ratingDiff says nothing.
    """
    return resume_rd(games, [], default_opponent_rd, players=players)[0]


_LATER = dt.timedelta(seconds=1)  # `until` default: after any game
ORDER = ("last_move_at", "created_at", "game_id")  # the order games are rated in
TRACK_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "user_id": pl.Utf8,
    "lo": pl.Float64,
    "hi": pl.Float64,
    "rd": pl.Float64,
    "sd": pl.Float64,
    "rated_at": pl.Datetime("us", "UTC"),
    "w_sum": pl.Float64,
    "wy_sum": pl.Float64,
}


def resume_rd(
    games: pl.DataFrame,
    state: list[dict[str, Any]],
    default_opponent_rd: float = DEFAULT_OPPONENT_RD,
    *,
    players: Collection[str] | None = None,
    until: Mapping[str, dt.datetime] | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """:func:`estimate_rd` continued from `state`, the tracked players' state after an earlier
    call (rows of :data:`TRACK_SCHEMA`, [] to start afresh): for `games` that all come after the
    games of that call in :data:`ORDER`, the rows are exactly those one call on all the games
    would give for them. Returns (the rows for `games`, the state after them).
    `until`: a player named there is tracked only for games that end before their time (the
    audits read nothing of theirs after it); an opponent they meet later counts as untracked."""
    missing = [c for c in INPUT_COLUMNS if c not in games.columns]
    if missing:
        raise ValueError(f"estimate_rd: games lack column(s) {', '.join(missing)}: expected {', '.join(INPUT_COLUMNS)}")
    if not RD_MIN <= default_opponent_rd <= RD_MAX:
        raise ValueError(f"default_opponent_rd {default_opponent_rd!r}: expected {RD_MIN:g}-{RD_MAX:g}")
    tracked = None if players is None else frozenset(p.lower() for p in players)
    default = _Belief(RD_MIN, RD_MAX, default_opponent_rd, DEFAULT_OPPONENT_SD)
    tracks = {
        str(r["user_id"]): _Track(_Belief(r["lo"], r["hi"], r["rd"], r["sd"]), r["rated_at"], r["w_sum"], r["wy_sum"])
        for r in state
    }
    rows: list[tuple[object, ...]] = []
    ordered = games.sort(list(ORDER))
    for g in ordered.iter_rows(named=True):
        rows.extend(_rate_game(g, tracked, tracks, default, until or {}))
    after = pl.DataFrame(
        [
            (u, t.belief.lo, t.belief.hi, t.belief.rd, t.belief.sd, t.at, t.w_sum, t.wy_sum)
            for u, t in sorted(tracks.items())
        ],
        schema=TRACK_SCHEMA,
        orient="row",
    )
    return pl.DataFrame(rows, schema=OUTPUT_SCHEMA, orient="row"), after


def _rate_game(
    g: dict[str, Any],
    tracked: frozenset[str] | None,
    tracks: dict[str, _Track],
    default: _Belief,
    until: Mapping[str, dt.datetime],
) -> Iterable[tuple[object, ...]]:
    """The output rows of one game, for each tracked side whose rating it changed; updates `tracks`."""
    at = _game_time(g)
    sides = _sides(g)
    if sides is None:
        return []  # the game changed no rating (or we cannot read it)
    ids = (g["white_id"], g["black_id"])
    is_tracked = [
        ids[i] is not None and (tracked is None or ids[i] in tracked) and at < until.get(ids[i], at + _LATER)
        for i in (0, 1)
    ]
    if not any(is_tracked):
        return []  # nothing of this game is kept, and no track moves
    priors = [_predict_pre(tracks.get(ids[i]), at, sides[i].rating) if is_tracked[i] else default for i in (0, 1)]
    posts, methods, meas_pres = _settle(priors, sides, default, is_tracked)
    out = []
    for i in (0, 1):
        post, diff = posts[i], sides[i].diff
        if not is_tracked[i] or diff is None or post is None:
            continue
        stored = _stored(post)
        _update_track(tracks, str(ids[i]), stored, at, meas_pres[i])
        out.append(
            (
                g["game_id"],
                ids[i],
                at,
                sides[i].rating,
                sides[i].rating + diff,
                stored.rd,
                stored.lo,
                stored.hi,
                methods[i],
            )
        )
    return out


def _game_time(g: dict[str, object]) -> dt.datetime:
    """The game's last move time, which must be timezone-aware; and a readable winner."""
    at = g["last_move_at"]
    assert isinstance(at, dt.datetime)
    if at.utcoffset() is None:
        raise ValueError(f"estimate_rd: game {g['game_id']}: last_move_at {at!r} is naive; expected UTC")
    if g["winner"] not in _SCORE:
        raise ValueError(f"estimate_rd: game {g['game_id']}: winner {g['winner']!r}: expected white, black or None")
    return at


def _sides(g: dict[str, Any]) -> list[_Side] | None:
    """White's and black's rating, rating change and score; None when the game changed no rating
    (a rating missing, or both changes)."""
    ratings = (g["white_rating"], g["black_rating"])
    diffs = (g["white_rating_diff"], g["black_rating_diff"])
    if any(r is None for r in ratings) or all(d is None for d in diffs):
        return None
    return [_Side(int(ratings[i]), None if diffs[i] is None else int(diffs[i]), _SCORE[g["winner"]][i]) for i in (0, 1)]


def _settle(
    priors: list[_Belief], sides: list[_Side], default: _Belief, wanted: list[bool]
) -> tuple[list[_Belief | None], list[RdMethod], list[_Belief | None]]:
    """Each `wanted` side's posterior, method and measured pre-game belief (None, 'unknown', None
    for the others): each side's pre-game belief depends on the other's, so the two are refined
    together for ROUNDS rounds. Round r of a side reads only the other side's pre-game belief
    from round r - 1, so only the combinations a wanted side's last round depends on are
    computed: all 2 x ROUNDS when both sides are wanted, a chain of ROUNDS alternating between
    the sides when one is (a tracked player against an outsider: most games). The values are
    those of every round computed in full."""
    assert default.rd is not None  # the default opponent's belief is a point (estimate_rd builds it so)
    default_rd = default.rd
    done: dict[tuple[int, int], tuple[_Belief, _Belief, RdMethod, _Belief | None]] = {}

    def combined(r: int, i: int) -> tuple[_Belief, _Belief, RdMethod, _Belief | None]:
        """Side i's _combine in round r (1-based), against the other side's pre-game belief after
        round r - 1 (its prior before round 1)."""
        if (r, i) not in done:
            o = 1 - i
            opp_pre = priors[o] if r == 1 else combined(r - 1, o)[1]
            done[r, i] = _combine(priors[i], sides[i], sides[o].rating, opp_pre, default_rd)
        return done[r, i]

    posts: list[_Belief | None] = [None, None]
    methods: list[RdMethod] = ["unknown", "unknown"]
    meas_pres: list[_Belief | None] = [None, None]
    for i in (0, 1):
        if wanted[i]:
            posts[i], _, methods[i], meas_pres[i] = combined(ROUNDS, i)
    return posts, methods, meas_pres


def _update_track(
    tracks: dict[str, _Track], user_id: str, stored: _Belief, at: dt.datetime, meas_pre: _Belief | None
) -> None:
    """The player's track after a game: started at it, or its sigma learned and its belief moved on."""
    track = tracks.get(user_id)
    if track is None:
        tracks[user_id] = _Track(stored, at)
        return
    if meas_pre is not None:
        track.learn_sigma(meas_pre, _periods(track.at, at))
    track.belief, track.at = stored, at
