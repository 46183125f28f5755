"""One game's measurement of each side's post-game rating deviation (RD), the maths of
:mod:`pipeline.domain.rd` (its docstring derives it): Glicko-2's update inverted from Lichess's
``rating``/``ratingDiff`` (:func:`post_game_rd`), the interval every truncation and the opponent's
RD allow (:func:`_measure`), and that measurement combined with the prediction carried from the
player's previous game (:func:`_combine`), as Lichess stores it (:func:`_stored`).

Pure: floats in, floats out.
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple

from pipeline.domain import glicko

RdMethod = Literal["estimated", "carried", "unknown"]

S = glicko.SCALE
RD_MIN, RD_MAX = glicko.MIN_DEVIATION, glicko.MAX_DEVIATION
GAIN_FACTOR = glicko.ANTICHESS_REGULATOR_FACTOR

# --- this module's choices (with the estimator's, in pipeline/domain/rd.py) ----------------------
DEFAULT_OPPONENT_SD = 40.0  # how far an unknown opponent's RD may plausibly be from rd.DEFAULT_OPPONENT_RD
MIN_USABLE_DIFF = 2  # |ratingDiff| < 2: truncation leaves c anywhere in (-1, 1) or (0, 2)
MIN_SURPRISE = 0.01  # |s - E| below this (anywhere in its range): the game says nothing
TRUNCATION_SD = math.sqrt(1 / 6)  # sd of (fractional part before - after): triangular on (-1, 1)


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
