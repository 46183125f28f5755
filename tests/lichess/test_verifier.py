"""The match-game replays of a run in a worker process (pipeline/lichess/verifier.py).

What the worker must not change: each candidate's verdict is what ``verify.verify_game`` gives it
here, for every kind of verdict; a game is replayed once a run however many streams bring it; a
small batch never starts the worker; a worker killed mid-batch loses no verdict (this process
replays what it was sent, with one warning); what the worker logs reaches this process's loggers,
not the terminal; a parent that ends with ``os._exit`` (the CLI stopped by Ctrl-C or SIGTERM)
leaves no worker behind and nothing more on stderr. The real games are the season fixture's
(tests/data/season), as tests/domain/test_verify.py types them; ingest end to end with the worker
is tests/stages/test_verify_on_arrival.py.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pipeline.domain import verify
from pipeline.lichess import verifier
from pipeline.lichess.client import parse_game

ROOT = Path(__file__).resolve().parents[2]
SEASON = ROOT / "tests" / "data" / "season" / "lichess" / "games.ndjson"
GAMES = [parse_game(json.loads(line)).__dict__ for line in SEASON.read_text(encoding="utf-8").splitlines()]
GAME = GAMES[0]


def bent(n: int) -> list[dict[str, Any]]:
    """`n` real games, every fourth one changed so that each verdict kind is among them: a result
    the board contradicts, moves that do not replay, no PGN."""
    out = []
    for i, g in enumerate(GAMES[:n]):
        kind = i % 12
        if kind == 3:
            g = {**g, "winner": "white" if g["winner"] != "white" else "black"}
        elif kind == 7:
            g = {**g, "pgn": g["pgn"].replace("1. ", "1. e5 ", 1)}
        elif kind == 11:
            g = {**g, "pgn": None}
        out.append(g)
    return out


def by_id(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {g["game_id"]: g for g in rows}


def copies(n: int, tag: str) -> dict[str, dict[str, Any]]:
    """`n` games with ids of their own (real games, renamed): as many replays as rows."""
    return {f"{tag}{i}": {**GAMES[i % len(GAMES)], "game_id": f"{tag}{i}"} for i in range(n)}


def in_the_worker(v: verifier.Verifier, code: str) -> Any:
    """`code` evaluated in the verifier's worker process (eval pickles by name: nothing of the tests is imported)."""
    assert v.pool is not None
    return v.pool.submit(eval, code).result()


@pytest.fixture
def every_batch_to_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verifier, "POOL_FROM", 0)


def logged(caplog: pytest.LogCaptureFixture, name: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == name]


