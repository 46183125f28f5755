"""CSV exports (docs/td-guide.md, Exports): a header row, UTC ISO-8601 times, no spreadsheet-formula injection.

A text cell that starts with ``= + - @``, a tab or a carriage return would be run as a formula
by spreadsheet programs (a Lichess name cannot start with one, but a team name can); such cells
get a leading apostrophe. Numbers are written as numbers, so a negative points difference stays
a number.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import io
import os
import secrets
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: str) -> str:
    return "'" + value if value.startswith(FORMULA_PREFIXES) else value


def cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, dt.date):
        return value.isoformat()
    return neutralise(str(value))


@contextlib.contextmanager
def _atomic(path: Path) -> Iterator[int]:
    """A file descriptor on a new temp file next to `path`, renamed over `path` when the block ends
    (a reader never sees half a file), removed if it fails. The temp file is created like any new
    file (mode 0666 less the umask: 0644 under umask 022), not 0600 as ``tempfile.mkstemp`` makes
    it, so the exports TDs share are as readable as the charts beside them."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        yield fd
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_csv(path: Path, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """Write atomically (temp file + rename) so a reader never sees half a file; LF line ends."""
    n = 0
    with _atomic(path) as fd, os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
        line = io.StringIO()
        w = csv.writer(line)  # its \r\n terminator makes it quote a cell with \r or \n in it

        def put(cells: Sequence[str]) -> None:
            line.seek(0)
            line.truncate()
            w.writerow(cells)
            f.write(line.getvalue()[:-2] + "\n")  # LF line ends, as every export

        put(columns)
        for row in rows:
            put([cell(v) for v in row])
            n += 1
    return n


def markdown_cell(value: Any) -> str:
    """A Markdown table cell: formula prefixes neutralised like CSV, pipes and line breaks escaped."""
    text = cell(value)
    return text.replace("|", "\\|").replace("\n", " ").replace("\r", " ")


def markdown_table(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(markdown_cell(v) for v in row) + " |" for row in rows]
    return lines


def write_text(path: Path, text: str) -> None:
    """Atomically, like write_csv."""
    with _atomic(path) as fd, os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def write_bytes(path: Path, data: bytes) -> None:
    """Atomically, like write_csv (the charts)."""
    with _atomic(path) as fd, os.fdopen(fd, "wb") as f:
        f.write(data)
