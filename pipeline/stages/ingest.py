"""The ingest stage: fetch the players' games and rating histories from Lichess into the raw tables.

:func:`ingest_stage` does it in one go (``antichess-td ingest``); the nightly flow runs
:func:`ingest_batch` per batch of players (:func:`player_batches`, each retried alone) and then
:func:`ingest_watched` once, for the casual games of open round windows. :func:`lichess_base_url`
starts the replay server only when the config sets ``lichess.replay_data`` (its module is imported
there, so the production path never loads it otherwise).

:class:`HeadStart` runs the nightly's batches before its flow exists: ``antichess-td nightly``
starts it once the run is recorded and its inputs are valid, and Prefect's imports, its server
and the flow run's creation (seconds, on the other core) overlap the download. What the flow's
ingest tasks share (:func:`shared_lichess`) adopts it: each batch task takes the batch's result instead of
downloading it again.

In a league (``config.league``), every client reads through the league's shared store
(pipeline/lichess/league_cache.py), held for each batch's download.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError, Future
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from pipeline.domain import linking
from pipeline.errors import TdError
from pipeline.lichess import client, league_cache
from pipeline.lichess.ingest_report import IngestReport
from pipeline.lichess.ingest_run import MatchWindows, Progress, WatchedBoard
from pipeline.lichess.request_plan import ingest
from pipeline.lichess.watched_boards import search_watched
from pipeline.model import Config, League
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


def watched_boards(
    config: Config, inputs: context.Inputs, closing: tuple[dt.datetime, dt.datetime] | None = None
) -> list[WatchedBoard]:
    """Every board of every pairing with its window widened by the stage's margin: casual games
    between its players are looked for while the window is open (ingest's vs requests).
    ``closing`` (a refresh run: now and its horizon) keeps only the boards whose window itself
    ends in that span: the rounds the closing day is about; the nightly searches the rest."""
    out = []
    for stage in config.stages:
        pairings = tuple(p for p in inputs.pairings if p.stage == stage.name)
        margin = dt.timedelta(days=stage.window_margin_days)
        for bp in linking.board_pairings(pairings, inputs.roster, config.boards, context.lineup(config, inputs)):
            if closing is not None and not closing[0] < bp.window_end <= closing[1]:
                continue
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


@contextlib.contextmanager
def _lichess_client(
    config: Config, base_url: str, now: dt.datetime, sleep: Callable[[float], None], warn: bool = True
) -> Iterator[Any]:
    """The run's Lichess client for the block; in a league (``config.league``), reading through the
    league's shared store, which the block holds (pipeline/lichess/league_cache.py)."""
    league, stats = config.league, client.FetchStats()
    if league is None:
        yield _client(config, base_url, sleep, warn, None, stats)
        return
    cache = league_cache.LeagueCache(league.store, now, league.fresh, league_players(league), stats)
    try:
        yield _client(config, base_url, sleep, warn, cache, stats)
    finally:
        log.info("league store %s answered %s", league.store, cache.answered)
        cache.close()


def league_players(league: League) -> frozenset[str]:
    """Every player of the league's tournaments (a tournament whose files cannot be read adds none:
    its own run reports why)."""
    from pipeline.inputs.config import load_config

    players: set[str] = set()
    for path in league.configs:
        try:
            players.update(context.read_inputs(load_config(path)).player_ids())
        except TdError as e:
            log.warning("league %s: the players of %s are not shared ahead (%s)", league.league_id, path, e)
    return frozenset(players)


def _client(
    config: Config,
    base_url: str,
    sleep: Callable[[float], None],
    warn: bool,
    cache: league_cache.LeagueCache | None,
    stats: client.FetchStats,
) -> Any:
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
    return client.make_client(base_url, token, li.timeout_s, policy, stats=stats, sleep=sleep, cache=cache)


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
    li = config.lichess
    with _lichess_client(config, base_url, now, sleep) as lichess_client, _connected(config) as con:
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
            histories_fresh_since=li.histories_fresh_since,
        )


@contextlib.contextmanager
def _connected(config: Config) -> Iterator[Any]:
    con = gateway.connect(config.paths.database)
    try:
        yield con
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
    statuses = {uid: p.games for b in batches for uid, p in b.players.items()}
    with _lichess_client(config, base_url, now, sleep, warn=False) as lichess_client, _connected(config) as con:
        return search_watched(
            con,
            lichess_client,
            statuses,
            watched_boards(config, inputs, _closing(config, now)),
            inputs.player_ids(),
            now,
            match_windows(config, inputs),
        )


def _closing(config: Config, now: dt.datetime) -> tuple[dt.datetime, dt.datetime] | None:
    """A refresh run's span (``lichess.histories_fresh_since`` marks one): now to its horizon."""
    if config.lichess.histories_fresh_since is None:
        return None
    from pipeline.stages.refresh import HORIZON

    return now, now + HORIZON


BatchRun = Callable[[str, "Progress | None", tuple[str, ...]], IngestReport]
"""How a head start downloads one batch: ``run(base_url, progress, players)``."""


