"""A recorded ``games.ndjson`` held lean for the replay server: each game keeps in memory only the
scalar fields the server's endpoints select by (:data:`SCALARS`), each side's user id, rating and
rating change, and where its line lies in the file; every other field (the moves, the clocks, the
players as recorded...) and the line itself are read from the file when asked for.

Why: the demo's Lichess is served from inside the nightly run (``lichess.replay_data``), so its
games count in the run's memory. Held as parsed objects, the demo's 51,586 games (77 MB of
NDJSON) cost the process about 280 MB; held as below, about 20 MB (docs/benchmarks.md, Memory).
The file is a recording: it is read, never written, while it is served.
"""

from __future__ import annotations

import os
import sys
import weakref
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pipeline.lichess import ndjson

SCALARS = ("id", "createdAt", "lastMoveAt", "status", "rated", "variant", "perf", "winner")
"""The fields the replay server filters, sorts and indexes by: kept in memory."""
_INDEX = {name: i for i, name in enumerate(SCALARS)}
_MISSING = object()
_SHAPES: dict[tuple[str, ...], tuple[str, ...]] = {}  # one tuple of field names per distinct shape

Side = tuple[str | None, Any, Any]
"""A side's user id (None: anonymous or missing), its rating and its rating change as recorded."""


def side(game: Mapping[str, Any], color: str) -> Side:
    """``color``'s user id, rating and rating change in a game (a dict or a :class:`StoredGame`)."""
    if isinstance(game, StoredGame):
        return game.sides[0 if color == "white" else 1]
    return _side_of(game, color)


def _side_of(game: Mapping[str, Any], color: str) -> Side:
    p = (game.get("players") or {}).get(color) or {}
    uid = (p.get("user") or {}).get("id") if isinstance(p, dict) else None
    return (uid if isinstance(uid, str) else None, p.get("rating"), p.get("ratingDiff"))


class GamesFile:
    """The open recording the games' lines are read from (by position: reads from several
    threads at once need no lock); closed when nothing refers to it any more."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = os.open(path, os.O_RDONLY)
        weakref.finalize(self, os.close, self.fd)

    def read(self, offset: int, length: int) -> bytes:
        return os.pread(self.fd, length, offset)


class StoredGame(Mapping[str, Any]):
    """One game of the recording, read-only: a mapping of all its fields as ``json.loads`` of its
    line gives them, in the line's order."""

    __slots__ = ("_values", "_keys", "sides", "_source", "_offset", "_length")

    def __init__(self, game: dict[str, Any], source: GamesFile, offset: int, length: int) -> None:
        self._values = tuple(_interned(game.get(name, _MISSING)) for name in SCALARS)
        keys = tuple(game)
        self._keys = _SHAPES.setdefault(keys, keys)
        self.sides = tuple(_shared(_side_of(game, color)) for color in ("white", "black"))
        self._source, self._offset, self._length = source, offset, length

    def line(self) -> bytes:
        """The game's line as recorded, ending in one newline."""
        return self._source.read(self._offset, self._length).rstrip(b"\r\n") + b"\n"

    def whole(self) -> dict[str, Any]:
        """Every field, read from the line once."""
        return dict(ndjson.loads(self.line().decode()))

    def __getitem__(self, key: str) -> Any:
        i = _INDEX.get(key)
        if i is not None and self._values[i] is not _MISSING:
            return self._values[i]
        if key in self._keys and i is None:
            return self.whole()[key]
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and self.whole() == dict(other.items())

    __hash__ = None  # type: ignore[assignment]  # a mapping, compared by value

    def __repr__(self) -> str:
        return f"StoredGame({self._values[0]!r})"


def _interned(value: Any) -> Any:
    """Strings shared between games (a status, a variant, a player's id) held once."""
    return sys.intern(value) if isinstance(value, str) else value


def _shared(s: Side) -> Side:
    return (_interned(s[0]), s[1], s[2])
