"""The pipeline's stages as plain functions: ingest → link and score → standings → audit → export.

The CLI calls them directly (``antichess-td ingest|score|export``) and the Prefect flow
(``flows/nightly.py``) sequences them; no logic lives in the flow. Each stage opens the
database ``config.paths.database`` itself, so a stage can be rerun alone. The CLI and the flow
run the writing stages inside ``pipeline.stages.record.recorded`` and hand them ``run.work``, whose
database is the private working copy; the published snapshot is replaced only when the whole
command succeeded (``pipeline.store.publish``). ``export`` only reads (read-only connection).
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import datetime as dt
import hashlib
import logging
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.domain import bracket, linking, scoring, standings, verify
from pipeline.errors import InputError
from pipeline.inputs.td_files import read_overrides, read_roster, read_schedule
from pipeline.lichess import client as lichess
from pipeline.lichess import ingest
from pipeline.model import Bye, Config, Override, Pairing, Roster, Stage
from pipeline.report import exports
from pipeline.report.posts import round_post, write_findings, write_results, write_standings
from pipeline.sim import replay
from pipeline.stages import audit as audits
from pipeline.store import gateway as store

log = logging.getLogger(__name__)


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


def swiss_entrants(config: Config, inputs: Inputs) -> tuple[str, ...]:
    """Everyone in a Swiss stage's table: the registered entrants, less the previous finalists of
    an individual event, who skip the qualification (ACWC-Q-1) and start in the candidates."""
    skip = set(finalist_ids(config)) - {None}
    return tuple(e for e in inputs.roster.entrants if e not in skip)


def read_inputs(config: Config) -> Inputs:
    roster = read_roster(config)
    if config.kind == "individual":
        config_finalists(config, roster)
    config = sized(config, len(roster.entrants))  # the knockout's round numbers follow the teams
    pairings, byes = read_schedule(config.paths.pairings, config, roster)
    overrides = read_overrides(config.paths.overrides, config, roster, pairings) if config.paths.overrides else ()
    audits.check_config(config, roster)
    return Inputs(roster, pairings, overrides, byes)


def config_finalists(config: Config, roster: Roster) -> None:
    """[tournament] champion / runner_up must be players of players.csv (they play the candidates)."""
    ids = {m.player_id for m in roster.members}
    for key, user_id in zip(("champion", "runner_up"), finalist_ids(config), strict=False):
        if user_id is not None and user_id not in ids:
            raise InputError(
                config.path, f"key 'tournament.{key}'", f"{getattr(config, key)!r}: expected a player of players.csv"
            )


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


@contextlib.contextmanager
def lichess_base_url(config: Config, now: dt.datetime | None = None) -> Iterator[str]:
    """The configured Lichess server, or a replay server started in-process for ``replay_data``
    (local recorded data: it serves rating histories without a token)."""
    if config.lichess.replay_data is None:
        yield config.lichess.base_url
        return
    with replay.running(
        config.lichess.replay_data,
        now=now,
        options=replay.ReplayOptions(games_per_s=config.lichess.replay_games_per_s, history_needs_token=False),
    ) as server:
        log.info("replay server for %s on %s", config.lichess.replay_data, server.base_url)
        yield server.base_url


def token_from_env(config: Config) -> str | None:
    """The Lichess token, from the environment variable the config names (never from a file)."""
    return os.environ.get(config.lichess.token_env) or None


def lineup(config: Config, inputs: Inputs) -> linking.Lineup:
    return linking.Lineup(inputs.roster, inputs.overrides, tuple(s.name for s in config.stages))


def watched_boards(config: Config, inputs: Inputs) -> list[ingest.WatchedBoard]:
    """Every board of every pairing with its window widened by the stage's margin: casual games
    between its players are looked for while the window is open (ingest's vs requests)."""
    out = []
    for stage in config.stages:
        pairings = tuple(p for p in inputs.pairings if p.stage == stage.name)
        margin = dt.timedelta(days=stage.window_margin_days)
        for bp in linking.board_pairings(pairings, inputs.roster, config.boards, lineup(config, inputs)):
            out.append(ingest.WatchedBoard(bp.player_a, bp.player_b, bp.window_start - margin, bp.window_end + margin))
    return out


def _client(config: Config, base_url: str, sleep: Callable[[float], None], warn: bool = True) -> Any:
    token = token_from_env(config)
    if warn and token is None and config.lichess.replay_data is None:
        log.warning(
            "no Lichess token in $%s: Lichess answers rating-history requests without one with [] "
            "(set the variable to a personal token; no scope is needed)",
            config.lichess.token_env,
        )
    li = config.lichess
    policy = lichess.RetryPolicy(
        rate_limit_wait_s=li.rate_limit_wait_s, backoff_s=li.backoff_s, max_retries=li.max_retries
    )
    return lichess.make_client(base_url, token, li.timeout_s, policy, sleep=sleep)


def ingest_stage(
    config: Config,
    inputs: Inputs,
    base_url: str,
    now: dt.datetime,
    progress: ingest.Progress | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> ingest.IngestReport:
    client = _client(config, base_url, sleep)
    li = config.lichess
    con = store.connect(config.paths.database)
    try:
        return ingest.ingest(
            con,
            client,
            inputs.player_ids(),
            li.history_since,
            now,
            watch=watched_boards(config, inputs),
            concurrency=li.concurrency,
            progress=progress,
        )
    finally:
        con.close()


INGEST_BATCH = 300  # players per batch: one POST /api/users request (it takes at most 300 ids)


def player_batches(inputs: Inputs, size: int = INGEST_BATCH) -> list[tuple[str, ...]]:
    """The players in batches for the flow's ingest tasks (a batch is retried alone)."""
    ids = inputs.player_ids()
    return [ids[i : i + size] for i in range(0, len(ids), size)]


def ingest_batch(
    config: Config,
    inputs: Inputs,
    base_url: str,
    now: dt.datetime,
    players: tuple[str, ...],
    progress: ingest.Progress | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> ingest.IngestReport:
    """:func:`ingest_stage` for one batch of players, without the casual-game searches
    (:func:`ingest_watched` does them once every batch is in)."""
    client = _client(config, base_url, sleep)
    li = config.lichess
    con = store.connect(config.paths.database)
    try:
        return ingest.ingest(
            con,
            client,
            players,
            li.history_since,
            now,
            concurrency=li.concurrency,
            progress=progress,
            registered=inputs.player_ids(),
        )
    finally:
        con.close()


def ingest_watched(
    config: Config,
    inputs: Inputs,
    base_url: str,
    now: dt.datetime,
    batches: list[ingest.IngestReport],
    sleep: Callable[[float], None] = time.sleep,
) -> ingest.IngestReport:
    """The ``vs`` searches for casual games of open round windows, after the batches."""
    client = _client(config, base_url, sleep, warn=False)
    statuses = {uid: p.games for b in batches for uid, p in b.players.items()}
    con = store.connect(config.paths.database)
    try:
        return ingest.search_watched(con, client, statuses, watched_boards(config, inputs), inputs.player_ids(), now)
    finally:
        con.close()


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
    config: Config, inputs: Inputs, now: dt.datetime, verify_progress: Callable[[int], Any] | None = None
) -> ScoreReport:
    """Link games to boards, score parts, boards and matches, rank: written per stage in one
    transaction. Only the rounds whose inputs changed since they were scored are linked and
    scored again (rescore_plan); the tables are those a from-scratch run gives."""
    report = ScoreReport()
    teams = len(inputs.roster.entrants)
    _, problem = bracket_size(config, teams)
    if problem is not None and teams >= 10:  # fewer teams: the knockout proposal says so once the Swiss is over
        report.errors.append(problem)
    config = sized(config, teams)
    con = store.connect(config.paths.database)
    try:
        write_td_inputs(con, inputs)
        for stage in config.stages:
            pairings = tuple(p for p in inputs.pairings if p.stage == stage.name)
            byes = tuple(b for b in inputs.byes if b.stage == stage.name)
            if not pairings and not byes:  # nothing paired (any more): no stale results from an earlier run
                with store.transaction(con):
                    for table_name in (
                        "scored_match_games",
                        "scored_board_results",
                        "scored_team_matches",
                        "scored_standings",
                        "scored_rounds",
                    ):
                        store.replace_where(con, table_name, {"stage": stage.name}, [])
                continue
            boards = linking.board_pairings(pairings, inputs.roster, config.boards, lineup(config, inputs))
            captains = (
                {m.entrant: m.player_id for m in inputs.roster.members if m.is_captain} if config.kind == "team" else {}
            )
            plan = rescore_plan(con, config, inputs, stage, pairings, boards, captains, now)
            games = (
                store.query(con, "queries/games_between_registered", list(plan.games_range)) if plan.rescore else None
            )
            linked = (
                linking.link_stage(
                    stage,
                    pairings,
                    inputs.roster,
                    config.boards,
                    games,
                    lineup(config, inputs),
                    inputs.overrides,
                    captains,
                    rounds=plan.rescore,
                )
                if plan.rescore
                else []
            )
            results = scoring.score_boards(
                stage, linked, [b for b in boards if b.round in plan.rescore], inputs.overrides, now
            )
            new_matches = scoring.score_matches(
                stage,
                linked,
                results,
                tuple(p for p in pairings if p.round in plan.rescore),
                config.boards,
                now,
                inputs.overrides,
                captains,
            )
            matches = plan.all_matches(con, pairings, new_matches)
            entrants = (
                swiss_entrants(config, inputs)
                if stage.kind == "swiss"
                else tuple(dict.fromkeys([*(e for p in pairings for e in (p.a, p.b)), *(b.entrant for b in byes)]))
            )
            seeds = {m.entrant: m.seed_rating for m in inputs.roster.members if m.seed_rating is not None}
            if stage.kind == "swiss" and config.kind == "individual":
                expected = standings.swiss_rounds(len(entrants))
                if stage.rounds != expected:
                    report.notes.append(
                        f"ACWC-Q-1: {len(entrants)} players call for floor(log2 {len(entrants)}) + 2 = "
                        f"{expected} rounds; stages.{stage.name}.rounds is {stage.rounds}"
                    )
            if stage.kind == "round_robin":  # ACWC-C-1: each pool is ranked on its own
                table = [
                    dataclasses.replace(row, pool=i)
                    for i, pool in enumerate(standings.pools(entrants, matches), 1)
                    for row in standings.stage_standings(
                        stage, pool, matches, seeds, inputs.roster.entrants, byes, config.boards
                    )
                ]
            else:
                table = standings.stage_standings(
                    stage, entrants, matches, seeds, inputs.roster.entrants, byes, config.boards
                )
            with store.transaction(con):
                where = {"stage": stage.name}
                plan.write(con, linked, results, new_matches)
                store.replace_where(con, "scored_standings", where, table)
                counts = store.query(con, "queries/scored_counts_of_stage", [stage.name]).row(0, named=True)
            report.stages.append(stage.name)
            report.rescored_rounds += len(plan.rescore)
            report.first_scored_rounds += len(plan.rescore - plan.scored_before)
            report.match_games += counts["match_games"]
            report.counted_games += counts["counted_games"]
            report.team_matches += counts["team_matches"]
            report.unplayed_matches += counts["unplayed_matches"]
            report.standings_rows += len(table)
        if report.unplayed_matches:
            report.notes.append(unplayed_note(report.unplayed_matches))
        write_placings(con, config)
        verify_new_games(con, now, report, verify_progress)
    finally:
        con.close()
    return report


def unplayed_note(n: int) -> str:
    """The run summary's line about matches waiting for a TD ruling (pipeline/domain/scoring.py: unplayed)."""
    return (
        f"{n} match{'es' if n != 1 else ''} wait{'s' if n == 1 else ''} for a TD ruling: a board with no game and no "
        "ruling once its window and margin had passed is unplayed, not a 0-0 draw (the unplayed_matches view, audit "
        "errors TEAM-SCORE-4 / ACWC-CONDUCT-1): forfeit, zero_draw or a new window"
    )


_SCORED_TABLES = ("scored_match_games", "scored_board_results", "scored_team_matches")


@dataclass
class RescorePlan:
    """Which rounds of a stage to link and score again tonight: those whose fingerprint (the
    inputs of their scored rows) differs from the one stored with them, or that were never scored."""

    stage: str
    fingerprints: dict[int, str]
    rescore: frozenset[int]
    removed: frozenset[int]  # scored before, no longer paired
    full: bool  # nothing stored for the stage: rewrite it whole
    games_range: tuple[dt.datetime, dt.datetime]
    scored_before: frozenset[int] = frozenset()  # the rounds that have stored scores

    def all_matches(
        self, con: Any, pairings: tuple[Pairing, ...], new: list[scoring.TeamMatch]
    ) -> list[scoring.TeamMatch]:
        """Every team match of the stage in pairing order (as a full rescore lists them): tonight's
        for the rescored rounds, the stored ones for the others."""
        fresh = {(m.round, m.team_a, m.team_b): m for m in new}
        stored: dict[tuple[int, str, str], scoring.TeamMatch] = {}
        if len(self.rescore) < len(self.fingerprints):
            for row in store.query(con, "queries/team_matches_for_standings", [self.stage]).iter_rows(named=True):
                stored[row["round"], row["team_a"], row["team_b"]] = scoring.TeamMatch(**row)
        out = []
        for p in pairings:
            key = (p.round, p.a, p.b)
            out.append(fresh[key] if p.round in self.rescore else stored[key])
        return out

    def write(
        self,
        con: Any,
        linked: list[linking.MatchGame],
        results: list[scoring.BoardResult],
        matches: list[scoring.TeamMatch],
    ) -> None:
        """Replace the rows of the rescored (and no longer paired) rounds, and their fingerprints;
        call inside the transaction that writes the standings."""
        rows = [{"stage": self.stage, "round": r, "fingerprint": self.fingerprints[r]} for r in sorted(self.rescore)]
        if self.full:
            for table, new in zip(_SCORED_TABLES + ("scored_rounds",), (linked, results, matches, rows), strict=False):
                store.replace_where(con, table, {"stage": self.stage}, new)
            return
        touched = sorted(self.rescore | self.removed)
        for table, new in zip(_SCORED_TABLES + ("scored_rounds",), (linked, results, matches, rows), strict=False):
            store.replace_rounds(con, table, self.stage, touched, new)


def rescore_plan(
    con: Any,
    config: Config,
    inputs: Inputs,
    stage: Any,
    pairings: tuple[Pairing, ...],
    boards: list[linking.BoardPairing],
    captains: dict[str, str],
    now: dt.datetime,
) -> RescorePlan:
    """Fingerprint every paired round of the stage: the scoring version, the stage's config, every TD
    ruling, the captains, the round's pairings and lineups, which of its windows (and of their
    margins, after which a board with no game is unplayed) have passed by `now`, and its games
    (every stored game between a board's players, or the captains, near the window, with each
    column linking reads). A round whose fingerprint is the stored one would be scored into the
    rows it already has."""
    margin = dt.timedelta(days=stage.window_margin_days)
    common = repr(
        (
            scoring.SCORING_VERSION,  # read at call time: the one constant a maintainer bumps
            stage,
            tuple(s.name for s in config.stages),
            config.boards,
            config.kind,
            inputs.overrides,
            sorted(captains.items()),
        )
    ).encode()
    near = []
    for b in boards:
        near.append(
            (b.round, b.board, b.entrant_a, b.player_a, b.player_b, b.window_start - margin, b.window_end + margin)
        )
    for p in pairings:  # the captains' 3+0 games (TEAM-KO-1) are linked from the captains' own pair
        if p.a in captains and p.b in captains:
            near.append((p.round, 0, p.a, captains[p.a], captains[p.b], p.window_start - margin, p.window_end + margin))
    frame = pl.DataFrame(
        [
            {"round": r, "board": bd, "entrant_a": ea, "p1": min(pa, pb), "p2": max(pa, pb), "lo": lo, "hi": hi}
            for r, bd, ea, pa, pb, lo, hi in near
        ],
        schema={
            "round": pl.Int64,
            "board": pl.Int64,
            "entrant_a": pl.String,
            "p1": pl.String,
            "p2": pl.String,
            "lo": pl.Datetime("us", "UTC"),
            "hi": pl.Datetime("us", "UTC"),
        },
    )
    games = dict(store.query_with(con, "queries/round_games_fingerprint", {"_boards": frame}).iter_rows())
    fingerprints = {}
    for rnd in sorted({p.round for p in pairings}):
        h = hashlib.sha256(common)
        mine = [p for p in pairings if p.round == rnd]
        h.update(
            repr(
                (
                    mine,
                    [b for b in boards if b.round == rnd],
                    [(now >= p.window_end, now >= p.window_end + margin) for p in mine],
                )
            ).encode()
        )
        h.update((games.get(rnd) or "").encode())
        fingerprints[rnd] = h.hexdigest()
    stored = dict(store.query(con, "queries/scored_rounds_of_stage", [stage.name]).iter_rows())
    rescore = frozenset(r for r, f in fingerprints.items() if stored.get(r) != f)
    spans = [(lo, hi) for r, _, _, _, _, lo, hi in near if r in rescore]
    span = (min(lo for lo, _ in spans), max(hi for _, hi in spans)) if spans else (now, now)
    return RescorePlan(
        stage.name,
        fingerprints,
        rescore,
        frozenset(set(stored) - set(fingerprints)),
        not stored,
        span,
        frozenset(stored),
    )


def write_td_inputs(con: Any, inputs: Inputs) -> None:
    """td_members, td_pairings, td_overrides, td_byes: rewritten from the TD's files, in one transaction."""
    with store.transaction(con):
        store.replace_where(con, "td_members", {}, list(inputs.roster.members))
        store.replace_where(
            con,
            "td_pairings",
            {},
            [
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
        )
        store.replace_where(con, "td_overrides", {}, list(inputs.overrides))
        store.replace_where(con, "td_byes", {}, list(inputs.byes))


def audit_stage(config: Config, inputs: Inputs, now: dt.datetime) -> audits.AuditReport:
    """Re-check every audit rule (sql/audits) on what is stored and write audit_findings.csv.

    Writes the TD's files and the audit parameters from the config (so any audit file gives the
    same rows in the duckdb CLI), records a new captain (TEAM-COMP-8), re-estimates the per-game
    RDs the cap and provisional audits read (rating_estimates), then reads audit_findings."""
    from pipeline.stages import ratings

    report = audits.AuditReport(notes=audits.notes_for(config))
    con = store.connect(config.paths.database)
    try:
        write_td_inputs(con, inputs)
        audits.write_params(con, config, now)
        if config.kind == "team":
            audits.record_captains(con, inputs.roster, now)
        report.estimates = ratings.write_rating_estimates(con, inputs.player_ids())
        report.findings = audits.read_findings(con)
    finally:
        con.close()
    report.csv_path = write_findings(config.paths.exports / "audit_findings.csv", report.findings)
    return report


def verify_new_games(
    con: Any, now: dt.datetime, report: ScoreReport, progress: Callable[[int], Any] | None = None
) -> None:
    """Verify each counted game once (PGN vs JSON, board vs result); verdicts kept by game id.
    ``progress(n)`` gives a context manager whose ``step()`` is called after each game (the console's)."""
    todo = store.query(con, "queries/games_to_verify")
    verdicts = []
    with progress(todo.height) if progress is not None else contextlib.nullcontext() as shown:
        for g in todo.iter_rows(named=True):
            verdicts.append(verify.verify_game(g))
            if shown is not None:
                shown.step()
    with store.transaction(con):
        store.upsert(con, "game_verdicts", [{**v.__dict__, "verified_at": now} for v in verdicts])
    report.verified += len(verdicts)
    report.mismatches += sum(v.verdict in ("mismatch", "unreadable") for v in verdicts)


PAIRINGS_COLUMNS = ("stage", "round", "a", "b", "window_start", "window_end", "bye")  # pairings.csv's
PLACINGS_COLUMNS = ("stage", "place", "entrant", "how")


def export_stage(config: Config) -> list[Path]:
    """Per stage: standings_<stage>.csv (the table after the latest round; none for a knockout
    stage, whose order is in placings.csv), results_<stage>.csv (one row per board match: parts,
    totals, game links) and a Markdown post per round (round_<n>.md for the first stage,
    round_<stage>_<n>.md for the others, since every stage numbers its rounds from 1);
    audit_findings.csv once an audit has run (findings read what scoring wrote: a ruling can
    change them); then next_pairings.csv (the next stage's or round's pairings, when ready) and
    placings.csv. What is in each file: pipeline/report/posts.py."""
    written = []
    con = store.connect(config.paths.database, read_only=True)
    try:
        for i, stage in enumerate(config.stages):
            df = store.query(con, "queries/standings_latest", [stage.name])
            path = config.paths.exports / f"standings_{stage.name}.csv"
            if stage.kind == "knockout":  # a knockout has no table: its order is placings.csv
                path.unlink(missing_ok=True)
            elif df.height:
                written.append(write_standings(path, stage, df))
            boards = store.query(con, "queries/board_results_of_stage", [stage.name])
            if boards.height == 0:
                continue
            written.append(write_results(config.paths.exports / f"results_{stage.name}.csv", stage, boards))
            labels = knockout_labels(con, config, stage) if stage.kind == "knockout" else {}
            for (rnd,) in store.query(con, "queries/rounds_of_stage", [stage.name]).iter_rows():
                name = f"round_{rnd}.md" if i == 0 else f"round_{stage.name}_{rnd}.md"
                path = config.paths.exports / name
                exports.write_text(path, round_post(con, config, stage, rnd, boards, labels))
                written.append(path)
        if store.query(con, "queries/audit_has_run").item():
            written.append(write_findings(config.paths.exports / "audit_findings.csv", audits.read_findings(con)))
        written += write_cap_charts(config, con)
        rows, notes = next_knockout_pairings(config, con) if config.kind == "team" else next_acwc_pairings(config, con)
        for note in notes:
            log.warning("knockout: %s", note)
        path = config.paths.exports / "next_pairings.csv"
        if rows:  # a fragment of pairings.csv for the TD to check, publish and append as it is
            columns, proposed = proposal_rows(con, config, rows)
            exports.write_csv(path, columns, proposed)
            written.append(path)
        else:
            path.unlink(missing_ok=True)
        if "placings" in set(store.query(con, "queries/user_views")["view_name"]):  # not in a snapshot from before it
            path = config.paths.exports / "placings.csv"
            exports.write_csv(path, PLACINGS_COLUMNS, store.query(con, "queries/placings").iter_rows())
            written.append(path)
    finally:
        con.close()
    return written


def write_cap_charts(config: Config, con: Any) -> list[Path]:
    """TEAM-CAP-1..5: one chart per last-board player, ``<exports>/charts/cap_<user_id>.png``: the
    rating since cap_since against the cap, crossings marked (counted or not) with their RD; the
    cap findings link it. Nothing before the first audit run (its parameters pick the players)."""
    from pipeline.report import charts

    players = store.query(con, "queries/cap_chart_players").to_dicts()
    if not players:
        return []
    events: dict[str, list[dict[str, Any]]] = {}
    for e in store.query(con, "queries/cap_chart_points").iter_rows(named=True):
        events.setdefault(e["user_id"], []).append(e)
    written = []
    for p in players:
        evs = events.get(p["user_id"], [])
        since = p["cap_since"].astimezone(dt.UTC).date()
        path = charts.write_cap_chart(
            config.paths.exports / "charts" / f"cap_{p['user_id']}.png",
            p["username"],
            p["cap"],
            [(e["rated_at"], e["rating"]) for e in evs],
            [(e["rated_at"], e["rating"], e["rd_est"], e["crossing"] == "counted") for e in evs if e["crossing"]],
            since,
        )
        written.append(path)
    return written


def next_knockout_pairings(config: Config, con: Any) -> tuple[list[tuple[str, int, str, str]], list[str]]:
    """The next knockout round's pairings, once the round before it is decided (TEAM-FMT-1 bracket):
    after the Swiss, 1 v N of its final standings; after a knockout round, its winners; after the
    semifinals, the final and the bronze match. Returns (rows, notes for the TD)."""
    stages = list(config.stages)
    swiss = next((s for s in stages if s.kind == "swiss"), None)
    knockouts = [s for s in stages if s.kind == "knockout"]
    if swiss is None or not knockouts or config.kind != "team":
        return [], []
    matches = {s.name: store.query(con, "queries/team_matches_of_stage", [s.name]).to_dicts() for s in knockouts}
    paired = {
        s.name: {r["round"] for r in store.query(con, "queries/pairings_of_stage", [s.name]).to_dicts()}
        for s in knockouts
    }

    def complete(stage_name: str, rnd: int) -> list[dict[str, Any]] | None:
        ms = [m for m in matches[stage_name] if m["round"] == rnd]
        return ms if ms and all(m["winner"] for m in ms) else None

    if _stage_complete(con, swiss) is None:
        return [], []
    ko = knockouts[0]
    table = store.query(con, "queries/standings_after", [swiss.name, swiss.rounds]).to_dicts()
    ko_rounds, problem = bracket_size(config, len(table))
    if problem is not None:
        return [], [problem]
    assert ko_rounds is not None
    q = bracket.qualifiers(len(table))
    if 1 not in paired[ko.name]:
        return [(ko.name, 1, a, b) for a, b in bracket.first_round([r["entrant"] for r in table[:q]])], []
    for rnd in range(1, ko_rounds + 1):
        done = complete(ko.name, rnd)
        if done is None:
            return [], []
        if rnd < ko_rounds and rnd + 1 not in paired[ko.name]:
            return [(ko.name, rnd + 1, a, b) for a, b in bracket.next_round([m["winner"] for m in done])], []
    if len(knockouts) > 1 and 1 not in paired[knockouts[1].name]:
        semis = complete(ko.name, ko_rounds) or []
        pairs = bracket.final_and_bronze([(m["team_a"], m["team_b"], m["winner"]) for m in semis])
        return [(knockouts[1].name, 1, a, b) for a, b in pairs], []
    return [], []


def proposal_rows(
    con: Any, config: Config, pairs: list[tuple[str, int, str, str]]
) -> tuple[tuple[str, ...], list[list[Any]]]:
    """Proposed pairings as rows of the TD's pairings.csv, to append as they are: its columns in its
    order (all of PAIRINGS_COLUMNS when it has no header yet), each row with its round's window —
    the stage's own (first_round_start, TEAM-FMT-3) when the config sets one, else the weeks
    (round_days) after the latest round paired so far (its earliest window end: one extended
    match does not move it). When that window cannot be left to the
    stage's default and pairings.csv has no window columns, the proposal has every column (a note
    says to add them to pairings.csv)."""
    last = store.query(con, "queries/last_window_end").item()
    paired = {
        s.name: max((r["round"] for r in store.query(con, "queries/pairings_of_stage", [s.name]).to_dicts()), default=0)
        for s in config.stages
    }
    rows = []
    for stage_name, rnd, a, b in pairs:
        stage = config.stage(stage_name)
        window = stage.round_window(rnd)
        if window is None and last is not None:
            start = last + dt.timedelta(days=stage.round_days * (rnd - 1 - paired[stage_name]))
            window = (start, start + dt.timedelta(days=stage.round_days))
        start, end = window or (None, None)
        rows.append(
            {
                "stage": stage_name,
                "round": rnd,
                "a": a,
                "b": b,
                "window_start": start,
                "window_end": end,
                "bye": "",
                "_default": stage.round_window(rnd) is not None,
            }
        )
    columns = pairings_header(config.paths.pairings)
    if not {"window_start", "window_end"} <= set(columns) and not all(r["_default"] for r in rows):
        log.warning(
            "knockout: next_pairings.csv has window columns %s lacks: add window_start,window_end,bye to its "
            "header (empty cells on its rows) before appending",
            config.paths.pairings.name,
        )
        columns = PAIRINGS_COLUMNS
    return columns, [[r[c] for c in columns] for r in rows]


def pairings_header(path: Path) -> tuple[str, ...]:
    """The columns of the TD's pairings.csv, as its loader reads them (PAIRINGS_COLUMNS when the
    file has no usable header)."""
    try:
        first = path.read_text(encoding="utf-8-sig").splitlines()[:1]
    except (OSError, UnicodeDecodeError):
        return PAIRINGS_COLUMNS
    header = tuple(h.strip().lower() for h in next(csv.reader(first), []))
    if not {"stage", "round", "a", "b"} <= set(header) or not set(header) <= set(PAIRINGS_COLUMNS):
        return PAIRINGS_COLUMNS
    return header


def stage_results(con: Any, config: Config) -> list[bracket.StageResult]:
    """Every stage as the placings and the knockout roles read it: a swiss or round-robin stage's
    latest table and whether every round is decided; a knockout stage's matches."""
    out = []
    for stage in config.stages:
        if stage.kind == "knockout":
            ms = store.query(con, "queries/team_matches_of_stage", [stage.name]).to_dicts()
            out.append(
                bracket.StageResult(
                    stage.name,
                    stage.kind,
                    matches=tuple(
                        bracket.Match(
                            stage.name,
                            m["round"],
                            m["team_a"],
                            m["team_b"],
                            m["a_points"],
                            m["b_points"],
                            m["winner"],
                            _decided_by(m),
                        )
                        for m in ms
                    ),
                )
            )
            continue
        table = store.query(con, "queries/standings_latest", [stage.name]).to_dicts()
        out.append(
            bracket.StageResult(
                stage.name,
                stage.kind,
                complete=_stage_complete(con, stage) is not None,
                table=tuple(
                    bracket.TableRow(r["entrant"], r["rank"], r["match_points"], r["points_scored"], r["pool"])
                    for r in table
                ),
            )
        )
    return out


def knockout_labels(con: Any, config: Config, stage: Stage) -> dict[tuple[str, str], str]:
    """Each knockout match's role as its round post names it ("Final", "Bronze match",
    "Semifinal", ...), by (team_a id, team_b id): the same roles the placings read (bracket.knockout_roles)."""
    results = stage_results(con, config)
    roles = bracket.knockout_roles(results)
    return {
        (m.a, m.b): roles[stage.name, m.round, m.a].capitalize()
        for r in results
        if r.name == stage.name
        for m in r.matches
        if (stage.name, m.round, m.a) in roles
    }


def _decided_by(match: dict[str, Any]) -> str:
    """How a knockout match level on points was decided: the TD's armageddon ruling (ARM-1), the
    captains' tiebreak (TEAM-KO-1), or another ruling."""
    if match["override"] and "armageddon" in match["override"].lower():
        return "armageddon (ARM-1)"
    if (match["tiebreak"] or "").startswith("TEAM-KO-1") and match["winner"]:
        return "the captains' tiebreak (TEAM-KO-1)"
    return match["override"] or ""


def write_placings(con: Any, config: Config) -> None:
    """scored_placings: the event's final order from the bracket (bracket.placings), rewritten whole."""
    names = dict(store.query(con, "queries/entrant_names").iter_rows())
    rows = [
        {"position": i, **dataclasses.asdict(p)}
        for i, p in enumerate(bracket.placings(stage_results(con, config), names), 1)
    ]
    with store.transaction(con):
        store.replace_where(con, "scored_placings", {}, rows)


def _stage_complete(con: Any, stage: Any) -> list[dict[str, Any]] | None:
    """The stage's matches once every round is paired and decided (no match pending, unplayed or
    waiting for a tiebreak), else None."""
    ms = store.query(con, "queries/team_matches_of_stage", [stage.name]).to_dicts()
    if {m["round"] for m in ms} != set(range(1, stage.rounds + 1)) or any(
        m["outcome"] in ("pending", "unplayed") for m in ms
    ):
        return None
    return ms


def next_acwc_pairings(config: Config, con: Any) -> tuple[list[tuple[str, int, str, str]], list[str]]:
    """The ACWC's next stage pairings once the stage before is decided: after the qualification its
    top players (ACWC-Q-3: `advance`, one more per absent previous finalist) in ACWC-C-1's pools,
    each a round robin; after the candidates ACWC-SF-1's semifinals (each pool's winner v the other
    pool's runner-up); after the semifinals the final and the third-place match (ACWC-F-1)."""
    by_kind: dict[str, list[Any]] = {}
    for s in config.stages:
        by_kind.setdefault(s.kind, []).append(s)
    quali, cands, kos = (
        (by_kind.get("swiss") or [None])[0],
        (by_kind.get("round_robin") or [None])[0],
        by_kind.get("knockout", []),
    )
    if quali is None or cands is None or quali.advance is None:
        return [], []
    paired = {s.name: bool(store.query(con, "queries/pairings_of_stage", [s.name]).height) for s in [cands, *kos]}
    if not paired[cands.name]:
        if _stage_complete(con, quali) is None:
            return [], []
        champion, runner_up = finalist_ids(config)
        finalists = [p for p in (champion, runner_up) if p]
        n = bracket.acwc_qualifiers(quali.advance, len(finalists))
        table = [
            r["entrant"]
            for r in store.query(con, "queries/standings_after", [quali.name, quali.rounds]).to_dicts()
            if r["entrant"] not in finalists
        ]
        try:
            upper, lower = standings.candidates_pools(table[:n], champion, runner_up)
            rounds = [bracket.round_robin(pool, cands.rounds) for pool in (upper, lower)]
        except (ValueError, bracket.BracketError) as e:
            return [], [f"candidates: {e}"]
        notes = [
            f"ACWC-Q-3: {n} qualify: {', '.join(table[:n])}; upper pool {', '.join(upper)}; lower pool {', '.join(lower)}"
        ]
        return [(cands.name, r + 1, a, b) for pool in rounds for r, pairs in enumerate(pool) for a, b in pairs], notes
    if not kos:
        return [], []
    semis = kos[0]
    if not paired[semis.name]:
        if _stage_complete(con, cands) is None:
            return [], []
        table = store.query(con, "queries/standings_after", [cands.name, cands.rounds]).to_dicts()
        pools: dict[int, list[str]] = {}
        for r in sorted(table, key=lambda r: (r["pool"], r["rank"])):
            pools.setdefault(r["pool"], []).append(r["entrant"])
        if len(pools) != 2:
            return [], [f"candidates: {len(pools)} pools played; ACWC-SF-1 pairs the winners and runners-up of 2"]
        ranked = [pools[k] for k in sorted(pools)]
        tied = [k for k in sorted(pools) if sum(r["rank"] <= 2 for r in table if r["pool"] == k) != 2]
        if tied:
            return [], [
                f"candidates pool {tied[0]}: its first two places are not decided by ACWC-C-2's tiebreaks: "
                "the TD orders them (players.csv order is the last tiebreak)"
            ]
        return [(semis.name, 1, a, b) for a, b in bracket.acwc_semifinals(ranked[0], ranked[1])], []
    if len(kos) > 1 and not paired[kos[1].name]:
        done = _stage_complete(con, semis)
        if done is None or not all(m["winner"] for m in done):
            return [], []
        pairs = bracket.final_and_bronze([(m["team_a"], m["team_b"], m["winner"]) for m in done if m["round"] == 1])
        return [(kos[1].name, 1, a, b) for a, b in pairs], []
    return [], []
