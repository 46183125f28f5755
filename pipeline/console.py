"""What a TD sees in the terminal: a progress bar while ingesting (on a TTY only) and the
run summaries. Presentation only; the numbers come from the reports."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

from pipeline.ingest import PlayerReport


@contextlib.contextmanager
def ingest_progress(players: int) -> Iterator[Callable[[PlayerReport], None] | None]:
    """A rich progress bar on stderr when it is a terminal; None (no output) otherwise."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("ingest"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("", total=players)

        def advance(p: PlayerReport) -> None:
            bar.update(task, advance=1, description=f"{p.user_id}: {p.games_new} new games")

        yield advance


def ingest_summary(report: dict[str, Any], per_player: bool) -> list[str]:
    """Totals (and optionally one line per player that cost at least one request)."""
    lines = []
    if per_player:
        lines.append(f"{'player':<24} {'history':<9} {'games':<9} {'req':>4} {'fetched':>7} {'new':>6} {'again':>6} {'rejected':>8}")
        for p in report["players"]:
            if p["requests"] or p["games_fetched"]:
                lines.append(f"{p['user_id']:<24} {p['history']:<9} {p['games']:<9} {p['requests']:>4} {p['games_fetched']:>7} "
                             f"{p['games_new']:>6} {p['games_already_stored']:>6} {p['games_rejected']:>8}")
    lines.append(
        f"ingest: {report['users_loaded']} players; {report['requests']} requests ({report['retries']} retries, "
        f"{report['rate_limited']} rate-limited, {report['waited_429_s']:.0f} s waited on 429s, "
        f"{report['streams_resumed']} streams resumed); histories {report['histories_loaded']} fetched / "
        f"{report['histories_unchanged']} unchanged; game streams {report['streams_unchanged']} unchanged")
    lines.append(
        f"games: {report['games_fetched']} fetched = {report['games_loaded']} loaded ({report['games_new']} new, "
        f"{report['games_already_stored']} already stored) + {report['games_skipped_other_variant']} other-variant skipped "
        f"+ {report['games_ongoing']} still being played + {report['games_rejected']} rejected; "
        f"{report['games_distinct']} distinct"
        + (f"; {report['games_flagged']} loaded but flagged (the PGN names other players: see the rejected view)"
           if report.get("games_flagged") else ""))
    lines.extend(f"warning: {w}" for w in report["warnings"])
    return lines


def standings_table(stage: str, rows: list[dict[str, Any]], limit: int = 16) -> list[str]:
    """The latest table of a stage, as a TD reads it: rank, entrant and the criteria in order."""
    if not rows:
        return []
    lines = [f"standings {stage} after round {rows[0]['after_round']}:",
             f"{'rank':>4}  {'entrant':<28} {'MP':>5} {'scored':>8} {'conceded':>8} {'diff':>6} {'MB':>6}"]
    for r in rows[:limit]:
        lines.append(f"{r['rank']:>4}  {str(r['entrant']):<28} {r['match_points']:>5g} {r['points_scored']:>8g} "
                     f"{r['points_conceded']:>8g} {r['points_difference']:>6g} {r['median_buchholz']:>6g}")
    if len(rows) > limit:
        lines.append(f"      ... {len(rows) - limit} more in standings_{stage}.csv")
    return lines


def audit_summary(report: Any) -> list[str]:
    """The findings grouped by rule (errors first), each with its subject, team and detail; then the totals."""
    lines = []
    for rule, findings in report.by_rule().items():
        counts = ", ".join(f"{n} {sev}{'s' if n > 1 and sev != 'info' else ''}" for sev, n in report.counts()[rule].items())
        lines.append(f"{rule} ({counts})")
        for f in findings:
            who = f.subject if not f.team or f.team == f.subject else f"{f.subject} ({f.team})"
            lines.append(f"  {f.severity:<7} {who}: {f.detail}" + (f" <{f.evidence_url}>" if f.evidence_url else ""))
    lines.extend(f"note: {n}" for n in report.notes)
    lines.append(f"audit: {len(report.findings)} findings: {report.errors} errors, {report.count('warning')} warnings, "
                 f"{report.count('info')} info, in {len(report.by_rule())} rules"
                 + (f"; wrote {report.csv_path}" if report.csv_path else ""))
    return lines
