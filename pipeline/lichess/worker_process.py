"""What a pool's worker process does as it starts, for the pools that read and verify games
(``pipeline.lichess.verifier``, ``pipeline.lichess.dump_scan``)."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import threading


def tie_to_parent() -> None:
    """In a worker as it starts: Ctrl-C reaches every process of the terminal's group and the
    parent handles it (the worker would only print a traceback); and the worker ends when the
    parent does, however the parent ends. The CLI ends a stopped run with ``os._exit`` and
    ``kill -9`` runs nothing, while the worker, waiting for work on a queue whose both ends it
    holds, would wait for ever (keeping the terminal's or a caller's pipes open)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent.sentinel,), name="parent-watch", daemon=True).start()


def _end_with(parent: int) -> None:
    """End this process when the `parent` sentinel is ready (the parent process ended)."""
    multiprocessing.connection.wait([parent])
    os._exit(1)
