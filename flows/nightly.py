"""The nightly flow: validate inputs → ingest (a task per player batch, then the casual-game
searches) → link, score and rank → audit → export → attention (what needs the TD, stored with the
run so the snapshot carries it: pipeline/stages/attention.py) → publish → site (the static website, built
from the snapshot just published: pipeline/stages/site.py) → notify (the new attention items to the
webhooks, round announcements and reminders to Lichess: pipeline/stages/notify.py; a failed
delivery is a warning, never a failed run). The audits that read nothing the
score stage decides run on a thread beside it (``audit.beside_score``); the audit task evaluates
the rest and collects them.

Logic lives in ``pipeline``; each task is one call. The flow runs inside
``pipeline.stages.record.recorded`` (under ``antichess-td nightly`` it adopts the run the CLI opened
before Prefect started): it holds the tournament's writer lock, its stages write only the
private working database (``run.work``), every stage's counts go to the ``runs`` record, and the
snapshot TDs read is replaced only by the publish task, when everything before it succeeded. The
site task comes after it: it reads only the published snapshot. A failed site build leaves the
previous site in place and the run recorded as failed in stage ``site`` (its data is published).

Tasks take the config and inputs (frozen values) and open the database themselves (the audit
task also takes the handle of the audits running beside the score task), so nothing
unhashable crosses a task boundary (``NO_CACHE``: a nightly run must never be skipped by a cache
hit). Only fetching is retried: an ingest task that failed because Lichess did (after the
client's own per-request retries) runs again, resuming from its cursors; bad data and bad
rulings fail at once. One progress display (``pipeline.progress.IngestProgress``) spans the
batches. Batches run one after another: Lichess asks for one download at a time
(``lichess.concurrency`` allows 2, its limit, inside a batch), and that limit is per token,
not per task.

The flow's body is one plain function, :func:`run_nightly`, parametrised by how it calls a task
(a :data:`TaskCall`): through Prefect (:func:`through_prefect`, the ``nightly`` flow) or as the
plain function inside the task (:func:`as_functions`, with the same retries: a fetch that failed
because Lichess did runs again up to ``INGEST_RETRIES`` times after :func:`retry_delay_s`,
anything else fails at once). :func:`nightly_without_prefect` runs that body with no flow run,
for when Prefect's server is unavailable (``antichess-td nightly`` decides, before the flow
starts): the run is the same, and its record says it went on without Prefect.

What the body hands its caller goes in a :class:`Handover` the caller passes in: whether the body
started, and its result once it returned. A flow call can fail around a body that never ran (Prefect
itself failed: the caller may run the body without Prefect) or after it published (only Prefect's
record of the flow run failed: the caller reports the run as the body did).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import logging
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.utilities.annotations import quote

from pipeline.domain.attention_items import Item
from pipeline.domain.findings import Finding
from pipeline.errors import LichessError
from pipeline.inputs.config import load_config
from pipeline.inputs.league import league_from_parameter
from pipeline.lichess.ingest_report import IngestReport, merge_reports
from pipeline.lichess.lane import lane_of, store_limit_name
from pipeline.model import Config
from pipeline.progress import IngestProgress, ingest_progress, replay_throttle, verify_progress
from pipeline.stages import attention, audit, context, export, notify, record, score, site
from pipeline.stages.ingest import ingest_batch, ingest_watched, player_batches, shared_lichess, taken
from pipeline.stages.refresh import (
    close_unchanged,
    closing_rounds,
    idle_result,
    record_inputs,
    refresh_config,
    unchanged_since,
)

INGEST_RETRIES = 2

log = logging.getLogger(__name__)


def _lichess_failed(task: Any, task_run: Any, state: Any) -> bool:
    """Retry condition of the fetching tasks: Lichess (or the network) failed, nothing else."""
    return isinstance(state.result(raise_on_failure=False), LichessError)


def retry_delay_s(config: Config) -> float:
    """After the client's own retries (backoff_s, doubling, max_retries times): the next step."""
    return config.lichess.backoff_s * 2**config.lichess.max_retries


