"""Notifications at the end of a run: the attention list's new items to each webhook, round
announcements to the Lichess team, reminders to the players who opted in (docs/td-guide.md, Your
week). :func:`notify_run` is the one entry point (the nightly flow calls it after publishing).

What each message says, and which are due, is decided by ``pipeline.domain.messages``; webhooks go
out through ``pipeline.notify.webhook``, Lichess messages through ``pipeline.lichess.client`` (one
request at a time, as ingest: a 429 is waited out ``lichess.rate_limit_wait_s`` and retried once;
a message is never re-sent within a run after a 5xx or a lost answer).

Once only: every message is recorded in the working database's ``sent_messages`` (channel, subject,
body, status, answer) — 'sending' just before it goes out, its answer just after — and a message
already 'sent', 'sending' or 'unknown' for its channel and subject is never sent again, across
reruns, crashes and resumed runs (a run that stopped between the two writes leaves 'sending',
which the next run turns into 'unknown' with a warning: it may have arrived). Failed, refused and
rate-limited messages are tried again by the next run. A failed delivery never fails the run: one
warning line each. Secrets (the token, the webhooks' URLs) are read from the environment here, used
as the address or header of a request, and never logged, recorded or printed: a channel is named
by the variable (``webhook:TD_DISCORD_WEBHOOK``).

``dry_run``: the messages that would go out are returned as text (``NotifyReport.printed``), nothing
is sent and nothing is written.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.domain import messages
from pipeline.domain.attention_items import Item
from pipeline.lichess import client, outbox
from pipeline.model import Config
from pipeline.notify import webhook
from pipeline.store import gateway

log = logging.getLogger(__name__)

RESEND = frozenset({"failed", "refused", "limited"})  # tried again by the next run
MAX_ANNOUNCEMENTS_PER_RUN = 1  # pm-all: Lichess allows a few a week per team


@dataclass(frozen=True)
class SentMessage:
    """A row of ``sent_messages`` (sql/schema/100_sent_messages.sql)."""

    channel: str
    subject: str
    kind: str
    body: str
    status: str
    answer: str | None
    attempts: int
    first_tried_at: dt.datetime
    updated_at: dt.datetime


@dataclass
class NotifyReport:
    """What :func:`notify_run` did: messages sent and not sent, by channel kind; the warnings it
    logged (one line each); with ``dry_run`` the messages as they would go out."""

    sent: dict[str, int] = field(default_factory=dict)  # webhook | announcement | reminder
    not_sent: int = 0
    warnings: list[str] = field(default_factory=list)
    printed: list[str] = field(default_factory=list)

    def summary_line(self) -> str:
        if self.printed:
            return f"notify: dry run: {len(self.printed)} messages shown, none sent"
        total = sum(self.sent.values())
        by = ", ".join(f"{k} {v}" for k, v in sorted(self.sent.items()) if v)
        line = f"notify: {total} messages sent" + (f" ({by})" if by else "")
        if self.not_sent:
            line += f", {self.not_sent} not sent (warnings above; tried again next run)"
        return line

    def warn(self, line: str) -> None:
        self.warnings.append(line)
        log.warning("%s", line)


class _Ledger:
    """``sent_messages`` as this run reads and writes it (nothing is written in a dry run)."""

    def __init__(self, work_db: Path, now: dt.datetime, dry_run: bool) -> None:
        self.path = work_db
        self.now = now
        self.dry_run = dry_run
        self.rows: dict[tuple[str, str], dict[str, Any]] = {}
        if dry_run and not work_db.exists():
            return
        con = gateway.connect(work_db, read_only=dry_run)
        try:
            if dry_run and not con.execute(gateway.sql("queries/sent_messages_exists")).fetchall()[0][0]:
                return
            for row in gateway.query(con, "queries/sent_messages_all").iter_rows(named=True):
                self.rows[(row["channel"], row["subject"])] = row
        finally:
            con.close()

    def status(self, channel: str, subject: str) -> str | None:
        row = self.rows.get((channel, subject))
        return None if row is None else str(row["status"])

    def due(self, channel: str, subject: str) -> bool:
        status = self.status(channel, subject)
        return status is None or status in RESEND

    def write(self, entries: Sequence[tuple[str, str, str, str]], status: str, answer: str | None) -> None:
        """Record ``(channel, subject, kind, body)`` entries with ``status`` (one transaction)."""
        if self.dry_run or not entries:
            return
        out = []
        for channel, subject, kind, body in entries:
            old = self.rows.get((channel, subject))
            first = old["first_tried_at"] if old else self.now
            tries = (old["attempts"] if old else 0) + (1 if status == "sending" else 0)
            row = SentMessage(channel, subject, kind, body, status, answer, max(tries, 1), first, self.now)
            out.append(row)
            self.rows[(channel, subject)] = {"status": status, "attempts": row.attempts, "first_tried_at": first}
        con = gateway.connect(self.path)
        try:
            with gateway.transaction(con):
                gateway.upsert(con, "sent_messages", out)
        finally:
            con.close()

    def interrupted(self) -> list[tuple[str, str]]:
        """Messages a run stopped while sending (left 'sending'): they may have arrived."""
        return [k for k, r in self.rows.items() if r["status"] == "sending"]

    def mark_unknown(self, keys: Sequence[tuple[str, str]]) -> None:
        if self.dry_run or not keys:
            return
        con = gateway.connect(self.path)
        try:
            with gateway.transaction(con):
                for channel, subject in keys:
                    con.execute(
                        gateway.sql("queries/sent_messages_mark_unknown"),
                        ["a run stopped while sending", self.now, channel, subject],
                    )
                    self.rows[(channel, subject)]["status"] = "unknown"
        finally:
            con.close()


def notify_run(
    config: Config,
    items: Sequence[Item],
    work_db: Path,
    *,
    dry_run: bool,
    now: dt.datetime,
    sleep: Callable[[float], None] = time.sleep,
) -> NotifyReport:
    """Send (or, with ``dry_run``, show) what is due at ``now``: each webhook the ``items`` it has not
    had yet; the Lichess team the round announcements due; each opted-in player a reminder for a
    ``games_due`` item closing within ``notify.lichess.reminder_hours``. Records each message in
    ``work_db``'s ``sent_messages`` (not in a dry run). Never raises for a failed delivery."""
    report = NotifyReport()
    ledger = _Ledger(work_db, now, dry_run)
    stopped = ledger.interrupted()
    for channel, subject in stopped:
        report.warn(
            f"notify: a run stopped while sending {subject} to {channel}: it may have arrived, "
            "so it is not sent again (check it there)"
        )
    ledger.mark_unknown(stopped)
    _webhooks(config, items, ledger, report)
    _lichess(config, items, ledger, report, work_db, now, sleep)
    return report


