"""The replay server's record of the requests it served, and the check that a lane's requests never
overlap (one request at a time per Lichess token, across every tournament of a league).

One :class:`RequestRecord` per request, in three places with the same fields: in-process
(``ReplayServer.requests()``), over HTTP (``GET /_replay/requests``, a JSON list) and in the file
of ``antichess-td replay-server --record FILE`` (one NDJSON line per finished request). A record
names the request's lane (``pipeline.lichess.lane.lane_name`` of the server and the bearer token;
never the token), and its interval on the machine's monotonic clock: from the moment the server
read the request line to the moment its last byte was written (a game stream's end is when the
stream finished, however long the throttle made it). Monotonic stamps compare across the
processes of one machine (Linux's CLOCK_MONOTONIC); ``started_at_ms`` is the wall clock, for
people.

:func:`find_overlaps` is pure: it takes records (from any of the three places) and returns the
pairs of one lane whose intervals overlap.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class RequestRecord:
    """One request the replay server answered: its lane, what was asked, the answer's status and
    when it ran (``start_ns`` <= ``end_ns``, ``time.monotonic_ns()``)."""

    lane: str
    method: str
    path: str  # without the query string
    status: int  # 0: the request ended before an answer was sent (the client hung up)
    start_ns: int
    end_ns: int
    started_at_ms: int  # wall clock, ms since the epoch

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RequestRecord:
        return cls(
            str(d["lane"]),
            str(d["method"]),
            str(d["path"]),
            int(d["status"]),
            int(d["start_ns"]),
            int(d["end_ns"]),
            int(d["started_at_ms"]),
        )


def read_records(path: Path | str) -> list[RequestRecord]:
    """The records of a ``--record`` file, in the order the requests finished (blank lines skipped)."""
    with Path(path).open(encoding="utf-8") as f:
        return [RequestRecord.from_json(json.loads(line)) for line in f if line.strip()]


def find_overlaps(records: Iterable[RequestRecord]) -> list[tuple[RequestRecord, RequestRecord]]:
    """Every pair of records of one lane whose intervals overlap (one started before the other
    ended; touching ends do not overlap), the earlier-started first, in start order. Empty: each
    lane had at most one request in flight at any time."""
    by_lane: dict[str, list[RequestRecord]] = {}
    for r in records:
        by_lane.setdefault(r.lane, []).append(r)
    pairs: list[tuple[RequestRecord, RequestRecord]] = []
    for lane in sorted(by_lane):
        open_: list[RequestRecord] = []  # started earlier, still running at the current start
        for r in sorted(by_lane[lane], key=lambda x: (x.start_ns, x.end_ns)):
            open_ = [o for o in open_ if o.end_ns > r.start_ns]
            pairs.extend((o, r) for o in open_)
            open_.append(r)
    return pairs
