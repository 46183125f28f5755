"""The audits on the suite's demo (the default seed with the least history the rules allow, see
conftest's `suite_demo`): every violation PLANTED.csv lists under an audit rule is found (rule_id
+ subject); every error is a planted one, so no clean player or team gets an error; the
look-alikes of TRAPS.csv (above the cap on only 2 days; a crossing at RD > 80, TEAM-CAP-3/5)
produce none; each audit file, run verbatim on the published database in a fresh connection with
another session time zone, gives exactly its rows of audit_findings; the ACWC demo's seeds follow
ACWC-SEED-1. And the CLI: `antichess-td audit` prints the findings grouped by rule, writes
audit_findings.csv, and `--fail-on-findings` exits 1 with errors, 0 without.

The demo is scored and audited once per session (the shared `audited` fixture of conftest)."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from kits.audit_world import AuditWorld
from kits.demo_audit import (
    SUITE_DEMO,
    errors_not_planted,
    findings,
    planted_audit_rows,
    planted_not_found,
    rows,
    trap_findings,
)
from pipeline.store import sql_files


@pytest.mark.scenario
def test_every_planted_audit_violation_is_found(suite_demo: Path, audited: dict[str, Path]) -> None:
    assert len(planted_audit_rows(suite_demo)) >= 20
    assert planted_not_found(suite_demo, findings(audited)) == []


@pytest.mark.scenario
def test_every_error_is_planted_and_no_trap_is_one(suite_demo: Path, audited: dict[str, Path]) -> None:
    """No player or team outside PLANTED.csv gets an error, nor one for a rule not planted on it;
    the TRAPS (TEAM-CAP-3: 2 days; TEAM-CAP-5: a crossing at RD > 80) give evidence only."""
    found = findings(audited)
    assert any(severity == "error" for _, severity, _, _ in found)
    assert errors_not_planted(suite_demo, found) == set()
    assert {t["rule_id"] for t in rows(suite_demo / "TRAPS.csv")} == {"TEAM-CAP-3", "TEAM-CAP-5"}
    trap_rows = trap_findings(suite_demo, found)
    assert ("TEAM-CAP-5", "info") in trap_rows and all(severity == "info" for _, severity in trap_rows)


@pytest.mark.scenario
def test_acwc_seeds_follow_acwc_seed_1(audited: dict[str, Path]) -> None:
    """ACWC-SEED-1: players.csv's seeds (the demo computes them from the intraday ratings) match the
    seeding view for every player (the suite's demo has 8): no ACWC-SEED-1 finding."""
    con = duckdb.connect(str(audited["acwc"]), read_only=True)
    try:
        seeded = con.sql(
            "SELECT count(*) FROM seeding WHERE abs(seed_rating - seeding_rating) <= 0.5 "
            "AND rating_at_source = 'games' AND peak_source = 'games'"
        ).fetchall()[0][0]
        total = con.sql("SELECT count(*) FROM players").fetchall()[0][0]
    finally:
        con.close()
    assert seeded == total == SUITE_DEMO["acwc_players"] == 8
    assert [f for f in findings(audited) if f[0] == "ACWC-SEED-1"] == []


@pytest.mark.scenario
def test_the_seed_tiebreak_reads_the_seeding_view_not_players_csv(audited: dict[str, Path], tmp_path: Path) -> None:
    """ACWC-Q-3's last tiebreak, the seed, is the seeding rating of ACWC-SEED-1: the seeding view's
    (the one pairing uses), not what players.csv says. A copy of the ACWC demo whose players.csv
    seeds are replaced by 1001, 1002, ... is scored again: every standings row's seed_rating is
    still the view's rating of that player, and none is players.csv's number."""
    import shutil

    from kits.demo_audit import NOW
    from pipeline.inputs.config import load_config
    from pipeline.stages import context, score

    event = audited["acwc"].parent.parent  # <demo>/acwc/out/acwc.duckdb
    copy = tmp_path / "acwc"
    shutil.copytree(event, copy)
    players = rows(copy / "players.csv")
    with (copy / "players.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(players[0]))
        writer.writeheader()
        writer.writerows({**p, "seed_rating": str(1001 + i)} for i, p in enumerate(players))
    cfg = load_config(copy / "tournament.toml")
    score.score_stage(cfg, context.read_inputs(cfg), NOW)
    con = duckdb.connect(str(cfg.paths.database), read_only=True)
    try:
        got = con.sql(
            "SELECT s.entrant, s.seed_rating, v.seeding_rating, v.seed_rating FROM scored_standings s "
            "JOIN seeding v ON v.team_id = s.entrant WHERE s.stage = 'qualification'"
        ).fetchall()
    finally:
        con.close()
    assert len(got) >= SUITE_DEMO["acwc_players"]  # every player after every round
    assert all(shown == view and shown != csv_seed for _, shown, view, csv_seed in got), got
    assert {csv_seed for *_, csv_seed in got} == set(range(1001, 1001 + len(players)))


@pytest.mark.parametrize("event", ["team", "acwc"])
@pytest.mark.scenario
def test_each_audit_file_runs_verbatim_on_the_published_file(audited: dict[str, Path], event: str) -> None:
    """What a TD gets pasting an audit file into `duckdb -readonly <file>`: the same rows as
    audit_findings for that audit, whatever the session time zone."""
    con = duckdb.connect(str(audited[event]), read_only=True)
    try:
        union = con.sql(
            "SELECT audit, rule_id, severity, subject, team, detail, evidence_url FROM audit_findings"
        ).fetchall()
        con.execute("SET TimeZone = 'Asia/Kolkata'")
        for path in sql_files.audit_files():
            mine = sorted((r[1:] for r in union if r[0] == path.stem), key=str)
            assert sorted(con.sql(path.read_text(encoding="utf-8")).fetchall(), key=str) == mine, path.stem
    finally:
        con.close()
    exported = rows(audited[event].parent / "exports" / "audit_findings.csv")
    assert len(exported) == len(union)
    assert list(exported[0]) == ["rule_id", "severity", "subject", "team", "detail", "evidence_url", "audit"]


@pytest.mark.scenario
def test_the_duckdb_cli_runs_each_audit_file_on_the_published_snapshot(
    audited: dict[str, Path], tmp_path: Path
) -> None:
    """A TD's `duckdb -readonly` (the duckdb-cli package, DuckDB 1.5) on the published snapshot
    (DuckDB 1.0's storage format): every audit file runs and prints exactly audit_findings' rows."""
    from pipeline.store import snapshot

    cli = Path(sys.executable).parent / "duckdb"
    for event, db in audited.items():
        published = tmp_path / f"{event}.duckdb"
        snapshot.replace_published(db, published)
        con = duckdb.connect(str(published), read_only=True)
        try:
            union = con.sql(
                "SELECT audit, rule_id, severity, subject, team, detail, evidence_url FROM audit_findings"
            ).fetchall()
        finally:
            con.close()
        for path in sql_files.audit_files():
            proc = subprocess.run(
                [str(cli), "-readonly", "-csv", "-noheader", "-nullvalue", "", str(published)],
                input=path.read_text(encoding="utf-8"),
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert proc.returncode == 0, (path.stem, proc.stderr)
            printed = sorted(tuple(r) for r in csv.reader(proc.stdout.splitlines()))
            assert printed == sorted(
                tuple("" if v is None else str(v) for v in r[1:]) for r in union if r[0] == path.stem
            ), path.stem


# --------------------------------------------------------------------------- the CLI


def cli_world(tmp_path: Path, bot: bool) -> Path:
    """A tournament with its TD files and a database holding one team's profiles (no games; recent
    games not required so the clean team has no error)."""
    w = AuditWorld(tmp_path, "[eligibility]\nmin_recent_games = 0\n")
    names = ["Alpha1", "Alpha2", "Alpha3", "Alpha4"] + (["Beepboop"] if bot else [])
    for board, name in enumerate(names, 1):
        w.member("Alpha", name, board, captain=board == 1)
    if bot:
        w.user("Beepboop", lichess_title="BOT")
    w.build()
    (tmp_path / "teams.csv").write_text(
        "team,player,board,title,captain\n"
        + "".join(f"Alpha,{n},{b},,{'yes' if b == 1 else ''}\n" for b, n in enumerate(names, 1)),
        encoding="utf-8",
    )
    (tmp_path / "pairings.csv").write_text("stage,round,a,b\n", encoding="utf-8")
    return tmp_path / "tournament.toml"


def audit_cli(cfg: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", "audit", "--config", str(cfg), "--now", "2026-11-29T00:00:00Z", *flags],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_audit_cli_groups_by_rule_and_fails_on_errors(tmp_path: Path) -> None:
    """`antichess-td audit --fail-on-findings` exits 1 with an error (TEAM-ELIG-6: a BOT), 0 without
    the flag; the findings are printed under their rule with its counts."""
    cfg = cli_world(tmp_path, bot=True)
    failed = audit_cli(cfg, "--fail-on-findings")
    assert failed.returncode == 1, failed.stderr
    lines = failed.stdout.splitlines()
    i = lines.index("TEAM-ELIG-6 (1 error)")
    assert lines[i + 1] == (
        "  error   Beepboop (Alpha): a BOT account (Lichess title BOT): BOT accounts cannot play "
        "<https://lichess.org/@/Beepboop>"
    )
    headers = [line for line in lines if not line.startswith(("  ", "audit:", "note:"))]
    assert headers == sorted(headers) and len(headers) == len(set(headers))
    [total] = [line for line in lines if line.startswith("audit: ")]
    assert " 1 errors, " in total and total.endswith("audit_findings.csv")
    assert lines[-1].startswith("run 1 ok in ") and lines[-1].endswith(f"published {tmp_path / 't.duckdb'}")
    exported = rows(tmp_path / "exports" / "audit_findings.csv")
    assert ("TEAM-ELIG-6", "error", "Beepboop") in {(r["rule_id"], r["severity"], r["subject"]) for r in exported}
    assert audit_cli(cfg).returncode == 0


def test_audit_cli_exits_0_without_errors(tmp_path: Path) -> None:
    """No error (the clean team's findings are warnings: no stored game, RD unknown): exit 0 even with the flag."""
    cfg = cli_world(tmp_path, bot=False)
    done = audit_cli(cfg, "--fail-on-findings")
    assert done.returncode == 0, done.stderr
    exported = rows(tmp_path / "exports" / "audit_findings.csv")
    assert exported and {r["severity"] for r in exported} <= {"warning", "info"}


@pytest.mark.parametrize("event", ["team", "acwc"])
@pytest.mark.scenario
def test_the_audit_stage_evaluates_only_its_kinds_audits_and_finds_every_row_of_the_view(
    audited: dict[str, Path], event: str
) -> None:
    """The audit stage evaluates only the files of its kind of event (audit_findings.AUDITS_OF_KIND): every
    other file gives no row on that event's published database, so what it reads is exactly the
    audit_findings view, row for row and in order."""
    from pipeline.stages import audit_findings

    kind = "team" if event == "team" else "individual"
    own = audit_findings.AUDITS_OF_KIND[kind]
    con = duckdb.connect(str(audited[event]), read_only=True)
    try:
        others = [f for f in sql_files.audit_files() if not f.stem.startswith(own)]
        assert len(others) >= 7
        for f in others:
            assert con.sql(f"SELECT count(*) FROM (\n{sql_files.audit_sql(f)}\n)").fetchall() == [(0,)], f.name
        every = audit_findings.read_findings(con)
        assert every and audit_findings.read_findings(con, kind) == every
        assert con.sql("SELECT count(*) FROM audit_findings").fetchall() == [(len(every),)]  # the view is whole again
    finally:
        con.close()
