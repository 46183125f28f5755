"""The runs record: every command that writes the database runs inside :func:`recorded`.

``recorded`` takes the working database's lock, starts the working copy if it is missing (or
moves a damaged one aside first: ``snapshot.ensure_work``), marks runs that were killed before
they could finish, opens a ``pipeline_runs`` row ('running'), refuses a run the machine has no
room or permission for (``health.preflight``, recorded as failed), and hands the block a :class:`Run` whose ``work`` config points every stage at the working database
(``paths.database`` = ``paths.work_database``). Stages record their counts with
:meth:`Run.done`; :func:`publish` marks the run 'ok' and publishes the snapshot (the snapshot
holds its own run as 'ok'). An exception anywhere marks the run 'failed' with the error, leaves
the published file as it was, and goes on up with a note saying which snapshot TDs still see;
an error that means the disk is full or a permission is missing (DuckDB's, SQLite's or the OS's
words for it) goes up, and into ``runs``, as the :class:`~pipeline.errors.MachineError` it means.

The CLI opens the run itself, before Prefect starts (so a second run is refused, and a refused or
interrupted run recorded, within a second): the flow's ``recorded`` then adopts that run instead
of opening another. A run refused at validation is recorded in the working database as 'failed'
in stage 'validate' with the message (the published snapshot shows it after the next publish).
:func:`interrupt` closes the run from the CLI's signal watcher (Ctrl-C, SIGTERM): the run is
marked 'failed' with why, nothing is written for it afterwards, and nothing is published.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import logging
import os
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.errors import DatabaseDamaged, InputError, TdError
from pipeline.model import Config
from pipeline.store import gateway, health, snapshot

log = logging.getLogger(__name__)

MAX_ERROR_CHARS = 2000

_records = threading.RLock()  # every write of the run record, and the publish, hold it
_active: Run | None = None  # the run this process has open (one at a time)


class Stopped(BaseException):
    """The run was closed by :func:`interrupt` (a signal): nothing more is written for it."""


def _work_database(config: Config) -> Path:
    """The runs' private working database (the loader always sets it: <database>.work.duckdb by default)."""
    assert config.paths.work_database is not None
    return config.paths.work_database


def working(config: Config) -> Config:
    """The config as a run's stages see it: ``paths.database`` is the private working database."""
    return dataclasses.replace(config, paths=dataclasses.replace(config.paths, database=_work_database(config)))


@dataclass
class Run:
    config: Config  # as loaded: paths.database is the published snapshot
    run_id: int
    command: str
    as_of: dt.datetime
    flow_run_id: str | None = None
    counts: dict[str, Any] = field(default_factory=dict)
    requests: int = 0
    warnings: list[str] = field(default_factory=list)
    stage_now: str | None = None  # the stage running (or that failed)
    closed: bool = False  # interrupted: the record is final, nothing more is written
    published: bool = False

    @property
    def work(self) -> Config:
        return working(self.config)

    def stage(self, name: str) -> None:
        """``name`` starts: a run killed now is reported as failed in ``name``."""
        self.stage_now = name
        _write(self, "running", stage=name)

    def done(self, name: str, counts: dict[str, Any], requests: int = 0, warnings: Sequence[str] = ()) -> None:
        """``name`` finished with these counts (kept in ``runs.counts``)."""
        self.counts[name] = counts
        self.requests += requests
        self.warnings += list(warnings)
        _write(self, "running", stage=name)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _write(
    run: Run, status: str, stage: str | None, error: str | None = None, finished_at: dt.datetime | None = None
) -> None:
    with _records:
        if run.closed:
            raise Stopped()
        con = gateway.connect(_work_database(run.config))
        try:
            con.execute(
                gateway.sql("queries/run_update"),
                {
                    "run_id": run.run_id,
                    "status": status,
                    "stage": stage,
                    "finished_at": finished_at,
                    "counts": json.dumps(run.counts, default=str, sort_keys=True),
                    "requests": run.requests,
                    "warnings": run.warnings,
                    "error": error,
                    "flow_run_id": run.flow_run_id,
                },
            )
        finally:
            con.close()


