"""``tournament.toml``: loaded with tomllib, validated with pydantic, built into the frozen types of
``pipeline.model``.

A tournament file names a preset (``data/presets/<name>.toml``) and overrides any of its
values: tables merge key by key, everything else (numbers, strings, arrays such as a
stage's ``parts``) is replaced whole. Unknown keys are errors, so a typo never silently
falls back to a default. Every error names the file, the dotted key and what was expected.

The pydantic models below are the one statement of the file's shape: each key's type, limits,
default (written as in TOML) and description. They validate the document; ``key_specs`` walks
them for the generated reference (docs/config.md); ``_problem`` turns pydantic's first error into
this project's message (``expected <what the key takes>, got <the value as written>``). What
pydantic cannot say (a time's UTC offset, a clock, a cron line) is checked by small validators
that raise the final message themselves; rules that span keys (draw at most win, one part per
clock, the working database beside the published one) are checked while building the model.

Pure: reads files, no network, database, clock or environment.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import tomllib
import types
import zoneinfo
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
from croniter import croniter
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainValidator, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError, PydanticUndefined

from pipeline.domain.timecontrol import parse_time_control
from pipeline.errors import InputError
from pipeline.model import (
    TIEBREAKS,
    AllowedSwap,
    Attention,
    Composition,
    Conduct,
    Config,
    Eligibility,
    EventKind,
    LichessNotify,
    LichessSource,
    MatchPoints,
    Notify,
    Part,
    Paths,
    Primary,
    RatingCap,
    Schedule,
    Seeding,
    Site,
    SiteAudits,
    Stage,
    StageKind,
    Tiebreak,
    TimeControl,
    Webhook,
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


# --------------------------------------------------------------------------- values pydantic cannot judge alone


@dataclass(frozen=True)
class _Shape:
    """How docs/config.md names a key's type (``kind``) and what its error says it expects
    (``expected``; empty when the key's validator writes its own message)."""

    kind: str
    expected: str = ""


def _reject(expected: str) -> PydanticCustomError:
    """A validator's error whose text is the final message (``{`` and ``}`` are pydantic's placeholders)."""
    return PydanticCustomError("config", expected.replace("{", "{{").replace("}", "}}"))


def _utc_time(v: Any) -> dt.datetime | None:
    """A TOML offset datetime, date, or an ISO-8601 string with an offset → an aware UTC datetime."""
    if v is None:
        return None
    if isinstance(v, str):
        try:
            v = dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
        except ValueError:
            raise _reject(f"expected a UTC time such as 2026-01-06T00:00:00Z, got {v!r}") from None
    if isinstance(v, dt.datetime):
        if v.tzinfo is None:
            raise _reject(f"expected a time with a UTC offset (e.g. 2026-01-06T00:00:00Z), got {v.isoformat()!r}")
        return v.astimezone(dt.UTC)
    if isinstance(v, dt.date):
        return dt.datetime(v.year, v.month, v.day, tzinfo=dt.UTC)
    raise _reject(f"expected a UTC time such as 2026-01-06T00:00:00Z, got {v!r}")


def _date(v: Any) -> dt.date:
    if isinstance(v, str):
        try:
            return dt.date.fromisoformat(v)
        except ValueError:
            pass
    elif isinstance(v, dt.date) and not isinstance(v, dt.datetime):
        return v
    raise _reject(f"expected a date such as 2025-01-01, got {v!r}")


def _time_control(v: Any) -> TimeControl:
    if not isinstance(v, str) or not v.strip():
        raise _reject(f"expected a non-empty string, got {v!r}")
    try:
        return parse_time_control(v)
    except ValueError as e:
        raise _reject(str(e)) from None


_CRON_RANGES = ("minute 0-59", "hour 0-23", "day 1-31", "month 1-12", "weekday 0-6")


def _cron(v: str) -> str:
    """A 5-field cron line as Prefect's scheduler reads it (croniter): ``0 3 * * *``."""
    fields = v.split()
    if len(fields) != 5:
        raise _reject(
            f"expected a cron line of 5 fields (minute hour day month weekday) such as '0 3 * * *', got {v!r}"
        )
    if not croniter.is_valid(v):
        # name the first field that is wrong on its own (every other field '*'), if there is one
        bad = [
            f"{_CRON_RANGES[i].split()[0]} {field!r} is not valid: "
            for i, field in enumerate(fields)
            if not croniter.is_valid(" ".join(field if j == i else "*" for j in range(5)))
        ]
        raise _reject(
            f"{bad[0] if bad else ''}expected a cron line such as '0 3 * * *' ({', '.join(_CRON_RANGES)}), got {v!r}"
        )
    return v


def _maybe_cron(v: str | None) -> str | None:
    return None if v is None else _cron(v)


def _timezone(v: str) -> str:
    try:
        zoneinfo.ZoneInfo(v)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise _reject(f"expected an IANA time zone such as UTC or Europe/Berlin, got {v!r}") from None
    return v


def _two_boards(v: Any) -> tuple[int, int]:
    if (
        not isinstance(v, list)
        or len(v) != 2
        or any(isinstance(b, bool) or not isinstance(b, int) or b < 1 for b in v)
        or v[0] == v[1]
    ):
        raise _reject(f"expected two different board numbers such as [1, 2], got {v!r}")
    return min(v), max(v)


def _two_entrants(v: Any) -> tuple[str, str]:
    if (
        not isinstance(v, list)
        or len(v) != 2
        or any(not isinstance(x, str) or not x.strip() for x in v)
        or v[0].strip().lower() == v[1].strip().lower()
    ):
        raise _reject(f'expected two different entrants such as ["Pawn Stormers", "Knight Riders"], got {v!r}')
    return v[0].strip(), v[1].strip()


Text = Annotated[str, Field(pattern=r"\S")]
UtcTime = Annotated[dt.datetime, PlainValidator(_utc_time), _Shape("UTC time")]
MaybeUtcTime = Annotated[dt.datetime | None, PlainValidator(_utc_time), _Shape("UTC time")]
Date = Annotated[dt.date, PlainValidator(_date), _Shape("date")]
TomlPath = Annotated[str, Field(pattern=r"\S"), _Shape("path", "a path")]  # relative to the file: see _paths
Names = Annotated[list[Text], _Shape("list of Lichess names", "a list of Lichess names")]


def _doc(default: Any, doc: str, **constraints: Any) -> Any:
    """A key: its default as written in TOML (``...``: required) and its description."""
    return Field(default, description=doc, **constraints)


def whole(default: Any, doc: str, minimum: int = 0, maximum: int | None = None) -> Any:
    return Field(default, description=doc, ge=minimum, le=maximum)


def number(default: Any, doc: str, minimum: float = 0) -> Any:
    return Field(default, description=doc, ge=minimum)


# --------------------------------------------------------------------------- the file's shape


class _Table(BaseModel):
    """A TOML table: strict types (no "7" for 7, no true for 1), unknown keys refused, defaults
    validated as if written in the file."""

    model_config = ConfigDict(strict=True, extra="forbid", validate_default=True)


class _Tournament(_Table):
    """The event: its id, name, kind and registration time."""

    id: Text = _doc(..., "A short id such as `team-swiss-2026`; names the `serve` deployment.")
    name: Text | None = _doc(None, "The name shown in round posts and exports; unset: the id.")
    kind: EventKind = _doc(..., "`team` (teams.csv) or `individual` (players.csv).")
    boards: int | None = whole(
        None,
        "Boards per team match (TEAM-COMP-1: 4 with 10 or more teams, 3 with fewer; 1 for individual events).",
        minimum=1,
        maximum=8,
    )
    registration_at: MaybeUtcTime = _doc(
        None, "When registration closed (TEAM-ELIG-1..4 and the seeding rating count back from it)."
    )
    champion: Text | None = _doc(None, "ACWC-Q-1: the previous champion, a players.csv name (skips the qualification).")
    runner_up: Text | None = _doc(
        None, "ACWC-Q-1: the previous runner-up, a players.csv name (skips the qualification)."
    )


class _Lichess(_Table):
    """Where the games come from and how politely they are fetched."""

    base_url: Text = _doc("https://lichess.org", "The Lichess server (or a replay server started by hand).")
    token_env: Text = _doc(
        "LICHESS_TOKEN",
        "The environment variable holding your Lichess token (never the token itself; see docs/token.md).",
    )
    timeout_s: float = number(30.0, "Seconds before a request with no answer is retried.", minimum=0.1)
    history_since: MaybeUtcTime = _doc(
        None,
        "No game created earlier is fetched; unset: 24 months before registration_at "
        "(TEAM-ELIG-4) or rating_cap.cap_since, whichever is earlier.",
    )
    replay_data: TomlPath | None = _doc(
        None, "A recorded Lichess dataset folder, served in-process instead of lichess.org (the demo)."
    )
    replay_games_per_s: float = number(
        30.0, "The replay server's games per second, as Lichess serves a token holder; 0: no throttle."
    )
    concurrency: int = whole(1, "Downloads at a time: 1 as Lichess asks, 2 its hard limit.", minimum=1, maximum=2)
    rate_limit_wait_s: float = number(
        60.0, "Seconds to wait after HTTP 429 (or Retry-After if longer), doubling on repeats."
    )
    backoff_s: float = number(2.0, "First wait after a 5xx or a connection error, doubling.")
    max_retries: int = whole(5, "Retries of one request before the run fails (exit 3).", maximum=20)


class _Paths(_Table):
    """The TD's files and the outputs, relative to the tournament.toml."""

    teams: TomlPath | None = _doc(None, "teams.csv (team events: required).")
    players: TomlPath | None = _doc(None, "players.csv (individual events: required).")
    pairings: TomlPath = _doc(..., "pairings.csv: every round's pairings and byes.")
    database: TomlPath = _doc(..., "The published DuckDB snapshot TDs and scripts read.")
    exports: TomlPath = _doc(..., "The folder of the CSV exports, round posts and charts.")
    overrides: TomlPath | None = _doc(None, "overrides.csv: the TD's rulings; unset: none.")
    work_database: TomlPath | None = _doc(
        None, "The runs' private working copy; unset: `<database>.work.duckdb` beside it."
    )
    prefect_home: TomlPath | None = _doc(
        None, "Prefect's home and SQLite database; unset: `.prefect` beside the database."
    )
    site: TomlPath | None = _doc(
        None, "The static website `antichess-td site` writes (any static host serves it); unset: `out/site`."
    )
    site_private: TomlPath | None = _doc(
        None,
        "The TDs' pages kept off the public site (the audits, when `site.audits` is private); "
        "unset: `site-private` beside the database.",
    )


class _Part(_Table):
    time_control: Annotated[TimeControl, PlainValidator(_time_control), _Shape("string")] = _doc(
        ..., 'The part\'s clock, minutes+increment, e.g. "2+5" or "0.5+1".'
    )
    games: int = whole(..., "Games of the part in a board match.", minimum=1)
    win: float = number(..., "Points for a game won.")
    draw: float = number(..., "Points for a game drawn (at most win).")


class _MatchPoints(_Table):
    win: float = number(..., "Match points for a match won.")
    draw: float = number(..., "Match points for a match drawn.")
    loss: float = number(..., "Match points for a match lost.")


class _Kashdan(_Table):
    win: float = number(..., "Kashdan points for a match won.")
    draw: float = number(..., "Kashdan points for a match drawn.")
    loss: float = number(..., "Kashdan points for a match lost (an unplayed round scores 0).")


class _LateEntrant(_Table):
    entrant: Text = _doc(..., "The entrant, as teams.csv / players.csv name it.")
    score: float = number(..., "The score it joins the Swiss with.")


_PARTS_EXAMPLE = '{ time_control = "2+5", games = 4, win = 12, draw = 6 }'


class _Stage(_Table):
    """One stage: its kind, rounds, parts, scoring and round windows."""

    kind: StageKind = _doc(..., "How the stage pairs and ranks.")
    rounds: int = whole(
        1,
        "Rounds of the stage (pairings.csv rounds run 1..rounds). A TEAM knockout left unset follows the "
        "teams (TEAM-FMT-1: 10-15 teams -> 1 round, 16-31 -> 2, 32-63 -> 3).",
        minimum=1,
        maximum=99,
    )
    parts: Annotated[list[_Part], _Shape("list of tables", f"a list of parts such as {_PARTS_EXAMPLE}")] = _doc(
        ...,
        "TEAM-SCORE-1: the parts of a board match, in playing order: clock, games, points per win and draw.",
        min_length=1,
    )
    tiebreaks: Annotated[list[Tiebreak], _Shape("list of tiebreaks", f"a list drawn from {', '.join(TIEBREAKS)}")] = (
        _doc(
            ["points_difference", "points_scored", "median_buchholz"],
            f"The tiebreaks after the primary score, in order, from: {', '.join(TIEBREAKS)}.",
        )
    )
    match_points: _MatchPoints = _doc(
        {"win": 2, "draw": 1, "loss": 0}, "TEAM-SCORE-5: match points per match won, drawn, lost."
    )
    primary: Primary = _doc("match_points", "What ranks first: match points (TEAM) or game points (ACWC-Q-2).")
    rated_only: bool = _doc(False, "Only rated games count (ACWC-FMT-1).")
    first_round_start: MaybeUtcTime = _doc(
        None,
        "Round 1's start (a Tuesday 00:00 UTC, TEAM-FMT-3); round r starts round_days later each. "
        "Unset: every pairings.csv row of the stage gives window_start and window_end.",
    )
    round_days: int = whole(7, "Days from one round's start to the next.", minimum=1)
    window_margin_days: int = whole(3, "Games this many days outside a round window are listed as outside_window.")
    play_all: bool = _doc(False, "ACWC-C-1: every game is played; no early decision at the winning total.")
    buchholz_policy: Literal["plain", "fide-2024", "fide-2026"] = _doc(
        "fide-2026",
        "How unplayed rounds enter Median-Buchholz (TEAM-TB-1): FIDE Art. 16 of 2026 or 2024, or plain (Challonge).",
    )
    pab_points_scored: float | None = number(
        None, "Points scored by a pairing-allocated bye; unset: the winning total."
    )
    advance: int | None = whole(
        None, "ACWC-Q-3: the top N advance, plus one per previous finalist not named.", minimum=1
    )
    kashdan: _Kashdan = _doc(
        {"win": 4, "draw": 2, "loss": 1},
        "The Kashdan tiebreak's points per match won, drawn and lost (Kashdan's own: 4, 2, 1).",
    )
    forbidden_pairs: Annotated[
        list[Annotated[tuple[str, str], PlainValidator(_two_entrants)]],
        _Shape("list of pairs", 'a list of pairs such as [["Pawn Stormers", "Knight Riders"]]'),
    ] = _doc(
        [],
        "Swiss pairing (`antichess-td pair`): entrants never paired with each other (e.g. two players of "
        "one club), as teams.csv / players.csv name them.",
    )
    late_entrants: Annotated[
        list[_LateEntrant], _Shape("list of tables", 'a list such as [{ entrant = "Late Team", score = 2 }]')
    ] = _doc(
        [],
        "Swiss pairing: entrants who join late, each with the score it joins with (in the stage's primary "
        "score: match points or game points), as the TD decides; everyone else starts from 0.",
    )


class _Eligibility(_Table):
    """TEAM-ELIG-1..7 (relative to registration_at) and ACWC-ELIG-1..3 (fixed dates)."""

    min_account_age_months: int = whole(6, "TEAM-ELIG-1: calendar months the account existed before registration.")
    min_rated_games: int = whole(1000, "TEAM-ELIG-2, ACWC-ELIG-2: rated antichess games before registration.")
    min_recent_games: int = whole(100, "TEAM-ELIG-3: rated antichess games in the recent_months before registration.")
    recent_months: int = whole(3, "TEAM-ELIG-3: the months min_recent_games counts over.")
    cheat_months_one: int = whole(12, "TEAM-ELIG-4: no cheat-detected game lost in these months before registration.")
    cheat_months_two: int = whole(24, "TEAM-ELIG-4: not two in these months.")
    pairings_announced_at: MaybeUtcTime = _doc(
        None, "TEAM-ELIG-7's moment; unset: the first stage's first_round_start."
    )
    provisional_rd: float = number(110.0, "TEAM-ELIG-7: a rating is provisional at this RD or above.", minimum=1)
    assumed_volatility: float = number(0.09, "TEAM-ELIG-7: the Glicko-2 volatility an RD estimate is decayed with.")
    created_before: UtcTime = _doc("2021-03-01T00:00:00Z", "ACWC-ELIG-1: accounts created before this.")
    games_before: UtcTime = _doc("2021-09-01T00:00:00Z", "ACWC-ELIG-2: min_rated_games counted before this.")
    one_cheat_since: UtcTime = _doc(
        "2020-09-01T00:00:00Z", "ACWC-ELIG-3: one cheat-detected game since this disqualifies."
    )
    two_cheats_since: UtcTime = _doc(
        "2018-09-01T00:00:00Z", "ACWC-ELIG-3: two cheat-detected games since this disqualify."
    )


class _RatingCap(_Table):
    """TEAM-CAP-1..6: the last board's rating cap."""

    cap_since: Date = _doc("2025-01-01", "TEAM-CAP-2: ratings count from this date.")
    replace_by: Date = _doc("2025-04-25", "TEAM-CAP-6: above the cap before this date → must be replaced.")
    cap_two_agm: int = whole(2000, "TEAM-CAP-1: the cap of a team with two AGMs.")
    cap_one_asgm: int = whole(2100, "TEAM-CAP-1: the cap of a team with one ASGM.")
    cap_one_agm: int = whole(2150, "TEAM-CAP-1: the cap of a team with one AGM.")
    cap_no_title: int = whole(2200, "TEAM-CAP-1: the cap of a team without titles.")
    min_cross_days: int = whole(3, "TEAM-CAP-3: above the cap on this many different days.", minimum=1)
    max_rd: int = whole(80, "TEAM-CAP-5: a crossing at an RD above this does not count.", minimum=1)
    hold_hours: float = number(24.0, "TEAM-CAP-4: above the cap for longer than this many hours.")


class _AllowedSwap(_Table):
    team: Text = _doc(..., "The team, as in teams.csv.")
    boards: Annotated[tuple[int, int], PlainValidator(_two_boards), _Shape("two board numbers")] = _doc(
        ..., "The two boards, e.g. [1, 2]."
    )


_SWAPS_EXAMPLE = '[{ team = "Pawn Stormers", boards = [1, 2] }]'


class _Composition(_Table):
    """TEAM-COMP-2..8: who may play on which team and board."""

    strongest_players: Names = _doc(
        [], "TEAM-COMP-3: the rule book's strongest players, who must be on different teams."
    )
    max_titled: int = whole(2, "TEAM-COMP-2: AGM-or-higher players per team (ASGM counts as higher).")
    allowed_swaps: Annotated[list[_AllowedSwap], _Shape("list of tables", f"a list such as {_SWAPS_EXAMPLE}")] = _doc(
        [], "TEAM-COMP-4: teams allowed to play two boards in either order."
    )
    board_order_tolerance: int = whole(
        50, "TEAM-COMP-4: a lower board rated more than this above a higher one is an error, less a warning."
    )
    substitute_max_diff: int = whole(
        100, "TEAM-COMP-5: the 5th member and the player sitting out are similar within this."
    )
    replacement_min_below: int = whole(
        100, "TEAM-COMP-6: a replacement is at least this much below the player replaced."
    )
    tournament_directors: Names = _doc([], "TEAM-COMP-8: the TDs' Lichess names (no TD captain, no two on a team).")


class _Schedule(_Table):
    """When `antichess-td serve` runs the nightly flow."""

    cron: Annotated[Text, AfterValidator(_cron), _Shape("cron line", "a non-empty string")] = _doc(
        Schedule.cron,
        "A 5-field cron line, as Prefect reads it: minute 0-59, hour 0-23, day 1-31, month 1-12, weekday 0-6.",
    )
    timezone: Annotated[Text, AfterValidator(_timezone), _Shape("string", "a non-empty string")] = _doc(
        Schedule.timezone, "The cron line's IANA time zone, e.g. Europe/Berlin."
    )
    closing_day_cron: Annotated[Text | None, AfterValidator(_maybe_cron), _Shape("cron line", "a non-empty string")] = (
        _doc(
            Schedule.closing_day_cron,
            "A second cron line (same time zone) for refresh runs on the days windows close, e.g. "
            "`0 12-23 * * 1`: hourly from 12:00 on Mondays. A refresh fetches only what is new, works only "
            "when a round window closes within 24 hours, and publishes only when something changed.",
        )
    )


class _Seeding(_Table):
    """The seeding rating (ACWC-SEED-1; TEAM-COMP-4's board order)."""

    rating_at: MaybeUtcTime = _doc(None, "The rating as of this time; unset: registration_at.")
    peak_since: MaybeUtcTime = _doc(
        None, "Set: averaged with the highest rating from this time to rating_at (ACWC-SEED-1)."
    )


class _Conduct(_Table):
    """TEAM-CONDUCT-1..3, ACWC-CONDUCT-1: thresholds of the evidence the audits list."""

    break_min_minutes: float = number(
        2.0, "A gap between two games of a board match longer than this many minutes is a break."
    )
    break_max_minutes: float = number(10.0, "TEAM-CONDUCT-1: a break lasts at most this many minutes.")
    part_gap_max_minutes: float = number(1.0, "TEAM-CONDUCT-2: at most this many minutes between parts.")
    forfeits_to_disqualify: int = whole(2, "TEAM-CONDUCT-3, ACWC-CONDUCT-1: forfeits that disqualify.", minimum=1)


class _Site(_Table):
    """The static website (`antichess-td site`, the nightly run's last step)."""

    audits: SiteAudits = _doc(
        Site.audits,
        "`private`: the audits section (every finding, its evidence and chart) is written to "
        "`paths.site_private` for the TDs only; `public`: it is published with the site.",
    )


class _Attention(_Table):
    """The attention list: what needs the TD today (`antichess-td attention`, the nightly's last lines)."""

    days_left: int = whole(
        Attention.days_left,
        "A board match with games still due is listed once at most this many days are left in its round window (TEAM-FMT-3).",
    )


def _players_or_all(v: Any) -> tuple[str, ...] | Literal["all"]:
    """``"all"`` or a list of Lichess names (each non-empty)."""
    if v == "all":
        return "all"
    if isinstance(v, list) and all(isinstance(x, str) and x.strip() for x in v):
        return tuple(x.strip() for x in v)
    raise _reject(f'expected "all" or a list of Lichess names such as ["alice", "bob"], got {v!r}')


class _Webhook(_Table):
    url_env: Annotated[
        str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$"), _Shape("string", "an environment variable name")
    ] = _doc(..., "The environment variable holding the webhook's URL (a secret: never the URL itself).")
    format: Literal["discord", "slack", "json"] = _doc(
        ..., '`discord`, `slack` or `json` (a plain `{"items": [...]}` for your own scripts).'
    )


_WEBHOOKS_EXAMPLE = '[{ url_env = "TD_DISCORD_WEBHOOK", format = "discord" }]'


class _NotifyLichess(_Table):
    """Messages on Lichess, sent with the token of `lichess.token_env` (docs/token.md: its scopes)."""

    team: Text | None = _doc(
        None, "The Lichess team id (as in its URL) that round announcements go to; needs the `team:lead` scope."
    )
    announce: Annotated[
        list[Literal["pairings", "standings"]], _Shape("list", 'a list drawn from "pairings", "standings"')
    ] = _doc([], 'What a round announcement holds: `"pairings"` (and windows), `"standings"`, or both. Empty: none.')
    standings_top: int = whole(10, "Entrants of the standings an announcement lists.", minimum=1)
    reminders: bool = _doc(False, "Send reminders to the players who opted in (needs the `msg:write` scope).")
    reminder_hours: float = number(
        24.0, "A reminder goes out this many hours before the window closes, to a board with games still due."
    )
    reminder_players: Annotated[
        tuple[str, ...] | Literal["all"], PlainValidator(_players_or_all), _Shape('"all" or list of Lichess names')
    ] = _doc([], 'The players who opted in to reminders: their Lichess names, or `"all"`.')


class _Notify(_Table):
    """What the end of a run tells TDs (webhooks) and players (Lichess); docs/td-guide.md, Your week."""

    webhooks: Annotated[list[_Webhook], _Shape("list of tables", f"a list such as {_WEBHOOKS_EXAMPLE}")] = _doc(
        [], "Webhooks the new attention items are posted to, one message per webhook and run."
    )
    timeout_s: float = number(
        10.0, "Seconds a webhook has to answer before the delivery counts as failed.", minimum=0.1
    )
    lichess: _NotifyLichess = _doc({}, _NotifyLichess.__doc__ or "")


class _Document(_Table):
    tournament: _Tournament = _doc(..., _Tournament.__doc__ or "")
    lichess: _Lichess = _doc({}, _Lichess.__doc__ or "")
    paths: _Paths = _doc(..., _Paths.__doc__ or "")
    stages: dict[str, _Stage] = _doc(
        ..., "One table per stage, in playing order, named as in pairings.csv's stage column."
    )
    eligibility: _Eligibility = _doc({}, _Eligibility.__doc__ or "")
    rating_cap: _RatingCap = _doc({}, _RatingCap.__doc__ or "")
    composition: _Composition = _doc({}, _Composition.__doc__ or "")
    schedule: _Schedule = _doc({}, _Schedule.__doc__ or "")
    seeding: _Seeding = _doc({}, _Seeding.__doc__ or "")
    conduct: _Conduct = _doc({}, _Conduct.__doc__ or "")
    site: _Site = _doc({}, _Site.__doc__ or "")
    attention: _Attention = _doc({}, _Attention.__doc__ or "")
    notify: _Notify = _doc({}, _Notify.__doc__ or "")


# --------------------------------------------------------------------------- the keys, for docs and errors


@dataclass(frozen=True)
class KeySpec:
    """One key as the loader reads it: the reference (docs/config.md) is generated from these, so a
    key cannot be accepted without being documented. ``key`` is dotted, with ``<name>`` for a stage
    and ``[]`` for an array item; ``default`` is the loader's own (``...``: the key is required)."""

    key: str
    kind: str
    default: Any
    doc: str


@dataclass(frozen=True)
class _Key:
    spec: KeySpec
    expected: str  # what an error says the key takes
    keys: tuple[str, ...] = ()  # a table's own keys (for "unknown key: expected one of ...")


def _bare(annotation: Any, keep_annotated: bool = False) -> Any:
    """``int | None`` → ``int``; ``Annotated[str, ...]`` → ``str`` (unless ``keep_annotated``)."""
    if get_origin(annotation) in (Union, types.UnionType):
        annotation = next(a for a in get_args(annotation) if a is not type(None))
    if get_origin(annotation) is Annotated and not keep_annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _describe(field: FieldInfo) -> tuple[str, str]:
    """The key's type as the reference shows it and what its error says it expects."""
    optional = _bare(field.annotation, keep_annotated=True)  # `Text | None`: the shape is inside
    inner = get_args(optional)[1:] if get_origin(optional) is Annotated else ()
    shape = next((m for m in (*field.metadata, *inner) if isinstance(m, _Shape)), None)
    if shape is not None:
        return shape.kind, shape.expected
    annotation = _bare(field.annotation)
    low = next((m.ge for m in field.metadata if isinstance(m, annotated_types.Ge)), 0)
    high = next((m.le for m in field.metadata if isinstance(m, annotated_types.Le)), None)
    if get_origin(annotation) is Literal:
        options = get_args(annotation)
        return " / ".join(f'"{o}"' for o in options), f"one of {', '.join(options)}"
    if annotation is bool:
        return "true / false", "true or false"
    if annotation is int and high is not None:
        return f"whole number {low}–{high}", f"a whole number from {low} to {high}"
    if annotation is int:
        return f"whole number ≥ {low}", f"a whole number of at least {low}"
    if annotation is float:
        return f"number ≥ {low:g}", f"a number of at least {low:g}"
    return "string", "a non-empty string"


def _table_of(annotation: Any) -> tuple[type[_Table] | None, str]:
    """The table a key holds: itself (``""``), each item of a list (``"[]"``) or each value of a
    dict (``".<name>"``); None for a value."""
    args = get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, _Table):
        return annotation, ""
    if get_origin(annotation) is list and args and isinstance(args[0], type) and issubclass(args[0], _Table):
        return args[0], "[]"
    if get_origin(annotation) is dict:
        return args[1], ".<name>"
    return None, ""


