"""The TD's input files (docs/td-guide.md): ``teams.csv`` or ``players.csv``, and ``pairings.csv``.

Every error names the file, the line and what was expected, e.g.
``teams.csv line 7: board 6 for player 'foo': expected 1-5``. Lichess names are
case-insensitive: they are stored as ids (lower case) next to the name as written.

Pure: reads files, nothing else.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.errors import InputError
from pipeline.model import Bye, ByeKind, Config, Member, Pairing, Roster, Stage

# lila's username rule: 2-30 characters, letters, digits, _ or -, starting and ending with a letter or digit
USERNAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,28}[A-Za-z0-9]$")
TITLES = ("", "AGM", "ASGM")


BYE_KINDS: tuple[ByeKind, ...] = ("pab", "half", "zero", "full")


def _rows(path: Path, required: tuple[str, ...], optional: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line number, row) with stripped values; check the header first."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(path, "", "file not found") from None
    except UnicodeDecodeError as e:
        raise InputError(path, "", f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    if not text.strip():
        raise InputError(path, "line 1", f"empty file: expected a header row with {', '.join(required)}")
    reader = csv.reader(text.splitlines(keepends=True))
    header = [h.strip().lower() for h in next(reader)]
    seen: set[str] = set()
    for h in header:
        if h in seen:
            raise InputError(path, "line 1", f"column {h!r} appears twice in the header")
        seen.add(h)
    missing = [c for c in required if c not in header]
    if missing and len(header) == 1:
        _check_separator(path, text.splitlines()[0], required + optional)
    if missing:
        raise InputError(
            path, "line 1", f"missing column {missing[0]!r}: expected columns {', '.join(required + optional)}"
        )
    unknown = [h for h in header if h not in required + optional]
    if unknown:
        raise InputError(
            path, "line 1", f"unknown column {unknown[0]!r}: expected columns {', '.join(required + optional)}"
        )
    for row in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise InputError(path, f"line {line}", f"{len(row)} fields: expected {len(header)} ({', '.join(header)})")
        yield line, {h: cell.strip() for h, cell in zip(header, row, strict=False)}


SEPARATORS = {";": "';'", "\t": "tabs"}


def _check_separator(path: Path, first_line: str, expected: tuple[str, ...]) -> None:
    """A header read as one column that another separator splits: a spreadsheet set to a locale
    whose CSV uses ';' (or a tab-separated export). Say so, and the fix, instead of the first
    missing column."""
    for sep, name in SEPARATORS.items():
        if len(first_line.split(sep)) > 1:
            raise InputError(
                path,
                "line 1",
                f"the columns are separated by {name}: save the file as CSV with "
                f"commas between the columns (expected columns {', '.join(expected)})",
            )


def _username(path: Path, line: int, value: str, column: str) -> str:
    if not USERNAME.match(value):
        raise InputError(
            path,
            f"line {line}",
            f"{column} {value!r}: expected a Lichess username "
            "(2-30 letters, digits, _ or -, starting and ending with a letter or digit)",
        )
    return value


def read_teams(path: Path, boards: int) -> Roster:
    """teams.csv(team, player, board, title, captain): boards 1..N, N+1 for the substitute (TEAM-COMP-5)."""
    members: list[Member] = []
    spelling: dict[str, tuple[str, int]] = {}  # lower-cased team name → (as first written, its first line)
    seen = _TeamsSeen()
    for line, row in _rows(path, ("team", "player", "board"), ("title", "captain")):
        member = _team_member(path, line, row, boards, spelling)
        seen.add(path, line, member)
        members.append(member)
    for team, first_line in spelling.values():
        for b in range(1, boards + 1):
            if (team, b) not in seen.seats:
                raise InputError(
                    path, f"line {first_line}", f"team {team!r} has no player on board {b}: expected boards 1-{boards}"
                )
    if not members:
        raise InputError(path, "line 2", "no teams: expected at least one row")
    return Roster(tuple(members))


def _team_member(
    path: Path, line: int, row: dict[str, str], boards: int, spelling: dict[str, tuple[str, int]]
) -> Member:
    """One teams.csv row on its own: the team's spelling, the player's name, board, title, captain."""
    team = row["team"]
    if not team:
        raise InputError(path, f"line {line}", "empty team: expected a team name")
    first = spelling.setdefault(team.lower(), (team, line))
    if first[0] != team:
        raise InputError(
            path,
            f"line {line}",
            f"team {team!r} is written {first[0]!r} on line {first[1]}: "
            "expected one spelling per team (names are case-insensitive)",
        )
    name = _username(path, line, row["player"], "player")
    try:
        board = int(row["board"])
    except ValueError:
        board = -1
    if not 1 <= board <= boards + 1:
        raise InputError(path, f"line {line}", f"board {row['board']!r} for player {name!r}: expected 1-{boards + 1}")
    title = row.get("title", "").upper()
    if title not in TITLES:
        raise InputError(
            path, f"line {line}", f"title {row.get('title')!r} for player {name!r}: expected AGM, ASGM or empty"
        )
    captain = row.get("captain", "").lower()
    if captain not in ("", "yes"):
        raise InputError(
            path, f"line {line}", f"captain {row.get('captain')!r} for player {name!r}: expected yes or empty"
        )
    return Member(team, name.lower(), name, board, title, captain == "yes")


@dataclass
class _TeamsSeen:
    """What the rows so far registered: each player once (TEAM-ELIG-8), each board of a team once,
    one captain per team (TEAM-COMP-8); values are (line, team) and lines."""

    players: dict[str, tuple[int, str]] = field(default_factory=dict)
    seats: dict[tuple[str, int], int] = field(default_factory=dict)
    captains: dict[str, tuple[str, int]] = field(default_factory=dict)

    def add(self, path: Path, line: int, m: Member) -> None:
        problem = self._conflict(m)
        if problem:
            raise InputError(path, f"line {line}", problem)
        if m.is_captain:
            self.captains[m.entrant] = (m.player_name, line)
        self.players[m.player_id] = (line, m.entrant)
        self.seats[m.entrant, m.board] = line

    def _conflict(self, m: Member) -> str | None:
        """What `m`'s row contradicts in the rows so far, in a sentence (None: nothing)."""
        if m.player_id in self.players:
            first_line, first_team = self.players[m.player_id]
            return (
                f"player {m.player_name!r} is already listed on line {first_line} (team {first_team!r}): "
                "expected each player once (TEAM-ELIG-8)"
            )
        if (m.entrant, m.board) in self.seats:
            return (
                f"team {m.entrant!r} board {m.board} is already taken on line {self.seats[m.entrant, m.board]}: "
                "expected one player per board"
            )
        if m.is_captain and m.entrant in self.captains:
            other, other_line = self.captains[m.entrant]
            return (
                f"{m.player_name!r} is a second captain of team {m.entrant!r} ({other!r} on line {other_line}): "
                "expected one captain per team (TEAM-COMP-8)"
            )
        return None


