"""The hand-made skeleton tournament (tests/data/skeleton) copied and run in-process: ingest from
its replay dataset, link, score, rank and export, as of a night after its two rounds. For tests
that change one of its files and look at what comes out."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

from pipeline.inputs.config import load_config
from pipeline.model import Config
from pipeline.stages import context, export, ingest, score

SKELETON = Path(__file__).resolve().parent / "data" / "skeleton"
AFTER_ROUND_2 = dt.datetime(2026, 3, 20, tzinfo=dt.UTC)


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
