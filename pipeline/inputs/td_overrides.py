"""The TD's rulings file (docs/td-guide.md): ``overrides.csv``, one ruling a line (one of
``pipeline.model.ACTIONS``: a forfeit, a 0-0 draw, a game excluded or included, an armageddon, a
disqualification, a substitute or a replacement), read into ``pipeline.model.Override`` rows after
checking that each names a stage, round, subject and value the other input files know.

Every error names the file, the line and what was expected, as in :mod:`pipeline.inputs.td_files`,
whose row reader it shares.

Pure: reads files, nothing else.
"""

from __future__ import annotations

import re
from pathlib import Path

from pipeline.errors import InputError
from pipeline.inputs.td_files import _rows, _stage_round, _username
from pipeline.model import ACTIONS, Config, Member, Override, Pairing, Roster, Stage

GAME_ID = re.compile(r"^[A-Za-z0-9]{8}$")


def read_overrides(path: Path, config: Config, roster: Roster, pairings: tuple[Pairing, ...]) -> tuple[Override, ...]:
    """overrides.csv(stage, round, subject, action, value, reason): every row names what exists."""
    stages = {s.name: s for s in config.stages}
    players = {m.player_id: m for m in roster.members}
    entrants = {e.lower(): e for e in roster.entrants}
    out = []
    for line, row in _rows(path, ("stage", "round", "subject", "action", "value", "reason"), ()):
        where = f"line {line}"
        stage, rnd = _stage_round(path, line, row, stages)
        action = row["action"].lower()
        if action not in ACTIONS:
            raise InputError(path, where, f"action {row['action']!r}: expected one of {', '.join(ACTIONS)}")
        if not row["reason"]:
            raise InputError(
                path, where, f"{action} without a reason: expected the TD's reason (it is shown with the result)"
            )
        subject, value = row["subject"], row["value"]
        paired = [p for p in pairings if p.stage == stage.name and p.round == rnd]
        if action == "armageddon":
            subject, value = _armageddon(path, where, stage, rnd, subject, value, entrants, paired)
        elif action in ("exclude_game", "include_game"):
            if not GAME_ID.match(value):
                raise InputError(path, where, f"value {value!r}: expected a Lichess game id (8 letters and digits)")
        else:
            subject, value = _player_ruling(path, line, stage, rnd, action, row, players, paired)
        out.append(Override(stage.name, rnd, subject, action, value, row["reason"], line, str(path)))
    return tuple(out)


def _armageddon(
    path: Path,
    where: str,
    stage: Stage,
    rnd: int,
    subject: str,
    value: str,
    entrants: dict[str, str],
    paired: list[Pairing],
) -> tuple[str, str]:
    """ARM-1: the subject is an entrant paired in the round, the value its opponent or itself (the winner)."""
    e_subject, e_value = entrants.get(subject.lower()), entrants.get(value.lower())
    match = [p for p in paired if e_subject in (p.a, p.b)]
    if e_subject is None or not match:
        raise InputError(path, where, f"subject {subject!r}: expected an entrant paired in {stage.name} round {rnd}")
    if e_value is None or e_value not in (match[0].a, match[0].b):
        raise InputError(path, where, f"value {value!r}: expected the winner, {match[0].a!r} or {match[0].b!r}")
    return e_subject, e_value


def _player_ruling(
    path: Path,
    line: int,
    stage: Stage,
    rnd: int,
    action: str,
    row: dict[str, str],
    players: dict[str, Member],
    paired: list[Pairing],
) -> tuple[str, str]:
    """A ruling on a registered player (forfeit, zero_draw, disqualify, substitute, replace):
    the subject's player id and the value as stored."""
    where = f"line {line}"
    subject, value = row["subject"], row["value"]
    member = players.get(subject.lower())
    if member is None:
        raise InputError(path, where, f"subject {subject!r}: expected a registered player")
    if action == "forfeit" and value and value not in {str(p.time_control) for p in stage.parts}:
        raise InputError(
            path,
            where,
            f"value {value!r}: expected empty (the whole board) or one of the "
            f"{stage.name} parts {', '.join(str(p.time_control) for p in stage.parts)}",
        )
    if action in ("substitute", "replace"):
        _username(path, line, value, "value")
        value = value.lower()
        sub = players.get(value)
        if action == "substitute" and (sub is None or sub.entrant != member.entrant):
            raise InputError(
                path, where, f"value {row['value']!r}: expected a registered member of team {member.entrant!r}"
            )
    if action == "disqualify" and value not in ("", "cheating"):
        raise InputError(path, where, f"value {value!r}: expected empty or cheating")
    if action in ("zero_draw", "forfeit", "substitute") and not any(member.entrant in (p.a, p.b) for p in paired):
        raise InputError(path, where, f"{member.player_name!r}'s team is not paired in {stage.name} round {rnd}")
    return member.player_id, value