def _walk(model: type[_Table], prefix: str = "") -> Iterator[_Key]:
    """Every key of a table and of the tables inside it, in declaration (reading) order."""
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        default = ... if field.default is PydanticUndefined else field.default
        table, item = _table_of(_bare(field.annotation))
        if table is None or item == "[]":
            kind, expected = _describe(field)
            yield _Key(KeySpec(key, kind, default, field.description or ""), expected)
        else:
            keys = tuple(table.model_fields) if item == "" else ()
            yield _Key(KeySpec(key, "table", default, field.description or ""), "a table", keys)
        if table is None:
            continue
        if item:
            keys = tuple(table.model_fields)
            yield _Key(KeySpec(key + item, "table", ..., table.__doc__ or ""), "a table", keys)
        yield from _walk(table, f"{key}{item}.")


def key_specs() -> list[KeySpec]:
    """Every key tournament.toml takes (``preset`` aside), tables before their keys; the list
    items (``parts[]``) are internal and left out."""
    return [k.spec for k in _walk(_Document) if not k.spec.key.endswith("[]")]


_KEYS = {k.spec.key: k for k in _walk(_Document)}


# --------------------------------------------------------------------------- pydantic's errors → messages


def _dotted(loc: tuple[int | str, ...]) -> str:
    """``("stages", "swiss", "parts", 2, "games")`` → ``stages.swiss.parts[2].games``."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")


def _generic_key(dotted: str) -> str:
    """``stages.swiss.parts[2].games`` → ``stages.<name>.parts[].games``."""
    return re.sub(r"\[\d+\]", "[]", re.sub(r"^stages\.[^.\[]+", "stages.<name>", dotted))


def _written(doc: Any, loc: tuple[int | str, ...]) -> Any:
    for part in loc:
        doc = doc[part]
    return doc


def _problem(file: Path, doc: dict[str, Any], error: ValidationError) -> InputError:
    """The message for the first error pydantic found (fields in reading order, then a table's
    unknown keys; of several unknown keys the first in sorted order)."""
    first = error.errors()[0]
    loc = tuple(first["loc"])
    if first["type"] == "extra_forbidden":
        siblings = [e["loc"] for e in error.errors() if e["type"] == "extra_forbidden" and e["loc"][:-1] == loc[:-1]]
        loc = min(siblings, key=lambda s: str(s[-1]))
        table = _KEYS[_generic_key(_dotted(loc[:-1]))].keys if len(loc) > 1 else tuple(_Document.model_fields)
        return _fail(file, loc, f"unknown key: expected one of {', '.join(sorted(table))}")
    if first["type"] == "missing":
        return _fail(file, loc, "missing: expected a value")
    if first["type"] == "config":
        return _fail(file, loc, first["msg"])
    if first["type"] in ("model_type", "dict_type"):
        return _fail(file, loc, f"expected a table, got {first['input']!r}")
    # a value of the wrong type or out of range: the innermost key that has a description (a list's
    # item is judged as the whole list), with the value as written
    while loc and (_generic_key(_dotted(loc)) not in _KEYS or _generic_key(_dotted(loc)).endswith("[]")):
        loc = loc[:-1]
    expected = _KEYS[_generic_key(_dotted(loc))].expected
    return _fail(file, loc, f"expected {expected}, got {_written(doc, loc)!r}")


def _fail(file: Path, loc: tuple[int | str, ...] | str, expected: str) -> InputError:
    return InputError(file, f"key '{loc if isinstance(loc, str) else _dotted(loc)}'", expected)


# --------------------------------------------------------------------------- the frozen Config


def _build(file: Path, preset: str, doc: dict[str, Any]) -> Config:
    try:
        d = _Document.model_validate(doc)
    except ValidationError as e:
        raise _problem(file, doc, e) from None
    t = d.tournament
    if not d.stages:
        raise _fail(file, "stages", "expected at least one stage")
    if d.seeding.rating_at is not None and d.seeding.peak_since is not None:
        if d.seeding.peak_since >= d.seeding.rating_at:
            raise _fail(
                file,
                "seeding.peak_since",
                f"expected a time before seeding.rating_at {d.seeding.rating_at.isoformat()}, "
                f"got {d.seeding.peak_since.isoformat()}",
            )
    rating_cap = RatingCap(**dict(d.rating_cap))
    return Config(
        path=file,
        preset=preset,
        tournament_id=t.id,
        name=t.name or t.id,
        kind=t.kind,
        boards=t.boards if t.boards is not None else (1 if t.kind == "individual" else 4),
        registration_at=t.registration_at,
        lichess=_lichess(d.lichess, file.resolve().parent, t.registration_at, rating_cap),
        paths=_paths(file, d.paths, t.kind),
        stages=tuple(_stage(file, name, s) for name, s in d.stages.items()),
        eligibility=Eligibility(**dict(d.eligibility)),
        rating_cap=rating_cap,
        composition=_composition(d.composition),
        champion=t.champion,
        runner_up=t.runner_up,
        schedule=Schedule(**dict(d.schedule)),
        seeding=Seeding(**dict(d.seeding)),
        conduct=Conduct(**dict(d.conduct)),
        site=Site(**dict(d.site)),
        attention=Attention(**dict(d.attention)),
        notify=_notify(file, d.notify),
    )


def _notify(file: Path, n: _Notify) -> Notify:
    seen: set[str] = set()
    for i, w in enumerate(n.webhooks):
        if w.url_env in seen:
            raise _fail(
                file, f"notify.webhooks[{i}].url_env", f"{w.url_env!r} appears twice: expected one webhook per variable"
            )
        seen.add(w.url_env)
    li = n.lichess
    if li.announce and li.team is None:
        raise _fail(
            file, "notify.lichess.team", "missing: announcements (notify.lichess.announce) need the Lichess team id"
        )
    if li.reminders and not li.reminder_players:
        raise _fail(
            file,
            "notify.lichess.reminder_players",
            'expected the players who opted in (Lichess names, or "all"): notify.lichess.reminders is true',
        )
    return Notify(
        webhooks=tuple(Webhook(w.url_env, w.format) for w in n.webhooks),
        timeout_s=n.timeout_s,
        lichess=LichessNotify(
            team=li.team,
            announce=tuple(dict.fromkeys(li.announce)),
            standings_top=li.standings_top,
            reminders=li.reminders,
            reminder_hours=li.reminder_hours,
            reminder_players=li.reminder_players,
        ),
    )


def _lichess(li: _Lichess, base: Path, registration_at: dt.datetime | None, cap: RatingCap) -> LichessSource:
    return LichessSource(
        **{
            **dict(li),
            "base_url": li.base_url.rstrip("/"),
            "replay_data": None if li.replay_data is None else base / li.replay_data,
            "history_since": li.history_since or default_history_since(registration_at, cap),
        }
    )


def _paths(file: Path, p: _Paths, kind: EventKind) -> Paths:
    """The paths relative to the tournament.toml's folder (an absolute path stays as it is), with
    the working database and Prefect's home beside the published database unless set."""
    base = file.resolve().parent
    resolved: dict[str, Any] = {k: None if v is None else base / v for k, v in dict(p).items()}
    paths = Paths(**resolved)
    if paths.work_database is None:
        paths = dataclasses.replace(paths, work_database=paths.database.with_name(f"{paths.database.stem}.work.duckdb"))
    if paths.prefect_home is None:
        paths = dataclasses.replace(paths, prefect_home=default_prefect_home(paths.database))
    if paths.work_database == paths.database:
        raise _fail(
            file,
            "paths.work_database",
            f"{paths.database}: expected a file other than paths.database "
            "(runs write the working copy and publish it onto paths.database)",
        )
    if paths.site is None:
        paths = dataclasses.replace(paths, site=base / "out" / "site")
    if paths.site_private is None:
        paths = dataclasses.replace(paths, site_private=paths.database.parent / "site-private")
    assert paths.site is not None and paths.site_private is not None
    for key, folder in (("paths.site", paths.site), ("paths.site_private", paths.site_private)):
        # a site build replaces its folder whole: nothing else may live in it
        inside = [
            f"{name} ({f})"
            for name, f in (
                ("the tournament.toml", file.resolve()),
                ("paths.database", paths.database),
                ("paths.work_database", paths.work_database),
                ("paths.exports", paths.exports),
            )
            if f is not None and f.resolve().is_relative_to(folder.resolve())
        ]
        if inside:
            raise _fail(
                file,
                key,
                f"{folder}: expected a folder of its own (each site build replaces it whole), "
                f"but it holds {', '.join(inside)}",
            )
    if paths.site_private.resolve().is_relative_to(paths.site.resolve()):
        raise _fail(
            file,
            "paths.site_private",
            f"{paths.site_private}: expected a folder outside paths.site ({paths.site}): "
            "the TDs' pages must not be published with the site",
        )
    if paths.site.resolve().is_relative_to(paths.site_private.resolve()):
        raise _fail(
            file,
            "paths.site",
            f"{paths.site}: expected a folder outside paths.site_private ({paths.site_private})",
        )
    if kind == "team" and paths.teams is None:
        raise _fail(file, "paths.teams", "missing: a team event needs a teams.csv path")
    if kind == "individual" and paths.players is None:
        raise _fail(file, "paths.players", "missing: an individual event needs a players.csv path")
    return paths


