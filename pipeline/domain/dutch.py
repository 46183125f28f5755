"""Swiss pairings for the next round, behind one small interface: plain values in, pairs out.

The pairing itself is the FIDE Dutch system (C.04.3), done by the pinned library
``caissify-pairings`` (checked against bbpPairings, the engine Lichess Swiss runs); this module is
the only one that imports it. What the library leaves to its caller is done here, from the stored
rounds: each entrant's score, colour history (played games only), float history (a bye or a
forfeit win is a downfloat; a game against a higher or lower pre-round score an upfloat or a
downfloat), byes received and previous opponents. Then the library's answer is checked against
the system's absolute criteria (:func:`violations`) before anyone sees it.

Colours and table order are ours, not the library's: the library gives the pairs and the bye, and
:func:`allocate_colours` (a small pure function of each entrant's played colours, score and rank)
gives each pair its colours by FIDE C.04.3 section E as bbpPairings implements it, and
:func:`table_order` orders the tables as bbpPairings prints them. The library settles E.4 (same
preference, same history) by pairing number rather than by rank (score first), so its colours
differ from bbpPairings' in about one round in nine; its pairs and bye are kept as they are.
tests/domain/test_pairing_bbp.py checks pairs, bye, colours and table order against bbpPairings
on 220 tournaments it generated.

Scores are in win units (a win 1, a draw 0.5): a team Swiss's match points are divided by the
match-point value of a win before they get here, so the library's top-scorer rule (more than half
the points possible) reads them right. Entrants come in seeding order (ACWC-SEED-1; a team's
seeding rating is the mean of its four boards'); that order is their pairing number.

TD controls (all optional): ``absent`` entrants are not paired (withdrawn, disqualified, or with a
requested bye in the round); ``forbidden`` pairs are never paired (handed to the library as if
they had met: the Dutch system's own way of keeping two entrants apart); ``start_scores`` gives a
late entrant the score the TD decides.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from caissify_pairings import MissingFloatHistoryWarning
from caissify_pairings.engines.dutch import DutchEngine  # type: ignore[import-untyped]

Colour = Literal["white", "black"]
# how a round ended for the entrant: a game (played), an unplayed board decided by a forfeit, or
# a bye of one of pipeline.model.ByeKind's kinds
Outcome = Literal["played", "forfeit", "pab", "full", "half", "zero"]
ALLOCATED = ("pab", "full")  # byes that score a win: FIDE C.04.1.d, at most one per entrant


class PairingError(ValueError):
    """A round cannot be paired under the constraints; the message names the constraint."""


@dataclass(frozen=True)
class Entrant:
    """A player or a team; ``rating`` is its seeding rating (it orders the pairing numbers)."""

    id: str
    rating: float


@dataclass(frozen=True)
class Result:
    """One entrant's or one pairing's round: ``a`` had White (a team: White on board 1) against
    ``b``; ``b`` None is a bye of kind ``outcome``. Scores in win units."""

    round: int
    a: str
    b: str | None
    a_score: float
    b_score: float = 0.0
    outcome: Outcome = "played"


@dataclass(frozen=True)
class Controls:
    absent: frozenset[str] = frozenset()
    forbidden: frozenset[frozenset[str]] = frozenset()
    start_scores: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Proposal:
    """A proposed round: pairs (White, Black) in table order, and the entrant given the
    pairing-allocated bye (None when the present field is even)."""

    round: int
    pairs: tuple[tuple[str, str], ...]
    bye: str | None


Strength = Literal["absolute", "strong", "mild", "none"]


@dataclass(frozen=True)
class Standing:
    """What colour allocation looks at for one entrant before the round: its colours in played
    games (oldest first; a forfeit or a bye has none, FIDE C.04.2.D.5), its score, and its rank
    (0 for the first of the pairing numbers that count this round, see :func:`standings`)."""

    colours: tuple[Colour, ...]
    score: float
    rank: int


def _other(c: Colour) -> Colour:
    return "black" if c == "white" else "white"


def preference(colours: Sequence[Colour]) -> tuple[Colour | None, Strength, int]:
    """Colour preference (FIDE C.04.3 A.6) from the played colours: (colour, strength, colour
    difference as a magnitude). Absolute: a difference above 1, or the same colour in the last
    two games; strong: a difference of 1; mild: no difference, the other colour of the last game."""
    whites = sum(c == "white" for c in colours)
    blacks = len(colours) - whites
    diff = abs(whites - blacks)
    lower: Colour = "black" if whites > blacks else "white"
    repeated = len(colours) >= 2 and colours[-1] == colours[-2]
    if diff > 1:
        return lower, "absolute", diff
    if repeated:
        return _other(colours[-1]), "absolute", diff
    if diff == 1:
        return lower, "strong", diff
    if colours:
        return _other(colours[-1]), "mild", diff
    return None, "none", 0


def _ranked_above(a: Standing, b: Standing) -> bool:
    """C.04.3 A.2's ranking: more points first, then the lower pairing number."""
    return (-a.score, a.rank) < (-b.score, b.rank)


