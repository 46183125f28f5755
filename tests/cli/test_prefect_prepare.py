"""`antichess-td demo` prepares the TEAM season's Prefect database while it builds the world: the
database in the home the demo's tournament.toml resolves to is created and migrated to Prefect's
latest revision, so the quick start's first nightly does not migrate it (docs/benchmarks.md,
Quick start). A database that cannot be prepared is a note, not a failure: the nightly migrates it.

A real `antichess-td demo` process (a small season), Prefect's own migration command."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from skeleton_kit import cli, td_env

from pipeline.cli import prefect_env
from pipeline.inputs.config import load_config


def head_revision() -> str:
    """The newest revision of Prefect's SQLite migrations, read from its own migration scripts."""
    import prefect.server.database
    from alembic.script import ScriptDirectory
    from prefect.server.database.orm_models import AioSqliteORMConfiguration

    scripts = Path(prefect.server.database.__file__).parent / "_migrations"
    head = ScriptDirectory(str(scripts), version_locations=[str(AioSqliteORMConfiguration().versions_dir)])
    revision = head.get_current_head()
    assert revision
    return revision


def revision(db: Path) -> list[tuple[str]]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute("SELECT version_num FROM alembic_version").fetchall()
    finally:
        con.close()


@pytest.mark.slow
def test_the_demo_leaves_its_team_seasons_prefect_database_migrated(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    proc = cli(
        "demo", "--out", str(out), "--teams", "10", "--history-games", "200-300", "--acwc-players", "8", env=td_env()
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "note:" not in proc.stdout
    home = load_config(out / "tournament.toml").paths.prefect_home
    assert home is not None
    assert revision(home / "prefect.db") == [(head_revision(),)]


def test_nothing_is_prepared_for_a_prefect_server_named_by_prefect_api_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")
    assert prefect_env.prepare_database(tmp_path / "home") is None
    assert not (tmp_path / "home").exists()


def test_a_database_that_cannot_be_migrated_is_one_line_not_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in [k for k in os.environ if k.startswith("PREFECT_")]:
        monkeypatch.delenv(key)
    home = tmp_path / "home"
    home.mkdir()
    (home / "prefect.db").write_bytes(b"not a SQLite file" * 100)
    why = prefect_env.database_prepared(prefect_env.prepare_database(home))
    assert why is not None and why.startswith("Prefect's database could not be prepared (exit ")
    assert "\n" not in why
