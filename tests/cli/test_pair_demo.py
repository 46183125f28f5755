"""`antichess-td pair` on the small demo after round 3, both presets: the TD's pairings.csv holds
rounds 1-3 only (later rounds and stages removed, as before the TD pairs them), the season is
scored and audited, and round 4 is proposed complete — every entrant exactly once (12 teams: 6 pairs; 16
ACWC players: 8), no pair that met in rounds 1-3 (FIDE C.04.1.b), in the file's own columns.
The demo's own Swiss rounds are paired by the same engine from its simulated results, so the
proposal is exactly the demo's round 4, colours (who is `a`) and table order included."""

from __future__ import annotations

import csv
import datetime as dt
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.inputs.config import load_config
from pipeline.stages import audit, context, ingest, score

NOW = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)


@pytest.mark.slow
@pytest.mark.parametrize(("event", "stage", "entrants"), [("team", "swiss", 12), ("acwc", "qualification", 16)])
def test_pair_on_the_demo_after_round_3(
    small_demo_source: Path, tmp_path: Path, event: str, stage: str, entrants: int
) -> None:
    out = shutil.copytree(small_demo_source, tmp_path / "demo")
    cfg_path = out / "tournament.toml" if event == "team" else out / "acwc" / "tournament.toml"
    cfg = load_config(cfg_path)

    def early(line: str) -> bool:
        cells = line.split(",")
        return cells[0] == "stage" or (cells[0] == stage and int(cells[1]) <= 3)

    lines = cfg.paths.pairings.read_text(encoding="utf-8").splitlines(keepends=True)
    demo_round_4 = [ln.rstrip("\n").split(",")[2:4] for ln in lines if ln.startswith(f"{stage},4,")]
    cfg.paths.pairings.write_text("".join(ln for ln in lines if early(ln)), encoding="utf-8")
    if cfg.paths.overrides:
        lines = cfg.paths.overrides.read_text(encoding="utf-8").splitlines(keepends=True)
        cfg.paths.overrides.write_text("".join(ln for ln in lines if early(ln)), encoding="utf-8")
    inputs = context.read_inputs(cfg)
    with ingest.lichess_base_url(cfg) as base_url:
        ingest.ingest_stage(cfg, inputs, base_url, NOW)
    score.score_stage(cfg, inputs, NOW)
    audit.audit_stage(cfg, inputs, NOW)  # as the nightly run does: the seeding view's parameters

    proc = subprocess.run(
        [sys.executable, "-m", "pipeline", "pair", "--config", str(cfg_path), "--stage", stage, "--round", "4"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    with (cfg.paths.exports / f"pairings_{stage}_4.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["stage", "round", "a", "b"]  # the demo's pairings.csv columns
    assert len(rows) == entrants // 2 and {(r["stage"], r["round"]) for r in rows} == {(stage, "4")}
    seated = [r[k].lower() for r in rows for k in ("a", "b")]
    assert len(set(seated)) == entrants
    with cfg.paths.pairings.open(newline="", encoding="utf-8") as f:
        met = {frozenset((r["a"].lower(), r["b"].lower())) for r in csv.DictReader(f)}
    assert not {frozenset((r["a"].lower(), r["b"].lower())) for r in rows} & met
    assert (cfg.paths.exports / f"pairings_{stage}_4.md").read_text(encoding="utf-8").count("\n| ") == entrants // 2 + 1
    assert [[r["a"], r["b"]] for r in rows] == demo_round_4
