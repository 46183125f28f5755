"""The knockout bracket: who qualifies and who plays whom next (TEAM-FMT-1, ACWC-SF-1).

* Qualifiers by team count (TEAM-FMT-1): 10-15 teams → 4, 16-31 → 8, 32-63 → 16; more than 63
  → a candidates stage the TD configures (the bracket then takes the TD's 16); fewer than 10 →
  the tournament cannot run.
* First knockout round by seed: 1 v N, 2 v N-1, ...; each later round pairs the winners of
  matches i and (matches - 1 - i) of the previous round, so the top seeds meet last; after the
  semifinals the winners play the final and the losers the bronze match.
* ACWC semifinals: each candidates pool's winner plays the other pool's runner-up.
* Roles and placings (:func:`knockout_roles`, :func:`placings`): which knockout match is the
  final, the bronze (third-place) match, a semifinal ...; and the event's final order from the
  bracket, not from a table.

Pure: takes standings and match results, returns pairings as (a, b) tuples in bracket order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


class BracketError(ValueError):
    """The bracket cannot be built from what was played."""


def qualifiers(teams: int) -> int:
    """TEAM-FMT-1's knockout size for `teams` teams."""
    if teams < 10:
        raise BracketError(f"{teams} teams: the tournament cannot run with fewer than 10 teams (TEAM-FMT-1)")
    if teams <= 15:
        return 4
    if teams <= 31:
        return 8
    return 16


def knockout_rounds(teams: int) -> int:
    """TEAM-FMT-1's knockout rounds before the final and bronze match: 4 qualifiers → 1 (the
    semifinals), 8 → 2, 16 → 3."""
    return qualifiers(teams).bit_length() - 2


