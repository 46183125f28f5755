"""Meta-tests: every command has help and is documented in the TD guide; CI runs the README's quick start verbatim."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from pipeline.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = sorted(get_command(app).commands)  # type: ignore[attr-defined]


def test_the_documented_commands_exist() -> None:
    """The commands the CLI reference (docs/cli.md) documents, at least these."""
    assert {"nightly", "ingest", "score", "export", "replay-server", "demo"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_and_is_in_the_td_guide(command: str) -> None:
    """Each command answers --help and has its line in the TD guide's table of commands."""
    result = CliRunner().invoke(app, [command, "--help"])
    assert result.exit_code == 0 and "Usage" in result.output
    guide = (ROOT / "docs" / "td-guide.md").read_text(encoding="utf-8")
    assert re.search(rf"^\| `antichess-td {re.escape(command)}\b", guide, re.M), command


def quick_start() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1]
    block = re.search(r"```\n(.*?)```", section, re.S)
    assert block is not None
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_quick_start_is_two_commands_and_ci_runs_both() -> None:
    """.ci/run reads the two commands out of the README (grep -m1 -E PATTERN README.md) and evals
    them: each pattern's first match in the README must be exactly its quick-start command."""
    commands = quick_start()
    assert len(commands) == 2
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    patterns = re.findall(r"(\w+)=\$\(grep -m1 -E '([^']+)' README\.md\)", ci)
    assert [name for name, _ in patterns] == ["quick_demo", "quick_test"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    for command, (name, pattern) in zip(commands, patterns, strict=True):
        assert next(line for line in readme if re.search(pattern, line)) == command
        assert f'eval "${name}"' in ci


def test_config_errors_exit_2_with_file_and_key(tmp_path: Path) -> None:
    import subprocess
    import sys

    cfg = tmp_path / "tournament.toml"
    cfg.write_text('preset = "team-swiss"\n[tournament]\nid = "x"\nboards = "four"\n', encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline", "score", "--config", str(cfg)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.strip().splitlines()[-1]
        == "error: tournament.toml key 'tournament.boards': expected a whole number from 1 to 8, got 'four'"
    )


@pytest.mark.parametrize("value", ["lots", "300-150", "0-10", "150"])
def test_demo_stored_games_must_be_min_max_or_all(value: str, tmp_path: Path) -> None:
    """`demo --stored-games` takes MIN-MAX with 0 < MIN <= MAX, or all: anything else is one
    line naming the option and what it expects, exit 2, before anything is built."""
    import subprocess
    import sys

    out = tmp_path / "demo"
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline", "demo", "--out", str(out), "--stored-games", value],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: --stored-games: {value!r}: expected MIN-MAX such as 150-300 (0 < MIN <= MAX), or all"
    ]
    assert not out.exists()
