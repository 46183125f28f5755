"""The frozen types every layer shares: the tournament's configuration and the TD's files as values.

``pipeline.inputs`` reads tournament.toml, the presets and the TD CSVs into these types; the pure
rules in ``pipeline.domain`` take them as arguments. Nothing here reads a file, the clock or the
environment.
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Literal

# --------------------------------------------------------------------------- time controls


@dataclass(frozen=True, order=True)
class TimeControl:
    """A clock: initial time and increment, both in whole seconds."""

    initial_s: int
    increment_s: int

    def __post_init__(self) -> None:
        if self.initial_s < 0 or self.increment_s < 0:
            raise ValueError(f"time control cannot be negative: {self.initial_s}+{self.increment_s}")

    def __str__(self) -> str:
        return _player_form(self.initial_s, self.increment_s)

    @property
    def pgn_tag(self) -> str:
        return f"{self.initial_s}+{self.increment_s}"


@functools.cache
def _player_form(initial_s: int, increment_s: int) -> str:
    """``2+5``, ``0.5+1``: minutes+seconds as players write them (a handful of clocks, asked for
    once per linked game: cached)."""
    minutes = Fraction(initial_s, 60)
    if minutes.denominator == 1:
        shown = str(minutes.numerator)
    else:
        shown = f"{float(minutes):g}"
    return f"{shown}+{increment_s}"


# --------------------------------------------------------------------------- tournament.toml


StageKind = Literal["swiss", "round_robin", "knockout"]


EventKind = Literal["team", "individual"]


Primary = Literal["match_points", "game_points"]


BuchholzPolicy = Literal["plain", "fide-2024", "fide-2026"]  # TEAM-TB-1 (pipeline/domain/tiebreak.py)


Tiebreak = Literal[
    "points_difference",
    "points_scored",
    "median_buchholz",
    "cumulative",
    "seed",
    "mutual_match",
    "mutual_game",
    "td_order",
    "kashdan",
]


TIEBREAKS: tuple[str, ...] = (
    "points_difference",
    "points_scored",
    "median_buchholz",
    "cumulative",
    "seed",
    "mutual_match",
    "mutual_game",
    "td_order",
    "kashdan",
)


PRIMARIES: tuple[str, ...] = ("match_points", "game_points")


@dataclass(frozen=True)
class Part:
    """One part of a board match: ``games`` games at one clock, points per win and per draw (TEAM-SCORE-1)."""

    time_control: TimeControl
    games: int
    win: float
    draw: float

    @property
    def max_points(self) -> float:
        return self.games * self.win


@dataclass(frozen=True)
class MatchPoints:
    """Match points for a won, drawn and lost team match (TEAM-SCORE-5: 2/1/0 by default)."""

    win: float
    draw: float
    loss: float


@dataclass(frozen=True)
class Stage:
    name: str
    kind: StageKind
    rounds: int
    parts: tuple[Part, ...]
    primary: Primary
    tiebreaks: tuple[str, ...]
    match_points: MatchPoints
    rated_only: bool
    first_round_start: dt.datetime | None
    round_days: int
    window_margin_days: int
    play_all: bool = False  # ACWC-C-1: every game is played; no early decision at the winning total
    buchholz_policy: BuchholzPolicy = "fide-2026"  # TEAM-TB-1: how unplayed rounds enter (Median-)Buchholz
    advance: int | None = None  # ACWC-Q-3: the top N advance (plus one per absent previous finalist)
    pab_points_scored: float | None = None  # a pairing-allocated bye's points scored (None: the winning total)
    kashdan: tuple[float, float, float] = (4.0, 2.0, 1.0)  # Kashdan tiebreak: points per match won, drawn, lost
    # False: the config does not set `rounds`; a team event's knockout bracket then has as many
    # rounds as TEAM-FMT-1's qualifiers call for (run.bracket_size; `rounds` here is a stand-in)
    rounds_given: bool = True
    # Swiss pairing (pipeline/domain/dutch.py): pairs of entrants never paired, and the score a
    # late entrant joins with (entrant, score in the primary score's units), as the config names them
    forbidden_pairs: tuple[tuple[str, str], ...] = ()
    late_entrants: tuple[tuple[str, float], ...] = ()

    @property
    def board_max_points(self) -> float:
        return sum(p.max_points for p in self.parts)

    def round_window(self, round_no: int) -> tuple[dt.datetime, dt.datetime] | None:
        """Default window of a round, ``[start, end)``: TEAM-FMT-3's Tuesday 00:00 to Monday 23:59:59 UTC."""
        if self.first_round_start is None:
            return None
        start = self.first_round_start + dt.timedelta(days=self.round_days * (round_no - 1))
        return start, start + dt.timedelta(days=self.round_days)


