"""What the commands share: the options they spell alike (``--config``, ``--now``, ``--league``,
``--dry-run``, ``--refresh``), ``--now`` read as a UTC time, and a summary line said on stdout and in the log file."""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path
from typing import Annotated

import typer

from pipeline.errors import InputError

ConfigOpt = Annotated[Path, typer.Option("--config", "-c", help="The tournament.toml.", dir_okay=False)]
NowOpt = Annotated[
    str | None,
    typer.Option(
        "--now", help="Replay as of this UTC time (ISO-8601, e.g. 2026-10-06T03:00:00Z). Default: the real time."
    ),
]

LeagueOpt = Annotated[
    Path | None,
    typer.Option(
        "--league",
        help="The league.toml the tournament is run in: its ingest reads through the league's shared Lichess store.",
        dir_okay=False,
    ),
]

DryRunOpt = Annotated[
    bool,
    typer.Option("--dry-run", help="Print the notifications (webhooks, Lichess) instead of sending them; record none."),
]

RefreshOpt = Annotated[
    bool,
    typer.Option(
        "--refresh",
        help="A refresh run, as [schedule] closing_day_cron starts them: only when a round window closes "
        "within 24 hours; histories fetched once a day; nothing published when nothing is new.",
    ),
]

log = logging.getLogger("antichess_td")


def parse_now(text: str | None) -> dt.datetime:
    """``--now``: a UTC time, or the real time when it is not given (one line naming the option, exit 2, when it does not read)."""
    if text is None:
        return dt.datetime.now(dt.UTC)
    try:
        t = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        t = None
    if t is None or t.tzinfo is None:
        raise InputError("--now", "", f"{text!r}: expected a UTC time such as 2026-10-06T03:00:00Z")
    return t.astimezone(dt.UTC)


def say(line: str) -> None:
    """A summary line: stdout, and the log file too."""
    typer.echo(line)
    log.info("%s", line, extra={"file_only": True})  # the summary in the log file too
