"""The score stage: link games to boards, score parts, boards and matches, rank each stage, place
the event, and verify the newly counted games. It reads what it scores in one place
(:func:`read_stages`), hands the values to pipeline/domain (:func:`score_rounds`) and writes every
stage's rows and the placings in one transaction (:func:`write_scores`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pipeline.domain import linking, scoring, standings, verify
from pipeline.domain.audit_params import params_row
from pipeline.model import Bye, Config, Pairing, Stage
from pipeline.stages import context, placings, rescore
from pipeline.store import gateway


@dataclass
class ScoreReport:
    match_games: int = 0
    counted_games: int = 0
    team_matches: int = 0
    standings_rows: int = 0
    verified: int = 0
    mismatches: int = 0
    rescored_rounds: int = 0  # rounds linked and scored tonight (the others' inputs had not changed)
    first_scored_rounds: int = 0  # of those: never scored before
    unplayed_matches: int = 0  # matches with a board unplayed after its window and margin: they wait for a TD ruling
    stages: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # config contradictions the TD must fix (run summary, runs.errors)


def score_stage(
    config: Config,
    inputs: context.Inputs,
    now: dt.datetime,
    verify_progress: Callable[[int], Any] | None = None,
    seeds: Callable[[], dict[str, float]] | None = None,
) -> ScoreReport:
    """Link games to boards, score parts, boards and matches, rank and place: read once
    (:func:`read_stages`), computed in pipeline/domain (:func:`score_rounds`), written in one
    transaction with the verdicts on the newly counted games (:func:`write_scores`,
    :func:`verify_new_games`). Only the rounds whose inputs changed since they were scored are
    linked and scored again (rescore_plan); the tables are those a from-scratch run gives. The
    entrants' seeding ratings, which ranking reads, come from `seeds` when given (called when the
    first stage is ranked: ``audit.BesideScore.seeds`` reads them beside this stage), else from
    :func:`seeding_ratings`."""
    report = ScoreReport()
    teams = len(inputs.roster.entrants)
    _, problem = context.bracket_size(config, teams)
    if problem is not None and teams >= 10:  # fewer teams: the knockout proposal says so once the Swiss is over
        report.errors.append(problem)
    config = context.sized(config, teams)
    con = gateway.connect(config.paths.database)
    try:
        context.write_td_inputs(con, inputs)  # the reads join the TD's files
        if seeds is None:
            seeds = functools.partial(dict, seeding_ratings(con, config, now))
        stored = read_stages(con, config, inputs, now)
        scored = [score_rounds(config, inputs, s, now, report, seeds) for s in stored]
        with gateway.transaction(con):
            write_scores(con, config, scored, report)
            verify_new_games(con, now, report, verify_progress)
        if report.unplayed_matches:
            report.notes.append(unplayed_note(report.unplayed_matches))
    finally:
        con.close()
    return report


def seeding_ratings(con: Any, config: Config, now: dt.datetime) -> dict[str, float]:
    """Each entrant's seeding rating (context.entrant_seeds: ACWC-SEED-1's, from the seeding view),
    as of this run's config: the view reads its seeding time from audit_params, which is the audit
    step's record (exports read it as "the audits have run"), so this run's parameters are written
    in a transaction that is rolled back once the ratings are read."""
    with gateway.rolled_back(con):
        gateway.replace_where(con, "audit_params", {}, [params_row(config, now)])
        return context.entrant_seeds(con, config)


_STAGE_TABLES = (
    "scored_match_games",
    "scored_board_results",
    "scored_team_matches",
    "scored_standings",
    "scored_rounds",
)

RESULTS = frozenset({*_STAGE_TABLES, "scored_placings", "game_verdicts"})
"""The tables whose rows this stage decides. It also rewrites the td_* tables from the TD's files,
as every stage does (the same rows), and writes audit_params only in a rolled-back transaction
(:func:`seeding_ratings`): an audit that reads none of these gives the same findings before and
after this stage, so it can run beside it (``audit.beside_score``)."""


@dataclass(frozen=True)
class StoredStage:
    """What the store holds for one stage, read before anything is scored: its pairings and byes,
    each board's players, the rescore plan (with the stored team matches of the rounds it keeps)
    and the games near the windows of the rounds it rescores. No plan: nothing is paired."""

    stage: Stage
    pairings: tuple[Pairing, ...]
    byes: tuple[Bye, ...]
    boards: list[linking.BoardPairing] = field(default_factory=list)
    captains: dict[str, str] = field(default_factory=dict)
    plan: rescore.RescorePlan | None = None
    games: Any = None  # queries/games_between_registered; None when no round is rescored


@dataclass(frozen=True)
class ScoredStage:
    """One stage's results, computed from its :class:`StoredStage`, to be written: the linked
    games, board results and team matches of the rescored rounds, and the stage's table."""

    stage: Stage
    plan: rescore.RescorePlan | None
    linked: list[linking.MatchGame] = field(default_factory=list)
    results: list[scoring.BoardResult] = field(default_factory=list)
    matches: list[scoring.TeamMatch] = field(default_factory=list)
    table: list[standings.Standing] = field(default_factory=list)