def read_players(path: Path) -> Roster:
    """players.csv(player, seed_rating) for individual events; the entrant is the player id."""
    members: list[Member] = []
    seen: dict[str, int] = {}
    for line, row in _rows(path, ("player",), ("seed_rating",)):
        name = _username(path, line, row["player"], "player")
        pid = name.lower()
        if pid in seen:
            raise InputError(
                path,
                f"line {line}",
                f"player {name!r} is already listed on line {seen[pid]}: expected each player once",
            )
        seen[pid] = line
        seed = row.get("seed_rating", "")
        try:
            seed_rating = int(seed) if seed else None
        except ValueError:
            raise InputError(
                path, f"line {line}", f"seed_rating {seed!r} for player {name!r}: expected a whole number or empty"
            ) from None
        members.append(Member(pid, pid, name, 1, "", False, seed_rating))
    if not members:
        raise InputError(path, "line 2", "no players: expected at least one row")
    return Roster(tuple(members))


def read_roster(config: Config) -> Roster:
    if config.kind == "team":
        assert config.paths.teams is not None
        return read_teams(config.paths.teams, config.boards)
    assert config.paths.players is not None
    return read_players(config.paths.players)


def _instant(path: Path, line: int, column: str, value: str) -> dt.datetime | None:
    if not value:
        return None
    try:
        t = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        t = None
    if t is None or t.tzinfo is None:
        raise InputError(path, f"line {line}", f"{column} {value!r}: expected a UTC time such as 2026-01-06T00:00:00Z")
    return t.astimezone(dt.UTC)


def read_pairings(path: Path, config: Config, roster: Roster) -> tuple[Pairing, ...]:
    """pairings.csv's pairings (its byes: :func:`read_schedule`)."""
    return read_schedule(path, config, roster)[0]


