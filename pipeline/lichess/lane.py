"""The names of the Prefect global concurrency limits a league's runs take (docs/td-guide.md,
Running a league): one request lane per Lichess token and server, and one per league store.

A lane's name carries a digest of the server and the token, never the token: Prefect shows limit
names in its UI and logs."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping

from pipeline.model import Config

LANE_PREFIX = "lichess-lane-"
STORE_PREFIX = "league-store-"


def lane_name(base_url: str, token: str | None) -> str:
    """The lane of every request sent to `base_url` with `token` (None: the anonymous lane)."""
    digest = hashlib.sha256(f"{base_url.rstrip('/')}\n{token or ''}".encode()).hexdigest()[:16]
    return f"{LANE_PREFIX}{digest}"


def store_limit_name(league_id: str) -> str:
    """The limit held while a run of the league reads or writes its shared store."""
    return f"{STORE_PREFIX}{league_id}"


def lane_of(config: Config, environ: Mapping[str, str] = os.environ) -> str:
    """The request lane of a tournament's runs: its configured Lichess server (``lichess.base_url``,
    also when its runs fetch from an in-process replay server) and the token its
    ``lichess.token_env`` names in `environ` (unset or empty: the anonymous lane). ``serve``
    creates the limit of this name (flows/league.py); the nightly flow's ingest takes it
    (``flows.nightly.lichess_lane``), in the worker's environment."""
    return lane_name(config.lichess.base_url, environ.get(config.lichess.token_env) or None)
