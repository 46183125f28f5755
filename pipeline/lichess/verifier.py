"""Match games replayed in a worker process, from the moment a stream commits them.

Verifying a match-game candidate (``verify.verify_game``: read its PGN, replay it on an antichess
board) costs about 1 ms of pure Python. Done inside the write units of the background writer
(pipeline/store/writer.py), it would hold the interpreter lock for about half of that thread's
samples (py-spy, the quick start, where the replay server runs in the same process as the ingest),
and the whole CPU-bound ingest would wait for it. :class:`Verifier` sends each batch's candidates to one worker
process as soon as the stream forms the batch (``_GameSink.commit``, on the stream's thread), so
the replay runs on another core while the stream goes on and the writer stores earlier units; the
batch's write unit collects the verdicts (:meth:`Verdicts.result`) and stores them in the same
transaction as their games.

* The worker starts once the run has submitted ``POOL_FROM`` new candidates, counting every
  stream's batches together; until then each batch is replayed here, when its unit asks, so a
  night of a few new games never pays for starting the worker. Once it runs, every batch goes to
  it, however small: a season's first night brings most players' match games in batches of a
  few dozen, and replayed here they would hold the interpreter lock for about 0.7 ms each.
* Each game is replayed once a run: a game between two registered players arrives in both their
  streams, and the second batch takes the first one's verdict (the unit still leaves out the games
  whose verdict is stored already).
* The worker is started with ``spawn`` (no copy of the parent's threads, locks and connections);
  it imports this module (its start-up) and runs ``verify.verify_rows``, so it loads
  pipeline.domain.verify and python-chess, not the ingest's adapters. Like any spawned child it
  first imports the parent's main module, unless that is a package's ``__main__`` (``python -m
  pipeline``, ``python -m pytest``), under the name ``__mp_main__``: under the ``antichess-td``
  script that is pipeline.cli.app (0.3 s, no Prefect); in a flow run of ``antichess-td serve``
  (``python -m prefect.engine``) it is Prefect's engine (about 1 s). A script that runs the ingest
  must keep its work under ``if __name__ == "__main__":``, as benchmarks/ do, or the worker runs
  it again.
* The worker ends with the run, however the run ends (:func:`_worker_starts`), and neither it nor
  multiprocessing's resource tracker writes to stderr after the run's closing line.
* What the worker logs (python-chess's error on a PGN that does not replay) is handed to this
  process's loggers of the same name, so it goes where the same line logged here goes (the log
  file, not the TD's terminal: pipeline/cli/console.py), not to the worker's stderr.
* A worker that dies or raises loses no verdict: the games it was sent are replayed here instead
  (and every later batch too), and a warning says so once.

The ``with`` block must end after every unit that collects verdicts has run: the ingest opens it
outside the background writer's, so the writer drains first.
"""

from __future__ import annotations

import logging
import logging.handlers
import multiprocessing
import sys
import threading
from collections.abc import Collection
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import resource_tracker
from types import TracebackType
from typing import Any

from pipeline.domain import verify
from pipeline.lichess.worker_process import tie_to_parent

log = logging.getLogger(__name__)

POOL_FROM = 50
"""New candidates a run submits before its worker starts; until then batches are replayed in this
process (read by each :class:`Verifier` when made)."""

Row = dict[str, Any]
"""A candidate as ``verify.verify_game`` takes it: the typed lichess_games columns."""


class _Batch:
    """One submission's new games: replayed by the worker (``future``), or here, each when first
    asked for. Its verdicts are kept for the run; its rows only until replayed."""

    def __init__(self, rows: dict[str, Row], future: Future[list[verify.Verdict]] | None, owner: Verifier | None):
        self.rows = rows
        self.future = future
        self.owner = owner  # told what the worker delivered, or that it failed
        self.verdicts: dict[str, verify.Verdict] = {}
        self.lock = threading.Lock()

    def verdict(self, gid: str) -> verify.Verdict:
        with self.lock:
            if gid not in self.verdicts:
                if self.future is not None:
                    self._collect(self.future)
                else:
                    self.verdicts[gid] = verify.verify_game(self.rows.pop(gid))
            return self.verdicts[gid]

    def _collect(self, future: Future[list[verify.Verdict]]) -> None:
        """The worker's verdicts on the whole batch (waiting for them), or, if it failed, this
        process's."""
        assert self.owner is not None  # only a Verifier sends batches to its worker
        try:
            verdicts = future.result()
        except Exception as e:  # BrokenProcessPool when the worker died, or what the replay raised there
            self.owner.worker_failed(e)
            verdicts = verify.verify_rows(list(self.rows.values()))  # raises here what the replay raises
        else:
            self.owner.delivered(len(verdicts))
        self.verdicts = dict(zip(self.rows, verdicts, strict=True))
        self.rows, self.future = {}, None


