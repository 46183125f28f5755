"""The ingest stage: fetch the players' games and rating histories from Lichess into the raw tables.

:func:`ingest_stage` does it in one go (``antichess-td ingest``); the nightly flow runs
:func:`ingest_batch` per batch of players (:func:`player_batches`, each retried alone) and then
:func:`ingest_watched` once, for the casual games of open round windows. :func:`lichess_base_url`
starts the replay server only when the config sets ``lichess.replay_data`` (its module is imported
there, so the production path never loads it otherwise).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from pipeline.domain import linking
from pipeline.lichess import client
from pipeline.lichess.ingest import IngestReport, MatchWindows, Progress, WatchedBoard, ingest, search_watched
from pipeline.model import Config
from pipeline.stages import audit, context
from pipeline.store import gateway

log = logging.getLogger(__name__)


@contextlib.contextmanager
def lichess_base_url(config: Config, now: dt.datetime | None = None) -> Iterator[str]:
    """The configured Lichess server, or a replay server started in-process for ``replay_data``
    (local recorded data: it serves rating histories without a token)."""
    if config.lichess.replay_data is None:
        yield config.lichess.base_url
        return
    from pipeline.sim import replay  # only here: the production path never loads the simulator

    with replay.running(
        config.lichess.replay_data,
        now=now,
        options=replay.ReplayOptions(games_per_s=config.lichess.replay_games_per_s, history_needs_token=False),
    ) as server:
        log.info("replay server for %s on %s", config.lichess.replay_data, server.base_url)
        yield server.base_url


def token_from_env(config: Config) -> str | None:
    """The Lichess token, from the environment variable the config names (never from a file)."""
    return os.environ.get(config.lichess.token_env) or None


def watched_boards(config: Config, inputs: context.Inputs) -> list[WatchedBoard]:
    """Every board of every pairing with its window widened by the stage's margin: casual games
    between its players are looked for while the window is open (ingest's vs requests)."""
    out = []
    for stage in config.stages:
        pairings = tuple(p for p in inputs.pairings if p.stage == stage.name)
        margin = dt.timedelta(days=stage.window_margin_days)
        for bp in linking.board_pairings(pairings, inputs.roster, config.boards, context.lineup(config, inputs)):
            out.append(WatchedBoard(bp.player_a, bp.player_b, bp.window_start - margin, bp.window_end + margin))
    return out


def match_windows(config: Config, inputs: context.Inputs) -> MatchWindows:
    """For each pair of players who may meet in a match (any member of one paired entrant against
    any member of the other, so a substitute's games are in), the windows of their pairings widened
    by the stage's margin: a game between them inside one is verified as it arrives. Linking looks
    at the same windows; a game a TD includes from elsewhere is verified by the score step."""
    members: dict[str, set[str]] = {}
    for m in inputs.roster.members:
        members.setdefault(m.entrant, set()).add(m.player_id)
    lineup = context.lineup(config, inputs)
    for stage in config.stages:  # a replacement (a TD's `replace` ruling) plays for the entrant too
        for bp in linking.board_pairings(
            tuple(p for p in inputs.pairings if p.stage == stage.name), inputs.roster, config.boards, lineup
        ):
            members.setdefault(bp.entrant_a, set()).add(bp.player_a)
            members.setdefault(bp.entrant_b, set()).add(bp.player_b)
    margins = {s.name: dt.timedelta(days=s.window_margin_days) for s in config.stages}
    windows: dict[frozenset[str], set[tuple[dt.datetime, dt.datetime]]] = {}
    for p in inputs.pairings:
        margin = margins.get(p.stage, dt.timedelta(0))
        window = (p.window_start - margin, p.window_end + margin)
        for a in members.get(p.a, ()):
            for b in members.get(p.b, ()):
                windows.setdefault(frozenset((a, b)), set()).add(window)
    return {pair: tuple(sorted(w)) for pair, w in windows.items()}


def _lichess_client(config: Config, base_url: str, sleep: Callable[[float], None], warn: bool = True) -> Any:
    token = token_from_env(config)
    if warn and token is None and config.lichess.replay_data is None:
        log.warning(
            "no Lichess token in $%s: Lichess answers rating-history requests without one with [] "
            "(set the variable to a personal token; no scope is needed)",
            config.lichess.token_env,
        )
    li = config.lichess
    policy = client.RetryPolicy(
        rate_limit_wait_s=li.rate_limit_wait_s, backoff_s=li.backoff_s, max_retries=li.max_retries
    )
    return client.make_client(base_url, token, li.timeout_s, policy, sleep=sleep)


def _ingest_players(
    config: Config,
    base_url: str,
    now: dt.datetime,
    players: tuple[str, ...],
    sleep: Callable[[float], None],
    *,
    watch: list[WatchedBoard] | tuple[()] = (),
    progress: Progress | None = None,
    registered: tuple[str, ...] | None = None,
    windows: MatchWindows | None = None,
    inputs: context.Inputs | None = None,
) -> IngestReport:
    """One ingest of `players` into the configured database, with the configured client and limits;
    with `inputs`, the audit's work that can be done ahead (audit.ahead_of_audit) is done beside
    the download once its players' games are in, unless a later batch holds some of them."""
    lichess_client = _lichess_client(config, base_url, sleep)
    li = config.lichess
    con = gateway.connect(config.paths.database)
    try:
        ahead = audit.ahead_of_audit(con, config, inputs, now) if inputs is not None and players else None
        if ahead is not None and inputs is not None:
            everyone = inputs.player_ids()
            if ahead.players & set(everyone[everyone.index(players[-1]) + 1 :]):
                ahead = None  # a later batch holds some of its players: the one with the last does it
        return ingest(
            con,
            lichess_client,
            players,
            li.history_since,
            now,
            watch=watch,
            concurrency=li.concurrency,
            progress=progress,
            registered=registered,
            windows=windows,
            ahead=ahead,
        )
    finally:
        con.close()


def ingest_stage(
    config: Config,
    inputs: context.Inputs,
    base_url: str,
    now: dt.datetime,
    progress: Progress | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> IngestReport:
    watch = watched_boards(config, inputs)
    return _ingest_players(
        config,
        base_url,
        now,
        inputs.player_ids(),
        sleep,
        watch=watch,
        progress=progress,
        windows=match_windows(config, inputs),
        inputs=inputs,
    )


INGEST_BATCH = 300  # players per batch: one POST /api/users request (it takes at most 300 ids)


def player_batches(inputs: context.Inputs, size: int = INGEST_BATCH) -> list[tuple[str, ...]]:
    """The players in batches for the flow's ingest tasks (a batch is retried alone)."""
    ids = inputs.player_ids()
    return [ids[i : i + size] for i in range(0, len(ids), size)]


def ingest_batch(
    config: Config,
    inputs: context.Inputs,
    base_url: str,
    now: dt.datetime,
    players: tuple[str, ...],
    progress: Progress | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> IngestReport:
    """:func:`ingest_stage` for one batch of players, without the casual-game searches
    (:func:`ingest_watched` does them once every batch is in)."""
    registered = inputs.player_ids()
    return _ingest_players(
        config,
        base_url,
        now,
        players,
        sleep,
        progress=progress,
        registered=registered,
        windows=match_windows(config, inputs),
        inputs=inputs,
    )


def ingest_watched(
    config: Config,
    inputs: context.Inputs,
    base_url: str,
    now: dt.datetime,
    batches: list[IngestReport],
    sleep: Callable[[float], None] = time.sleep,
) -> IngestReport:
    """The ``vs`` searches for casual games of open round windows, after the batches."""
    lichess_client = _lichess_client(config, base_url, sleep, warn=False)
    statuses = {uid: p.games for b in batches for uid, p in b.players.items()}
    con = gateway.connect(config.paths.database)
    try:
        return search_watched(
            con,
            lichess_client,
            statuses,
            watched_boards(config, inputs),
            inputs.player_ids(),
            now,
            match_windows(config, inputs),
        )
    finally:
        con.close()
