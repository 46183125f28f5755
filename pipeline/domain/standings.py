"""Swiss standings after every round.

Primary score (TEAM-SCORE-5): match points, 2/1/0 by default (configurable), or game points for
individual events (ACWC-Q-2). Tiebreaks in the stage's order: TEAM-TB-1 points difference
(scored − conceded), points scored, Median-Buchholz; ACWC-Q-3 Median-Buchholz, cumulative score
(the running score after each round, summed), seed (the seeding rating, higher first); ACWC-C-2
mutual match score and mutual game score among the entrants tied at that point, re-applied to
each sub-group they leave tied (counting only its own matches) before the overall game score
and the TD's order (:func:`_ranked`). Kashdan
(the ACWC 2022-2024 books' third tiebreak) is available: per match of the stage 4 for a win, 2 for
a draw, 1 for a loss and 0 for an unplayed round (Kashdan's weights, which reward playing; the
stage's ``kashdan`` table changes them). The books score rounds as 10-game matches, so Kashdan
counts matches, the unit the Swiss pairs.

Median-Buchholz: the sum of the opponents' primary scores after the round, without the single
highest and the single lowest (fewer than three contributions give 0). How unplayed rounds enter
is the stage's `buchholz_policy` (pipeline/domain/tiebreak.py): `fide-2026` by default (FIDE's current
rules: a dummy opponent for the entrant's own unplayed rounds, scoring at most a draw a round),
`fide-2024` (the dummy scores the entrant's own score) or `plain` (as Challonge: nothing). A
round an entrant was not paired in while others played is an unplayed round (`absent`).

Byes (pairings.csv rows with an empty b): a pairing-allocated bye (``pab``) and a full-point
bye score as the narrowest win — the win's match points, the stage's ``pab_points_scored`` (by
default the winning total: 289 of 576, 5.5 of 10) scored and the rest of the maximum conceded; a
requested half-point bye scores a draw (half the maximum each way), a zero-point bye nothing. A
bye is not a match played; in Median-Buchholz it is an unplayed round of its kind.

A pending match (neither side has won and the round is still open) does not count yet. An
unplayed match (a board with no game and no TD ruling after its window and margin, and no side
at the winning total: pipeline/domain/scoring.py) gives no points and no match points and is not a match
played; in Median-Buchholz it is an unplayed round (`absent`) for both entrants, as in Kashdan (0)
and the cumulative score (nothing added that round), until the TD's ruling scores it.
Entrants with equal scores on every criterion share a rank (1, 2, 2, 4).

Pure: takes team matches and entrants; returns frozen rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from pipeline.domain import tiebreak
from pipeline.domain.scoring import TeamMatch, winning_points
from pipeline.model import Bye, Stage

UNSCORED = ("pending", "unplayed")  # outcomes that give no points, match points or match played
BYE_ENTRY_KIND: dict[str, tiebreak.Kind] = {"pab": "pab", "full": "full_bye", "half": "half_bye", "zero": "zero_bye"}


@dataclass(frozen=True)
class Standing:
    stage: str
    after_round: int
    rank: int
    entrant: str
    matches_played: int
    match_points: float
    points_scored: float
    points_conceded: float
    points_difference: float
    median_buchholz: float
    cumulative: float = 0.0  # ACWC-Q-3: the sum of the running primary score after each round
    seed_rating: float | None = None  # ACWC-SEED-1: the seeding view's rating (a mean, so it may end in .5)
    pool: int | None = None  # round-robin stages: the pool (1, 2, ...) the entrant plays in
    byes: int = 0  # byes received up to the round (pairings.csv rows with an empty b)
    kashdan: float = 0.0  # Kashdan: 4 per match won, 2 drawn, 1 lost, 0 unplayed (stage's kashdan table)


def pools(entrants: tuple[str, ...], matches: list[TeamMatch]) -> list[tuple[str, ...]]:
    """The groups of entrants that play each other (ACWC-C-1's pools), in entrant order."""
    parent = {e: e for e in entrants}

    def root(e: str) -> str:
        while parent[e] != e:
            parent[e] = parent[parent[e]]
            e = parent[e]
        return e

    for tm in matches:
        if tm.team_a in parent and tm.team_b in parent:
            parent[root(tm.team_a)] = root(tm.team_b)
    groups: dict[str, list[str]] = {}
    for e in entrants:
        groups.setdefault(root(e), []).append(e)
    return [tuple(g) for g in groups.values()]


def swiss_rounds(players: int) -> int:
    """ACWC-Q-1: a qualification Swiss of n players has floor(log2 n) + 2 rounds (32-63 → 7)."""
    return players.bit_length() - 1 + 2 if players > 0 else 0


def bye_score(stage: Stage, boards: int, kind: str) -> tuple[float, float, float]:
    """(match points, points scored, points conceded) of a bye of `kind` (see the module doc)."""
    m = stage.match_points
    maximum = stage.board_max_points * boards
    if kind in ("pab", "full"):
        scored = stage.pab_points_scored if stage.pab_points_scored is not None else winning_points(stage, boards)
        return m.win, scored, maximum - scored
    if kind == "half":
        return m.draw, maximum / 2, maximum / 2
    return m.loss, 0.0, 0.0


def standings_after(
    stage: Stage,
    entrants: tuple[str, ...],
    matches: list[TeamMatch],
    after_round: int,
    seeds: dict[str, float] | None = None,
    td_order: tuple[str, ...] | None = None,
    byes: tuple[Bye, ...] = (),
    boards: int = 1,
) -> list[Standing]:
    """The stage's table after `after_round`: the primary score, then the stage's tiebreaks
    (_ranked), from the decided matches and the byes up to that round."""
    seeds = seeds or {}
    byes = tuple(b for b in byes if b.stage == stage.name and b.round <= after_round and b.entrant in entrants)
    inputs = _TableInputs(stage, entrants, matches, after_round, byes, boards)
    t = _totals(inputs)
    primary = t.match_points if stage.primary == "match_points" else t.scored
    values = _tiebreak_values(inputs, t, seeds, td_order)
    decided = [
        tm for tm in matches if tm.stage == stage.name and tm.round <= after_round and tm.outcome not in UNSCORED
    ]
    return [
        Standing(
            stage.name,
            after_round,
            rank,
            e,
            t.played[e],
            t.match_points[e],
            t.scored[e],
            t.conceded[e],
            values[e]["points_difference"],
            values[e]["median_buchholz"],
            values[e]["cumulative"],
            seeds.get(e),
            byes=sum(b.entrant == e for b in byes),
            kashdan=t.kashdan[e],
        )
        for rank, e in _ranked(stage, entrants, primary, values, decided)
    ]


@dataclass(frozen=True)
class _TableInputs:
    """What a stage's table after a round is computed from: the stage's entrants, the team matches
    (of every stage and round: each computation keeps the stage's up to `after_round`) and the
    stage's byes up to that round."""

    stage: Stage
    entrants: tuple[str, ...]
    matches: list[TeamMatch]
    after_round: int
    byes: tuple[Bye, ...]
    boards: int


@dataclass
class _Totals:
    """Each entrant's sums over the decided matches and byes up to a round (0 when none)."""

    match_points: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    scored: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    conceded: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    played: defaultdict[str, int] = field(default_factory=lambda: defaultdict(int))
    kashdan: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))


