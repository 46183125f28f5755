"""``antichess-td``: a thin CLI over the stages (``pipeline.stages``) and the Prefect flow.

Exit codes (docs/td-guide.md, Run it): 0 success; 1 ``audit --fail-on-findings`` found an error; 2 bad input
(config, TD files, dataset), with one message naming the file, the line or key, and what was
expected; 3 the run failed for an outside reason (Lichess unreachable, another run writing, ...),
the message says which; 4 an internal error (the traceback is in the log file); 130 / 143 a run
stopped by Ctrl-C (SIGINT) / SIGTERM, after its closing line.

Output (``pipeline.cli.console``): stdout the summary; stderr warnings and errors, one line each, and
progress; every log line (Prefect's too) and tracebacks in ``<database folder>/logs/``; ``-v``
shows the logs on stderr as well.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from pipeline.errors import DatabaseDamaged, InputError, LichessError, MachineError, TdError
from pipeline.inputs.config import load_config
from pipeline.model import Config

app = typer.Typer(
    name="antichess-td",
    help="Nightly pipeline for Antichess tournament directors on Lichess.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

ConfigOpt = Annotated[Path, typer.Option("--config", "-c", help="The tournament.toml.", dir_okay=False)]
NowOpt = Annotated[
    str | None,
    typer.Option(
        "--now", help="Replay as of this UTC time (ISO-8601, e.g. 2026-10-06T03:00:00Z). Default: the real time."
    ),
]

log = logging.getLogger("antichess_td")

REBUILT = "the next nightly run that succeeds replaces it with a new snapshot of the working database"


@contextlib.contextmanager
def _rebuilt_if_damaged(cfg: Config) -> Iterator[None]:
    """A command reading the published snapshot: if that file is damaged, its error says how it is rebuilt."""
    try:
        yield
    except DatabaseDamaged as e:
        if Path(e.path) != cfg.paths.database:
            raise
        raise DatabaseDamaged(e.path, e.reason, REBUILT) from e


def _now(text: str | None) -> dt.datetime:
    if text is None:
        return dt.datetime.now(dt.UTC)
    try:
        t = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        t = None
    if t is None or t.tzinfo is None:
        raise InputError("--now", "", f"{text!r}: expected a UTC time such as 2026-10-06T03:00:00Z")
    return t.astimezone(dt.UTC)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"antichess-td {version('antichess-td')}")
        except PackageNotFoundError:
            typer.echo("antichess-td (not installed: running from a source tree)")
        raise typer.Exit()


@app.callback()
def _options(
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Show every log line (Prefect's too) on stderr; they always go to <database folder>/logs/.",
        ),
    ] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Nightly pipeline for Antichess tournament directors on Lichess."""
    from pipeline.cli import console

    console.setup_logging(verbose)


class _Stopper:
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
        from pipeline.cli import console
        from pipeline.stages import record

        console.stop_progress()

        reason = "interrupted by the user (Ctrl-C)" if signum == signal.SIGINT else "stopped by SIGTERM"
        try:
            line = record.interrupt(reason) or f"{reason}: no run had started; nothing was written"
        except BaseException as e:  # the closing line matters more than the record
            line = f"{reason}; the run could not be recorded ({type(e).__name__}: {e})"
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
        log.info("%s", line, extra={"file_only": True})
        console.flush_logs()
        _stop_prefect_server()
        os._exit(128 + signum)

    def wait(self) -> None:
        """The main thread after an interrupt reached it: the watcher ends the process."""
        self.seen.wait(10)
        threading.Event().wait(30)


_stopper = _Stopper()


def _stop_prefect_server() -> None:
    """Prefect's temporary server (a child process) would outlive an ``os._exit``."""
    from pipeline.cli import prefect_env

    server = prefect_env.temporary_server()
    if server is not None:
        with contextlib.suppress(Exception):
            server.stop(wait_s=2)


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
    from pipeline.cli import console
    from pipeline.store import snapshot

    _stopper.install()
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


def _say(line: str) -> None:
    typer.echo(line)
    log.info("%s", line, extra={"file_only": True})  # the summary in the log file too


