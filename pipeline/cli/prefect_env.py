"""Prefect's environment, set before Prefect is first imported (it reads settings at import).

* ``PREFECT_HOME`` (its SQLite database, results and caches) is the config's
  ``paths.prefect_home`` (default: a ``.prefect`` folder beside the tournament database)
  instead of ``~/.prefect``.
* Telemetry off: ``DO_NOT_TRACK=1``, ``PREFECT_SERVER_ANALYTICS_ENABLED=false``; with them a run
  makes no connection beyond loopback and the configured Lichess base URL.
* The ephemeral server's first start takes 10-20 s on two cores (more under load): allow 120 s.
* No block types registered at server start (``PREFECT_API_BLOCKS_REGISTER_ON_START=false``):
  the nightly flow and ``serve`` use no blocks, and registering them costs about 5 s of every
  fresh server's start (the quick start's first nightly, each test server).

Values already in the environment win, so a TD (or a test) can point runs at a real
``prefect server start`` with ``PREFECT_API_URL``.

A test run or a benchmark calls :func:`isolate` instead: a throwaway Prefect of its own.

Before ``nightly`` starts its flow, :func:`home_problem` and :func:`start_temporary_server` say
whether Prefect's temporary server can serve it (when no ``PREFECT_API_URL`` names a server): a
home that cannot be written, a ``prefect.db`` that is not a healthy SQLite file, or a server that
fails at start-up send the run on without Prefect within seconds, where Prefect itself would
restart the failing server for the whole start-up timeout. The server is started by this module
(:class:`TemporaryServer`, Prefect's own command) and named to Prefect as its ``PREFECT_API_URL``
once it answers, so the run's process never imports Prefect's server module.
"""

from __future__ import annotations

import atexit
import contextlib
import http.client
import importlib.util
import logging
import os
import random
import re
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path


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


PORTS = range(8000, 9000)  # where Prefect looks for a free port for its temporary server


class TemporaryServer:
    """Prefect's temporary server, started by this process the way Prefect starts it (the same
    uvicorn command and environment: ``prefect.server.api.server.SubprocessASGIServer``), and
    named to Prefect as its API (``PREFECT_API_URL``) once it answers. Prefect would start it on
    the flow's first API call, after importing the server's module in this process too (about
    3 s of the nightly's start on two cores, only to build that command): here the server's
    process boots while this one goes on. Stopped when the process exits (:meth:`stop`)."""

    def __init__(self, output: Path | None, database: Path | None = None) -> None:
        self.output = output
        self.database = database  # the SQLite file it was started for, when started before Prefect's settings were read
        self.process: subprocess.Popen[bytes] | None = None
        self.port: int | None = None
        self.offset: int | None = None  # the output's size before the first start: its lines after it are the server's
        atexit.register(self.stop)

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"

    def spawn(self) -> None:
        """Start the server's process on a free port. Prefect passes it the settings this process
        has as environment variables; before Prefect is imported here (:func:`spawn_early`) the
        server reads them itself, from the same sources (this environment, Prefect's profile in
        ``PREFECT_HOME``, the working folder's files): nothing here sets one otherwise."""
        self.port = _free_port()
        if self.offset is None:
            self.offset = self.output.stat().st_size if self.output is not None and self.output.exists() else 0
        settings: dict[str, str] = {}
        if "prefect.settings" in sys.modules:
            from prefect.settings import get_current_settings

            settings = get_current_settings().to_environment_variables(exclude_unset=True)
        env = {
            **os.environ,
            "PREFECT_UI_ENABLED": "0",
            "PREFECT__SERVER_EPHEMERAL": "1",
            "PREFECT__SERVER_FINAL": "1",
            **settings,
        }
        global _temporary
        _temporary = self  # from now on a Ctrl-C must stop it (temporary_server)
        # Prefect's own words and logger: the run's log reads as with Prefect's SubprocessASGIServer
        logging.getLogger("prefect").info("Starting temporary server on http://127.0.0.1:%s", self.port)
        with open(self.output or os.devnull, "ab") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "--app-dir", _prefect_parent(), "--factory"]
                + ["prefect.server.api.server:create_app", "--host", "127.0.0.1", "--port", str(self.port)]
                + ["--log-level", "error", "--lifespan", "on"],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )

    def answers(self) -> bool:
        """Whether ``/health`` answers 200. Asked with the standard library's plain HTTP client:
        ``httpx.get`` builds a client with a TLS context each call (about 40 ms of CPU loading the
        CA bundle): polled every 0.1 s, that takes 2.7 s of CPU from the server's own start on two
        cores (py-spy over the quick start's nightly; docs/benchmarks.md)."""
        assert self.port is not None
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        try:
            conn.request("GET", "/api/health")
            return conn.getresponse().status == 200
        except (OSError, http.client.HTTPException):
            return False
        finally:
            conn.close()

    def stop(self, wait_s: float = 5.0) -> None:
        """Stop the server: SIGTERM, then SIGKILL after `wait_s` (5 s, as Prefect does)."""
        global _temporary
        if _temporary is self:
            _temporary = None
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        logging.getLogger("prefect").info("Stopping temporary server on http://127.0.0.1:%s", self.port)
        proc.terminate()
        try:
            proc.wait(wait_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


_temporary: TemporaryServer | None = None


def _prefect_parent() -> str:
    """The folder Prefect's package is in (``prefect.__module_path__.parent``), found without
    importing it."""
    spec = importlib.util.find_spec("prefect")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("Prefect is not installed")
    return str(Path(next(iter(spec.submodule_search_locations))).parent)


def spawn_early(output: Path | None) -> TemporaryServer | None:
    """Start Prefect's temporary server's process now, before Prefect is imported here (about 2.5 s
    of the nightly's start on two cores, then 0.8 s of run record): its own start, mostly imports,
    runs on the other core meanwhile, and :func:`start_temporary_server` then waits for it
    (``spawned``). Call it with ``PREFECT_HOME`` set (:func:`configure`) and the writer lock held.
    Only where the server is sure to be wanted: no ``PREFECT_API_URL`` or database URL in the
    environment, and a usable home (:func:`home_problem`); Prefect's settings, read once it is
    imported, decide in the end (a profile may name a server): an early server they do not want
    is stopped (``database`` says which one it assumed). None when nothing was started."""
    if os.environ.get("PREFECT_API_URL") or os.environ.get("PREFECT_API_DATABASE_CONNECTION_URL"):
        return None
    home = Path(os.environ["PREFECT_HOME"]).expanduser()
    if home_problem(home, home / "prefect.db") is not None:
        return None
    server = TemporaryServer(output, home / "prefect.db")
    try:
        server.spawn()
    except (OSError, RuntimeError):
        server.stop()
        return None
    return server


def temporary_server() -> TemporaryServer | None:
    """The temporary server this process started, from the moment its process was spawned
    (answering or not yet: a Ctrl-C while it starts must stop it too) until it was stopped; None:
    none."""
    return _temporary


def flow_run_settings() -> contextlib.AbstractContextManager[object]:
    """The Prefect settings a flow run of this process runs under: Prefect's, except that on the
    temporary server this process started (:func:`temporary_server`) the flow run sends no
    heartbeats (an event every 180 s by which a server can tell that a run crashed). That server
    lives only as long as the run, so no one can ever see a heartbeat missed, and a flow run's end
    waits for the heartbeat thread, which sleeps a second at a time: up to 1 s at the end of every
    quick start. On a server of the TD's (PREFECT_API_URL, ``antichess-td serve``) they stay."""
    if _temporary is None:
        return contextlib.nullcontext()
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    return temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None})