def _begin(config: Config, command: str, as_of: dt.datetime, flow_run_id: str | None) -> Run:
    con = gateway.connect(_work_database(config))
    try:
        with gateway.transaction(con):
            stale = con.execute(gateway.sql("queries/runs_running")).fetchall()
            run_id = con.execute("SELECT coalesce(max(run_id), 0) + 1 FROM pipeline_runs").fetchall()[0][0]
            for (old_id,) in stale:
                con.execute(
                    gateway.sql("queries/run_interrupted"),
                    {
                        "run_id": old_id,
                        "error": f"interrupted: the run stopped before it finished (killed, or the machine stopped); "
                        f"found by run {run_id}",
                    },
                )
            con.execute(
                gateway.sql("queries/run_insert"),
                {
                    "run_id": run_id,
                    "command": command,
                    "started_at": _now(),
                    "as_of": as_of,
                    "flow_run_id": flow_run_id,
                    "pid": os.getpid(),
                },
            )
    finally:
        con.close()
    for (old_id,) in stale:
        log.warning("run %s was interrupted before it finished (marked failed in runs)", old_id)
    return Run(config, run_id, command, as_of, flow_run_id)


def _status(run: Run) -> str:
    con = gateway.connect(_work_database(run.config))
    try:
        return con.execute("SELECT status FROM pipeline_runs WHERE run_id = ?", [run.run_id]).fetchall()[0][0]
    finally:
        con.close()


def publish(run: Run) -> dict[str, Any]:
    """Mark the run 'ok' and publish the working database (the snapshot carries this run as 'ok').
    Returns the published path and its views' row counts."""
    paths = run.config.paths
    run.stage_now = "publish"
    health.check_room(_work_database(run.config), paths.database)  # the snapshot is a second copy
    with _records:  # an interrupt waits for the publish to end (or the publish does not start)
        _write(run, "ok", stage="publish", finished_at=_now())
        run.stage_now = "publish"
        gateway.release(_work_database(run.config))  # the copy needs the working file closed
        counts = snapshot.replace_published(_work_database(run.config), paths.database)
        run.published = True
    log.info("published %s (run %s)", paths.database, run.run_id)
    return {"path": str(paths.database), "views": counts}


def finish_unpublished(run: Run, stage: str, counts: dict[str, Any]) -> None:
    """Mark the run 'ok' in ``stage`` with these counts, without publishing: a refresh run that
    found nothing to change (pipeline/stages/refresh.py). The published snapshot stays as it was
    (it shows this run after the next publish); :func:`recorded` does not publish it either."""
    run.counts[stage] = counts
    run.stage_now = stage
    _write(run, "ok", stage=stage, finished_at=_now())


def _error_text(e: BaseException) -> str:
    if type(e).__name__ == "TerminationSignal":  # Prefect's SIGTERM
        text = "stopped by SIGTERM"
    elif isinstance(e, KeyboardInterrupt):
        text = "interrupted by the user (Ctrl-C)"
    elif isinstance(e, TdError):
        text = str(e)
    else:
        text = f"{type(e).__name__}: {e}"
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


@contextlib.contextmanager
def recorded(config: Config, command: str, as_of: dt.datetime, flow_run_id: str | None = None) -> Iterator[Run]:
    """Run the block as run N of the working database (see the module docstring). A block that
    ends normally without having published publishes on the way out. Inside a run this process
    already has open on the same working database (the CLI's, around the flow), the block runs
    as part of it: same run, no second lock, the outer block records how it ends."""
    global _active
    paths = config.paths
    assert paths.work_database is not None
    outer = _active
    if outer is not None and outer.config.paths.work_database == paths.work_database:
        if flow_run_id is not None:
            outer.flow_run_id = flow_run_id
            _write(outer, "running", stage=outer.stage_now)
        yield outer
        return
    with _explained(paths.work_database, paths.database), snapshot.writer_lock(paths.work_database):
        started = snapshot.ensure_work(paths.work_database, paths.database)
        with gateway.held(paths.work_database):  # publish releases it earlier
            run = _begin(config, command, as_of, flow_run_id)
            run.warnings += started
            _active = run
            try:
                health.preflight(paths.work_database, paths.database, [paths.exports])
                yield run
                if _status(run) == "running":
                    publish(run)
            except BaseException as e:
                stage = run.stage_now or _failed_stage(run)
                failure = _machine(e, paths.work_database, paths.database)
                with contextlib.suppress(Exception, Stopped):  # the error itself matters more than recording it
                    _write(run, "failed", stage=stage, error=_error_text(failure), finished_at=_now())
                if isinstance(failure, Exception) and not (isinstance(failure, InputError) and stage == "validate"):
                    failure.add_note(failure_note(config, run.run_id, stage))
                if failure is not e:
                    raise failure from e
                raise
            finally:
                _active = None


