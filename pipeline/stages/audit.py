"""The audit stage: eligibility, composition, the board-4 rating cap, conduct and seeding,
re-checked on every run as SQL (:func:`audit_stage`).

Each audit is one SELECT of offending rows in ``sql/audits/<name>.sql`` with the columns of
``audit_findings`` (docs/data-model.md); the view is their UNION ALL (``findings_view.audit_findings_sql``).
The files read their parameters from tables this module writes from the config: the one-row
``audit_params`` and the lists ``audit_strongest_players``, ``audit_allowed_swaps``,
``audit_directors`` and ``audit_stages``, so a TD who opens the published database in the
``duckdb`` CLI and runs any audit file gets exactly the rows of ``audit_findings``. The captain
history ``audit_captains`` (TEAM-COMP-8) grows by one row whenever teams.csv names a new captain.

The rows come from the config in pipeline/domain/audit_params.py (pure); the writers here receive
a connection (only ``pipeline/store/gateway.py`` opens one). Reading the findings back is
pipeline/stages/audit_findings.py.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from pipeline.domain.audit_params import list_rows, notes_for, params_row
from pipeline.domain.findings import SEVERITIES, Finding, finding_order
from pipeline.model import Config, Roster
from pipeline.report.posts import write_findings
from pipeline.stages import context, ratings, score
from pipeline.stages.audit_findings import SHARED_VIEWS, read_findings
from pipeline.store import gateway, sql_files, view_graph

if TYPE_CHECKING:
    from pipeline.lichess.ingest_run import Ahead

log = logging.getLogger(__name__)


@dataclass
class AuditReport:
    findings: list[Finding] = field(default_factory=list)
    estimates: int = 0  # rating_estimates rows written for the cap audit
    notes: list[str] = field(default_factory=list)
    csv_path: Path | None = None

    def count(self, severity: str) -> int:
        return sum(f.severity == severity for f in self.findings)

    @property
    def errors(self) -> int:
        return self.count("error")

    def by_rule(self) -> dict[str, list[Finding]]:
        out: dict[str, list[Finding]] = {}
        for f in self.findings:
            out.setdefault(f.rule_id, []).append(f)
        return out

    def counts(self) -> dict[str, dict[str, int]]:
        """{rule_id: {severity: n}} in rule order."""
        c = Counter((f.rule_id, f.severity) for f in self.findings)
        return {rule: {sev: c[rule, sev] for sev in SEVERITIES if c[rule, sev]} for rule in self.by_rule()}

    def summary(self) -> dict[str, Any]:
        return {
            "findings": len(self.findings),
            "errors": self.errors,
            "warnings": self.count("warning"),
            "info": self.count("info"),
            "by_rule": self.counts(),
            "estimates": self.estimates,
            "notes": self.notes,
            "csv": str(self.csv_path) if self.csv_path else None,
        }


# --------------------------------------------------------------------------- the database side


def write_params(con: duckdb.DuckDBPyConnection, config: Config, now: dt.datetime) -> None:
    """Make audit_params and the list tables those of the config, in one transaction (a table
    that already is is not written)."""
    with gateway.transaction(con):
        gateway.replace_all(con, "audit_params", [params_row(config, now)])
        for table, rows in list_rows(config).items():
            gateway.replace_all(con, table, rows)


def record_captains(con: duckdb.DuckDBPyConnection, roster: Roster, now: dt.datetime) -> int:
    """TEAM-COMP-8's history: a row for each team whose teams.csv captain differs from the last
    one recorded (the first run records every team's captain). Returns the rows added."""
    new = new_captains(last_captains(con), roster, now)
    with gateway.transaction(con):
        gateway.upsert(con, "audit_captains", new)
    return len(new)


def last_captains(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Each team's captain as audit_captains last recorded it."""
    return {r["team"]: r["player_id"] for r in gateway.query(con, "queries/last_captains").iter_rows(named=True)}


def new_captains(last: dict[str, str], roster: Roster, now: dt.datetime) -> list[dict[str, Any]]:
    """The audit_captains rows to add: each team whose teams.csv captain is not the last recorded."""
    return [
        {"team": m.entrant, "player_id": m.player_id, "seen_from": now}
        for m in roster.members
        if m.is_captain and last.get(m.entrant) != m.player_id
    ]


def reads_scores(path: Path) -> bool:
    """Whether the audit file may read a table whose rows the score stage decides (score.RESULTS):
    the audits that do not give the same findings before and after it (:func:`beside_score`)."""
    return not view_graph.tables_read(sql_files.audit_sql(path)).isdisjoint(score.RESULTS)


def estimate_ratings(con: duckdb.DuckDBPyConnection, stats: ratings.EstimateStats | None = None) -> int:
    """Bring rating_estimates up to date for the players whose RDs an audit reads
    (queries/rd_tracked_players, from the parameters written); returns its row count."""
    tracked = gateway.query(con, "queries/rd_tracked_players")
    return ratings.write_rating_estimates(
        con,
        tuple(tracked["user_id"]),
        stats=stats,
        until={r["user_id"]: r["until"] for r in tracked.iter_rows(named=True) if r["until"] is not None},
    )


def ahead_of_audit(
    con: duckdb.DuckDBPyConnection, config: Config, inputs: context.Inputs, now: dt.datetime
) -> Ahead | None:
    """What the audit stage of a team event can do while the ingest still downloads:
    once the games of the players whose RDs can change tonight are stored (a last-board player's,
    and another player's until their TEAM-ELIG-7 due time, if that is after the last audit), the
    TD's files and this run's parameters are written and the RD estimates brought up to date
    (:func:`estimate_ratings`). The audit checks that their inputs are unchanged (the estimates'
    cursor and digest) and redoes what is not.
    None before the first audit (nothing to resume) and for an individual event (no RDs)."""
    last = gateway.query(con, "queries/last_audit_time").item()
    if config.kind != "team" or last is None:
        return None
    tracked = gateway.query(con, "queries/rd_tracked_players").iter_rows(named=True)
    players = frozenset(r["user_id"] for r in tracked if r["until"] is None or r["until"] > last)

    def work(cur: duckdb.DuckDBPyConnection) -> None:
        context.write_td_inputs(cur, inputs)
        write_params(cur, config, now)
        stats = ratings.EstimateStats()
        estimate_ratings(cur, stats)
        log.info("ahead of the audit: %d games rated", stats.games_rated)

    from pipeline.lichess.ingest_run import Ahead

    return Ahead(players, work, name="the RD estimates, ahead of the audit")


# --------------------------------------------------------------------------- the stage


def prepare(con: duckdb.DuckDBPyConnection, config: Config, inputs: context.Inputs, now: dt.datetime) -> None:
    """What every audit reads from the config and the TD's files, written in one transaction before
    any is evaluated: the td_* tables, this run's audit parameters and a new captain (TEAM-COMP-8)."""
    last = last_captains(con) if config.kind == "team" else {}
    rows = {**context.td_rows(inputs), "audit_params": [params_row(config, now)], **list_rows(config)}
    with gateway.transaction(con):
        for table, table_rows in rows.items():
            gateway.replace_all(con, table, table_rows)
        if config.kind == "team":
            gateway.upsert(con, "audit_captains", new_captains(last, inputs.roster, now))


class BesideScore:
    """The audits that read nothing the score stage decides (:func:`reads_scores` false; most of
    the work, the eligibility and cap audits over every rated game among them), and the RD
    estimates they read, evaluated on a thread of their own while the score stage runs on the
    other core. Started by :func:`beside_score` once :func:`prepare` has written their inputs;
    :func:`audit_stage` collects them and evaluates the others.

    The thread computes the SHARED_VIEWS once (``gateway.shadowed``) and first reads the entrants'
    seeding ratings from them (``context.entrant_seeds``): the score stage ranks with
    :meth:`seeds` instead of computing the rating events a second time."""

    def __init__(self, config: Config, inputs: context.Inputs, now: dt.datetime) -> None:
        self.config, self.inputs, self.now = config, inputs, now
        self.estimates = 0
        self.findings: list[Finding] = []
        self.error: BaseException | None = None
        self._seeds: dict[str, float] | None = None
        self._seeded = threading.Event()
        self.thread = threading.Thread(target=self._run, name="audits beside the score stage", daemon=True)

    def _run(self) -> None:
        try:
            con = gateway.connect(self.config.paths.database)
            try:
                with gateway.shadowed(con, SHARED_VIEWS):
                    self._seeds = context.entrant_seeds(con, self.config)
                    self._seeded.set()
                    self.estimates = estimate_ratings(con)
                    self.findings = read_findings(con, self.config.kind, lambda f: not reads_scores(f), shadow=False)
            finally:
                con.close()
        except BaseException as e:  # raised again where the seeds or the findings are collected
            self.error = e
        finally:
            self._seeded.set()

    def seeds(self) -> dict[str, float]:
        """Each entrant's seeding rating (``context.entrant_seeds``, as of this run's parameters),
        once the thread has read them; its error, if it failed first."""
        self._seeded.wait()
        if self._seeds is None:
            assert self.error is not None
            raise self.error
        return self._seeds

    def result(self, config: Config, inputs: context.Inputs, now: dt.datetime) -> tuple[int, list[Finding]]:
        """(rating_estimates rows, findings) once the thread is done; its error, if it failed.
        Only for the run it was started for (the same config, TD files and time)."""
        if (config, inputs, now) != (self.config, self.inputs, self.now):
            raise ValueError("these audits were started for another run (config, TD files or time differ)")
        self.thread.join()
        if self.error is not None:
            raise self.error
        return self.estimates, self.findings


BESIDE_SWITCH_S = 0.0005
"""The interpreter's switch interval while the audits run beside the score stage (Python's default
is 0.005 s). The score stage calls DuckDB hundreds of times, and each call gives the interpreter
lock up and waits to take it back; while the thread beside it runs Python (on a season's first
night, the RD estimates of every game), each wait lasts up to one interval. Measured on the quick
start's first night: the score stage took 3.1-3.8 s beside the estimates at 0.005 s, 1.1 s at
0.0005 s, and 0.6-0.8 s alone (docs/benchmarks.md)."""


@contextlib.contextmanager
def beside_score(config: Config, inputs: context.Inputs, now: dt.datetime) -> Iterator[BesideScore]:
    """Run the score stage inside the block and pass what this yields to :func:`audit_stage`: the
    audits that do not read its results are evaluated meanwhile (:class:`BesideScore`), after
    :func:`prepare`. The block ends only once they are done, whatever happened in it; an error of
    theirs is raised by the audit stage, as if it had evaluated them itself.

    Inside the block the interpreter's switch interval is :data:`BESIDE_SWITCH_S` (restored after
    it): see there."""
    con = gateway.connect(config.paths.database)
    try:
        prepare(con, config, inputs, now)
    finally:
        con.close()
    early = BesideScore(config, inputs, now)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(BESIDE_SWITCH_S)
    try:
        early.thread.start()
        try:
            yield early
        finally:
            early.thread.join()
    finally:
        sys.setswitchinterval(interval)


def audit_stage(
    config: Config, inputs: context.Inputs, now: dt.datetime, early: BesideScore | None = None
) -> AuditReport:
    """Re-check every audit rule (sql/audits) on what is stored and write audit_findings.csv.

    Writes the TD's files and the audit parameters from the config (so any audit file gives the
    same rows in the duckdb CLI), records a new captain (TEAM-COMP-8), re-estimates the per-game
    RDs the cap and provisional audits read (rating_estimates: only those, queries/rd_tracked_players),
    then reads audit_findings. With `early` (:func:`beside_score`, around the score stage) the
    first steps and the audits that do not read the score stage's results are done already: only
    the others are evaluated here, and the findings are the same."""
    report = AuditReport(notes=notes_for(config))
    con = gateway.connect(config.paths.database)
    try:
        if early is None:
            prepare(con, config, inputs, now)
            report.estimates = estimate_ratings(con)
            report.findings = read_findings(con, config.kind)
        else:
            after = read_findings(con, config.kind, reads_scores)  # while the others may still run
            report.estimates, before = early.result(config, inputs, now)
            report.findings = sorted(before + after, key=finding_order)
    finally:
        con.close()
    report.csv_path = write_findings(config.paths.exports / "audit_findings.csv", report.findings)
    return report
