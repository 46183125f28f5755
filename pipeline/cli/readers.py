"""The commands that read the published database (read-only: they work while a run is writing):
``export``, ``site``, ``attention`` and ``pair``. A damaged snapshot's error says how it is rebuilt
(:data:`REBUILT`). Registered on the ``antichess-td`` app by ``pipeline.cli.app``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from pipeline.cli.options import ConfigOpt, parse_now, say
from pipeline.errors import DatabaseDamaged, InputError
from pipeline.inputs.config import load_config
from pipeline.model import Config

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
        say(f"wrote {p}")


def site(config: ConfigOpt) -> None:
    """Write the static website (paths.site) from the published database (read-only: works while a run
    is writing); the audits go to paths.site_private unless [site] audits = "public"."""
    from pipeline.stages.site import site_stage, summary_line

    cfg = load_config(config)
    with _rebuilt_if_damaged(cfg):
        report = site_stage(cfg)
    say(summary_line(report))


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
    at = parse_now(now)
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
        say(f"wrote {p}")
