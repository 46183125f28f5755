"""Memory benchmark: the peak resident memory of a nightly run, across every process of the run.

    python benchmarks/memory.py [--stride 7] [--interval-ms 25]

Writes the default demo (``antichess-td demo``, seed 2026: the quick start's; cached under
``<tmp>/antichess-td-bench-memory/`` by the generator's source) and runs the real CLI in a
subprocess, as a TD runs it by hand, with Prefect's temporary server (a fresh Prefect home per
part, so its database starts empty as on a fresh machine):

(a) the first nightly: ``antichess-td nightly --config tournament.toml`` on a fresh copy, as the
    quick start runs it (the whole season ingested, scored, audited, exported and published);
(b) a season's later nights: on another fresh copy, ``nightly --now <night>`` for every
    ``--stride``-th night of the season's schedule (03:00 UTC, as tests/kits/soakkit.py lists
    them); the first of these is that copy's first night, the others are later nights.

The demo's Lichess is the replay server inside the run (``lichess.replay_data``), so it counts.

While a run lasts, its process tree (the CLI, Prefect's temporary server, the verifier's worker,
multiprocessing's resource tracker) is sampled every ``--interval-ms``: each process's resident
set (VmRSS) and proportional set (Pss: a page shared by n processes counts 1/n in each). Reported:
the peak of the sum of the RSS (a page two processes share counts twice: the harder measure), the
peak of the sum of the PSS (each page once: what the run takes from the machine), and each
process's own peak. Beside them, the floors: the resident memory of the CLI's modules imported and
nothing run, and of Prefect's server app created and serving nothing.

The last line is exactly
``first_nightly_rss_mb=A later_nights_rss_mb=B first_nightly_pss_mb=C later_nights_pss_mb=D``
(B and D: the largest of the later nights). The goal (issue: half the memory) is A, B <= 350.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from kits import soakkit  # noqa: E402
from pipeline.inputs.config import load_config  # noqa: E402

CACHE = Path(tempfile.gettempdir()) / "antichess-td-bench-memory"
GOAL_MB = 350


@dataclass
class Peaks:
    """The peaks of one run's process tree (kB)."""

    rss_sum: int = 0
    pss_sum: int = 0
    per_process: dict[int, tuple[int, str]] = field(default_factory=dict)  # pid → (peak RSS, label)


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            kids.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(name))
    return kids