def dry_run_messages(config: Config, items: Sequence[Item], now: dt.datetime | None = None) -> list[str]:
    """The messages a run would send now, as text, for ``--dry-run`` (nothing sent, nothing written)."""
    assert config.paths.work_database is not None
    at = now or dt.datetime.now(dt.UTC)
    return notify_run(config, items, config.paths.work_database, dry_run=True, now=at).printed


# --------------------------------------------------------------------------- webhooks


def _webhooks(config: Config, items: Sequence[Item], ledger: _Ledger, report: NotifyReport) -> None:
    for hook in config.notify.webhooks:
        channel = f"webhook:{hook.url_env}"
        pending = [i for i in items if ledger.due(channel, f"item:{i.key}")]
        chunks = messages.webhook_chunks(config.name, hook.format, pending)
        if not chunks:
            continue
        if ledger.dry_run:
            for k, chunk in enumerate(chunks, 1):
                body = _body(hook.format, config.tournament_id, chunk)
                report.printed.append(f"--- webhook ${hook.url_env} ({hook.format}), message {k}/{len(chunks)}\n{body}")
            continue
        url = os.environ.get(hook.url_env)
        if not url:
            report.not_sent += len(chunks)
            report.warn(
                f"notify: ${hook.url_env} is not set: the webhook's {len(pending)} new items wait for a run that has it"
            )
            continue
        for k, chunk in enumerate(chunks):
            body = _body(hook.format, config.tournament_id, chunk)
            entries = [(channel, f"item:{i.key}", "item", body) for i in chunk.items]
            ledger.write(entries, "sending", None)
            delivery = webhook.post_json(
                url, messages.webhook_payload(hook.format, config.tournament_id, chunk), config.notify.timeout_s
            )
            ledger.write(entries, "sent" if delivery.ok else "failed", delivery.answer)
            if delivery.ok:
                report.sent["webhook"] = report.sent.get("webhook", 0) + 1
                continue
            left = sum(len(c.items) for c in chunks[k:])
            report.not_sent += len(chunks) - k
            report.warn(
                f"notify: webhook ${hook.url_env} did not take the message ({delivery.answer}): "
                f"its {left} items go out with the next run"
            )
            break


def _body(fmt: messages.WebhookFormat, tournament_id: str, chunk: messages.Chunk) -> str:
    if fmt == "json":
        return json.dumps(messages.webhook_payload(fmt, tournament_id, chunk), sort_keys=True)
    return chunk.text


# --------------------------------------------------------------------------- Lichess


@dataclass(frozen=True)
class _Outgoing:
    channel: str
    subject: str
    kind: str  # announcement | reminder
    what: str  # in words, for a warning: "the announcement of swiss round 2"
    path_arg: str  # the team id or the username
    text: str


def _lichess(
    config: Config,
    items: Sequence[Item],
    ledger: _Ledger,
    report: NotifyReport,
    work_db: Path,
    now: dt.datetime,
    sleep: Callable[[float], None],
) -> None:
    out = _lichess_outgoing(config, items, ledger, work_db, now)
    if not out:
        return
    token = _lichess_token(config, out, ledger, report)
    if token is not None:
        _lichess_send(config, out, ledger, report, token, sleep)