def _totals(u: _TableInputs) -> _Totals:
    """Match points, points scored and conceded, matches played and Kashdan points: a bye adds
    its kind's score (bye_score) but no match played and no Kashdan points."""
    t = _Totals()
    m = u.stage.match_points
    k_win, k_draw, k_loss = u.stage.kashdan
    for tm in u.matches:
        if tm.stage != u.stage.name or tm.round > u.after_round or tm.outcome in UNSCORED:
            continue
        for me, mine, theirs, side in (
            (tm.team_a, tm.a_points, tm.b_points, "a"),
            (tm.team_b, tm.b_points, tm.a_points, "b"),
        ):
            t.match_points[me] += m.draw if tm.outcome == "draw" else m.win if tm.outcome == side else m.loss
            t.kashdan[me] += k_draw if tm.outcome == "draw" else k_win if tm.outcome == side else k_loss
            t.scored[me] += mine
            t.conceded[me] += theirs
            t.played[me] += 1
    for bye in u.byes:
        bye_mp, bye_scored, bye_conceded = bye_score(u.stage, u.boards, bye.kind)
        t.match_points[bye.entrant] += bye_mp
        t.scored[bye.entrant] += bye_scored
        t.conceded[bye.entrant] += bye_conceded
    return t


def _tiebreak_values(
    u: _TableInputs, t: _Totals, seeds: dict[str, float], td_order: tuple[str, ...] | None
) -> dict[str, dict[str, float]]:
    """Every tiebreak a stage may name, for each entrant: higher ranks higher."""
    stage = u.stage
    table = _rounds_table(u)
    draw = drawn_round(stage)
    cumulative = _cumulative(u)
    order = {e: i for i, e in enumerate(td_order or u.entrants)}
    values: dict[str, dict[str, float]] = {}
    for e in u.entrants:
        values[e] = {
            "points_difference": t.scored[e] - t.conceded[e],
            "points_scored": t.scored[e],
            "median_buchholz": tiebreak.buchholz(e, table, stage.buchholz_policy, draw, cut_low=1, cut_high=1),
            "cumulative": cumulative[e],
            "seed": float(seeds.get(e) or 0),  # a higher seeding rating ranks higher (ACWC-Q-3, ACWC-SEED-1)
            "td_order": -float(order.get(e, len(order))),  # earlier in the TD's list ranks higher (ACWC-C-2)
            "kashdan": t.kashdan[e],  # ACWC 2022-2024's third tiebreak; byes and unplayed rounds score 0
        }
    return values


