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
    own = table[entrant]
    out: list[tuple[float, bool]] = []
    own_score = sum(e.score for e in own)
    for e in own:
        if e.opponent is not None:
            opp = table[e.opponent]
            value = sum(x.score for x in opp) if policy == "plain" else adjusted_score(opp, draw)
            out.append((value, False))
        elif policy != "plain":
            dummy = own_score if policy == "fide-2024" else min(own_score, draw * len(own))
            out.append((dummy, e.kind in VOLUNTARY))
    return out


def buchholz(
    entrant: str, table: dict[str, list[Entry]], policy: Policy, draw: float, cut_low: int = 0, cut_high: int = 0
) -> float:
    """Buchholz with `cut_low` lowest and `cut_high` highest contributions removed (Median-Buchholz:
    1 and 1). A low cut takes a voluntarily unplayed round's contribution first (Art. 16.5)."""
    values = contributions(entrant, table, policy, draw)
    for _ in range(cut_low):  # the low cuts first: they take the requested byes' dummies
        if not values:
            break
        vur = [v for v in values if v[1]]
        values.remove(min(vur, key=lambda v: v[0]) if vur and policy != "plain" else min(values, key=lambda v: v[0]))
    for _ in range(cut_high):
        if values:
            values.remove(max(values, key=lambda v: v[0]))
    return float(sum(v for v, _ in values))
