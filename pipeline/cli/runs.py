"""The commands that run the pipeline and write the database: ``nightly`` (the whole run, as a Prefect
flow: ``pipeline.cli.prefect_lifecycle``), its stages one at a time (``ingest``, ``backfill``,
``score``, ``audit``); ``serve`` (the nightly on a schedule) is in ``pipeline.cli.serving``.
Each writing command runs in one frame (:func:`_writing`): Ctrl-C/SIGTERM handled (``pipeline.cli.signals``), its log file, the writer
lock, its run record and the TD's inputs validated first; the run publishes at its end. Registered
on the ``antichess-td`` app by ``pipeline.cli.app``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from pipeline.cli import console
from pipeline.cli.options import ConfigOpt, DryRunOpt, LeagueOpt, NowOpt, RefreshOpt, parse_now, say
from pipeline.cli.prefect_lifecycle import early_server, ingest_head_start, run_flow
from pipeline.cli.signals import stopper
from pipeline.errors import InputError
from pipeline.inputs.config import load_config
from pipeline.model import Config


def nightly(
    config: ConfigOpt,
    now: NowOpt = None,
    dry_run: DryRunOpt = False,
    refresh: RefreshOpt = False,
    league: LeagueOpt = None,
) -> None:
    """Everything, in order, as a Prefect flow: ingest, link and score, rank, audit, export, publish.

    Writes the working database only; replaces the published database (paths.database) at the
    end, when every stage succeeded. When Prefect's server is unavailable (PREFECT_API_URL names
    one that does not answer, or Prefect's temporary server cannot start), the same run goes on
    without Prefect, with one warning (recorded in runs). With --refresh, a run on a day no round
    window closes ends at once, and one that finds nothing new publishes nothing (docs/td-guide.md,
    "The closing day"). With --league, the run is one of that league's (docs/td-guide.md, Running
    a league)."""
    cfg, in_league = _in_league(load_config(config), league)
    at = parse_now(now)
    if refresh and _refresh_idle(cfg, at):
        return
    assert cfg.paths.prefect_home is not None
    home: Path = cfg.paths.prefect_home
    early: list[Any] = []  # Prefect's temporary server, started as soon as the lock is held
    # the lock, the run record and bad TD input come first: before Prefect starts, nothing slow runs
    with (
        _writing(cfg, "refresh" if refresh else "nightly", at, locked=lambda: early.append(early_server(home))) as (
            run,
            inputs,
        ),
        ingest_head_start(run, inputs, now, refresh),
    ):
        run.stage("start")
        result = run_flow(config, now, dry_run, refresh, home, early[0] if early else None, in_league)
    from pipeline.stages import record

    if "refresh" in result:  # a refresh that found nothing new: nothing audited, exported or published
        for line in console.ingest_summary(result["ingest"], per_player=False):
            say(line)
        say(result["refresh"])
        return
    _summary(result)
    _print_standings(cfg)
    if "attention" in result:
        say(result["attention"])  # needs you: N (M new), just above the run's own last line
    say(record.summary_line(result["run_id"], cfg.paths.database))


def _in_league(cfg: Config, league: Path | None) -> tuple[Config, dict[str, Any] | None]:
    """The tournament's config in the league of `league` (None: alone), and the league as the flow's
    parameter; a league that does not list the tournament is bad input."""
    if league is None:
        return cfg, None
    from pipeline.inputs.league import league_parameter, load_league

    loaded = load_league(league)
    if cfg.path.resolve() not in loaded.configs:
        raise InputError(league, "key 'league.tournaments'", f"expected {cfg.path} among the league's tournaments")
    return dataclasses.replace(cfg, league=loaded), league_parameter(loaded)


def _refresh_idle(cfg: Config, at: dt.datetime) -> bool:
    """A refresh with no round window closing within 24 hours of `at`: recorded and said here,
    before Prefect or any download starts (True); False: the run goes on (TD files that do not
    read go on too, to be refused and recorded as a nightly's are)."""
    from pipeline.stages import context
    from pipeline.stages.refresh import close_idle, closing_rounds, record_inputs

    try:
        if closing_rounds(context.read_inputs(cfg), at):
            return False
    except InputError:
        return False
    with _writing(cfg, "refresh", at) as (run, _):
        record_inputs(run)
        line = close_idle(run)
    say(line)
    return True


@contextlib.contextmanager
def _writing(
    cfg: Any, command: str, at: dt.datetime, locked: Callable[[], None] | None = None
) -> Iterator[tuple[Any, Any]]:
    """A writing command's frame: Ctrl-C/SIGTERM handling, its log file, the writer lock and its
    run record (``runs.recorded``: taken before anything slow starts, so a second run stops at
    once), then the TD's inputs validated as the run's first stage, so a refusal is recorded in
    ``runs``. A tournament that never ran (no working database, no lock file) validates first
    instead: a first run refused at validation writes nothing at all. `locked` is called once the
    lock is held. Yields the run and the inputs."""
    from pipeline.store import snapshot

    stopper.install()
    work = cfg.paths.work_database
    if not (work.exists() or snapshot.lock_path(work).exists()):
        from pipeline.stages import context

        context.read_inputs(cfg)
    console.log_to_file(cfg.paths.database.parent, command)
    with snapshot.writer_lock(work):  # light: nothing heavy is imported yet
        if locked is not None:
            locked()
        from pipeline.stages import context, record

        with record.recorded(cfg, command, at) as run:
            run.stage("validate")
            inputs = context.read_inputs(cfg)
            yield run, inputs


def _summary(result: dict[str, Any]) -> None:
    sc, ing = result["score"], result["ingest"]
    for line in console.ingest_summary(ing, per_player=False):
        say(line)
    say(
        f"score: {sc['match_games']} match games ({sc['counted_games']} counted), {sc['team_matches']} matches, "
        f"stages {', '.join(sc['stages']) or '-'} ({console.rounds_scored(sc['rescored_rounds'], sc['first_scored_rounds'])}); "
        f"{ing.get('verified', 0) + sc['verified']} new games verified, {ing.get('mismatches', 0) + sc['mismatches']} disagree "
        "(see match_games.verdict)"
    )
    for note in sc.get("notes", []):
        say(f"note: {note}")
    for problem in sc.get("errors", []):
        say(f"error: {problem}")
    au = result["audit"]
    say(
        f"audit: {au['findings']} findings: {au['errors']} errors, {au['warnings']} warnings, {au['info']} info "
        f"(antichess-td audit lists them; {au['csv']})"
    )
    for note in au["notes"]:
        say(f"note: {note}")
    for p in result["exports"]:
        say(f"wrote {p}")
    if "site" in result:
        say(result["site"])
    if "notify" in result:
        for message in result["notify"]["printed"]:
            say(message)
        if result["notify"]["line"]:
            say(result["notify"]["line"])


def _print_standings(cfg: Any) -> None:
    from pipeline.store import gateway

    con = gateway.connect(cfg.paths.database, read_only=True)
    try:
        for stage in cfg.stages:
            if stage.kind != "swiss":
                continue
            for line in console.standings_table(
                stage.name, gateway.query(con, "queries/standings_latest", [stage.name]).to_dicts()
            ):
                say(line)
    finally:
        con.close()


def ingest(config: ConfigOpt, now: NowOpt = None) -> None:
    """Fetch profiles, antichess rating histories and games (working database; published at the end)."""
    from pipeline.progress import ingest_progress, replay_throttle
    from pipeline.stages import record
    from pipeline.stages.ingest import ingest_stage, lichess_base_url

    cfg = load_config(config)
    at = parse_now(now)
    with _writing(cfg, "ingest", at) as (run, inputs):
        run.stage("ingest")
        with (
            lichess_base_url(run.work, now=at if now else None) as base_url,
            ingest_progress(len(inputs.player_ids()), replay_throttle(cfg)) as progress,
        ):
            report = ingest_stage(run.work, inputs, base_url, at, progress=progress)
        summary = report.summary()
        run.done("ingest", record.ingest_counts(summary), requests=summary["requests"], warnings=summary["warnings"])
    for line in console.ingest_summary(summary, per_player=True):
        say(line)
    say(record.summary_line(run.run_id, cfg.paths.database))


def backfill(
    config: ConfigOpt,
    dump: Annotated[
        list[Path],
        typer.Option(
            "--dump",
            help="A Lichess open-database dump, lichess_db_antichess_rated_YYYY-MM.pgn.zst (repeat for each month; "
            "every month from the first to the last).",
            dir_okay=False,
        ),
    ],
    now: NowOpt = None,
) -> None:
    """Store the registered players' games from Lichess's monthly antichess dumps (database.lichess.org)
    as the API would store them, then start each player's games cursor after the last month, so the
    next nightly run fetches only the rest from the API (working database; published at the end).
    Rerunning it changes nothing; a game the API already stored stays as the API stored it."""
    from pipeline.lichess.dump_reader import dump_files
    from pipeline.stages import record
    from pipeline.stages.backfill import backfill_stage, summary_lines

    cfg = load_config(config)
    dumps = dump_files(dump)  # a bad file name or file stops here, before anything is written
    at = parse_now(now)
    with _writing(cfg, "backfill", at) as (run, inputs):
        run.stage("backfill")
        report = backfill_stage(run.work, inputs, dumps, at)
        run.done("backfill", report.summary(), warnings=report.warnings)
    for line in summary_lines(report, dumps):
        say(line)
    for warning in report.warnings:
        say(f"warning: {warning}")
    say(record.summary_line(run.run_id, cfg.paths.database))


def score(config: ConfigOpt, now: NowOpt = None) -> None:
    """Link games to pairings, score parts, boards and matches, and rank (no fetching; working
    database, published at the end, so a TD sees a re-run round at once); rewrite the exports."""
    from dataclasses import asdict

    from pipeline.progress import verify_progress
    from pipeline.stages import record
    from pipeline.stages.score import score_stage

    cfg = load_config(config)
    at = parse_now(now)
    with _writing(cfg, "score", at) as (run, inputs):
        run.stage("score")
        report = score_stage(run.work, inputs, at, verify_progress)
        run.done("score", asdict(report), warnings=report.notes)
        exported = _refresh_exports(run)
    rounds = console.rounds_scored(report.rescored_rounds, report.first_scored_rounds)
    if not report.rescored_rounds == report.first_scored_rounds > 0:  # some rounds were left as they were
        rounds += ": the others' inputs had not changed"
    say(
        f"score: {report.match_games} match games ({report.counted_games} counted), {report.team_matches} matches "
        f"({rounds}); "
        f"{report.verified} new games verified, {report.mismatches} disagree"
    )
    for note in report.notes:
        say(f"note: {note}")
    for problem in report.errors:
        say(f"error: {problem}")
    say(exported)
    say(record.summary_line(run.run_id, cfg.paths.database))


def _refresh_exports(run: Any, findings: list[Any] | None = None) -> str:
    """After score or audit: every export rewritten from the working database about to be
    published (standings, results, round posts, findings, charts), so the files show a ruling as
    soon as the database does; `findings`: the audit's just now, if one ran. Returns the line for
    the terminal."""
    from pipeline.stages.export import export_stage

    run.stage("export")
    written = export_stage(run.work, findings)
    run.done("export", {"files": len(written)})
    return f"exports: {len(written)} files refreshed in {run.config.paths.exports}"


def audit(
    config: ConfigOpt,
    now: NowOpt = None,
    fail_on_findings: Annotated[
        bool, typer.Option("--fail-on-findings", help="Exit with code 1 when any audit finds an error.")
    ] = False,
) -> None:
    """Re-check eligibility, team composition, the board-4 cap, conduct and seeding (sql/audits); print
    the findings grouped by rule and rewrite the exports, audit_findings.csv among them (working database,
    published at the end)."""
    from pipeline.stages import record
    from pipeline.stages.audit import audit_stage

    cfg = load_config(config)
    at = parse_now(now)
    with _writing(cfg, "audit", at) as (run, inputs):
        run.stage("audit")
        report = audit_stage(run.work, inputs, at)
        run.done("audit", report.summary(), warnings=report.notes)
        exported = _refresh_exports(run, report.findings)
    for line in console.audit_summary(report):
        say(line)
    say(exported)
    say(record.summary_line(run.run_id, cfg.paths.database))
    if fail_on_findings and report.errors:
        raise typer.Exit(1)