class HeadStart:
    """A nightly's player batches downloaded on a thread of their own, one after another as the
    flow's tasks would, from before the flow exists (see the module docstring). The thread opens
    what the flow's ingest tasks share (the Lichess server's address, a replay server for
    ``replay_data``, the progress display) and keeps it open until :meth:`close`.

    :meth:`take` hands a batch's result over, once, waiting for it: its report, or the error it
    raised, so a batch that failed because Lichess did is retried by its task as ever, from the
    cursors the failed attempt left. After a failed batch the thread begins no other: their tasks
    download them (``take`` returns None for a batch never begun, or already taken)."""

    def __init__(
        self,
        key: tuple[Path, dt.datetime, context.Inputs],
        batches: list[tuple[str, ...]],
        base_url: Callable[[], AbstractContextManager[str]],
        progress: AbstractContextManager[Progress | None],
        run: BatchRun,
    ) -> None:
        self.key = key
        self._results: dict[tuple[str, ...], Future[IngestReport]] = {players: Future() for players in batches}
        self._opened: Future[tuple[str, Progress | None]] = Future()
        self._resources = contextlib.ExitStack()
        self._open = (base_url, progress)
        self._run = run
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._closed = False
        self.taken: list[tuple[str, ...]] = []  # the batches whose results a task took
        self._thread = threading.Thread(target=self._download, name="ingest-head-start", daemon=True)
        self._thread.start()

    def _download(self) -> None:
        try:
            base_url, progress = self._open
            opened = (self._resources.enter_context(base_url()), self._resources.enter_context(progress))
        except BaseException as e:  # the opening's error, raised where the flow opens what it shares
            self._opened.set_exception(e)
            self._cancel_the_rest()
            return
        self._opened.set_result(opened)
        with self._lock:  # take() pops from it meanwhile
            batches = list(self._results.items())
        for players, result in batches:
            if self._stopping.is_set() or not result.set_running_or_notify_cancel():
                break
            try:
                result.set_result(self._run(opened[0], opened[1], players))
            except BaseException as e:  # the batch's error: its task raises it
                result.set_exception(e)
                break
        self._cancel_the_rest()

    def _cancel_the_rest(self) -> None:
        """Cancel the batches not begun: their tasks download them."""
        with self._lock:
            left = list(self._results.values())
        for result in left:
            result.cancel()

    def opened(self) -> tuple[str, Progress | None]:
        """The Lichess server's address and the progress display, once the thread has them (or
        the error opening them raised)."""
        return self._opened.result()

    def take(self, players: tuple[str, ...]) -> IngestReport | None:
        """The batch's report (waiting for it), or its error raised; None for a batch this head
        start does not hold, did not begin, or whose result was taken already."""
        with self._lock:
            result = self._results.pop(players, None)
        if result is None:
            return None
        try:
            report = result.result()
        except CancelledError:
            return None
        self.taken.append(players)
        return report

    def close(self) -> None:
        """Begin no other batch, wait for the one under way, close what the thread opened
        (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._stopping.set()
        self._thread.join()
        self._resources.close()


_head_starts: dict[Path, HeadStart] = {}  # by working database: at most one nightly per process and tournament
_head_starts_lock = threading.Lock()


@contextlib.contextmanager
def head_start(
    config: Config,
    inputs: context.Inputs,
    now: dt.datetime,
    replay_now: dt.datetime | None,
    progress: AbstractContextManager[Progress | None],
) -> Iterator[HeadStart]:
    """The block (Prefect's start, then the flow) runs with the nightly's batches downloading
    (:class:`HeadStart`); `config` is the run's (its ``paths.database`` the working database),
    `now` the run's time, `replay_now` the replay server's (None: the clock). The flow's
    :func:`shared_lichess` for the same run adopts it; anything it did not take is stopped and closed
    when the block ends."""
    key = config.paths.database

    def run(base_url: str, shown: Progress | None, players: tuple[str, ...]) -> IngestReport:
        return ingest_batch(config, inputs, base_url, now, players, progress=shown)

    ahead = HeadStart(
        (key, now, inputs), player_batches(inputs), lambda: lichess_base_url(config, replay_now), progress, run
    )
    with _head_starts_lock:
        _head_starts[key] = ahead
    try:
        yield ahead
    finally:
        with _head_starts_lock:
            _head_starts.pop(key, None)
        ahead.close()


def adopted(config: Config, now: dt.datetime, inputs: context.Inputs) -> HeadStart | None:
    """The head start of this run (same working database, time and inputs), if one is under way."""
    with _head_starts_lock:
        ahead = _head_starts.get(config.paths.database)
    return ahead if ahead is not None and ahead.key == (config.paths.database, now, inputs) else None


@contextlib.contextmanager
def shared_lichess(
    config: Config,
    inputs: context.Inputs,
    now: dt.datetime,
    replay_now: dt.datetime | None,
    progress: Callable[[], AbstractContextManager[Progress | None]],
) -> Iterator[tuple[str, Progress | None]]:
    """What the flow's ingest tasks share (the Lichess server's address and the progress
    display) for the block: the head start's, closed at the block's end, when the CLI began one
    for this run; otherwise opened here (a replay server for ``replay_data``)."""
    ahead = adopted(config, now, inputs)
    if ahead is None:
        with lichess_base_url(config, replay_now) as base_url, progress() as shown:
            yield base_url, shown
        return
    try:
        yield ahead.opened()
    finally:
        ahead.close()  # the progress display ends with the ingest, as without a head start


def taken(config: Config, inputs: context.Inputs, now: dt.datetime, players: tuple[str, ...]) -> IngestReport | None:
    """The batch's result from this run's head start, if it holds it (see :meth:`HeadStart.take`)."""
    ahead = adopted(config, now, inputs)
    return ahead.take(players) if ahead is not None else None
