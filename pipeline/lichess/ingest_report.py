"""What an ingest did, player by player and in total (:class:`IngestReport`), and the sum of the
reports of a run ingested in batches (:func:`merge_reports`).

Per player and in total: fetched = loaded + skipped (other variants against outsiders) + ongoing +
rejected, and loaded = new + already stored.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PlayerReport:
    user_id: str
    history: str = "-"  # fetched | unchanged | empty | closed | missing
    games: str = "-"  # streamed | unchanged | closed | missing
    requests: int = 0
    games_fetched: int = 0
    games_new: int = 0
    games_already_stored: int = 0
    games_rejected: int = 0
    games_skipped_other_variant: int = 0
    games_ongoing: int = 0
    games_flagged: int = 0  # of the loaded: the PGN names other players than the JSON (game_flags)
    vs_requests: int = 0

    @property
    def games_loaded(self) -> int:
        return self.games_new + self.games_already_stored


@dataclass
class IngestReport:
    users_fetched: int = 0
    users_loaded: int = 0
    users_missing: list[str] = field(default_factory=list)
    histories_loaded: int = 0
    histories_unchanged: int = 0
    histories_kept: int = 0  # a refresh run's: moved, but stored earlier the same UTC day (not fetched)
    rating_points_loaded: int = 0
    streams_unchanged: int = 0
    rejected: int = 0
    requests: int = 0
    retries: int = 0
    rate_limited: int = 0
    waited_429_s: float = 0.0
    streams_resumed: int = 0
    league_answered: int = 0  # profiles, histories and streams the league's shared store answered, not Lichess
    refetched: int = 0  # games queued by a backfill (refetch_games), fetched by id and stored
    refetch_ongoing: int = 0  # of those asked for: still being played (they stay queued)
    refetch_missing: int = 0  # of those asked for: not returned by Lichess (kept in rejected_records)
    verified: int = 0  # match-game candidates verified as they arrived (Scope.windows)
    mismatches: int = 0  # of those: the PGN or the board disagrees with the JSON
    warnings: list[str] = field(default_factory=list)
    players: dict[str, PlayerReport] = field(default_factory=dict, repr=False)
    game_ids: set[str] = field(default_factory=set, repr=False)

    def _sum(self, name: str) -> int:
        return sum(getattr(p, name) for p in self.players.values())

    @property
    def games_fetched(self) -> int:
        return self._sum("games_fetched")

    @property
    def games_loaded(self) -> int:
        return self._sum("games_loaded")

    @property
    def games_new(self) -> int:
        return self._sum("games_new")

    @property
    def games_already_stored(self) -> int:
        return self._sum("games_already_stored")

    @property
    def games_rejected(self) -> int:
        return self._sum("games_rejected")

    @property
    def games_skipped_other_variant(self) -> int:
        return self._sum("games_skipped_other_variant")

    @property
    def games_ongoing(self) -> int:
        return self._sum("games_ongoing")

    @property
    def games_flagged(self) -> int:
        return self._sum("games_flagged")

    @property
    def games_distinct(self) -> int:
        """A game between two registered players arrives in both players' streams: count it once."""
        return len(self.game_ids)

    def summary(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("players", "game_ids")}
        for name in (
            "games_fetched",
            "games_loaded",
            "games_new",
            "games_already_stored",
            "games_rejected",
            "games_skipped_other_variant",
            "games_ongoing",
            "games_flagged",
            "games_distinct",
        ):
            out[name] = getattr(self, name)
        out["players"] = [p.__dict__ | {"games_loaded": p.games_loaded} for p in self.players.values()]
        return out


_COUNTERS = (
    "users_fetched",
    "users_loaded",
    "histories_loaded",
    "histories_unchanged",
    "histories_kept",
    "rating_points_loaded",
    "streams_unchanged",
    "rejected",
    "requests",
    "retries",
    "rate_limited",
    "waited_429_s",
    "streams_resumed",
    "league_answered",
    "refetched",
    "refetch_ongoing",
    "refetch_missing",
    "verified",
    "mismatches",
)


def merge_reports(reports: Iterable[IngestReport]) -> IngestReport:
    """One report for a run ingested in batches: counters and per-player counts added up, each
    player's statuses from the first report that has them set, distinct game ids united."""
    out = IngestReport()
    for r in reports:
        for name in _COUNTERS:
            setattr(out, name, getattr(out, name) + getattr(r, name))
        out.users_missing += r.users_missing
        out.warnings += r.warnings
        out.game_ids |= r.game_ids
        for uid, p in r.players.items():
            mine = out.players.get(uid)
            if mine is None:
                out.players[uid] = dataclasses.replace(p)
                continue
            for f in dataclasses.fields(PlayerReport):
                value = getattr(p, f.name)
                if isinstance(value, int):
                    setattr(mine, f.name, getattr(mine, f.name) + value)
                elif getattr(mine, f.name) == "-":
                    setattr(mine, f.name, value)
    return out
