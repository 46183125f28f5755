"""The attention list (pipeline/stages/attention.py) on the hand-made skeleton
tournament, night by night as the nightly run does it (ingest, score, audit, then the attention
step stores the list with the run before it is published): every kind with its sentence and action
computed by hand from tests/data/skeleton/make_dataset.py's games, a rerun with nothing new lists
no new item, and the surfaces: `antichess-td attention` (text and --json, read-only), the
snapshot's `attention` view, exports/attention.md and the private site's page (in Chromium)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from kits.skeleton_kit import cli, copy_skeleton
from pipeline.domain.attention_items import Item, PartDue
from pipeline.inputs.config import load_config
from pipeline.model import Config
from pipeline.stages import attention, audit, context, ingest, record, score
from pipeline.stages.site import site_stage
from pipeline.store import snapshot

UTC = dt.UTC
AFTER_ROUNDS = dt.datetime(2026, 3, 20, tzinfo=UTC)  # round 2's window closed 03-17 00:00, its margin 03-20
SWAPPED = "stage,round,a,b\nswiss,1,Alphas,Deltas\nswiss,1,Betas,Gammas\n"  # no game was played between them


def night(folder: Path, now: dt.datetime) -> tuple[Config, attention.AttentionReport]:
    """One recorded run as the nightly flow sequences it (without Prefect), published at the end."""
    cfg = load_config(folder / "tournament.toml")
    inputs = context.read_inputs(cfg)
    with record.recorded(cfg, "nightly", now) as run:
        with ingest.lichess_base_url(run.work) as base_url:
            ingest.ingest_stage(run.work, inputs, base_url, now)
        score.score_stage(run.work, inputs, now)
        report = audit.audit_stage(run.work, inputs, now)
        run.stage("attention")
        listed = attention.attention_stage(run.work, now, run.run_id, report.findings)
        run.done("attention", listed.counts())
    return cfg, listed


def of_kind(report: attention.AttentionReport, kind: str) -> list[Item]:
    return [i for i in report.items if i.kind == kind]


def test_games_due_two_days_before_the_window_closes(tmp_path: Path) -> None:
    """TEAM-FMT-3: on Sunday 03-15 12:00, round 2's window closes 03-17 00:00 (1 day 12 h: within
    days_left = 2). Bea v Dee (Betas v Deltas, board 2) played both 0+2 games and the 2+5 game on
    03-14, not the 1+2 game: 1 game of 1+2 is due. Every other board of round 2 is complete
    (03-11, 03-14), so this is the only games_due item, with what a reminder needs."""
    folder = copy_skeleton(tmp_path)
    _, report = night(folder, dt.datetime(2026, 3, 15, 12, tzinfo=UTC))
    assert of_kind(report, "games_due") == [
        Item(
            key="games_due:swiss:2:betas:deltas:2",
            kind="games_due",
            rule_id="TEAM-FMT-3",
            severity="warning",
            subject="Bea v Dee (Betas v Deltas, board 2)",
            sentence="swiss round 2, board 2: 1 game still to play (1 of 1+2) and the window closes "
            "2026-03-17 00:00 UTC, in 1 day 12 h",
            action="remind Bea and Dee: games played after 2026-03-17 00:00 UTC do not count "
            "(for more time, give their pairing a later window_end in pairings.csv)",
            evidence_url="https://lichess.org/@/Bea",
            stage="swiss",
            round=2,
            deadline=dt.datetime(2026, 3, 17, tzinfo=UTC),
            players=("Bea", "Dee"),
            opponents=("Dee", "Bea"),
            due=(PartDue("1+2", 1),),
        )
    ]


def test_three_days_before_the_window_closes_no_game_is_due_yet(tmp_path: Path) -> None:
    """attention.days_left = 2: on 03-13 12:00 (3 days 12 h left) the same board is not listed."""
    folder = copy_skeleton(tmp_path)
    _, report = night(folder, dt.datetime(2026, 3, 13, 12, tzinfo=UTC))
    assert of_kind(report, "games_due") == []


def test_rulings_due_and_the_round_ready_to_pair_then_a_rerun_lists_nothing_new(tmp_path: Path) -> None:
    """Round 1 paired Alphas v Deltas and Betas v Gammas, who never played each other: on 03-20 its
    window (to 03-10) and margin (3 days) are long over, so each of the 4 boards waits for a ruling
    (TEAM-SCORE-4) with its three ruling lines, and round 2 is ready to pair (its window is over,
    TEAM-FMT-3; 0 of 2 matches decided) with the exact `pair` command. The same night again: 0 new."""
    folder = copy_skeleton(tmp_path)
    (folder / "pairings.csv").write_text(SWAPPED, encoding="utf-8")
    cfg, report = night(folder, AFTER_ROUNDS)
    rulings = of_kind(report, "ruling_due")
    assert [i.subject for i in rulings] == [
        "Alice v Dan (Alphas v Deltas, board 1)",
        "Amir v Dee (Alphas v Deltas, board 2)",
        "Bob v Gus (Betas v Gammas, board 1)",
        "Bea v Gia (Betas v Gammas, board 2)",
    ]
    first = rulings[0]
    assert (first.key, first.rule_id, first.severity) == ("ruling_due:swiss:1:alphas:deltas:1", "TEAM-SCORE-4", "error")
    assert first.sentence == (
        "swiss round 1, board 1: no game was played and its window closed 2026-03-10 00:00 UTC; "
        "it scores nothing until you rule"
    )
    assert first.action == (
        "keep one of these lines in overrides.csv (forfeit: that player was at fault; zero_draw: no one was, 0-0), "
        f"fill in the reason, then run antichess-td score --config {cfg.path}\n"
        "swiss,1,Alice,forfeit,,<reason>\nswiss,1,Dan,forfeit,,<reason>\nswiss,1,Alice,zero_draw,,<reason>"
    )
    (ready,) = of_kind(report, "round_ready")
    assert (ready.key, ready.rule_id, ready.subject, ready.stage, ready.round) == (
        "round_ready:swiss:2",
        "TEAM-FMT-3",
        "swiss round 2",
        "swiss",
        2,
    )
    assert ready.sentence == (
        "the swiss round 1 window closed 2026-03-10 00:00 UTC (0 of 2 matches decided); "
        "round 2 is not in pairings.csv yet"
    )
    assert ready.action == (
        f"antichess-td pair --config {cfg.path} --stage swiss --round 2\n"
        f"tail -n +2 {cfg.paths.exports / 'pairings_swiss_2.csv'} >> {cfg.paths.pairings}"
    )
    assert report.summary_line() == "needs you: 5 (5 new)"
    _, again = night(folder, AFTER_ROUNDS)
    assert again.summary_line() == "needs you: 5 (0 new)"
    assert [again.status(i) for i in again.items] == ["open"] * 5
    assert again.previous_run_id == 1


def test_a_round_every_match_of_which_is_decided_is_ready_before_its_window_closes(tmp_path: Path) -> None:
    """Only round 1 in pairings.csv; on 03-09 (its window closes 03-10) both its matches have all
    their games (03-04, 03-07): decided, so round 2 can be paired already."""
    folder = copy_skeleton(tmp_path)
    (folder / "pairings.csv").write_text(
        "stage,round,a,b\nswiss,1,Alphas,Betas\nswiss,1,Gammas,Deltas\n", encoding="utf-8"
    )
    _, report = night(folder, dt.datetime(2026, 3, 9, tzinfo=UTC))
    assert [(i.key, i.sentence) for i in of_kind(report, "round_ready")] == [
        ("round_ready:swiss:2", "every match of swiss round 1 is decided; round 2 is not in pairings.csv yet")
    ]


def _flag_accounts(folder: Path, flagged: bool) -> None:
    """Dee's account closed (Lichess: disabled) and a tosViolation mark on Bea's, or neither."""
    path = folder / "lichess" / "users.ndjson"
    original = path.with_suffix(".orig")
    if not original.exists():
        original.write_bytes(path.read_bytes())
    users = [json.loads(line) for line in original.read_text(encoding="utf-8").splitlines()]
    if flagged:
        users = [
            {"id": "dee", "username": "Dee", "disabled": True}
            if u["id"] == "dee"
            else {**u, "tosViolation": True}
            if u["id"] == "bea"
            else u
            for u in users
        ]
    path.write_text("".join(json.dumps(u) + "\n" for u in users), encoding="utf-8")


def test_near_miss_accounts_and_error_findings_new_then_resolved(tmp_path: Path) -> None:
    """Night 1 (03-20): the 1+2 game R2bd2x04 of Bea v Dee came at 03-17 01:00, after round 2's
    window, at a part's clock, on a board still missing its 1+2 game: an include_game line would
    count it (near_miss). Night 2: Dee's account is closed and Bea's marked (TEAM-ELIG-5: two account
    items, new) and the audit reports Dee's closed account as an error (finding_new, new); the near
    miss is still open. Night 3: both accounts are back to normal: the finding is resolved (listed
    once, new), the account items are gone."""
    folder = copy_skeleton(tmp_path)
    cfg, first = night(folder, AFTER_ROUNDS)
    (near,) = of_kind(first, "near_miss")
    assert near.sentence == (
        "swiss round 2, board 2: 1 game (1 of 1+2) at the match's clocks was played outside the window "
        "(2026-03-10 00:00 UTC to 2026-03-17 00:00 UTC) and does not count, while the board still misses "
        "games of those parts"
    )
    assert near.action == (
        f"to count them, add these lines to overrides.csv with the reason, then run antichess-td score --config "
        f"{cfg.path}\nswiss,2,,include_game,R2bd2x04,<reason>"
    )
    assert near.evidence_url == "https://lichess.org/R2bd2x04"
    assert [i.kind for i in first.items] == ["near_miss"]

    _flag_accounts(folder, True)
    _, second = night(folder, AFTER_ROUNDS + dt.timedelta(days=1))
    assert [(i.kind, i.subject, second.status(i)) for i in second.items] == [
        ("near_miss", "Bea v Dee (Betas v Deltas, board 2)", "open"),
        ("account", "Bea (Betas)", "new"),
        ("account", "Dee (Deltas)", "new"),
        ("finding_new", "Dee (Deltas)", "new"),
    ]
    bea, dee = of_kind(second, "account")
    assert (bea.rule_id, bea.severity, bea.sentence) == (
        "TEAM-ELIG-5",
        "warning",
        "the Lichess profile carries a tosViolation mark (engine or boost); Lichess does not publish when it was given",
    )
    assert dee.action == (
        "if Dee cannot or may not play on, keep one of these lines in overrides.csv (from the round it applies), "
        f"fill in the reason, then run antichess-td score --config {cfg.path}\n"
        "swiss,2,Dee,replace,<replacement>,<reason>\nswiss,2,Dee,disqualify,cheating,<reason>"
    )
    (found,) = of_kind(second, "finding_new")
    assert (found.rule_id, found.evidence_url) == ("TEAM-ELIG-5", "https://lichess.org/@/Dee")

    _flag_accounts(folder, False)
    _, third = night(folder, AFTER_ROUNDS + dt.timedelta(days=2))
    assert [(i.kind, third.status(i)) for i in third.items] == [("near_miss", "open"), ("finding_resolved", "new")]
    (gone,) = of_kind(third, "finding_resolved")
    assert gone.sentence == "no longer found: " + found.sentence
    assert [i.kind for i in third.changes.resolved] == ["account", "account", "finding_new"]


@pytest.mark.slow
def test_the_command_reads_the_snapshot_without_the_lock_and_says_when_it_is_stale(tmp_path: Path) -> None:
    """`antichess-td attention` while another process holds the writer lock (it never takes it):
    exit 0; at the run's own time the list the nightly stored, with its statuses against the run
    before; 37 hours after the newest successful run's as_of, a stale item first. --json: every
    Item field and the status. The snapshot's `attention` view and exports/attention.md hold the
    same list."""
    folder = copy_skeleton(tmp_path)
    cfg, _ = night(folder, AFTER_ROUNDS)
    _, stored = night(folder, AFTER_ROUNDS)
    toml = str(folder / "tournament.toml")
    with snapshot.writer_lock(cfg.paths.work_database):
        proc = cli("attention", "--config", toml, "--now", "2026-03-20T00:00:00Z")
        late = cli("attention", "--config", toml, "--now", "2026-03-21T13:00:00Z", "--json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:4] == [
        "needs you as of 2026-03-20 00:00 UTC: 1 item (0 new); new: not on run 1's list",
        "",
        "Games a ruling could count (near_miss): 1",
        "  [open] TEAM-FMT-3 Bea v Dee (Betas v Deltas, board 2): " + stored.items[0].sentence,
    ]
    assert late.returncode == 0, late.stderr
    items = json.loads(late.stdout)
    assert [(i["kind"], i["status"]) for i in items] == [("stale", "new"), ("near_miss", "open")]
    assert items[0] == {
        "key": "stale",
        "kind": "stale",
        "rule_id": "",
        "severity": "error",
        "subject": "Skeleton Cup",
        "sentence": "the published data is stale: the newest successful run is as of 2026-03-20 00:00 UTC, "
        "37 hours ago (more than 36 hours); standings and findings may be out of date",
        "action": f"antichess-td nightly --config {toml}",
        "evidence_url": None,
        "stage": None,
        "round": None,
        "deadline": None,
        "players": [],
        "opponents": [],
        "due": [],
        "status": "new",
    }
    con = duckdb.connect(str(cfg.paths.database), read_only=True)
    try:
        view = con.sql("SELECT run_id, kind, status, key FROM attention").fetchall()
    finally:
        con.close()
    assert view == [(2, "near_miss", "open", "near_miss:swiss:2:betas:deltas:2")]
    assert (cfg.paths.exports / "attention.md").read_text(encoding="utf-8") == (
        "# What needs you: Skeleton Cup\n\nAs of 2026-03-20 00:00 UTC (run 2): 1 item (0 new).\n\n"
        "## Games a ruling could count (1)\n\n"
        "- **open** · TEAM-FMT-3 · Bea v Dee (Betas v Deltas, board 2): " + stored.items[0].sentence + "\n"
        "  evidence: <https://lichess.org/R2bd2x04>\n"
        "  action: to count them, add these lines to overrides.csv with the reason, then run antichess-td "
        f"score --config {str(cfg.path).replace('_', chr(92) + '_')}\n\n"
        "  ```\n  swiss,2,,include_game,R2bd2x04,<reason>\n  ```\n"
    )


@pytest.mark.browser
def test_the_private_site_lists_the_items_escaped_and_its_index_links_them(tmp_path: Path, browser: Any) -> None:
    """The private site's attention.html (Chromium): one table per kind, each item's status, rule,
    who, sentence, evidence and action as shown; a team named <b>Betas</b> stays text; the
    private index (the audits page) links the page."""
    from kits.browserkit import console_errors, serve_folder, table_rows

    folder = copy_skeleton(tmp_path)
    for name in ("teams.csv", "pairings.csv"):
        path = folder / name
        path.write_text(path.read_text(encoding="utf-8").replace("Betas", "<b>Betas</b>"), encoding="utf-8")
    cfg, report = night(folder, AFTER_ROUNDS)
    site_stage(cfg)
    private = cfg.paths.site_private
    assert private is not None
    html = (private / "attention.html").read_text(encoding="utf-8")
    assert "<b>Betas" not in html and "&lt;b&gt;Betas&lt;/b&gt;" in html
    with serve_folder(private) as base:
        browser.get(base + "index.html")
        link = browser.find_element("link text", "What needs you today")
        link.click()
        rows = table_rows(browser, "Games a ruling could count")
        assert console_errors(browser) == []
    (near,) = report.items
    assert rows == [
        ["Status", "Rule", "Who", "What", "Evidence", "Action"],
        [
            "new",
            "TEAM-FMT-3",
            "Bea v Dee (<b>Betas</b> v Deltas, board 2)",
            near.sentence,
            "R2bd2x04",
            near.action.replace("\n", "\n", 1),
        ],
    ]


@pytest.mark.slow
@pytest.mark.scenario
def test_every_nightly_summary_ends_with_what_needs_you(tmp_path: Path) -> None:
    """`antichess-td nightly` as a TD runs it, twice on the same night: the near miss of
    R2bd2x04 is the one item, new the first time and open the second, said just above the run's
    own last line (`run N ok ...`); the summary names exports/attention.md among the files written."""
    folder = copy_skeleton(tmp_path)
    toml = str(folder / "tournament.toml")
    first = cli("nightly", "--config", toml, "--now", "2026-03-20T03:00:00Z")
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[-2] == "needs you: 1 (1 new)" and lines[-1].startswith("run 1 ok in ")
    assert f"wrote {folder / 'out' / 'exports' / 'attention.md'}" in lines
    again = cli("nightly", "--config", toml, "--now", "2026-03-20T03:00:00Z")
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[-2] == "needs you: 1 (0 new)"