@dataclass(frozen=True)
class League:
    """Several tournaments served together (``league.toml``, pipeline/inputs/league.py): one
    shared store of Lichess data, where what one tournament fetched less than ``fresh`` ago is
    what the others read instead of fetching it again, and one request lane per token."""

    league_id: str
    path: Path | None  # the league.toml; None for a league of several --config without one
    store: Path  # the shared Lichess store (a DuckDB file)
    fresh: dt.timedelta
    configs: tuple[Path, ...]  # the tournaments' tournament.toml files, resolved


@dataclass(frozen=True)
class LichessSource:
    base_url: str
    token_env: str
    timeout_s: float
    history_since: dt.datetime  # the backfill horizon: no game created earlier is ever fetched
    replay_data: Path | None
    replay_games_per_s: float  # the in-process replay server's throttle (0 = off)
    concurrency: int  # concurrent game downloads: 1 (Lichess asks one at a time) or 2 (its limit)
    rate_limit_wait_s: float  # after HTTP 429 (Lichess: wait a minute)
    backoff_s: float  # first retry delay after a 5xx or a connection error, doubling
    max_retries: int
    # not a tournament.toml key: a refresh run (``nightly --refresh``) sets it to the start of its UTC
    # day, and a rating history stored since then is not fetched again that day
    histories_fresh_since: dt.datetime | None = None


@dataclass(frozen=True)
class Paths:
    teams: Path | None
    players: Path | None
    pairings: Path
    database: Path
    exports: Path
    overrides: Path | None = None
    work_database: Path | None = None  # the runs' private working copy (default <database>.work.duckdb beside it)
    prefect_home: Path | None = None  # Prefect's home and SQLite database (default .prefect beside the database)
    site: Path | None = None  # the static website (the loader sets it: default out/site beside the tournament.toml)
    site_private: Path | None = None  # the TDs' pages (audits when private; default site-private beside the database)


SiteAudits = Literal["public", "private"]


@dataclass(frozen=True)
class Site:
    """The static website (``antichess-td site``): whether the audits section is published with it
    (``public``) or written to ``paths.site_private`` for the TDs only (``private``)."""

    audits: SiteAudits = "private"


WebhookFormat = Literal["discord", "slack", "json"]
Announcement = Literal["pairings", "standings"]


@dataclass(frozen=True)
class Webhook:
    """A webhook the attention list is posted to: ``url_env`` names the environment variable holding
    its URL (a secret, like the token: never in a file), ``format`` the service that reads it."""

    url_env: str
    format: WebhookFormat


@dataclass(frozen=True)
class LichessNotify:
    """Messages on Lichess (docs/td-guide.md, Your week): round announcements to the Lichess
    ``team`` by ``pm-all`` (``announce``: the round's pairings and windows, and/or the standings), and
    opt-in reminders to ``reminder_players`` (``"all"`` or names) ``reminder_hours`` before a window
    closes on a board with games still due."""

    team: str | None = None
    announce: tuple[Announcement, ...] = ()
    standings_top: int = 10
    reminders: bool = False
    reminder_hours: float = 24.0
    reminder_players: tuple[str, ...] | Literal["all"] = ()


@dataclass(frozen=True)
class Notify:
    """Where the end of a run tells TDs and players what is new (``[notify]``)."""

    webhooks: tuple[Webhook, ...] = ()
    timeout_s: float = 10.0
    lichess: LichessNotify = LichessNotify()


@dataclass(frozen=True)
class Schedule:
    """When ``antichess-td serve`` runs the nightly flow: a 5-field cron line in an IANA time zone."""

    cron: str = "0 3 * * *"
    timezone: str = "UTC"
    closing_day_cron: str | None = None  # a second schedule: refresh runs (``nightly --refresh``) on closing days


