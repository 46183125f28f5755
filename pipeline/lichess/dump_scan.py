"""The dumps read, their registered players' games picked and typed, one file per worker process,
while the calling process stores what the files before gave (pipeline/lichess/dump_backfill.py).

Why processes: reading a dump is pure CPU (zstd decompression, the header filter of
``dump_reader.scan_dump``, typing each kept game with ``dump_reader.parse_dump_game``) and most
of it holds the interpreter lock, so threads would take turns on one core; one file per process
reads as many files at once as there are cores, and the caller's DuckDB writes (which release
the lock) run beside them.

Why ``fork``: a worker started with ``spawn`` imports its modules again (python-chess, zstandard,
the Lichess client: about 0.2 s, and the parent's main script too), as long as the whole backfill
of the small demo's dumps. A forked worker runs only :func:`scan_file`: pure Python, zstandard
and the pipe back; it never touches the parent's DuckDB connection, Prefect's threads or their
locks. Where ``fork`` is missing (not Linux), with one file, or without two cores that other work
leaves free (:func:`workers`), the files are read in the calling process, one after the other,
with the same results.

A worker ignores Ctrl-C (the parent handles it) and ends when the parent does.
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import operator
import os
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zstandard

from pipeline.lichess.client import GameRow
from pipeline.lichess.dump_reader import ScanCounts, parse_dump_game, scan_dump
from pipeline.lichess.dump_typing import usual_row
from pipeline.lichess.worker_process import tie_to_parent

FIELDS = tuple(f.name for f in dataclasses.fields(GameRow))
GAME_ID, CREATED_AT = FIELDS.index("game_id"), FIELDS.index("created_at")
row_values = operator.attrgetter(*FIELDS)
"""A GameRow's values as a tuple, in FIELDS' order (how a typed game travels and is stored)."""


@dataclass
class FileScan:
    """One dump file read: its name, every game in it (scanned), those naming a registered player
    (matched), and each of these as (PGN text, its row's values in GameRow's field order, or why it
    does not type: the ValueError's message); ``damaged`` is the zstd error when the file stops
    decompressing. The rows travel as tuples and are stored from them (as columns): pickled as
    objects, they cost the pipe between the processes three times as much."""

    name: str
    scanned: int = 0
    matched: int = 0
    games: list[tuple[str, tuple[Any, ...] | str]] = field(default_factory=list)
    damaged: str | None = None


def scan_file(path: Path, wanted: frozenset[str]) -> FileScan:
    """The games of ``path`` naming one of ``wanted`` (lower-cased user ids), typed."""
    counts = ScanCounts()
    scan = FileScan(path.name)
    try:
        for game in scan_dump(path, wanted, counts):
            text = game.decode("utf-8", errors="replace")
            try:
                scan.games.append((text, usual_row(text) or row_values(parse_dump_game(text))))
            except ValueError as e:
                scan.games.append((text, str(e)))
    except zstandard.ZstdError as e:
        scan.damaged = str(e)
    scan.scanned, scan.matched = counts.scanned, counts.matched
    return scan


def workers(files: int, load: float | None = None, cores: int | None = None) -> int:
    """Processes to read ``files`` dumps with: one a core that other work leaves free, at most one
    a file; 1 (read here, no pool) when that leaves fewer than two, or without ``fork``.

    Free cores: those this process may run on (``cores``, else the system's), less the 1-minute
    load average (``load``, else the system's) beyond this process's own 1. The pool costs about a fifth more CPU than reading
    here (the fork, the rows through the pipe), so it pays only with a core nobody else uses: on
    the 2-core machine with another job running, two workers read the benchmark's dumps no faster
    than this process alone (docs/benchmarks.md#backfill)."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    if cores is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    busy = os.getloadavg()[0] if load is None else load
    free = math.floor(cores - max(busy - 1, 0) + 0.5)
    count = min(free, cores, files)
    return count if count >= 2 else 1


def scan_files(paths: list[Path], wanted: frozenset[str], count: int | None = None) -> Iterator[FileScan]:
    """Each file of ``paths`` read (:func:`scan_file`), in their order, by ``count`` processes
    (else :func:`workers`'s). The largest files are started first: months grow, so the last
    files are the largest, and started last they would end the run with every worker but one
    idle and the caller's storing of all their games still to do."""
    count = workers(len(paths)) if count is None else count
    if count < 2:
        yield from (scan_file(p, wanted) for p in paths)
        return
    pool = ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("fork"), initializer=tie_to_parent)
    try:
        futures: dict[Path, Future[FileScan]] = {}
        for path in sorted(paths, key=lambda p: p.stat().st_size, reverse=True):
            futures[path] = pool.submit(scan_file, path, wanted)
        for path in paths:
            yield futures[path].result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
