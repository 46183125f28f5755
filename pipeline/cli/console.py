"""What a TD sees in the terminal, and what goes to the log file.

Output contract: stdout carries the summaries; stderr only warnings and errors, one line each
(``warning: ...``, ``error: ...``) and, while ingesting, progress (a live bar on a terminal, else
a line every :data:`PROGRESS_INTERVAL_S`). Prefect's, uvicorn's and the HTTP libraries' log lines,
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
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # the console is imported before anything heavy (a refused run stops within a second)
    from pipeline.lichess.ingest_report import PlayerReport

PROGRESS_INTERVAL_S = 10.0
PROGRESS_INTERVAL_ENV = "ANTICHESS_TD_PROGRESS_S"  # tests shorten the interval; undocumented for TDs
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


# --------------------------------------------------------------------------- progress


STOPPING = threading.Event()  # set when a run is being stopped: no more progress after its closing line
_live: set[_Display] = set()


def stop_progress() -> None:
    """A run is being stopped (any thread): progress lines end, a live bar is cleared."""
    STOPPING.set()
    for progress in list(_live):
        if progress._bar is not None:
            with contextlib.suppress(Exception):
                progress._bar.stop()


def progress_interval_s() -> float:
    try:
        return float(os.environ.get(PROGRESS_INTERVAL_ENV, PROGRESS_INTERVAL_S))
    except ValueError:
        return PROGRESS_INTERVAL_S


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class _Display:
    """Progress on stderr: a live bar on a terminal; otherwise :meth:`line` every ``interval_s``."""

    name = "progress"

    def __init__(self, interval_s: float | None = None, stream: TextIO | None = None, tty: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.interval_s = progress_interval_s() if interval_s is None else interval_s
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._bar: Any = None
        self._task: Any = None

    def done_share(self) -> float | None:
        raise NotImplementedError

    def line(self) -> str:
        raise NotImplementedError

    def _bar_text(self) -> str:
        raise NotImplementedError

    def _redraw(self) -> None:
        if self._bar is not None and not STOPPING.is_set():
            share = self.done_share()
            self._bar.update(self._task, completed=round(1000 * (share or 0)), description=self._bar_text())

    def _tick(self) -> None:
        while not self._stop.wait(self.interval_s) and not STOPPING.is_set():
            self.stream.write(self.line() + "\n")
            self.stream.flush()

    def _remains(self, done: int, unit: str) -> str:
        """``about 3,400 games and 1 min 54 s left`` at the pace so far."""
        share = self.done_share()
        if share is None or share == 0:
            return "no estimate yet"
        if share >= 1:
            return "nearly done"
        rest = (1 - share) / share
        elapsed = time.monotonic() - self.started
        left = round(done * rest)
        return f"about {left:,} {unit}{'' if left == 1 else 's'} and {_duration(elapsed * rest)} left"

    def __enter__(self) -> Any:
        if self.tty:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self._bar = Progress(
                TextColumn(self.name),
                BarColumn(),
                TextColumn("{task.description}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=Console(file=self.stream),
                transient=True,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task(self._bar_text(), total=1000)
            _live.add(self)
        else:
            self._thread = threading.Thread(target=self._tick, name=f"{self.name}-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        _live.discard(self)
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


class IngestProgress(_Display):
    """Counts games as they arrive (:class:`pipeline.lichess.ingest_run.Progress`): the line gives the games
    so far, games/s, the players done and an estimate of what remains. The estimate assumes the
    pace so far: each stream runs oldest first from its cursor to now, so the share of the
    streams' time spans covered is the share of the work done. ``throttle`` (games/s per stream of
    the in-process replay server) is named in each line, so a slow replay is not mistaken for a
    hung run."""

    name = "ingest"

    def __init__(
        self,
        players: int,
        *,
        throttle: float = 0.0,
        interval_s: float | None = None,
        stream: TextIO | None = None,
        tty: bool | None = None,
    ) -> None:
        super().__init__(interval_s, stream, tty)
        self.throttle = throttle
        self.players = players
        self.players_done = 0
        self.games = 0
        self.streams = 0
        self.streams_done = 0
        self.partial: dict[str, float] = {}  # stream → share of its time span covered

    # pipeline.lichess.ingest_run.Progress
    def planned(self, streams: int) -> None:
        with self._lock:
            self.streams += streams

    def game(self, stream: str, done: float | None) -> None:
        with self._lock:
            self.games += 1
            if done is not None:
                self.partial[stream] = done
        self._redraw()

    def player_done(self, player: PlayerReport) -> None:
        with self._lock:
            self.players_done += 1
            if player.games == "streamed":
                self.streams_done += 1
                self.partial.pop(f"{player.user_id} games", None)
        self._redraw()

    def done_share(self) -> float | None:
        """The share of the planned streams done (None before any is planned)."""
        with self._lock:
            if not self.streams:
                return None
            return min((self.streams_done + sum(self.partial.values())) / self.streams, 1.0)

    def _bar_text(self) -> str:
        return f"{self.games:,} games, {self.players_done}/{self.players} players" + (
            f", replay server at {self.throttle:g} games/s" if self.throttle else ""
        )

    def line(self) -> str:
        """``ingest: 1,234 games so far, 29.8 games/s; 12/96 players; about 3,400 games and 1 min 54 s left``."""
        with self._lock:
            games, done, planned = self.games, self.players_done, self.streams
        rate = games / max(time.monotonic() - self.started, 1e-9)
        remains = self._remains(games, "game") if planned else "profiles and rating histories"
        throttle = (
            f"; the replay server sends {self.throttle:g} games/s per stream "
            "(lichess.replay_games_per_s = 0 turns that off)"
            if self.throttle
            else ""
        )
        return f"ingest: {games:,} games so far, {rate:.1f} games/s; {done}/{self.players} players; {remains}{throttle}"


class CountProgress(_Display):
    """A known number of items, e.g. ``verify: 1,200 of 3,024 games, 95.2 games/s; about 1,824 games
    and 19 s left``. :meth:`step` after each."""

    def __init__(
        self,
        name: str,
        total: int,
        unit: str = "game",
        *,
        interval_s: float | None = None,
        stream: TextIO | None = None,
        tty: bool | None = None,
    ) -> None:
        super().__init__(interval_s, stream, tty)
        self.name, self.total, self.unit, self.count = name, total, unit, 0

    def step(self) -> None:
        with self._lock:
            self.count += 1
        self._redraw()

    def done_share(self) -> float | None:
        return self.count / self.total if self.total else None

    def _bar_text(self) -> str:
        return f"{self.count:,}/{self.total:,} {self.unit}s"

    def line(self) -> str:
        rate = self.count / max(time.monotonic() - self.started, 1e-9)
        return (
            f"{self.name}: {self.count:,} of {self.total:,} {self.unit}s, {rate:.1f} {self.unit}s/s; "
            f"{self._remains(self.count, self.unit)}"
        )


def verify_progress(total: int) -> CountProgress:
    """Progress of verifying ``total`` games (replaying their moves): for ``run.score_stage``."""
    return CountProgress("verify", total)


def replay_throttle(config: Any) -> float:
    """Games/s per stream of the in-process replay server (``lichess.replay_games_per_s``), 0 when
    the run fetches from a Lichess server (real or served by hand) or the throttle is off."""
    return float(config.lichess.replay_games_per_s) if config.lichess.replay_data is not None else 0.0


@contextlib.contextmanager
def ingest_progress(players: int, throttle: float = 0.0) -> Iterator[IngestProgress]:
    """Progress of an ingest of ``players`` players on stderr (see :class:`IngestProgress`)."""
    with IngestProgress(players, throttle=throttle) as progress:
        yield progress


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
