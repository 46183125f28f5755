"""A league on a Prefect process work pool with two workers (a worker killed
mid-run loses nothing). A real `prefect server start` on 127.0.0.1 (its own PREFECT_HOME),
`antichess-td serve --pool` of the small demo's two tournaments, two real `prefect worker start`
processes; both runs are started at the same moment, and the worker running the team event's
run is killed with its flow-run process (its process group) while that run ingests. Prefect's
automations (flows/league.py: no heartbeat for 90 s, then Crashed) schedule the dead run again,
the other worker runs it to completion, and each tournament's published tables equal those of an
undisturbed nightly of the same tournament (kits.faultkit.judge: the run record and fetch times
left out): 0 games lost, 0 duplicated; the lane and the store limit hold no slot at the end (the dead
run's lease ran out)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flows import league as flows_league
from kits.leaguekit import serve_on_pool, start_runs, stop, tables, wait_completed, worker
from pipeline.inputs.config import load_config
from pipeline.inputs.league import league_of_configs

NIGHT = "2026-09-08T03:00:00Z"  # the small demo's Swiss round 1 closed, round 2 under way
THROTTLE = 150  # games/s from the in-process replay server: the team event's ingest lasts ~40 s


def _throttled(demo: Path) -> tuple[Path, Path]:
    """The demo's two tournament.toml files, each with its replay server throttled."""
    out = []
    for toml in (demo / "tournament.toml", demo / "acwc" / "tournament.toml"):
        toml.write_text(
            toml.read_text(encoding="utf-8").replace("replay_games_per_s = 0", f"replay_games_per_s = {THROTTLE}"),
            encoding="utf-8",
        )
        out.append(toml)
    return out[0], out[1]


def _flow_run_process(flow_run_id: str) -> int | None:
    """The pid of the process running `flow_run_id` (its environment names it), or None."""
    wanted = f"PREFECT__FLOW_RUN_ID={flow_run_id}".encode()
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if wanted in environ.read_bytes().split(b"\0"):
                return int(environ.parent.name)
        except OSError:
            continue
    return None


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError):
        return 0


def _descendants(pid: int) -> set[int]:
    """Every living process below `pid` (Linux /proc)."""
    parents = {int(p.parent.name): _parent(int(p.parent.name)) for p in Path("/proc").glob("[0-9]*/stat")}
    out: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - out
        out |= frontier
    return out


def _kill_with_its_runs(worker: subprocess.Popen[bytes]) -> None:
    """SIGKILL the worker's process group and every process below it (a flow-run process may run
    in a session of its own), as a machine that dies takes them all."""
    below = _descendants(worker.pid)
    os.killpg(worker.pid, signal.SIGKILL)
    for pid in below:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    worker.wait(timeout=10)


def _reference(demo_source: Path, tmp_path: Path, env: dict[str, str]) -> list[subprocess.Popen[str]]:
    """Undisturbed nightlies of the same two tournaments (a copy of the demo), started now."""
    ref = shutil.copytree(demo_source, tmp_path / "reference")
    procs = []
    for toml in _throttled(ref):
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "pipeline", "nightly", "--now", NIGHT, "--config", str(toml)],
                env={k: v for k, v in env.items() if k != "PREFECT_API_URL"},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    return procs


@pytest.mark.scenario
@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_nothing_and_its_run_is_rerun_by_another(
    small_demo_source: Path, tmp_path: Path, prefect_server: tuple[str, dict[str, str]]
) -> None:
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    api, env = prefect_server
    demo = shutil.copytree(small_demo_source, tmp_path / "league")
    team, acwc = _throttled(demo)
    serve_on_pool(env, "--config", str(team), "--config", str(acwc))
    workers = [worker(env, tmp_path / f"worker-{i}.log") for i in (1, 2)]
    try:
        with temporary_settings(updates={PREFECT_API_URL: api}), get_client(sync_client=True) as client:
            ids = start_runs(client, (team, acwc), NIGHT)
            # the team event's run ingesting: its process found, and the worker that started it
            deadline = time.monotonic() + 90
            while (client.read_flow_run(ids[team]).state_name != "Running") or not _flow_run_process(str(ids[team])):
                assert time.monotonic() < deadline, "the team event's run did not start"
                time.sleep(0.5)
            time.sleep(8)
            run_pid = _flow_run_process(str(ids[team]))
            assert run_pid is not None and client.read_flow_run(ids[team]).state_name == "Running"
            ancestors = set()
            pid = run_pid
            while pid > 1:  # the run's process and each process above it, up to init
                ancestors.add(pid)
                pid = _parent(pid)
            [killed] = [w for w in workers if w.pid in ancestors]
            _kill_with_its_runs(killed)
            assert _flow_run_process(str(ids[team])) is None
            references = _reference(small_demo_source, tmp_path, env)
            wait_completed(client, ids, timeout_s=240)
            history = [s.name for s in client.read_flow_run_states(ids[team])]
            # the lane both tournaments share (one token) and the league's store: every slot given back,
            # the dead run's too (its lease ran out)
            limits = flows_league.limit_names(
                [load_config(team), load_config(acwc)], league_of_configs([team, acwc]), env
            )
            assert len(limits) == 2
            assert [client.read_global_concurrency_limit_by_name(n).active_slots for n in limits] == [0, 0]
        for proc in references:
            _, err = proc.communicate(timeout=180)
            assert proc.returncode == 0, err[-2000:]
    finally:
        stop(workers)
    # marked Crashed (silent since its last heartbeat, or reported by its own process), then rerun
    assert "Crashed" in history and "AwaitingRetry" in history[history.index("Crashed") :], history
    assert history[-1] == "Completed", history
    for toml, ref in ((team, tmp_path / "reference"), (acwc, tmp_path / "reference" / "acwc")):
        want_games, _, want = tables(load_config(ref / "tournament.toml").paths.database)
        games, duplicated, got = tables(load_config(toml).paths.database)
        assert (len(want_games - games), duplicated) == (0, 0), toml  # 0 lost, 0 duplicated
        assert sorted(t for t in want.keys() | got.keys() if want.get(t) != got.get(t)) == [], toml
