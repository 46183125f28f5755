"""What every stage reads first: the TD's files validated together (:class:`Inputs`, :func:`read_inputs`)
and the facts the config and the roster decide between them (the knockout bracket's size, the
previous finalists, the Swiss entrants, each board's lineup); :func:`write_td_inputs` copies the
TD's files into the ``td_*`` tables the audits and views read.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from pipeline.domain import bracket, linking
from pipeline.errors import InputError
from pipeline.inputs.td_files import read_roster, read_schedule
from pipeline.inputs.td_overrides import read_overrides
from pipeline.model import Bye, Config, Override, Pairing, Roster, Stage
from pipeline.store import gateway


@dataclass(frozen=True)
class Inputs:
    """The TD's files, validated together before anything is written."""

    roster: Roster
    pairings: tuple[Pairing, ...]
    overrides: tuple[Override, ...] = ()
    byes: tuple[Bye, ...] = ()  # pairings.csv rows with an empty b

    def player_ids(self) -> tuple[str, ...]:
        """Everyone whose games matter: the registered players and the TD's replacements."""
        extra = (o.value for o in self.overrides if o.action == "replace")
        return tuple(dict.fromkeys([*self.roster.player_ids(), *extra]))


def read_inputs(config: Config) -> Inputs:
    """The TD's files for this config, checked against it and against each other (InputError
    names the file, the line or key, and what was expected)."""
    roster = read_roster(config)
    if config.kind == "individual":
        check_finalists(config, roster)
    config = sized(config, len(roster.entrants))  # the knockout's round numbers follow the teams
    pairings, byes = read_schedule(config.paths.pairings, config, roster)
    overrides = read_overrides(config.paths.overrides, config, roster, pairings) if config.paths.overrides else ()
    check_allowed_swaps(config, roster)
    return Inputs(roster, pairings, overrides, byes)


def check_finalists(config: Config, roster: Roster) -> None:
    """[tournament] champion / runner_up must be players of players.csv (they play the candidates)."""
    ids = {m.player_id for m in roster.members}
    for key, user_id in zip(("champion", "runner_up"), finalist_ids(config), strict=False):
        if user_id is not None and user_id not in ids:
            raise InputError(
                config.path, f"key 'tournament.{key}'", f"{getattr(config, key)!r}: expected a player of players.csv"
            )


def check_allowed_swaps(config: Config, roster: Roster) -> None:
    """What the config says about teams must name teams and boards that exist (TEAM-COMP-4's swaps)."""
    teams = set(roster.entrants)
    for i, swap in enumerate(config.composition.allowed_swaps):
        key = f"key 'composition.allowed_swaps[{i}]'"
        if swap.team not in teams:
            raise InputError(config.path, key, f"team {swap.team!r}: expected a team of teams.csv")
        if swap.board_b > config.boards:
            raise InputError(config.path, key, f"board {swap.board_b}: expected boards 1-{config.boards}")


def swiss_entrants(config: Config, inputs: Inputs) -> tuple[str, ...]:
    """Everyone in a Swiss stage's table: the registered entrants, less the previous finalists of
    an individual event, who skip the qualification (ACWC-Q-1) and start in the candidates."""
    skip = set(finalist_ids(config)) - {None}
    return tuple(e for e in inputs.roster.entrants if e not in skip)


def knockout_bracket(config: Config) -> Stage | None:
    """A team event's knockout bracket: its first knockout stage after the Swiss (TEAM-FMT-1;
    the stage after it holds the final and the bronze match). None for other events."""
    swiss = next((i for i, s in enumerate(config.stages) if s.kind == "swiss"), None)
    if config.kind != "team" or swiss is None:
        return None
    return next((s for s in config.stages[swiss + 1 :] if s.kind == "knockout"), None)