def allocate_colours(a: Standing, b: Standing, initial: Colour = "white") -> Colour:
    """The colour ``a`` gets against ``b`` (FIDE C.04.3 section E, as bbpPairings applies it):
    E.1 both preferences granted when they differ (or one has none); E.2 the stronger preference
    (absolute over strong over mild; both absolute: the wider colour difference); E.3 the colours
    alternated to the most recent round in which one had White and the other Black (played games
    only); E.4 the higher-ranked entrant's preference (score, then pairing number); E.5 with no
    preference on either side, the higher-ranked entrant gets the initial colour if its rank is
    odd (1st, 3rd, ...), else the other."""
    pa, sa, da = preference(a.colours)
    pb, sb, db = preference(b.colours)
    if pa is None or pb is None or pa != pb:  # E.1
        if pa is not None:
            return pa
        if pb is not None:
            return _other(pb)
        high, a_high = (a, True) if _ranked_above(a, b) else (b, False)  # E.5
        top = initial if high.rank % 2 == 0 else _other(initial)
        return top if a_high else _other(top)
    if sa == "absolute" and (sb != "absolute" or da > db):  # E.2
        return pa
    if sb == "absolute" and (sa != "absolute" or db > da):
        return _other(pb)
    if sa == "strong" and sb != "strong":
        return pa
    if sb == "strong" and sa != "strong":
        return _other(pb)
    for ca, cb in zip(reversed(a.colours), reversed(b.colours), strict=False):  # E.3: the shorter ends it
        if ca != cb:
            return cb
    return pa if _ranked_above(a, b) else _other(pb)  # E.4


def table_order(pairs: Iterable[tuple[str, str]], standing: Mapping[str, Standing]) -> list[tuple[str, str]]:
    """Tables as bbpPairings prints them: by the higher-ranked entrant's score, then the other's
    score (both highest first), then the higher-ranked entrant's rank."""

    def key(pair: tuple[str, str]) -> tuple[float, float, int]:
        x, y = (standing[p] for p in pair)
        high, low = (x, y) if _ranked_above(x, y) else (y, x)
        return (-high.score, -low.score, high.rank)

    return sorted(pairs, key=key)


def standings(
    entrants: Sequence[Entrant], history: Sequence[Result], round_no: int, controls: Controls
) -> dict[str, Standing]:
    """Each entrant's :class:`Standing` before ``round_no``. The rank counts the entrants in
    pairing-number order who are present this round or have been paired before (a game, a
    forfeit, a pairing-allocated bye): one absent from the round who was never paired takes no
    pairing number from those below it, as in bbpPairings."""
    before = [r for r in history if r.round < round_no]
    scores = _scores_before(entrants, before, controls)
    start = scores.get(round_no) or scores[max(scores)]
    out: dict[str, Standing] = {}
    rank = 0
    for e in entrants:
        mine = sorted((r for r in before if e.id in (r.a, r.b)), key=lambda r: r.round)
        colours: tuple[Colour, ...] = tuple(
            "white" if r.a == e.id else "black" for r in mine if r.b is not None and r.outcome == "played"
        )
        paired = any(r.b is not None or r.outcome == "pab" for r in mine)
        out[e.id] = Standing(colours, start.get(e.id, 0.0), rank)
        if e.id not in controls.absent or paired:
            rank += 1
    return out