def _free_port() -> int:
    for port in random.sample(PORTS, 20):
        if _port_free(port):
            return port
    raise RuntimeError(f"no free port for Prefect's temporary server in {PORTS.start}-{PORTS.stop - 1}")


def _port_free(port: int) -> bool:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def start_temporary_server(
    output: Path | None,
    while_starting: Callable[[], None] | None = None,
    spawned: TemporaryServer | None = None,
) -> str | None:
    """Start Prefect's temporary server (:class:`TemporaryServer`) and wait until it answers
    (None: Prefect now uses it) or has failed (why); ``while_starting`` is called once the
    server's process is started (the caller's work that needs no server, done meanwhile). The
    server's stderr goes to `output` (the command's log file), not the terminal. Prefect waits up
    to its start-up timeout and starts the server again each time it exits with code 3, uvicorn's
    exit both when its port is taken and when the app's start-up fails (its database cannot be
    opened or migrated, a full disk): here a server that exited while its port stayed free, or
    exited twice, or with another code, has failed at once. With `spawned` (:func:`spawn_early`),
    that server's process is the one waited for."""
    import prefect.context
    from prefect.settings import get_current_settings

    timeout_s = get_current_settings().server.ephemeral.startup_timeout_seconds
    server = spawned if spawned is not None else TemporaryServer(output)
    try:
        problem = _started(server, output, timeout_s, while_starting)
    except (OSError, RuntimeError) as e:  # no free port, no process: as a server that failed to start
        problem = f"{type(e).__name__}: {e}"[:300]
    if problem is not None:
        server.stop()
        return problem
    os.environ["PREFECT_API_URL"] = server.api_url
    prefect.context.refresh_global_settings_context()
    return None


def _started(
    server: TemporaryServer,
    output: Path | None,
    timeout_s: float,
    while_starting: Callable[[], None] | None,
) -> str | None:
    """Spawn `server` and wait until it answers (None) or has failed (why: see
    :func:`start_temporary_server`)."""
    exits: list[int] = []
    if server.process is None:
        server.spawn()
    if while_starting is not None:
        while_starting()
    deadline = time.monotonic() + timeout_s
    while not server.answers():
        assert server.process is not None
        code = server.process.poll()
        if code is not None:
            exits.append(code)
            if code != 3 or len(exits) >= 2 or (server.port is not None and _port_free(server.port)):
                why = _last_error(output, server.offset or 0)
                return f"it stopped while starting, exit code {code}{' twice' if len(exits) >= 2 else ''}" + (
                    f": {why}" if why else ""
                )
            server.spawn()  # its port was taken meanwhile: another one
            continue
        if time.monotonic() > deadline:
            return f"it did not answer within {timeout_s:g} s"
        time.sleep(0.1)
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
