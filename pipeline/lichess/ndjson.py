"""One line of Lichess's NDJSON (the game streams, the replay server's dataset files), parsed."""

from __future__ import annotations

import json
from typing import Any

import orjson


def loads(line: str) -> Any:
    """``json.loads(line)``, parsed by orjson when it can (about a third of the time; the ingest's
    stream thread parses every game a night fetches, the replay server every game of its dataset):
    a line orjson refuses (stricter than the standard library: NaN, Infinity, lone surrogates, or
    not JSON at all) is parsed by ``json.loads``, so the same lines are accepted and a bad one is
    rejected with the standard library's ``json.JSONDecodeError`` and message. One difference:
    orjson reads an integer beyond 64 bits as a float, so such a ``createdAt`` is rejected as not
    epoch milliseconds (``client.parse_game``) instead of overflowing the datetime."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)
