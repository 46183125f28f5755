"""The next round's or stage's pairings, proposed once the one before is decided: the team
knockout bracket (TEAM-FMT-1) and the ACWC's candidates, semifinals and final (ACWC-Q-3, ACWC-C-1,
ACWC-SF-1, ACWC-F-1), as rows of the TD's pairings.csv (``next_pairings.csv``).
"""

from __future__ import annotations

import csv
import datetime as dt
import logging
from pathlib import Path
from typing import Any

from pipeline.domain import bracket, dutch, standings
from pipeline.errors import InputError
from pipeline.model import Config, Override, Stage
from pipeline.stages import context, placings
from pipeline.store import gateway

log = logging.getLogger(__name__)


PAIRINGS_COLUMNS = ("stage", "round", "a", "b", "window_start", "window_end", "bye")  # pairings.csv's


def next_knockout_pairings(config: Config, con: Any) -> tuple[list[tuple[str, int, str, str]], list[str]]:
    """The next knockout round's pairings, once the round before it is decided (TEAM-FMT-1 bracket):
    after the Swiss, 1 v N of its final standings; after a knockout round, its winners; after the
    semifinals, the final and the bronze match. Returns (rows, notes for the TD)."""
    stages = list(config.stages)
    swiss = next((s for s in stages if s.kind == "swiss"), None)
    knockouts = [s for s in stages if s.kind == "knockout"]
    if swiss is None or not knockouts or config.kind != "team":
        return [], []
    matches = {s.name: gateway.query(con, "queries/team_matches_of_stage", [s.name]).to_dicts() for s in knockouts}
    paired = {
        s.name: {r["round"] for r in gateway.query(con, "queries/pairings_of_stage", [s.name]).to_dicts()}
        for s in knockouts
    }

    def complete(stage_name: str, rnd: int) -> list[dict[str, Any]] | None:
        ms = [m for m in matches[stage_name] if m["round"] == rnd]
        return ms if ms and all(m["winner"] for m in ms) else None

    if placings.decided_stage_matches(con, swiss) is None:
        return [], []
    ko = knockouts[0]
    table = gateway.query(con, "queries/standings_after", [swiss.name, swiss.rounds]).to_dicts()
    ko_rounds, problem = context.bracket_size(config, len(table))
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
    paired = {s.name: bool(gateway.query(con, "queries/pairings_of_stage", [s.name]).height) for s in [cands, *kos]}
    if not paired[cands.name]:
        if placings.decided_stage_matches(con, quali) is None:
            return [], []
        return candidates_pairings(config, con, quali, cands)
    if not kos:
        return [], []
    semis = kos[0]
    if not paired[semis.name]:
        if placings.decided_stage_matches(con, cands) is None:
            return [], []
        return acwc_semifinal_pairings(con, cands, semis)
    if len(kos) > 1 and not paired[kos[1].name]:
        done = placings.decided_stage_matches(con, semis)
        if done is None or not all(m["winner"] for m in done):
            return [], []
        pairs = bracket.final_and_bronze([(m["team_a"], m["team_b"], m["winner"]) for m in done if m["round"] == 1])
        return [(kos[1].name, 1, a, b) for a, b in pairs], []
    return [], []


def candidates_pairings(
    config: Config, con: Any, quali: Stage, cands: Stage
) -> tuple[list[tuple[str, int, str, str]], list[str]]:
    """The candidates' round robins once the qualification is decided: its top players (ACWC-Q-3)
    and the previous finalists in ACWC-C-1's two pools; a note names who qualified."""
    assert quali.advance is not None
    champion, runner_up = context.finalist_ids(config)
    finalists = [p for p in (champion, runner_up) if p]
    n = bracket.acwc_qualifiers(quali.advance, len(finalists))
    table = [
        r["entrant"]
        for r in gateway.query(con, "queries/standings_after", [quali.name, quali.rounds]).to_dicts()
        if r["entrant"] not in finalists
    ]
    try:
        upper, lower = standings.candidates_pools(table[:n], champion, runner_up)
        rounds = [bracket.round_robin(pool, cands.rounds) for pool in (upper, lower)]
    except (ValueError, bracket.BracketError) as e:
        return [], [f"candidates: {e}"]
    names = dict(gateway.query(con, "queries/entrant_names").iter_rows())

    def shown(ids: list[str]) -> str:
        return ", ".join(names.get(e, e) for e in ids)

    notes = [f"ACWC-Q-3: {n} qualify: {shown(table[:n])}; upper pool {shown(upper)}; lower pool {shown(lower)}"]
    return [(cands.name, r + 1, a, b) for pool in rounds for r, pairs in enumerate(pool) for a, b in pairs], notes


