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

Before ``nightly`` starts its flow, :func:`home_problem` and :func:`start_temporary_server` say
whether Prefect's temporary server can serve it (when no ``PREFECT_API_URL`` names a server): a
home that cannot be written, a ``prefect.db`` that is not a healthy SQLite file, or a server that
fails at start-up send the run on without Prefect within seconds, where Prefect itself would
restart the failing server for the whole start-up timeout.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any


def environment(home: Path, base: Mapping[str, str]) -> dict[str, str]:
    """`base` (an environment) with this module's defaults for a tournament whose Prefect home is
    `home`; a value already in `base` wins."""
    defaults = {
        "PREFECT_HOME": str(home),
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
        "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
        "PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW": "ignore",
        "PREFECT_API_BLOCKS_REGISTER_ON_START": "false",
    }
    return defaults | dict(base)


def configure(home: Path) -> None:
    os.environ.update(environment(home, os.environ))
    # Prefect creates its home without parents; make sure the whole path exists.
    Path(os.environ["PREFECT_HOME"]).expanduser().mkdir(parents=True, exist_ok=True)


def prepare_database(home: Path) -> subprocess.Popen[bytes] | None:
    """Create and migrate the SQLite database of Prefect's home `home` in a child process, so that
    the first nightly's temporary server skips its migrations (about 10 s of its start on two
    cores, docs/benchmarks.md, Quick start): ``antichess-td demo`` starts it before building the
    world and waits for it after (:func:`database_prepared`), using the core the build leaves idle.
    Returns the child, or None where there is nothing to prepare: ``PREFECT_API_URL`` names a
    server (the runs use its database), or another database than a SQLite file is configured."""
    env = environment(home, os.environ)
    if env.get("PREFECT_API_URL") or env.get("PREFECT_API_DATABASE_CONNECTION_URL", "").split(":", 1)[0] not in (
        "",
        "sqlite+aiosqlite",
    ):
        return None
    Path(env["PREFECT_HOME"]).expanduser().mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "prefect", "server", "database", "upgrade", "--yes"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def database_prepared(child: subprocess.Popen[bytes] | None, timeout_s: float = 300.0) -> str | None:
    """Wait for :func:`prepare_database`'s child; None when it succeeded (or there was none), else
    why not, in one line (the first nightly then migrates the database itself: nothing is lost)."""
    if child is None:
        return None
    try:
        _, err = child.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return f"Prefect's database was not ready after {timeout_s:g} s"
    if child.returncode == 0:
        return None
    lines = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
    return (
        f"Prefect's database could not be prepared (exit {child.returncode}{': ' + lines[-1][:200] if lines else ''})"
    )


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


def sqlite_database(connection_url: str) -> Path | None:
    """The file of a ``sqlite+aiosqlite:///<path>`` connection URL (None for another database)."""
    scheme, sep, rest = connection_url.partition(":///")
    if not sep or not scheme.startswith("sqlite") or rest.split("?", 1)[0] in ("", ":memory:"):
        return None
    return Path(rest.split("?", 1)[0])


def home_problem(home: Path, database: Path | None) -> str | None:
    """Why Prefect's temporary server could not use its home (None: nothing found): the home is
    not a writable folder, or its SQLite ``database`` exists but is not healthy (``PRAGMA
    quick_check``, read-only)."""
    if not os.access(home, os.W_OK | os.X_OK):
        return f"its home {home} is not writable"
    if database is None or not database.exists():
        return None
    try:
        con = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)
        try:
            rows = con.execute("PRAGMA quick_check").fetchall()
        finally:
            con.close()
    except sqlite3.Error as e:
        return f"its database {database} cannot be read: {e}"
    if rows != [("ok",)]:
        return f"its database {database} is damaged: {rows[0][0]}"
    return None


@contextlib.contextmanager
def _stderr_to(path: Path | None) -> Iterator[None]:
    """File descriptor 2 pointed at `path` (appending) for the block: a child started now writes
    its stderr there for its whole life."""
    with open(path or os.devnull, "ab") as f:
        saved = os.dup(2)
        os.dup2(f.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def start_temporary_server(output: Path | None, while_starting: Callable[[], None] | None = None) -> str | None:
    """Start Prefect's temporary server now, as the flow's first API call would, and wait until it
    answers (None) or has failed (why); ``while_starting`` is called once the server's process is
    being started (the caller's work that needs no server, done meanwhile). The server's stderr
    goes to `output` (the command's log file), not the terminal. Prefect waits up to its start-up timeout and starts the server again
    each time it exits with code 3, uvicorn's exit both when its port is taken and when the app's
    start-up fails (its database cannot be opened or migrated, a full disk): here a server that
    exited while its port stayed free, or exited twice, or with another code, has failed at once,
    and it is stopped."""
    from prefect.server.api.server import SubprocessASGIServer

    server = SubprocessASGIServer()
    if server.running:
        return None
    spawn = server._run_uvicorn_command

    def quiet_spawn() -> Any:
        with _stderr_to(output):
            return spawn()

    server._run_uvicorn_command = quiet_spawn  # type: ignore[method-assign]
    failed: list[BaseException] = []

    def start() -> None:
        try:
            server.start()
        except BaseException as e:  # a failed start is the answer, not a crash of this thread
            failed.append(e)

    offset = output.stat().st_size if output is not None and output.exists() else 0
    thread = threading.Thread(target=start, name="prefect-server-start", daemon=True)
    thread.start()
    if while_starting is not None:
        while_starting()
    seen: list[tuple[Any, int | None]] = []  # (process, its port)
    while thread.is_alive():
        thread.join(0.1)
        proc = server.server_process
        if proc is not None and all(proc is not p for p, _ in seen):
            seen.append((proc, server.port))
        exits = [(code, port) for code, port in ((p.poll(), port) for p, port in seen) if code is not None]
        if len(exits) >= 2 or any(
            code != 3 or (port is not None and server.is_port_available(port)) for code, port in exits
        ):
            _stop(server, thread)
            why = _last_error(output, offset)
            return f"it stopped while starting, exit code {exits[-1][0]}{' twice' if len(exits) >= 2 else ''}" + (
                f": {why}" if why else ""
            )
    if failed:
        first = str(failed[0]).strip().splitlines()
        return f"{type(failed[0]).__name__}: {first[0] if first else ''}"[:300]
    return None


def _last_error(output: Path | None, offset: int) -> str | None:
    """The last exception line (``module.Error: text``) the server wrote to `output` after `offset`."""
    if output is None:
        return None
    try:
        with open(output, "rb") as f:
            f.seek(offset)
            text = f.read(4_000_000).decode("utf-8", "replace")
    except OSError:
        return None
    errors = [line for line in text.splitlines() if re.match(r"^[\w.]+(Error|Exception): \S", line)]
    return errors[-1][:300] if errors else None


def _stop(server: Any, thread: threading.Thread) -> None:
    """Stop a failing server and the start-up loop watching it (it ends on the missing process)."""
    for _ in range(5):
        server.stop()
        thread.join(1)
        if not thread.is_alive():
            break
    server.stop()
