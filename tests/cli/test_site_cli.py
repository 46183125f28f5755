"""`antichess-td site --config T.toml` as a TD's shell runs it: exit 0 and one summary line; exit 2
with one line when there is nothing published yet or the folder is not the site's own."""

from __future__ import annotations

from pathlib import Path

from kits.skeleton_kit import cli, copy_skeleton, run_skeleton
from pipeline.inputs.config import load_config


def test_site_writes_the_folder_and_says_so(tmp_path: Path) -> None:
    folder = copy_skeleton(tmp_path)
    cfg, _ = run_skeleton(folder)  # scored and exported, no audit yet
    proc = cli("site", "--config", str(folder / "tournament.toml"))
    assert proc.returncode == 0, proc.stderr
    site = folder / "out" / "site"
    pages = list(site.rglob("*.html"))
    largest = max(p.stat().st_size for p in pages)
    assert proc.stdout == (
        f"site: {len(pages)} pages in {site} (largest {largest / 1024:.0f} KB); no audit has run yet\n"
    )
    assert (site / "index.html").is_file() and not cfg.paths.site_private.exists()


def test_site_before_anything_is_published_exits_2(tmp_path: Path) -> None:
    folder = copy_skeleton(tmp_path)
    proc = cli("site", "--config", str(folder / "tournament.toml"))
    database = load_config(folder / "tournament.toml").paths.database
    assert proc.returncode == 2
    assert proc.stderr == (
        f"error: tournament.toml key 'paths.database': {database} does not exist yet: "
        "run `antichess-td nightly` (or score) first\n"
    )


def test_site_refuses_a_folder_it_did_not_write(tmp_path: Path) -> None:
    folder = copy_skeleton(tmp_path)
    run_skeleton(folder)
    site = folder / "out" / "site"
    site.mkdir()
    (site / "index.html").write_text("my own page", encoding="utf-8")
    proc = cli("site", "--config", str(folder / "tournament.toml"))
    assert proc.returncode == 2
    assert proc.stderr == (
        f"error: tournament.toml key 'paths.site': {site} holds files `antichess-td site` did not write: "
        "expected a folder of its own (each build replaces it whole); choose another folder or empty it\n"
    )
    assert (site / "index.html").read_text(encoding="utf-8") == "my own page"
