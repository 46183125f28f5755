"""The demo tournament: a realistic TEAM season and an ACWC 2021 qualification, deterministically.

``build_season(out, seed, teams, swiss_rounds=7)`` writes (same seed → byte-identical files)::

    out/tournament.toml, teams.csv, pairings.csv, overrides.csv   the TEAM season (12 teams by default)
    out/acwc/tournament.toml, players.csv, pairings.csv           the ACWC 2021 qualification (40 players)
    out/lichess/users.ndjson, rating-history/<id>.json, games.ndjson   one Lichess dataset for both
    out/lichess/dumps/lichess_db_antichess_rated_YYYY-MM.pgn.zst   with dumps=True: the open-database dumps
    out/PLANTED.csv(rule_id, subject, note)                       every rule violation planted on purpose
    out/truth/deviations.csv(game_id, user_id, rd_before, rd_after)   the true RD per game (not Lichess data)

Every player has an account creation date and 1,000-5,000 rated antichess games (a TEAM player:
before registration, 120-160 of them in the 3 months before it, then more during the season; an
ACWC player: over about 2.5 years). An account older than those 2.5 years played most of them
before: they are counted on its profile (``perfs.antichess.games``, which the eligibility audits
read where the stored games begin after the account was created) and only 150-300
(``STORED_GAMES``; ``stored=None``: all) are generated, plus the top-ups the rules count
(TEAM-ELIG-3's recent games; 120-160 before the ACWC seeding date, for ACWC-ELIG-2). The
generated games are rated game by game with Glicko-2 as Lichess runs it
(``pipeline.domain.glicko``): each game's ``rating`` is the pre-game integer rating and
``ratingDiff`` the change, and the rating history is the rating after each UTC day's last rated
game. Game moves come from a pool of legal antichess games played out by python-chess
(``play_out``): a game the board ended is ``variantEnd`` (the side with no pieces or no moves
wins) or a draw; a cut game is a resignation, a flag fall or an agreed draw. Each game's PGN
has the same players, clock, result and moves as its JSON.

Match games follow the round windows (TEAM-FMT-3), the parts in TEAM-SCORE-2's default order,
alternating colours; every Swiss round (1-7, or up to ``swiss_rounds``), team and ACWC, is paired
by the engine ``antichess-td pair`` runs (FIDE Dutch, pipeline.domain.dutch) from the seeding
ratings and the simulated results, so ``pair`` on the demo proposes the demo's own next round;
a field of more than 64 teams is paired by folding each score group instead (``fold_pairs``: the
engine's matching takes minutes a round at 256 teams); the top teams (TEAM-FMT-1) play semifinals, a
final and a bronze match. More Swiss rounds than 7 push the knockout, the final and the dataset's
"now" (``TEAM_END``) back by a week each.

Every planted fact holds whatever the seed: a planted count is a ``session`` of a set size, a
rating a fact compares is steered into a band by forced games (``Steer``) while the players it is
compared with sit still (quiet periods), and ``build_season`` checks each one (raising if the
generator broke it) before writing PLANTED.csv with the numbers the data holds.

Where it lives: ``calendar`` (dates, stage formats), ``world`` (``SeasonWorld``: the Glicko-2 players
and the clock-ordered games), ``players`` (usernames, outsiders, background histories), ``steering``
(forced games: ``Crossing``, ``Steer``), ``matches`` (a board's chain of games, Swiss pairing),
``state`` (the ``Season`` being generated), ``team`` and ``team_cases`` (the TEAM season and what
is planted in it), ``acwc`` (the ACWC qualification), ``checks`` (the planted facts checked against
the data) and ``dataset`` (the files written); ``league_demo`` derives the league demo's two other
events from the written season (``antichess-td demo --league``).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from pipeline.sim.season.acwc import play_acwc
from pipeline.sim.season.calendar import SWISS_ROUNDS, TEAM_START
from pipeline.sim.season.checks import check_planted_facts
from pipeline.sim.season.dataset import ACWC_TOML, TEAM_TOML, write_acwc_files, write_lichess, write_team_files
from pipeline.sim.season.matches import knockout_size
from pipeline.sim.season.state import Season
from pipeline.sim.season.team import build_team_roster, play_team
from pipeline.sim.season.team_cases import plant_team_cases

__all__ = ["ACWC_TOML", "STORED_GAMES", "SWISS_ROUNDS", "TEAM_START", "TEAM_TOML", "build_season", "knockout_size"]

log = logging.getLogger(__name__)

STORED_GAMES = (150, 300)  # an established account's history games in the stored years (the rest: on its profile)


class _PhaseClock:
    """Logs how long each phase of the build took (``antichess-td -v demo`` shows them;
    benchmarks/quickstart.py reads them)."""

    def __init__(self) -> None:
        self.last = time.perf_counter()

    def done(self, phase: str) -> None:
        now = time.perf_counter()
        log.info("demo: %s in %.2f s", phase, now - self.last)
        self.last = now


def build_season(
    out: Path,
    seed: int = 2026,
    teams: int = 12,
    games: tuple[int, int] = (1000, 5000),
    acwc_players: int = 40,
    swiss_rounds: int = SWISS_ROUNDS,
    dumps: bool = False,
    stored: tuple[int, int] | None = STORED_GAMES,
) -> dict[str, int]:
    """Write the demo tournament under `out` (`swiss_rounds`: 7 as the preset, up to teams - 1);
    returns a size summary. `dumps`: also the world as Lichess open-database dumps
    (out/lichess/dumps/, ``pipeline.sim.season.dumps``). `stored`: how many of an established
    account's `games` are played in the stored years (the rest are counted on its profile only);
    None: all of them."""
    clock = _PhaseClock()
    s = Season(seed, teams, games, swiss_rounds, stored)
    clock.done("setup (players, backgrounds, the pool of played-out games)")
    play_acwc(s, acwc_players)
    clock.done("ACWC qualification played")
    build_team_roster(s)
    plan = plant_team_cases(s)
    play_team(s, plan)
    clock.done("TEAM season played")
    traps = check_planted_facts(s, plan, games)
    clock.done("planted facts checked")
    players, n_games = write_lichess(s, out / "lichess")
    clock.done("Lichess dataset written")
    write_team_files(s, out, seed, traps)
    write_acwc_files(s, out, seed)
    clock.done("TD files written")
    written = {}
    if dumps:
        from pipeline.sim.season.dumps import write_dumps

        written = {f"dump_{k}": v for k, v in write_dumps(s, out / "lichess" / "dumps", seed).items()}
        clock.done("open-database dumps written")
    return written | {
        "players": players,
        "games": n_games,
        "planted": len(s.planted),
        "traps": len(traps),
        "teams": teams,
        "acwc_players": acwc_players,
        "swiss_rounds": swiss_rounds,
    }
