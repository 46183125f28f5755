"""What the demo generator has decided so far: the simulated world, the TEAM rosters and the ACWC
field, and the rows it will write (pairings, overrides, planted facts)."""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator

from pipeline.domain import glicko
from pipeline.sim.season.calendar import SWISS_ROUNDS, TEAM_END
from pipeline.sim.season.players import HistoryPlan, play_histories, username
from pipeline.sim.season.steering import Crossing, Steer
from pipeline.sim.season.world import Player, SeasonWorld

Pairing = tuple[str, int, str, str]  # (stage, round, a, b)
Override = tuple[str, int, str, str, str, str]  # (stage, round, subject, action, value, reason)


class Season:
    """The demo's state while it is generated (one per ``build_season``)."""

    # set as the TEAM season is planted and played (team_cases, team)
    replacement: Player  # TEAM-COMP-6: plays the disqualified player's board from round 7
    crossings: list[Crossing]
    ko_rounds: int
    # set as the ACWC qualification is played (acwc)
    acwc_few: Player  # ACWC-ELIG-2's planted player

    def __init__(
        self,
        seed: int,
        teams: int,
        games_range: tuple[int, int],
        swiss_rounds: int = SWISS_ROUNDS,
        stored: tuple[int, int] | None = None,
    ) -> None:
        if not SWISS_ROUNDS <= swiss_rounds < teams:
            raise ValueError(
                f"{swiss_rounds} Swiss rounds for {teams} teams: expected {SWISS_ROUNDS} (the planted cases "
                f"use rounds 1-7) to {teams - 1} (no rematches)"
            )
        self.world = SeasonWorld(seed)
        self.swiss_rounds = swiss_rounds
        self.team_end = TEAM_END + dt.timedelta(days=7 * (swiss_rounds - SWISS_ROUNDS))
        self.rng = self.world.rng
        self.n_teams = teams
        self.games_range = games_range
        self.stored = stored  # MIN-MAX history games generated per established account (None: all of them)
        self.taken: set[str] = set()
        self.planted: list[tuple[str, str, str]] = []
        self.roster: dict[str, list[Player]] = {}
        self.titles: dict[str, list[str]] = {}
        self.captains: dict[str, int] = {}
        self.pairings: list[Pairing] = []
        self.overrides: list[Override] = []
        self.strongest: list[str] = []
        self.steers: list[Steer] = []
        self.acwc: list[Player] = []
        self.acwc_pairings: list[Pairing] = []

    def plant(self, rule_id: str, subject: str, note: str) -> None:
        self.planted.append((rule_id, subject, note))

    def n_games(self) -> int:
        """A player's number of history games: mostly in the lower quarter of the range."""
        lo, hi = self.games_range
        return (
            self.rng.randint(lo, min(hi, lo + (hi - lo) // 4)) if self.rng.random() < 0.85 else self.rng.randint(lo, hi)
        )

    def player(self, strength: float, created: dt.datetime) -> Player:
        return Player(username(self.rng, self.taken), created, strength, glicko.DEFAULT)

    def play_histories(
        self, players: list[Player], end: dt.datetime, outsiders: list[Player], plan: HistoryPlan
    ) -> None:
        play_histories(
            self.world, players, end, outsiders, plan, self.n_games, self.games_range[0] >= 1000, self.stored
        )

    def team_members(self) -> list[Player]:
        return [p for ms_ in self.roster.values() for p in ms_]

    def cap_of(self, team: str) -> int:
        """TEAM-CAP-1: the team's rating cap by its titles."""
        titles = self.titles[team]
        agm_plus = sum(t in ("AGM", "ASGM") for t in titles)
        if agm_plus >= 2:
            return 2000
        if "ASGM" in titles:
            return 2100
        if "AGM" in titles:
            return 2150
        return 2200

    @contextlib.contextmanager
    def replaced(self, team: str, player: Player) -> Iterator[None]:
        """TEAM-COMP-6: the replacement plays `player`'s board of `team` (from the round the TD's
        `replace` ruling names, and in every later stage) while the block runs; the roster keeps
        the registered player for everything else (histories, registration, checks)."""
        seat = self.roster[team].index(player)
        self.roster[team][seat] = self.replacement
        try:
            yield
        finally:
            self.roster[team][seat] = player