@task(name="ingest-batch", cache_policy=NO_CACHE, retry_condition_fn=_lichess_failed)
def ingest_batch_task(
    config: Config,
    inputs: context.Inputs,
    base_url: str,
    now: dt.datetime,
    players: tuple[str, ...],
    progress: IngestProgress | None = None,
) -> IngestReport:
    downloaded = taken(config, inputs, now, players)  # by the CLI's head start
    return downloaded if downloaded is not None else ingest_batch(config, inputs, base_url, now, players, progress)


@task(name="ingest-casual-games", cache_policy=NO_CACHE, retry_condition_fn=_lichess_failed)
def watch_task(
    config: Config, inputs: context.Inputs, base_url: str, now: dt.datetime, batches: list[IngestReport]
) -> IngestReport:
    return ingest_watched(config, inputs, base_url, now, batches)


@task(name="link-score-rank", cache_policy=NO_CACHE)
def score_task(
    config: Config, inputs: context.Inputs, now: dt.datetime, early: audit.BesideScore | None = None
) -> dict[str, Any]:
    return asdict(score.score_stage(config, inputs, now, verify_progress, early.seeds if early else None))


@task(name="audit", cache_policy=NO_CACHE)
def audit_task(
    config: Config, inputs: context.Inputs, now: dt.datetime, early: audit.BesideScore | None = None
) -> audit.AuditReport:
    return audit.audit_stage(config, inputs, now, early)


@task(name="export", cache_policy=NO_CACHE)
def export_task(config: Config, findings: list[Finding]) -> list[str]:
    return [str(p) for p in export.export_stage(config, findings)]


@task(name="attention", cache_policy=NO_CACHE)
def attention_task(config: Config, now: dt.datetime, run_id: int, findings: list[Finding]) -> attention.AttentionReport:
    return attention.attention_stage(config, now, run_id, findings)


@task(name="site", cache_policy=NO_CACHE)
def site_task(config: Config, findings: list[Finding]) -> str:
    return site.summary_line(site.site_stage(config, findings))


@task(name="notify", cache_policy=NO_CACHE)
def notify_task(config: Config, now: dt.datetime, dry_run: bool, items: list[Item]) -> dict[str, Any]:
    """After publishing: the attention list's new items to the webhooks, the round announcements
    and reminders to Lichess (``pipeline.stages.notify``); a failed delivery is a warning, never
    a failed run."""
    assert config.paths.work_database is not None
    n = config.notify
    if not (n.webhooks or (n.lichess.team and n.lichess.announce) or n.lichess.reminders):
        return {"line": "", "warnings": [], "printed": []}  # nothing configured: nothing said
    report = notify.notify_run(config, items, config.paths.work_database, dry_run=dry_run, now=now)
    return {"line": report.summary_line(), "warnings": report.warnings, "printed": report.printed}


@task(name="publish", cache_policy=NO_CACHE)
def publish_task(run: record.Run) -> dict[str, Any]:
    return record.publish(run)


def _flow_run_id() -> str | None:
    from prefect.runtime import flow_run

    return str(flow_run.id) if flow_run.id else None


TaskCall = Callable[..., Any]
"""How the body calls a task: ``call(task, retry_delay_s, *args)`` returns the task's result;
``retry_delay_s`` is None for a task that is never retried (only fetching is)."""


class Handover:
    """What the body hands the caller of a flow call, whatever the call raises around it:
    ``started`` once the body began (a call that failed before it did never ran a stage: Prefect
    itself failed, e.g. its server could not start, and the caller may run the body without
    Prefect); ``result`` the body's result once it returned (published: a call that fails after
    that failed only to tell Prefect's server how it ended, and the caller reports the run as the
    body did). No ``__dict__``: Prefect records it among the flow run's parameters as ``<Handover>``."""

    __slots__ = ("result", "started")

    def __init__(self) -> None:
        self.started = False
        self.result: dict[str, Any] | None = None


