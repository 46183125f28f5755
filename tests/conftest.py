"""Shared fixtures. Real DuckDB files, real HTTP on 127.0.0.1, the real berserk client; no mocks.

Prefect reads its settings when first imported, so its environment is set here, before any
test module imports it: a temporary PREFECT_HOME per pytest run (no cache records survive into
the next run), telemetry off, a generous ephemeral-server start-up timeout for two busy cores.

The suite runs on every core (pyproject's addopts: `-n auto`, pytest-xdist). What costs most is
built once per run and shared read-only: a small demo (`small_demo_source`) and, for the
scenario tier (`-m scenario`), a 10-team demo (`ten_team_demo_source`), the suite's demo and its
audit (`suite_demo`, `audited`: the default seed with the least history the rules allow), each
under a file lock in the run's shared temp folder so that two workers never build the same one.
A test that writes into a shared demo works on its own copy. Each worker starts one Prefect test
server (`prefect_api_url`) when a test asks for it.
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pipeline.cli import prefect_env

prefect_env.isolate("antichess-td-prefect-")

import pytest  # noqa: E402
from filelock import FileLock  # noqa: E402

from pipeline.sim import replay  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
SKELETON = DATA / "skeleton"

# The real-browser kit's `browser` fixture (headless Chromium; tests/kits/browserkit.py) and the league
# kit's `prefect_server` (a real `prefect server start`; tests/kits/leaguekit.py).
pytest_plugins = ["kits.browserkit", "kits.leaguekit"]


# How pytest-xdist shares out the work (pyproject: `-n auto --dist loadscope --no-loadscope-reorder`).
# A unit of work is a test module (its module fixtures are built once, on one worker), except that
# the tests reading the suite's demo (the `suite_demo` and `audited` session fixtures, all in the
# scenario tier) are one unit, "suite-demo": one worker builds and audits the demo and runs them
# while the other worker runs everything else, instead of both waiting on the demo's lock.
# The longest units are handed out first (FIRST_UNITS for the suite's run, SCENARIO_FIRST_UNITS
# for `-m scenario`, longest first, as measured), so that the end of a run is made of short
# modules that even the two workers out and no worker is left alone with a long unit at the end.
# The scheduler sees only test ids, so the readers are listed here; collection warns when the
# list and the fixtures disagree (a missing entry costs time, not correctness).
DEMO_READERS = frozenset(
    {
        "tests/domain/test_placings.py::test_the_demo_placings_follow_its_bracket",
        "tests/store/test_view_grain.py::test_each_view_grain_is_unique_on_the_demo",
        "tests/domain/test_rd.py::test_team_cap_5_error_bounds_on_the_suite_demo",
        "tests/domain/test_rd.py::test_team_cap_5_planted_rd_trap_through_the_rating_estimates_table",
        "tests/domain/test_rd.py::test_nightly_estimates_resume_and_equal_one_run_over_all_games",
        "tests/domain/test_rd.py::test_the_audit_rates_only_the_games_an_audit_reads_and_finds_what_rating_every_game_finds",
        "tests/domain/test_rd.py::test_a_late_game_the_estimator_does_not_rate_leaves_the_resume_intact",
        "tests/sim/test_demo_seeds.py::test_planted_facts_hold_for_the_suite_demo",
        "tests/sim/test_demo_seeds.py::test_team_comp_6_note_states_the_audited_ratings_in_the_suite_demo",
        "tests/stages/test_audits_demo.py::test_every_planted_audit_violation_is_found",
        "tests/stages/test_audits_demo.py::test_every_error_is_planted_and_no_trap_is_one",
        "tests/stages/test_audits_demo.py::test_acwc_seeds_follow_acwc_seed_1",
        "tests/stages/test_audits_demo.py::test_the_seed_tiebreak_reads_the_seeding_view_not_players_csv",
        "tests/stages/test_audits_demo.py::test_each_audit_file_runs_verbatim_on_the_published_file",
        "tests/stages/test_audits_demo.py::test_the_duckdb_cli_runs_each_audit_file_on_the_published_snapshot",
        "tests/stages/test_audits_demo.py::test_the_audit_stage_evaluates_only_its_kinds_audits_and_finds_every_row_of_the_view",
        "tests/stages/test_knockout.py::test_team_fmt_1_the_demo_twelve_teams_need_no_rounds_in_the_config",
        "tests/test_docs.py::test_sql_example_returns_rows_on_the_demo",
    }
)


# The suite's run (one worker's time from --durations on the 2-core machine with other work running).
FIRST_UNITS = (
    "tests/store/test_machine_faults.py",  # three nightly processes on the skeleton: about 70 s
    "tests/cli/test_run_output.py",  # nightly processes stopped and watched: about 65 s
    "tests/cli/test_prefect_unavailable.py",  # nightly processes without a Prefect server: about 60 s
    "tests/lichess/test_faults.py",  # a faulty replay server, a Prefect test server: about 55 s
    "tests/stages/test_attention_list.py",
    "tests/stages/test_rescore.py",
    "tests/store/test_nightly_publish.py",
    "tests/report/test_site.py",  # the skeleton's site, crawled in Chromium
    "tests/sim/test_season.py",
    "tests/stages/test_audits.py",
    "tests/inputs/test_bad_input.py",
    "tests/cli/test_init_check.py",
    "tests/cli/test_prefect_left_alone.py",
    "tests/lichess/test_dump.py",
)

# The scenario tier's run (same machine and load).
SCENARIO_FIRST_UNITS = (
    "tests/domain/test_pairing_bbp.py",  # the 89 bbpPairings tournaments over 20 entrants: about 7 min
    "suite-demo",  # build and audit the suite's demo, then its readers: about 7.5 min
    "tests/report/test_site.py",  # the small demo's sites built, then crawled in Chromium: about 8 min
    "tests/sim/test_demo_seeds.py",  # seed 12 and the default demo built and audited: about 6.5 min
    "tests/sim/test_season_sizes.py",  # a 256-team, 11-round season built and written: about 5 min
    "tests/cli/test_prefect_unavailable.py",  # Prefect's server killed mid-run: about 4 min
    "tests/store/test_machine_faults.py",  # damaged databases, full disks, SIGTERM at random: about 5 min
    "tests/lichess/test_faults.py",  # kill -9 at random moments, the other faults: about 3 min
    "tests/sim/test_replay_nights.py",  # builds the 10-team demo, then two and four nights: about 4 min
    "tests/cli/test_league_workers.py",  # a Prefect server, two workers, one killed mid-run: about 3 min
    "tests/cli/test_league_served.py",  # a Prefect server, two workers, the demo's league of three: about 70 s
    "tests/sim/test_soak.py",  # eight nightly processes on the small demo: about 2 min
    "tests/sim/test_season.py",  # a 64-team, 11-round season: about 90 s
    "tests/cli/test_init_check.py",  # ten teams from init to the semifinal: reads the 10-team demo
    "tests/lichess/test_dump.py",  # a season backfilled from dumps against the API alone: about 60 s
    "tests/cli/test_run_output.py",
    "tests/store/test_nightly_publish.py",
)


def _order(item: pytest.Item) -> int:
    units = SCENARIO_FIRST_UNITS if item.get_closest_marker("scenario") else FIRST_UNITS
    unit = _unit(item.nodeid)
    return units.index(unit) if unit in units else len(units)


def _unit(nodeid: str) -> str:
    """The unit of work of a test id: "suite-demo" for DEMO_READERS, else its module."""
    test = nodeid.split("[", 1)[0]
    return "suite-demo" if test in DEMO_READERS else nodeid.split("::", 1)[0]


def _reads_suite_demo(item: pytest.Item) -> bool:
    fixtures = getattr(item, "_fixtureinfo", None)
    defs = fixtures.name2fixturedefs if fixtures else {}
    return any(defs.get(name) and defs[name][-1].func.__module__ == __name__ for name in ("suite_demo", "audited"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _reads_suite_demo(item) != (_unit(item.nodeid) == "suite-demo"):
            warnings.warn(
                f"{item.nodeid.split('[', 1)[0]}: {'reads' if _reads_suite_demo(item) else 'does not read'} "
                "the suite's demo: update DEMO_READERS in tests/conftest.py (xdist runs the readers on one worker)",
                stacklevel=1,
            )
    items.sort(key=_order)  # stable: the other modules keep their order


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """--dist loadscope with the units of `_unit` (pytest-xdist's loadgroup would do it from marks,
    but it cannot rename test ids under pytest 9)."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class DemoAwareScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _unit(nodeid)

    return DemoAwareScheduling(config, log)


