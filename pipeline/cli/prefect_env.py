"""Prefect's environment, set before Prefect is first imported (it reads settings at import).

* ``PREFECT_HOME`` (its SQLite database, results and caches) is the config's
  ``paths.prefect_home`` (default: a ``.prefect`` folder beside the tournament database)
  instead of ``~/.prefect``.
* Telemetry off: ``DO_NOT_TRACK=1``, ``PREFECT_SERVER_ANALYTICS_ENABLED=false``; with them a run
  makes no connection beyond loopback and the configured Lichess base URL.
* The ephemeral server's first start takes 10-20 s on two cores (more under load): allow 120 s.
* No block types registered at server start (``PREFECT_API_BLOCKS_REGISTER_ON_START=false``):
  the nightly flow and ``serve`` use no blocks, and registering them cost about 5 s of every
  fresh server's start (the quick start's first nightly, each test server).

Values already in the environment win, so a TD (or a test) can point runs at a real
``prefect server start`` with ``PREFECT_API_URL``.

A test run or a benchmark calls :func:`isolate` instead: a throwaway Prefect of its own.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def configure(home: Path) -> None:
    defaults = {
        "PREFECT_HOME": str(home),
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
        "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
        "PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW": "ignore",
        "PREFECT_API_BLOCKS_REGISTER_ON_START": "false",
    }
    for key, value in defaults.items():
        os.environ.setdefault(key, value)
    # Prefect creates its home without parents; make sure the whole path exists.
    Path(os.environ["PREFECT_HOME"]).expanduser().mkdir(parents=True, exist_ok=True)


def isolate(prefix: str) -> None:
    """A throwaway Prefect for a test run or a benchmark, whatever the environment says: a new
    temporary ``PREFECT_HOME`` (named `prefix`...), quiet, no telemetry, no UI, no
    ``PREFECT_API_URL`` (its own server), and the start-up timeout of :func:`configure`."""
    os.environ.update(
        {
            "PREFECT_HOME": tempfile.mkdtemp(prefix=prefix),
            "DO_NOT_TRACK": "1",
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "PREFECT_LOGGING_LEVEL": "WARNING",
            "PREFECT_LOGGING_TO_API_ENABLED": "false",
            "PREFECT_SERVER_UI_ENABLED": "false",
            "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
            "PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW": "ignore",
            "PREFECT_API_BLOCKS_REGISTER_ON_START": "false",
        }
    )
    os.environ.pop("PREFECT_API_URL", None)
