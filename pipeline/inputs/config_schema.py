"""The shape of ``tournament.toml``: one pydantic model per TOML table, the one statement of each
key's type, limits, default (written as in TOML) and description. :mod:`pipeline.inputs.config`
validates a document against :class:`_Document`, walks these models for the generated reference
(docs/config.md, ``key_specs``) and builds the frozen ``pipeline.model.Config`` from them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainValidator

from pipeline.inputs.config_values import (
    Date,
    MaybeUtcTime,
    Names,
    Text,
    TomlPath,
    UtcTime,
    _cron,
    _doc,
    _maybe_cron,
    _reject,
    _Shape,
    _time_control,
    _timezone,
    _two_boards,
    _two_entrants,
    number,
    whole,
)
from pipeline.model import (
    TIEBREAKS,
    Attention,
    EventKind,
    Primary,
    Schedule,
    Site,
    SiteAudits,
    StageKind,
    Tiebreak,
    TimeControl,
)


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