def _summary(result: dict[str, Any]) -> None:
    from pipeline.cli.console import ingest_summary, rounds_scored

    sc, ing = result["score"], result["ingest"]
    for line in ingest_summary(ing, per_player=False):
        _say(line)
    _say(
        f"score: {sc['match_games']} match games ({sc['counted_games']} counted), {sc['team_matches']} matches, "
        f"stages {', '.join(sc['stages']) or '-'} ({rounds_scored(sc['rescored_rounds'], sc['first_scored_rounds'])}); "
        f"{ing.get('verified', 0) + sc['verified']} new games verified, {ing.get('mismatches', 0) + sc['mismatches']} disagree "
        "(see match_games.verdict)"
    )
    for note in sc.get("notes", []):
        _say(f"note: {note}")
    for problem in sc.get("errors", []):
        _say(f"error: {problem}")
    au = result["audit"]
    _say(
        f"audit: {au['findings']} findings: {au['errors']} errors, {au['warnings']} warnings, {au['info']} info "
        f"(antichess-td audit lists them; {au['csv']})"
    )
    for note in au["notes"]:
        _say(f"note: {note}")
    for p in result["exports"]:
        _say(f"wrote {p}")
    if "site" in result:
        _say(result["site"])
    if "notify" in result:
        for message in result["notify"]["printed"]:
            _say(message)
        if result["notify"]["line"]:
            _say(result["notify"]["line"])


DryRunOpt = Annotated[
    bool,
    typer.Option("--dry-run", help="Print the notifications (webhooks, Lichess) instead of sending them; record none."),
]


RefreshOpt = Annotated[
    bool,
    typer.Option(
        "--refresh",
        help="A refresh run, as [schedule] closing_day_cron starts them: only when a round window closes "
        "within 24 hours; histories fetched once a day; nothing published when nothing is new.",
    ),
]


@app.command()
def nightly(config: ConfigOpt, now: NowOpt = None, dry_run: DryRunOpt = False, refresh: RefreshOpt = False) -> None:
    """Everything, in order, as a Prefect flow: ingest, link and score, rank, audit, export, publish.

    Writes the working database only; replaces the published database (paths.database) at the
    end, when every stage succeeded. When Prefect's server is unavailable (PREFECT_API_URL names
    one that does not answer, or Prefect's temporary server cannot start), the same run goes on
    without Prefect, with one warning (recorded in runs). With --refresh, a run on a day no round
    window closes ends at once, and one that finds nothing new publishes nothing (docs/td-guide.md,
    "The closing day")."""
    from pipeline.cli import console, prefect_env

    cfg = load_config(config)
    at = _now(now)
    if refresh and _refresh_idle(cfg, at):
        return
    assert cfg.paths.prefect_home is not None
    home: Path = cfg.paths.prefect_home
    early: list[Any] = []  # Prefect's temporary server, started as soon as the lock is held
    # the lock, the run record and bad TD input come first: before Prefect starts, nothing slow runs
    with (
        _writing(cfg, "refresh" if refresh else "nightly", at, locked=lambda: early.append(_spawn_early(home))) as (
            run,
            inputs,
        ),
        _head_start(run, inputs, now, refresh),
    ):
        run.stage("start")
        unavailable = _prefect_unavailable(home, early[0] if early else None)
        import flows.nightly as flows_nightly

        console.quiet_prefect()
        if unavailable is None:
            flows_nightly.BODY_STARTED.clear()
            flows_nightly.BODY_RESULTS.clear()
            try:
                with prefect_env.flow_run_settings():
                    result = flows_nightly.nightly(config_path=str(config), now=now, dry_run=dry_run, refresh=refresh)
            except Exception as e:
                server = _prefect_server_of(e)
                if flows_nightly.BODY_RESULTS and server is not None:
                    result = flows_nightly.BODY_RESULTS[-1]  # published: only Prefect's record of it failed
                    log.info("Prefect failed after the run published", exc_info=e, extra={"file_only": True})
                    log.warning(
                        "%s; the run finished and published, but Prefect's record of its flow run is incomplete",
                        _stopped_answering(server, e),
                    )
                elif server is not None and flows_nightly.BODY_STARTED.is_set():
                    raise MachineError(_stopped_answering(server, e)) from e
                elif flows_nightly.BODY_STARTED.is_set():
                    raise
                else:
                    log.info("Prefect failed before the flow started", exc_info=e, extra={"file_only": True})
                    unavailable = f"Prefect could not start the flow ({_first_line(e)})"
        if unavailable is not None:
            result = flows_nightly.nightly_without_prefect(
                str(config), now, unavailable, dry_run=dry_run, refresh=refresh
            )
    from pipeline.stages import record

    if "refresh" in result:  # a refresh that found nothing new: nothing audited, exported or published
        from pipeline.cli.console import ingest_summary

        for line in ingest_summary(result["ingest"], per_player=False):
            _say(line)
        _say(result["refresh"])
        return
    _summary(result)
    _print_standings(cfg)
    if "attention" in result:
        _say(result["attention"])  # needs you: N (M new), just above the run's own last line
    _say(record.summary_line(result["run_id"], cfg.paths.database))


