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

from pipeline.domain import bracket, standings
from pipeline.model import Config, Stage
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
    notes = [
        f"ACWC-Q-3: {n} qualify: {', '.join(table[:n])}; upper pool {', '.join(upper)}; lower pool {', '.join(lower)}"
    ]
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
    con: Any, config: Config, pairs: list[tuple[str, int, str, str]]
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