@pytest.fixture(scope="session")
def prefect_api_url() -> Iterator[str]:
    """One Prefect test server for the whole run (starting one costs ~20 s); yields its API URL."""
    from prefect.settings import PREFECT_API_URL, PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
            yield str(PREFECT_API_URL.value())


@pytest.fixture
def skeleton(tmp_path: Path) -> Path:
    """A writable copy of the hand-made skeleton tournament; returns its tournament.toml."""
    dest = tmp_path / "skeleton"
    shutil.copytree(SKELETON, dest, ignore=shutil.ignore_patterns("out", "make_dataset.py"))
    return dest / "tournament.toml"


@pytest.fixture(scope="session")
def skeleton_server() -> Iterator[replay.ReplayServer]:
    """The skeleton's Lichess dataset on a free port of 127.0.0.1."""
    with replay.running(SKELETON / "lichess") as server:
        yield server


def _built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], object]) -> Any:
    """`build(folder)`'s result (JSON: paths as strings), computed once per pytest run even under
    pytest-xdist: the first worker to ask builds it in a folder of the run's shared base temp
    directory, holding a file lock while it builds; the others wait on the lock and read the result
    it wrote (the recipe pytest-xdist documents for session fixtures). Without xdist it is built in
    this session's temp directory."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return json.loads(json.dumps(build(tmp_path_factory.mktemp(name)), default=str))
    root = tmp_path_factory.getbasetemp().parent  # the run's folder, shared by its workers
    done = root / f"{name}.json"
    with FileLock(str(root / f"{name}.lock")):
        if not done.is_file():
            folder = root / name
            folder.mkdir()
            done.write_text(json.dumps(build(folder), default=str), encoding="utf-8")
        return json.loads(done.read_text(encoding="utf-8"))


def _suite_demo(folder: Path) -> Path:
    from kits.demo_audit import SUITE_DEMO
    from pipeline.sim.season import build_season

    build_season(folder / "demo", **SUITE_DEMO)
    return folder / "demo"


@pytest.fixture(scope="session")
def suite_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The suite's demo (demo_audit.SUITE_DEMO): the default seed, 2026, and 12 teams as the default
    demo, with the least history the rules allow, 1000 rated games per player before registration
    (TEAM-ELIG-2), every one of them stored, and 8 ACWC players: 59 players and 83,148 games where
    the default demo has 91 and 49,614 (most of its accounts' games counted on their profiles only),
    the same 33 planted violations and 2 traps. Built once per run (~60 s of CPU; once
    across pytest-xdist workers) and shared: tests only read it (the `audited` fixture writes its
    out/ folders, once)."""
    return Path(_built_once(tmp_path_factory, "suite-demo", _suite_demo))


