"""What the machine can refuse a run: a damaged database file, a full disk, a folder it may not write.

* :func:`damage` says why a DuckDB file cannot be trusted (or None): it does not open, it is shorter
  than its own header says by more than its free blocks at the end (a cut-short copy, a full disk
  or a failing volume), or a table's metadata does not read. It costs one open and reads no table
  data.
* :func:`move_aside` keeps a damaged file (and its WAL) as ``<name>.corrupt-<UTC time>``: never
  deleted, so a TD can hand it to someone who can look inside.
* :func:`preflight` refuses a run before anything slow starts when a folder it writes is not
  writable or its volume has less room than the run needs (:func:`needed_mb`).
* :func:`explain` turns what the operating system, DuckDB or SQLite raised when space or
  permission ran out mid-run into the same errors (:class:`~pipeline.errors.DiskFull`,
  :class:`~pipeline.errors.NoPermission`), so every such failure reads the same and exits 3.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

import duckdb

from pipeline.errors import DatabaseDamaged, DiskFull, NoPermission, TdError
from pipeline.store.duckdb_limits import LIMITS

HEADER_BYTES = 3 * 4096  # DuckDB's file header and its two database headers come before the blocks
MB = 1024 * 1024
HEADROOM_MB = 64  # a night's new rows, the write-ahead log, exports, logs and Prefect's records

# Opening can fail for reasons that say nothing about the file's bytes: those are not damage.
_NOT_DAMAGE = ("lock", "Permission denied", "No space left", "Read-only file system", "Out of Memory")


def damage(path: Path) -> str | None:
    """Why the DuckDB file at ``path`` cannot be trusted, or None when it opens whole. Raises the
    open's error when the failure is not about the file's bytes (another process's lock, no
    permission, no space)."""
    try:
        con = duckdb.connect(str(path), read_only=True, config=LIMITS)
    except duckdb.Error as e:
        if any(s in str(e) for s in _NOT_DAMAGE):
            raise
        return _first_line(e)
    try:
        block_size, blocks, free = con.execute(
            "SELECT block_size, total_blocks, free_blocks FROM pragma_database_size()"
        ).fetchall()[0]
        expected = HEADER_BYTES + block_size * blocks
        size = path.stat().st_size
        if size < expected and not _free_tail(size, expected, block_size, free):
            return f"{size:,} bytes where its header counts {expected:,}: the file was cut short"
        tables = con.execute(
            "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = current_database()"
        ).fetchall()
        for schema, table in tables:
            con.execute(f'SELECT count(*) FROM "{schema}"."{table}"').fetchall()  # names from the catalog
    except duckdb.Error as e:
        return _first_line(e)
    finally:
        con.close()
    return None


def _free_tail(size: int, expected: int, block_size: int, free_blocks: int) -> bool:
    """Whether a file of ``size`` bytes, shorter than the ``expected`` its header counts, only lacks
    free blocks: it ends on a block boundary and misses no more blocks than are free. A checkpoint
    writes the header's block count before it truncates the free blocks at the end of the file, so
    a whole database ends there until its next checkpoint; calling it damaged would start the run
    from an empty database. (A copy cut at a block boundary by chance, missing no more blocks than
    are free, passes here; reading a block it lacks fails later, as damage.)"""
    whole_blocks = (size - HEADER_BYTES) % block_size == 0
    return size >= HEADER_BYTES and whole_blocks and (expected - size) // block_size <= free_blocks


def _first_line(e: BaseException) -> str:
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def move_aside(path: Path, now: dt.datetime | None = None) -> Path:
    """Rename ``path`` (and its ``.wal``) to ``<name>.corrupt-<UTC time>``; returns the new path."""
    stamp = f"{(now or dt.datetime.now(dt.UTC)):%Y%m%dT%H%M%SZ}"
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    os.replace(path, aside)
    wal = path.with_name(path.name + ".wal")
    if wal.exists():
        os.replace(wal, aside.with_name(aside.name + ".wal"))
    return aside


def free_mb(path: Path) -> int:
    """Free megabytes on the volume of ``path`` (its nearest existing folder)."""
    return shutil.disk_usage(_existing(path)).free // MB


def _existing(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _size_mb(path: Path) -> int:
    return -(-path.stat().st_size // MB) if path.exists() else 0


def needed_mb(work: Path, published: Path) -> int:
    """Room a run needs on the database's volume: a new snapshot (about the published file's size
    again, or the working database's before the first publish) plus :data:`HEADROOM_MB`."""
    snapshot = _size_mb(published) or _size_mb(work)
    return snapshot + HEADROOM_MB


def preflight(work: Path, published: Path, folders: Iterable[Path]) -> None:
    """Refuse the run at once (:class:`DiskFull`, :class:`NoPermission`) if a folder it writes is
    not writable, or the database's volume has less room than :func:`needed_mb`."""
    for folder in dict.fromkeys(f.absolute() for f in (work.parent, published.parent, *folders)):
        existing = _existing(folder)
        if not os.access(existing, os.W_OK | os.X_OK):
            raise NoPermission(existing, "the run writes there")
    check_room(work, published)


def check_room(work: Path, published: Path) -> None:
    """:class:`DiskFull` when the database's volume has less room than :func:`needed_mb` (before
    a run, before publishing)."""
    need = needed_mb(work, published)
    for folder in dict.fromkeys((work.parent.absolute(), published.parent.absolute())):
        free = free_mb(folder)
        if free < need:
            raise DiskFull(_existing(folder), free, need)


_QUOTED_PATH = re.compile(r'"(/[^"]+)"')
_DAMAGE_TEXTS = ("Could not read enough bytes", "Corrupt database file", "not a valid DuckDB database file")


def explain(e: BaseException, work: Path | None = None, published: Path | None = None) -> TdError | None:
    """The :class:`DiskFull`, :class:`NoPermission` or :class:`DatabaseDamaged` an error means, or
    None. Knows OSError's errno, DuckDB's IO errors ("No space left on device", "Permission
    denied", "Could not read enough bytes", the file in quotes) and SQLite's "database or disk is
    full" (Prefect's database). With the run's databases, a full disk says how much the run needs."""
    text = str(e)
    found = _QUOTED_PATH.search(text)
    quoted = Path(found.group(1)) if found else None
    if isinstance(e, OSError) and e.errno is not None:
        path = Path(e.filename) if e.filename else quoted
        if e.errno in (errno.ENOSPC, errno.EDQUOT):
            kind = "space"
        elif e.errno in (errno.EACCES, errno.EPERM):
            kind = "permission denied"
        elif e.errno == errno.EROFS:
            kind = "read-only file system"
        else:
            return None
    elif "No space left on device" in text or "database or disk is full" in text:
        kind, path = "space", quoted
    elif "Permission denied" in text or "Read-only file system" in text:
        kind, path = ("read-only file system" if "Read-only" in text else "permission denied"), quoted
    elif any(t in text for t in _DAMAGE_TEXTS) and quoted is not None:
        return DatabaseDamaged(quoted, _first_line(e))
    else:
        return None
    where = path or work or Path.cwd()
    if kind == "space":
        needed = needed_mb(work, published) if work is not None and published is not None else None
        return DiskFull(where, free_mb(where), needed)
    return NoPermission(where, kind)
