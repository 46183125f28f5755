"""``tournament.toml``: loaded with tomllib into typed, validated, frozen objects.

A tournament file names a preset (``data/presets/<name>.toml``) and overrides any of its
values: tables merge key by key, everything else (numbers, strings, arrays such as a
stage's ``parts``) is replaced whole. Unknown keys are errors, so a typo never silently
falls back to a default. Every error names the file, the dotted key and what was expected.

Pure: reads files, no network, database, clock or environment.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import datetime as dt
import re
import tomllib
import zoneinfo
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.domain.timecontrol import parse_time_control
from pipeline.errors import InputError
from pipeline.model import (
    PRIMARIES,
    TIEBREAKS,
    AllowedSwap,
    Composition,
    Conduct,
    Config,
    Eligibility,
    LichessSource,
    MatchPoints,
    Part,
    Paths,
    RatingCap,
    Schedule,
    Seeding,
    Stage,
    TimeControl,
)
from pipeline.resources import PRESETS_DIR

# --------------------------------------------------------------------------- loading


def load_config(path: Path | str) -> Config:
    """Load and validate a tournament config (raises InputError naming file and key)."""
    path = Path(path)
    doc = _read_toml(path)
    preset_name = doc.get("preset")
    if preset_name is None:
        merged = doc
        preset_name = ""
    else:
        if not isinstance(preset_name, str):
            raise InputError(path, "key 'preset'", f"expected a preset name, got {preset_name!r}")
        preset_path = PRESETS_DIR / f"{preset_name}.toml"
        if not preset_path.is_file():
            known = ", ".join(sorted(p.stem for p in PRESETS_DIR.glob("*.toml")))
            raise InputError(path, "key 'preset'", f"unknown preset {preset_name!r}: expected one of {known}")
        merged = _merge(_read_toml(preset_path), {k: v for k, v in doc.items() if k != "preset"})
    return _build(path, preset_name, merged)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise InputError(path, "", "file not found") from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(path, "", f"not valid TOML: {e}") from e


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


@dataclass(frozen=True)
class KeySpec:
    """One key as the loader reads it: the reference (docs/config.md) is generated from these, so a
    key cannot be accepted without being documented. ``key`` is dotted, with ``<name>`` for a stage
    and ``[]`` for an array item; ``default`` is the loader's own (``...``: the key is required)."""

    key: str
    kind: str
    default: Any
    doc: str


_RECORDER: contextvars.ContextVar[list[KeySpec] | None] = contextvars.ContextVar("config_keys", default=None)


@contextlib.contextmanager
def recording_keys() -> Iterator[list[KeySpec]]:
    """Collect every key the loader reads (present or not) while the block runs."""
    keys: list[KeySpec] = []
    token = _RECORDER.set(keys)
    try:
        yield keys
    finally:
        _RECORDER.reset(token)


def _generic_key(dotted: str) -> str:
    """``stages.swiss.parts[2].games`` → ``stages.<name>.parts[].games``."""
    return re.sub(r"\[\d+\]", "[]", re.sub(r"^stages\.[^.\[]+", "stages.<name>", dotted))


