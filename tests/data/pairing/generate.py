"""Maintainer tool: make the bbpPairings differential fixtures in bbp_random/ (not run by tests;
it needs the engine's binary, which a clone of the project does not have).

    PYTHONPATH=. python tests/data/pairing/generate.py /path/to/bbpPairings.exe

For tournament k = 0..219 the config comes from ``random.Random(k)`` (see ``config``): 6-80
players (odd and even), 3-11 rounds (fewer than the players), draws, forfeits, retirements
(bbpPairings writes a retired round as a ``Z`` bye) and requested half-point byes, each rate
"1 in N". The engine generates the tournament, every round paired by itself:

    bbpPairings.exe --dutch -g tKKK.cfg -o tKKK.trf -s (1000 + k)

(if it cannot, the seed goes up by 100000 until it can). Then for every round r the file is cut
before r (tests/kits/bbp_kit.py: ``cut``) and paired again:

    bbpPairings.exe --dutch cut.trf -p out.txt

Stored: ``tKKK.trf`` as generated (bare CR line ends), ``tKKK.answers.txt`` (``round r`` then the
``-p`` answer, for every round). The script checks each answer against round r as generated
(pairs, colours, bye) and prints the rounds that differ.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
from pathlib import Path

from kits.bbp_kit import BBP_RANDOM, cut, lines_of, rounds_of

COUNT = 220


def config(k: int) -> dict[str, int]:
    rng = random.Random(k)
    players = rng.choice([rng.randint(6, 16), rng.randint(6, 30), rng.randint(6, 80)])
    return {
        "PlayersNumber": players,
        "RoundsNumber": rng.randint(3, min(11, players - 1)),
        "DrawPercentage": rng.choice([0, 10, 30, 50]),
        "ForfeitRate": rng.choice([8, 20, 50, 10000]),
        "RetiredRate": rng.choice([15, 40, 100, 10000]),
        "HalfPointByeRate": rng.choice([8, 20, 60, 10000]),
    }


def played_round(text: str, rnd: int) -> list[tuple[int, int]]:
    """Round ``rnd`` of a generated TRF as (white, black) pairs and (n, 0) for the allocated bye."""
    rows = set()
    for ln in lines_of(text):
        if not ln.startswith("001"):
            continue
        block = ln[91 + 10 * (rnd - 1) : 91 + 10 * rnd]
        me, opp, colour, code = int(ln[4:8]), block[0:4].strip(), block[5:6], block[7:8]
        if not opp:
            continue
        if int(opp) == 0:
            if code == "U":
                rows.add((me, 0))
        elif colour == "w":
            rows.add((me, int(opp)))
    return sorted(rows)


def main(exe: str) -> None:
    BBP_RANDOM.mkdir(parents=True, exist_ok=True)
    differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for k in range(COUNT):
            cfg = config(k)
            (work / "c.cfg").write_text("".join(f"{key}={v}\n" for key, v in cfg.items()))
            seed = 1000 + k
            while True:
                run = subprocess.run(
                    [exe, "--dutch", "-g", str(work / "c.cfg"), "-o", str(work / "t.trf"), "-s", str(seed)],
                    capture_output=True,
                )
                if run.returncode == 0 and (work / "t.trf").exists():
                    break
                seed += 100000
            with open(work / "t.trf", newline="") as f:
                text = f.read()
            answers = []
            for rnd in range(1, rounds_of(text) + 1):
                (work / "cut.trf").write_text(cut(text, rnd))
                subprocess.run([exe, "--dutch", str(work / "cut.trf"), "-p", str(work / "out.txt")], check=True)
                answer = (work / "out.txt").read_text()
                numbers = [int(x) for x in answer.split()][1:]
                got = sorted(zip(numbers[::2], numbers[1::2], strict=True))
                if got != played_round(text, rnd):
                    differ += 1
                    print(f"t{k:03d} round {rnd}: the answer on the cut differs from the generated round")
                answers.append(f"round {rnd}\n{answer.strip()}\n")
            (BBP_RANDOM / f"t{k:03d}.trf").write_text(text, newline="")
            (BBP_RANDOM / f"t{k:03d}.answers.txt").write_text("".join(answers))
            print(f"t{k:03d}: seed {seed} {cfg}")
    print(f"{COUNT} tournaments; rounds whose answer differs from the generated round: {differ}")


if __name__ == "__main__":
    main(sys.argv[1])
