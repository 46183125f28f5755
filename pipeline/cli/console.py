"""What a TD sees in the terminal, and what goes to the log file.

Output contract: stdout carries the summaries; stderr only warnings and errors, one line each
(``warning: ...``, ``error: ...``) and, while ingesting, progress (``pipeline.progress``: a live bar on
a terminal, else a line every ``PROGRESS_INTERVAL_S``). Prefect's, uvicorn's and the HTTP libraries' log lines,
and tracebacks, go only to the log file (``<database folder>/logs/<UTC time>-<command>-<pid>.log``);
``-v`` shows every log line on stderr too. Presentation only; the numbers come from the reports.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import logging.handlers
import os
import sys
from pathlib import Path
from typing import Any, TextIO

OURS = ("pipeline", "flows", "antichess_td")  # the loggers whose warnings a TD sees without -v
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class StderrHandler(logging.StreamHandler[TextIO]):
    """A stream handler on whatever ``sys.stderr`` is when a record is emitted (test runners swap it).
    (A public class name: Prefect keeps the root logger's handlers only when it sees one.)"""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:
        pass


class EarlyHandler(logging.handlers.MemoryHandler):
    """Records logged before the log file is known; kept (up to ``capacity``) until it is."""

    def emit(self, record: logging.LogRecord) -> None:
        if self.target is None and len(self.buffer) >= self.capacity:
            return
        super().emit(record)

    def shouldFlush(self, record: logging.LogRecord) -> bool:
        return self.target is not None and super().shouldFlush(record)


class OneLine(logging.Formatter):
    """``warning: <message>``: the first line of the message, no traceback (that is in the log file)."""

    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname.lower()}: {record.getMessage().splitlines()[0] if record.getMessage() else ''}"


def _ours(record: logging.LogRecord) -> bool:
    return record.name.split(".", 1)[0] in OURS and not getattr(record, "file_only", False)


_installed: list[logging.Handler] = []


def setup_logging(verbose: bool) -> None:
    """The terminal's share of the logs: our warnings and errors in one line each, or with ``-v``
    everything at INFO with time and logger. Until :func:`log_to_file` names the file, records wait
    in memory. Idempotent (the CLI's callback runs once per command, tests run many)."""
    root = logging.getLogger()
    for h in _installed:
        root.removeHandler(h)
        h.close()
    _installed.clear()
    root.setLevel(logging.INFO)
    term = StderrHandler()
    if verbose:
        term.setLevel(logging.INFO)
        term.setFormatter(logging.Formatter(LOG_FORMAT))
        term.addFilter(lambda record: not getattr(record, "file_only", False))
    else:
        term.setLevel(logging.WARNING)
        term.setFormatter(OneLine())
        term.addFilter(_ours)
    early = EarlyHandler(capacity=10_000, flushLevel=logging.CRITICAL + 1)
    early.setFormatter(logging.Formatter(LOG_FORMAT))
    for h in (term, early):
        root.addHandler(h)
        _installed.append(h)
    logging.captureWarnings(True)  # library warnings: the log file, not the terminal
    for chatty in ("httpx", "httpcore", "urllib3"):  # one line per HTTP request is noise even in a file
        logging.getLogger(chatty).setLevel(logging.WARNING)


def log_to_file(folder: Path, command: str, now: dt.datetime | None = None) -> Path:
    """Open ``folder/logs/<UTC time>-<command>-<pid>.log`` for every log line at INFO and above (with
    tracebacks); the lines logged before it was known go in first. Returns its path."""
    now = now or dt.datetime.now(dt.UTC)
    path = folder / "logs" / f"{now:%Y-%m-%dT%H%M%SZ}-{command}-{os.getpid()}.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    root = logging.getLogger()
    for h in list(_installed):
        if isinstance(h, logging.handlers.MemoryHandler):
            h.setTarget(handler)
            h.flush()
            root.removeHandler(h)
            _installed.remove(h)
            h.close()
    root.addHandler(handler)
    _installed.append(handler)
    return path


def log_file() -> Path | None:
    """The log file of this command, once :func:`log_to_file` opened it."""
    for h in _installed:
        if isinstance(h, logging.FileHandler):
            return Path(h.baseFilename)
    return None


def quiet_prefect() -> None:
    """After Prefect is imported: its loggers (and uvicorn's) write through ours, not to stderr."""
    for name in list(logging.Logger.manager.loggerDict):
        if name.split(".", 1)[0] not in ("prefect", "uvicorn", "fastapi"):
            continue
        logger = logging.getLogger(name)
        for h in list(logger.handlers):
            if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler):
                logger.removeHandler(h)
        logger.propagate = True


def flush_logs() -> None:
    for h in _installed:
        with contextlib.suppress(Exception):
            h.flush()