def acwc_semifinal_pairings(con: Any, cands: Stage, semis: Stage) -> tuple[list[tuple[str, int, str, str]], list[str]]:
    """ACWC-SF-1's semifinals once the candidates are decided: each pool's winner v the other
    pool's runner-up; a note instead when the pools are not two or a pool's first two places tie."""
    table = gateway.query(con, "queries/standings_after", [cands.name, cands.rounds]).to_dicts()
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


def proposal_rows(
    con: Any, config: Config, pairs: list[tuple[str, int, str, str]], columns: tuple[str, ...] | None = None
) -> tuple[tuple[str, ...], list[list[Any]]]:
    """Proposed pairings as rows of the TD's pairings.csv, to append as they are: its columns in its
    order (all of PAIRINGS_COLUMNS when it has no header yet), each row with its round's window —
    the stage's own (first_round_start, TEAM-FMT-3) when the config sets one, else the weeks
    (round_days) after the latest round paired so far (its earliest window end: one extended
    match does not move it). When that window cannot be left to the
    stage's default and pairings.csv has no window columns, the proposal has every column (a note
    says to add them to pairings.csv)."""
    last = gateway.query(con, "queries/last_window_end").item()
    paired = {
        s.name: max(
            (r["round"] for r in gateway.query(con, "queries/pairings_of_stage", [s.name]).to_dicts()), default=0
        )
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
                "bye": "pab" if b == "" else "",  # a Swiss round's pairing-allocated bye
                "_default": stage.round_window(rnd) is not None,
            }
        )
    columns = columns or pairings_header(config.paths.pairings)
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


# --- Swiss: the next round by the FIDE Dutch system (pipeline/domain/dutch.py) -----------------


def swiss_inputs(
    config: Config, con: Any, inputs: context.Inputs, stage: Stage, round_no: int
) -> tuple[list[dutch.Entrant], list[dutch.Result], dutch.Controls, dict[str, str]]:
    """What pairing round ``round_no`` of a Swiss stage needs, read once: the entrants in seeding
    order (ACWC-SEED-1's seeding rating; a team's is the mean of its boards 1..boards), the
    published results of rounds 1..round_no-1 as scores in units of one round's most (match points
    divided by a match win's; game points by a match's total), the TD's controls, and each
    entrant's name as shown. InputError (exit 2) when a round before is not complete or a control
    names no entrant."""
    where = f"stage {stage.name!r}"
    entrants = list(inputs.roster.entrants)
    ids: dict[str, str] = {}
    for m in inputs.roster.members:
        ids[m.entrant.lower()] = m.entrant
        if config.kind == "individual":
            ids[m.player_name.lower()] = ids[m.player_id] = m.entrant

    def entrant(name: str, key: str) -> str:
        e = ids.get(name.strip().lower())
        if e is None:
            what = "a team of teams.csv" if config.kind == "team" else "a player of players.csv"
            raise InputError(config.path, f"key 'stages.{stage.name}.{key}'", f"{name!r}: expected {what}")
        return e

    forbidden = frozenset(
        frozenset((entrant(a, "forbidden_pairs"), entrant(b, "forbidden_pairs"))) for a, b in stage.forbidden_pairs
    )
    win = stage.match_points.win or 1.0
    unit = stage.board_max_points * (config.boards if config.kind == "team" else 1) or 1.0  # a round's most
    matches = gateway.query(con, "queries/swiss_matches_of_stage", [stage.name]).to_dicts()
    pending = [m for m in matches if m["round"] < round_no and m["outcome"] == "pending"]
    if pending:
        shown = ", ".join(f"{m['team_a']} v {m['team_b']}" for m in pending[:3])
        raise InputError(
            config.path,
            where,
            f"round {pending[0]['round']} is not complete ({len(pending)} match(es) pending: {shown}): "
            f"round {round_no} is paired from the published results of rounds 1-{round_no - 1}",
        )
    late = {entrant(e, "late_entrants"): s for e, s in stage.late_entrants}
    if not gateway.query(con, "queries/audit_has_run").item():
        raise InputError(config.path, where, f"round {round_no}: {NOT_AUDITED}")
    seeded, history = stage_results(config, con, stage, round_no)
    published = {e.id for e in seeded}  # a late entrant registered since the last run: players.csv's seed
    seeds = {m.entrant: float(m.seed_rating or 0) for m in inputs.roster.members if m.board == 1}
    seeded = dutch.seed_order([*seeded, *(dutch.Entrant(e, seeds.get(e, 0.0)) for e in entrants if e not in published)])
    start = {e: s / (win if stage.primary == "match_points" else unit) for e, s in late.items()}
    absent = {b.entrant for b in inputs.byes if b.stage == stage.name and b.round == round_no}
    absent |= {x for p in inputs.pairings if p.stage == stage.name and p.round == round_no for x in (p.a, p.b)}
    member = {m.player_id: (m.entrant, m.is_captain) for m in inputs.roster.members}
    absent |= disqualified(config, list(inputs.overrides), member, round_no)
    absent |= published - set(entrants)  # no longer in teams.csv / players.csv
    names = dict(gateway.query(con, "queries/entrant_names").iter_rows())
    return seeded, history, dutch.Controls(frozenset(absent), forbidden, start), names


