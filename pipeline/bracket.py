"""The knockout bracket: who qualifies and who plays whom next (TEAM-FMT-1, ACWC-SF-1).

* Qualifiers by team count (TEAM-FMT-1): 10-15 teams → 4, 16-31 → 8, 32-63 → 16; more than 63
  → a candidates stage the TD configures (the bracket then takes the TD's 16); fewer than 10 →
  the tournament cannot run.
* First knockout round by seed: 1 v N, 2 v N-1, ...; each later round pairs the winners of
  matches i and (matches - 1 - i) of the previous round, so the top seeds meet last; after the
  semifinals the winners play the final and the losers the bronze match.
* ACWC semifinals: each candidates pool's winner plays the other pool's runner-up.

Pure: takes standings and match results, returns pairings as (a, b) tuples in bracket order.
"""

from __future__ import annotations

from collections.abc import Sequence


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
        raise BracketError(f"{len(players)} players play a round robin in {cycle} rounds (double: {2 * cycle}), not {rounds}")
    out: list[list[tuple[str, str]]] = []
    for r in range(rounds):
        k = r % cycle
        rotated = [seats[0]] + [seats[1 + (i - k) % cycle] for i in range(cycle)]
        pairs = [(rotated[i], rotated[n - 1 - i]) for i in range(n // 2)]
        if r >= cycle:  # the second cycle of a double round robin: the other player listed first
            pairs = [(b, a) for a, b in pairs]
        out.append([(a, b) for a, b in pairs if a is not None and b is not None])
    return out