def first_round(seeded: Sequence[str]) -> list[tuple[str, str]]:
    """1 v N, 2 v N-1, ... for the N = len(seeded) qualifiers, listed in standings order."""
    n = len(seeded)
    if n < 2 or n & (n - 1):
        raise BracketError(f"{n} qualifiers: a knockout needs a power of two")
    return [(seeded[i], seeded[n - 1 - i]) for i in range(n // 2)]


def next_round(winners: Sequence[str]) -> list[tuple[str, str]]:
    """Winners of the previous round's matches, in that round's order: match i's winner meets
    match (k-1-i)'s, keeping 1 and 2 apart until the final."""
    k = len(winners)
    if k < 2 or k % 2:
        raise BracketError(f"{k} winners: expected an even number")
    return [(winners[i], winners[k - 1 - i]) for i in range(k // 2)]


def final_and_bronze(semifinals: Sequence[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """From the two semifinals (a, b, winner): the final (winners) and the bronze match (losers)."""
    if len(semifinals) != 2:
        raise BracketError(f"{len(semifinals)} semifinals: expected 2")
    winners = [w for _, _, w in semifinals]
    losers = [b if w == a else a for a, b, w in semifinals]
    return [(winners[0], winners[1]), (losers[0], losers[1])]


def acwc_semifinals(pool_a: Sequence[str], pool_b: Sequence[str]) -> list[tuple[str, str]]:
    """ACWC-SF-1: each pool's winner plays the other pool's runner-up (pools in final order)."""
    return [(pool_a[0], pool_b[1]), (pool_b[0], pool_a[1])]


def acwc_qualifiers(advance: int, finalists_playing: int) -> int:
    """ACWC-Q-3: the top `advance` (10) qualify, one more for each previous finalist who does not
    play (ACWC-C-1's pools hold 12 with both finalists; 11 qualifiers with one; 12 with neither)."""
    if not 0 <= finalists_playing <= 2:
        raise BracketError(f"{finalists_playing} previous finalists: expected 0, 1 or 2")
    return advance + 2 - finalists_playing


def round_robin(players: Sequence[str], rounds: int) -> list[list[tuple[str, str]]]:
    """A round robin by the circle method (Berger tables): n - 1 rounds for n players (a bye
    slot when n is odd, left out), repeated for a double round robin (rounds = 2(n - 1)).
    Round k's pairs, each once; the first player stays fixed and the others rotate."""
    seats: list[str | None] = list(players) + ([None] if len(players) % 2 else [])
    n = len(seats)
    if n < 2:
        raise BracketError(f"{len(players)} players: a round robin needs at least 2")
    cycle = n - 1
    if rounds % cycle:
        raise BracketError(
            f"{len(players)} players play a round robin in {cycle} rounds (double: {2 * cycle}), not {rounds}"
        )
    out: list[list[tuple[str, str]]] = []
    for r in range(rounds):
        k = r % cycle
        rotated = [seats[0]] + [seats[1 + (i - k) % cycle] for i in range(cycle)]
        pairs = [(rotated[i], rotated[n - 1 - i]) for i in range(n // 2)]
        if r >= cycle:  # the second cycle of a double round robin: the other player listed first
            pairs = [(b, a) for a, b in pairs]
        out.append([(a, b) for a, b in pairs if a is not None and b is not None])
    return out


# --------------------------------------------------------------------------- roles and placings


@dataclass(frozen=True)
class Match:
    """A scored knockout match: `winner` None while undecided; `decided_by` says how a match
    level on points was decided ("armageddon (ARM-1)", ...; empty otherwise)."""

    stage: str
    round: int
    a: str
    b: str
    a_points: float
    b_points: float
    winner: str | None
    decided_by: str = ""


@dataclass(frozen=True)
class TableRow:
    """An entrant's line in the final table of a swiss or round-robin stage (rank within its pool)."""

    entrant: str
    rank: int
    match_points: float = 0.0
    points_scored: float = 0.0
    pool: int | None = None


@dataclass(frozen=True)
class StageResult:
    """What a stage gives the placings: its kind, whether it is complete (every round decided),
    its final table (swiss, round robin) or its matches (knockout)."""

    name: str
    kind: str
    complete: bool = False
    table: tuple[TableRow, ...] = ()
    matches: tuple[Match, ...] = ()


@dataclass(frozen=True)
class Placing:
    """One entrant's place in the event (None while undecided), the stage that decided it, and how."""

    stage: str
    place: int | None
    entrant: str
    how: str


@dataclass(frozen=True)
class _Tie:
    """Two sides paired in a knockout stage, with any replays of their match (ACWC-F-1): the
    latest decided match decides."""

    stage: str
    round: int
    a: str
    b: str
    matches: tuple[Match, ...]

    @property
    def deciding(self) -> Match:
        return next((m for m in reversed(self.matches) if m.winner), self.matches[-1])

    @property
    def winner(self) -> str | None:
        return self.deciding.winner

    @property
    def loser(self) -> str | None:
        w = self.winner
        return None if w is None else (self.b if w == self.a else self.a)


def _bracket_rounds(stages: Sequence[StageResult]) -> list[list[_Tie]]:
    """The knockout stages' matches as rounds of ties, in stage and round order; a rematch of the
    same two sides in the same stage (a replay) joins the tie of their first match."""
    rounds: list[list[_Tie]] = []
    for st in stages:
        if st.kind != "knockout":
            continue
        ties: dict[frozenset[str], list[Match]] = {}
        for m in sorted(st.matches, key=lambda m: (m.round, m.a)):
            ties.setdefault(frozenset((m.a, m.b)), []).append(m)
        by_round: dict[int, list[_Tie]] = {}
        for ms in ties.values():
            first = ms[0]
            by_round.setdefault(first.round, []).append(_Tie(st.name, first.round, first.a, first.b, tuple(ms)))
        rounds += [by_round[r] for r in sorted(by_round)]
    return rounds


def _round_name(ties: int) -> str:
    return {1: "final", 2: "semifinal", 4: "quarterfinal"}.get(ties, f"round of {2 * ties}")


def _final_and_bronze(rounds: list[list[_Tie]]) -> tuple[_Tie | None, _Tie | None]:
    """The last round's final and bronze match: one tie is the final; two ties after two decided
    semifinals are the final (their winners) and the bronze match (their losers)."""
    if not rounds:
        return None, None
    last = rounds[-1]
    if len(last) == 1:
        return last[0], None
    if len(last) == 2 and len(rounds) >= 2 and len(rounds[-2]) == 2:
        semis = rounds[-2]
        winners, losers = {t.winner for t in semis}, {t.loser for t in semis}
        final = next((t for t in last if {t.a, t.b} == winners), None)
        bronze = next((t for t in last if {t.a, t.b} == losers), None)
        if final is not None and bronze is not None:
            return final, bronze
    return None, None


def knockout_roles(stages: Sequence[StageResult]) -> dict[tuple[str, int, str], str]:
    """(stage, round, a) → the match's role: "final", "bronze match", "semifinal", "quarterfinal",
    "round of 16" ... (a replay keeps its match's role). The final and bronze match are told apart
    by the semifinals: the final is between their winners, the bronze match between their losers."""
    rounds = _bracket_rounds(stages)
    final, bronze = _final_and_bronze(rounds)
    roles: dict[tuple[str, int, str], str] = {}
    for i, ties in enumerate(rounds):
        for t in ties:
            if t is final:
                role = "final"
            elif t is bronze:
                role = "bronze match"
            elif (
                i == len(rounds) - 1 and final is None and len(ties) == 2 and len(rounds) >= 2 and len(rounds[-2]) == 2
            ):
                role = "final or bronze match"  # the semifinals are not decided: cannot be told apart yet
            else:
                role = _round_name(len(ties))
            for m in t.matches:
                roles[(m.stage, m.round, m.a)] = role
    return roles


def _score(t: _Tie, side: str) -> str:
    """`side`'s score in the tie's deciding match, then the other's, and what decided a level one."""
    m = t.deciding
    mine, theirs = (m.a_points, m.b_points) if side == m.a else (m.b_points, m.a_points)
    level = f", level on points, decided by {m.decided_by}" if m.decided_by and m.a_points == m.b_points else ""
    return f"{mine:g}–{theirs:g}{level}"


def placings(stages: Sequence[StageResult], names: Mapping[str, str] | None = None) -> list[Placing]:
    """The event's final order (`stages` in the config's order), best first; `names`: how to
    write an entrant in the `how` texts (display names; the entrant itself when missing).

    From the bracket: the final's winner 1st, its loser 2nd, the bronze match's winner 3rd, its
    loser 4th; the losers of each earlier knockout round share the next places, in the order of
    the last table before the knockout (the Swiss rank; for the ACWC the candidates'); then, stage
    by stage backwards, those who did not go on, in their stage's order: a swiss stage by rank, a
    round robin by pool place, then match points, then points scored, then pool number. Entrants
    equal on that order share a place. A place not decided yet is None (the entrants who can still
    reach it keep their slots), so the places below are final as soon as they are."""

    order = _TableOrder(stages, names or {})
    places = _Places(order)
    rounds = _bracket_rounds(stages)
    in_bracket: set[str] = {e for t in (rounds[0] if rounds else []) for e in (t.a, t.b)}
    earlier = _place_last_rounds(places, rounds)
    _place_round_losers(places, earlier)
    unplaced = sorted(in_bracket - places.placed())
    if unplaced:  # a winner whose next round is only partly paired: in the knockout, place open
        places.add(unplaced, rounds[0][0].stage, {e: "in the knockout" for e in unplaced}, False)
    _place_table_stages(places, stages, in_bracket)
    return places.out


class _TableOrder:
    """How the tables before the knockout order entrants: the last table an entrant is in
    decides (a swiss stage by rank; a round robin by pool place, match points, points scored,
    pool number), and how an entrant is written in the `how` texts."""

    def __init__(self, stages: Sequence[StageResult], names: Mapping[str, str]) -> None:
        self.names = names
        self.tables = [s for s in stages if s.kind != "knockout"]
        self.position = {s.name: i for i, s in enumerate(self.tables)}
        self.rows = {s.name: {r.entrant: r for r in s.table} for s in self.tables}

    def name(self, e: str | None) -> str:
        return self.names.get(e or "", e or "")

    def key(self, e: str) -> tuple[int, int, float, float, int]:
        for s in reversed(self.tables):
            r = self.rows[s.name].get(e)
            if r is not None and s.kind != "round_robin":  # the rank holds the stage's tiebreaks
                return (-self.position[s.name], r.rank, 0.0, 0.0, 0)
            if r is not None:
                return (-self.position[s.name], r.rank, -r.match_points, -r.points_scored, r.pool or 0)
        return (1, 0, 0.0, 0.0, 0)

    def text(self, e: str) -> str:
        """Where the entrant's last table put it ("swiss rank 3", "candidates pool 1 place 2, ...")."""
        found = next(((s, self.rows[s.name][e]) for s in reversed(self.tables) if e in self.rows[s.name]), None)
        if found is None:
            return ""
        s, r = found
        if s.kind == "round_robin":
            return f"{s.name} pool {r.pool} place {r.rank}, {r.match_points:g} match points, {r.points_scored:g} points"
        return f"{s.name} rank {r.rank}"


class _Places:
    """The placings so far, best first, and the next place to give."""

    def __init__(self, order: _TableOrder) -> None:
        self.order = order
        self.out: list[Placing] = []
        self.next_place = 1

    def placed(self) -> set[str]:
        return {p.entrant for p in self.out}

    def add(self, group: list[str], stage: str, how: dict[str, str], decided: bool) -> None:
        """`group` takes the next len(group) places, in table order (equals share a place); None
        for each when the places are not `decided` yet."""
        keys = {e: self.order.key(e) for e in group}
        for e in sorted(group, key=lambda e: (keys[e], e.lower())):
            place = self.next_place + sum(keys[o] < keys[e] for o in group) if decided else None
            self.out.append(Placing(stage, place, e, how[e]))
        self.next_place += len(group)


def _place_last_rounds(places: _Places, rounds: list[list[_Tie]]) -> list[list[_Tie]]:
    """The first places: the final's and the bronze match's sides, or while there is no final
    yet, the sides still in the last round paired. Returns the earlier rounds, whose losers come next."""
    name = places.order.name
    final, bronze = _final_and_bronze(rounds)
    if final is not None:
        for tie, label in ((final, "final"), (bronze, "bronze match")):
            if tie is None:
                continue
            if tie.winner is None:
                places.add([tie.a, tie.b], tie.stage, {e: f"plays the {label}" for e in (tie.a, tie.b)}, False)
                continue
            w, lo = tie.winner, tie.loser
            assert lo is not None
            places.add([w], tie.stage, {w: f"won the {label} v {name(lo)}, {_score(tie, w)}"}, True)
            places.add([lo], tie.stage, {lo: f"lost the {label} v {name(w)}, {_score(tie, lo)}"}, True)
        return rounds[:-2] if bronze is not None else rounds[:-1]
    if not rounds:
        return []
    last = rounds[-1]
    label = _round_name(len(last))
    if all(t.winner for t in last):
        winners = [t.winner for t in last if t.winner]
        places.add(winners, last[0].stage, {e: f"won the {label}: plays the next round" for e in winners}, False)
        return rounds
    alive = [e for t in last for e in (t.a, t.b)]
    places.add(alive, last[0].stage, {e: f"plays the {label}" for e in alive}, False)
    return rounds[:-1]


def _place_round_losers(places: _Places, earlier: list[list[_Tie]]) -> None:
    """Each earlier knockout round's losers, later rounds first, sharing the next places in table
    order; the sides of a tie still undecided keep open places, and no place below it is final."""
    name = places.order.name
    for ties in reversed(earlier):
        label = _round_name(len(ties))
        open_ties = [t for t in ties if t.winner is None or t.loser is None]
        if open_ties:  # a tie still undecided (pending, unplayed, waiting for a ruling): no place below it is final
            placed = places.placed()  # (an entrant already paired in a later round is placed there)
            alive = [e for t in open_ties for e in (t.a, t.b) if e not in placed]
            places.add(alive, ties[0].stage, {e: f"plays the {label}" for e in alive}, False)
        decided = [t for t in ties if t not in open_ties]
        if not decided:
            continue
        lo, hi = places.next_place, places.next_place + len(decided) - 1
        how = {}
        for t in decided:
            w, loser = t.winner, t.loser
            assert w is not None and loser is not None
            how[loser] = (
                f"lost the {label} v {name(w)}, {_score(t, loser)}; places {lo}–{hi} by {places.order.text(loser)}"
            )
        places.add([t.loser for t in decided if t.loser], ties[0].stage, how, not open_ties)


def _place_table_stages(places: _Places, stages: Sequence[StageResult], in_bracket: set[str]) -> None:
    """Stage by stage backwards, those who did not go on, in their stage's order; final once the
    stage is complete and the next one has begun."""
    order = places.order
    later = set(in_bracket)
    for s in reversed(order.tables):
        group = [e for e in order.rows[s.name] if e not in later]
        # the stages after this one (in the config) that have begun: who is not in them is out
        after = [t for t in stages[stages.index(s) + 1 :]]
        started = not after or any(t.table or t.matches for t in after[:1])
        final_places = s.complete and started
        if after and not started:
            note = f"; the {after[0].name} stage is not paired yet"
        elif not s.complete:
            note = f"; the {s.name} stage is not finished"
        else:
            note = f"; not in the {after[0].name}" if after else ""
        places.add(group, s.name, {e: order.text(e) + note for e in group}, final_places)
        later |= set(order.rows[s.name])
