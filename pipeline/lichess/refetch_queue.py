"""The refetch queue: games queued by a backfill (``refetch_games``: a dump record that did not read,
or a game still being played when the dump was cut, in a month the cursors have moved past) are
fetched by id (:func:`refetch_queued`, ``POST /api/games/export/_ids``, 300 ids a request) and
stored as the streams store games; one still being played stays queued, one Lichess does not
return leaves the queue with its dump record kept in ``rejected_records`` and the reason.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any

from pipeline.domain import verify
from pipeline.lichess import ndjson
from pipeline.lichess.client import STREAM_ERRORS, GameRow, fetch_games_by_id, parse_game
from pipeline.lichess.dump_backfill import QUEUE_NOTE
from pipeline.lichess.game_streams import UNFINISHED, flag_reason, new_verdicts, store_api_games
from pipeline.lichess.ingest_run import IngestRun, rejected_record
from pipeline.lichess.verifier import in_process
from pipeline.store import gateway


@dataclass
class _Refetched:
    """What the fetch by id brought: typed games (id -> (line, row)), records set aside, games still
    being played, and whether the fetch broke before its end."""

    arrived: dict[str, tuple[str, GameRow]] = field(default_factory=dict)
    rejected: dict[str, dict[str, Any]] = field(default_factory=dict)
    ongoing: set[str] = field(default_factory=set)
    cut: bool = False


def refetch_queued(run: IngestRun) -> None:
    """Fetch the games a backfill queued (``refetch_games``) by id and store them as the streams do
    (raw line, typed row, flag, match-game verdict), removing them from the queue in the same
    transaction. A game Lichess shows as still being played stays queued; a line that cannot be
    typed goes to rejected_records (and leaves the queue: asking again gives the same line); an
    id Lichess does not return (a deleted game) leaves the queue, its dump record kept in
    rejected_records with why. A stream cut keeps what arrived and leaves the rest queued."""
    con, fetched_at, report = run.con, run.now, run.report
    queue = {r["game_id"]: r for r in gateway.query(con, "queries/refetch_queue").iter_rows(named=True)}
    if not queue:
        return
    got = _fetch_queued(run, queue)
    arrived, rejected = got.arrived, got.rejected
    missing = [] if got.cut else [g for g in queue if g not in arrived and g not in got.ongoing and g not in rejected]
    for gid in missing:
        rejected[gid] = _not_returned(queue[gid], fetched_at)
    flags = []
    for gid, (_, row) in arrived.items():
        problem = verify.pgn_players_problem(row.pgn, row.white_name, row.black_name)
        if problem is not None:
            flags.append({"game_id": gid, "reason": flag_reason(problem), "flagged_at": fetched_at})
    candidates = {gid: row.__dict__ for gid, (_, row) in arrived.items() if run.scope.may_be_match_game(row)}
    verdicts = new_verdicts(con, in_process(candidates))
    done = [gid for gid in queue if gid in arrived or gid in rejected]
    with gateway.transaction(con):
        store_api_games(con, arrived, flags, list(rejected.values()), verdicts, fetched_at)
        gateway.delete_keys(con, "refetch_games", "game_id", done)
    report.refetched += len(arrived)
    report.refetch_ongoing += len(got.ongoing)
    report.refetch_missing += len(missing)
    report.rejected += len(rejected) - len(missing)
    report.verified += len(verdicts)
    report.mismatches += sum(v.disagrees for v in verdicts)


def _fetch_queued(run: IngestRun, queue: dict[str, dict[str, Any]]) -> _Refetched:
    """The queued games, fetched by id and typed; a broken fetch keeps what arrived (with a warning)."""
    got, fetched_at = _Refetched(), run.now
    try:
        for line in fetch_games_by_id(run.client, queue):
            try:
                g = ndjson.loads(line)
            except json.JSONDecodeError as e:
                bad = rejected_record("game", line, None, f"re-fetched by id: not valid JSON ({e.msg})", fetched_at)
                got.rejected[bad["record_key"]] = bad
                continue
            gid = g.get("id") if isinstance(g, dict) and isinstance(g.get("id"), str) else None
            if gid is None or gid not in queue:
                reason = f"re-fetched by id: game id {gid!r} was not asked for"
                bad = rejected_record("game", line, None, reason, fetched_at)
                got.rejected[bad["record_key"]] = bad
                continue
            if g.get("status") in UNFINISHED:
                got.ongoing.add(gid)
                continue
            try:
                got.arrived[gid] = (line, parse_game(g))
            except ValueError as e:
                got.rejected[gid] = rejected_record("game", line, gid, f"re-fetched by id: {e}", fetched_at)
    except STREAM_ERRORS as e:
        got.cut = True
        run.report.warnings.append(
            f"the fetch by id of {len(queue)} queued games broke ({type(e).__name__}): "
            f"{len(got.arrived)} stored, the rest stay queued for the next run"
        )
    return got


def _not_returned(queued: dict[str, Any], fetched_at: dt.datetime) -> dict[str, Any]:
    """The rejected record of a queued game Lichess did not return: its dump record, with why."""
    before = (queued["reason"] or f"{queued['dump_file']}: refused").removesuffix(": " + QUEUE_NOTE)
    return rejected_record(
        "game",
        queued["payload"] if queued["payload"] is not None else json.dumps(queued, default=str),
        queued["game_id"],
        f"{before}; not returned by the API's export by id on {fetched_at:%Y-%m-%d} "
        "(deleted from Lichess?): no longer queued",
        fetched_at,
    )