def _refresh_idle(cfg: Config, at: dt.datetime) -> bool:
    """A refresh with no round window closing within 24 hours of `at`: recorded and said here,
    before Prefect or any download starts (True); False: the run goes on (TD files that do not
    read go on too, to be refused and recorded as a nightly's are)."""
    from pipeline.stages import context
    from pipeline.stages import refresh as refreshing

    try:
        if refreshing.closing_rounds(context.read_inputs(cfg), at):
            return False
    except InputError:
        return False
    with _writing(cfg, "refresh", at) as (run, _):
        refreshing.record_inputs(run)
        line = refreshing.close_idle(run)
    _say(line)
    return True


def _head_start(
    run: Any, inputs: Any, now: str | None, refresh: bool = False
) -> contextlib.AbstractContextManager[Any]:
    """The ingest's head start for this run (``pipeline.stages.ingest.HeadStart``): its batches
    download while Prefect starts, and the flow's tasks take them. With the in-process replay
    server too (``lichess.replay_data``, the demo): its downloads are this process's own CPU, but
    Prefect's temporary server starts in its own process from the moment the lock is held, and
    the two share the machine's cores (the quick start's nightly took about 2 s less with it,
    docs/benchmarks.md)."""
    from pipeline.cli import console
    from pipeline.stages import ingest

    progress = console.ingest_progress(len(inputs.player_ids()), console.replay_throttle(run.config))
    work = run.work
    if refresh:
        from pipeline.stages.refresh import refresh_config

        work = refresh_config(work, run.as_of)  # the flow's batches would be the same
    return ingest.head_start(work, inputs, run.as_of, run.as_of if now else None, progress)


def _spawn_early(home: Path) -> Any:
    """Prefect's temporary server's process, started before Prefect is imported here
    (``prefect_env.spawn_early``), or None (not sure to be wanted, or the home cannot be made:
    :func:`_prefect_unavailable` says why)."""
    from pipeline.cli import console, prefect_env

    try:
        prefect_env.configure(home)
    except OSError:
        return None
    return prefect_env.spawn_early(console.log_file())