def through_prefect(task: Any, retry_delay_s: float | None, *args: Any) -> Any:
    """A task run by Prefect (inside the ``nightly`` flow): fetching tasks with INGEST_RETRIES
    retries after ``retry_delay_s``, on Lichess errors only (``_lichess_failed``). Each argument
    is passed ``quote``d, and the task's function receives it as it is: the body calls tasks with
    values, never futures, so Prefect has nothing to find by walking them (the TD's files, the
    findings, every pairing), which it does twice per task run for an argument not quoted (about
    1.4 s of the quick start's nightly on the main thread, py-spy)."""
    quoted = [quote(a) for a in args]
    if retry_delay_s is None:
        return task(*quoted)
    return task.with_options(retries=INGEST_RETRIES, retry_delay_seconds=retry_delay_s)(*quoted)


def as_functions(task: Any, retry_delay_s: float | None, *args: Any) -> Any:
    """The task's own function, without Prefect, with Prefect's retry semantics: a fetch that
    raised LichessError runs again (from its cursors) up to INGEST_RETRIES times after
    ``retry_delay_s``; any other error, or a task that is never retried, fails at once."""
    attempt = 0
    while True:
        try:
            return task.fn(*args)
        except LichessError as e:
            if retry_delay_s is None or attempt >= INGEST_RETRIES:
                raise
            attempt += 1
            log.info("task %s failed (%s): retry %d/%d in %g s", task.name, e, attempt, INGEST_RETRIES, retry_delay_s)
            time.sleep(retry_delay_s)


def without_prefect_warning(reason: str) -> str:
    """The warning a run without Prefect gives (stderr and ``runs.warnings``); ``reason``: why
    Prefect's server is unavailable, e.g. "Prefect's server at <url> is unavailable (<why>)"."""
    return f"{reason}; this run goes on without Prefect (no flow run is recorded)"


