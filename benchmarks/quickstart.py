"""Quick-start benchmark: the README's first command as a newcomer runs it, after ``pip install``.

    python benchmarks/quickstart.py [--keep]

Runs, in a new temporary folder, as subprocesses of the installed ``antichess-td`` (the one on
PATH, with the environment as it is: set PYTHONPATH to measure a checkout that is not installed):

1. ``antichess-td -v demo --out <tmp>/demo``: the default demo (seed 2026), built from its generator;
2. ``antichess-td -v nightly --config <tmp>/demo/tournament.toml``: the first nightly run on it
   (Prefect's temporary server included, in the tournament's own Prefect home).

``-v`` only adds the log lines on stderr (both commands print the same stdout as without it); each
line is timestamped as it arrives, which gives the phases: the demo logs each of its phases
(``demo: <phase> in <s> s``), and the nightly's log lines mark where each stage ends (Prefect's
temporary server starting, then the flow run beginning once it answers (the downloads have been
under way since the lock was held: the ingest's head start), the last ingest batch, then one
finished task each for the casual-game searches, score, audit, export, publish and site).

Prints the machine's load (``/proc/loadavg``) before and after, a table of the phases (wall
seconds), each step's CPU time (user + system, its subprocesses included: on a machine shared with
other work the wall time grows with the load, the CPU time much less), and last
``quickstart_s=T demo_s=D nightly_s=N`` (wall seconds; goal T ≤ 45 on the 2-core machine).
``--keep`` keeps the temporary folder and prints where it is.
"""

from __future__ import annotations

import argparse
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

NIGHTLY_TASKS = (
    "ingest (the rest of the downloads)",
    "casual-game searches",
    "score",
    "audit",
    "export",
    "publish",
    "site",
)


def load_average() -> str:
    try:
        with open("/proc/loadavg", encoding="utf-8") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "n/a"


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_timed(args: list[str]) -> tuple[float, float, list[tuple[float, str]], str]:
    """Run `args`; returns its wall time, its CPU time (user + system, its own processes' too:
    Prefect's server), its stderr lines with the seconds since the start at which each arrived,
    and its stdout. Exits when the command fails."""
    cpu = children_cpu_s()
    started = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    lines: list[tuple[float, str]] = []

    def read_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append((time.perf_counter() - started, line.rstrip("\n")))

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    assert proc.stdout is not None
    out = proc.stdout.read()
    proc.wait()
    reader.join()
    took = time.perf_counter() - started
    if proc.returncode != 0:
        sys.stdout.write(out)
        sys.stdout.write("\n".join(line for _, line in lines[-40:]) + "\n")
        sys.exit(f"{' '.join(args)} failed with exit code {proc.returncode}")
    return took, children_cpu_s() - cpu, lines, out


def demo_phases(lines: list[tuple[float, str]], total: float) -> list[tuple[str, float]]:
    phases = []
    for _, line in lines:
        m = re.search(r"demo: (.+) in ([0-9.]+) s$", line)
        if m:
            phases.append((m.group(1), float(m.group(2))))
    return phases + [("process start and exit (imports, the summary)", total - sum(s for _, s in phases))]


def nightly_phases(lines: list[tuple[float, str]], total: float) -> list[tuple[str, float]]:
    """The stages' ends, from the log lines (see the module docstring)."""

    def first(pattern: str, after: float = 0.0) -> float:
        for t, line in lines:
            if t >= after and pattern in line:
                return t
        sys.exit(f"the nightly's log has no line with {pattern!r} (after {after:.1f} s)")

    marks = [("start (imports, config, lock)", first("Starting temporary server"))]
    marks.append(("Prefect's server starting (the head start downloading)", first("Beginning flow run", marks[-1][1])))
    batches = [t for t, line in lines if "pipeline.lichess.request_plan: ingest: {" in line]
    if not batches:
        sys.exit("the nightly's log has no 'ingest: {' line")
    tasks = [t for t, line in lines if "prefect.task_runs" in line and "Finished in state Completed()" in line]
    after = [t for t in tasks if t >= batches[-1]]
    if len(after) < len(NIGHTLY_TASKS):
        sys.exit(f"the nightly's log has {len(after)} finished tasks after the last ingest batch: expected 7")
    for name, t in zip(NIGHTLY_TASKS, after, strict=False):
        marks.append((name, t))
    marks.append(("flow end, standings printed, Prefect stopped, exit", total))
    out, last = [], 0.0
    for name, t in marks:
        out.append((name, t - last))
        last = t
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    exe = shutil.which("antichess-td")
    if exe is None:
        sys.exit("antichess-td is not on PATH: pip install -e . first")
    tmp = Path(tempfile.mkdtemp(prefix="antichess-td-quickstart-"))
    print(f"load average before: {load_average()}  ({exe}; folder {tmp})")
    try:
        demo_s, demo_cpu, demo_lines, demo_out = run_timed([exe, "-v", "demo", "--out", str(tmp / "demo")])
        nightly_s, nightly_cpu, nightly_lines, _ = run_timed(
            [exe, "-v", "nightly", "--config", str(tmp / "demo" / "tournament.toml")]
        )
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"load average after: {load_average()}")
    print(demo_out.splitlines()[0])
    rows = [("demo", name, s) for name, s in demo_phases(demo_lines, demo_s)]
    rows += [("nightly", name, s) for name, s in nightly_phases(nightly_lines, nightly_s)]
    print(f"{'step':<8} {'phase':<62} {'s':>7}")
    for step, name, s in rows:
        print(f"{step:<8} {name:<62} {s:7.1f}")
    print(f"{'demo':<8} {'total':<62} {demo_s:7.1f}  (CPU {demo_cpu:.1f} s)")
    print(f"{'nightly':<8} {'total':<62} {nightly_s:7.1f}  (CPU {nightly_cpu:.1f} s)")
    if args.keep:
        print(f"kept {tmp}")
    print(f"quickstart_s={demo_s + nightly_s:.1f} demo_s={demo_s:.1f} nightly_s={nightly_s:.1f}")


if __name__ == "__main__":
    main()
