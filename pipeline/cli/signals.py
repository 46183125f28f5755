"""Ctrl-C (SIGINT) and SIGTERM during a writing command: :class:`Stopper`, and the process's one
:data:`stopper`, which ``main()`` enables and every writing command installs (``pipeline.cli.runs``)."""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import threading
from typing import Any

from pipeline.cli import console
from pipeline.cli.prefect_lifecycle import stop_temporary_server
from pipeline.progress import stop_progress

log = logging.getLogger("antichess_td")


class Stopper:
    """Ctrl-C (SIGINT) and SIGTERM during a writing command. The C-level signal handler writes
    the signal to a socket (``signal.set_wakeup_fd``) that a watcher thread reads at once, whatever
    the main thread is doing (Prefect replaces the Python-level SIGTERM handler during a flow, and
    would spend minutes reporting a crash to a server the same Ctrl-C stopped). The watcher closes
    the run (``runs.interrupt``: 'failed', with why; a publish under way finishes first, none
    starts), prints the closing line, stops Prefect's temporary server and ends the process with
    128 + the signal's number (130, 143). The working database is left as a killed run leaves
    it: the next run resumes from its cursors."""

    def __init__(self) -> None:
        self.seen = threading.Event()
        self.enabled = False  # main() (the program) enables it; commands invoked in a test process leave signals alone
        self.installed = False

    def install(self) -> None:
        if not self.enabled or self.installed or threading.current_thread() is not threading.main_thread():
            return
        self.installed = True
        read, write = socket.socketpair()
        write.setblocking(False)
        signal.set_wakeup_fd(write.fileno(), warn_on_full_buffer=False)
        self._sockets = (read, write)  # kept open for the process's life
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self._python_handler)
        threading.Thread(target=self._watch, args=(read,), name="stop-watcher", daemon=True).start()

    def _python_handler(self, signum: int, frame: Any) -> None:
        """The main thread's share: nothing (the watcher acts), unless the watcher is stuck."""
        if self.seen.wait(10):
            return
        os._exit(128 + signum)

    def _watch(self, sock: socket.socket) -> None:
        while True:
            data = sock.recv(64)
            stops = [b for b in data if b in (signal.SIGINT, signal.SIGTERM)]
            if stops:
                break
        signum = stops[0]
        self.seen.set()
        from pipeline.stages import record

        stop_progress()

        reason = "interrupted by the user (Ctrl-C)" if signum == signal.SIGINT else "stopped by SIGTERM"
        try:
            line = record.interrupt(reason) or f"{reason}: no run had started; nothing was written"
        except BaseException as e:  # the closing line matters more than the record
            line = f"{reason}; the run could not be recorded ({type(e).__name__}: {e})"
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
        log.info("%s", line, extra={"file_only": True})
        console.flush_logs()
        stop_temporary_server()
        os._exit(128 + signum)

    def wait(self) -> None:
        """The main thread after an interrupt reached it: the watcher ends the process."""
        self.seen.wait(10)
        threading.Event().wait(30)


stopper = Stopper()
"""The process's one Stopper: signal handlers belong to the process, not to a command."""
