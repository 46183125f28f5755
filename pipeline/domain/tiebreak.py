"""Buchholz and Median-Buchholz with a named policy for unplayed rounds (TEAM-TB-1, ACWC-Q-3).

Policies:

* ``plain`` (Challonge, which the ACWC rules once linked): the opponents' scores as they stand;
  an unplayed round adds nothing.
* ``fide-2024`` (FIDE C.07 Art. 16 as in force from 2024): each of the entrant's own unplayed
  rounds counts as a game against a dummy opponent whose score is the entrant's own; an
  opponent's score is its actual score, except that requested byes at the end of its
  tournament count as draws; a low cut removes a requested bye's contribution before the
  lowest value.
* ``fide-2026``: as fide-2024, but a dummy scores at most a draw in every round (draw × rounds).

A round is ``played``, or unplayed of a kind: ``pab`` (pairing-allocated bye), ``half_bye``,
``zero_bye``, ``full_bye`` (requested byes), ``absent``. Cuts take a requested bye's dummy
first; a pairing-allocated bye or an absence is cut only as a value among the others.

Pure: takes per-round entries, returns numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pipeline.model import BuchholzPolicy

Policy = BuchholzPolicy
POLICIES: tuple[str, ...] = ("plain", "fide-2024", "fide-2026")
Kind = Literal["played", "pab", "half_bye", "zero_bye", "full_bye", "absent"]
REQUESTED = frozenset({"half_bye", "zero_bye"})  # a full-point bye is awarded points, not a requested bye
VOLUNTARY = REQUESTED  # cut first (Art. 16.5): requested byes; not pairing-allocated byes or absences


@dataclass(frozen=True)
class Entry:
    """One round of one entrant: the opponent (None when unplayed), the score, and the kind."""

    opponent: str | None
    score: float
    kind: Kind = "played"
    round: int | None = None  # the round it was, where known (explanations name it)


@dataclass(frozen=True)
class Contribution:
    """One round's value in an entrant's Buchholz, for explaining it: the round's entry, the value
    it adds (the opponent's score, or a dummy opponent's), whether it is a requested bye's (cut
    first), and the cut that removed it (``low``, ``high``) or None when it counts."""

    entry: Entry
    value: float
    voluntary: bool
    cut: Literal["low", "high"] | None = None


def adjusted_score(entries: list[Entry], draw: float) -> float:
    """An opponent's score for others' Buchholz: requested byes with no later round it took part
    in (played or received a pairing-allocated bye; absences do not count) count as draws (Art. 16.3)."""
    total = sum(e.score for e in entries)
    for e in reversed(entries):
        if e.kind in ("played", "pab", "full_bye"):
            break
        if e.kind in REQUESTED:
            total += draw - e.score
    return total


def contributions(entrant: str, table: dict[str, list[Entry]], policy: Policy, draw: float) -> list[tuple[float, bool]]:
    """(value, voluntary) per round of `entrant` for its Buchholz under `policy`."""
    return [(c.value, c.voluntary) for c in _contributions(entrant, table, policy, draw)]


def _contributions(entrant: str, table: dict[str, list[Entry]], policy: Policy, draw: float) -> list[Contribution]:
    own = table[entrant]
    out: list[Contribution] = []
    own_score = sum(e.score for e in own)
    for e in own:
        if e.opponent is not None:
            opp = table[e.opponent]
            value = sum(x.score for x in opp) if policy == "plain" else adjusted_score(opp, draw)
            out.append(Contribution(e, value, False))
        elif policy != "plain":
            dummy = own_score if policy == "fide-2024" else min(own_score, draw * len(own))
            out.append(Contribution(e, dummy, e.kind in VOLUNTARY))
    return out


def explain_buchholz(
    entrant: str, table: dict[str, list[Entry]], policy: Policy, draw: float, cut_low: int = 0, cut_high: int = 0
) -> list[Contribution]:
    """Every contribution of `entrant`'s Buchholz in round order, each marked with the cut that
    removed it (None: it counts): the values that count sum to :func:`buchholz` (which is this
    sum). A low cut takes a voluntarily unplayed round's contribution first (Art. 16.5); among
    equal values the earliest round is cut."""
    values = _contributions(entrant, table, policy, draw)
    left = list(range(len(values)))
    cut: dict[int, Literal["low", "high"]] = {}
    for _ in range(cut_low):  # the low cuts first: they take the requested byes' dummies
        if not left:
            break
        vur = [i for i in left if values[i].voluntary]
        pool = vur if vur and policy != "plain" else left
        i = min(pool, key=lambda i: values[i].value)
        left.remove(i)
        cut[i] = "low"
    for _ in range(cut_high):
        if left:
            i = max(left, key=lambda i: values[i].value)
            left.remove(i)
            cut[i] = "high"
    return [Contribution(c.entry, c.value, c.voluntary, cut.get(i)) for i, c in enumerate(values)]


def buchholz(
    entrant: str, table: dict[str, list[Entry]], policy: Policy, draw: float, cut_low: int = 0, cut_high: int = 0
) -> float:
    """Buchholz with `cut_low` lowest and `cut_high` highest contributions removed (Median-Buchholz:
    1 and 1). A low cut takes a voluntarily unplayed round's contribution first (Art. 16.5)."""
    explained = explain_buchholz(entrant, table, policy, draw, cut_low, cut_high)
    return float(sum(c.value for c in explained if c.cut is None))
