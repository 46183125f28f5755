"""The export stage: the CSV files, round posts, cap charts, next pairings and placings a TD
publishes, written from the database (read-only) into ``paths.exports``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pipeline.domain.findings import Finding
from pipeline.model import Config
from pipeline.report import exports, parquet
from pipeline.report.posts import round_post, write_findings, write_results, write_standings
from pipeline.stages import pairing, placings
from pipeline.stages.audit_findings import read_findings
from pipeline.store import gateway

log = logging.getLogger(__name__)


PLACINGS_COLUMNS = ("stage", "place", "entrant", "how")


def export_stage(config: Config, findings: Sequence[Finding] | None = None) -> list[Path]:
    """Per stage: standings_<stage>.csv (the table after the latest round; none for a knockout
    stage, whose order is in placings.csv), results_<stage>.csv (one row per board match: parts,
    totals, game links) and a Markdown post per round (round_<n>.md for the first stage,
    round_<stage>_<n>.md for the others, since every stage numbers its rounds from 1);
    audit_findings.csv once an audit has run (findings read what scoring wrote: a ruling can
    change them); then next_pairings.csv (the next stage's or round's pairings, when ready),
    placings.csv and games.parquet (every match_games row in the Lichess open database's Parquet
    schema, pipeline/report/parquet.py). What is in each file: pipeline/report/posts.py.

    `findings`: those of an audit stage run just before on the same database (nightly and
    `audit` pass theirs), so that the audits are not evaluated a second time; None reads them."""
    written = []
    con = gateway.connect(config.paths.database, read_only=True)
    try:
        for i, stage in enumerate(config.stages):
            df = gateway.query(con, "queries/standings_latest", [stage.name])
            path = config.paths.exports / f"standings_{stage.name}.csv"
            if stage.kind == "knockout":  # a knockout has no table: its order is placings.csv
                path.unlink(missing_ok=True)
            elif df.height:
                written.append(write_standings(path, stage, df))
            boards = gateway.query(con, "queries/board_results_of_stage", [stage.name])
            if boards.height == 0:
                continue
            written.append(write_results(config.paths.exports / f"results_{stage.name}.csv", stage, boards))
            labels = placings.knockout_labels(con, config, stage) if stage.kind == "knockout" else {}
            for (rnd,) in gateway.query(con, "queries/rounds_of_stage", [stage.name]).iter_rows():
                name = f"round_{rnd}.md" if i == 0 else f"round_{stage.name}_{rnd}.md"
                path = config.paths.exports / name
                exports.write_text(path, round_post(con, config, stage, rnd, boards, labels))
                written.append(path)
        written += write_trf_files(config, con)
        if gateway.query(con, "queries/audit_has_run").item():
            found = read_findings(con) if findings is None else list(findings)
            written.append(write_findings(config.paths.exports / "audit_findings.csv", found))
        written += write_cap_charts(config, con)
        written += write_next_pairings(config, con)
        if "placings" in set(gateway.query(con, "queries/user_views")["view_name"]):  # not in a snapshot from before it
            path = config.paths.exports / "placings.csv"
            exports.write_csv(path, PLACINGS_COLUMNS, gateway.query(con, "queries/placings").iter_rows())
            written.append(path)
        written.append(write_games(config, con))
    finally:
        con.close()
    return written


def write_games(config: Config, con: Any) -> Path:
    """games.parquet: one row per match_games row, in the Lichess open database's Parquet schema
    plus the tournament's keys; written every run, with no rows before the first scored game."""
    path = config.paths.exports / "games.parquet"
    parquet.write_games_parquet(path, gateway.query(con, "queries/games_parquet").iter_rows(named=True))
    return path


def write_next_pairings(config: Config, con: Any) -> list[Path]:
    """next_pairings.csv: the next knockout or ACWC stage's pairings when ready, else a Swiss
    stage's next round; removed when there is none."""
    rows, notes = (
        pairing.next_knockout_pairings(config, con)
        if config.kind == "team"
        else pairing.next_acwc_pairings(config, con)
    )
    for note in notes:
        log.warning("knockout: %s", note)
    if not rows:  # else a Swiss stage's next round, in the same file
        rows, notes = pairing.next_swiss_pairings(config, con)
        for note in notes:
            log.warning("%s", note)
    path = config.paths.exports / "next_pairings.csv"
    if not rows:
        path.unlink(missing_ok=True)
        return []
    # a fragment of pairings.csv for the TD to check, publish and append as it is
    names = dict(gateway.query(con, "queries/entrant_names").iter_rows())  # as `pair` names them
    rows = [(stage_name, rnd, names.get(a, a), names.get(b, b)) for stage_name, rnd, a, b in rows]
    columns, proposed = pairing.proposal_rows(con, config, rows)
    exports.write_csv(path, columns, proposed)
    return [path]


def write_cap_charts(config: Config, con: Any) -> list[Path]:
    """TEAM-CAP-1..5: one chart per last-board player, ``<exports>/charts/cap_<user_id>.svg``, the
    chart the audits page shows (pipeline/report/site/svg.py): the rating since cap_since against
    the cap, crossings marked, counted or not; the cap findings link it. Nothing before the first
    audit run (its parameters pick the players)."""
    from pipeline.report.site import svg

    players = gateway.query(con, "queries/cap_chart_players").to_dicts()
    if not players:
        return []
    events: dict[str, list[dict[str, Any]]] = {}
    for e in gateway.query(con, "queries/cap_chart_points").iter_rows(named=True):
        events.setdefault(e["user_id"], []).append(e)
    written = []
    for p in players:
        path = config.paths.exports / "charts" / f"cap_{p['user_id']}.svg"
        exports.write_bytes(path, svg.cap_chart_file(p, events.get(p["user_id"], [])))
        written.append(path)
    return written


def write_trf_files(config: Config, con: Any) -> list[Path]:
    """<stage>.trf (TRF-16) of every Swiss stage with a decided round: its entrants (players, or
    teams as entrants) in seeding order, every decided match and bye (pipeline/report/trf.py)."""
    from pipeline.report import trf

    written = []
    names = dict(gateway.query(con, "queries/entrant_names").iter_rows())
    for stage in (s for s in config.stages if s.kind == "swiss"):
        entrants, history = pairing.stage_results(config, con, stage, stage.rounds + 1)
        path = config.paths.exports / f"{stage.name}.trf"
        if not history:
            path.unlink(missing_ok=True)
            continue
        exports.write_text(path, trf.write_trf(config.name, entrants, history, stage.rounds, names))
        written.append(path)
    return written