@pytest.mark.usefixtures("every_batch_to_the_worker")
def test_the_worker_gives_the_verdicts_replayed_here(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    rows = bent(len(GAMES))
    here = [verify.verify_game(g) for g in rows]
    assert {v.verdict for v in here} == {"agrees", "off_board", "mismatch", "unreadable"}
    unreadable = logged(caplog, "chess.pgn")  # python-chess's error on each PGN that does not replay
    assert len(unreadable) == sum(v.detail.startswith("the PGN does not replay") for v in here) > 0
    caplog.clear()
    capfd.readouterr()
    caplog.set_level(logging.INFO, logger=verifier.__name__)
    with verifier.Verifier() as v:
        pending = [v.submit(by_id(rows[i : i + 400])) for i in range(0, len(rows), 400)]
        assert [verdict for p in pending for verdict in p.result()] == here
        assert v.by_worker == len(rows)
        # and the worker imported what the replay needs, not the ingest's adapters or Prefect
        loaded = set(in_the_worker(v, "sorted(__import__('sys').modules)"))
        assert {"pipeline.domain.verify", "chess.variant"} <= loaded
        assert {m.split(".")[0] for m in loaded} & {"prefect", "duckdb", "berserk", "polars"} == set()
        assert {
            "pipeline.lichess.request_plan",
            "pipeline.lichess.game_streams",
            "pipeline.lichess.client",
            "pipeline.store",
            "pipeline.cli",
        } & loaded == set()
        assert in_the_worker(v, "__import__('os').getpid()") != os.getpid()
    # the same errors, logged in the worker, came to this process's chess.pgn logger, not to stderr
    assert logged(caplog, "chess.pgn") == unreadable
    assert {r.processName.split("-")[0] for r in caplog.records if r.name == "chess.pgn"} == {"SpawnProcess"}
    assert capfd.readouterr().err == ""
    assert logged(caplog, verifier.__name__) == [f"verified {len(rows)} match games in a worker process"]


def test_the_worker_starts_once_the_run_has_submitted_pool_from_new_games() -> None:
    """Batches are replayed here until the run's new candidates, every batch counted, reach
    POOL_FROM; the batch that reaches it, and every batch after it however small, go to the worker."""
    n = verifier.POOL_FROM
    rows = copies(n + 2, "s")
    games = list(rows.items())
    first, second, third, fourth = (dict(games[:-3]), dict(games[:-2]), dict(games[-2:-1]), dict(games[-1:]))
    with verifier.Verifier() as v:
        assert v.submit(first).result() == [verify.verify_game(g) for g in first.values()]
        assert v.pool is None and v.by_worker == 0
        # a batch repeating the n - 1 games already sent adds one new game: the run's total is n
        assert v.submit(second).result()[-1] == verify.verify_game(games[-3][1])
        assert v.pool is not None and v.by_worker == 1
        # one new game each: the worker runs, so they go to it
        assert v.submit(third).result() == [verify.verify_game(games[-2][1])]
        assert v.submit(fourth).result() == [verify.verify_game(games[-1][1])]
        assert v.by_worker == 3 and v.submitted == n + 2


def test_a_verdict_already_stored_is_not_asked_for() -> None:
    """The write unit skips the games whose verdict is stored: here, those are never replayed (a
    row that cannot be replayed at all shows it)."""
    rows = {"stored": {}, GAME["game_id"]: GAME}
    assert verifier.in_process(rows).result(skip={"stored"}) == [verify.verify_game(GAME)]
    with pytest.raises(KeyError):
        verifier.in_process(rows).result()


@pytest.mark.parametrize("pool_from", [0, 10**9], ids=["worker", "here"])
def test_a_game_two_streams_bring_is_replayed_once(monkeypatch: pytest.MonkeyPatch, pool_from: int) -> None:
    monkeypatch.setattr(verifier, "POOL_FROM", pool_from)
    rows = bent(120)
    first, second = by_id(rows[:80]), by_id(rows[40:])
    with verifier.Verifier() as v:
        a, b = v.submit(first), v.submit(second)
        got_a, got_b = a.result(), b.result()
        assert got_a == [verify.verify_game(g) for g in first.values()]
        assert got_b == [verify.verify_game(g) for g in second.values()]
        # the 40 games both brought: the very verdicts of the first batch, not a second replay's
        assert all(x is y for x, y in zip(got_a[40:], got_b[:40], strict=True))
        assert v.by_worker == (120 if pool_from == 0 else 0)


@pytest.mark.usefixtures("every_batch_to_the_worker")
def test_a_killed_worker_loses_no_verdict(caplog: pytest.LogCaptureFixture) -> None:
    """SIGKILL the worker as soon as it has a batch (it is still starting: nothing is delivered):
    that batch, and the next ones, are replayed here, with one warning."""
    rows = bent(400)
    before = set(multiprocessing.active_children())
    with verifier.Verifier() as v:
        first = v.submit(by_id(rows[:300]))
        (worker,) = set(multiprocessing.active_children()) - before
        assert worker.pid is not None
        os.kill(worker.pid, signal.SIGKILL)
        second = v.submit(by_id(rows[300:]))
        assert first.result() + second.result() == [verify.verify_game(g) for g in rows]
        assert v.by_worker == 0
        third = copies(10, "t")  # after the failure nothing more is sent
        assert v.submit(third).result() == [verify.verify_game(g) for g in third.values()]
    warnings = logged(caplog, verifier.__name__)
    assert len(warnings) == 1 and "BrokenProcessPool" in warnings[0], warnings


STOPPED = """
import json, os, sys
from pipeline.lichess import verifier
from pipeline.lichess.client import parse_game

with open(sys.argv[1], encoding="utf-8") as f:
    rows = [parse_game(json.loads(line)).__dict__ for line in f.read().splitlines()[:200]]
v = verifier.Verifier()
v.pool_from = 0
v.submit({g["game_id"]: g for g in rows}).result()
print(v.by_worker, flush=True)
print("the closing line", file=sys.stderr, flush=True)
os._exit(130)
"""


def test_a_parent_ended_by_os_exit_leaves_no_worker_and_nothing_more_on_stderr() -> None:
    """The CLI ends a run stopped by Ctrl-C or SIGTERM with ``os._exit`` (pipeline/cli/signals.py), its
    closing line last on stderr. The worker, waiting for work, would outlive it and hold the
    caller's pipes open (this reads them to the end), and multiprocessing's resource tracker would
    warn of the pool's leaked semaphores after the closing line."""
    proc = subprocess.Popen(
        [sys.executable, "-c", STOPPED, str(SEASON)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the worker left behind, with the rest of the session
        out, err = proc.communicate()
        raise AssertionError(f"something still holds the pipes 30 s after the parent ended: {err[-2000:]}") from None
    assert (proc.returncode, out, err) == (130, "200\n", "the closing line\n")
