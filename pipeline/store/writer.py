"""Writes done in order on one background thread, so that a download does not wait for them.

Lichess asks for one request at a time and sends a token holder about 30 games a second, so the
ingest spends most of a night waiting on the network. Storing what a request brought (typing
aside: verifying the match games, the upserts, the commit) costs about 0.15 s a player at 64
teams (docs/benchmarks.md, Season size); done between one request and the next, it would sit on
the critical path. :class:`BackgroundWriter` takes each such unit of work (one transaction: a
player's games with their cursor, a rating history with its cursor) and runs it on its own thread,
in the order given, while the next request downloads. DuckDB releases the interpreter while it
executes, and the downloading thread mostly waits on its socket.

What the order and the error rule guarantee:

* units run one at a time, in submission order, each on the writer's connection only (nobody else
  uses it meanwhile): a player's later batch never commits before an earlier one;
* after a unit fails, no later unit runs (a later batch of the same stream would move its cursor
  past the games that failed to commit) and the error is raised on the submitting thread at its
  next :meth:`submit` or at :meth:`drain`, as it was raised (its type unchanged);
* leaving the ``with`` block drains the queue (what arrived is stored, as if each unit had
  run inline) and ends the thread; a unit only ever commits whole, so a run killed meanwhile loses
  nothing its cursors do not bring back.

At most ``depth`` units wait (each holds at most a batch of games): a faster download than the
writer blocks at :meth:`submit`, so memory stays bounded.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any

log = logging.getLogger(__name__)

Unit = Callable[[Any], None]
"""One unit of writes: called with the writer's connection, runs its own transaction."""

_STOP = object()


class BackgroundWriter:
    """Runs :data:`Unit` s on a background thread, in order (module docstring)."""

    def __init__(self, con: Any, depth: int = 4, name: str = "store-writer") -> None:
        self.con = con
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None  # a unit's error, until raised on a submitting thread
        self._broken = False  # a unit failed: no later unit runs (set by the writer's thread, never cleared)
        self._failed = False  # a unit's error was raised: nothing more is accepted
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            unit = self._queue.get()
            try:
                if unit is _STOP:
                    return
                if not self._broken:  # not `_error`: raising it clears it while units may still wait
                    unit(self.con)
            except BaseException as e:  # raised on the submitting thread (submit, drain)
                self._broken = True
                self._error = e
            finally:
                self._queue.task_done()

    def _raise(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            self._failed = True
            raise error

    def submit(self, unit: Unit) -> None:
        """Queue `unit` (blocks while ``depth`` units wait); raises the error of a unit that failed."""
        self._raise()
        if self._failed:
            raise RuntimeError("the background writer stopped after a failed write")
        self._queue.put(unit)

    def drain(self) -> None:
        """Wait until every queued unit ran; raises the error of a unit that failed."""
        self._queue.join()
        self._raise()

    def close(self) -> None:
        """Drain what is queued (no error raised here) and end the thread."""
        self._queue.put(_STOP)
        self._thread.join()

    def __enter__(self) -> BackgroundWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
        if kind is None:
            self._raise()
        elif self._error is not None:  # the block's own error goes up; say what the writer's was
            log.warning("a background write failed too: %r", self._error)


def run_unit(writer: BackgroundWriter | None, con: Any, unit: Unit) -> None:
    """`unit` on `writer` when there is one, else here and now on `con`."""
    if writer is None:
        unit(con)
    else:
        writer.submit(unit)
