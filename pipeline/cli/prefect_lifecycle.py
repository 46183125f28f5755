"""Prefect's lifecycle around a nightly run, for the CLI: the ingest's head start while Prefect
starts (:func:`ingest_head_start`), Prefect's temporary server started early (:func:`early_server`),
why Prefect's server cannot serve the run (:func:`unavailable_reason`, with the run's later modules
imported meanwhile), the flow's run and how a failed flow call ends (:func:`run_flow`), the check of
the server ``serve`` needs (:func:`check_server`), and the temporary server stopped when the process
is (:func:`stop_temporary_server`). Prefect's environment and its temporary server themselves:
``pipeline.cli.prefect_env``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from pathlib import Path
from typing import Any

from pipeline.cli import console, prefect_env
from pipeline.errors import MachineError, TdError
from pipeline.progress import ingest_progress, replay_throttle

log = logging.getLogger("antichess_td")


def ingest_head_start(
    run: Any, inputs: Any, now: str | None, refresh: bool = False
) -> contextlib.AbstractContextManager[Any]:
    """The ingest's head start for this run (``pipeline.stages.ingest.HeadStart``): its batches
    download while Prefect starts, and the flow's tasks take them. With the in-process replay
    server too (``lichess.replay_data``, the demo): its downloads are this process's own CPU, but
    Prefect's temporary server starts in its own process from the moment the lock is held, and
    the two share the machine's cores (the quick start's nightly takes about 2 s less with it,
    docs/benchmarks.md)."""
    from pipeline.stages import ingest

    progress = ingest_progress(len(inputs.player_ids()), replay_throttle(run.config))
    work = run.work
    if refresh:
        from pipeline.stages.refresh import refresh_config

        work = refresh_config(work, run.as_of)  # the flow's batches would be the same
    return ingest.head_start(work, inputs, run.as_of, run.as_of if now else None, progress)


def early_server(home: Path) -> prefect_env.TemporaryServer | None:
    """Prefect's temporary server's process, started before Prefect is imported here
    (``prefect_env.spawn_early``), or None (not sure to be wanted, or the home cannot be made:
    :func:`unavailable_reason` says why)."""
    try:
        prefect_env.configure(home)
    except OSError:
        return None
    return prefect_env.spawn_early(console.log_file())


def unavailable_reason(home: Path, early: prefect_env.TemporaryServer | None = None) -> str | None:
    """Why Prefect's server cannot serve this nightly run (None: it can), decided within seconds
    before the flow starts: the server PREFECT_API_URL names (the environment or Prefect's
    profile) does not answer /health; or, without one, Prefect's temporary server cannot use its
    home (not writable, a prefect.db that is not a healthy SQLite file) or stops while starting.
    `early` is that server's process if :func:`early_server` started it: waited for when Prefect's
    settings want a temporary server on the same database, else stopped. While the temporary
    server starts (in its own process), the run's later modules are imported (:func:`_warm_up`).
    Leaves Prefect imported, its loggers writing through ours."""
    try:
        prefect_env.configure(home)
    except OSError as e:
        return f"Prefect's home {os.environ['PREFECT_HOME']} cannot be created ({e.strerror or e})"
    from prefect.settings import get_current_settings

    settings = get_current_settings()
    console.quiet_prefect()
    url = settings.server.database.connection_url
    database = prefect_env.sqlite_database(url.get_secret_value()) if url else Path(settings.home) / "prefect.db"
    if early is not None and (settings.api.url or database != early.database):
        early.stop(wait_s=2)  # the settings name a server, or another database: not this one
        early = None
    if settings.api.url:
        problem = server_problem(settings.api.url)
        return None if problem is None else f"Prefect's server at {settings.api.url} is unavailable ({problem})"
    problem = prefect_env.home_problem(Path(settings.home), database)
    if problem is None:
        problem = prefect_env.start_temporary_server(console.log_file(), _warm_up, early)
        console.quiet_prefect()
    elif early is not None:
        early.stop(wait_s=2)
    return None if problem is None else f"Prefect's temporary server cannot start ({problem})"


def _warm_up() -> None:
    """What the run will need and Prefect's temporary server does not, started in the background
    while that server starts in its own process (while the ingest's head start downloads): the
    flow's modules imported."""

    def imports() -> None:
        import flows.nightly  # noqa: F401

    threading.Thread(target=imports, name="nightly-imports", daemon=True).start()


def run_flow(
    config: Path,
    now: str | None,
    dry_run: bool,
    refresh: bool,
    home: Path,
    early: prefect_env.TemporaryServer | None,
    league: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The nightly flow's run (``flows.nightly``) and its result: under Prefect when its server can
    serve it (:func:`unavailable_reason`, `home` and `early` as there), else without Prefect, with
    the reason as a warning; without Prefect too when Prefect fails before the flow's body starts.
    A flow call that fails after the body published (Prefect's server stopped answering) still
    gives the body's result, with one warning; one that fails in between is the run's error."""
    unavailable = unavailable_reason(home, early)
    import flows.nightly

    console.quiet_prefect()
    if unavailable is None:
        handover = flows.nightly.Handover()
        try:
            with prefect_env.flow_run_settings():
                return flows.nightly.nightly(
                    config_path=str(config),
                    now=now,
                    dry_run=dry_run,
                    refresh=refresh,
                    handover=handover,
                    league=league,
                )
        except Exception as e:
            server = _prefect_server_of(e)
            if handover.result is not None and server is not None:
                log.info("Prefect failed after the run published", exc_info=e, extra={"file_only": True})
                log.warning(
                    "%s; the run finished and published, but Prefect's record of its flow run is incomplete",
                    _stopped_answering(server, e),
                )
                return handover.result  # published: only Prefect's record of it failed
            if server is not None and handover.started:
                raise MachineError(_stopped_answering(server, e)) from e
            if handover.started:
                raise
            log.info("Prefect failed before the flow started", exc_info=e, extra={"file_only": True})
            unavailable = f"Prefect could not start the flow ({_first_line(e)})"
    return flows.nightly.nightly_without_prefect(
        str(config), now, unavailable, dry_run=dry_run, refresh=refresh, league=league
    )


def _prefect_server_of(e: BaseException) -> str | None:
    """The API address of the Prefect server a request to which raised `e` (None: `e` is not a
    failed request to a server; Prefect's client speaks httpx, the Lichess client requests)."""
    import httpx

    if not isinstance(e, httpx.RequestError | httpx.HTTPStatusError):
        return None
    try:
        url = e.request.url
    except RuntimeError:  # an error raised without its request
        return "(unknown)"
    return f"{url.scheme}://{url.host}:{url.port}/api"


def _stopped_answering(server: str, e: BaseException) -> str:
    return f"Prefect's server at {server} stopped answering during the run ({_first_line(e)})"


def _first_line(e: BaseException) -> str:
    lines = str(e).strip().splitlines()
    text = f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__
    return text if len(text) <= 300 else text[:299] + "…"


def check_server(api: str) -> None:
    if server_problem(api) is not None:
        raise TdError(
            f"no Prefect server answers at {api}: start one with `prefect server start` "
            '(see the README, "Schedule it"), or set PREFECT_API_URL to yours'
        )


def server_problem(api: str, timeout_s: float = 5) -> str | None:
    """Why the Prefect server at `api` is unavailable (None: its /health answers 200 within `timeout_s`)."""
    import httpx

    try:
        status = httpx.get(api.rstrip("/") + "/health", timeout=timeout_s).status_code
    except httpx.TimeoutException:
        return f"no answer within {timeout_s:g} s"
    except httpx.HTTPError as e:
        return str(e) or type(e).__name__
    return None if status == 200 else f"/health answered HTTP {status}"


def stop_temporary_server() -> None:
    """Prefect's temporary server (a child process) would outlive an ``os._exit``."""
    server = prefect_env.temporary_server()
    if server is not None:
        with contextlib.suppress(Exception):
            server.stop(wait_s=2)