class Verdicts:
    """The verdicts of one batch's candidates, as its write unit collects them."""

    def __init__(self, batches: dict[str, _Batch]) -> None:
        self._batches = batches  # game id → the batch that replays it (this one's, or an earlier one's)

    @property
    def game_ids(self) -> list[str]:
        return list(self._batches)

    def result(self, skip: Collection[str] = ()) -> list[verify.Verdict]:
        """The verdicts of the candidates not in `skip` (those whose verdict is stored already), in
        the order submitted; waits for the worker's."""
        return [batch.verdict(gid) for gid, batch in self._batches.items() if gid not in skip]


def in_process(rows: dict[str, Row]) -> Verdicts:
    """`rows` replayed here, each when its verdict is asked for (an ingest without a :class:`Verifier`)."""
    batch = _Batch(dict(rows), None, None)
    return Verdicts(dict.fromkeys(rows, batch))


def _worker_starts(logs: Any, level: int) -> None:
    """Run in the worker as it starts: its records at `level` or above go to `logs`, and it is
    tied to this process (``worker_process.tie_to_parent``: Ctrl-C is the parent's, and the worker
    ends when the parent does)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.addHandler(logging.handlers.QueueHandler(logs))
    root.setLevel(level)
    tie_to_parent()


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker, the process that removes the pool's semaphores if
    this one ends without doing it, told not to warn about them: a run stopped by Ctrl-C or SIGTERM
    ends with ``os._exit`` (pipeline/cli/signals.py), its closing line last on stderr, and the tracker,
    which writes there too, would add 'There appear to be 8 leaked semaphore objects' after it.
    (The tracker is started with this process's ``-W`` options; already running, it is left as is.)"""
    saved = list(sys.warnoptions)
    sys.warnoptions.append("ignore:resource_tracker:UserWarning")
    try:
        resource_tracker.ensure_running()
    finally:
        sys.warnoptions[:] = saved


class _Relay(logging.Handler):
    """Hands a record the worker logged to this process's logger of the same name."""

    def emit(self, record: logging.LogRecord) -> None:
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)


class Verifier:
    """Replays match-game candidates in one worker process, started on the first large batch
    (module docstring); a context manager that ends the worker."""

    def __init__(self) -> None:
        self.pool_from = POOL_FROM
        self.pool: ProcessPoolExecutor | None = None  # started once the run has submitted pool_from
        self._logs: logging.handlers.QueueListener | None = None  # the worker's log records, relayed
        self.by_worker = 0  # verdicts the worker delivered
        self.submitted = 0  # new candidates submitted in the run, replayed here or by the worker
        self._batches: dict[str, _Batch] = {}  # game id → the batch that replays it, for the run
        self._failed = False
        self._lock = threading.Lock()  # two streams may submit at once

    def submit(self, rows: dict[str, Row]) -> Verdicts:
        """Start replaying the games of `rows` (game id → row) not submitted before; their verdicts
        are collected from what this returns."""
        with self._lock:
            new = {gid: row for gid, row in rows.items() if gid not in self._batches}
            if new:
                batch = _Batch(new, self._send(new), self)
                self._batches.update(dict.fromkeys(new, batch))
            return Verdicts({gid: self._batches[gid] for gid in rows})

    def _send(self, rows: dict[str, Row]) -> Future[list[verify.Verdict]] | None:
        """The worker's future verdicts on `rows`, or None: replayed here (the run has submitted
        fewer than ``pool_from`` new candidates so far, or the worker failed)."""
        self.submitted += len(rows)
        if self._failed or (self.pool is None and self.submitted < self.pool_from):
            return None
        try:
            if self.pool is None:
                self.pool = self._start()
            return self.pool.submit(verify.verify_rows, list(rows.values()))
        except Exception as e:  # BrokenProcessPool after the worker died; OSError if none can start
            self._fail(e)
            return None

    def _start(self) -> ProcessPoolExecutor:
        _start_resource_tracker()
        spawn = multiprocessing.get_context("spawn")
        queue = spawn.Queue()
        self._logs = logging.handlers.QueueListener(queue, _Relay())
        self._logs.start()
        level = logging.getLogger().getEffectiveLevel()
        return ProcessPoolExecutor(max_workers=1, mp_context=spawn, initializer=_worker_starts, initargs=(queue, level))

    def delivered(self, n: int) -> None:
        with self._lock:
            self.by_worker += n

    def worker_failed(self, error: BaseException) -> None:
        with self._lock:
            self._fail(error)

    def _fail(self, error: BaseException) -> None:
        if not self._failed:
            self._failed = True
            log.warning("the verification worker failed (%r): its match games are replayed in this process", error)

    def __enter__(self) -> Verifier:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        # every unit that collects verdicts has run (the writer drained first): whatever the
        # worker still has queued is for games no unit asked for (their verdicts were stored)
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        if self._logs is not None:  # after the worker ended: what it logged last is relayed too
            self._logs.stop()
        if self.by_worker:
            log.info("verified %d match games in a worker process", self.by_worker)
