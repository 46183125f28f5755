"""Which rounds the score stage links and scores again: a fingerprint per paired round of its
inputs (the scoring version, the config, the rulings, the lineups, the windows passed, the games),
compared with the one stored beside its scored rows.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from pipeline.domain import linking, scoring
from pipeline.model import Config, Pairing
from pipeline.stages import context
from pipeline.store import gateway

_SCORED_TABLES = ("scored_match_games", "scored_board_results", "scored_team_matches")


@dataclass
class RescorePlan:
    """Which rounds of a stage to link and score again tonight: those whose fingerprint (the
    inputs of their scored rows) differs from the one stored with them, or that were never scored."""

    stage: str
    fingerprints: dict[int, str]
    rescore: frozenset[int]
    removed: frozenset[int]  # scored before, no longer paired
    full: bool  # nothing stored for the stage: rewrite it whole
    games_range: tuple[dt.datetime, dt.datetime]
    scored_before: frozenset[int] = frozenset()  # the rounds that have stored scores
    stored: dict[tuple[int, str, str], scoring.TeamMatch] = field(default_factory=dict)
    """The stored team matches of the rounds not rescored, by (round, team_a, team_b)."""

    def all_matches(self, pairings: tuple[Pairing, ...], new: list[scoring.TeamMatch]) -> list[scoring.TeamMatch]:
        """Every team match of the stage in pairing order (as a full rescore lists them): tonight's
        for the rescored rounds, the stored ones (:attr:`stored`) for the others."""
        fresh = {(m.round, m.team_a, m.team_b): m for m in new}
        out = []
        for p in pairings:
            key = (p.round, p.a, p.b)
            out.append(fresh[key] if p.round in self.rescore else self.stored[key])
        return out

    def write(
        self,
        con: Any,
        linked: list[linking.MatchGame],
        results: list[scoring.BoardResult],
        matches: list[scoring.TeamMatch],
    ) -> None:
        """Replace the rows of the rescored (and no longer paired) rounds, and their fingerprints;
        call inside the transaction that writes the standings."""
        rows = [{"stage": self.stage, "round": r, "fingerprint": self.fingerprints[r]} for r in sorted(self.rescore)]
        batches: tuple[Sequence[Any], ...] = (linked, results, matches, rows)
        if self.full:
            for table, new in zip(_SCORED_TABLES + ("scored_rounds",), batches, strict=True):
                gateway.replace_where(con, table, {"stage": self.stage}, new)
            return
        touched = sorted(self.rescore | self.removed)
        for table, new in zip(_SCORED_TABLES + ("scored_rounds",), batches, strict=True):
            gateway.replace_rounds(con, table, self.stage, touched, new)


def rescore_plan(
    con: Any,
    config: Config,
    inputs: context.Inputs,
    stage: Any,
    pairings: tuple[Pairing, ...],
    boards: list[linking.BoardPairing],
    captains: dict[str, str],
    now: dt.datetime,
) -> RescorePlan:
    """Fingerprint every paired round of the stage: the scoring version, the stage's config, every TD
    ruling, the captains, the round's pairings and lineups, which of its windows (and of their
    margins, after which a board with no game is unplayed) have passed by `now`, and its games
    (every stored game between a board's players, or the captains, near the window, with each
    column linking reads). A round whose fingerprint is the stored one would be scored into the
    rows it already has. The plan carries the stored team matches of the other rounds."""
    margin = dt.timedelta(days=stage.window_margin_days)
    common = repr(
        (
            scoring.SCORING_VERSION,  # read at call time: the one constant a maintainer bumps
            stage,
            tuple(s.name for s in config.stages),
            config.boards,
            config.kind,
            inputs.overrides,
            sorted(captains.items()),
        )
    ).encode()
    near = near_windows(boards, pairings, captains, margin)
    games = games_by_round(con, near)
    fingerprints = {
        rnd: round_fingerprint(common, rnd, pairings, boards, games.get(rnd), now, margin)
        for rnd in sorted({p.round for p in pairings})
    }
    stored = dict(gateway.query(con, "queries/scored_rounds_of_stage", [stage.name]).iter_rows())
    rescore = frozenset(r for r, f in fingerprints.items() if stored.get(r) != f)
    spans = [(lo, hi) for r, _, _, _, _, lo, hi in near if r in rescore]
    span = (min(lo for lo, _ in spans), max(hi for _, hi in spans)) if spans else (now, now)
    kept = {}
    if len(rescore) < len(fingerprints):
        for row in gateway.query(con, "queries/team_matches_for_standings", [stage.name]).iter_rows(named=True):
            kept[row["round"], row["team_a"], row["team_b"]] = scoring.TeamMatch(**row)
    return RescorePlan(
        stage.name,
        fingerprints,
        rescore,
        frozenset(set(stored) - set(fingerprints)),
        not stored,
        span,
        frozenset(stored),
        kept,
    )


Window = tuple[int, int, str, str, str, dt.datetime, dt.datetime]  # round, board, entrant_a, players, lo, hi


def near_windows(
    boards: list[linking.BoardPairing], pairings: tuple[Pairing, ...], captains: dict[str, str], margin: dt.timedelta
) -> list[Window]:
    """Every board's players with its window widened by the margin, and each pair of captains
    (board 0: their 3+0 games, TEAM-KO-1, are linked from the captains' own pair)."""
    near = [
        (b.round, b.board, b.entrant_a, b.player_a, b.player_b, b.window_start - margin, b.window_end + margin)
        for b in boards
    ]
    for p in pairings:
        if p.a in captains and p.b in captains:
            near.append((p.round, 0, p.a, captains[p.a], captains[p.b], p.window_start - margin, p.window_end + margin))
    return near


def games_by_round(con: Any, near: list[Window]) -> dict[int, str]:
    """Per round, the stored games between a window's players near it, with each column linking
    reads, as one digest (sql/queries/round_games_fingerprint.sql)."""
    frame = pl.DataFrame(
        [
            {"round": r, "board": bd, "entrant_a": ea, "p1": min(pa, pb), "p2": max(pa, pb), "lo": lo, "hi": hi}
            for r, bd, ea, pa, pb, lo, hi in near
        ],
        schema={
            "round": pl.Int64,
            "board": pl.Int64,
            "entrant_a": pl.String,
            "p1": pl.String,
            "p2": pl.String,
            "lo": pl.Datetime("us", "UTC"),
            "hi": pl.Datetime("us", "UTC"),
        },
    )
    return dict(gateway.query_with(con, "queries/round_games_fingerprint", {"_boards": frame}).iter_rows())


def round_fingerprint(
    common: bytes,
    rnd: int,
    pairings: tuple[Pairing, ...],
    boards: list[linking.BoardPairing],
    games: str | None,
    now: dt.datetime,
    margin: dt.timedelta,
) -> str:
    """One round's fingerprint: what every round shares, its pairings and lineups, which of its
    windows and margins have passed by `now`, and its games."""
    h = hashlib.sha256(common)
    mine = [p for p in pairings if p.round == rnd]
    passed = [(now >= p.window_end, now >= p.window_end + margin) for p in mine]
    h.update(repr((mine, [b for b in boards if b.round == rnd], passed)).encode())
    h.update((games or "").encode())
    return h.hexdigest()
