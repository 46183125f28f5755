"""The attention stage: what needs the TD today, from one database and the previous
run's list.

:func:`read_sources` reads once what the list needs (``sql/queries/attention_*.sql``: boards
waiting for a ruling, board matches with games due, near misses, flagged accounts, the rounds of
pairings.csv; the error findings; the next-stage proposal; the runs); :func:`~pipeline.domain.attention_list.items_of`
turns that into :class:`~pipeline.domain.attention_items.Item` values (no database, no clock: ``now`` is
an argument), and :func:`~pipeline.domain.attention_items.compare` says which are new.

* :func:`attention_stage` — the nightly run's step, after export and before publish: it reads the
  working database about to be published (``run.work``), stores the list with the run
  (``attention_items``, written once, in one transaction) so the snapshot carries it (the
  ``attention`` view) and the next run compares with it, and writes ``exports/attention.md``.
* :func:`attention_now` — ``antichess-td attention``: the same list computed read-only from the
  published snapshot at ``now`` (no lock, no Prefect), compared with the list stored before the
  snapshot's newest one, so it says "new" about the same items the nightly did.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.domain.attention_items import Changes, Item, PartDue, Status, compare
from pipeline.domain.attention_list import Sources, items_of
from pipeline.errors import InputError
from pipeline.model import Config
from pipeline.report import attention_text, exports
from pipeline.store import gateway

log = logging.getLogger(__name__)

UNPLAYED_AUDITS = frozenset({"team_score_unplayed", "acwc_unplayed"})  # listed as ruling_due, with the ruling lines


@dataclass(frozen=True)
class AttentionReport:
    """A computed list: its items (in the order shown), each one's status, and the comparison."""

    items: tuple[Item, ...]
    changes: Changes
    as_of: dt.datetime
    run_id: int | None  # the run whose list it is (None: computed by `attention` at as_of)
    previous_run_id: int | None
    written: list[Path] = field(default_factory=list)

    def status(self, item: Item) -> Status:
        return self.changes.status(item)

    def summary_line(self) -> str:
        """The nightly summary's last line."""
        return f"needs you: {len(self.items)} ({len(self.changes.new)} new)"

    def counts(self) -> dict[str, Any]:
        """What ``runs.counts.attention`` keeps."""
        by_kind: dict[str, int] = defaultdict(int)
        for i in self.items:
            by_kind[i.kind] += 1
        return {"items": len(self.items), "new": len(self.changes.new), "kinds": dict(sorted(by_kind.items()))}


# --------------------------------------------------------------------------- reading


