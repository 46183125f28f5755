"""The hand-made skeleton tournament (tests/data/skeleton) copied and run in-process: ingest from
its replay dataset, link, score, rank and export, as of a night after its two rounds. For tests
that change one of its files and look at what comes out; and the CLI as a TD's shell runs it."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from pipeline import progress
from pipeline.inputs.config import load_config
from pipeline.model import Config
from pipeline.stages import context, export, ingest, score

SKELETON = Path(__file__).resolve().parents[1] / "data" / "skeleton"
AFTER_ROUND_2 = dt.datetime(2026, 3, 20, tzinfo=dt.UTC)
AFTER_ALL = "2026-03-20T03:00:00Z"  # the same night, as the CLI's --now
ROOT = Path(__file__).resolve().parents[2]


def copy_skeleton(tmp_path: Path) -> Path:
    """A writable copy of the skeleton tournament; returns its folder."""
    dest = tmp_path / "skeleton"
    shutil.copytree(SKELETON, dest, ignore=shutil.ignore_patterns("out", "make_dataset.py"))
    return dest


def run_skeleton(folder: Path, now: dt.datetime = AFTER_ROUND_2) -> tuple[Config, list[Path]]:
    """Ingest, score and export the tournament in `folder`; returns its config and the files written."""
    cfg = load_config(folder / "tournament.toml")
    inputs = context.read_inputs(cfg)
    with ingest.lichess_base_url(cfg) as base_url:
        ingest.ingest_stage(cfg, inputs, base_url, now)
    score.score_stage(cfg, inputs, now)
    return cfg, export.export_stage(cfg)


def td_env(**extra: str) -> dict[str, str]:
    """The environment of a TD's shell: no Prefect settings (the tests' own are dropped), this tree."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_") and k != progress.PROGRESS_INTERVAL_ENV}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, timeout=timeout, env=env or td_env()
    )


def flow_run_begun(toml: Path) -> bool:
    """Whether a nightly run of the tournament at `toml` has logged the start of its Prefect flow
    run (its log file, in the database's folder's logs/)."""
    logs = load_config(toml).paths.database.parent / "logs"
    return any(
        "Beginning flow run" in p.read_text(encoding="utf-8", errors="replace") for p in logs.glob("*-nightly-*.log")
    )


INGEST_PROGRESS_WITH_GAMES = re.compile(r"ingest: [1-9][0-9,]* games so far")


def read_until_ingest_in_flow(proc: subprocess.Popen[str], toml: Path) -> list[str]:
    """Read the nightly `proc`'s stderr until its ingest stage is under way inside the Prefect flow
    run: a progress line with games, printed after another one seen once the flow run had begun.
    The nightly downloads from the moment it holds its lock (the ingest's head start), so a
    progress line alone does not say that Prefect has started. Returns the lines read; fails the
    test if the run ends first."""
    assert proc.stderr is not None
    seen: list[str] = []
    begun = False
    for line in proc.stderr:
        seen.append(line)
        if INGEST_PROGRESS_WITH_GAMES.match(line):
            if begun:
                return seen
            begun = flow_run_begun(toml)
    raise AssertionError(f"no ingest progress in the flow run before the run ended: {''.join(seen)[-2000:]}")


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out
