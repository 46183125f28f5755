"""Only the commands that run the nightly flow (`nightly`, `serve`) touch Prefect. Every other
command leaves it alone: Prefect is not imported, and no Prefect home or database is created,
neither in the tournament's folder (its default `.prefect` beside the database) nor in the
user's home (Prefect's own default, `~/.prefect`). So `antichess-td demo` writes only the demo's
data, and two demos with the same seed are byte-identical folders (docs/demo.md).

Real `antichess-td` processes in a TD's environment (no PREFECT_* variables), with HOME pointed
at an empty folder of the test's; `-X importtime` lists what each process imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kits.skeleton_kit import AFTER_ALL, copy_skeleton, td_env

SMALL = ("--seed", "7", "--teams", "10", "--history-games", "30-60", "--acwc-players", "8")


def run(home: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """`antichess-td ARGS` with HOME=`home`; the process and the top-level packages it imported."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pipeline", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=td_env(HOME=str(home)),
    )
    imported = {
        line.split("|")[-1].strip().split(".")[0]
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    return proc, imported


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every path under `folder`, hidden ones included, relative, with its bytes (None: a folder)."""
    return {
        p.relative_to(folder).as_posix(): (None if p.is_dir() else p.read_bytes()) for p in sorted(folder.rglob("*"))
    }


def prefect_paths(*folders: Path) -> list[str]:
    return [str(p) for f in folders for p in f.rglob("*") if "prefect" in p.name.lower()]


@pytest.mark.scenario
@pytest.mark.slow
def test_two_demos_with_one_seed_are_byte_identical_and_hold_no_prefect_home(tmp_path: Path) -> None:
    """`demo --seed 7` twice (a small season) into two folders: the same paths, hidden files
    included, each file the same bytes; no `.prefect` in them or in HOME; Prefect not imported."""
    home = tmp_path / "home"
    home.mkdir()
    built = {}
    for name in ("first", "second"):
        proc, imported = run(home, "demo", "--out", str(tmp_path / name), *SMALL)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "prefect" not in imported
        built[name] = tree(tmp_path / name)
    first, second = built["first"], built["second"]
    assert sorted(first) == sorted(second)
    assert [p for p in first if first[p] != second[p]] == []
    assert "tournament.toml" in first and "lichess/games.ndjson" in first
    assert prefect_paths(tmp_path, home) == []


def test_commands_that_run_no_flow_create_no_prefect_home(tmp_path: Path) -> None:
    """init, check, ingest, score, audit, export and site on the skeleton tournament (each exits 0):
    none imports Prefect, and no Prefect file appears in the tournament's folder or in HOME, where
    `nightly` would create the `.prefect` folder beside the database."""
    home = tmp_path / "home"
    home.mkdir()
    folder = copy_skeleton(tmp_path)
    toml = str(folder / "tournament.toml")
    commands = [
        ("init", str(tmp_path / "new")),
        ("check", "--config", toml),
        ("ingest", "--config", toml, "--now", AFTER_ALL),
        ("score", "--config", toml, "--now", AFTER_ALL),
        ("audit", "--config", toml, "--now", AFTER_ALL),
        ("export", "--config", toml),
        ("site", "--config", toml),
    ]
    for args in commands:
        proc, imported = run(home, *args)
        assert proc.returncode == 0, (args, proc.stderr[-3000:])
        assert "prefect" not in imported, args
    assert (folder / "out" / "skeleton.duckdb").is_file()  # the commands did run
    assert prefect_paths(tmp_path) == []
