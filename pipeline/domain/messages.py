"""The notifications' words and limits, as plain values: what a webhook, a Lichess team
announcement and a player's reminder say, how a long webhook message is split to fit its
service, and which announcements and reminders are due. Sending them, and remembering what was
sent, is ``pipeline.stages.notify``'s work; this module only decides and writes text.

Pure: no clock (``now`` is an argument), no database, no network, no environment.

Limits (docs/td-guide.md, Your week): a Discord message's ``content`` holds at most 2,000
characters; Slack accepts 40,000 in ``text`` but shows long messages cut, so messages are split
at 3,500; a ``json`` webhook gets every item in one message (its reader is a script).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pipeline.domain.attention_items import Item, PartDue

WebhookFormat = Literal["discord", "slack", "json"]
LIMITS: dict[str, int] = {"discord": 2000, "slack": 3500}
ELLIPSIS = "…"


# --------------------------------------------------------------------------- webhooks


def item_line(item: Item) -> str:
    """One attention item as one line of a webhook message: a resolved finding says so first."""
    head = "resolved: " if item.kind == "finding_resolved" else ""
    line = f"- {head}{item.rule_id} {item.subject}: {item.sentence}"
    if item.action:
        line += f" -> {item.action}"
    if item.evidence_url:
        line += f" <{item.evidence_url}>"
    return line


def webhook_title(event: str, items: Sequence[Item]) -> str:
    """The first line of a webhook message: the event and how many items are new or resolved."""
    resolved = sum(1 for i in items if i.kind == "finding_resolved")
    new = len(items) - resolved
    parts = [f"{new} new"] + ([f"{resolved} resolved"] if resolved else [])
    return f"{event}: needs you: {', '.join(parts)}"


@dataclass(frozen=True)
class Chunk:
    """One message of a webhook's run: its text and the items it carries (recorded as delivered
    only once the service accepted this message)."""

    text: str
    items: tuple[Item, ...]


def split_lines(title: str, lines: Sequence[str], limit: int) -> list[tuple[str, list[int]]]:
    """Pack ``lines`` under ``title`` into messages of at most ``limit`` characters, in order.
    Each message is the title (with `` (i/n)`` when there are several), a newline, then its lines
    joined by newlines. A line too long for a message alone is cut to fit, ending in ``…``.
    Returns each message's text and the indexes of the lines it holds."""
    reserve = len(" (99/99)")  # the part number, reserved in every message so the packing holds
    room = limit - len(title) - reserve - 1  # the newline after the title
    if room < 2:
        raise ValueError(f"title of {len(title)} characters leaves no room in a message of {limit}")
    packs: list[list[int]] = []
    texts: list[list[str]] = []
    used = 0
    for i, line in enumerate(lines):
        if len(line) > room:
            line = line[: room - 1] + ELLIPSIS
        need = len(line) + (1 if texts and texts[-1] else 0)
        if not packs or used + need > room:
            packs.append([])
            texts.append([])
            need = len(line)
            used = 0
        packs[-1].append(i)
        texts[-1].append(line)
        used += need
    n = len(packs)
    out = []
    for k, (pack, body) in enumerate(zip(packs, texts, strict=True)):
        head = title if n == 1 else f"{title} ({k + 1}/{n})"
        out.append((head + "\n" + "\n".join(body), pack))
    return out


def webhook_chunks(event: str, fmt: WebhookFormat, items: Sequence[Item]) -> list[Chunk]:
    """The messages one webhook gets for ``items`` (none when there is nothing new)."""
    if not items:
        return []
    if fmt == "json":
        return [Chunk("", tuple(items))]
    title = webhook_title(event, items)
    packed = split_lines(title, [item_line(i) for i in items], LIMITS[fmt])
    return [Chunk(text, tuple(items[i] for i in idx)) for text, idx in packed]


def webhook_payload(fmt: WebhookFormat, tournament_id: str, chunk: Chunk) -> dict[str, Any]:
    """The JSON body posted for ``chunk``: Discord ``{"content"}`` (mentions switched off, so a
    player named ``@everyone`` pings no one), Slack ``{"text"}``, json ``{"items": [...]}``."""
    if fmt == "discord":
        return {"content": chunk.text, "allowed_mentions": {"parse": []}}
    if fmt == "slack":
        return {"text": chunk.text}
    return {"tournament": tournament_id, "items": [item_json(i) for i in chunk.items]}


def item_json(item: Item) -> dict[str, Any]:
    status = "resolved" if item.kind == "finding_resolved" else "new"
    return {
        "key": item.key,
        "status": status,
        "kind": item.kind,
        "rule_id": item.rule_id,
        "severity": item.severity,
        "subject": item.subject,
        "sentence": item.sentence,
        "action": item.action,
        "evidence_url": item.evidence_url,
        "stage": item.stage,
        "round": item.round,
        "deadline": utc(item.deadline) if item.deadline else None,
    }


def utc(t: dt.datetime) -> str:
    """``2026-03-10T00:00:00Z``: the UTC ISO-8601 form every output uses."""
    return t.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def when(t: dt.datetime) -> str:
    """``Tue 10 Mar 00:00 UTC``: a deadline as a player reads it."""
    return t.astimezone(dt.UTC).strftime("%a %d %b %H:%M UTC")


# --------------------------------------------------------------------------- Lichess announcements


@dataclass(frozen=True)
class RoundPairing:
    stage: str
    round: int
    a: str
    b: str  # empty for a bye
    window_start: dt.datetime
    window_end: dt.datetime


@dataclass(frozen=True)
class Standing:
    stage: str
    after_round: int
    rank: int
    entrant: str
    match_points: float
    points_scored: float


