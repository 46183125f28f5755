"""The attention list as text: the terminal's lines (``antichess-td attention``), the JSON array
for scripts (``--json``) and ``exports/attention.md``. Pure: items in, text out; the same items
give the same bytes."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Callable, Sequence
from typing import Any

from pipeline.domain.attention_items import Item, Status

HEADINGS = {
    "stale": "Stale data",
    "ruling_due": "Rulings due",
    "games_due": "Games still due, window closing",
    "round_ready": "Rounds ready to pair",
    "near_miss": "Games a ruling could count",
    "account": "Accounts closed or marked",
    "finding_new": "Error findings",
    "finding_resolved": "Error findings resolved",
}

StatusOf = Callable[[Item], Status]


def _utc(t: dt.datetime) -> str:
    return f"{t.astimezone(dt.UTC):%Y-%m-%d %H:%M} UTC"


def _groups(items: Sequence[Item]) -> list[tuple[str, list[Item]]]:
    out: dict[str, list[Item]] = {}
    for i in items:
        out.setdefault(i.kind, []).append(i)
    return list(out.items())


def _head(items: Sequence[Item], status: StatusOf) -> str:
    new = sum(status(i) == "new" for i in items)
    return f"{len(items)} item{'' if len(items) == 1 else 's'} ({new} new)"


def terminal_lines(
    items: Sequence[Item], status: StatusOf, as_of: dt.datetime, previous_run_id: int | None
) -> list[str]:
    """What `antichess-td attention` prints: a head line, then per kind its items, each with its
    status, rule, who and sentence, then the evidence and the action's lines indented."""
    since = f"not on run {previous_run_id}'s list" if previous_run_id is not None else "no earlier list"
    lines = [f"needs you as of {_utc(as_of)}: {_head(items, status)}; new: {since}"]
    for kind, group in _groups(items):
        lines.append("")
        lines.append(f"{HEADINGS[kind]} ({kind}): {len(group)}")
        for i in group:
            rule = f"{i.rule_id} " if i.rule_id else ""
            lines.append(f"  [{status(i)}] {rule}{i.subject}: {i.sentence}")
            if i.evidence_url:
                lines.append(f"      evidence: {i.evidence_url}")
            for n, line in enumerate(i.action.split("\n")):
                lines.append(f"      {'action: ' if n == 0 else '        '}{line}")
    return lines


def json_items(items: Sequence[Item], status: StatusOf) -> str:
    """A JSON array: every Item field (deadline as UTC ISO-8601, due as objects) and its status."""

    def value(v: Any) -> Any:
        if isinstance(v, dt.datetime):
            return v.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
        return v

    rows = [{k: value(v) for k, v in dataclasses.asdict(i).items()} | {"status": status(i)} for i in items]
    return json.dumps(rows, indent=2, ensure_ascii=False)


_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>#|"})


def _md(text: str) -> str:
    """Plain text in Markdown: its markup characters escaped (a name like Luxmate_56 stays as typed)."""
    return text.translate(_MD_SPECIAL)


def markdown(name: str, items: Sequence[Item], status: StatusOf, as_of: dt.datetime, run_id: int | None) -> str:
    """exports/attention.md."""
    run = f" (run {run_id})" if run_id is not None else ""
    lines = [f"# What needs you: {_md(name)}", "", f"As of {_utc(as_of)}{run}: {_head(items, status)}."]
    if not items:
        lines += ["", "Nothing needs you."]
    for kind, group in _groups(items):
        lines += ["", f"## {HEADINGS[kind]} ({len(group)})", ""]
        for i in group:
            rule = f" · {i.rule_id}" if i.rule_id else ""
            lines.append(f"- **{status(i)}**{rule} · {_md(i.subject)}: {_md(i.sentence)}")
            if i.evidence_url:
                lines.append(f"  evidence: <{i.evidence_url}>")
            first, *rest = i.action.split("\n")
            lines.append(f"  action: {_md(first)}")
            if rest:  # command or CSV lines, to copy as they are
                lines += ["", "  ```", *(f"  {line}" for line in rest), "  ```"]
            lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
