"""TRF-16, the FIDE tournament report format that Swiss-Manager, Vega, JaVaFo and bbpPairings read:
writing a Swiss stage (players or, for a team Swiss, teams as entrants) and reading one back.

Pure: text in, values out. A ``001`` line per entrant, fixed columns (FIDE's TRF-16 description):
4-8 starting rank, 15-47 name, 49-52 rating, 81-84 points, 86-89 rank, then from column 92 one
10-character block per round: opponent's starting rank (``0000`` for a bye), colour (``w``/``b``,
``-`` for a bye) and result (``1 0 =`` played; ``+ -`` forfeit; ``U`` pairing-allocated bye, ``F``
full-point, ``H`` half-point, ``Z`` zero-point bye). ``012`` is the name, ``XXR`` the number of
rounds and ``XXC`` round 1's initial colour (``white1``/``black1``; bbpPairings' extensions). Any
line end reads (``\r\n``, ``\n``, or the bare ``\r`` that bbpPairings writes). Points are in win units (a win 1, a draw 0.5): a team Swiss's match
points divided by a match win's value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.domain.dutch import Colour, Entrant, Outcome, Result

_PLAYED = {"1": 1.0, "0": 0.0, "=": 0.5, "W": 1.0, "D": 0.5, "L": 0.0}
_FORFEIT = {"+": 1.0, "-": 0.0}
_BYES: dict[str, tuple[Outcome, float]] = {
    "U": ("pab", 1.0),
    "F": ("full", 1.0),
    "H": ("half", 0.5),
    "Z": ("zero", 0.0),
}
_BYE_CODE = {kind: code for code, (kind, _) in _BYES.items()}


class TrfError(ValueError):
    """A line the reader cannot take; the message names the line."""


@dataclass(frozen=True)
class Block:
    """One round of one entrant: opponent's starting rank (None: a bye), colour, result code."""

    opponent: int | None
    colour: str
    code: str


@dataclass(frozen=True)
class Line:
    number: int
    name: str
    rating: int
    points: float
    rank: int
    rounds: dict[int, Block]


@dataclass(frozen=True)
class Tournament:
    name: str
    total_rounds: int | None
    lines: tuple[Line, ...]
    initial_colour: Colour | None = None  # XXC white1 / black1


def read_trf(text: str, source: str = "TRF") -> Tournament:
    """Parse TRF-16 text (only the records pairing needs: 012, 001, XXR, XXC). ``source`` names
    the text in messages (a file name). A text with no 001 record is an error, not an empty
    tournament."""
    name, total, lines = "", None, []
    initial: Colour | None = None
    for no, raw in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), start=1):
        tag = raw[:3]
        if tag == "012":
            name = raw[4:].strip()
        elif tag == "XXR":
            try:
                total = int(raw[3:].strip())
            except ValueError as e:
                raise TrfError(f"{source}: line {no}: XXR {raw[3:].strip()!r}: expected a number of rounds") from e
        elif tag == "XXC":
            words = raw[3:].split()
            if words and words[0] in ("white1", "black1"):
                initial = "white" if words[0] == "white1" else "black"
        elif tag == "001":
            lines.append(_read_line(source, no, raw))
    if not lines:
        raise TrfError(f"{source}: no 001 line: expected one 001 record per player or team (TRF-16)")
    return Tournament(name, total, tuple(lines), initial)