class _Dutch(DutchEngine):  # type: ignore[misc]
    """The library's Dutch engine with its bracket criteria in FIDE's order.

    The engine pairs each bracket by a maximum-weight matching whose edge weights are bit fields,
    most significant first: completion, then (its docstring says, as bbpPairings does) the pairs
    in the current bracket (C.04.3 C.5: maximise the number of pairs), the scores of those pairs
    (C.6: minimise the score differences), then the same two for the next bracket (C.7). Version
    0.5.0 writes each score field above its pair field, so a bracket can give up a pair to pair a
    higher score: on bbpPairings' own tournaments that pairs two rounds of 1,441 differently from
    it (tests/domain/test_pairing_bbp.py; e.g. a round 11 of 13 players where the 8-point leader
    took the only pair of the 6-point bracket that bbpPairings keeps for two pairs there).

    Each weight is taken as the library computes it and only those two field pairs are put back
    in FIDE's order (the pair field above its score field), at the offsets the library's layout
    gives them (below the two completion bits: current score, current pair, next score, next
    pair). The version is pinned exactly; the differential test fails if a new one lays the
    fields out otherwise."""

    def _compute_bracket_edge_weight(self, p1: Any, p2: Any, bracket_score: float, n: int, **kw: Any) -> int:
        w = int(super()._compute_bracket_edge_weight(p1, p2, bracket_score, n, **kw))
        current, following = kw.get("in_current_bracket", False), kw.get("in_next_bracket", False)
        if w == 0 or not (current or following):
            return w
        pair_bits = max(8, n.bit_length() + 3)
        if kw.get("score_group_shifts") is not None:
            score_bits = int(kw.get("score_groups_shift", 0))
        else:
            score_bits = max(16, (n * max(1, int(self.total_rounds * 2))).bit_length() + 3)
        candidates = kw.get("bye_candidates")
        completion = 3 if candidates is None else 1 + (p1.id not in candidates) + (p2.id not in candidates)
        top = w.bit_length() - completion.bit_length()  # where the completion bits begin
        # the current bracket's fields are the upper B + SB bits below completion, the next
        # bracket's the B + SB below those; in each, the library has the pair field lowest
        low = top - (pair_bits + score_bits) * (1 if current else 2)
        width = pair_bits + score_bits
        field = (w >> low) & ((1 << width) - 1)
        pair, score = field & ((1 << pair_bits) - 1), field >> pair_bits
        fixed = score | (pair << score_bits)
        return (w & ~(((1 << width) - 1) << low)) | (fixed << low)


def seed_order(entrants: Iterable[Entrant]) -> list[Entrant]:
    """Entrants by seeding rating, highest first; ties by id (ACWC-SEED-1 gives no further order)."""
    return sorted(entrants, key=lambda e: (-e.rating, e.id))


def _scores_before(
    entrants: Sequence[Entrant], history: Sequence[Result], controls: Controls
) -> dict[int, dict[str, float]]:
    """Each entrant's cumulative score before each round (round r -> id -> score)."""
    last = max((r.round for r in history), default=0)
    totals = {e.id: float(controls.start_scores.get(e.id, 0.0)) for e in entrants}
    before: dict[int, dict[str, float]] = {}
    for rnd in range(1, last + 2):
        before[rnd] = dict(totals)
        for r in history:
            if r.round != rnd:
                continue
            totals[r.a] = totals.get(r.a, 0.0) + r.a_score
            if r.b is not None:
                totals[r.b] = totals.get(r.b, 0.0) + r.b_score
    return before


def engine_players(
    entrants: Sequence[Entrant], history: Sequence[Result], round_no: int, controls: Controls
) -> list[dict[str, object]]:
    """The library's player records for ``round_no``, in pairing-number order (1 = top seed)."""
    before = _scores_before(entrants, [r for r in history if r.round < round_no], controls)
    start = before.get(round_no) or before[max(before)]
    players: list[dict[str, object]] = []
    for number, e in enumerate(entrants, start=1):
        colours: list[str] = []
        floats: list[str] = []
        byes = forfeit_wins = 0
        for r in sorted((r for r in history if r.round < round_no and e.id in (r.a, r.b)), key=lambda r: r.round):
            mine, theirs = (r.a_score, r.b) if r.a == e.id else (r.b_score, r.a)
            if r.b is None:
                byes += r.outcome in ALLOCATED
                floats.append("down" if r.a_score > 0 else "none")
            elif r.outcome != "played":
                forfeit_wins += mine > 0
                floats.append("down" if mine > 0 else "none")
            else:
                colours.append("white" if r.a == e.id else "black")
                assert theirs is not None
                me, them = before[r.round].get(e.id, 0.0), before[r.round].get(theirs, 0.0)
                floats.append("down" if me > them else "up" if me < them else "none")
        players.append(
            {
                "id": number,
                "name": e.id,
                "score": start.get(e.id, 0.0),
                "rating": e.rating,
                "starting_number": number,
                "pairing_number": number,
                "color_hist": colours,
                "float_history": floats,
                "bye_count": byes,
                "forfeit_win_count": forfeit_wins,
            }
        )
    return players


def met(history: Iterable[Result]) -> set[frozenset[str]]:
    """Pairs that have played each other (a forfeited board is not a meeting, as in bbpPairings)."""
    return {frozenset((r.a, r.b)) for r in history if r.b is not None and r.outcome == "played"}