def read_schedule(path: Path, config: Config, roster: Roster) -> tuple[tuple[Pairing, ...], tuple[Bye, ...]]:
    """pairings.csv(stage, round, a, b, window_start, window_end, bye); windows are [start, end).

    A row with an empty ``b`` is a bye for ``a`` (swiss and round-robin stages only): ``bye``
    names its kind (pab, the default; full; half; zero) and must be empty on a paired row."""
    stages = {s.name: s for s in config.stages}
    entrants = {e.lower(): e for e in roster.entrants}
    out: list[Pairing] = []
    byes: list[Bye] = []
    busy: dict[tuple[str, int, str], int] = {}  # (stage, round, entrant) → the line pairing it
    for line, row in _rows(path, ("stage", "round", "a", "b"), ("window_start", "window_end", "bye")):
        r = _PairingsRow(path, line, *_stage_round(path, line, row, stages), row)
        bye_kind = row.get("bye", "").lower()
        if not row["b"]:
            byes.append(_bye(r, config, entrants, bye_kind, busy))
            continue
        if bye_kind:
            raise r.error(f"bye {row['bye']!r} on a paired row: expected an empty b for a bye, or an empty bye column")
        a, b = _paired(r, config, entrants, busy, byes)
        start, end = _window(r)
        out.append(Pairing(r.stage.name, r.rnd, a, b, start, end, line))
    _check_overlaps(path, out)
    _check_pabs(path, stages, out, byes)
    return tuple(out), tuple(byes)


def _stage_round(path: Path, line: int, row: dict[str, str], stages: dict[str, Stage]) -> tuple[Stage, int]:
    """The row's stage (one of the config's) and round (1..the stage's rounds)."""
    stage = stages.get(row["stage"])
    if stage is None:
        raise InputError(path, f"line {line}", f"stage {row['stage']!r}: expected one of {', '.join(stages)}")
    try:
        rnd = int(row["round"])
    except ValueError:
        rnd = 0
    if not 1 <= rnd <= stage.rounds:
        raise InputError(
            path, f"line {line}", f"round {row['round']!r}: expected 1-{stage.rounds} for stage {stage.name!r}"
        )
    return stage, rnd


@dataclass(frozen=True)
class _PairingsRow:
    """One pairings.csv row being read: where it is, its stage and round (checked), its cells."""

    path: Path
    line: int
    stage: Stage
    rnd: int
    cells: dict[str, str]

    def error(self, problem: str) -> InputError:
        return InputError(self.path, f"line {self.line}", problem)


def _paired(
    r: _PairingsRow, config: Config, entrants: dict[str, str], busy: dict[tuple[str, int, str], int], byes: list[Bye]
) -> tuple[str, str]:
    """A row's two entrants: registered, different, and not yet paired (or given a bye) in the round."""
    a, b = (_entrant(r, config, col, entrants) for col in ("a", "b"))
    if a == b:
        raise r.error(f"{a!r} is paired with itself: expected two different entrants")
    for e in (a, b):
        _take_round(r, e, busy, byes)
    return a, b


def _entrant(r: _PairingsRow, config: Config, col: str, entrants: dict[str, str]) -> str:
    """The registered team or player the row's column `col` names."""
    e = entrants.get(r.cells[col].lower())
    if e is None:
        kind = "team" if config.kind == "team" else "player"
        raise r.error(f"{col} {r.cells[col]!r}: expected a registered {kind}")
    return e


def _take_round(r: _PairingsRow, e: str, busy: dict[tuple[str, int, str], int], byes: Sequence[Bye]) -> None:
    """Book `e`'s round for the row: refused where an earlier line paired it (or, among `byes`,
    gave it a bye) in the round."""
    earlier = busy.get((r.stage.name, r.rnd, e))
    if earlier is not None:
        if any(x.line == earlier for x in byes):
            raise r.error(
                f"{e!r} has a bye in {r.stage.name} round {r.rnd} on line {earlier}: "
                "expected a bye or a pairing in a round, not both"
            )
        raise r.error(
            f"{e!r} is already paired in {r.stage.name} round {r.rnd} on line {earlier}: expected one pairing per round"
        )
    busy[r.stage.name, r.rnd, e] = r.line


def _window(r: _PairingsRow) -> tuple[dt.datetime, dt.datetime]:
    """The row's window, each end defaulting to the stage's round window (TEAM-FMT-3)."""
    start = _instant(r.path, r.line, "window_start", r.cells.get("window_start", ""))
    end = _instant(r.path, r.line, "window_end", r.cells.get("window_end", ""))
    default = r.stage.round_window(r.rnd)
    if start is None or end is None:
        if default is None:
            raise r.error(
                f"no round window: expected window_start and window_end, or stages.{r.stage.name}.first_round_start "
                "in the config"
            )
        start, end = start or default[0], end or default[1]
    if end <= start:
        raise r.error(f"window_end {end.isoformat()} is not after window_start {start.isoformat()}")
    return start, end


