"""``antichess-td``: a thin CLI over the stages (``pipeline.stages``) and the Prefect flow. This module
is the app: its global options, its commands registered in the order the help lists them
(``pipeline.cli.runs`` the writing ones, ``pipeline.cli.readers`` the read-only ones,
``pipeline.cli.serving`` ``serve`` and ``status``,
``pipeline.cli.simulated`` those over the simulators; ``init`` and ``check`` here), and ``main``,
which turns errors into one line and an exit code.

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

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from pipeline.cli import readers, runs, serving, signals, simulated
from pipeline.cli.options import ConfigOpt, say
from pipeline.errors import InputError, LichessError, TdError

app = typer.Typer(
    name="antichess-td",
    help="Nightly pipeline for Antichess tournament directors on Lichess.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

log = logging.getLogger("antichess_td")


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
        say(f"wrote {path}")
    say(
        f"next: fill them in as {folder / 'CHECKLIST.md'} says, then antichess-td check --config {folder / 'tournament.toml'}"
    )


def check(config: ConfigOpt) -> None:
    """Validate the config and every TD file (teams or players, pairings, overrides against both)
    without fetching or writing anything: prints `ok: ...` (exit 0) or the first mistake (exit 2)."""
    from pipeline.cli import scaffold

    summary, notes = scaffold.check(config)
    for note in notes:
        typer.echo(f"note: {note}", err=True)
    say(summary)


COMMANDS: list[tuple[str, Callable[..., None]]] = [
    ("nightly", runs.nightly),
    ("ingest", runs.ingest),
    ("backfill", runs.backfill),
    ("score", runs.score),
    ("audit", runs.audit),
    ("export", readers.export),
    ("site", readers.site),
    ("attention", readers.attention),
    ("pair", readers.pair),
    ("serve", serving.serve),
    ("status", serving.status),
    ("replay-server", simulated.replay_server),
    ("demo", simulated.demo),
    ("init", init),
    ("check", check),
]
"""The commands, in the order ``antichess-td --help`` and docs/cli.md list them."""
for name, command in COMMANDS:
    app.command(name)(command)


def main() -> None:
    from pipeline.cli import console

    console.setup_logging(verbose=False)  # the -v callback sets it again
    logging.raiseExceptions = False  # a log file that cannot be written (a full disk) is not the run's error
    signals.stopper.enabled = True
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
        stopper = signals.stopper
        if stopper.installed and not isinstance(e, Exception) and (stopper.seen.is_set() or stopper.seen.wait(1)):
            stopper.wait()  # an interrupt: the watcher prints the closing line and ends the process
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
