"""The demo's world as Lichess open-database dumps: ``lichess_db_antichess_rated_YYYY-MM.pgn.zst``.

One file per complete month before the dataset's "now" (Lichess publishes a month once it is
over), each holding, in creation order, the month's finished rated antichess games of the
demo's world (casual games are not in Lichess's dumps) and ``OTHERS_PER_GAME`` times as many games
of players nobody registered (the real dump holds everyone's). The headers are those of Lichess's
dumps (Event, Site, Date, Round, White, Black, Result, UTCDate, UTCTime, WhiteElo, BlackElo,
WhiteRatingDiff, BlackRatingDiff, WhiteTitle/BlackTitle, TimeControl, Termination, Variant; no ECO,
which Lichess writes for no variant),
the movetext on one line with a ``{ [%clk h:mm:ss] }`` comment after every move.

The clocks are made to agree with the game's JSON: each side's clock shows the initial time after
its first move (Lichess starts the clocks after both first moves), then each move spends a share
of the game's duration (the loser of a time forfeit also spends what was left), so that the
backfill's estimate of ``last_move_at`` from the clocks (``pipeline.lichess.dump_reader``) gives the
JSON's ``lastMoveAt`` to the second, except where the demo's duration is longer than the clocks could
have run (a few long games) or the game has fewer than three plies.

The other players' games are cheap: each reuses the movetext (and time control and ending) of one
of the month's real games under new headers, ids, names and ratings; the files are compressed at
zstd level 1. Their ids never collide with the world's, their names never with a registered one
(some differ from one only by a suffix, so a filter that matches prefixes would be caught).
"""

from __future__ import annotations

import datetime as dt
import functools
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import zstandard

from pipeline.sim.games import ID_ALPHABET
from pipeline.sim.season.calendar import from_ms
from pipeline.sim.season.state import Season

OTHERS_PER_GAME = (
    10  # games of unregistered players per game of the world (at least 10: the real dump holds everyone's)
)
LEVEL = 1  # zstd level: fast; Lichess compresses harder, which only changes the file size
TERMINATION = {
    "mate": "Normal",
    "resign": "Normal",
    "stalemate": "Normal",
    "draw": "Normal",
    "variantEnd": "Normal",
    "outoftime": "Time forfeit",
    "timeout": "Time forfeit",
    "aborted": "Abandoned",
    "noStart": "Abandoned",
    "cheat": "Rules infraction",
    "unknownFinish": "Unknown",
}
RESULT = {"white": "1-0", "black": "0-1", None: "1/2-1/2"}


@functools.cache
def _clock(seconds: int) -> str:
    """A move's clock comment."""
    return f" {{ [%clk {seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}] }}"


def _spend(total: int, moves: int) -> list[int]:
    """``total`` seconds over ``moves`` moves, the extra seconds on the last ones (the clock never
    goes below zero when ``total`` fits the clock: docs in the module)."""
    if moves <= 0:
        return []
    q, r = divmod(total, moves)
    return [q + (1 if i >= moves - r else 0) for i in range(moves)]


