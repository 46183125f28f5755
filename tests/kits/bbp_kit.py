"""bbpPairings' generated tournaments as pairing inputs, shared by the differential test
(tests/domain/test_pairing_bbp.py) and the maintainer script that makes the fixtures
(tests/data/pairing/generate.py): one tournament's TRF cut before a round, and the engine's answers.

The cut before round ``r`` is what a TD has entered before pairing round ``r``: every round before
it, and of round ``r`` only the byes the entrant asked for (``H`` half-point, ``F`` full-point,
``Z`` zero-point: bbpPairings' generator marks a retired round as ``Z`` too), which keep the
entrant out of the pairing. Round ``r``'s games and its pairing-allocated bye (``U``) are removed.
The points column is the sum over the kept rounds before ``r``; ``XXR`` gives the tournament's
number of rounds (the generated file has none) and ``XXC`` round 1's initial colour (the engine
asks for it when no round has been played).
"""

from __future__ import annotations

from pathlib import Path

BBP_RANDOM = Path(__file__).resolve().parents[1] / "data" / "pairing" / "bbp_random"
REQUESTED = {"H", "F", "Z"}
_POINTS = {"1": 1.0, "=": 0.5, "+": 1.0, "W": 1.0, "D": 0.5, "U": 1.0, "F": 1.0, "H": 0.5}


def lines_of(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def rounds_of(text: str) -> int:
    """The number of rounds in a generated TRF: the longest 001 line's blocks."""
    return max((len(ln) - 91 + 9) // 10 for ln in lines_of(text) if ln.startswith("001"))


def initial_colour(text: str) -> str:
    """The generated round 1's initial colour (bbpPairings' ``XXC white1``/``black1``): the colour
    of the lowest-numbered entrant who played round 1 (the top of round 1's pairing numbers among
    those present takes the initial colour, FIDE C.04.3 E.5)."""
    for ln in lines_of(text):
        if ln.startswith("001") and ln[91:95].strip() not in ("", "0000"):
            return "white" if ln[96:97] == "w" else "black"
    return "white"


def cut(text: str, before: int) -> str:
    """The TRF as a TD has it before pairing round ``before`` (see the module docstring)."""
    total = rounds_of(text)
    out: list[str] = []
    for ln in lines_of(text):
        if ln.startswith("XXR"):
            continue
        if not ln.startswith("001"):
            if ln.strip():
                out.append(ln)
            continue
        head, rest = ln[:91], ln[91:]
        blocks = [rest[i : i + 10] for i in range(0, len(rest), 10)]
        kept = blocks[: before - 1]
        points = sum(_POINTS.get(b[7:8], 0.0) for b in kept if b.strip())
        if len(blocks) >= before and blocks[before - 1][:4] == "0000" and blocks[before - 1][7:8] in REQUESTED:
            kept.append(blocks[before - 1])
        head = f"{head[:80]}{points:>4.1f}{head[84:]}"
        out.append((head + "".join(kept)).rstrip())
    out.append(f"XXR {total}")
    out.append(f"XXC {initial_colour(text)}1")
    return "\n".join(out) + "\n"


def read_answers(path: Path) -> dict[int, list[tuple[int, int]]]:
    """The engine's answers file: ``round N`` then its ``-p`` output (number of pairs, then
    ``white black`` per line, 0 for the pairing-allocated bye)."""
    answers: dict[int, list[tuple[int, int]]] = {}
    current: list[int] = []
    rnd = 0
    for ln in [*path.read_text().splitlines(), "round 0"]:
        if ln.startswith("round "):
            if rnd:
                count, rest = current[0], current[1:]
                assert len(rest) == 2 * count, (path, rnd)
                answers[rnd] = list(zip(rest[::2], rest[1::2], strict=True))
            rnd, current = int(ln.split()[1]), []
        elif ln.strip():
            current.extend(int(x) for x in ln.split())
    return answers
