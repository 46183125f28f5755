"""`antichess-td pair`: the next Swiss round proposed from the published results (read-only), on the
hand-made skeleton tournament (4 teams, 2 boards) given a third round.

After rounds 1 (Alphas v Betas, Gammas v Deltas) and 2 (Alphas v Gammas, Betas v Deltas) each team
has met two others: the only round 3 without a repeat (FIDE C.04.1.b) is Alphas v Deltas and Betas v
Gammas; White on board 1 alternates by the engine's colours (Alphas and Betas had White in round 2
as team a, so they get Black).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kits.skeleton_kit import AFTER_ROUND_2, copy_skeleton, run_skeleton
from pipeline.inputs.config import load_config
from pipeline.stages import audit, context, export

HEADER = "stage,round,a,b,window_start,window_end,bye"


def scored(tmp_path: Path) -> Path:
    """The skeleton with rounds = 3, scored after its two rounds (published database), not audited."""
    folder = copy_skeleton(tmp_path)
    cfg = folder / "tournament.toml"
    cfg.write_text(cfg.read_text(encoding="utf-8").replace("rounds = 2", "rounds = 3"), encoding="utf-8")
    run_skeleton(folder)
    return folder


@pytest.fixture(scope="module")
def three_rounds_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The skeleton with rounds = 3, scored and audited after its two rounds, as a nightly run
    leaves it (the audit writes the parameters the seeding view reads); built once per module."""
    folder = scored(tmp_path_factory.mktemp("three-rounds"))
    cfg = load_config(folder / "tournament.toml")
    audit.audit_stage(cfg, context.read_inputs(cfg), AFTER_ROUND_2)
    export.export_stage(cfg)  # the nightly's order: ingest, score, audit, export
    return folder


@pytest.fixture
def three_rounds(three_rounds_once: Path, tmp_path: Path) -> Path:
    """A copy of `three_rounds_once` of the test's own (the tests edit its files)."""
    return Path(shutil.copytree(three_rounds_once, tmp_path / three_rounds_once.name))


