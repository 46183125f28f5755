"""The attention list: what needs the TD today, as plain values.

One :class:`Item` is one thing a TD acts on (a match awaiting a ruling, a board match with games
still due and its window closing, a new error finding, a round ready to be paired …). Each has a
stable :attr:`Item.key`, the same on every run for the same thing, so that a list can be compared
with the previous run's (:func:`compare`): what is new, what is still open, what was resolved.
The list is computed in ``pipeline.domain.attention_list`` from what ``pipeline.stages.attention`` reads;
the notifications (webhooks, Lichess) read the items and :func:`compare`'s changes, never the
database. Pure: no clock, no database, no network.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Kind = Literal[
    "ruling_due",  # a match unplayed after its window: a ruling line is wanted (TEAM-SCORE-4, TEAM-DQ-1, ACWC-DQ-1)
    "games_due",  # a board match with games missing and its window closing (TEAM-FMT-3)
    "finding_new",  # an error finding new since the previous successful run
    "finding_resolved",  # an error finding of the previous run that is gone
    "account",  # an account closed, disabled or newly marked since the previous run (TEAM-ELIG-5)
    "round_ready",  # a round ready to be paired, or a next-stage proposal waiting to be published
    "near_miss",  # a game that nearly links to a pairing (wrong time control, outside the window)
    "stale",  # no successful run for more than 36 hours
]
Severity = Literal["error", "warning", "info"]
Status = Literal["new", "open", "resolved"]


@dataclass(frozen=True)
class PartDue:
    """Games still due in one part of a board match: ``games`` of ``time_control`` (e.g. ``2+5``)."""

    time_control: str
    games: int


@dataclass(frozen=True)
class Item:
    """One thing that needs the TD. ``key`` identifies it across runs (kind and the subject's ids,
    e.g. ``games_due:swiss:3:forced-captures:kingless-knights:2``); ``subject`` says who, in
    display names; ``sentence`` what, in one line; ``action`` the exact command to run or the
    ``overrides.csv`` line to fill in. The optional fields carry what a notification needs:
    ``stage``/``round`` the round, ``deadline`` the window's end (UTC), ``players`` the Lichess
    usernames concerned, ``opponents`` each one's opponent (same order), ``due`` the games still
    to play."""

    key: str
    kind: Kind
    rule_id: str
    severity: Severity
    subject: str
    sentence: str
    action: str
    evidence_url: str | None = None
    stage: str | None = None
    round: int | None = None
    deadline: dt.datetime | None = None
    players: tuple[str, ...] = ()
    opponents: tuple[str, ...] = ()
    due: tuple[PartDue, ...] = ()


@dataclass(frozen=True)
class Changes:
    """A list against the previous one: ``new`` items not in it, ``open`` items in both, and
    ``resolved`` the previous items no longer listed."""

    new: tuple[Item, ...]
    open: tuple[Item, ...]
    resolved: tuple[Item, ...]

    def status(self, item: Item) -> Status:
        if any(i.key == item.key for i in self.new):
            return "new"
        if any(i.key == item.key for i in self.resolved):
            return "resolved"
        return "open"


def compare(previous: Iterable[Item], current: Iterable[Item]) -> Changes:
    """``current`` against ``previous`` by key, each in the order given."""
    before = {i.key: i for i in previous}
    now = list(current)
    keys = {i.key for i in now}
    return Changes(
        new=tuple(i for i in now if i.key not in before),
        open=tuple(i for i in now if i.key in before),
        resolved=tuple(i for k, i in before.items() if k not in keys),
    )
