"""The audits' parameters from the config: the one row of ``audit_params``
(sql/schema/070_audit_params.sql documents every column), the list tables the audit files join
(``audit_strongest_players``, ``audit_allowed_swaps``, ``audit_directors``, ``audit_stages``) and
the notes on what a config leaves unchecked.

Pure: pipeline/stages/audit.py writes these rows; the score stage writes the one row in a
rolled-back transaction to read the seeding view.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pipeline.model import Config

MIN_TEAMS_FOR_4_BOARDS = 10  # TEAM-COMP-1: 3 boards with fewer teams


def _midnight(d: dt.date) -> dt.datetime:
    return dt.datetime(d.year, d.month, d.day, tzinfo=dt.UTC)


def params_row(config: Config, now: dt.datetime) -> dict[str, Any]:
    """The one row of audit_params (sql/schema/070_audit_params.sql documents every column)."""
    e, c, co, sd, cd = config.eligibility, config.rating_cap, config.composition, config.seeding, config.conduct
    return {
        "tournament_id": config.tournament_id,
        "tournament_kind": config.kind,
        "boards": config.boards,
        "min_teams_for_4_boards": MIN_TEAMS_FOR_4_BOARDS,
        "audited_at": now,
        "registration_at": config.registration_at,
        "pairings_announced_at": config.pairings_announced_at,
        "history_since": config.lichess.history_since,
        "min_account_age_months": e.min_account_age_months,
        "min_rated_games": e.min_rated_games,
        "min_recent_games": e.min_recent_games,
        "recent_months": e.recent_months,
        "cheat_months_one": e.cheat_months_one,
        "cheat_months_two": e.cheat_months_two,
        "provisional_rd": e.provisional_rd,
        "assumed_volatility": e.assumed_volatility,
        "created_before": e.created_before,
        "games_before": e.games_before,
        "one_cheat_since": e.one_cheat_since,
        "two_cheats_since": e.two_cheats_since,
        "cap_since": _midnight(c.cap_since),
        "cap_replace_by": _midnight(c.replace_by),
        "cap_two_agm": c.cap_two_agm,
        "cap_one_asgm": c.cap_one_asgm,
        "cap_one_agm": c.cap_one_agm,
        "cap_no_title": c.cap_no_title,
        "cap_min_cross_days": c.min_cross_days,
        "cap_max_rd": float(c.max_rd),
        "cap_hold_hours": c.hold_hours,
        "max_titled": co.max_titled,
        "board_order_tolerance": co.board_order_tolerance,
        "substitute_max_diff": co.substitute_max_diff,
        "replacement_min_below": co.replacement_min_below,
        "seeding_at": sd.rating_at,
        "seeding_peak_since": sd.peak_since,
        "break_min_minutes": cd.break_min_minutes,
        "break_max_minutes": cd.break_max_minutes,
        "part_gap_max_minutes": cd.part_gap_max_minutes,
        "forfeits_to_disqualify": cd.forfeits_to_disqualify,
    }


def list_rows(config: Config) -> dict[str, list[dict[str, Any]]]:
    """The audits' list tables, from the config."""
    co = config.composition
    return {
        "audit_strongest_players": [{"user_id": n.lower(), "username": n} for n in dict.fromkeys(co.strongest_players)],
        "audit_allowed_swaps": [
            {"team": s.team, "board_a": s.board_a, "board_b": s.board_b} for s in dict.fromkeys(co.allowed_swaps)
        ],
        "audit_directors": [{"user_id": n.lower(), "username": n} for n in dict.fromkeys(co.tournament_directors)],
        "audit_stages": [{"stage": s.name, "kind": s.kind} for s in config.stages],
    }


def notes_for(config: Config) -> list[str]:
    """What the audits cannot check with this config, said once per run."""
    notes = []
    if config.kind == "team" and config.registration_at is None:
        notes.append("tournament.registration_at is not set: TEAM-ELIG-1..4 cannot be checked")
    if config.kind == "team" and config.pairings_announced_at is None:
        notes.append(
            "no pairings time (eligibility.pairings_announced_at or a stage's first_round_start): TEAM-ELIG-7 is not checked"
        )
    return notes