def pair(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", "pair", "--config", str(folder / "tournament.toml"), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_pair_proposes_the_only_round_without_a_repeat(three_rounds: Path) -> None:
    """Rows in the TD's own pairings.csv columns (stage,round,a,b: the stage's default window needs
    none), appended as they are: `check` reads the file back clean."""
    before = (three_rounds / "pairings.csv").read_bytes()
    proc = pair(three_rounds, "--stage", "swiss", "--round", "3")
    assert proc.returncode == 0, proc.stderr
    exports = three_rounds / "out" / "exports"
    proposal = (exports / "pairings_swiss_3.csv").read_text(encoding="utf-8")
    assert proposal == "stage,round,a,b\nswiss,3,Deltas,Alphas\nswiss,3,Gammas,Betas\n"
    post = (exports / "pairings_swiss_3.md").read_text(encoding="utf-8")
    assert "| 1 | Deltas | Alphas |\n| 2 | Gammas | Betas |" in post
    assert "Window: 2026-03-17 00:00 – 2026-03-24 00:00 UTC" in post
    assert (three_rounds / "pairings.csv").read_bytes() == before  # never edits the TD's file
    with (three_rounds / "pairings.csv").open("a", encoding="utf-8") as f:
        f.write("".join(proposal.splitlines(keepends=True)[1:]))
    check = subprocess.run(
        [sys.executable, "-m", "pipeline", "check", "--config", str(three_rounds / "tournament.toml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stderr


def test_export_writes_the_stage_as_trf(three_rounds: Path) -> None:
    """exports/swiss.trf after rounds 1-2: teams as entrants (no audit has run: no seeding rating,
    0; ties by name), match results as 1/0 (2/1/0 match points in win units), ranks by points."""
    assert (three_rounds / "out" / "exports" / "swiss.trf").read_text(encoding="utf-8").splitlines() == [
        "012 Skeleton Cup",
        "001    1      Alphas                               0                             1.0    1     2 w 1     4 w 0",
        "001    2      Betas                                0                             1.0    2     1 b 0     3 w 1",
        "001    3      Deltas                               0                             1.0    3     4 b 1     2 b 0",
        "001    4      Gammas                               0                             1.0    4     3 w 0     1 b 1",
        "XXR 3",
    ]


def test_nightly_export_proposes_the_next_swiss_round_in_next_pairings(three_rounds: Path) -> None:
    """The export the nightly run ends with writes the next Swiss round, once round 2 is decided,
    to next_pairings.csv (the knockout proposal's file, in pairings.csv's own header) — the same
    round `pair` proposes."""
    assert (three_rounds / "out" / "exports" / "next_pairings.csv").read_text(encoding="utf-8") == (
        "stage,round,a,b\nswiss,3,Deltas,Alphas\nswiss,3,Gammas,Betas\n"
    )


def test_requested_bye_in_pairings_csv_is_respected(three_rounds: Path) -> None:
    """Alphas asked for a half-point bye in round 3 (entered in pairings.csv): the three others
    are paired; Betas v Gammas (unmet) plays and Deltas gets the pairing-allocated bye."""
    rows = (three_rounds / "pairings.csv").read_text(encoding="utf-8").splitlines()
    rows = [f"{HEADER}", *(f"{r},,," for r in rows[1:]), "swiss,3,Alphas,,,,half"]
    (three_rounds / "pairings.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    proc = pair(three_rounds, "--stage", "swiss", "--round", "3")
    assert proc.returncode == 0, proc.stderr
    assert (three_rounds / "out" / "exports" / "pairings_swiss_3.csv").read_text(encoding="utf-8") == (
        f"{HEADER}\n"
        "swiss,3,Gammas,Betas,2026-03-17T00:00:00Z,2026-03-24T00:00:00Z,\n"
        "swiss,3,Deltas,,2026-03-17T00:00:00Z,2026-03-24T00:00:00Z,pab\n"
    )


def test_team_with_its_captain_disqualified_is_left_out(three_rounds: Path) -> None:
    """overrides.csv disqualifies Alphas' captain ALICE from round 3: the team is out (TEAM-COMP-7);
    Betas v Gammas is the one unmet pairing of the three left and Deltas gets the bye."""
    cfg = three_rounds / "tournament.toml"
    cfg.write_text(
        cfg.read_text(encoding="utf-8").replace(
            'pairings = "pairings.csv"', 'pairings = "pairings.csv"\noverrides = "overrides.csv"'
        ),
        encoding="utf-8",
    )
    (three_rounds / "overrides.csv").write_text(
        "stage,round,subject,action,value,reason\nswiss,3,alice,disqualify,,left the event\n", encoding="utf-8"
    )
    proc = pair(three_rounds, "--stage", "swiss", "--round", "3")
    assert proc.returncode == 0, proc.stderr
    assert (three_rounds / "out" / "exports" / "pairings_swiss_3.csv").read_text(encoding="utf-8") == (
        f"{HEADER}\n"
        "swiss,3,Gammas,Betas,2026-03-17T00:00:00Z,2026-03-24T00:00:00Z,\n"
        "swiss,3,Deltas,,2026-03-17T00:00:00Z,2026-03-24T00:00:00Z,pab\n"
    )


FORBIDDEN = [
    pytest.param(
        '[["alphas", "Deltas"]]',
        "error: tournament.toml stage 'swiss': round 3: forbidden pair Alphas v Deltas cannot be kept apart: "
        "no pairing leaves Alphas, Deltas an opponent",
        id="cannot_be_kept_apart",  # round 3's only pairing without a repeat has Alphas v Deltas
    ),
    pytest.param(
        '[["Alphas", "Omegas"]]',
        "error: tournament.toml key 'stages.swiss.forbidden_pairs': 'Omegas': expected a team of teams.csv",
        id="names_no_team",
    ),
    pytest.param(
        '[["Alphas", "alphas"]]',
        "error: tournament.toml key 'stages.swiss.forbidden_pairs[0]': expected two different entrants "
        """such as ["Pawn Stormers", "Knight Riders"], got ['Alphas', 'alphas']""",
        id="one_entrant_twice",
    ),
]


@pytest.mark.parametrize(("pairs", "message"), FORBIDDEN)
def test_forbidden_pairs_that_cannot_be_met_exit_2(three_rounds: Path, pairs: str, message: str) -> None:
    """The stage's forbidden_pairs: a pair round 3 cannot keep apart, or a list that is wrong in
    itself, exits 2 with one line naming it, and writes no proposal."""
    cfg = three_rounds / "tournament.toml"
    cfg.write_text(
        cfg.read_text(encoding="utf-8").replace("rounds = 3", f"rounds = 3\nforbidden_pairs = {pairs}"),
        encoding="utf-8",
    )
    proc = pair(three_rounds, "--stage", "swiss", "--round", "3")
    assert (proc.returncode, proc.stderr.strip().splitlines()[-1]) == (2, message)
    assert not (three_rounds / "out" / "exports" / "pairings_swiss_3.csv").exists()


def test_pair_before_any_audit_exits_2_naming_the_seeding(tmp_path: Path) -> None:
    """Scored but never audited: the seeding view has no parameters, so every entrant would seed at
    0 and be numbered by name; `pair` refuses, says why and what to run (ACWC-SEED-1)."""
    folder = scored(tmp_path)
    proc = pair(folder, "--stage", "swiss", "--round", "3")
    assert (proc.returncode, proc.stderr.strip().splitlines()[-1]) == (
        2,
        "error: tournament.toml stage 'swiss': round 3: the seeding ratings that number the entrants (the seeding "
        "view, ACWC-SEED-1) come with the audits, and no audit has run on the published snapshot: run "
        "`antichess-td audit` (or the nightly run) first",
    )
    assert not (folder / "out" / "exports" / "pairings_swiss_3.csv").exists()


def test_unknown_stage_and_round_out_of_range_exit_2(three_rounds: Path) -> None:
    proc = pair(three_rounds, "--stage", "knock", "--round", "1")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == (
        "error: tournament.toml --stage: 'knock': expected one of swiss, knockout, final"
    )
    proc = pair(three_rounds, "--stage", "swiss", "--round", "4")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == "error: tournament.toml stage 'swiss': round 4: expected 1-3"


def test_a_round_already_in_pairings_csv_exits_2_saying_so(three_rounds: Path) -> None:
    """Round 3 entered in pairings.csv (the two pairings the proposal would give) leaves no one to
    pair: `pair --round 3` says the round is already paired and how to pair it again, exit 2 (bad
    input, as every pair refusal), and writes no proposal."""
    with (three_rounds / "pairings.csv").open("a", encoding="utf-8") as f:
        f.write("swiss,3,Deltas,Alphas\nswiss,3,Gammas,Betas\n")
    proc = pair(three_rounds, "--stage", "swiss", "--round", "3")
    assert (proc.returncode, proc.stderr.strip().splitlines()) == (
        2,
        [
            "error: tournament.toml stage 'swiss': round 3 is already paired in pairings.csv: 2 pairings; "
            "remove them to pair it again"
        ],
    )
    assert not (three_rounds / "out" / "exports" / "pairings_swiss_3.csv").exists()


def test_a_round_entered_but_for_one_pairing_is_paired_for_the_rest(three_rounds: Path) -> None:
    """One pairing of round 3 entered by the TD (Deltas v Alphas) leaves Betas and Gammas: they are
    paired, and the round is not refused as already paired."""
    with (three_rounds / "pairings.csv").open("a", encoding="utf-8") as f:
        f.write("swiss,3,Deltas,Alphas\n")
    proc = pair(three_rounds, "--stage", "swiss", "--round", "3")
    assert proc.returncode == 0, proc.stderr
    assert (three_rounds / "out" / "exports" / "pairings_swiss_3.csv").read_text(encoding="utf-8") == (
        "stage,round,a,b\nswiss,3,Gammas,Betas\n"
    )
