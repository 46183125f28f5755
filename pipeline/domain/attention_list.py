"""The attention list computed from what one database holds: :class:`Sources` (the rows
pipeline/stages/attention.py reads once) in, :class:`~pipeline.domain.attention_items.Item` values
out (:func:`items_of`), in the order shown (:data:`KIND_ORDER`), each with the sentence and the
action a TD reads. Pure: ``now`` is an argument; no database, no clock.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.domain.attention_items import Item, PartDue
from pipeline.model import Config, Stage

STALE_AFTER = dt.timedelta(hours=36)
KIND_ORDER = (
    "stale",
    "ruling_due",
    "games_due",
    "round_ready",
    "near_miss",
    "account",
    "finding_new",
    "finding_resolved",
)
REASON = "<reason>"


@dataclass(frozen=True)
class Sources:
    """What the list is computed from, as read from one database."""

    unplayed: list[dict[str, Any]]
    due_parts: list[dict[str, Any]]
    near_misses: list[dict[str, Any]]
    accounts: list[dict[str, Any]]
    rounds: list[dict[str, Any]]
    findings: list[dict[str, Any]]  # error findings (audit_findings rows)
    proposal: list[tuple[str, int, str, str]]  # the next knockout/ACWC stage's pairings, when ready
    last_ok_as_of: dt.datetime | None  # the newest successful run's "now"
    previous: list[Item]  # the previous run's list
    previous_run_id: int | None


def slug(text: str) -> str:
    """A key part: lower case, runs of anything but letters and digits as one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _key(kind: str, *parts: Any) -> str:
    """An item's key: its kind, then its subject's ids as slugs (``games_due:swiss:3:forced-captures:…``)."""
    return ":".join([kind, *(slug(str(p)) for p in parts)])


def utc(t: dt.datetime) -> str:
    return f"{t.astimezone(dt.UTC):%Y-%m-%d %H:%M} UTC"


