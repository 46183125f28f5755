"""Soak benchmark: a whole demo season night by night, 30 % of requests failing, kill -9 every fifth night.

    python benchmarks/soak.py [--demo DIR] [--seed 1] [--first N] [--stride K]

Takes the TEAM tournament of the default demo (``antichess-td demo``, seed 2026, 12 teams; written
to a temporary folder first unless ``--demo`` names one already written) and runs the real CLI,
``python -m pipeline nightly --now <night>``, once per night of the config's schedule (03:00 UTC)
from the first round's start to the final's end, on one tournament folder, under a throwaway
Prefect test server. Each night a replay server on 127.0.0.1 serves the world as of that night and
answers a seeded 30 % of requests with an error (15 % HTTP 429 with Retry-After 0, 15 % HTTP 502);
every fifth night's run is killed with SIGKILL at a seeded moment and the night is rerun to
completion. The end is judged against the same nights run undisturbed on a fresh copy
(tests/kits/soakkit.py): lost game ids, duplicated rows, every table's row count and row-hash sum; the
tables in which one undisturbed nightly at the last night differs from them, by design, are
reported beside.

The client's waits are scaled by 0.001 (the production policy waits at least 60 s after a 429):
"429 waits" is the scaled sleep the completed runs recorded. ``--first N`` runs the season's first N
nights only; ``--stride K`` every K-th night (tests/sim/test_soak.py runs the small demo with a stride).

The last line is exactly ``nights=N kills=K lost=L duplicated=D differing_tables=T``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from pipeline.cli import prefect_env  # noqa: E402

# Prefect reads its settings at import: a throwaway home, quiet, no telemetry (as tests/conftest.py)
prefect_env.isolate("bench-soak-prefect-")

from kits import soakkit  # noqa: E402
from pipeline.inputs.config import load_config  # noqa: E402


def build_demo(out: Path) -> Path:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline", "demo", "--out", str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    if proc.returncode != 0:
        raise SystemExit(f"antichess-td demo failed: {proc.stderr[-2000:]}")
    print(f"default demo written in {time.perf_counter() - start:.0f} s", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--demo", type=Path, help="a folder `antichess-td demo` wrote (default: write one)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the faults and the kill moments")
    ap.add_argument("--first", type=int, default=0, help="run the season's first N nights only (0: all)")
    ap.add_argument("--stride", type=int, default=1, help="every K-th night of the season")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-soak-") as tmp:
        tmp_path = Path(tmp)
        demo = args.demo if args.demo else build_demo(tmp_path / "demo")
        season = soakkit.season_nights(load_config(demo / "tournament.toml"))
        nights = season[:: args.stride]
        if args.first:
            nights = nights[: args.first]
        print(
            f"season: {len(season)} nights, {season[0]:%Y-%m-%d} to {season[-1]:%Y-%m-%d}; "
            f"running {len(nights)}" + (" (a prefix)" if len(nights) < len(season[:: args.stride]) else ""),
            flush=True,
        )

        def progress(which: str, i: int, night: soakkit.Night) -> None:
            kill = ", killed and rerun" if night.killed else ""
            print(
                f"  {which} night {i + 1} {night.at:%Y-%m-%d}: {night.requests} requests, "
                f"{sum(night.injected.values())} failed{kill}, {night.wall_s:.1f} s",
                flush=True,
            )

        from prefect.settings import PREFECT_API_URL, PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings
        from prefect.testing.utilities import prefect_test_harness

        t0 = time.perf_counter()
        with (
            prefect_test_harness(server_startup_timeout=120),
            temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}),
        ):
            print(f"Prefect test server up in {time.perf_counter() - t0:.1f} s", flush=True)
            start = time.perf_counter()
            result = soakkit.soak(
                demo, tmp_path / "soak", str(PREFECT_API_URL.value()), args.seed, nights, on_night=progress
            )
            wall = time.perf_counter() - start

    injected = result.injected
    rows = [
        ("nights", f"{len(result.nights)} ({result.nights[0].at:%Y-%m-%d} to {result.nights[-1].at:%Y-%m-%d})"),
        ("runs (killed ones included)", str(sum(n.runs for n in result.nights))),
        ("kills landed", f"{result.kills} of {len(result.nights) // soakkit.KILL_EVERY} kill nights"),
        ("requests served", f"{result.requests:,}"),
        ("failed on purpose: 429 / 502", f"{injected.get('429', 0):,} / {injected.get('5xx', 0):,}"),
        ("retries (completed runs)", f"{result.retries:,}"),
        ("429 waits (completed runs)", f"{result.waited_429_s:.2f} s (x 1000 at production waits)"),
        (
            "wall: soaked nights / clean nights",
            f"{sum(n.wall_s for n in result.nights):.0f} s / "
            f"{sum(n.wall_s for n in result.clean):.0f} s (in all, with the single run: {wall:.0f} s)",
        ),
        ("requests of the clean nights", f"{sum(n.requests for n in result.clean):,}"),
        ("lost / duplicated", f"{result.lost} / {result.duplicated}"),
        (
            "tables equal",
            f"{result.tables - len(result.differing_tables)} of {result.tables}"
            + (": differing " + ", ".join(result.differing_tables) if result.differing_tables else ""),
        ),
    ]
    if result.single_differing is not None:
        rows.append(
            (
                "against one nightly at the last night",
                f"{result.single_s:.1f} s; differing (by design, tests/kits/soakkit.py): "
                + (", ".join(result.single_differing) or "none"),
            )
        )
    width = max(len(k) for k, _ in rows)
    print()
    for k, v in rows:
        print(f"| {k.ljust(width)} | {v} |")
    print(result.last_line)


if __name__ == "__main__":
    main()
