"""Small real DuckDB databases for the audit tests: a config loaded from a real tournament.toml,
rows written through ``pipeline.store.gateway`` into the real schema, ``audit_params`` written by
``pipeline.stages.audit.write_params``, and one audit file run exactly as a TD would run it."""

from __future__ import annotations

import datetime as dt
import itertools
import textwrap
from pathlib import Path
from typing import Any

import duckdb

from pipeline.inputs.config import load_config
from pipeline.model import Config
from pipeline.resources import SQL_DIR
from pipeline.stages.audit import write_params
from pipeline.store import gateway

UTC = dt.UTC
REG = dt.datetime(2026, 8, 25, tzinfo=UTC)  # registration_at of the TEAM worlds
START = dt.datetime(2026, 9, 1, tzinfo=UTC)  # the Swiss's first round: the initial pairings (TEAM-ELIG-7)
NOW = dt.datetime(2026, 11, 29, tzinfo=UTC)
FETCHED = dt.datetime(2026, 11, 28, tzinfo=UTC)

TEAM_TOML = """\
preset = "team-swiss"

[tournament]
id = "audit-test"
registration_at = "2026-08-25T00:00:00Z"

[lichess]
history_since = "{history_since}"

[paths]
teams = "teams.csv"
pairings = "pairings.csv"
database = "t.duckdb"
exports = "exports"

[stages.swiss]
first_round_start = "2026-09-01T00:00:00Z"
"""

ACWC_TOML = """\
preset = "acwc-2021"

[tournament]
id = "acwc-test"
registration_at = "2021-09-01T00:00:00Z"

[paths]
players = "players.csv"
pairings = "pairings.csv"
database = "t.duckdb"
exports = "exports"

[stages.qualification]
first_round_start = "2021-09-07T00:00:00Z"
"""


