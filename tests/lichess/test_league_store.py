"""A league's shared Lichess store (pipeline/lichess/league_cache.py; docs/ingestion.md):
two tournaments of a league that share every player store, night after night, exactly what the
tournament stores alone, and the second to run in a night sends Lichess nothing the first fetched.
Also: a stream cut mid-way keeps what arrived but covers nothing, and answers older than
``fresh`` are fetched again."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path

import duckdb
import pytest

from kits.lichess_data import stored_rows
from pipeline.inputs.config import load_config
from pipeline.lichess import client, league_cache
from pipeline.model import Config, League
from pipeline.stages import context
from pipeline.stages.ingest import ingest_stage, lichess_base_url

NIGHTS = (
    dt.datetime(2026, 3, 8, 3, tzinfo=dt.UTC),  # round 1 under way
    dt.datetime(2026, 3, 12, 3, tzinfo=dt.UTC),  # round 2 under way
    dt.datetime(2026, 3, 12, 4, tzinfo=dt.UTC),  # nothing new: only round 2's casual-game searches
)
TABLES = (
    "raw_users",
    "raw_games",
    "raw_rating_histories",
    "lichess_users",
    "lichess_games",
    "lichess_rating_points",
    "rejected_records",
    "ingest_cursors",
    "game_flags",
    "game_verdicts",
)


def content(db: Path) -> dict[str, list[tuple]]:
    return stored_rows(db, TABLES)


def at(cfg: Config, name: str, league: League | None = None) -> Config:
    return dataclasses.replace(
        cfg, paths=dataclasses.replace(cfg.paths, database=cfg.path.parent / f"{name}.duckdb"), league=league
    )


def test_a_league_stores_what_each_tournament_stores_alone_and_fetches_each_thing_once(skeleton: Path) -> None:
    cfg = load_config(skeleton)
    inputs = context.read_inputs(cfg)
    league = League("test-league", None, skeleton.parent / "league.duckdb", dt.timedelta(minutes=30), (cfg.path,))
    alone, first, second = at(cfg, "alone"), at(cfg, "first", league), at(cfg, "second", league)
    for night in NIGHTS:
        with lichess_base_url(cfg, now=night) as base_url:
            by_itself = ingest_stage(alone, inputs, base_url, night).summary()
            one = ingest_stage(first, inputs, base_url, night).summary()
            two = ingest_stage(second, inputs, base_url, night).summary()
        assert content(first.paths.database) == content(alone.paths.database), night
        assert content(second.paths.database) == content(alone.paths.database), night
        # the first of the night sends what the tournament alone sends; the second, nothing
        assert one["requests"] == by_itself["requests"] > 0, night
        assert two["requests"] == 0, night
        # what the second did not ask Lichess, the store answered: every profile, and each history and
        # stream the first fetched
        assert one["league_answered"] == 0, night
        streams_and_histories = by_itself["requests"] - 1  # all but the one POST /api/users
        assert two["league_answered"] == two["users_loaded"] + streams_and_histories, night
        for key in ("games_fetched", "games_new", "histories_loaded", "users_loaded", "rejected"):
            assert two[key] == by_itself[key], (night, key)


def test_answers_older_than_fresh_are_fetched_again(skeleton: Path) -> None:
    cfg = load_config(skeleton)
    inputs = context.read_inputs(cfg)
    league = League("test-league", None, skeleton.parent / "league.duckdb", dt.timedelta(minutes=30), (cfg.path,))
    night = NIGHTS[0]
    later = night + dt.timedelta(minutes=31)  # past `fresh`: the store's answers are stale
    with lichess_base_url(cfg, now=night) as base_url:
        one = ingest_stage(at(cfg, "first", league), inputs, base_url, night).summary()
        alone_later = ingest_stage(at(cfg, "alone", None), inputs, base_url, later).summary()
        two = ingest_stage(at(cfg, "second", league), inputs, base_url, later).summary()
    assert one["requests"] > 0
    assert two["requests"] == alone_later["requests"] == one["requests"]


def test_a_cut_stream_keeps_its_lines_but_covers_nothing(skeleton: Path, tmp_path: Path) -> None:
    cfg = load_config(skeleton)
    store = tmp_path / "league.duckdb"
    night = NIGHTS[1]
    with lichess_base_url(cfg, now=night) as base_url:
        http = client.make_client(base_url, None, 10.0)
        everything = list(client.open_game_stream(http, "alice", None))
        assert len(everything) > 3
        cache = league_cache.LeagueCache(store, night, dt.timedelta(hours=1))
        try:

            def cut() -> object:
                yield from everything[:3]
                raise ConnectionError("cut")

            with pytest.raises(ConnectionError):
                list(cache.stream("alice", None, None, cut))  # type: ignore[arg-type]
            kept = cache._con.execute("SELECT count(*) FROM league_game_lines").fetchall()
            assert kept == [(3,)]  # what arrived before the cut is kept
            asked: list[int] = []

            def whole() -> object:
                asked.append(1)
                return iter(everything)

            # not covered: the next request goes to Lichess, and then it is covered
            assert list(cache.stream("alice", None, None, whole)) == everything  # type: ignore[arg-type]
            assert list(cache.stream("alice", None, None, whole)) == everything  # type: ignore[arg-type]
            assert asked == [1]
            # a later `since` is answered from the store: the games created from then on, in order
            created = [json.loads(line)["createdAt"] for line in everything]
            since = sorted(created)[len(created) // 2]
            later = list(cache.stream("alice", since, None, whole))  # type: ignore[arg-type]
            assert later == [line for line, c in zip(everything, created, strict=True) if c >= since]
            assert asked == [1]
        finally:
            cache.close()
    con = duckdb.connect(str(store), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM league_game_lines").fetchall() == [(len(everything),)]
    finally:
        con.close()


def test_an_empty_history_is_not_kept_for_the_others(tmp_path: Path) -> None:
    """Lichess answers [] to a rating-history request without a token: a tournament of the league
    with a token asks again instead of reading that answer."""
    night = NIGHTS[0]
    cache = league_cache.LeagueCache(tmp_path / "league.duckdb", night, dt.timedelta(hours=1))
    history = [{"name": "Antichess", "points": [[2026, 2, 1, 1500]]}]
    answers = iter([[], history])
    try:
        assert cache.history("alice", lambda: next(answers)) == []
        assert cache.history("alice", lambda: next(answers)) == history  # asked again
        assert cache.history("alice", lambda: pytest.fail("asked a third time")) == history  # kept
    finally:
        cache.close()
