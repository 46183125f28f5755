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

HOLD_S = 1.0


def hold_lane(config: Config, spans: list[tuple[float, float]]) -> None:
    with lichess_lane(config, through_prefect):
        start = time.monotonic()
        time.sleep(HOLD_S)
        spans.append((start, time.monotonic()))


def side_by_side(a: Config, b: Config) -> list[tuple[float, float]]:
    spans: list[tuple[float, float]] = []
    threads = [threading.Thread(target=hold_lane, args=(c, spans)) for c in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sorted(spans)


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

    (a_start, a_end), (b_start, b_end) = side_by_side(cfg, cfg)
    assert b_start >= a_end  # the same token: the second waits until the first let go

    (a_start, a_end), (b_start, b_end) = side_by_side(cfg, other_td)
    assert b_start < a_end  # two tokens: two lanes, side by side

    with get_client(sync_client=True) as prefect:  # every slot given back
        assert [prefect.read_global_concurrency_limit_by_name(n).active_slots for n in lanes] == [0, 0]