@dataclass(frozen=True)
class Announcement:
    """One ``pm-all`` to the team: ``key`` (``<stage>:<round>``, or ``<stage>:final``) is what makes
    it once-only; ``subject`` says which round in words."""

    key: str
    subject: str
    text: str


def due_announcements(
    event: str,
    announce: Sequence[str],
    stage_rounds: dict[str, int],
    pairings: Sequence[RoundPairing],
    standings: Sequence[Standing],
    now: dt.datetime,
    top: int,
) -> list[Announcement]:
    """The announcements due at ``now`` (whether one was sent already is the caller's question):

    - with ``"pairings"``: round R of a stage once its pairings are known and its window has not
      closed, with its pairings and window (and, with ``"standings"`` too, the standings after
      R - 1); with both, the standings after the stage's last round go out once its window closed
      (``<stage>:final``);
    - with ``"standings"`` only: round R once its window closed and the standings after it exist.

    So a round is announced at most once, however many runs see it."""
    by_round: dict[tuple[str, int], list[RoundPairing]] = {}
    for p in pairings:
        by_round.setdefault((p.stage, p.round), []).append(p)
    table: dict[tuple[str, int], list[Standing]] = {}
    for s in standings:
        table.setdefault((s.stage, s.after_round), []).append(s)
    out = []
    for (stage, rnd), rows in sorted(by_round.items()):
        end = max(r.window_end for r in rows)
        if "pairings" in announce:
            if now < end:
                text = pairings_text(event, stage, rnd, rows)
                before = table.get((stage, rnd - 1))
                if "standings" in announce and before:
                    text += "\n\n" + standings_text(stage, rnd - 1, before, top)
                out.append(Announcement(f"{stage}:{rnd}", f"{stage} round {rnd}", text))
            elif "standings" in announce and rnd == stage_rounds.get(stage) and table.get((stage, rnd)):
                text = f"{event}: final standings of {stage}\n\n" + standings_text(stage, rnd, table[(stage, rnd)], top)
                out.append(Announcement(f"{stage}:final", f"{stage} final standings", text))
        elif now >= end and table.get((stage, rnd)):
            text = f"{event}: {stage} round {rnd} is over\n\n" + standings_text(stage, rnd, table[(stage, rnd)], top)
            out.append(Announcement(f"{stage}:{rnd}", f"{stage} round {rnd}", text))
    return out


def pairings_text(event: str, stage: str, rnd: int, rows: Sequence[RoundPairing]) -> str:
    starts = {r.window_start for r in rows}
    ends = {r.window_end for r in rows}
    lines = [f"{event}: {stage} round {rnd}"]
    if len(starts) == 1 and len(ends) == 1:
        lines.append(f"Play from {when(min(starts))} until {when(max(ends))}.")
    lines.append("")
    for r in sorted(rows, key=lambda r: (r.b == "", r.a.lower())):
        if not r.b:
            lines.append(f"{r.a}: bye")
        elif len(starts) == 1 and len(ends) == 1:
            lines.append(f"{r.a} vs {r.b}")
        else:
            lines.append(f"{r.a} vs {r.b} ({when(r.window_start)} - {when(r.window_end)})")
    return "\n".join(lines)


def standings_text(stage: str, after_round: int, rows: Sequence[Standing], top: int) -> str:
    ranked = sorted(rows, key=lambda s: (s.rank, s.entrant.lower()))
    lines = [f"Standings of {stage} after round {after_round}:"]
    lines += [f"{s.rank}. {s.entrant} {_num(s.match_points)} MP, {_num(s.points_scored)} points" for s in ranked[:top]]
    if len(ranked) > top:
        lines.append(f"... and {len(ranked) - top} more")
    return "\n".join(lines)


def _num(x: float) -> str:
    return f"{x:g}"


# --------------------------------------------------------------------------- reminders


@dataclass(frozen=True)
class Reminder:
    """One inbox message to ``player`` (a Lichess username): ``key`` (``<stage>:<round>:<user id>``)
    makes it once per player and round."""

    key: str
    player: str
    text: str


def parts_due(due: Iterable[PartDue]) -> str:
    """``2 games of 0+2 and 1 game of 2+5``."""
    words = [f"{p.games} game{'s' if p.games != 1 else ''} of {p.time_control}" for p in due if p.games > 0]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def due_reminders(
    event: str,
    items: Sequence[Item],
    players: Sequence[str] | Literal["all"],
    hours: float,
    now: dt.datetime,
) -> list[Reminder]:
    """A reminder to each opted-in player of a ``games_due`` item whose window closes within
    ``hours`` of ``now`` (and has not closed), naming the opponent, the parts still to play and the
    deadline; one per player and round even when several items name them."""
    opted = None if players == "all" else {p.lower() for p in players}
    out: dict[str, Reminder] = {}
    for item in items:
        if item.kind != "games_due" or item.deadline is None or item.stage is None or item.round is None:
            continue
        left = item.deadline - now
        if not dt.timedelta(0) < left <= dt.timedelta(hours=hours):
            continue
        for k, player in enumerate(item.players):
            if opted is not None and player.lower() not in opted:
                continue
            key = f"{item.stage}:{item.round}:{player.lower()}"
            if key in out:
                continue
            opponent = item.opponents[k] if k < len(item.opponents) else "your opponent"
            text = (
                f"{event}, {item.stage} round {item.round}: your match against {opponent} still needs "
                f"{parts_due(item.due)}. The window closes {when(item.deadline)} "
                f"({_in(left)}). Unplayed games go to the tournament directors for a ruling."
            )
            out[key] = Reminder(key, player, text)
    return list(out.values())


def _in(left: dt.timedelta) -> str:
    hours = math.floor(left.total_seconds() / 3600)
    return "in less than an hour" if hours < 1 else f"in {hours} hour{'s' if hours != 1 else ''}"
