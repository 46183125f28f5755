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
cap). The estimator's own choices are below, each with its reason (those of one game's measurement
in :mod:`pipeline.domain.rd_game`).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from pipeline.domain import glicko
from pipeline.domain.rd_game import (
    DEFAULT_OPPONENT_SD,
    RD_MAX,
    RD_MIN,
    RdMethod,
    S,
    _Belief,
    _clip,
    _combine,
    _decay,
    _Side,
    _stored,
    post_game_rd,
)

__all__ = ["ESTIMATOR_VERSION", "INPUT_COLUMNS", "METHODS", "OUTPUT_SCHEMA", "RdMethod", "estimate_rd", "post_game_rd"]

# The estimator's version. Bump it in the same commit as any change that would estimate a stored
# game differently: the saved estimator state (rating_estimate_tracks) is keyed by it, and state
# saved under another version is never resumed from, so the next night rates every game afresh.
ESTIMATOR_VERSION = 1

METHODS: tuple[RdMethod, ...] = ("estimated", "carried", "unknown")

# --- this module's choices ----------------------------------------------------------------------
DEFAULT_OPPONENT_RD = 60.0  # lila: "a typical player's RD goes from 60 -> 110 in 1 year"
SIGMA_MAX = glicko.MAX_VOLATILITY  # the hard bound: lila caps volatility at 0.1 on read
SIGMA_MIN = 0.0  # the hard bound the other way (no decay at all)
SIGMA_PRIOR = 0.075  # volatility prior for the point prediction: the middle of the
SIGMA2_PRIOR_SD = 0.0025  # plausible 0.04-0.1 (lila's 0.06 "typical", new accounts 0.09):
# sigma^2 in [0.0016, 0.01], sd ~ range / sqrt(12); each player's own
# sigma^2 is then learnt from how much their RD grew over idle time
NEW_PLAYER_SD = 25.0  # a first stored game at 1500: RD 500 (new account), loosely held
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