def time_left(delta: dt.timedelta) -> str:
    """'1 day 12 h', '5 h', '40 min'."""
    minutes = max(0, int(delta.total_seconds() // 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        return f"{days} day{'s' if days > 1 else ''}" + (f" {hours} h" if hours else "")
    return f"{hours} h" if hours else f"{mins} min"


def items_of(config: Config, s: Sources, now: dt.datetime, fresh: bool) -> list[Item]:
    """The list, grouped by kind (KIND_ORDER), in stage order within a kind. `fresh`: computed by
    a run that is succeeding now (the nightly): the snapshot cannot be stale."""
    order = {st.name: n for n, st in enumerate(config.stages)}
    current = _current_round(config, s.rounds)
    out: list[Item] = []
    if not fresh:
        out += _stale(config, s.last_ok_as_of, now)
    out += _rulings_due(config, sorted(s.unplayed, key=lambda r: order.get(r["stage"], 99)))
    out += _games_due(config, sorted(s.due_parts, key=lambda r: order.get(r["stage"], 99)), now)
    out += _rounds_ready(config, s.rounds, s.proposal, now)
    out += _near_misses(config, sorted(s.near_misses, key=lambda r: order.get(r["stage"], 99)))
    out += _accounts(config, s.accounts, current)
    findings = _findings(config, s.findings, current)
    out += findings
    out += _resolved(s.previous, {i.key for i in findings})
    return sorted(out, key=lambda i: KIND_ORDER.index(i.kind))  # stable: each kind keeps its order


def _current_round(config: Config, rounds: list[dict[str, Any]]) -> tuple[str, int] | None:
    """The latest round of the latest stage pairings.csv pairs: where a ruling from now on goes."""
    order = {st.name: n for n, st in enumerate(config.stages)}
    paired = [(order.get(r["stage"], -1), r["round"], r["stage"]) for r in rounds]
    if not paired:
        return None
    _, rnd, stage = max(paired)
    return stage, rnd


def _stale(config: Config, last_ok: dt.datetime | None, now: dt.datetime) -> list[Item]:
    if last_ok is not None and now - last_ok <= STALE_AFTER:
        return []
    since = "no run has succeeded yet" if last_ok is None else f"the newest successful run is as of {utc(last_ok)}"
    hours = "" if last_ok is None else f", {int((now - last_ok).total_seconds() // 3600)} hours ago"
    return [
        Item(
            key="stale",
            kind="stale",
            rule_id="",
            severity="error",
            subject=config.name,
            sentence=f"the published data is stale: {since}{hours} (more than 36 hours); standings and findings may be out of date",
            action=f"antichess-td nightly --config {config.path}",
        )
    ]


def _where(config: Config, stage: str, rnd: int, board: int) -> str:
    return f"{stage} round {rnd}" + (f", board {board}" if config.kind == "team" else "")


def _who(config: Config, r: dict[str, Any]) -> str:
    if config.kind == "team":
        return f"{r['player_a']} v {r['player_b']} ({r['team_a']} v {r['team_b']}, board {r['board']})"
    return f"{r['player_a']} v {r['player_b']}"


def _profile(name: str) -> str:
    return f"https://lichess.org/@/{name}"


def _rulings_due(config: Config, rows: list[dict[str, Any]]) -> list[Item]:
    out = []
    for r in rows:
        stage, rnd, pa, pb = r["stage"], r["round"], r["player_a"], r["player_b"]
        closed = f"its window closed {utc(r['window_end'])}" if r["window_end"] is not None else "its window closed"
        out.append(
            Item(
                key=_key("ruling_due", stage, rnd, r["team_a_id"], r["team_b_id"], r["board"]),
                kind="ruling_due",
                rule_id="TEAM-SCORE-4" if config.kind == "team" else "ACWC-CONDUCT-1",
                severity="error",
                subject=_who(config, r),
                sentence=f"{_where(config, stage, rnd, r['board'])}: no game was played and {closed}; "
                "it scores nothing until you rule",
                action=(
                    "keep one of these lines in overrides.csv (forfeit: that player was at fault; zero_draw: no one was, 0-0), "
                    f"fill in the reason, then run antichess-td score --config {config.path}\n"
                    f"{stage},{rnd},{pa},forfeit,,{REASON}\n"
                    f"{stage},{rnd},{pb},forfeit,,{REASON}\n"
                    f"{stage},{rnd},{pa},zero_draw,,{REASON}"
                ),
                evidence_url=_profile(pa),
                stage=stage,
                round=rnd,
                deadline=r["window_end"],
                players=(pa, pb),
                opponents=(pb, pa),
            )
        )
    return out


def _stage_of(config: Config, name: str) -> Stage | None:
    return next((s for s in config.stages if s.name == name), None)


def _games_rule(config: Config, stage: Stage | None) -> str:
    if config.kind == "team":
        return "TEAM-FMT-3"
    return {"round_robin": "ACWC-C-1", "knockout": "ACWC-SF-1"}.get(stage.kind if stage else "", "ACWC-Q-2")


def _parts_text(due: Sequence[PartDue]) -> str:
    return ", ".join(f"{d.games} of {d.time_control}" for d in due)


def _games_due(config: Config, rows: list[dict[str, Any]], now: dt.datetime) -> list[Item]:
    boards: dict[tuple[str, int, str, int], list[dict[str, Any]]] = {}
    for r in rows:
        boards.setdefault((r["stage"], r["round"], r["team_a_id"], r["board"]), []).append(r)
    out = []
    for (stage_name, rnd, _, board), parts in boards.items():
        r = parts[0]
        stage = _stage_of(config, stage_name)
        stops_early = config.kind == "individual" and stage is not None and not stage.play_all
        best = max(r["match_a_points"] or 0.0, r["match_b_points"] or 0.0)
        if stops_early and r["winning_points"] is not None and best >= r["winning_points"]:
            continue  # ACWC-Q-2: the players may stop once one has reached the winning total
        order = {str(p.time_control): n for n, p in enumerate(stage.parts)} if stage else {}
        parts = sorted(parts, key=lambda p: order.get(p["part"], 99))
        due = tuple(PartDue(p["part"], p["games_due"] - p["games_played"]) for p in parts)
        deadline = r["window_end"].astimezone(dt.UTC)
        pa, pb = r["player_a"], r["player_b"]
        games = sum(d.games for d in due)
        out.append(
            Item(
                key=_key("games_due", stage_name, rnd, r["team_a_id"], r["team_b_id"], board),
                kind="games_due",
                rule_id=_games_rule(config, stage),
                severity="warning",
                subject=_who(config, r),
                sentence=f"{_where(config, stage_name, rnd, board)}: {games} game{'s' if games > 1 else ''} still to play "
                f"({_parts_text(due)}) and the window closes {utc(deadline)}, in {time_left(deadline - now)}",
                action=f"remind {pa} and {pb}: games played after {utc(deadline)} do not count "
                f"(for more time, give their pairing a later window_end in pairings.csv)",
                evidence_url=_profile(pa),
                stage=stage_name,
                round=rnd,
                deadline=deadline,
                players=(pa, pb),
                opponents=(pb, pa),
                due=due,
            )
        )
    return out


def _rounds_ready(
    config: Config, rounds: list[dict[str, Any]], proposal: list[tuple[str, int, str, str]], now: dt.datetime
) -> list[Item]:
    out = []
    rule = "TEAM-FMT-3" if config.kind == "team" else "ACWC-Q-1"
    exp, pairings_csv = config.paths.exports, config.paths.pairings
    for stage in (s for s in config.stages if s.kind == "swiss"):
        of_stage = [r for r in rounds if r["stage"] == stage.name]
        if not of_stage:
            continue
        last = max(of_stage, key=lambda r: r["round"])
        n = last["round"] + 1
        if last["round"] >= stage.rounds or last["matches"] == 0:
            continue
        end = last["window_end"]
        if last["decided"] == last["matches"]:
            why = f"every match of {stage.name} round {last['round']} is decided"
        elif end is not None and now >= end:
            why = (
                f"the {stage.name} round {last['round']} window closed {utc(end)} "
                f"({last['decided']} of {last['matches']} matches decided)"
            )
        else:
            continue
        out.append(
            Item(
                key=_key("round_ready", stage.name, n),
                kind="round_ready",
                rule_id=rule,
                severity="warning",
                subject=f"{stage.name} round {n}",
                sentence=f"{why}; round {n} is not in pairings.csv yet",
                action=f"antichess-td pair --config {config.path} --stage {stage.name} --round {n}\n"
                f"tail -n +2 {exp / f'pairings_{stage.name}_{n}.csv'} >> {pairings_csv}",
                stage=stage.name,
                round=n,
            )
        )
    if proposal:
        stage_name, n = proposal[0][0], proposal[0][1]
        pairs = [f"{a} v {b}" for s, r, a, b in proposal if (s, r) == (stage_name, n) and b]
        out.append(
            Item(
                key=_key("round_ready", stage_name, n),
                kind="round_ready",
                rule_id=rule,
                severity="warning",
                subject=f"{stage_name} round {n}",
                sentence=f"the {stage_name} round {n} pairings are proposed from the results and not in pairings.csv yet: "
                + "; ".join(pairs),
                action=f"review {exp / 'next_pairings.csv'}, then: tail -n +2 {exp / 'next_pairings.csv'} >> {pairings_csv}",
                stage=stage_name,
                round=n,
            )
        )
    return out


def _near_misses(config: Config, rows: list[dict[str, Any]]) -> list[Item]:
    boards: dict[tuple[str, int, str, int], list[dict[str, Any]]] = {}
    for r in rows:
        boards.setdefault((r["stage"], r["round"], r["team_a_id"], r["board"]), []).append(r)
    out = []
    for (stage_name, rnd, _, board), games in boards.items():
        r = games[0]
        taken: dict[str, int] = defaultdict(int)
        chosen = []
        for g in games:  # in creation order: the first games of a part are the ones it would count
            if taken[g["part"]] < g["missing"]:
                taken[g["part"]] += 1
                chosen.append(g)
        n = len(chosen)
        window = f"{utc(r['window_start'])} to {utc(r['window_end'])}"
        lines = "\n".join(f"{stage_name},{rnd},,include_game,{g['game_id']},{REASON}" for g in chosen)
        out.append(
            Item(
                key=_key("near_miss", stage_name, rnd, r["team_a_id"], r["team_b_id"], board),
                kind="near_miss",
                rule_id="TEAM-FMT-3",
                severity="warning",
                subject=_who(config, r),
                sentence=f"{_where(config, stage_name, rnd, board)}: {n} game{'s' if n > 1 else ''} "
                f"({', '.join(f'{k} of {p}' for p, k in taken.items())}) at the match's clocks "
                f"{'were' if n > 1 else 'was'} played outside the window ({window}) and {'do' if n > 1 else 'does'} not count, "
                "while the board still misses games of those parts",
                action="to count them, add these lines to overrides.csv with the reason, "
                f"then run antichess-td score --config {config.path}\n{lines}",
                evidence_url=f"https://lichess.org/{chosen[0]['game_id']}",
                stage=stage_name,
                round=rnd,
                players=(r["player_a"], r["player_b"]),
                opponents=(r["player_b"], r["player_a"]),
            )
        )
    return out


def _ruling_at(current: tuple[str, int] | None) -> str:
    return f"{current[0]},{current[1]}" if current else "<stage>,<round>"


def _accounts(config: Config, rows: list[dict[str, Any]], current: tuple[str, int] | None) -> list[Item]:
    out = []
    at = _ruling_at(current)
    team = config.kind == "team"
    for r in rows:
        name = r["username"]
        who = f"{name} ({r['team']})" if team and r["team"] else name
        if team:
            action = (
                f"if {name} cannot or may not play on, keep one of these lines in overrides.csv "
                f"(from the round it applies), fill in the reason, then run antichess-td score --config {config.path}\n"
                f"{at},{name},replace,<replacement>,{REASON}\n{at},{name},disqualify,cheating,{REASON}"
            )
        else:
            action = (
                f"if {name} may not play on, add this line to overrides.csv (from the round it applies) "
                f"with the reason, then run antichess-td score --config {config.path}\n{at},{name},disqualify,cheating,{REASON}"
            )
        flags = []
        if r["is_closed"]:
            flags.append(
                (
                    "closed",
                    "error",
                    "the Lichess account is closed (disabled): it cannot play; Lichess does not say whether it was banned",
                )
            )
        if r["tos_violation"]:
            flags.append(
                (
                    "marked",
                    "warning",
                    "the Lichess profile carries a tosViolation mark (engine or boost); Lichess does not publish when it was given",
                )
            )
        for flag, severity, sentence in flags:
            out.append(
                Item(
                    key=_key("account", r["user_id"], flag),
                    kind="account",
                    rule_id="TEAM-ELIG-5" if team else "ACWC-ELIG-3",
                    severity=severity,  # type: ignore[arg-type]
                    subject=who,
                    sentence=sentence,
                    action=action,
                    evidence_url=_profile(name),
                    players=(name,),
                )
            )
    return out


def _finding_action(config: Config, f: dict[str, Any], current: tuple[str, int] | None) -> str:
    rule, subject = f["rule_id"], f["subject"]
    audit = f"antichess-td audit --config {config.path}"
    at = _ruling_at(current)
    if rule.startswith(("TEAM-ELIG", "TEAM-CAP", "TEAM-COMP-6")):
        return (
            f"check the evidence; if it stands, replace the player in overrides.csv (fill in the replacement and the reason), "
            f"then run {audit}\n{at},{subject},replace,<replacement>,{REASON}"
        )
    if rule.startswith("ACWC-ELIG"):
        return (
            f"check the evidence; if it stands, add this line to overrides.csv with the reason, then run {audit}\n"
            f"{at},{subject},disqualify,,{REASON}"
        )
    if rule.startswith(("TEAM-CONDUCT", "ACWC-CONDUCT")):
        return (
            f"judge the evidence; a forfeit is this line in overrides.csv (the round it happened in, the reason), "
            f"then run antichess-td score --config {config.path}\n<stage>,<round>,{subject},forfeit,,{REASON}"
        )
    if rule.startswith("TEAM-COMP"):
        return (
            f"check the evidence; correct teams.csv (players, boards, titles, captain) with the team, then run {audit}"
        )
    return f"check the evidence; correct the TD files it names, then run {audit}"


def _findings(config: Config, rows: list[dict[str, Any]], current: tuple[str, int] | None) -> list[Item]:
    out = []
    seen = set()
    for f in rows:
        team = f.get("team") or ""
        key = _key("finding", f["audit"], f["rule_id"], f["subject"], team)
        if key in seen:  # one item per subject and rule (an audit may give several rows)
            continue
        seen.add(key)
        out.append(
            Item(
                key=key,
                kind="finding_new",
                rule_id=f["rule_id"],
                severity="error",
                subject=f["subject"] if not team or team == f["subject"] else f"{f['subject']} ({team})",
                sentence=f["detail"],
                action=_finding_action(config, f, current),
                evidence_url=f.get("evidence_url"),
            )
        )
    return out


def _resolved(previous: list[Item], found: set[str]) -> list[Item]:
    """The previous list's error findings that are gone: each listed once, in the run it goes."""
    return [
        Item(
            key="finding_resolved:" + i.key.split(":", 1)[1],
            kind="finding_resolved",
            rule_id=i.rule_id,
            severity="info",
            subject=i.subject,
            sentence=f"no longer found: {i.sentence}",
            action="nothing to do: the audit no longer finds it",
            evidence_url=i.evidence_url,
        )
        for i in previous
        if i.kind == "finding_new" and i.key not in found
    ]