def _check_pabs(path: Path, stages: dict[str, Stage], pairings: list[Pairing], byes: list[Bye]) -> None:
    """Pairing-allocated byes: a round's field is the entrants it pairs or gives a pab (requested
    byes and entrants not listed in the round, e.g. withdrawn, are outside it). Only an odd field
    needs a pab, and exactly one, so a second pab in a round (an even field) is refused; in a
    round-robin stage each pool (the entrants the stage's pairings make play each other) is its
    own field. A Swiss gives an entrant at most one pab in a stage; a round robin's bye rotates
    with its schedule, so there it is not limited."""
    pool = _pools(pairings)
    fields: dict[tuple[str, int, str], int] = defaultdict(int)
    for p in pairings:
        for e in (p.a, p.b):
            fields[p.stage, p.round, _pool_of(stages[p.stage], pool, e)] += 1
    pabs = sorted((b for b in byes if b.kind == "pab"), key=lambda b: b.line)
    for b in pabs:
        fields[b.stage, b.round, _pool_of(stages[b.stage], pool, b.entrant)] += 1
    first_in_round: dict[tuple[str, int, str], Bye] = {}
    first_of_entrant: dict[tuple[str, str], Bye] = {}
    for b in pabs:
        key = (b.stage, b.round, _pool_of(stages[b.stage], pool, b.entrant))
        other = first_in_round.setdefault(key, b)
        if other is not b:
            raise InputError(
                path,
                f"line {b.line}",
                (
                    f"{b.entrant!r} has a second pairing-allocated bye in {b.stage} round {b.round} ({other.entrant!r} on line "
                    f"{other.line}): expected at most one a round, for the odd entrant out ({fields[key]} entrants with a pairing "
                    "or a pab make an even field, which needs none; a requested bye goes in the bye column: half, zero or full)"
                ),
            )
        if stages[b.stage].kind != "swiss":
            continue
        earlier = first_of_entrant.setdefault((b.stage, b.entrant), b)
        if earlier is not b:
            raise InputError(
                path,
                f"line {b.line}",
                (
                    f"{b.entrant!r} has a second pairing-allocated bye in {b.stage} (round {earlier.round} on line {earlier.line}): "
                    "expected at most one per entrant in a stage (a requested bye goes in the bye column: half, zero or full)"
                ),
            )


def _pools(pairings: list[Pairing]) -> dict[tuple[str, str], str]:
    """(stage, entrant) → a representative of the group of entrants the stage's pairings connect."""
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def root(k: tuple[str, str]) -> tuple[str, str]:
        parent.setdefault(k, k)
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for p in pairings:
        parent[root((p.stage, p.a))] = root((p.stage, p.b))
    return {k: root(k)[1] for k in list(parent)}


def _pool_of(stage: Stage, pools: dict[tuple[str, str], str], entrant: str) -> str:
    """The field an entrant is paired in: the whole stage, or its pool in a round robin."""
    return pools.get((stage.name, entrant), entrant) if stage.kind == "round_robin" else ""


def _check_overlaps(path: Path, pairings: list[Pairing]) -> None:
    """Games are found by opponent and window (TEAM-FMT-3), so two pairings of the same two
    entrants (a rematch, in any stage) must have windows that do not overlap: a game in the
    overlap would belong to both. Other overlaps are a TD's extension of a late match and fine."""
    seen: dict[frozenset[str], list[Pairing]] = {}
    for p in sorted(pairings, key=lambda p: p.line):
        for q in seen.get(frozenset((p.a, p.b)), []):
            if p.window_start < q.window_end and q.window_start < p.window_end:
                raise InputError(
                    path,
                    f"line {p.line}",
                    (
                        f"{p.a!r} v {p.b!r} in {p.stage} round {p.round} [{_iso(p.window_start)}, {_iso(p.window_end)}) "
                        f"overlaps their {q.stage} round {q.round} [{_iso(q.window_start)}, {_iso(q.window_end)}) on line "
                        f"{q.line}: expected the windows of a rematch not to overlap (a game in both could count twice)"
                    ),
                )
        seen.setdefault(frozenset((p.a, p.b)), []).append(p)


def _iso(t: dt.datetime) -> str:
    return t.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def _bye(
    r: _PairingsRow, config: Config, entrants: dict[str, str], kind: str, busy: dict[tuple[str, int, str], int]
) -> Bye:
    """A row with an empty b: a bye for a (see :class:`Bye`)."""
    if r.stage.kind == "knockout":
        raise r.error(
            f"an empty b in knockout stage {r.stage.name!r}: expected the opponent "
            "(byes are for swiss and round-robin stages)"
        )
    e = _entrant(r, config, "a", entrants)
    bye_kind = next((k for k in BYE_KINDS if k == (kind or "pab")), None)
    if bye_kind is None:
        raise r.error(f"bye {r.cells['bye']!r}: expected one of {', '.join(BYE_KINDS)} (or empty: pab)")
    if r.cells.get("window_start") or r.cells.get("window_end"):
        raise r.error("a bye has no games: expected empty window_start and window_end")
    _take_round(r, e, busy, ())  # a second bye is "already paired"
    return Bye(r.stage.name, r.rnd, e, bye_kind, r.line)
