"""The wheel and the sdist carry what the installed package needs, and the code finds it there.

The wheel is built with the build backend's own API (hatchling, as pyproject.toml's
[build-system] names it) into tmp_path; "installed" means the wheel unpacked into a folder that is
put first on ``sys.path`` of a fresh interpreter started in an unrelated folder, which is what pip
does with a wheel minus the console script. .ci/run does the full round trip (pip install into a
fresh virtualenv, then the quick start from a temporary folder).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from hatchling.builders.sdist import SdistBuilder
from hatchling.builders.wheel import WheelBuilder

from pipeline.store import gateway

ROOT = Path(__file__).resolve().parent.parent
NAME = "antichess_td"
# every table and view with its columns, as the store's migration creates them
OBJECTS = (
    "SELECT table_name, table_type, string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position) "
    "FROM information_schema.columns JOIN information_schema.tables USING (table_catalog, table_schema, table_name) "
    "GROUP BY ALL ORDER BY table_name"
)


def _files(folder: Path) -> list[str]:
    """Every file under ``folder`` (relative, /-separated), bytecode caches left out."""
    return sorted(
        p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    )


SQL_FILES = _files(ROOT / "sql")
PRESETS = _files(ROOT / "data" / "presets")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    [built] = WheelBuilder(str(ROOT)).build(directory=str(out), versions=["standard"])
    return Path(built)


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel unpacked, as pip lays it out in site-packages."""
    site = tmp_path_factory.mktemp("site-packages")
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    return site


