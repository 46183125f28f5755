"""The published snapshot a TD can always read, and the working database only runs write.

Files, beside ``paths.database`` (say ``out/team.duckdb``):

* ``out/team.duckdb`` — the **published snapshot**. TDs open it read-only (the ``duckdb`` CLI,
  Python, ``antichess-td export``) whenever they like, also while a run is writing; no run ever
  opens it for writing. It is replaced whole, and only by a run that succeeded.
* ``out/team.work.duckdb`` (``paths.work_database``) — the **working database**: the only file a
  run writes. It keeps everything between runs (cursors, raw payloads, verdicts); if it is lost,
  or found damaged (then kept as ``out/team.work.duckdb.corrupt-<UTC time>``), the next run starts
  again from a copy of the published snapshot (:func:`ensure_work`).
* ``out/team.work.duckdb.lock`` — held (``flock``) by the run writing the working database, with
  its pid: one writer per tournament; a second run stops at once with a clear message. The CLI
  takes it before anything slow is imported or started (Prefect); taking it again in the same
  process (the flow inside the CLI's run) is a no-op.
* ``out/team.duckdb.tmp-<pid>`` — a snapshot being built; renamed onto the published path when
  complete, removed by the next publish if its run was killed.

Publishing checkpoints the working database (its write-ahead log folded into the file, none left)
and copies the file's bytes: the working database is kept in the snapshot's storage format, one
DuckDB 1.0 and later can read (``gateway.WRITE_CONFIG``), so the copy is already a complete,
self-contained snapshot of every table and view, whatever they are (0.2 s for a 159 MB file, where
the rewrite took 6.4 s). A working database an older install created in a newer format is
rewritten instead (``COPY FROM DATABASE`` into that storage format), once: the working file then
becomes a copy of that rewrite, so later publishes copy bytes. Either way the new file is
checked (every view runs inside it alone), fsynced, and renamed onto the published path
(``os.replace``, atomic on POSIX). A reader holding the old file keeps reading its open inode; the
next open sees the new file; nobody ever sees a half-written one.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from pipeline.errors import TdError

log = logging.getLogger(__name__)


class WriterBusy(TdError):
    """Another run holds the working database's lock."""


def lock_path(work: Path) -> Path:
    return work.with_name(work.name + ".lock")


_held: dict[Path, int] = {}  # lock files this process holds → nesting depth


@contextlib.contextmanager
def writer_lock(work: Path) -> Iterator[None]:
    """Hold the working database's lock for the block: the only writer of this tournament.
    The kernel drops the lock when the process ends, however it ends (even ``kill -9``). Held
    already by this process: the block runs under that hold."""
    path = lock_path(work).absolute()
    if _held.get(path):
        _held[path] += 1
        try:
            yield
        finally:
            _held[path] -= 1
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                raise
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            raise WriterBusy(
                f"another antichess-td run (pid {holder}) is writing {work}: wait for it to finish "
                "(the published database stays readable meanwhile)"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        _held[path] = 1
        try:
            yield
        finally:
            del _held[path]
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def ensure_work(work: Path, published: Path) -> list[str]:
    """Make the working database usable, saying how in the returned warnings (also logged).

    * Present and whole: left alone (no warning).
    * Damaged (``health.damage``: cut short, overwritten, not a database): moved aside as
      ``<name>.corrupt-<UTC time>`` (never deleted), then treated as missing.
    * Missing (first run after an upgrade, deleted, moved aside): a byte copy of the published
      snapshot (in the storage format a working database is kept in), so nothing stored is fetched
      again; what the snapshot lacks, the next ingest fetches from the
      snapshot's cursors. With no usable snapshot either, the run starts from an empty database.

    A damaged published snapshot is only reported: the run's publish replaces it."""
    from pipeline.store import health

    published_damage = health.damage(published) if published.exists() else None
    usable = published.exists() and published_damage is None
    warnings: list[str] = []
    present = work.exists()
    if present and (reason := health.damage(work)) is not None:
        start = "a copy of the published snapshot" if usable else "an empty database: everything is fetched again"
        aside = health.move_aside(work)
        warnings.append(
            f"the working database {work} is damaged ({reason}); moved it aside to {aside.name}; this run starts "
            f"from {start}"
        )
    if published_damage is not None:
        empty = "" if present else "; the working database is missing: this run starts from an empty one"
        warnings.append(
            f"the published database {published} is damaged ({published_damage}); this run replaces it when it "
            f"publishes{empty}"
        )
    for line in warnings:
        log.warning("%s", line)
    if work.exists() or not usable:
        return warnings
    log.info("no working database %s: starting from a copy of the published %s", work, published)
    work.parent.mkdir(parents=True, exist_ok=True)
    partial = work.with_name(f"{work.name}.tmp-{os.getpid()}")
    partial.unlink(missing_ok=True)
    try:
        shutil.copyfile(published, partial)
        os.replace(partial, work)
    finally:
        partial.unlink(missing_ok=True)
    return warnings


def replace_published(work: Path, published: Path) -> dict[str, int]:
    """Publish the working database as a new self-contained snapshot at ``published``, atomically:
    a byte copy of the checkpointed working file when it is in the snapshot's storage format, else
    a rewrite (see the module docstring). Returns the row count of every view in it. Call it
    holding :func:`writer_lock`, with no connection of this process open on ``work``."""
    from pipeline.store import gateway

    if not work.exists():
        raise FileNotFoundError(f"no working database {work} to publish: a run writes it before it publishes")
    for stale in published.parent.glob(f"{published.name}.tmp-*"):
        log.info("removing %s, left by a run that was stopped while publishing", stale)
        stale.unlink()
    tmp = published.with_name(f"{published.name}.tmp-{os.getpid()}")
    try:
        rewritten = _build(work, tmp)
        counts = gateway.view_counts(tmp)
        _fsync(tmp)
        os.replace(tmp, published)
        _fsync(published.parent)
    finally:
        tmp.unlink(missing_ok=True)
    if rewritten:
        # the rewrite holds everything the working file does, in the snapshot's format: from now on
        # the working file is a copy of it, and the next publish copies bytes instead of rewriting
        _replace_with_copy(published, work)
        log.info("the working database %s is now in storage format %s", work, gateway.SNAPSHOT_STORAGE_VERSION)
    return counts


def _replace_with_copy(src: Path, dst: Path) -> None:
    """Replace ``dst`` with a byte copy of ``src``, atomically (a partial copy is never seen)."""
    partial = dst.with_name(f"{dst.name}.tmp-{os.getpid()}")
    partial.unlink(missing_ok=True)
    try:
        shutil.copyfile(src, partial)
        _fsync(partial)
        os.replace(partial, dst)
    finally:
        partial.unlink(missing_ok=True)


def _build(work: Path, tmp: Path) -> bool:
    """Write the snapshot of ``work`` to the new file ``tmp``: its bytes once checkpointed, when it
    is in the snapshot's storage format; else a rewrite into that format (returns True)."""
    from pipeline.store import gateway

    version = gateway.checkpointed_storage_version(work)
    if version.rstrip("+") == gateway.SNAPSHOT_STORAGE_VERSION:
        log.info("publishing %s as a byte copy (storage format %s)", work, version)
        shutil.copyfile(work, tmp)
        return False
    log.info(
        "publishing %s rewritten into storage format %s: the working database is in %s",
        work,
        gateway.SNAPSHOT_STORAGE_VERSION,
        version,
    )
    gateway.copy_database(work, tmp)
    return True


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