# The seeding view reads its seeding time from audit_params, which the audit step writes: with no
# audit run yet every entrant would seed at 0 and the pairing numbers would follow the names.
NOT_AUDITED = (
    "the seeding ratings that number the entrants (the seeding view, ACWC-SEED-1) come with the audits, "
    "and no audit has run on the published snapshot: run `antichess-td audit` (or the nightly run) first"
)


def stage_results(
    config: Config, con: Any, stage: Stage, round_no: int
) -> tuple[list[dutch.Entrant], list[dutch.Result]]:
    """From the published snapshot only: the stage's entrants in seeding order (ACWC-SEED-1's
    seeding rating from the seeding view; a team's the mean of its boards 1..boards; players.csv's
    seed rating where the view has none, 0 without either) and the results of rounds before
    ``round_no`` as pairing scores (units of one round's most: match points divided by a match
    win's, game points by a match's total)."""
    win = stage.match_points.win or 1.0
    unit = stage.board_max_points * (config.boards if config.kind == "team" else 1) or 1.0
    history: list[dutch.Result] = []
    for t in gateway.query(con, "queries/swiss_matches_of_stage", [stage.name]).to_dicts():
        if t["round"] >= round_no or t["outcome"] == "pending":
            continue
        if stage.primary == "game_points":
            a, b = t["a_points"] / unit, t["b_points"] / unit
        else:
            mp = stage.match_points
            a = {"a": mp.win, "b": mp.loss, "draw": mp.draw}.get(t["outcome"], 0.0) / win
            b = {"b": mp.win, "a": mp.loss, "draw": mp.draw}.get(t["outcome"], 0.0) / win
        outcome: dutch.Outcome = "played" if t["games_played"] else "forfeit"
        history.append(dutch.Result(t["round"], t["team_a"], t["team_b"], a, b, outcome))
    for y in gateway.query(con, "queries/byes_of_stage", [stage.name]).to_dicts():
        if y["round"] < round_no:
            score = {"pab": 1.0, "full": 1.0, "half": 0.5}.get(y["kind"], 0.0)
            history.append(dutch.Result(y["round"], y["entrant"], None, score, 0.0, y["kind"]))
    seeds = context.entrant_seeds(con, config)
    for x in (x for r in history for x in (r.a, r.b) if x is not None):
        seeds.setdefault(x, 0.0)  # scored but no longer registered: kept, unrated
    entrants = dutch.seed_order(dutch.Entrant(e, r) for e, r in seeds.items())
    return entrants, history


def disqualified(config: Config, rulings: list[Any], members: dict[str, tuple[str, bool]], round_no: int) -> set[str]:
    """Entrants out of the Swiss by round ``round_no`` (overrides.csv `disqualify` from a round up
    to it; ``members``: player id -> (entrant, is captain)): a player (ACWC-DQ-1); a team with two
    players or its captain out (TEAM-COMP-7)."""
    out: dict[str, set[str]] = {}
    for o in rulings:
        if o.action == "disqualify" and o.round <= round_no and o.subject in members:
            out.setdefault(members[o.subject][0], set()).add(o.subject)
    if config.kind == "individual":
        return set(out)
    return {t for t, ps in out.items() if len(ps) >= 2 or any(members[p][1] for p in ps)}