def _composition(c: _Composition) -> Composition:
    swaps = tuple(AllowedSwap(s.team, *s.boards) for s in c.allowed_swaps)
    names = {"strongest_players": tuple(c.strongest_players), "tournament_directors": tuple(c.tournament_directors)}
    return Composition(**{**dict(c), **names, "allowed_swaps": swaps})


def _stage(file: Path, name: str, s: _Stage) -> Stage:
    seen: set[TimeControl] = set()
    for i, part in enumerate(s.parts):
        key = f"stages.{name}.parts[{i}]"
        if part.time_control in seen:
            raise _fail(
                file,
                f"{key}.time_control",
                f"{part.time_control} appears in two parts: expected one part per time control",
            )
        seen.add(part.time_control)
        if part.draw > part.win:
            raise _fail(file, f"{key}.draw", f"expected at most the win value {part.win:g}, got {part.draw:g}")
    return Stage(
        **{
            **dict(s),
            "name": name,
            "parts": tuple(Part(p.time_control, p.games, p.win, p.draw) for p in s.parts),
            "tiebreaks": tuple(s.tiebreaks),
            "match_points": MatchPoints(**dict(s.match_points)),
            "kashdan": (s.kashdan.win, s.kashdan.draw, s.kashdan.loss),
            "rounds_given": "rounds" in s.model_fields_set,
            "forbidden_pairs": tuple(s.forbidden_pairs),
            "late_entrants": tuple((e.entrant, e.score) for e in s.late_entrants),
        }
    )


def default_prefect_home(database: Path) -> Path:
    """Prefect's home when paths.prefect_home is unset: a ``.prefect`` folder beside the database."""
    return database.parent / ".prefect"


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
