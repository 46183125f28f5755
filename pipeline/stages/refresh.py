"""A refresh run: the nightly run made cheap for the hours before a round window closes
(``antichess-td nightly --refresh``, and the runs of ``[schedule] closing_day_cron`` under
``antichess-td serve``; TEAM-FMT-3: windows close Monday 23:59 UTC, when most games are played).

It does the nightly's work with three differences:

* **Only on a closing day.** Unless a paired round's window closes within :data:`HORIZON` of the
  run's time (:func:`closing_rounds`), it sends no request and publishes nothing: the run is
  recorded ('ok', ``counts.refresh.result`` says why) and ends (:func:`close_idle`). So a cron line
  may be as wide as the TD likes (``0 12-23 * * *``): only the last day of a window costs anything.
* **Histories once a day.** A player who played since the last run has a new profile; the ingest
  fetches the profile and the new games as ever, but not a rating history stored earlier the same
  UTC day (:func:`refresh_config`): Lichess's history holds end-of-day ratings, today's is not
  final before midnight, and the next night's run fetches it (the cursor keeps the old profile).
* **Nothing new, nothing published.** When the ingest stored nothing (no new game, history or
  rejected record, the same profiles as the published snapshot), the TD's files are those of the
  run before (:func:`inputs_digest`), that run left the published state standing (a nightly or
  refresh that ended well), and the score stage rescores no round (no window or margin passed
  since), the audits, exports, publish and site are skipped: the published snapshot keeps its
  bytes and the site its files, and the run is recorded 'ok' with ``counts.refresh.result`` =
  ``nothing new`` (:func:`close_unchanged`). Otherwise the run goes on as a nightly.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from pipeline.model import Config
from pipeline.resources import PRESETS_DIR
from pipeline.stages import context, record
from pipeline.store import gateway

HORIZON = dt.timedelta(hours=24)
"""A refresh works when a round window closes within this time of the run."""

NOTHING_NEW = "nothing new"
IDLE = "no round window closes within 24 hours"


@dataclass(frozen=True)
class Closing:
    """A round whose window closes soon: ``window_end`` (UTC) of ``stage``'s round ``round``."""

    stage: str
    round: int
    window_end: dt.datetime


def closing_rounds(inputs: context.Inputs, now: dt.datetime) -> list[Closing]:
    """The paired rounds whose window ends after `now` and within :data:`HORIZON` of it, by end."""
    found = {(p.stage, p.round, p.window_end) for p in inputs.pairings if now < p.window_end <= now + HORIZON}
    return [Closing(s, r, end) for s, r, end in sorted(found, key=lambda c: (c[2], c[0], c[1]))]


def refresh_config(config: Config, now: dt.datetime) -> Config:
    """The run's config with ``lichess.histories_fresh_since`` at the start of `now`'s UTC day."""
    day = now.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return dataclasses.replace(config, lichess=dataclasses.replace(config.lichess, histories_fresh_since=day))


def inputs_digest(config: Config) -> str:
    """A digest of what the TD wrote: the tournament.toml, its preset and the TD's CSV files (a
    file that does not exist counts as such)."""
    h = hashlib.sha256()
    files = [config.path, PRESETS_DIR / f"{config.preset}.toml" if config.preset else None]
    files += [config.paths.teams, config.paths.players, config.paths.pairings, config.paths.overrides]
    for path in files:
        h.update(repr(str(path) if path is not None else None).encode())
        h.update(path.read_bytes() if path is not None and path.is_file() else b"\0missing")
    return h.hexdigest()


def record_inputs(run: record.Run) -> str:
    """Record the TD's files' digest with the run (``counts.validate.inputs``); returns it."""
    digest = inputs_digest(run.config)
    run.done("validate", {"inputs": digest})
    return digest


def unchanged_since(run: record.Run, digest: str, ingested: dict[str, Any]) -> int | None:
    """The run whose published state this refresh's ingest left as it was (None: something is
    new, or the state of the run before is not known to be the published one): see the module
    docstring. `ingested` is the ingest's summary."""
    if any(ingested.get(k, 0) for k in ("games_new", "refetched", "histories_loaded", "rejected", "games_rejected")):
        return None
    published = run.config.paths.database
    if not published.exists():
        return None
    con = gateway.connect(run.work.paths.database)
    try:
        rows = gateway.query(con, "queries/run_previous", [run.run_id]).to_dicts()
        work_profiles = gateway.query(con, "queries/profiles_digest")["digest"][0]
    finally:
        con.close()
    if not rows:
        return None
    before = rows[0]
    counts = json.loads(before["counts"]) if isinstance(before["counts"], str) else before["counts"] or {}
    if (
        before["status"] != "ok"
        or before["command"] not in ("nightly", "refresh")
        or (counts.get("validate") or {}).get("inputs") != digest
    ):
        return None
    con = gateway.connect(published, read_only=True)
    try:
        published_profiles = gateway.query(con, "queries/profiles_digest")["digest"][0]
    finally:
        con.close()
    return int(before["run_id"]) if published_profiles == work_profiles else None


def close_idle(run: record.Run) -> str:
    """End a refresh run with no window closing soon: recorded 'ok', nothing fetched or published.
    Returns the line for the terminal."""
    record.finish_unpublished(run, "refresh", {"result": IDLE})
    return (
        f"run {run.run_id} ok: refresh as of {run.as_of:%Y-%m-%d %H:%M} UTC: {IDLE}: nothing fetched; "
        f"the published {run.config.paths.database} is unchanged"
    )


def close_unchanged(run: record.Run, since: int) -> str:
    """End a refresh run that found nothing new since run `since`: recorded 'ok', nothing
    published. Returns the line for the terminal."""
    record.finish_unpublished(run, "refresh", {"result": NOTHING_NEW, "since_run": since})
    return (
        f"run {run.run_id} ok: {NOTHING_NEW} since run {since}: nothing rescored; the published "
        f"{run.config.paths.database} and the site are unchanged"
    )


def idle_result(run: record.Run) -> dict[str, Any]:
    """The flow's result for a refresh with no window closing soon (:func:`close_idle`)."""
    return {"run_id": run.run_id, "refresh": close_idle(run)}
