"""The folders a build writes: only a folder a build owns (it holds MARKER) is replaced, and it
is replaced whole (:func:`swap_in`)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from pipeline.errors import InputError
from pipeline.model import Config

MARKER = ".antichess-td-site"  # written into every folder a build owns: only such a folder is replaced

MARKER_TEXT = "Written by `antichess-td site`: each build replaces this folder whole.\n"


def check_owned(config: Config, key: str, folder: Path) -> None:
    """A folder a build may replace: missing, empty, or written by a build (it holds MARKER)."""
    if folder.exists() and (not folder.is_dir() or (any(folder.iterdir()) and not (folder / MARKER).is_file())):
        raise InputError(
            config.path,
            f"key '{key}'",
            f"{folder} holds files `antichess-td site` did not write: expected a folder of its own "
            "(each build replaces it whole); choose another folder or empty it",
        )


def swap_in(target: Path, files: dict[str, bytes]) -> None:
    """Write `files` into a new folder beside `target`, then put it in `target`'s place: the old
    folder is renamed aside, the new one renamed in, the old one removed. A failure while writing
    leaves `target` as it was (and removes the half-written folder)."""
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    fresh = parent / f".{target.name}.new-{os.getpid()}"
    old = parent / f".{target.name}.old-{os.getpid()}"
    for leftover in (fresh, old):
        if leftover.exists():
            shutil.rmtree(leftover)
    try:
        fresh.mkdir()
        for rel, data in {**files, MARKER: MARKER_TEXT.encode("utf-8")}.items():
            path = fresh / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        if target.exists():
            target.rename(old)
        try:
            fresh.rename(target)
        except BaseException:
            if old.exists() and not target.exists():
                old.rename(target)
            raise
    finally:
        if fresh.exists():
            shutil.rmtree(fresh, ignore_errors=True)
    if old.exists():
        shutil.rmtree(old)