def _read_line(source: str, no: int, raw: str) -> Line:
    try:
        number = int(raw[4:8])
        rating = int(raw[48:52].strip() or 0)
        points = float(raw[80:84].strip() or 0)
        rank = int(raw[85:89].strip() or 0)
    except ValueError as e:
        raise TrfError(f"{source}: line {no}: {raw[:60]!r}: expected TRF-16's fixed columns (001 record)") from e
    rounds: dict[int, Block] = {}
    rest = raw[91:]
    for i in range(0, len(rest), 10):
        cell = rest[i : i + 10]
        if not cell.strip():
            continue
        opp, colour, code = cell[0:4].strip(), cell[5:6], cell[7:8]
        if not opp.isdigit() or (code not in _PLAYED and code not in _FORFEIT and code not in _BYES and code != " "):
            raise TrfError(f"{source}: line {no}: round {i // 10 + 1}: {cell!r}: expected opponent, colour and result")
        rounds[i // 10 + 1] = Block(int(opp) or None, colour, code)
    return Line(number, raw[14:47].strip(), rating, points, rank, rounds)


def to_history(t: Tournament) -> tuple[list[Entrant], list[Result], int, frozenset[str], Colour]:
    """A read tournament as pairing inputs: entrants in starting-rank order, the played rounds, the
    round to pair next (one after the last round with a pairing), the entrants absent from it (a
    bye already entered for it) and the initial colour: what the lowest starting rank that played
    round 1 had in it, else ``XXC``, else White."""
    by_no = {ln.number: ln for ln in t.lines}
    key = {ln.number: f"{ln.number}" for ln in t.lines}
    entrants = [Entrant(key[ln.number], float(ln.rating)) for ln in sorted(t.lines, key=lambda ln: ln.number)]
    last = max((r for ln in t.lines for r, b in ln.rounds.items() if b.opponent is not None), default=0)
    history: list[Result] = []
    absent: set[str] = set()
    for ln in t.lines:
        for rnd, b in sorted(ln.rounds.items()):
            if b.code == " ":
                continue
            if b.opponent is None:
                if rnd > last:
                    absent.add(key[ln.number])
                    continue
                kind, score = _BYES.get(b.code, ("zero", 0.0))
                history.append(Result(rnd, key[ln.number], None, score, 0.0, kind))
            elif b.colour == "w" or (b.colour != "b" and ln.number < b.opponent):
                other = by_no[b.opponent].rounds.get(rnd)
                theirs = other.code if other else "0"
                played = b.code in _PLAYED
                outcome: Outcome = "played" if played else "forfeit"
                a_score = _PLAYED.get(b.code, _FORFEIT.get(b.code, 0.0))
                b_score = _PLAYED.get(theirs, _FORFEIT.get(theirs, 0.0))
                history.append(Result(rnd, key[ln.number], key[b.opponent], a_score, b_score, outcome))
    initial: Colour = t.initial_colour or "white"
    first = [ln.rounds[1] for ln in sorted(t.lines, key=lambda ln: ln.number) if 1 in ln.rounds]
    round_one = [b for b in first if b.opponent is not None and b.colour in ("w", "b")]
    if round_one:  # the top of round 1's pairing numbers took the initial colour (FIDE C.04.3 E.5)
        initial = "white" if round_one[0].colour == "w" else "black"
    return entrants, history, last + 1, frozenset(absent), initial


def write_trf(
    name: str,
    entrants: Sequence[Entrant],
    history: Sequence[Result],
    total_rounds: int,
    names: dict[str, str] | None = None,
) -> str:
    """TRF-16 text of a stage: ``entrants`` in starting-rank order (their seeding order), every
    round in ``history`` (scores in win units), ranked by points then starting rank. ``names``
    maps an entrant id to the name shown (default: the id)."""
    number = {e.id: i for i, e in enumerate(entrants, start=1)}
    points = {e.id: 0.0 for e in entrants}
    blocks: dict[str, dict[int, str]] = {e.id: {} for e in entrants}
    for r in history:
        points[r.a] += r.a_score
        if r.b is None:
            blocks[r.a][r.round] = f"0000 - {_BYE_CODE[r.outcome] if r.outcome in _BYE_CODE else 'Z'}"
            continue
        points[r.b] += r.b_score
        codes = (_code(r.a_score, r.b_score, r.outcome), _code(r.b_score, r.a_score, r.outcome))
        blocks[r.a][r.round] = f"{number[r.b]:>4} w {codes[0]}"
        blocks[r.b][r.round] = f"{number[r.a]:>4} b {codes[1]}"
    order = sorted(entrants, key=lambda e: (-points[e.id], number[e.id]))
    rank = {e.id: i for i, e in enumerate(order, start=1)}
    out = [f"012 {name}"]
    for e in entrants:
        shown = (names or {}).get(e.id, e.id)
        head = f"001 {number[e.id]:>4}      {shown[:33]:<33} {round(e.rating):>4}"
        head = f"{head:<80}{points[e.id]:>4.1f} {rank[e.id]:>4}"
        rounds = "".join(f"  {blocks[e.id].get(rnd, '')}".ljust(10) for rnd in range(1, total_rounds + 1))
        out.append((head + rounds).rstrip())
    out.append(f"XXR {total_rounds}")
    return "\n".join(out) + "\n"


def _code(mine: float, theirs: float, outcome: Outcome) -> str:
    if outcome != "played":
        return "+" if mine > theirs else "-"
    return "1" if mine > theirs else "0" if mine < theirs else "="