def _prefect_unavailable(home: Path, early: Any = None) -> str | None:
    """Why Prefect's server cannot serve this nightly run (None: it can), decided within seconds
    before the flow starts: the server PREFECT_API_URL names (the environment or Prefect's
    profile) does not answer /health; or, without one, Prefect's temporary server cannot use its
    home (not writable, a prefect.db that is not a healthy SQLite file) or stops while starting.
    `early` is that server's process if :func:`_spawn_early` started it: waited for when Prefect's
    settings want a temporary server on the same database, else stopped. While the temporary
    server starts (in its own process), the run's later modules are imported (:func:`_warm_up`).
    Leaves Prefect imported, its loggers writing through ours."""
    from pipeline.cli import console, prefect_env

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
        problem = _prefect_server_problem(settings.api.url)
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
    while that server starts in its own process (about 9 s on two cores, while the ingest's head
    start downloads): the flow's modules and matplotlib imported (docs/benchmarks.md, Quick
    start)."""

    def imports() -> None:
        import flows.nightly  # noqa: F401
        from pipeline.report import charts

        charts.import_matplotlib()

    threading.Thread(target=imports, name="nightly-imports", daemon=True).start()


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


def _print_standings(cfg: Any) -> None:
    from pipeline.cli.console import standings_table
    from pipeline.store import gateway

    con = gateway.connect(cfg.paths.database, read_only=True)
    try:
        for stage in cfg.stages:
            if stage.kind != "swiss":
                continue
            for line in standings_table(
                stage.name, gateway.query(con, "queries/standings_latest", [stage.name]).to_dicts()
            ):
                _say(line)
    finally:
        con.close()


@app.command()
def ingest(config: ConfigOpt, now: NowOpt = None) -> None:
    """Fetch profiles, antichess rating histories and games (working database; published at the end)."""
    from pipeline.cli.console import ingest_progress, ingest_summary, replay_throttle
    from pipeline.stages import record
    from pipeline.stages.ingest import ingest_stage, lichess_base_url

    cfg = load_config(config)
    at = _now(now)
    with _writing(cfg, "ingest", at) as (run, inputs):
        run.stage("ingest")
        with (
            lichess_base_url(run.work, now=at if now else None) as base_url,
            ingest_progress(len(inputs.player_ids()), replay_throttle(cfg)) as progress,
        ):
            report = ingest_stage(run.work, inputs, base_url, at, progress=progress)
        summary = report.summary()
        run.done("ingest", record.ingest_counts(summary), requests=summary["requests"], warnings=summary["warnings"])
    for line in ingest_summary(summary, per_player=True):
        _say(line)
    _say(record.summary_line(run.run_id, cfg.paths.database))


@app.command()
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
    from pipeline.lichess.dump import dump_files
    from pipeline.stages import record
    from pipeline.stages.backfill import backfill_stage, summary_lines

    cfg = load_config(config)
    dumps = dump_files(dump)  # a bad file name or file stops here, before anything is written
    at = _now(now)
    with _writing(cfg, "backfill", at) as (run, inputs):
        run.stage("backfill")
        report = backfill_stage(run.work, inputs, dumps, at)
        run.done("backfill", report.summary(), warnings=report.warnings)
    for line in summary_lines(report, dumps):
        _say(line)
    for warning in report.warnings:
        _say(f"warning: {warning}")
    _say(record.summary_line(run.run_id, cfg.paths.database))


@app.command()
def score(config: ConfigOpt, now: NowOpt = None) -> None:
    """Link games to pairings, score parts, boards and matches, and rank (no fetching; working
    database, published at the end, so a TD sees a re-run round at once); rewrite the exports."""
    from dataclasses import asdict

    from pipeline.cli.console import rounds_scored, verify_progress
    from pipeline.stages import record
    from pipeline.stages.score import score_stage

    cfg = load_config(config)
    at = _now(now)
    with _writing(cfg, "score", at) as (run, inputs):
        run.stage("score")
        report = score_stage(run.work, inputs, at, verify_progress)
        run.done("score", asdict(report), warnings=report.notes)
        exported = _refresh_exports(run)
    rounds = rounds_scored(report.rescored_rounds, report.first_scored_rounds)
    if not report.rescored_rounds == report.first_scored_rounds > 0:  # some rounds were left as they were
        rounds += ": the others' inputs had not changed"
    _say(
        f"score: {report.match_games} match games ({report.counted_games} counted), {report.team_matches} matches "
        f"({rounds}); "
        f"{report.verified} new games verified, {report.mismatches} disagree"
    )
    for note in report.notes:
        _say(f"note: {note}")
    for problem in report.errors:
        _say(f"error: {problem}")
    _say(exported)
    _say(record.summary_line(run.run_id, cfg.paths.database))


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


@app.command()
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
    from pipeline.cli.console import audit_summary
    from pipeline.stages import record
    from pipeline.stages.audit import audit_stage

    cfg = load_config(config)
    at = _now(now)
    with _writing(cfg, "audit", at) as (run, inputs):
        run.stage("audit")
        report = audit_stage(run.work, inputs, at)
        run.done("audit", report.summary(), warnings=report.notes)
        exported = _refresh_exports(run, report.findings)
    for line in audit_summary(report):
        _say(line)
    _say(exported)
    _say(record.summary_line(run.run_id, cfg.paths.database))
    if fail_on_findings and report.errors:
        raise typer.Exit(1)


@app.command()
def export(config: ConfigOpt) -> None:
    """Write the exports from the published database (read-only: works while a run is writing)."""
    from pipeline.stages.export import export_stage

    cfg = load_config(config)
    if not cfg.paths.database.exists():
        raise InputError(
            config,
            "key 'paths.database'",
            f"{cfg.paths.database} does not exist yet: run `antichess-td nightly` (or score) first",
        )
    with _rebuilt_if_damaged(cfg):
        written = export_stage(cfg)
    for p in written:
        _say(f"wrote {p}")


@app.command()
def site(config: ConfigOpt) -> None:
    """Write the static website (paths.site) from the published database (read-only: works while a run
    is writing); the audits go to paths.site_private unless [site] audits = "public"."""
    from pipeline.stages.site import site_stage, summary_line

    cfg = load_config(config)
    with _rebuilt_if_damaged(cfg):
        report = site_stage(cfg)
    _say(summary_line(report))


@app.command()
def attention(
    config: ConfigOpt,
    now: Annotated[
        str | None,
        typer.Option(
            "--now", help="The list as of this UTC time (ISO-8601, e.g. 2026-10-06T03:00:00Z). Default: the real time."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON array (every item field and its status) for scripts.")
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Also print the messages the next run would send ([notify]: webhooks, Lichess), sending nothing.",
        ),
    ] = False,
) -> None:
    """What needs the TD today, from the published database (read-only: no lock, no Prefect): rulings
    due, board matches with games due and their window closing, rounds ready to pair, games a ruling
    could count, closed or marked accounts, error findings (new since the run before the latest
    list, or resolved), a stale snapshot. Each item with its rule, who, the evidence and the exact
    action; grouped by kind, each new or open."""
    from pipeline.report import attention_text
    from pipeline.stages.attention import attention_now

    cfg = load_config(config)
    at = _now(now)
    with _rebuilt_if_damaged(cfg):
        report = attention_now(cfg, at)
    if as_json:
        typer.echo(attention_text.json_items(report.items, report.status))
        return
    for line in attention_text.terminal_lines(report.items, report.status, report.as_of, report.previous_run_id):
        typer.echo(line)
    if dry_run:
        from pipeline.stages.notify import dry_run_messages

        printed = dry_run_messages(cfg, report.items, at)
        typer.echo(f"dry run: {len(printed)} message(s) the next run would send ([notify]), none sent")
        for text in printed:
            typer.echo(text)


@app.command()
def pair(
    config: ConfigOpt,
    stage: Annotated[str, typer.Option("--stage", help="The Swiss stage, as the config names it.")],
    round_no: Annotated[int, typer.Option("--round", help="The round to propose (rounds before it complete).")],
) -> None:
    """Propose a Swiss round by the FIDE Dutch system from the published results of the rounds
    before it (read-only): exports/pairings_<stage>_<N>.csv, rows in pairings.csv's columns to
    review and append, and its forum post pairings_<stage>_<N>.md. Never edits pairings.csv.
    Withdrawn (disqualified) entrants, byes and pairings already entered for the round, the
    stage's forbidden_pairs and late_entrants are respected; a constraint that cannot be met
    is exit 2 naming it, and so is a round pairings.csv already pairs (it leaves no one to pair)."""
    from pipeline.stages import context
    from pipeline.stages.pairing import write_swiss_proposal
    from pipeline.store import gateway

    cfg = load_config(config)
    names = [s.name for s in cfg.stages]
    if stage not in names:
        raise InputError(config, "--stage", f"{stage!r}: expected one of {', '.join(names)}")
    if not cfg.paths.database.exists():
        raise InputError(
            config,
            "key 'paths.database'",
            f"{cfg.paths.database} does not exist yet: run `antichess-td nightly` (or score) first",
        )
    inputs = context.read_inputs(cfg)
    con = gateway.connect(cfg.paths.database, read_only=True)
    try:
        written = write_swiss_proposal(cfg, con, inputs, cfg.stage(stage), round_no)
    finally:
        con.close()
    for p in written:
        _say(f"wrote {p}")


@app.command()
def serve(config: ConfigOpt) -> None:
    """Serve the nightly flow as a Prefect deployment on the cron line of the config's schedule
    table (by default every day at 03:00 UTC), and refresh runs on its closing_day_cron. Needs a
    running `prefect server start`; PREFECT_API_URL names it (default http://127.0.0.1:4200/api).
    Runs until stopped (Ctrl-C pauses the schedule)."""
    from pipeline.cli import prefect_env
    from pipeline.stages import context

    cfg = load_config(config)
    context.read_inputs(cfg)
    assert cfg.paths.prefect_home is not None
    os.environ.setdefault("PREFECT_API_URL", "http://127.0.0.1:4200/api")
    prefect_env.configure(cfg.paths.prefect_home)
    api = os.environ["PREFECT_API_URL"]
    _check_prefect_server(api)
    from pipeline.cli import console

    console.log_to_file(cfg.paths.database.parent, "serve")
    from flows.nightly import deployment_options
    from flows.nightly import nightly as nightly_flow

    console.quiet_prefect()

    options = deployment_options(cfg, config)
    closing = cfg.schedule.closing_day_cron
    _say(
        f"serving deployment antichess-nightly/{options['name']} ({cfg.schedule.cron}, {cfg.schedule.timezone}"
        + (f"; refresh runs {closing}" if closing else "")
        + f") on {api}; run one now with: prefect deployment run 'antichess-nightly/{options['name']}'"
    )
    nightly_flow.serve(**options, limit=1, print_starting_message=False)


def _check_prefect_server(api: str) -> None:
    if _prefect_server_problem(api) is not None:
        raise TdError(
            f"no Prefect server answers at {api}: start one with `prefect server start` "
            '(see the README, "Schedule it"), or set PREFECT_API_URL to yours'
        )


def _prefect_server_problem(api: str, timeout_s: float = 5) -> str | None:
    """Why the Prefect server at `api` is unavailable (None: its /health answers 200 within `timeout_s`)."""
    import httpx

    try:
        status = httpx.get(api.rstrip("/") + "/health", timeout=timeout_s).status_code
    except httpx.TimeoutException:
        return f"no answer within {timeout_s:g} s"
    except httpx.HTTPError as e:
        return str(e) or type(e).__name__
    return None if status == 200 else f"/health answered HTTP {status}"


@app.command("replay-server")
def replay_server(
    data: Annotated[
        Path, typer.Option("--data", help="A Lichess dataset folder (users.ndjson, rating-history/, games.ndjson).")
    ],
    port: Annotated[int, typer.Option("--port", help="TCP port on 127.0.0.1 (0 picks a free one).")] = 8080,
    now: NowOpt = None,
    games_per_s: Annotated[
        float, typer.Option(help="Games per second per stream, as Lichess serves a token holder; 0 = no throttle.")
    ] = 30.0,
    max_downloads: Annotated[
        int, typer.Option(help="Concurrent game downloads allowed; more get HTTP 429 (Lichess: 2).")
    ] = 2,
    token_check: Annotated[
        bool, typer.Option(help="Answer [] to rating-history requests without a token, as Lichess does.")
    ] = True,
    fault_429: Annotated[float, typer.Option(help="Share of requests answered 429.")] = 0.0,
    fault_5xx: Annotated[float, typer.Option(help="Share of requests answered 502.")] = 0.0,
    fault_5xx_burst: Annotated[
        int, typer.Option(help="Length of 5xx bursts: N requests in a row answered 502/503 (0 = none).")
    ] = 0,
    fault_5xx_burst_rate: Annotated[
        float, typer.Option(help="Share of requests that start a 5xx burst (with --fault-5xx-burst).")
    ] = 0.05,
    fault_cut: Annotated[float, typer.Option(help="Share of game streams cut at a random byte.")] = 0.0,
    fault_stall: Annotated[float, typer.Option(help="Share of game streams that stall mid-way.")] = 0.0,
    stall_s: Annotated[
        float, typer.Option(help="How long a stall lasts (make it longer than the client timeout).")
    ] = 60.0,
    retry_after_s: Annotated[int, typer.Option(help="Retry-After sent with an injected 429.")] = 60,
    seed: Annotated[int, typer.Option(help="Seed of the fault draws (same seed, same faults).")] = 0,
    tokens: Annotated[
        Path | None,
        typer.Option(
            "--tokens",
            help='A JSON object of test tokens and their scopes, e.g. {"lip_td": ["team:lead"]}: other tokens '
            "get 401, a missing scope 403. Unset: every token has every scope.",
            dir_okay=False,
        ),
    ] = None,
) -> None:
    """Serve a recorded Lichess dataset on 127.0.0.1 with the real API's semantics.

    Also takes team messages and inbox messages (POST /team/{id}/pm-all, POST /inbox/{name}) with
    Lichess's scopes and rate limits, and lists what it received at GET /_replay/messages."""
    from pipeline.sim import replay

    at = _now(now) if now else None
    faults = replay.Faults(
        rate_429=fault_429,
        rate_5xx=fault_5xx,
        burst_5xx=fault_5xx_burst,
        rate_5xx_burst=fault_5xx_burst_rate,
        rate_cut=fault_cut,
        rate_stall=fault_stall,
        stall_s=stall_s,
        retry_after_s=retry_after_s,
        seed=seed,
    )
    options = replay.ReplayOptions(
        games_per_s=games_per_s,
        max_downloads=max_downloads,
        history_needs_token=token_check,
        faults=faults,
        token_scopes=None if tokens is None else replay.read_token_scopes(tokens),
    )
    server = replay.ReplayServer(replay.Dataset.load(data), port=port, now=at, options=options)
    _say(f"serving {data} on {server.base_url} (Ctrl-C to stop)")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@app.command()
def demo(
    out: Annotated[Path, typer.Option("--out", help="Folder to write the demo tournament into.")],
    seed: Annotated[int, typer.Option("--seed", help="Same seed, byte-identical files.")] = 2026,
    teams: Annotated[int, typer.Option("--teams", help="Teams in the TEAM season (even, at least 10).")] = 12,
    history_games: Annotated[
        str,
        typer.Option(
            "--history-games",
            help="Rated antichess games per player, MIN-MAX (below 1000 most players also fall short of TEAM-ELIG-2; PLANTED.csv lists only the planted cases).",
        ),
    ] = "1000-5000",
    stored_games: Annotated[
        str,
        typer.Option(
            "--stored-games",
            help="Of an account older than the stored 2.5 years, the history games played in them, MIN-MAX "
            "(the rest are counted on its profile only, as a real account's older games are), or 'all'.",
        ),
    ] = "150-300",
    acwc_players: Annotated[int, typer.Option("--acwc-players", help="Players in the ACWC 2021 qualification.")] = 40,
    swiss_rounds: Annotated[
        int,
        typer.Option(
            "--swiss-rounds",
            help="Swiss rounds of the TEAM season (7 as the preset, up to teams - 1; more push the knockout back).",
        ),
    ] = 7,
    dumps: Annotated[
        bool,
        typer.Option(
            "--dumps",
            help="Also write the Lichess data as monthly open-database dumps (lichess/dumps/*.pgn.zst, for "
            "`antichess-td backfill`): the rated games plus ten times as many of unregistered players.",
        ),
    ] = False,
) -> None:
    """Write the demo tournament: a TEAM season and an ACWC 2021 qualification with their Lichess data.
    Writes nothing else (no Prefect home: the first nightly run creates it), so the same options
    give byte-identical folders."""
    import time

    from pipeline.sim.season import build_season

    lo, hi = _min_max("--history-games", history_games, "1000-5000")
    stored = (
        None if stored_games.strip().lower() == "all" else _min_max("--stored-games", stored_games, "150-300", "all")
    )
    if teams < 10 or teams % 2:
        raise InputError("--teams", "", f"{teams}: expected an even number of at least 10 (TEAM-FMT-1)")
    if not 7 <= swiss_rounds < teams:
        raise InputError(
            "--swiss-rounds",
            "",
            f"{swiss_rounds}: expected 7 (the planted cases use rounds 1-7) to "
            f"{teams - 1} (one round fewer than the teams: no rematches)",
        )
    started = time.perf_counter()
    summary = build_season(out, seed, teams, (lo, hi), acwc_players, swiss_rounds, dumps=dumps, stored=stored)
    _say(
        f"wrote {out}: {summary['players']} players, {summary['games']:,} games, {summary['teams']} teams, "
        f"{summary['swiss_rounds']} Swiss rounds, {summary['acwc_players']} ACWC players, {summary['planted']} planted violations, {summary['traps']} traps "
        f"in {time.perf_counter() - started:.1f} s"
    )
    if dumps:
        _say(
            f"dumps: {summary['dump_files']} monthly files in {out / 'lichess' / 'dumps'}: "
            f"{summary['dump_games']:,} rated games of the demo's world + {summary['dump_others']:,} of unregistered players"
        )
    _say(f"run: antichess-td nightly --config {out / 'tournament.toml'}  (and {out / 'acwc' / 'tournament.toml'})")


def _min_max(option: str, text: str, example: str, alternative: str = "") -> tuple[int, int]:
    """A MIN-MAX option (0 < MIN <= MAX), or one line naming the option and what it expects (exit 2)."""
    try:
        lo, hi = (int(x) for x in text.split("-", 1))
    except ValueError:
        lo = hi = -1
    if not 0 < lo <= hi:
        also = f", or {alternative}" if alternative else ""
        raise InputError(option, "", f"{text!r}: expected MIN-MAX such as {example} (0 < MIN <= MAX){also}")
    return lo, hi


@app.command()
def init(
    folder: Annotated[Path, typer.Argument(help="The new tournament's folder (created if missing).", file_okay=False)],
    preset: Annotated[
        str, typer.Option("--preset", help="The preset to start from: team-swiss or acwc-2021.")
    ] = "team-swiss",
) -> None:
    """Start a tournament: a commented tournament.toml, the TD's CSV files with their headers and
    CHECKLIST.md (what to fill in, in order). Never overwrites a file."""
    from pipeline.cli import scaffold

    for path in scaffold.init(folder, preset):
        _say(f"wrote {path}")
    _say(
        f"next: fill them in as {folder / 'CHECKLIST.md'} says, then antichess-td check --config {folder / 'tournament.toml'}"
    )


@app.command()
def check(config: ConfigOpt) -> None:
    """Validate the config and every TD file (teams or players, pairings, overrides against both)
    without fetching or writing anything: prints `ok: ...` (exit 0) or the first mistake (exit 2)."""
    from pipeline.cli import scaffold

    summary, notes = scaffold.check(config)
    for note in notes:
        typer.echo(f"note: {note}", err=True)
    _say(summary)


def main() -> None:
    from pipeline.cli import console

    console.setup_logging(verbose=False)  # the -v callback sets it again
    logging.raiseExceptions = False  # a log file that cannot be written (a full disk) is not the run's error
    _stopper.enabled = True
    try:
        app()
    except InputError as e:
        _fail(f"error: {e}", e, 2)
    except LichessError as e:
        _fail(f"error: Lichess: {e}", e, 3)
    except TdError as e:
        _fail(f"error: {e}", e, 3)
    except (SystemExit, typer.Exit):
        raise
    except Exception as e:
        from pipeline.store import health

        machine = health.explain(e)
        if machine is None:
            _internal(e)
        _fail(f"error: {machine}", e, 3)
    except BaseException as e:
        if _stopper.installed and not isinstance(e, Exception) and (_stopper.seen.is_set() or _stopper.seen.wait(1)):
            _stopper.wait()  # an interrupt: the watcher prints the closing line and ends the process
        if isinstance(e, KeyboardInterrupt):
            _fail("interrupted", e, 130)
        _internal(e)


def _internal(e: BaseException) -> NoReturn:
    """A bug: one line saying so and where the traceback is; exit 4."""
    from pipeline.cli import console

    where = console.log_file()
    _fail(
        f"error: internal error: {type(e).__name__}: {e} "
        f"({'the traceback is in ' + str(where) if where else 'run again with -v for the traceback'})",
        e,
        4,
    )


def _fail(message: str, e: BaseException, code: int) -> NoReturn:
    """The error, then what the run record adds (which run failed, what stays published). The
    traceback goes to the log file (and to stderr with -v)."""
    from pipeline.cli import console

    log.info("%s", message, exc_info=e)
    typer.echo(message, err=True)
    for note in getattr(e, "__notes__", ()):
        typer.echo(note, err=True)
    console.flush_logs()
    sys.exit(code)
