"""Progress on stderr while a run works: a live bar on a terminal, else a line every
:data:`PROGRESS_INTERVAL_S` (``ingest: 1,234 games so far, ...``, ``verify: 1,200 of 3,024 games, ...``).

:class:`IngestProgress` counts the games of an ingest as they arrive (it is what
``pipeline.lichess.ingest_run.Progress`` is called on, from the stream threads too); :class:`CountProgress`
counts a known number of items (verifying games). :func:`stop_progress` ends every display at once
when a run is being stopped (the signal watcher calls it before the run's closing line).

It imports nothing of the package: the flow gives these displays to the stages, and the CLI stops
them. Presentation only; the numbers come from the reports.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any, Protocol, TextIO

PROGRESS_INTERVAL_S = 10.0
PROGRESS_INTERVAL_ENV = "ANTICHESS_TD_PROGRESS_S"  # tests shorten the interval; undocumented for TDs


class FinishedPlayer(Protocol):
    """What :meth:`IngestProgress.player_done` reads of a player's report
    (``pipeline.lichess.ingest_report.PlayerReport``)."""

    @property
    def user_id(self) -> str: ...

    @property
    def games(self) -> str:
        """``streamed`` when the player's games were streamed (else unchanged, closed, missing)."""
        ...


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

    def player_done(self, player: FinishedPlayer) -> None:
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
    """Progress of verifying ``total`` games (replaying their moves): for ``pipeline.stages.score.score_stage``."""
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