def propose_swiss_round(
    config: Config, con: Any, inputs: context.Inputs, stage: Stage, round_no: int
) -> tuple[dutch.Proposal, dict[str, str]]:
    """Round ``round_no`` of Swiss stage ``stage`` proposed by the FIDE Dutch system from the
    published rounds before it; InputError (exit 2) naming the constraint that cannot be met."""
    if stage.kind != "swiss":
        raise InputError(config.path, f"stage {stage.name!r}", f"a {stage.kind} stage: `pair` proposes Swiss rounds")
    if not 1 <= round_no <= stage.rounds:
        raise InputError(config.path, f"stage {stage.name!r}", f"round {round_no}: expected 1-{stage.rounds}")
    already_paired(config, inputs, stage, round_no)
    entrants, history, controls, names = swiss_inputs(config, con, inputs, stage, round_no)
    try:
        proposal = dutch.pair_round(entrants, history, round_no, stage.rounds, controls)
    except dutch.PairingError as e:
        raise InputError(config.path, f"stage {stage.name!r}", str(e)) from e
    return proposal, names


def already_paired(config: Config, inputs: context.Inputs, stage: Stage, round_no: int) -> None:
    """InputError (exit 2) when pairings.csv already pairs round ``round_no`` of ``stage``: it has
    pairings for the round, and they, its byes and the disqualified leave fewer than two entrants
    to pair. A round entered only in part is not refused: the rest of it is paired."""
    pairings = [p for p in inputs.pairings if p.stage == stage.name and p.round == round_no]
    if not pairings:
        return
    byes = [b for b in inputs.byes if b.stage == stage.name and b.round == round_no]
    member = {m.player_id: (m.entrant, m.is_captain) for m in inputs.roster.members}
    seated = {x for p in pairings for x in (p.a, p.b)} | {b.entrant for b in byes}
    seated |= disqualified(config, list(inputs.overrides), member, round_no)
    if sum(e not in seated for e in inputs.roster.entrants) >= 2:
        return
    entered = f"{len(pairings)} pairing{'s' if len(pairings) != 1 else ''}"
    if byes:
        entered += f" and {len(byes)} bye{'s' if len(byes) != 1 else ''}"
    raise InputError(
        config.path,
        f"stage {stage.name!r}",
        f"round {round_no} is already paired in {config.paths.pairings.name}: {entered}; remove them to pair it again",
    )


def swiss_rows(
    con: Any, config: Config, stage: Stage, proposal: dutch.Proposal, names: dict[str, str]
) -> tuple[tuple[str, ...], list[list[Any]]]:
    """A proposal as rows of the TD's pairings.csv, to append as they are (its columns, as
    proposal_rows gives them with the round's window; all of PAIRINGS_COLUMNS when a bye needs the
    column it lacks): White's entrant as `a` (board 1 for a team), the pairing-allocated bye as a row
    with an empty b and bye `pab`."""
    pairs: list[tuple[str, int, str, str]] = [
        (stage.name, proposal.round, names.get(a, a), names.get(b, b)) for a, b in proposal.pairs
    ]
    if proposal.bye is not None:
        pairs.append((stage.name, proposal.round, names.get(proposal.bye, proposal.bye), ""))
    columns, rows = proposal_rows(con, config, pairs)
    if proposal.bye is not None and "bye" not in columns:
        log.warning(
            "%s round %d: the proposal has a bye: add window_start,window_end,bye to %s's header (empty cells on "
            "its rows) before appending",
            stage.name,
            proposal.round,
            config.paths.pairings.name,
        )
        columns, rows = proposal_rows(con, config, pairs, PAIRINGS_COLUMNS)
    return columns, rows


def swiss_post(
    config: Config,
    stage: Stage,
    proposal: dutch.Proposal,
    names: dict[str, str],
    columns: tuple[str, ...],
    rows: list[list[Any]],
) -> str:
    """The proposed round as a forum post: its window, a table of the pairings (White first: board 1's
    White for a team) and the bye, and how it was paired."""
    from pipeline.report import exports

    shown = [names.get(x, x) for pair in proposal.pairs for x in pair]
    lines = [f"## {exports.markdown_cell(config.name)} — {stage.name}, round {proposal.round}: pairings", ""]
    window = stage.round_window(proposal.round)
    if window is None and rows and "window_start" in columns:
        window = (rows[0][columns.index("window_start")], rows[0][columns.index("window_end")])
    if window is not None and None not in window:
        lines += [f"Window: {window[0]:%Y-%m-%d %H:%M} – {window[1]:%Y-%m-%d %H:%M} UTC", ""]
    white = "White on board 1" if config.kind == "team" else "White in game 1"
    table = [[i, shown[2 * i - 2], shown[2 * i - 1]] for i in range(1, len(proposal.pairs) + 1)]
    lines += exports.markdown_table(["#", white, "Black"], table)
    if proposal.bye is not None:
        lines += ["", f"Pairing-allocated bye: {exports.markdown_cell(names.get(proposal.bye, proposal.bye))}"]
    lines += [
        "",
        f"Paired by the FIDE Dutch system from the published results of rounds 1-{proposal.round - 1}"
        if proposal.round > 1
        else "Paired by the FIDE Dutch system from the seeding ratings (round 1)",
    ]
    return "\n".join(lines) + "\n"