def _lichess_outgoing(
    config: Config, items: Sequence[Item], ledger: _Ledger, work_db: Path, now: dt.datetime
) -> list[_Outgoing]:
    """The Lichess messages due this run and not sent yet: the team's announcements (at most
    MAX_ANNOUNCEMENTS_PER_RUN), then the players' reminders."""
    li = config.notify.lichess
    out: list[_Outgoing] = []
    if li.team and li.announce:
        channel = f"lichess-team:{li.team}"
        due = [a for a in _announcements(config, work_db, now) if ledger.due(channel, f"announce:{a.key}")]
        for a in due[:MAX_ANNOUNCEMENTS_PER_RUN]:
            out.append(
                _Outgoing(
                    channel, f"announce:{a.key}", "announcement", f"the announcement of {a.subject}", li.team, a.text
                )
            )
    if li.reminders:
        for r in messages.due_reminders(config.name, items, li.reminder_players, li.reminder_hours, now):
            channel = f"lichess-inbox:{r.player.lower()}"
            if ledger.due(channel, f"remind:{r.key}"):
                out.append(
                    _Outgoing(channel, f"remind:{r.key}", "reminder", f"the reminder to {r.player}", r.player, r.text)
                )
    return out


def _lichess_token(config: Config, out: list[_Outgoing], ledger: _Ledger, report: NotifyReport) -> str | None:
    """The token to send `out` with; None when they are not sent this run: a dry run prints them,
    a recorded world (lichess.replay_data) or a missing token keeps them waiting, said in `report`."""
    if ledger.dry_run:
        for o in out:
            where = (
                f"Lichess team {o.path_arg} (pm-all)" if o.kind == "announcement" else f"Lichess inbox of {o.path_arg}"
            )
            report.printed.append(f"--- {where}: {o.subject}\n{o.text}")
        return None
    if config.lichess.replay_data is not None:
        report.not_sent += len(out)
        report.warn(
            f"notify: {len(out)} Lichess messages not sent: lichess.replay_data is set (a recorded world, "
            "not lichess.org); --dry-run shows them"
        )
        return None
    token = os.environ.get(config.lichess.token_env) or None
    if token is None:
        report.not_sent += len(out)
        report.warn(
            f"notify: no Lichess token in ${config.lichess.token_env}: {len(out)} Lichess messages wait "
            "(announcements need the team:lead scope, reminders msg:write; docs/token.md)"
        )
    return token


def _lichess_send(
    config: Config,
    out: list[_Outgoing],
    ledger: _Ledger,
    report: NotifyReport,
    token: str,
    sleep: Callable[[float], None],
) -> None:
    """Send `out` in order, each recorded in the ledger before and after; a kind Lichess refuses
    for a missing scope waits whole for the next run."""
    lc = config.lichess
    policy = client.RetryPolicy(
        rate_limit_wait_s=lc.rate_limit_wait_s, backoff_s=lc.backoff_s, max_retries=1, retry_errors=False
    )
    lichess = client.make_client(lc.base_url, token, lc.timeout_s, policy, sleep=sleep)
    refused_kinds: dict[str, str] = {}  # a kind Lichess refused for a missing scope: the rest of it waits
    for k, o in enumerate(out):
        if o.kind in refused_kinds:
            report.not_sent += 1
            continue
        entry = [(o.channel, o.subject, o.kind, o.text)]
        ledger.write(entry, "sending", None)
        if o.kind == "announcement":
            answer = outbox.post_team_message(lichess, o.path_arg, o.text)
        else:
            answer = outbox.send_inbox_message(lichess, o.path_arg, o.text)
        ledger.write(entry, answer.status, answer.answer)
        if answer.status == "sent":
            report.sent[o.kind] = report.sent.get(o.kind, 0) + 1
            continue
        report.not_sent += 1
        if answer.status == "refused" and answer.http_status == 403:
            scope = "team:lead" if o.kind == "announcement" else "msg:write"
            rest = sum(1 for x in out[k + 1 :] if x.kind == o.kind)
            refused_kinds[o.kind] = answer.answer
            report.warn(
                f"notify: Lichess refused {o.what} ({answer.answer}): the token in ${lc.token_env} needs the "
                f"{scope} scope (docs/token.md); it and {rest} more {o.kind}s wait for the next run"
            )
        elif answer.status == "unknown":
            report.warn(
                f"notify: Lichess's answer to {o.what} was lost ({answer.answer}): it may have arrived, "
                "so it is not sent again"
            )
        else:
            report.warn(f"notify: Lichess did not take {o.what} ({answer.answer}); the next run tries again")


def _announcements(config: Config, work_db: Path, now: dt.datetime) -> list[messages.Announcement]:
    con = gateway.connect(work_db, read_only=True) if work_db.exists() else None
    if con is None:
        return []
    try:
        pairings = [
            messages.RoundPairing(**r) for r in gateway.query(con, "queries/announced_pairings").iter_rows(named=True)
        ]
        standings = [
            messages.Standing(**r) for r in gateway.query(con, "queries/announced_standings").iter_rows(named=True)
        ]
    finally:
        con.close()
    li = config.notify.lichess
    rounds = {s.name: s.rounds for s in config.stages}
    return messages.due_announcements(config.name, li.announce, rounds, pairings, standings, now, li.standings_top)