def bracket_size(config: Config, teams: int) -> tuple[int | None, str | None]:
    """The knockout bracket's rounds for `teams` teams in the Swiss (TEAM-FMT-1: 10-15 → 1, the
    semifinals; 16-31 → 2; 32 and more → 3), or the config's when it sets them; and what is wrong:
    rounds set in the config that contradict the teams, or too few teams (else None)."""
    ko = knockout_bracket(config)
    if ko is None:
        return None, None
    given = ko.rounds if ko.rounds_given else None
    try:
        q = bracket.qualifiers(teams)
    except bracket.BracketError as e:
        return given, str(e)
    need = bracket.knockout_rounds(teams)
    if given is not None and given != need:
        return given, (
            f"{teams} teams: {q} qualify (TEAM-FMT-1), so stages.{ko.name}.rounds should be {need}, "
            f"not {given} (or leave it out of the config: the rounds then follow the teams)"
        )
    return need, None


def sized(config: Config, teams: int) -> Config:
    """The config with the knockout bracket's rounds following the teams (TEAM-FMT-1) where the
    config leaves them out; as it is otherwise."""
    ko = knockout_bracket(config)
    rounds, _ = bracket_size(config, teams)
    if ko is None or ko.rounds_given or rounds is None:
        return config
    return dataclasses.replace(
        config, stages=tuple(dataclasses.replace(s, rounds=rounds) if s is ko else s for s in config.stages)
    )


def finalist_ids(config: Config) -> tuple[str | None, str | None]:
    """The previous champion's and runner-up's Lichess ids (names are case-insensitive)."""
    return (
        config.champion.lower() if config.champion else None,
        config.runner_up.lower() if config.runner_up else None,
    )


def lineup(config: Config, inputs: Inputs) -> linking.Lineup:
    return linking.Lineup(inputs.roster, inputs.overrides, tuple(s.name for s in config.stages))


def entrant_seeds(con: Any, config: Config) -> dict[str, float]:
    """Each registered entrant's seeding rating, as pairing and the ``seed`` tiebreak use it: the
    seeding view's rating of each player (ACWC-SEED-1, from the stored ratings at the seeding time),
    players.csv's seed rating where the stored data hold none, 0 without either; a team's is the mean
    over its boards 1..boards (substitutes left out). Reads td_members and the seeding view, so
    td_* and audit_params must be current (write_td_inputs; the audit's parameters, or this run's written
    in a rolled-back transaction: score.seeding_ratings)."""
    members = gateway.query(con, "queries/members").to_dicts()
    ratings = {m["player_id"]: m["seed_rating"] for m in members}
    for row in gateway.query(con, "queries/seeding_ratings").to_dicts():
        if row["seeding_rating"] is not None:
            ratings[row["user_id"]] = row["seeding_rating"]
    boards: dict[str, list[float]] = {}
    for m in members:
        if config.kind == "individual" or 1 <= m["board"] <= config.boards:
            boards.setdefault(m["entrant"], []).append(float(ratings.get(m["player_id"]) or 0))
    return {e: sum(r) / len(r) for e, r in boards.items()}


def td_rows(inputs: Inputs) -> dict[str, list[Any]]:
    """The rows of td_members, td_pairings, td_overrides and td_byes: the TD's files as tables."""
    return {
        "td_members": list(inputs.roster.members),
        "td_pairings": [
            {
                "stage": p.stage,
                "round": p.round,
                "entrant_a": p.a,
                "entrant_b": p.b,
                "window_start": p.window_start,
                "window_end": p.window_end,
            }
            for p in inputs.pairings
        ],
        "td_overrides": list(inputs.overrides),
        "td_byes": list(inputs.byes),
    }


def write_td_inputs(con: Any, inputs: Inputs) -> None:
    """td_members, td_pairings, td_overrides, td_byes: made equal to the TD's files (:func:`td_rows`),
    in one transaction (a table that already is is not written: every stage of a run calls this)."""
    with gateway.transaction(con):
        for table, rows in td_rows(inputs).items():
            gateway.replace_all(con, table, rows)
