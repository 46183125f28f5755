"""The ingest's head start (pipeline.stages.ingest.HeadStart): `antichess-td nightly` downloads the
player batches from the moment its inputs are valid, while Prefect starts, and the flow's batch
tasks take the results instead of downloading them again.

The first tests drive a head start with a plain batch function (what it hands over, and when it
stops); the last runs the nightly body (flows.nightly, without Prefect) under a head start
against the skeleton's replay dataset over HTTP, and checks that it asked Lichess exactly what a
run without one asks, and published the same tables."""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
from pathlib import Path

import pytest

from kits import faultkit
from kits.skeleton_kit import AFTER_ALL, SKELETON, copy_skeleton
from pipeline.errors import LichessError
from pipeline.inputs.config import load_config
from pipeline.lichess.ingest_report import IngestReport
from pipeline.sim import replay
from pipeline.stages import context, record
from pipeline.stages import ingest as ingest_stage

BATCHES = [("a", "b"), ("c",), ("d", "e")]
KEY = (Path("work.duckdb"), dt.datetime(2026, 3, 20, 3, tzinfo=dt.UTC), None)


def started(
    run: ingest_stage.BatchRun, opened: contextlib.AbstractContextManager[str] | None = None
) -> ingest_stage.HeadStart:
    return ingest_stage.HeadStart(
        KEY,  # type: ignore[arg-type]
        BATCHES,
        lambda: opened or contextlib.nullcontext("http://lichess.test"),
        contextlib.nullcontext(None),
        run,
    )


def test_each_batch_is_handed_over_once_in_the_flows_order() -> None:
    calls: list[tuple[str, tuple[str, ...]]] = []

    def run(base_url: str, progress: object, players: tuple[str, ...]) -> IngestReport:
        calls.append((base_url, players))
        return IngestReport(users_fetched=len(players))

    ahead = started(run)
    try:
        assert [ahead.take(b).users_fetched for b in BATCHES] == [2, 1, 2]  # type: ignore[union-attr]
        assert ahead.take(BATCHES[0]) is None  # taken already: its task would download it itself
        assert ahead.take(("z",)) is None  # not a batch of this head start
        assert ahead.opened() == ("http://lichess.test", None)
    finally:
        ahead.close()
    assert calls == [("http://lichess.test", b) for b in BATCHES]
    assert ahead.taken == BATCHES


def test_a_failed_batch_raises_in_its_task_and_no_later_batch_is_begun() -> None:
    """A batch that failed because Lichess did is the task's failure (its retry downloads it from
    the cursors); the head start begins no other batch, so their tasks download them."""
    calls: list[tuple[str, ...]] = []

    def run(base_url: str, progress: object, players: tuple[str, ...]) -> IngestReport:
        calls.append(players)
        raise LichessError("502 Bad Gateway")

    ahead = started(run)
    try:
        with pytest.raises(LichessError, match="502"):
            ahead.take(BATCHES[0])
        assert ahead.take(BATCHES[1]) is None
        assert ahead.take(BATCHES[2]) is None
    finally:
        ahead.close()
    assert calls == [BATCHES[0]]
    assert ahead.taken == []


def test_a_server_that_cannot_start_fails_where_the_flow_opens_the_session() -> None:
    @contextlib.contextmanager
    def broken() -> contextlib.AbstractContextManager[str]:  # type: ignore[misc]
        raise OSError("replay dataset unreadable")
        yield "never"

    ahead = started(lambda *a: IngestReport(), broken())
    try:
        with pytest.raises(OSError, match="unreadable"):
            ahead.opened()
        assert [ahead.take(b) for b in BATCHES] == [None, None, None]
    finally:
        ahead.close()


def test_close_waits_for_the_batch_under_way_and_begins_no_other() -> None:
    running, release = threading.Event(), threading.Event()
    calls: list[tuple[str, ...]] = []

    def run(base_url: str, progress: object, players: tuple[str, ...]) -> IngestReport:
        calls.append(players)
        running.set()
        assert release.wait(30)
        return IngestReport()

    ahead = started(run)
    assert running.wait(30)
    threading.Timer(0.2, release.set).start()
    ahead.close()  # returns once batch 1 is done
    ahead.close()  # idempotent
    assert calls == [BATCHES[0]]
    assert ahead.take(BATCHES[1]) is None


def test_a_nightly_under_a_head_start_asks_lichess_once_and_publishes_the_same(tmp_path: Path) -> None:
    """The skeleton's nightly (flows.nightly without Prefect) as `antichess-td nightly` runs it
    against a Lichess server (a replay server on 127.0.0.1): once with the head start the CLI
    begins before Prefect starts, once without. The flow's tasks took every batch from the head
    start (nothing was downloaded twice: the server answered both runs the same requests, kind by
    kind), and both published the same tables (faultkit.judge: no game lost or duplicated, every
    table's checksum equal)."""
    from flows.nightly import nightly_without_prefect

    at = dt.datetime.fromisoformat(AFTER_ALL.replace("Z", "+00:00"))
    options = replay.ReplayOptions(games_per_s=0, history_needs_token=False)
    served: dict[str, dict[str, int]] = {}
    published: dict[str, Path] = {}
    with replay.running(SKELETON / "lichess", options=options) as server:
        for name in ("without", "with"):
            folder = copy_skeleton(tmp_path / name)
            toml = folder / "tournament.toml"
            text = toml.read_text(encoding="utf-8")
            toml.write_text(text.replace('replay_data = "lichess"', f'base_url = "{server.base_url}"'), "utf-8")
            cfg = load_config(toml)
            before = dict(server.requests_by_kind)
            if name == "without":
                nightly_without_prefect(str(toml), AFTER_ALL, "test")
            else:
                inputs = context.read_inputs(cfg)
                with (
                    record.recorded(cfg, "nightly", at) as run,
                    ingest_stage.head_start(run.work, inputs, at, at, contextlib.nullcontext(None)) as ahead,
                ):
                    nightly_without_prefect(str(toml), AFTER_ALL, "test")
                assert ahead.taken == ingest_stage.player_batches(inputs)
            served[name] = {k: v - before.get(k, 0) for k, v in server.requests_by_kind.items() if v - before.get(k, 0)}
            published[name] = cfg.paths.database
    assert served["with"] == served["without"] and sum(served["with"].values()) > 0, served
    assert faultkit.judge(published["without"], published["with"]) == (0, 0, [])