def drawn_round(stage: Stage) -> float:
    """A drawn round's primary score (the dummy opponent's cap under ``fide-2026``)."""
    return stage.match_points.draw if stage.primary == "match_points" else stage.board_max_points / 2


def buchholz_table(
    stage: Stage,
    entrants: tuple[str, ...],
    matches: list[TeamMatch],
    after_round: int,
    byes: tuple[Bye, ...] = (),
    boards: int = 1,
) -> dict[str, list[tiebreak.Entry]]:
    """Each entrant's rounds up to `after_round` as its Median-Buchholz reads them (the table
    :func:`standings_after` ranks with), each entry naming its round: for explaining the numbers
    (``tiebreak.explain_buchholz(e, table, stage.buchholz_policy, drawn_round(stage), 1, 1)``)."""
    byes = tuple(b for b in byes if b.stage == stage.name and b.round <= after_round and b.entrant in entrants)
    return _rounds_table(_TableInputs(stage, entrants, matches, after_round, byes, boards))


def _primary_of_bye(stage: Stage, boards: int, kind: str) -> float:
    bye_mp, bye_scored, _ = bye_score(stage, boards, kind)
    return bye_mp if stage.primary == "match_points" else bye_scored


MUTUAL = ("mutual_match", "mutual_game")  # ACWC-C-2's direct-encounter criteria: relative to a tied group


def _ranked(
    stage: Stage,
    entrants: tuple[str, ...],
    primary: dict[str, float],
    values: dict[str, dict[str, float]],
    decided: list[TeamMatch],
) -> list[tuple[int, str]]:
    """(rank, entrant) best first: by the primary score, then the stage's tiebreaks in order.
    Entrants equal on every criterion share a rank (1, 2, 2, 4), listed by name.

    A run of mutual criteria (ACWC-C-2: mutual match score, mutual game score) is applied to the
    group tied at that point, counting only the matches among that group; when it separates some
    but not all of the group, it is applied again, from its first criterion, to each sub-group
    still tied (counting only the matches among that sub-group), and so on; a group it does not
    separate moves on to the criteria after it (the overall game score, then the TD's order)."""
    tiebreaks = stage.tiebreaks

    def split(group: list[str], value: Callable[[str], float]) -> list[list[str]]:
        by: dict[float, list[str]] = {}
        for e in group:
            by.setdefault(value(e), []).append(e)
        return [by[v] for v in sorted(by, reverse=True)]

    def rank(group: list[str], i: int) -> list[list[str]]:
        if len(group) == 1 or i >= len(tiebreaks):
            return [group]
        if tiebreaks[i] not in MUTUAL:
            return [c for sub in split(group, lambda e: values[e][tiebreaks[i]]) for c in rank(sub, i + 1)]
        j = i
        while j < len(tiebreaks) and tiebreaks[j] in MUTUAL:
            j += 1
        return mutual(group, i, j)

    def mutual(group: list[str], i: int, j: int) -> list[list[str]]:
        scores = _mutual_scores(stage, group, decided)
        classes = [group]
        for tb in tiebreaks[i:j]:
            column = {e: by_tb[tb] for e, by_tb in scores.items()}
            classes = [c for sub in classes for c in split(sub, column.__getitem__)]
        if len(classes) == 1:
            return rank(group, j)
        return [c for sub in classes for c in (mutual(sub, i, j) if len(sub) > 1 else [sub])]

    out: list[tuple[int, str]] = []
    for tied in (c for sub in split(list(entrants), lambda e: primary[e]) for c in rank(sub, 0)):
        at = len(out) + 1
        out += [(at, e) for e in sorted(tied, key=str.lower)]
    return out


def _mutual_scores(stage: Stage, group: list[str], decided: list[TeamMatch]) -> dict[str, dict[str, float]]:
    """ACWC-C-2's mutual match and game scores of each entrant of `group`, from the matches among them."""
    m = stage.match_points
    members = set(group)
    out = {e: {"mutual_match": 0.0, "mutual_game": 0.0} for e in group}
    for tm in decided:
        if tm.team_a in members and tm.team_b in members:
            for me, mine, side in ((tm.team_a, tm.a_points, "a"), (tm.team_b, tm.b_points, "b")):
                out[me]["mutual_match"] += m.draw if tm.outcome == "draw" else m.win if tm.outcome == side else m.loss
                out[me]["mutual_game"] += mine
    return out