def read_stages(con: Any, config: Config, inputs: context.Inputs, now: dt.datetime) -> list[StoredStage]:
    """Every stage's :class:`StoredStage`: the one place this stage reads what it scores."""
    out = []
    for stage in config.stages:
        pairings = tuple(p for p in inputs.pairings if p.stage == stage.name)
        byes = tuple(b for b in inputs.byes if b.stage == stage.name)
        if not pairings and not byes:
            out.append(StoredStage(stage, pairings, byes))
            continue
        boards = linking.board_pairings(pairings, inputs.roster, config.boards, context.lineup(config, inputs))
        captains = (
            {m.entrant: m.player_id for m in inputs.roster.members if m.is_captain} if config.kind == "team" else {}
        )
        plan = rescore.rescore_plan(con, config, inputs, stage, pairings, boards, captains, now)
        games = gateway.query(con, "queries/games_between_registered", list(plan.games_range)) if plan.rescore else None
        out.append(StoredStage(stage, pairings, byes, boards, captains, plan, games))
    return out


def score_rounds(
    config: Config,
    inputs: context.Inputs,
    stored: StoredStage,
    now: dt.datetime,
    report: ScoreReport,
    seeds: Callable[[], dict[str, float]],
) -> ScoredStage:
    """One stage: link and score the rounds the rescore plan names and rank the stage (the rules
    of pipeline/domain on the values read); a note for the run summary goes to `report`. A stage
    with nothing paired (any more) gives no plan: its rows are emptied, so no stale results of an
    earlier run stay."""
    stage, pairings, plan = stored.stage, stored.pairings, stored.plan
    if plan is None:
        return ScoredStage(stage, None)
    linked = link_rescored(config, inputs, stored)
    rescored_boards = [b for b in stored.boards if b.round in plan.rescore]
    results = scoring.score_boards(stage, linked, rescored_boards, inputs.overrides, now)
    new_matches = scoring.score_matches(
        stage,
        linked,
        results,
        tuple(p for p in pairings if p.round in plan.rescore),
        config.boards,
        now,
        inputs.overrides,
        stored.captains,
    )
    entrants = stage_entrants(config, inputs, stage, pairings, stored.byes)
    if stage.kind == "swiss" and config.kind == "individual":
        note = swiss_rounds_note(stage, len(entrants))
        if note is not None:
            report.notes.append(note)
    matches = plan.all_matches(pairings, new_matches)
    table = rank_stage(config, inputs, stage, entrants, matches, stored.byes, seeds())
    return ScoredStage(stage, plan, linked, results, new_matches, table)


def link_rescored(config: Config, inputs: context.Inputs, stored: StoredStage) -> list[linking.MatchGame]:
    """The match games of the rounds to rescore, linked from the games read near their windows
    (none when no round is rescored)."""
    if stored.plan is None or not stored.plan.rescore:
        return []
    return linking.link_stage(
        stored.stage,
        stored.pairings,
        inputs.roster,
        config.boards,
        stored.games,
        context.lineup(config, inputs),
        inputs.overrides,
        stored.captains,
        rounds=stored.plan.rescore,
    )


def write_scores(con: Any, config: Config, scored: list[ScoredStage], report: ScoreReport) -> None:
    """Every stage's rows and the placings; call inside the stage's transaction. Each scored
    stage's counts (as written) go to `report`. The placings are read from the stages as written
    in it (placings.placings_rows: the bracket reads the stored tables)."""
    for s in scored:
        if s.plan is None:
            for table_name in _STAGE_TABLES:
                gateway.replace_where(con, table_name, {"stage": s.stage.name}, [])
            continue
        s.plan.write(con, s.linked, s.results, s.matches)
        gateway.replace_where(con, "scored_standings", {"stage": s.stage.name}, s.table)
        counts = gateway.query(con, "queries/scored_counts_of_stage", [s.stage.name]).row(0, named=True)
        add_counts(report, s, counts)
    gateway.replace_where(con, "scored_placings", {}, placings.placings_rows(con, config))