@dataclass(frozen=True)
class Attention:
    """The attention list (``antichess-td attention``): a board match with games still due is listed
    once at most ``days_left`` days are left in its round window."""

    days_left: int = 2


@dataclass(frozen=True)
class Eligibility:
    """TEAM-ELIG-1..7 (relative to the registration time) and ACWC-ELIG-1..3 (fixed dates)."""

    min_account_age_months: int  # TEAM-ELIG-1
    min_rated_games: int  # TEAM-ELIG-2, ACWC-ELIG-2
    min_recent_games: int  # TEAM-ELIG-3
    recent_months: int  # TEAM-ELIG-3
    cheat_months_one: int = 12  # TEAM-ELIG-4: no cheat-detected game in the months before registration
    cheat_months_two: int = 24  # TEAM-ELIG-4: not two in these months
    pairings_announced_at: dt.datetime | None = None  # TEAM-ELIG-7; None: the first stage's first_round_start
    provisional_rd: float = 110.0  # TEAM-ELIG-7: Lichess's provisional threshold (RD >= 110)
    assumed_volatility: float = 0.09  # TEAM-ELIG-7: the Glicko-2 volatility with which an RD estimate decays
    created_before: dt.datetime = dt.datetime(2021, 3, 1, tzinfo=dt.UTC)  # ACWC-ELIG-1
    games_before: dt.datetime = dt.datetime(2021, 9, 1, tzinfo=dt.UTC)  # ACWC-ELIG-2
    one_cheat_since: dt.datetime = dt.datetime(2020, 9, 1, tzinfo=dt.UTC)  # ACWC-ELIG-3: one cheat-detected game
    two_cheats_since: dt.datetime = dt.datetime(2018, 9, 1, tzinfo=dt.UTC)  # ACWC-ELIG-3: two cheat-detected games


@dataclass(frozen=True)
class RatingCap:
    cap_since: dt.date
    replace_by: dt.date
    cap_two_agm: int
    cap_one_asgm: int
    cap_one_agm: int
    cap_no_title: int
    min_cross_days: int
    max_rd: int
    hold_hours: float = 24.0  # TEAM-CAP-4: above the cap for longer than this ("more than one day")


@dataclass(frozen=True)
class AllowedSwap:
    """TEAM-COMP-4: the TDs allow this team to play boards a and b in either order."""

    team: str
    board_a: int
    board_b: int


@dataclass(frozen=True)
class Composition:
    max_titled: int  # TEAM-COMP-2: AGM-or-higher players per team
    strongest_players: tuple[str, ...]  # TEAM-COMP-3: must all be on different teams
    allowed_swaps: tuple[AllowedSwap, ...] = ()  # TEAM-COMP-4
    board_order_tolerance: int = 50  # TEAM-COMP-4: a lower board rated more than this above a higher one is an error
    substitute_max_diff: int = 100  # TEAM-COMP-5: "similar rating" of the 5th member and the player sitting out
    replacement_min_below: int = 100  # TEAM-COMP-6
    tournament_directors: tuple[str, ...] = ()  # TEAM-COMP-8: no TD captain, no two TDs on one team


@dataclass(frozen=True)
class Seeding:
    """The seeding rating (ACWC-SEED-1; TEAM-COMP-4's board order): the last post-game rating before
    ``rating_at``, averaged with the highest from ``peak_since`` to ``rating_at`` when that is set."""

    rating_at: dt.datetime | None  # None: the registration time
    peak_since: dt.datetime | None


@dataclass(frozen=True)
class Conduct:
    """TEAM-CONDUCT-1..3, ACWC-CONDUCT-1: thresholds for the evidence the audits list."""

    break_min_minutes: float = 2.0  # a gap between two games of a board match longer than this is a break
    break_max_minutes: float = 10.0  # TEAM-CONDUCT-1: a break lasts at most 10 minutes
    part_gap_max_minutes: float = 1.0  # TEAM-CONDUCT-2: at most 1 minute between parts
    forfeits_to_disqualify: int = 2  # TEAM-CONDUCT-3, ACWC-CONDUCT-1


