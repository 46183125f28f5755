"""Fault-injection benchmark: does any failure Lichess produces lose or duplicate a game?

    python benchmarks/faults.py [--seeds 3] [--scale 0.001] [--kills 3]

Every scenario runs the real path: the replay server on 127.0.0.1 injecting one kind of failure
→ berserk → DuckDB file, or the real CLI (``python -m pipeline ingest`` / ``nightly``) in a
subprocess killed with SIGKILL at seeded random moments within an undisturbed run's measured
duration, then rerun to completion. Each disturbed database is judged against an undisturbed run
of the same data (tests/kits/faultkit.py): lost game ids, rows duplicated per key, every table's
(row count, row-hash sum), requests beyond the undisturbed run's, and seconds slept by the
client's retry policy.

Data: the ``tests/data/season`` dataset (41 players, 1,206 games) for the HTTP faults and the
ingest kills; the skeleton tournament (8 players, 37 games, throttled to 15 games/s so a kill
can land in any stage) for the nightly kills, under a throwaway Prefect test server.

Waits are scaled: the production policy waits at least 60 s after a 429 (doubling, capped at
600 s) and backs off 2 s (doubling) after a 5xx or a broken connection, 5 retries; here every
wait is multiplied by ``--scale`` (Retry-After 0), so "time waited" is the scaled sleep and
"at production waits" that sum divided by the scale. A request that still fails after its 5
retries fails the fetch, which is rerun from its cursors as the nightly flow's task retries do:
each rerun counts in "runs" (back-to-back 5xx bursts join into 8 failures in a row, more than
5 retries). The client timeout is 0.5 s and stalls last 1 s: a stall costs the client its timeout,
seen in "wall", not in "time waited". "wall (undisturbed)": the scenario's runs against the
undisturbed runs they are judged by (for the kills: killed runs and the rerun against one run).

Then what the machine does (tests/kits/machinekit.py, on the skeleton under the same Prefect server):
the working database cut short at a seeded random byte, or deleted, between two nights (the
next night moves the damaged file aside and starts from the published snapshot); the disk
filling at a seeded random moment of a night (a 160 MB tmpfs; the scenario is left out, saying
why, where none can be mounted), then the space freed and the night rerun; SIGTERM at seeded
random moments (each run must end within 5 s), then rerun; Prefect's server unavailable (refused,
silent, answering 503, or healthy but failing: the nightly goes on without Prefect).

The last line is exactly ``scenarios=N lost=L duplicated=D``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from pipeline.cli import prefect_env  # noqa: E402

# Prefect reads its settings at import: a throwaway home, quiet, no telemetry (as tests/conftest.py)
prefect_env.isolate("bench-faults-prefect-")

from kits import faultkit, machinekit  # noqa: E402
from pipeline.sim import replay  # noqa: E402

SKELETON = ROOT / "tests" / "data" / "skeleton"
TIMEOUT_S = 0.5

HTTP_SCENARIOS = [
    ("429 on 30% of requests", lambda seed: replay.Faults(rate_429=0.3, retry_after_s=0, seed=seed)),
    ("5xx on 30% of requests", lambda seed: replay.Faults(rate_5xx=0.3, seed=seed)),
    (
        "5xx bursts of 4 (5% of requests start one)",
        lambda seed: replay.Faults(burst_5xx=4, rate_5xx_burst=0.05, seed=seed),
    ),
    ("half the streams cut at a random byte", lambda seed: replay.Faults(rate_cut=0.5, seed=seed)),
    (
        "a fifth of the streams stall 1 s > 0.5 s timeout",
        lambda seed: replay.Faults(rate_stall=0.2, stall_s=1.0, seed=seed),
    ),
]


def machine_scenarios(tmp_path: Path, api: str, seeds: int) -> list[faultkit.Outcome]:
    """What the machine does (tests/kits/machinekit.py): the working database cut short at a random
    byte or deleted between two nights, the disk filling at a random moment of a night (on a small
    tmpfs; left out, saying why, where none can be mounted), SIGTERM at random moments."""

    def skeleton(name: str) -> Path:
        dest = tmp_path / name / "skeleton"
        shutil.copytree(SKELETON, dest, ignore=shutil.ignore_patterns("out", "make_dataset.py"))
        return dest

    outcomes = []
    for how, name in machinekit.DAMAGE_SCENARIOS.items():
        total = faultkit.Outcome(name)
        for seed in range(1, seeds + 1):
            runs = tmp_path / f"{how}-{seed}-runs"
            total.add(machinekit.damaged_work_scenario(skeleton(f"{how}-{seed}"), runs, api, seed, how).outcome)
        outcomes.append(total)
        print(f"  {name}: {total.wall_s:.1f} s", flush=True)
    total = faultkit.Outcome("disk full at a random moment")
    for seed in range(1, seeds + 1):
        full = machinekit.disk_full_scenario(skeleton(f"full-{seed}"), tmp_path / f"full-{seed}-runs", api, seed)
        if isinstance(full, str):
            print(f"  disk full: left out: {full}", flush=True)
            break
        total.add(full.outcome)
    else:
        outcomes.append(total)
        print(f"  {total.scenario}: {total.injected.get('disk full', 0)} runs hit it, {total.wall_s:.1f} s", flush=True)
    total = faultkit.Outcome("SIGTERM at random moments, then rerun")
    slowest = 0.0
    for seed in range(1, seeds + 1):
        out, stops = machinekit.term_nightly_scenario(skeleton(f"term-{seed}"), api, seed)
        total.add(out)
        slowest = max([slowest, *stops])
    outcomes.append(total)
    print(
        f"  {total.scenario}: {total.injected.get('sigterm', 0)} stops, the slowest ended {slowest:.1f} s after "
        f"its signal, {total.wall_s:.1f} s",
        flush=True,
    )
    return outcomes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=3, help="seeded repetitions of every scenario")
    ap.add_argument("--scale", type=float, default=0.001, help="multiplier of every production wait")
    ap.add_argument("--kills", type=int, default=3, help="SIGKILLs per kill sequence before the rerun")
    args = ap.parse_args()
    policy = faultkit.scaled_policy(args.scale)
    dataset = replay.Dataset.load(faultkit.SEASON)
    outcomes: list[faultkit.Outcome] = []

    with tempfile.TemporaryDirectory(prefix="bench-faults-") as tmp:
        tmp_path = Path(tmp)
        ref = faultkit.reference_ingest(dataset, tmp_path / "ref.duckdb")
        print(f"undisturbed ingest: {len(dataset.games)} games, {ref.requests} requests, {ref.wall_s:.2f} s")
        for name, faults in HTTP_SCENARIOS:
            total = faultkit.Outcome(name)
            for seed in range(1, args.seeds + 1):
                path = tmp_path / f"{len(outcomes)}-{seed}.duckdb"
                total.add(faultkit.ingest_scenario(name, dataset, ref, path, faults(seed), policy, TIMEOUT_S))
            outcomes.append(total)
            print(f"  {name}: injected {total.injected}, {total.wall_s:.1f} s", flush=True)

        name = "kill -9 of ingest, then rerun"
        total = faultkit.Outcome(name)
        for seed in range(1, args.seeds + 1):
            out, _ = faultkit.kill_ingest_scenario(dataset, tmp_path / f"kill-ingest-{seed}", seed, kills=args.kills)
            total.add(out)
        outcomes.append(total)
        print(f"  {name}: {total.injected.get('kill', 0)} kills in {total.runs} runs, {total.wall_s:.1f} s", flush=True)

        from prefect.settings import PREFECT_API_URL, PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings
        from prefect.testing.utilities import prefect_test_harness

        t0 = time.perf_counter()
        with (
            prefect_test_harness(server_startup_timeout=120),
            temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}),
        ):
            api = str(PREFECT_API_URL.value())
            print(f"Prefect test server up in {time.perf_counter() - t0:.1f} s", flush=True)
            name = "kill -9 of nightly, then rerun"
            total = faultkit.Outcome(name)
            for seed in range(1, args.seeds + 1):
                sk = tmp_path / f"kill-nightly-{seed}" / "skeleton"
                shutil.copytree(SKELETON, sk, ignore=shutil.ignore_patterns("out", "make_dataset.py"))
                out, _ = faultkit.kill_nightly_scenario(sk, api, seed, kills=args.kills)
                total.add(out)
            outcomes.append(total)
            print(
                f"  {name}: {total.injected.get('kill', 0)} kills in {total.runs} runs, {total.wall_s:.1f} s",
                flush=True,
            )
            outcomes += machine_scenarios(tmp_path, api, args.seeds)
            name = "Prefect's server unavailable"
            total = faultkit.Outcome(name)
            for seed in range(1, args.seeds + 1):
                sk = tmp_path / f"prefect-down-{seed}" / "skeleton"
                shutil.copytree(SKELETON, sk, ignore=shutil.ignore_patterns("out", "make_dataset.py"))
                total.add(faultkit.prefect_down_scenario(sk, api, seed))
            outcomes.append(total)
            print(f"  {name}: {total.injected}, {total.wall_s:.1f} s", flush=True)

    print()
    print(
        f"waits x {args.scale:g} (production: >= 60 s after a 429, 2 s backoff after a 5xx; 5 retries); "
        f"{args.seeds} seeds per scenario"
    )
    head = (
        "scenario",
        "runs",
        "lost",
        "duplicated",
        "extra requests",
        "time waited",
        "at production waits",
        "wall (undisturbed)",
        "tables equal",
    )
    rows = [
        (
            o.scenario,
            str(o.runs),
            str(o.lost),
            str(o.duplicated),
            str(o.extra_requests) if o.requests_counted else "not counted",
            f"{o.waited_s:.2f} s",
            f"{o.waited_s / args.scale:,.0f} s",
            f"{o.wall_s:.1f} s ({o.reference_wall_s:.1f} s)",
            "yes" if not o.differing_tables else "NO: " + ", ".join(o.differing_tables),
        )
        for o in outcomes
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, tuple("-" * w for w in widths), *rows]:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |")
    lost = sum(o.lost for o in outcomes)
    dup = sum(o.duplicated for o in outcomes)
    unequal = sum(1 for o in outcomes if o.differing_tables)
    print(f"scenarios={len(outcomes)} lost={lost} duplicated={dup}" + (f" unequal={unequal}" if unequal else ""))


if __name__ == "__main__":
    main()
