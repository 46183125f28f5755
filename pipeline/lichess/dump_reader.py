"""The Lichess open database's monthly dumps of every rated antichess game, read: pure reading, no storing.

Lichess publishes each month's rated antichess games as ``lichess_db_antichess_rated_YYYY-MM.pgn.zst``
(https://database.lichess.org/, a zstd-compressed PGN file; docs/backfill.md). This module is the
adapter for that format, as ``client`` is for the API (pipeline/lichess/dump_backfill.py stores
what it reads):

* :func:`dump_file` checks a file's name and its zstd magic number (a bad one is an InputError);
* :func:`scan_dump` streams the decompressed bytes and picks the games of the registered players
  by their ``[White "..."]`` / ``[Black "..."]`` header lines (:func:`players_games` over 4 MB
  chunks: the games of everyone else are counted and never decoded);
* :func:`parse_dump_game` types one of those games into the same :class:`GameRow` the API's JSON
  gives (:func:`read_dump_game` reads the PGN: its headers, each move against python-chess's SAN
  grammar, the ``[%clk]`` comments; a record with errors is rejected with them).

What the dump cannot say (docs/backfill.md): casual games are not in it; a game still being played
when the dump was cut is written ``Unterminated``;
``created_at`` has whole seconds (UTCDate/UTCTime); ``last_move_at`` is estimated from the clocks;
``status`` comes from ``Termination`` and the board (see :func:`dump_status`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import chess
import zstandard

from pipeline.errors import InputError
from pipeline.lichess.client import GameRow, Winner

DUMP_NAME = re.compile(r"lichess_db_antichess_rated_(\d{4})-(\d{2})\.pgn\.zst")
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
CHUNK = 1 << 22  # decompressed bytes per scan step

_SITE = re.compile(r"https?://lichess\.org/([A-Za-z0-9]{8})")
# the Site tag's game id, read from a record whatever else is wrong with it (not the first lichess.org
# URL: an arena game's Event, which comes first, holds its tournament's)
_SITE_TAG = re.compile(r'^\[Site "https?://lichess\.org/([A-Za-z0-9]{8})"\]', re.MULTILINE)
_CLK = re.compile(r"\[%clk (\d+):(\d\d):(\d\d)\]")
_TIME_CONTROL = re.compile(r"(\d+)\+(\d+)")
_RESULTS: dict[str, Winner | None] = {"1-0": "white", "0-1": "black", "1/2-1/2": None}


@dataclass(frozen=True)
class DumpFile:
    """A dump file whose name and first bytes are Lichess's."""

    path: Path
    month: dt.date  # the first day of the month it holds

    @property
    def end(self) -> dt.datetime:
        """The first instant after its month (UTC)."""
        return month_after(self.month)


def month_after(month: dt.date) -> dt.datetime:
    y, m = (month.year + 1, 1) if month.month == 12 else (month.year, month.month + 1)
    return dt.datetime(y, m, 1, tzinfo=dt.UTC)