def pair_round(
    entrants: Sequence[Entrant],
    history: Sequence[Result],
    round_no: int,
    total_rounds: int,
    controls: Controls = Controls(),
    initial_colour: Colour = "white",
) -> Proposal:
    """Round ``round_no`` by the FIDE Dutch system. ``entrants`` in pairing-number order (see
    :func:`seed_order`); ``history`` the rounds before. Raises :class:`PairingError` naming the
    constraint the round cannot meet."""
    ids = [e.id for e in entrants]
    number = {e: i for i, e in enumerate(ids, start=1)}
    present = [e for e in entrants if e.id not in controls.absent]
    for pair in sorted(controls.forbidden, key=sorted):
        unknown = sorted(p for p in pair if p not in number)
        if unknown:
            raise PairingError(f"forbidden pair {' v '.join(sorted(pair))}: {unknown[0]!r} is not an entrant")
    blocked = met(history) | set(controls.forbidden)
    previous = {
        tuple(sorted((number[a], number[b]))) for a, b in (sorted(p) for p in blocked) if a in number and b in number
    }
    players = [p for p in engine_players(entrants, history, round_no, controls) if p["name"] not in controls.absent]
    if len(present) < 2:
        raise PairingError(f"round {round_no}: {len(present)} entrant(s) to pair: a round needs at least 2")
    # the library pairs round 1 by the plain top-half v bottom-half split, blind to pairs it must
    # avoid; with forbidden pairs, round 1 goes through its general (score-bracket) path, which
    # gives the same split wherever no forbidden pair is in the way
    engine_round = 2 if round_no == 1 and previous else round_no
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingFloatHistoryWarning)  # round 1 has no floats to give
        out = _Dutch(
            players=players,
            previous_pairings=previous,
            round_number=engine_round,
            total_rounds=max(total_rounds, engine_round),
            initial_color=initial_colour,
        ).generate_pairings()
    standing = standings(entrants, history, round_no, controls)
    pairs: list[tuple[str, str]] = []
    bye = None
    for row in out:
        a = ids[int(row["white_id"]) - 1]
        if row.get("black_id") is None:
            bye = a
            continue
        b = ids[int(row["black_id"]) - 1]
        pairs.append((a, b) if allocate_colours(standing[a], standing[b], initial_colour) == "white" else (b, a))
    proposal = Proposal(round_no, tuple(table_order(pairs, standing)), bye)
    seated = {x for p in pairs for x in p} | ({bye} if len(present) % 2 else set())
    left = [e.id for e in present if e.id not in seated]
    if left:
        raise PairingError(_unpairable(round_no, left, controls))
    problems = violations([e.id for e in present], history, proposal, controls)
    if problems:
        raise PairingError(problems[0])
    return proposal


def _unpairable(round_no: int, left: list[str], controls: Controls) -> str:
    """Why the library left entrants without an opponent, naming the constraint in the way."""
    names = ", ".join(left)
    if any(x in pair for pair in controls.forbidden for x in left):
        kept = "; ".join(" v ".join(sorted(p)) for p in sorted(controls.forbidden, key=sorted) if p & set(left))
        return f"round {round_no}: forbidden pair {kept} cannot be kept apart: no pairing leaves {names} an opponent"
    return (
        f"round {round_no}: {names} cannot be paired without a repeat meeting or a second "
        "pairing-allocated bye (FIDE C.04.1.b, C.04.1.d)"
    )


def violations(present: Sequence[str], history: Sequence[Result], proposal: Proposal, controls: Controls) -> list[str]:
    """Our checker of a proposed round against the absolute criteria: every present entrant paired
    exactly once (or given the one bye of an odd field), no one absent paired, no repeat meeting
    (FIDE C.04.1.b), no forbidden pair, no second pairing-allocated bye (C.04.1.d). Returns one
    message per violation (none: the round is sound)."""
    problems: list[str] = []
    seen: dict[str, int] = {}
    for a, b in proposal.pairs:
        for x in (a, b):
            seen[x] = seen.get(x, 0) + 1
    if proposal.bye is not None:
        seen[proposal.bye] = seen.get(proposal.bye, 0) + 1
    for x in present:
        if seen.get(x, 0) != 1:
            problems.append(
                f"round {proposal.round}: {x} is paired {seen.get(x, 0)} times: every present entrant plays once"
            )
    for x in sorted(set(seen) - set(present)):
        problems.append(
            f"round {proposal.round}: {x} is paired but is not present (withdrawn, disqualified or on a bye)"
        )
    if (len(present) % 2 == 1) != (proposal.bye is not None):
        problems.append(f"round {proposal.round}: {len(present)} present entrants need {len(present) % 2} bye(s)")
    earlier = met(history)
    for a, b in proposal.pairs:
        if frozenset((a, b)) in earlier:
            problems.append(f"round {proposal.round}: {a} v {b} have met before in the stage: no repeat pairing")
        if frozenset((a, b)) in controls.forbidden:
            problems.append(f"round {proposal.round}: forbidden pair {a} v {b} cannot be paired")
    if proposal.bye is not None and any(
        r.a == proposal.bye and r.b is None and r.outcome in ALLOCATED for r in history
    ):
        problems.append(
            f"round {proposal.round}: {proposal.bye} already had a pairing-allocated bye: at most one per entrant"
        )
    return problems
