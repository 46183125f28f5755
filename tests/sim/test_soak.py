"""The soak, shortened for CI: the small demo's season night by night through failing Lichess and
kill -9, judged table by table against the same nights undisturbed (tests/kits/soakkit.py).

benchmarks/soak.py runs every night of the default demo's season with a kill every fifth night;
here three nights spread over the small demo's season (the first, one in the Swiss's fifth round,
the last: the final decided), every night after the first killed and rerun: eight `nightly`
processes (three soaked, two killed ones before their reruns, three clean), against a replay
server failing 30 % of requests on the soaked nights. About two minutes of one worker: the soak is
in the scenario tier (`-m scenario`); the suite's run checks the season's nights only.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from kits import soakkit
from pipeline.inputs.config import load_config

UTC = dt.UTC


def test_the_small_demo_season_is_every_night_at_03_utc_from_the_first_round_to_the_final(
    small_demo_source: Path,
) -> None:
    # swiss from Tuesday 2026-09-01, 7 weekly rounds; knockout 1 round from 10-20; final 10-27 to 11-03 00:00
    nights = soakkit.season_nights(load_config(small_demo_source / "tournament.toml"))
    assert nights[0] == dt.datetime(2026, 9, 1, 3, tzinfo=UTC)
    assert nights[-1] == dt.datetime(2026, 11, 3, 3, tzinfo=UTC)  # the first 03:00 after the final's window
    assert len(nights) == 30 + 31 + 3  # September, October, November 1-3
    assert all(b - a == dt.timedelta(days=1) for a, b in zip(nights, nights[1:], strict=False))


@pytest.mark.scenario
@pytest.mark.faults
@pytest.mark.prefect
@pytest.mark.slow
def test_a_season_soaked_in_failures_and_kills_ends_equal_to_the_undisturbed_one(
    small_demo_source: Path, tmp_path: Path, prefect_api_url: str
) -> None:
    season = soakkit.season_nights(load_config(small_demo_source / "tournament.toml"))
    nights = [season[0], season[31], season[-1]]
    assert [f"{n:%m-%d}" for n in nights] == ["09-01", "10-02", "11-03"]

    result = soakkit.soak(
        small_demo_source, tmp_path, prefect_api_url, seed=1, nights=nights, kill_every=1, single=False
    )

    assert (result.lost, result.duplicated, result.differing_tables) == (0, 0, [])
    assert result.tables >= 25  # every base table of the schema was compared, not an empty database
    # not vacuous: the kills landed, the server failed requests of both kinds, the client retried them
    assert result.kills >= 1, [n.runs for n in result.nights]
    injected = result.injected
    assert injected.get("429", 0) > 0 and injected.get("5xx", 0) > 0, injected
    assert result.retries > 0 and result.rate_limited > 0
    assert all(n.injected == {} for n in result.clean) and all(n.runs == 1 for n in result.clean)
    # each night failed about 30 % of its requests (seeded draws; 3 standard deviations)
    for n in result.nights:
        share = sum(n.injected.values()) / n.requests
        assert abs(share - 0.3) <= 3 * (0.3 * 0.7 / n.requests) ** 0.5, (n.at, n.injected, n.requests)
