"""A tournament's state as ``antichess-td status`` shows it, from its published snapshot only
(read-only: it works while a run is writing): the newest run the snapshot records (the run that
published it; a failed run after it shows there once the next run publishes) and the counts of
the newest attention list, what needed the TD then (``runs.counts.attention``)."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

from pipeline.model import Config
from pipeline.store import gateway


@dataclass(frozen=True)
class TournamentStatus:
    tournament_id: str
    config: str
    database: str
    last_run: dict[str, Any] | None  # run_id, command, status, stage, started_at, finished_at, as_of, error
    attention: dict[str, Any] | None  # run_id, items, new, kinds (kind: items)

    def as_json(self) -> dict[str, Any]:
        return {
            "tournament": self.tournament_id,
            "config": self.config,
            "database": self.database,
            "last_run": None if self.last_run is None else {k: _jsonable(v) for k, v in self.last_run.items()},
            "attention": self.attention,
        }


def _jsonable(v: Any) -> Any:
    if isinstance(v, dt.datetime):
        return v.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return v


def tournament_status(config: Config) -> TournamentStatus:
    """The status of the tournament of `config` (no snapshot yet: no run, no list)."""
    published = config.paths.database
    last: dict[str, Any] | None = None
    attention: dict[str, Any] | None = None
    if published.exists():
        con = gateway.connect(published, read_only=True)
        try:
            runs = gateway.query(con, "queries/run_newest").to_dicts()
            lists = gateway.query(con, "queries/attention_counts_latest").to_dicts()
        finally:
            con.close()
        if runs:
            last = {k: (v.astimezone(dt.UTC) if isinstance(v, dt.datetime) else v) for k, v in runs[0].items()}
        if lists:
            counts = json.loads(lists[0]["attention"])
            attention = {"run_id": lists[0]["run_id"], **counts}
    return TournamentStatus(config.tournament_id, str(config.path), str(published), last, attention)