def _rounds_table(u: _TableInputs) -> dict[str, list[tiebreak.Entry]]:
    """Each entrant's rounds for Buchholz: the primary points of each decided match, a bye of its
    kind, or an unplayed round (`absent`) where the entrant was not paired while others played."""
    stage, matches, byes = u.stage, u.matches, u.byes
    m = stage.match_points
    got: dict[tuple[str, int], tiebreak.Entry] = {
        (b.entrant, b.round): tiebreak.Entry(
            None, _primary_of_bye(stage, u.boards, b.kind), BYE_ENTRY_KIND[b.kind], b.round
        )
        for b in byes
    }
    rounds = {b.round for b in byes}
    for tm in matches:
        if tm.stage != stage.name or tm.round > u.after_round:
            continue
        rounds.add(tm.round)
        if tm.outcome in UNSCORED:
            continue  # pending: the round is left out; unplayed: an unplayed round (absent) below
        for me, opp, mine, side in ((tm.team_a, tm.team_b, tm.a_points, "a"), (tm.team_b, tm.team_a, tm.b_points, "b")):
            pts = (
                (m.draw if tm.outcome == "draw" else m.win if tm.outcome == side else m.loss)
                if stage.primary == "match_points"
                else mine
            )
            got[me, tm.round] = tiebreak.Entry(opp, pts, round=tm.round)
    pending = {
        (e, tm.round)
        for tm in matches
        if tm.stage == stage.name and tm.outcome == "pending"
        for e in (tm.team_a, tm.team_b)
    }
    return {
        e: [got.get((e, r), tiebreak.Entry(None, 0.0, "absent", r)) for r in sorted(rounds) if (e, r) not in pending]
        for e in u.entrants
    }


def _cumulative(u: _TableInputs) -> dict[str, float]:
    """ACWC-Q-3's cumulative score: the running primary score after round 1, plus after round 2, …
    (a bye's points count in its round, as the rule books give no exception)."""
    stage = u.stage
    m = stage.match_points
    per_round: dict[tuple[str, int], float] = defaultdict(float)
    for b in u.byes:
        per_round[b.entrant, b.round] += _primary_of_bye(stage, u.boards, b.kind)
    for tm in u.matches:
        if tm.stage != stage.name or tm.round > u.after_round or tm.outcome in UNSCORED:
            continue
        for me, mine, side in ((tm.team_a, tm.a_points, "a"), (tm.team_b, tm.b_points, "b")):
            if stage.primary == "match_points":
                per_round[me, tm.round] += m.draw if tm.outcome == "draw" else m.win if tm.outcome == side else m.loss
            else:
                per_round[me, tm.round] += mine
    out = {}
    for e in u.entrants:
        running = total = 0.0
        for r in range(1, u.after_round + 1):
            running += per_round.get((e, r), 0.0)
            total += running
        out[e] = total
    return out


def stage_standings(
    stage: Stage,
    entrants: tuple[str, ...],
    matches: list[TeamMatch],
    seeds: dict[str, float] | None = None,
    td_order: tuple[str, ...] | None = None,
    byes: tuple[Bye, ...] = (),
    boards: int = 1,
) -> list[Standing]:
    """Standings after each round that has a pairing (or a bye) in this stage."""
    rounds = sorted(
        {tm.round for tm in matches if tm.stage == stage.name} | {b.round for b in byes if b.stage == stage.name}
    )
    return [row for r in rounds for row in standings_after(stage, entrants, matches, r, seeds, td_order, byes, boards)]


def candidates_pools(qualified: list[str], champion: str | None, runner_up: str | None) -> tuple[list[str], list[str]]:
    """ACWC-C-1: the upper and lower pools of 6 from the qualification places (1-based below).

    Both previous finalists play: lower 10, 7, 6, 3, 1 + the runner-up; upper 9, 8, 5, 4, 2 + the
    champion. Only one plays: lower 11, 8, 7, 4, 2, 1; upper 10, 9, 6, 5, 3 + that finalist.
    Neither: upper 12, 9, 7, 6, 4, 1; lower 11, 10, 8, 5, 3, 2."""

    def places(*ps: int) -> list[str]:
        need = max(ps)
        if len(qualified) < need:
            raise ValueError(f"{len(qualified)} qualifiers: ACWC-C-1 needs {need} here")
        return [qualified[p - 1] for p in ps]

    if champion and runner_up:
        return places(2, 4, 5, 8, 9) + [champion], places(1, 3, 6, 7, 10) + [runner_up]
    finalist = champion or runner_up
    if finalist:
        return places(3, 5, 6, 9, 10) + [finalist], places(1, 2, 4, 7, 8, 11)
    return places(1, 4, 6, 7, 9, 12), places(2, 3, 5, 8, 10, 11)