def ingest_summary(report: dict[str, Any], per_player: bool) -> list[str]:
    """Totals (and optionally one line per player that cost at least one request)."""
    lines = []
    if per_player:
        lines.append(
            f"{'player':<24} {'history':<9} {'games':<9} {'req':>4} {'fetched':>7} {'new':>6} {'again':>6} {'rejected':>8}"
        )
        for p in report["players"]:
            if p["requests"] or p["games_fetched"]:
                lines.append(
                    f"{p['user_id']:<24} {p['history']:<9} {p['games']:<9} {p['requests']:>4} {p['games_fetched']:>7} "
                    f"{p['games_new']:>6} {p['games_already_stored']:>6} {p['games_rejected']:>8}"
                )
    lines.append(
        f"ingest: {report['users_loaded']} players; {report['requests']} requests ({report['retries']} retries, "
        f"{report['rate_limited']} rate-limited, {report['waited_429_s']:.0f} s waited on 429s, "
        f"{report['streams_resumed']} streams resumed); histories {report['histories_loaded']} fetched / "
        f"{report['histories_unchanged']} unchanged"
        + (f" / {report['histories_kept']} kept from earlier today" if report.get("histories_kept") else "")
        + f"; game streams {report['streams_unchanged']} unchanged"
        + (f"; {report['league_answered']} answered by the league's store" if report.get("league_answered") else "")
    )
    earlier = report["games_distinct"] - report["games_new"]  # distinct games that were stored before this run
    lines.append(
        f"games: {report['games_fetched']} fetched = {report['games_loaded']} loaded ({report['games_new']} new, "
        f"{report['games_already_stored']} again) + {report['games_skipped_other_variant']} other-variant skipped "
        f"+ {report['games_ongoing']} still being played + {report['games_rejected']} rejected; "
        f"{report['games_distinct']} distinct: {report['games_new']} new, {earlier} stored by an earlier run"
        + (
            " ('again': a game between two registered players comes in both their streams)"
            if report["games_already_stored"] > earlier
            else ""
        )
        + (
            f"; {report['games_flagged']} loaded but flagged (the PGN names other players: see the rejected view)"
            if report.get("games_flagged")
            else ""
        )
    )
    refetch = [report.get(k, 0) for k in ("refetched", "refetch_ongoing", "refetch_missing")]
    if any(refetch):
        lines.append(
            f"backfill queue: {refetch[0]} games re-fetched by id and stored, {refetch[1]} still being played "
            f"(stay queued), {refetch[2]} not on Lichess (kept in rejected_records)"
        )
    lines.extend(f"warning: {w}" for w in report["warnings"])
    return lines


def rounds_scored(rounds: int, first_time: int) -> str:
    """``9 rounds scored for the first time`` / ``1 round scored again`` / both."""
    again = rounds - first_time
    parts = []
    if first_time:
        parts.append(f"{first_time} round{'s' if first_time != 1 else ''} scored for the first time")
    if again or not first_time:
        parts.append(f"{again} round{'s' if again != 1 else ''} scored again")
    return ", ".join(parts)


def standings_table(stage: str, rows: list[dict[str, Any]], limit: int = 16) -> list[str]:
    """The latest table of a stage, as a TD reads it: rank, entrant and the criteria in order."""
    if not rows:
        return []
    lines = [
        f"standings {stage} after round {rows[0]['after_round']}:",
        f"{'rank':>4}  {'entrant':<28} {'MP':>5} {'scored':>8} {'conceded':>8} {'diff':>6} {'MB':>6}",
    ]
    for r in rows[:limit]:
        lines.append(
            f"{r['rank']:>4}  {str(r['entrant']):<28} {r['match_points']:>5g} {r['points_scored']:>8g} "
            f"{r['points_conceded']:>8g} {r['points_difference']:>6g} {r['median_buchholz']:>6g}"
        )
    if len(rows) > limit:
        lines.append(f"      ... {len(rows) - limit} more in standings_{stage}.csv")
    return lines


def audit_summary(report: Any) -> list[str]:
    """The findings grouped by rule (errors first), each with its subject, team and detail; then the totals."""
    lines = []
    for rule, findings in report.by_rule().items():
        counts = ", ".join(
            f"{n} {sev}{'s' if n > 1 and sev != 'info' else ''}" for sev, n in report.counts()[rule].items()
        )
        lines.append(f"{rule} ({counts})")
        for f in findings:
            who = f.subject if not f.team or f.team == f.subject else f"{f.subject} ({f.team})"
            lines.append(f"  {f.severity:<7} {who}: {f.detail}" + (f" <{f.evidence_url}>" if f.evidence_url else ""))
    lines.extend(f"note: {n}" for n in report.notes)
    lines.append(
        f"audit: {len(report.findings)} findings: {report.errors} errors, {report.count('warning')} warnings, "
        f"{report.count('info')} info, in {len(report.by_rule())} rules"
        + (f"; wrote {report.csv_path}" if report.csv_path else "")
    )
    return lines