class AuditWorld:
    """A tournament database built row by row. Names are Lichess display names; ids are lower case."""

    def __init__(
        self, tmp_path: Path, extra_toml: str = "", kind: str = "team", history_since: str = "2024-08-25T00:00:00Z"
    ) -> None:
        self.dir = tmp_path
        tmp_path.mkdir(parents=True, exist_ok=True)
        base = TEAM_TOML.replace("{history_since}", history_since) if kind == "team" else ACWC_TOML
        (tmp_path / "tournament.toml").write_text(base + textwrap.dedent(extra_toml), encoding="utf-8")
        self.config: Config = load_config(tmp_path / "tournament.toml")
        self.path = tmp_path / "t.duckdb"
        self.members: list[dict[str, Any]] = []
        self.users: dict[str, dict[str, Any]] = {}
        self.games: list[dict[str, Any]] = []
        self.points: list[dict[str, Any]] = []
        self.estimates: list[dict[str, Any]] = []
        self.pairings: list[dict[str, Any]] = []
        self.overrides: list[dict[str, Any]] = []
        self.match_games: list[dict[str, Any]] = []
        self.captains: list[dict[str, Any]] = []
        self.board_results: list[dict[str, Any]] = []
        self.team_matches: list[dict[str, Any]] = []
        self._ids = itertools.count(1)

    # ------------------------------------------------------------------ rows
    def member(
        self,
        team: str,
        name: str,
        board: int,
        title: str = "",
        captain: bool = False,
        seed_rating: int | None = None,
        **user: Any,
    ) -> str:
        """A registered player (teams.csv / players.csv row) with a Lichess profile (unless profile=False)."""
        self.members.append(
            {
                "entrant": team,
                "player_id": name.lower(),
                "player_name": name,
                "board": board,
                "title": title,
                "is_captain": captain,
                "seed_rating": seed_rating,
            }
        )
        if user.pop("profile", True):
            self.user(name, **user)
        return name.lower()

    def team(self, team: str, names: list[str], titles: list[str] | None = None, **user: Any) -> list[str]:
        return [
            self.member(team, n, b, (titles or [""] * len(names))[b - 1], captain=b == 1, **user)
            for b, n in enumerate(names, 1)
        ]

    def user(
        self,
        name: str,
        created_at: dt.datetime = dt.datetime(2019, 1, 1, tzinfo=UTC),
        games: int = 1500,
        rating: int = 2000,
        rd: int = 50,
        closed: bool = False,
        tos: bool = False,
        lichess_title: str | None = None,
        provisional: bool = False,
    ) -> None:
        self.users[name.lower()] = {
            "user_id": name.lower(),
            "username": name,
            "created_at": None if closed else created_at,
            "title": lichess_title,
            "is_bot": lichess_title == "BOT",
            "is_closed": closed,
            "tos_violation": tos,
            "antichess_games": 0 if closed else games,
            "antichess_rating": None if closed else rating,
            "antichess_rd": None if closed else rd,
            "is_provisional": None if closed else provisional,
            "fetched_at": FETCHED,
        }

    def game(
        self,
        white: str,
        black: str,
        created_at: dt.datetime,
        winner: str | None = "white",
        *,
        status: str = "resign",
        rated: bool = True,
        variant: str = "antichess",
        seconds: float = 120,
        white_rating: int = 2000,
        black_rating: int = 2000,
        white_diff: int | None = 5,
        black_diff: int | None = -5,
        clock: tuple[int, int] = (120, 5),
        game_id: str | None = None,
    ) -> str:
        gid = game_id or f"g{next(self._ids):07d}"
        self.games.append(
            {
                "game_id": gid,
                "created_at": created_at,
                "last_move_at": created_at + dt.timedelta(seconds=seconds),
                "white_id": white.lower(),
                "black_id": black.lower(),
                "white_name": white,
                "black_name": black,
                "rated": rated,
                "variant": variant,
                "speed": "blitz",
                "clock_initial_s": clock[0],
                "clock_increment_s": clock[1],
                "status": status,
                "winner": winner,
                "white_rating": white_rating,
                "black_rating": black_rating,
                "white_rating_diff": white_diff if rated else None,
                "black_rating_diff": black_diff if rated else None,
                "moves": "",
                "pgn": "",
                "url": f"https://lichess.org/{gid}",
            }
        )
        return gid

    def rated_games(
        self, name: str, n: int, first: dt.datetime, every: dt.timedelta = dt.timedelta(hours=6), rating: int = 2000
    ) -> list[str]:
        """`n` rated antichess games of `name` against an outsider, the first at `first`; the
        player's rating stays `rating` (+5 -5 ...)."""
        out = []
        for i in range(n):
            before = rating if i % 2 == 0 else rating + 5
            diff = 5 if i % 2 == 0 else -5
            out.append(
                self.game(
                    name,
                    "Outsider1",
                    first + i * every,
                    "white" if diff > 0 else "black",
                    white_rating=before,
                    white_diff=diff,
                    black_diff=-diff,
                )
            )
        return out

    def rating_path(self, name: str, points: list[tuple[dt.datetime, int, float | None]]) -> list[str]:
        """Games after which `name`'s rating is each given value (at each given last move), with
        the given post-game RD estimate (None: no estimate row)."""
        ids = []
        previous = points[0][1] - 3
        for at, rating, rd in points:
            gid = self.game(
                name,
                "Outsider1",
                at - dt.timedelta(seconds=120),
                "white" if rating >= previous else "black",
                white_rating=previous,
                white_diff=rating - previous,
                black_diff=previous - rating,
            )
            if rd is not None:
                self.estimate(gid, name, at, previous, rating, rd)
            ids.append(gid)
            previous = rating
        return ids

    def estimate(
        self,
        game_id: str,
        name: str,
        at: dt.datetime,
        before: int,
        after: int,
        rd: float | None,
        low: float | None = None,
        high: float | None = None,
    ) -> None:
        self.estimates.append(
            {
                "game_id": game_id,
                "user_id": name.lower(),
                "played_at": at,
                "rating_before": before,
                "rating_after": after,
                "rd_est": rd,
                "rd_low": low if low is not None else (rd or 500) - 4,
                "rd_high": high if high is not None else (rd or 45) + 4,
                "rd_method": "unknown" if rd is None else "estimated",
            }
        )

    def estimate_all(self, rd: float = 50.0) -> None:
        """An RD estimate for every rated game of a registered player that has none yet."""
        have = {(e["game_id"], e["user_id"]) for e in self.estimates}
        for g in self.games:
            for side in ("white", "black"):
                uid, diff = g[f"{side}_id"], g[f"{side}_rating_diff"]
                if uid in self.users and diff is not None and (g["game_id"], uid) not in have:
                    self.estimate(
                        g["game_id"], uid, g["last_move_at"], g[f"{side}_rating"], g[f"{side}_rating"] + diff, rd
                    )

    def point(self, name: str, day: dt.date, rating: int) -> None:
        self.points.append({"user_id": name.lower(), "day": day, "rating": rating})

    def pairing(self, stage: str, rnd: int, a: str, b: str, start: dt.datetime) -> None:
        self.pairings.append(
            {
                "stage": stage,
                "round": rnd,
                "entrant_a": a,
                "entrant_b": b,
                "window_start": start,
                "window_end": start + dt.timedelta(days=7),
            }
        )

    def override(
        self, stage: str, rnd: int, subject: str, action: str, value: str = "", reason: str = "TD ruling"
    ) -> None:
        self.overrides.append(
            {
                "stage": stage,
                "round": rnd,
                "subject": subject,
                "action": action,
                "value": value,
                "reason": reason,
                "line": len(self.overrides) + 2,
                "path": "overrides.csv",
            }
        )

    def board_match(
        self,
        stage: str,
        rnd: int,
        board: int,
        team_a: str,
        team_b: str,
        a: str,
        b: str,
        start: dt.datetime,
        parts: list[tuple[str, int]],
        gaps_s: list[float] | None = None,
        seconds: float = 100,
    ) -> list[str]:
        """A board match played game after game: `parts` = [(clock, games)], each game `seconds`
        long, `gaps_s[i]` seconds between game i and i+1 (20 s by default)."""
        plan = [tc for tc, n in parts for _ in range(n)]
        gaps = gaps_s or [20.0] * len(plan)
        at, ids = start, []
        for i, tc in enumerate(plan):
            ini, inc = tc.split("+")
            gid = self.game(
                a if i % 2 == 0 else b,
                b if i % 2 == 0 else a,
                at,
                "white",
                seconds=seconds,
                clock=(int(float(ini) * 60), int(inc)),
            )
            self.match_games.append(
                {
                    "stage": stage,
                    "round": rnd,
                    "board": board,
                    "entrant_a": team_a,
                    "entrant_b": team_b,
                    "player_a": a.lower(),
                    "player_b": b.lower(),
                    "game_id": gid,
                    "created_at": at,
                    "last_move_at": at + dt.timedelta(seconds=seconds),
                    "time_control": tc,
                    "part": tc,
                    "counted": True,
                    "reason": "counted",
                    "a_points": 1.0,
                    "b_points": 0.0,
                }
            )
            ids.append(gid)
            at = at + dt.timedelta(seconds=seconds + (gaps[i] if i < len(gaps) else 20.0))
        return ids

    def scored_match(
        self,
        stage: str,
        rnd: int,
        team_a: str,
        team_b: str,
        boards: list[tuple[str, str, str]],
        outcome: str,
        winner: str | None = None,
        due: int = 18,
    ) -> None:
        """A scored match (its pairing too, window from the stage's round): `boards` = [(player a,
        player b, how)], how 'played' (every game, won by a), 'unplayed' (no game, no ruling) or a
        TD ruling's text (0-0, counted as played)."""
        start = self.config.stage(stage).round_window(rnd)[0]  # type: ignore[index]
        self.pairing(stage, rnd, team_a, team_b, start)
        a = b = 0.0
        for board, (pa, pb, how) in enumerate(boards, 1):
            pts = 144.0 if how == "played" else 0.0
            a += pts
            self.board_results.append(
                {
                    "stage": stage,
                    "round": rnd,
                    "board": board,
                    "team_a": team_a,
                    "team_b": team_b,
                    "player_a": pa.lower(),
                    "player_b": pb.lower(),
                    "part": "total",
                    "games_played": 0 if how == "unplayed" else due,
                    "games_due": due,
                    "a_points": pts,
                    "b_points": 0.0,
                    "override": how if how not in ("played", "unplayed") else "",
                    "is_unplayed": how == "unplayed",
                }
            )
        self.team_matches.append(
            {
                "stage": stage,
                "round": rnd,
                "team_a": team_a,
                "team_b": team_b,
                "a_points": a,
                "b_points": b,
                "max_points": 144.0 * len(boards),
                "winning_points": 72.0 * len(boards) + 1,
                "games_played": 0,
                "games_due": due * len(boards),
                "decided_by_game_id": None,
                "outcome": outcome,
                "winner": winner,
                "override": "",
                "tiebreak": "",
            }
        )

    def captain_seen(self, team: str, name: str, at: dt.datetime) -> None:
        self.captains.append({"team": team, "player_id": name.lower(), "seen_from": at})

    # ------------------------------------------------------------------ the database
    def build(self, now: dt.datetime = NOW) -> Path:
        con = gateway.connect(self.path)
        try:
            with gateway.transaction(con):
                for table, rows in (
                    ("td_members", self.members),
                    ("lichess_users", list(self.users.values())),
                    ("lichess_games", self.games),
                    ("lichess_rating_points", self.points),
                    ("rating_estimates", self.estimates),
                    ("td_pairings", self.pairings),
                    ("td_overrides", self.overrides),
                    ("scored_match_games", self.match_games),
                    ("audit_captains", self.captains),
                    ("scored_board_results", self.board_results),
                    ("scored_team_matches", self.team_matches),
                ):
                    gateway.replace_where(con, table, {}, rows)
            write_params(con, self.config, now)
        finally:
            con.close()
        return self.path

    def run(self, audit: str, now: dt.datetime = NOW) -> list[tuple[Any, ...]]:
        """Build, then run sql/audits/<audit>.sql verbatim on a fresh read-only connection whose
        session time zone is not UTC (the audits must not depend on it); rows sorted."""
        self.build(now)
        return run_file(self.path, audit)


def run_file(path: Path, audit: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        con.execute("SET TimeZone = 'America/Los_Angeles'")
        text = (SQL_DIR / "audits" / f"{audit}.sql").read_text(encoding="utf-8")
        return sorted(con.sql(text).fetchall(), key=lambda r: tuple("" if v is None else str(v) for v in r))
    finally:
        con.close()