def read_sources(
    config: Config,
    con: Any,
    now: dt.datetime,
    before_run: int | None,
    findings: Sequence[Any] | None = None,
) -> Sources:
    """Everything the list needs from the database on `con`; the previous list is that of the
    newest 'ok' run that computed one before run `before_run` (None: before the newest such run,
    as `attention` reads a snapshot). `findings`: the audit's rows when the caller has them (the
    nightly), else they are read from audit_findings (when an audit has run)."""
    from pipeline.stages import pairing

    def rows(name: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return gateway.query(con, name, list(params)).to_dicts()

    until = now + dt.timedelta(days=config.attention.days_left)
    if findings is None:
        found = rows("queries/audit_findings_ordered") if gateway.query(con, "queries/audit_has_run").item() else []
    else:
        found = [f if isinstance(f, dict) else f.__dict__ for f in findings]
    if config.kind == "team":
        proposal, _ = pairing.next_knockout_pairings(config, con)
    else:
        proposal, _ = pairing.next_acwc_pairings(config, con)
    last_ok = rows("queries/run_last_ok")
    previous: list[Item] = []
    previous_run_id = None
    if gateway.query(con, "queries/attention_has_items").item():
        listed = [r["run_id"] for r in rows("queries/attention_list_runs")]
        if before_run is None:
            earlier = listed[1:]
        else:
            earlier = [r for r in listed if r < before_run]
        if earlier:
            previous_run_id = earlier[0]
            previous = [item_of_row(r) for r in rows("queries/attention_items_of_run", [previous_run_id])]
    return Sources(
        unplayed=rows("queries/attention_unplayed_boards"),
        due_parts=rows("queries/attention_boards_due", [now, until]),
        near_misses=rows("queries/attention_near_misses"),
        accounts=rows("queries/attention_accounts"),
        rounds=rows("queries/attention_rounds"),
        findings=[f for f in found if f["severity"] == "error" and f["audit"] not in UNPLAYED_AUDITS],
        proposal=list(proposal),
        last_ok_as_of=last_ok[0]["as_of"].astimezone(dt.UTC) if last_ok else None,
        previous=previous,
        previous_run_id=previous_run_id,
    )


def item_of_row(r: dict[str, Any]) -> Item:
    """An Item as attention_items stores it."""
    deadline = r["deadline"]
    return Item(
        key=r["key"],
        kind=r["kind"],
        rule_id=r["rule_id"],
        severity=r["severity"],
        subject=r["subject"],
        sentence=r["sentence"],
        action=r["action"],
        evidence_url=r["evidence_url"],
        stage=r["stage"],
        round=r["round"],
        deadline=None if deadline is None else deadline.astimezone(dt.UTC),
        players=tuple(r["players"] or ()),
        opponents=tuple(r["opponents"] or ()),
        due=tuple(PartDue(d["time_control"], d["games"]) for d in r["due"] or ()),
    )


ITEM_SCHEMA: dict[str, Any] = {
    "run_id": pl.Int32,
    "position": pl.Int32,
    "key": pl.String,
    "kind": pl.String,
    "rule_id": pl.String,
    "severity": pl.String,
    "status": pl.String,
    "subject": pl.String,
    "sentence": pl.String,
    "action": pl.String,
    "evidence_url": pl.String,
    "stage": pl.String,
    "round": pl.Int32,
    "deadline": pl.Datetime("us", "UTC"),
    "players": pl.List(pl.String),
    "opponents": pl.List(pl.String),
    "due": pl.List(pl.Struct({"time_control": pl.String, "games": pl.Int32})),
}


def item_rows(run_id: int, report: AttentionReport) -> pl.DataFrame:
    """The list as attention_items rows."""
    return pl.DataFrame(
        [
            {
                "run_id": run_id,
                "position": n,
                "key": i.key,
                "kind": i.kind,
                "rule_id": i.rule_id,
                "severity": i.severity,
                "status": report.status(i),
                "subject": i.subject,
                "sentence": i.sentence,
                "action": i.action,
                "evidence_url": i.evidence_url,
                "stage": i.stage,
                "round": i.round,
                "deadline": i.deadline,
                "players": list(i.players),
                "opponents": list(i.opponents),
                "due": [{"time_control": d.time_control, "games": d.games} for d in i.due],
            }
            for n, i in enumerate(report.items, start=1)
        ],
        schema=ITEM_SCHEMA,
    )


# --------------------------------------------------------------------------- the stage and the command


def attention_stage(
    config: Config, now: dt.datetime, run_id: int, findings: Sequence[Any] | None = None
) -> AttentionReport:
    """The nightly step (run `run_id`, `config` = ``run.work``): compute the list from the working
    database about to be published, store it with the run (attention_items) and write
    ``exports/attention.md``. `findings`: the run's audit findings (not evaluated again)."""
    con = gateway.connect(config.paths.database)
    try:
        sources = read_sources(config, con, now, run_id, findings)
        report = _report(config, sources, now, run_id, fresh=True)
        with gateway.transaction(con):
            gateway.replace_where(con, "attention_items", {"run_id": run_id}, item_rows(run_id, report))
    finally:
        con.close()
    report.written.append(write_markdown(config, report))
    log.info("attention: %s", report.summary_line())
    return report


def attention_now(config: Config, now: dt.datetime) -> AttentionReport:
    """`antichess-td attention`: the list at `now` from the published snapshot (read-only)."""
    if not config.paths.database.exists():
        raise InputError(
            config.path,
            "key 'paths.database'",
            f"{config.paths.database} does not exist yet: run `antichess-td nightly` first",
        )
    con = gateway.connect(config.paths.database, read_only=True)
    try:
        sources = read_sources(config, con, now, None)
    finally:
        con.close()
    return _report(config, sources, now, None, fresh=False)


def _report(config: Config, sources: Sources, now: dt.datetime, run_id: int | None, fresh: bool) -> AttentionReport:
    items = items_of(config, sources, now, fresh)
    return AttentionReport(tuple(items), compare(sources.previous, items), now, run_id, sources.previous_run_id)


def write_markdown(config: Config, report: AttentionReport) -> Path:
    """exports/attention.md: the list as Markdown (deterministic: the same list, the same bytes)."""
    path = config.paths.exports / "attention.md"
    exports.write_text(
        path, attention_text.markdown(config.name, report.items, report.status, report.as_of, report.run_id)
    )
    return path