def run_nightly(
    config_path: str,
    now: str | None,
    call: TaskCall,
    flow_run_id: str | None,
    without_prefect: str | None = None,
    dry_run: bool = False,
    refresh: bool = False,
    handover: Handover | None = None,
    league: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The nightly run, whoever calls its tasks (see the module docstring); ``without_prefect``:
    why Prefect is not used (recorded as the ``start`` stage's counts and a warning); ``dry_run``:
    the notifications are shown, not sent; ``refresh``: a refresh run (pipeline/stages/refresh.py:
    only on a closing day, histories once a day, and nothing published when nothing is new);
    ``handover``: told that the body started, and its result; ``league``: the league the tournament
    is run in (``pipeline.inputs.league.league_parameter``): its ingest reads through the league's
    shared store and takes the league's Prefect limits (:func:`lichess_lane`)."""
    if handover is not None:
        handover.started = True
    config = load_config(Path(config_path))
    if league is not None:
        config = dataclasses.replace(config, league=league_from_parameter(league))
    at = dt.datetime.fromisoformat(now.replace("Z", "+00:00")) if now else dt.datetime.now(dt.UTC)
    with record.recorded(config, "refresh" if refresh else "nightly", at, flow_run_id=flow_run_id) as run:
        if without_prefect is not None:
            warning = without_prefect_warning(without_prefect)
            log.warning("%s", warning)
            run.done("start", {"prefect": "unavailable", "reason": without_prefect}, warnings=[warning])
        result = _stages(config, run, call, bool(now), dry_run, refresh)
    if handover is not None:
        handover.result = result
    return result


def _stages(
    config: Config, run: record.Run, call: TaskCall, replay: bool, dry_run: bool, refresh: bool
) -> dict[str, Any]:
    """The run's stages, in order (see :func:`run_nightly`); ``replay``: the replay server serves
    the season as it stood at the run's time (``--now``)."""
    at = run.as_of  # the CLI's run, when this body runs inside it: its time, its head start's
    run.stage("validate")
    inputs = context.read_inputs(config)
    digest = record_inputs(run)
    work = run.work
    if refresh:
        if not closing_rounds(inputs, at):
            return idle_result(run)
        work = refresh_config(work, at)
    ingested = _ingest(config, run, call, work, inputs, at, at if replay else None)
    since = unchanged_since(run, digest, ingested) if refresh else None

    run.stage("score")
    if since is not None:  # a refresh that stored nothing new: the audits wait for what the score says
        scored = call(score_task, None, work, inputs, at, None)
        run.done("score", scored, warnings=scored["notes"])
        if not scored["rescored_rounds"]:
            return {"run_id": run.run_id, "ingest": ingested, "score": scored, "refresh": close_unchanged(run, since)}
        run.stage("audit")
        report = call(audit_task, None, work, inputs, at, None)
    else:
        with audit.beside_score(work, inputs, at) as early:  # the audits that read no scores run meanwhile
            scored = call(score_task, None, work, inputs, at, early)
            run.done("score", scored, warnings=scored["notes"])

            run.stage("audit")
            report = call(audit_task, None, work, inputs, at, early)
    audited = report.summary()
    run.done("audit", audited, warnings=audited["notes"])
    return {"run_id": run.run_id, "ingest": ingested, "score": scored, "audit": audited} | _publish(
        run, call, work, at, report.findings, dry_run
    )


def _ingest(
    config: Config,
    run: record.Run,
    call: TaskCall,
    work: Config,
    inputs: context.Inputs,
    at: dt.datetime,
    replay_at: dt.datetime | None,
) -> dict[str, Any]:
    """The ingest stage: a task per player batch (each takes what the CLI's head start downloaded
    for it), then the casual-game searches, under one progress display; returns its summary."""
    run.stage("ingest")
    delay_s = retry_delay_s(config)
    with (
        shared_lichess(
            work,
            inputs,
            at,
            replay_at,
            lambda: ingest_progress(len(inputs.player_ids()), replay_throttle(config)),
        ) as (base_url, progress),
        lichess_lane(work, call),
    ):
        batches = [
            call(ingest_batch_task, delay_s, work, inputs, base_url, at, players, progress)
            for players in player_batches(inputs)
        ]
        watched = call(watch_task, delay_s, work, inputs, base_url, at, batches)
    ingested = merge_reports([*batches, watched]).summary()
    run.done("ingest", record.ingest_counts(ingested), requests=ingested["requests"], warnings=ingested["warnings"])
    return ingested


LANE_LEASE_S = 60.0
"""How long a lane's slot outlives a run that stopped renewing it (its process died): Prefect
renews the lease while the run lives, and frees the slot this long after it stops."""


def lichess_lane(config: Config, call: TaskCall) -> contextlib.AbstractContextManager[None]:
    """Under Prefect, the block holds the Prefect global concurrency limits of its Lichess lane (one
    per configured server and token: ``pipeline.lichess.lane``; a tournament served by an in-process
    replay server takes its configured server's lane all the same) and, in a league, of the league's
    store, so that no other run of any tournament on any worker sends a request with the same token
    meanwhile. ``antichess-td serve`` creates the limits; where none exists (a run on Prefect's
    temporary server) the block runs without waiting. Without Prefect: nothing to take."""
    if call is not through_prefect:
        return contextlib.nullcontext()
    from prefect.concurrency.sync import concurrency

    names = [lane_of(config)]
    if config.league is not None:
        names.append(store_limit_name(config.league.league_id))
    return concurrency(names, occupy=1, lease_duration=LANE_LEASE_S, strict=False)


def _publish(
    run: record.Run, call: TaskCall, work: Config, at: dt.datetime, findings: list[Finding], dry_run: bool
) -> dict[str, Any]:
    """After the audit: export, the attention list, publish, then the website and the
    notifications (both read what was just published); returns their part of the result."""
    run.stage("export")
    exported = call(export_task, None, work, findings)  # the audits are not evaluated again
    run.done("export", {"files": len(exported)})

    run.stage("attention")  # what needs the TD: stored with the run, so the snapshot publishes it
    needs = call(attention_task, None, work, at, run.run_id, findings)
    exported.append(str(needs.written[0]))
    run.done("attention", needs.counts())

    published = call(publish_task, None, run)
    # the website reads the snapshot just published; a failed build leaves the previous site whole
    run.stage_now = "site"
    built = call(site_task, None, run.config, findings)  # the audits are not evaluated again
    # the notifications tell what was just published; each is recorded in the working database
    run.stage_now = "notify"
    notified = call(notify_task, None, run.work, at, dry_run, list(needs.items))
    return {
        "exports": exported,
        "published": published,
        "site": built,
        "attention": needs.summary_line(),
        "notify": notified,
    }


@flow(name="antichess-nightly")
def nightly(
    config_path: str,
    now: str | None = None,
    dry_run: bool = False,
    refresh: bool = False,
    handover: Handover | None = None,
    league: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything, in order. ``now`` (UTC ISO-8601) replays the season as it stood then;
    ``dry_run`` shows the notifications instead of sending them; ``refresh``: a refresh run (the
    closing-day schedule: pipeline/stages/refresh.py); ``handover``: the caller's
    (:class:`Handover`), None for a deployment's runs; ``league``: the league it runs in
    (``pipeline.inputs.league.league_parameter``), None for a tournament alone."""
    return run_nightly(
        config_path,
        now,
        through_prefect,
        _flow_run_id(),
        dry_run=dry_run,
        refresh=refresh,
        handover=handover,
        league=league,
    )


def nightly_without_prefect(
    config_path: str,
    now: str | None,
    reason: str,
    dry_run: bool = False,
    refresh: bool = False,
    league: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The same run as the ``nightly`` flow, without Prefect: no flow run (``flow_run_id`` None),
    the tasks' functions called in order with the same retries; ``reason`` (why Prefect's server
    is unavailable) goes to the run's warnings and to ``runs.counts.start``."""
    return run_nightly(
        config_path, now, as_functions, None, without_prefect=reason, dry_run=dry_run, refresh=refresh, league=league
    )


def deployment_options(config: Config, config_path: Path, league: dict[str, Any] | None = None) -> dict[str, Any]:
    """What ``antichess-td serve`` gives ``nightly.serve`` (or ``nightly.to_deployment``): one
    deployment per tournament, named by its id, on the config's cron schedule and time zone
    (``[schedule]``, default 03:00 UTC), and with ``[schedule] closing_day_cron`` a second schedule,
    in the same time zone, whose runs are refresh runs (parameter ``refresh`` true). `league`: the
    league it is served in (``pipeline.inputs.league.league_parameter``), the runs' ``league``
    parameter, and its id a tag; None for a tournament served alone (no such parameter)."""
    from prefect.schedules import Cron

    tz = config.schedule.timezone
    schedules = [Cron(config.schedule.cron, timezone=tz, slug="nightly")]
    if config.schedule.closing_day_cron is not None:
        schedules.append(
            Cron(config.schedule.closing_day_cron, timezone=tz, parameters={"refresh": True}, slug="closing-day")
        )
    parameters: dict[str, Any] = {"config_path": str(Path(config_path).resolve())}
    tags = ["antichess-td", config.tournament_id]
    if league is not None:
        parameters["league"] = league
        tags.append(f"league:{league['id']}")
    return {
        "name": config.tournament_id,
        "schedules": schedules,
        "parameters": parameters,
        "tags": tags,
        "description": f"Nightly run of {config.name}: ingest, score, audit, export, publish {config.paths.database}",
    }
