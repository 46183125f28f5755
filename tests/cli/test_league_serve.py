"""`serve` and `status` of a league (docs/td-guide.md, Running a league), in the suite: the
deployments of two tournaments (names, schedules, parameters, tags; on a work pool, the
module-path entrypoint and the heartbeats), the Prefect limits and the rerun automation created
on the session's Prefect test server (twice: idempotent), `status` on a small published database
(its lines computed from the runs view's rows), and bad input. The whole league on a work pool
with real workers, one of them killed: tests/cli/test_league_workers.py (scenario tier)."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sys
from pathlib import Path

import duckdb
import pytest

from kits.skeleton_kit import SKELETON
from pipeline.cli.app import main
from pipeline.errors import LichessError
from pipeline.inputs.config import load_config
from pipeline.inputs.league import league_of_configs, league_parameter
from pipeline.lichess.lane import lane_name, store_limit_name

NOW = dt.datetime(2026, 3, 20, 3, tzinfo=dt.UTC)
DEAD_API = "http://127.0.0.1:9/api"  # the discard port: nothing listens there


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, Path]:
    """Two skeleton tournaments in one folder: `skeleton` on the default schedule, and
    `skeleton-b` (another id, database and token variable) at 02:30 Berlin with a closing-day cron."""
    a = shutil.copytree(SKELETON, tmp_path / "a", ignore=shutil.ignore_patterns("out", "make_dataset.py"))
    b = shutil.copytree(SKELETON, tmp_path / "b", ignore=shutil.ignore_patterns("out", "make_dataset.py"))
    toml = (b / "tournament.toml").read_text(encoding="utf-8")
    toml = toml.replace('id = "skeleton"', 'id = "skeleton-b"').replace("[lichess]", '[lichess]\ntoken_env = "B_TOKEN"')
    toml += '\n[schedule]\ncron = "30 2 * * *"\ntimezone = "Europe/Berlin"\nclosing_day_cron = "0 12-23 * * 1"\n'
    (b / "tournament.toml").write_text(toml, encoding="utf-8")
    return a / "tournament.toml", b / "tournament.toml"


def test_a_league_has_one_deployment_per_tournament_on_its_own_schedules(two: tuple[Path, Path]) -> None:
    """Named by tournament.id, each config's schedules, the `league` parameter
    (league_parameter's JSON) beside config_path, the league's tag; on a work pool the entrypoint
    is the installed module's and the runs' environment sets Prefect's heartbeat (flows/league.py)."""
    from flows.league import HEARTBEAT_S, league_deployments

    league = league_of_configs(list(two))
    assert load_config(two[1]).lichess.token_env == "B_TOKEN"
    configs = [(load_config(p), p) for p in two]
    for pool in (None, "antichess"):
        a, b = league_deployments(configs, league, pool)
        assert (a.name, b.name) == ("skeleton", "skeleton-b")
        assert [(s.schedule.cron, s.schedule.timezone, s.parameters) for s in a.schedules] == [("0 3 * * *", "UTC", {})]
        assert [(s.schedule.cron, s.schedule.timezone, s.parameters) for s in b.schedules] == [
            ("30 2 * * *", "Europe/Berlin", {}),
            ("0 12-23 * * 1", "Europe/Berlin", {"refresh": True}),
        ]
        for d, path, tid in ((a, two[0], "skeleton"), (b, two[1], "skeleton-b")):
            assert d.parameters == {"config_path": str(path.resolve()), "league": league_parameter(league)}
            assert d.tags == ["antichess-td", tid, "league:league"]
        if pool is None:
            assert a.entrypoint == "flows/nightly.py:nightly" and a.work_pool_name is None
        else:
            assert (a.entrypoint, a.work_pool_name) == ("flows.nightly.nightly", "antichess")
            assert a.job_variables == {"env": {"PREFECT_FLOWS_HEARTBEAT_FREQUENCY": str(HEARTBEAT_S)}}
    [alone] = league_deployments(configs[:1], None)
    assert alone.parameters == {"config_path": str(two[0].resolve())}  # one tournament: no league


def test_the_limits_are_one_lane_per_server_and_token_and_the_league_store(two: tuple[Path, Path]) -> None:
    """One lane per Lichess server and token: the token read from each tournament's own variable; two variables with one
    value are one lane, with two values two lanes; the store's limit last, only for a league."""
    from flows.league import limit_names

    configs = [load_config(p) for p in two]
    league = league_of_configs(list(two))
    url = configs[0].lichess.base_url
    same = {"LICHESS_TOKEN": "t1", "B_TOKEN": "t1"}
    assert limit_names(configs, league, same) == [lane_name(url, "t1"), store_limit_name("league")]
    apart = {"LICHESS_TOKEN": "t1", "B_TOKEN": "t2"}
    assert limit_names(configs, league, apart) == [
        *sorted([lane_name(url, "t1"), lane_name(url, "t2")]),
        "league-store-league",
    ]
    assert limit_names(configs[:1], None, {}) == [lane_name(url, None)]
    assert all("t1" not in n and "t2" not in n for n in limit_names(configs, league, apart))


@pytest.mark.prefect
def test_serve_creates_the_limits_the_automations_and_the_pool_once(prefect_api_url: str) -> None:
    """On a real Prefect server, twice: each limit active with one slot; one automation marking a
    run of ours silent for 90 s after a heartbeat Crashed, one scheduling a run of ours that crashed
    in its first two attempts again (AwaitingRetry); one process pool."""
    from prefect.client.orchestration import get_client

    from flows.league import CRASH_AUTOMATION, RERUN_AUTOMATION, ensure_automations, ensure_limits, ensure_process_pool

    names = ["lichess-lane-test0000", "league-store-test"]
    with get_client(sync_client=True) as client:
        client.upsert_global_concurrency_limit_by_name(names[0], 3)  # as a TD might have left it
    for _ in range(2):
        ensure_limits(names)
        ensure_automations()
        assert ensure_process_pool("league-test-pool") is None
    with get_client(sync_client=True) as client:
        limits = [client.read_global_concurrency_limit_by_name(n) for n in names]
        assert [(x.limit, x.active) for x in limits] == [(1, True), (1, True)]
        [crash] = client.read_automations_by_name(CRASH_AUTOMATION)
        [rerun] = client.read_automations_by_name(RERUN_AUTOMATION)
        assert client.read_work_pool("league-test-pool").type == "process"
    ours = {"prefect.resource.role": "tag", "prefect.resource.id": "prefect.tag.antichess-td"}
    silent = crash.trigger
    assert (silent.posture, silent.within, silent.after) == (
        "Proactive",
        dt.timedelta(seconds=90),
        {"prefect.flow-run.heartbeat"},
    )
    assert silent.match_related.model_dump() == ours
    assert [(a.type, a.state) for a in crash.actions] == [("change-flow-run-state", "CRASHED")]
    crashed = rerun.trigger
    assert (crashed.posture, crashed.expect) == ("Reactive", {"prefect.flow-run.Crashed"})
    assert crashed.match.model_dump()["prefect.run-count"] == ["1", "2"] and crashed.match_related.model_dump() == ours
    assert [(a.type, a.state, a.name) for a in rerun.actions] == [
        ("change-flow-run-state", "SCHEDULED", "AwaitingRetry")
    ]


def _runs(db: Path) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.sql(
            "SELECT run_id, command, status, stage, error, finished_at, as_of, counts->'$.attention' FROM runs "
            "ORDER BY run_id"
        ).fetchall()
    finally:
        con.close()


def test_status_shows_the_last_published_run_and_the_newest_list(
    two: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three recorded runs of the first tournament (a nightly whose attention list
    has 3 items, one failing in ingest, then a score run), none of the second; `status` without a
    Prefect server says so in one line and shows the newest published run (3) and the list of run 1,
    as the published runs view holds them; --json the same."""
    from pipeline.stages import record

    cfg = load_config(two[0])
    with record.recorded(cfg, "nightly", NOW) as run:
        run.done("attention", {"items": 3, "new": 2, "kinds": {"board_due": 1, "finding_new": 2}})
    with pytest.raises(LichessError), record.recorded(cfg, "nightly", NOW) as run:
        run.stage("ingest")
        raise LichessError("Lichess answered HTTP 503")
    with record.recorded(cfg, "score", NOW + dt.timedelta(days=1)) as run:
        run.done("score", {})
    rows = _runs(cfg.paths.database)
    assert [(r[0], r[1], r[2]) for r in rows] == [(1, "nightly", "ok"), (2, "nightly", "failed"), (3, "score", "ok")]
    _, command, _, _, _, finished, as_of, _ = rows[2]
    listed = json.loads(rows[0][7])

    monkeypatch.setenv("PREFECT_API_URL", DEAD_API)
    code, out, err = _cli(capsys, monkeypatch, "status", "--config", str(two[0]), "--config", str(two[1]))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith(f"Prefect: no server answers at {DEAD_API} (") and lines[0].endswith(
        "): next runs unknown"
    )
    assert lines[1:] == [
        f"skeleton ({two[0].resolve()})",
        f"  last run: 3 {command} ok, {finished.astimezone(dt.UTC):%Y-%m-%d %H:%M} UTC (as of 2026-03-21 03:00 UTC)",
        f"  needs you: {listed['items']} ({listed['new']} new): board_due 1, finding_new 2; run 1",
        f"skeleton-b ({two[1].resolve()})",
        f"  last run: none published yet ({load_config(two[1]).paths.database} does not exist)",
        "  needs you: no list yet (a nightly run computes it)",
    ]
    code, out, _ = _cli(capsys, monkeypatch, "status", "--config", str(two[0]), "--json")
    doc = json.loads(out)
    assert doc["prefect"]["api_url"] == DEAD_API and doc["prefect"]["problem"]
    [t] = doc["tournaments"]
    assert t["last_run"]["run_id"] == 3 and t["last_run"]["as_of"] == "2026-03-21T03:00:00Z"
    assert t["attention"] == {"run_id": 1, **listed} and t["deployment"] is None


def _cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    """`antichess-td ARGS` through the console script's main, in this process: (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["antichess-td", *args])
    capsys.readouterr()
    try:
        main()
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", ["serve", "status"])
def test_bad_input_is_one_line_and_exit_2(
    command: str,
    two: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Neither --config nor --league, both, and a league file that does not validate
    (load_league's message): one line each, exit 2, before Prefect is asked anything."""
    bad = tmp_path / "league.toml"
    bad.write_text('[league]\nid = "Office"\ntournaments = ["a/tournament.toml"]\n', encoding="utf-8")
    cases = {
        (): "error: --config: expected a tournament.toml (--config, repeatable) or --league league.toml",
        ("--config", str(two[0]), "--league", str(bad)): "error: --league: expected --config (once or several times) "
        "or --league, not both",
        ("--league", str(bad)): "error: league.toml key 'league.id': expected lower-case letters, digits, - and _, "
        "got 'Office'",
    }
    monkeypatch.setenv("PREFECT_API_URL", DEAD_API)
    for args, message in cases.items():
        code, out, err = _cli(capsys, monkeypatch, command, *args)
        assert (code, out, err) == (2, "", message + "\n"), args


@pytest.mark.prefect
def test_status_names_each_deployments_next_run_when_prefect_answers(
    two: tuple[Path, Path], prefect_api_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a Prefect server at PREFECT_API_URL: the first tournament's deployment (registered as
    `serve` registers it) with one scheduled run shows that run's time; the second, never served,
    says that no deployment of its name exists; no line about Prefect being unavailable."""
    from prefect.client.orchestration import get_client
    from prefect.states import Scheduled

    from flows.league import league_deployments

    [deployment] = league_deployments([(load_config(two[0]), two[0])], None)
    deployment.name = "status-test-skeleton"
    toml = two[0].read_text(encoding="utf-8").replace('id = "skeleton"', 'id = "status-test-skeleton"')
    two[0].write_text(toml, encoding="utf-8")
    deployment_id = deployment.apply()
    at = (dt.datetime.now(dt.UTC) + dt.timedelta(minutes=5)).replace(second=0, microsecond=0)
    with get_client(sync_client=True) as client:
        client.create_flow_run_from_deployment(deployment_id, state=Scheduled(scheduled_time=at))
    monkeypatch.setenv("PREFECT_API_URL", prefect_api_url)
    code, out, err = _cli(capsys, monkeypatch, "status", "--config", str(two[0]), "--config", str(two[1]))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert not any(line.startswith("Prefect:") for line in lines)
    assert f"  next run: {at:%Y-%m-%d %H:%M} UTC (antichess-nightly/status-test-skeleton)" in lines
    assert "  next run: no deployment antichess-nightly/skeleton-b (antichess-td serve creates it)" in lines


@pytest.mark.prefect
@pytest.mark.scenario
def test_serve_of_two_configs_serves_both_deployments_in_its_process_and_runs_one(
    two: tuple[Path, Path], prefect_api_url: str
) -> None:
    """`serve --config A --config B` against a real Prefect server, in its own process: both
    deployments registered with the league parameter, the lane and the store limit created, a run
    of the first started by hand runs in serve's process to Completed; Ctrl-C (SIGINT) ends serve."""
    import signal
    import subprocess
    import time

    from prefect.client.orchestration import get_client

    from kits.skeleton_kit import AFTER_ALL, td_env

    env = td_env(PREFECT_API_URL=prefect_api_url, LICHESS_TOKEN="t1", B_TOKEN="t1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "serve", "--config", str(two[0]), "--config", str(two[1])],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        served = [proc.stdout.readline() for _ in range(2)]
        assert [line.split()[:3] for line in served] == [
            ["serving", "deployment", "antichess-nightly/skeleton"],
            ["serving", "deployment", "antichess-nightly/skeleton-b"],
        ], proc.stderr.read() if proc.poll() is not None and proc.stderr else served
        league = league_parameter(league_of_configs(list(two)))
        with get_client(sync_client=True) as client:
            deadline = time.monotonic() + 60
            while True:
                try:
                    found = [
                        client.read_deployment_by_name(f"antichess-nightly/{t}") for t in ("skeleton", "skeleton-b")
                    ]
                    break
                except Exception:
                    assert time.monotonic() < deadline and proc.poll() is None
                    time.sleep(0.5)
            assert [d.parameters["league"] for d in found] == [league, league]
            url = load_config(two[0]).lichess.base_url
            for name in (lane_name(url, "t1"), store_limit_name("league")):
                assert client.read_global_concurrency_limit_by_name(name).limit == 1
            run = client.create_flow_run_from_deployment(found[0].id, parameters={"now": AFTER_ALL})
            deadline = time.monotonic() + 180
            while (state := client.read_flow_run(run.id).state) is None or not state.is_final():
                assert time.monotonic() < deadline and proc.poll() is None, state
                time.sleep(1)
            assert state.name == "Completed", state.message
        assert load_config(two[0]).paths.database.exists()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