def _tree(root: int) -> list[int]:
    kids, out, todo = _children(), [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(kids.get(pid, []))
    return out


def _field(path: str, key: str) -> int:
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _label(pid: int) -> str:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "?"
    text = " ".join(a.decode(errors="replace") for a in argv)
    for needle, label in (
        ("uvicorn", "Prefect's temporary server"),
        ("resource_tracker", "multiprocessing's resource tracker"),
        ("spawn_main", "the verifier's worker"),
        (" nightly", "antichess-td nightly (the run, with the demo's Lichess)"),
    ):
        if needle in text:
            return label
    return text[:60]


def sample(proc: subprocess.Popen[bytes], interval_s: float) -> Peaks:
    """Sample ``proc``'s process tree until it ends."""
    peaks = Peaks()
    while proc.poll() is None:
        rss_sum = pss_sum = 0
        for pid in _tree(proc.pid):
            rss = _field(f"/proc/{pid}/status", "VmRSS:")
            rss_sum += rss
            pss_sum += _field(f"/proc/{pid}/smaps_rollup", "Pss:")
            if rss > peaks.per_process.get(pid, (0, ""))[0]:
                peaks.per_process[pid] = (rss, _label(pid))
        peaks.rss_sum, peaks.pss_sum = max(peaks.rss_sum, rss_sum), max(peaks.pss_sum, pss_sum)
        time.sleep(interval_s)
    return peaks


def run(args: list[str], home: Path, interval_s: float) -> tuple[Peaks, float, str]:
    """One CLI run in a subprocess, sampled; its peaks, wall time and last line of output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_HOME": str(home)}
    for key in ("PREFECT_API_URL", "PREFECT_PROFILES_PATH"):
        env.pop(key, None)
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env
    )
    out: list[bytes] = []
    reader = threading.Thread(target=lambda: out.extend(proc.stdout or []), daemon=True)
    reader.start()
    peaks = sample(proc, interval_s)
    reader.join()
    lines = b"".join(out).decode(errors="replace").strip().splitlines()
    if proc.returncode != 0:
        raise SystemExit(f"antichess-td {' '.join(args)} failed ({proc.returncode}):\n" + "\n".join(lines[-20:]))
    return peaks, time.perf_counter() - started, next((x for x in reversed(lines) if x.startswith("run ")), "")


def floor_kb(code: str) -> int:
    """The peak resident memory (kB) of a Python process that runs ``code`` only."""
    probe = "import resource\n" + code + "\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return int(
        subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
        ).stdout.split()[-1]
    )


def demo() -> Path:
    """The default demo, written once per generator source."""
    digest = hashlib.sha256()
    for p in sorted((ROOT / "pipeline" / "sim").rglob("*.py")):
        digest.update(p.read_bytes())
    out = CACHE / f"demo-{digest.hexdigest()[:12]}"
    if not (out / "tournament.toml").exists():
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run(
            [sys.executable, "-m", "pipeline", "demo", "--out", str(out)],
            check=True,
            capture_output=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    return out


def fresh(src: Path, dest: Path) -> Path:
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("out"))
    return dest / "tournament.toml"


def show(name: str, peaks: Peaks, wall_s: float, last: str) -> None:
    print(
        f"{name}: RSS sum {peaks.rss_sum / 1024:.0f} MB, PSS sum {peaks.pss_sum / 1024:.0f} MB, {wall_s:.1f} s | {last}",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stride", type=int, default=7, help="every K-th night of the season (default: weekly)")
    ap.add_argument("--interval-ms", type=float, default=25.0, help="sampling interval")
    args = ap.parse_args()
    interval = args.interval_ms / 1000
    print(f"load {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}", flush=True)
    source = demo()
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        work = Path(tmp)
        toml = fresh(source, work / "first")
        first, wall, last = run(["nightly", "--config", str(toml)], work / "home-first", interval)
        show("(a) first nightly", first, wall, last)
        for rss, label in sorted(first.per_process.values(), reverse=True):
            print(f"      {rss / 1024:5.0f} MB  {label}")

        toml = fresh(source, work / "season")
        nights = soakkit.season_nights(load_config(toml))[:: args.stride]
        later: list[Peaks] = []
        for i, night in enumerate(nights):
            now = night.strftime("%Y-%m-%dT%H:%M:%SZ")
            peaks, wall, last = run(["nightly", "--config", str(toml), "--now", now], work / "home-season", interval)
            show(f"(b) night {now}" + (" (the copy's first)" if i == 0 else ""), peaks, wall, last)
            if i:
                later.append(peaks)
        worst = max(later, key=lambda p: p.rss_sum)
        print("    the largest later night, per process:")
        for rss, label in sorted(worst.per_process.values(), reverse=True):
            print(f"      {rss / 1024:5.0f} MB  {label}")

    cli = floor_kb("import flows.nightly, pipeline.cli.app, pipeline.stages.export, pipeline.report.site")
    server = floor_kb("import prefect.server.api.server as s\ns.create_app(ephemeral=True)")
    print(
        f"floors: the CLI's modules imported {cli / 1024:.0f} MB; Prefect's server app created {server / 1024:.0f} MB; together {(cli + server) / 1024:.0f} MB (goal {GOAL_MB} MB)"
    )
    print(f"load {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    print(
        f"first_nightly_rss_mb={first.rss_sum / 1024:.0f} later_nights_rss_mb={worst.rss_sum / 1024:.0f} "
        f"first_nightly_pss_mb={first.pss_sum / 1024:.0f} later_nights_pss_mb={worst.pss_sum / 1024:.0f}"
    )


if __name__ == "__main__":
    main()