def write_swiss_proposal(config: Config, con: Any, inputs: context.Inputs, stage: Stage, round_no: int) -> list[Path]:
    """exports/pairings_<stage>_<N>.csv (rows to append to pairings.csv as they are) and its .md post."""
    from pipeline.report import exports

    proposal, names = propose_swiss_round(config, con, inputs, stage, round_no)
    columns, rows = swiss_rows(con, config, stage, proposal, names)
    csv_path = config.paths.exports / f"pairings_{stage.name}_{round_no}.csv"
    md_path = csv_path.with_suffix(".md")
    exports.write_csv(csv_path, columns, rows)
    exports.write_text(md_path, swiss_post(config, stage, proposal, names, columns, rows))
    return [csv_path, md_path]


def next_swiss_pairings(config: Config, con: Any) -> tuple[list[tuple[str, int, str, str]], list[str]]:
    """The nightly run's proposal for a Swiss stage's next round (next_pairings.csv, as for the
    knockout bracket): once the latest round paired in pairings.csv is decided and the stage has
    rounds left, the next one by the FIDE Dutch system from the published snapshot alone (its
    byes, disqualifications, and the config's forbidden_pairs and late_entrants). A bye row has an
    empty b. A round that cannot be paired is a note instead, naming the constraint."""
    for stage in (s for s in config.stages if s.kind == "swiss"):
        paired = {r["round"] for r in gateway.query(con, "queries/pairings_of_stage", [stage.name]).to_dicts()}
        byes = gateway.query(con, "queries/byes_of_stage", [stage.name]).to_dicts()
        last = max(paired | {y["round"] for y in byes}, default=0)
        if last == 0 or last >= stage.rounds:
            continue
        matches = [t for t in gateway.query(con, "queries/swiss_matches_of_stage", [stage.name]).to_dicts()]
        if any(t["outcome"] == "pending" for t in matches if t["round"] == last) or not any(
            t["round"] == last for t in matches
        ):
            return [], []
        rnd = last + 1
        if not gateway.query(con, "queries/audit_has_run").item():
            return [], [f"{stage.name} round {rnd} is not proposed: {NOT_AUDITED}"]
        entrants, history = stage_results(config, con, stage, rnd)
        members = gateway.query(con, "queries/members").to_dicts()
        ids = {m["entrant"].lower(): m["entrant"] for m in members} | {m["player_id"]: m["entrant"] for m in members}
        win = stage.match_points.win or 1.0
        unit = stage.board_max_points * (config.boards if config.kind == "team" else 1) or 1.0
        late = {
            ids[e.lower()]: s / (win if stage.primary == "match_points" else unit)
            for e, s in stage.late_entrants
            if e.lower() in ids
        }
        forbidden = frozenset(
            frozenset((ids[a.lower()], ids[b.lower()]))
            for a, b in stage.forbidden_pairs
            if a.lower() in ids and b.lower() in ids
        )
        rulings = [Override(**r) for r in gateway.query(con, "queries/rulings").iter_rows(named=True)]
        member = {m["player_id"]: (m["entrant"], bool(m["is_captain"])) for m in members}
        absent = frozenset(disqualified(config, [o for o in rulings if o.stage == stage.name], member, rnd))
        try:
            proposal = dutch.pair_round(entrants, history, rnd, stage.rounds, dutch.Controls(absent, forbidden, late))
        except dutch.PairingError as e:
            return [], [f"{stage.name} round {rnd} is not proposed: {e}"]
        rows = [(stage.name, rnd, a, b) for a, b in proposal.pairs]
        return rows + ([(stage.name, rnd, proposal.bye, "")] if proposal.bye else []), []
    return [], []
