"""Audit a built demo as a nightly run does (ingest from the in-process replay server, score,
audit, for the TEAM season and the ACWC qualification) and compare the findings with what the
generator planted. Shared by conftest's `audited` fixture (the suite's demo, SUITE_DEMO) and
tests/sim/test_demo_seeds.py (another seed)."""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
from pathlib import Path
from typing import Any

import duckdb

from pipeline.inputs.config import load_config
from pipeline.stages import audit, context, ingest, record, score

NOW = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)
AUDIT_RULES = ("TEAM-ELIG-", "TEAM-COMP-", "TEAM-CAP-", "TEAM-CONDUCT-", "ACWC-ELIG-", "ACWC-SEED-", "ACWC-CONDUCT-")

Finding = tuple[str, str, str, str]  # rule_id, severity, subject, team ('' for none)

# The suite's demo (conftest's `suite_demo`): the default demo's seed and 12 teams (TEAM-FMT-1: 4
# qualify), the fewest history games TEAM-ELIG-2 allows (1000 before registration: the generator
# then checks every clean player meets TEAM-ELIG-2/3), all of them generated and stored
# (`stored: None`: the RD-accuracy bounds are measured on long stored histories), and 8 ACWC
# players (5 rounds, ACWC-Q-1) instead of 40: 59 players and 83,148 games, with the same 33
# planted violations and 2 traps as the default demo (91 players, 49,614 games, most of each
# account's games counted on its profile only). tests/sim/test_demo_seeds.py audits the default
# demo and another seed with profile-counted games.
SUITE_DEMO: dict[str, Any] = {"seed": 2026, "teams": 12, "games": (1000, 1000), "acwc_players": 8, "stored": None}


def audit_demo(demo: Path) -> dict[str, Path]:
    """Both demo events ingested (from the in-process replay server), scored and audited as of NOW
    in one recorded run each, as `nightly` does (the runs record, then publish); returns their
    published databases by name (team, acwc)."""
    dbs = {}
    for name, cfg_path in (("team", demo / "tournament.toml"), ("acwc", demo / "acwc" / "tournament.toml")):
        cfg = load_config(cfg_path)
        inputs = context.read_inputs(cfg)
        with record.recorded(cfg, "nightly", NOW) as run:
            run.stage("ingest")
            with ingest.lichess_base_url(run.work) as base_url:
                summary = ingest.ingest_stage(run.work, inputs, base_url, NOW).summary()
            run.done(
                "ingest", record.ingest_counts(summary), requests=summary["requests"], warnings=summary["warnings"]
            )
            run.stage("score")
            scored = score.score_stage(run.work, inputs, NOW)
            run.done("score", dataclasses.asdict(scored), warnings=scored.notes)
            run.stage("audit")
            report = audit.audit_stage(run.work, inputs, NOW)
            run.done("audit", report.summary(), warnings=report.notes)
        assert report.csv_path == cfg.paths.exports / "audit_findings.csv"
        dbs[name] = cfg.paths.database  # the published snapshot
    return dbs


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def findings(dbs: dict[str, Path]) -> list[Finding]:
    out: list[Finding] = []
    for db in dbs.values():
        con = duckdb.connect(str(db), read_only=True)
        try:
            out += con.sql("SELECT rule_id, severity, subject, coalesce(team, '') FROM audit_findings").fetchall()
        finally:
            con.close()
    return out


def planted_audit_rows(demo: Path) -> list[tuple[str, str]]:
    """(rule_id, subject) of every PLANTED.csv row under an audit rule."""
    return [(r["rule_id"], r["subject"]) for r in rows(demo / "PLANTED.csv") if r["rule_id"].startswith(AUDIT_RULES)]


def planted_not_found(demo: Path, found: list[Finding]) -> list[tuple[str, str]]:
    """PLANTED.csv rows under an audit rule that no finding (of any severity) has as (rule_id, subject)."""
    seen = {(rule, subject) for rule, _, subject, _ in found}
    return [p for p in planted_audit_rows(demo) if p not in seen]


def errors_not_planted(demo: Path, found: list[Finding]) -> set[tuple[str, str]]:
    """Error findings whose (rule_id, subject) PLANTED.csv does not list: a clean player or team flagged."""
    planted = {(r["rule_id"], r["subject"]) for r in rows(demo / "PLANTED.csv")}
    return {(rule, subject) for rule, severity, subject, _ in found if severity == "error"} - planted


def trap_findings(demo: Path, found: list[Finding]) -> list[tuple[str, str]]:
    """(rule_id, severity) of the findings on TRAPS.csv's subjects (look-alikes: evidence only)."""
    traps = {t["subject"] for t in rows(demo / "TRAPS.csv")}
    return [(rule, severity) for rule, severity, subject, _ in found if subject in traps]


def build_and_audit(out: Path, seed: int, **size: object) -> dict[str, Path]:
    """Build the demo of `seed` (build_season's size arguments) under `out`, then audit_demo it
    (a top-level function, so a process pool can run it)."""
    from pipeline.sim.season import build_season

    build_season(out, seed=seed, **size)  # type: ignore[arg-type]
    return audit_demo(out)