@dataclass(frozen=True)
class Config:
    path: Path
    preset: str
    tournament_id: str
    name: str
    kind: EventKind
    boards: int
    registration_at: dt.datetime | None
    lichess: LichessSource
    paths: Paths
    stages: tuple[Stage, ...]
    eligibility: Eligibility
    rating_cap: RatingCap
    composition: Composition
    champion: str | None = None  # ACWC-Q-1/C-1: the previous champion (skips qualification), a players.csv name
    runner_up: str | None = None  # ACWC-Q-1/C-1: the previous runner-up, likewise
    schedule: Schedule = Schedule()
    seeding: Seeding = Seeding(None, None)
    conduct: Conduct = Conduct()
    site: Site = Site()
    attention: Attention = Attention()
    notify: Notify = Notify()
    # not a tournament.toml key: a run of a league (``serve --league``, ``nightly --league``) sets it,
    # and the ingest reads through the league's shared store (pipeline/lichess/league_cache.py)
    league: League | None = None

    @property
    def pairings_announced_at(self) -> dt.datetime | None:
        """TEAM-ELIG-7's moment: the configured time, else the first stage's first round start,
        else the registration time."""
        if self.eligibility.pairings_announced_at is not None:
            return self.eligibility.pairings_announced_at
        starts = [s.first_round_start for s in self.stages if s.first_round_start is not None]
        return starts[0] if starts else self.registration_at

    def stage(self, name: str) -> Stage:
        for s in self.stages:
            if s.name == name:
                return s
        raise KeyError(name)


# --------------------------------------------------------------------------- TD files


@dataclass(frozen=True)
class Member:
    """One row of teams.csv (for individual events: one player, its own entrant)."""

    entrant: str
    player_id: str
    player_name: str
    board: int
    title: str
    is_captain: bool
    seed_rating: int | None = None


@dataclass(frozen=True)
class Pairing:
    """One row of pairings.csv: entrant ``a`` against entrant ``b`` in a stage's round."""

    stage: str
    round: int
    a: str
    b: str
    window_start: dt.datetime
    window_end: dt.datetime
    line: int


ByeKind = Literal["pab", "half", "zero", "full"]


@dataclass(frozen=True)
class Bye:
    """A pairings.csv row with no ``b``: entrant ``a`` is not paired in the round, by the TD's word.

    ``kind``: ``pab`` a pairing-allocated bye (the odd entrant out; scores a win), ``full`` a
    full-point bye the TD awards, ``half`` / ``zero`` a requested bye scoring a draw / nothing.
    The scores of each kind are in pipeline/domain/standings.py; how each enters Median-Buchholz is the
    stage's buchholz_policy (pipeline/domain/tiebreak.py: FIDE Art. 16).
    """

    stage: str
    round: int
    entrant: str
    kind: ByeKind
    line: int


@dataclass(frozen=True)
class Roster:
    members: tuple[Member, ...]

    @property
    def entrants(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.entrant for m in self.members))

    def player_ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.player_id for m in self.members))

    def on_board(self, entrant: str, board: int) -> Member | None:
        for m in self.members:
            if m.entrant == entrant and m.board == board:
                return m
        return None


ACTIONS = ("forfeit", "zero_draw", "exclude_game", "include_game", "armageddon", "disqualify", "substitute", "replace")


@dataclass(frozen=True)
class Override:
    """One TD ruling from overrides.csv (format: docs/td-guide.md), kept with its reason and line.

    forfeit       subject forfeits the board (value empty) or one part (value = its clock) → the
                  opponent scores it (TEAM-DQ-1, counted for TEAM-CONDUCT-3)
    zero_draw     the board of `subject` is a 0-0 draw that counts as played (TEAM-SCORE-4)
    exclude_game  game `value` does not count (reason excluded_by_td)
    include_game  game `value` counts in its part although it is outside the window
    armageddon    the tied match of entrant `subject` is won by entrant `value` (ARM-1)
    disqualify    from this round on, `subject`'s unplayed boards go to the opponents (TEAM-DQ-1,
                  ACWC-DQ-1); value `cheating` also gives them every board `subject` played
    substitute    `value` (the team's 5th member) plays `subject`'s board in this round (TEAM-COMP-5)
    replace       `value` takes `subject`'s place from this round on (TEAM-COMP-6)
    """

    stage: str
    round: int
    subject: str
    action: str
    value: str
    reason: str
    line: int
    path: str = ""