@pytest.fixture(scope="session")
def audited(suite_demo: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Both events of the suite's demo ingested (from the in-process replay server), scored and
    audited as of 2026-11-29 in one recorded run each, once per pytest run (once across workers);
    returns their published databases by name (team, acwc). The audit tests and the docs' SQL
    examples read them."""
    from kits.demo_audit import audit_demo

    dbs = _built_once(tmp_path_factory, "suite-demo-audited", lambda _: audit_demo(suite_demo))
    return {name: Path(db) for name, db in dbs.items()}


def _small_demo(folder: Path) -> Path:
    from pipeline.sim.season import build_season

    build_season(folder / "demo", **SMALL_DEMO)
    return folder / "demo"


SMALL_DEMO: dict[str, Any] = {"seed": 11, "teams": 12, "games": (30, 60), "acwc_players": 16}


@pytest.fixture(scope="session")
def small_demo_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small demo (SMALL_DEMO: seed 11, 12 teams, 30-60 rated games per player before
    registration, 16 ACWC players), built once per run (once across workers). Read-only: a test
    that scores it or edits its files works on a copy (`copy_demo`)."""
    return Path(_built_once(tmp_path_factory, "small-demo", _small_demo))


TEN_TEAM_DEMO = ("--teams", "10", "--history-games", "30-60", "--acwc-players", "16", "--seed", "5")


def _ten_team_demo(folder: Path) -> Path:
    import subprocess
    import sys

    out = folder / "demo"
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline", "demo", "--out", str(out), *TEN_TEAM_DEMO],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out


@pytest.fixture(scope="session")
def ten_team_demo_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 10-team demo (seed 5, 30-60 rated games per player before registration, 16 ACWC players)
    written by the real `antichess-td demo` process (its options parsed as a TD types them), once
    per run (once across workers). Read-only: a test that runs it works on a copy."""
    return Path(_built_once(tmp_path_factory, "ten-team-demo", _ten_team_demo))