def clocks(g: dict[str, Any]) -> list[int] | None:
    """Each ply's clock after it (seconds) for the game's JSON, or None without a clock."""
    clock = g.get("clock")
    if not clock:
        return None
    initial, inc = clock["initial"], clock["increment"]
    plies = len(g["moves"].split()) if g.get("moves") else 0
    duration = (g["lastMoveAt"] - g["createdAt"]) // 1000
    moves = [(plies + 1 - color) // 2 for color in (0, 1)]  # white's, black's
    timed = [max(m - 1, 0) for m in moves]  # moves on a running clock (not the first)
    budget = [initial + inc * k for k in timed]  # the most a side can spend on them
    spend = [0, 0]  # seconds each side spends on its timed moves
    flagged = None
    if g["status"] in ("outoftime", "timeout") and g.get("winner") and moves[1 if g["winner"] == "white" else 0]:
        flagged = 1 if g["winner"] == "white" else 0
        other = 1 - flagged
        left = min(3, budget[flagged])  # shown after its last move, then spent as it runs out
        spend[flagged] = budget[flagged] - left
        spend[other] = min(max(duration - budget[flagged], 0), budget[other])
    elif sum(timed):
        spend[0] = min(round(duration * timed[0] / sum(timed)), budget[0])
        spend[1] = min(duration - spend[0], budget[1])
        spend[0] = min(duration - spend[1], budget[0])
    steps = [iter(_spend(spend[c], timed[c])) for c in (0, 1)]
    now = [initial, initial]
    out: list[int] = []
    for ply in range(plies):
        c = ply % 2
        if ply >= 2:
            now[c] = now[c] - next(steps[c]) + inc
        out.append(now[c])
    return out


def movetext(g: dict[str, Any]) -> str:
    """The game's movetext as Lichess's dumps write it: one line, a clock comment after each move."""
    sans = g["moves"].split() if g.get("moves") else []
    times = clocks(g)
    parts = []
    for i, san in enumerate(sans):
        number = f"{i // 2 + 1}." if i % 2 == 0 else f"{i // 2 + 1}..."
        parts.append(f"{number} {san}" if times is None else f"{number} {san}{_clock(times[i])}")
    parts.append(RESULT[g.get("winner")])
    # a game without moves: Lichess writes the result after a space (" 0-1")
    return " ".join(parts) if sans else f" {parts[0]}"


def _headers(
    game_id: str,
    created: dt.datetime,
    white: str,
    black: str,
    result: str,
    elos: tuple[int, int],
    diffs: tuple[int, int] | None,
    titles: tuple[str | None, str | None],
    time_control: str,
    termination: str,
) -> str:
    date = created.strftime("%Y.%m.%d")
    tags = [
        ("Event", "Rated Antichess game"),
        ("Site", f"https://lichess.org/{game_id}"),
        ("Date", date),
        ("Round", "-"),
        ("White", white),
        ("Black", black),
        ("Result", result),
        ("UTCDate", date),
        ("UTCTime", created.strftime("%H:%M:%S")),
        ("WhiteElo", str(elos[0])),
        ("BlackElo", str(elos[1])),
    ]
    if diffs is not None:
        tags += [("WhiteRatingDiff", f"{diffs[0]:+d}"), ("BlackRatingDiff", f"{diffs[1]:+d}")]
    if titles[0]:
        tags.append(("WhiteTitle", titles[0]))
    if titles[1]:
        tags.append(("BlackTitle", titles[1]))
    tags += [("TimeControl", time_control), ("Termination", termination), ("Variant", "Antichess")]
    return "".join(f'[{k} "{v}"]\n' for k, v in tags)


class _Template:
    """What an outsiders' game borrows from a real one: its time control, result, ending and
    movetext (the end of its record, from the TimeControl header on)."""

    __slots__ = ("rated_diff", "result", "tail", "winner")

    def __init__(self, g: dict[str, Any], text: str) -> None:
        clock = g.get("clock")
        time_control = f"{clock['initial']}+{clock['increment']}" if clock else "-"
        self.winner = g.get("winner")
        self.result = RESULT[self.winner]
        self.rated_diff = "ratingDiff" in g["players"]["white"]
        self.tail = (
            f'[TimeControl "{time_control}"]\n[Termination "{TERMINATION[g["status"]]}"]\n'
            f'[Variant "Antichess"]\n\n{text}\n\n'
        )


def game_pgn(g: dict[str, Any], titles: dict[str, str]) -> tuple[str, str]:
    """One world game as its dump record (PGN text), and its movetext."""
    w, b = g["players"]["white"], g["players"]["black"]
    diffs = (w["ratingDiff"], b["ratingDiff"]) if "ratingDiff" in w and "ratingDiff" in b else None
    text = movetext(g)
    head = _headers(
        g["id"],
        from_ms(g["createdAt"]),
        w["user"]["name"],
        b["user"]["name"],
        RESULT[g.get("winner")],
        (w["rating"], b["rating"]),
        diffs,
        (titles.get(w["user"]["id"]), titles.get(b["user"]["id"])),
        f"{g['clock']['initial']}+{g['clock']['increment']}" if g.get("clock") else "-",
        TERMINATION[g["status"]],
    )
    return f"{head}\n{text}\n\n", text


def _names(rng: random.Random, taken: set[str], registered: list[str], n: int) -> list[str]:
    """``n`` usernames nobody registered: made-up ones, plus a registered name with a suffix for
    a tenth of the registered (a filter must match whole names)."""
    syllables = ("anti", "zug", "pawn", "sac", "lose", "giveaway", "suicide", "king", "rook", "mate", "fork", "pin")
    out = [f"{name}_2" for name in registered[: max(len(registered) // 10, 1)] if f"{name.lower()}_2" not in taken]
    while len(out) < n:
        name = f"{rng.choice(syllables).title()}{rng.choice(syllables)}{rng.randint(1, 9999)}"
        if name.lower() not in taken:
            taken.add(name.lower())
            out.append(name)
    return out


_ID_TABLE = bytes(ID_ALPHABET[i % len(ID_ALPHABET)].encode()[0] for i in range(256))


def _ids(rng: random.Random, n: int, taken: set[str]) -> list[str]:
    """``n`` new 8-character game ids (added to ``taken``), drawn in one go."""
    out: list[str] = []
    while len(out) < n:
        raw = rng.randbytes(8 * (n - len(out))).translate(_ID_TABLE).decode()
        for i in range(0, len(raw), 8):
            gid = raw[i : i + 8]
            if gid not in taken:
                taken.add(gid)
                out.append(gid)
    return out


def _others(
    rng: random.Random, templates: list[_Template], start: dt.datetime, n: int, names: list[str], taken: set[str]
) -> list[tuple[int, str, str]]:
    """``n`` games of unregistered players in the month starting at ``start``: (epoch second, id, record)."""
    span_s = int(((start + dt.timedelta(days=32)).replace(day=1) - start).total_seconds())
    base = int(start.timestamp())
    days = [(start + dt.timedelta(days=d)).strftime("%Y.%m.%d") for d in range(span_s // 86400)]
    picks = rng.choices(templates, k=n)
    seconds = rng.choices(range(span_s), k=n)
    players = rng.choices(range(len(names)), k=2 * n)
    elos = rng.choices(range(1100, 2501), k=2 * n)
    deltas = rng.choices(range(1, 16), k=n)
    out = []
    for i, gid in enumerate(_ids(rng, n, taken)):
        t, sec = picks[i], seconds[i]
        a, b = players[2 * i], players[2 * i + 1]
        if a == b:
            b = (b + 1) % len(names)
        date = days[sec // 86400]
        day_s = sec % 86400
        diffs = ""
        if t.rated_diff:
            d = 0 if t.winner is None else deltas[i] if t.winner == "white" else -deltas[i]
            diffs = f'[WhiteRatingDiff "{d:+d}"]\n[BlackRatingDiff "{-d:+d}"]\n'
        record = (
            f'[Event "Rated Antichess game"]\n[Site "https://lichess.org/{gid}"]\n[Date "{date}"]\n[Round "-"]\n'
            f'[White "{names[a]}"]\n[Black "{names[b]}"]\n[Result "{t.result}"]\n[UTCDate "{date}"]\n'
            f'[UTCTime "{day_s // 3600:02d}:{day_s // 60 % 60:02d}:{day_s % 60:02d}"]\n'
            f'[WhiteElo "{elos[2 * i]}"]\n[BlackElo "{elos[2 * i + 1]}"]\n{diffs}{t.tail}'
        )
        out.append((base + sec, gid, record))
    return out


def write_dumps(s: Season, folder: Path, seed: int) -> dict[str, int]:
    """The season's world as dumps (:func:`write_dumps_of`), up to the month of its "now"."""
    registered = [(p.id, p.name, p.title) for p in s.team_members() + [s.replacement] + s.acwc]
    end = dt.datetime(s.team_end.year, s.team_end.month, 1, tzinfo=dt.UTC)
    return write_dumps_of(s.world.games, registered, end, folder, seed)


def write_dumps_of(
    games: Iterable[dict[str, Any]],
    registered: list[tuple[str, str, str | None]],
    end: dt.datetime,
    folder: Path,
    seed: int,
) -> dict[str, int]:
    """One dump file per month before ``end``, from the first with a finished rated antichess game
    among ``games`` (the API's JSON) on; ``registered``: (id, name, title) of the registered players.
    Returns the files, the games of ``games`` in them and the others' games. Uses its own random
    stream (from ``seed``): the rest of the demo is the same with or without dumps."""
    rng = random.Random(seed * 104729 + 17)
    titles = {uid: title for uid, _, title in registered if title}
    months: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for g in sorted(games, key=lambda g: (g["createdAt"], g["id"])):
        if not g["rated"] or g["variant"] != "antichess" or g["status"] in ("created", "started"):
            continue
        created = from_ms(g["createdAt"])
        if created < end:
            months.setdefault((created.year, created.month), []).append(g)
    taken_ids = {g["id"] for month in months.values() for g in month}
    players = {g["players"][c]["user"]["id"] for month in months.values() for g in month for c in ("white", "black")}
    names = _names(rng, players | {uid for uid, _, _ in registered}, [name for _, name, _ in registered], 3000)
    if months:  # Lichess publishes every month, a month without a game of the world too
        (year, month), last = min(months), max(months)
        while (year, month) < last:
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
            months.setdefault((year, month), [])
    folder.mkdir(parents=True, exist_ok=True)
    compressor = zstandard.ZstdCompressor(level=LEVEL)
    ours = others = 0
    for (year, month), games in sorted(months.items()):
        records: list[tuple[int, str, str]] = []
        templates = []
        for g in games:
            text, moves = game_pgn(g, titles)
            records.append((g["createdAt"] // 1000, g["id"], text))
            templates.append(_Template(g, moves))
        start = dt.datetime(year, month, 1, tzinfo=dt.UTC)
        records += _others(rng, templates, start, OTHERS_PER_GAME * len(games), names, taken_ids)
        records.sort()
        path = folder / f"lichess_db_antichess_rated_{year:04d}-{month:02d}.pgn.zst"
        path.write_bytes(compressor.compress("".join(text for _, _, text in records).encode("utf-8")))
        ours += len(games)
        others += len(records) - len(games)
    return {"files": len(months), "games": ours, "others": others}
