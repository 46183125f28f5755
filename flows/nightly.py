"""The nightly flow: validate inputs → ingest → link, score and rank → export.

Logic lives in ``pipeline.run``; each task is one call. Tasks take the config and inputs
(frozen values) and open the database themselves, so nothing unhashable crosses a task
boundary (``NO_CACHE``: a nightly run must never be skipped by a cache hit).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from pipeline import run
from pipeline.config import Config, load_config
from pipeline.console import ingest_progress


@task(name="ingest", cache_policy=NO_CACHE)
def ingest_task(config: Config, inputs: run.Inputs, base_url: str, now: dt.datetime) -> dict[str, Any]:
    with ingest_progress(len(inputs.player_ids())) as progress:
        return run.ingest_stage(config, inputs, base_url, now, progress=progress).summary()


@task(name="link-score-rank", cache_policy=NO_CACHE)
def score_task(config: Config, inputs: run.Inputs, now: dt.datetime) -> dict[str, Any]:
    return asdict(run.score_stage(config, inputs, now))


@task(name="export", cache_policy=NO_CACHE)
def export_task(config: Config) -> list[str]:
    return [str(p) for p in run.export_stage(config)]


@flow(name="antichess-nightly")
def nightly(config_path: str, now: str | None = None) -> dict[str, Any]:
    """Everything, in order. ``now`` (UTC ISO-8601) replays the season as it stood then."""
    config = load_config(Path(config_path))
    inputs = run.read_inputs(config)
    at = dt.datetime.fromisoformat(now.replace("Z", "+00:00")) if now else dt.datetime.now(dt.UTC)
    with run.lichess_base_url(config, now=at if now else None) as base_url:
        ingested = ingest_task(config, inputs, base_url, at)
    scored = score_task(config, inputs, at)
    exported = export_task(config)
    return {"ingest": ingested, "score": scored, "exports": exported}