def _machine(e: BaseException, work: Path, published: Path) -> BaseException:
    """``e``, or the :class:`~pipeline.errors.MachineError` it means (no space, no permission)."""
    if isinstance(e, TdError) or not isinstance(e, Exception):
        return e
    return health.explain(e, work, published) or e


@contextlib.contextmanager
def _explained(work: Path, published: Path) -> Iterator[None]:
    """Errors before the run is recorded (taking the lock, starting the working copy) read as the
    run's own do: a full disk or a missing permission is a :class:`~pipeline.errors.MachineError`."""
    try:
        yield
    except Exception as e:
        failure = _machine(e, work, published)
        if failure is e:
            raise
        raise failure from e


def interrupt(reason: str) -> str | None:
    """Close this process's open run because of a signal (any thread): 'failed' with ``reason``
    in the stage it was in, and nothing written for it afterwards. Returns the closing line
    (None when no run is open). A publish under way finishes first."""
    with _records:
        run = _active
        if run is None:
            return None
        if run.published or run.closed:
            run.closed = True
            return summary_line(run.run_id, run.config.paths.database)
        stage = run.stage_now
        _write(run, "failed", stage=stage, error=reason, finished_at=_now())
        run.closed = True
    return failure_note(run.config, run.run_id, stage, "interrupted")


def _failed_stage(run: Run) -> str | None:
    with contextlib.suppress(Exception):
        con = gateway.connect(_work_database(run.config))
        try:
            return con.execute("SELECT stage FROM pipeline_runs WHERE run_id = ?", [run.run_id]).fetchall()[0][0]
        finally:
            con.close()
    return None


def failure_note(config: Config, run_id: int, stage: str | None, how: str = "failed") -> str:
    """What a TD reads under the error: the run, where it failed, and what the published file holds."""
    where = f" in {stage}" if stage else ""
    try:
        last = last_published_run(config.paths.database)
    except DatabaseDamaged:
        return f"run {run_id} {how}{where}; the published {config.paths.database} is damaged: the next run that succeeds replaces it"
    if last is None:
        held = f"nothing is published at {config.paths.database} yet"
    else:
        held = (
            f"the published {config.paths.database} is unchanged: it holds run {last['run_id']} "
            f"({last['command']}, finished {last['finished_at']:%Y-%m-%d %H:%M:%S} UTC)"
        )
    return f"run {run_id} {how}{where}; {held}"


def last_published_run(published: Path) -> dict[str, Any] | None:
    """The newest 'ok' run in the published snapshot (None when there is none or no snapshot)."""
    if not published.exists():
        return None
    con = gateway.connect(published, read_only=True)
    try:
        has_runs = con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'runs'").fetchall()[0][0]
        if not has_runs:
            return None
        rows = gateway.query(con, "queries/run_last_ok").to_dicts()
    finally:
        con.close()
    if not rows:
        return None
    row = rows[0]
    row["finished_at"] = row["finished_at"].astimezone(dt.UTC)
    return row


def ingest_counts(summary: dict[str, Any]) -> dict[str, Any]:
    """An ingest summary as ``runs.counts.ingest`` keeps it: the totals, not the per-player lines."""
    return {k: v for k, v in summary.items() if k not in ("players", "warnings")}


def summary_line(run_id: int, published: Path) -> str:
    """One line for the end of a command: the run as the published snapshot records it."""
    last = last_published_run(published)
    if last is None or last["run_id"] != run_id:
        return f"run {run_id}: not published"
    took = (last["finished_at"] - last["started_at"].astimezone(dt.UTC)).total_seconds()
    return (
        f"run {run_id} ok in {took:.1f} s (as of {last['as_of'].astimezone(dt.UTC):%Y-%m-%d %H:%M} UTC); "
        f"published {published}"
    )
