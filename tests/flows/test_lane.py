"""One Lichess lane per token (flows.nightly.lichess_lane; docs/td-guide.md, Running a league): under Prefect, two runs
whose tournaments use the same server and token never hold the lane at once, whichever process or
worker they run in, while runs with different tokens do not wait for each other. The limits are
real Prefect global concurrency limits on the tests' Prefect server, created as ``serve`` creates
them (one slot each)."""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path

import pytest

from flows.nightly import lichess_lane, through_prefect
from pipeline.inputs.config import load_config
from pipeline.lichess.lane import lane_name
from pipeline.model import Config


def side_by_side(a: Config, b: Config, wait_s: float) -> tuple[bool, list[tuple[float, float]]]:
    """Two runs (threads) each holding its lane, and waiting there up to `wait_s` for the other to
    hold its own: whether both held theirs at once, and the spans each held it."""
    together = threading.Barrier(2, timeout=wait_s)
    met: list[bool] = []
    spans: list[tuple[float, float]] = []

    def hold(config: Config) -> None:
        with lichess_lane(config, through_prefect):
            start = time.monotonic()
            try:
                together.wait()
                met.append(True)
            except threading.BrokenBarrierError:
                met.append(False)
            spans.append((start, time.monotonic()))

    threads = [threading.Thread(target=hold, args=(c,)) for c in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return all(met), sorted(spans)


@pytest.mark.prefect
def test_one_token_one_lane_two_tokens_two(
    prefect_api_url: str, skeleton: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prefect.client.orchestration import get_client

    monkeypatch.setenv("LICHESS_TOKEN", "token-of-the-first-td")
    monkeypatch.setenv("OTHER_TD_TOKEN", "token-of-another-td")
    cfg = load_config(skeleton)
    other_td = dataclasses.replace(cfg, lichess=dataclasses.replace(cfg.lichess, token_env="OTHER_TD_TOKEN"))
    lanes = [
        lane_name(cfg.lichess.base_url, "token-of-the-first-td"),
        lane_name(cfg.lichess.base_url, "token-of-another-td"),
    ]
    assert lanes[0] != lanes[1]
    with get_client(sync_client=True) as prefect:
        for name in lanes:
            prefect.upsert_global_concurrency_limit_by_name(name, 1)

    # (1 s: ample for a free lane to be taken from the Prefect server on this machine)
    both, [(_, a_end), (b_start, _)] = side_by_side(cfg, cfg, wait_s=1.0)
    assert not both and b_start >= a_end  # the same token: the second waited until the first let go

    both, _ = side_by_side(cfg, other_td, wait_s=30.0)
    assert both  # two tokens: two lanes, held at the same time

    with get_client(sync_client=True) as prefect:  # every slot given back
        assert [prefect.read_global_concurrency_limit_by_name(n).active_slots for n in lanes] == [0, 0]
