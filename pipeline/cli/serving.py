"""The commands of a served tournament or league (docs/td-guide.md, Schedule it and Running a
league): ``serve`` (one Prefect deployment per tournament on the running Prefect server, served
here or registered on a process work pool: ``flows.league``) and ``status`` (each tournament's last
run, what needs the TD, and its deployment's next run). Both take ``--config`` several times or
``--league league.toml`` (``pipeline.inputs.league``). Registered on the ``antichess-td`` app by
``pipeline.cli.app``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from pipeline.cli import console, prefect_env
from pipeline.cli.options import say
from pipeline.cli.prefect_lifecycle import check_server, server_problem
from pipeline.errors import InputError
from pipeline.inputs.config import load_config
from pipeline.model import Config, League

DEFAULT_API = "http://127.0.0.1:4200/api"

ConfigsOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--config",
        "-c",
        help="A tournament.toml; repeat it for several tournaments (a league).",
        dir_okay=False,
        metavar="<file>",
    ),
]
ServedLeagueOpt = Annotated[
    Path | None,
    typer.Option("--league", help="A league.toml listing the tournaments (instead of --config).", dir_okay=False),
]


@dataclass(frozen=True)
class Served:
    """The tournaments a command names: each loaded with its path, in the order given, and their
    league (None: one --config alone)."""

    configs: list[tuple[Config, Path]]
    league: League | None


def tournaments(config: list[Path] | None, league: Path | None) -> Served:
    """The tournaments of ``--config`` (once or several times) or ``--league``: one line, exit 2,
    for neither, both, or a file that does not read (``load_league``'s messages)."""
    from pipeline.inputs.league import check_tournaments, league_of_configs, load_league

    if config and league is not None:
        raise InputError("--league", "", "expected --config (once or several times) or --league, not both")
    if league is not None:
        found = load_league(league)
    elif not config:
        raise InputError("--config", "", "expected a tournament.toml (--config, repeatable) or --league league.toml")
    elif len(config) == 1:
        return Served([(load_config(config[0]), config[0])], None)
    else:
        found = league_of_configs(config)
    loaded = check_tournaments(found, found.path or found.configs[0])
    return Served(list(zip(loaded, found.configs, strict=True)), found)


def serve(
    config: ConfigsOpt = None,
    league: ServedLeagueOpt = None,
    pool: Annotated[
        str | None,
        typer.Option(
            "--pool",
            help="Register the deployments on this Prefect process work pool (created if missing) and exit; "
            "`prefect worker start --pool NAME` runs them.",
        ),
    ] = None,
) -> None:
    """Serve the nightly flow as one Prefect deployment per tournament, named by its tournament.id,
    on the cron line of the config's schedule table (by default every day at 03:00 UTC), with
    refresh runs on its closing_day_cron. Several --config, or --league, serve a league: its runs
    share one request lane per Lichess token and the league's store (Prefect concurrency limits
    created here). Needs a running `prefect server start`; PREFECT_API_URL names it (default
    http://127.0.0.1:4200/api). Runs until stopped (Ctrl-C pauses the schedules), or with --pool
    registers the deployments on a process work pool and exits."""
    from pipeline.stages import context

    served = tournaments(config, league)
    for cfg, _ in served.configs:
        context.read_inputs(cfg)
    first = served.configs[0][0]
    assert first.paths.prefect_home is not None
    os.environ.setdefault("PREFECT_API_URL", DEFAULT_API)
    prefect_env.configure(first.paths.prefect_home)
    api = os.environ["PREFECT_API_URL"]
    check_server(api)
    console.log_to_file(served.league.store.parent if served.league else first.paths.database.parent, "serve")
    from flows import league as office

    # the runs served here send heartbeats as often as the crash automation expects (before Prefect
    # reads its settings, which the runs' processes inherit); a work pool's runs set it themselves
    os.environ["PREFECT_FLOWS_HEARTBEAT_FREQUENCY"] = str(office.HEARTBEAT_S)
    import flows.nightly  # Prefect itself, read with that setting

    console.quiet_prefect()
    if pool is not None:
        problem = office.ensure_process_pool(pool)
        if problem is not None:
            raise InputError("--pool", "", f"{problem}: name a process work pool, or a new one")
    deployments = office.league_deployments(served.configs, served.league, pool)
    office.ensure_limits(office.limit_names([c for c, _ in served.configs], served.league))
    office.ensure_automations()
    for cfg, _ in served.configs:
        say(_deployment_line(cfg, api, pool))
    if pool is not None:
        office.register(deployments)
        say(
            f"registered {len(deployments)} deployment(s) on work pool {pool!r}; start each worker with: "
            f"PREFECT_API_URL={api} prefect worker start --pool {pool}"
        )
        return
    if served.league is None:  # one tournament: served as it always was, one run at a time
        options = flows.nightly.deployment_options(first, served.configs[0][1])
        flows.nightly.nightly.serve(**options, limit=1, print_starting_message=False)
        return
    office.serve_here(deployments)


def _deployment_line(cfg: Config, api: str, pool: str | None) -> str:
    closing = cfg.schedule.closing_day_cron
    name = f"antichess-nightly/{cfg.tournament_id}"
    return (
        f"{'registering' if pool else 'serving'} deployment {name} ({cfg.schedule.cron}, {cfg.schedule.timezone}"
        + (f"; refresh runs {closing}" if closing else "")
        + f") on {api}; run one now with: prefect deployment run '{name}'"
    )


def status(
    config: ConfigsOpt = None,
    league: ServedLeagueOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object for scripts.")] = False,
) -> None:
    """Each tournament's last run (when, how it ended) from its published database, what needs the
    TD (the counts of the newest attention list: `antichess-td attention` lists the items), and,
    when a Prefect server answers at PREFECT_API_URL, its deployment's next scheduled run and
    newest flow run. Read-only: works while runs are writing, and without a Prefect server."""
    from pipeline.stages.run_status import tournament_status

    served = tournaments(config, league)
    states = [tournament_status(cfg) for cfg, _ in served.configs]
    api = os.environ.get("PREFECT_API_URL", DEFAULT_API)
    problem = server_problem(api, timeout_s=3)
    runs: dict[str, Any] = {}
    if problem is None:
        first = served.configs[0][0]
        assert first.paths.prefect_home is not None
        prefect_env.configure(first.paths.prefect_home)
        from flows.league import deployment_runs

        console.quiet_prefect()
        runs = deployment_runs([s.tournament_id for s in states])
    if as_json:
        doc = {
            "prefect": {"api_url": api, "problem": problem},
            "tournaments": [s.as_json() | {"deployment": _deployment_json(runs, s.tournament_id)} for s in states],
        }
        typer.echo(json.dumps(doc, indent=2))
        return
    if problem is not None:
        say(f"Prefect: no server answers at {api} ({problem}): next runs unknown")
    for s in states:
        for line in status_lines(s, runs.get(s.tournament_id) if problem is None else None, problem is None):
            say(line)


def _deployment_json(runs: dict[str, Any], tournament_id: str) -> dict[str, Any] | None:
    found = runs.get(tournament_id)
    if found is None:
        return None
    return {k: (v.strftime("%Y-%m-%dT%H:%M:%SZ") if hasattr(v, "strftime") else v) for k, v in found.items()}


def status_lines(s: Any, deployment: dict[str, Any] | None, asked: bool) -> list[str]:
    """The lines of one tournament: its id and config, its last run, what needs the TD, and (when
    Prefect's server was `asked`) its deployment."""
    out = [f"{s.tournament_id} ({s.config})"]
    last = s.last_run
    if last is None:
        out.append(f"  last run: none published yet ({s.database} does not exist)")
    else:
        how = last["status"] + (f" in {last['stage']}: {last['error']}" if last["status"] != "ok" else "")
        when = last["finished_at"] or last["started_at"]
        out.append(
            f"  last run: {last['run_id']} {last['command']} {how}, {when:%Y-%m-%d %H:%M} UTC "
            f"(as of {last['as_of']:%Y-%m-%d %H:%M} UTC)"
        )
    a = s.attention
    if a is None:
        out.append("  needs you: no list yet (a nightly run computes it)")
    else:
        kinds = ", ".join(f"{kind} {n}" for kind, n in a["kinds"].items())
        out.append(f"  needs you: {a['items']} ({a['new']} new){': ' + kinds if kinds else ''}; run {a['run_id']}")
    if asked:
        name = f"antichess-nightly/{s.tournament_id}"
        if deployment is None:
            out.append(f"  next run: no deployment {name} (antichess-td serve creates it)")
        else:
            nxt = deployment["next_run_at"]
            last_flow = deployment["last_state"]
            out.append(
                f"  next run: {f'{nxt:%Y-%m-%d %H:%M} UTC' if nxt else 'none scheduled'} ({name}"
                + (
                    f"; newest flow run {last_flow}, started {deployment['last_run_at']:%Y-%m-%d %H:%M} UTC"
                    if last_flow
                    else ""
                )
                + ")"
            )
    return out
