"""The Lichess token comes from the environment variable the config names and goes nowhere else:
not into logs, output, the database or exports (docs/token.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.sim import replay

TOKEN = "lip_Zq9SecretToken4Tests7x"
SKELETON = Path(__file__).resolve().parents[1] / "data" / "skeleton"


@pytest.mark.prefect
def test_token_is_used_but_never_written(tmp_path: Path, prefect_api_url: str) -> None:
    folder = tmp_path / "t"
    shutil.copytree(SKELETON, folder, ignore=shutil.ignore_patterns("out", "make_dataset.py"))
    with replay.running(SKELETON / "lichess", options=replay.ReplayOptions(games_per_s=0)) as server:
        cfg = (folder / "tournament.toml").read_text(encoding="utf-8")
        cfg = cfg.replace('replay_data = "lichess"', f'base_url = "{server.base_url}"\ntoken_env = "TD_TEST_TOKEN"')
        (folder / "tournament.toml").write_text(cfg, encoding="utf-8")
        env = {**os.environ, "TD_TEST_TOKEN": TOKEN, "PREFECT_API_URL": prefect_api_url}
        outputs = []
        for command in (["ingest"], ["score"], ["audit"], ["export"], ["nightly"]):
            proc = subprocess.run(
                [sys.executable, "-m", "pipeline", *command, "--config", str(folder / "tournament.toml")],
                capture_output=True,
                text=True,
                env=env,
                timeout=300,
            )
            assert proc.returncode == 0, proc.stderr[-2000:]
            outputs += [proc.stdout, proc.stderr]
        served = dict(server.requests_by_kind)
    assert served.get("games", 0) > 0 and served.get("rating_history", 0) > 0
    for text in outputs:
        assert TOKEN not in text
    written = [p for p in folder.rglob("*") if p.is_file()]
    assert any(p.suffix == ".duckdb" for p in written) and any(
        p.suffix == ".csv" and "standings" in p.name for p in written
    )
    for path in written:
        assert TOKEN.encode() not in path.read_bytes(), path


def test_rating_history_is_requested_with_the_token(tmp_path: Path) -> None:
    """Without a token Lichess may answer [] to a rating-history request: the client must send it."""
    from pipeline.lichess import client

    with replay.running(SKELETON / "lichess") as server:
        with_token = client.fetch_rating_history(client.make_client(server.base_url, TOKEN, 5.0), "alice")
        without = client.fetch_rating_history(client.make_client(server.base_url, None, 5.0), "alice")
    assert any(p["points"] for p in with_token) and without == []
