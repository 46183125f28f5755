"""CSV exports (contract 6): a header row, UTC ISO-8601 times, no spreadsheet-formula injection.

A text cell that starts with ``= + - @``, a tab or a carriage return would be run as a formula
by spreadsheet programs (a Lichess name cannot start with one, but a team name can); such cells
get a leading apostrophe. Numbers are written as numbers, so a negative points difference stays
a number.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
import tempfile
from collections.abc import Iterable, Sequence
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


def write_csv(path: Path, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """Write atomically (temp file + rename) so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
            line = io.StringIO()
            w = csv.writer(line)  # its \r\n terminator makes it quote a cell with \r or \n in it

            def put(cells: Sequence[str]) -> None:
                line.seek(0)
                line.truncate()
                w.writerow(cells)
                f.write(line.getvalue()[:-2] + "\n")  # LF line ends (contract 6)

            put(columns)
            for row in rows:
                put([cell(v) for v in row])
                n += 1
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
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
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
