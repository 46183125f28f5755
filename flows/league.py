"""A league on Prefect (docs/td-guide.md, Running a league): what ``antichess-td serve`` registers
on the Prefect server PREFECT_API_URL names, and what ``antichess-td status`` asks it.

* One deployment of the ``nightly`` flow per tournament (:func:`league_deployments`), named by its
  ``tournament.id``, on its own schedules (``flows.nightly.deployment_options``); a league's runs
  carry the ``league`` parameter. Without a work pool they are served in the calling process (the
  flow found by its file, as ``flow.serve`` does); on a *process* work pool
  (:func:`ensure_process_pool`) a worker imports the flow from the installed package (entrypoint
  ``flows.nightly.nightly``), and each run sends a heartbeat every :data:`HEARTBEAT_S` seconds
  (the deployment's job variables set PREFECT_FLOWS_HEARTBEAT_FREQUENCY in its environment).
* The global concurrency limits the runs take (:func:`limit_names`, :func:`ensure_limits`): one
  request lane per Lichess server and token (``pipeline.lichess.lane``; the token read from the
  tournament's token variable in this process's environment: the workers must see the same
  value, or their runs take another lane) and one per league store, each of one slot. Slots are
  leases: a holder that dies frees its slot when its lease runs out.
* The automations that rerun a run whose process died (:func:`ensure_automations`): a run of
  ours (tag ``antichess-td``) that has sent a heartbeat and then nothing for :data:`SILENT_S`
  seconds (no heartbeat, no final state) is marked Crashed (:func:`crash_automation`); a run of
  ours that crashed, so marked or reported so by its worker or its own process, is set to
  AwaitingRetry, a Scheduled state, so a live worker (or ``serve`` once restarted) picks it up,
  :data:`RERUNS` times at most (:func:`rerun_automation`). The nightly run resumes from its cursors
  and is idempotent, and the tournament's writer lock is an flock the kernel frees with the process.

Everything here is idempotent: ``serve`` run again updates what it created before. Importing
this module does not import Prefect (:data:`HEARTBEAT_S` is read before Prefect's settings are).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pipeline.inputs.league import league_parameter
from pipeline.lichess.lane import lane_of, store_limit_name
from pipeline.model import Config, League

FLOW_NAME = "antichess-nightly"
TAG = "antichess-td"
HEARTBEAT_S = 30  # Prefect's shortest heartbeat period
SILENT_S = 90  # three heartbeats missed: the run's process is gone
RERUNS = 2  # a crashed run is scheduled again at most this many times
CRASH_AUTOMATION = "antichess-td: a flow run that stopped sending heartbeats crashed"
RERUN_AUTOMATION = "antichess-td: rerun a crashed flow run"
_OURS: dict[str, str | list[str]] = {"prefect.resource.role": "tag", "prefect.resource.id": f"prefect.tag.{TAG}"}


def league_deployments(
    configs: Sequence[tuple[Config, Path]], league: League | None, pool: str | None = None
) -> list[Any]:
    """The deployments (``RunnerDeployment``) of the tournaments `configs` (each loaded, with the
    path it was loaded from), in the given order: on the work pool `pool` with a module-path
    entrypoint and heartbeats, or (None) to serve in this process."""
    from prefect.types.entrypoint import EntrypointType

    from flows.nightly import deployment_options, nightly

    parameter = None if league is None else league_parameter(league)
    out = []
    for config, path in configs:
        options = deployment_options(config, path, parameter)
        if pool is None:
            out.append(nightly.to_deployment(**options))
        else:
            out.append(
                nightly.to_deployment(
                    **options,
                    entrypoint_type=EntrypointType.MODULE_PATH,
                    work_pool_name=pool,
                    job_variables={"env": {"PREFECT_FLOWS_HEARTBEAT_FREQUENCY": str(HEARTBEAT_S)}},
                )
            )
    return out


def limit_names(configs: Sequence[Config], league: League | None, environ: Mapping[str, str] = os.environ) -> list[str]:
    """The global concurrency limits the runs of `configs` take: one lane per distinct (Lichess
    server, token read from each tournament's token variable in `environ`: :func:`lane_of`),
    sorted, then the league store's limit when served as a league."""
    lanes = {lane_of(c, environ) for c in configs}
    return sorted(lanes) + ([store_limit_name(league.league_id)] if league is not None else [])


def ensure_limits(names: Sequence[str]) -> None:
    """Each limit in `names` exists, active, with one slot (created, or updated if it differs)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate, GlobalConcurrencyLimitUpdate
    from prefect.exceptions import ObjectNotFound

    with get_client(sync_client=True) as client:
        for name in names:
            try:
                existing = client.read_global_concurrency_limit_by_name(name)
            except ObjectNotFound:
                client.create_global_concurrency_limit(GlobalConcurrencyLimitCreate(name=name, limit=1, active=True))
                continue
            if existing.limit != 1 or not existing.active:
                client.update_global_concurrency_limit(name, GlobalConcurrencyLimitUpdate(limit=1, active=True))


def crash_automation() -> Any:
    """The automation (``AutomationCore``) of :data:`CRASH_AUTOMATION`: a flow run tagged
    :data:`TAG` whose heartbeat was seen and that then sent no heartbeat and reached no final
    state for :data:`SILENT_S` seconds is marked Crashed (Prefect's recipe for zombie flow runs:
    nothing else reports a run whose machine or worker died with it)."""
    from prefect.client.schemas.objects import StateType
    from prefect.events.actions import ChangeFlowRunState
    from prefect.events.schemas.automations import AutomationCore, EventTrigger, Posture

    heard = {"prefect.flow-run.heartbeat"} | {
        f"prefect.flow-run.{state}" for state in ("Completed", "Failed", "Cancelled", "Crashed")
    }
    return AutomationCore(
        name=CRASH_AUTOMATION,
        description=f"A run of ours silent for {SILENT_S} s after a heartbeat died with its process "
        "(docs/td-guide.md, Running a league).",
        trigger=EventTrigger(
            after={"prefect.flow-run.heartbeat"},
            expect=heard,
            match={"prefect.resource.id": "prefect.flow-run.*"},
            match_related=_OURS,
            for_each={"prefect.resource.id"},
            posture=Posture.Proactive,
            threshold=1,
            within=dt.timedelta(seconds=SILENT_S),
        ),
        actions=[
            ChangeFlowRunState(
                state=StateType.CRASHED,
                name="Crashed",
                message=f"no heartbeat for {SILENT_S} s: the run's process died",
                force=False,
            )
        ],
    )


def rerun_automation() -> Any:
    """The automation of :data:`RERUN_AUTOMATION`: a flow run tagged :data:`TAG` that crashed (its
    process ended without a final state of its own: killed, its worker gone, out of memory, or
    marked by :func:`crash_automation`) in its first :data:`RERUNS` attempts goes to
    AwaitingRetry, a Scheduled state a live worker picks up. ``prefect.run-count`` (the attempts
    so far) bounds it: a run that crashes every time stops after RERUNS + 1 attempts."""
    from prefect.client.schemas.objects import StateType
    from prefect.events.actions import ChangeFlowRunState
    from prefect.events.schemas.automations import AutomationCore, EventTrigger, Posture

    return AutomationCore(
        name=RERUN_AUTOMATION,
        description=f"A run of ours that crashed is scheduled again for a live worker, {RERUNS} times at most; "
        "the nightly run resumes from its cursors (docs/td-guide.md, Running a league).",
        trigger=EventTrigger(
            expect={"prefect.flow-run.Crashed"},
            match={
                "prefect.resource.id": "prefect.flow-run.*",
                "prefect.run-count": [str(n) for n in range(1, RERUNS + 1)],
            },
            match_related=_OURS,
            for_each={"prefect.resource.id"},
            posture=Posture.Reactive,
            threshold=1,
        ),
        actions=[
            ChangeFlowRunState(
                state=StateType.SCHEDULED,
                name="AwaitingRetry",
                message="the run crashed: scheduled again for a live worker",
                force=False,
            )
        ],
    )


def ensure_automations() -> None:
    """:func:`crash_automation` and :func:`rerun_automation` on the server: each created, or the
    one of its name updated to it."""
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        for wanted in (crash_automation(), rerun_automation()):
            existing = client.read_automations_by_name(wanted.name)
            if existing:
                client.update_automation(existing[0].id, wanted)
            else:
                client.create_automation(wanted)


def ensure_process_pool(name: str) -> str | None:
    """The work pool `name` exists, of type process (created with Prefect's default process job
    template if missing). Returns why it cannot serve (another type), or None."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.exceptions import ObjectNotFound
    from prefect.workers.process import ProcessWorker

    with get_client(sync_client=True) as client:
        try:
            pool = client.read_work_pool(name)
        except ObjectNotFound:
            template = ProcessWorker.get_default_base_job_template()
            client.create_work_pool(WorkPoolCreate(name=name, type="process", base_job_template=template))
            return None
    return None if pool.type == "process" else f"work pool {name!r} is of type {pool.type!r}: expected 'process'"


def register(deployments: Sequence[Any]) -> None:
    """Register work-pool deployments on the server (each created, or updated in place)."""
    for deployment in deployments:
        deployment.apply()


def serve_here(deployments: Sequence[Any]) -> None:
    """Serve `deployments` in this process until stopped (Ctrl-C pauses their schedules); the
    caller set PREFECT_FLOWS_HEARTBEAT_FREQUENCY to :data:`HEARTBEAT_S` before Prefect was imported
    (its runs' processes take Prefect's settings from this one)."""
    from prefect import serve

    serve(*deployments, print_starting_message=False)


def deployment_runs(tournament_ids: Sequence[str]) -> dict[str, dict[str, Any] | None]:
    """For each tournament id: its deployment's next scheduled run and newest run that started
    (``{"next_run_at", "last_state", "last_run_at"}``, times in UTC or None), or None when no
    deployment of that name exists on the server."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        DeploymentFilter,
        DeploymentFilterId,
        FlowRunFilter,
        FlowRunFilterStartTime,
        FlowRunFilterState,
        FlowRunFilterStateType,
    )
    from prefect.client.schemas.objects import StateType
    from prefect.client.schemas.sorting import FlowRunSort
    from prefect.exceptions import ObjectNotFound

    out: dict[str, dict[str, Any] | None] = {}
    with get_client(sync_client=True) as client:
        for tid in tournament_ids:
            try:
                deployment = client.read_deployment_by_name(f"{FLOW_NAME}/{tid}")
            except ObjectNotFound:
                out[tid] = None
                continue
            ours = DeploymentFilter(id=DeploymentFilterId(any_=[deployment.id]))
            scheduled = FlowRunFilter(state=FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.SCHEDULED])))
            started = FlowRunFilter(start_time=FlowRunFilterStartTime(is_null_=False))
            upcoming = client.read_flow_runs(
                deployment_filter=ours,
                flow_run_filter=scheduled,
                sort=FlowRunSort.NEXT_SCHEDULED_START_TIME_ASC,
                limit=1,
            )
            latest = client.read_flow_runs(
                deployment_filter=ours, flow_run_filter=started, sort=FlowRunSort.START_TIME_DESC, limit=1
            )
            out[tid] = {
                "next_run_at": _utc(upcoming[0].next_scheduled_start_time) if upcoming else None,
                "last_state": latest[0].state_name if latest else None,
                "last_run_at": _utc(latest[0].start_time) if latest else None,
            }
    return out


def _utc(t: dt.datetime | None) -> dt.datetime | None:
    return None if t is None else t.astimezone(dt.UTC)