def add_counts(report: ScoreReport, scored: ScoredStage, counts: dict[str, int]) -> None:
    """A scored stage's counts (queries/scored_counts_of_stage, as written) added to `report`."""
    assert scored.plan is not None
    report.stages.append(scored.stage.name)
    report.rescored_rounds += len(scored.plan.rescore)
    report.first_scored_rounds += len(scored.plan.rescore - scored.plan.scored_before)
    report.match_games += counts["match_games"]
    report.counted_games += counts["counted_games"]
    report.team_matches += counts["team_matches"]
    report.unplayed_matches += counts["unplayed_matches"]
    report.standings_rows += len(scored.table)


def stage_entrants(
    config: Config, inputs: context.Inputs, stage: Stage, pairings: tuple[Pairing, ...], byes: tuple[Bye, ...]
) -> tuple[str, ...]:
    """Who is in the stage's table: a Swiss stage's entrants, else everyone paired or given a bye."""
    if stage.kind == "swiss":
        return context.swiss_entrants(config, inputs)
    return tuple(dict.fromkeys([*(e for p in pairings for e in (p.a, p.b)), *(b.entrant for b in byes)]))


def swiss_rounds_note(stage: Stage, players: int) -> str | None:
    """ACWC-Q-1's rounds for the players, said when the config sets others (else None)."""
    expected = standings.swiss_rounds(players)
    if stage.rounds == expected:
        return None
    return (
        f"ACWC-Q-1: {players} players call for floor(log2 {players}) + 2 = "
        f"{expected} rounds; stages.{stage.name}.rounds is {stage.rounds}"
    )


def rank_stage(
    config: Config,
    inputs: context.Inputs,
    stage: Stage,
    entrants: tuple[str, ...],
    matches: list[scoring.TeamMatch],
    byes: tuple[Bye, ...],
    seeds: dict[str, float],
) -> list[standings.Standing]:
    """The stage's table; a round robin's per pool, each pool ranked on its own (ACWC-C-1). The
    ``seed`` tiebreak (ACWC-Q-3) reads ``seeds``, the seeding ratings pairing uses too
    (context.entrant_seeds: ACWC-SEED-1's, from the seeding view)."""
    if stage.kind != "round_robin":
        return standings.stage_standings(stage, entrants, matches, seeds, inputs.roster.entrants, byes, config.boards)
    return [
        dataclasses.replace(row, pool=i)
        for i, pool in enumerate(standings.pools(entrants, matches), 1)
        for row in standings.stage_standings(stage, pool, matches, seeds, inputs.roster.entrants, byes, config.boards)
    ]


def unplayed_note(n: int) -> str:
    """The run summary's line about matches waiting for a TD ruling (pipeline/domain/scoring.py: unplayed)."""
    return (
        f"{n} match{'es' if n != 1 else ''} wait{'s' if n == 1 else ''} for a TD ruling: a board with no game and no "
        "ruling once its window and margin had passed is unplayed, not a 0-0 draw (the unplayed_matches view, audit "
        "errors TEAM-SCORE-4 / ACWC-CONDUCT-1): forfeit, zero_draw or a new window"
    )


def verify_new_games(
    con: Any, now: dt.datetime, report: ScoreReport, progress: Callable[[int], Any] | None = None
) -> None:
    """Verify each counted game once (PGN vs JSON, board vs result); verdicts kept by game id. Call
    inside the stage's transaction, after :func:`write_scores` (the games to verify are those its
    rows count). ``progress(n)`` gives a context manager whose ``step()`` is called after each
    game (the console's)."""
    todo = gateway.query(con, "queries/games_to_verify")
    verdicts = []
    with progress(todo.height) if progress is not None else contextlib.nullcontext() as shown:
        for g in todo.iter_rows(named=True):
            verdicts.append(verify.verify_game(g))
            if shown is not None:
                shown.step()
    gateway.upsert(con, "game_verdicts", [{**v.__dict__, "verified_at": now} for v in verdicts])
    report.verified += len(verdicts)
    report.mismatches += sum(v.disagrees for v in verdicts)