def run_installed(site: Path, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter that imports ``pipeline`` from ``site``, started in ``cwd``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    prelude = f"import sys; sys.path.insert(0, {str(site)!r})\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + code], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def test_the_wheel_carries_every_sql_file_and_preset_inside_the_package(wheel: Path) -> None:
    """sql/ is pipeline/sql and data/presets/ is pipeline/presets in the wheel, file for file."""
    assert SQL_FILES and PRESETS  # the checkout has them: the comparison below is not vacuous
    names = set(zipfile.ZipFile(wheel).namelist())
    assert sorted(n.removeprefix("pipeline/sql/") for n in names if n.startswith("pipeline/sql/")) == SQL_FILES
    assert sorted(n.removeprefix("pipeline/presets/") for n in names if n.startswith("pipeline/presets/")) == PRESETS
    # every module of both packages, and nothing of the checkout's other folders
    modules = {f"{pkg}/{f}" for pkg in ("pipeline", "flows") for f in _files(ROOT / pkg) if f.endswith(".py")}
    assert modules <= names, sorted(modules - names)
    # the site's templates and stylesheet, which the site finds beside its module (Jinja2's PackageLoader)
    templates = {f"pipeline/report/site/templates/{f}" for f in _files(ROOT / "pipeline/report/site/templates")}
    assert templates and templates <= names, sorted(templates - names)
    tops = {n.split("/")[0] for n in names}
    assert tops == {"pipeline", "flows", f"{NAME}-0.1.0.dist-info"}, tops


def test_the_wheel_declares_the_console_script_and_the_direct_imports(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        meta = Parser().parsestr(z.read(f"{NAME}-0.1.0.dist-info/METADATA").decode())
        scripts = z.read(f"{NAME}-0.1.0.dist-info/entry_points.txt").decode()
    assert "antichess-td = pipeline.cli.app:main" in scripts
    required = {
        r.split(";")[0].split(">")[0].split("<")[0].split("=")[0].strip() for r in meta.get_all("Requires-Dist")
    }
    # imported by the code itself, not only by its dependencies
    for name in ("berserk", "chess", "polars", "duckdb", "prefect", "typer", "rich", "httpx", "requests"):
        assert name in required, name
    assert {"pydantic", "croniter", "jinja2", "markupsafe"} <= required


def test_the_sdist_carries_the_folders_the_wheel_maps_in(tmp_path: Path) -> None:
    """pip and ``python -m build`` build the wheel from the sdist: sql/ and data/presets/ must be in it."""
    [built] = SdistBuilder(str(ROOT)).build(directory=str(tmp_path), versions=["standard"])
    with tarfile.open(built) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    assert {f"sql/{f}" for f in SQL_FILES} <= names
    assert {f"data/presets/{f}" for f in PRESETS} <= names
    assert {"pyproject.toml", "README.md", "pipeline/resources.py", "flows/nightly.py"} <= names


def test_installed_package_finds_its_sql_and_presets_inside_itself(installed: Path, tmp_path: Path) -> None:
    """From an unrelated folder, the unpacked wheel resolves pipeline/sql and pipeline/presets inside
    itself (not the checkout), creates every table and view from its own SQL files, and is not a
    checkout."""
    code = """
import json, tomllib
import pipeline
from pipeline import resources
from pipeline.store import gateway
con = gateway.connect("probe.duckdb")
presets = {p.stem: tomllib.loads(p.read_text()) for p in resources.PRESETS_DIR.glob("*.toml")}
print(json.dumps({
    "package": pipeline.__file__, "sql": str(resources.SQL_DIR), "presets": str(resources.PRESETS_DIR),
    "checkout": resources.checkout_root(), "objects": con.execute(OBJECTS).fetchall(), "preset_names": sorted(presets),
}))
"""
    done = run_installed(installed, f"OBJECTS = {OBJECTS!r}\n" + code, tmp_path)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["package"] == str(installed / "pipeline" / "__init__.py")
    assert got["sql"] == str(installed / "pipeline" / "sql")
    assert got["presets"] == str(installed / "pipeline" / "presets")
    assert got["checkout"] is None
    # the same tables, columns and views as the checkout's SQL files create
    con = gateway.connect(tmp_path / "checkout.duckdb")
    try:
        want = [list(row) for row in con.execute(OBJECTS).fetchall()]
    finally:
        con.close()
    assert want and got["objects"] == want
    assert got["preset_names"] == sorted(Path(p).stem for p in PRESETS)


def test_an_installed_package_without_its_sql_says_so(installed: Path, tmp_path: Path) -> None:
    """A wheel built without the mapping fails at import with both places named, instead of finding
    no presets (`unknown preset 'team-swiss': expected one of ` with an empty list)."""
    broken = tmp_path / "site-packages"
    broken.mkdir()
    for top in ("pipeline", "flows"):
        (broken / top).symlink_to(installed / top, target_is_directory=True)
    # the same package, but pipeline/ without sql/: a copy of its top level with sql/ left out
    (broken / "pipeline").unlink()
    (broken / "pipeline").mkdir()
    for child in (installed / "pipeline").iterdir():
        if child.name != "sql":
            (broken / "pipeline" / child.name).symlink_to(child, target_is_directory=child.is_dir())
    done = run_installed(broken, "import pipeline.resources", tmp_path)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        f"pipeline.resources.ResourceMissing: pipeline/sql is missing: not in the installed package "
        f"({broken / 'pipeline' / 'sql'}) and pipeline is not imported from a source checkout with sql/; "
        "reinstall antichess-td from a wheel built by `pip wheel .` (pyproject.toml maps it in)"
    )


def test_the_config_reference_writer_refuses_to_run_outside_a_checkout(installed: Path, tmp_path: Path) -> None:
    """`python -m pipeline.inputs.config_reference` rewrites docs/config.md of a checkout; installed,
    it writes nothing and says why (exit 2)."""
    code = "from pipeline.inputs import config_reference; raise SystemExit(config_reference.main([]))"
    done = run_installed(installed, code, tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "docs/config.md is written in a source checkout of antichess-td; pipeline is imported from "
        f"{installed / 'pipeline'}, an installed package: run this from a clone of the repository\n"
    )
    assert list(tmp_path.iterdir()) == []