class _Table:
    """A TOML table being read: typed getters, dotted keys in errors, unknown keys refused."""

    def __init__(self, file: Path, data: Any, key: str) -> None:
        self.file = file
        self.key = key
        if not isinstance(data, dict):
            raise InputError(file, f"key '{key}'", f"expected a table, got {data!r}")
        self.data = data
        self.used: set[str] = set()

    def _k(self, name: str) -> str:
        return f"{self.key}.{name}" if self.key else name

    def fail(self, name: str, expected: str) -> InputError:
        return InputError(self.file, f"key '{self._k(name)}'", expected)

    def raw(self, name: str, default: Any = ..., kind: str = "value", doc: str = "") -> Any:
        keys = _RECORDER.get()
        if keys is not None:
            keys.append(KeySpec(_generic_key(self._k(name)), kind, default, doc))
        self.used.add(name)
        if name not in self.data:
            if default is ...:
                raise self.fail(name, "missing: expected a value")
            return default
        return self.data[name]

    def str_(self, name: str, default: Any = ..., doc: str = "") -> Any:
        v = self.raw(name, default, "string", doc)
        if v is default and default is not ...:
            return v
        if not isinstance(v, str) or not v.strip():
            raise self.fail(name, f"expected a non-empty string, got {v!r}")
        return v

    def int_(self, name: str, default: Any = ..., minimum: int = 0, maximum: int | None = None, doc: str = "") -> Any:
        kind = f"whole number {minimum}–{maximum}" if maximum is not None else f"whole number ≥ {minimum}"
        v = self.raw(name, default, kind, doc)
        if v is None and default is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or v < minimum or (maximum is not None and v > maximum):
            rng = f"from {minimum} to {maximum}" if maximum is not None else f"of at least {minimum}"
            raise self.fail(name, f"expected a whole number {rng}, got {v!r}")
        return v

    def num(self, name: str, default: Any = ..., minimum: float = 0, doc: str = "") -> Any:
        v = self.raw(name, default, f"number ≥ {minimum:g}", doc)
        if v is None and default is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < minimum:
            raise self.fail(name, f"expected a number of at least {minimum:g}, got {v!r}")
        return float(v)

    def bool_(self, name: str, default: Any = ..., doc: str = "") -> bool:
        v = self.raw(name, default, "true / false", doc)
        if not isinstance(v, bool):
            raise self.fail(name, f"expected true or false, got {v!r}")
        return v

    def choice(self, name: str, options: tuple[str, ...], default: Any = ..., doc: str = "") -> str:
        v = self.raw(name, default, " / ".join(f'"{o}"' for o in options), doc)
        if v not in options:
            raise self.fail(name, f"expected one of {', '.join(options)}, got {v!r}")
        return v

    def instant(self, name: str, default: Any = ..., doc: str = "") -> dt.datetime | None:
        v = self.raw(name, default, "UTC time", doc)
        if v is None:
            return None
        if isinstance(v, str):
            try:
                v = dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
            except ValueError:
                raise self.fail(name, f"expected a UTC time such as 2026-01-06T00:00:00Z, got {v!r}") from None
        if isinstance(v, dt.datetime):
            if v.tzinfo is None:
                raise self.fail(
                    name, f"expected a time with a UTC offset (e.g. 2026-01-06T00:00:00Z), got {v.isoformat()!r}"
                )
            return v.astimezone(dt.UTC)
        if isinstance(v, dt.date):
            return dt.datetime(v.year, v.month, v.day, tzinfo=dt.UTC)
        raise self.fail(name, f"expected a UTC time such as 2026-01-06T00:00:00Z, got {v!r}")

    def date_(self, name: str, default: Any = ..., doc: str = "") -> dt.date:
        v = self.raw(name, default, "date", doc)
        if isinstance(v, str):
            try:
                return dt.date.fromisoformat(v)
            except ValueError:
                pass
        elif isinstance(v, dt.date) and not isinstance(v, dt.datetime):
            return v
        raise self.fail(name, f"expected a date such as 2025-01-01, got {v!r}")

    def path(self, name: str, base: Path, default: Any = ..., doc: str = "") -> Path | None:
        v = self.raw(name, default, "path", doc)
        if v is None:
            return None
        if not isinstance(v, str) or not v.strip():
            raise self.fail(name, f"expected a path, got {v!r}")
        p = Path(v)
        return p if p.is_absolute() else (base / p)

    def table(self, name: str, default: Any = ..., doc: str = "") -> _Table:
        v = self.raw(name, default, "table", doc)
        return _Table(self.file, v, self._k(name))

    def done(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            known = ", ".join(sorted(self.used))
            raise self.fail(unknown[0], f"unknown key: expected one of {known}")


def _build(file: Path, preset: str, doc: dict[str, Any]) -> Config:
    base = file.resolve().parent
    top = _Table(file, doc, "")
    t = top.table("tournament", doc="The event: its id, name, kind and registration time.")
    tournament_id = t.str_("id", doc="A short id such as `team-swiss-2026`; names the `serve` deployment.")
    name = t.str_("name", None, doc="The name shown in round posts and exports; unset: the id.") or tournament_id
    kind = t.choice("kind", ("team", "individual"), doc="`team` (teams.csv) or `individual` (players.csv).")
    boards = t.int_(
        "boards",
        1 if kind == "individual" else 4,
        minimum=1,
        maximum=8,
        doc="Boards per team match (TEAM-COMP-1: 4 with 10 or more teams, 3 with fewer; 1 for individual events).",
    )
    registration_at = t.instant(
        "registration_at",
        None,
        doc="When registration closed (TEAM-ELIG-1..4 and the seeding rating count back from it).",
    )
    champion = t.str_(
        "champion", None, doc="ACWC-Q-1: the previous champion, a players.csv name (skips the qualification)."
    )
    runner_up = t.str_(
        "runner_up", None, doc="ACWC-Q-1: the previous runner-up, a players.csv name (skips the qualification)."
    )
    t.done()

    li = top.table("lichess", {}, doc="Where the games come from and how politely they are fetched.")
    lichess_raw = dict(
        base_url=li.str_(
            "base_url", "https://lichess.org", doc="The Lichess server (or a replay server started by hand)."
        ).rstrip("/"),
        token_env=li.str_(
            "token_env",
            "LICHESS_TOKEN",
            doc="The environment variable holding your Lichess token (never the token itself; see docs/token.md).",
        ),
        timeout_s=li.num("timeout_s", 30.0, minimum=0.1, doc="Seconds before a request with no answer is retried."),
        history_since=li.instant(
            "history_since",
            None,
            doc="No game created earlier is fetched; unset: 24 months before registration_at "
            "(TEAM-ELIG-4) or rating_cap.cap_since, whichever is earlier.",
        ),
        replay_data=li.path(
            "replay_data",
            base,
            None,
            doc="A recorded Lichess dataset folder, served in-process instead of lichess.org (the demo).",
        ),
        replay_games_per_s=li.num(
            "replay_games_per_s",
            30.0,
            doc="The replay server's games per second, as Lichess serves a token holder; 0: no throttle.",
        ),
        concurrency=li.int_(
            "concurrency", 1, minimum=1, maximum=2, doc="Downloads at a time: 1 as Lichess asks, 2 its hard limit."
        ),
        rate_limit_wait_s=li.num(
            "rate_limit_wait_s",
            60.0,
            doc="Seconds to wait after HTTP 429 (or Retry-After if longer), doubling on repeats.",
        ),
        backoff_s=li.num("backoff_s", 2.0, doc="First wait after a 5xx or a connection error, doubling."),
        max_retries=li.int_("max_retries", 5, maximum=20, doc="Retries of one request before the run fails (exit 3)."),
    )
    li.done()

    p = top.table("paths", doc="The TD's files and the outputs, relative to the tournament.toml.")
    paths = Paths(
        teams=p.path("teams", base, None, doc="teams.csv (team events: required)."),
        players=p.path("players", base, None, doc="players.csv (individual events: required)."),
        pairings=p.path("pairings", base, doc="pairings.csv: every round's pairings and byes."),
        database=p.path("database", base, doc="The published DuckDB snapshot TDs and scripts read."),
        exports=p.path("exports", base, doc="The folder of the CSV exports, round posts and charts."),
        overrides=p.path("overrides", base, None, doc="overrides.csv: the TD's rulings; unset: none."),
        work_database=p.path(
            "work_database",
            base,
            None,
            doc="The runs' private working copy; unset: `<database>.work.duckdb` beside it.",
        ),
        prefect_home=p.path(
            "prefect_home", base, None, doc="Prefect's home and SQLite database; unset: `.prefect` beside the database."
        ),
    )
    p.done()
    if paths.work_database is None:
        paths = dataclasses.replace(paths, work_database=paths.database.with_name(f"{paths.database.stem}.work.duckdb"))
    if paths.prefect_home is None:
        paths = dataclasses.replace(paths, prefect_home=paths.database.parent / ".prefect")
    if paths.work_database == paths.database:
        raise p.fail(
            "work_database",
            f"{paths.database}: expected a file other than paths.database "
            "(runs write the working copy and publish it onto paths.database)",
        )
    if kind == "team" and paths.teams is None:
        raise top.fail("paths.teams", "missing: a team event needs a teams.csv path")
    if kind == "individual" and paths.players is None:
        raise top.fail("paths.players", "missing: an individual event needs a players.csv path")

    st = top.table("stages", doc="One table per stage, in playing order, named as in pairings.csv's stage column.")
    stages = tuple(
        _build_stage(
            st.table(stage_name, doc="One stage: its kind, rounds, parts, scoring and round windows."), stage_name
        )
        for stage_name in list(st.data)
    )
    st.done()
    if not stages:
        raise top.fail("stages", "expected at least one stage")

    e = top.table(
        "eligibility", {}, doc="TEAM-ELIG-1..7 (relative to registration_at) and ACWC-ELIG-1..3 (fixed dates)."
    )
    eligibility = Eligibility(
        min_account_age_months=e.int_(
            "min_account_age_months", 6, doc="TEAM-ELIG-1: calendar months the account existed before registration."
        ),
        min_rated_games=e.int_(
            "min_rated_games", 1000, doc="TEAM-ELIG-2, ACWC-ELIG-2: rated antichess games before registration."
        ),
        min_recent_games=e.int_(
            "min_recent_games", 100, doc="TEAM-ELIG-3: rated antichess games in the recent_months before registration."
        ),
        recent_months=e.int_("recent_months", 3, doc="TEAM-ELIG-3: the months min_recent_games counts over."),
        cheat_months_one=e.int_(
            "cheat_months_one", 12, doc="TEAM-ELIG-4: no cheat-detected game lost in these months before registration."
        ),
        cheat_months_two=e.int_("cheat_months_two", 24, doc="TEAM-ELIG-4: not two in these months."),
        pairings_announced_at=e.instant(
            "pairings_announced_at", None, doc="TEAM-ELIG-7's moment; unset: the first stage's first_round_start."
        ),
        provisional_rd=e.num(
            "provisional_rd", 110.0, minimum=1, doc="TEAM-ELIG-7: a rating is provisional at this RD or above."
        ),
        assumed_volatility=e.num(
            "assumed_volatility", 0.09, doc="TEAM-ELIG-7: the Glicko-2 volatility an RD estimate is decayed with."
        ),
        created_before=e.instant(
            "created_before", "2021-03-01T00:00:00Z", doc="ACWC-ELIG-1: accounts created before this."
        ),
        games_before=e.instant(
            "games_before", "2021-09-01T00:00:00Z", doc="ACWC-ELIG-2: min_rated_games counted before this."
        ),
        one_cheat_since=e.instant(
            "one_cheat_since",
            "2020-09-01T00:00:00Z",
            doc="ACWC-ELIG-3: one cheat-detected game since this disqualifies.",
        ),
        two_cheats_since=e.instant(
            "two_cheats_since",
            "2018-09-01T00:00:00Z",
            doc="ACWC-ELIG-3: two cheat-detected games since this disqualify.",
        ),
    )
    e.done()

    c = top.table("rating_cap", {}, doc="TEAM-CAP-1..6: the last board's rating cap.")
    rating_cap = RatingCap(
        cap_since=c.date_("cap_since", "2025-01-01", doc="TEAM-CAP-2: ratings count from this date."),
        replace_by=c.date_(
            "replace_by", "2025-04-25", doc="TEAM-CAP-6: above the cap before this date → must be replaced."
        ),
        cap_two_agm=c.int_("cap_two_agm", 2000, doc="TEAM-CAP-1: the cap of a team with two AGMs."),
        cap_one_asgm=c.int_("cap_one_asgm", 2100, doc="TEAM-CAP-1: the cap of a team with one ASGM."),
        cap_one_agm=c.int_("cap_one_agm", 2150, doc="TEAM-CAP-1: the cap of a team with one AGM."),
        cap_no_title=c.int_("cap_no_title", 2200, doc="TEAM-CAP-1: the cap of a team without titles."),
        min_cross_days=c.int_(
            "min_cross_days", 3, minimum=1, doc="TEAM-CAP-3: above the cap on this many different days."
        ),
        max_rd=c.int_("max_rd", 80, minimum=1, doc="TEAM-CAP-5: a crossing at an RD above this does not count."),
        hold_hours=c.num("hold_hours", 24.0, doc="TEAM-CAP-4: above the cap for longer than this many hours."),
    )
    c.done()
    co = top.table("composition", {}, doc="TEAM-COMP-2..8: who may play on which team and board.")
    strongest = _names(
        co, "strongest_players", "TEAM-COMP-3: the rule book's strongest players, who must be on different teams."
    )
    composition = Composition(
        max_titled=co.int_("max_titled", 2, doc="TEAM-COMP-2: AGM-or-higher players per team (ASGM counts as higher)."),
        strongest_players=strongest,
        allowed_swaps=_allowed_swaps(co),
        board_order_tolerance=co.int_(
            "board_order_tolerance",
            50,
            doc="TEAM-COMP-4: a lower board rated more than this above a higher one is an error, less a warning.",
        ),
        substitute_max_diff=co.int_(
            "substitute_max_diff",
            100,
            doc="TEAM-COMP-5: the 5th member and the player sitting out are similar within this.",
        ),
        replacement_min_below=co.int_(
            "replacement_min_below",
            100,
            doc="TEAM-COMP-6: a replacement is at least this much below the player replaced.",
        ),
        tournament_directors=_names(
            co, "tournament_directors", "TEAM-COMP-8: the TDs' Lichess names (no TD captain, no two on a team)."
        ),
    )
    co.done()
    schedule = _build_schedule(top.table("schedule", {}, doc="When `antichess-td serve` runs the nightly flow."))
    sd = top.table("seeding", {}, doc="The seeding rating (ACWC-SEED-1; TEAM-COMP-4's board order).")
    seeding = Seeding(
        rating_at=sd.instant("rating_at", None, doc="The rating as of this time; unset: registration_at."),
        peak_since=sd.instant(
            "peak_since", None, doc="Set: averaged with the highest rating from this time to rating_at (ACWC-SEED-1)."
        ),
    )
    sd.done()
    if seeding.rating_at is not None and seeding.peak_since is not None and seeding.peak_since >= seeding.rating_at:
        raise sd.fail(
            "peak_since",
            f"expected a time before seeding.rating_at {seeding.rating_at.isoformat()}, "
            f"got {seeding.peak_since.isoformat()}",
        )
    cd = top.table("conduct", {}, doc="TEAM-CONDUCT-1..3, ACWC-CONDUCT-1: thresholds of the evidence the audits list.")
    conduct = Conduct(
        break_min_minutes=cd.num(
            "break_min_minutes",
            2.0,
            doc="A gap between two games of a board match longer than this many minutes is a break.",
        ),
        break_max_minutes=cd.num(
            "break_max_minutes", 10.0, doc="TEAM-CONDUCT-1: a break lasts at most this many minutes."
        ),
        part_gap_max_minutes=cd.num(
            "part_gap_max_minutes", 1.0, doc="TEAM-CONDUCT-2: at most this many minutes between parts."
        ),
        forfeits_to_disqualify=cd.int_(
            "forfeits_to_disqualify", 2, minimum=1, doc="TEAM-CONDUCT-3, ACWC-CONDUCT-1: forfeits that disqualify."
        ),
    )
    cd.done()
    top.done()
    if lichess_raw["history_since"] is None:
        lichess_raw["history_since"] = default_history_since(registration_at, rating_cap)
    lichess = LichessSource(**lichess_raw)  # type: ignore[arg-type]
    return Config(
        path=file,
        preset=preset,
        tournament_id=tournament_id,
        name=name,
        kind=kind,  # type: ignore[arg-type]
        boards=boards,
        registration_at=registration_at,
        lichess=lichess,
        paths=paths,
        stages=stages,
        eligibility=eligibility,
        rating_cap=rating_cap,
        composition=composition,
        champion=champion,
        runner_up=runner_up,
        schedule=schedule,
        seeding=seeding,
        conduct=conduct,
    )


_CRON_FIELD = re.compile(r"^[0-9A-Za-z*/,?-]+$")


def _build_schedule(s: _Table) -> Schedule:
    cron = s.str_("cron", Schedule.cron, doc="A 5-field cron line (minute hour day month weekday).")
    fields = cron.split()
    if len(fields) != 5 or not all(_CRON_FIELD.match(f) for f in fields):
        raise s.fail(
            "cron",
            f"expected a cron line of 5 fields (minute hour day month weekday) such as '0 3 * * *', got {cron!r}",
        )
    timezone = s.str_("timezone", Schedule.timezone, doc="The cron line's IANA time zone, e.g. Europe/Berlin.")
    try:
        zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise s.fail("timezone", f"expected an IANA time zone such as UTC or Europe/Berlin, got {timezone!r}") from None
    s.done()
    return Schedule(cron, timezone)


def _names(t: _Table, key: str, doc: str = "") -> tuple[str, ...]:
    names = t.raw(key, [], "list of Lichess names", doc)
    if not isinstance(names, list) or not all(isinstance(x, str) and x.strip() for x in names):
        raise t.fail(key, f"expected a list of Lichess names, got {names!r}")
    return tuple(names)


def _allowed_swaps(t: _Table) -> tuple[AllowedSwap, ...]:
    """TEAM-COMP-4: ``allowed_swaps = [{ team = "Pawn Stormers", boards = [1, 2] }, ...]``."""
    raw = t.raw("allowed_swaps", [], "list of tables", "TEAM-COMP-4: teams allowed to play two boards in either order.")
    if not isinstance(raw, list):
        raise t.fail(
            "allowed_swaps", f'expected a list such as [{{ team = "Pawn Stormers", boards = [1, 2] }}], got {raw!r}'
        )
    out = []
    for i, item in enumerate(raw):
        sw = _Table(t.file, item, f"{t._k('allowed_swaps')}[{i}]")
        team = sw.str_("team", doc="The team, as in teams.csv.")
        boards = sw.raw("boards", ..., "two board numbers", "The two boards, e.g. [1, 2].")
        if (
            not isinstance(boards, list)
            or len(boards) != 2
            or any(isinstance(b, bool) or not isinstance(b, int) or b < 1 for b in boards)
            or boards[0] == boards[1]
        ):
            raise sw.fail("boards", f"expected two different board numbers such as [1, 2], got {boards!r}")
        sw.done()
        out.append(AllowedSwap(team, min(boards), max(boards)))
    return tuple(out)


def default_history_since(registration_at: dt.datetime | None, cap: RatingCap) -> dt.datetime:
    """The backfill horizon when the config gives none: far enough back for every audit —
    TEAM-ELIG-4 looks 24 months before registration, TEAM-CAP-2 counts ratings since cap_since."""
    cap_since = dt.datetime(cap.cap_since.year, cap.cap_since.month, cap.cap_since.day, tzinfo=dt.UTC)
    if registration_at is None:
        return cap_since
    two_years = (
        registration_at.replace(year=registration_at.year - 2)
        if not (registration_at.month == 2 and registration_at.day == 29)
        else registration_at.replace(year=registration_at.year - 2, day=28)
    )
    return min(two_years, cap_since)


def _kashdan(s: _Table) -> tuple[float, float, float]:
    """The Kashdan tiebreak's points per match won, drawn and lost (Kashdan's own: 4, 2, 1)."""
    k = s.table(
        "kashdan",
        {"win": 4, "draw": 2, "loss": 1},
        doc="The Kashdan tiebreak's points per match won, drawn and lost (Kashdan's own: 4, 2, 1).",
    )
    out = (
        k.num("win", doc="Kashdan points for a match won."),
        k.num("draw", doc="Kashdan points for a match drawn."),
        k.num("loss", doc="Kashdan points for a match lost (an unplayed round scores 0)."),
    )
    k.done()
    return out


def _build_stage(s: _Table, name: str) -> Stage:
    kind = s.choice("kind", ("swiss", "round_robin", "knockout"), doc="How the stage pairs and ranks.")
    rounds_given = "rounds" in s.data
    rounds = s.int_(
        "rounds",
        1,
        minimum=1,
        maximum=99,
        doc="Rounds of the stage (pairings.csv rounds run 1..rounds). A TEAM knockout left unset follows the "
        "teams (TEAM-FMT-1: 10-15 teams -> 1 round, 16-31 -> 2, 32-63 -> 3).",
    )
    raw_parts = s.raw(
        "parts",
        ...,
        "list of tables",
        "TEAM-SCORE-1: the parts of a board match, in playing order: clock, games, points per win and draw.",
    )
    if not isinstance(raw_parts, list) or not raw_parts:
        raise s.fail(
            "parts",
            f'expected a list of parts such as {{ time_control = "2+5", games = 4, win = 12, draw = 6 }}, got {raw_parts!r}',
        )
    parts = []
    seen: set[TimeControl] = set()
    for i, raw in enumerate(raw_parts):
        pt = _Table(s.file, raw, f"{s.key}.parts[{i}]")
        tc_text = pt.str_("time_control", doc='The part\'s clock, minutes+increment, e.g. "2+5" or "0.5+1".')
        try:
            tc = parse_time_control(tc_text)
        except ValueError as e:
            raise pt.fail("time_control", str(e)) from None
        if tc in seen:
            raise pt.fail("time_control", f"{tc} appears in two parts: expected one part per time control")
        seen.add(tc)
        games = pt.int_("games", minimum=1, doc="Games of the part in a board match.")
        win = pt.num("win", doc="Points for a game won.")
        draw = pt.num("draw", doc="Points for a game drawn (at most win).")
        if draw > win:
            raise pt.fail("draw", f"expected at most the win value {win:g}, got {draw:g}")
        pt.done()
        parts.append(Part(tc, games, win, draw))
    tiebreaks = s.raw(
        "tiebreaks",
        ["points_difference", "points_scored", "median_buchholz"],
        "list of tiebreaks",
        f"The tiebreaks after the primary score, in order, from: {', '.join(TIEBREAKS)}.",
    )
    if not isinstance(tiebreaks, list) or any(tb not in TIEBREAKS for tb in tiebreaks):
        raise s.fail("tiebreaks", f"expected a list drawn from {', '.join(TIEBREAKS)}, got {tiebreaks!r}")
    mp = s.table(
        "match_points", {"win": 2, "draw": 1, "loss": 0}, doc="TEAM-SCORE-5: match points per match won, drawn, lost."
    )
    match_points = MatchPoints(
        mp.num("win", doc="Match points for a match won."),
        mp.num("draw", doc="Match points for a match drawn."),
        mp.num("loss", doc="Match points for a match lost."),
    )
    mp.done()
    stage = Stage(
        name=name,
        kind=kind,  # type: ignore[arg-type]
        rounds=rounds,
        parts=tuple(parts),
        primary=s.choice(
            "primary",
            PRIMARIES,
            "match_points",  # type: ignore[arg-type]
            doc="What ranks first: match points (TEAM) or game points (ACWC-Q-2).",
        ),
        tiebreaks=tuple(tiebreaks),
        match_points=match_points,
        rated_only=s.bool_("rated_only", False, doc="Only rated games count (ACWC-FMT-1)."),
        first_round_start=s.instant(
            "first_round_start",
            None,
            doc="Round 1's start (a Tuesday 00:00 UTC, TEAM-FMT-3); round r starts round_days later each. "
            "Unset: every pairings.csv row of the stage gives window_start and window_end.",
        ),
        round_days=s.int_("round_days", 7, minimum=1, doc="Days from one round's start to the next."),
        window_margin_days=s.int_(
            "window_margin_days", 3, doc="Games this many days outside a round window are listed as outside_window."
        ),
        play_all=s.bool_(
            "play_all", False, doc="ACWC-C-1: every game is played; no early decision at the winning total."
        ),
        buchholz_policy=s.choice(
            "buchholz_policy",
            ("plain", "fide-2024", "fide-2026"),
            "fide-2026",
            doc="How unplayed rounds enter Median-Buchholz (TEAM-TB-1): FIDE Art. 16 of 2026 or 2024, "
            "or plain (Challonge).",
        ),
        pab_points_scored=s.num(
            "pab_points_scored", None, doc="Points scored by a pairing-allocated bye; unset: the winning total."
        ),
        advance=s.int_(
            "advance", None, minimum=1, doc="ACWC-Q-3: the top N advance, plus one per previous finalist not named."
        ),
        kashdan=_kashdan(s),
        rounds_given=rounds_given,
    )
    s.done()
    return stage
