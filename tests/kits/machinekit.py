"""Machine-fault scenarios, shared by tests/store/test_machine_faults.py and benchmarks/faults.py.

Each runs the real CLI (``python -m pipeline nightly``) on copies of the skeleton tournament
under a Prefect test server, disturbs one copy the way a machine does (its working database cut
short at a random byte or deleted between two nights, its disk filled at a random moment of a
night, SIGTERM at random moments), lets the next run recover, and judges the disturbed copy's
published snapshot against the undisturbed copy's with :func:`faultkit.judge` (lost game ids,
duplicated rows, every table's checksum).
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kits import faultkit
from pipeline.inputs.config import load_config
from pipeline.sim import replay

NIGHT_1 = "2026-03-11T03:00:00Z"  # the skeleton's round 1 closed, round 2 under way
NIGHT_2 = "2026-03-18T03:00:00Z"  # round 2 closed: the season's end
CMD = [sys.executable, "-m", "pipeline", "nightly"]


def copies(skeleton_dir: Path, folder: Path, names: tuple[str, ...] = ("clean", "hurt")) -> list[Path]:
    """Copies of the skeleton tournament (in-process replay of its own data) under `folder`;
    returns their tournament.toml paths."""
    out = []
    for name in names:
        dest = folder / name
        shutil.copytree(skeleton_dir, dest, ignore=shutil.ignore_patterns("out", "make_dataset.py"))
        out.append(dest / "tournament.toml")
    return out


def nightly(cfg: Path, now: str, env: dict[str, str], timeout_s: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CMD, "--now", now, "--config", str(cfg)], env=env, capture_output=True, text=True, timeout=timeout_s
    )


def must(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    if proc.returncode != 0:
        raise AssertionError(f"nightly failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc


def published(cfg: Path) -> Path:
    return load_config(cfg).paths.database


def work(cfg: Path) -> Path:
    path = load_config(cfg).paths.work_database
    assert path is not None
    return path


DAMAGE_SCENARIOS = {
    "truncate": "working database cut short at a random byte",
    "delete": "working database deleted mid-season",
}


@dataclass
class Damaged:
    outcome: faultkit.Outcome
    recovery: subprocess.CompletedProcess[str]  # the night after the damage
    cut: int | None  # the byte the working database was cut at (None: deleted)
    aside: Path | None  # where the damaged file was moved


def damaged_work_scenario(skeleton_dir: Path, folder: Path, prefect_api_url: str, seed: int, how: str) -> Damaged:
    """Night 1 on two copies; the working database of one is cut short at a seeded random byte
    (`how` = "truncate") or deleted ("delete"); night 2 on both; the published files are judged."""
    clean, hurt = copies(skeleton_dir, folder)
    env = faultkit._env(prefect_api_url)
    for cfg in (clean, hurt):
        must(nightly(cfg, NIGHT_1, env))
    db = work(hurt)
    cut = None
    if how == "truncate":
        cut = random.Random(seed).randrange(1, db.stat().st_size)
        with db.open("r+b") as f:
            f.truncate(cut)
    else:
        db.unlink()
    start = time.perf_counter()
    recovery = must(nightly(hurt, NIGHT_2, env))
    wall = time.perf_counter() - start
    t0 = time.perf_counter()
    must(nightly(clean, NIGHT_2, env))
    out = faultkit.Outcome(
        DAMAGE_SCENARIOS[how], runs=1, wall_s=wall, reference_wall_s=time.perf_counter() - t0, requests_counted=False
    )
    out.injected = {how: 1}
    out.lost, out.duplicated, out.differing_tables = faultkit.judge(published(clean), published(hurt))
    asides = sorted(db.parent.glob(db.name + ".corrupt-*"))
    return Damaged(out, recovery, cut, asides[0] if asides else None)


# -- a full disk


@contextlib.contextmanager
def small_volume(where: Path, size_mb: int) -> Iterator[Path | str]:
    """A tmpfs of `size_mb` mounted at `where` for the block; yields the mount point, or the
    reason it could not be mounted (not root, no mount permission in this container)."""
    where.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(where)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        yield f"cannot mount a {size_mb} MB tmpfs here: {proc.stderr.strip() or proc.returncode}"
        return
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(volume: Path, name: str = "filler") -> Path:
    """Take every free byte of `volume` with one file; returns it (delete it to free the space)."""
    path = volume / name
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    block = b"\0" * (1 << 20)
    try:
        with contextlib.suppress(OSError):  # ENOSPC: the volume is full
            while os.write(fd, block):
                pass
    finally:
        os.close(fd)
    return path


@dataclass
class DiskFull:
    outcome: faultkit.Outcome
    failed: subprocess.CompletedProcess[str] | None  # the night the disk filled (None: it finished first)
    fill_at_s: float


def disk_full_scenario(
    skeleton_dir: Path, folder: Path, prefect_api_url: str, seed: int, size_mb: int = 160
) -> DiskFull | str:
    """Night 1 on two copies, one on a small tmpfs; during night 2 of that one, its volume fills
    at a seeded random moment in the first 60 % of the undisturbed night 2's duration; the space
    is freed and night 2 rerun; the published files are judged. Returns the reason instead when
    no volume can be mounted here."""
    (clean,) = copies(skeleton_dir, folder, ("clean",))
    env = faultkit._env(prefect_api_url)
    must(nightly(clean, NIGHT_1, env))
    t0 = time.perf_counter()
    must(nightly(clean, NIGHT_2, env))
    duration = time.perf_counter() - t0
    with small_volume(folder / "volume", size_mb) as volume:
        if isinstance(volume, str):
            return volume
        (hurt,) = copies(skeleton_dir, volume, ("hurt",))
        must(nightly(hurt, NIGHT_1, env))
        at = random.Random(seed).uniform(0.05, 0.6) * duration
        filled: list[Path] = []
        timer = threading.Timer(at, lambda: filled.append(fill(volume)))
        start = time.perf_counter()
        timer.start()
        first = nightly(hurt, NIGHT_2, env)
        timer.join()
        for f in filled:
            f.unlink()
        runs = 1
        failed = None
        if first.returncode != 0:
            failed = first
            must(nightly(hurt, NIGHT_2, env))
            runs = 2
        wall = time.perf_counter() - start
        out = faultkit.Outcome(
            "disk full at a random moment", runs=runs, wall_s=wall, reference_wall_s=duration, requests_counted=False
        )
        out.injected = {"disk full": 1 if failed else 0}
        out.lost, out.duplicated, out.differing_tables = faultkit.judge(
            published(clean), published(hurt), second_night_ok=True
        )
        # the judged files are on the volume: read before it goes
        return DiskFull(out, failed, at)


# -- SIGTERM


def term_nightly_scenario(
    skeleton_dir: Path, prefect_api_url: str, seed: int, terms: int = 3, games_per_s: float = 15
) -> tuple[faultkit.Outcome, list[float]]:
    """`nightly` stopped with SIGTERM at `terms` seeded moments in the first 60 % of an
    undisturbed nightly's duration (each run must end within 5 s of its signal), then run to
    completion; judged like the kills. Returns the outcome and each stopped run's seconds from
    signal to exit."""
    at = "2026-03-18T03:00:00Z"
    import datetime as dt

    dataset = replay.Dataset.load(skeleton_dir / "lichess")
    rng = random.Random(seed)
    stops: list[float] = []
    with replay.running(
        dataset,
        now=dt.datetime.fromisoformat(at.replace("Z", "+00:00")),
        options=replay.ReplayOptions(games_per_s=games_per_s),
    ) as server:
        clean, hurt = faultkit.nightly_configs(skeleton_dir, server.base_url)
        cmd = [*CMD, "--now", at, "--config"]
        env = faultkit._env(prefect_api_url)
        duration = faultkit.timed_run([*cmd, str(clean)], env)
        reference = server.requests_served
        start = time.perf_counter()
        runs = 0
        for delay in sorted(rng.uniform(0.05, 0.6) * duration for _ in range(terms)):
            proc = subprocess.Popen(
                [*cmd, str(hurt)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
            )
            runs += 1
            try:
                proc.communicate(timeout=delay)
                break  # finished before its signal: that is the completion
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGTERM)
                sent = time.perf_counter()
                proc.communicate(timeout=60)
                stops.append(time.perf_counter() - sent)
        else:
            runs += 1
            faultkit.timed_run([*cmd, str(hurt)], env)
        wall = time.perf_counter() - start
        served = server.requests_served - reference
    out = faultkit.Outcome(
        "SIGTERM at random moments, then rerun",
        runs=runs,
        extra_requests=served - reference,
        wall_s=wall,
        reference_wall_s=duration,
    )
    out.injected = {"sigterm": len(stops)}
    out.lost, out.duplicated, out.differing_tables = faultkit.judge(
        load_config(clean).paths.database, load_config(hurt).paths.database, second_night_ok=True
    )
    return out, stops