def dump_file(path: Path) -> DumpFile:
    """The dump at ``path``, or InputError naming what is wrong with it: its name must be Lichess's
    (``lichess_db_antichess_rated_YYYY-MM.pgn.zst``) and its bytes a zstd frame."""
    found = DUMP_NAME.fullmatch(path.name)
    if found is None:
        raise InputError(path, "", "expected a Lichess antichess dump named lichess_db_antichess_rated_YYYY-MM.pgn.zst")
    year, month = int(found[1]), int(found[2])
    if not 1 <= month <= 12:
        raise InputError(path, "", f"month {found[2]!r}: expected 01-12")
    try:
        with path.open("rb") as fh:
            magic = fh.read(4)
    except FileNotFoundError:
        raise InputError(path, "", "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "", "a folder: expected a .pgn.zst file") from None
    if magic != ZSTD_MAGIC:
        raise InputError(path, "", "not zstd-compressed: expected the .pgn.zst file as Lichess publishes it")
    return DumpFile(path, dt.date(year, month, 1))


def dump_files(paths: Iterable[Path]) -> list[DumpFile]:
    """The dumps in month order; InputError for a bad file, a month given twice or a month missing
    between the first and the last (a cursor after the last month would skip it)."""
    dumps = sorted((dump_file(Path(p)) for p in paths), key=lambda d: d.month)
    for a, b in zip(dumps, dumps[1:], strict=False):
        if a.month == b.month:
            raise InputError(b.path, "", f"month {b.month:%Y-%m} given twice (also {a.path})")
        if month_after(a.month).date() != b.month:
            missing = month_after(a.month).date()
            raise InputError(
                b.path,
                "",
                f"month {missing:%Y-%m} is missing between {a.month:%Y-%m} and {b.month:%Y-%m}: "
                "give every month from the first to the last",
            )
    return dumps


# --------------------------------------------------------------------------- scanning


@dataclass
class ScanCounts:
    scanned: int = 0  # every game in the dump
    matched: int = 0  # games naming a registered player
    bytes: int = 0  # decompressed bytes


def _chunks(path: Path) -> Iterator[bytes]:
    dctx = zstandard.ZstdDecompressor()
    with path.open("rb") as fh, dctx.stream_reader(fh, read_size=1 << 20) as reader:
        while chunk := reader.read(CHUNK):
            yield chunk


def scan_dump(path: Path, wanted: frozenset[str], counts: ScanCounts) -> Iterator[bytes]:
    """The games (PGN bytes) of ``path`` whose White or Black, lower-cased, is in ``wanted`` (user
    ids); ``counts`` adds up every game seen. Raises zstandard.ZstdError on a damaged frame.

    Each read is searched where it lies, never copied whole: its whole records (from its first
    ``[Event `` line to its last) in place, and the record cut between two reads on its own."""
    keys = frozenset(w.encode() for w in wanted if w)
    tail = b""  # the record begun in the reads before
    for chunk in _chunks(path):
        counts.bytes += len(chunk)
        first = chunk.find(b"\n[Event ")
        if first < 0:
            tail += chunk
            continue
        last = chunk.rfind(b"\n[Event ")
        head = tail + chunk[: first + 1]
        yield from _ours(head, 0, len(head), keys, counts)
        yield from _ours(chunk, first + 1, last + 1, keys, counts)
        tail = chunk[last + 1 :]
    if tail.strip():
        yield from _ours(tail, 0, len(tail), keys, counts)


def _ours(buf: bytes, lo: int, hi: int, keys: frozenset[bytes], counts: ScanCounts) -> Iterator[bytes]:
    """The games of ``buf[lo:hi]`` (whole records) naming a key, counted with every game there."""
    counts.scanned += buf.count(b'[Event "', lo, hi)
    for game in players_games(buf, keys, lo, hi):
        counts.matched += 1
        yield game


# a game's White header line, and its Black one when that is the next line (as Lichess writes them)
_PLAYERS = re.compile(rb'\n\[White "([^"\n]*)"\](?:\n\[Black "([^"\n]*)"\])?')


def players_games(body: bytes, keys: frozenset[bytes], lo: int = 0, hi: int | None = None) -> Iterator[bytes]:
    """The records of ``body[lo:hi]`` (whole records, each from its ``[Event "`` line) whose White, or
    whose Black on the line after White, lower-cased, is in ``keys`` (non-empty user ids), in
    order. A header is a line that starts ``[White "`` (``[Black "``): the same text inside a
    comment or elsewhere in a line is not one.

    Fast because the games of everyone else never become Python objects of their own but their
    match and two names: one regular expression (its literal prefix ``\\n[White "`` searched in C)
    walks every game's names, a set lookup tests them, and only a game that names a key is cut
    out of ``body``, from the ``[Event "`` line before its match to the one after (finding the
    matched lines again by their text would search the whole read a second time)."""
    hi = len(body) if hi is None else hi
    for m in _PLAYERS.finditer(body, lo, hi):
        white, black = m.group(1, 2)
        if white.lower() in keys or (black is not None and black.lower() in keys):
            start = body.rfind(b'\n[Event "', lo, m.start())
            end = body.find(b'\n[Event "', m.end(), hi)
            yield body[lo if start < 0 else start + 1 : hi if end < 0 else end + 1]


# --------------------------------------------------------------------------- typing


_HEADER = re.compile(r'\[([A-Za-z0-9_]+) "([^"\\]*(?:\\.[^"\\]*)*)"\]')
# (a value: runs of plain characters between escapes, ``[^"\\]*(?:\\.[^"\\]*)*``, not one character a
# step, ``(?:[^"\\]|\\.)*``: the same values, matched in a third less time)
# movetext: a comment, a move number, a result, a NAG, or a move (anything else is an error)
_TOKEN = re.compile(r"\{([^}]*)\}|\d+\.(?:\.\.)?|(1-0|0-1|1/2-1/2|\*)|\$\d+|([^\s{}]+)")


_SAN = chess.SAN_REGEX.pattern.removeprefix("^").removesuffix("\\Z") + "|O-O(?:-O)?"
# Lichess's dump movetext: "1. e3 { [%clk 0:03:00] } 1... b5 { [%clk 0:03:00] } ... 1-0", read in one pass
_CLOCKED_MOVE = re.compile(r"\d+\.(?:\.\.)? (\S+) \{ \[%clk \d+:\d\d:\d\d\] \}")
_SANS = re.compile(_SAN)
_KNOWN_SANS: set[str] = set()  # moves already checked against the grammar (a few thousand distinct ones)


@dataclass
class DumpGame:
    """One dump record read: its headers, mainline SAN moves, per side (white, black) the moves
    that show a ``[%clk]`` clock and the last clock shown (seconds), the movetext's result token,
    and what is wrong with it."""

    headers: dict[str, str] = field(default_factory=dict)
    sans: list[str] = field(default_factory=list)
    clocked: list[int] = field(default_factory=lambda: [0, 0])
    last_clock: list[int | None] = field(default_factory=lambda: [None, None])
    result_token: str | None = None
    errors: list[str] = field(default_factory=list)


def read_dump_game(text: str) -> DumpGame:
    """Read one record of a dump: the header tags, then the movetext (each move checked against
    python-chess's SAN grammar, ``chess.SAN_REGEX``). Lichess's dumps hold no variations. The
    moves are not replayed on a board here: python-chess's reader costs ~2.4 ms a game on these
    records (ten times a backfill's budget); like the API's moves, a match game's are replayed on
    an AntichessBoard by verification (score). What does not read is listed in ``errors``."""
    game = DumpGame()
    head, sep, movetext = text.strip().partition("\n\n")
    tags = _HEADER.findall(head)
    if len(tags) != head.count("\n") + 1:
        for line in head.splitlines():
            if _HEADER.fullmatch(line.strip()) is None:
                game.errors.append(f'header line {line.strip()[:60]!r}: expected [Name "value"]')
    game.headers = {k: v.replace('\\"', '"').replace("\\\\", "\\") if "\\" in v else v for k, v in tags}
    if not sep:
        game.errors.append("no movetext after the headers")
    moves = _CLOCKED_MOVE.findall(movetext)
    tail = movetext[movetext.rfind("}") + 1 :].strip()
    # each clocked move is six words ("1." "e3" "{" "[%clk" "0:03:00]" "}") after a single space
    # each: any other word, or other spacing, takes the general path below
    if moves and tail in ("1-0", "0-1", "1/2-1/2", "*") and movetext.count(" ") == 6 * len(moves):
        # the usual record: every move with its clock, then the result
        game.sans = moves
        game.result_token = tail
        for color, moves_made, last in last_clocks(movetext, len(moves)):
            game.clocked[color] = moves_made
            game.last_clock[color] = last
    else:
        _read_movetext(movetext, game)
    if "?" in movetext or "!" in movetext:
        # move glyphs (``?!`` ``?`` ``??`` from Lichess's computer analysis, ``!`` ``!?`` by hand)
        # follow the SAN in an analysed game's record; the API's ``moves`` has none
        game.sans = [san.rstrip("!?") for san in game.sans]
    new = set(game.sans) - _KNOWN_SANS
    if new and not game.errors:
        for i, san in enumerate(game.sans):
            if san in new and _SANS.fullmatch(san) is None:
                game.errors.append(f"move {i + 1} {san[:30]!r}: not a move in SAN")
                break
        else:
            _KNOWN_SANS.update(new)
    return game


def last_clocks(movetext: str, plies: int) -> Iterator[tuple[int, int, int]]:
    """For a movetext whose every move shows its clock: the last mover's, then the other side's
    (colour 0 white, 1 black; the moves that side made; its clock after its last move, seconds)."""
    end = len(movetext)
    for ply in (plies, plies - 1):
        if ply < 1:
            return
        at = movetext.rfind("[%clk ", 0, end)
        clock = _CLK.match(movetext, at)
        assert clock is not None  # every move shows its clock
        color = (ply - 1) % 2
        yield color, (ply + 1 - color) // 2, int(clock[1]) * 3600 + int(clock[2]) * 60 + int(clock[3])
        end = at


def _read_movetext(movetext: str, game: DumpGame) -> None:
    """Any other movetext, token by token: comments (a ``[%clk]`` one after a move), move numbers,
    NAGs, moves and the result."""
    for m in _TOKEN.finditer(movetext):
        comment, result, san = m.group(1), m.group(2), m.group(3)
        if game.result_token is not None:
            game.errors.append(f"{m.group(0)[:30]!r} after the result {game.result_token!r}")
            return
        if comment is not None:
            clock = _CLK.search(comment)
            if clock and game.sans:
                color = (len(game.sans) - 1) % 2
                game.clocked[color] += 1
                game.last_clock[color] = int(clock[1]) * 3600 + int(clock[2]) * 60 + int(clock[3])
        elif result is not None:
            game.result_token = result
        elif san is not None:
            game.sans.append(san)
    if movetext.count("{") != movetext.count("}"):
        game.errors.append("a comment is not closed")


def _speed(initial_s: int | None, increment_s: int | None) -> str:
    """Lichess's speed of a clock: by its estimated duration, initial + 40 × increment."""
    if initial_s is None or increment_s is None:
        return "correspondence"
    total = initial_s + 40 * increment_s
    for limit, name in ((30, "ultraBullet"), (180, "bullet"), (480, "blitz"), (1500, "rapid"), (21600, "classical")):
        if total < limit:
            return name
    return "correspondence"


def _int_tag(headers: dict[str, str], name: str) -> int | None:
    value = headers.get(name)
    if value is None or value.rstrip("?") in ("", "-"):
        return None
    try:
        return int(value.rstrip("?"))
    except ValueError:
        raise ValueError(f"{name} {value!r}: expected a whole number") from None


def _captures(sans: list[str], color: int) -> int:
    """Captures made by the side ``color`` (0 white, 1 black)."""
    return sum("x" in san for san in sans[color::2])


class UnterminatedGame(ValueError):
    """A record Lichess wrote ``Termination "Unterminated"``: the game was still being played when
    the dump was cut (lila's PgnDump writes it for a game ``created`` or ``started``)."""


def dump_status(termination: str, winner: Winner | None, sans: list[str]) -> str:
    """The API's ``status`` as near as the dump tells it (Lichess writes Termination from status:
    Normal ← mate, resign, stalemate, draw, variantEnd; Time forfeit ← outoftime, timeout;
    Abandoned ← aborted, noStart; Rules infraction ← cheat; Unknown ← unknownFinish;
    Insufficient material ← insufficientMaterialClaim; Unterminated ← created, started, which
    :func:`parse_dump_game` refuses before this). The other way, status → Termination, is
    ``TERMINATION_OF_STATUS`` in pipeline/domain/open_database.py (games.parquet writes it).

    Normal: a draw is ``draw``; a win is ``variantEnd`` when the loser captured all 16 of the
    winner's pieces (the antichess goal), else ``resign`` — a win by stalemate (the winner still
    has pieces but no move) reads as ``resign`` here, where the API says ``variantEnd``. Time
    forfeit is ``outoftime`` (the API's ``timeout``, a player who left, reads the same).
    Insufficient material is ``insufficientMaterialClaim``, a draw (the side that cannot lose
    claimed it): a win under it is a ValueError."""
    if termination == "Normal":
        if winner is None:
            return "draw"
        loser = 1 if winner == "white" else 0
        return "variantEnd" if _captures(sans, loser) >= 16 else "resign"
    if termination == "Time forfeit":
        return "outoftime"
    if termination == "Abandoned":
        return "aborted" if winner is None else "noStart"
    if termination == "Rules infraction":
        return "cheat"
    if termination == "Unknown":
        return "unknownFinish"
    if termination == "Insufficient material":
        if winner is not None:
            raise ValueError(f"Termination {termination!r} with a win for {winner}: expected 1/2-1/2 (a claimed draw)")
        return "insufficientMaterialClaim"
    raise ValueError(
        f"Termination {termination!r}: expected Normal, Time forfeit, Abandoned, Rules infraction, Unknown, "
        "Insufficient material or Unterminated"
    )


def _played_s(game: DumpGame, initial_s: int | None, increment_s: int | None, flagged: Winner | None) -> int:
    """Seconds on the clocks between the first and the last move: each side's clock starts at its
    second move (Lichess shows the initial time after the first moves); after that a move took
    (clock before + increment - clock after), so a side spent initial + increment × (its clocked
    moves - 1) - its last clock. A side that lost on time also spent what its clock showed after
    its last move. Without a clock or clocks in the PGN: 0."""
    if initial_s is None or increment_s is None:
        return 0
    total = 0
    for color in (0, 1):
        last = game.last_clock[color]
        if last is None:
            continue
        total += initial_s + increment_s * (game.clocked[color] - 1) - last
        if flagged is not None and (flagged == "white") == (color == 0):
            total += last
    return max(total, 0)


def _created(h: dict[str, str]) -> dt.datetime:
    """The game's creation (UTCDate, UTCTime); ValueError naming them when they do not read."""
    date, time = h.get("UTCDate", ""), h.get("UTCTime", "")
    try:
        if len(date) != 10 or len(time) != 8 or date[4] + date[7] + time[2] + time[5] != "..::":
            raise ValueError
        return dt.datetime(
            int(date[:4]), int(date[5:7]), int(date[8:]), int(time[:2]), int(time[3:5]), int(time[6:]), tzinfo=dt.UTC
        )
    except ValueError:
        raise ValueError(f"UTCDate {date!r} / UTCTime {time!r}: expected YYYY.MM.DD and HH:MM:SS") from None


def site_id(text: str) -> str | None:
    """The game id of a record's ``Site`` tag, whatever else is wrong with the record."""
    found = _SITE_TAG.search(text)
    return found[1] if found else None


def parse_dump_game(text: str) -> GameRow:
    """Type one game of a dump; ValueError names what is wrong (python-chess's errors included)."""
    reader = read_dump_game(text)
    if reader.errors:
        raise ValueError("PGN: " + "; ".join(reader.errors))
    h = reader.headers
    site = _SITE.fullmatch(h.get("Site", ""))
    if site is None:
        raise ValueError(f"Site {h.get('Site')!r}: expected https://lichess.org/<8-character game id>")
    gid = site[1]
    if h.get("Termination") == "Unterminated":
        raise UnterminatedGame("Termination 'Unterminated': still being played when the dump was cut")
    variant = h.get("Variant", "")
    if variant != "Antichess":
        raise ValueError(f"Variant {variant!r}: expected Antichess (the antichess dump)")
    result = h.get("Result", "")
    if result not in _RESULTS:
        raise ValueError(f"Result {result!r}: expected 1-0, 0-1 or 1/2-1/2 (the dump holds finished games)")
    if reader.result_token is not None and reader.result_token != result:
        raise ValueError(f"the movetext ends {reader.result_token!r} where the Result header says {result!r}")
    winner = _RESULTS[result]
    created = _created(h)
    tc = h.get("TimeControl", "-")
    if tc == "-":
        initial = increment = None
    else:
        found = _TIME_CONTROL.fullmatch(tc)
        if found is None:
            raise ValueError(f"TimeControl {tc!r}: expected seconds+increment such as 180+2, or -")
        initial, increment = int(found[1]), int(found[2])
    termination = h.get("Termination", "")
    status = dump_status(termination, winner, reader.sans)
    white, black = h.get("White") or None, h.get("Black") or None
    flagged: Winner | None = None  # who lost on time
    if termination == "Time forfeit" and winner is not None:
        flagged = "black" if winner == "white" else "white"
    return GameRow(
        game_id=gid,
        created_at=created,
        last_move_at=created + dt.timedelta(seconds=_played_s(reader, initial, increment, flagged)),
        white_id=white.lower() if white else None,
        black_id=black.lower() if black else None,
        white_name=white,
        black_name=black,
        rated=h.get("Event", "").startswith("Rated "),
        variant="antichess",
        speed=_speed(initial, increment),
        clock_initial_s=initial,
        clock_increment_s=increment,
        status=status,
        winner=winner,
        white_rating=_int_tag(h, "WhiteElo"),
        black_rating=_int_tag(h, "BlackElo"),
        white_rating_diff=_int_tag(h, "WhiteRatingDiff"),
        black_rating_diff=_int_tag(h, "BlackRatingDiff"),
        moves=" ".join(reader.sans),
        pgn=text,
        url=f"https://lichess.org/{gid}",
    )


def refused_before(text: str, since: dt.datetime | None) -> bool:
    """Whether a refused record's UTCDate/UTCTime read and fall before ``since``."""
    if since is None:
        return False
    try:
        return _created(read_dump_game(text).headers) < since
    except ValueError:
        return False
